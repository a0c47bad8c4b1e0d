"""The six TDQS dimensions, each scored 1-5 from the language analysis and the context signals.

Every scorer returns ``(score, justification)``; the justification names the evidence (the phrase
that earned the point, or what is missing) and what would earn more. Nothing here counts length
for its own sake: the description earns credit only for value beyond the schema and annotations.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scoring.cues import SAFETY_CATEGORIES
from scoring.language import Analysis, idle_padding
from scoring.signals import ContextSignals, Hint, described_parameters
from scoring.toolset import Siblings
from scoring.words import STATE_CHANGING, count_words, normalized, quote

QUESTIONS: dict[str, str] = {
    "purpose": "Does the description clearly state what the tool does and how it differs from similar tools?",
    "usage_guidelines": "Does it explain when to use this tool, when not to, or what alternatives exist?",
    "behavior": "Does the description disclose side effects, auth requirements, rate limits, or destructive "
    "behavior beyond what annotations declare?",
    "parameters": "Does the description clarify parameter syntax, constraints, interactions, or defaults "
    "beyond what the schema provides?",
    "conciseness": "Is the description appropriately sized, front-loaded, and free of redundancy?",
    "completeness": "Given the tool's complexity, does the description cover enough for an agent to succeed "
    "on first attempt?",
}

Scored = tuple[int, str]
# Disclosures that only claim the call is safe; on their own, without annotations, they earn partial credit.


@dataclass
class ToolView:
    """One tool as the dimension scorers see it."""

    name: str
    description: str
    signals: ContextSignals
    analysis: Analysis
    siblings: Siblings
    params: dict[str, Any]
    tautological: bool = False
    contradiction: str | None = None
    closest_sibling: str | None = None
    schema_problem: str | None = None  # why the input schema is missing or unusable

    @property
    def annotated(self) -> bool:
        return bool(self.signals["hasAnnotations"])

    def hint(self, key: Hint) -> bool | None:
        return self.signals["annotationValues"][key]


def _sibling_hint(view: ToolView) -> str:
    """The sibling an author would most likely need to set this tool apart from."""
    if view.closest_sibling is None:
        ranked = view.siblings.alternative()
        view.closest_sibling = f"`{ranked}`" if ranked else "a similar tool"
    return view.closest_sibling


def is_tautological(description: str, name: str, title: str | None) -> bool:
    """The description, lower-cased and trimmed, only restates the name or the title."""
    said = description.strip().lower().rstrip(".")
    candidates = {name.lower(), normalized(name)} | ({title.lower(), normalized(title)} if title else set())
    return said in candidates or normalized(said) in candidates


def annotation_contradiction(view: ToolView) -> str | None:
    """What the description says against the annotations, or None."""
    analysis = view.analysis
    if view.hint("readOnly") is True and analysis.verb in STATE_CHANGING:
        said = quote(analysis.purpose_clause)
        return f"readOnlyHint is true but the description says it will {analysis.verb} ({said})"
    if view.hint("destructive") is True and analysis.safety_claim:
        return f"destructiveHint is true but the description claims {quote(analysis.safety_claim)}"
    if view.hint("readOnly") is False and analysis.safety_claim:
        return f"readOnlyHint is false but the description claims {quote(analysis.safety_claim)}"
    if view.hint("readOnly") is True and view.hint("destructive") is True:
        return "readOnlyHint and destructiveHint are both true; a read-only tool cannot destroy anything"
    return None


def purpose(view: ToolView) -> Scored:
    a = view.analysis
    if not a.sentences:
        said = (
            f"Only assertive or promotional wording ({quote(a.set_aside[0])})" if a.set_aside else "No words"
        )
        return 1, f"{said}, which earns nothing. State what the tool does with a specific verb and resource."
    others = [s for s in a.siblings_named if s != view.name]
    if a.verb_kind and a.verb_kind != "vague" and a.resource:
        stated = f"States '{a.verb}' on '{a.resource}' ({quote(a.purpose_clause)})"
        if others or a.differentiation:
            evidence = (
                f"names {', '.join(f'`{s}`' for s in others)}" if others else quote(a.differentiation[0])
            )
            score, text = 5, f"{stated} and sets it apart from other tools ({evidence})."
        else:
            score, text = (
                4,
                (
                    f"{stated}, but nothing sets it apart from {_sibling_hint(view)}: "
                    "say what it covers that "
                    "others do not, or what it leaves out."
                ),
            )
    elif a.verb_kind and a.verb_kind != "vague":
        score, text = (
            3,
            (
                f"Has the verb '{a.verb}' but no specific object ({quote(a.purpose_clause)}); "
                "name the resource it acts on (which records, files, pages) to earn more."
            ),
        )
    elif a.verb_kind == "vague":
        score = 3 if a.resource else (1 if a.words < 3 else 2)
        text = (
            f"The verb '{a.verb}' is vague ({quote(a.purpose_clause)}); say exactly what it does "
            "(fetch, create, convert …) and to what."
        )
    else:
        score = 3 if len(a.purpose_clause.split()) >= 3 else 2
        text = (
            f"No action verb leads the description ({quote(a.purpose_clause)}); start with what it does, "
            "e.g. 'Search … by …', 'Create a …'."
        )
    if view.tautological:
        score = min(score, 2 if a.words > 1 or a.verb_kind not in (None, "vague") else 1)
        text = (
            f"The description only restates the name ({quote(view.description)}). "
            "Say what it does with a specific verb and resource, and how it differs from its siblings."
        )
    return score, text


def usage_guidelines(view: ToolView, purpose_score: int) -> Scored:
    a = view.analysis
    others = [s for s in a.siblings_named if s != view.name]
    named = ", ".join(f"`{s}`" for s in others)
    when = a.usage_when + [s for s in a.usage_when_not if s not in a.usage_when]
    if others and when:
        return 5, f"Names the alternative {named} and says when: {quote(when[0])}."
    if a.usage_when and a.usage_when_not:
        return (
            5,
            f"Says when to use it ({quote(a.usage_when[0])}) and when not ({quote(a.usage_when_not[0])}).",
        )
    if others:
        return 4, (
            f"Names the sibling {named}, but does not say when to prefer which; add 'use {others[0]} "
            "instead when …' to earn full marks."
        )
    if when:
        return 4, (
            f"Gives clear context ({quote(when[0])}) but names no alternative or exclusion: say when "
            f"{_sibling_hint(view)} is the better call."
        )
    if a.usage_implied:
        return 3, (
            f"Usage is only implied ({quote(a.usage_implied[0])}); say explicitly when to call it, when not, "
            f"and name the alternative (e.g. {_sibling_hint(view)})."
        )
    if a.priority:
        return 1, (
            f"Only a priority instruction ({quote(a.priority[0])}), "
            "which earns nothing and signals a tool-set "
            "problem; say when to use it and when a sibling fits better."
        )
    if purpose_score <= 1:
        return 1, (
            "Nothing to go on: without a stated purpose an agent cannot tell when to call it. "
            "State what it does first, then say when to use it."
        )
    return 2, (
        f"No guidance on when to use it or when not; add 'Use when …; for … use {_sibling_hint(view)}' "
        "to earn more."
    )


def behavior(view: ToolView, purpose_score: int) -> Scored:
    a = view.analysis
    if view.contradiction:
        return 1, f"Contradicts its annotations: {view.contradiction}. Make the text and the hints agree."
    if a.false_claim:
        return 1, f"A false safety claim: {a.false_claim}. Say what it changes instead."
    disclosed = dict(a.disclosures)
    if view.hint("readOnly") is True:
        disclosed.pop("read-only", None)  # repeating the annotation earns nothing
    count = len(disclosed)
    mutating = a.verb_kind in {"create", "update", "delete"} or view.hint("destructive") is True
    if not view.annotated and "read-only" in disclosed:
        count += 1  # the text carries the safety profile annotations would have declared
    if mutating and {"destruction", "side effects"} & disclosed.keys():
        count += 1  # for a mutation, what it changes is the disclosure that matters most
    # One disclosure earns a point, two another (Glama: 2.7 and 3.5 without annotations), four a full account.
    earned = (count >= 1) + (count >= 2) + (count >= 4)
    if view.annotated:
        score = min(5, 3 + earned)
        bar = "annotations declare the safety profile"
    else:
        score = 2 + earned
        bar = "there are no annotations, so the description carries the full burden"
    if purpose_score <= 1 and count == 0:
        score = 1
    wanted = (("what it changes or destroys", "destruction"),) if mutating else ()
    missing = [
        label
        for label, key in (
            *wanted,
            ("errors", "errors"),
            ("the return shape", "return shape"),
            ("limits", "scope and limits"),
            ("auth or rate limits", "authentication"),
        )
        if key not in disclosed
    ]
    if mutating and not ({"destruction", "side effects", "idempotence"} & disclosed.keys()) and score > 3:
        score = 3
    if not view.annotated and not (disclosed.keys() - SAFETY_CATEGORIES):
        score = min(score, 3)  # a safety claim nothing declares earns partial credit only
    if disclosed:
        shown = "; ".join(
            f"{category}: {quote(evidence, 60)}" for category, evidence in list(disclosed.items())[:3]
        )
        text = f"Discloses {shown}; {bar}."
    else:
        text = f"Discloses no behaviour beyond the action itself; {bar}."
    if score < 5 and missing:
        text += f" Say {', '.join(missing[:3])} to earn more."
    return score, text


def unusable_input_schema(view: ToolView) -> Scored | None:
    """Parameters 1 when the input schema is unusable, whatever the description says in any language."""
    if not view.schema_problem:
        return None
    return 1, (
        f"The input schema is unusable ({view.schema_problem}), so an agent cannot tell what to pass; "
        'declare {"type": "object", "properties": {…}} (an empty one for no parameters) to earn more.'
    )


def parameters(view: ToolView) -> Scored:
    a, signals = view.analysis, view.signals
    count = signals["paramCount"]
    if unusable := unusable_input_schema(view):
        return unusable
    if count == 0:
        covered = a.disclosures.get("scope and limits") or a.disclosures.get("return shape")
        if covered:
            return 5, f"Takes no parameters and says what a call covers without input ({quote(covered, 70)})."
        return 4, (
            "Takes no parameters, so the schema needs no explaining (baseline 4); say what a call covers "
            "without input (e.g. 'returns every …') to earn 5."
        )
    described = described_parameters(view.params)
    documented = described | set(a.params_documented)
    coverage = len(documented) / count
    undocumented = [name for name in view.params if name not in documented]
    if coverage >= 0.5:
        base = 3
    elif coverage >= 0.25 or count == 1:
        base = 2  # one undocumented parameter is a gap; several are the agent's guesswork
    else:
        base = 1
    explained = a.params_explained
    bonus = 0 if not explained else 2 if len(explained) >= 2 and len(explained) * 2 >= count else 1
    score = min(5, base + bonus)
    schema_part = f"the schema describes {len(described)} of {count}"
    if a.params_documented.keys() - described:
        schema_part += f" and the text documents {', '.join(sorted(a.params_documented.keys() - described))}"
    if explained:
        name, clause = next(iter(explained.items()))
        text = f"Adds meaning beyond the schema for `{name}` ({quote(clause, 70)}); {schema_part}."
    else:
        text = f"Coverage baseline {base}: {schema_part}, and the text adds nothing beyond the schema."
    if undocumented:
        text += f" Document {', '.join(f'`{n}`' for n in undocumented[:3])} (meaning, format, default)."
    elif score < 5:
        text += " Explain formats, defaults, ranges or how parameters interact to earn more."
    return score, text


def word_budget(signals: ContextSignals) -> tuple[int, int]:
    """(fewest, most) words a description of this complexity should take."""
    params = min(signals["paramCount"], 10)
    nested = 1 if signals["hasNestedObjects"] or signals["unionChoiceCount"] else 0
    return 3 + 2 * min(params, 8), 40 + 15 * params + 20 * nested


# The fewest informative words a description takes: what the tool does (about six words), and for each
# parameter that neither its schema nor the text documents, the words the description must carry for it.
# A parameter the schema describes needs no words here: saying it again is redundancy, not substance.
_PURPOSE_WORDS = 6
_WORDS_PER_BARE_PARAMETER = 2


def needed_words(bare: int) -> int:
    """The fewest informative words for a tool with ``bare`` parameters that nothing documents."""
    return _PURPOSE_WORDS + _WORDS_PER_BARE_PARAMETER * min(bare, 8)


def undocumented_parameters(view: ToolView) -> list[str]:
    """The parameters neither the schema nor the text documents, in schema order."""
    documented = described_parameters(view.params) | set(view.analysis.params_documented)
    return [name for name in view.params if name not in documented]


def conciseness(view: ToolView) -> Scored:
    a, signals = view.analysis, view.signals
    _, most = word_budget(signals)
    # Only sentences that say something count towards enough words; padding and boasts do not.
    informative = sum(count_words(sentence) for sentence in a.sentences)
    if informative < 4:
        return 2, (
            f"{informative} informative word(s) ({quote(view.description)}): under-specification is not "
            "conciseness. One sentence with what it does and to what would earn more."
        )
    issues: list[str] = []
    bare = undocumented_parameters(view)
    fewest = needed_words(len(bare))
    if informative < fewest:
        named = ", ".join(f"`{name}`" for name in bare[:3]) + (" …" if len(bare) > 3 else "")
        left = f"{len(bare)} parameter(s) nothing documents ({named})" if bare else "what the tool does"
        short = f"{informative} words are too few to cover {left} (about {fewest}+)"
        # Half the words needed or fewer: the description leaves most of what an agent needs unsaid.
        issues += [short] * (2 if informative * 2 <= fewest else 1)
    if a.words > most:
        over = a.words / most
        issues += [f"{a.words} words for a tool of this size (about {most} would do)"] * (
            1 if over <= 2 else 2 if over <= 4 else 3 if over <= 8 else 4
        )
    # A verb in the first words, or an opening noun phrase naming the subject ("Delegation chain scan of
    # skill file content."), puts the purpose first; a price, a label or a word for the tool itself does not.
    if a.sentences and (a.verb_position is None or a.verb_position > 3) and not a.subject_first:
        issues.append(f"the purpose is not front-loaded (opens with {quote(a.sentences[0], 50)})")
    if a.filler or a.lead_in:
        issues.append(f"filler ({quote((a.filler or [a.lead_in or ''])[0], 40)})")
    if a.set_aside:
        issues.append(f"assertive or promotional wording that earns nothing ({quote(a.set_aside[0], 50)})")
    if idle := idle_padding(a):
        issues.append(f"a sentence that adds nothing ({quote(idle[0], 50)})")
    if a.duplicate_sentences:
        issues.append(f"a repeated sentence ({quote(a.duplicate_sentences[0], 50)})")
    if len(a.schema_restatements) >= 2:
        issues.append(f"restates the schema ({quote(a.schema_restatements[0], 50)})")
    score = max(1, 5 - len(issues))
    sentences = len(a.sentences) + len(a.set_aside)
    if not issues:
        first = "purpose first" + (f" (the subject: {quote(a.subject_first, 50)})" if a.subject_first else "")
        rest = (
            f"{quote(a.padding[0], 50)} says nothing specific, so it earns nothing, but it repeats nothing"
            if a.padding
            else "every sentence earns its place"
        )
        return score, f"{sentences} sentence(s), {a.words} words, {first}; {rest}."
    unique = list(dict.fromkeys(issues))
    return score, f"{sentences} sentence(s), {a.words} words; " + "; ".join(
        unique[:3]
    ) + ". Fix that to earn more."


def completeness(view: ToolView, scores: dict[str, int]) -> Scored:
    """One point for each thing an agent needs that the definition covers, from 1; only evidence counts."""
    a, signals = view.analysis, view.signals
    count = signals["paramCount"]
    complex_tool = count >= 5 or signals["invocationCost"] >= 6
    described = signals["paramsWithDescriptions"] + len(
        set(a.params_documented)
        - {
            name
            for name, schema in view.params.items()
            if isinstance(schema, dict) and schema.get("description")
        }
    )
    coverage = 1.0 if count == 0 else described / count
    behaviour = {key for key in a.disclosures if key != "return shape"}
    returns_known = signals["hasOutputSchema"] or "return shape" in a.disclosures
    usage = bool(a.usage_when or a.usage_when_not or [s for s in a.siblings_named if s != view.name])
    mutating = a.verb_kind in {"create", "update", "delete"} or view.hint("destructive") is True
    covered = [
        (scores.get("purpose", 5) >= 4, "what it acts on", "a specific verb and resource"),
        (
            coverage >= 0.8,
            "the parameters' meaning",
            f"{count - described} of {count} parameters undocumented",
        ),
        (bool(behaviour) or view.annotated, "its behaviour", "no annotations and no behaviour disclosed"),
        (
            returns_known,
            "the return value",
            "the return value is not described and there is no output schema",
        ),
        (usage, "when to use it", "nothing on when to use it or what else to use"),
    ]
    score = 1 + sum(1 for have, _, _ in covered if have)
    gaps = [gap for have, _, gap in covered if not have]
    if count and coverage < 0.5:
        gaps[gaps.index(covered[1][2])] = f"only {described} of {count} parameters are documented"
    if complex_tool and not a.params_explained:
        score -= 1
        gaps.append(f"{count} parameters but no parameter semantics or example")
    if mutating and not ({"destruction", "side effects", "idempotence"} & a.disclosures.keys()):
        score -= 1
        gaps.append("it changes state but never says what it changes")
    score = max(1, min(5, score))
    have = [label for has, label, _ in covered if has]
    context = f"For {count} parameter(s)" + (
        f" (invocation cost {signals['invocationCost']})" if complex_tool else ""
    )
    if not gaps:
        return score, f"{context}: covers {', '.join(have)}; nothing is missing."
    unique = list(dict.fromkeys(gaps))
    text = f"{context}: {'; '.join(unique[:3])}."
    if have:
        text = f"{text[:-1]}; covers {', '.join(have)}."
    return score, text + " Close these gaps to earn more."


def score_dimensions(view: ToolView) -> dict[str, Scored]:
    """All six dimensions of one described tool, in rubric order."""
    results: dict[str, Scored] = {"purpose": purpose(view)}
    purpose_score = results["purpose"][0]
    results["usage_guidelines"] = usage_guidelines(view, purpose_score)
    results["behavior"] = behavior(view, purpose_score)
    results["parameters"] = parameters(view)
    results["conciseness"] = conciseness(view)
    results["completeness"] = completeness(view, {key: value[0] for key, value in results.items()})
    return results
