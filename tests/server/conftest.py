"""Fixtures for the memory server tests: a fresh graph file and a real MCP client session over it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from server.graph import GraphStore


class Session:
    """An MCP client session with the memory server, with helpers that assert success or failure."""

    def __init__(self, client: Any) -> None:
        self.client = client

    async def ok(self, tool: str, **arguments: Any) -> dict:
        """Call a tool that must succeed; return its structured result."""
        result = await self.client.call_tool(tool, arguments)
        assert not result.is_error, result.content[0].text
        return result.structured_content

    async def error(self, tool: str, **arguments: Any) -> str:
        """Call a tool that must fail; return its error text."""
        result = await self.client.call_tool(tool, arguments)
        assert result.is_error, result.structured_content
        return result.content[0].text


class Updates:
    """The URIs of the ``notifications/resources/updated`` a client received, in order."""

    def __init__(self) -> None:
        self.uris: list[str] = []

    async def __call__(self, message: Any) -> None:
        if getattr(message, "method", None) == "notifications/resources/updated":
            self.uris.append(message.params.uri)


def entity(name: str, kind: str = "person", *observations: str) -> dict:
    """An entity as the memory tools take and return it."""
    return {"name": name, "entityType": kind, "observations": list(observations)}


def relation(source: str, target: str, kind: str) -> dict:
    return {"from": source, "to": target, "relationType": kind}


async def seed(mem: Session) -> None:
    """Alice (3 observations) knows Bob (1) and works at Acme Corp (2)."""
    await mem.ok(
        "create_entities",
        entities=[
            entity("Alice", "person", "works at Acme Corp", "likes tea", "speaks Spanish"),
            entity("Bob", "person", "plays chess"),
            entity("Acme Corp", "organization", "makes anvils", "founded 1920"),
        ],
    )
    await mem.ok(
        "create_relations",
        relations=[relation("Alice", "Bob", "knows"), relation("Alice", "Acme Corp", "works_at")],
    )


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "memory.sqlite"


@pytest.fixture
def store(db_path: Path) -> Iterator[GraphStore]:
    graph = GraphStore(db_path)
    yield graph
    graph.close()


@pytest.fixture(params=["legacy", "2026-07-28"])
async def mem(request: pytest.FixtureRequest, store: GraphStore) -> AsyncIterator[Session]:
    """The server in-process behind a real MCP client, in both protocol eras (handshake and modern)."""
    from mcp import Client

    from server.app import build_server

    async with Client(build_server(store), mode=request.param, cache=None) as client:
        yield Session(client)
