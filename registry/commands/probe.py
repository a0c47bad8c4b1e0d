"""``mcpdex probe``: profile a knowledge-graph memory server (conformance, token cost, latency)."""

from __future__ import annotations

import json
import sys
import time
from typing import Any

import click

from registry.commands._options import format_option, registry_option
from registry.commands._target import target_options
from registry.core.printable import json_inert
from registry.core.timestamps import utc_now


def _sizes(value: str) -> tuple[int, ...]:
    try:
        sizes = tuple(int(part) for part in value.split(","))
    except ValueError:
        raise click.BadParameter("give entity counts separated by a comma, e.g. 100,1000") from None
    if not sizes or any(size < 3 for size in sizes):
        raise click.BadParameter("each graph size must be at least 3 entities")
    return sizes


@click.command("probe")
@target_options
@click.option(
    "--allow-writes",
    is_flag=True,
    help="Write to the target's own store: needed when the probe knows no scratch-store setting of it.",
)
@click.option(
    "--map",
    "maps",
    multiple=True,
    metavar="OP=TOOL",
    help="Which tool does an operation (store, recall, read, list, update, delete, relate).",
)
@click.option(
    "--map-file",
    type=click.Path(dir_okay=False, exists=True),
    help="The same pairs from a file (a JSON object, or one OP=TOOL a line).",
)
@click.option(
    "--force", is_flag=True, help="Run even though the graph is not empty (touches only its own names)."
)
@format_option("text", "json", "markdown")
@click.option(
    "--sizes",
    default="100,1000",
    show_default=True,
    metavar="N,N",
    help="Entity counts of the standard graph the token cost is measured on.",
)
@click.option("--save", is_flag=True, help="Record the inspection and store the profile in the registry.")
@registry_option()
@click.option("--name", help="Registry name to save under (default: the config entry, else serverInfo.name).")
def probe(
    allow_writes: bool,
    maps: tuple[str, ...],
    map_file: str | None,
    force: bool,
    fmt: str,
    sizes: str,
    save: bool,
    registry_url: str | None,
    name: str | None,
    **target: Any,
) -> None:
    """Probe a memory server on a scratch store made for the purpose.

    Maps the server's tools to memory operations (store, recall, read, list, update, delete,
    relate; shown, and overridable with --map) and runs a fixed scenario: round trip, search
    precision, read, list, delete, bounded reads and bad input on any server that stores and
    recalls; the official server-memory semantics (and the lightweight, ranged and depth reads
    where advertised) on one with that surface; the token cost of each read at two sizes; the
    latency of every tool and the cold start. A stdio server whose data-path setting the probe
    knows is started on a new temporary store; any other needs --allow-writes. Everything it
    creates is deleted again. Exit 0 when the probe ran, failed checks included; 2 when it
    could not run.

    \b
    mcpdex probe -- npx -y @modelcontextprotocol/server-memory
    mcpdex probe --map recall=search_notes -- my-memory-server
    mcpdex probe --allow-writes --format markdown -- mcpdex memory --db /tmp/probe.db
    mcpdex probe --allow-writes --save http://127.0.0.1:8765/mcp
    """
    import anyio

    from registry.commands._target import target_from_options
    from registry.core.errors import UsageError
    from registry.core.operations import parse_overrides
    from registry.inspecting.inspect import inspect
    from registry.inspecting.session import open_client
    from registry.probing.probe import run_probe
    from registry.probing.scratch import scratch_target, storage_kind

    graph_sizes = _sizes(sizes)
    overrides = parse_overrides(maps, map_file)
    given = target_from_options(**target)
    target_obj, scratch, variables = scratch_target(given)
    if scratch is None and not allow_writes:
        told = [v for v in _known_variables(given) if v in given.env]
        where = (
            f"{', '.join(told)} is set, so it writes where you pointed it"
            if told
            else "it knows no setting that points this server at a scratch store"
        )
        raise UsageError(
            f"the probe creates and deletes entities and other items on the target, and {where}; "
            "start it on a fresh, empty store made for the probe and pass --allow-writes to confirm"
        )
    if scratch is not None:
        click.echo(f"probing on a scratch store: {', '.join(variables)} in {scratch}", err=True)
    started_at = utc_now()
    started = time.perf_counter()
    snapshot = inspect(
        target_obj,
        timeout=target["timeout"],
        protocol_era=target["protocol_era"],
        version_label=target["version_label"],
    )
    inspected_in = time.perf_counter() - started
    click.echo("probing: conformance checks, then the standard items at sizes " + sizes, err=True)
    # A server that died on the server/discover probe was inspected over the handshake: so is it probed.
    crashed = any(p.get("code") == "discover-crashed" for p in snapshot.get("problems") or [])
    era = "legacy" if crashed else target["protocol_era"]

    async def run() -> dict[str, Any]:
        connecting = time.perf_counter()
        async with open_client(target_obj, timeout=target["timeout"], protocol_era=era) as client:
            cold_start = (time.perf_counter() - connecting) * 1000
            result = await run_probe(client, snapshot, force=force, sizes=graph_sizes, overrides=overrides)
            result["coldStartMs"] = round(cold_start, 1)
            return result

    try:
        profile = anyio.run(run)
    finally:
        profile_storage = storage_kind(scratch, {k: target_obj.env[k] for k in variables})
        if scratch is not None:
            import shutil

            shutil.rmtree(scratch, ignore_errors=True)
    profile["storage"] = profile_storage
    profile["scratchStore"] = variables
    profile["protocolEra"] = era
    if save:
        from registry.storage.store import open_store

        key = name or target_obj.name or (snapshot.get("server") or {}).get("name") or "unnamed"
        with open_store(registry_url) as store:
            recorded = store.record_inspection(
                snapshot, server=key, ok=True, error=None, started_at=started_at, duration_s=inspected_in
            )
            assert recorded.version is not None  # a recorded snapshot always gets a version label
            store.save_profile(recorded.server, recorded.version, profile)
        click.echo(f"saved the profile of {recorded.server}@{recorded.version}", err=True)
    if fmt == "json":
        click.echo(json_inert(json.dumps(profile, indent=2, sort_keys=True, ensure_ascii=False)))
    elif fmt == "markdown":
        from registry.core.templating import render

        click.echo(render("memory_profile.md.j2", profile=profile, compact=markdown_cell), nl=False)
    else:
        print_profile(profile)


def _known_variables(target: Any) -> list[str]:
    from registry.probing.scratch import data_paths_for

    return [row.variable for row in data_paths_for(target)]


def markdown_cell(value: Any) -> str:
    """One line of JSON that cannot break a Markdown table row."""
    return json.dumps(value, ensure_ascii=False).replace("|", "\\|").replace("`", "'")


def _yes(value: bool) -> str:
    return "yes" if value else "-"


def print_profile(profile: dict[str, Any]) -> None:
    """The readable form: feature table, conformance, token cost and latency."""
    from rich.table import Table

    from registry.core.printable import console as safe_console

    # Written to a pipe or a file, rich would fit the tables to 80 columns and cut cells short.
    width = None if sys.stdout.isatty() else 10_000
    console = safe_console(soft_wrap=False, highlight=False, width=width)
    server = profile["server"]
    console.print(
        f"[bold]{server.get('name')}[/bold] {profile.get('versionLabel') or server.get('version')}"
        f"  probed {profile['probedAt']} in {profile['durationS']} s  (seed {profile['seed']})"
    )
    if any(profile["preexisting"].values()):
        console.print(
            f"[yellow]the graph held {profile['preexisting']['entities']} entities and "
            f"{profile['preexisting']['relations']} relations before the probe; "
            "token figures include them[/yellow]"
        )
    static = profile["static"]
    features = Table(
        title="Features against the official server-memory", show_edge=False, title_justify="left"
    )
    for column in ("feature", "this server", "official", "evidence"):
        features.add_column(column)
    features.add_row("Knowledge-graph tools", f"{static['officialToolCount']}/9", "9/9", "")
    for row in static["features"]:
        features.add_row(row["label"], _yes(row["server"]), _yes(row["official"]), ", ".join(row["evidence"]))
    console.print(features)

    conformance = profile["conformance"]
    console.print(
        f"\n[bold]Conformance[/bold]: {conformance['passed']} passed, {conformance['failed']} failed, "
        f"{conformance['notApplicable']} not applicable"
    )
    beyond = conformance.get("beyondUpstream") or {}
    if any(beyond.values()):
        console.print(
            f"Beyond upstream (bugs fixed after the official release, not failures of it): "
            f"{beyond['passed']} passed, {beyond['failed']} failed"
        )
    operations = profile.get("operations") or {}
    if operations:
        console.print("Operations: " + ", ".join(f"{op} = {row['tool']}" for op, row in operations.items()))
    checks = Table(show_edge=False)
    for column in ("outcome", "group", "check", "observed / expected or why not applicable"):
        checks.add_column(column)
    style = {"pass": "green", "fail": "red", "n/a": "dim"}
    for row in conformance["checks"]:
        detail = row["note"]
        if row["outcome"] == "fail":
            detail = (
                f"observed {json.dumps(row['observed'], ensure_ascii=False)}\n"
                f"expected {json.dumps(row['expected'], ensure_ascii=False)}"
            )
        group = "beyond upstream" if row["group"] == "upstream-fix" else row["group"]
        checks.add_row(f"[{style[row['outcome']]}]{row['outcome']}[/]", group, row["id"], detail)
    console.print(checks)

    cost = profile["tokenCost"]
    if cost["sizes"]:
        _print_graph_cost(console, cost)

    memory = profile.get("memory") or {}
    if memory.get("sizes") or memory.get("note"):
        console.print(f"\n[bold]Reads through the memory operations[/bold] ({cost.get('tokenizer')})")
        if memory.get("note"):
            console.print(f"[yellow]{memory['note']}[/yellow]")
        memory_reads = Table(show_edge=False)
        for column in ("items stored", "read", "items returned", "tokens", "ms"):
            memory_reads.add_column(column, justify="left" if column == "read" else "right")
        for size in memory.get("sizes") or []:
            for row in size["reads"]:
                memory_reads.add_row(
                    str(size["items"]),
                    row["form"],
                    str(row["items"]),
                    f"{row['tokens']:,}",
                    f"{row['ms']:.1f}",
                )
        console.print(memory_reads)
    console.print(
        f"cold start {profile.get('coldStartMs')} ms, p50 call {profile.get('callP50Ms')} ms, "
        f"storage {profile.get('storage') or 'unknown'}"
    )
    console.print("\n[bold]Latency[/bold] over the scenario")
    latency = Table(show_edge=False)
    for column in ("tool", "calls", "median ms", "p95 ms"):
        latency.add_column(column, justify="left" if column == "tool" else "right")
    for tool, row in profile["latency"].items():
        latency.add_row(tool, str(row["calls"]), f"{row['medianMs']:.2f}", f"{row['p95Ms']:.2f}")
    console.print(latency)


def _print_graph_cost(console: Any, cost: dict[str, Any]) -> None:
    from rich.table import Table

    console.print(f"\n[bold]Token cost[/bold] ({cost['estimate']})")
    console.print(
        "standard graph: "
        + "; ".join(
            f"{s['entities']} entities, {s['observations']} observations, {s['relations']} relations"
            for s in cost["sizes"]
        )
    )
    reads = Table(show_edge=False)
    for column in ("graph", "read", "entities", "text chars", "tokens", "tokens/entity", "ms"):
        reads.add_column(column, justify="right" if column != "read" else "left")
    for size in cost["sizes"]:
        graph = str(size["entities"])
        for row in size["reads"]:
            if not row["available"]:
                reads.add_row(graph, row["form"], "-", "-", "-", "-", row["note"])
                continue
            reads.add_row(
                graph,
                row["form"],
                str(row["entities"]),
                f"{row['textChars']:,}",
                f"{row['tokens']:,}",
                str(row["tokensPerEntity"] or "-"),
                f"{row['ms']:.1f}",
            )
    console.print(reads)
    document = cost["document"]
    if document["reads"]:
        console.print(f"One entity holding one observation of {document['observationChars']:,} characters:")
    doc_reads = Table(show_edge=False)
    for column in ("read", "text chars", "tokens", "ms"):
        doc_reads.add_column(column, justify="left" if column == "read" else "right")
    for row in document["reads"]:
        if row["available"]:
            doc_reads.add_row(row["form"], f"{row['textChars']:,}", f"{row['tokens']:,}", f"{row['ms']:.1f}")
        else:
            doc_reads.add_row(row["form"], "-", "-", row["note"])
    console.print(doc_reads)
