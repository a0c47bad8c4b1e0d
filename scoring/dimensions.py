"""The six TDQS dimensions of one English description, each with the sentences that earned it.

Purpose and Usage Guidelines follow the rubric's anchors on the labels of the specific sentences
(Glama publishes too few of either to fit anything); Behavior, Parameters, Conciseness and
Completeness are the fitted weighted sums of ``scoring.mapping``. Every justification quotes the
sentences that earned the score, with their labels, and, below 5, names what would earn more.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from scoring.mapping import Mapping, evidence, shipped_mapping
from scoring.reading import ReadUnit
from scoring.signals import ContextSignals, Hint, described_parameters
from scoring.tool_reading import ToolReading
from scoring.words import STATE_CHANGING, normalized, quote

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
_QUOTED = 70  # characters of a sentence a justification quotes


@dataclass
class ToolView:
    """One tool as the dimension scorers see it."""

    name: str
    description: str
    title: str | None
    signals: ContextSignals
    reading: ToolReading
    params: dict[str, Any]
    confusable: tuple[str, ...] = ()  # siblings whose descriptions read like this one's
    likeliest: str | None = None  # the sibling whose name says the same kind of action on the same thing
    tautological: bool = False
    contradiction: str | None = None
    false_claim: str | None = None
    schema_problem: str | None = None  # why the input schema is missing or unusable
    mapping: Mapping = field(default_factory=shipped_mapping)

    @property
    def annotated(self) -> bool:
        return bool(self.signals["hasAnnotations"])

    def hint(self, key: Hint) -> bool | None:
        return self.signals["annotationValues"][key]


def said(units: Sequence[ReadUnit], limit: int = 2) -> str:
    """The first ``limit`` units quoted with their labels: 'Returns at most 100 rows.' [limits]."""
    return "; ".join(f"{quote(unit.text, _QUOTED)} [{', '.join(unit.labels)}]" for unit in units[:limit])


def is_tautological(description: str, name: str) -> bool:
    """The description, lower-cased and trimmed, only restates the tool's name."""
    text = description.strip().lower().rstrip(".")
    return text in (name.lower(), normalized(name)) or normalized(text) == normalized(name)


def repeats_title(description: str, title: str | None) -> bool:
    """The description is the title again: noted, since a client shows both, but no fault of the text."""
    return bool(title) and normalized(description) == normalized(title or "")


def annotation_contradiction(view: ToolView, claim: str | None) -> str | None:
    """What the description says against the annotations, or None."""
    reading = view.reading
    verb = reading.purpose_verb
    if view.hint("readOnly") is True and verb in STATE_CHANGING:
        purpose = next((unit for unit in reading.units if "purpose" in unit.labels), None)
        shown = quote(purpose.text, _QUOTED) if purpose else "its name"
        return f"readOnlyHint is true but the description says it will {verb} ({shown})"
    if view.hint("destructive") is True and claim:
        return f"destructiveHint is true but the description claims {quote(claim)}"
    if view.hint("readOnly") is False and claim:
        return f"readOnlyHint is false but the description claims {quote(claim)}"
    if view.hint("readOnly") is True and view.hint("destructive") is True:
        return "readOnlyHint and destructiveHint are both true; a read-only tool cannot destroy anything"
    return None


def purpose(view: ToolView) -> Scored:
    reading = view.reading
    if view.tautological:
        words = len(view.description.split())
        return (2 if words > 1 else 1), (
            f"The description only restates the name ({quote(view.description)}). Say what it does to what, "
            "and how it differs from its siblings [purpose]."
        )
    if not reading.units:
        aside = reading.set_aside[0].text if reading.set_aside else ""
        what = f"Only assertive or promotional wording ({quote(aside)})" if aside else "No words"
        return 1, f"{what}, which earns nothing. State what the tool does to what [purpose]."
    specific = reading.saying("purpose")
    if not specific:
        score = 2 if any(unit.specific for unit in reading.units) else 1
        return score, (
            f"No sentence states what the tool does to what (it opens with "
            f"{quote(reading.units[0].text, _QUOTED)}). Start with its action and object, e.g. "
            "'Search … by …' [purpose]."
        )
    if reading.purpose_verb_kind == "vague":
        return 3, (
            f"The purpose is vague: {said(specific, 1)} leads with a verb that says no action (manage, "
            "handle, process …). Say exactly what it does: fetch, create, convert … [purpose]."
        )
    parts = f"States its purpose: {said(specific, 1)}"
    apart = [unit for unit in reading.units if unit.says("alternative")]
    named = [name for name in list(view.reading.siblings_named) if name in view.confusable] or list(
        view.reading.siblings_named
    )
    if apart:
        return 5, f"{parts}; and sets it apart: {said(apart, 1)}."
    if named:
        return 5, f"{parts}; and names {', '.join(f'`{n}`' for n in named[:3])} to set it apart."
    if view.confusable:
        others = ", ".join(f"`{name}`" for name in view.confusable[:2])
        return 4, (
            f"{parts}; but it reads like {others} and nothing sets it apart: say what it covers that "
            "they do not, or when to use them instead [alternative]."
        )
    other = f"`{view.likeliest}`" if view.likeliest else "other tools"
    return 4, (
        f"{parts}; nothing sets it apart from {other}: say what it covers that others do not, or what it "
        "leaves to another tool [alternative]."
    )


def usage_guidelines(view: ToolView, purpose_score: int) -> Scored:
    reading = view.reading
    usage = [unit for unit in reading.saying("usage") if "purpose" not in unit.labels]
    implied = [unit for unit in reading.saying("usage") if "purpose" in unit.labels]
    alternative = reading.saying("alternative")
    named = list(reading.siblings_named)
    if usage and (alternative or named):
        extra = said(alternative, 1) if alternative else ", ".join(f"`{n}`" for n in named[:3])
        return 5, f"Says when to use it: {said(usage, 1)}; and what else to use: {extra}."
    if alternative or named:
        extra = said(alternative, 1) if alternative else "names " + ", ".join(f"`{n}`" for n in named[:3])
        return (
            4,
            f"Says what else to use: {extra}; say also when this tool is the right call [usage] to earn 5.",
        )
    if usage:
        sibling = f" (e.g. `{view.confusable[0]}`)" if view.confusable else ""
        return 4, (
            f"Says when to use it: {said(usage, 1)}; name when not to, or the alternative{sibling} "
            "[alternative] to earn 5."
        )
    if implied:
        return 3, (
            f"Usage is only implied by the purpose: {said(implied, 1)}. Say when to call it and when another "
            "tool fits better [usage, alternative]."
        )
    if reading.priority:
        return 1, (
            f"Only a priority instruction ({quote(reading.priority[0])}), which earns nothing and signals a "
            "tool-set problem; say when to use it and when a sibling fits better [usage, alternative]."
        )
    if purpose_score <= 1:
        return 1, (
            "Nothing to go on: without a stated purpose an agent cannot tell when to call it. State what it "
            "does first, then when to use it [purpose, usage]."
        )
    return 2, (
        "No sentence says when to use it or what else to use; add 'Use when …; for … use …' "
        "[usage, alternative]."
    )


def _earn_more(view: ToolView, dimension: str, values: dict[str, float], score: int) -> str:
    """What would earn more, below 5: the absent pieces worth most, each with the label that earns it."""
    if score >= 5:
        return ""
    gaps = view.mapping.missing(dimension, values)[:3]
    return " To earn more: " + "; ".join(piece.advice for piece, _ in gaps) + "." if gaps else ""


def behavior(view: ToolView, values: dict[str, float]) -> Scored:
    if view.contradiction:
        return 1, f"Contradicts its annotations: {view.contradiction}. Make the text and the hints agree."
    if view.false_claim:
        return 1, f"A false safety claim: {view.false_claim}. Say what it changes instead [side_effect]."
    score = view.mapping.score("behavior", values)
    disclosed = [
        unit
        for unit in view.reading.units
        if unit.specific and {"side_effect", "auth", "limits", "errors", "returns"} & set(unit.labels)
    ]
    hints = [key for key, value in view.signals["annotationValues"].items() if value is not None]
    declared = (
        f"the annotations declare {', '.join(f'{key}Hint' for key in hints)}"
        if hints
        else "there are no annotations, so the text carries the whole burden"
    )
    if disclosed:
        text = f"Discloses {said(disclosed, 3)}; {declared}."
    else:
        text = f"Discloses nothing beyond the action itself; {declared}."
    if values.get("unstated_change"):
        text += " It changes state but no sentence says what it changes."
    return score, text + _earn_more(view, "behavior", values, score)


def unusable_input_schema(view: ToolView) -> Scored | None:
    """Parameters 1 when the input schema is unusable, whatever the description says in any language."""
    if not view.schema_problem:
        return None
    return 1, (
        f"The input schema is unusable ({view.schema_problem}), so an agent cannot tell what to pass; "
        'declare {"type": "object", "properties": {…}} (an empty one for no parameters) to earn more.'
    )


def parameters(view: ToolView, values: dict[str, float]) -> Scored:
    if unusable := unusable_input_schema(view):
        return unusable
    signals, reading = view.signals, view.reading
    count = signals["paramCount"]
    score = view.mapping.score("parameters", values)
    meaning = reading.saying("param_meaning")
    if count == 0:
        text = "Takes no parameters, so there is no schema to explain"
        text += f"; {said(meaning, 1)}." if meaning else "."
        advice = _earn_more(view, "parameters", values, score)
        if score < 5 and not advice:
            advice = (
                " To earn more: say what it works on in place of inputs (the current folder, the signed-in"
                " account…) [param_meaning]."
            )
        return score, text + advice
    described = described_parameters(view.params)
    in_text = sorted(name for name in view.params if name.lower() in reading.facts.documented_in_text)
    text = f"The schema describes {len(described)} of {count} parameter{'s' if count != 1 else ''}"
    if in_text:
        text += f" and the text documents {', '.join(f'`{name}`' for name in in_text[:3])}"
    text += (
        f"; {said(meaning, 2)} add meaning beyond it." if meaning else "; no sentence adds meaning beyond it."
    )
    bare = [name for name in view.params if name not in described and name not in in_text]
    if bare and score < 5:
        shown = ", ".join(f"`{name}`" for name in bare[:3])
        text += f" Document {shown} (meaning, format, default) [param_meaning]."
    return score, text + ("" if bare else _earn_more(view, "parameters", values, score))


# Fewer informative words than this cannot say what a tool does: under-specification is not conciseness.
_FEWEST_WORDS = 4


def conciseness(view: ToolView, values: dict[str, float]) -> Scored:
    reading, facts = view.reading, view.reading.facts
    score = view.mapping.score("conciseness", values)
    if facts.informative_words < _FEWEST_WORDS:
        score = min(score, 2)
    units = len(reading.units) + len(reading.set_aside) + len(reading.repeated)
    head = f"{units} sentence{'s' if units != 1 else ''}, {facts.words} word{'s' if facts.words != 1 else ''}"
    faults = []
    if values["too_short"]:
        faults.append(f"only {facts.informative_words} informative words for what it must cover")
    if values["too_long"]:
        faults.append("more words than a tool of this size needs")
    empty = [unit for unit in reading.units if not unit.specific and "param_restated" not in unit.labels]
    if empty:
        faults.append(f"{said(empty, 1)} says nothing specific")
    restated = [unit for unit in reading.units if "param_restated" in unit.labels]
    if restated:
        faults.append(f"{said(restated, 1)} only restates parameters")
    if reading.set_aside:
        faults.append(f"{quote(reading.set_aside[0].text, 50)} is assertive or promotional wording")
    if reading.repeated:
        faults.append(f"{quote(reading.repeated[0].text, 50)} is said twice")
    if values["late_purpose"] and reading.units:
        faults.append(f"the purpose is not said first (it opens with {quote(reading.units[0].text, 50)})")
    if score >= 5 or not faults:
        return score, f"{head}, purpose first; every sentence says something specific." if not faults else (
            f"{head}; nothing costs a point."
        )
    return score, f"{head}; " + "; ".join(faults[:3]) + ". Cut or fix that to earn more."


def completeness(view: ToolView, values: dict[str, float], scores: dict[str, int]) -> Scored:
    signals = view.signals
    count = signals["paramCount"]
    score = view.mapping.score("completeness", values)
    covered = []
    reading = view.reading
    if values["purpose"]:
        covered.append("what it does")
    if reading.saying("usage") or reading.saying("alternative"):
        covered.append("when to use it")
    if any(reading.saying(label) for label in ("side_effect", "auth", "limits", "errors")):
        covered.append("its behaviour")
    if signals["hasOutputSchema"]:
        covered.append("what it returns (an output schema)")
    elif reading.saying("returns"):
        covered.append("what it returns")
    if count:
        documented = round(values["parameters"] * count)
        covered.append(f"{documented} of {count} parameters")
    if values["annotated"]:
        covered.append("annotations")
    complexity = f"For {count} parameter{'s' if count != 1 else ''}"
    if signals["invocationCost"] >= 6:
        complexity += f" (invocation cost {signals['invocationCost']})"
    text = f"{complexity}: covers {', '.join(covered) if covered else 'nothing beyond its name'}."
    if values["unexplained_complexity"]:
        text += " Five or more parameters and no sentence explains how they work together."
    if values["unstated_change"]:
        text += " It changes state but never says what it changes."
    return score, text + _earn_more(view, "completeness", values, score)


def score_dimensions(view: ToolView) -> dict[str, Scored]:
    """All six dimensions of one described English tool, in rubric order."""
    values = evidence(view.reading.units, view.reading.facts)
    results: dict[str, Scored] = {"purpose": purpose(view)}
    results["usage_guidelines"] = usage_guidelines(view, results["purpose"][0])
    results["behavior"] = behavior(view, values["behavior"])
    results["parameters"] = parameters(view, values["parameters"])
    results["conciseness"] = conciseness(view, values["conciseness"])
    results["completeness"] = completeness(
        view, values["completeness"], {key: value[0] for key, value in results.items()}
    )
    if results["purpose"][0] <= 1 and (
        view.tautological or not any(unit.specific for unit in view.reading.units)
    ):
        # The rubric's "Process": with nothing said, there is no behaviour disclosed and nothing covered,
        # and with no parameter described in the schema nothing documents the parameters either.
        said_nothing_of = ["behavior", "completeness"]
        if view.signals["paramCount"] and not view.signals["paramsWithDescriptions"]:
            said_nothing_of.append("parameters")
        for key in said_nothing_of:
            results[key] = (
                1,
                (
                    "The description says nothing beyond the name, so nothing is disclosed or covered. Write "
                    "what it does, to what, and what it changes or returns [purpose, side_effect, returns]."
                ),
            )
    return results
