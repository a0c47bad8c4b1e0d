"""What the commands print to the console, written once for all of them: the text console, the
one-line roll-ups of a scorecard and of a context cost, the weakest dimensions of a scorecard, and
the readable summary of a snapshot (``mcpdex inspect``, ``mcpdex show``).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from rich.console import Console

    from registry.diffing.context_cost import ContextCost

_C = TypeVar("_C", dict[str, Any], list[Any])

_IMPROVE_LIMIT = 8  # tools listed under "to improve"; `mcpdex score` lists them all
# Rows of the summary's table (and problems listed); `--format json` and `mcpdex score` have them all.
_TOOLS_SHOWN = 100


def worst_justifications(scorecard: dict[str, Any], limit: int | None) -> list[dict[str, Any]]:
    """The lowest dimension scores across the server, heaviest dimensions first among equals (all when
    ``limit`` is None)."""
    from scoring.arithmetic import WEIGHTS

    rows = [
        {
            "tool": card["name"],
            "dimension": key,
            "label": entry["label"],
            "score": entry["score"],
            "justification": entry["justification"],
        }
        for card in scorecard["tools"]
        for key, entry in card["dimensions"].items()
        if entry["score"] < 5
    ]
    rows.sort(key=lambda row: (row["score"], -WEIGHTS[row["dimension"]], row["tool"]))
    return rows[:limit]


def text_console() -> Console:
    """The console text results are printed on (stdout)."""
    from registry.core.printable import console

    # Piped output is as wide as its tables (see `console`), and long lines are not wrapped, so it greps
    # cleanly.
    return console(highlight=False, soft_wrap=not sys.stdout.isatty())


def roll_up_line(roll_up: dict[str, Any]) -> str:
    """The server roll-up in one line of console markup: overall tier, description quality, coherence."""
    coherence = roll_up["coherence"]
    return (
        f"server: overall [bold]{roll_up['overall']:.1f} {roll_up['tier']}[/bold]  description quality "
        f"{roll_up['description_quality']:.1f} ({roll_up['description_quality_tier']})  coherence "
        f"{roll_up['coherence_score']:.1f} ("
        + ", ".join(f"{entry['label'].lower()} {entry['score']}" for entry in coherence.values())
        + ")"
    )


def context_cost_line(cost: ContextCost) -> str:
    """``context cost: 1,234 tokens (o200k_base), 5,678 characters``, with the largest tools."""
    from rich.markup import escape

    from registry.diffing.context_cost import tokens_label

    largest = sorted(cost["tools"], key=lambda tool: -tool["tokens"])[:3]
    where = ", ".join(f"{tool['name']} {tool['tokens']:,}" for tool in largest)
    return escape(
        f"context cost: {tokens_label(cost)}, {cost['characters']:,} characters"
        + (f"; largest: {where}" if where else "")
    )


def print_summary(
    snapshot: dict[str, Any], duration: float | None = None, scorecard: dict[str, Any] | None = None
) -> None:
    """The readable summary: server, version, protocol, then a table of tools.

    With the snapshot's ``scorecard``, each tool's tier and score, the server roll-up and, for the tools
    below tier A, their weakest dimension with what would earn more.
    """
    from rich.markup import escape
    from rich.table import Table

    from registry.core.snapshot import server_version

    console = text_console()
    server = snapshot.get("server") or {}
    source = snapshot.get("source") or {}
    took = f" in {duration:.2f} s" if duration is not None else ""
    console.print(
        f"[bold]{escape(server.get('name') or '(unnamed)')}[/bold] {escape(server_version(snapshot))}"
        f"  protocol {snapshot.get('protocolVersion')} ({source.get('protocolEra', '?')})"
        f"  via {source.get('transport', '?')}{took}"
    )
    counts = {k: len(snapshot.get(k) or []) for k in ("tools", "resources", "resourceTemplates", "prompts")}
    from registry.core.wording import counted

    console.print(
        f"{counted(counts['tools'], 'tool')}, {counted(counts['resources'], 'resource')}, "
        f"{counted(counts['resourceTemplates'], 'resource template')}, "
        f"{counted(counts['prompts'], 'prompt')}  {snapshot.get('digest', '')[:19]}"
    )
    from registry.diffing.context_cost import context_cost

    cost = context_cost(snapshot)
    console.print(context_cost_line(cost))
    problems_by_tool: dict[int, int] = {}
    for problem in snapshot.get("problems") or []:
        where = problem.get("where", "")
        if where.startswith("tools["):
            index = int(where[6:].split("]", 1)[0])
            problems_by_tool[index] = problems_by_tool.get(index, 0) + 1
    # score_snapshot keeps the tools in order, so the cards line up with the rows.
    cards = scorecard["tools"] if scorecard is not None else []
    table = Table(show_edge=False, pad_edge=False)
    for column in ("tool", "params", "required", "output", "annotations", "problems", "tokens"):
        table.add_column(column, justify="right" if column in ("params", "problems", "tokens") else "left")
    if cards:
        table.add_column("score", no_wrap=True)
    for index, tool in enumerate((snapshot.get("tools") or [])[:_TOOLS_SHOWN]):
        schema = _of_type(tool.get("inputSchema"), dict)
        props = _of_type(schema.get("properties"), dict)
        required = _of_type(schema.get("required"), list)
        annotations = _of_type(tool.get("annotations"), dict)
        hints = [
            k.removesuffix("Hint") for k, v in sorted(annotations.items()) if k.endswith("Hint") and v is True
        ]
        score = [f"{cards[index]['tier']} {cards[index]['total']:.1f}"] if cards else []
        table.add_row(
            escape(str(tool.get("name"))),
            str(len(props)),
            ", ".join(str(r) for r in required) or "-",
            "yes" if tool.get("outputSchema") else "-",
            # Annotations that set no hint true (a title, hints all false) are not "none".
            ", ".join(hints) or ("no hint true" if annotations else "-"),
            str(problems_by_tool.get(index, "")) or "",
            f"{cost['tools'][index]['tokens']:,}" if index < len(cost["tools"]) else "-",
            *score,
        )
    if counts["tools"]:
        console.print(table)
    if counts["tools"] > _TOOLS_SHOWN:
        console.print(f"and {counts['tools'] - _TOOLS_SHOWN:,} more tools; `--format json` has them all")
    problems = snapshot.get("problems") or []
    for problem in problems[:_TOOLS_SHOWN]:
        text = f"problem {problem['code']} at {problem['where']}: {problem['message'][:300]}"
        console.print(escape(text))
    if len(problems) > _TOOLS_SHOWN:
        console.print(f"and {len(problems) - _TOOLS_SHOWN:,} more problems; `--format json` has them all")
    if scorecard is not None and cards:
        _print_improvements(console, scorecard)


def _print_improvements(console: Console, scorecard: dict[str, Any]) -> None:
    """The server roll-up, then the weakest dimension of each tool below tier A, weakest first."""
    from rich.markup import escape

    console.print(roll_up_line(scorecard["server_score"]))
    below = {card["name"]: card for card in scorecard["tools"] if card["tier"] != "A"}
    weakest: dict[str, dict[str, Any]] = {}
    for row in worst_justifications(scorecard, None):
        if row["tool"] in below:
            weakest.setdefault(row["tool"], row)
    if weakest:
        console.print("\n[bold]To improve[/bold]: the weakest dimension of each tool below tier A")
    for name, row in list(weakest.items())[:_IMPROVE_LIMIT]:
        card = below[name]
        console.print(
            f"  {escape(name)} {card['tier']} {card['total']:.1f} · {row['label']} {row['score']}: "
            f"{escape(row['justification'])}"
        )
    if len(weakest) > _IMPROVE_LIMIT:
        console.print(f"  and {len(weakest) - _IMPROVE_LIMIT} more")
    console.print(
        "`mcpdex score` with the same target gives every dimension of every tool and the lint findings"
    )


def _of_type(value: Any, kind: type[_C]) -> _C:
    """``value`` when it is a ``kind`` (a dict or a list, as a server wrote it), else an empty one."""
    return value if isinstance(value, kind) else kind()
