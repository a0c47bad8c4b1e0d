"""Inspecting the project's own memory server over stdio, in both protocol eras."""

from __future__ import annotations

import sys

import pytest

from registry.inspecting.inspect import inspect
from registry.inspecting.targets import Target


@pytest.mark.parametrize(("era", "protocol"), [("auto", "2026-07-28"), ("legacy", "2025-11-25")])
def test_memory_server_in_each_era(era, protocol, tmp_path):
    target = Target(
        transport="stdio", argv=[sys.executable, "-m", "registry", "memory", "--db", str(tmp_path / "g.db")]
    )
    snapshot = inspect(target, timeout=40, protocol_era=era)
    assert snapshot["protocolVersion"] == protocol
    assert snapshot["source"]["protocolEra"] == ("modern" if era == "auto" else "legacy")
    assert snapshot["server"]["name"] == "mcpdex-memory"
    tools = {t["name"]: t for t in snapshot["tools"]}
    assert {"create_entities", "search_nodes", "open_nodes", "read_graph"} <= set(tools)
    assert all(t["inputSchema"]["type"] == "object" for t in tools.values())
    assert snapshot["problems"] == []
