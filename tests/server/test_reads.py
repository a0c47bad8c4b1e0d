"""The narrow reads over a real MCP session: lightweight options on the reference reads, ranged reads
of one observation, and depth reads around one entity."""

from __future__ import annotations

import pytest

from server.models import COUNT_MAX, EXCERPT_WIDTH, RELATED_MAX
from tests.server.conftest import entity, relation, seed

pytestmark = pytest.mark.anyio


@pytest.fixture
async def graph(mem):
    await seed(mem)
    return mem


# -- lightweight reads ----------------------------------------------------------------------------


async def test_read_graph_with_observation_limit_zero_gives_names_types_and_counts(graph):
    result = await graph.ok("read_graph", observationLimit=0)
    assert result["entities"] == [
        {"name": "Alice", "entityType": "person", "observations": [], "observationCount": 3},
        {"name": "Bob", "entityType": "person", "observations": [], "observationCount": 1},
        {"name": "Acme Corp", "entityType": "organization", "observations": [], "observationCount": 2},
    ]
    assert len(result["relations"]) == 2


async def test_observation_limit_keeps_the_first_observations_in_the_order_added(graph):
    opened = await graph.ok("open_nodes", names=["Alice"], observationLimit=2)
    assert opened["entities"] == [
        {
            "name": "Alice",
            "entityType": "person",
            "observations": ["works at Acme Corp", "likes tea"],
            "observationCount": 3,
        }
    ]
    wide = await graph.ok("open_nodes", names=["Bob"], observationLimit=5)
    assert wide["entities"][0]["observations"] == ["plays chess"]
    assert wide["entities"][0]["observationCount"] == 1


async def test_entity_types_keeps_those_types_and_the_relations_touching_them(graph):
    result = await graph.ok("read_graph", entityTypes=["organization"])
    assert result == {
        "entities": [entity("Acme Corp", "organization", "makes anvils", "founded 1920")],
        "relations": [relation("Alice", "Acme Corp", "works_at")],
    }
    combined = await graph.ok("read_graph", entityTypes=["organization"], observationLimit=0)
    assert combined["entities"][0]["observationCount"] == 2
    assert combined["relations"] == [relation("Alice", "Acme Corp", "works_at")]
    assert await graph.ok("read_graph", entityTypes=["Organization"]) == {"entities": [], "relations": []}


async def test_search_limit_keeps_the_first_matches_with_their_relations(graph):
    result = await graph.ok("search_nodes", query="acme", limit=1, observationLimit=1)
    assert result["entities"] == [
        {
            "name": "Alice",
            "entityType": "person",
            "observations": ["works at Acme Corp"],
            "observationCount": 3,
        }
    ]
    assert result["relations"] == [
        relation("Alice", "Bob", "knows"),
        relation("Alice", "Acme Corp", "works_at"),
    ]


async def test_without_options_the_reads_are_unchanged(graph):
    full = await graph.ok("read_graph")
    assert all("observationCount" not in e for e in full["entities"])
    assert full["entities"][0]["observations"] == ["works at Acme Corp", "likes tea", "speaks Spanish"]
    searched = await graph.ok("search_nodes", query="acme")
    assert [e["name"] for e in searched["entities"]] == ["Alice", "Acme Corp"]
    assert all("observationCount" not in e for e in searched["entities"])
    opened = await graph.ok("open_nodes", names=["Bob"])
    assert opened["entities"] == [entity("Bob", "person", "plays chess")]


@pytest.mark.parametrize(
    ("tool", "arguments", "field"),
    [
        ("search_nodes", {"query": "a", "limit": 0}, "limit"),
        ("search_nodes", {"query": "a", "limit": 1.5}, "limit"),
        ("search_nodes", {"query": "a", "limit": "2"}, "limit"),
        ("search_nodes", {"query": "a", "observationLimit": -1}, "observationLimit"),
        ("read_graph", {"observationLimit": True}, "observationLimit"),
        ("read_graph", {"observationLimit": 2.0}, "observationLimit"),
        ("read_graph", {"entityTypes": []}, "entityTypes"),
        ("read_graph", {"entityTypes": [3]}, "entityTypes.0"),
        ("open_nodes", {"names": ["Alice"], "observationLimit": "0"}, "observationLimit"),
    ],
)
async def test_invalid_read_options_are_refused_naming_the_field(graph, tool, arguments, field):
    message = await graph.error(tool, **arguments)
    assert f"{field}: " in message


async def test_search_limit_error_says_the_bound(graph):
    message = await graph.error("search_nodes", query="a", limit=0)
    assert "limit: Input should be greater than or equal to 1" in message


async def test_read_graph_description_steers_to_search_then_open(graph):
    tools = {t.name: t for t in (await graph.client.list_tools()).tools}
    description = tools["read_graph"].description
    assert "only when you need everything" in description
    assert description.index("search_nodes") < description.index("open_nodes")


async def test_read_options_are_optional_in_the_schemas(graph):
    tools = {t.name: t for t in (await graph.client.list_tools()).tools}
    read_graph = tools["read_graph"].input_schema
    assert read_graph["properties"]["observationLimit"] == {
        "type": "integer",
        "minimum": 0,
        "maximum": COUNT_MAX,
        "description": read_graph["properties"]["observationLimit"]["description"],
    }
    assert read_graph["properties"]["entityTypes"]["minItems"] == 1
    assert tools["search_nodes"].input_schema["properties"]["limit"]["minimum"] == 1
    assert tools["search_nodes"].input_schema["required"] == ["query"]
    entity_schema = tools["open_nodes"].output_schema["properties"]["entities"]["items"]
    assert "observationCount" in entity_schema["properties"]
    assert "observationCount" not in entity_schema["required"]


# -- ranged reads of one observation --------------------------------------------------------------


@pytest.fixture
async def document(mem):
    body = "xxTESTyyyyyTESTzz"
    await mem.ok(
        "create_entities",
        entities=[entity("Doc", "document", "short note", body, "aé😊z", "áéTEST", "a" * 5000)],
    )
    return mem


async def test_range_read_counts_code_points(document):
    part = await document.ok("read_observation", entityName="Doc", index=2, offset=1, limit=2)
    assert part == {"entityName": "Doc", "index": 2, "totalLength": 4, "offset": 1, "content": "é😊"}


async def test_range_read_defaults_to_the_first_2000_code_points(document):
    part = await document.ok("read_observation", entityName="Doc", index=4)
    assert part["totalLength"] == 5000 and part["offset"] == 0 and len(part["content"]) == 2000


async def test_range_read_past_the_end_is_empty(document):
    part = await document.ok("read_observation", entityName="Doc", index=0, offset=99)
    assert part["content"] == "" and part["totalLength"] == 10
    limited = await document.ok("read_observation", entityName="Doc", index=0, limit=0)
    assert limited["content"] == ""


async def test_find_returns_every_window_with_its_offset(document):
    part = await document.ok("read_observation", entityName="Doc", index=1, find="TEST", context=2)
    assert part["matchCount"] == 2
    assert part["windows"] == [{"offset": 0, "text": "xxTESTyy"}, {"offset": 9, "text": "yyTESTzz"}]


async def test_find_offsets_count_code_points(document):
    part = await document.ok("read_observation", entityName="Doc", index=3, find="TEST", context=0)
    assert part["windows"] == [{"offset": 2, "text": "TEST"}]


async def test_find_without_a_match_gives_zero_windows(document):
    part = await document.ok("read_observation", entityName="Doc", index=1, find="absent")
    assert part["matchCount"] == 0 and part["windows"] == []


async def test_range_and_find_are_mutually_exclusive(document):
    message = await document.error("read_observation", entityName="Doc", index=1, offset=0, find="TEST")
    assert "cannot be mixed" in message


async def test_context_requires_find(document):
    message = await document.error("read_observation", entityName="Doc", index=1, context=3)
    assert "context requires find" in message


async def test_ranged_read_of_unknown_entity_or_index_is_an_error(document):
    assert "Entity with name Nope not found" in await document.error(
        "read_observation", entityName="Nope", index=0
    )
    message = await document.error("read_observation", entityName="Doc", index=9)
    assert "index: 9" in message and "0 to 4" in message


async def test_negative_range_values_are_refused(document):
    message = await document.error("read_observation", entityName="Doc", index=1, offset=-1)
    assert "offset: " in message


# -- depth reads ----------------------------------------------------------------------------------


async def test_depth_read_returns_the_entity_and_linked_digests(graph):
    result = await graph.ok("read_neighborhood", name="Bob", depth=2)
    assert result["status"] == "ok"
    assert result["entity"] == entity("Bob", "person", "plays chess")
    assert [(d["name"], d["hops"]) for d in result["related"]] == [("Alice", 1), ("Acme Corp", 2)]
    alice = result["related"][0]
    assert alice == {
        "name": "Alice",
        "entityType": "person",
        "observationCount": 3,
        "excerpt": "works at Acme Corp; likes tea; speaks Spanish",
        "hops": 1,
    }
    assert result["relatedTotal"] == 2
    assert result["relations"] == [
        relation("Alice", "Bob", "knows"),
        relation("Alice", "Acme Corp", "works_at"),
    ]


async def test_depth_zero_returns_the_entity_alone(graph):
    result = await graph.ok("read_neighborhood", name="Alice", depth=0)
    assert result["related"] == [] and result["relatedTotal"] == 0 and result["relations"] == []


async def test_depth_one_stops_after_one_hop(graph):
    result = await graph.ok("read_neighborhood", name="Bob")
    assert [d["name"] for d in result["related"]] == ["Alice"]
    assert result["relations"] == [relation("Alice", "Bob", "knows")]


async def test_unknown_name_is_not_found(graph):
    result = await graph.ok("read_neighborhood", name="Nobody")
    assert result["status"] == "not_found" and "Nobody" in result["message"]


@pytest.mark.parametrize("depth", [-1, 4])
async def test_depth_outside_zero_to_three_is_invalid(graph, depth):
    result = await graph.ok("read_neighborhood", name="Alice", depth=depth)
    assert result["status"] == "invalid" and "depth" in result["message"]


async def test_depth_read_caps_related_digests_and_excerpts(mem):
    long_fact = "word " * 100
    hub = [entity("Hub", "place", "centre")]
    spokes = [entity(f"Spoke {i:02}", "place", long_fact) for i in range(30)]
    await mem.ok("create_entities", entities=hub + spokes)
    await mem.ok("create_relations", relations=[relation("Hub", s["name"], "links") for s in spokes])
    result = await mem.ok("read_neighborhood", name="Hub", depth=3)
    assert len(result["related"]) == RELATED_MAX and result["relatedTotal"] == 30
    assert [d["name"] for d in result["related"]] == [f"Spoke {i:02}" for i in range(RELATED_MAX)]
    assert all(len(d["excerpt"]) <= EXCERPT_WIDTH and d["excerpt"].endswith("…") for d in result["related"])
