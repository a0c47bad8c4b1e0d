"""Property tests: no change against itself, none after cosmetic re-serialisation, and widening in
one direction is narrowing in the other."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from registry.diffing.diff import diff_snapshots
from tests.conftest import make_snapshot

NAMES = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=8)


@st.composite
def leaf(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["string", "integer", "number", "boolean"]))
    schema: dict[str, Any] = {"type": kind}
    if kind == "string":
        if draw(st.booleans()):
            schema["maxLength"] = draw(st.integers(1, 500))
        if draw(st.booleans()):
            schema["enum"] = draw(st.lists(NAMES, min_size=1, max_size=4, unique=True))
    if kind in ("integer", "number") and draw(st.booleans()):
        schema["maximum"] = draw(st.integers(1, 1000))
    if draw(st.booleans()):
        schema["description"] = draw(NAMES)
    return schema


def objects(children: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        props = draw(st.dictionaries(NAMES, children, min_size=1, max_size=4))
        required = [name for name in props if draw(st.booleans())]
        schema: dict[str, Any] = {"type": "object", "properties": props}
        if required:
            schema["required"] = required
        if draw(st.booleans()):
            schema["additionalProperties"] = False
        return schema

    return build()


SCHEMAS = objects(
    st.recursive(
        leaf(),
        lambda inner: st.one_of(
            objects(inner), st.builds(lambda items: {"type": "array", "items": items}, inner)
        ),
        max_leaves=6,
    )
)


def snapshot(input_schema: dict[str, Any], output_schema: dict[str, Any] | None = None) -> dict[str, Any]:
    tool: dict[str, Any] = {"name": "t", "description": "T.", "inputSchema": input_schema}
    if output_schema is not None:
        tool["outputSchema"] = output_schema
    return make_snapshot(tool, name="s")


def shuffled(value: Any, rng: random.Random) -> Any:
    """The same JSON with every object's keys and every `required`/`enum` list in another order."""
    if isinstance(value, dict):
        keys = list(value)
        rng.shuffle(keys)
        out = {}
        for key in keys:
            item = shuffled(value[key], rng)
            if key in ("required", "enum") and isinstance(item, list):
                item = rng.sample(item, len(item))
            out[key] = item
        return out
    if isinstance(value, list):
        return [shuffled(item, rng) for item in value]
    return value


@settings(max_examples=40, deadline=None)
@given(SCHEMAS, SCHEMAS)
def test_diff_of_a_snapshot_with_itself_is_empty(input_schema: dict, output_schema: dict) -> None:
    snap = snapshot(input_schema, output_schema)
    assert diff_snapshots(snap, copy.deepcopy(snap)) == []


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(SCHEMAS, SCHEMAS, st.randoms(use_true_random=False))
def test_reserialising_with_shuffled_keys_and_required_order_is_no_change(
    input_schema: dict, output_schema: dict, rng: random.Random
) -> None:
    snap = snapshot(input_schema, output_schema)
    assert diff_snapshots(snap, shuffled(snap, rng)) == []


def _leaves(schema: dict[str, Any], path: tuple = ()) -> list[tuple]:
    found = []
    for name, prop in schema.get("properties", {}).items():
        here = (*path, "properties", name)
        found.append(here)
        if prop.get("type") == "object":
            found += _leaves(prop, here)
    return found


def _widen(schema: dict[str, Any], path: tuple, how: str) -> dict[str, Any] | None:
    """A copy of ``schema`` that accepts strictly more at ``path``, or None if ``how`` does not apply."""
    wide = copy.deepcopy(schema)
    parent = wide
    for part in path[:-2]:
        parent = parent[part]
    name = path[-1]
    prop = parent["properties"][name]
    if how.startswith("relax-") and ("enum" in prop or "const" in prop):
        return None  # the listed values already sit within the bound: moving it widens nothing
    if how == "drop-required":
        if name not in parent.get("required", []):
            return None
        parent["required"] = [n for n in parent["required"] if n != name]
    elif how == "integer-to-number":
        if prop.get("type") != "integer":
            return None
        prop["type"] = "number"
    elif how == "relax-maximum":
        if "maximum" not in prop:
            return None
        prop["maximum"] += 10
    elif how == "relax-max-length":
        if "maxLength" not in prop:
            return None
        prop["maxLength"] += 10
    elif how == "add-enum-value":
        if "enum" not in prop:
            return None
        prop["enum"] = [*prop["enum"], "zz_new_value"]
    elif how == "nullable":
        if not isinstance(prop.get("type"), str):
            return None
        prop["type"] = [prop["type"], "null"]
        if "enum" in prop:  # an enum without null still rejects it
            prop["enum"] = [*prop["enum"], None]
    return wide


WIDENINGS = [
    "drop-required",
    "integer-to-number",
    "relax-maximum",
    "relax-max-length",
    "add-enum-value",
    "nullable",
]


def _levels(changes: list[dict[str, Any]]) -> set[str]:
    return {change["level"] for change in changes}


@pytest.mark.slow
@settings(max_examples=120, deadline=None)
@given(SCHEMAS, st.data())
def test_widening_an_input_is_narrowing_the_output_and_vice_versa(schema: dict, data: st.DataObject) -> None:
    path = data.draw(st.sampled_from(_leaves(schema)))
    how = data.draw(st.sampled_from(WIDENINGS))
    wide = _widen(schema, path, how)
    if wide is None:
        return
    base = {"type": "object"}
    # As an input schema: widening is safe for callers, narrowing back breaks them.
    assert "breaking" not in _levels(diff_snapshots(snapshot(schema), snapshot(wide)))
    assert "breaking" in _levels(diff_snapshots(snapshot(wide), snapshot(schema)))
    # As an output schema the roles swap: widening can break readers, narrowing cannot.
    widened_output = diff_snapshots(snapshot(base, schema), snapshot(base, wide))
    assert _levels(widened_output) & {"breaking", "warning"}
    assert "breaking" not in _levels(diff_snapshots(snapshot(base, wide), snapshot(base, schema)))
