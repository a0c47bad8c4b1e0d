"""The store's schema: its tables as SQLAlchemy Core, created on first write, and the migrations that
bring a database written by an older mcpdex up to date (run once each, in the schema's transaction).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from typing import TYPE_CHECKING

from registry.core.timestamps import parse_utc, utc_now_precise, utc_text, utc_text_precise
from registry.storage.records import UNSCOPED_OWNER

if TYPE_CHECKING:
    from sqlalchemy import MetaData, Table
    from sqlalchemy.engine import Connection


@dataclass(frozen=True)
class Tables:
    """The registry's tables (``submission_keys`` is the ``idempotency_keys`` table)."""

    metadata: MetaData
    servers: Table
    versions: Table
    inspections: Table
    submission_keys: Table
    profiles: Table
    registry_entries: Table
    registry_syncs: Table
    scores: Table
    schema_migrations: Table
    version_aliases: Table


@cache
def tables() -> Tables:
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
    # Another label for a stored version: an explicit --version-label given to a snapshot whose
    # digest is already stored. Labels and aliases are one namespace per server.
    version_aliases = sa.Table(
        "version_aliases",
        metadata,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("server_id", sa.Integer, sa.ForeignKey("servers.id", ondelete="CASCADE"), nullable=False),
        sa.Column("version_id", sa.Integer, sa.ForeignKey("versions.id", ondelete="CASCADE"), nullable=False),
        sa.Column("label", sa.String(256), nullable=False),
        sa.Column("recorded_at", sa.String(32), nullable=False),
        sa.UniqueConstraint("server_id", "label", name="uq_version_aliases_server_label"),
    )
    # One row per data migration run on this database (see ``migrate``), so each runs once.
    schema_migrations = sa.Table(
        "schema_migrations",
        metadata,
        sa.Column("name", sa.String(80), primary_key=True),
        sa.Column("applied_at", sa.String(32), nullable=False),
    )
    return Tables(
        metadata=metadata,
        servers=servers,
        versions=versions,
        inspections=inspections,
        submission_keys=submission_keys,
        profiles=profiles,
        registry_entries=registry_entries,
        registry_syncs=registry_syncs,
        scores=scores,
        schema_migrations=schema_migrations,
        version_aliases=version_aliases,
    )


def create_schema(conn: Connection, *, postgresql: bool) -> None:
    """Create the tables a database lacks and run the migrations it has not had, in ``conn``'s
    transaction (on PostgreSQL under an advisory lock: openers of a fresh database would race)."""
    from sqlalchemy import text

    if postgresql:
        conn.execute(text("SELECT pg_advisory_xact_lock(7462135)"))
    tables().metadata.create_all(conn, checkfirst=True)
    _adopt_unscoped_keys(conn)
    migrate(conn)


def migrate(conn: Connection) -> None:
    """Run each data migration this database has no ``schema_migrations`` row for, and record it."""
    import sqlalchemy as sa

    done = tables().schema_migrations
    applied = set(conn.execute(sa.select(done.c.name)).scalars())
    for name, step in _MIGRATIONS:
        if name not in applied:
            step(conn)
            conn.execute(done.insert().values(name=name, applied_at=utc_now_precise()))


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
            sa.select(sa.literal(UNSCOPED_OWNER), *(old.c[name] for name in columns)),
        )
    )
    conn.execute(sa.text("DROP TABLE submission_keys"))


# Every column mcpdex writes a time into, with the precision it writes now: to the second where the
# time is given (an inspection's start) or shown, to the microsecond where order within a second
# counts. ``registry_entries.published_at``/``updated_at`` and ``registry_syncs.updated_since`` are
# the official registry's own text, kept as it sent them, and are not rewritten.
_TIMESTAMP_COLUMNS: dict[str, dict[str, Callable[[datetime], str]]] = {
    "servers": {"created_at": utc_text_precise},
    "versions": {"first_seen": utc_text_precise, "last_seen": utc_text_precise},
    "inspections": {"at": utc_text},
    "idempotency_keys": {"at": utc_text_precise},
    "profiles": {"saved_at": utc_text_precise},
    "registry_entries": {"seen_at": utc_text},
    "registry_syncs": {"synced_at": utc_text_precise},
    "scores": {"scored_at": utc_text_precise},
}
# The write tokens' table (registry/storage/tokens.py), when the service has made one.
_TOKEN_TIMESTAMP_COLUMNS: dict[str, Callable[[datetime], str]] = {
    "created_at": utc_text,
    "revoked_at": utc_text,
    "last_used_at": utc_text,
}


def _timestamps_in_z(conn: Connection) -> None:
    """Rewrite every stored time written with an offset (``isoformat()``'s ``+00:00``, or another
    zone) in the ``Z`` form the store writes now, so each column sorts as text in time order again.
    A value that is not a time is left as it is."""
    import sqlalchemy as sa

    from registry.storage.tokens import TOKENS

    present = set(sa.inspect(conn).get_table_names())
    for name, columns in {**_TIMESTAMP_COLUMNS, TOKENS.name: _TOKEN_TIMESTAMP_COLUMNS}.items():
        if name not in present:
            continue
        for column, write in columns.items():
            table = sa.table(name, sa.column(column))
            cell = table.c[column]
            old = conn.execute(sa.select(cell).distinct().where(cell.is_not(None), cell.not_like("%Z")))
            for value in old.scalars().all():
                rewritten = _in_z(value, write)
                if rewritten is not None:
                    conn.execute(table.update().where(cell == value).values({column: rewritten}))


def _in_z(value: str, write: Callable[[datetime], str]) -> str | None:
    """``value`` written by ``write`` (a time without a zone is UTC, as mcpdex always wrote); None
    when it is not a time."""
    try:
        moment = parse_utc(value)
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        return write(moment)
    except (ValueError, OverflowError):
        return None


# Data migrations by name, oldest first; the name is recorded in ``schema_migrations`` once it ran.
_MIGRATIONS: tuple[tuple[str, Callable[[Connection], None]], ...] = (("timestamps-z", _timestamps_in_z),)
