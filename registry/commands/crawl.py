"""``mcpdex crawl``: inspect every server of an ``mcpServers`` config concurrently, optionally saving them."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import click

from registry.commands._options import SERVICE_HELP, format_option, registry_option
from registry.commands._target import PROTOCOL_ERA_HELP
from registry.core.templating import counted
from registry.core.timestamps import parse_utc, utc_now
from registry.diffing.context_cost import context_cost
from registry.inspecting.official.entries import OFFICIAL_REGISTRY, RegistryEntry
from registry.inspecting.official.launch import Inputs, load_secrets

if TYPE_CHECKING:
    from registry.storage.protocol import Registry
    from registry.storage.store import Store


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
            "version": self.saved.get("version")
            or snap.get("versionLabel")
            or (snap.get("server") or {}).get("version"),
            "digest": snap.get("digest"),
            "tools": len(snap.get("tools") or []),
            "problems": len(snap.get("problems") or []),
            "durationS": round(self.duration_s, 3),
            "newVersion": self.saved.get("new_version"),
            "contextTokens": context_cost(snap)["tokens"] if self.snapshot is not None else None,
        }


async def crawl_targets(
    targets: dict[str, Any],
    *,
    concurrency: int,
    timeout: float,
    protocol_era: str,
    on_done: Any = None,
    labels: dict[str, str] | None = None,
    packages: dict[str, Any] | None = None,
) -> list[CrawlResult]:
    """Inspect ``targets`` (name → Target) with at most ``concurrency`` at once; failures are results too.

    ``labels`` names the version to record a target's snapshot under (a registry entry's version);
    ``packages`` the registry package (a PackageSpec) to fetch before a sandboxed target runs."""
    import anyio

    from registry.core.errors import InspectionError
    from registry.inspecting.inspect import inspect_async
    from registry.inspecting.official.fetch import inspect_package
    from registry.inspecting.official.launch import runner_environment

    runner_env = runner_environment()

    limiter = anyio.CapacityLimiter(concurrency)
    # Saving blocks (database I/O): run it in a worker thread, one at a time, so the other
    # inspections keep reading their servers meanwhile.
    writer = anyio.CapacityLimiter(1)
    results = {name: CrawlResult(name, "") for name in targets}

    async def one(name: str, target: Any) -> None:
        async with limiter:
            result = results[name]
            result.started_at = utc_now()
            started = time.perf_counter()
            label = (labels or {}).get(name)
            spec = (packages or {}).get(name)
            try:
                if spec is not None:
                    result.snapshot = await inspect_package(
                        spec, target, runner_env,
                        timeout=timeout, protocol_era=protocol_era, version_label=label,
                    )  # fmt: skip
                else:
                    result.snapshot = await inspect_async(
                        target, timeout=timeout, protocol_era=protocol_era, version_label=label
                    )
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
@click.argument("config", required=False, type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--from-registry",
    "from_registry",
    is_flag=False,
    flag_value=OFFICIAL_REGISTRY,
    default=None,
    metavar="[URL|FILE|DIR]",
    help="Crawl the official MCP Registry (alone: the public one), a saved list dump or a folder of "
    "server.json files instead of CONFIG.",
)
@click.option(
    "--concurrency", type=click.IntRange(min=1), default=8, show_default=True, help="Inspections at once."
)
@click.option("--save", is_flag=True, help="Record every inspection (failures included) in the registry.")
@registry_option(SERVICE_HELP)
@click.option(
    "--timeout", type=click.FloatRange(min=0.5), default=30.0, show_default=True, help="Per-server deadline."
)
@click.option(
    "--protocol-era",
    type=click.Choice(("auto", "legacy", "modern")),
    default="auto",
    show_default=True,
    help=PROTOCOL_ERA_HELP,
)
@click.option("--only", multiple=True, metavar="NAME", help="Crawl only these entries of the config.")
@click.option("--all-versions", is_flag=True, help="--from-registry: every version, not only the latest.")
@click.option(
    "--updated-since",
    metavar="RFC3339",
    help="--from-registry: only entries updated after this time (default with --save: the last crawl's).",
)
@click.option(
    "--force",
    is_flag=True,
    help="--from-registry: inspect versions already recorded, and ignore the last sync.",
)
@click.option(
    "--env",
    "env",
    multiple=True,
    metavar="NAME=VALUE",
    help="--from-registry: SERVER/NAME=VALUE, a value for that server's variable, argument or {variable}.",
)
@click.option(
    "--header",
    "header",
    multiple=True,
    metavar="'SERVER/NAME: VALUE'",
    help="--from-registry: a header for that server's remote.",
)
@click.option(
    "--allow-private-remotes",
    is_flag=True,
    help="--from-registry: inspect remotes over http or at loopback and private addresses too.",
)
@click.option(
    "--secrets",
    type=click.Path(exists=True, dir_okay=False),
    help='--from-registry: a JSON file of "registry/name": {NAME: value}, each for its server only.',
)
@click.option(
    "--sandbox",
    "sandbox",
    type=click.Choice(("on", "off")),
    default=None,
    help="Run each stdio server in the sandbox (default on, or MCPDEX_SANDBOX); off runs them as you. "
    "A queued pass runs as its workers' --sandbox says.",
)
@click.option(
    "--enqueue",
    is_flag=True,
    help="Queue the pass as one job per server on --queue and return; `mcpdex worker` runs them.",
)
@click.option(
    "--queue",
    "queue_url",
    metavar="URL",
    envvar="MCPDEX_QUEUE",
    help="--enqueue: redis://HOST:PORT/DB or amqp://USER:PASSWORD@HOST:PORT/ (or MCPDEX_QUEUE).",
)
@click.option(
    "--attempts",
    type=click.IntRange(min=1, max=10),
    default=3,
    show_default=True,
    help="--enqueue: inspections of a failing server before its failure is recorded.",
)
@click.option(
    "--watch",
    type=click.FloatRange(min=1),
    metavar="SECONDS",
    help="--enqueue: queue a pass now and every SECONDS until stopped; --from-registry passes queue "
    "the entries updated since the last one.",
)
@click.option(
    "--all-every",
    type=click.FloatRange(min=1),
    metavar="SECONDS",
    help="--watch --from-registry: every SECONDS, queue every entry again (as --force does).",
)
@format_option("text", "json")
def crawl(
    config: str | None,
    from_registry: str | None,
    concurrency: int,
    save: bool,
    registry_url: str | None,
    timeout: float,
    protocol_era: str,
    only: tuple[str, ...],
    all_versions: bool,
    updated_since: str | None,
    force: bool,
    env: tuple[str, ...],
    header: tuple[str, ...],
    secrets: str | None,
    allow_private_remotes: bool,
    sandbox: str | None,
    enqueue: bool,
    queue_url: str | None,
    attempts: int,
    watch: float | None,
    all_every: float | None,
    fmt: str,
) -> None:
    """Inspect every server of CONFIG (an mcpServers file), or of the official MCP Registry, concurrently.

    A server that fails is recorded as a failed inspection and does not stop the crawl; a registry
    entry that cannot run is listed with its reason. Exits 2 only when every inspection failed.

    \b
    mcpdex crawl servers.json --concurrency 8 --save
    mcpdex crawl --from-registry --save --secrets secrets.json
    mcpdex crawl servers.json --enqueue --registry postgresql://… --queue redis://127.0.0.1:6379/0

    Each stdio server runs in the sandbox (registry/inspecting/sandbox.py): no host files beyond its
    own, no environment beyond its own, no network; a config entry widens it with "sandbox":
    {"network": true, "read": ["/path"], "write": ["/dir"]}. Where no sandbox can be made the crawl
    refuses to start; --sandbox off (or MCPDEX_SANDBOX=off) runs the servers as you. A registry npm
    or PyPI package is fetched first, install scripts off, into a folder of its own (within 300 s,
    besides --timeout), then run offline; --sandbox off runs it with npx -y or uvx instead. A queued
    pass carries each server's policy and package: `mcpdex worker` runs it the same way, and takes
    --sandbox itself.
    """
    from registry.core.errors import InspectionError, UsageError
    from registry.inspecting.sandbox import mode_from, require

    if enqueue and sandbox is not None:
        raise UsageError(
            "--sandbox applies where the servers run: give it to mcpdex worker (sandboxed by default)"
        )
    # A queued pass is planned as a sandboxed crawl plans it (each stdio server's policy, each
    # package to fetch); the workers run it, sandboxed unless they are told otherwise.
    sandboxed = enqueue or mode_from(sandbox, default="on") == "on"
    if sandboxed and not enqueue:
        require()

    registry_only = {
        "--all-versions": all_versions,
        "--updated-since": updated_since,
        "--force": force,
        "--env": env,
        "--header": header,
        "--secrets": secrets,
        "--allow-private-remotes": allow_private_remotes,
    }
    if from_registry is None:
        used = [flag for flag, value in registry_only.items() if value]
        if used:
            raise UsageError(f"{', '.join(used)} apply to --from-registry; add it, or drop them")
        if config is None:
            raise UsageError("give CONFIG (an mcpServers file) or --from-registry [URL]")
        targets = _config_targets(config, only, sandboxed)
        plans: list[EntryPlan] = []
        labels: dict[str, str] = {}
    else:
        if config is not None or only:
            raise UsageError("--from-registry replaces CONFIG and --only; give one source")
        targets, labels, plans = {}, {}, []

    if enqueue and not queue_url:
        raise UsageError("--enqueue needs --queue URL (or MCPDEX_QUEUE), the broker the workers read")
    if watch is not None or all_every is not None:
        _watch(click.get_current_context(), enqueue=enqueue, watch=watch, all_every=all_every)
        return
    store: Registry | None = None
    if save or enqueue:
        from registry.core.names import server_name_problem
        from registry.storage.client import open_registry

        # Every config entry is saved under its name: one the registry refuses stops the crawl before
        # it starts (registry entries are checked one by one when they are planned).
        for problem in filter(None, map(server_name_problem, targets)):
            raise UsageError(f"{config}: {problem}; rename the entry")
        store = open_registry(registry_url)
    try:
        sync_from = None
        if from_registry is not None:
            plans, sync_from = _plan_registry(
                from_registry,
                store,
                all_versions=all_versions,
                updated_since=updated_since,
                force=force,
                inputs=_inputs(env, header, secrets),
                sandboxed=sandboxed,
                allow_private_remotes=allow_private_remotes,
            )
            for plan in plans:
                if plan.target is not None:
                    targets[plan.entry.key] = plan.target
                    labels[plan.entry.key] = plan.entry.version or ""
        packages = {plan.entry.key: plan.package for plan in plans if plan.package is not None}
        if enqueue:
            from registry.queue.passes import enqueue_crawl

            names = {plan.entry.key: plan.entry.name for plan in plans}
            queued = enqueue_crawl(
                str(queue_url), targets, names=names, labels=labels, plans=plans,
                timeout=timeout, protocol_era=protocol_era, attempts=attempts,
            )  # fmt: skip
            from registry.storage.store import Store

            if isinstance(store, Store) and from_registry is not None:
                _record_plans(store, [plan for plan in plans if plan.outcome != "inspect"], [])
                store.record_sync(from_registry, sync_from)
            click.echo(json.dumps(queued, indent=2, sort_keys=True) if fmt == "json" else
                       f"queued pass {queued['pass']}: {counted(queued['jobs'], 'server')}")  # fmt: skip
            return
        started = time.perf_counter()
        results = _run(targets, store, plans, concurrency, timeout, protocol_era, labels, packages)
        elapsed = time.perf_counter() - started
        from registry.storage.store import Store

        if isinstance(store, Store) and from_registry is not None:  # else _plan_registry refused it
            _record_plans(store, plans, results)
            store.record_sync(from_registry, sync_from)
    finally:
        if store is not None:
            store.close()
    rows = [r.row() for r in results]
    entries = [plan.row(results) for plan in plans]
    if fmt == "json":
        body: dict[str, Any] = {"elapsedS": round(elapsed, 3), "servers": rows}
        if from_registry is not None:
            body["entries"] = entries
        click.echo(json.dumps(body, indent=2, sort_keys=True))
    else:
        _summary(rows, elapsed, entries)
    if rows and all(not r["ok"] for r in rows):
        source = config or from_registry
        raise InspectionError(f"none of the {len(rows)} servers in {source} could be inspected")


def _watch(ctx: click.Context, *, enqueue: bool, watch: float | None, all_every: float | None) -> None:
    """Queue passes until stopped: this command again, every ``watch`` seconds."""
    from registry.core.errors import UsageError
    from registry.queue.watch import watch as watch_passes

    if not enqueue or watch is None:
        raise UsageError("--watch queues passes for workers: give --enqueue and --watch SECONDS"
                         if not enqueue else "--all-every applies to --watch SECONDS; add it")  # fmt: skip
    if all_every is not None and ctx.params["from_registry"] is None:
        raise UsageError("--all-every applies to --from-registry; every pass of a config queues every server")
    params = {**ctx.params, "watch": None, "all_every": None}

    def one(everything: bool) -> None:
        ctx.invoke(crawl, **{**params, "force": params["force"] or (everything and all_every is not None)})

    watch_passes(
        one,
        period_s=watch,
        everything_every_s=all_every,
        on_error=lambda exc: click.echo(f"crawl: this pass was not queued: {exc}", err=True),
    )


def _config_targets(config: str, only: tuple[str, ...], sandboxed: bool) -> dict[str, Any]:
    from registry.core.errors import UsageError
    from registry.inspecting.sandbox import policy_from_entry
    from registry.inspecting.targets import config_sandbox_specs, config_servers

    targets = config_servers(config)
    specs = config_sandbox_specs(config)
    for name, target in targets.items():
        policy = policy_from_entry(specs.get(name), f"{config}: mcpServers.{name}")
        if sandboxed and target.transport == "stdio":
            target.sandbox = policy
    if only:
        missing = sorted(set(only) - set(targets))
        if missing:
            raise UsageError(f"--only {', '.join(missing)}: not in {config} (it has {', '.join(targets)})")
        targets = {name: t for name, t in targets.items() if name in only}
    if not targets:
        raise UsageError(f"{config} lists no servers")
    return targets


def _run(
    targets: dict[str, Any],
    store: Registry | None,
    plans: list[EntryPlan],
    concurrency: int,
    timeout: float,
    protocol_era: str,
    labels: dict[str, str],
    packages: dict[str, Any],
) -> list[CrawlResult]:
    import anyio

    from registry.core.errors import MCPDexError

    # A registry entry is saved under its registry name; a config entry under its own name.
    server_names = {plan.entry.key: plan.entry.name for plan in plans}

    def record(result: CrawlResult) -> None:
        if store is None:
            return
        recorded = store.record_inspection(
            result.snapshot,
            server=server_names.get(result.name, result.name),
            ok=result.snapshot is not None,
            error=result.error,
            started_at=result.started_at,
            duration_s=result.duration_s,
        )
        result.saved = {"version": recorded.version, "new_version": recorded.new_version}

    if not targets:
        return []
    try:
        with _progress(len(targets)) as advance:

            def done(result: CrawlResult) -> None:
                record(result)
                advance(result)

            return anyio.run(
                lambda: crawl_targets(
                    targets,
                    concurrency=concurrency,
                    timeout=timeout,
                    protocol_era=protocol_era,
                    on_done=done,
                    labels=labels,
                    packages=packages,
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


# -- the official registry -----------------------------------------------------------------------


@dataclass
class EntryPlan:
    """What the crawl does with one registry entry: inspect ``target``, or not, for ``reason``."""

    entry: RegistryEntry
    outcome: str  # inspect | skipped | invalid | deleted | recorded | older
    reason: str | None = None
    target: Any = None
    kind: str | None = None
    package: Any = None  # the npm or PyPI package a sandboxed crawl fetches first (a PackageSpec)
    server_env: dict[str, str] | None = None  # a package's or image's own environment, no runner's

    def row(self, results: list[CrawlResult]) -> dict[str, Any]:
        outcome, reason = self.outcome, self.reason
        if outcome == "inspect":
            result = next(r for r in results if r.name == self.entry.key)
            outcome, reason = ("ok", None) if result.snapshot is not None else ("failed", result.error)
        return {
            "name": self.entry.name,
            "version": self.entry.version,
            "status": self.entry.status,
            "statusMessage": self.entry.status_message,
            "kind": self.kind,
            "outcome": outcome,
            "reason": reason,
        }


def _inputs(env: tuple[str, ...], header: tuple[str, ...], secrets: str | None) -> Inputs:
    """What the user supplied, each value for the one server its key names (``SERVER/NAME=VALUE``,
    ``'SERVER/Name: value'``, a secrets file of ``SERVER: {NAME: value}``)."""
    from registry.commands._target import pairs
    from registry.core.errors import UsageError

    inputs = load_secrets(secrets) if secrets else Inputs()
    for flag, values, sep, example in (
        ("--env", env, "=", "SERVER/NAME=VALUE"),
        ("--header", header, ":", "'SERVER/Name: value'"),
    ):
        for key, value in pairs(values, sep, flag, example).items():
            server, slash, name = key.rpartition("/")
            if not slash or "/" not in server or not name:
                raise UsageError(
                    f"{flag} {key}: names no server, so it would reach every entry that asks for it; "
                    f"write it as {flag} io.github.owner/server/{key}{sep}… for the server it is meant for"
                )
            inputs.per_server.setdefault(server, {})[name] = value
    return inputs


def _plan_registry(
    source: str,
    store: Registry | None,
    *,
    all_versions: bool,
    updated_since: str | None,
    force: bool,
    inputs: Inputs,
    sandboxed: bool = True,
    allow_private_remotes: bool = False,
) -> tuple[list[EntryPlan], str | None]:
    """The plan for every selected entry of ``source``, and the newest ``updatedAt`` among them."""
    from registry.core.errors import UsageError
    from registry.inspecting.official.entries import read_entries
    from registry.inspecting.official.launch import EntryInvalid, EntrySkipped, entry_launch, select_entries
    from registry.inspecting.targets import Target
    from registry.storage.store import Store

    if store is not None and not isinstance(store, Store):
        raise UsageError(
            "crawl --from-registry --save keeps the registry's metadata beside the snapshots, so it needs "
            "a database registry (sqlite:///PATH or postgresql://…), not an mcpdex serve URL"
        )
    if updated_since is not None:
        _check_time(updated_since)
    elif store is not None and not force:
        updated_since = store.last_sync(source)
    entries = read_entries(source, updated_since=updated_since)
    newest = max((e.updated_at for e in entries if e.updated_at), default=updated_since)
    recorded = set()
    if store is not None:
        rows = store.registry_entries()
        if not force:
            recorded = {(r.name, r.version) for r in rows if r.outcome == "ok"}
        if updated_since:
            entries += _still_pending(rows, entries)
    chosen, older = select_entries(entries, all_versions=all_versions)
    # Older versions are not inspected, but their registry status (deprecated, say) is kept.
    plans = [
        EntryPlan(e, "recorded" if (e.name, e.version) in recorded else "older",
                  "not the latest version; --all-versions inspects every version")
        for e in older
    ]  # fmt: skip
    for entry in chosen:
        if entry.invalid:
            plans.append(EntryPlan(entry, "invalid", entry.invalid))
        elif entry.status == "deleted":
            plans.append(EntryPlan(entry, "deleted", entry.status_message or "deleted from the registry"))
        elif (entry.name, entry.version) in recorded:
            plans.append(EntryPlan(entry, "recorded", "already recorded; --force inspects it again"))
        else:
            try:
                launch = entry_launch(entry, inputs, allow_private_remotes=allow_private_remotes)
            except EntrySkipped as exc:
                plans.append(EntryPlan(entry, "skipped", str(exc)))
                continue
            except EntryInvalid as exc:
                plans.append(EntryPlan(entry, "invalid", str(exc)))
                continue
            target = Target(
                transport=launch.transport,
                argv=launch.argv,
                env=launch.env,
                url=launch.url,
                headers=launch.headers,
            )
            package = None
            if sandboxed and target.transport == "stdio":
                from registry.inspecting.sandbox import SandboxPolicy

                target.sandbox = SandboxPolicy()
                if launch.package is not None:
                    # Fetched first, then run offline with only its own environment (no runner's).
                    package, target.env = launch.package, launch.server_env
            own_env = dict(launch.server_env) if target.transport == "stdio" else None
            plans.append(
                EntryPlan(
                    entry, "inspect", target=target, kind=launch.kind, package=package, server_env=own_env
                )
            )
    return plans, newest


def _still_pending(rows: list[Any], fetched: list[RegistryEntry]) -> list[RegistryEntry]:
    """Servers whose latest stored version was skipped or failed, rebuilt from the stored server.json:
    an incremental crawl only hears of what changed in the registry, and a secret supplied since, or
    a package fixed upstream, must still get its entry inspected."""
    from registry.inspecting.official.launch import select_entries

    seen = {(entry.name, entry.version) for entry in fetched}
    stored = [
        RegistryEntry(
            name=row.name, version=row.version, server=row.server, status=row.status,
            status_message=row.status_message, published_at=row.published_at,
            updated_at=row.updated_at, is_latest=row.is_latest,
        )
        for row in rows
        if row.status != "deleted"
    ]  # fmt: skip
    outcomes = {(row.name, row.version): row.outcome for row in rows}
    latest, _ = select_entries(stored, all_versions=False)
    return [
        entry
        for entry in latest
        if outcomes[(entry.name, entry.version)] in ("skipped", "failed")
        and (entry.name, entry.version) not in seen
    ]


def _check_time(value: str) -> None:
    from registry.core.errors import UsageError

    try:
        parse_utc(value)
    except ValueError:
        raise UsageError(
            f"--updated-since {value!r} is not an RFC 3339 time; write it like 2026-10-01T00:00:00Z"
        ) from None


def _record_plans(store: Store, plans: list[EntryPlan], results: list[CrawlResult]) -> None:
    """One registry_entries row per entry read; a version inspected before stays ``ok`` and takes
    the registry's current status."""
    from registry.storage.records import RegistryEntryRecord

    seen_at = utc_now()
    for plan in plans:
        row = plan.row(results)
        if row["outcome"] == "recorded":
            row = {**row, "outcome": "ok", "reason": None}
        entry = plan.entry
        store.record_registry_entry(
            RegistryEntryRecord(
                name=entry.name,
                version=entry.version or "?",
                status=entry.status,
                status_message=entry.status_message,
                published_at=entry.published_at,
                updated_at=entry.updated_at,
                is_latest=entry.is_latest,
                server=entry.server,
                outcome=row["outcome"],
                reason=row["reason"],
                seen_at=seen_at,
            )
        )


def _progress(total: int) -> Any:
    """A progress bar on stderr when it is a terminal; otherwise one line per finished server."""
    from contextlib import contextmanager

    @contextmanager
    def bar() -> Iterator[Callable[[CrawlResult], object]]:
        if sys.stderr.isatty():
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            from registry.core.printable import console as safe_console

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


def _summary(rows: list[dict[str, Any]], elapsed: float, entries: list[dict[str, Any]]) -> None:
    from rich.markup import escape
    from rich.table import Table

    from registry.core.printable import console as safe_console

    table = Table(show_edge=False, pad_edge=False)
    for header in ("entry", "outcome", "server", "version", "tools", "context", "problems", "time"):
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
            f"{row['contextTokens']:,}" if row["ok"] else "-",
            str(row["problems"]) if row["ok"] else "-",
            f"{row['durationS']:.1f} s",
        )
    console = safe_console(soft_wrap=False)
    if rows:
        console.print(table)
    failed = sum(1 for r in rows if not r["ok"])
    console.print(f"{len(rows)} servers, {failed} failed, in {elapsed:.1f} s", highlight=False)
    not_run = [e for e in entries if e["outcome"] in ("skipped", "invalid", "deleted")]
    for entry in not_run:
        status = "" if entry["status"] == "active" else f" [{entry['status']}]"
        console.print(
            escape(f"{entry['outcome']}: {entry['name']}@{entry['version']}{status}: {entry['reason']}"),
            highlight=False,
        )
    passed = {
        "recorded": "already recorded (--force inspects them again)",
        "older": "older versions not inspected (--all-versions inspects them)",
    }
    for outcome, meaning in passed.items():
        count = sum(1 for e in entries if e["outcome"] == outcome)
        if count:
            console.print(f"{count} {meaning}", highlight=False)
    for entry in entries:
        if entry["status"] == "deprecated" and entry["outcome"] in ("ok", "failed"):
            console.print(
                escape(f"deprecated: {entry['name']}@{entry['version']}: {entry['statusMessage'] or ''}"),
                highlight=False,
            )
