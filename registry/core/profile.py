"""Memory-server profiles read from a snapshot alone: the knowledge-graph surface a server offers
and the token-saving reads it advertises, set against the official ``server-memory``.

Pure: no MCP, no database, no clock. The active probe (``registry.probing.probe``) adds measured
conformance, token cost and latency to the same Profile document.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

PROFILE_FORMAT = "mcpdex.memory-profile/1"

# The official knowledge-graph surface (@modelcontextprotocol/server-memory), in its listing order.
OFFICIAL_TOOLS: tuple[str, ...] = (
    "create_entities",
    "create_relations",
    "add_observations",
    "delete_entities",
    "delete_observations",
    "delete_relations",
    "read_graph",
    "search_nodes",
    "open_nodes",
)

# Words in a tool or server name that mark a memory server even without the official tools.
_MEMORY_WORDS = frozenset(
    {"memory", "memories", "mem", "observation", "observations", "remember", "recall", "knowledge"}
)
_READ_VERBS = frozenset(
    {
        "read",
        "search",
        "open",
        "get",
        "find",
        "query",
        "recall",
        "retrieve",
        "list",
        "fetch",
        "build",
        "lookup",
        "timeline",
        "context",
        "show",
        "view",
        "recent",
    }
)
_WRITE_VERBS = frozenset(
    {
        "create",
        "add",
        "delete",
        "update",
        "save",
        "write",
        "remove",
        "set",
        "edit",
        "store",
        "insert",
        "append",
    }
)
_SEARCH_WORDS = frozenset({"search", "query", "recall", "find", "lookup", "retrieve"})


def _words(name: str) -> list[str]:
    """``readGraph``, ``read-graph``, ``mcp__memory__read_graph`` → their lower-case words."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    return [w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if w]


def _key(name: str) -> str:
    """A property name folded so ``observationLimit`` and ``observation_limit`` compare equal."""
    return "".join(_words(name))


@dataclass(frozen=True)
class _Tool:
    name: str
    words: tuple[str, ...]
    properties: dict[str, dict[str, Any]]
    required: frozenset[str]
    output_keys: frozenset[str]
    read_only: bool

    @property
    def is_read(self) -> bool:
        if self.read_only:
            return True
        return not _WRITE_VERBS.intersection(self.words) and (
            bool(_READ_VERBS.intersection(self.words)) or self.is_search
        )

    @property
    def is_search(self) -> bool:
        return bool(_SEARCH_WORDS.intersection(self.words)) or any(
            _key(p) == "query" for p in self.properties
        )

    def props(self, keys: frozenset[str], *, integer: bool = False) -> list[str]:
        """Names of top-level input properties whose folded name is in ``keys``."""
        found = []
        for prop, schema in self.properties.items():
            if _key(prop) in keys and (not integer or _is_integer(schema)):
                found.append(prop)
        return found


def _is_integer(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    if "integer" in kinds or "number" in kinds:
        return True
    return any(_is_integer(option) for option in schema.get("anyOf", []) + schema.get("oneOf", []))


def _all_property_names(schema: Any) -> Iterator[str]:
    """Every property name declared anywhere in a JSON Schema (nested items, $defs, anyOf…)."""
    if isinstance(schema, dict):
        properties = schema.get("properties")
        if isinstance(properties, dict):
            yield from properties
        for value in schema.values():
            yield from _all_property_names(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _all_property_names(value)


def _tool(raw: dict[str, Any]) -> _Tool:
    schema: dict[str, Any] = raw["inputSchema"] if isinstance(raw.get("inputSchema"), dict) else {}
    properties: dict[str, Any] = schema["properties"] if isinstance(schema.get("properties"), dict) else {}
    annotations: dict[str, Any] = raw["annotations"] if isinstance(raw.get("annotations"), dict) else {}
    return _Tool(
        name=str(raw.get("name", "")),
        words=tuple(_words(str(raw.get("name", "")))),
        properties={k: v for k, v in properties.items() if isinstance(v, dict)},
        required=frozenset(r for r in schema.get("required", []) if isinstance(r, str)),
        output_keys=frozenset(_key(k) for k in _all_property_names(raw.get("outputSchema"))),
        read_only=annotations.get("readOnlyHint") is True,
    )


@dataclass
class _Surface:
    tools: list[_Tool]
    official: dict[str, str] = field(default_factory=dict)  # official name → name on this server

    def read_tools(self) -> list[_Tool]:
        writes = {self.official.get(n) for n in OFFICIAL_TOOLS[:6]}
        return [t for t in self.tools if t.is_read and t.name not in writes]


def _match_official(tools: list[_Tool]) -> dict[str, str]:
    """Official name → this server's tool: the same words, optionally behind a namespace prefix."""
    matched: dict[str, str] = {}
    for official in OFFICIAL_TOOLS:
        target = tuple(official.split("_"))
        for tool in tools:
            if tool.words == target or tool.words[-len(target) :] == target:
                matched[official] = tool.name
                break
    return matched


# --- the feature table --------------------------------------------------------------------------
# Each detector returns its evidence ("tool.property"); an empty list means the feature is absent.

_OBSERVATION_LIMIT = frozenset({"observationlimit", "maxobservations", "observationslimit", "obslimit"})
_OBSERVATION_COUNT = frozenset({"observationcount", "observationscount"})
_TYPE_FILTER = frozenset(
    {"entitytypes", "entitytype", "types", "type", "notetypes", "obstype", "observationtypes"}
)
_RESULT_LIMIT = frozenset({"limit", "maxresults", "pagesize", "topk", "maxnodes", "maxfacts"})
_RANGE_START = frozenset({"offset", "start"})
_RANGE_LENGTH = frozenset({"limit", "length", "maxchars"})
_DEPTH = frozenset({"depth", "maxdepth", "hops", "maxhops"})


def _observation_limit(surface: _Surface) -> list[str]:
    return [f"{t.name}.{p}" for t in surface.read_tools() for p in t.props(_OBSERVATION_LIMIT, integer=True)]


def _observation_count(surface: _Surface) -> list[str]:
    return [
        f"{t.name} → observationCount" for t in surface.read_tools() if t.output_keys & _OBSERVATION_COUNT
    ]


def _type_filter(surface: _Surface) -> list[str]:
    return [f"{t.name}.{p}" for t in surface.read_tools() for p in t.props(_TYPE_FILTER)]


def _result_limit(surface: _Surface) -> list[str]:
    return [
        f"{t.name}.{p}"
        for t in surface.read_tools()
        if t.is_search
        for p in t.props(_RESULT_LIMIT, integer=True)
    ]


def _ranged_read(surface: _Surface) -> list[str]:
    evidence = []
    for t in surface.read_tools():
        start, length = t.props(_RANGE_START, integer=True), t.props(_RANGE_LENGTH, integer=True)
        if start and length and not t.is_search:
            evidence.append(f"{t.name}.{start[0]}+{length[0]}")
    return evidence


def _match_scoped_read(surface: _Surface) -> list[str]:
    return [
        f"{t.name}.find+context"
        for t in surface.read_tools()
        if t.props(frozenset({"find"})) and t.props(frozenset({"context"}), integer=True)
    ]


# A depth over a directory tree (list_directory.depth, find.depth beside a path) is recursion, not hops.
_FILESYSTEM_WORDS = frozenset({"directory", "dir", "file", "files", "folder", "tree", "path", "glob"})
_FILESYSTEM_PROPS = frozenset({"path", "directory", "dir", "root", "folder", "cwd", "glob", "pattern"})


def _depth_read(surface: _Surface) -> list[str]:
    return [
        f"{t.name}.{p}"
        for t in surface.read_tools()
        if not _FILESYSTEM_WORDS.intersection(t.words) and not t.props(_FILESYSTEM_PROPS)
        for p in t.props(_DEPTH, integer=True)
    ]


def _progressive_disclosure(surface: _Surface) -> list[str]:
    """A compact search first, then details by id or name (claude-mem's index → get_observations)."""
    searches = [t for t in surface.read_tools() if t.is_search]
    details = [
        (t, p)
        for t in surface.read_tools()
        if not t.is_search
        for p in t.required
        if p in t.properties
        and t.properties[p].get("type") == "array"
        and (_key(p) in {"ids", "names"} or _key(p).endswith("ids"))
    ]
    evidence = []
    for search in searches:
        compact = search.props(_OBSERVATION_LIMIT, integer=True)
        for detail, prop in details:
            if compact:
                evidence.append(f"{search.name}({compact[0]}: 0) → {detail.name}({prop})")
            elif _key(prop).endswith("ids"):
                evidence.append(f"{search.name} → {detail.name}({prop})")
    return evidence


@dataclass(frozen=True)
class Feature:
    """One row of the feature table: what a memory server may offer to keep reads small."""

    id: str
    label: str
    explanation: str
    official: bool  # whether @modelcontextprotocol/server-memory 2026.8.31 offers it
    detect: Callable[[_Surface], list[str]]


FEATURES: tuple[Feature, ...] = (
    Feature(
        "observation-limit",
        "Per-entity observation limit",
        "Reads can cap the observations returned per entity (observationLimit: 0 gives names and "
        "types only).",
        False,
        _observation_limit,
    ),
    Feature(
        "observation-count",
        "Observation counts",
        "Truncated entities say how many observations they have, so a cut list is not ambiguous.",
        False,
        _observation_count,
    ),
    Feature(
        "type-filter",
        "Entity-type filter",
        "A read can be limited to entities of given types.",
        False,
        _type_filter,
    ),
    Feature(
        "result-limit",
        "Search result limit",
        "A search can return at most N matches instead of every match.",
        False,
        _result_limit,
    ),
    Feature(
        "ranged-read",
        "Ranged read of one record",
        "Part of one long record by offset and length, instead of the whole body.",
        False,
        _ranged_read,
    ),
    Feature(
        "match-scoped-read",
        "Match-scoped read of one record",
        "Windows of context around each match of a string inside one record.",
        False,
        _match_scoped_read,
    ),
    Feature(
        "depth-read",
        "Relation-depth read",
        "One entity plus its neighbours within N relation hops, as digests.",
        False,
        _depth_read,
    ),
    Feature(
        "progressive-disclosure",
        "Progressive disclosure",
        "A compact search index first, then full details only for chosen ids or names.",
        False,
        _progressive_disclosure,
    ),
)
FEATURES_BY_ID = {feature.id: feature for feature in FEATURES}


def _is_memory_server(snapshot: dict[str, Any], surface: _Surface) -> bool:
    if len(surface.official) >= 3:
        return True
    server_name = str((snapshot.get("server") or {}).get("name") or "")
    names = [t.words for t in surface.tools] + [tuple(_words(server_name))]
    return any(_MEMORY_WORDS.intersection(words) for words in names)


def static_profile(snapshot: dict[str, Any]) -> dict[str, Any] | None:
    """The memory surface and read features a snapshot advertises; None when it is no memory server.

    ``surface`` is ``knowledge-graph`` (all nine official tools), ``knowledge-graph-partial`` (three
    or more of them) or ``memory`` (a memory server of another shape). ``features`` is the feature
    table, each row with this server's value, the official server's, and the evidence.
    """
    tools = [_tool(raw) for raw in snapshot.get("tools") or [] if isinstance(raw, dict)]
    surface = _Surface(tools=tools, official=_match_official(tools))
    if not _is_memory_server(snapshot, surface):
        return None
    count = len(surface.official)
    kind = (
        "knowledge-graph"
        if count == len(OFFICIAL_TOOLS)
        else ("knowledge-graph-partial" if count >= 3 else "memory")
    )
    features = []
    for feature in FEATURES:
        evidence = feature.detect(surface)
        features.append(
            {
                "id": feature.id,
                "label": feature.label,
                "server": bool(evidence),
                "official": feature.official,
                "evidence": evidence,
            }
        )
    matched = set(surface.official.values())
    return {
        "surface": kind,
        "officialTools": {name: surface.official.get(name) for name in OFFICIAL_TOOLS},
        "officialToolCount": count,
        "features": features,
        "otherTools": [t.name for t in tools if t.name not in matched],
    }


def has_feature(static: dict[str, Any] | None, feature_id: str) -> bool:
    """Whether a static profile shows ``feature_id``."""
    if not static:
        return False
    return any(row["id"] == feature_id and row["server"] for row in static["features"])


def page_profile(snapshot: dict[str, Any], stored: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """What a server page shows as its memory profile (``_memory_profile.html.j2`` takes it as ``profile``).

    The stored probe Profile when there is one; else a static-only Profile (no ``conformance``,
    ``tokenCost`` or ``latency``) for a memory server; None for a server that is neither.
    """
    if stored and stored.get("format") == PROFILE_FORMAT:
        return stored
    static = static_profile(snapshot)
    if static is None:
        return None
    from registry.core.operations import map_operations, offers_store_and_recall

    server = snapshot.get("server") or {}
    operations = map_operations([t for t in snapshot.get("tools") or [] if isinstance(t, dict)])
    return {
        "format": PROFILE_FORMAT,
        "server": {"name": server.get("name"), "version": server.get("version")},
        "static": static,
        "operations": operations,
        # Whether `mcpdex probe` can run on it: it needs a store and a recall.
        "probeable": offers_store_and_recall(operations),
    }
