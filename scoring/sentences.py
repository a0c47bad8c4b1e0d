"""A description cut into units, the way a reader (and the sentence model) reads it.

A unit is a sentence, a list item or a heading, with its character offsets into the description
as sent, so a justification can quote it and a caller can check the reading from outside. Lines
end units; so do sentence ends (not the full stop of "e.g." or "etc."), XML-style tags and the
ends of fenced code blocks, each of which is one unit. List markers ("- ", "• ", "1. ") are not
part of a unit; a heading's "#" marks are, since they say it is one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Unit:
    """One unit of a description: ``text`` is ``description[start:end]``."""

    start: int
    end: int
    text: str

    @property
    def heading(self) -> bool:
        """A line that introduces what follows ("Returns:", "## Errors", "WHEN TO USE:")."""
        text = self.text
        if text.startswith("#"):
            return True
        words = len(text.split())
        return words <= 8 and (text.endswith(":") or (text.isupper() and words <= 6 and text[-1:] != "."))


# A fence opens with an optional info string ("```json") and closes with nothing after it.
_OPENING_FENCE = re.compile(r"[ \t]*(?:```|~~~)[\w+.-]*[ \t]*$")
_CLOSING_FENCE = re.compile(r"[ \t]*(?:```|~~~)[ \t]*$")
_LIST_MARKER = re.compile(r"[ \t]*(?:[-*•·+▪►]|\d{1,3}[.)]|[a-z][.)](?=\s))[ \t]+")
_LEADING_SPACE = re.compile(r"[ \t>]*")
# A sentence ends at '.', '!' or '?' (with any closing quotes or brackets) before white space.
_SENTENCE_END = re.compile(r"(?<=[.!?])([\"')\]]*)\s+")
# An XML-style element ("<IMPORTANT>…</IMPORTANT>") fences text off; a lone "<title>" is a placeholder.
_CLOSING_TAG = re.compile(r"</([A-Za-z][\w-]{0,30})\s*>")
# Full stops that end no sentence: abbreviations, and an initial or an ellipsis ("...", but "...." is one
# with its full stop); "etc." and "Inc." end one when a capital follows ("…, etc. Then …").
_ABBREVIATION = re.compile(
    r"(?:\b(?:e\.g|i\.e|vs|approx|incl|esp|resp|cf|viz|ca|min|max|no|nos|vol|fig|ref|ver|"
    r"Mr|Mrs|Ms|Dr|St|Jr|Sr)|(?:^|(?<=[\s.]))[A-Z]|(?<!\.)\.\.)\.$",
    re.IGNORECASE,
)
_ENDING_ABBREVIATION = re.compile(r"\b(?:etc|al|Inc|Ltd|Co)\.$", re.IGNORECASE)


def split_units(description: str) -> list[Unit]:
    """The units of ``description`` in order, each with its offsets; blank lines and bare markers give
    none, and neither does a run of punctuation with no letter or digit in it."""
    units: list[Unit] = []
    breaks = _SENTENCE_END
    if "</" in description and (tags := {tag.lower() for tag in _CLOSING_TAG.findall(description)}):
        names = "|".join(re.escape(tag) for tag in sorted(tags))
        breaks = re.compile(rf"{_SENTENCE_END.pattern}|\s*</?(?i:{names})\s*>\s*")
    position = 0
    fence_start: int | None = None
    for line in description.splitlines(keepends=True):
        start, end = position, position + len(line.rstrip("\r\n"))
        position += len(line)
        bare = line.rstrip("\r\n")
        if fence_start is None and _OPENING_FENCE.fullmatch(bare):
            fence_start = start
            continue
        if fence_start is not None and _CLOSING_FENCE.fullmatch(bare):
            _add(units, description, fence_start, end)
            fence_start = None
            continue
        if fence_start is not None:
            continue
        start += _LEADING_SPACE.match(description, start, end).end() - start  # type: ignore[union-attr]
        marker = _LIST_MARKER.match(description, start, end)
        if marker:
            start = marker.end()
        _split_line(units, description, start, end, breaks)
    if fence_start is not None:  # a fence never closed fences nothing: its lines are read as lines
        rest = description[fence_start:]
        first_line = len(rest.split("\n", 1)[0]) + 1
        _add(units, description, fence_start, fence_start + first_line - 1)
        units.extend(
            Unit(fence_start + first_line + unit.start, fence_start + first_line + unit.end, unit.text)
            for unit in split_units(rest[first_line:])
        )
    return units


def _split_line(units: list[Unit], description: str, start: int, end: int, breaks: re.Pattern[str]) -> None:
    piece_start = start
    for match in breaks.finditer(description, start, end):
        before = description[piece_start : match.start()]
        if before.endswith(".") and (
            _ABBREVIATION.search(before)
            or (
                _ENDING_ABBREVIATION.search(before)
                and not description[match.end() : match.end() + 1].isupper()
            )
        ):
            continue
        _add(units, description, piece_start, match.end(1) if match.group(1) is not None else match.start())
        piece_start = match.end()
    _add(units, description, piece_start, end)


def _add(units: list[Unit], description: str, start: int, end: int) -> None:
    text = description[start:end]
    stripped = text.strip()
    if not any(char.isalnum() for char in stripped):
        return
    start += len(text) - len(text.lstrip())
    units.append(Unit(start, start + len(stripped), stripped))
