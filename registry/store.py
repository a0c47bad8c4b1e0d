"""The registry store: servers, versions, inspections and memory profiles in SQLite or PostgreSQL.

SQLAlchemy Core only. The store persists and queries; it never judges. A new version row is
written only when a server's digest has not been seen before, and every inspection (failed
ones included) gets a row. Concurrent writers rely on unique constraints, not on locks held
in Python, so several processes or machines can save at once without losing or doubling rows.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError, OperationalError

from registry.errors import NotFoundError, RegistryError
from registry.snapshot import compute_digest, server_version

metadata = sa.MetaData()

servers_table = sa.Table(
    "servers",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("name", sa.String(512), nullable=False, unique=True),
    sa.Column("title", sa.Text, nullable=True),
    sa.Column("created_at", sa.String(32), nullable=False),
)

versions_table = sa.Table(
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

inspections_table = sa.Table(
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

profiles_table = sa.Table(
    "profiles",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("version_id", sa.Integer, sa.ForeignKey("versions.id", ondelete="CASCADE"), nullable=False),
    sa.Column("profile", sa.Text, nullable=False),
    sa.Column("saved_at", sa.String(32), nullable=False),
    sa.UniqueConstraint("version_id", name="uq_profiles_version"),
)


@dataclass(frozen=True)
class Recorded:
    """What ``record_inspection`` did: the version label the snapshot landed under, and if it was new."""

    server: str
    version: str | None
    digest: str | None
    new_version: bool
    inspection_id: int


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
    if url.startswith("sqlite:"):
        engine = sa.create_engine(url, connect_args={"timeout": 60})

        @event.listens_for(engine, "connect")
        def _sqlite_connect(dbapi_connection: Any, _record: Any) -> None:
            # Let SQLAlchemy emit BEGIN itself (below) so writers can take the lock up front.
            dbapi_connection.isolation_level = None
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
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
    if url.startswith("postgresql"):
        return sa.create_engine(url, pool_pre_ping=True)
    raise RegistryError(
        f"registry URL {url!r} is not supported; use sqlite:///PATH or postgresql://USER@HOST/DB "
        "(set --registry or MCPDEX_REGISTRY)"
    )


class Store:
    """A registry database. Open it with :func:`open_store`; close it when done."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._engine = _make_engine(_normalise_url(url))
        self._sqlite = self._engine.dialect.name == "sqlite"
        try:
            self._create_schema()
        except OperationalError as exc:
            raise RegistryError(f"cannot open the registry at {self._display_url()}: {exc.orig}") from None

    # -- setup -----------------------------------------------------------------------------

    def _display_url(self) -> str:
        return self._engine.url.render_as_string(hide_password=True)

    def _create_schema(self) -> None:
        with self._write() as conn:
            if not self._sqlite:
                # Several processes opening a fresh database at once would race on CREATE TABLE.
                conn.execute(sa.text("SELECT pg_advisory_xact_lock(7462135)"))
            metadata.create_all(conn, checkfirst=True)

    def _write(self):
        conn = self._engine.connect()
        if self._sqlite:
            conn = conn.execution_options(sqlite_immediate=True)
        return _Transaction(conn)

    def _read(self):
        return _Transaction(self._engine.connect())

    def close(self) -> None:
        self._engine.dispose()

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
    ) -> Recorded:
        """Record one inspection; with a snapshot, also its version when the digest is new."""
        for attempt in range(8):
            try:
                return self._record_once(snapshot, server, ok, error, started_at, duration_s)
            except IntegrityError:
                # Another writer inserted the same server, digest or label between our read and
                # write; the retry sees its row.
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
    ) -> Recorded:
        title = ((snapshot or {}).get("server") or {}).get("title")
        with self._write() as conn:
            server_id = self._ensure_server(conn, server, title)
            version_id = label = digest = None
            new_version = False
            if snapshot is not None:
                digest = snapshot.get("digest") or compute_digest(snapshot)
                version_id, label, new_version = self._ensure_version(conn, server_id, snapshot, digest)
            inspection_id = conn.execute(
                inspections_table.insert().values(
                    server_id=server_id,
                    version_id=version_id,
                    at=started_at,
                    ok=ok,
                    error=error,
                    duration_s=duration_s,
                )
            ).inserted_primary_key[0]
        return Recorded(server, label, digest, new_version, int(inspection_id))

    def _ensure_server(self, conn: Connection, name: str, title: str | None) -> int:
        row = conn.execute(
            sa.select(servers_table.c.id, servers_table.c.title).where(servers_table.c.name == name)
        ).first()
        if row is None:
            return int(
                conn.execute(
                    servers_table.insert().values(name=name, title=title, created_at=_now())
                ).inserted_primary_key[0]
            )
        if title and row.title != title:
            conn.execute(servers_table.update().where(servers_table.c.id == row.id).values(title=title))
        return int(row.id)

    def _ensure_version(
        self, conn: Connection, server_id: int, snapshot: dict, digest: str
    ) -> tuple[int, str, bool]:
        v = versions_table.c
        now = _now()
        row = conn.execute(
            sa.select(v.id, v.label).where(v.server_id == server_id, v.digest == digest)
        ).first()
        if row is not None:
            conn.execute(versions_table.update().where(v.id == row.id).values(last_seen=now))
            return int(row.id), row.label, False
        label = server_version(snapshot)
        taken = conn.execute(sa.select(v.id).where(v.server_id == server_id, v.label == label)).first()
        if taken is not None:
            # The server changed its tools without changing its version: keep both, and make the
            # label unique with semver build metadata (ignored for ordering) from the digest.
            label = f"{label}+{digest.removeprefix('sha256:')[:12]}"
        stored = dict(snapshot, digest=digest)
        version_id = conn.execute(
            versions_table.insert().values(
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
        with self._write() as conn:
            version_id = self._version_id(conn, server, version)
            p = profiles_table.c
            body = json.dumps(profile, sort_keys=True, ensure_ascii=False)
            existing = conn.execute(sa.select(p.id).where(p.version_id == version_id)).first()
            if existing is None:
                conn.execute(
                    profiles_table.insert().values(version_id=version_id, profile=body, saved_at=_now())
                )
            else:
                conn.execute(
                    profiles_table.update().where(p.id == existing.id).values(profile=body, saved_at=_now())
                )

    # -- reads -----------------------------------------------------------------------------

    def servers(self) -> list[ServerSummary]:
        """Every server, by name, with its latest version and last inspection."""
        s, i = servers_table.c, inspections_table.c
        summaries = []
        with self._read() as conn:
            rows = conn.execute(sa.select(s.id, s.name, s.title).order_by(s.name)).all()
            for row in rows:
                versions = self._versions(conn, row.id)
                last = conn.execute(
                    sa.select(i.at, i.ok, i.error)
                    .where(i.server_id == row.id)
                    .order_by(i.at.desc(), i.id.desc())
                    .limit(1)
                ).first()
                latest = versions[-1] if versions else None
                summaries.append(
                    ServerSummary(
                        name=row.name,
                        title=row.title,
                        latest_version=latest.label if latest else None,
                        latest_digest=latest.digest if latest else None,
                        version_count=len(versions),
                        last_inspected_at=last.at if last else None,
                        last_ok=bool(last.ok) if last else None,
                        last_error=last.error if last else None,
                    )
                )
        return summaries

    def versions(self, server: str) -> list[VersionRecord]:
        """A server's versions, oldest → newest (semver where labels parse, else first seen)."""
        with self._read() as conn:
            return self._versions(conn, self._server_id(conn, server))

    def snapshot(self, server: str, version: str | None = None) -> dict:
        """The snapshot of ``server`` at ``version`` (a label or a ``sha256:`` digest); latest when None."""
        versions = self.versions(server)
        if not versions:
            raise NotFoundError(
                f"server {server!r} has no recorded versions; run `mcpdex inspect --save` first"
            )
        if version is None:
            return versions[-1].snapshot
        for record in versions:
            if version in (record.label, record.digest):
                return record.snapshot
        labels = ", ".join(r.label for r in versions[-10:])
        raise NotFoundError(f"{server}@{version} is not in the registry; known versions: {labels}")

    def inspections(self, server: str, limit: int = 50) -> list[InspectionRecord]:
        """The latest inspections of ``server``, newest first."""
        i, v = inspections_table.c, versions_table.c
        with self._read() as conn:
            server_id = self._server_id(conn, server)
            rows = conn.execute(
                sa.select(i.at, i.ok, i.error, i.duration_s, v.label)
                .select_from(inspections_table.outerjoin(versions_table, i.version_id == v.id))
                .where(i.server_id == server_id)
                .order_by(i.at.desc(), i.id.desc())
                .limit(limit)
            ).all()
        return [InspectionRecord(r.at, bool(r.ok), r.error, float(r.duration_s), r.label) for r in rows]

    def profile(self, server: str, version: str | None = None) -> dict | None:
        """The memory profile saved for ``server`` at ``version`` (latest when None), or None."""
        with self._read() as conn:
            if version is None:
                versions = self._versions(conn, self._server_id(conn, server))
                if not versions:
                    return None
                version = versions[-1].label
            version_id = self._version_id(conn, server, version)
            row = conn.execute(
                sa.select(profiles_table.c.profile).where(profiles_table.c.version_id == version_id)
            ).first()
        return json.loads(row.profile) if row else None

    # -- helpers ---------------------------------------------------------------------------

    def _server_id(self, conn: Connection, server: str) -> int:
        row = conn.execute(sa.select(servers_table.c.id).where(servers_table.c.name == server)).first()
        if row is None:
            raise NotFoundError(
                f"server {server!r} is not in the registry at {self._display_url()}; "
                "list servers with `mcpdex versions --all` or record it with `mcpdex inspect --save`"
            )
        return int(row.id)

    def _version_id(self, conn: Connection, server: str, version: str) -> int:
        v = versions_table.c
        row = conn.execute(
            sa.select(v.id).where(
                v.server_id == self._server_id(conn, server), sa.or_(v.label == version, v.digest == version)
            )
        ).first()
        if row is None:
            raise NotFoundError(f"{server}@{version} is not in the registry; see `mcpdex versions {server}`")
        return int(row.id)

    def _versions(self, conn: Connection, server_id: int) -> list[VersionRecord]:
        v = versions_table.c
        rows = conn.execute(
            sa.select(v.label, v.digest, v.first_seen, v.last_seen, v.snapshot)
            .where(v.server_id == server_id)
            .order_by(v.first_seen, v.id)
        ).all()
        return order_versions(
            [
                VersionRecord(r.label, r.digest, r.first_seen, r.last_seen, json.loads(r.snapshot))
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
    """Open (creating tables if needed) the registry at ``url``; None means the default registry."""
    from registry.paths import default_registry_url

    return Store(url or default_registry_url())


# -- for registry.tokens: other modules' tables live in the same database, through the same engine --


def store_engine(store: Store) -> Engine:
    """The SQLAlchemy engine behind ``store`` (one connection setup per registry)."""
    return store._engine
