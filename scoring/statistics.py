"""Aggregate statistics over many Scorecards: the figures a directory or a corpus study publishes.

The registry-wide TDQS statistics (June 2026) are kept beside them as the calibration target.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from scoring.arithmetic import COHERENCE_DIMENSIONS, DIMENSIONS, round1, tenths

# Published registry-wide figures: 362,226 scored definitions on 15,036 servers.
REGISTRY_2026: dict[str, Any] = {
    "mean": 3.57,
    "median": 3.6,
    "p25": 2.9,
    "p75": 4.2,
    "b_or_better": 73.5,
    "tiers": {"A": 54.1, "B": 19.4, "C": 23.8, "D": 2.7},
    "dimensions": {
        "purpose": (4.47, 4.0),
        "usage_guidelines": (3.03, 44.5),
        "behavior": (2.90, 46.1),
        "parameters": (3.19, 14.0),
        "conciseness": (4.47, 3.8),
        "completeness": (3.23, 32.8),
    },
    "with_smell": 56.4,
    "flags": {"No Description": 1.26, "Annotation Contradiction": 0.55, "Tautological Description": 0.06},
    "servers": {
        "overall": 3.56,
        "description_quality": 3.29,
        "coherence": 4.18,
        "naming_consistency": 4.57,
        "disambiguation": 4.50,
        "tool_count": 3.87,
    },
}


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def _percentile(values: list[float], share: float) -> float:
    """Nearest-rank percentile of one-decimal scores."""
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * int(share * 100) // 100))
    return ordered[rank - 1]


def _share(count: int, total: int) -> float:
    """A percentage with one decimal, rounded half-up."""
    return round1(100 * count, total) if total else 0.0


def summarize(scorecards: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Means, percentiles, tier shares, smell rates and flag rates over every tool of ``scorecards``."""
    cards = list(scorecards)
    tools = [tool for card in cards for tool in card["tools"]]
    totals = [tool["total"] for tool in tools]
    count = len(tools)
    tiers = Counter(tool["tier"] for tool in tools)
    flags = Counter(flag for tool in tools for flag in tool["flags"])
    dimensions = {}
    for key in DIMENSIONS:
        scores = [tool["dimensions"][key]["score"] for tool in tools]
        dimensions[key] = (_mean(scores), _share(sum(1 for s in scores if s < 3), count))
    rolled = [card["server_score"] for card in cards if card["server_score"].get("overall") is not None]
    return {
        "servers": len(cards),
        "tools": count,
        "mean": round1(sum(tenths(total) for total in totals), 10 * count) if count else 0.0,
        "exact_mean": _mean(totals),
        "median": _percentile(totals, 0.5) if count else 0.0,
        "p25": _percentile(totals, 0.25) if count else 0.0,
        "p75": _percentile(totals, 0.75) if count else 0.0,
        "b_or_better": _share(tiers["A"] + tiers["B"], count),
        "tiers": {letter: _share(tiers[letter], count) for letter in "ABCD"},
        "dimensions": dimensions,
        "with_smell": _share(sum(1 for tool in tools if tool["smells"]), count),
        "flags": {flag: _share(number, count) for flag, number in sorted(flags.items())},
        "server_means": {
            "overall": _mean([r["overall"] for r in rolled]),
            "description_quality": _mean([r["description_quality"] for r in rolled]),
            "coherence": _mean([r["coherence_score"] for r in rolled]),
            **{key: _mean([r["coherence"][key]["score"] for r in rolled]) for key in COHERENCE_DIMENSIONS},
        },
        "shadowing_risks": sum(len(r["shadowing"]) for r in rolled),
    }


def comparison_table(stats: dict[str, Any]) -> str:
    """Markdown rows comparing ``stats`` with the registry-wide figures, dimension by dimension."""
    rows = ["| figure | this set | registry (June 2026) |", "|---|---|---|"]
    rows.append(f"| tools (servers) | {stats['tools']} ({stats['servers']}) | 362,226 (15,036) |")
    rows.append(f"| mean TDQS | {stats['exact_mean']:.2f} | {REGISTRY_2026['mean']:.2f} |")
    rows.append(
        f"| p25 / median / p75 | {stats['p25']} / {stats['median']} / {stats['p75']} | "
        f"{REGISTRY_2026['p25']} / {REGISTRY_2026['median']} / {REGISTRY_2026['p75']} |"
    )
    rows.append(f"| B or better | {stats['b_or_better']}% | {REGISTRY_2026['b_or_better']}% |")
    for letter in "ABCD":
        rows.append(f"| tier {letter} | {stats['tiers'][letter]}% | {REGISTRY_2026['tiers'][letter]}% |")
    for key, (_, _, label) in DIMENSIONS.items():
        mean, smell = stats["dimensions"][key]
        ref_mean, ref_smell = REGISTRY_2026["dimensions"][key]
        rows.append(f"| {label}: mean (smell rate) | {mean:.2f} ({smell}%) | {ref_mean:.2f} ({ref_smell}%) |")
    rows.append(f"| tools with a smell | {stats['with_smell']}% | {REGISTRY_2026['with_smell']}% |")
    for flag, share in REGISTRY_2026["flags"].items():
        rows.append(f"| flag {flag} | {stats['flags'].get(flag, 0.0)}% | {share}% |")
    labels = {
        "overall": "server overall",
        "description_quality": "server description quality",
        "coherence": "server coherence",
        **{k: f"coherence: {v}" for k, v in COHERENCE_DIMENSIONS.items()},
    }
    for key, label in labels.items():
        reference = REGISTRY_2026["servers"].get(key)
        shown = f"{reference:.2f}" if reference is not None else "not published"
        rows.append(f"| {label} (mean) | {stats['server_means'][key]:.2f} | {shown} |")
    return "\n".join(rows) + "\n"


def _ranks(values: list[float]) -> list[float]:
    """Ranks from 1, ties sharing their mean rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for position in range(start, end + 1):
            ranks[order[position]] = (start + end) / 2 + 1
        start = end + 1
    return ranks


def spearman(left: list[float], right: list[float]) -> float:
    """Spearman's rank correlation (Pearson's r of the tie-averaged ranks); 0 when either is constant."""
    a, b = _ranks(left), _ranks(right)
    mean_a, mean_b = _mean(a), _mean(b)
    covariance = sum((x - mean_a) * (y - mean_b) for x, y in zip(a, b, strict=True))
    spread = (sum((x - mean_a) ** 2 for x in a) * sum((y - mean_b) ** 2 for y in b)) ** 0.5
    return covariance / spread if spread else 0.0


def agreement(
    ours: list[int], theirs: list[int], *, ranks: Sequence[float] | None = None
) -> dict[str, float]:
    """Exact and within-one agreement, Spearman's ρ (of ``ranks`` when given) and mean bias of ours."""
    count = len(theirs)
    pairs = list(zip(ours, theirs, strict=True))
    return {
        "n": count,
        "exact": sum(1 for x, y in pairs if x == y) / count if count else 0.0,
        "within_one": sum(1 for x, y in pairs if abs(x - y) <= 1) / count if count else 0.0,
        "rho": spearman(list(ranks if ranks is not None else ours), list(theirs)),
        "bias": _mean([x - y for x, y in pairs]),
    }
