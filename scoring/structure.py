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

import re

from scoring.dimensions import Scored, ToolView, word_budget
from scoring.language import split_sentences
from scoring.languages import language_of
from scoring.signals import described_parameters

# A prose word in any script; runs of Chinese, Japanese or Korean letters count two letters a word.
_WORD = re.compile(r"[^\W\d_][\w'’-]*")
_WIDE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*•]|\d+[.)])[ \t].*$", re.MULTILINE)
# Further statements that make a description as rich as English ones that say when and how it behaves.
_RICH = 3


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
    an earlier sentence. In English such sentences mostly say when to use the tool and what it does
    beyond its purpose; in any language their count is the structure that tracks it. List items are
    not counted: they enumerate fields or options rather than say when or how."""
    seen: set[str] = set()
    count = 0
    prose = _LIST_ITEM.sub("", description)
    for index, sentence in enumerate(split_sentences(prose)):
        words = {word.lower() for word in _WORD.findall(sentence)}
        if index and words_in(sentence) >= 4 and len(words - seen) >= 2:
            count += 1
        seen |= words
    return count


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
    if statements >= _RICH:
        return 3, f"{_lead(view)}: {carried}; {statements} further statements may disclose more, unverified."
    return 2, f"{_lead(view)}: {carried}; what the text discloses cannot be verified here."


def parameters(view: ToolView, statements: int) -> Scored:
    count = view.signals["paramCount"]
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


def conciseness(view: ToolView, words: int) -> Scored:
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
    score = 2 if words < 4 else max(1, 5 - len(issues))
    if not issues:
        return score, f"{_lead(view)}: {words} words, within the budget for this tool; nothing is repeated."
    return score, f"{_lead(view)}: " + "; ".join(dict.fromkeys(issues)) + "."


def completeness(view: ToolView, words: int, statements: int) -> Scored:
    signals, count = view.signals, view.signals["paramCount"]
    mentioned = [
        name
        for name in _mentioned(view)
        if not (isinstance(view.params[name], dict) and view.params[name].get("description"))
    ]
    described = signals["paramsWithDescriptions"] + len(mentioned)
    coverage = 1.0 if count == 0 else described / count
    gaps = []
    if coverage < 0.5:
        gaps += [f"only {described} of {count} parameters are documented"] * 2
    elif coverage < 0.8:
        gaps.append(f"{count - described} of {count} parameters are undocumented")
    # What the text says of behaviour, the return value and parameter semantics cannot be read: a
    # description of one or two statements is taken to leave them unsaid, as most English ones do.
    said_more = statements >= 2
    complex_tool = count >= 5 or signals["invocationCost"] >= 6
    if not view.annotated and not said_more:
        gaps.append("no annotations, and no behaviour disclosure can be seen")
    if not signals["hasOutputSchema"] and (count >= 3 or complex_tool) and not said_more:
        gaps.append("no output schema, and no description of the return value can be seen")
    if complex_tool and not said_more:
        gaps.append(f"{count} parameters, and no parameter semantics or example can be seen")
    if complex_tool and words < word_budget(signals)[0]:
        gaps.append("few words for a complex tool")
    score = max(1, 5 - len(gaps))
    if not gaps:
        return score, f"{_lead(view)}: for {count} parameter(s) nothing structural is missing."
    return score, f"{_lead(view)}: {'; '.join(dict.fromkeys(gaps))}."


def structure_dimensions(view: ToolView) -> dict[str, Scored]:
    """All six dimensions of a described tool whose description is not in English, in rubric order."""
    words, statements = words_in(view.description), further_statements(view.description)
    return {
        "purpose": purpose(view, words),
        "usage_guidelines": usage(view, statements),
        "behavior": behavior(view, statements),
        "parameters": parameters(view, statements),
        "conciseness": conciseness(view, words),
        "completeness": completeness(view, words, statements),
    }
