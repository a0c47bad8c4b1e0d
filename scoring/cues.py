"""Cues: the few patterns read by rule rather than by the sentence model, because they are lints or
gates whose whole point is to be exact and explainable (priority, emphasis and promotional wording,
which earn nothing; claims that a call changes nothing, which a tool's own verbs can contradict;
reversibility, which a destructive tool owes its caller; script in text), and the ``Cue`` class that
skips a scan when a text holds none of the word heads a cue could start with.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cached_property, lru_cache

from scoring.words import (
    _I,
    STATE_CHANGING,
)


def _split_alternatives(pattern: str) -> list[str]:
    """The top-level ``|`` alternatives of a regular expression."""
    parts, depth, start, index, in_class = [], 0, 0, 0, False
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            parts.append(pattern[start:index])
            start = index + 1
        index += 1
    return [*parts, pattern[start:]]


_RUN = re.compile(r"[<#]?[A-Za-z0-9']+")


def _prefixes(pattern: str) -> set[str] | None:
    """Word prefixes every match of ``pattern`` starts with, or None when that cannot be told simply."""
    alternatives = _split_alternatives(pattern)
    if len(alternatives) > 1:
        found: set[str] = set()
        for alternative in alternatives:
            prefixes = _prefixes(alternative)
            if prefixes is None:
                return None
            found |= prefixes
        return found
    while pattern.startswith("\\b"):
        pattern = pattern[2:]
    if pattern.startswith("(?:"):
        depth = 0
        for index, char in enumerate(pattern):
            if pattern[index - 1 : index] != "\\":
                depth += (char == "(") - (char == ")")
            if depth == 0:
                optional = pattern[index + 1 : index + 2] in ("?", "*", "{")
                return None if optional else _prefixes(pattern[3:index])
        return None
    run = _RUN.match(pattern)
    if not run:
        return None
    prefix = run.group(0)
    if pattern[run.end() : run.end() + 1] in ("?", "*", "{"):
        prefix = prefix[:-1]  # the quantifier makes the last character optional
    return {prefix.lower()} if prefix.strip("<#") else None


# The first three characters of each ``_RUN`` word. A lone "<" or "#" is taken too: starting on one
# character class lets the scan skip ahead in C, and no cue starts with the mark alone.
_RUN_HEAD = re.compile(r"([<#A-Za-z0-9'][A-Za-z0-9']{0,2})[A-Za-z0-9']*")


_HEAD_LETTERS = "abcdefghijklmnopqrstuvwxyz0123456789'"  # what follows a head's first character


@lru_cache(maxsize=16384)
def _word_heads(text: str) -> frozenset[str]:
    """The first three characters (or fewer, in a shorter word) of every lower-cased word of ``text``,
    and any "<" or "#" that starts no word."""
    lower = text.lower()
    heads = _RUN_HEAD.findall(lower)
    if "'" in lower or "<" in lower or "#" in lower:
        # A run may start with a quote, "<" or "#" ("'delete'", "#delete"), yet a cue may match the word
        # after it: those words' own heads count too.
        heads += _RUN_HEAD.findall(lower.translate(_OPENING_MARKS))
    if not lower.isascii():
        # Ignoring case, a cue's "s" also matches the long s and its "i" the dotted capital and the dotless
        # small i, which lower-casing leaves outside ASCII: words spelt with them count as the ASCII word.
        heads += _RUN_HEAD.findall(text.translate(_ASCII_CASE_TWINS).lower())
    return frozenset(heads)


_OPENING_MARKS = str.maketrans("'<#", "   ")


# The characters beyond ASCII that a case-ignoring ASCII letter matches and lower-casing does not turn
# into it (the Kelvin sign lower-cases to "k" itself).
_ASCII_CASE_TWINS = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s"})


def _heads_starting(prefix: str) -> set[str]:
    """Every word head that starts with ``prefix`` (of at most three characters)."""
    heads = {prefix}
    for _ in range(3 - len(prefix)):
        heads |= {head + letter for head in heads for letter in _HEAD_LETTERS}
    return heads


# A pattern naming a character beyond ASCII, literally or by escape, could match an ASCII letter when
# case is ignored (the Kelvin sign matches "k"), so it is never compiled in ASCII form.
_NAMES_NON_ASCII = re.compile(r"[^\x00-\x7f]|\\[uUxN0-7]")


def reads_as_ascii(text: str) -> bool:
    """Whether a pattern naming only ASCII matches ``text`` the same when compiled with ``re.ASCII``.

    On ASCII text the two forms agree on letters in either case, ``\\w``, ``\\d`` and ``\\b``; only Unicode's
    ``\\s`` also takes the separators U+001C-U+001F.
    """
    return text.isascii() and not ("\x1c" in text or "\x1d" in text or "\x1e" in text or "\x1f" in text)


def reads_in_lower_case(pattern: str) -> bool:
    """Whether ``pattern`` finds, case-sensitively in lower-cased ASCII text, what it finds in the text when
    case is ignored: outside its escapes it has no capital letter, no character range and no inline flag."""
    index, class_start = 0, None  # class_start: where the open character class's members begin
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if "A" <= char <= "Z":
            return False
        if class_start is None:
            if char == "[":
                class_start = index + 1 + (pattern[index + 1 : index + 2] == "^")
            elif (
                char == "("
                and pattern[index + 1 : index + 2] == "?"
                and pattern[index + 2 : index + 3] in "aiLmsux-"
            ):
                return False
        elif char == "]" and index > class_start:
            class_start = None
        elif char == "-" and index > class_start and pattern[index + 1 : index + 2] != "]":
            return False
        index += 1
    return True


class Cue:
    """A case-insensitive cue pattern that is skipped outright when no word of the text could start it.

    ASCII text, nearly every description, is scanned without Unicode case folding. A pattern that reads in
    lower case is matched case-sensitively in the lower-cased text, a third of the cost of ignoring case,
    and each match is then taken from the text itself at the same place, so its groups keep their case;
    any other is compiled with ``re.ASCII``.
    """

    def __init__(self, pattern: str, flags: int = _I) -> None:
        self._pattern, self._flags = pattern, flags
        self._ascii_only = not _NAMES_NON_ASCII.search(pattern)
        prefixes = _prefixes(pattern)
        # The word heads a match can start in, compared with the text's own heads.
        self.heads = (
            frozenset().union(*(_heads_starting(prefix[:3]) for prefix in prefixes)) if prefixes else None
        )

    # Each form is compiled when first used: a run scores ASCII text with one or two of the three, and
    # compiling every cue's three forms up front was most of the scorer's start-up.
    @cached_property
    def regex(self) -> re.Pattern[str]:
        return re.compile(self._pattern, self._flags)

    @cached_property
    def _ascii_regex(self) -> re.Pattern[str]:
        return re.compile(self._pattern, self._flags | re.ASCII) if self._ascii_only else self.regex

    @cached_property
    def _lower_case_regex(self) -> re.Pattern[str] | None:
        lower_case = self._flags & re.IGNORECASE and reads_in_lower_case(self._pattern)
        return (
            re.compile(self._pattern, (self._flags & ~re.IGNORECASE) | re.ASCII)
            if self._ascii_only and lower_case
            else None
        )

    @property
    def pattern(self) -> str:
        return self._pattern

    def _possible(self, text: str, heads: frozenset[str] | None) -> bool:
        """Whether a word of ``text`` (whose word heads are ``heads``, when known) could start a match."""
        return self.heads is None or not self.heads.isdisjoint(_word_heads(text) if heads is None else heads)

    def _taken_from(self, text: str, found: re.Match[str]) -> re.Match[str]:
        """The match in ``text`` at the place ``found`` was found in its lower-cased copy."""
        match = self._ascii_regex.match(text, found.start())
        assert match is not None and match.end() == found.end()
        return match

    def search(self, text: str, heads: frozenset[str] | None = None) -> re.Match[str] | None:
        if not self._possible(text, heads):
            return None
        if not reads_as_ascii(text):
            return self.regex.search(text)
        if self._lower_case_regex is None:
            return self._ascii_regex.search(text)
        found = self._lower_case_regex.search(text.lower())
        return self._taken_from(text, found) if found else None

    def finditer(self, text: str, heads: frozenset[str] | None = None) -> Iterator[re.Match[str]]:
        if not self._possible(text, heads):
            return iter(())
        if not reads_as_ascii(text):
            return self.regex.finditer(text)
        if self._lower_case_regex is None:
            return self._ascii_regex.finditer(text)
        return (self._taken_from(text, found) for found in self._lower_case_regex.finditer(text.lower()))

    def sub(self, replacement: str, text: str) -> str:
        if not self._possible(text, None):
            return text
        return (self._ascii_regex if reads_as_ascii(text) else self.regex).sub(replacement, text)


def cue(pattern: str, flags: int = _I) -> Cue:
    """Compile a cue pattern (see ``Cue``)."""
    return Cue(pattern, flags)


# Assertive and promotional wording: sentences carrying it are set aside and earn nothing.
PRIORITY = cue(
    r"\b(?:always\s+(?:use|call|invoke|run|prefer)\s+(?:this|it)|(?:use|call)\s+this\s+(?:tool\s+)?"
    r"(?:first|before\s+(?:any|all)\s+other|for\s+(?:everything|all|any)\b)|"
    r"(?:instead\s+of|before)\s+(?:any|all)\s+other\s+tools?|never\s+use\s+(?:any\s+)?other\s+tools?|"
    r"do\s+not\s+(?:compute|calculate|answer|do)\s+(?:this|it)\s+yourself|"
    r"must\s+(?:always\s+)?(?:use|call)\s+this|prefer\s+this\s+tool\s+over)",
    _I,
)


# "Note:" and "Warning:" usually introduce a real caveat, so they are not counted as emphasis.
EMPHASIS = cue(r"\b(?:IMPORTANT|CRITICAL|CRUCIAL|MUST|ATTENTION)\b\s*[:!]+|<important>")


PROMOTIONAL = cue(
    r"(?:\b(?:the\s+best|the\s+most\s+(?:powerful|advanced|accurate|reliable|comprehensive)|"
    r"best[- ]in[- ]class|"
    r"world[- ]class|state[- ]of[- ]the[- ]art|cutting[- ]edge|ultimate|revolutionary|unparalleled|"
    r"superior|highly\s+recommended|extremely\s+(?:powerful|useful)|incredibly|blazing(?:ly)?\s+fast|"
    r"crucial(?:ly)?|vital|essential\s+tool|number\s+one|#1)\b)",
    _I,
)


_CHANGE_VERB = (
    r"(?:modif(?:y|ies)|changes?|writes?|alters?|deletes?|removes?|mutates?|affects?|touch(?:es)?|updates?|"
    r"creates?|destroys?)"
)
# That calling the tool changes nothing at all: read-only, no side effects, nothing written, or a negated
# change verb whose object is everything ("never modifies any data", "will not alter or delete anything").
# A negation with an object of its own ("does not delete the original") bounds what a tool changes and
# claims nothing; nor does "no changes" outside "makes no changes" ("fails if there are no changes").
_CLAIMS_NO_CHANGE = (
    r"\b(?:read[- ]?only|(?:has\s+|with\s+|causes\s+)?(?:no|zero)\s+side[- ]?effects?|"
    r"side[- ]?effect[- ]?free|free\s+of\s+side[- ]?effects?|non[- ]?(?:destructive|mutating|modifying)|"
    r"harmless|purely\s+informational|no\s+(?:writes|mutations)|"
    r"(?:makes|performs|causes|has)\s+no\s+(?:changes|modifications|mutations|writes)|"
    rf"(?:does\s+not|doesn't|do\s+not|don't|never|will\s+not|won't|cannot|can't)\s+(?:{_CHANGE_VERB}\s+"
    rf"(?:or|and|nor)\s+)?{_CHANGE_VERB}\s+(?:anything|(?:any\s+)?(?:data|state)|the\s+(?:system|state|data))|"
    r"(?:nothing|no\s+(?:data|state|files?|records?))\s+(?:is|are|gets?|will\s+be)\s+(?:ever\s+)?"
    r"(?:modified|changed|written|altered|deleted|touched|mutated)|"
    r"safe\s+to\s+(?:call|retry|run))\b"
)


# A claim that calling the tool is safe; the tool's own verbs can contradict it.
SAFETY_CLAIM = cue(_CLAIMS_NO_CHANGE)


# A claim made under a condition that comes before it ("with dry_run it changes nothing") or of a mode
# ("in preview mode it is read-only") describes that mode, which a tool that changes state may well have.
CONDITION = re.compile(r"\b(?:if|when|unless|while|with)\b", _I)
MODE = re.compile(r"\b(?:dry[-_ ]?run|preview|simulat\w*|validate_only)\b", _I)


# Verbs of tools that change state, which a safety claim cannot describe.
CLAIM_BREAKERS = STATE_CHANGING | frozenset(["execute", "kill", "clear", "flush", "terminate", "uninstall"])


# What a destructive tool owes its caller, wherever the description says it (the purpose clause too).
REVERSIBILITY = cue(
    r"\b(?:permanent(?:ly)?|irreversibl\w*|cannot\s+be\s+(?:undone|recovered|restored)|can't\s+be\s+undone|"
    r"not\s+reversible|undo\w*|recoverable|unrecoverable|trash|recycle\s+bin|soft[- ]delete\w*|cascad\w*|"
    r"along\s+with|together\s+with|and\s+(?:all\s+)?(?:its|their)\s+\w+)\b"
)


_SCRIPT_OR_EVAL = cue(r"<script\b|\beval\s*\(|javascript:")
