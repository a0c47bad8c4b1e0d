"""The nine reference tools over a real MCP client session: names, schemas, annotations, semantics."""

from __future__ import annotations

import json

import anyio
import pytest

from server.models import BATCH_MAX, COUNT_MAX, NAME_MAX, QUERY_MAX
from tests.server.conftest import entity, relation, seed

pytestmark = pytest.mark.anyio

REFERENCE_TOOLS = {
    "create_entities": ("Create Entities", False, False, False),
    "create_relations": ("Create Relations", False, False, False),
    "add_observations": ("Add Observations", False, False, False),
    "delete_entities": ("Delete Entities", False, True, True),
    "delete_observations": ("Delete Observations", False, True, True),
    "delete_relations": ("Delete Relations", False, True, True),
    "read_graph": ("Read Graph", True, False, True),
    "search_nodes": ("Search Nodes", True, False, True),
    "open_nodes": ("Open Nodes", True, False, True),
}


async def test_lists_the_nine_reference_tools_with_their_titles_and_annotations(mem):
    tools = {t.name: t for t in (await mem.client.list_tools()).tools}
    assert set(REFERENCE_TOOLS) <= set(tools)
    for name, (title, read_only, destructive, idempotent) in REFERENCE_TOOLS.items():
        tool = tools[name]
        assert tool.title == title
        hints = tool.annotations
        assert (hints.read_only_hint, hints.destructive_hint, hints.idempotent_hint) == (
            read_only,
            destructive,
            idempotent,
        )
        assert hints.open_world_hint is False


async def test_every_tool_has_an_output_schema_and_annotations(mem):
    for tool in (await mem.client.list_tools()).tools:
        assert tool.output_schema and tool.output_schema["type"] == "object", tool.name
        assert tool.annotations is not None and tool.annotations.open_world_hint is False, tool.name
        assert "$defs" not in json.dumps(tool.input_schema), tool.name


async def test_reference_input_shapes_are_kept(mem):
    tools = {t.name: t.input_schema for t in (await mem.client.list_tools()).tools}
    assert tools["create_entities"]["required"] == ["entities"]
    item = tools["create_entities"]["properties"]["entities"]["items"]
    assert item["required"] == ["name", "entityType", "observations"]
    assert tools["create_relations"]["properties"]["relations"]["items"]["required"] == [
        "from",
        "to",
        "relationType",
    ]
    assert tools["add_observations"]["properties"]["observations"]["items"]["required"] == [
        "entityName",
        "contents",
    ]
    assert tools["delete_entities"]["required"] == ["entityNames"]
    assert tools["delete_observations"]["properties"]["deletions"]["items"]["required"] == [
        "entityName",
        "observations",
    ]
    assert tools["search_nodes"]["required"] == ["query"]
    assert tools["open_nodes"]["required"] == ["names"]
    assert "required" not in tools["read_graph"]


async def test_create_entities_skips_existing_names_and_in_batch_repeats(mem):
    first = await mem.ok("create_entities", entities=[entity("Alice", "person", "a")])
    assert first == {"entities": [entity("Alice", "person", "a")]}
    again = await mem.ok(
        "create_entities",
        entities=[entity("Alice", "robot", "b"), entity("Bob"), entity("Bob", "cat", "c")],
    )
    assert again == {"entities": [entity("Bob")]}
    graph = await mem.ok("read_graph")
    assert graph["entities"] == [entity("Alice", "person", "a"), entity("Bob")]


async def test_create_entities_keeps_observations_as_given(mem):
    created = await mem.ok("create_entities", entities=[entity("A", "t", "x", "x", "y")])
    assert created["entities"][0]["observations"] == ["x", "x", "y"]


async def test_entity_names_are_case_sensitive(mem):
    await mem.ok("create_entities", entities=[entity("alice"), entity("Alice")])
    assert [e["name"] for e in (await mem.ok("read_graph"))["entities"]] == ["alice", "Alice"]


async def test_create_relations_with_a_missing_endpoint_fails_and_writes_nothing(mem):
    await mem.ok("create_entities", entities=[entity("Alice"), entity("Bob")])
    message = await mem.error(
        "create_relations",
        relations=[relation("Alice", "Bob", "knows"), relation("Alice", "Nobody", "knows")],
    )
    assert "Entity with name Nobody not found" in message
    assert (await mem.ok("read_graph"))["relations"] == []


async def test_create_relations_skips_stored_and_in_batch_duplicates(mem):
    await mem.ok("create_entities", entities=[entity("Alice"), entity("Bob")])
    await mem.ok("create_relations", relations=[relation("Alice", "Bob", "knows")])
    created = await mem.ok(
        "create_relations",
        relations=[
            relation("Alice", "Bob", "knows"),
            relation("Bob", "Alice", "knows"),
            relation("Bob", "Alice", "knows"),
        ],
    )
    assert created == {"relations": [relation("Bob", "Alice", "knows")]}


async def test_add_observations_skips_contents_already_held(mem):
    await mem.ok("create_entities", entities=[entity("Alice", "person", "likes tea")])
    result = await mem.ok(
        "add_observations", observations=[{"entityName": "Alice", "contents": ["likes tea", "plays go"]}]
    )
    assert result == {"results": [{"entityName": "Alice", "addedObservations": ["plays go"]}]}
    assert (await mem.ok("open_nodes", names=["Alice"]))["entities"][0]["observations"] == [
        "likes tea",
        "plays go",
    ]


async def test_add_observations_for_an_unknown_entity_fails_and_writes_nothing(mem):
    await mem.ok("create_entities", entities=[entity("Alice")])
    message = await mem.error(
        "add_observations",
        observations=[
            {"entityName": "Alice", "contents": ["new fact"]},
            {"entityName": "Ghost", "contents": ["boo"]},
        ],
    )
    assert "Entity with name Ghost not found" in message
    assert (await mem.ok("open_nodes", names=["Alice"]))["entities"][0]["observations"] == []


async def test_delete_entities_cascades_to_relations_and_names_the_missing(mem):
    await seed(mem)
    result = await mem.ok("delete_entities", entityNames=["Bob", "Zed"])
    assert result == {"success": True, "message": "Deleted 1 of 2 entities. Not found: Zed."}
    graph = await mem.ok("read_graph")
    assert [e["name"] for e in graph["entities"]] == ["Alice", "Acme Corp"]
    assert graph["relations"] == [relation("Alice", "Acme Corp", "works_at")]


async def test_delete_observations_matches_exact_strings_and_reports_unknown_entities(mem):
    await seed(mem)
    result = await mem.ok(
        "delete_observations",
        deletions=[
            {"entityName": "Alice", "observations": ["likes tea", "LIKES TEA"]},
            {"entityName": "Ghost", "observations": ["x"]},
        ],
    )
    assert result["success"] is True
    assert result["message"] == "Deleted 1 of 3 observations. Entities not found: Ghost."
    alice = (await mem.ok("open_nodes", names=["Alice"]))["entities"][0]
    assert alice["observations"] == ["works at Acme Corp", "speaks Spanish"]


async def test_delete_relations_matches_the_exact_triple(mem):
    await seed(mem)
    result = await mem.ok(
        "delete_relations",
        relations=[relation("Alice", "Bob", "knows"), relation("Bob", "Alice", "knows")],
    )
    assert result["message"] == "Deleted 1 of 2 relations. The rest matched nothing."
    assert (await mem.ok("read_graph"))["relations"] == [relation("Alice", "Acme Corp", "works_at")]
    assert [e["name"] for e in (await mem.ok("read_graph"))["entities"]] == ["Alice", "Bob", "Acme Corp"]


async def test_delete_text_is_the_message(mem):
    await seed(mem)
    result = await mem.client.call_tool("delete_entities", {"entityNames": ["Bob"]})
    assert result.content[0].text == "Deleted 1 of 1 entities."


async def test_search_matches_name_type_and_observations_ignoring_case(mem):
    await seed(mem)
    for query, names in [
        ("ALICE", ["Alice"]),
        ("organiz", ["Acme Corp"]),
        ("CHESS", ["Bob"]),
        ("acme", ["Alice", "Acme Corp"]),
        ("nothing like this", []),
    ]:
        found = await mem.ok("search_nodes", query=query)
        assert [e["name"] for e in found["entities"]] == names, query


async def test_search_treats_the_query_as_one_phrase(mem):
    await seed(mem)
    assert (await mem.ok("search_nodes", query="tea likes"))["entities"] == []
    assert [e["name"] for e in (await mem.ok("search_nodes", query="likes tea"))["entities"]] == ["Alice"]


async def test_search_with_short_and_empty_queries(mem):
    await seed(mem)
    assert [e["name"] for e in (await mem.ok("search_nodes", query="b"))["entities"]] == ["Bob"]
    assert [e["name"] for e in (await mem.ok("search_nodes", query="19"))["entities"]] == ["Acme Corp"]
    everything = await mem.ok("search_nodes", query="")
    assert [e["name"] for e in everything["entities"]] == ["Alice", "Bob", "Acme Corp"]


@pytest.mark.parametrize("query", ['"', 'a "b', "*", "AND", "x OR y", "(", "NEAR(a b)", "^a", "%", "_"])
async def test_search_query_syntax_characters_are_literal(mem, query):
    await mem.ok("create_entities", entities=[entity("Odd", "thing", f"text with {query} inside")])
    found = await mem.ok("search_nodes", query=query)
    assert [e["name"] for e in found["entities"]] == ["Odd"]


async def test_search_and_open_return_relations_touching_either_endpoint(mem):
    await seed(mem)
    found = await mem.ok("search_nodes", query="chess")
    assert found["relations"] == [relation("Alice", "Bob", "knows")]
    opened = await mem.ok("open_nodes", names=["Acme Corp", "Nobody"])
    assert [e["name"] for e in opened["entities"]] == ["Acme Corp"]
    assert opened["relations"] == [relation("Alice", "Acme Corp", "works_at")]


async def test_open_nodes_returns_stored_order_not_request_order(mem):
    await seed(mem)
    opened = await mem.ok("open_nodes", names=["Acme Corp", "Alice"])
    assert [e["name"] for e in opened["entities"]] == ["Alice", "Acme Corp"]


async def test_unicode_names_and_observations_round_trip(mem):
    names = ["Zoë", "東京", "😊 smile", "e\u0301cole"]
    await mem.ok("create_entities", entities=[entity(n, "ünïcode", f"note on {n}") for n in names])
    graph = await mem.ok("read_graph")
    assert [e["name"] for e in graph["entities"]] == names
    assert [e["name"] for e in (await mem.ok("search_nodes", query="ZOË"))["entities"]] == ["Zoë"]
    assert [e["name"] for e in (await mem.ok("search_nodes", query="東京"))["entities"]] == ["東京"]


async def test_resource_holds_the_whole_graph(mem):
    await seed(mem)
    listed = (await mem.client.list_resources()).resources
    assert [(str(r.uri), r.name, r.mime_type) for r in listed] == [
        ("memory://knowledge-graph", "knowledge-graph", "application/json")
    ]
    contents = (await mem.client.read_resource("memory://knowledge-graph")).contents
    assert json.loads(contents[0].text) == await mem.ok("read_graph")


async def test_text_content_is_the_structured_result_as_compact_json(mem):
    await seed(mem)
    result = await mem.client.call_tool("read_graph", {})
    assert json.loads(result.content[0].text) == result.structured_content
    assert "\n" not in result.content[0].text


async def test_a_name_over_the_limit_is_refused_naming_the_field_and_limit(mem):
    message = await mem.error("create_entities", entities=[entity("x" * (NAME_MAX + 1))])
    assert "entities.0.name" in message and str(NAME_MAX) in message
    assert (await mem.ok("read_graph"))["entities"] == []


async def test_a_batch_over_the_limit_is_refused_naming_the_field_and_limit(mem):
    message = await mem.error("delete_entities", entityNames=[f"n{i}" for i in range(BATCH_MAX + 1)])
    assert "entityNames" in message and str(BATCH_MAX) in message


async def test_a_query_over_the_limit_is_refused(mem):
    message = await mem.error("search_nodes", query="q" * (QUERY_MAX + 1))
    assert "query" in message and str(QUERY_MAX) in message


async def test_every_count_and_position_is_bounded_before_it_reaches_sqlite(mem):
    await seed(mem)
    huge = 2**70
    for tool, arguments, field in (
        ("search_nodes", {"query": "a", "limit": huge}, "limit"),
        ("search_nodes", {"query": "a", "observationLimit": huge}, "observationLimit"),
        ("read_graph", {"observationLimit": huge}, "observationLimit"),
        ("open_nodes", {"names": ["Alice"], "observationLimit": huge}, "observationLimit"),
        ("read_observation", {"entityName": "Alice", "index": huge}, "index"),
        ("read_observation", {"entityName": "Alice", "index": 0, "offset": huge}, "offset"),
    ):
        message = await mem.error(tool, **arguments)
        assert field in message and str(COUNT_MAX) in message, message
    tools = {tool.name: tool.input_schema for tool in (await mem.client.list_tools()).tools}
    assert tools["search_nodes"]["properties"]["limit"]["maximum"] == COUNT_MAX


async def test_wrong_argument_types_are_refused_not_coerced(mem):
    message = await mem.error(
        "create_entities", entities=[{"name": 7, "entityType": "t", "observations": []}]
    )
    assert "entities.0.name" in message
    message = await mem.error("create_relations", relations=[{"from": "a", "to": "b"}])
    assert "relations.0.relationType" in message and "required" in message


async def test_a_modern_client_listening_on_the_graph_hears_each_write(store):
    from mcp import Client

    from server.app import build_server

    async with Client(build_server(store), mode="2026-07-28", cache=None) as client:
        async with client.listen(resource_subscriptions=["memory://knowledge-graph"]) as subscription:
            await client.call_tool("create_entities", {"entities": [entity("Alice")]})
            with anyio.fail_after(5):
                event = await subscription.__anext__()
        assert type(event).__name__ == "ResourceUpdated" and event.uri == "memory://knowledge-graph"
