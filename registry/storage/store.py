"""The registry store: servers, versions, inspections and memory profiles in SQLite or PostgreSQL.

SQLAlchemy Core only. The store persists and queries; it never judges. A new version row is
written only when a server's digest has not been seen before, and every inspection (failed
ones included) gets a row. Concurrent writers rely on unique constraints, not on locks held
in Python, so several processes or machines can save at once without losing or doubling rows. A
submission that carries an idempotency key (each token's own) is recorded once however often it is
retried. What either database would refuse or keep differently is refused first (RecordRejected).
"""

from __future__ import annotations

import json
import math
import sqlite3
import time
from dataclasses import dataclass, replace
from datetime import datetime
from functools import cache
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from registry.core.errors import NotFoundError, RegistryError
from registry.core.snapshot import compute_digest, server_version
from registry.core.strict_json import JSONValueError, check_json, prune_depth
from registry.core.timestamps import utc_now_precise, utc_text
from registry.core.versions import semver_key

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection, Engine


@cache
def tables() -> SimpleNamespace:
    """The schema as SQLAlchemy Core tables (built on first use: importing SQLAlchemy costs ~0.4 s,
    and reading an SQLite registry never needs it)."""
    import sqlalchemy as sa

    metadata = sa.MetaData()
    servers = sa.Table(
        "servers",
        metadata,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(512), nullable=False, unique=True),
        sa.Column("title", sa.Text, nullable=True),
        sa.Column("created_at", sa.String(32), nullable=False),
    )
    versions = sa.Table(
        "versions",
        metadata,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("server_id", sa.Integer, sa.ForeignKey("servers.id", ondelete="CASCADE"), nullable=False),
        sa.Column("label", sa.String(256), nullable=False),
        sa.Column("digest", sa.String(80), nullable=False),
        sa.Column("snapshot", sa.Text, nullable=False),
        sa.Column("first_seen", sa.String(32), nullable=False),
        sa.Column("last_seen", sa.String(32), nullable=False),
        sa.UniqueConstraint("server_id", "digest", name="uq_versions_server_digest"),
        sa.UniqueConstraint("server_id", "label", name="uq_versions_server_label"),
    )
    inspections = sa.Table(
        "inspections",
        metadata,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("server_id", sa.Integer, sa.ForeignKey("servers.id", ondelete="CASCADE"), nullable=False),
        sa.Column("version_id", sa.Integer, sa.ForeignKey("versions.id", ondelete="SET NULL"), nullable=True),
        sa.Column("at", sa.String(32), nullable=False),
        sa.Column("ok", sa.Boolean, nullable=False),
        sa.Column("error", sa.Text, nullable=True),
        sa.Column("duration_s", sa.Float, nullable=False),
        sa.Index("ix_inspections_server_at", "server_id", "at"),
    )
    # One row per keyed submission, written in the inspection's transaction: a retry whose first
    # attempt committed finds it and gets the first answer back instead of a second inspection.
    # Keys are the token's own (``token_id``), so tenants never see each other's keys; rows kept
    # from before keys were scoped (the old ``submission_keys`` table) have token_id ''.
    submission_keys = sa.Table(
        "idempotency_keys",
        metadata,
        sa.Column("token_id", sa.String(32), primary_key=True),
        sa.Column("key", sa.String(128), primary_key=True),
        sa.Column("fingerprint", sa.String(80), nullable=False),
        sa.Column(
            "inspection_id",
            sa.Integer,
            sa.ForeignKey("inspections.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("new_version", sa.Boolean, nullable=False),
        sa.Column("at", sa.String(32), nullable=False),
    )
    profiles = sa.Table(
        "profiles",
        metadata,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("version_id", sa.Integer, sa.ForeignKey("versions.id", ondelete="CASCADE"), nullable=False),
        sa.Column("profile", sa.Text, nullable=False),
        sa.Column("saved_at", sa.String(32), nullable=False),
        sa.UniqueConstraint("version_id", name="uq_profiles_version"),
    )
    # One row per (server, version) an official-registry crawl has seen: its server.json, the
    # registry's status and what the crawl did with it. New tables, so older databases gain them on open.
    registry_entries = sa.Table(
        "registry_entries",
        metadata,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(512), nullable=False),
        sa.Column("version", sa.String(256), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("status_message", sa.Text, nullable=True),
        sa.Column("published_at", sa.String(40), nullable=True),
        sa.Column("updated_at", sa.String(40), nullable=True),
        sa.Column("is_latest", sa.Boolean, nullable=True),
        sa.Column("server_json", sa.Text, nullable=False),
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.Column("reason", sa.Text, nullable=True),
        sa.Column("seen_at", sa.String(32), nullable=False),
        sa.UniqueConstraint("name", "version", name="uq_registry_entries_name_version"),
    )
    registry_syncs = sa.Table(
        "registry_syncs",
        metadata,
        sa.Column("source", sa.String(1024), primary_key=True),
        sa.Column("updated_since", sa.String(40), nullable=True),
        sa.Column("synced_at", sa.String(32), nullable=False),
    )
    # The scorecard of a version, written once by whoever scores it first (the service, at write
    # time or in its background job) and read by lists and pages instead of scoring on each request.
    # ``scorer`` names the scorer that made it: a scorer that changed does not trust older rows.
    # A version past the limits has no scorecard, and ``note`` says why.
    scores = sa.Table(
        "scores",
        metadata,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("version_id", sa.Integer, sa.ForeignKey("versions.id", ondelete="CASCADE"), nullable=False),
        sa.Column("scorer", sa.String(80), nullable=False),
        sa.Column("tier", sa.String(1), nullable=True),
        sa.Column("overall", sa.Float, nullable=True),
        sa.Column("scorecard", sa.Text, nullable=True),
        sa.Column("note", sa.Text, nullable=True),
        sa.Column("scored_at", sa.String(32), nullable=False),
        sa.UniqueConstraint("version_id", "scorer", name="uq_scores_version_scorer"),
    )
    return SimpleNamespace(
        metadata=metadata,
        servers=servers,
        versions=versions,
        inspections=inspections,
        submission_keys=submission_keys,
        profiles=profiles,
        registry_entries=registry_entries,
        registry_syncs=registry_syncs,
        scores=scores,
    )


# Reads are plain SQL that SQLite and PostgreSQL both accept, run through SQLAlchemy for
# PostgreSQL and through the standard library for SQLite (so `mcpdex show` starts fast).
_SQL_SERVER = "SELECT id, name, title FROM servers WHERE name = :name"
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


@dataclass(frozen=True)
class RegistryEntryRecord:
    """What an official-registry crawl recorded about one server version (``outcome``: ok, failed,
    skipped, invalid or deleted, with ``reason``)."""

    name: str
    version: str
    status: str
    status_message: str | None
    published_at: str | None
    updated_at: str | None
    is_latest: bool | None
    server: dict[str, Any]
    outcome: str
    reason: str | None
    seen_at: str


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


@dataclass(frozen=True)
class StoredScore:
    """A version's stored scorecard, or None with the ``note`` saying why it was not scored."""

    scorecard: dict[str, Any] | None
    note: str | None


@dataclass(frozen=True)
class Recorded:
    """What ``record_inspection`` did: the version label the snapshot landed under, and if it was new.

    ``replayed`` says the submission's key had been recorded before: the rest is that first answer.
    """

    server: str
    version: str | None
    digest: str | None
    new_version: bool
    inspection_id: int
    replayed: bool = False


@dataclass(frozen=True)
class SubmissionKey:
    """A client's key for one logical submission, a fingerprint of what it submitted under it, and
    ``owner``: the id of the token that sent it, whose keys alone it is compared with."""

    key: str
    fingerprint: str
    owner: str


# The owner of keys recorded before keys were scoped per token: honoured for retries to the same server.
_UNSCOPED_OWNER = ""


class SubmissionKeyReused(RegistryError):
    """An idempotency key came back with a different submission than the one first recorded under it."""


class RecordRejected(RegistryError):
    """An inspection the store will not write, whichever the database: ``field`` names what is wrong and
    the message how to fix it. Nothing was written."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class ServerSummary:
    name: str
    title: str | None
    latest_version: str | None
    latest_digest: str | None
    version_count: int
    last_inspected_at: str | None
    last_ok: bool | None
    last_error: str | None


@dataclass(frozen=True)
class VersionRecord:
    label: str
    digest: str
    first_seen: str
    last_seen: str
    snapshot: dict[str, Any]


@dataclass(frozen=True)
class InspectionRecord:
    at: str
    ok: bool
    error: str | None
    duration_s: float
    version: str | None


def order_versions(rows: list[VersionRecord]) -> list[VersionRecord]:
    """Oldest → newest: first-seen order, with the semver-parsable labels re-sorted by precedence
    among the positions they occupy (labels that do not parse keep their first-seen place)."""
    by_seen = sorted(rows, key=lambda r: r.first_seen)
    keyed = [(i, semver_key(r.label)) for i, r in enumerate(by_seen)]
    slots = [i for i, key in keyed if key is not None]
    ranked = sorted((i for i in slots), key=lambda i: (keyed[i][1], by_seen[i].first_seen))
    result = list(by_seen)
    for slot, source in zip(slots, ranked, strict=True):
        result[slot] = by_seen[source]
    return result


def utc_timestamp(text: str, field: str = "started_at") -> str:
    """An RFC 3339 time as the store keeps it: UTC, to the second, ``2026-11-29T18:00:00Z`` (20
    characters, so it fits its column whatever the fraction or offset, and sorts as text in time
    order). RecordRejected naming ``field`` when it is not an RFC 3339 time within years 1-9999."""
    import rfc3339_validator

    fix = "send an RFC 3339 time such as 2026-11-29T18:00:00Z"
    if not isinstance(text, str) or len(text) > 64 or not rfc3339_validator.validate_rfc3339(text):
        raise RecordRejected(field, f"{field} {str(text)[:80]!r} is not an RFC 3339 date-time; {fix}")
    try:
        moment = datetime.fromisoformat(text)
    except (ValueError, OverflowError):
        raise RecordRejected(field, f"{field} {text!r} is outside years 1-9999 in UTC; {fix}") from None
    return utc_text(moment)


def _normalise_url(url: str) -> str:
    """Pick the installed driver: psycopg 3 for PostgreSQL (SQLAlchemy's default is psycopg2)."""
    if url.startswith("postgres://"):
        url = "postgresql://" + url[len("postgres://") :]
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url[len("postgresql://") :]
    return url


def _make_engine(url: str) -> Engine:
    import sqlalchemy as sa
    from sqlalchemy import event

    if url.startswith("sqlite:"):
        from server.graph import use_wal

        engine = sa.create_engine(url, connect_args={"timeout": 60})

        @event.listens_for(engine, "connect")
        def _sqlite_connect(dbapi_connection: Any, _record: Any) -> None:
            # Let SQLAlchemy emit BEGIN itself (below) so writers can take the lock up front.
            dbapi_connection.isolation_level = None
            use_wal(dbapi_connection)
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA busy_timeout=60000")
            cursor.close()

        @event.listens_for(engine, "begin")
        def _sqlite_begin(conn: Connection) -> None:
            # A write transaction that starts as a reader cannot wait for the lock (SQLite reports
            # "database is locked" at once), so writers begin IMMEDIATE and queue on busy_timeout.
            immediate = conn.get_execution_options().get("sqlite_immediate")
            conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

        return engine
    try:
        return sa.create_engine(url, pool_pre_ping=True)
    except ModuleNotFoundError as exc:
        # The driver is an optional extra; a plain install must say so instead of a traceback.
        if exc.name != "psycopg":
            raise
        raise RegistryError(
            "a postgresql:// registry needs the PostgreSQL driver psycopg, which is not installed; "
            "install it with pip install 'mcpdex[postgres]', or use a sqlite:///PATH registry"
        ) from exc


class Store:
    """A registry database. Open it with :func:`open_store`; close it when done."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._sa_url = _normalise_url(url)
        if self._sa_url.startswith("sqlite:///"):
            self._sqlite_path: str | None = self._sa_url.removeprefix("sqlite:///")
        elif self._sa_url.startswith("postgresql"):
            self._sqlite_path = None
        else:
            raise RegistryError(
                f"registry URL {url!r} is not supported; use sqlite:///PATH or postgresql://USER@HOST/DB "
                "(set --registry or MCPDEX_REGISTRY)"
            )
        self._engine_: Engine | None = None
        self._schema_ready = False

    # -- connections -----------------------------------------------------------------------

    def _display_url(self) -> str:
        if self._sqlite_path is not None:
            return self.url
        from sqlalchemy.engine import make_url

        return make_url(self._sa_url).render_as_string(hide_password=True)

    @property
    def engine(self) -> Engine:
        """The SQLAlchemy engine, created (with the tables) on first use."""
        if self._engine_ is None:
            if self._sqlite_path is not None:
                # The first write makes the folder; reads of a registry not yet there create nothing.
                Path(self._sqlite_path).parent.mkdir(parents=True, exist_ok=True)
            self._engine_ = _make_engine(self._sa_url)
        if not self._schema_ready:
            self._create_schema()
            self._schema_ready = True
        return self._engine_

    def _create_schema(self) -> None:
        from sqlalchemy import text
        from sqlalchemy.exc import OperationalError

        try:
            with self._transaction(self._engine_, write=True) as conn:
                if self._sqlite_path is None:
                    # Several processes opening a fresh database at once would race on CREATE TABLE.
                    conn.execute(text("SELECT pg_advisory_xact_lock(7462135)"))
                tables().metadata.create_all(conn, checkfirst=True)
                _adopt_unscoped_keys(conn)
        except OperationalError as exc:
            raise RegistryError(f"cannot open the registry at {self._display_url()}: {exc.orig}") from None

    def _transaction(self, engine: Any, *, write: bool) -> _Transaction:
        conn = engine.connect()
        if write and self._sqlite_path is not None:
            conn = conn.execution_options(sqlite_immediate=True)
        return _Transaction(conn)

    def _query(self, sql: str, **params: Any) -> list[Any]:
        """Rows (mappings) of one read query."""
        if self._sqlite_path is None:
            from sqlalchemy import text

            with self.engine.connect() as conn:
                return list(conn.execute(text(sql), params).mappings())
        try:
            conn = sqlite3.connect(f"file:{self._sqlite_path}?mode=ro", uri=True, timeout=60)
        except sqlite3.OperationalError:
            return []  # no registry file yet: nothing recorded
        try:
            conn.row_factory = sqlite3.Row
            return conn.execute(sql, params).fetchall()
        except sqlite3.DatabaseError as exc:  # OperationalError included; also a file that is not SQLite
            if "no such table" in str(exc):
                return []
            raise RegistryError(f"cannot read the registry at {self.url}: {exc}") from None
        finally:
            conn.close()

    def close(self) -> None:
        if self._engine_ is not None:
            self._engine_.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writes ----------------------------------------------------------------------------

    def record_inspection(
        self,
        snapshot: dict | None,
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
        for attempt in range(8):
            try:
                return self._record_once(snapshot, server, ok, error, started_at, duration_s, key)
            except IntegrityError as exc:
                # Another writer inserted the same server, digest, label or key between our read
                # and write; the retry sees its row. Any other constraint is no race: retrying it
                # would fail the same way eight times.
                if attempt == 7 or not _is_unique_violation(exc):
                    raise
            except OperationalError as exc:
                if attempt == 7 or "locked" not in str(exc.orig):
                    raise RegistryError(
                        f"cannot write to the registry at {self._display_url()}: {exc.orig}"
                    ) from None
                time.sleep(0.05 * (attempt + 1))
        raise AssertionError("unreachable")

    def _record_once(
        self,
        snapshot: dict | None,
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
            inspection_id = conn.execute(
                t.inspections.insert().values(
                    server_id=server_id,
                    version_id=version_id,
                    at=started_at,
                    ok=ok,
                    error=error,
                    duration_s=duration_s,
                )
            ).inserted_primary_key[0]
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
        return Recorded(server, label, digest, new_version, int(inspection_id))

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
            .where(k.key == key.key, k.token_id.in_([key.owner, _UNSCOPED_OWNER]))
        ).all()
        own = [r for r in rows if r.token_id == key.owner]
        unscoped = [r for r in rows if r.token_id == _UNSCOPED_OWNER and r.name == server]
        row = (own or unscoped or [None])[0]
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
            return int(
                conn.execute(
                    s.insert().values(name=name, title=title, created_at=utc_now_precise())
                ).inserted_primary_key[0]
            )
        if title and row.title != title:
            conn.execute(s.update().where(s.c.id == row.id).values(title=title))
        return int(row.id)

    def _ensure_version(
        self, conn: Connection, server_id: int, snapshot: dict, digest: str
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
            return int(row.id), row.label, False
        label = server_version(snapshot)
        taken = conn.execute(sa.select(v.id).where(v.server_id == server_id, v.label == label)).first()
        if taken is not None:
            # The server changed its tools without changing its version: keep both, and make the
            # label unique with semver build metadata (ignored for ordering) from the digest.
            label = f"{label}+{digest.removeprefix('sha256:')[:12]}"
        _check_widths(versions, {"label": label})
        stored = dict(snapshot, digest=digest)
        version_id = conn.execute(
            versions.insert().values(
                server_id=server_id,
                label=label,
                digest=digest,
                snapshot=json.dumps(stored, sort_keys=True, ensure_ascii=False),
                first_seen=now,
                last_seen=now,
            )
        ).inserted_primary_key[0]
        return int(version_id), label, True

    def save_profile(self, server: str, version: str, profile: dict) -> None:
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
        for attempt in range(2):
            try:
                with self._transaction(self.engine, write=True) as conn:
                    if conn.execute(table.update().where(match).values(**row)).rowcount == 0:
                        conn.execute(table.insert().values(**row))
                return
            except IntegrityError:
                if attempt:  # another writer inserted it first; the retry updates it
                    raise

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

    # -- reads -----------------------------------------------------------------------------

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

    def snapshot(self, server: str, version: str | None = None) -> dict:
        """The snapshot of ``server`` at ``version`` (a label or a ``sha256:`` digest); latest when None.

        Reads that one snapshot, not every version's.
        """
        digest = self.version_digest(server, version)
        (row,) = self._query(_SQL_SNAPSHOT, server_id=self._server_id(server), digest=digest)
        return _stored_json(row["snapshot"])

    def latest_version(self, server: str) -> VersionRecord | None:
        """The latest version of ``server`` with its snapshot; None when it has none or is not recorded.

        Reads one snapshot, not every version's; an SQLite file that is not there is not created.
        """
        rows = self._query(_SQL_SERVER, name=server)
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

    def profile(self, server: str, version: str | None = None) -> dict | None:
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
        labels = ", ".join(r.label for r in versions[-10:])
        raise NotFoundError(f"{server}@{version} is not in the registry; known versions: {labels}")

    # -- helpers ---------------------------------------------------------------------------

    def _server_id(self, server: str) -> int:
        rows = self._query(_SQL_SERVER, name=server)
        if not rows:
            raise NotFoundError(
                f"server {server!r} is not in the registry at {self._display_url()}; "
                "list servers with `mcpdex versions --all` or record it with `mcpdex inspect --save`"
            )
        return int(rows[0]["id"])

    def _versions(self, server_id: int, *, with_snapshots: bool) -> list[VersionRecord]:
        sql = _SQL_VERSIONS.format(
            snapshot="snapshot" if with_snapshots else "NULL", where="WHERE server_id = :server_id"
        )
        return _version_records(self._query(sql, server_id=server_id), with_snapshots=with_snapshots)


# What each column is called in RecordRejected messages, for the columns a caller's values reach.
_FIELDS = {"name": "server name", "label": "version label", "key": "idempotency key", "token_id": "token id"}


def _check_widths(table: Any, values: dict[str, str]) -> None:
    """RecordRejected for a value wider than its column: PostgreSQL refuses it and SQLite would keep
    it, so the store answers the same on both before the database sees it."""
    for column, value in values.items():
        width = table.c[column].type.length
        if width is not None and len(value) > width:
            field = _FIELDS.get(column, column)
            raise RecordRejected(
                field, f"{field} starting {value[:40]!r} is {len(value)} characters; at most {width} fit"
            )


def _is_unique_violation(exc: Exception) -> bool:
    """Whether an IntegrityError is a unique (or primary key) constraint, the one a racing writer causes."""
    orig = getattr(exc, "orig", None)
    if getattr(orig, "sqlstate", None) == "23505":  # PostgreSQL's unique_violation
        return True
    unique = ("SQLITE_CONSTRAINT_UNIQUE", "SQLITE_CONSTRAINT_PRIMARYKEY")
    return getattr(orig, "sqlite_errorname", "") in unique


def _adopt_unscoped_keys(conn: Connection) -> None:
    """Move keys kept before they were scoped per token (table ``submission_keys``, keyed by the key
    alone) into ``idempotency_keys`` with owner '', then drop the old table. Runs in the schema's
    transaction, under PostgreSQL's advisory lock, so concurrent openers migrate once."""
    import sqlalchemy as sa

    if not sa.inspect(conn).has_table("submission_keys"):
        return
    columns = ("key", "fingerprint", "inspection_id", "new_version", "at")
    old = sa.table("submission_keys", *(sa.column(name) for name in columns))
    keys = tables().submission_keys
    conn.execute(
        keys.insert().from_select(
            ["token_id", *columns],
            sa.select(sa.literal(_UNSCOPED_OWNER), *(old.c[name] for name in columns)),
        )
    )
    conn.execute(sa.text("DROP TABLE submission_keys"))


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


class _Transaction:
    """``with`` block: one connection, one transaction, committed on success."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def __enter__(self) -> Connection:
        self._conn.begin()
        return self._conn

    def __exit__(self, exc_type: object, *_: object) -> None:
        try:
            if exc_type is None:
                self._conn.commit()
            else:
                self._conn.rollback()
        finally:
            self._conn.close()


def open_store(url: str | None = None) -> Store:
    """Open the registry at ``url`` (None: the default registry); tables are created on first write."""
    from registry.core.paths import resolve_registry_url

    return Store(resolve_registry_url(url))


def store_engine(store: Store) -> Engine:
    """The SQLAlchemy engine behind ``store``, for tables kept beside the registry's (write tokens)."""
    return store.engine
