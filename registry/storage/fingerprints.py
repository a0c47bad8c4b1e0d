"""What each server's pages are built from, as one digest per server, read without the snapshots.

A page shows a server's versions (label, digest, first and last seen), its newest inspections, the
scorecard and profile stored with a version, its official-registry entries and its title. Every
row of those is read here in six whole-table queries (snapshots aside: a version's digest stands
for its snapshot), through the store's plain reads (sqlite3 itself for SQLite), so that ``mcpdex
report`` tells which servers changed since the last build in well under a second at tens of
thousands of servers. Inspections are only ever added, so their count and newest id stand for them.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from registry.storage.store import Store

_SERVERS = "SELECT id, name, title FROM servers"
_VERSIONS = "SELECT id, server_id, label, digest, first_seen, last_seen FROM versions ORDER BY id"
_INSPECTIONS = "SELECT server_id, COUNT(*), MAX(id) FROM inspections GROUP BY server_id"
_SCORES = "SELECT version_id, id, scorer, scored_at FROM scores ORDER BY id"
_PROFILES = "SELECT version_id, id, saved_at FROM profiles ORDER BY id"
_ENTRIES = (
    "SELECT name, version, status, status_message, published_at, updated_at, is_latest, server_json, "
    "outcome, reason, seen_at FROM registry_entries ORDER BY id"
)


def page_inputs(store: Store) -> dict[str, str]:
    """Server name → a sha256 of every stored row its pages are built from."""
    servers = {int(row[0]): (row[1], row[2]) for row in _rows(store, _SERVERS)}
    parts: dict[int, list[Any]] = defaultdict(list)
    version_server: dict[int, int] = {}
    for row in _rows(store, _VERSIONS):
        version_server[int(row[0])] = int(row[1])
        parts[int(row[1])].append(("v", *row))
    for row in _rows(store, _INSPECTIONS):
        parts[int(row[0])].append(("i", *row))
    for kind, sql in (("s", _SCORES), ("p", _PROFILES)):
        for row in _rows(store, sql):
            parts[version_server.get(int(row[0]), -1)].append((kind, *row))
    ids = {name: server_id for server_id, (name, _) in servers.items()}
    for row in _rows(store, _ENTRIES):
        parts[ids.get(row[0], -1)].append(("r", *row))
    return {
        name: hashlib.sha256(repr((name, title, parts[server_id])).encode()).hexdigest()
        for server_id, (name, title) in servers.items()
    }


def _rows(store: Store, sql: str) -> list[tuple[Any, ...]]:
    """The rows of ``sql`` as plain tuples (sqlite3 rows and SQLAlchemy mappings alike)."""
    rows = store._query(sql)
    if rows and hasattr(rows[0], "values"):
        return [tuple(row.values()) for row in rows]
    return [tuple(row) for row in rows]
