"""Ranged reads of one text: a slice by offset and limit, or windows around every match of a needle.

Offsets and lengths count Unicode code points, never bytes. A boundary that would fall inside a
user-perceived character (an emoji sequence, a letter with combining marks) is moved outward to
the edge of that character, so a reply never carries half of one.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

import regex

DEFAULT_LIMIT = 2000
DEFAULT_CONTEXT = 600

_GRAPHEME = regex.compile(r"\X")


@dataclass(frozen=True)
class Window:
    offset: int
    text: str


class _Boundaries:
    """The code-point offsets where a grapheme cluster starts, plus the end of the text."""

    def __init__(self, text: str) -> None:
        self._starts = [match.start() for match in _GRAPHEME.finditer(text)]
        self._starts.append(len(text))

    def floor(self, offset: int) -> int:
        return self._starts[bisect.bisect_right(self._starts, offset) - 1]

    def ceil(self, offset: int) -> int:
        return self._starts[bisect.bisect_left(self._starts, offset)]


def _is_simple(text: str) -> bool:
    # Plain ASCII has one code point per character, so boundaries never need moving.
    return text.isascii()


def slice_text(text: str, offset: int = 0, limit: int = DEFAULT_LIMIT) -> Window:
    """Code points ``[offset, offset + limit)`` of ``text``, widened to whole characters.

    An offset at or past the end gives an empty window at the end; ``limit`` 0 gives an empty one.
    """
    if offset >= len(text) or limit == 0:
        return Window(min(offset, len(text)), "")
    start, end = offset, min(len(text), offset + limit)
    if not _is_simple(text):
        bounds = _Boundaries(text)
        start, end = bounds.floor(start), bounds.ceil(end)
    return Window(start, text[start:end])


def match_offsets(text: str, needle: str) -> list[int]:
    """Every offset where ``needle`` occurs, overlapping matches included ("aa" in "aaaaa": 4)."""
    if not needle:
        return []
    offsets = []
    at = text.find(needle)
    while at != -1:
        offsets.append(at)
        at = text.find(needle, at + 1)
    return offsets


def find_windows(text: str, needle: str, context: int = DEFAULT_CONTEXT) -> tuple[int, list[Window]]:
    """The number of matches of ``needle`` and the windows of ``context`` code points around them.

    Windows that overlap or touch are merged, so the windows together never exceed the text.
    """
    offsets = match_offsets(text, needle)
    spans: list[list[int]] = []
    for at in offsets:
        start, end = max(0, at - context), min(len(text), at + len(needle) + context)
        if spans and start <= spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], end)
        else:
            spans.append([start, end])
    if spans and not _is_simple(text):
        bounds = _Boundaries(text)
        widened: list[list[int]] = []
        for start, end in spans:
            start, end = bounds.floor(start), bounds.ceil(end)
            if widened and start <= widened[-1][1]:
                widened[-1][1] = max(widened[-1][1], end)
            else:
                widened.append([start, end])
        spans = widened
    return len(offsets), [Window(start, text[start:end]) for start, end in spans]


def excerpt(text: str, width: int) -> str:
    """At most ``width`` code points of ``text``, cut between characters and marked with "…" when cut."""
    if len(text) <= width:
        return text
    end = width - 1
    if not _is_simple(text):
        end = _Boundaries(text).floor(end)
    return text[:end] + "…"
