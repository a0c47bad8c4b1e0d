"""Retrying a call that may fail for a moment: how many attempts, how long to wait between them, what
is worth retrying (an exception or an answer) and how long a server asked to be left alone.

The one retry loop of mcpdex: the store's writers racing on a unique constraint or an SQLite lock,
the switch of an SQLite file to WAL mode (``common.sqlite``), and the service client's 503s (which
honour the ``Retry-After`` header).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")

_DELAY_SECONDS = re.compile(r"[0-9]+")


@dataclass(frozen=True)
class Retry:
    """Try again: after ``wait`` seconds when given (a server's ``Retry-After``, or 0 for at once),
    else after the back-off's delay for this attempt."""

    wait: float | None = None


AGAIN = Retry()
AT_ONCE = Retry(0.0)


@dataclass(frozen=True)
class Backoff:
    """``delays[n]`` is the wait before retry n + 1, so a call is tried ``len(delays) + 1`` times;
    a wait the server gives is honoured up to ``max_wait`` seconds."""

    delays: tuple[float, ...]
    max_wait: float = 30.0

    def wait(self, retry: Retry, attempt: int) -> float:
        """Seconds to sleep before retrying after ``attempt`` (0 for the first) failed."""
        if retry.wait is None:
            return self.delays[attempt]
        return min(max(retry.wait, 0.0), self.max_wait)


def _never(_: object) -> Retry | None:
    return None


def with_retries(
    call: Callable[[], T],
    backoff: Backoff,
    *,
    on_error: Callable[[Exception], Retry | None] = _never,
    on_result: Callable[[T], Retry | None] = _never,
    sleep: Callable[[float], None] | None = None,
) -> T:
    """``call()``, tried again while ``on_error`` (for an exception it raised) or ``on_result`` (for
    what it returned) answers a :class:`Retry`, up to the back-off's attempts. The last attempt's
    exception propagates and its result is returned, retriable or not. ``sleep`` waits (None:
    ``time.sleep``, looked up at each wait)."""
    for attempt in range(len(backoff.delays) + 1):
        last = attempt == len(backoff.delays)
        try:
            result = call()
        except Exception as exc:
            retry = on_error(exc)
            if retry is None or last:
                raise
        else:
            retry = on_result(result)
            if retry is None or last:
                return result
        pause = backoff.wait(retry, attempt)
        if pause > 0:
            (sleep or time.sleep)(pause)
    raise AssertionError("unreachable: the last attempt returns or raises")


def retry_after_seconds(value: str | None) -> float | None:
    """The delay of a ``Retry-After`` header in its seconds form (``"2"``); None when absent or in
    another form (an HTTP date), in which case the caller's own back-off applies."""
    if value is None or not _DELAY_SECONDS.fullmatch(value.strip()):
        return None
    return float(value.strip())
