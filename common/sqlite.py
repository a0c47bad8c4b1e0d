"""SQLite files as the store and the memory server open them: in WAL mode, so that readers never
block the writer.
"""

from __future__ import annotations

import sqlite3

from common.retries import AGAIN, Backoff, Retry, with_retries

# Switching a file to WAL takes an exclusive lock that SQLite does not wait for (the busy timeout
# does not apply), so connections opening a new file at once get "database is locked": they retry,
# for about 4 s in all.
_WAL_BACKOFF = Backoff((0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0))


def _locked(exc: Exception) -> Retry | None:
    return AGAIN if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc) else None


def use_wal(connection: sqlite3.Connection) -> None:
    """Put ``connection``'s database in WAL mode, which then persists in the file."""
    if connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal":
        return
    with_retries(lambda: connection.execute("PRAGMA journal_mode = WAL"), _WAL_BACKOFF, on_error=_locked)
