"""The rule table is the single source: every rule is reachable by its example and documented."""

from __future__ import annotations

from pathlib import Path

import pytest

from registry.diff import diff_snapshots
from registry.gate import evaluate
from registry.rules import AREAS, LEVELS, RULES, example_snapshots, rules_markdown

DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def test_rule_ids_are_unique_and_rows_are_well_formed() -> None:
    assert len({r.id for r in RULES}) == len(RULES)
    for r in RULES:
        assert r.level in LEVELS and r.area in AREAS and r.direction in ("request", "response", "none")
        assert r.explanation.endswith(".") and r.message


def test_schema_rules_come_in_input_and_output_twins() -> None:
    # Property removal is judged by different facts per direction (closed object / was required).
    asymmetric = {"input-property-removed", "input-property-removed-from-closed-object"}
    ids = {r.id for r in RULES}
    for r in RULES:
        if r.id.startswith("input-") and r.id not in asymmetric:
            assert "output-" + r.id.removeprefix("input-") in ids


@pytest.mark.parametrize(
    "row", [r for r in RULES if r.area not in ("version", "quality")], ids=lambda r: r.id
)
def test_rule_example_produces_exactly_that_rule(row) -> None:
    changes = diff_snapshots(*example_snapshots(row))
    assert [(c["rule"], c["level"]) for c in changes] == [(row.id, row.level)]


def test_version_rule_example_is_reported_by_the_gate() -> None:
    [row] = [r for r in RULES if r.area == "version"]
    report = evaluate(*example_snapshots(row))
    assert row.id in [c["rule"] for c in report["changes"]]


@pytest.mark.parametrize("row", [r for r in RULES if r.area == "quality"], ids=lambda r: r.id)
def test_quality_rule_example_is_reported_by_the_scoring_gate(row) -> None:
    old, new = example_snapshots(row)
    assert row.id not in [c["rule"] for c in evaluate(old, new)["changes"]]
    reported = [(c["rule"], c["level"]) for c in evaluate(old, new, quality=True)["changes"]]
    assert (row.id, row.level) in reported


def test_committed_docs_match_the_table() -> None:
    generated = rules_markdown()
    assert DOCS.read_text(encoding="utf-8") == generated, "run `mcpdex rules --write docs/rules.md`"
    for r in RULES:
        assert f"### {r.id}\n" in generated
