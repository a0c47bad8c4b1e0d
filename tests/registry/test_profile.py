"""The static memory profile: which knowledge-graph surface and read features a snapshot advertises."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest

from registry.core.profile import FEATURES, OFFICIAL_TOOLS, PROFILE_FORMAT, page_profile, static_profile
from registry.core.templating import render
from tests.conftest import make_snapshot

DOCS = Path(__file__).resolve().parents[2] / "docs" / "memory-profiles.md"


@pytest.fixture(scope="module")
def official_snapshot(npm_peer, tmp_path_factory) -> dict:
    """A real inspection of @modelcontextprotocol/server-memory."""
    from registry.inspecting.inspect import inspect
    from registry.inspecting.targets import Target

    store = tmp_path_factory.mktemp("official") / "memory.jsonl"
    target = Target(transport="stdio", argv=npm_peer("server-memory"), env={"MEMORY_FILE_PATH": str(store)})
    return inspect(target, timeout=30, protocol_era="legacy")


def features(profile: dict) -> dict[str, list[str]]:
    return {row["id"]: row["evidence"] for row in profile["features"] if row["server"]}


def _tool(name: str, properties: dict, *, required=(), output: dict | None = None, read_only=None) -> dict:
    tool = {
        "name": name,
        "inputSchema": {"type": "object", "properties": properties, "required": list(required)},
    }
    if output is not None:
        tool["outputSchema"] = output
    if read_only is not None:
        tool["annotations"] = {"readOnlyHint": read_only}
    return tool


INTEGER = {"type": "integer", "minimum": 0}
STRINGS = {"type": "array", "items": {"type": "string"}}
ENTITY_OUT = {
    "type": "object",
    "properties": {
        "entities": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "observationCount": INTEGER},
            },
        }
    },
}


def lightweight_snapshot(official: dict) -> dict:
    """The official listing plus the lightweight read options: observationLimit, entityTypes, limit."""
    snapshot = copy.deepcopy(official)
    for tool in snapshot["tools"]:
        if tool["name"] in ("read_graph", "search_nodes", "open_nodes"):
            tool["inputSchema"]["properties"]["observationLimit"] = INTEGER
            tool["outputSchema"] = ENTITY_OUT
        if tool["name"] == "read_graph":
            tool["inputSchema"]["properties"]["entityTypes"] = STRINGS
        if tool["name"] == "search_nodes":
            tool["inputSchema"]["properties"]["limit"] = {"type": "integer", "minimum": 1}
    return snapshot


def test_official_server_is_the_full_knowledge_graph_surface_without_read_features(official_snapshot):
    profile = static_profile(official_snapshot)
    assert profile["surface"] == "knowledge-graph"
    assert profile["officialToolCount"] == 9
    assert profile["officialTools"] == {name: name for name in OFFICIAL_TOOLS}
    assert profile["otherTools"] == []
    assert features(profile) == {}
    # The official column of the table is what the real official server shows.
    assert all(row["official"] == row["server"] for row in profile["features"])


def test_lightweight_read_options_are_recognised_with_their_evidence(official_snapshot):
    profile = static_profile(lightweight_snapshot(official_snapshot))
    found = features(profile)
    assert found["observation-limit"] == [
        "read_graph.observationLimit",
        "search_nodes.observationLimit",
        "open_nodes.observationLimit",
    ]
    assert found["observation-count"] == [
        f"{t} → observationCount" for t in ("read_graph", "search_nodes", "open_nodes")
    ]
    assert found["type-filter"] == ["read_graph.entityTypes"]
    assert found["result-limit"] == ["search_nodes.limit"]
    assert found["progressive-disclosure"] == ["search_nodes(observationLimit: 0) → open_nodes(names)"]
    assert "ranged-read" not in found and "depth-read" not in found


def test_write_tools_with_limits_are_not_read_features():
    snapshot = make_snapshot(
        _tool("create_entities", {"entities": STRINGS, "limit": INTEGER}),
        _tool("read_graph", {}),
        _tool("delete_entities", {"entityNames": STRINGS}),
    )
    assert features(static_profile(snapshot)) == {}


def test_ranged_and_match_scoped_reads_of_one_record_are_recognised():
    snapshot = make_snapshot(
        _tool("mem_search", {"query": {"type": "string"}, "limit": INTEGER}, read_only=True),
        _tool(
            "mem_get_observation",
            {
                "id": INTEGER,
                "offset": INTEGER,
                "limit": INTEGER,
                "find": {"type": "string"},
                "context": INTEGER,
            },
            required=["id"],
            read_only=True,
        ),
        _tool("mem_save", {"title": {"type": "string"}, "content": {"type": "string"}}),
        server={"name": "engram"},
    )
    profile = static_profile(snapshot)
    assert profile["surface"] == "memory"
    found = features(profile)
    assert found["ranged-read"] == ["mem_get_observation.offset+limit"]
    assert found["match-scoped-read"] == ["mem_get_observation.find+context"]
    # `limit` on the one-record read is its range length, not a search result limit.
    assert found["result-limit"] == ["mem_search.limit"]


def test_relation_depth_read_is_recognised_but_chronological_depth_is_not():
    snapshot = make_snapshot(
        _tool("build_context", {"url": {"type": "string"}, "depth": INTEGER, "page_size": INTEGER}),
        _tool("timeline", {"anchor": INTEGER, "depth_before": INTEGER, "depth_after": INTEGER}),
        server={"name": "basic-memory"},
    )
    assert features(static_profile(snapshot)) == {"depth-read": ["build_context.depth"]}


def test_search_index_then_details_by_ids_is_progressive_disclosure():
    snapshot = make_snapshot(
        _tool("search", {"query": {"type": "string"}, "limit": INTEGER, "type": {"type": "string"}}),
        _tool("get_observations", {"ids": {"type": "array", "items": INTEGER}}, required=["ids"]),
    )
    found = features(static_profile(snapshot))
    assert found["progressive-disclosure"] == ["search → get_observations(ids)"]
    assert found["type-filter"] == ["search.type"]
    assert found["result-limit"] == ["search.limit"]


def test_namespaced_and_camel_case_official_names_still_match(official_snapshot):
    snapshot = copy.deepcopy(official_snapshot)
    for tool in snapshot["tools"]:
        tool["name"] = "mcp__memory__" + tool["name"]
    snapshot["tools"][6]["name"] = "readGraph"
    profile = static_profile(snapshot)
    assert profile["surface"] == "knowledge-graph"
    assert profile["officialTools"]["read_graph"] == "readGraph"
    assert profile["officialTools"]["open_nodes"] == "mcp__memory__open_nodes"


def test_three_official_tools_make_a_partial_surface(official_snapshot):
    snapshot = make_snapshot(
        *(t for t in official_snapshot["tools"] if t["name"] in ("read_graph", "search_nodes", "open_nodes"))
    )
    profile = static_profile(snapshot)
    assert profile["surface"] == "knowledge-graph-partial"
    assert profile["officialTools"]["create_entities"] is None


def test_a_server_that_is_no_memory_server_has_no_profile(npm_peer, tmp_path):
    from registry.inspecting.inspect import inspect

    snapshot = inspect([*npm_peer("server-filesystem"), str(tmp_path)], timeout=30, protocol_era="legacy")
    assert len(snapshot["tools"]) >= 10
    assert static_profile(snapshot) is None
    assert page_profile(snapshot) is None


def test_page_profile_is_static_until_probed_then_the_stored_profile(official_snapshot):
    static_only = page_profile(official_snapshot)
    assert static_only["format"] == PROFILE_FORMAT
    assert static_only["server"] == {"name": "memory-server", "version": "0.6.3"}
    assert "conformance" not in static_only
    stored = {"format": PROFILE_FORMAT, "static": static_only["static"], "conformance": {}}
    assert page_profile(official_snapshot, stored) is stored


def test_page_partial_renders_the_feature_table_for_an_unprobed_server(official_snapshot):
    html = render("_memory_profile.html.j2", profile=page_profile(lightweight_snapshot(official_snapshot)))
    assert 'id="memory-profile"' in html
    assert "Not probed yet" in html
    for feature in FEATURES:
        assert feature.label in html
    assert "<code><bdi>read_graph.entityTypes</bdi></code>" in html
    assert "Conformance" not in html


def test_docs_list_every_feature_of_the_table():
    text = DOCS.read_text(encoding="utf-8")
    for feature in FEATURES:
        assert re.search(rf"\| {re.escape(feature.label)} \|", text), feature.label


def test_static_profile_is_pure_and_imports_no_mcp(python):
    import subprocess

    code = (
        "import sys, registry.core.profile; "
        "sys.exit(any(m == 'mcp' or m.startswith(('mcp.', 'sqlalchemy')) for m in sys.modules))"
    )
    assert subprocess.run([python, "-c", code], timeout=60).returncode == 0
