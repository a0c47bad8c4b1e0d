"""The store's reads: servers with their last inspection, versions in version order, snapshots,
inspections, memory profiles, stored scores and official-registry entries.

Each is plain SQL that SQLite and PostgreSQL both accept, run through SQLAlchemy for PostgreSQL and
through the standard library for SQLite (so `mcpdex show` starts fast); a table or file not there
yet reads as nothing recorded.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from registry.core.errors import NotFoundError
from registry.core.strict_json import prune_depth
from registry.storage.database import SQL_SERVER, Database
from registry.storage.records import (
    InspectionRecord,
    RegistryEntryRecord,
    ServerSummary,
    StoredScore,
    VersionRecord,
    order_versions,
)

# Every server with its last inspection, in one statement whatever the number of servers.
_SQL_SERVERS = (
    "SELECT s.id AS id, s.name AS name, s.title AS title, i.at AS at, i.ok AS ok, i.error AS error "
    "FROM servers s LEFT JOIN (SELECT server_id, at, ok, error, "
    "ROW_NUMBER() OVER (PARTITION BY server_id ORDER BY at DESC, id DESC) AS n FROM inspections) i "
    "ON i.server_id = s.id AND i.n = 1 ORDER BY s.name"
)
# {where} is one server's (``WHERE server_id = :server_id``) or empty for every server's at once.
_SQL_VERSIONS = (
    "SELECT server_id, label, digest, first_seen, last_seen, {snapshot} AS snapshot FROM versions "
    "{where} ORDER BY first_seen, id"
)
_SQL_SNAPSHOT = "SELECT snapshot FROM versions WHERE server_id = :server_id AND digest = :digest"
# The version an alias names (an explicit label given to a snapshot already stored).
_SQL_ALIAS = (
    "SELECT v.digest AS digest FROM version_aliases a JOIN versions v ON a.version_id = v.id "
    "WHERE a.server_id = :server_id AND a.label = :label"
)
_SQL_INSPECTIONS = (
    "SELECT i.at AS at, i.ok AS ok, i.error AS error, i.duration_s AS duration_s, v.label AS label "
    "FROM inspections i LEFT JOIN versions v ON i.version_id = v.id "
    "WHERE i.server_id = :server_id ORDER BY i.at DESC, i.id DESC LIMIT :limit"
)
_SQL_PROFILE = (
    "SELECT p.profile AS profile FROM profiles p JOIN versions v ON p.version_id = v.id "
    "WHERE v.server_id = :server_id AND (v.label = :version OR v.digest = :version)"
)
_SQL_REGISTRY_ENTRIES = (
    "SELECT name, version, status, status_message, published_at, updated_at, is_latest, server_json, "
    "outcome, reason, seen_at FROM registry_entries {where} ORDER BY name, id"
)
_SQL_REGISTRY_SYNC = "SELECT updated_since FROM registry_syncs WHERE source = :source"

# Stored scores, read with plain SQL like every other read (the table may not exist yet: no rows).
_SQL_SCORE_BRIEFS = (
    "SELECT s.name AS name, v.digest AS digest, sc.tier AS tier, sc.overall AS overall "
    "FROM scores sc JOIN versions v ON sc.version_id = v.id JOIN servers s ON v.server_id = s.id "
    "WHERE sc.scorer = :scorer AND sc.tier IS NOT NULL"
)
_SQL_SCORE = (
    "SELECT sc.scorecard AS scorecard, sc.note AS note "
    "FROM scores sc JOIN versions v ON sc.version_id = v.id "
    "WHERE v.server_id = :server_id AND v.digest = :digest AND sc.scorer = :scorer"
)
_SQL_UNSCORED = (
    "SELECT s.name AS name, v.digest AS digest FROM versions v JOIN servers s ON v.server_id = s.id "
    "WHERE NOT EXISTS (SELECT 1 FROM scores sc WHERE sc.version_id = v.id AND sc.scorer = :scorer) "
    "ORDER BY v.id DESC LIMIT :limit"
)


class StoreReads(Database):
    """The reading half of :class:`registry.storage.store.Store`."""

    def registry_entries(self, name: str | None = None) -> list[RegistryEntryRecord]:
        """The official-registry rows of ``name`` (every server's when None), by name then first seen."""
        where = "WHERE name = :name" if name is not None else ""
        rows = self._query(_SQL_REGISTRY_ENTRIES.format(where=where), name=name)
        return [
            RegistryEntryRecord(
                r["name"],
                r["version"],
                r["status"],
                r["status_message"],
                r["published_at"],
                r["updated_at"],
                None if r["is_latest"] is None else bool(r["is_latest"]),
                json.loads(r["server_json"]),
                r["outcome"],
                r["reason"],
                r["seen_at"],
            )
            for r in rows
        ]

    def last_sync(self, source: str) -> str | None:
        """The largest ``updatedAt`` seen by the last crawl of ``source``, or None."""
        rows = self._query(_SQL_REGISTRY_SYNC, source=source)
        return rows[0]["updated_since"] if rows else None

    def servers(self) -> list[ServerSummary]:
        """Every server, by name, with its latest version and last inspection."""
        # Two statements in all (servers with their last inspection, then every version), not
        # two per server: listing a directory of many servers is one round trip each.
        rows = self._query(_SQL_SERVERS)
        by_server: dict[int, list[Any]] = {}
        for version in self._query(_SQL_VERSIONS.format(snapshot="NULL", where="")):
            by_server.setdefault(int(version["server_id"]), []).append(version)
        summaries = []
        for row in rows:
            versions = _version_records(by_server.get(int(row["id"]), []), with_snapshots=False)
            latest = versions[-1] if versions else None
            inspected = row["at"] is not None
            summaries.append(
                ServerSummary(
                    name=row["name"],
                    title=row["title"],
                    latest_version=latest.label if latest else None,
                    latest_digest=latest.digest if latest else None,
                    version_count=len(versions),
                    last_inspected_at=row["at"],
                    last_ok=bool(row["ok"]) if inspected else None,
                    last_error=row["error"],
                )
            )
        return summaries

    def versions(self, server: str) -> list[VersionRecord]:
        """A server's versions, oldest → newest (semver where labels parse, else first seen)."""
        return self._versions(self._server_id(server), with_snapshots=True)

    def snapshot(self, server: str, version: str | None = None) -> dict[str, Any]:
        """The snapshot of ``server`` at ``version`` (a label or a ``sha256:`` digest); latest when None.

        Reads that one snapshot, not every version's.
        """
        digest = self.version_digest(server, version)
        (row,) = self._query(_SQL_SNAPSHOT, server_id=self._server_id(server), digest=digest)
        snapshot: dict[str, Any] = _stored_json(row["snapshot"])
        return snapshot

    def latest_version(self, server: str) -> VersionRecord | None:
        """The latest version of ``server`` with its snapshot; None when it has none or is not recorded.

        Reads one snapshot, not every version's; an SQLite file that is not there is not created.
        """
        rows = self._query(SQL_SERVER, name=server)
        if not rows:
            return None
        server_id = int(rows[0]["id"])
        versions = self._versions(server_id, with_snapshots=False)
        if not versions:
            return None
        latest = versions[-1]
        (row,) = self._query(_SQL_SNAPSHOT, server_id=server_id, digest=latest.digest)
        return replace(latest, snapshot=_stored_json(row["snapshot"]))

    def inspections(self, server: str, limit: int = 50) -> list[InspectionRecord]:
        """The latest inspections of ``server``, newest first."""
        rows = self._query(_SQL_INSPECTIONS, server_id=self._server_id(server), limit=limit)
        return [
            InspectionRecord(r["at"], bool(r["ok"]), r["error"], float(r["duration_s"]), r["label"])
            for r in rows
        ]

    def profile(self, server: str, version: str | None = None) -> dict[str, Any] | None:
        """The memory profile saved for ``server`` at ``version`` (latest when None), or None."""
        server_id = self._server_id(server)
        if version is None:
            versions = self._versions(server_id, with_snapshots=False)
            if not versions:
                return None
            version = versions[-1].label
        rows = self._query(_SQL_PROFILE, server_id=server_id, version=version)
        return json.loads(rows[0]["profile"]) if rows else None

    def score_briefs(self, scorer: str) -> dict[tuple[str, str], tuple[str, float]]:
        """The tier and overall score ``scorer`` stored for each version, by (server, digest)."""
        rows = self._query(_SQL_SCORE_BRIEFS, scorer=scorer)
        return {(r["name"], r["digest"]): (r["tier"], float(r["overall"])) for r in rows}

    def stored_score(self, server: str, digest: str, scorer: str) -> StoredScore | None:
        """What ``scorer`` stored for ``server``'s version ``digest``; None when it is not scored yet."""
        rows = self._query(_SQL_SCORE, server_id=self._server_id(server), digest=digest, scorer=scorer)
        if not rows:
            return None
        body = rows[0]["scorecard"]
        return StoredScore(None if body is None else json.loads(body), rows[0]["note"])

    def unscored_versions(self, scorer: str, limit: int) -> list[tuple[str, str]]:
        """Up to ``limit`` (server, digest) pairs ``scorer`` has stored nothing for, newest first."""
        return [(r["name"], r["digest"]) for r in self._query(_SQL_UNSCORED, scorer=scorer, limit=limit)]

    def version_digest(self, server: str, version: str | None = None) -> str:
        """The digest of ``server`` at ``version`` (a label or a digest; the latest when None)."""
        versions = self._versions(self._server_id(server), with_snapshots=False)
        if not versions:
            raise NotFoundError(
                f"server {server!r} has no recorded versions; run `mcpdex inspect --save` first"
            )
        for record in versions if version is not None else versions[-1:]:
            if version in (None, record.label, record.digest):
                return record.digest
        aliased = self._query(_SQL_ALIAS, server_id=self._server_id(server), label=version)
        if aliased:
            return str(aliased[0]["digest"])
        labels = ", ".join(r.label for r in versions[-10:])
        raise NotFoundError(f"{server}@{version} is not in the registry; known versions: {labels}")

    def _versions(self, server_id: int, *, with_snapshots: bool) -> list[VersionRecord]:
        sql = _SQL_VERSIONS.format(
            snapshot="snapshot" if with_snapshots else "NULL", where="WHERE server_id = :server_id"
        )
        return _version_records(self._query(sql, server_id=server_id), with_snapshots=with_snapshots)


def _version_records(rows: list[Any], *, with_snapshots: bool) -> list[VersionRecord]:
    """One server's version rows (oldest first seen first) as records in version order."""
    return order_versions(
        [
            VersionRecord(
                r["label"],
                r["digest"],
                r["first_seen"],
                r["last_seen"],
                _stored_json(r["snapshot"]) if with_snapshots else {},
            )
            for r in rows
        ]
    )


def _stored_json(text: str) -> Any:
    """A stored document, read so that one written before nesting was bounded cannot make every
    later read fail: its containers past ``MAX_JSON_DEPTH`` are replaced by a note."""
    return prune_depth(json.loads(text))
