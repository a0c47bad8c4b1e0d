"""Server text as pages show it: any value as display text, times and dates, and Markdown made inert."""

from __future__ import annotations

import re
from typing import Any

from registry.core.snapshot import sorted_json
from registry.core.timestamps import parse_utc


def as_text(value: Any) -> str:
    """A string as it is, None as empty, anything else as its canonical JSON."""
    if value is None:
        return ""
    return value if isinstance(value, str) else sorted_json(value)


def format_time(stamp: str | None) -> str:
    """``2026-09-18T10:00:00Z`` → ``Sep 18, 2026 10:00 UTC``; anything unparseable is shown as is."""
    if not stamp:
        return ""
    try:
        moment = parse_utc(stamp)
    except (ValueError, AttributeError):
        return str(stamp)
    zone = " UTC" if moment.utcoffset() is not None and not moment.utcoffset() else ""
    return f"{moment:%b} {moment.day}, {moment.year} {moment:%H:%M}{zone}"


def format_date(stamp: str | None) -> str:
    """``2026-09-18T10:00:00Z`` → ``Sep 18, 2026``."""
    text = format_time(stamp)
    return text.rsplit(" ", 2)[0] if text.endswith(" UTC") else text


def escape_markdown(text: Any) -> str:
    """Server text made inert in Markdown: no HTML, no links, no table breaks, one line."""
    value = as_text(text)
    value = re.sub(r"[\r\n]+", " ", value)
    value = value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return re.sub(r"([\\`*_{}\[\]()#+\-.!|~])", r"\\\1", value)


def markdown_code(text: Any) -> str:
    """``text`` as an inline code span that its own backticks cannot close."""
    value = re.sub(r"[\r\n]+", " ", as_text(text)).replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", value)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if value.startswith("`") or value.endswith("`") or not value else ""
    return f"{fence}{pad}{value}{pad}{fence}"
