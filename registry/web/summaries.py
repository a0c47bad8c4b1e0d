"""The server list and the stored score briefs, cached briefly: the list endpoint and every page read
them, and a write makes the next read wait for fresh ones."""

from __future__ import annotations

import time
from typing import TypedDict

import anyio

from registry.storage.records import ServerSummary
from registry.storage.store import Store
from registry.web.plumbing import db
from scoring.scorecard import scorer_key


class ScoreBrief(TypedDict):
    """The stored tier and overall score of a version, as the server list and a server show it."""

    tier: str
    overall: float


class Summaries:
    """The store's server list and stored score briefs, reused for ``ttl_s`` seconds: the list and
    every page need them. Past ``ttl_s`` one request refreshes them while the others keep the
    previous ones; this process's own writes make the next request wait for fresh ones, so other
    processes' writes show within about ``ttl_s``."""

    def __init__(self, ttl_s: float = 1.0) -> None:
        self._ttl_s = ttl_s
        self._value: list[ServerSummary] | None = None
        # The stored tier and overall score of each scored version, by (server, digest).
        self.briefs: dict[tuple[str, str], tuple[str, float]] = {}
        self._at = 0.0
        self._stale = True
        self._refreshing = False
        self._lock = anyio.Lock()

    async def get(self, store: Store) -> list[ServerSummary]:
        if self._value is not None and not self._stale and time.monotonic() - self._at > self._ttl_s:
            if not self._refreshing:
                self._refreshing = True
                try:
                    await self._refresh(store)
                finally:
                    self._refreshing = False
            return self._value
        if self._value is None or self._stale:
            async with self._lock:
                if self._value is None or self._stale:
                    await self._refresh(store)
        assert self._value is not None  # set by _refresh
        return self._value

    async def _refresh(self, store: Store) -> None:
        at = time.monotonic()
        self._stale = False
        value = await db(store.servers)
        self.briefs = await db(store.score_briefs, scorer_key())
        self._value, self._at = value, at

    def brief(self, server: str, digest: str | None) -> ScoreBrief | None:
        """The stored tier and overall score of ``server``'s version ``digest``; None while unscored."""
        known = self.briefs.get((server, digest or ""))
        return None if known is None else {"tier": known[0], "overall": known[1]}

    def invalidate(self) -> None:
        self._stale = True
