"""The six dimensions of a description that is not in English, scored on its structure alone.

The analysis reads English; for any other language what can be judged is what every language shares:
whether there is a description at all and how long it is for the tool's schema, sentences repeated,
sibling tools and parameters named by their exact identifiers, further statements after the purpose,
the schema's own coverage, the annotations and the output schema. What needs the words themselves (a
purpose verb, when to use it, disclosed behaviour) is neither credited nor held against the tool: it
gets the score most English descriptions of real servers earn there, so the same content scores about
the same in any language. Every justification says it was scored on structure and names the language.
"""

from __future__ import annotations

import math
import re

from scoring import lexicon
from scoring.dimensions import Scored, ToolView, unusable_input_schema, word_budget
from scoring.languages import iso_code, language_of
from scoring.signals import described_parameters
from scoring.toolset import name_verb
from scoring.words import VERB_KIND, is_identifier, split_sentences

# A prose word in any script; runs of Chinese, Japanese or Korean letters count two letters a word.
_WORD = re.compile(r"[^\W\d_][\w'’-]*")
_WIDE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*•]|\d+[.)])[ \t].*$", re.MULTILINE)
# Further statements that make a description as rich as English ones that say when and how it behaves.
_RICH = 3
# Further statements from which English descriptions mostly disclose behaviour (Behavior 3 on average).
_DISCLOSING = 2


def words_in(text: str) -> int:
    """Words of text in any language; for Chinese, Japanese or Korean about two letters make a word."""
    wide = len(_WIDE.findall(text))
    return len(_WORD.findall(_WIDE.sub(" ", text))) + (wide + 1) // 2


def _lead(view: ToolView) -> str:
    return f"Structure only (the description is in {language_of(view.description)}, which is not analysed)"


def _mentioned(view: ToolView) -> list[str]:
    """Parameters the text names by their exact identifier (an identifier reads the same in any language)."""
    tokens = set(re.findall(r"[\w.-]+", view.description))
    return [name for name in view.params if name in tokens]


def further_statements(description: str) -> int:
    """Sentences after the first that state something new: four words or more, two of them not used in
    an earlier sentence, and one that says something specific (a number, an identifier, or a word rare
    in the description's language as wordfreq counts it, as the English evidence is judged), so that
    filler ("This tool is very useful for many tasks") is no statement. In English such sentences mostly
    say when to use the tool and what it does beyond its purpose; in any language their count is the
    structure that tracks it. List items are not counted: they enumerate fields or options rather than
    say when or how."""
    language = iso_code(language_of(description))
    seen: set[str] = set()
    count = 0
    prose = _LIST_ITEM.sub("", description)
    for index, sentence in enumerate(split_sentences(prose)):
        words = {word.lower() for word in _WORD.findall(sentence)}
        if index and words_in(sentence) >= 4 and len(words - seen) >= 2 and _specific(sentence, language):
            count += 1
        seen |= words
    return count


def _specific(sentence: str, language: str | None) -> bool:
    """Whether the sentence holds a number, an identifier or a word rare in ``language``; without
    word frequencies for the language (a script other than Latin), every sentence may."""
    if language is None or any(char.isdigit() for char in sentence):
        return True
    tokens = re.findall(r"[\w.-]+", sentence)
    return any(is_identifier(token) for token in tokens) or any(
        not lexicon.is_generic_in(word, language) for word in _WORD.findall(sentence) if len(word) > 2
    )


def purpose(view: ToolView, words: int) -> Scored:
    siblings = view.analysis.siblings_named
    if view.tautological or words < 3:
        return (
            2,
            f"{_lead(view)}: {words} word(s) can hardly state a purpose; say what the tool does and to what.",
        )
    if siblings:
        return (
            5,
            f"{_lead(view)}: a stated purpose that names the sibling `{siblings[0]}`, which sets it apart.",
        )
    return 4, (
        f"{_lead(view)}: {words} words state a purpose that cannot be verified here; naming the sibling it "
        "differs from by its identifier would earn 5 in any language."
    )


def usage(view: ToolView, statements: int) -> Scored:
    siblings = view.analysis.siblings_named
    if siblings:
        return (
            4,
            f"{_lead(view)}: names the sibling `{siblings[0]}`, which implies a boundary between the two.",
        )
    if statements >= _RICH:
        return 3, (
            f"{_lead(view)}: {statements} further statements after the purpose, where descriptions usually "
            "say when to use a tool; naming the sibling to use instead would earn more in any language."
        )
    return 2, f"{_lead(view)}: no sibling tool is named, so no boundary of use can be seen."


def behavior(view: ToolView, statements: int) -> Scored:
    carried = "annotations declare the safety profile" if view.annotated else "there are no annotations"
    if statements >= _DISCLOSING:
        return 3, f"{_lead(view)}: {carried}; {statements} further statements may disclose more, unverified."
    return 2, f"{_lead(view)}: {carried}; what the text discloses cannot be verified here."


def parameters(view: ToolView, statements: int) -> Scored:
    count = view.signals["paramCount"]
    if unusable := unusable_input_schema(view):
        return unusable[0], f"{_lead(view)}: {unusable[1]}"
    if count == 0:
        return 4, f"{_lead(view)}: takes no parameters, so the schema needs no explaining (baseline 4)."
    described = described_parameters(view.params)
    documented = described | set(_mentioned(view))
    coverage = len(documented) / count
    score = 3 if coverage >= 0.5 else 2 if coverage >= 0.25 or count == 1 else 1
    text = f"{_lead(view)}: the schema describes {len(described)} of {count} parameters"
    if documented - described:
        text += f" and the text names {', '.join(f'`{name}`' for name in sorted(documented - described))}"
    if statements >= _RICH and documented:
        return min(5, score + 1), text + f"; {statements} further statements may explain them, unverified."
    return score, text + "; what the text says of them cannot be verified here."


# How many faults the English Conciseness finds that a foreign text hides (a purpose not front-loaded,
# filler, promotion, a sentence about the tool itself or saying nothing new, the schema restated), on
# average over real English descriptions with 0, 1, 2 and 3 or more further statements (the corpus,
# 0.01, 0.16, 0.15 and 0.29, rounded half-up to tenths): the more a description goes on, the likelier it
# pads, though never by half a fault on average.
_HIDDEN_FAULTS = (0.0, 0.2, 0.2, 0.3)


def conciseness(view: ToolView, words: int, statements: int) -> Scored:
    fewest, most = word_budget(view.signals)
    issues = []
    if words < fewest:
        issues.append(f"{words} words are few for {view.signals['paramCount']} parameters (about {fewest}+)")
    if words > most:
        over = words / most
        issues += [f"{words} words for a tool of this size (about {most} would do)"] * (
            1 if over <= 2 else 2 if over <= 4 else 3 if over <= 8 else 4
        )
    if view.analysis.duplicate_sentences:
        issues.append("a repeated sentence")
    hidden = _HIDDEN_FAULTS[min(statements, 3)]
    score = 2 if words < 4 else max(1, math.floor(5 - len(issues) - hidden + 0.5))
    if hidden >= 0.5:
        issues.append(
            f"{statements} further statements, where English descriptions as long average {hidden} "
            "fault(s) of wording that cannot be read here"
        )
    if not issues:
        return score, f"{_lead(view)}: {words} words, within the budget for this tool; nothing is repeated."
    return score, f"{_lead(view)}: " + "; ".join(dict.fromkeys(issues)) + "."


# How often real English descriptions with 0, 1, 2 and 3 or more further statements disclose what the
# English Completeness counts and a foreign text hides: behaviour beyond the action, the return value,
# when to use the tool, the parameters' semantics, and what a tool that changes state changes. Measured
# with the English analysis on the corpus of real servers' tools, rounded to tenths.
_DISCLOSED = {
    "its behaviour": (0.0, 0.1, 0.5, 0.7),
    "the return value": (0.0, 0.2, 0.4, 0.4),
    "when to use it": (0.0, 0.2, 0.2, 0.4),
    "parameter semantics": (0.0, 0.2, 0.1, 0.6),
    "what it changes": (0.0, 0.0, 0.1, 0.1),
}


def _likely(item: str, statements: int) -> float:
    """How likely an English description of as many further statements covers ``item``."""
    return _DISCLOSED[item][min(statements, 3)]


def completeness(view: ToolView, words: int, statements: int) -> Scored:
    """The English Completeness (one point from 1 for each thing covered, less one for each thing a
    complex or state-changing tool leaves unsaid), with what the text may say counted at the rate English
    descriptions of as many statements say it: what the structure shows is credited, the rest expected."""
    signals, count = view.signals, view.signals["paramCount"]
    mentioned = [
        name
        for name in _mentioned(view)
        if not (isinstance(view.params[name], dict) and view.params[name].get("description"))
    ]
    described = signals["paramsWithDescriptions"] + len(mentioned)
    coverage = 1.0 if count == 0 else described / count
    complex_tool = count >= 5 or signals["invocationCost"] >= 6
    verb, _ = name_verb(view.name)
    mutating = (verb is not None and VERB_KIND[verb] in {"create", "update", "delete"}) or view.hint(
        "destructive"
    ) is True
    covered = [
        (purpose(view, words)[0] >= 4, "what it acts on", "too few words to state a purpose"),
        (
            coverage >= 0.8,
            "the parameters' meaning",
            f"only {described} of {count} parameters are documented",
        ),
        (view.annotated, "its behaviour", "no annotations, and no behaviour disclosure can be seen"),
        (
            signals["hasOutputSchema"],
            "the return value",
            "no output schema, and no description of the return value can be seen",
        ),
        (
            bool(view.analysis.siblings_named),
            "when to use it",
            "no sibling named, so no boundary of use can be seen",
        ),
    ]
    expected = 1.0 + sum(1.0 if have else _likely(label, statements) for have, label, _ in covered[2:])
    expected += sum(1 for have, _, _ in covered[:2] if have)
    gaps = [gap for have, _, gap in covered if not have]
    if complex_tool:
        expected -= 1 - _likely("parameter semantics", statements)
        gaps.append(f"{count} parameters, and no parameter semantics or example can be seen")
    if mutating:
        expected -= 1 - _likely("what it changes", statements)
        gaps.append("its name says it changes state, and what it changes cannot be seen")
    score = max(1, min(5, math.floor(expected + 0.5)))
    have = [label for has, label, _ in covered if has]
    text = f"{_lead(view)}: for {count} parameter(s)"
    if not gaps:
        return score, f"{text} nothing structural is missing."
    text += f", {'; '.join(gaps)}"
    if have:
        text += f"; covers {', '.join(have)}"
    return (
        score,
        text + f"; what {statements} further statement(s) say is counted at the rate English ones say it.",
    )


def structure_dimensions(view: ToolView) -> dict[str, Scored]:
    """All six dimensions of a described tool whose description is not in English, in rubric order."""
    words, statements = words_in(view.description), further_statements(view.description)
    return {
        "purpose": purpose(view, words),
        "usage_guidelines": usage(view, statements),
        "behavior": behavior(view, statements),
        "parameters": parameters(view, statements),
        "conciseness": conciseness(view, words, statements),
        "completeness": completeness(view, words, statements),
    }
