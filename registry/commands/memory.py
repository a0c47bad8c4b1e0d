"""``mcpdex memory``: serve the knowledge-graph memory MCP server (stdio or HTTP); import and export JSONL."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from registry.core.errors import UsageError

if TYPE_CHECKING:
    from server.graph import GraphStore

DB_ENV = "MCPDEX_MEMORY_DB"


def _db_option(fn: Any) -> Any:
    return click.option(
        "--db",
        "db",
        type=click.Path(dir_okay=False, path_type=Path),
        envvar=DB_ENV,
        metavar="PATH",
        help=f"The graph's SQLite file ({DB_ENV}; default: memory.sqlite in the mcpdex data directory).",
    )(fn)


def default_db_path() -> Path:
    """Where the graph lives when neither --db nor MCPDEX_MEMORY_DB names a file."""
    from registry.core.paths import data_dir

    return data_dir() / "memory.sqlite"


def _open(db: Path | None) -> GraphStore:
    import sqlite3

    from server.graph import GraphStore

    path = (db or default_db_path()).expanduser()
    try:
        return GraphStore(path)
    except (sqlite3.Error, OSError) as exc:
        raise UsageError(
            f"--db {path}: cannot open it as a memory graph ({exc}); pass a writable file path, "
            "new or made by mcpdex memory"
        ) from exc


def _db_from(ctx: click.Context, db: Path | None) -> Path | None:
    """A subcommand's own --db wins over the one given to ``mcpdex memory``."""
    parent = ctx.parent.params.get("db") if ctx.parent else None
    return db or parent


@click.group(invoke_without_command=True)
@_db_option
@click.option("--http", is_flag=True, help="Serve streamable HTTP (at /mcp) instead of stdio.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on with --http.")
@click.option(
    "--port",
    type=click.IntRange(1, 65535),
    default=8765,
    show_default=True,
    help="Port to listen on with --http.",
)
@click.pass_context
def memory(ctx: click.Context, db: Path | None, http: bool, host: str, port: int) -> None:
    """Run the knowledge-graph memory MCP server: the official server's nine tools, plus two
    ranged reads, on SQLite.

    \b
    mcpdex memory                                  # stdio, for an mcpServers entry
    mcpdex memory --db ~/notes/memory.sqlite
    mcpdex memory --http --port 8765               # http://127.0.0.1:8765/mcp
    mcpdex memory import memory.jsonl              # the official server's file
    mcpdex memory export > memory.jsonl
    """
    if ctx.invoked_subcommand is not None:
        return
    store = _open(db)
    server = _build(store)
    where = f"http://{host}:{port}/mcp" if http else "stdio"
    click.echo(f"mcpdex memory: serving {store.path} on {where}", err=True)
    try:
        if http:
            server.run("streamable-http", host=host, port=port)
        else:
            server.run()
    finally:
        store.close()


def _build(store: GraphStore) -> Any:
    from server.app import build_server

    return build_server(store)


@memory.command("import")
@click.argument("source", type=click.File("r", encoding="utf-8"), metavar="FILE.jsonl")
@_db_option
@click.pass_context
def import_(ctx: click.Context, source: Any, db: Path | None) -> None:
    """Import the official server's JSONL file (FILE.jsonl, or - for stdin) in one transaction.

    New entities are created, existing ones gain the observations they lack, relations are added.
    Lines that are not valid records are skipped and listed with their line numbers.
    """
    from server.jsonl import import_jsonl

    store = _open(_db_from(ctx, db))
    try:
        report = import_jsonl(store, source.read())
    finally:
        store.close()
    from registry.core.templating import counted

    for number, reason in report.skipped:
        click.echo(f"mcpdex memory import: {source.name}:{number}: skipped, {reason}", err=True)
    click.echo(
        f"imported {counted(report.entities, 'entity', 'entities')}, "
        f"{counted(report.observations, 'observation')} and "
        f"{counted(report.relations, 'relation')} into {store.path}"
        + (f"; skipped {counted(len(report.skipped), 'malformed line')}" if report.skipped else "")
        + (f"; ignored {counted(report.ignored, 'line')} of other types" if report.ignored else "")
    )


@memory.command("export")
@_db_option
@click.option(
    "-o",
    "--output",
    type=click.File("w", encoding="utf-8"),
    default="-",
    show_default=True,
    help="Write the JSONL here instead of stdout.",
)
@click.pass_context
def export(ctx: click.Context, db: Path | None, output: Any) -> None:
    """Write the graph as the official server's JSONL (entities, then relations)."""
    from server.jsonl import export_jsonl

    path = _db_from(ctx, db) or default_db_path()
    if not os.path.exists(path):
        raise UsageError(f"--db {path}: there is no memory graph there; pass the file `mcpdex memory` serves")
    store = _open(path)
    try:
        written = export_jsonl(store, output)
    finally:
        store.close()
    click.echo(f"mcpdex memory export: wrote {written} records", err=True)
