"""Small wording helpers every output shares, so a count and its noun always agree."""

from __future__ import annotations


def counted(count: int, singular: str, plural: str | None = None) -> str:
    """``1 tool``, ``2 tools``, ``0 resource templates``; ``plural`` for words that do not just take an s."""
    return f"{count:,} {singular if count == 1 else plural or singular + 's'}"
