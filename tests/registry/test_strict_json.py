"""The one walk over JSON values: what it refuses, where it says the fault is, and the read-side repairs."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from registry.core.strict_json import JSONValueError, check_json, finite_or_none, prune_depth

# JSON as Python's json module reads it: finite and non-finite floats, and text with lone surrogates
# (hypothesis leaves category Cs out of text unless asked).
texts = st.text(max_size=8) | st.text(st.characters(categories=["Cs", "Ll", "Nd"]), max_size=4)
values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | texts,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=30,
)


def depth_of(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max(map(depth_of, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(depth_of, value), default=0)
    return 0


def nested(levels: int) -> Any:
    value: Any = "leaf"
    for _ in range(levels):
        value = [value]
    return value


def writable(value: Any) -> bool:
    """Whether strict JSON and UTF-8 can carry ``value``: the oracle check_json is held to."""
    try:
        json.dumps(value, allow_nan=False, ensure_ascii=False).encode("utf-8")
    except (ValueError, UnicodeEncodeError):
        return False
    return True


@given(values)
def test_check_json_refuses_exactly_what_strict_json_and_utf8_cannot_carry(value: Any) -> None:
    try:
        check_json(value)
    except JSONValueError as refused:
        assert not writable(value)
        assert refused.code in ("unsupported_number", "invalid_unicode")
        refused.message.encode("utf-8")  # the message itself is always sendable
    else:
        assert writable(value)


@pytest.mark.parametrize(
    ("document", "code", "field"),
    [
        ({"a": [1, {"b": float("nan")}]}, "unsupported_number", "a/1/b"),
        ({"a": [float("-inf")]}, "unsupported_number", "a/0"),
        ({"tools": [{"description": "x\ud800"}]}, "invalid_unicode", "tools/0/description"),
        ({"properties": {"q\udfff": {}}}, "invalid_unicode", "properties/q\\udfff"),
        ({"deep": nested(10)}, "nesting_too_deep", "deep/0/0/0/0/0/0/0/0"),
    ],
)
def test_the_fault_is_named_by_its_path(document: Any, code: str, field: str) -> None:
    with pytest.raises(JSONValueError) as refused:
        check_json(document, max_depth=9)
    assert (refused.value.code, refused.value.field) == (code, field)


def test_depth_is_walked_without_recursion_and_long_paths_are_cut() -> None:
    with pytest.raises(JSONValueError) as refused:
        check_json(nested(100_000))
    assert refused.value.code == "nesting_too_deep" and len(refused.value.message) < 300
    check_json(nested(100_000), max_depth=None)


@given(values)
def test_prune_depth_bounds_nesting_and_keeps_shallow_documents_as_they_are(value: Any) -> None:
    pruned = prune_depth(value, 3)
    assert depth_of(pruned) <= 3
    if depth_of(value) <= 3:
        assert pruned is value


def test_prune_depth_cuts_a_document_too_deep_for_recursion() -> None:
    pruned = prune_depth({"keep": 1, "deep": nested(50_000)}, 5)
    assert pruned["keep"] == 1 and json.dumps(pruned).count("[") == 4


@given(values)
def test_finite_or_none_replaces_only_non_finite_numbers_and_keeps_order(value: Any) -> None:
    repaired = finite_or_none(value)
    json.dumps(repaired, allow_nan=False)

    def same(before: Any, after: Any) -> bool:
        if isinstance(before, float) and not math.isfinite(before):
            return after is None
        if isinstance(before, dict):
            return list(before) == list(after) and all(same(before[k], after[k]) for k in before)
        if isinstance(before, list):
            return len(before) == len(after) and all(map(same, before, after))
        return before is after or before == after

    assert same(value, repaired)
