"""UTC timestamps as mcpdex writes them everywhere: RFC 3339 with ``Z``, to the second
(``2026-11-29T18:00:00Z``), so they sort as text in time order.
"""

from __future__ import annotations

from datetime import UTC, datetime

_SECONDS = "%Y-%m-%dT%H:%M:%SZ"
# Microseconds keep first-seen order exact between versions saved in the same second.
_MICROSECONDS = "%Y-%m-%dT%H:%M:%S.%fZ"


def _four_digit_year(moment: datetime, layout: str) -> str:
    # The C library's %Y writes year 824 as '824', which is no RFC 3339 time: the year is written here.
    return f"{moment.year:04d}" + moment.strftime(layout.removeprefix("%Y"))


def utc_text(moment: datetime) -> str:
    """``moment`` (aware, any zone) in UTC to the second: ``2026-11-29T18:00:00Z``."""
    return _four_digit_year(moment.astimezone(UTC), _SECONDS)


def utc_text_precise(moment: datetime) -> str:
    """``moment`` (aware, any zone) in UTC to the microsecond: ``2026-11-29T18:00:00.123456Z``."""
    return _four_digit_year(moment.astimezone(UTC), _MICROSECONDS)


def utc_now() -> str:
    """Now, to the second: ``2026-11-29T18:00:00Z``."""
    return datetime.now(UTC).strftime(_SECONDS)


def utc_now_precise() -> str:
    """Now, to the microsecond: ``2026-11-29T18:00:00.123456Z``."""
    return datetime.now(UTC).strftime(_MICROSECONDS)


def parse_utc(text: str) -> datetime:
    """An RFC 3339 time (``Z`` or an offset) as an aware datetime; ValueError when it is not one."""
    return datetime.fromisoformat(text)
