"""Scorecards stored with the versions they judge: a version is scored once, and lists and pages
read the stored result instead of scoring on every request.

A stored scorecard is trusted only by the scorer that made it (``scorer_key``: the package version
and a hash of the scoring code), so a changed scorer scores every version again. A version past the
limits is not scored; its row says which limit, so nothing retries it on every pass.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import Future, ProcessPoolExecutor
from functools import cache
from itertools import islice
from typing import TYPE_CHECKING, Any

from registry.core.limits import Limits

if TYPE_CHECKING:
    from registry.storage.records import StoredScore
    from registry.storage.store import Store


def score_and_store(
    store: Store, server: str, digest: str, snapshot: dict[str, Any], limits: Limits
) -> StoredScore:
    """Score ``server``'s version ``digest`` (unless it is past ``limits``) and store the result."""
    from registry.storage.records import StoredScore
    from scoring import score_snapshot
    from scoring.scorecard import scorer_key

    violation = next(islice(limits.violations(snapshot), 1), None)
    if violation is not None:
        note = f"not scored: {violation.message}"
        store.save_score(server, digest, scorer_key(), scorecard=None, tier=None, overall=None, note=note)
        return StoredScore(None, note)
    scorecard = score_snapshot(snapshot)
    roll_up = scorecard["server_score"]
    overall = roll_up["overall"]  # None for a server with no tools: nothing to score
    store.save_score(
        server,
        digest,
        scorer_key(),
        scorecard=scorecard,
        tier=roll_up["tier"],
        overall=None if overall is None else float(overall),
    )
    return StoredScore(scorecard, None)


@cache
def _child_store(url: str) -> Store:
    from registry.storage.store import open_store

    return open_store(url)


def _score_recorded(url: str, server: str, digest: str, limits: Limits) -> None:
    """In the scoring process: score a recorded version read from the registry at ``url``, once."""
    from scoring.scorecard import scorer_key

    store = _child_store(url)
    if store.stored_score(server, digest, scorer_key()) is None:
        score_and_store(store, server, digest, store.snapshot(server, digest), limits)


def _ignore_interrupts() -> None:
    """In the scoring child: Ctrl-C in a terminal reaches the whole process group, and stopping is
    the service's to do (it kills the child), so the child neither dies on it with a traceback nor
    leaves the queues' semaphores to be reported as leaked."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


class ScoringProcess:
    """A child process that scores recorded versions and stores their scorecards, one at a time.

    Scoring is CPU work on input that is not ours: in a process of its own it neither holds the
    service's interpreter lock nor its memory, and a job past its time budget is stopped by killing
    the process (the next job starts a fresh one).
    """

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None

    def submit(self, url: str, server: str, digest: str, limits: Limits) -> Future[None]:
        if self._pool is None:
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload(["registry.storage.scores", "registry.storage.store", "scoring"])
            self._pool = ProcessPoolExecutor(1, mp_context=context, initializer=_ignore_interrupts)
        return self._pool.submit(_score_recorded, url, server, digest, limits)

    def kill(self) -> None:
        """Stop the job in progress, if any, at once."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        # The executor has no public way to stop a running job; its worker processes are killed.
        for process in list(getattr(pool, "_processes", {}).values()):
            process.kill()
        pool.shutdown(wait=False, cancel_futures=True)
