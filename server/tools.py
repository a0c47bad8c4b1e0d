"""The memory server's eleven tools: typed functions over the graph store, their replies and how the
SDK builds their definitions.

Every tool is a typed function (``mcp.server.MCPServer``): parameters become the input schema and
the annotated return type the output schema. Tools return a ``CallToolResult`` so the text block
is compact JSON (or the delete message) instead of the SDK's pretty-printed dump.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, ParamSpec, Protocol, TypeVar, cast

import anyio
import pydantic_core
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field, ValidationError

from server import ranges
from server.descriptions import DESCRIPTIONS
from server.graph import GraphError, GraphStore
from server.models import (
    BATCH_MAX,
    CONTEXT_MAX,
    COUNT_MAX,
    DEPTH_MAX,
    EXCERPT_WIDTH,
    GRAPH_URI,
    OBSERVATION_MAX,
    QUERY_MAX,
    RELATED_MAX,
    TYPE_MAX,
    CreatedEntities,
    CreatedRelations,
    DeleteResult,
    EntityInput,
    GraphOutput,
    Name,
    Neighborhood,
    ObservationAddition,
    ObservationDeletion,
    ObservationLimit,
    ObservationPart,
    ObservationResults,
    RelationInput,
)
from server.schemas import tidy_schema

P = ParamSpec("P")
T = TypeVar("T")
A = TypeVar("A")


class GraphHost(Protocol):
    """What the tools need of the server they run in (``server.app.MemoryServer``)."""

    store: GraphStore

    async def notify_subscribers(self, uri: str) -> None: ...


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


def compact_json(value: Any) -> str:
    # pydantic-core's encoder writes the same compact, non-ASCII-preserving JSON as
    # json.dumps(separators=(",", ":"), ensure_ascii=False), several times faster on large graphs.
    return pydantic_core.to_json(value).decode()


def _reply(structured: dict[str, Any], text: str | None = None) -> CallToolResult:
    body = text if text is not None else compact_json(structured)
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


def _server(ctx: Context) -> GraphHost:
    # The tools are registered on a MemoryServer only (server.app), which the SDK types as its base class.
    return cast(GraphHost, ctx.mcp_server)


def _store(ctx: Context) -> GraphStore:
    return _server(ctx).store


async def _read(call: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """Run a graph call off the event loop; a refusal becomes a tool error the model can act on."""
    try:
        return await anyio.to_thread.run_sync(functools.partial(call, *args, **kwargs))
    except GraphError as exc:
        raise ToolError(str(exc)) from exc


async def _write(ctx: Context, call: Callable[[A], T], changes: A) -> T:
    """Like ``_read``, then tell listening and subscribed clients that the graph resource changed."""
    result = await _read(call, changes)
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


_TOOL_FUNCTIONS: list[tuple[Callable[..., Awaitable[CallToolResult]], ToolAnnotations]] = [
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
def memory_tools() -> tuple[Tool, ...]:
    """The tool definitions, built once per process: they find their graph through the request context."""
    tools = []
    for fn, hints in _TOOL_FUNCTIONS:
        tool = _MemoryTool.from_function(
            fn, title=hints.title, description=DESCRIPTIONS[fn.__name__], annotations=hints
        )
        tool.parameters = tidy_schema(tool.parameters)
        tool.fn_metadata.output_schema = tidy_schema(tool.fn_metadata.output_schema or {})
        tools.append(tool)
    return tuple(tools)
