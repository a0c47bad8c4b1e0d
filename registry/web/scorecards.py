"""The service's scorecards: each recorded version is scored once, in a worker thread or a background
child process, and its stored scorecard is read back through a small cache."""

from __future__ import annotations

import contextlib
import logging
from collections import OrderedDict, deque
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import anyio
from anyio import to_thread

from registry.core.errors import MCPDexError
from registry.core.limits import Limits
from registry.storage.scores import ScoringProcess, score_and_store
from registry.storage.store import Store
from registry.web.errors import ApiError, first_line, is_database_outage
from registry.web.plumbing import db
from scoring.scorecard import scorer_key

log_scores = logging.getLogger("mcpdex.serve.scores")


class Scores:
    """Each recorded version is scored once and its scorecard stored with it; requests only read.

    A submission's version of at most ``in_thread_tools`` tools is scored in a worker thread before
    the answer (milliseconds). Bigger ones are scored in a child process, one at a time: first the
    versions this process's submissions recorded (each submission waits up to ``answer_wait_s`` for
    its score), then every version recorded without a score (by another process or the CLI),
    newest first, looked for every ``poll_s``. A job past ``budget_s`` is stopped, and the version
    noted as not scored. A read of a version not scored yet is a 503 ``score_pending``.
    """

    def __init__(
        self,
        limits: Limits,
        *,
        poll_s: float = 5.0,
        budget_s: float = 300.0,
        answer_wait_s: float = 10.0,
        in_thread_tools: int = 200,
        cards: int = 16,
    ) -> None:
        self.limits = limits
        self._in_thread_tools = in_thread_tools
        self._poll_s, self._budget_s, self._answer_wait_s = poll_s, budget_s, answer_wait_s
        self._process = ScoringProcess()
        self._queue: deque[tuple[str, str]] = deque()
        self._done: dict[tuple[str, str], anyio.Event] = {}
        self._wake = anyio.Event()
        # Parsed stored scorecards by digest: a digest's scorecard never changes, so entries never go stale.
        self._cards: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._size = cards

    async def score(self, store: Store, server: str, digest: str, snapshot: dict[str, Any]) -> None:
        """Score a version just recorded: a small one at once, a big one first in the queue, waited for
        a little."""
        if len(snapshot.get("tools") or []) <= self._in_thread_tools:
            if await db(store.stored_score, server, digest, scorer_key()) is None:
                await to_thread.run_sync(score_and_store, store, server, digest, snapshot, self.limits)
            return
        key = (server, digest)
        done = self._done.setdefault(key, anyio.Event())
        self._queue.append(key)
        self._wake.set()
        with anyio.move_on_after(self._answer_wait_s):
            await done.wait()

    async def scorecard(self, store: Store, server: str, digest: str) -> dict[str, Any]:
        """The stored scorecard of ``server``'s version ``digest``; ApiError while there is none."""
        if digest in self._cards:
            self._cards.move_to_end(digest)
            return self._cards[digest]
        stored = await db(store.stored_score, server, digest, scorer_key())
        if stored is None:
            self._wake.set()
            raise ApiError(
                503,
                "score_pending",
                f"the scorecard of this version of {server!r} is being computed; retry shortly",
                {"Retry-After": "2"},
            )
        if stored.scorecard is None:
            raise ApiError(422, "not_scored", f"this version of {server!r} is {stored.note}")
        self._cards[digest] = stored.scorecard
        if len(self._cards) > self._size:
            self._cards.popitem(last=False)
        return stored.scorecard

    async def run(self, store: Store, scored: Callable[[], None]) -> None:
        """The background job: forever, score what is queued, then what is unscored, else wait."""
        try:
            while True:
                if self._queue:
                    batch = [self._queue.popleft()]
                else:
                    try:
                        batch = await db(store.unscored_versions, scorer_key(), 20)
                    except Exception as exc:  # a database outage: look again on the next pass
                        log_scores.warning("cannot list unscored versions: %s", first_line(exc))
                        batch = []
                for server, digest in batch:
                    await self._score_one(store, server, digest)
                    scored()
                    done = self._done.pop((server, digest), None)
                    if done is not None:
                        done.set()
                    if self._queue:
                        break  # a submission's version goes first
                if not batch:
                    with anyio.move_on_after(self._poll_s):
                        await self._wake.wait()
                    self._wake = anyio.Event()
        finally:
            self._process.kill()

    async def _score_one(self, store: Store, server: str, digest: str) -> None:
        job = self._process.submit(store.url, server, digest, self.limits)
        try:
            await to_thread.run_sync(job.result, self._budget_s, abandon_on_cancel=True)
            return
        except TimeoutError:
            self._process.kill()
            note = f"not scored: scoring took longer than {self._budget_s:g} s"
        except BrokenProcessPool:
            self._process.kill()
            note = "not scored: the scoring process died (out of memory?)"
        except MCPDexError as exc:
            log_scores.warning("scoring %s %s: %s", server, digest, first_line(exc))
            return  # the version is gone or the database is away: looked at again on the next pass
        except Exception as exc:
            if is_database_outage(exc):
                return
            note = f"not scored: the scorer failed ({type(exc).__name__})"
        # Noted once, so the same version is not tried again on every pass.
        log_scores.error("%s %s %s", server, digest, note)
        with contextlib.suppress(Exception):
            await db(
                store.save_score,
                server,
                digest,
                scorer_key(),
                scorecard=None,
                tier=None,
                overall=None,
                note=note,
            )
