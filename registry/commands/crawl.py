"""``mcpdex crawl``: inspect every server of an ``mcpServers`` config concurrently, optionally saving them."""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import click

from registry.commands._options import SERVICE_HELP, format_option, registry_option


@dataclass
class CrawlResult:
    """One server's outcome: its snapshot, or the reason it could not be inspected."""

    name: str
    started_at: str
    duration_s: float = 0.0
    snapshot: dict[str, Any] | None = None
    error: str | None = None
    saved: dict[str, Any] = field(default_factory=dict)

    def row(self) -> dict[str, Any]:
        snap = self.snapshot or {}
        return {
            "name": self.name,
            "ok": self.snapshot is not None,
            "error": self.error,
            "server": (snap.get("server") or {}).get("name"),
            "version": self.saved.get("version") or (snap.get("server") or {}).get("version"),
            "digest": snap.get("digest"),
            "tools": len(snap.get("tools") or []),
            "problems": len(snap.get("problems") or []),
            "durationS": round(self.duration_s, 3),
            "newVersion": self.saved.get("new_version"),
        }


async def crawl_targets(
    targets: dict[str, Any],
    *,
    concurrency: int,
    timeout: float,
    protocol_era: str,
    on_done: Any = None,
) -> list[CrawlResult]:
    """Inspect ``targets`` (name → Target) with at most ``concurrency`` at once; failures are results too."""
    import anyio

    from registry.errors import InspectionError
    from registry.inspect import inspect_async

    limiter = anyio.CapacityLimiter(concurrency)
    # Saving blocks (database I/O): run it in a worker thread, one at a time, so the other
    # inspections keep reading their servers meanwhile.
    writer = anyio.CapacityLimiter(1)
    results = {name: CrawlResult(name, "") for name in targets}

    async def one(name: str, target: Any) -> None:
        async with limiter:
            result = results[name]
            result.started_at = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            started = time.perf_counter()
            try:
                result.snapshot = await inspect_async(target, timeout=timeout, protocol_era=protocol_era)
            except InspectionError as exc:
                result.error = str(exc)
            result.duration_s = time.perf_counter() - started
            if on_done is not None:
                await anyio.to_thread.run_sync(on_done, result, limiter=writer)

    async with anyio.create_task_group() as group:
        for name, target in targets.items():
            group.start_soon(one, name, target)
    return [results[name] for name in targets]


@click.command("crawl")
@click.argument("config", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--concurrency", type=click.IntRange(min=1), default=8, show_default=True, help="Inspections at once."
)
@click.option("--save", is_flag=True, help="Record every inspection (failures included) in the registry.")
@registry_option(SERVICE_HELP)
@click.option(
    "--timeout", type=click.FloatRange(min=0.5), default=30.0, show_default=True, help="Per-server deadline."
)
@click.option(
    "--protocol-era", type=click.Choice(("auto", "legacy", "modern")), default="auto", show_default=True
)
@click.option("--only", multiple=True, metavar="NAME", help="Crawl only these entries of the config.")
@format_option("text", "json")
def crawl(
    config: str,
    concurrency: int,
    save: bool,
    registry_url: str | None,
    timeout: float,
    protocol_era: str,
    only: tuple[str, ...],
    fmt: str,
) -> None:
    """Inspect every server of CONFIG (an mcpServers file) concurrently.

    A server that fails is recorded as a failed inspection and does not stop the crawl. Exits 2
    only when every server failed.

    \b
    mcpdex crawl servers.json --concurrency 8 --save
    """
    import anyio

    from registry.errors import InspectionError, MCPDexError, UsageError
    from registry.inspect import config_servers

    targets = config_servers(config)
    if only:
        missing = sorted(set(only) - set(targets))
        if missing:
            raise UsageError(f"--only {', '.join(missing)}: not in {config} (it has {', '.join(targets)})")
        targets = {name: t for name, t in targets.items() if name in only}
    if not targets:
        raise UsageError(f"{config} lists no servers")

    store = None
    if save:
        from registry.client import open_registry
        from registry.names import server_name_problem

        # Every entry is saved under its name: one the registry refuses stops the crawl before it starts.
        for problem in filter(None, map(server_name_problem, targets)):
            raise UsageError(f"{config}: {problem}; rename the entry")
        store = open_registry(registry_url)

    def record(result: CrawlResult) -> None:
        if store is None:
            return
        recorded = store.record_inspection(
            result.snapshot,
            server=result.name,
            ok=result.snapshot is not None,
            error=result.error,
            started_at=result.started_at,
            duration_s=result.duration_s,
        )
        result.saved = {"version": recorded.version, "new_version": recorded.new_version}

    started = time.perf_counter()
    try:
        with _progress(len(targets)) as advance:

            def done(result: CrawlResult) -> None:
                record(result)
                advance(result)

            results = anyio.run(
                lambda: crawl_targets(
                    targets, concurrency=concurrency, timeout=timeout, protocol_era=protocol_era, on_done=done
                )
            )
    except ExceptionGroup as group:
        # A save the registry refused ends the crawl: report its reason, not the task group's traceback.
        refused, _ = group.split(MCPDexError)
        if refused is None:
            raise
        reason: BaseException = refused
        while isinstance(reason, BaseExceptionGroup):
            reason = reason.exceptions[0]
        raise reason from None
    finally:
        if store is not None:
            store.close()
    elapsed = time.perf_counter() - started
    rows = [r.row() for r in results]
    if fmt == "json":
        click.echo(json.dumps({"elapsedS": round(elapsed, 3), "servers": rows}, indent=2, sort_keys=True))
    else:
        _summary(rows, elapsed)
    if all(not r["ok"] for r in rows):
        raise InspectionError(f"none of the {len(rows)} servers in {config} could be inspected")


def _progress(total: int) -> Any:
    """A progress bar on stderr when it is a terminal; otherwise one line per finished server."""
    from contextlib import contextmanager

    @contextmanager
    def bar():
        if sys.stderr.isatty():
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            from registry.printable import console as safe_console

            with Progress(
                TextColumn("crawling"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TextColumn("{task.description}"),
                console=safe_console(stderr=True),
                transient=True,
            ) as progress:
                task = progress.add_task("", total=total)
                yield lambda result: progress.update(task, advance=1, description=result.name)
        else:
            yield lambda result: click.echo(
                f"crawl: {result.name} {'ok' if result.snapshot is not None else 'failed'} "
                f"({result.duration_s:.1f} s)",
                err=True,
            )

    return bar()


def _summary(rows: list[dict[str, Any]], elapsed: float) -> None:
    from rich.markup import escape
    from rich.table import Table

    from registry.printable import console as safe_console

    table = Table(show_edge=False, pad_edge=False)
    for header in ("entry", "outcome", "server", "version", "tools", "problems", "time"):
        table.add_column(header)
    for row in rows:
        outcome = "ok" if row["ok"] else "failed: " + (row["error"] or "").splitlines()[0][:70]
        if row["ok"] and row["newVersion"] is not None:
            outcome += " (new version)" if row["newVersion"] else " (unchanged)"
        table.add_row(
            escape(row["name"]),
            escape(outcome),
            escape(row["server"] or "-"),
            escape(str(row["version"] or "-")),
            str(row["tools"]) if row["ok"] else "-",
            str(row["problems"]) if row["ok"] else "-",
            f"{row['durationS']:.1f} s",
        )
    console = safe_console(soft_wrap=False)
    console.print(table)
    failed = sum(1 for r in rows if not r["ok"])
    console.print(f"{len(rows)} servers, {failed} failed, in {elapsed:.1f} s", highlight=False)
