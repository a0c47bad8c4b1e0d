"""Scratch stores: the probe writes only into a store it asks the server to use, never into a
user's real memory file.

``DATA_PATHS`` is the table of the data-path settings memory servers document: the command or
package word that names the server, the environment variable it reads, and what the value is (a
file, a directory, a SQLite URL). A stdio target whose command names one of them is started with
that variable pointing into a new temporary directory (unless the user set it), with its working
directory there too; ``storage_kind`` says afterwards what the server left there.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from registry.inspecting.targets import Target


@dataclass(frozen=True)
class DataPath:
    """One documented setting: ``{dir}`` in ``value`` is the scratch directory."""

    names: tuple[str, ...]  # words of the command or package that identify the server
    variable: str
    value: str
    documented: str  # what the server's documentation says the variable is


DATA_PATHS: tuple[DataPath, ...] = (
    DataPath(
        ("server-memory", "mcp-server-memory", "mcp-knowledge-graph"),
        "MEMORY_FILE_PATH",
        "{dir}/memory.jsonl",
        "path of the JSONL knowledge-graph file",
    ),
    DataPath(("mcp-memory-libsql",), "LIBSQL_URL", "file:{dir}/memory.db", "libSQL database URL"),
    DataPath(("mcp-memory-keeper",), "DATA_DIR", "{dir}", "directory of the context database"),
    DataPath(("frugal-memory",), "MEMORY_DB", "{dir}/memory.db", "path of the SQLite memory file"),
    DataPath(("frugal-memory",), "ARCHIVE_DB", "{dir}/archive.db", "path of the SQLite archive file"),
    DataPath(("mcpdex",), "MCPDEX_MEMORY_DB", "{dir}/memory.db", "path of the SQLite graph"),
)


def _words(target: Target) -> set[str]:
    out: set[str] = set()
    for arg in target.argv:
        for part in arg.replace("\\", "/").split("/"):
            out.add(part.split("@")[0] if not part.startswith("@") else part)
    return out


def data_paths_for(target: Target) -> list[DataPath]:
    """The rows of ``DATA_PATHS`` whose server the stdio command names."""
    if target.transport != "stdio":
        return []
    words = _words(target)
    return [row for row in DATA_PATHS if any(name in words for name in row.names)]


def scratch_target(target: Target) -> tuple[Target, Path | None, list[str]]:
    """The target started on a scratch store, its directory, and the variables set; unchanged (None)
    when the server documents no data path the probe knows, or the user set every one himself."""
    rows = [row for row in data_paths_for(target) if row.variable not in target.env]
    if not rows:
        return target, None, []
    directory = Path(tempfile.mkdtemp(prefix="mcpdex-probe-"))
    env = {**target.env, **{row.variable: row.value.format(dir=directory) for row in rows}}
    return replace(target, env=env, cwd=target.cwd or str(directory)), directory, [r.variable for r in rows]


def storage_kind(directory: Path | None, env: dict[str, str]) -> str | None:
    """What a store is, from what the server left in the scratch directory (or the values set)."""
    names: list[str] = []
    if directory is not None and directory.exists():
        names = [p.name.lower() for p in directory.rglob("*") if p.is_file()]
    names += [Path(v.removeprefix("file:")).name.lower() for v in env.values()]
    if any(n.endswith((".db", ".sqlite", ".sqlite3", ".db-wal")) for n in names):
        return "SQLite"
    if any(n.endswith((".jsonl", ".json")) for n in names):
        return "file"
    if any(n.endswith(".md") for n in names):
        return "files"
    return None
