"""``mcpdex score`` (the six TDQS dimensions per tool, the server roll-up, lints) and ``mcpdex explain``."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import click

from registry.commands._console import context_cost_line, roll_up_line, text_console, worst_justifications
from registry.commands._options import format_option, registry_option
from registry.commands._target import target_options
from registry.core.printable import escape_controls, json_inert
from registry.core.wording import counted

TIER_CHOICES = ("A", "B", "C", "D")
SHORT = {
    "purpose": "Pur",
    "usage_guidelines": "Use",
    "behavior": "Beh",
    "parameters": "Par",
    "conciseness": "Con",
    "completeness": "Cmp",
}


@click.command("score")
@target_options
@format_option(
    "text", "json", "markdown", help="text: tables; json: the full Scorecard; markdown: a PR-ready report."
)
@click.option(
    "--min-tier",
    type=click.Choice(TIER_CHOICES, case_sensitive=False),
    metavar="[" + "|".join(TIER_CHOICES) + "]",
    help="Exit 1 when any tool's tier is below this (B is the passing bar; below D is F).",
)
@click.option("--min-score", type=click.FloatRange(1.0, 5.0), help="Exit 1 when any tool scores below this.")
@click.option(
    "--worst",
    default=8,
    show_default=True,
    type=click.IntRange(min=0),
    help="How many of the lowest dimension scores to explain in text and markdown output.",
)
@registry_option(purpose="Where a SERVER[@VERSION] target is looked up")
def score(
    fmt: str,
    min_tier: str | None,
    min_score: float | None,
    worst: int,
    registry_url: str | None,
    **target: Any,
) -> int:
    """Score every tool of a snapshot file, SERVER[@VERSION], a URL or `-- COMMAND [ARGS...]`.

    \b
    mcpdex score mcpdex.lock.json
    mcpdex score --min-tier B -- python my_server.py
    mcpdex score memory-server@0.6.3 --format markdown > score.md
    """
    snapshot = _snapshot(registry_url, target)
    # Imported once there is something to score: a usage error is printed without loading the scorer.
    from registry.diffing.context_cost import context_cost
    from scoring import score_snapshot

    scorecard = score_snapshot(snapshot)
    # The scorer stays free of registry imports; the context cost joins its card here.
    scorecard["context_cost"] = context_cost(snapshot)
    failing = _below_bar(scorecard, min_tier, min_score)
    if fmt == "json":
        click.echo(json_inert(json.dumps(scorecard, indent=2, ensure_ascii=False, sort_keys=True)))
    elif fmt == "markdown":
        from registry.core.templating import render

        click.echo(
            render(
                "score.md.j2",
                card=scorecard,
                worst=worst_justifications(scorecard, worst),
                failing=failing,
                bar=_bar_text(min_tier, min_score),
                short=SHORT,
            ),
            nl=False,
        )
    else:
        _print_text(scorecard, worst, failing, _bar_text(min_tier, min_score))
    if failing:
        names = ", ".join(f"{card['name']} ({card['tier']} {card['total']})" for card in failing[:5])
        click.echo(
            escape_controls(
                f"mcpdex: gate failed: {counted(len(failing), 'tool')} below "
                f"{_bar_text(min_tier, min_score)}: {names}"
            ),
            err=True,
        )
        return 1
    return 0


def _snapshot(registry_url: str | None, target: dict[str, Any]) -> dict[str, Any]:
    """A snapshot file, SERVER[@VERSION] or URL given alone resolves directly; the rest is inspected live."""
    argv = [arg for arg in target["argv"] if arg != "--"]
    live_only = target["config"] or target["env"] or target["header"] or target["cwd"] or target["transport"]
    # An executable given alone (`-- ./server`) is a command to run, not a snapshot file to read.
    executable = len(argv) == 1 and os.path.isfile(argv[0]) and os.access(argv[0], os.X_OK)
    if len(argv) == 1 and argv[0].endswith(".json") and not os.path.exists(argv[0]):
        from registry.core.errors import UsageError

        raise UsageError(f"{argv[0]}: no such snapshot file; write one with `mcpdex inspect --out FILE`")
    if len(argv) == 1 and not live_only and not (executable and not argv[0].endswith(".json")):
        from registry.commands.sources import resolve_snapshot

        return resolve_snapshot(argv[0], registry_url=registry_url, timeout=target["timeout"])
    from registry.commands._target import load_scorer, snapshot_from_options

    return snapshot_from_options(**target, meanwhile=load_scorer)


def _below_bar(
    scorecard: dict[str, Any], min_tier: str | None, min_score: float | None
) -> list[dict[str, Any]]:
    from scoring.arithmetic import tenths, tier_rank

    failing = []
    for card in scorecard["tools"]:
        below_tier = bool(min_tier) and tier_rank(card["tier"]) < tier_rank(min_tier or "F")
        if below_tier or (min_score is not None and tenths(card["total"]) < tenths(min_score)):
            failing.append(card)
    return sorted(failing, key=lambda card: (card["total"], card["name"]))


def _bar_text(min_tier: str | None, min_score: float | None) -> str | None:
    parts = ([f"tier {min_tier.upper()}"] if min_tier else []) + ([f"score {min_score}"] if min_score else [])
    return " and ".join(parts) or None


def _print_text(
    scorecard: dict[str, Any], worst: int, failing: list[dict[str, Any]], bar: str | None
) -> None:
    from rich.markup import escape
    from rich.table import Table

    console = text_console()
    server = scorecard["server"]
    roll_up = scorecard["server_score"]
    console.print(
        f"[bold]{escape(str(server.get('name') or '(unnamed)'))}[/bold] "
        f"{escape(str(server.get('version') or ''))}  {len(scorecard['tools'])} tools"
    )
    if "context_cost" in scorecard:
        console.print(context_cost_line(scorecard["context_cost"]))
    if not scorecard["tools"]:
        console.print("The server offers no tools, so there is nothing to score.")
        return
    table = Table(show_edge=False, pad_edge=False)
    table.add_column("tool", no_wrap=True)
    for label in SHORT.values():
        table.add_column(label, justify="right")
    for column in ("TDQS", "tier", "flags"):
        table.add_column(column, justify="right" if column == "TDQS" else "left", no_wrap=True)
    for card in sorted(scorecard["tools"], key=lambda card: (card["total"], card["name"])):
        cells = [str(card["dimensions"][key]["score"]) for key in SHORT]
        flags = ", ".join(card["flags"] + card["server_flags"])
        table.add_row(escape(card["name"]), *cells, f"{card['total']:.1f}", card["tier"], escape(flags))
    console.print(table)
    if roll_up.get("overall") is not None:
        console.print(roll_up_line(roll_up))
        for risk in roll_up["shadowing"]:
            console.print(f"shadowing risk: {escape(risk['justification'])}")
    rows = worst_justifications(scorecard, worst)
    if rows:
        console.print("\n[bold]Lowest scores, with what would earn more[/bold]")
        for row in rows:
            console.print(
                f"  {row['score']} {escape(row['tool'])} · {row['label']}: {escape(row['justification'])}"
            )
    findings = [f for f in scorecard["findings"] if f["level"] != "info"]
    infos = len(scorecard["findings"]) - len(findings)
    if findings or infos:
        console.print(
            f"\n[bold]Findings[/bold] ({len(findings)} error(s) and warning(s), {infos} info; "
            "`mcpdex explain RULE` documents each)"
        )
        for item in findings:
            tool = f"{item['tool']} · " if item["tool"] else ""
            console.print(
                f"  {item['level']:<7} {item['rule']:<26} {escape(tool + item['where'])}: "
                f"{escape(item['message'])}"
            )
    if bar:
        verdict = f"{counted(len(failing), 'tool')} below {bar}" if failing else f"every tool meets {bar}"
        console.print(f"\ngate: {verdict}")


@click.command("explain")
@click.argument("rule_id", metavar="RULE")
def explain(rule_id: str) -> None:
    """Print what a lint rule, diff rule or score dimension means and how to fix it.

    \b
    mcpdex explain hidden-unicode
    mcpdex explain usage_guidelines
    """
    from registry.core.errors import UsageError
    from registry.diffing.rules import RULES_BY_ID
    from scoring.reference import explain_text, known_ids

    text = explain_text(rule_id)
    if text is None and rule_id in RULES_BY_ID:
        rule = RULES_BY_ID[rule_id]
        text = (
            f"{rule.id} (diff rule, {rule.level}, {rule.area}, {rule.direction} side)\n\n{rule.explanation}\n"
        )
    if text is None:
        from difflib import get_close_matches

        close = get_close_matches(rule_id, [*known_ids(), *RULES_BY_ID], n=3)
        listed = "; `mcpdex rules` lists the diff rules, docs/scoring.md the lint rules and dimensions"
        hint = f"; did you mean {', '.join(close)}?" if close else listed
        raise UsageError(f"no rule or dimension named {rule_id!r}{hint}")
    click.echo(text, nl=not text.endswith("\n"))
    sys.stdout.flush()
