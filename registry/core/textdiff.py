"""A line diff of two texts (descriptions, instructions), as every report format shows a text change."""

from __future__ import annotations

import difflib

CONTEXT_LINES = 2
GAP = "…"  # the mark of a run of unchanged lines left out


def line_diff(before: object, after: object) -> list[tuple[str, str]]:
    """``after`` against ``before`` line by line: ``("-", line)`` removed, ``("+", line)`` added,
    ``(" ", line)`` an unchanged neighbour, ``(GAP, "")`` where unchanged lines are left out.

    A value that is not a string (absent, or a text made JSON) counts as no text.
    """
    old = before.splitlines() if isinstance(before, str) else []
    new = after.splitlines() if isinstance(after, str) else []
    lines: list[tuple[str, str]] = []
    for group in difflib.SequenceMatcher(None, old, new).get_grouped_opcodes(CONTEXT_LINES):
        if lines:
            lines.append((GAP, ""))
        for tag, old_start, old_end, new_start, new_end in group:
            if tag == "equal":
                lines += [(" ", line) for line in old[old_start:old_end]]
                continue
            lines += [("-", line) for line in old[old_start:old_end]]
            lines += [("+", line) for line in new[new_start:new_end]]
    return lines
