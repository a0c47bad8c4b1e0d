"""The probe's checks fail where a server deviates: a knowledge-graph server with deliberate faults.

The faulty server runs in-process over a real MCP client session; each fault is one line of it,
and each must turn exactly its checks into failures while the rest still pass.
"""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client
from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from registry.probing.checks import CHECKS
from registry.probing.probe import run_probe
from tests.conftest import make_snapshot

pytestmark = pytest.mark.anyio

# fault → the checks it must fail
FAULTS = {
    # The probe's other search checks query in lower case too.
    "case-sensitive search": {
        "search-name-case-insensitive",
        "search-type-case-insensitive",
        "search-observation-case-insensitive",
        "search-returns-all-observations",
        "search-relations-either-endpoint",
    },
    "no cascade on delete": {"delete-entities-cascades"},
    "partial add_observations": {"add-observations-all-or-nothing"},
    "open_nodes keeps relations between opened entities only": {"open-nodes-relations-either-endpoint"},
    "observationLimit without observationCount or validation": {
        "observation-limit-read-graph",
        "observation-limit-zero",
        "observation-limit-search",
        "observation-limit-negative-rejected",
    },
    "ranges counted in UTF-8 bytes, unvalidated": {
        "range-counts-code-points",
        "range-reports-total-length",
        "range-negative-offset-rejected",
    },
    "neighbours as full entities, unbounded, depth ignored": {
        "depth-digests-are-short",
        "depth-related-at-most-20",
        "depth-two-hops",
        "depth-above-three-invalid",
    },
}


def faulty_server(*, related_as_names: bool = False) -> MCPServer:
    entities_store: list[dict[str, Any]] = []
    relations_store: list[dict[str, str]] = []
    server = MCPServer("faulty-memory", version="1.0.0")

    def find(name: str) -> dict[str, Any] | None:
        return next((e for e in entities_store if e["name"] == name), None)

    def capped(items: list[dict], limit: int | None) -> list[dict]:
        # Fault: truncates without saying how many observations there were.
        return [{**e, "observations": e["observations"][:limit]} if limit is not None else e for e in items]

    @server.tool()
    def create_entities(entities: list[dict]) -> dict:
        created = []
        for entity in entities:
            if find(entity["name"]) is None:
                record = {
                    "name": entity["name"],
                    "entityType": entity["entityType"],
                    "observations": list(entity.get("observations", [])),
                }
                created.append(record)
                entities_store.append(record)
        return {"entities": created}

    @server.tool()
    def create_relations(relations: list[dict]) -> dict:
        names = {e["name"] for e in entities_store}
        if any(r["from"] not in names or r["to"] not in names for r in relations):
            raise ToolError("Entity not found")
        new = [r for r in relations if r not in relations_store]
        relations_store.extend(new)
        return {"relations": new}

    @server.tool()
    def add_observations(observations: list[dict]) -> dict:
        results = []
        for item in observations:
            entity = find(item["entityName"])
            if entity is None:
                # Fault: the entries before the unknown one are already written.
                raise ToolError(f"Entity with name {item['entityName']} not found")
            added = [c for c in item["contents"] if c not in entity["observations"]]
            entity["observations"].extend(added)
            results.append({"entityName": item["entityName"], "addedObservations": added})
        return {"results": results}

    @server.tool()
    def delete_entities(entityNames: list[str]) -> dict:
        # Fault: relations of deleted entities stay behind.
        entities_store[:] = [e for e in entities_store if e["name"] not in entityNames]
        return {"success": True}

    @server.tool()
    def delete_observations(deletions: list[dict]) -> dict:
        for item in deletions:
            entity = find(item["entityName"])
            if entity:
                entity["observations"] = [o for o in entity["observations"] if o not in item["observations"]]
        return {"success": True}

    @server.tool()
    def delete_relations(relations: list[dict]) -> dict:
        relations_store[:] = [r for r in relations_store if r not in relations]
        return {"success": True}

    def touching(names: set[str]) -> list[dict]:
        return [r for r in relations_store if r["from"] in names or r["to"] in names]

    @server.tool()
    def read_graph(observationLimit: int | None = None) -> dict:
        return {"entities": capped(entities_store, observationLimit), "relations": list(relations_store)}

    @server.tool()
    def search_nodes(query: str, observationLimit: int | None = None) -> dict:
        # Fault: case-sensitive.
        hits = [
            e
            for e in entities_store
            if query in e["name"] or query in e["entityType"] or any(query in o for o in e["observations"])
        ]
        return {"entities": capped(hits, observationLimit), "relations": touching({e["name"] for e in hits})}

    @server.tool()
    def open_nodes(names: list[str]) -> dict:
        hits = [e for e in entities_store if e["name"] in names]
        # Fault: only relations with both endpoints among the opened entities.
        inside = [r for r in relations_store if r["from"] in names and r["to"] in names]
        return {"entities": hits, "relations": inside}

    @server.tool()
    def read_observation(entityName: str, index: int, offset: int = 0, limit: int = 2000) -> dict:
        text = find(entityName)["observations"][index].encode()
        # Fault: bytes, not code points.
        part = text[offset : offset + limit].decode(errors="replace")
        return {"content": part, "totalLength": len(text)}

    @server.tool()
    def read_neighborhood(name: str, depth: int = 1) -> dict:
        entity = find(name)
        if entity is None:
            return {"status": "not_found"}
        linked = {r["to"] for r in touching({name})} | {r["from"] for r in touching({name})}
        # Fault: full entities, however many.
        related = [e for e in entities_store if e["name"] in linked - {name}] if depth else []
        if related_as_names:
            related = [e["name"] for e in related]
        return {"status": "ok", "entity": entity, "related": related}

    return server


async def probe_in_process(server: MCPServer) -> dict:
    async with Client(server, mode="legacy", cache=None) as client:
        listed = (await client.list_tools()).tools
        tools = [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in listed]
        return await run_probe(client, make_snapshot(*tools, name="faulty-memory"), sizes=(5, 10))


async def test_each_fault_fails_exactly_its_checks():
    profile = await probe_in_process(faulty_server())
    # The check table's rows; the memory-operation checks run through the mapped tools too.
    outcomes = {
        row["id"]: row["outcome"] for row in profile["conformance"]["checks"] if row["group"] != "memory"
    }
    expected = set().union(*FAULTS.values())
    assert expected <= set(outcomes)
    assert {check_id for check_id, outcome in outcomes.items() if outcome == "fail"} == expected
    # Everything the faulty server offers and does right still passes.
    assert outcomes["create-skips-existing"] == outcomes["range-offset-past-end-empty"] == "pass"
    assert outcomes["find-windows-with-offsets"] == "n/a"
    assert len(outcomes) == len(CHECKS)


async def test_a_reply_of_an_unexpected_shape_fails_its_check_and_the_probe_goes_on():
    profile = await probe_in_process(faulty_server(related_as_names=True))
    by_id = {row["id"]: row for row in profile["conformance"]["checks"]}
    digest = by_id["depth-digests-are-short"]
    assert digest["outcome"] == "fail"
    assert digest["observed"].startswith("a reply of an unexpected shape (AttributeError")
    assert by_id["depth-unknown-name-not-found"]["outcome"] == "pass"
    assert profile["tokenCost"]["sizes"][1]["entities"] == 10
