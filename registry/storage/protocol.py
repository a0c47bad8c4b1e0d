"""The one interface of a registry, whichever keeps it: the SQL store (``store.Store``) and an
``mcpdex serve`` service reached over HTTP (``client.ServiceRegistry``) both implement ``Registry``,
so ``inspect --save``, ``crawl``, ``check`` and ``SERVER@VERSION`` lookups work the same on either.
"""

from __future__ import annotations

from typing import Any, Protocol, Self

from registry.storage.records import Recorded, ServerSummary, VersionRecord


class Registry(Protocol):
    """What a command does with the registry ``open_registry`` opens; close it when done."""

    def record_inspection(
        self,
        snapshot: dict[str, Any] | None,
        *,
        server: str,
        ok: bool,
        error: str | None,
        started_at: str,
        duration_s: float,
    ) -> Recorded:
        """Record one inspection of ``server``: its snapshot, or ``None`` with the ``error``."""
        ...

    def snapshot(self, server: str, version: str | None = None) -> dict[str, Any]:
        """The snapshot of ``server`` at ``version`` (a label or a digest; the latest when None)."""
        ...

    def latest_version(self, server: str) -> VersionRecord | None:
        """The latest version of ``server`` with its snapshot; None when it has none or is not recorded."""
        ...

    def servers(self) -> list[ServerSummary]:
        """Every server, by name, with its latest version and last inspection."""
        ...

    def close(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(self, *exc_info: object) -> None: ...
