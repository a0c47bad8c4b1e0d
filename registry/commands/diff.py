"""``mcpdex diff`` (snapshots, registry versions or live targets) and ``mcpdex rules`` (the rule table)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from registry.commands._options import format_option, registry_option, writing
from registry.core.printable import colour_wanted
from registry.diffing.rules import LEVELS


@click.command("diff")
@click.argument("old")
@click.argument("new")
@registry_option(purpose="Where SERVER@VERSION sides are looked up")
@format_option("text", "json", "markdown")
@click.option(
    "--fail-on",
    type=click.Choice(LEVELS),
    default=None,
    help="Exit 1 when a change at this level or above, or a description lint, is found (default: never).",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0.5),
    default=30.0,
    show_default=True,
    help="Deadline in seconds for inspecting a live side.",
)
def diff(old: str, new: str, registry_url: str | None, fmt: str, fail_on: str | None, timeout: float) -> int:
    """Diff OLD → NEW, each a snapshot file, SERVER[@VERSION] from the registry, a URL or a quoted command.

    \b
    mcpdex diff before.json after.json
    mcpdex diff memory-server@0.6.2 memory-server@0.6.3 --format markdown
    mcpdex diff mcpdex.lock.json "python server.py" --fail-on breaking
    """
    from registry.commands.sources import resolve_snapshot
    from registry.gating.formats import render_report
    from registry.gating.policy import evaluate

    before = resolve_snapshot(old, registry_url=registry_url, timeout=timeout)
    after = resolve_snapshot(new, registry_url=registry_url, timeout=timeout)
    foreign: frozenset[str] = frozenset()
    if registry_url:  # the tools the registry's other servers offer: what a text may refer to
        from registry.commands.sources import other_servers_tools
        from registry.storage.client import open_registry

        names = {str((side.get("server") or {}).get("name")) for side in (before, after)}
        with open_registry(registry_url) as store:
            foreign = other_servers_tools(store, names | {_side_name(old), _side_name(new)})
    report = evaluate(before, after, fail_on=fail_on, old_origin=old, new_origin=new, foreign_tools=foreign)
    colour = colour_wanted(sys.stdout)
    click.echo(render_report(report, fmt, color=colour), nl=False, color=colour)
    return 0 if report["passed"] else 1


def _side_name(spec: str) -> str:
    """The server name of a ``SERVER[@VERSION]`` side (the spec itself for a file or command)."""
    from registry.commands.sources import split_server_spec

    return str(split_server_spec(spec)[0])


@click.command("rules")
@format_option("text", "json", "markdown", help="Output format (markdown is what docs/rules.md holds).")
@click.option(
    "--write", "write_path", type=click.Path(dir_okay=False), help="Write the Markdown reference here."
)
def rules(fmt: str, write_path: str | None) -> None:
    """List every diff rule: id, level, area, direction and what it means."""
    from registry.diffing.rules import RULES, rules_markdown

    if write_path:
        with writing("--write", write_path):
            Path(write_path).write_text(rules_markdown(), encoding="utf-8")
        click.echo(f"wrote {len(RULES)} rules to {write_path}", err=True)
        return
    if fmt == "markdown":
        click.echo(rules_markdown(), nl=False)
    elif fmt == "json":
        rows = [
            {
                "id": r.id,
                "level": r.level,
                "area": r.area,
                "direction": r.direction,
                "explanation": r.explanation,
                "example": {"old": r.example[0], "new": r.example[1]},
            }
            for r in RULES
        ]
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
    else:
        width = max(len(r.id) for r in RULES)
        for r in RULES:
            click.echo(f"{r.id:<{width}}  {r.level:<8}  {r.explanation}")
