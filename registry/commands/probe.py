"""``mcpdex probe``: profile a knowledge-graph memory server (conformance, token cost, latency)."""

from __future__ import annotations

import json
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
    help="Required: the probe creates and deletes entities on the target (all it creates is deleted).",
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
    force: bool,
    fmt: str,
    sizes: str,
    save: bool,
    registry_url: str | None,
    name: str | None,
    **target: Any,
) -> None:
    """Probe a knowledge-graph memory server started on an empty store, for this purpose.

    Runs a fixed scenario: conformance checks of the official server-memory semantics (and of the
    lightweight, ranged and depth reads where advertised), the token cost of each read form on a
    standard graph at two sizes, and the latency of every tool. Everything it creates is deleted
    again; a non-empty graph is refused unless --force. Exit 0 when the probe ran, failed checks
    included; 2 when it could not run.

    \b
    mcpdex probe --allow-writes --env MEMORY_FILE_PATH=/tmp/p.jsonl \\
      -- npx -y @modelcontextprotocol/server-memory
    mcpdex probe --allow-writes --format markdown -- mcpdex memory --db /tmp/probe.db
    mcpdex probe --allow-writes --save http://127.0.0.1:8765/mcp
    """
    import anyio

    from registry.commands._target import target_from_options
    from registry.core.errors import UsageError
    from registry.inspecting.inspect import inspect
    from registry.inspecting.session import open_client
    from registry.probing.probe import run_probe

    graph_sizes = _sizes(sizes)
    if not allow_writes:
        raise UsageError(
            "the probe creates and deletes entities on the target; start the server on a fresh, empty "
            "store made for the probe and pass --allow-writes to confirm"
        )
    target_obj = target_from_options(**target)
    started_at = utc_now()
    started = time.perf_counter()
    snapshot = inspect(
        target_obj,
        timeout=target["timeout"],
        protocol_era=target["protocol_era"],
        version_label=target["version_label"],
    )
    inspected_in = time.perf_counter() - started
    click.echo("probing: conformance checks, then the standard graph at sizes " + sizes, err=True)

    async def run() -> dict[str, Any]:
        async with open_client(
            target_obj, timeout=target["timeout"], protocol_era=target["protocol_era"]
        ) as client:
            return await run_probe(client, snapshot, force=force, sizes=graph_sizes)

    profile = anyio.run(run)
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


def markdown_cell(value: Any) -> str:
    """One line of JSON that cannot break a Markdown table row."""
    return json.dumps(value, ensure_ascii=False).replace("|", "\\|").replace("`", "'")


def _yes(value: bool) -> str:
    return "yes" if value else "-"


def print_profile(profile: dict[str, Any]) -> None:
    """The readable form: feature table, conformance, token cost and latency."""
    from rich.table import Table

    from registry.core.printable import console as safe_console

    console = safe_console(soft_wrap=False, highlight=False)
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
    checks = Table(show_edge=False)
    for column in ("outcome", "check", "observed / expected or why not applicable"):
        checks.add_column(column)
    style = {"pass": "green", "fail": "red", "n/a": "dim"}
    for row in conformance["checks"]:
        detail = row["note"]
        if row["outcome"] == "fail":
            detail = (
                f"observed {json.dumps(row['observed'], ensure_ascii=False)}\n"
                f"expected {json.dumps(row['expected'], ensure_ascii=False)}"
            )
        checks.add_row(f"[{style[row['outcome']]}]{row['outcome']}[/]", row["id"], detail)
    console.print(checks)

    cost = profile["tokenCost"]
    console.print(f"\n[bold]Token cost[/bold] ({cost['estimate']})")
    console.print(
        "standard graph: "
        + "; ".join(
            f"{s['entities']} entities, {s['observations']} observations, {s['relations']} relations"
            for s in cost["sizes"]
        )
    )
    reads = Table(show_edge=False)
    for column in ("graph", "read", "entities", "text chars", "est. tokens", "tokens/entity", "ms"):
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
    console.print(f"One entity holding one observation of {document['observationChars']:,} characters:")
    doc_reads = Table(show_edge=False)
    for column in ("read", "text chars", "est. tokens", "ms"):
        doc_reads.add_column(column, justify="left" if column == "read" else "right")
    for row in document["reads"]:
        if row["available"]:
            doc_reads.add_row(row["form"], f"{row['textChars']:,}", f"{row['tokens']:,}", f"{row['ms']:.1f}")
        else:
            doc_reads.add_row(row["form"], "-", "-", row["note"])
    console.print(doc_reads)

    console.print("\n[bold]Latency[/bold] over the scenario")
    latency = Table(show_edge=False)
    for column in ("tool", "calls", "median ms", "p95 ms"):
        latency.add_column(column, justify="left" if column == "tool" else "right")
    for tool, row in profile["latency"].items():
        latency.add_row(tool, str(row["calls"]), f"{row['medianMs']:.2f}", f"{row['p95Ms']:.2f}")
    console.print(latency)
