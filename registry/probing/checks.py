"""The memory probe's conformance checks: each one a scenario run through the session, passing,
failing with what was observed and expected, or not applying to the server.

This is the check table (about 60 checks, one short function each), kept in one module so the
table reads top to bottom; that is why it is over 600 lines.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from registry.core.profile import FEATURES_BY_ID, has_feature
from registry.probing.fixtures import (
    PREFIX,
)
from registry.probing.session import Reply, Session


@dataclass
class Outcome:
    outcome: str  # "pass" | "fail" | "n/a"
    observed: Any = None
    expected: Any = None
    note: str = ""


def expect(observed: Any, expected: Any) -> Outcome:
    return Outcome("pass" if observed == expected else "fail", observed, expected)


def not_applicable(why: str) -> Outcome:
    return Outcome("n/a", note=why)


class Ctx:
    """What a check works with: its own namespace of entity names, and the session."""

    def __init__(
        self, session: Session, number: int, static: dict[str, Any], tools: dict[str, dict[str, Any]]
    ) -> None:
        self.session = session
        self.ns = f"{PREFIX}{number:02d}_"
        self.static = static
        self.tools = tools
        self.names: set[str] = set()

    def n(self, short: str) -> str:
        self.names.add(self.ns + short)
        return self.ns + short

    def short(self, name: Any) -> Any:
        return name[len(self.ns) :] if isinstance(name, str) and name.startswith(self.ns) else name

    async def call(self, tool: str, arguments: dict[str, Any]) -> Reply:
        return await self.session.call(tool, arguments)

    async def create(self, *specs: tuple[str, str, Sequence[str]]) -> Reply:
        entities = [{"name": self.n(s), "entityType": t, "observations": list(o)} for s, t, o in specs]
        return await self.call("create_entities", {"entities": entities})

    async def relate(self, *specs: tuple[str, str, str]) -> Reply:
        relations = [{"from": self.n(a), "to": self.n(b), "relationType": t} for a, b, t in specs]
        return await self.call("create_relations", {"relations": relations})

    def mine(self, reply: Reply) -> list[dict[str, Any]]:
        return [e for e in reply.entities() if str(e.get("name", "")).startswith(self.ns)]

    def names_of(self, reply: Reply) -> list[str]:
        return [self.short(e.get("name")) for e in self.mine(reply)]

    def rels(self, reply: Reply) -> list[str]:
        """Relations touching this namespace as sorted ``from→to:type`` strings."""
        out = []
        for r in reply.relations():
            ends = (str(r.get("from", "")), str(r.get("to", "")))
            if any(end.startswith(self.ns) for end in ends):
                out.append(f"{self.short(ends[0])}→{self.short(ends[1])}:{r.get('relationType')}")
        return sorted(out)

    def observations(self, reply: Reply) -> dict[str, Any]:
        return {self.short(e.get("name")): e.get("observations") for e in self.mine(reply)}

    async def graph(self) -> Reply:
        return await self.call("read_graph", {})


def _error(reply: Reply) -> str:
    return "error" if not reply.ok else "ok"


CheckFn = Callable[[Ctx], Awaitable[Outcome]]


@dataclass(frozen=True)
class Check:
    """One row of the conformance table."""

    id: str
    group: str  # "official" | "upstream-fix" | "lightweight-read"
    title: str
    tools: tuple[str, ...]
    options: tuple[tuple[str, str], ...]  # (tool, input property) the check needs advertised
    feature: str | None  # a static-profile feature the check needs (ranged and depth reads)
    run: CheckFn = field(repr=False)


CHECKS: list[Check] = []
# Groups whose checks go beyond what the official release does: counted apart, never as its failures.
BEYOND_UPSTREAM = ("upstream-fix",)
GROUPS = {
    "official": "Official semantics (pinned by the official server's upstream tests)",
    "upstream-fix": "Beyond upstream: bugs fixed upstream after 2026.8.31 (merged pull requests)",
    "memory": "Memory operations (any memory server: store, recall, read, list, delete)",
    "lightweight-read": "Lightweight read options (observationLimit, entityTypes, limit)",
    "ranged-read": "Ranged and match-scoped reads of one observation, counted in code points",
    "depth-read": "Relation-depth reads: one entity and its neighbours as digests",
}


def check(
    check_id: str,
    group: str,
    title: str,
    *,
    tools: Sequence[str] = (),
    options: Sequence[tuple[str, str]] = (),
    feature: str | None = None,
) -> Callable[[CheckFn], CheckFn]:
    def register(fn: CheckFn) -> CheckFn:
        CHECKS.append(Check(check_id, group, title, tuple(tools), tuple(options), feature, fn))
        return fn

    return register


# Official semantics -----------------------------------------------------------------------------


@check("create-returns-created", "official", "create_entities returns the entities it created")
async def _(c: Ctx) -> Outcome:
    reply = await c.create(("Alice", "person", ["Likes tea"]), ("Bob", "person", []))
    return expect(
        {"result": _error(reply), "created": c.names_of(reply)}, {"result": "ok", "created": ["Alice", "Bob"]}
    )


@check(
    "create-skips-existing",
    "official",
    "create_entities skips a name that exists and leaves its observations alone",
)
async def _(c: Ctx) -> Outcome:
    await c.create(("Alice", "person", ["Likes tea"]))
    reply = await c.create(("Alice", "robot", ["Likes coffee"]), ("Carol", "person", []))
    graph = await c.graph()
    return expect(
        {"created": c.names_of(reply), "Alice": c.observations(graph).get("Alice")},
        {"created": ["Carol"], "Alice": ["Likes tea"]},
    )


@check("names-case-sensitive", "official", "Entity names are exact, case-sensitive identifiers")
async def _(c: Ctx) -> Outcome:
    await c.create(("Alice", "person", []))
    reply = await c.create(("alice", "person", []))
    graph = await c.graph()
    return expect(
        {"created": c.names_of(reply), "graph": c.names_of(graph)},
        {"created": ["alice"], "graph": ["Alice", "alice"]},
    )


@check(
    "create-relations-returns-new",
    "official",
    "create_relations returns the relations it created",
    tools=("create_relations",),
)
async def _(c: Ctx) -> Outcome:
    await c.create(("Alice", "person", []), ("Bob", "person", []))
    reply = await c.relate(("Alice", "Bob", "knows"))
    return expect(
        {"result": _error(reply), "created": c.rels(reply)}, {"result": "ok", "created": ["Alice→Bob:knows"]}
    )


@check(
    "create-relations-skips-duplicates",
    "official",
    "create_relations skips a (from, to, relationType) triple that exists",
    tools=("create_relations",),
)
async def _(c: Ctx) -> Outcome:
    await c.create(("Alice", "person", []), ("Bob", "person", []))
    await c.relate(("Alice", "Bob", "knows"))
    reply = await c.relate(("Alice", "Bob", "knows"))
    graph = await c.graph()
    return expect(
        {"created": c.rels(reply), "graph": c.rels(graph)}, {"created": [], "graph": ["Alice→Bob:knows"]}
    )


@check(
    "relations-distinct-by-type-and-direction",
    "official",
    "Relations differing in type or direction are distinct",
    tools=("create_relations",),
)
async def _(c: Ctx) -> Outcome:
    await c.create(("Alice", "person", []), ("Bob", "person", []))
    await c.relate(("Alice", "Bob", "knows"), ("Alice", "Bob", "works_with"), ("Bob", "Alice", "knows"))
    graph = await c.graph()
    return expect(c.rels(graph), ["Alice→Bob:knows", "Alice→Bob:works_with", "Bob→Alice:knows"])


def _added(reply: Reply, c: Ctx) -> Any:
    data = reply.payload()
    results = data.get("results") if isinstance(data, dict) else data
    if not isinstance(results, list):
        return None
    return {c.short(r.get("entityName")): r.get("addedObservations") for r in results if isinstance(r, dict)}


@check(
    "add-observations-returns-added",
    "official",
    "add_observations appends in order and returns what it added",
    tools=("add_observations",),
)
async def _(c: Ctx) -> Outcome:
    await c.create(("Alice", "person", ["Likes tea"]))
    reply = await c.call(
        "add_observations",
        {"observations": [{"entityName": c.n("Alice"), "contents": ["Owns a cat", "Plays chess"]}]},
    )
    graph = await c.graph()
    return expect(
        {"added": _added(reply, c), "Alice": c.observations(graph).get("Alice")},
        {
            "added": {"Alice": ["Owns a cat", "Plays chess"]},
            "Alice": ["Likes tea", "Owns a cat", "Plays chess"],
        },
    )


@check(
    "add-observations-skips-existing",
    "official",
    "add_observations skips contents the entity already has",
    tools=("add_observations",),
)
async def _(c: Ctx) -> Outcome:
    await c.create(("Alice", "person", ["Likes tea"]))
    reply = await c.call(
        "add_observations",
        {"observations": [{"entityName": c.n("Alice"), "contents": ["Likes tea", "Owns a cat"]}]},
    )
    graph = await c.graph()
    return expect(
        {"added": _added(reply, c), "Alice": c.observations(graph).get("Alice")},
        {"added": {"Alice": ["Owns a cat"]}, "Alice": ["Likes tea", "Owns a cat"]},
    )


@check(
    "add-observations-unknown-entity-fails",
    "official",
    "add_observations on an unknown entity is an error naming it",
    tools=("add_observations",),
)
async def _(c: Ctx) -> Outcome:
    reply = await c.call(
        "add_observations", {"observations": [{"entityName": c.n("Ghost"), "contents": ["x"]}]}
    )
    return expect(
        {"result": _error(reply), "names the entity": c.n("Ghost") in reply.text},
        {"result": "error", "names the entity": True},
    )


@check(
    "add-observations-all-or-nothing",
    "official",
    "add_observations with one unknown entity writes nothing of the batch",
    tools=("add_observations",),
)
async def _(c: Ctx) -> Outcome:
    await c.create(("Alice", "person", ["Likes tea"]))
    reply = await c.call(
        "add_observations",
        {
            "observations": [
                {"entityName": c.n("Alice"), "contents": ["Owns a cat"]},
                {"entityName": c.n("Ghost"), "contents": ["x"]},
            ]
        },
    )
    graph = await c.graph()
    return expect(
        {"result": _error(reply), "Alice": c.observations(graph).get("Alice")},
        {"result": "error", "Alice": ["Likes tea"]},
    )


@check(
    "delete-observations-exact",
    "official",
    "delete_observations removes exact strings only",
    tools=("delete_observations",),
)
async def _(c: Ctx) -> Outcome:
    await c.create(("Alice", "person", ["Likes tea", "Owns a cat", "Plays chess"]))
    reply = await c.call(
        "delete_observations",
        {"deletions": [{"entityName": c.n("Alice"), "observations": ["likes tea", "Owns a cat"]}]},
    )
    graph = await c.graph()
    return expect(
        {"result": _error(reply), "Alice": c.observations(graph).get("Alice")},
        {"result": "ok", "Alice": ["Likes tea", "Plays chess"]},
    )


@check(
    "delete-observations-unknown-entity-ignored",
    "official",
    "delete_observations skips unknown entities without an error",
    tools=("delete_observations",),
)
async def _(c: Ctx) -> Outcome:
    await c.create(("Alice", "person", ["Likes tea"]))
    reply = await c.call(
        "delete_observations",
        {
            "deletions": [
                {"entityName": c.n("Ghost"), "observations": ["x"]},
                {"entityName": c.n("Alice"), "observations": ["Likes tea"]},
            ]
        },
    )
    graph = await c.graph()
    return expect(
        {"result": _error(reply), "Alice": c.observations(graph).get("Alice")}, {"result": "ok", "Alice": []}
    )


@check(
    "delete-relations-exact-triple",
    "official",
    "delete_relations removes the exact triple and nothing else",
    tools=("create_relations", "delete_relations"),
)
async def _(c: Ctx) -> Outcome:
    await c.create(("Alice", "person", []), ("Bob", "person", []))
    await c.relate(("Alice", "Bob", "knows"), ("Alice", "Bob", "works_with"))
    reply = await c.call(
        "delete_relations", {"relations": [{"from": c.n("Alice"), "to": c.n("Bob"), "relationType": "knows"}]}
    )
    graph = await c.graph()
    return expect(
        {"result": _error(reply), "graph": c.rels(graph)}, {"result": "ok", "graph": ["Alice→Bob:works_with"]}
    )


@check(
    "delete-relations-no-match-ok",
    "official",
    "delete_relations of a relation that does not exist is no error",
    tools=("create_relations", "delete_relations"),
)
async def _(c: Ctx) -> Outcome:
    await c.create(("Alice", "person", []), ("Bob", "person", []))
    await c.relate(("Alice", "Bob", "knows"))
    reply = await c.call(
        "delete_relations", {"relations": [{"from": c.n("Bob"), "to": c.n("Alice"), "relationType": "knows"}]}
    )
    graph = await c.graph()
    return expect(
        {"result": _error(reply), "graph": c.rels(graph)}, {"result": "ok", "graph": ["Alice→Bob:knows"]}
    )


@check(
    "delete-entities-cascades",
    "official",
    "delete_entities removes every relation from or to the deleted entity",
    tools=("create_relations",),
)
async def _(c: Ctx) -> Outcome:
    await c.create(("Alice", "person", []), ("Bob", "person", []), ("Carol", "person", []))
    await c.relate(("Alice", "Bob", "knows"), ("Carol", "Alice", "knows"), ("Bob", "Carol", "knows"))
    reply = await c.call("delete_entities", {"entityNames": [c.n("Alice")]})
    graph = await c.graph()
    return expect(
        {"result": _error(reply), "entities": c.names_of(graph), "relations": c.rels(graph)},
        {"result": "ok", "entities": ["Bob", "Carol"], "relations": ["Bob→Carol:knows"]},
    )


@check(
    "delete-entities-unknown-ignored",
    "official",
    "delete_entities skips unknown names and deletes the known ones",
)
async def _(c: Ctx) -> Outcome:
    await c.create(("Alice", "person", []), ("Bob", "person", []))
    reply = await c.call("delete_entities", {"entityNames": [c.n("Ghost"), c.n("Bob")]})
    graph = await c.graph()
    return expect(
        {"result": _error(reply), "entities": c.names_of(graph)}, {"result": "ok", "entities": ["Alice"]}
    )


async def _search(c: Ctx, query: str, **options: Any) -> Reply:
    return await c.call("search_nodes", {"query": query, **options})


@check(
    "search-name-case-insensitive",
    "official",
    "search_nodes matches names case-insensitively",
    tools=("search_nodes",),
)
async def _(c: Ctx) -> Outcome:
    await c.create(("Zephyrine", "person", []), ("Bob", "person", []))
    reply = await _search(c, f"{c.ns}zEPHYRINE".upper())
    return expect(c.names_of(reply), ["Zephyrine"])


@check(
    "search-type-case-insensitive",
    "official",
    "search_nodes matches entity types case-insensitively",
    tools=("search_nodes",),
)
async def _(c: Ctx) -> Outcome:
    await c.create(("Alice", "Astronaut", []), ("Bob", "person", []))
    reply = await _search(c, "aSTRONAUT")
    return expect(c.names_of(reply), ["Alice"])


@check(
    "search-observation-case-insensitive",
    "official",
    "search_nodes matches observation text case-insensitively",
    tools=("search_nodes",),
)
async def _(c: Ctx) -> Outcome:
    await c.create(("Alice", "person", ["Speaks fluent Portuguese"]), ("Bob", "person", ["Speaks Spanish"]))
    reply = await _search(c, "PORTUGUESE")
    return expect(c.names_of(reply), ["Alice"])


@check(
    "search-substring-within-word",
    "official",
    "search_nodes matches the query as a substring, also inside words",
    tools=("search_nodes",),
)
async def _(c: Ctx) -> Outcome:
    await c.create(
        ("Alice", "person", ["Collects vintage typewriters"]), ("Bob", "person", ["Collects stamps"])
    )
    reply = await _search(c, "ntage typew")
    return expect(c.names_of(reply), ["Alice"])


@check(
    "search-returns-all-observations",
    "official",
    "search_nodes returns a matched entity with all its observations",
    tools=("search_nodes",),
)
async def _(c: Ctx) -> Outcome:
    await c.create(("Alice", "person", ["Likes tea", "Keeps bees on the roof", "Plays chess"]))
    reply = await _search(c, "keeps bees")
    return expect(c.observations(reply), {"Alice": ["Likes tea", "Keeps bees on the roof", "Plays chess"]})


@check(
    "search-relations-either-endpoint",
    "official",
    "search_nodes returns the relations with either endpoint among the matches",
    tools=("search_nodes", "create_relations"),
)
async def _(c: Ctx) -> Outcome:
    await c.create(
        ("Alice", "person", ["Knows the Zarquon recipe"]),
        ("Bob", "person", []),
        ("Carol", "person", []),
        ("Dave", "person", []),
    )
    await c.relate(("Alice", "Bob", "knows"), ("Carol", "Alice", "knows"), ("Bob", "Dave", "knows"))
    reply = await _search(c, "zarquon")
    return expect(
        {"entities": c.names_of(reply), "relations": c.rels(reply)},
        {"entities": ["Alice"], "relations": ["Alice→Bob:knows", "Carol→Alice:knows"]},
    )


@check(
    "search-no-match-empty",
    "official",
    "search_nodes with no match returns no entities and no relations",
    tools=("search_nodes",),
)
async def _(c: Ctx) -> Outcome:
    await c.create(("Alice", "person", ["Likes tea"]))
    reply = await _search(c, f"{c.ns}qzx-nothing-matches")
    return expect(
        {"result": _error(reply), "entities": c.names_of(reply), "relations": c.rels(reply)},
        {"result": "ok", "entities": [], "relations": []},
    )


@check(
    "search-empty-query-matches-all",
    "official",
    "search_nodes with an empty query matches every entity",
    tools=("search_nodes",),
)
async def _(c: Ctx) -> Outcome:
    await c.create(("Alice", "person", []), ("Bob", "place", ["Sunny"]))
    reply = await _search(c, "")
    return expect(
        {"result": _error(reply), "entities": c.names_of(reply)},
        {"result": "ok", "entities": ["Alice", "Bob"]},
    )


@check(
    "open-nodes-exact-names",
    "official",
    "open_nodes returns exactly the named entities (case-sensitive)",
    tools=("open_nodes",),
)
async def _(c: Ctx) -> Outcome:
    await c.create(("Alice", "person", ["Likes tea"]), ("Bob", "person", []))
    exact = await c.call("open_nodes", {"names": [c.n("Alice")]})
    folded = await c.call("open_nodes", {"names": [c.ns + "alice"]})
    return expect(
        {"exact": c.observations(exact), "other case": c.names_of(folded)},
        {"exact": {"Alice": ["Likes tea"]}, "other case": []},
    )


@check(
    "open-nodes-unknown-skipped",
    "official",
    "open_nodes skips unknown names without an error",
    tools=("open_nodes",),
)
async def _(c: Ctx) -> Outcome:
    await c.create(("Alice", "person", []))
    reply = await c.call("open_nodes", {"names": [c.n("Ghost"), c.n("Alice")]})
    return expect(
        {"result": _error(reply), "entities": c.names_of(reply)}, {"result": "ok", "entities": ["Alice"]}
    )


@check(
    "open-nodes-relations-either-endpoint",
    "official",
    "open_nodes returns the relations with either endpoint among the opened entities",
    tools=("open_nodes", "create_relations"),
)
async def _(c: Ctx) -> Outcome:
    await c.create(("Alice", "person", []), ("Bob", "person", []), ("Carol", "person", []))
    await c.relate(("Alice", "Bob", "knows"), ("Bob", "Carol", "knows"), ("Carol", "Alice", "knows"))
    reply = await c.call("open_nodes", {"names": [c.n("Alice")]})
    return expect(c.rels(reply), ["Alice→Bob:knows", "Carol→Alice:knows"])


@check(
    "read-graph-everything",
    "official",
    "read_graph returns every entity (in insertion order, all observations) and every relation",
    tools=("create_relations",),
)
async def _(c: Ctx) -> Outcome:
    await c.create(("Zed", "person", ["First", "Second"]), ("Amy", "place", ["Third"]))
    await c.create(("Mid", "tool", []))
    await c.relate(("Zed", "Amy", "visits"), ("Mid", "Zed", "helps"))
    graph = await c.graph()
    types = {c.short(e.get("name")): e.get("entityType") for e in c.mine(graph)}
    return expect(
        {
            "order": c.names_of(graph),
            "types": types,
            "observations": c.observations(graph),
            "relations": c.rels(graph),
        },
        {
            "order": ["Zed", "Amy", "Mid"],
            "types": {"Zed": "person", "Amy": "place", "Mid": "tool"},
            "observations": {"Zed": ["First", "Second"], "Amy": ["Third"], "Mid": []},
            "relations": ["Mid→Zed:helps", "Zed→Amy:visits"],
        },
    )


@check(
    "unicode-round-trip",
    "official",
    "Names and observations with emoji, CJK and combining marks come back unchanged and searchable",
    tools=("search_nodes",),
)
async def _(c: Ctx) -> Outcome:
    text = "Café 東京 😊 e\u0301 ✓"
    await c.create(("Zoë_東京", "person", [text]))
    graph = await c.graph()
    found = await _search(c, "東京 😊")
    return expect(
        {"read": c.observations(graph), "search": c.names_of(found)},
        {"read": {"Zoë_東京": [text]}, "search": ["Zoë_東京"]},
    )


@check(
    "structured-read-results",
    "official",
    "Read tools that declare an outputSchema answer with structuredContent {entities, relations}",
    tools=("search_nodes", "open_nodes"),
)
async def _(c: Ctx) -> Outcome:
    declared = [
        t for t in ("read_graph", "search_nodes", "open_nodes") if (c.tools.get(t) or {}).get("outputSchema")
    ]
    if not declared:
        return not_applicable("no read tool declares an outputSchema")
    await c.create(("Alice", "person", []))
    replies = {
        "read_graph": await c.graph(),
        "search_nodes": await _search(c, "alice"),
        "open_nodes": await c.call("open_nodes", {"names": [c.n("Alice")]}),
    }
    observed = {
        t: isinstance(replies[t].structured, dict) and {"entities", "relations"} <= set(replies[t].structured)
        for t in declared
    }
    return expect(observed, dict.fromkeys(declared, True))


# Bugs fixed upstream ----------------------------------------------------------------------------


@check(
    "create-in-batch-duplicate-once",
    "upstream-fix",
    "Two same-named entities in one create_entities batch are stored once",
)
async def _(c: Ctx) -> Outcome:
    await c.create(("Alice", "person", ["Likes tea"]), ("Alice", "person", ["Likes coffee"]))
    graph = await c.graph()
    return expect(c.names_of(graph), ["Alice"])


@check(
    "create-relations-unknown-endpoint-rejected",
    "upstream-fix",
    "create_relations with an unknown endpoint fails and writes nothing of the batch",
    tools=("create_relations",),
)
async def _(c: Ctx) -> Outcome:
    await c.create(("Alice", "person", []), ("Bob", "person", []))
    reply = await c.relate(("Alice", "Bob", "knows"), ("Alice", "Ghost", "knows"))
    graph = await c.graph()
    return expect({"result": _error(reply), "relations": c.rels(graph)}, {"result": "error", "relations": []})


# Lightweight reads ------------------------------------------------------------------------------


async def _three_entities(c: Ctx) -> None:
    await c.create(
        ("Alice", "person", ["Works at Acme", "Likes tea", "Plays chess"]),
        ("Acme", "organization", ["Makes anvils", "Founded in 1920"]),
        ("Bob", "person", ["Likes tea"]),
    )
    await c.relate(("Alice", "Acme", "works_at"), ("Alice", "Bob", "knows"))


def _capped(c: Ctx, reply: Reply) -> dict[str, Any]:
    return {c.short(e.get("name")): [e.get("observations"), e.get("observationCount")] for e in c.mine(reply)}


@check(
    "observation-limit-read-graph",
    "lightweight-read",
    "read_graph observationLimit N keeps the first N observations and reports observationCount",
    options=(("read_graph", "observationLimit"),),
)
async def _(c: Ctx) -> Outcome:
    await _three_entities(c)
    reply = await c.call("read_graph", {"observationLimit": 2})
    return expect(
        {"entities": _capped(c, reply), "relations": c.rels(reply)},
        {
            "entities": {
                "Alice": [["Works at Acme", "Likes tea"], 3],
                "Acme": [["Makes anvils", "Founded in 1920"], 2],
                "Bob": [["Likes tea"], 1],
            },
            "relations": ["Alice→Acme:works_at", "Alice→Bob:knows"],
        },
    )


@check(
    "observation-limit-zero",
    "lightweight-read",
    "observationLimit 0 gives names, types and counts only",
    options=(("read_graph", "observationLimit"),),
)
async def _(c: Ctx) -> Outcome:
    await _three_entities(c)
    reply = await c.call("read_graph", {"observationLimit": 0})
    return expect(_capped(c, reply), {"Alice": [[], 3], "Acme": [[], 2], "Bob": [[], 1]})


@check(
    "read-without-options-unchanged",
    "lightweight-read",
    "A read without options returns every observation and no observationCount",
    options=(("read_graph", "observationLimit"),),
)
async def _(c: Ctx) -> Outcome:
    await _three_entities(c)
    reply = await c.graph()
    counted = [c.short(e.get("name")) for e in c.mine(reply) if "observationCount" in e]
    return expect(
        {"Alice": c.observations(reply).get("Alice"), "with observationCount": counted},
        {"Alice": ["Works at Acme", "Likes tea", "Plays chess"], "with observationCount": []},
    )


@check(
    "observation-limit-search",
    "lightweight-read",
    "search_nodes honours observationLimit",
    options=(("search_nodes", "observationLimit"),),
)
async def _(c: Ctx) -> Outcome:
    await _three_entities(c)
    reply = await _search(c, "chess", observationLimit=1)
    return expect(_capped(c, reply), {"Alice": [["Works at Acme"], 3]})


@check(
    "observation-limit-open",
    "lightweight-read",
    "open_nodes honours observationLimit",
    options=(("open_nodes", "observationLimit"),),
)
async def _(c: Ctx) -> Outcome:
    await _three_entities(c)
    reply = await c.call("open_nodes", {"names": [c.n("Acme"), c.n("Bob")], "observationLimit": 1})
    return expect(_capped(c, reply), {"Acme": [["Makes anvils"], 2], "Bob": [["Likes tea"], 1]})


@check(
    "entity-types-filter",
    "lightweight-read",
    "read_graph entityTypes keeps those types and the relations touching one of them",
    options=(("read_graph", "entityTypes"),),
)
async def _(c: Ctx) -> Outcome:
    await _three_entities(c)
    reply = await c.call("read_graph", {"entityTypes": ["organization"]})
    return expect(
        {"entities": c.names_of(reply), "relations": c.rels(reply)},
        {"entities": ["Acme"], "relations": ["Alice→Acme:works_at"]},
    )


@check(
    "search-limit",
    "lightweight-read",
    "search_nodes limit N returns the first N matches in stored order with their relations",
    options=(("search_nodes", "limit"),),
)
async def _(c: Ctx) -> Outcome:
    await _three_entities(c)
    reply = await _search(c, "tea", limit=1)
    return expect(
        {"entities": c.names_of(reply), "relations": c.rels(reply)},
        {"entities": ["Alice"], "relations": ["Alice→Acme:works_at", "Alice→Bob:knows"]},
    )


@check(
    "search-limit-zero-rejected",
    "lightweight-read",
    "search_nodes limit 0 is refused",
    options=(("search_nodes", "limit"),),
)
async def _(c: Ctx) -> Outcome:
    await _three_entities(c)
    return expect(_error(await _search(c, "tea", limit=0)), "error")


@check(
    "observation-limit-negative-rejected",
    "lightweight-read",
    "observationLimit -1 is refused",
    options=(("read_graph", "observationLimit"),),
)
async def _(c: Ctx) -> Outcome:
    return expect(_error(await c.call("read_graph", {"observationLimit": -1})), "error")


@check(
    "observation-limit-fraction-rejected",
    "lightweight-read",
    "observationLimit 1.5 is refused, not rounded",
    options=(("read_graph", "observationLimit"),),
)
async def _(c: Ctx) -> Outcome:
    return expect(_error(await c.call("read_graph", {"observationLimit": 1.5})), "error")


# Ranged and match-scoped reads (seed: engram's ranged-read contract) ------------------------------

_RANGE_PROPS = frozenset({"offset", "limit", "start", "length", "maxchars", "find", "context", "depth"})


def entity_address(tools: dict[str, dict[str, Any]], tool: str, entity: str) -> dict[str, Any] | str:
    """Arguments that point ``tool`` at the first observation of ``entity``, or why they cannot."""
    schema = (tools.get(tool) or {}).get("inputSchema") or {}
    address: dict[str, Any] = {}
    for prop in schema.get("properties") or {}:
        key = prop.lower().replace("_", "")
        if key in {"entityname", "name", "entity", "title", "permalink"}:
            address[prop] = entity
        elif key in {"index", "observationindex", "position"}:
            address[prop] = 0
    unfilled = [
        p
        for p in schema.get("required") or []
        if p not in address and p.lower().replace("_", "") not in _RANGE_PROPS
    ]
    return f"{tool} needs {', '.join(unfilled)}, which the probe cannot fill in" if unfilled else address


def feature_tool(static: dict[str, Any], feature: str) -> str:
    """The tool named first in a static-profile feature's evidence (``read_observation.offset+limit``)."""
    evidence = next(row["evidence"] for row in static["features"] if row["id"] == feature)
    return str(evidence[0]).split(".", 1)[0].split("(", 1)[0]


async def _ranged(c: Ctx, body: str, **options: Any) -> Reply | Outcome:
    feature = "match-scoped-read" if "find" in options or "context" in options else "ranged-read"
    tool = feature_tool(c.static, feature)
    address = entity_address(c.tools, tool, c.n("Doc"))
    if isinstance(address, str):
        return not_applicable(address)
    await c.create(("Doc", "document", [body]))
    return await c.call(tool, {**address, **options})


def _content(reply: Reply) -> Any:
    data = reply.payload()
    if not isinstance(data, dict):
        return reply.text
    return data.get("content", data.get("text"))


def _windows(reply: Reply) -> Any:
    data = reply.payload()
    windows = data.get("windows") if isinstance(data, dict) else None
    if not isinstance(windows, list):
        return None
    return [[w.get("offset"), w.get("text")] for w in windows if isinstance(w, dict)]


def ranged_check(check_id: str, title: str, feature: str = "ranged-read") -> Callable[[CheckFn], CheckFn]:
    return check(check_id, "ranged-read", title, feature=feature)


@ranged_check(
    "range-counts-code-points",
    "offset 1, limit 2 of “aé😊z” is “é😊”: code points, not bytes",
)
async def _(c: Ctx) -> Outcome:
    reply = await _ranged(c, "a\u00e9\U0001f60az", offset=1, limit=2)
    if isinstance(reply, Outcome):
        return reply
    return expect(
        {"result": _error(reply), "content": _content(reply)}, {"result": "ok", "content": "\u00e9\U0001f60a"}
    )


@ranged_check("range-limit-without-offset-starts-at-zero", "A limit without an offset reads from the start")
async def _(c: Ctx) -> Outcome:
    reply = await _ranged(c, "abcdefgh", limit=3)
    return reply if isinstance(reply, Outcome) else expect(_content(reply), "abc")


@ranged_check("range-offset-past-end-empty", "An offset past the end gives empty content, not an error")
async def _(c: Ctx) -> Outcome:
    reply = await _ranged(c, "abcdefgh", offset=100, limit=5)
    if isinstance(reply, Outcome):
        return reply
    return expect({"result": _error(reply), "content": _content(reply)}, {"result": "ok", "content": ""})


@ranged_check(
    "range-reports-total-length", "A ranged read reports the observation's total length in code points"
)
async def _(c: Ctx) -> Outcome:
    body = "\u6f22\u5b57" * 50 + "x" * 100
    reply = await _ranged(c, body, offset=0, limit=10)
    if isinstance(reply, Outcome):
        return reply
    data = reply.payload() if isinstance(reply.payload(), dict) else {}
    totals = [
        data[k] for k in ("totalLength", "total", "totalRunes", "totalCodePoints", "length") if k in data
    ]
    return expect(
        {"content": _content(reply), "total": totals[:1]}, {"content": "\u6f22\u5b57" * 5, "total": [200]}
    )


@ranged_check("range-negative-offset-rejected", "A negative offset is refused")
async def _(c: Ctx) -> Outcome:
    reply = await _ranged(c, "abcdefgh", offset=-1, limit=2)
    return reply if isinstance(reply, Outcome) else expect(_error(reply), "error")


@ranged_check(
    "find-windows-with-offsets",
    "find “TEST”, context 2 gives each window with its offset",
    feature="match-scoped-read",
)
async def _(c: Ctx) -> Outcome:
    reply = await _ranged(c, "xxTESTyyyyyTESTzz", find="TEST", context=2)
    return (
        reply if isinstance(reply, Outcome) else expect(_windows(reply), [[0, "xxTESTyy"], [9, "yyTESTzz"]])
    )


@ranged_check(
    "find-touching-windows-merged",
    "Windows that overlap or touch are merged into one",
    feature="match-scoped-read",
)
async def _(c: Ctx) -> Outcome:
    reply = await _ranged(c, "abca", find="a", context=1)
    return reply if isinstance(reply, Outcome) else expect(_windows(reply), [[0, "abca"]])


@ranged_check(
    "find-offset-in-code-points",
    "A match after two accented letters is at offset 2",
    feature="match-scoped-read",
)
async def _(c: Ctx) -> Outcome:
    reply = await _ranged(c, "\u00e1\u00e9TEST", find="TEST", context=0)
    return reply if isinstance(reply, Outcome) else expect(_windows(reply), [[2, "TEST"]])


@ranged_check(
    "find-no-match-zero-windows",
    "A needle that does not occur gives zero windows, not an error",
    feature="match-scoped-read",
)
async def _(c: Ctx) -> Outcome:
    reply = await _ranged(c, "abcdefgh", find="zzz", context=2)
    if isinstance(reply, Outcome):
        return reply
    return expect({"result": _error(reply), "windows": _windows(reply)}, {"result": "ok", "windows": []})


@ranged_check(
    "range-and-find-exclusive",
    "offset/limit and find/context together are refused",
    feature="match-scoped-read",
)
async def _(c: Ctx) -> Outcome:
    if not has_feature(c.static, "ranged-read"):
        return not_applicable("the server advertises no ranged read")
    reply = await _ranged(c, "abcdefgh", offset=1, find="c", context=1)
    return reply if isinstance(reply, Outcome) else expect(_error(reply), "error")


@ranged_check("context-requires-find", "context without find is refused", feature="match-scoped-read")
async def _(c: Ctx) -> Outcome:
    reply = await _ranged(c, "abcdefgh", context=2)
    return reply if isinstance(reply, Outcome) else expect(_error(reply), "error")


# Relation-depth reads (seed: a memory_read with depth 0 to 3 and digests) ------------------------


async def _depth(c: Ctx, name: str, depth: int) -> Reply | Outcome:
    evidence = next(row["evidence"] for row in c.static["features"] if row["id"] == "depth-read")
    tool, prop = evidence[0].split(".", 1)
    address = entity_address(c.tools, tool, c.n(name))
    if isinstance(address, str):
        return not_applicable(address)
    return await c.call(tool, {**address, prop: depth})


def _related(c: Ctx, reply: Reply) -> Any:
    data = reply.payload()
    related = data.get("related") if isinstance(data, dict) else None
    if not isinstance(related, list):
        return None
    return sorted(c.short(r.get("name")) for r in related if isinstance(r, dict))


async def _chain(c: Ctx) -> None:
    await c.create(
        ("Hub", "person", ["Leads the team"]),
        ("Out", "project", ["A" * 400]),
        ("In", "person", ["Reports to Hub"]),
        ("Far", "place", ["Two hops away"]),
        ("Farther", "place", ["Three hops away"]),
    )
    await c.relate(
        ("Hub", "Out", "leads"),
        ("In", "Hub", "reports_to"),
        ("Out", "Far", "located_in"),
        ("Far", "Farther", "near"),
    )


def depth_check(check_id: str, title: str) -> Callable[[CheckFn], CheckFn]:
    return check(check_id, "depth-read", title, tools=("create_relations",), feature="depth-read")


@depth_check("depth-zero-entity-only", "depth 0 returns the entity in full and no neighbours")
async def _(c: Ctx) -> Outcome:
    await _chain(c)
    reply = await _depth(c, "Hub", 0)
    if isinstance(reply, Outcome):
        return reply
    data: dict[str, Any] = reply.payload() if isinstance(reply.payload(), dict) else {}
    entity: dict[str, Any] = data["entity"] if isinstance(data.get("entity"), dict) else {}
    return expect(
        {
            "entity": c.short(entity.get("name")),
            "observations": entity.get("observations"),
            "related": _related(c, reply) or [],
        },
        {"entity": "Hub", "observations": ["Leads the team"], "related": []},
    )


@depth_check(
    "depth-follows-relations-both-ways", "depth 1 adds the entities one hop away, in either direction"
)
async def _(c: Ctx) -> Outcome:
    await _chain(c)
    reply = await _depth(c, "Hub", 1)
    return reply if isinstance(reply, Outcome) else expect(_related(c, reply), ["In", "Out"])


@depth_check("depth-two-hops", "depth 2 adds the entities two hops away")
async def _(c: Ctx) -> Outcome:
    await _chain(c)
    reply = await _depth(c, "Hub", 2)
    return reply if isinstance(reply, Outcome) else expect(_related(c, reply), ["Far", "In", "Out"])


@depth_check(
    "depth-digests-are-short",
    "Neighbours come as digests: no full observations, an excerpt of at most 160 characters",
)
async def _(c: Ctx) -> Outcome:
    await _chain(c)
    reply = await _depth(c, "Hub", 1)
    if isinstance(reply, Outcome):
        return reply
    data = reply.payload() if isinstance(reply.payload(), dict) else {}
    related = data.get("related") or []
    digest: dict[str, Any] = next((r for r in related if c.short(r.get("name")) == "Out"), {})
    excerpt = next((v for k, v in digest.items() if k in ("excerpt", "summary", "preview")), None)
    return expect(
        {
            "full observations": "observations" in digest,
            "excerpt within 160": isinstance(excerpt, str) and 0 < len(excerpt) <= 160,
        },
        {"full observations": False, "excerpt within 160": True},
    )


@depth_check("depth-related-at-most-20", "At most 20 neighbours come back however many are linked")
async def _(c: Ctx) -> Outcome:
    await c.create(("Hub", "person", []), *((f"Leaf{i:02d}", "thing", []) for i in range(25)))
    await c.relate(*(("Hub", f"Leaf{i:02d}", "owns") for i in range(25)))
    reply = await _depth(c, "Hub", 1)
    return reply if isinstance(reply, Outcome) else expect(len(_related(c, reply) or []), 20)


def _status(reply: Reply) -> str:
    data = reply.payload()
    if isinstance(data, dict) and isinstance(data.get("status"), str):
        return str(data["status"])
    return "error" if not reply.ok else "ok"


@depth_check("depth-unknown-name-not-found", "An unknown name is a clear not-found outcome")
async def _(c: Ctx) -> Outcome:
    reply = await _depth(c, "Ghost", 1)
    if isinstance(reply, Outcome):
        return reply
    clear = _status(reply) == "not_found" or (not reply.ok and "not found" in reply.text.lower())
    return expect({"not found": clear}, {"not found": True})


@depth_check("depth-above-three-invalid", "depth 4 is refused as invalid")
async def _(c: Ctx) -> Outcome:
    await _chain(c)
    reply = await _depth(c, "Hub", 4)
    return reply if isinstance(reply, Outcome) else expect(_status(reply) in ("invalid", "error"), True)


def offers(tools: dict[str, dict[str, Any]], tool: str, prop: str) -> bool:
    """Whether the server's ``tool`` declares the input property ``prop``."""
    return prop in (((tools.get(tool) or {}).get("inputSchema") or {}).get("properties") or {})


REQUIRED_TOOLS = ("create_entities", "delete_entities", "read_graph")


async def run_checks(
    session: Session, static: dict[str, Any], tools: dict[str, dict[str, Any]]
) -> list[dict[str, Any]]:
    """Run every check in its own namespace and delete what it created afterwards."""
    results = []
    for number, spec in enumerate(CHECKS, start=1):
        missing = [t for t in spec.tools if t not in tools]
        absent = [f"{t}.{p}" for t, p in spec.options if not offers(tools, t, p)]
        ctx = Ctx(session, number, static, tools)
        if missing:
            outcome = not_applicable(f"the server has no {', '.join(missing)}")
        elif absent:
            outcome = not_applicable(f"the server does not advertise {', '.join(absent)}")
        elif spec.feature and not has_feature(static, spec.feature):
            outcome = not_applicable(f"the server advertises no {FEATURES_BY_ID[spec.feature].label.lower()}")
        else:
            try:
                outcome = await spec.run(ctx)
            except (AttributeError, KeyError, TypeError, ValueError, IndexError) as exc:
                # A reply of a shape the check cannot read is a failure of that check, not of the probe.
                outcome = Outcome(
                    "fail", f"a reply of an unexpected shape ({type(exc).__name__}: {exc})", spec.title
                )
        if ctx.names:
            await session.call("delete_entities", {"entityNames": sorted(ctx.names)})
        results.append(
            {
                "id": spec.id,
                "group": spec.group,
                "title": spec.title,
                "outcome": outcome.outcome,
                "observed": outcome.observed,
                "expected": outcome.expected,
                "note": outcome.note,
            }
        )
    return results
