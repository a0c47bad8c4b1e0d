"""The store's connections: the engine of an SQLite or PostgreSQL URL (SQLite in WAL mode, writers
taking the lock up front), one transaction per write, and reads that reach an SQLite file through the
standard library, so reading a registry does not import SQLAlchemy.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from common.sqlite import use_wal
from registry.core.errors import NotFoundError, RegistryError

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection, Engine

# Reads are plain SQL that SQLite and PostgreSQL both accept, run through SQLAlchemy for
# PostgreSQL and through the standard library for SQLite (so `mcpdex show` starts fast).
SQL_SERVER = "SELECT id, name, title FROM servers WHERE name = :name"


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
        engine = sa.create_engine(url, connect_args={"timeout": 60})

        @event.listens_for(engine, "connect")
        def _sqlite_connect(dbapi_connection: sqlite3.Connection, _record: object) -> None:
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


class Transaction:
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


class Database:
    """A registry database's URL, engine and schema: what the store's reads and writes build on."""

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
            self._create_schema(self._engine_)
            self._schema_ready = True
        return self._engine_

    def _create_schema(self, engine: Engine) -> None:
        from sqlalchemy.exc import OperationalError

        from registry.storage.schema import create_schema

        try:
            with self._transaction(engine, write=True) as conn:
                create_schema(conn, postgresql=self._sqlite_path is None)
        except OperationalError as exc:
            raise RegistryError(f"cannot open the registry at {self._display_url()}: {exc.orig}") from None

    def _transaction(self, engine: Engine, *, write: bool) -> Transaction:
        conn = engine.connect()
        if write and self._sqlite_path is not None:
            conn = conn.execution_options(sqlite_immediate=True)
        return Transaction(conn)

    def _query(self, sql: str, **params: Any) -> list[Any]:
        """Rows (mappings) of one read query."""
        if self._sqlite_path is None:
            from sqlalchemy import text

            with self.engine.connect() as conn:
                return list(conn.execute(text(sql), params).mappings())
        try:
            db = sqlite3.connect(f"file:{self._sqlite_path}?mode=ro", uri=True, timeout=60)
        except sqlite3.OperationalError:
            return []  # no registry file yet: nothing recorded
        try:
            db.row_factory = sqlite3.Row
            return db.execute(sql, params).fetchall()
        except sqlite3.DatabaseError as exc:  # OperationalError included; also a file that is not SQLite
            if "no such table" in str(exc):
                return []
            raise RegistryError(f"cannot read the registry at {self.url}: {exc}") from None
        finally:
            db.close()

    def _server_id(self, server: str) -> int:
        rows = self._query(SQL_SERVER, name=server)
        if not rows:
            raise NotFoundError(
                f"server {server!r} is not in the registry at {self._display_url()}; "
                "list servers with `mcpdex versions --all` or record it with `mcpdex inspect --save`"
            )
        return int(rows[0]["id"])

    def close(self) -> None:
        if self._engine_ is not None:
            self._engine_.dispose()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
