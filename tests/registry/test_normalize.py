"""Normalisation: the forms different SDKs write for one contract all become one form."""

from __future__ import annotations

from common.canonical import canonical_json
from registry.diffing.normalize import (
    ANNOTATION_DEFAULTS,
    normalize_annotations,
    normalize_schema,
    normalize_tool,
    origin,
    pydantic_titles,
    schema_dialect,
)


def test_required_enum_and_type_lists_are_sorted_and_deduplicated() -> None:
    schema = {"type": ["string", "integer"], "enum": ["b", "a", "b"], "required": ["z", "a", "z"]}
    assert normalize_schema(schema) == {
        "type": ["integer", "string"],
        "enum": ["a", "b"],
        "required": ["a", "z"],
    }


def test_single_type_list_collapses() -> None:
    assert normalize_schema({"type": ["string"]}) == {"type": "string"}


def test_integral_floats_become_ints_but_booleans_stay() -> None:
    assert normalize_schema({"maximum": 100.0, "minimum": 0.5, "const": True}) == {
        "maximum": 100,
        "minimum": 0.5,
        "const": True,
    }


def test_three_nullable_spellings_become_one() -> None:
    expected = {"type": "string", "nullable": True}
    assert normalize_schema({"type": ["string", "null"]}) == expected
    assert normalize_schema({"anyOf": [{"type": "string"}, {"type": "null"}]}) == expected
    assert normalize_schema({"oneOf": [{"type": "null"}, {"type": "string"}]}) == expected
    assert normalize_schema({"type": "string", "nullable": True}) == expected


def test_nullable_with_several_alternatives_keeps_the_composition() -> None:
    schema = {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]}
    assert normalize_schema(schema) == {"anyOf": [{"type": "integer"}, {"type": "string"}], "nullable": True}


def test_local_refs_are_inlined_and_defs_dropped() -> None:
    schema = {
        "type": "object",
        "properties": {"p": {"$ref": "#/$defs/P"}},
        "$defs": {"P": {"type": "object", "title": "P", "properties": {"x": {"type": "integer"}}}},
    }
    assert normalize_schema(schema) == {
        "type": "object",
        "properties": {"p": {"type": "object", "properties": {"x": {"type": "integer"}}}},
    }


def test_draft07_definitions_refs_are_inlined() -> None:
    schema = {"properties": {"p": {"$ref": "#/definitions/P"}}, "definitions": {"P": {"type": "string"}}}
    assert normalize_schema(schema) == {"properties": {"p": {"type": "string"}}}


def test_ref_siblings_that_document_are_merged() -> None:
    schema = {
        "properties": {"p": {"$ref": "#/$defs/P", "description": "The p."}},
        "$defs": {"P": {"type": "string"}},
    }
    assert normalize_schema(schema) == {"properties": {"p": {"type": "string", "description": "The p."}}}


def test_recursive_refs_terminate_and_keep_the_pointer_at_the_cycle() -> None:
    schema = {
        "$ref": "#/$defs/Node",
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
            }
        },
    }
    result = normalize_schema(schema)
    assert result["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}


def test_mutually_recursive_refs_terminate() -> None:
    schema = {
        "properties": {"a": {"$ref": "#/$defs/A"}},
        "$defs": {
            "A": {"properties": {"b": {"$ref": "#/$defs/B"}}},
            "B": {"properties": {"a": {"$ref": "#/$defs/A"}}},
        },
    }
    result = normalize_schema(schema)
    assert result["properties"]["a"]["properties"]["b"]["properties"]["a"] == {"$ref": "#/$defs/A"}


def test_remote_refs_are_never_fetched_and_stay_as_they_are() -> None:
    schema = {"properties": {"p": {"$ref": "https://example.test/p.json"}}}
    assert normalize_schema(schema) == schema


def test_dialect_is_recorded_then_stripped() -> None:
    schema = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}
    assert schema_dialect(schema) == "http://json-schema.org/draft-07/schema#"
    assert normalize_schema(schema) == {"type": "object"}


def test_pydantic_generated_titles_are_dropped_and_real_ones_kept() -> None:
    assert {"Source Timezone"} <= pydantic_titles("source_timezone")
    schema = {
        "title": "convert_timeArguments",
        "type": "object",
        "properties": {
            "source_timezone": {"type": "string", "title": "Source Timezone"},
            "time": {"type": "string", "title": "Wall-clock time"},
        },
    }
    tool = normalize_tool({"name": "convert_time", "inputSchema": schema})
    assert tool["inputSchema"] == {
        "type": "object",
        "properties": {
            "source_timezone": {"type": "string"},
            "time": {"type": "string", "title": "Wall-clock time"},
        },
    }


def test_defaults_equal_to_absence_are_dropped() -> None:
    schema = {
        "type": "object",
        "additionalProperties": True,
        "properties": {},
        "required": [],
        "uniqueItems": False,
    }
    assert normalize_schema(schema) == {"type": "object"}


def test_boolean_subschemas_become_objects() -> None:
    assert normalize_schema({"properties": {"a": True, "b": False}}) == {
        "properties": {"a": {}, "b": {"not": {}}}
    }


def test_composition_branches_are_sorted() -> None:
    one = normalize_schema({"anyOf": [{"type": "string"}, {"type": "integer"}]})
    two = normalize_schema({"anyOf": [{"type": "integer"}, {"type": "string"}]})
    assert one == two


def test_annotation_defaults_fill_absent_hints() -> None:
    assert normalize_annotations(None) == ANNOTATION_DEFAULTS
    assert normalize_annotations({"readOnlyHint": True, "title": "T"}) == {
        **ANNOTATION_DEFAULTS,
        "readOnlyHint": True,
        "title": "T",
    }


def test_typescript_and_pydantic_serialisations_of_one_tool_normalise_equal() -> None:
    typescript = {
        "name": "search",
        "description": "Find.",
        "inputSchema": {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"limit": {"type": ["integer", "null"], "maximum": 100}, "q": {"type": "string"}},
            "required": ["q"],
        },
    }
    pydantic = {
        "name": "search",
        "description": "Find.",
        "inputSchema": {
            "title": "searchArguments",
            "type": "object",
            "required": ["q"],
            "properties": {
                "q": {"title": "Q", "type": "string"},
                "limit": {
                    "anyOf": [{"type": "integer", "maximum": 100.0}, {"type": "null"}],
                    "title": "Limit",
                },
            },
        },
    }
    ts, py = normalize_tool(typescript), normalize_tool(pydantic)
    assert ts["inputSchema"] == py["inputSchema"]
    assert ts["dialects"] != py["dialects"]
    assert canonical_json(ts["inputSchema"]) == canonical_json(py["inputSchema"])


def test_inputs_are_not_modified() -> None:
    schema = {
        "type": ["string", "null"],
        "$defs": {"X": {"type": "string"}},
        "properties": {"a": {"$ref": "#/$defs/X"}},
    }
    before = repr(schema)
    normalize_schema(schema)
    assert repr(schema) == before


def test_generator_stamps_are_dropped() -> None:
    safe = 2**53 - 1
    # zod 4 stamps JavaScript's safe-integer range on every integer
    assert normalize_schema({"type": "integer", "minimum": -safe, "maximum": safe}) == {"type": "integer"}
    assert normalize_schema({"type": "number", "maximum": 1.7976931348623157e308}) == {"type": "number"}
    assert normalize_schema({"type": "integer", "minimum": 1, "maximum": safe}) == {
        "type": "integer",
        "minimum": 1,
    }
    # values equal to their absence
    assert normalize_schema(
        {
            "type": "object",
            "additionalProperties": {},
            "propertyNames": {"type": "string"},
            "minProperties": 0,
        }
    ) == {"type": "object"}
    assert normalize_schema({"type": "string", "minLength": 0}) == {"type": "string"}
    assert normalize_schema({"type": "array", "minItems": 0}) == {"type": "array"}


def test_integer_exclusive_bounds_are_written_inclusive() -> None:
    assert normalize_schema({"type": "integer", "exclusiveMinimum": 0}) == {"type": "integer", "minimum": 1}
    assert normalize_schema({"type": "integer", "exclusiveMaximum": 10, "maximum": 20}) == {
        "type": "integer",
        "maximum": 9,
    }
    assert normalize_schema({"type": "integer", "minimum": 0.5}) == {"type": "integer", "minimum": 1}
    # a number's exclusive bound is another range: kept as written
    assert normalize_schema({"type": "number", "exclusiveMinimum": 0}) == {
        "type": "number",
        "exclusiveMinimum": 0,
    }


def test_repeated_any_of_branches_are_one_but_one_of_keeps_them() -> None:
    string = {"type": "string"}
    assert normalize_schema({"anyOf": [string, string, {"type": "object"}]}) == {
        "anyOf": [{"type": "object"}, string]
    }
    assert normalize_schema({"oneOf": [string, string]}) == {"oneOf": [string, string]}


def test_an_input_root_without_a_type_is_an_object_and_keeps_its_origin() -> None:
    sent = {"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"q": {"type": "string"}}}
    tool = normalize_tool({"name": "t", "inputSchema": sent})
    assert tool["inputSchema"] == {"type": "object", "properties": {"q": {"type": "string"}}}
    assert origin(tool["origins"], tool["inputSchema"]) is sent
    assert tool["sent"]["inputSchema"] is sent
