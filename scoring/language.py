"""The facts of a description's text that the security lints read beside the scores: its identifiers,
and the priority, assertive and promotional wording set aside before the sentence model reads it; and
the checks for hidden characters and script in text meant for a model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from scoring.cues import _SCRIPT_OR_EVAL
from scoring.tool_reading import ToolReading
from scoring.words import identifiers


@dataclass
class Analysis:
    """What the lints read of a description."""

    text: str
    identifiers: list[str] = field(default_factory=list)
    priority: list[str] = field(default_factory=list)
    assertive: list[str] = field(default_factory=list)


def text_facts(description: str, reading: ToolReading) -> Analysis:
    """The lints' facts of ``description``, as ``reading`` found them."""
    text = description.strip()
    return Analysis(
        text=text,
        identifiers=identifiers(text),
        priority=list(reading.priority),
        assertive=list(reading.assertive),
    )


# Unicode's format characters (category Cf: zero-width, bidirectional controls, tags …) except the soft
# hyphen, plus the tag block; a test checks this class against unicodedata.
_HIDDEN = re.compile(
    "[\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f]"
)


def hidden_characters(text: str) -> list[str]:
    """Zero-width, bidirectional-control and other invisible format characters in ``text``."""
    if text.isascii():
        return []
    return sorted({f"U+{ord(char):04X}" for char in _HIDDEN.findall(text)})


def script_or_eval(text: str) -> str | None:
    """``<script``, ``eval(`` or ``javascript:`` in text meant for a model."""
    match = _SCRIPT_OR_EVAL.search(text)
    return match.group(0) if match else None
