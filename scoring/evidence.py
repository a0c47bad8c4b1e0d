"""Evidence: whether a clause says something specific to the tool (a number, an identifier, a quoted
value, the tool's or its server's own vocabulary, or a word rare in English by wordfreq), read over the
sentences joined once so that one scan serves them all.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Set
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from scoring import lexicon
from scoring.cues import (
    Cue,
    _word_heads,
)
from scoring.words import (
    _COORDINATORS,
    _NUMBER,
    _VAGUE_NOUNS,
    STOPWORDS,
    VERB_KIND,
    is_identifier,
    name_words,
    word_tokens,
)


class Joined:
    """Parts joined with NUL, which no pattern matches, so one scan serves every sentence.

    No word spans a NUL, so the word heads of the joined text are those of its parts together.
    """

    def __init__(self, parts: list[str]) -> None:
        self.parts = parts
        self.text = "\x00".join(parts)
        self.starts, offset = [], 0
        for part in parts:
            self.starts.append(offset)
            offset += len(part) + 1
        self.heads = frozenset().union(*map(_word_heads, parts))

    def part_at(self, offset: int) -> int:
        """The index of the part the joined text's character at ``offset`` belongs to."""
        return bisect_right(self.starts, offset) - 1

    def search(self, cue: Cue) -> re.Match[str] | None:
        return cue.search(self.text, self.heads)

    def first_match_per_part(self, cue: Cue) -> dict[int, re.Match[str]]:
        """The first match of ``cue`` in each part, by part index, from one scan of the joined text."""
        found: dict[int, re.Match[str]] = {}
        for match in cue.finditer(self.text, self.heads):
            found.setdefault(self.part_at(match.start()), match)
        return found


_UNINFORMATIVE = STOPWORDS | _VAGUE_NOUNS


def _informative(text: str) -> set[str]:
    return {
        lower for word in word_tokens(text) if len(word) > 2 and (lower := word.lower()) not in _UNINFORMATIVE
    }


_ARG_LINE = re.compile(r"^\W*([A-Za-z_][\w-]*)\s*(?:\([^)]*\))?\s*[:=-]")


_QUOTED = re.compile(r"`[^`]+`|\"[^\"]+\"|'[^'\s][^']*'|\{[^{}]+\}")


# Words that name nothing in particular: meta words and the verbs tool names start with.
_NOT_NAMING = _UNINFORMATIVE | frozenset(VERB_KIND)


def _telling_name_word(word: str) -> bool:
    """A word of a name that names something: not everyday English ("next", "needed" of nextThoughtNeeded),
    a meta word ("tool", "data") or a verb names start with ("get", "list")."""
    return len(word) > 2 and word not in _NOT_NAMING and lexicon.zipf(word) < lexicon.EVERYDAY_ZIPF


@lru_cache(maxsize=256)
def names_vocabulary(names: frozenset[str]) -> frozenset[str]:
    """The telling words of a set of names, and the names themselves; one server's tools share it (its
    index, ``scoring.toolset.ToolNames``, computes it once for all of them)."""
    words = {word for other in names for word in name_words(other) if _telling_name_word(word)}
    return frozenset(
        words
        | {other.lower() for other in names if is_identifier(other) or _telling_name_word(other.lower())}
    )


def own_words(name: str) -> frozenset[str]:
    """The words of the tool's own name that say what it is about, however everyday ("issues", "page")."""
    own = {word for word in name_words(name) if len(word) > 2 and word not in _NOT_NAMING}
    # "issue's title" is about the issues of search_issues.
    return frozenset(own | {word[:-1] for word in own if word.endswith("s") and not word.endswith("ss")})


@dataclass(frozen=True)
class Vocabulary:
    """Words specific to one tool (``own``) and to every tool of its server (``server``, one set shared
    by all of them): membership asks both, so no tool copies the server's words, which would make a
    server of n tools cost n² however its tools are read."""

    own: frozenset[str]
    server: frozenset[str]

    def __contains__(self, word: object) -> bool:
        return word in self.own or word in self.server

    def __or__(self, words: Set[str]) -> Vocabulary:
        return Vocabulary(self.own | words, self.server)


def vocabulary_of(name: str, server_vocabulary: frozenset[str], params: dict[str, Any]) -> Vocabulary:
    """Words specific to this tool whatever their frequency: its name's, its parameters', and those of
    the server's tool names (``server_vocabulary``, see ``names_vocabulary``)."""
    named = {param.lower() for param in params if len(param) > 2 and param.lower() not in _UNINFORMATIVE}
    return Vocabulary(
        own_words(name) | frozenset(named) | names_vocabulary(frozenset(params)), server_vocabulary
    )


@lru_cache(maxsize=16384)
def _telling(word: str) -> bool:
    """Whether one word says something specific whatever the tool: a number, an identifier, a rare word."""
    if not word.isalpha():
        return any(char.isdigit() for char in word) or is_identifier(word)
    lower = word.lower()
    # Adjectives and adverbs rate ("versatile", "seamlessly"); however rare, they name nothing.
    return is_identifier(word) or (
        len(word) > 2
        and lower not in _UNINFORMATIVE
        and not lexicon.is_generic(lower)
        and not lexicon.is_modifier(lower)
    )


# Words that are there whatever the tool, however rare some of them are in English: whoever asks for the
# call ("when the user asks", "the user's request"), the parts of every tool definition ("the parameters
# described in the input schema") and the words that only name a kind of disclosure ("raises an exception
# on invalid input", "returns the result", "an error message"), which say that there are errors or output,
# not which.
# Words that only say a parameter is one.
PARAMETER_WORDS = frozenset(["parameter", "parameters", "param", "params", "argument", "arguments", "args"])
_SAYS_NOTHING_OF_THIS_TOOL = re.compile(
    r"\b(?:the|a|an|your|their)\s+(?:user|human|person|customer|caller|agent|assistant|model|llm|ai)(?:'s)?\s+"
    r"(?:asks?|wants?|requests?|needs?|says?|mentions?|tells?|requires?|prompts?|instructs?|would\s+like|"
    r"is\s+asking|query|question|prompt|intent|instructions?)\b|"
    r"\b(?:input|output|tool)[ _-]?schemas?\b|\b(?:input|output)Schema\b|"
    rf"\b(?:schemas?|{'|'.join(sorted(PARAMETER_WORDS))})\b|"
    r"\b(?:errors?|fail(?:s|ed|ures?)?|throws?|raises?|exceptions?|invalid|returns?|outputs?|results?|"
    r"responses?)(?:\s+(?:messages?|codes?|details|objects?|values?))?\b",
    re.IGNORECASE,
)


@lru_cache(maxsize=8192)
def specific_words(text: str, vocabulary: Vocabulary) -> tuple[str, ...]:
    """The words of ``text`` that say something specific: numbers, identifiers, quoted values, the tool's
    own vocabulary, and words rare in English (wordfreq); common words ("result", "needed") say nothing."""
    found = [match.group(0) for match in _QUOTED.finditer(text)] + _NUMBER.findall(text)
    # ... unless the tool is about them (list_errors, get_schema).
    text = _SAYS_NOTHING_OF_THIS_TOOL.sub(
        lambda match: match.group(0) if match.group(0).lower() in vocabulary.own else " ", text
    )
    for word in word_tokens(text):
        if word.lower().removesuffix("'s") in vocabulary or _telling(word.removesuffix("'s")):
            found.append(word)
    return tuple(found)


_HEADER_REST = re.compile(r"[^:;.\x00]{0,25}:")


_CLAUSE_BREAKS = re.compile(r"[;,\x00\n]|\.(?=\s|\x00|$)")


def _clause_end(text: str, start: int, part_end: int) -> int:
    """Where the clause from ``start`` ends: past a comma that only ends the cue ("For example, …") and
    through a list of short items ("has the number, title, state and URL")."""
    end = start
    while (found := _CLAUSE_BREAKS.search(text, end, part_end)) is not None:
        said = word_tokens(text[start : found.start()])
        following = _CLAUSE_BREAKS.search(text, found.end(), part_end)
        item = word_tokens(text[found.end() : following.start() if following else part_end])
        last = bool(item) and item[0].lower() in _COORDINATORS  # "news, facts, or data beyond …"
        if text[found.start()] == "," and (not said or len(item) <= 3 or last):
            end = found.end()
            continue
        return found.start()
    return part_end


def _evidence(joined: Joined, match: re.Match[str], vocabulary: Vocabulary) -> bool:
    """Whether the clause around a cue says something specific beyond the cue itself.

    The clause runs between commas, semicolons and full stops; after a header's colon ("When to use this
    tool: …", "Returns: …") it is what follows the colon, and below a bare header, the next sentences.
    """
    text = joined.text
    part = joined.part_at(match.start())
    part_start = joined.starts[part]
    part_end = part_start + len(joined.parts[part])
    header = _HEADER_REST.match(text, match.end(), part_end)  # "When to use this tool: …"
    if header:
        window = text[match.end() : part_end]
        if not window.strip(" :"):
            window = " ".join(joined.parts[part + 1 : part + 4])
    else:
        opening = max(
            (found.end() for found in _CLAUSE_BREAKS.finditer(text, part_start, match.start())),
            default=part_start,
        )
        window = (
            text[opening : match.start()] + " " + text[match.end() : _clause_end(text, match.end(), part_end)]
        )
    # "Prefer get_ticket for …": an identifier the cue itself takes in is evidence too.
    named = any(map(is_identifier, word_tokens(match.group(0))))
    return named or bool(specific_words(window, vocabulary)) or _enumerates(window)


_LIST_ITEM_BREAK = re.compile(r",\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+")


def _names_a_thing(word: str) -> bool:
    lower = word.lower()
    reading = lexicon.verb_reading(lower)
    return (
        len(lower) > 2
        and lower not in _UNINFORMATIVE
        and not lexicon.is_modifier(lower)
        and (reading is None or reading[1])  # "size", "type": verbs that are nouns too
    )


def _enumerates(window: str) -> bool:
    """Whether ``window`` lists three or more things, each a short phrase with a word that names a thing
    ("size, creation time, last modified time, permissions, and type"): a list of fields or cases says what
    the tool has, however everyday each word is, while "results, data and output" names nothing."""
    items = map(word_tokens, _LIST_ITEM_BREAK.split(_SAYS_NOTHING_OF_THIS_TOOL.sub(" ", window)))
    # An item of a list is a short phrase; longer runs between commas and "and" are clauses.
    return sum(1 for words in items if len(words) <= 4 and any(map(_names_a_thing, words))) >= 3


def _first_evidence_per_part(joined: Joined, cue: Cue, vocabulary: Vocabulary) -> dict[int, re.Match[str]]:
    """The first match of ``cue`` in each part whose clause carries evidence."""
    found: dict[int, re.Match[str]] = {}
    for match in cue.finditer(joined.text, joined.heads):
        part = joined.part_at(match.start())
        if part not in found and _evidence(joined, match, vocabulary):
            found[part] = match
    return found
