"""The rule table is the single source: every rule is reachable by its example and documented."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema.validators import validator_for

from registry.diffing.diff import diff_snapshots
from registry.diffing.rules import (
    AREAS,
    CHANGE_LEVELS_BY_NAME,
    LINT,
    RULES,
    example_snapshots,
    rules_markdown,
)
from registry.gating.policy import evaluate

DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def test_rule_ids_are_unique_and_rows_are_well_formed() -> None:
    assert len({r.id for r in RULES}) == len(RULES)
    for r in RULES:
        assert (
            r.level in CHANGE_LEVELS_BY_NAME
            and r.area in AREAS
            and r.direction in ("request", "response", "none")
        )
        assert (r.level == LINT) == r.id.endswith("-poisoning"), r.id  # lints are the poisoning rules
        assert r.explanation.endswith(".") and r.message


def test_schema_rules_come_in_input_and_output_twins() -> None:
    # Property removal is judged by different facts per direction (closed object / was required);
    # an output schema that appears is `output-schema-added`, a tool-level rule.
    asymmetric = {
        "input-property-removed",
        "input-property-removed-from-closed-object",
        "input-schema-declared",
        "input-one-of-branch-overlaps",  # any output alternative added is output-one-of-branch-added
        "input-required-default-changed",  # a result's default is documentation, info either way
    }
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


@pytest.mark.parametrize("row", [r for r in RULES if r.witness], ids=lambda r: r.id)
def test_breaking_rule_example_carries_a_witness_jsonschema_confirms(row) -> None:
    """The witness is checked here again, with jsonschema, against the example's schemas as written."""
    old, new = example_snapshots(row)
    [change] = [c for c in diff_snapshots(old, new) if c["rule"] == row.id]
    witness = change["witness"]
    assert witness is not None, f"{row.id}: no witness for its example"
    schemas = [side["tools"][0].get(row.area) or {"type": "object"} for side in (old, new)]
    accepting, rejecting = schemas if row.witness == "call" else schemas[::-1]
    assert validator_for(accepting)(accepting).is_valid(witness)
    assert not validator_for(rejecting)(rejecting).is_valid(witness)
    assert json.dumps(witness, sort_keys=True, ensure_ascii=False) in change["message"]
    assert row.level == "breaking" or row.id == "input-schema-declared"


def test_every_breaking_schema_rule_has_a_witness_or_says_why_none_can_exist() -> None:
    for r in RULES:
        if r.level == "breaking" and r.area in ("inputSchema", "outputSchema"):
            assert bool(r.witness) != bool(r.no_witness), r.id
        if r.witness:
            assert r.witness == ("call" if r.area == "inputSchema" else "result"), r.id


def test_docs_show_each_example_witness() -> None:
    text = DOCS.read_text(encoding="utf-8")
    for r in RULES:
        section = text.split(f"### {r.id}\n", 1)[1].split("\n### ", 1)[0]
        if r.witness:
            assert "Witness: this " in section, r.id
        elif r.no_witness:
            assert f"No witness: {r.no_witness}" in section, r.id
