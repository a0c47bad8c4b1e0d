"""``mcpdex lock`` (write the baseline a repository commits) and ``mcpdex check`` (the CI gate)."""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from registry.commands._options import SERVICE_HELP, format_option, registry_option, writing
from registry.commands._target import target_options
from registry.core.printable import colour_wanted
from registry.core.timestamps import utc_now
from registry.diffing.rules import LEVELS

DEFAULT_LOCK_FILE = "mcpdex.lock.json"
_OUTPUT_FORMATS = ("text", "json", "markdown", "github", "junit", "sarif")


@click.command("lock")
@target_options
@click.option(
    "--out",
    default=DEFAULT_LOCK_FILE,
    show_default=True,
    type=click.Path(dir_okay=False),
    help="Where to write the baseline.",
)
def lock(out: str, **target: Any) -> None:
    """Inspect the target and write its snapshot as the baseline (mcpdex.lock.json) to commit.

    \b
    mcpdex lock -- python server.py
    mcpdex lock --out contracts/mcpdex.lock.json -- node dist/index.js
    """
    from registry.commands._target import snapshot_from_options
    from registry.core.snapshot import dump_snapshot, server_version

    snapshot = snapshot_from_options(**target)
    with writing("--out", out):
        dump_snapshot(snapshot, out)
    click.echo(
        f"wrote {out}: {len(snapshot.get('tools') or [])} tools, "
        f"{(snapshot.get('server') or {}).get('name')} {server_version(snapshot)}",
        err=True,
    )


@click.command("check")
@target_options
@click.option(
    "--baseline",
    type=click.Path(dir_okay=False),
    default=None,
    help="Baseline snapshot file (default: mcpdex.lock.json, unless --registry is given).",
)
@registry_option(SERVICE_HELP, purpose="Compare with the latest version recorded there instead of a file")
@click.option(
    "--against",
    metavar="SERVER[@VERSION]",
    help="With --registry: which recorded server (default: the target's serverInfo.name).",
)
@click.option(
    "--fail-on",
    type=click.Choice(LEVELS),
    default="breaking",
    show_default=True,
    help="Fail on schema and tool changes at this level or above (description lints: --fail-on-lint; "
    "quality drops: --quality).",
)
@click.option(
    "--fail-on-lint/--no-fail-on-lint",
    default=True,
    show_default=True,
    help="Fail when a changed or new text trips a security lint (tool poisoning's signature), gated "
    "apart from schema breaks; accept one with its fingerprint in the ignore file.",
)
@click.option(
    "--ignore",
    "ignore_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Accepted changes: lines of '<fingerprint> <reason>' (default: mcpdex.ignore if present).",
)
@click.option(
    "--severity",
    multiple=True,
    metavar="RULE=LEVEL",
    help="Override a rule's level (breaking, warning, info, or none to drop it). Repeatable.",
)
@click.option(
    "--bump-level",
    type=click.Choice((*LEVELS, "none")),
    default="warning",
    show_default=True,
    help="Level of a breaking change shipped without a major version bump.",
)
@click.option(
    "--quality/--no-quality",
    default=True,
    show_default=True,
    help="Score both sides: a tool or the server roll-up that falls a TDQS tier is a quality drop, "
    "counted apart from breaking changes, and fails the gate.",
)
@click.option(
    "--max-context-tokens",
    type=click.IntRange(min=1),
    metavar="N",
    help="Fail when the tool list puts more than N tokens in an agent's context (its context cost).",
)
@format_option(
    *_OUTPUT_FORMATS, help="Report format on stdout; Markdown also goes to $GITHUB_STEP_SUMMARY when set."
)
@click.option(
    "--update",
    is_flag=True,
    help="After review: write the current snapshot as the new baseline (or record it in --registry).",
)
def check(
    baseline: str | None,
    registry_url: str | None,
    against: str | None,
    fail_on: str,
    fail_on_lint: bool,
    ignore_path: str | None,
    severity: tuple[str, ...],
    bump_level: str,
    quality: bool,
    max_context_tokens: int | None,
    fmt: str,
    update: bool,
    **target: Any,
) -> int:
    """Gate CI: diff and score the live target against its baseline; exit 0 passed, 1 failed, 2 could not run.

    \b
    mcpdex check -- python server.py
    mcpdex check --format github --fail-on warning -- node dist/index.js
    mcpdex check --registry postgresql://db/mcpdex https://example.test/mcp
    mcpdex check --update -- python server.py     # accept the reviewed change as the new baseline
    mcpdex check --no-quality -- python server.py  # schema changes only; no scoring
    mcpdex check --max-context-tokens 4000 -- python server.py
    """
    from registry.commands._target import load_scorer, snapshot_from_options
    from registry.core.errors import UsageError
    from registry.core.snapshot import dump_snapshot, load_snapshot
    from registry.gating.formats import append_step_summary, render_report
    from registry.gating.policy import DEFAULT_IGNORE_FILE, evaluate, load_ignore, parse_severity

    if baseline and registry_url:
        raise UsageError("give either --baseline FILE or --registry URL, not both")
    if against and not registry_url:
        raise UsageError("--against names a server in the registry; pass --registry URL too")
    overrides = parse_severity(severity)
    if ignore_path is None and os.path.isfile(DEFAULT_IGNORE_FILE):
        ignore_path = DEFAULT_IGNORE_FILE
    accepted = load_ignore(ignore_path)
    baseline_file = None if registry_url else (baseline or DEFAULT_LOCK_FILE)
    if baseline_file and not os.path.isfile(baseline_file) and not update:
        raise UsageError(
            f"{baseline_file}: no baseline; write one with `mcpdex lock` (same target) and commit it"
        )

    current = snapshot_from_options(**target, meanwhile=load_scorer if quality else None)
    foreign: frozenset[str] = frozenset()
    if baseline_file:
        old = dict(load_snapshot(baseline_file)) if os.path.isfile(baseline_file) else None
        origin = baseline_file
    else:
        old, origin, foreign = _registry_baseline(registry_url, against, current)  # type: ignore[arg-type]
    if old is None:  # --update with no baseline yet: this run creates it
        with writing("--baseline", baseline_file):  # type: ignore[arg-type]
            dump_snapshot(current, baseline_file)  # type: ignore[arg-type]
        click.echo(f"wrote the first baseline to {baseline_file}", err=True)
        return 0
    report = evaluate(
        old,
        current,
        fail_on=fail_on,
        accepted=accepted,
        severity=overrides,
        bump_level=None if bump_level == "none" else bump_level,
        quality=quality,
        fail_on_lint=fail_on_lint,
        old_origin=origin,
        new_origin="live target",
        foreign_tools=foreign,
    )
    if max_context_tokens is not None:
        _limit_context(report, current, max_context_tokens)
    colour = colour_wanted(sys.stdout)
    click.echo(render_report(report, fmt, color=colour, file=baseline_file), nl=False, color=colour)
    if not report.get("contextCost", {"withinLimit": True})["withinLimit"]:
        click.echo(report["contextCost"]["message"], err=True)
    if append_step_summary(report):
        click.echo("appended the report to $GITHUB_STEP_SUMMARY", err=True)
    if update:
        if baseline_file:
            with writing("--baseline", baseline_file):
                dump_snapshot(current, baseline_file)
            click.echo(f"updated the baseline {baseline_file}", err=True)
        else:
            _record(registry_url, against, current)  # type: ignore[arg-type]
            click.echo(f"recorded the current snapshot in {registry_url}", err=True)
        return 0
    return 0 if report["passed"] else 1


def _limit_context(report: dict[str, Any], current: dict[str, Any], limit: int) -> None:
    """Add the current surface's context cost to ``report``; one over ``limit`` fails it."""
    from registry.diffing.context_cost import context_cost, tokens_label

    cost = context_cost(current)
    within = cost["tokens"] <= limit
    verdict = "within" if within else "over"
    report["contextCost"] = {
        "tokens": cost["tokens"],
        "characters": cost["characters"],
        "tokenizer": cost["tokenizer"],
        "limit": limit,
        "withinLimit": within,
        "message": f"context cost {tokens_label(cost)} is {verdict} --max-context-tokens {limit}",
    }
    if not within:
        report["passed"] = False


def _registry_baseline(
    url: str, against: str | None, current: dict[str, Any]
) -> tuple[dict[str, Any], str, frozenset[str]]:
    """The recorded baseline, where it came from, and the tools every other recorded server offers."""
    from registry.commands.sources import other_servers_tools, split_server_spec
    from registry.core.errors import UsageError
    from registry.storage.client import open_registry

    name, version = (
        split_server_spec(against) if against else ((current.get("server") or {}).get("name"), None)
    )
    if not name:
        raise UsageError("the target reports no serverInfo.name; name the recorded server with --against")
    with open_registry(url) as store:
        snapshot = store.snapshot(name, version)
        foreign = other_servers_tools(store, {name})
    return snapshot, f"{name}@{version or 'latest'} in the registry", foreign


def _record(url: str, against: str | None, current: dict[str, Any]) -> None:
    """Record the checked server's snapshot in the registry, under ``against``'s name or its own."""
    from registry.commands.sources import split_server_spec
    from registry.storage.client import open_registry

    name = split_server_spec(against)[0] if against else (current.get("server") or {}).get("name")
    if not isinstance(name, str):
        from registry.core.errors import UsageError

        raise UsageError("the server names itself nowhere (no serverInfo.name); pass --against NAME")
    with open_registry(url) as store:
        store.record_inspection(
            current,
            server=name,
            ok=True,
            error=None,
            started_at=utc_now(),
            duration_s=0.0,
        )
