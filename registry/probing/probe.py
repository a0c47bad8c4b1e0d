"""The active memory probe: a fixed, deterministic scenario run over a real MCP client session
against a knowledge-graph memory server started for the purpose on an empty store.

It measures three things and returns them as one Profile document (``PROFILE_FORMAT``):
conformance (each check of ``CHECKS`` passes, fails with what was observed and expected, or
does not apply), token cost of each read form on a standard graph generated from a fixed seed
at two sizes, and the latency of every tool call. It writes and deletes entities, so callers
must have the user's consent (``--allow-writes``); it cleans up everything it created.
"""

from __future__ import annotations

import json
import math
import random
import re
import statistics
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from registry.core.errors import MCPDexError
from registry.core.profile import FEATURES_BY_ID, PROFILE_FORMAT, has_feature, static_profile
from registry.core.timestamps import utc_now

SEED = 20261129
SIZES: tuple[int, int] = (100, 1000)
CHARS_PER_TOKEN = 4
TOKEN_ESTIMATE = (
    "Estimated tokens = characters of the text content ÷ 4, rounded up (the usual rule of thumb for "
    "English prose and JSON with BPE tokenizers; real counts vary by model)"
)
# Every name the probe writes starts with this, so a forced run on a non-empty graph touches only its own.
PREFIX = "Probe"
_OURS = re.compile(rf"^{PREFIX}(\d\d)?_")
_BATCH = 100


class ProbeError(MCPDexError):
    """The probe cannot run against this target (refused, or not a knowledge-graph memory server)."""


# --- one tool call ------------------------------------------------------------------------------


@dataclass
class Reply:
    """A tool call's outcome: ``ok`` false for an ``isError`` result or a JSON-RPC error alike."""

    ok: bool
    text: str
    structured: Any
    ms: float

    def payload(self) -> Any:
        """structuredContent when present, else the text parsed as JSON (None when it is not JSON)."""
        if self.structured is not None:
            return self.structured
        try:
            return json.loads(self.text)
        except ValueError:
            return None

    def entities(self) -> list[dict[str, Any]]:
        data = self.payload()
        items = data.get("entities") if isinstance(data, dict) else data
        return [e for e in items or [] if isinstance(e, dict)] if isinstance(items, list) else []

    def relations(self) -> list[dict[str, Any]]:
        data = self.payload()
        items = data.get("relations") if isinstance(data, dict) else data
        return [r for r in items or [] if isinstance(r, dict)] if isinstance(items, list) else []


class Session:
    """Calls tools on an open SDK ``Client`` and times each call; only the call itself is timed."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self.timings: dict[str, list[float]] = {}

    async def call(self, tool: str, arguments: dict[str, Any]) -> Reply:
        from mcp import MCPError
        from pydantic import ValidationError

        started = time.perf_counter()
        try:
            # The client's own read timeout bounds each call (open_client sets it from --timeout).
            result = await self._client.call_tool(tool, arguments)
        except MCPError as exc:
            ms = (time.perf_counter() - started) * 1000
            self.timings.setdefault(tool, []).append(ms)
            return Reply(ok=False, text=f"MCP error {exc.code}: {exc}", structured=None, ms=ms)
        except (RuntimeError, ValidationError) as exc:
            # The SDK refuses structuredContent that does not match the tool's outputSchema, and
            # results that are not valid MCP.
            ms = (time.perf_counter() - started) * 1000
            self.timings.setdefault(tool, []).append(ms)
            return Reply(ok=False, text=f"client rejected the result: {exc}", structured=None, ms=ms)
        ms = (time.perf_counter() - started) * 1000
        self.timings.setdefault(tool, []).append(ms)
        text = "".join(getattr(block, "text", "") for block in result.content or [])
        return Reply(ok=not result.is_error, text=text, structured=result.structured_content, ms=ms)


# --- the standard graph -------------------------------------------------------------------------

_TYPES = ("person", "project", "organization", "place", "tool", "event", "concept")
_ADJECTIVES = (
    "Amber",
    "Brisk",
    "Cobalt",
    "Dune",
    "Ember",
    "Frost",
    "Granite",
    "Harbor",
    "Indigo",
    "Juniper",
    "Kestrel",
    "Lumen",
    "Maple",
    "Nimbus",
    "Onyx",
    "Pine",
    "Quartz",
    "Raven",
    "Sable",
    "Tidal",
)
_NOUNS = (
    "Falcon",
    "Atlas",
    "Beacon",
    "Cedar",
    "Delta",
    "Echo",
    "Forge",
    "Grove",
    "Helix",
    "Iris",
    "Jetty",
    "Keel",
    "Lattice",
    "Meridian",
    "Nova",
    "Orbit",
    "Prism",
    "Quill",
    "Ridge",
    "Summit",
)
_RELATION_TYPES = ("works_on", "knows", "depends_on", "located_in", "part_of", "uses", "leads", "mentions")
_FACTS = (
    "Prefers {a} over {b} for day-to-day work",
    "Met the {a} team at the {b} offsite in {year}",
    "Owns the {a} project deadline, due in {month} {year}",
    "Reported a regression in {a} after the {b} upgrade",
    "Speaks at the {a} meetup every {month}",
    "Moved the {a} service to the {b} cluster in {year}",
    "Asked to be reminded about the {a} review before {month}",
    "Keeps the {a} runbook and the {b} checklist up to date",
    "Was introduced by {a} during the {b} kickoff",
    "Budget for {a} was approved in {month} {year}",
)
_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


def standard_graph(size: int, seed: int = SEED) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """``size`` entities (1–6 observations each) and about two relations per entity, from ``seed``.

    The graph of a smaller size is a prefix of a larger one (relations only point backwards), so
    the probe grows the small graph into the large one instead of rebuilding it.
    """
    rng = random.Random(seed)
    entities: list[dict[str, Any]] = []
    relations: list[dict[str, str]] = []
    for index in range(size):
        name = f"{PREFIX}_{rng.choice(_ADJECTIVES)}_{rng.choice(_NOUNS)}_{index:04d}"
        observations = []
        for _ in range(rng.randint(1, 6)):
            fact = rng.choice(_FACTS).format(
                a=f"{rng.choice(_ADJECTIVES)} {rng.choice(_NOUNS)}",
                b=f"{rng.choice(_ADJECTIVES)} {rng.choice(_NOUNS)}",
                month=rng.choice(_MONTHS),
                year=rng.randint(2019, 2026),
            )
            if fact not in observations:
                observations.append(fact)
        entities.append({"name": name, "entityType": rng.choice(_TYPES), "observations": observations})
        targets = sorted({rng.randrange(index) for _ in range(2)}) if index else []
        for target in targets:
            relations.append(
                {"from": name, "to": entities[target]["name"], "relationType": rng.choice(_RELATION_TYPES)}
            )
    return entities, relations


# --- conformance checks -------------------------------------------------------------------------


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

    def __init__(self, session: Session, number: int, static: dict[str, Any], tools: dict[str, dict]) -> None:
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
GROUPS = {
    "official": "Semantics of the official server (pinned by its upstream tests)",
    "upstream-fix": "Bugs fixed upstream after 2026.8.31 (merged pull requests)",
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


def _address(tools: dict[str, dict], tool: str, entity: str) -> dict[str, Any] | str:
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


def _feature_tool(static: dict[str, Any], feature: str) -> str:
    """The tool named first in a static-profile feature's evidence (``read_observation.offset+limit``)."""
    evidence = next(row["evidence"] for row in static["features"] if row["id"] == feature)
    return evidence[0].split(".", 1)[0].split("(", 1)[0]


async def _ranged(c: Ctx, body: str, **options: Any) -> Reply | Outcome:
    feature = "match-scoped-read" if "find" in options or "context" in options else "ranged-read"
    tool = _feature_tool(c.static, feature)
    address = _address(c.tools, tool, c.n("Doc"))
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
    address = _address(c.tools, tool, c.n(name))
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
    data = reply.payload() if isinstance(reply.payload(), dict) else {}
    entity = data.get("entity") if isinstance(data.get("entity"), dict) else {}
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
    digest = next((r for r in data.get("related") or [] if c.short(r.get("name")) == "Out"), {})
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
        return data["status"]
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


def offers(tools: dict[str, dict], tool: str, prop: str) -> bool:
    """Whether the server's ``tool`` declares the input property ``prop``."""
    return prop in (((tools.get(tool) or {}).get("inputSchema") or {}).get("properties") or {})


REQUIRED_TOOLS = ("create_entities", "delete_entities", "read_graph")


async def run_checks(
    session: Session, static: dict[str, Any], tools: dict[str, dict]
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


# --- token cost ---------------------------------------------------------------------------------


def estimate_tokens(chars: int) -> int:
    return math.ceil(chars / CHARS_PER_TOKEN)


def _cost(form: str, arguments: dict[str, Any], reply: Reply | None, why: str = "") -> dict[str, Any]:
    row: dict[str, Any] = {"form": form, "arguments": arguments, "available": reply is not None}
    if reply is None:
        row["note"] = why
        return row
    structured = (
        json.dumps(reply.structured, ensure_ascii=False, separators=(",", ":")) if reply.structured else ""
    )
    entities = len(reply.entities())
    row.update(
        ok=reply.ok,
        entities=entities,
        relations=len(reply.relations()),
        textChars=len(reply.text),
        structuredChars=len(structured),
        tokens=estimate_tokens(len(reply.text)),
        tokensPerEntity=round(estimate_tokens(len(reply.text)) / entities, 1) if entities else None,
        ms=round(reply.ms, 2),
        note=why,
    )
    return row


async def _load(session: Session, entities: list[dict], relations: list[dict]) -> None:
    for start in range(0, len(entities), _BATCH):
        reply = await session.call("create_entities", {"entities": entities[start : start + _BATCH]})
        if not reply.ok:
            raise ProbeError(
                f"loading the standard graph failed: create_entities answered {reply.text[:200]}"
            )
    for start in range(0, len(relations), _BATCH):
        reply = await session.call("create_relations", {"relations": relations[start : start + _BATCH]})
        if not reply.ok:
            raise ProbeError(
                f"loading the standard graph failed: create_relations answered {reply.text[:200]}"
            )


async def measure_reads(
    session: Session, tools: dict[str, dict], entities: list[dict]
) -> list[dict[str, Any]]:
    """Each read form once on the graph now loaded; unavailable forms say why."""

    rows = [_cost("read_graph", {}, await session.call("read_graph", {}))]
    if offers(tools, "read_graph", "observationLimit"):
        args = {"observationLimit": 0}
        rows.append(_cost("read_graph observationLimit 0", args, await session.call("read_graph", args)))
    else:
        rows.append(
            _cost(
                "read_graph observationLimit 0",
                {"observationLimit": 0},
                None,
                "read_graph has no observationLimit",
            )
        )
    if "search_nodes" in tools:
        if offers(tools, "search_nodes", "limit"):
            args = {"query": "project", "limit": 10}
            rows.append(_cost("search_nodes limit 10", args, await session.call("search_nodes", args)))
        else:
            args = {"query": "project"}
            rows.append(
                _cost(
                    "search_nodes (no limit offered)",
                    args,
                    await session.call("search_nodes", args),
                    "search_nodes has no limit: every match comes back",
                )
            )
    if "open_nodes" in tools:
        picks = [entities[i]["name"] for i in (0, len(entities) // 2, len(entities) - 1)]
        args = {"names": picks}
        rows.append(_cost("open_nodes of 3 names", args, await session.call("open_nodes", args)))
    return rows


# One sentence in the middle of the standard document: what a match-scoped read looks for.
DOCUMENT_MARKER = "Decision: the Quartz Meridian rollout moves to March after the load test."


def standard_document(seed: int = SEED, chars: int = 24_000) -> str:
    """A long observation (design notes of about ``chars`` characters) for the ranged-read figures."""
    rng = random.Random(seed)
    sentences = []
    while sum(len(s) + 1 for s in sentences) < chars:
        sentences.append(
            rng.choice(_FACTS).format(
                a=f"{rng.choice(_ADJECTIVES)} {rng.choice(_NOUNS)}",
                b=f"{rng.choice(_ADJECTIVES)} {rng.choice(_NOUNS)}",
                month=rng.choice(_MONTHS),
                year=rng.randint(2019, 2026),
            )
            + "."
        )
    sentences.insert(len(sentences) // 2, DOCUMENT_MARKER)
    return " ".join(sentences)[:chars]


async def measure_document(
    session: Session, tools: dict[str, dict], static: dict[str, Any], seed: int
) -> dict:
    """One entity holding one long observation: reading it whole against a range and a find."""
    name = f"{PREFIX}_Design_Notes"
    body = standard_document(seed)
    await session.call(
        "create_entities", {"entities": [{"name": name, "entityType": "document", "observations": [body]}]}
    )
    rows = []
    try:
        if "open_nodes" in tools:
            rows.append(
                _cost(
                    "open_nodes of the document",
                    {"names": [name]},
                    await session.call("open_nodes", {"names": [name]}),
                )
            )
        for feature, form, options in (
            ("ranged-read", "ranged read, 2,000 code points", {"offset": 0, "limit": 2000}),
            (
                "match-scoped-read",
                "match-scoped read, find “Decision:”, context 600",
                {"find": "Decision:", "context": 600},
            ),
        ):
            if not has_feature(static, feature):
                rows.append(_cost(form, options, None, f"no {FEATURES_BY_ID[feature].label.lower()}"))
                continue
            tool = _feature_tool(static, feature)
            address = _address(tools, tool, name)
            if isinstance(address, str):
                rows.append(_cost(form, options, None, address))
                continue
            arguments = {**address, **options}
            rows.append(_cost(form, arguments, await session.call(tool, arguments)))
    finally:
        await session.call("delete_entities", {"entityNames": [name]})
    return {"observationChars": len(body), "reads": rows}


async def measure_token_cost(
    session: Session, tools: dict[str, dict], sizes: Sequence[int], seed: int
) -> list[dict[str, Any]]:
    """Load the standard graph at each size (growing it), measure every read form, then delete it."""
    entities, relations = standard_graph(max(sizes), seed)
    loaded_entities = loaded_relations = 0
    results = []
    try:
        for size in sorted(sizes):
            names = {e["name"] for e in entities[:size]}
            size_relations = [r for r in relations if r["from"] in names]
            await _load(session, entities[loaded_entities:size], size_relations[loaded_relations:])
            loaded_entities, loaded_relations = size, len(size_relations)
            results.append(
                {
                    "entities": size,
                    "observations": sum(len(e["observations"]) for e in entities[:size]),
                    "relations": len(size_relations),
                    "reads": await measure_reads(session, tools, entities[:size]),
                }
            )
    finally:
        names = [e["name"] for e in entities[:loaded_entities]]
        for start in range(0, len(names), _BATCH):
            await session.call("delete_entities", {"entityNames": names[start : start + _BATCH]})
    return results


# --- latency ------------------------------------------------------------------------------------


def percentile(values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile (p95 of 20 calls is the 19th fastest)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def latency_summary(timings: dict[str, list[float]]) -> dict[str, dict[str, Any]]:
    return {
        tool: {
            "calls": len(values),
            "medianMs": round(statistics.median(values), 2),
            "p95Ms": round(percentile(values, 0.95), 2),
            "totalMs": round(sum(values), 1),
        }
        for tool, values in sorted(timings.items())
        if values
    }


# --- the whole probe ----------------------------------------------------------------------------


async def run_probe(
    client: Any,
    snapshot: dict[str, Any],
    *,
    force: bool = False,
    sizes: Sequence[int] = SIZES,
    seed: int = SEED,
) -> dict[str, Any]:
    """Probe the server behind an open SDK ``Client``; ``snapshot`` is its inspection (for the tools).

    Refuses (ProbeError) a server without the knowledge-graph tools the scenario needs, and a
    non-empty graph unless ``force``; with ``force`` the probe touches only names it wrote.
    """
    started = time.perf_counter()
    tools = {t["name"]: t for t in snapshot.get("tools") or [] if isinstance(t, dict) and "name" in t}
    missing = [t for t in REQUIRED_TOOLS if t not in tools]
    if missing:
        raise ProbeError(
            f"the target has no {', '.join(missing)}: the probe runs the knowledge-graph scenario of "
            "@modelcontextprotocol/server-memory and needs at least create_entities, delete_entities and "
            "read_graph; `mcpdex inspect` shows what this server offers"
        )
    static = static_profile(snapshot) or {}
    session = Session(client)
    before = await session.call("read_graph", {})
    if not before.ok:
        raise ProbeError(f"read_graph failed before the probe started: {before.text[:300]}")
    existing = (len(before.entities()), len(before.relations()))
    if any(existing) and not force:
        raise ProbeError(
            f"the graph is not empty ({existing[0]} entities, {existing[1]} relations): the probe "
            "creates and deletes entities and measures reads of a graph it builds itself, so it needs "
            "a server started on a fresh, empty store; start one for the probe, or pass --force to run "
            f"anyway (it only writes and deletes names starting with {PREFIX!r}, but token figures "
            "will include the existing data)"
        )
    checks = await run_checks(session, static, tools)
    token_cost = await measure_token_cost(session, tools, sizes, seed)
    document = await measure_document(session, tools, static, seed)
    final = await session.call("read_graph", {})
    leftovers = [e.get("name") for e in final.entities() if _OURS.match(str(e.get("name", "")))]
    counts = {kind: sum(1 for c in checks if c["outcome"] == kind) for kind in ("pass", "fail", "n/a")}
    server = snapshot.get("server") or {}
    return {
        "format": PROFILE_FORMAT,
        "server": {"name": server.get("name"), "version": server.get("version")},
        "versionLabel": snapshot.get("versionLabel"),
        "protocolVersion": snapshot.get("protocolVersion"),
        "probedAt": utc_now(),
        "durationS": round(time.perf_counter() - started, 2),
        "seed": seed,
        "preexisting": {"entities": existing[0], "relations": existing[1]},
        "leftovers": leftovers,
        "static": static,
        "conformance": {
            "passed": counts["pass"],
            "failed": counts["fail"],
            "notApplicable": counts["n/a"],
            "checks": checks,
        },
        "tokenCost": {
            "estimate": TOKEN_ESTIMATE,
            "charsPerToken": CHARS_PER_TOKEN,
            "sizes": token_cost,
            "document": document,
        },
        "latency": latency_summary(session.timings),
    }
