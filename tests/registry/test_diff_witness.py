"""Breaking means a call that worked now fails: each breaking change carries that call (its witness).

The classes here were met on real releases; each pair pins the rules reported, and every witness is
confirmed again with jsonschema against the schemas as written.
"""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema.validators import validator_for

from registry.diffing.diff import diff_snapshots
from registry.diffing.rules import rule
from tests.conftest import make_snapshot

STR: dict[str, Any] = {"type": "string"}
SAFE = 2**53 - 1


def obj(props: dict[str, Any], *required: str, **extra: Any) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": props, **extra}
    if required:
        schema["required"] = list(required)
    return schema


def snap(area: str, schema: Any, **tool: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"name": "t", "inputSchema": {"type": "object"}, **tool}
    if schema is None:
        base.pop(area, None)  # a tool without an input schema, as some servers list them
    else:
        base[area] = schema
    return make_snapshot(base, name="s", version="1")


def diff(area: str, old: Any, new: Any) -> list[dict[str, Any]]:
    changes = diff_snapshots(snap(area, old), snap(area, new))
    for change in changes:  # every witness holds against the schemas as written
        if change["witness"] is None:
            assert not (rule(change["rule"]).witness and change["level"] == "breaking"), change
            continue
        accepting, rejecting = (old, new) if area == "inputSchema" else (new, old)
        accepting = accepting or {"type": "object"}
        assert validator_for(accepting)(accepting).is_valid(change["witness"])
        assert not validator_for(rejecting)(rejecting).is_valid(change["witness"])
    return changes


def rules(changes: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(c["rule"], c["level"]) for c in changes]


IN, OUT = "inputSchema", "outputSchema"

CASES = [
    # additionalProperties {} or a schema → false closes the object
    (
        "ap-empty-closed",
        IN,
        obj({"q": STR}, additionalProperties={}),
        obj({"q": STR}, additionalProperties=False),
        [("input-additional-properties-closed", "breaking")],
    ),
    (
        "ap-schema-closed",
        IN,
        obj({"q": STR}, additionalProperties=STR),
        obj({"q": STR}, additionalProperties=False),
        [("input-additional-properties-closed", "breaking")],
    ),
    ("ap-empty-is-open", IN, obj({"q": STR}), obj({"q": STR}, additionalProperties={}), []),
    (
        "ap-schema-narrows",
        IN,
        obj({"q": STR}),
        obj({"q": STR}, additionalProperties=STR),
        [("input-type-narrowed", "breaking")],
    ),
    # a new count minimum (absent means 0) or maximum that rejects what passed is a tightening
    (
        "min-items-set",
        IN,
        obj({"a": {"type": "array"}}),
        obj({"a": {"type": "array", "minItems": 1}}),
        [("input-bound-tightened", "breaking")],
    ),
    (
        "min-length-set",
        IN,
        obj({"a": STR}),
        obj({"a": {"type": "string", "minLength": 2}}),
        [("input-bound-tightened", "breaking")],
    ),
    (
        "min-properties-set",
        IN,
        obj({"a": {"type": "object"}}),
        obj({"a": {"type": "object", "minProperties": 1}}),
        [("input-bound-tightened", "breaking")],
    ),
    (
        "max-length-set",
        IN,
        obj({"a": STR}),
        obj({"a": {"type": "string", "maxLength": 3}}),
        [("input-bound-tightened", "breaking")],
    ),
    (
        "max-items-set",
        IN,
        obj({"a": {"type": "array"}}),
        obj({"a": {"type": "array", "maxItems": 2}}),
        [("input-bound-tightened", "breaking")],
    ),
    (
        "maximum-set",
        IN,
        obj({"a": {"type": "integer"}}),
        obj({"a": {"type": "integer", "maximum": 10}}),
        [("input-bound-tightened", "breaking")],
    ),
    (
        "bound-within-enum",
        IN,
        obj({"a": {"type": "string", "enum": ["ab"]}}),
        obj({"a": {"type": "string", "enum": ["ab"], "maxLength": 5}}),
        [("input-bound-restated", "info")],
    ),
    (
        "output-max-removed",
        OUT,
        obj({"a": {"type": "string", "maxLength": 3}}),
        obj({"a": STR}),
        [("output-bound-removed", "breaking")],
    ),
    # JSON object keys are strings: this propertyNames rejects nothing
    ("property-names-string", IN, obj({"q": STR}), obj({"q": STR}, propertyNames={"type": "string"}), []),
    # an output content[] item that becomes anyOf [old branch, new closed branch] is one new alternative
    (
        "content-item-alternative",
        OUT,
        obj(
            {
                "content": {
                    "type": "array",
                    "items": obj({"type": {"const": "text"}, "text": STR}, "type", "text"),
                }
            }
        ),
        obj(
            {
                "content": {
                    "type": "array",
                    "items": {
                        "anyOf": [
                            obj({"type": {"const": "text"}, "text": STR}, "type", "text"),
                            obj(
                                {"type": {"const": "image"}, "data": STR},
                                "type",
                                "data",
                                additionalProperties=False,
                            ),
                        ]
                    },
                }
            }
        ),
        [("output-any-of-branch-added", "breaking")],
    ),
    # an old schema wrapped as anyOf [old, string] is a widening, not a composition added
    (
        "wrapped-in-any-of",
        IN,
        obj({"c": obj({"u": STR}, "u", additionalProperties=False)}),
        obj({"c": {"anyOf": [obj({"u": STR}, "u", additionalProperties=False), STR]}}),
        [("input-any-of-branch-added", "info")],
    ),
    (
        "wrapped-with-open-object",
        IN,
        obj({"c": obj({"u": STR}, "u", additionalProperties=False)}),
        obj({"c": {"anyOf": [{"type": "object"}, STR]}}),
        [("input-any-of-branch-added", "info"), ("input-any-of-branch-added", "info")],
    ),
    (
        "unwrapped-drops-alternative",
        IN,
        obj({"c": {"anyOf": [obj({"u": STR}), STR]}}),
        obj({"c": obj({"u": STR})}),
        [("input-any-of-branch-removed", "breaking")],
    ),
    (
        "output-wrapped",
        OUT,
        obj({"c": STR}),
        obj({"c": {"oneOf": [STR, {"type": "integer"}]}}),
        [("output-one-of-branch-added", "breaking")],
    ),
    (
        "one-of-overlap",
        IN,
        obj({"p": obj({"a": STR}, "a")}),
        obj({"p": {"oneOf": [obj({"a": STR}, "a"), obj({"b": STR}, "b")]}}),
        [("input-one-of-branch-overlaps", "breaking")],
    ),
    (
        "one-of-disjoint",
        IN,
        obj({"p": obj({"k": {"const": "a"}}, "k")}),
        obj({"p": {"oneOf": [obj({"k": {"const": "a"}}, "k"), obj({"k": {"const": "b"}}, "k")]}}),
        [("input-one-of-branch-added", "info")],
    ),
    # type lists and nullable forms by subsumption
    (
        "type-list-widened",
        IN,
        obj({"a": {"type": "boolean"}}),
        obj({"a": {"type": ["boolean", "string"]}}),
        [("input-type-widened", "info")],
    ),
    (
        "nullable-any-of-to-type-list",
        IN,
        obj({"a": {"anyOf": [STR, {"type": "null"}]}}),
        obj({"a": {"type": ["string", "null"]}}),
        [],
    ),
    (
        "not-nullable",
        IN,
        obj({"a": {"type": ["string", "null"]}}),
        obj({"a": STR}),
        [("input-became-not-nullable", "breaking")],
    ),
    # the input root names no type: arguments are always an object
    ("root-typed", IN, {"properties": {"q": STR}}, obj({"q": STR}), []),
    (
        "root-typed-and-required",
        IN,
        {"properties": {"q": STR}},
        obj({"q": STR}, "q"),
        [("input-property-became-required", "breaking")],
    ),
    # the same integer range, spelled two ways
    (
        "exclusive-min-zero",
        IN,
        obj({"n": {"type": "integer", "exclusiveMinimum": 0}}),
        obj({"n": {"type": "integer", "minimum": 1}}),
        [],
    ),
    (
        "exclusive-max-ten",
        IN,
        obj({"n": {"type": "integer", "exclusiveMaximum": 10}}),
        obj({"n": {"type": "integer", "maximum": 9}}),
        [],
    ),
    # generator stamps
    (
        "zod-safe-integer",
        IN,
        obj({"n": {"type": "integer", "minimum": 1}}),
        obj({"n": {"type": "integer", "minimum": 1, "maximum": SAFE}}),
        [],
    ),
    (
        "zod-safe-integer-both",
        IN,
        obj({"n": {"type": "integer"}}),
        obj({"n": {"type": "integer", "minimum": -SAFE, "maximum": SAFE}}),
        [],
    ),
    (
        "zero-minimums",
        IN,
        obj({"a": STR, "b": {"type": "array"}}),
        obj({"a": {"type": "string", "minLength": 0}, "b": {"type": "array", "minItems": 0}}),
        [],
    ),
    # declared at last: one change, not one per keyword
    (
        "declared",
        IN,
        {"$schema": "http://json-schema.org/draft-07/schema#"},
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            **obj({"a": STR, "b": STR}, "a", "b", additionalProperties=False),
        },
        [("input-schema-declared", "warning")],
    ),
    (
        "declared-from-invalid",
        IN,
        {"type": "object", "properties": {"a": {"type": "any"}}},
        obj({"a": STR}, "a"),
        [("input-schema-declared", "warning")],
    ),
    (
        "no-arguments-then-one-required",
        IN,
        {"type": "object", "properties": {}},
        obj({"a": STR}, "a"),
        [("input-required-property-added", "breaking")],
    ),
    (
        "first-optional-argument",
        IN,
        {"type": "object"},
        obj({"a": STR}),
        [("input-optional-property-added", "info")],
    ),
]


@pytest.mark.parametrize(
    ("area", "old", "new", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_schema_pair_reports_its_rules_each_breaking_one_with_a_confirmed_witness(
    area: str, old: Any, new: Any, expected: list[tuple[str, str]]
) -> None:
    changes = diff(area, old, new)
    assert rules(changes) == expected
    for change in changes:
        if change["level"] == "breaking":
            assert change["witness"] is not None
            sentence = "This call was valid before" if area == IN else "This result is allowed now"
            assert sentence in change["message"]


def test_declared_lists_the_required_properties_and_its_witness_omits_them() -> None:
    [change] = diff(IN, None, obj({"a": STR, "b": STR}, "a", "b", additionalProperties=False))
    assert change["rule"] == "input-schema-declared"
    assert "calls must send `a`, `b`" in change["message"]
    assert change["witness"] == {}


def test_a_title_is_judged_alike_in_annotations_and_at_the_top() -> None:
    base = {"name": "t", "inputSchema": {"type": "object"}}
    old = make_snapshot(base, name="s")
    top = diff_snapshots(old, make_snapshot({**base, "title": "Search"}, name="s"))
    annotated = diff_snapshots(old, make_snapshot({**base, "annotations": {"title": "Search"}}, name="s"))
    assert rules(top) == rules(annotated) == [("tool-title-added", "info")]
    assert annotated[0]["path"] == "/annotations/title"
    poisoned = {**base, "annotations": {"title": "Search <IMPORTANT>"}}
    poisoned_title = diff_snapshots(old, make_snapshot(poisoned, name="s"))
    assert rules(poisoned_title) == [("tool-title-poisoning", "lint")]


def test_values_are_shown_as_each_server_sent_them() -> None:
    sent = {"type": ["object", "null"], "properties": {"u": STR}}
    [added] = diff(OUT, obj({}), obj({"cover": sent}))
    assert added["after"] == sent
    [widened] = diff(OUT, obj({"a": {"type": "integer"}}), obj({"a": {"type": ["integer", "string"]}}))
    assert (widened["before"], widened["after"]) == ("integer", ["integer", "string"])
    ref = {"$defs": {"U": {"type": "string", "maxLength": 3}}, **obj({"u": {"$ref": "#/$defs/U"}})}
    [removed] = diff(OUT, ref, obj({}))
    assert removed["before"] == {"type": "string", "maxLength": 3}


def test_one_path_never_gets_contradictory_changes() -> None:
    old = obj({"cover": obj({"external": obj({"url": STR}, "url")}, "external", additionalProperties=False)})
    new = obj({"cover": {"anyOf": [old["properties"]["cover"], STR]}})
    changes = diff(IN, old, new)
    assert rules(changes) == [("input-any-of-branch-added", "info")]
    assert changes[0]["path"] == "/properties/cover/anyOf/1"


def test_the_policy_sets_the_level_of_a_declared_schema() -> None:
    from registry.gating.policy import evaluate

    draft_07 = {"$schema": "http://json-schema.org/draft-07/schema#"}
    declared = {**draft_07, **obj({"a": STR}, "a", additionalProperties=False)}
    old, new = snap(IN, draft_07), snap(IN, declared)
    assert evaluate(old, new)["passed"]
    report = evaluate(old, new, severity={"input-schema-declared": "breaking"})
    assert not report["passed"]
    [change] = report["changes"]
    assert (change["rule"], change["level"], change["witness"]) == ("input-schema-declared", "breaking", {})
