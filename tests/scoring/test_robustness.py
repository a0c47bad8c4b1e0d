"""The scorer takes whatever a server sends: any JSON in any field scores, without raising, repeatably."""

from __future__ import annotations

import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import score_snapshot
from tests.conftest import make_snapshot

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
schema_like = st.fixed_dictionaries(
    {"type": st.sampled_from(["object", "string", "array", None])},
    optional={
        "properties": st.dictionaries(st.text(min_size=1, max_size=10), json_values, max_size=5),
        "required": st.lists(st.text(max_size=10) | st.integers(), max_size=4),
        "anyOf": st.lists(json_values, max_size=3),
        "$ref": st.sampled_from(["#/$defs/x", "#", "https://example.com/s.json", "#/properties/a"]),
    },
)
tools = st.fixed_dictionaries(
    {"name": st.text(max_size=30)},
    optional={
        "description": st.none() | st.text(max_size=300) | json_values,
        "title": st.none() | st.text(max_size=30),
        "inputSchema": schema_like | json_values,
        "outputSchema": schema_like | json_values,
        "annotations": st.none()
        | st.dictionaries(
            st.sampled_from(["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint", "title"]),
            json_values,
            max_size=4,
        ),
    },
)


def expected_tier(total: float) -> str:
    """The tier of a one-decimal total as the rubric states it: A >= 3.5, B >= 3.0, C >= 2.0, D >= 1.0."""
    return next(
        (letter for letter, floor in (("A", 3.5), ("B", 3.0), ("C", 2.0), ("D", 1.0)) if total >= floor), "F"
    )


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.lists(tools, max_size=5))
def test_any_definitions_score_without_raising_and_repeatably(definitions: list[dict]) -> None:
    snapshot = make_snapshot(*definitions, name="fuzz")
    first = score_snapshot(snapshot)
    assert len(first["tools"]) == len(definitions)
    for card in first["tools"]:
        assert card["tier"] == expected_tier(card["total"]) != "F"
        assert all(1 <= entry["score"] <= 5 for entry in card["dimensions"].values())
    assert score_snapshot(snapshot) == first


def test_scoring_imports_neither_mcp_nor_a_database() -> None:
    code = (
        "import sys, scoring, registry.commands.score\n"
        "scoring.score_snapshot({'tools': [{'name': 'get_x', 'description': 'Get x.'}]})\n"
        "bad = [m for m in ('mcp', 'sqlalchemy', 'psycopg', 'sqlite3') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
