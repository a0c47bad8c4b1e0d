"""Agreement of the scorer with published TDQS scores: the figures of a calibration report.

Takes entries of the form ``{"server", "tool", "glama": {dimension: score or null}}`` (as the
development set of Glama's published scores holds them) and compares, per dimension, the scorer and
the baseline that needs no scorer: description length, ranked and mapped onto the published scores'
own distribution (its bias is about 0 by construction; its ρ is the figure to beat).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from scoring.scorecard import Models, score_snapshot
from scoring.statistics import agreement

# Published key -> ours; Purpose and Usage are almost never visible on the pages.
DIMENSIONS = {
    "behavior": "behavior",
    "conciseness": "conciseness",
    "completeness": "completeness",
    "parameters": "parameters",
}


def score_entries(entries: list[dict[str, Any]], models: Models | None = None) -> list[dict[str, int]]:
    """Our scores per entry, each tool scored among the other tools of its server in the set (with
    ``models`` in place of the shipped learned parts, when given)."""
    by_server: dict[str, list[int]] = defaultdict(list)
    for index, entry in enumerate(entries):
        by_server[entry["server"]].append(index)
    ours: list[dict[str, int]] = [{} for _ in entries]
    for server, indexes in by_server.items():
        # Two published versions of one tool are scored apart: a snapshot holds a name once.
        groups: list[list[int]] = []
        for index in indexes:
            name = entries[index]["tool"]["name"]
            home = next((g for g in groups if all(entries[i]["tool"]["name"] != name for i in g)), None)
            if home is None:
                groups.append(home := [])
            home.append(index)
        for group in groups:
            snapshot = {"server": {"name": server}, "tools": [entries[i]["tool"] for i in group]}
            for index, card in zip(group, score_snapshot(snapshot, models)["tools"], strict=True):
                ours[index] = {key: entry["score"] for key, entry in card["dimensions"].items()}
    return ours


def length_baseline(lengths: list[int], published: list[int]) -> list[int]:
    """Description lengths ranked and mapped onto the published scores' own distribution."""
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    targets = sorted(published)
    mapped = [0] * len(lengths)
    for rank, index in enumerate(order):
        mapped[index] = targets[rank]
    return mapped


def report(
    entries: list[dict[str, Any]], ours: list[dict[str, int]] | None = None
) -> dict[str, dict[str, dict[str, float]]]:
    """Per dimension: the agreement figures of the scorer (the shipped one, or the scores ``ours``) and
    of the length baseline."""
    ours = ours if ours is not None else score_entries(entries)
    table: dict[str, dict[str, dict[str, float]]] = {}
    for glama_key, our_key in DIMENSIONS.items():
        rows = [(i, entry["glama"][glama_key]) for i, entry in enumerate(entries)]
        rows = [(i, value) for i, value in rows if isinstance(value, int)]
        published = [value for _, value in rows]
        scored = [ours[i][our_key] for i, _ in rows]
        lengths = [len(entries[i]["tool"].get("description") or "") for i, _ in rows]
        table[glama_key] = {
            "scorer": agreement(scored, published),
            "length": agreement(length_baseline(lengths, published), published, ranks=lengths),
        }
    return table


HEADER = ("dimension", "n", "exact", "within ±1", "Spearman ρ", "mean bias", "length: exact", "±1", "ρ")


def markdown(table: dict[str, dict[str, dict[str, float]]]) -> str:
    """The report as a Markdown table, one row per dimension."""
    rows = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    for key, figures in table.items():
        ours, length = figures["scorer"], figures["length"]
        cells = (
            key,
            f"{ours['n']:.0f}",
            f"{ours['exact']:.0%}",
            f"{ours['within_one']:.0%}",
            f"{ours['rho']:.2f}",
            f"{ours['bias']:+.2f}",
            f"{length['exact']:.0%}",
            f"{length['within_one']:.0%}",
            f"{length['rho']:.2f}",
        )
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows) + "\n"
