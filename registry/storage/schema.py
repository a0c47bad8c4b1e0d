"""The store's schema: its tables as SQLAlchemy Core, created on first write, and the migration that
brings a database written by an older mcpdex up to date (in the schema's transaction).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

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
    )


def create_schema(conn: Connection, *, postgresql: bool) -> None:
    """Create the tables a database lacks and move its unscoped idempotency keys, in ``conn``'s
    transaction (on PostgreSQL under an advisory lock: openers of a fresh database would race)."""
    from sqlalchemy import text

    if postgresql:
        conn.execute(text("SELECT pg_advisory_xact_lock(7462135)"))
    tables().metadata.create_all(conn, checkfirst=True)
    _adopt_unscoped_keys(conn)


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
