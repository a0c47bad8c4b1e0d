"""Context signals, including the invocation cost of the required subtree (rubric §2 and §8)."""

from __future__ import annotations

from scoring.signals import context_signals, invocation_cost
from tests.scoring.conftest import make_tool


def flat(count: int) -> dict:
    return {
        "type": "object",
        "properties": {f"p{i}": {"type": "string"} for i in range(count)},
        "required": [f"p{i}" for i in range(count)],
    }


def test_eight_required_scalars_cost_8() -> None:
    assert invocation_cost(flat(8)) == {
        "requiredFieldCount": 8,
        "schemaDepth": 1,
        "unionChoiceCount": 0,
        "invocationCost": 8,
    }


def test_the_same_wrapped_in_one_required_object_cost_11() -> None:
    wrapped = {"type": "object", "properties": {"args": flat(8)}, "required": ["args"]}
    assert invocation_cost(wrapped)["invocationCost"] == 11


def test_four_required_scalars_cost_4() -> None:
    assert invocation_cost(flat(4))["invocationCost"] == 4


def test_nested_union_example_costs_13() -> None:
    branch = {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}
    inner = {
        "type": "object",
        "properties": {"choice": {}},
        "oneOf": [branch, {"type": "object"}, {"type": "object"}],
    }
    outer = {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "string"}, "c": inner},
        "required": ["a", "b", "c"],
    }
    schema = {"type": "object", "properties": {"query": outer}, "required": ["query"]}
    cost = invocation_cost(schema)
    assert (cost["requiredFieldCount"], cost["schemaDepth"], cost["unionChoiceCount"]) == (5, 3, 2)
    assert cost["invocationCost"] == 13


def test_nullable_idiom_is_not_a_union_and_refs_resolve() -> None:
    schema = {
        "type": "object",
        "$defs": {"Item": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}},
        "properties": {
            "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "item": {"$ref": "#/$defs/Item"},
        },
        "required": ["note", "item"],
    }
    cost = invocation_cost(schema)
    assert cost["unionChoiceCount"] == 0
    assert cost["requiredFieldCount"] == 3 and cost["schemaDepth"] == 2


def test_recursive_ref_stops() -> None:
    schema = {
        "type": "object",
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {"child": {"$ref": "#/$defs/Node"}},
                "required": ["child"],
            }
        },
        "properties": {"root": {"$ref": "#/$defs/Node"}},
        "required": ["root"],
    }
    assert invocation_cost(schema)["schemaDepth"] <= 11


def test_empty_schema_scores_zero() -> None:
    assert invocation_cost({})["invocationCost"] == 0
    assert invocation_cost({"type": "object"})["schemaDepth"] == 0


def test_update_drive_signals_match_the_spec() -> None:
    tool = make_tool(
        "update_drive",
        "Update shared drive settings including name, color, and restrictions.",
        {
            "driveId": {"type": "string", "description": "The ID of the shared drive."},
            "name": {"type": "string", "description": "The new name."},
            "colorRgb": {"type": "string"},
            "restrictions": {"type": "object"},
        },
        required=["driveId"],
    )
    signals = context_signals(tool)
    assert signals["paramCount"] == 4 and signals["requiredParamCount"] == 1
    assert signals["paramsWithDescriptions"] == 2 and signals["schemaDescriptionCoverage"] == 50
    assert signals["invocationCost"] == 1
    assert signals["hasAnnotations"] is False and signals["hasNestedObjects"] is True
    assert signals["annotationValues"] == {
        "readOnly": None,
        "destructive": None,
        "idempotent": None,
        "openWorld": None,
    }
    assert len(signals["inputHash"]) == 16
    assert signals["definitionBytes"] > 100


def test_coverage_is_100_with_no_params_and_title_meaningful() -> None:
    signals = context_signals(make_tool("ping", "Check the server answers.", title="Ping the server"))
    assert signals["schemaDescriptionCoverage"] == 100
    assert signals["titleIsMeaningful"] is True
    assert context_signals(make_tool("ping", "x", title="ping"))["titleIsMeaningful"] is False


def test_input_hash_ignores_siblings_and_key_order() -> None:
    tool = make_tool("a_tool", "Does a thing.", {"x": {"type": "string"}})
    reordered = dict(reversed(list(tool.items())))
    assert context_signals(tool)["inputHash"] == context_signals(reordered)["inputHash"]
