"""Fixtures for the scorer's tests: tool-definition builders and the rubric's calibration tools."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import make_snapshot

REPO_ROOT = Path(__file__).resolve().parents[2]


def make_tool(
    name: str,
    description: str | None,
    params: dict[str, dict[str, Any]] | None = None,
    *,
    required: list[str] | None = None,
    annotations: dict[str, Any] | None = None,
    output: dict[str, Any] | None = None,
    title: str | None = None,
) -> dict[str, Any]:
    """A tool definition as a server sends it on the wire."""
    tool: dict[str, Any] = {
        "name": name,
        "description": description,
        "inputSchema": {"type": "object", "properties": params or {}, "required": required or []},
    }
    if annotations is not None:
        tool["annotations"] = annotations
    if output is not None:
        tool["outputSchema"] = output
    if title is not None:
        tool["title"] = title
    return tool


def snapshot_of(*tools: dict[str, Any], name: str = "test-server") -> dict[str, Any]:
    return make_snapshot(*tools, name=name)


def scores_of(card: dict[str, Any]) -> dict[str, int]:
    return {key: entry["score"] for key, entry in card["dimensions"].items()}


@pytest.fixture
def memory_read() -> dict[str, Any]:
    """The seed's memory_read definition: its description, input and output schema and annotations."""
    return make_tool(
        "memory_read",
        "Read one memory note in full by permalink, id or exact title. It is the only tool that returns a "
        "note's body; depth 1 to 3 adds the notes linked to it, as digests. Use after memory_search or a "
        "claim's brief names the note; to find notes use memory_search. not_found if there is none.",
        {
            "name": {"type": "string", "description": "A permalink, an id, or an exact title."},
            "agent": {"type": "string", "description": "Your stable agent name."},
            "depth": {
                "type": "integer",
                "description": "How many relation hops of related notes to include, 0 to 3.",
            },
        },
        required=["name", "agent"],
        annotations={"readOnlyHint": True},
        output={
            "description": "Any result may also carry lost, inbox, inbox_more and persist_error; see guide.",
            "type": "object",
            "required": ["status"],
            "properties": {
                "message": {
                    "type": "string",
                    "description": "Human-readable detail, on most outcomes other than ok.",
                },
                "note": {"type": "object", "description": "The whole note, body included."},
                "related": {
                    "type": "array",
                    "items": {"type": "object"},
                    "description": "With depth above 0, at most 20 linked notes as digests.",
                },
                "status": {
                    "type": "string",
                    "enum": ["ok", "conflict", "not_found", "none", "invalid", "cancelled"],
                    "description": "ok. not_found: no such note. invalid: depth above 3.",
                },
            },
        },
    )


CALIBRATION = REPO_ROOT.parent / "shared" / "calibration" / "glama-dev.json"


@pytest.fixture(scope="session")
def calibration_entries() -> list[dict[str, Any]]:
    """Real tool definitions with the TDQS scores Glama published for them (read at test time)."""
    import json

    from tests.conftest import SHARED_DATA, require

    require(CALIBRATION.exists(), f"the calibration set is not at {CALIBRATION}", SHARED_DATA)
    return json.loads(CALIBRATION.read_text(encoding="utf-8"))
