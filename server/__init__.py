"""The reference knowledge-graph memory MCP server: the official tool surface on SQLite.
``GraphStore`` holds the graph; ``build_server(store)`` is its MCP server (see ``server.app``)."""

from server.graph import GraphError, GraphStore

__all__ = ["GraphError", "GraphStore", "build_server"]


def __getattr__(name: str):
    # The MCP surface imports the SDK (~1.5 s); load it only for callers that serve.
    if name == "build_server":
        from server.app import build_server

        return build_server
    raise AttributeError(name)
