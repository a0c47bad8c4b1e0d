"""``mcpdex inspect``: connect to one MCP server, print its snapshot, write or save it."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

import click

from registry.commands._options import SERVICE_HELP, format_option, registry_option
from registry.commands._target import target_options


@click.command("inspect")
@target_options
@format_option("text", "json")
@click.option("--out", type=click.Path(dir_okay=False), help="Also write the snapshot JSON to this file.")
@click.option("--save", is_flag=True, help="Record the inspection (and a new version) in the registry.")
@registry_option(SERVICE_HELP)
@click.option("--name", help="Registry name to save under (default: the config entry, else serverInfo.name).")
def inspect(
    fmt: str, out: str | None, save: bool, registry_url: str | None, name: str | None, **target: Any
) -> None:
    """Inspect an MCP server: a URL, `-- COMMAND [ARGS...]`, or --config FILE --server NAME.

    \b
    mcpdex inspect -- node server.js --flag
    mcpdex inspect https://example.com/mcp --header 'Authorization: Bearer TOKEN'
    mcpdex inspect --config claude_desktop_config.json --server memory --save
    """
    from registry.commands._target import target_from_options
    from registry.errors import InspectionError
    from registry.inspect import inspect as run_inspection
    from registry.snapshot import dump_snapshot, dumps_snapshot

    target_obj = target_from_options(**target)
    started_at = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    started = time.perf_counter()
    try:
        snapshot = run_inspection(
            target_obj,
            timeout=target["timeout"],
            protocol_era=target["protocol_era"],
            version_label=target["version_label"],
        )
    except InspectionError as exc:
        key = name or target_obj.name
        if save and key:
            _record(registry_url, None, key, str(exc), started_at, time.perf_counter() - started)
        raise
    duration = time.perf_counter() - started
    if out:
        dump_snapshot(snapshot, out)
        click.echo(f"wrote {out}", err=True)
    if save:
        key = name or target_obj.name or snapshot["server"].get("name") or "unnamed"
        recorded = _record(registry_url, snapshot, key, None, started_at, duration)
        state = "new version" if recorded.new_version else "unchanged"
        click.echo(f"saved {recorded.server}@{recorded.version} ({state}, {recorded.digest[:19]})", err=True)
    if fmt == "json":
        click.echo(dumps_snapshot(snapshot), nl=False)
    else:
        print_summary(snapshot, duration)


def _record(
    registry_url: str | None, snapshot: dict | None, server: str, error: str | None, at: str, duration: float
):
    from registry.client import open_registry

    with open_registry(registry_url) as store:
        return store.record_inspection(
            snapshot, server=server, ok=snapshot is not None, error=error, started_at=at, duration_s=duration
        )


def print_summary(snapshot: dict[str, Any], duration: float | None = None) -> None:
    """The readable summary: server, version, protocol, then a table of tools."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from registry.snapshot import server_version

    console = Console(soft_wrap=False)
    server = snapshot.get("server") or {}
    source = snapshot.get("source") or {}
    took = f" in {duration:.2f} s" if duration is not None else ""
    console.print(
        f"[bold]{escape(server.get('name') or '(unnamed)')}[/bold] {escape(server_version(snapshot))}"
        f"  protocol {snapshot.get('protocolVersion')} ({source.get('protocolEra', '?')})"
        f"  via {source.get('transport', '?')}{took}",
        highlight=False,
    )
    counts = {k: len(snapshot.get(k) or []) for k in ("tools", "resources", "resourceTemplates", "prompts")}
    console.print(
        f"{counts['tools']} tools, {counts['resources']} resources, "
        f"{counts['resourceTemplates']} resource templates, "
        f"{counts['prompts']} prompts  {snapshot.get('digest', '')[:19]}",
        highlight=False,
    )
    problems_by_tool: dict[int, int] = {}
    for problem in snapshot.get("problems") or []:
        where = problem.get("where", "")
        if where.startswith("tools["):
            index = int(where[6:].split("]", 1)[0])
            problems_by_tool[index] = problems_by_tool.get(index, 0) + 1
    table = Table(show_edge=False, pad_edge=False)
    for column in ("tool", "params", "required", "output", "annotations", "problems"):
        table.add_column(column)
    for index, tool in enumerate(snapshot.get("tools") or []):
        schema = tool.get("inputSchema") if isinstance(tool.get("inputSchema"), dict) else {}
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        required = schema.get("required") if isinstance(schema.get("required"), list) else []
        annotations = tool.get("annotations") if isinstance(tool.get("annotations"), dict) else {}
        hints = [
            k.removesuffix("Hint") for k, v in sorted(annotations.items()) if k.endswith("Hint") and v is True
        ]
        table.add_row(
            escape(str(tool.get("name"))),
            str(len(props)),
            ", ".join(str(r) for r in required) or "-",
            "yes" if tool.get("outputSchema") else "-",
            ", ".join(hints) or ("set" if annotations else "-"),
            str(problems_by_tool.get(index, "")) or "",
        )
    if counts["tools"]:
        console.print(table)
    for problem in snapshot.get("problems") or []:
        text = f"problem {problem['code']} at {problem['where']}: {problem['message'][:300]}"
        console.print(escape(text), highlight=False)
