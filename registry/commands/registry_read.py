"""``mcpdex versions`` and ``mcpdex show``: read the registry back. Neither imports ``mcp``."""

from __future__ import annotations

import json

import click

from registry.commands._options import format_option, registry_option


@click.command("versions")
@click.argument("server", required=False)
@click.option("--all", "all_servers", is_flag=True, help="List every server in the registry instead.")
@registry_option()
@format_option("text", "json")
def versions(server: str | None, all_servers: bool, registry_url: str | None, fmt: str) -> None:
    """List the recorded versions of SERVER, oldest first (or every server with --all)."""
    from registry.core.errors import UsageError
    from registry.storage.store import open_store

    if bool(server) == all_servers:
        raise UsageError("name one SERVER, or pass --all to list every server")
    with open_store(registry_url) as store:
        if all_servers:
            rows = [summary.__dict__ for summary in store.servers()]
            if fmt == "json":
                click.echo(json.dumps(rows, indent=2, sort_keys=True))
                return
            _table(
                ("server", "latest", "versions", "last inspected", "outcome"),
                [
                    (
                        r["name"],
                        r["latest_version"] or "-",
                        str(r["version_count"]),
                        r["last_inspected_at"] or "-",
                        "ok" if r["last_ok"] else f"failed: {(r['last_error'] or '').splitlines()[0][:60]}",
                    )
                    for r in rows
                ],
            )
            return
        records = store.versions(server)  # type: ignore[arg-type]
        if fmt == "json":
            out = [
                {
                    "version": r.label,
                    "digest": r.digest,
                    "firstSeen": r.first_seen,
                    "lastSeen": r.last_seen,
                    "tools": len(r.snapshot.get("tools") or []),
                }
                for r in records
            ]
            click.echo(json.dumps(out, indent=2, sort_keys=True))
            return
        _table(
            ("version", "tools", "digest", "first seen", "last seen"),
            [
                (
                    r.label,
                    str(len(r.snapshot.get("tools") or [])),
                    r.digest[:19],
                    r.first_seen[:19],
                    r.last_seen[:19],
                )
                for r in records
            ],
        )


@click.command("show")
@click.argument("spec", metavar="SERVER[@VERSION]")
@registry_option()
@format_option("text", "json")
def show(spec: str, registry_url: str | None, fmt: str) -> None:
    """Show a recorded snapshot: the latest of SERVER, or SERVER@VERSION (a label or sha256 digest)."""
    from registry.commands.sources import split_server_spec
    from registry.core.snapshot import dumps_snapshot
    from registry.storage.store import open_store

    name, version = split_server_spec(spec)
    with open_store(registry_url) as store:
        snapshot = store.snapshot(name, version)
    if fmt == "json":
        click.echo(dumps_snapshot(snapshot), nl=False)
    else:
        from registry.commands._console import print_summary

        print_summary(snapshot)


def _table(headers: tuple[str, ...], rows: list[tuple[str, ...]]) -> None:
    from rich.table import Table

    from registry.core.printable import console

    table = Table(show_edge=False, pad_edge=False)
    for header in headers:
        table.add_column(header)
    for row in rows:
        table.add_row(*row)
    console(soft_wrap=False).print(table)
