"""The registry store: servers, versions, inspections and memory profiles in SQLite or PostgreSQL.

SQLAlchemy Core only. The store persists and queries; it never judges. A new version row is
written only when a server's digest has not been seen before, and every inspection (failed
ones included) gets a row. Concurrent writers rely on unique constraints, not on locks held
in Python, so several processes or machines can save at once without losing or doubling rows. A
submission that carries an idempotency key is recorded once however often it is retried.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from registry.errors import NotFoundError, RegistryError
from registry.snapshot import compute_digest, server_version

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
    submission_keys = sa.Table(
        "submission_keys",
        metadata,
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
    """A client's key for one logical submission, and a fingerprint of what it submitted under it."""

    key: str
    fingerprint: str


class SubmissionKeyReused(RegistryError):
    """An idempotency key came back with a different submission than the one first recorded under it."""


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


# semver.org's grammar, with an optional leading "v" that many tags carry.
_SEMVER = re.compile(
    r"^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$"
)


def semver_key(label: str) -> tuple | None:
    """A sort key ordering labels by semantic-version precedence, or None when the label is not semver.

    Build metadata is ignored (as semver says); a release sorts after its pre-releases.
    """
    match = _SEMVER.match(label)
    if not match:
        return None
    major, minor, patch, pre, _build = match.groups()
    if pre is None:
        pre_key: tuple = ((2,),)
    else:
        # Numeric identifiers sort before alphanumeric ones, numerically among themselves.
        pre_key = tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in pre.split("."))
        pre_key = ((1,), *pre_key)
    return (int(major), int(minor), int(patch), pre_key)


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


def _now() -> str:
    # Microseconds keep first-seen order exact between versions saved in the same second.
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


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
        nothing; the same key with another fingerprint raises :class:`SubmissionKeyReused`.
        """
        from sqlalchemy.exc import IntegrityError, OperationalError

        for attempt in range(8):
            try:
                return self._record_once(snapshot, server, ok, error, started_at, duration_s, key)
            except IntegrityError:
                # Another writer inserted the same server, digest, label or key between our read
                # and write; the retry sees its row.
                if attempt == 7:
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
                first = self._keyed_answer(conn, key)
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
                conn.execute(
                    t.submission_keys.insert().values(
                        key=key.key,
                        fingerprint=key.fingerprint,
                        inspection_id=inspection_id,
                        new_version=new_version,
                        at=_now(),
                    )
                )
        return Recorded(server, label, digest, new_version, int(inspection_id))

    def _keyed_answer(self, conn: Connection, key: SubmissionKey) -> Recorded | None:
        """The first answer given for ``key``, rebuilt from its rows; None when the key is new."""
        import sqlalchemy as sa

        t = tables()
        k, i, v, s = t.submission_keys.c, t.inspections.c, t.versions.c, t.servers.c
        row = conn.execute(
            sa.select(k.fingerprint, k.inspection_id, k.new_version, s.name, v.label, v.digest)
            .select_from(
                t.submission_keys.join(t.inspections, k.inspection_id == i.id)
                .join(t.servers, i.server_id == s.id)
                .outerjoin(t.versions, i.version_id == v.id)
            )
            .where(k.key == key.key)
        ).first()
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
            return int(
                conn.execute(
                    s.insert().values(name=name, title=title, created_at=_now())
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
        now = _now()
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
                conn.execute(t.profiles.insert().values(version_id=row.id, profile=body, saved_at=_now()))
            else:
                conn.execute(
                    t.profiles.update().where(p.id == existing.id).values(profile=body, saved_at=_now())
                )

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
                            scored_at=_now(),
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
        return json.loads(row["snapshot"])

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
        return replace(latest, snapshot=json.loads(row["snapshot"]))

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


def _version_records(rows: list[Any], *, with_snapshots: bool) -> list[VersionRecord]:
    """One server's version rows (oldest first seen first) as records in version order."""
    return order_versions(
        [
            VersionRecord(
                r["label"],
                r["digest"],
                r["first_seen"],
                r["last_seen"],
                json.loads(r["snapshot"]) if with_snapshots else {},
            )
            for r in rows
        ]
    )


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
    from registry.paths import default_registry_url

    return Store(url or default_registry_url())


def store_engine(store: Store) -> Engine:
    """The SQLAlchemy engine behind ``store``, for tables kept beside the registry's (write tokens)."""
    return store.engine
