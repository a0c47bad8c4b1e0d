"""The registry store: servers, versions, inspections and memory profiles in SQLite or PostgreSQL.

SQLAlchemy Core only. The store persists and queries; it never judges. A new version row is
written only when a server's digest has not been seen before, and every inspection (failed
ones included) gets a row. Concurrent writers rely on unique constraints, not on locks held
in Python, so several processes or machines can save at once without losing or doubling rows. A
submission that carries an idempotency key (each token's own) is recorded once however often it is
retried. What either database would refuse or keep differently is refused first (RecordRejected).

The store is assembled here from its halves: connections and schema in ``database.py`` and
``schema.py``, writes in ``writes.py``, reads in ``reads.py``, the records both hand out in
``records.py``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from registry.storage.reads import StoreReads
from registry.storage.writes import StoreWrites

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine


class Store(StoreWrites, StoreReads):
    """A registry database. Open it with :func:`open_store`; close it when done."""


def open_store(url: str | None = None) -> Store:
    """Open the registry at ``url`` (None: the default registry); tables are created on first write."""
    from registry.core.paths import resolve_registry_url

    return Store(resolve_registry_url(url))


def store_engine(store: Store) -> Engine:
    """The SQLAlchemy engine behind ``store``, for tables kept beside the registry's (write tokens)."""
    return store.engine
