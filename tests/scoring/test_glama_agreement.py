"""The scorer against the scores Glama published for 204 real tools (read at test time).

Targets per dimension: within ±1 on at least 90%, |mean bias| at most 0.3, and Spearman's ρ at least
0.55 and above description length's.
"""

from __future__ import annotations

import pytest

from scoring.calibration import markdown, report
from scoring.reference import CALIBRATION_DOC
from scoring.statistics import agreement, spearman


@pytest.fixture(scope="module")
def table(calibration_entries: list[dict]) -> dict:
    return report(calibration_entries)


@pytest.mark.parametrize("dimension", ["behavior", "conciseness", "completeness", "parameters"])
def test_agreement_within_one_and_bias(table: dict, dimension: str) -> None:
    ours = table[dimension]["scorer"]
    assert ours["within_one"] >= 0.90, ours
    assert abs(ours["bias"]) <= 0.3, ours


@pytest.mark.parametrize("dimension", ["behavior", "conciseness", "completeness", "parameters"])
def test_ranks_tools_better_than_length(table: dict, dimension: str) -> None:
    ours, length = table[dimension]["scorer"], table[dimension]["length"]
    assert ours["rho"] >= 0.55 and ours["rho"] > length["rho"], (ours, length)


def test_spearman_and_agreement_on_known_values() -> None:
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert spearman([1, 1, 2, 2], [1, 2, 1, 2]) == pytest.approx(0.0)
    figures = agreement([3, 4, 5], [3, 5, 3])
    assert figures["exact"] == pytest.approx(1 / 3) and figures["within_one"] == pytest.approx(2 / 3)
    assert figures["bias"] == pytest.approx(1 / 3)


def test_the_table_in_docs_scoring_md_is_the_current_one(table: dict) -> None:
    assert markdown(table).rstrip() in CALIBRATION_DOC, "paste the output of bench/calibration.py"
