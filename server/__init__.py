"""The reference knowledge-graph memory MCP server: the official tool surface on SQLite.
``GraphStore`` holds the graph; ``build_server(store)`` is its MCP server (see ``server.app``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from server.graph import GraphError, GraphStore

if TYPE_CHECKING:
    from server.app import MemoryServer

__all__ = ["GraphError", "GraphStore", "build_server"]


def __getattr__(name: str) -> Callable[[GraphStore], MemoryServer]:
    # The MCP surface imports the SDK (~1.5 s); load it only for callers that serve.
    if name == "build_server":
        from server.app import build_server

        return build_server
    raise AttributeError(name)
