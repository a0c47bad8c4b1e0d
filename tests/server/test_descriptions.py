"""The memory server is the exemplar the scorer holds others to: every tool must score tier A."""

from __future__ import annotations

import pytest

from scoring import score_snapshot
from tests.conftest import make_snapshot

pytestmark = pytest.mark.anyio


async def snapshot_of(mem) -> dict:
    tools = [
        tool.model_dump(by_alias=True, mode="json", exclude_none=True)
        for tool in (await mem.client.list_tools()).tools
    ]
    return make_snapshot(*tools, name="mcpdex-memory", title="mcpdex memory", version="0.1.0")


async def test_every_tool_scores_tier_a(mem):
    card = score_snapshot(await snapshot_of(mem))
    below = {
        tool["name"]: (tool["total"], tool["tier"], tool["smells"])
        for tool in card["tools"]
        if tool["tier"] != "A"
    }
    assert below == {}
    assert len(card["tools"]) == 11
    assert card["server_score"]["tier"] == "A"


async def test_no_tool_has_a_smell_flag_or_lint_finding(mem):
    card = score_snapshot(await snapshot_of(mem))
    assert [(t["name"], t["smells"], t["flags"]) for t in card["tools"] if t["smells"] or t["flags"]] == []
    assert card["findings"] == []
