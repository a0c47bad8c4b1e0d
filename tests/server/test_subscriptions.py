"""Handshake-era (2025-11-25) resource subscriptions: ``resources/subscribe`` and
``resources/unsubscribe`` over a real client session, as the official memory server serves them."""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest

from server.app import MemoryServer, build_server
from server.models import GRAPH_URI
from tests.server.conftest import Updates, entity

pytestmark = [
    pytest.mark.anyio,
    # The client marks subscribe_resource deprecated: 2026-07-28 replaced it with listen().
    pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning"),
]


@asynccontextmanager
async def legacy_client(server: MemoryServer) -> AsyncIterator[tuple[Any, Updates]]:
    from mcp import Client

    updates = Updates()
    async with Client(server, mode="legacy", cache=None, message_handler=updates) as client:
        yield client, updates


async def settled(client: Any) -> None:
    """A round trip after a call: the server sends in order, so any notification is in by now."""
    with anyio.fail_after(5):
        await client.send_ping()


async def test_a_handshake_era_client_is_told_it_can_subscribe(store):
    async with legacy_client(build_server(store)) as (client, _):
        assert client.protocol_version == "2025-11-25"
        assert client.server_capabilities.resources.subscribe is True


async def test_a_subscribed_client_hears_each_write_until_it_unsubscribes(store):
    async with legacy_client(build_server(store)) as (client, updates):
        await client.subscribe_resource(GRAPH_URI)
        await client.call_tool("create_entities", {"entities": [entity("Alice")]})
        await settled(client)
        assert updates.uris == [GRAPH_URI]

        # A write that changes nothing still notifies, as the official server does.
        await client.call_tool("delete_entities", {"entityNames": ["Nobody"]})
        await settled(client)
        assert updates.uris == [GRAPH_URI, GRAPH_URI]

        await client.unsubscribe_resource(GRAPH_URI)
        await client.call_tool("create_entities", {"entities": [entity("Bob")]})
        await settled(client)
        assert updates.uris == [GRAPH_URI, GRAPH_URI]


async def test_without_a_subscription_no_update_is_sent(store):
    async with legacy_client(build_server(store)) as (client, updates):
        await client.call_tool("create_entities", {"entities": [entity("Alice")]})
        await client.call_tool("read_graph", {})
        await settled(client)
        assert updates.uris == []


async def test_reads_and_refused_writes_send_no_update(store):
    async with legacy_client(build_server(store)) as (client, updates):
        await client.subscribe_resource(GRAPH_URI)
        await client.call_tool("read_graph", {})
        refused = await client.call_tool(
            "add_observations", {"observations": [{"entityName": "Ghost", "contents": ["boo"]}]}
        )
        assert refused.is_error
        await settled(client)
        assert updates.uris == []


async def test_any_uri_is_accepted_but_only_the_graph_is_ever_updated(store):
    async with legacy_client(build_server(store)) as (client, updates):
        await client.subscribe_resource("memory://no-such-resource")
        await client.unsubscribe_resource("memory://never-subscribed")
        await client.call_tool("create_entities", {"entities": [entity("Alice")]})
        await settled(client)
        assert updates.uris == []


async def test_each_connection_keeps_its_own_subscriptions_and_a_closed_one_drops_out(store):
    server = build_server(store)
    async with legacy_client(server) as (writer, writer_updates):
        async with legacy_client(server) as (reader, reader_updates):
            await reader.subscribe_resource(GRAPH_URI)
            await writer.call_tool("create_entities", {"entities": [entity("Alice")]})
            await settled(reader)
            assert reader_updates.uris == [GRAPH_URI]
            assert writer_updates.uris == []

        # The reader left without unsubscribing: writes go on, and its subscription is gone.
        await writer.call_tool("create_entities", {"entities": [entity("Bob")]})
        assert not (await writer.call_tool("read_graph", {})).is_error
        gc.collect()
        assert len(server._graph_subscribers) == 0
