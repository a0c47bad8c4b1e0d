"""Differential test: our server and the official npm server driven through one sequence of calls
over real stdio with the real MCP client, their structured results compared step by step.

Where the official server has a known bug, ours does what its maintainers converged on, and the
step names the expected difference:
- a relation to a missing entity is refused with "Entity with name X not found" (upstream #4477);
- an entity repeated inside one create_entities batch is stored once (upstream's later fix);
- delete tools say what they deleted and what they did not find ("Deleted 1 of 2 entities.
  Not found: X"), where the official server always says "... deleted successfully".
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from server.graph import GraphStore
from server.jsonl import export_jsonl
from tests.server.conftest import entity, relation

pytestmark = [pytest.mark.anyio, pytest.mark.peers, pytest.mark.slow]


# Steps both servers must answer identically (structured content and error flag).
SAME = [
    (
        "create_entities",
        {
            "entities": [
                entity("Alice", "person", "works at Acme", "likes tea"),
                entity("Bob", "person"),
                entity("東京", "city", "😊 emoji inside", "e\u0301cole with a combining accent"),
                entity("alice", "robot", "a different, lower-case name"),
            ]
        },
    ),
    ("create_entities", {"entities": [entity("Alice", "robot", "ignored: the name exists")]}),
    (
        "create_relations",
        {"relations": [relation("Alice", "Bob", "knows"), relation("Alice", "東京", "visited")]},
    ),
    (
        "create_relations",
        {"relations": [relation("Alice", "Bob", "knows"), relation("Bob", "Alice", "knows")]},
    ),
    ("add_observations", {"observations": [{"entityName": "Alice", "contents": ["likes tea", "plays go"]}]}),
    ("add_observations", {"observations": [{"entityName": "Bob", "contents": ["twice", "twice"]}]}),
    (
        "add_observations",
        {
            "observations": [
                {"entityName": "Bob", "contents": ["never written"]},
                {"entityName": "Ghost", "contents": ["boo"]},
            ]
        },
    ),
    ("search_nodes", {"query": "ALICE"}),
    ("search_nodes", {"query": "Person"}),
    ("search_nodes", {"query": "😊"}),
    ("search_nodes", {"query": "E\u0301COLE"}),
    ("search_nodes", {"query": "東京"}),
    ("search_nodes", {"query": "go"}),
    ("search_nodes", {"query": ""}),
    ("search_nodes", {"query": "no such text anywhere"}),
    ("open_nodes", {"names": ["東京", "Bob", "Ghost"]}),
    ("open_nodes", {"names": []}),
    ("read_graph", {}),
]

# Delete steps: the same effect and success flag; only the message differs (see the module doc).
DELETES = [
    ("delete_observations", {"deletions": [{"entityName": "Alice", "observations": ["likes tea", "nope"]}]}),
    ("delete_observations", {"deletions": [{"entityName": "Ghost", "observations": ["x"]}]}),
    ("delete_relations", {"relations": [relation("Bob", "Alice", "knows"), relation("Bob", "Nobody", "x")]}),
    ("delete_entities", {"entityNames": ["Bob", "Ghost"]}),
]


@pytest.fixture
async def both(npm_peer, tmp_path):
    """(ours, official, our db path, the official file) over stdio, each on a fresh graph."""
    from mcp import Client, StdioServerParameters

    official_file = tmp_path / "official.jsonl"
    command, *args = npm_peer("server-memory")
    official = StdioServerParameters(command=command, args=args, env={"MEMORY_FILE_PATH": str(official_file)})
    db = tmp_path / "ours.sqlite"
    ours = StdioServerParameters(command=sys.executable, args=["-m", "registry", "memory", "--db", str(db)])
    async with (
        Client(ours, mode="legacy", cache=None, read_timeout_seconds=60) as our_client,
        Client(official, mode="legacy", cache=None, read_timeout_seconds=60) as their_client,
    ):
        yield our_client, their_client, db, official_file


async def call_both(both, tool: str, arguments: dict):
    ours, theirs = both[0], both[1]
    return await ours.call_tool(tool, arguments), await theirs.call_tool(tool, arguments)


def text(result) -> str:
    return result.content[0].text


async def test_our_server_answers_like_the_official_server(both):
    ours, theirs, db, official_file = both

    # The same surface: tool names, input shapes, annotations, output schemas; the resource.
    our_tools = {t.name: t for t in (await ours.list_tools()).tools}
    their_tools = {t.name: t for t in (await theirs.list_tools()).tools}
    assert set(their_tools) <= set(our_tools)
    for name, theirs_tool in their_tools.items():
        mine = our_tools[name]
        assert mine.title == theirs_tool.title
        assert mine.annotations.model_dump(exclude={"title"}) == theirs_tool.annotations.model_dump(
            exclude={"title"}
        )
        assert set(mine.input_schema.get("properties", {})) >= set(
            theirs_tool.input_schema.get("properties", {})
        )
        assert mine.input_schema.get("required", []) == theirs_tool.input_schema.get("required", [])
        assert set(mine.output_schema["properties"]) == set(theirs_tool.output_schema["properties"])
    assert [str(r.uri) for r in (await ours.list_resources()).resources] == [
        str(r.uri) for r in (await theirs.list_resources()).resources
    ]
    # Both let a 2025-11-25 client subscribe to the graph resource.
    subscribe = [client.server_capabilities.resources.subscribe for client in (ours, theirs)]
    assert subscribe == [True, True]

    for tool, arguments in SAME:
        mine, official = await call_both(both, tool, arguments)
        assert mine.is_error == official.is_error, (tool, arguments, text(mine), text(official))
        if official.is_error:
            assert "Entity with name Ghost not found" in text(official)
            assert "Entity with name Ghost not found" in text(mine)
        else:
            assert mine.structured_content == official.structured_content, (tool, arguments)

    # Both wrote the same graph, so the files export to the same JSONL, byte for byte.
    exported = _export(db)
    assert exported.rstrip("\n") == official_file.read_text(encoding="utf-8").rstrip("\n")

    for tool, arguments in DELETES:
        mine, official = await call_both(both, tool, arguments)
        assert not mine.is_error and not official.is_error
        assert mine.structured_content["success"] == official.structured_content["success"] is True
        assert official.structured_content["message"].endswith("deleted successfully")
        assert mine.structured_content["message"].startswith("Deleted ")
        assert text(mine) == mine.structured_content["message"]
    assert (await ours.call_tool("read_graph", {})).structured_content == (
        await theirs.call_tool("read_graph", {})
    ).structured_content
    resources = [await client.read_resource("memory://knowledge-graph") for client in (ours, theirs)]
    assert json.loads(resources[0].contents[0].text) == json.loads(resources[1].contents[0].text)

    # Errors are errors on both sides: an unknown tool, arguments of the wrong type.
    for tool, arguments in [("no_such_tool", {}), ("create_entities", {"entities": "not a list"})]:
        mine, official = await call_both(both, tool, arguments)
        assert mine.is_error and official.is_error, (tool, text(mine), text(official))


async def test_where_the_official_server_has_known_bugs_ours_differs_as_documented(both):
    ours, theirs, _, _ = both
    setup = {"entities": [entity("Alice", "person", "likes tea")]}
    await call_both(both, "create_entities", setup)

    # A relation to a missing entity: the official server stores a dangling relation.
    dangling = {"relations": [relation("Alice", "Nobody", "knows")]}
    mine, official = await call_both(both, "create_relations", dangling)
    assert official.structured_content == dangling
    assert mine.is_error and "Entity with name Nobody not found" in text(mine)

    # An entity twice in one batch: the official server stores it twice.
    repeated = {"entities": [entity("Dup", "thing", "first"), entity("Dup", "thing", "second")]}
    mine, official = await call_both(both, "create_entities", repeated)
    assert official.structured_content == repeated
    assert mine.structured_content == {"entities": [entity("Dup", "thing", "first")]}

    # The lightweight reads are ours alone: the official server ignores the unknown argument.
    mine, official = await call_both(both, "read_graph", {"observationLimit": 0})
    assert official.structured_content["entities"][0]["observations"] == ["likes tea"]
    assert mine.structured_content["entities"][0] == {
        "name": "Alice",
        "entityType": "person",
        "observations": [],
        "observationCount": 1,
    }

    # Apart from those two bugs, the graphs agree.
    our_graph = (await ours.call_tool("read_graph", {})).structured_content
    their_graph = (await theirs.call_tool("read_graph", {})).structured_content
    their_entities = their_graph["entities"]
    assert their_entities[-1] == entity("Dup", "thing", "second")
    assert our_graph["entities"] == their_entities[:-1]
    assert their_graph["relations"] == dangling["relations"] and our_graph["relations"] == []


def _export(db: Path) -> str:
    import io

    graph = GraphStore(db)
    try:
        out = io.StringIO()
        export_jsonl(graph, out)
        return out.getvalue()
    finally:
        graph.close()
