"""``mcpdex inspect``: connect to one MCP server, print its snapshot, write or save it.

The text summary also scores the tools and says what changed since the registry's latest version.
``--timeout`` bounds all of it: what the deadline leaves no time for is left out, and the summary
says so.
"""

from __future__ import annotations

import shlex
import signal
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from registry.commands._console import print_summary
from registry.commands._options import SERVICE_HELP, format_option, limit_options, registry_option, writing
from registry.commands._target import target_options
from registry.core.timestamps import utc_now

if TYPE_CHECKING:
    from registry.storage.records import Recorded, VersionRecord

_CHANGES_LIMIT = 10  # changes listed since the last version; `mcpdex diff` lists them all
_REGISTRY_READ_TIMEOUT = 5.0  # seconds per request for the previous version in a service registry
# The share of --timeout kept back, from judging the tools, for printing the summary (at most 1 s).
_PRINT_RESERVE = 0.1
_T = TypeVar("_T")


@click.command("inspect")
@target_options
@format_option("text", "json")
@click.option("--out", type=click.Path(dir_okay=False), help="Also write the snapshot JSON to this file.")
@click.option("--save", is_flag=True, help="Record the inspection (and a new version) in the registry.")
@registry_option(SERVICE_HELP)
@click.option("--name", help="Registry name to save under (default: the config entry, else serverInfo.name).")
@limit_options
def inspect(
    fmt: str,
    out: str | None,
    save: bool,
    registry_url: str | None,
    name: str | None,
    max_tools: int | None,
    max_schema_bytes: int | None,
    max_schema_depth: int | None,
    max_description_chars: int | None,
    **target: Any,
) -> None:
    """Inspect an MCP server: a URL, `-- COMMAND [ARGS...]`, or --config FILE --server NAME.

    \b
    mcpdex inspect -- node server.js --flag
    mcpdex inspect https://example.com/mcp --header 'Authorization: Bearer TOKEN'
    mcpdex inspect --config claude_desktop_config.json --server memory --save
    """
    from registry.commands._target import target_from_options
    from registry.core.errors import InspectionError, RegistryError
    from registry.core.limits import Limits
    from registry.core.printable import escape_controls
    from registry.core.snapshot import dump_snapshot, dumps_snapshot
    from registry.inspecting.inspect import inspect as run_inspection

    limits = Limits.from_env(
        max_tools=max_tools,
        max_schema_bytes=max_schema_bytes,
        max_schema_depth=max_schema_depth,
        max_description_chars=max_description_chars,
    )
    target_obj = target_from_options(**target)
    if save:
        # A registry or a name that cannot be saved to is refused now, not after the whole inspection.
        from registry.storage.client import open_registry

        open_registry(registry_url).close()
        chosen = name or target_obj.name
        if chosen:
            _check_name(chosen)
    started_at = utc_now()
    started = time.perf_counter()
    deadline = time.monotonic() + target["timeout"]
    try:
        snapshot = run_inspection(
            target_obj,
            timeout=target["timeout"],
            protocol_era=target["protocol_era"],
            version_label=target["version_label"],
            limits=limits,
        )
    except InspectionError as exc:
        key = name or target_obj.name
        if save and key:
            _record(registry_url, None, key, str(exc), started_at, time.perf_counter() - started)
        raise
    duration = time.perf_counter() - started
    if out:
        with writing("--out", out):
            dump_snapshot(snapshot, out)
        click.echo(f"wrote {out}", err=True)
    key = name or target_obj.name or snapshot["server"].get("name") or "unnamed"
    if save:
        _check_name(key)
    previous, read = None, fmt == "text"
    if read:
        # Read before saving: the changes are those since the version recorded before this run.
        try:
            previous = _latest_version(registry_url, key, deadline - time.monotonic())
        except RegistryError as exc:
            click.echo(f"mcpdex: warning: {exc}; not showing what changed", err=True)
            read = False
    recorded = None
    if save:
        recorded = _record(registry_url, snapshot, key, None, started_at, duration)
        state = "new version" if recorded.new_version else "unchanged"
        alias = target["version_label"]
        if not recorded.new_version and alias and alias != recorded.version:
            # the stored version keeps its label; the one asked for names it too
            state = f"unchanged; {alias} names it too"
        saved = f"saved {recorded.server}@{recorded.version} ({state}, {(recorded.digest or '')[:19]})"
        click.echo(escape_controls(saved), err=True)
    if fmt == "json":
        click.echo(dumps_snapshot(snapshot), nl=False)
        return
    from registry.gating.policy import evaluate
    from scoring import score_snapshot

    # Judging is CPU work on what the server sent: it gets what the deadline leaves, less a little
    # for printing, and what does not finish by then is left out (and said so).
    judge_by = deadline - min(1.0, target["timeout"] * _PRINT_RESERVE)
    scorecard = _before(judge_by, lambda: score_snapshot(snapshot))
    print_summary(snapshot, duration, scorecard)
    if scorecard is None:
        _left_out("scores", target["timeout"], "`mcpdex score` with the same target scores every tool")
    if previous is not None:
        # An older release saved after a newer one: its changes are told in release order, into the
        # newer one, not as what changed "since" a release that came after it.
        older = _released_before(snapshot, previous.label)
        sides = (snapshot, previous.snapshot) if older else (previous.snapshot, snapshot)
        report = _before(judge_by, lambda: evaluate(*sides, fail_on=None))
        if report is None:
            _left_out("what changed", target["timeout"], "`mcpdex diff` lists every change")
        else:
            new_side = _diff_side(snapshot, key, recorded, out)
            print_changes(
                previous, report, key, new_side, registry_given=registry_url is not None, older=older
            )
    elif save and read:
        click.echo(f"first version of {key} in the registry", err=True)


def _check_name(server: str) -> None:
    """Refuse a name the registry would refuse, before anything is written."""
    from registry.core.errors import UsageError
    from registry.core.names import server_name_problem

    problem = server_name_problem(server)
    if problem is not None:
        raise UsageError(f"{problem}; save under another name with --name NAME")


def _before(until: float, work: Callable[[], _T]) -> _T | None:
    """``work()``, or None when it has not finished by ``until`` (a ``time.monotonic()``).

    The work runs in a forked child that is killed at ``until``, so it stops then however much
    input it has left, and what it built is gone with it at once (unwinding a large half-built
    scorecard in this process could itself take seconds). Without ``fork``, it runs here, unbounded.
    """
    import os
    import pickle
    import select

    if until <= time.monotonic():
        return None
    if not hasattr(os, "fork"):
        return work()
    readable, writable = os.pipe()
    child = os.fork()
    if child == 0:  # the child: send the result (or the error) back, and leave without cleaning up
        os.close(readable)
        try:
            try:
                answer: tuple[bool, Any] = (True, work())
            except Exception as exc:
                answer = (False, exc)
            with os.fdopen(writable, "wb") as channel:
                pickle.dump(answer, channel, protocol=pickle.HIGHEST_PROTOCOL)
        finally:
            os._exit(0)
    os.close(writable)
    chunks: list[bytes] = []
    try:
        while (left := until - time.monotonic()) > 0 and select.select([readable], [], [], left)[0]:
            chunk = os.read(readable, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
        else:
            os.kill(child, signal.SIGKILL)
            return None
    finally:
        os.close(readable)
        os.waitpid(child, 0)
    if not chunks:
        return None  # the child died without an answer (out of memory, say): nothing to show
    done, value = pickle.loads(b"".join(chunks))
    if not done:
        raise value
    result: _T = value
    return result


def _left_out(what: str, timeout: float, instead: str) -> None:
    click.echo(
        f"{what} not shown: judging the tools did not finish within the {timeout:g} s --timeout; "
        f"{instead} (without a deadline)"
    )


def _latest_version(registry_url: str | None, server: str, remaining: float) -> VersionRecord | None:
    """The registry's latest version of ``server``, None when it has none (or there is no registry yet).

    A service gets a short deadline, within what is ``remaining`` of --timeout: this read only adds
    to the summary, and must not hold up an inspection that already finished.
    """
    from registry.storage.client import open_registry

    timeout = max(0.1, min(_REGISTRY_READ_TIMEOUT, remaining))
    with open_registry(registry_url, timeout=timeout) as store:
        return store.latest_version(server)


def _diff_side(
    snapshot: dict[str, Any], server: str, recorded: Recorded | None, out: str | None
) -> str | None:
    """How ``mcpdex diff`` can name this inspection: the version just saved, the --out file, or the
    target itself when it alone reproduces the inspection (no env, headers, cwd or redacted secret)."""
    if recorded is not None and recorded.version:
        return shlex.quote(f"{server}@{recorded.version}")
    if out:
        return shlex.quote(out)
    from registry.inspecting.targets import REDACTED

    source = snapshot.get("source") or {}
    settings = {"env", "headers", "cwd", "configEntry"} & set(source)
    alone = not settings and source.get("transport") in ("stdio", "streamable-http")
    if alone and REDACTED not in source["target"]:
        return shlex.quote(source["target"])
    return None


def _record(
    registry_url: str | None,
    snapshot: dict[str, Any] | None,
    server: str,
    error: str | None,
    at: str,
    duration: float,
) -> Recorded:
    from registry.storage.client import open_registry

    with open_registry(registry_url) as store:
        return store.record_inspection(
            snapshot, server=server, ok=snapshot is not None, error=error, started_at=at, duration_s=duration
        )


def _released_before(snapshot: dict[str, Any], label: str) -> bool:
    """This snapshot's version comes before ``label`` in release order (both semver)."""
    from registry.core.snapshot import server_version
    from registry.core.versions import semver_key

    mine, theirs = semver_key(server_version(snapshot)), semver_key(label)
    return mine is not None and theirs is not None and mine < theirs


def print_changes(
    previous: VersionRecord,
    report: dict[str, Any],
    server: str,
    new_side: str | None,
    *,
    registry_given: bool,
    older: bool = False,
) -> None:
    """What changed since ``previous`` (the gate's ``report`` of the changes): counts by level, then
    the most severe changes first. ``older``: this inspection is an earlier release than
    ``previous``, and ``report`` holds the changes from it into ``previous``.

    ``new_side`` names this inspection for ``mcpdex diff`` (None: it has to be written with --out first).
    """
    from registry.core.printable import escape_controls
    from registry.diffing.rules import level_rank
    from registry.gating.formats import changes_summary

    seen = previous.last_seen[:16].replace("T", " ")
    since = f"since {server}@{previous.label} (last seen {seen} UTC)"
    if older:
        since = f"from this release to the later {server}@{previous.label} (last seen {seen} UTC)"
    if not report["changes"]:
        click.echo(escape_controls(f"\nno changes {since}"))
        return
    lines = [f"\n{since}: {changes_summary(report)}"]
    # sorted() is stable: within a level the changes keep the diff's order (by tool, area, path).
    changes = sorted(report["changes"], key=lambda change: -level_rank(change["level"]))
    for change in changes[:_CHANGES_LIMIT]:
        lines.append(f"  {change['level'].upper():<9} {change['message']} ({change['rule']})")
    if len(changes) > _CHANGES_LIMIT:
        lines.append(f"  and {len(changes) - _CHANGES_LIMIT} more")
    old_side = shlex.quote(f"{server}@{previous.label}")
    registry = " --registry URL" if registry_given else ""
    where = "" if new_side else " (write NEW.json with --out)"
    pair = f"{new_side or 'NEW.json'} {old_side}" if older else f"{old_side} {new_side or 'NEW.json'}"
    lines.append(f"`mcpdex diff{registry} {pair}` lists every change in full{where}")
    # The messages quote what the server wrote: its control characters are shown, not obeyed.
    click.echo(escape_controls("\n".join(lines)))
