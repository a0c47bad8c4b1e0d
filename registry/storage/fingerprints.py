"""What each server's pages are built from, as one digest per server, read without the snapshots.

A page shows a server's versions (label, digest, first and last seen), its newest inspections, the
scorecard and profile stored with a version, its official-registry entries and its title. Every
row of those is read here in a few whole-table queries (snapshots aside: a version's digest stands
for its snapshot), so that ``mcpdex report`` tells which servers changed since the last build in
well under a second at tens of thousands of servers. Inspections are only ever added, so their
count and newest id stand for them.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from typing import TYPE_CHECKING, Any

from registry.storage.schema import tables

if TYPE_CHECKING:
    from registry.storage.store import Store


def page_inputs(store: Store) -> dict[str, str]:
    """Server name → a sha256 of every stored row its pages are built from."""
    import sqlalchemy as sa

    t = tables()
    s, v, i, sc, p, r = (
        t.servers.c,
        t.versions.c,
        t.inspections.c,
        t.scores.c,
        t.profiles.c,
        t.registry_entries.c,
    )
    parts: dict[int, list[Any]] = defaultdict(list)
    with store.engine.connect() as conn:
        servers = {row.id: row for row in conn.execute(sa.select(s.id, s.name, s.title))}
        version_server: dict[int, int] = {}
        for row in conn.execute(
            sa.select(v.id, v.server_id, v.label, v.digest, v.first_seen, v.last_seen).order_by(v.id)
        ):
            version_server[row.id] = row.server_id
            parts[row.server_id].append(("v", *row))
        for counts in conn.execute(
            sa.select(i.server_id, sa.func.count(), sa.func.max(i.id)).group_by(i.server_id)
        ):
            parts[counts[0]].append(("i", *counts))
        for score in conn.execute(sa.select(sc.id, sc.version_id, sc.scorer, sc.scored_at).order_by(sc.id)):
            parts[version_server.get(score.version_id, -1)].append(("s", *score))
        for profile in conn.execute(sa.select(p.id, p.version_id, p.saved_at).order_by(p.id)):
            parts[version_server.get(profile.version_id, -1)].append(("p", *profile))
        ids = {row.name: server_id for server_id, row in servers.items()}
        for entry in conn.execute(sa.select(t.registry_entries).order_by(r.id)):
            parts[ids.get(entry.name, -1)].append(("r", *entry))
    return {
        row.name: hashlib.sha256(repr((row.name, row.title, parts[server_id])).encode()).hexdigest()
        for server_id, row in servers.items()
    }
