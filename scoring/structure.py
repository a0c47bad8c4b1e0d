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
from dataclasses import replace

from scoring import lexicon
from scoring.dimensions import Scored, ToolView, unusable_input_schema
from scoring.languages import iso_code, language_of
from scoring.mapping import TEXTUAL, evidence
from scoring.sentences import split_units
from scoring.signals import described_parameters
from scoring.words import is_identifier

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


def further_statements(description: str) -> int:
    """How many sentences after the first state something new (``statement_texts``)."""
    return len(statement_texts(description)) - 1 if description.strip() else 0


def statement_texts(description: str) -> list[str]:
    """Sentences after the first that state something new: four words or more, two of them not used in
    an earlier sentence, and one that says something specific (a number, an identifier, or a word rare
    in the description's language as wordfreq counts it, as the English evidence is judged), so that
    filler ("This tool is very useful for many tasks") is no statement. In English such sentences mostly
    say when to use the tool and what it does beyond its purpose; in any language their count is the
    structure that tracks it. List items are not counted: they enumerate fields or options rather than
    say when or how. Returns the first sentence and those that count."""
    language = iso_code(language_of(description))
    seen: set[str] = set()
    said: list[str] = []
    prose = _LIST_ITEM.sub("", description)
    for index, sentence in enumerate(unit.text for unit in split_units(prose)):
        words = {word.lower() for word in _WORD.findall(sentence)}
        if not index or (
            words_in(sentence) >= 4 and len(words - seen) >= 2 and _specific(sentence, language)
        ):
            said.append(sentence)
        seen |= words
    return said


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
    siblings = view.reading.siblings_named
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
    siblings = view.reading.siblings_named
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


def _mentioned(view: ToolView) -> frozenset[str]:
    """Parameters the text names by their exact identifier (an identifier reads the same in any language),
    in units that say something beyond parameters' names ("Takes limit (required)." does not)."""
    said = " ".join(unit.text for unit in view.reading.units if unit.specific)
    tokens = set(re.findall(r"[\w.-]+", said))
    return frozenset(name.lower() for name in view.params if name in tokens)


def structural_evidence(view: ToolView, words: int, statements: int) -> dict[str, dict[str, float]]:
    """The fitted dimensions' evidence of a description the sentence model cannot read: what the
    structure shows is measured, and what only the words could show takes the value English
    descriptions of as many further statements have on average."""
    described = described_parameters(view.params)
    bare = frozenset(name.lower() for name in view.params if name not in described)
    # Only the sentences that state something count towards enough words, as in English.
    informative = words_in(" ".join(statement_texts(view.description)))
    facts = replace(
        view.reading.facts,
        documented_in_text=_mentioned(view) & bare,
        words=words,
        informative_words=informative,
    )
    values = evidence((), facts)
    mapping = view.mapping
    for dimension, pieces in TEXTUAL.items():
        for piece in pieces:
            values[dimension][piece] = mapping.expect(dimension, piece, statements)
    values["completeness"]["purpose"] = float(words >= 3 and not view.tautological)
    if view.signals["hasOutputSchema"]:
        values["completeness"]["returns"] = 1.0
    stated = mapping.expect("behavior", "side_effect", statements)
    changing = float(facts.mutating) * (1.0 - stated)
    values["behavior"]["unstated_change"] = values["completeness"]["unstated_change"] = changing
    return values


_STRUCTURE_NOTE = (
    "what only the words could show is counted at the rate English descriptions of as many statements show it"
)


def _fitted(view: ToolView, dimension: str, values: dict[str, float], said: str) -> Scored:
    score = view.mapping.score(dimension, values)
    return score, f"{_lead(view)}: {said}; {_STRUCTURE_NOTE}."


def structure_dimensions(view: ToolView) -> dict[str, Scored]:
    """All six dimensions of a described tool whose description is not in English, in rubric order."""
    words, statements = words_in(view.description), further_statements(view.description)
    values = structural_evidence(view, words, statements)
    signals = view.signals
    count = signals["paramCount"]
    described = len(described_parameters(view.params))
    carried = "the annotations declare the safety profile" if view.annotated else "there are no annotations"
    parameters = unusable_input_schema(view)
    if parameters is not None:
        parameters = parameters[0], f"{_lead(view)}: {parameters[1]}"
    else:
        in_text = len(_mentioned(view) - {name.lower() for name in described_parameters(view.params)})
        parameters = _fitted(
            view,
            "parameters",
            values["parameters"],
            f"the schema describes {described} of {count} parameters"
            + (f" and the text names {in_text} more by identifier" if in_text else ""),
        )
    return {
        "purpose": purpose(view, words),
        "usage_guidelines": usage(view, statements),
        "behavior": _fitted(
            view, "behavior", values["behavior"], f"{carried}; {statements} further statement(s)"
        ),
        "parameters": parameters,
        "conciseness": _fitted(
            view, "conciseness", values["conciseness"], f"{words} words for {count} parameter(s)"
        ),
        "completeness": _fitted(
            view, "completeness", values["completeness"], f"{words} words, {statements} further statement(s)"
        ),
    }
