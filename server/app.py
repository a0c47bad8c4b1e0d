"""The memory MCP server itself: the tools (``server.tools``) and the graph resource on one
``MCPServer``, served over stdio or HTTP, with its resource subscriptions.

The SDK expresses every schema here; only the handshake-era ``resources/subscribe`` and
``resources/unsubscribe`` requests drop to the low-level server. Each write tells clients that the
graph changed: those listening on ``memory://knowledge-graph`` (2026-07-28 ``subscriptions/listen``)
and those that subscribed to it (2025-11-25 ``resources/subscribe``).
"""

from __future__ import annotations

import io
import sys
import weakref
from importlib import metadata

import anyio
from mcp.server import MCPServer
from mcp.server.connection import Connection
from mcp.server.context import ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import EmptyResult, JSONRPCError, SubscribeRequestParams, UnsubscribeRequestParams

from server.descriptions import INSTRUCTIONS
from server.graph import GraphStore
from server.models import GRAPH_URI
from server.stdio import valid_lines
from server.tools import compact_json, memory_tools


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
            tools=list(memory_tools()),
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
        stdin = anyio.wrap_file(io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace"))
        errors_in, errors_out = anyio.create_memory_object_stream[JSONRPCError](16)
        # stdio_server only iterates its stdin (async for line in stdin): any async iterator of str serves.
        lines = valid_lines(stdin, errors_in)
        async with stdio_server(stdin=lines) as (read_stream, write_stream):  # type: ignore[arg-type]

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
        return compact_json(store.read_graph())

    return server
