"""The scorer against the scores Glama published for the calibration folder's real tools, and the sentence
model against the codebook's labels, cross-validated.

Every figure here is out of sample: servers are grouped by owner into five fixed folds, and each fold
is scored by the product's scorer running a sentence model and a dimension mapping refitted without
it (``scoring.training``). The project's own labels are read from the label sources' snapshots, which
``scripts/fetch-label-sources`` makes (``scripts/test`` runs it).

The targets, each a test; the ones not reached are expected failures that say by how much, so a change
that reaches one turns its test red until the mark is removed:
- per fitted dimension, within ±1 on at least 90% and |mean bias| at most 0.2;
- Spearman's ρ at least 0.55 (Conciseness 0.45) and 0.10 above description length's;
- sentence labels: micro-F1 at least 0.85, and F1 at least 0.75 on every label with 40 examples or more.
"""

from __future__ import annotations

import importlib.util
from typing import Any

import pytest

from scoring import training
from scoring.calibration import markdown
from scoring.reading import LABELS
from scoring.statistics import agreement, spearman
from tests.conftest import REPO, SHARED_DATA, require

pytestmark = pytest.mark.slow

_spec = importlib.util.spec_from_file_location("calibration_bench", REPO / "bench" / "calibration.py")
assert _spec and _spec.loader
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

DIMENSIONS = ["behavior", "conciseness", "completeness", "parameters"]
RHO_TARGET = {"behavior": 0.55, "conciseness": 0.45, "completeness": 0.55, "parameters": 0.55}
# What the scorer does not reach yet, with the figures of docs/calibration.md.
RHO_SHORT = {"conciseness": "ρ 0.30 against 0.45"}
LIFT_SHORT = {
    "behavior": "ρ 0.58 against length's 0.56: +0.02",
    "conciseness": "ρ 0.30 against length's 0.22: +0.08",
    "completeness": "ρ 0.62 against length's 0.54: +0.08",
}
LABELS_SHORT = (
    "micro-F1 0.73: a linear model of words and word pairs reads fewer sentences right than people do, and "
    "its learning curve gains about 0.03 a doubling of the labelled units (docs/calibration.md)"
)


def expected_to_miss(dimension: str, short: dict[str, str]) -> Any:
    marks = [pytest.mark.xfail(strict=True, reason=short[dimension])] if dimension in short else []
    return pytest.param(dimension, marks=marks)


@pytest.fixture(scope="module")
def corpora() -> tuple[training.Corpus, list[training.ScoredTool]]:
    require((training.SHARED / "calibration").exists(), "the calibration folder is missing", SHARED_DATA)
    corpus, tools = training.load_calibration(training.SHARED)
    own, missing = training.load_own_labels()
    require(
        not missing, f"the label sources are not fetched ({missing[:1]})", "run scripts/fetch-label-sources"
    )
    return corpus + own, tools


@pytest.fixture(scope="module")
def table(corpora: tuple[training.Corpus, list[training.ScoredTool]]) -> dict[str, Any]:
    return training.cross_validated_dimensions(*corpora)


@pytest.fixture(scope="module")
def labels(corpora: tuple[training.Corpus, list[training.ScoredTool]]) -> dict[str, Any]:
    return training.cross_validated_labels(corpora[0])


@pytest.mark.parametrize("dimension", DIMENSIONS)
def test_agreement_within_one_and_bias(table: dict[str, Any], dimension: str) -> None:
    ours = table[dimension]["scorer"]
    assert ours["within_one"] >= 0.90, ours
    assert abs(ours["bias"]) <= 0.2, ours


@pytest.mark.parametrize("dimension", [expected_to_miss(d, RHO_SHORT) for d in DIMENSIONS])
def test_rho_reaches_the_target(table: dict[str, Any], dimension: str) -> None:
    assert table[dimension]["scorer"]["rho"] >= RHO_TARGET[dimension], table[dimension]["scorer"]


@pytest.mark.parametrize("dimension", DIMENSIONS)
def test_ranks_tools_better_than_length(table: dict[str, Any], dimension: str) -> None:
    assert table[dimension]["scorer"]["rho"] > table[dimension]["length"]["rho"], table[dimension]


@pytest.mark.parametrize("dimension", [expected_to_miss(d, LIFT_SHORT) for d in DIMENSIONS])
def test_ranks_tools_a_tenth_better_than_length(table: dict[str, Any], dimension: str) -> None:
    ours, length = table[dimension]["scorer"]["rho"], table[dimension]["length"]["rho"]
    assert ours >= length + 0.10, (ours, length)


@pytest.mark.xfail(strict=True, reason=LABELS_SHORT)
def test_sentence_labels_reach_the_target(labels: dict[str, Any]) -> None:
    frequent = {label: row for label, row in labels["labels"].items() if row["n"] >= 40}
    assert labels["micro_f1"] >= 0.85 and all(row["f1"] >= 0.75 for row in frequent.values()), labels


def test_every_label_is_learned_better_than_chance(labels: dict[str, Any]) -> None:
    # A label of 30 examples or more that the model never predicts right is a broken feature or fold.
    assert set(labels["labels"]) == set(LABELS)
    assert all(row["f1"] > 0.3 for row in labels["labels"].values() if row["n"] >= 30), labels["labels"]


def test_the_tables_in_docs_are_the_current_ones(table: dict[str, Any], labels: dict[str, Any]) -> None:
    fix = "run: python bench/calibration.py --update-docs"
    assert bench.published("dimensions") == markdown(table), fix
    assert bench.published("labels") == bench.label_table(labels), fix


def test_the_shipped_model_is_the_refit_one(
    corpora: tuple[training.Corpus, list[training.ScoredTool]],
) -> None:
    assert training.main(["--check"]) == 0, "run: python -m scoring.training"


def test_spearman_and_agreement_on_known_values() -> None:
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert spearman([1, 1, 2, 2], [1, 2, 1, 2]) == pytest.approx(0.0)
    figures = agreement([3, 4, 5], [3, 5, 3])
    assert figures["exact"] == pytest.approx(1 / 3) and figures["within_one"] == pytest.approx(2 / 3)
    assert figures["bias"] == pytest.approx(1 / 3)
