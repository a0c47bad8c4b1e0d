"""The memory server's MCP surface: the nine reference tools, two narrow reads, and the graph resource.

Every tool is a typed function (``mcp.server.MCPServer``): parameters become the input schema and
the annotated return type the output schema. Tools return a ``CallToolResult`` so the text block
is compact JSON (or the delete message) instead of the SDK's pretty-printed dump. The SDK expresses
every schema here; only the handshake-era ``resources/subscribe`` and ``resources/unsubscribe``
requests drop to the low-level server. Each write tells clients that the graph changed: those
listening on ``memory://knowledge-graph`` (2026-07-28 ``subscriptions/listen``) and those that
subscribed to it (2025-11-25 ``resources/subscribe``).
"""

from __future__ import annotations

import functools
import json
import sys
import weakref
from collections.abc import AsyncIterator
from importlib import metadata
from typing import Annotated, Any, Literal, NotRequired

import anyio
import mcp_types
import pydantic_core
from mcp.server import MCPServer
from mcp.server.connection import Connection
from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import (
    INVALID_REQUEST,
    PARSE_ERROR,
    CallToolResult,
    EmptyResult,
    ErrorData,
    JSONRPCError,
    SubscribeRequestParams,
    TextContent,
    ToolAnnotations,
    UnsubscribeRequestParams,
)
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from typing_extensions import TypedDict

from server import ranges
from server.graph import GraphError, GraphStore

# Input bounds, in code points or items. Generous for real use, small enough that one call
# cannot fill the disk or stall the server.
NAME_MAX = 500
TYPE_MAX = 200
OBSERVATION_MAX = 100_000
BATCH_MAX = 1_000
QUERY_MAX = 2_048
CONTEXT_MAX = 10_000
RELATED_MAX = 20
DEPTH_MAX = 3
# Counts and positions (limit, observationLimit, index, offset): far above any real graph, and
# inside SQLite's 64-bit integers, which a larger number would overflow.
COUNT_MAX = 1_000_000_000
EXCERPT_WIDTH = 160

GRAPH_URI = "memory://knowledge-graph"

INSTRUCTIONS = (
    "A knowledge graph for long-term memory: entities (a name, a type and observations, one fact "
    "each) linked by directed relations in active voice. To recall, search_nodes then open_nodes; "
    "read_graph with observationLimit 0 is a cheap overview. To record, create_entities, "
    "create_relations and add_observations."
)

# -- input models ---------------------------------------------------------------------------------

_ITEM = ConfigDict(strict=True, extra="ignore", json_schema_extra={"additionalProperties": False})

Name = Annotated[str, Field(strict=True, min_length=1, max_length=NAME_MAX)]
Observation = Annotated[str, Field(strict=True, max_length=OBSERVATION_MAX)]


class EntityInput(BaseModel):
    model_config = _ITEM
    name: Annotated[Name, Field(description="The name of the entity: a unique, case-sensitive identifier")]
    entityType: Annotated[str, Field(max_length=TYPE_MAX, description="The type of the entity, e.g. person")]
    observations: Annotated[
        list[Observation],
        Field(
            max_length=BATCH_MAX, description="An array of observation contents associated with the entity"
        ),
    ]


class RelationInput(BaseModel):
    model_config = ConfigDict(**_ITEM, populate_by_name=False)
    source: Annotated[
        Name, Field(alias="from", description="The name of the entity where the relation starts")
    ]
    to: Annotated[Name, Field(description="The name of the entity where the relation ends")]
    relationType: Annotated[
        str,
        Field(max_length=TYPE_MAX, description="The type of the relation, in active voice, e.g. works_at"),
    ]

    def as_dict(self) -> dict[str, str]:
        return {"from": self.source, "to": self.to, "relationType": self.relationType}


class ObservationAddition(BaseModel):
    model_config = _ITEM
    entityName: Annotated[Name, Field(description="The name of the entity to add the observations to")]
    contents: Annotated[
        list[Observation], Field(max_length=BATCH_MAX, description="An array of observation contents to add")
    ]


class ObservationDeletion(BaseModel):
    model_config = _ITEM
    entityName: Annotated[Name, Field(description="The name of the entity containing the observations")]
    observations: Annotated[
        list[Observation], Field(max_length=BATCH_MAX, description="An array of observations to delete")
    ]


ObservationLimit = Annotated[
    int | None,
    Field(
        strict=True,
        ge=0,
        le=COUNT_MAX,
        description="Return at most this many observations per entity (the first ones, in the order "
        "added), and add observationCount, the entity's total. 0 returns names, types and counts only. "
        "Omit for every observation.",
    ),
]

# -- output models --------------------------------------------------------------------------------


class EntityOutput(TypedDict):
    name: Annotated[str, Field(description="The name of the entity")]
    entityType: Annotated[str, Field(description="The type of the entity")]
    observations: Annotated[list[str], Field(description="Its observations, in the order added")]
    observationCount: NotRequired[
        Annotated[
            int, Field(description="Its total number of observations; present when observationLimit was sent")
        ]
    ]


RelationOutput = TypedDict(
    "RelationOutput",
    {
        "from": Annotated[str, Field(description="The name of the entity where the relation starts")],
        "to": Annotated[str, Field(description="The name of the entity where the relation ends")],
        "relationType": Annotated[str, Field(description="The type of the relation")],
    },
)


class GraphOutput(TypedDict):
    entities: list[EntityOutput]
    relations: list[RelationOutput]


class CreatedEntities(TypedDict):
    entities: Annotated[list[EntityOutput], Field(description="The entities actually created")]


class CreatedRelations(TypedDict):
    relations: Annotated[list[RelationOutput], Field(description="The relations actually created")]


class AddedObservations(TypedDict):
    entityName: str
    addedObservations: Annotated[list[str], Field(description="The contents that were new and were added")]


class ObservationResults(TypedDict):
    results: list[AddedObservations]


class DeleteResult(TypedDict):
    success: Annotated[bool, Field(description="True: the call ran; the message says what it found")]
    message: Annotated[
        str, Field(description="What was deleted, e.g. 'Deleted 1 of 2 entities. Not found: X'")
    ]


class TextWindow(TypedDict):
    offset: Annotated[int, Field(description="Where the window starts, in code points from the start")]
    text: str


class ObservationPart(TypedDict):
    entityName: str
    index: Annotated[int, Field(description="The observation's 0-based position in the entity's list")]
    totalLength: Annotated[int, Field(description="The observation's full length in code points")]
    offset: NotRequired[Annotated[int, Field(description="Range mode: where content starts")]]
    content: NotRequired[Annotated[str, Field(description="Range mode: the slice (empty past the end)")]]
    matchCount: NotRequired[Annotated[int, Field(description="Find mode: how many times find occurs")]]
    windows: NotRequired[
        Annotated[list[TextWindow], Field(description="Find mode: merged windows around the matches")]
    ]


class EntityDigest(TypedDict):
    name: str
    entityType: str
    observationCount: int
    excerpt: Annotated[str, Field(description=f"Its first observations, cut at {EXCERPT_WIDTH} characters")]
    hops: Annotated[int, Field(description="How many relation hops away from the entity it is")]


class Neighborhood(TypedDict):
    status: Annotated[
        Literal["ok", "not_found", "invalid"],
        Field(description="ok. not_found: no entity has that name. invalid: depth outside 0 to 3."),
    ]
    message: NotRequired[Annotated[str, Field(description="What went wrong, when status is not ok")]]
    entity: NotRequired[Annotated[EntityOutput, Field(description="The entity in full")]]
    related: NotRequired[
        Annotated[
            list[EntityDigest],
            Field(description=f"Linked entities within depth hops, nearest first, at most {RELATED_MAX}"),
        ]
    ]
    relatedTotal: NotRequired[Annotated[int, Field(description="How many linked entities there are in all")]]
    relations: NotRequired[
        Annotated[list[RelationOutput], Field(description="The relations among the returned entities")]
    ]


# -- descriptions ---------------------------------------------------------------------------------

DESCRIPTIONS = {
    "create_entities": (
        "Create new knowledge-graph entities (people, organizations, projects, concepts), each with a name, "
        "a type and observations (one fact per string). Names are exact, case-sensitive identifiers: an "
        "entity whose name already exists, or repeats an earlier one in the batch, is skipped unchanged, "
        "and only the entities actually created are returned. To add facts to an existing entity use "
        "add_observations; to link entities use create_relations."
    ),
    "create_relations": (
        "Create directed relations between existing knowledge-graph entities, in active voice from `from` "
        "to `to` (Alice knows Bob). Both endpoints must exist: if one is missing the call fails with "
        "'Entity with name X not found' and writes nothing, so create entities first with create_entities. "
        "A relation already stored or repeated in the batch is skipped; only new relations are returned."
    ),
    "add_observations": (
        "Append observations (one fact per string) to existing knowledge-graph entities. Contents an entity "
        "already holds are skipped; the result lists what was added to each. If any `entityName` does not "
        "exist the call fails with 'Entity with name X not found' and writes nothing; use create_entities "
        "for new entities, and delete_observations then add_observations to correct a fact."
    ),
    "delete_entities": (
        "Permanently delete knowledge-graph entities by exact name, with all their observations and every "
        "relation from or to them; this cannot be undone. Unknown names are skipped and listed in the "
        "message ('Deleted 1 of 2 entities. Not found: X'). Use delete_observations instead to remove "
        "single facts, and delete_relations to unlink entities but keep them."
    ),
    "delete_observations": (
        "Permanently delete specific observations from knowledge-graph entities; this cannot be undone. "
        "Each string must match exactly (case and spacing included); the entities and their relations "
        "stay. Unknown entities or observations are skipped and counted in the message ('Deleted 1 of 3 "
        "observations. Entities not found: X'). Read the exact text first with open_nodes; use "
        "delete_entities instead to remove a whole entity."
    ),
    "delete_relations": (
        "Permanently delete relations between knowledge-graph entities; this cannot be undone. Each is "
        "matched exactly on `from`, `to` and `relationType`, and the entities stay. Relations that match "
        "nothing are skipped and counted in the message ('Deleted 1 of 2 relations'). Use delete_entities "
        "instead to remove an entity together with all its relations."
    ),
    "read_graph": (
        "Read the entire knowledge graph: every entity with its observations and every relation. Use this "
        "only when you need everything; to find something prefer search_nodes, then open_nodes for the "
        "entities you need. On a large graph send `observationLimit` 0 for an overview of names, types "
        "and observation counts, and `entityTypes` to keep only some types."
    ),
    "search_nodes": (
        "Find knowledge-graph entities whose name, type or any observation contains the query as a "
        "case-insensitive substring (the whole query is one phrase, not separate keywords; an empty query "
        "matches all). Returns the matches in stored order and every relation from or to them. Use it when "
        "you don't know exact names; use open_nodes when you do. `limit` keeps only the first matches; "
        "`observationLimit` trims long observation lists."
    ),
    "open_nodes": (
        "Retrieve knowledge-graph entities by exact, case-sensitive name, with their observations and every "
        "relation from or to them, in stored order. Unknown names are skipped silently, so an empty result "
        "means none exist. Use it once search_nodes or read_graph gave you the names; read_neighborhood "
        "also shows what an entity links to, and read_observation pages through one long observation."
    ),
    "read_observation": (
        "Read part of one long observation of a knowledge-graph entity instead of all of it: a slice "
        "(`offset` and `limit`; by default the first 2,000 characters), or every match of `find` with "
        "`context` characters on each side (default 600), each window with its offset. Offsets count "
        "Unicode code points and never split a character. Use it when open_nodes shows an observation too "
        "long to load whole; `index` is its 0-based position in the entity's observations. Mixing the two "
        "modes, or `context` without `find`, is an error."
    ),
    "read_neighborhood": (
        "Read one knowledge-graph entity in full plus the entities linked to it within `depth` relation "
        f"hops (either direction), as digests: name, type, observation count and a {EXCERPT_WIDTH}-character "
        f"excerpt, nearest first, at most {RELATED_MAX}. Use it to explore around an entity, then open_nodes "
        "for the neighbours you need. status is not_found when no entity has that exact name, invalid when "
        "`depth` is outside 0 to 3."
    ),
}


# -- tools ----------------------------------------------------------------------------------------


def _annotations(
    title: str, *, read_only: bool = False, destructive: bool = False, idempotent: bool = False
) -> ToolAnnotations:
    return ToolAnnotations(
        title=title,
        read_only_hint=read_only,
        destructive_hint=destructive,
        idempotent_hint=idempotent,
        open_world_hint=False,
    )


def _compact_json(value: Any) -> str:
    # pydantic-core's encoder writes the same compact, non-ASCII-preserving JSON as
    # json.dumps(separators=(",", ":"), ensure_ascii=False), several times faster on large graphs.
    return pydantic_core.to_json(value).decode()


def _reply(structured: dict[str, Any], text: str | None = None) -> CallToolResult:
    body = text if text is not None else _compact_json(structured)
    return CallToolResult(content=[TextContent(type="text", text=body)], structured_content=structured)


def _delete_reply(
    noun: str, deleted: int, requested: int, missing: list[str], missing_label: str
) -> CallToolResult:
    message = f"Deleted {deleted} of {requested} {noun}."
    if missing:
        message += f" {missing_label}: {', '.join(missing)}."
    elif deleted < requested:
        message += " The rest matched nothing."
    return _reply({"success": True, "message": message}, message)


def _arguments_error(tool: str, exc: ValidationError) -> str:
    problems = []
    for error in exc.errors(include_url=False):
        field = ".".join(str(part) for part in error["loc"]) or "arguments"
        problems.append(f"{field}: {error['msg']}")
    return f"Invalid arguments for tool {tool}: " + "; ".join(problems)


class _MemoryTool(Tool):
    """A tool whose argument errors read as one line per field ("limit: Input should be ... >= 1")."""

    async def run(self, arguments: dict[str, Any], context: Any, convert_result: bool = False) -> Any:
        try:
            self.fn_metadata.validate_arguments(arguments)
        except ValidationError as exc:
            raise ToolError(_arguments_error(self.name, exc)) from exc
        return await super().run(arguments, context, convert_result=convert_result)


def _tidy(schema: dict[str, Any]) -> dict[str, Any]:
    """One plain schema, as the reference server publishes: ``$defs`` inlined, pydantic's generated
    titles dropped, and an optional parameter shown as its type (not ``anyOf [T, null]``, default null)."""
    defs = schema.get("$defs", {})

    def walk(node: Any, in_properties: bool = False) -> Any:
        if isinstance(node, list):
            return [walk(item) for item in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            target = defs[node["$ref"].rsplit("/", 1)[-1]]
            return walk({**target, **{k: v for k, v in node.items() if k != "$ref"}})
        branches = node.get("anyOf", [])
        if node.get("default", ...) is None and len(branches) == 2 and {"type": "null"} in branches:
            [present] = [branch for branch in branches if branch != {"type": "null"}]
            rest = {k: v for k, v in node.items() if k not in ("anyOf", "default")}
            return walk({**present, **rest})
        return {
            key: walk(value, key == "properties")
            for key, value in node.items()
            if key != "$defs" and (in_properties or key != "title")
        }

    return walk(schema)


def _server(ctx: Context) -> MemoryServer:
    return ctx.mcp_server  # type: ignore[return-value]


def _store(ctx: Context) -> GraphStore:
    return _server(ctx).store


async def _read(call: Any, *args: Any, **kwargs: Any) -> Any:
    """Run a graph call off the event loop; a refusal becomes a tool error the model can act on."""
    try:
        return await anyio.to_thread.run_sync(functools.partial(call, *args, **kwargs))
    except GraphError as exc:
        raise ToolError(str(exc)) from exc


async def _write(ctx: Context, call: Any, *args: Any) -> Any:
    """Like ``_read``, then tell listening and subscribed clients that the graph resource changed."""
    result = await _read(call, *args)
    await ctx.notify_resource_updated(GRAPH_URI)
    await _server(ctx).notify_subscribers(GRAPH_URI)
    return result


async def create_entities(
    ctx: Context,
    entities: Annotated[list[EntityInput], Field(max_length=BATCH_MAX, description="The entities to create")],
) -> Annotated[CallToolResult, CreatedEntities]:
    created = await _write(ctx, _store(ctx).create_entities, [e.model_dump() for e in entities])
    return _reply({"entities": created})


async def create_relations(
    ctx: Context,
    relations: Annotated[
        list[RelationInput], Field(max_length=BATCH_MAX, description="The relations to create")
    ],
) -> Annotated[CallToolResult, CreatedRelations]:
    created = await _write(ctx, _store(ctx).create_relations, [r.as_dict() for r in relations])
    return _reply({"relations": created})


async def add_observations(
    ctx: Context,
    observations: Annotated[
        list[ObservationAddition],
        Field(max_length=BATCH_MAX, description="For each entity, the observation contents to add"),
    ],
) -> Annotated[CallToolResult, ObservationResults]:
    results = await _write(ctx, _store(ctx).add_observations, [o.model_dump() for o in observations])
    return _reply({"results": results})


async def delete_entities(
    ctx: Context,
    entityNames: Annotated[
        list[Name], Field(max_length=BATCH_MAX, description="An array of entity names to delete")
    ],
) -> Annotated[CallToolResult, DeleteResult]:
    report = await _write(ctx, _store(ctx).delete_entities, entityNames)
    return _delete_reply("entities", report.deleted, report.requested, report.missing, "Not found")


async def delete_observations(
    ctx: Context,
    deletions: Annotated[
        list[ObservationDeletion],
        Field(max_length=BATCH_MAX, description="For each entity, the exact observations to delete"),
    ],
) -> Annotated[CallToolResult, DeleteResult]:
    report = await _write(ctx, _store(ctx).delete_observations, [d.model_dump() for d in deletions])
    return _delete_reply(
        "observations", report.deleted, report.requested, report.missing, "Entities not found"
    )


async def delete_relations(
    ctx: Context,
    relations: Annotated[
        list[RelationInput], Field(max_length=BATCH_MAX, description="An array of relations to delete")
    ],
) -> Annotated[CallToolResult, DeleteResult]:
    report = await _write(ctx, _store(ctx).delete_relations, [r.as_dict() for r in relations])
    return _delete_reply("relations", report.deleted, report.requested, [], "")


async def read_graph(
    ctx: Context,
    observationLimit: ObservationLimit = None,
    entityTypes: Annotated[
        list[Annotated[str, Field(strict=True, max_length=TYPE_MAX)]] | None,
        Field(
            min_length=1,
            max_length=BATCH_MAX,
            description="Only entities of these types (exact match), and the relations that touch them. "
            "Omit for every type.",
        ),
    ] = None,
) -> Annotated[CallToolResult, GraphOutput]:
    return _reply(
        await _read(_store(ctx).read_graph, observation_limit=observationLimit, entity_types=entityTypes)
    )


async def search_nodes(
    ctx: Context,
    query: Annotated[
        str,
        Field(
            strict=True,
            max_length=QUERY_MAX,
            description="The search query to match against entity names, types, and observation content",
        ),
    ],
    limit: Annotated[
        int | None,
        Field(
            strict=True,
            ge=1,
            le=COUNT_MAX,
            description="Return at most this many matching entities (the first in stored order). "
            "Omit for every match.",
        ),
    ] = None,
    observationLimit: ObservationLimit = None,
) -> Annotated[CallToolResult, GraphOutput]:
    return _reply(
        await _read(_store(ctx).search_nodes, query, limit=limit, observation_limit=observationLimit)
    )


async def open_nodes(
    ctx: Context,
    names: Annotated[
        list[Name], Field(max_length=BATCH_MAX, description="An array of entity names to retrieve")
    ],
    observationLimit: ObservationLimit = None,
) -> Annotated[CallToolResult, GraphOutput]:
    return _reply(await _read(_store(ctx).open_nodes, names, observation_limit=observationLimit))


async def read_observation(
    ctx: Context,
    entityName: Annotated[Name, Field(description="The exact name of the entity holding the observation")],
    index: Annotated[
        int,
        Field(
            strict=True,
            ge=0,
            le=COUNT_MAX,
            description="The observation's 0-based position, in the order added",
        ),
    ],
    offset: Annotated[
        int | None,
        Field(
            strict=True,
            ge=0,
            le=COUNT_MAX,
            description="Range mode: the first code point to return (default 0)",
        ),
    ] = None,
    limit: Annotated[
        int | None,
        Field(
            strict=True,
            ge=0,
            le=OBSERVATION_MAX,
            description=f"Range mode: how many code points to return (default {ranges.DEFAULT_LIMIT})",
        ),
    ] = None,
    find: Annotated[
        str | None,
        Field(
            strict=True,
            max_length=QUERY_MAX,
            description="Find mode: the exact, case-sensitive text to locate; every occurrence counts",
        ),
    ] = None,
    context: Annotated[
        int | None,
        Field(
            strict=True,
            ge=0,
            le=CONTEXT_MAX,
            description=f"Find mode: code points kept on each side of a match "
            f"(default {ranges.DEFAULT_CONTEXT}); requires find",
        ),
    ] = None,
) -> Annotated[CallToolResult, ObservationPart]:
    if (offset is not None or limit is not None) and (find is not None or context is not None):
        raise ToolError("offset/limit and find/context are two modes and cannot be mixed: send one group")
    if context is not None and find is None:
        raise ToolError("context requires find: send find with the text to locate, or drop context")
    text, _ = await _read(_store(ctx).observation, entityName, index)
    part: dict[str, Any] = {"entityName": entityName, "index": index, "totalLength": len(text)}
    if find is None:
        window = ranges.slice_text(text, offset or 0, ranges.DEFAULT_LIMIT if limit is None else limit)
        part |= {"offset": window.offset, "content": window.text}
    else:
        count, windows = ranges.find_windows(
            text, find, ranges.DEFAULT_CONTEXT if context is None else context
        )
        part |= {"matchCount": count, "windows": [{"offset": w.offset, "text": w.text} for w in windows]}
    return _reply(part)


async def read_neighborhood(
    ctx: Context,
    name: Annotated[Name, Field(description="The exact name of the entity to start from")],
    depth: Annotated[
        int,
        Field(strict=True, description="How many relation hops of linked entities to include, 0 to 3"),
    ] = 1,
) -> Annotated[CallToolResult, Neighborhood]:
    if not 0 <= depth <= DEPTH_MAX:
        return _reply(
            {
                "status": "invalid",
                "message": f"depth: {depth} is outside 0 to {DEPTH_MAX}; send 0 to {DEPTH_MAX}",
            }
        )
    found = await _read(_store(ctx).neighborhood, name, depth, max_related=RELATED_MAX)
    if found is None:
        return _reply(
            {"status": "not_found", "message": f"No entity is named {name}; find it with search_nodes"}
        )
    entity, related, total, relations = found
    digests = [
        {
            "name": e["name"],
            "entityType": e["entityType"],
            "observationCount": len(e["observations"]),
            "excerpt": ranges.excerpt("; ".join(e["observations"]), EXCERPT_WIDTH),
            "hops": hops,
        }
        for e, hops in related
    ]
    return _reply(
        {
            "status": "ok",
            "entity": entity,
            "related": digests,
            "relatedTotal": total,
            "relations": relations,
        }
    )


_TOOL_FUNCTIONS = [
    (create_entities, _annotations("Create Entities")),
    (create_relations, _annotations("Create Relations")),
    (add_observations, _annotations("Add Observations")),
    (delete_entities, _annotations("Delete Entities", destructive=True, idempotent=True)),
    (delete_observations, _annotations("Delete Observations", destructive=True, idempotent=True)),
    (delete_relations, _annotations("Delete Relations", destructive=True, idempotent=True)),
    (read_graph, _annotations("Read Graph", read_only=True, idempotent=True)),
    (search_nodes, _annotations("Search Nodes", read_only=True, idempotent=True)),
    (open_nodes, _annotations("Open Nodes", read_only=True, idempotent=True)),
    (read_observation, _annotations("Read Observation", read_only=True, idempotent=True)),
    (read_neighborhood, _annotations("Read Neighborhood", read_only=True, idempotent=True)),
]


@functools.cache
def _tools() -> tuple[Tool, ...]:
    """The tool definitions, built once per process: they find their graph through the request context."""
    tools = []
    for fn, hints in _TOOL_FUNCTIONS:
        tool = _MemoryTool.from_function(
            fn, title=hints.title, description=DESCRIPTIONS[fn.__name__], annotations=hints
        )
        tool.parameters = _tidy(tool.parameters)
        tool.fn_metadata.output_schema = _tidy(tool.fn_metadata.output_schema or {})
        tools.append(tool)
    return tuple(tools)


def _version() -> str:
    try:
        return metadata.version("mcpdex")
    except metadata.PackageNotFoundError:
        return "0.0.0"


class MemoryServer(MCPServer):
    """An MCP server whose tools read and write ``store``."""

    def __init__(self, store: GraphStore) -> None:
        super().__init__(
            "mcpdex-memory",
            title="mcpdex memory",
            version=_version(),
            instructions=INSTRUCTIONS,
            tools=list(_tools()),
            log_level="WARNING",
        )
        self.store = store
        # Handshake-era subscriptions: the URIs each client connection subscribed to. Held weakly,
        # so a connection that closes drops out without an unsubscribe.
        self._graph_subscribers: weakref.WeakKeyDictionary[Connection, set[str]] = weakref.WeakKeyDictionary()
        # MCPServer has no public hook for these two requests; the low-level server serves them and
        # then advertises ``resources.subscribe`` to 2025-11-25 clients.
        self._lowlevel_server.add_request_handler(
            "resources/subscribe", SubscribeRequestParams, self._subscribe
        )
        self._lowlevel_server.add_request_handler(
            "resources/unsubscribe", UnsubscribeRequestParams, self._unsubscribe
        )

    async def run_stdio_async(self) -> None:
        """Serve over stdio; a line that is not a JSON-RPC message is answered with a JSON-RPC error.

        The SDK drops such a line without a word, and its sender waits out its whole timeout: a
        lone-surrogate escape, nesting deeper than the parser goes, or a message of the wrong shape.
        """
        import io

        stdin = anyio.wrap_file(io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace"))
        errors_in, errors_out = anyio.create_memory_object_stream[JSONRPCError](16)
        async with stdio_server(stdin=_valid_lines(stdin, errors_in)) as (read_stream, write_stream):

            async def answer_errors() -> None:
                async with errors_out:
                    async for error in errors_out:
                        await write_stream.send(SessionMessage(error))

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(answer_errors)
                await self._lowlevel_server.run(
                    read_stream, write_stream, self._lowlevel_server.create_initialization_options()
                )
                tasks.cancel_scope.cancel()

    async def notify_subscribers(self, uri: str) -> None:
        """Send ``notifications/resources/updated`` for ``uri`` to every connection subscribed to it.

        A connection whose stream has closed is skipped (the SDK drops the message)."""
        for connection, uris in list(self._graph_subscribers.items()):
            if uri in uris:
                await connection.send_resource_updated(uri)

    # Like the official server, any URI is accepted: a subscription to one that never changes
    # is simply never notified.
    async def _subscribe(self, ctx: ServerRequestContext, params: SubscribeRequestParams) -> EmptyResult:
        self._graph_subscribers.setdefault(_connection(ctx), set()).add(params.uri)
        return EmptyResult()

    async def _unsubscribe(self, ctx: ServerRequestContext, params: UnsubscribeRequestParams) -> EmptyResult:
        self._graph_subscribers.get(_connection(ctx), set()).discard(params.uri)
        return EmptyResult()


async def _valid_lines(lines: Any, errors: Any) -> AsyncIterator[str]:
    """The lines of ``lines`` that are JSON-RPC messages; for each other one, an error sent to ``errors``."""
    async with errors:
        async for line in lines:
            if not line.strip():
                continue
            try:
                mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
            except ValueError as exc:
                await errors.send(_rejection(line, exc))
                continue
            yield line


def _rejection(line: str, exc: ValueError) -> JSONRPCError:
    """The error answering ``line``: Invalid Request with the request's id when Python's JSON parser can
    still read one (it takes lone surrogates), else Parse error with a null id, as JSON-RPC says."""
    reason = exc.errors()[0]["msg"] if isinstance(exc, pydantic_core.ValidationError) else str(exc)
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return JSONRPCError(
            jsonrpc="2.0", id=None, error=ErrorData(code=PARSE_ERROR, message=f"Parse error: {reason}")
        )
    request_id = message.get("id") if isinstance(message, dict) else None
    if not isinstance(request_id, int | str) or isinstance(request_id, bool):
        request_id = None
    return JSONRPCError(
        jsonrpc="2.0",
        id=request_id,
        error=ErrorData(code=INVALID_REQUEST, message=f"Invalid Request: {reason}"),
    )


def _connection(ctx: ServerRequestContext) -> Connection:
    # The session is made anew for each request; the connection it wraps is the client's for as long
    # as it stays connected, and the SDK offers no public way to reach it from a request.
    return ctx.session._connection


def build_server(store: GraphStore) -> MemoryServer:
    """The memory MCP server over ``store``; run it with ``.run()`` (stdio) or serve its HTTP app."""
    server = MemoryServer(store)

    @server.resource(
        GRAPH_URI,
        name="knowledge-graph",
        title="Knowledge Graph",
        description="The full knowledge graph with all entities and relations",
        mime_type="application/json",
    )
    def knowledge_graph() -> str:
        return _compact_json(store.read_graph())

    return server
