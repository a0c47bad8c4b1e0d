"""The store's writes: an inspection (with its version when the digest is new, once per idempotency
key), a memory profile, a scorecard and what an official-registry crawl saw.

Concurrent writers rely on unique constraints, not on locks held in Python: a writer that loses a
race retries and finds the winner's row. What either database would refuse or keep differently is
refused first (RecordRejected), so SQLite and PostgreSQL answer alike.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any

from common.retries import AGAIN, AT_ONCE, Backoff, Retry, with_retries
from registry.core.errors import NotFoundError, RegistryError
from registry.core.snapshot import compute_digest, server_version
from registry.core.strict_json import JSONValueError, check_json
from registry.core.timestamps import utc_now_precise
from registry.storage.database import Database
from registry.storage.records import (
    UNSCOPED_OWNER,
    Recorded,
    RecordRejected,
    RegistryEntryRecord,
    SubmissionKey,
    SubmissionKeyReused,
    utc_timestamp,
)
from registry.storage.schema import tables

if TYPE_CHECKING:
    from sqlalchemy import Table
    from sqlalchemy.engine import Connection, CursorResult

# A racing writer's row is there at once; a locked SQLite file is waited for a little longer each time.
_RECORD_BACKOFF = Backoff((0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35))
# An entry another crawler inserted first is updated by the one retry, at once.
_ENTRY_BACKOFF = Backoff((0.0,))


class StoreWrites(Database):
    """The writing half of :class:`registry.storage.store.Store`."""

    def record_inspection(
        self,
        snapshot: dict[str, Any] | None,
        *,
        server: str,
        ok: bool,
        error: str | None,
        started_at: str,
        duration_s: float,
        key: SubmissionKey | None = None,
    ) -> Recorded:
        """Record one inspection; with a snapshot, also its version when the digest is new.

        With ``key``, a key already recorded answers its first result (``replayed``) and records
        nothing; the same key with another fingerprint raises :class:`SubmissionKeyReused`. What no
        database could hold (a non-finite duration or number, a lone surrogate, nesting past
        ``MAX_JSON_DEPTH``, text wider than its column, a time that is not RFC 3339) and a ``server``
        name the service would refuse raise :class:`RecordRejected` before anything is written, on
        SQLite and PostgreSQL alike.
        """
        from sqlalchemy.exc import IntegrityError, OperationalError

        from registry.core.names import server_name_problem

        problem = server_name_problem(server)
        if problem is not None:
            raise RecordRejected("server name", problem)
        started_at = utc_timestamp(started_at)
        if isinstance(duration_s, bool) or not isinstance(duration_s, int | float):
            raise RecordRejected("duration_s", f"duration_s must be a number of seconds, not {duration_s!r}")
        if not math.isfinite(duration_s) or duration_s < 0:
            raise RecordRejected(
                "duration_s", f"duration_s is {duration_s!r}; send a finite, non-negative number of seconds"
            )
        for field, value in (("server", server), ("error", error), ("snapshot", snapshot)):
            try:
                check_json(value, what=f"{field} field" if field == "snapshot" else field)
            except JSONValueError as exc:
                raise RecordRejected(field, exc.message) from None

        def retriable(exc: Exception) -> Retry | None:
            # Another writer inserted the same server, digest, label or key between our read and
            # write: the retry sees its row. Any other constraint is no race: retrying it would fail
            # the same way every time. A locked SQLite file is waited for.
            if isinstance(exc, IntegrityError):
                return AT_ONCE if _is_unique_violation(exc) else None
            if isinstance(exc, OperationalError) and "locked" in str(exc.orig):
                return AGAIN
            return None

        try:
            return with_retries(
                lambda: self._record_once(snapshot, server, ok, error, started_at, duration_s, key),
                _RECORD_BACKOFF,
                on_error=retriable,
            )
        except OperationalError as exc:
            raise RegistryError(
                f"cannot write to the registry at {self._display_url()}: {exc.orig}"
            ) from None

    def _record_once(
        self,
        snapshot: dict[str, Any] | None,
        server: str,
        ok: bool,
        error: str | None,
        started_at: str,
        duration_s: float,
        key: SubmissionKey | None,
    ) -> Recorded:
        t = tables()
        title = ((snapshot or {}).get("server") or {}).get("title")
        with self._transaction(self.engine, write=True) as conn:
            if key is not None:
                first = self._keyed_answer(conn, key, server)
                if first is not None:
                    return first
            server_id = self._ensure_server(conn, server, title)
            version_id = label = digest = None
            new_version = False
            if snapshot is not None:
                # Recomputed, never trusted: the digest is what decides whether a version is new.
                digest = compute_digest(snapshot)
                version_id, label, new_version = self._ensure_version(conn, server_id, snapshot, digest)
            inspection_id = _new_id(
                conn.execute(
                    t.inspections.insert().values(
                        server_id=server_id,
                        version_id=version_id,
                        at=started_at,
                        ok=ok,
                        error=error,
                        duration_s=duration_s,
                    )
                )
            )
            if key is not None:
                _check_widths(t.submission_keys, {"token_id": key.owner, "key": key.key})
                conn.execute(
                    t.submission_keys.insert().values(
                        token_id=key.owner,
                        key=key.key,
                        fingerprint=key.fingerprint,
                        inspection_id=inspection_id,
                        new_version=new_version,
                        at=utc_now_precise(),
                    )
                )
        return Recorded(server, label, digest, new_version, inspection_id)

    def _keyed_answer(self, conn: Connection, key: SubmissionKey, server: str) -> Recorded | None:
        """The first answer given for ``key`` by its owner, rebuilt from its rows; None when the key is
        new to that owner. A key recorded before keys were scoped answers only for the same server."""
        import sqlalchemy as sa

        t = tables()
        k, i, v, s = t.submission_keys.c, t.inspections.c, t.versions.c, t.servers.c
        rows = conn.execute(
            sa.select(k.token_id, k.fingerprint, k.inspection_id, k.new_version, s.name, v.label, v.digest)
            .select_from(
                t.submission_keys.join(t.inspections, k.inspection_id == i.id)
                .join(t.servers, i.server_id == s.id)
                .outerjoin(t.versions, i.version_id == v.id)
            )
            .where(k.key == key.key, k.token_id.in_([key.owner, UNSCOPED_OWNER]))
        ).all()
        own = [r for r in rows if r.token_id == key.owner]
        unscoped = [r for r in rows if r.token_id == UNSCOPED_OWNER and r.name == server]
        row = next(iter(own or unscoped), None)
        if row is None:
            return None
        if row.fingerprint != key.fingerprint:
            raise SubmissionKeyReused(
                f"idempotency key {key.key!r} was first used for another submission (to {row.name!r}); "
                "send a new key for each submission and reuse it only to retry that submission"
            )
        return Recorded(
            row.name, row.label, row.digest, bool(row.new_version), int(row.inspection_id), replayed=True
        )

    def _ensure_server(self, conn: Connection, name: str, title: str | None) -> int:
        import sqlalchemy as sa

        s = tables().servers
        row = conn.execute(sa.select(s.c.id, s.c.title).where(s.c.name == name)).first()
        if row is None:
            _check_widths(s, {"name": name})
            return _new_id(
                conn.execute(s.insert().values(name=name, title=title, created_at=utc_now_precise()))
            )
        if title and row.title != title:
            conn.execute(s.update().where(s.c.id == row.id).values(title=title))
        return int(row.id)

    def _ensure_version(
        self, conn: Connection, server_id: int, snapshot: dict[str, Any], digest: str
    ) -> tuple[int, str, bool]:
        import sqlalchemy as sa

        versions = tables().versions
        v = versions.c
        now = utc_now_precise()
        row = conn.execute(
            sa.select(v.id, v.label).where(v.server_id == server_id, v.digest == digest)
        ).first()
        if row is not None:
            conn.execute(versions.update().where(v.id == row.id).values(last_seen=now))
            self._alias(conn, server_id, int(row.id), row.label, snapshot.get("versionLabel"), now)
            return int(row.id), row.label, False
        label = server_version(snapshot)
        taken = conn.execute(sa.select(v.id).where(v.server_id == server_id, v.label == label)).first()
        if taken is not None:
            # The server changed its tools without changing its version: keep both, and make the
            # label unique with semver build metadata (ignored for ordering) from the digest.
            label = f"{label}+{digest.removeprefix('sha256:')[:12]}"
        _check_widths(versions, {"label": label})
        stored = dict(snapshot, digest=digest)
        version_id = _new_id(
            conn.execute(
                versions.insert().values(
                    server_id=server_id,
                    label=label,
                    digest=digest,
                    snapshot=json.dumps(stored, sort_keys=True, ensure_ascii=False),
                    first_seen=now,
                    last_seen=now,
                )
            )
        )
        return version_id, label, True

    def _alias(
        self, conn: Connection, server_id: int, version_id: int, label: str, alias: Any, now: str
    ) -> None:
        """Record the caller's explicit label of an unchanged version as its alias, unless the label
        already names a version (or an alias) of this server."""
        import sqlalchemy as sa

        if not isinstance(alias, str) or not alias or alias == label:
            return
        t = tables()
        v, a = t.versions.c, t.version_aliases.c
        if conn.execute(sa.select(v.id).where(v.server_id == server_id, v.label == alias)).first():
            return
        if conn.execute(sa.select(a.id).where(a.server_id == server_id, a.label == alias)).first():
            return
        _check_widths(t.version_aliases, {"label": alias})
        conn.execute(
            t.version_aliases.insert().values(
                server_id=server_id, version_id=version_id, label=alias, recorded_at=now
            )
        )

    def save_profile(self, server: str, version: str, profile: dict[str, Any]) -> None:
        """Store (or replace) the memory profile of one recorded version."""
        import sqlalchemy as sa

        t = tables()
        v, p = t.versions.c, t.profiles.c
        body = json.dumps(profile, sort_keys=True, ensure_ascii=False)
        with self._transaction(self.engine, write=True) as conn:
            server_id = self._server_id(server)
            row = conn.execute(
                sa.select(v.id).where(
                    v.server_id == server_id, sa.or_(v.label == version, v.digest == version)
                )
            ).first()
            if row is None:
                raise NotFoundError(
                    f"{server}@{version} is not in the registry; see `mcpdex versions {server}`"
                )
            existing = conn.execute(sa.select(p.id).where(p.version_id == row.id)).first()
            if existing is None:
                conn.execute(
                    t.profiles.insert().values(version_id=row.id, profile=body, saved_at=utc_now_precise())
                )
            else:
                conn.execute(
                    t.profiles.update()
                    .where(p.id == existing.id)
                    .values(profile=body, saved_at=utc_now_precise())
                )

    def record_registry_entry(self, entry: RegistryEntryRecord) -> None:
        """Insert or replace the row of ``entry``'s (name, version)."""
        import sqlalchemy as sa
        from sqlalchemy.exc import IntegrityError

        table = tables().registry_entries
        row = {
            "name": entry.name,
            "version": entry.version,
            "status": entry.status,
            "status_message": entry.status_message,
            "published_at": entry.published_at,
            "updated_at": entry.updated_at,
            "is_latest": entry.is_latest,
            "server_json": json.dumps(entry.server, sort_keys=True, ensure_ascii=False),
            "outcome": entry.outcome,
            "reason": entry.reason,
            "seen_at": entry.seen_at,
        }
        match = sa.and_(table.c.name == entry.name, table.c.version == entry.version)

        def upsert() -> None:
            with self._transaction(self.engine, write=True) as conn:
                if conn.execute(table.update().where(match).values(**row)).rowcount == 0:
                    conn.execute(table.insert().values(**row))

        # Another writer inserted it first: the retry updates it.
        with_retries(
            upsert, _ENTRY_BACKOFF, on_error=lambda exc: AGAIN if isinstance(exc, IntegrityError) else None
        )

    def record_sync(self, source: str, updated_since: str | None) -> None:
        """Remember ``updated_since`` for the next incremental crawl of ``source``."""
        import sqlalchemy as sa

        table = tables().registry_syncs
        values = {"updated_since": updated_since, "synced_at": utc_now_precise()}
        with self._transaction(self.engine, write=True) as conn:
            if conn.execute(table.update().where(table.c.source == source).values(**values)).rowcount == 0:
                conn.execute(sa.insert(table).values(source=source, **values))

    def save_score(
        self,
        server: str,
        digest: str,
        scorer: str,
        *,
        scorecard: dict[str, Any] | None,
        tier: str | None,
        overall: float | None,
        note: str | None = None,
    ) -> None:
        """Store the scorecard ``scorer`` made of ``server``'s version ``digest`` (or why it made none).

        A version already scored by the same scorer keeps its row: the same snapshot scores the same.
        """
        import sqlalchemy as sa
        from sqlalchemy.exc import IntegrityError

        t = tables()
        v, sc = t.versions.c, t.scores.c
        server_id = self._server_id(server)
        body = None if scorecard is None else json.dumps(scorecard, sort_keys=True, ensure_ascii=False)
        try:
            with self._transaction(self.engine, write=True) as conn:
                version = conn.execute(
                    sa.select(v.id).where(v.server_id == server_id, v.digest == digest)
                ).first()
                if version is None:
                    raise NotFoundError(f"{server} has no version {digest}")
                known = conn.execute(
                    sa.select(sc.id).where(sc.version_id == version.id, sc.scorer == scorer)
                ).first()
                if known is None:
                    conn.execute(
                        t.scores.insert().values(
                            version_id=version.id,
                            scorer=scorer,
                            tier=tier,
                            overall=overall,
                            scorecard=body,
                            note=note,
                            scored_at=utc_now_precise(),
                        )
                    )
        except IntegrityError:
            pass  # another process stored the same score first


# What each column is called in RecordRejected messages, for the columns a caller's values reach.
_FIELDS = {"name": "server name", "label": "version label", "key": "idempotency key", "token_id": "token id"}


def _check_widths(table: Table, values: dict[str, str]) -> None:
    """RecordRejected for a value wider than its column: PostgreSQL refuses it and SQLite would keep
    it, so the store answers the same on both before the database sees it."""
    from sqlalchemy import String

    for column, value in values.items():
        kind = table.c[column].type
        width = kind.length if isinstance(kind, String) else None
        if width is not None and len(value) > width:
            field = _FIELDS.get(column, column)
            raise RecordRejected(
                field, f"{field} starting {value[:40]!r} is {len(value)} characters; at most {width} fit"
            )


def _new_id(result: CursorResult[Any]) -> int:
    """The primary key an INSERT of one row made."""
    key = result.inserted_primary_key
    assert key is not None, "an INSERT of one row has its primary key"
    return int(key[0])


def _is_unique_violation(exc: Exception) -> bool:
    """Whether an IntegrityError is a unique (or primary key) constraint, the one a racing writer causes."""
    orig = getattr(exc, "orig", None)
    if getattr(orig, "sqlstate", None) == "23505":  # PostgreSQL's unique_violation
        return True
    unique = ("SQLITE_CONSTRAINT_UNIQUE", "SQLITE_CONSTRAINT_PRIMARYKEY")
    return getattr(orig, "sqlite_errorname", "") in unique
