"""``crawl --enqueue --watch``: queue a pass every period, and every server again on a longer one."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable


def watch(
    queue_pass: Callable[[bool], None],
    *,
    period_s: float,
    everything_every_s: float | None,
    on_error: Callable[[Exception], None],
    passes: int | None = None,
) -> int:
    """Call ``queue_pass(everything)`` now and every ``period_s`` until SIGINT or SIGTERM (or
    ``passes`` calls); ``everything`` is true on the first call and once ``everything_every_s`` has
    passed since the last such call. A pass that fails is reported and the next one tried on time.
    Returns the number of passes queued."""
    from registry.core.errors import MCPDexError

    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)}
    last_everything: float | None = None
    count = 0
    try:
        while not stop.is_set() and (passes is None or count < passes):
            started = time.monotonic()
            everything = last_everything is None or (
                everything_every_s is not None and started - last_everything >= everything_every_s
            )
            try:
                queue_pass(everything)
            except MCPDexError as exc:
                on_error(exc)
            else:
                count += 1
                if everything:
                    last_everything = started
            stop.wait(max(0.0, period_s - (time.monotonic() - started)))
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return count
