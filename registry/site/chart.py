"""The index's chart: servers per half-point of overall score, as SVG bar geometry."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypedDict

from scoring.arithmetic import TIERS, tier


class ChartBin(TypedDict):
    """One bar: the servers whose overall score is in [low, low + 0.5), and where it is drawn."""

    low: float
    count: int
    label: str
    tier: str
    x: int
    h: int
    y: int


def score_chart(overall_scores: Iterable[float | None]) -> dict[str, Any]:
    """Bars of servers per half-point of overall score (1.0–5.0), plus the unscored count."""
    counts = [0] * 8
    unscored = 0
    for score in overall_scores:
        if score is None:
            unscored += 1
            continue
        counts[min(max(int((score - 1.0) * 2), 0), len(counts) - 1)] += 1
    peak = max([*counts, 1])
    width, height, left, bottom, bar = 480, 216, 36, 44, 48  # room below for the axis label
    plot = height - bottom - 16
    bins: list[ChartBin] = []
    for index, count in enumerate(counts):
        low = 1.0 + index / 2
        drawn = round(plot * count / peak)
        bins.append(
            ChartBin(
                low=low,
                count=count,
                label=f"{low:.1f}",
                tier=tier(low),
                x=left + index * (bar + 6),
                h=drawn,
                y=height - bottom - drawn,
            )
        )
    return {
        "bins": bins,
        "unscored": unscored,
        "width": width,
        "height": height,
        "bar": bar,
        "left": left,
        "base": height - bottom,
        "total": sum(counts),
        # Every tier letter a score can get, with its floor: "A from 3.5, …, D from 1.0, F below".
        "tiers": ", ".join(f"{letter} from {floor / 10:.1f}" for letter, floor in TIERS) + ", F below",
    }
