"""Alternatives (``anyOf``/``oneOf``) are matched by what they accept, never by position.

Each pair is a small schema of the shape a real release sent: constants folded into an enum
beside a narrowed free string, an enum re-spelled as a union of constants, type lists written as
single-type branches, branches reordered around a null one. Every line the diff reports must be
true of the two schemas read by hand, and every pointer must name the branch as the server sent it.
"""

from __future__ import annotations

from typing import Any

from registry.diffing.diff import diff_snapshots
from tests.conftest import make_snapshot


def _prop(schema: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": {"p": schema}, "required": ["p"]}


def _lines(old: dict[str, Any], new: dict[str, Any], area: str = "inputSchema") -> list[str]:
    def snapshot(schema: dict[str, Any]) -> dict[str, Any]:
        tool = {"name": "t", "inputSchema": {"type": "object"}, area: schema}
        return make_snapshot(tool, name="s", version="1")

    changes = diff_snapshots(snapshot(_prop(old)), snapshot(_prop(new)))
    return [f"{c['level']} {c['rule']} {c['path']}" for c in changes if c["area"] == area]


def test_constants_folded_into_an_enum_beside_a_narrowed_string_is_one_narrowing() -> None:
    old = {"anyOf": [{"const": "a"}, {"const": "b"}, {"type": "string"}]}
    new = {"anyOf": [{"enum": ["a", "b"]}, {"type": "string", "pattern": "^\\d{4}"}]}
    # "a" and "b" are accepted by both; only the free string is narrowed, in the branch sent second
    assert _lines(old, new) == ["breaking input-pattern-added /properties/p/anyOf/1/pattern"]


def test_an_enum_respelled_as_a_union_of_constants_is_no_change() -> None:
    assert _lines({"type": "string", "enum": ["x", "y"]}, {"anyOf": [{"const": "x"}, {"const": "y"}]}) == []
    assert _lines({"oneOf": [{"const": "x"}, {"const": "y"}]}, {"enum": ["y", "x"]}) == []


def test_a_constant_added_to_a_union_is_one_value_added_at_its_branch() -> None:
    old = {"enum": ["x", "y"]}
    new = {"anyOf": [{"const": "x"}, {"const": "z"}, {"const": "y"}]}
    assert _lines(old, new) == ["info input-enum-value-added /properties/p/anyOf/1/const"]


def test_single_type_branches_and_a_type_list_are_the_same_set() -> None:
    assert _lines({"anyOf": [{"type": "string"}, {"type": "integer"}]}, {"type": ["integer", "string"]}) == []
    assert _lines({"type": ["integer", "string"]}, {"anyOf": [{"type": "integer"}, {"type": "string"}]}) == []


def test_a_type_dropped_from_single_type_branches_is_its_branch_removed_in_the_old_schema() -> None:
    lines = _lines({"anyOf": [{"type": "string"}, {"type": "integer"}]}, {"type": "string"})
    # the pointer names the old schema's branch: the new one has no anyOf at all
    assert lines == ["breaking input-any-of-branch-removed /properties/p/anyOf/1"]


def test_pointers_name_branches_as_sent_not_as_sorted() -> None:
    old = {"anyOf": [{"type": "string", "pattern": "^z"}, {"type": "integer"}, {"type": "null"}]}
    new = {"anyOf": [{"type": "null"}, {"type": "string", "pattern": "^x"}, {"type": "integer"}]}
    # normalised, the string branch sorts first and the null branch is dropped; as sent it is second
    assert _lines(old, new) == ["warning input-pattern-changed /properties/p/anyOf/1/pattern"]


def test_a_changed_structured_branch_pairs_with_the_branch_that_accepts_its_values() -> None:
    page = {"type": "object", "properties": {"page_id": {"type": "string"}}, "required": ["page_id"]}
    workspace = {"type": "object", "properties": {"workspace": {"const": True}}, "required": ["workspace"]}
    wider_page = {**page, "properties": {**page["properties"], "after": {"type": "string"}}}
    lines = _lines({"anyOf": [workspace, page]}, {"anyOf": [wider_page, workspace]})
    # the page branch moved from second to first and gained an optional property: nothing removed
    assert lines == ["info input-optional-property-added /properties/p/anyOf/0/properties/after"]


def test_a_bare_type_that_covers_a_structured_branch_keeps_its_values() -> None:
    page = {"type": "object", "properties": {"page_id": {"type": "string"}}, "required": ["page_id"]}
    lines = _lines(page, {"anyOf": [{"type": "object"}, {"type": "string"}]})
    assert lines == [
        "info input-any-of-branch-added /properties/p/anyOf/0",
        "info input-any-of-branch-added /properties/p/anyOf/1",
    ]
