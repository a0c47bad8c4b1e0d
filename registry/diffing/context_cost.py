"""Context cost: how much of an agent's context window a server's tool list takes before any call.

Pure (no MCP, database, HTTP or CLI imports). Each tool is measured as the JSON a client hands a
model for it: its ``name``, ``description`` and ``inputSchema`` (what model APIs take as a tool's
name, description and parameters), in compact JSON with sorted keys. Tokens are counted with the
o200k_base BPE encoding when the offline tokenizer ``bpe-openai`` is installed (``mcpdex[tokens]``);
otherwise they are estimated as characters ÷ 4, and labelled so wherever they are shown.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypedDict

from common.canonical import canonical_json
from registry.core.tokens import ENCODING, ESTIMATE, token_counter

__all__ = [
    "ENCODING",
    "ESTIMATE",
    "context_cost",
    "context_growth_change",
    "tokens_label",
    "tool_context_text",
]

if TYPE_CHECKING:
    from registry.diffing.changes import Change

# A version whose surface grows by more than this share of the previous one is reported, when it
# also grew by at least MIN_GROWTH_TOKENS: a few dozen tokens more is noise in any context window.
DEFAULT_GROWTH_SHARE = 0.2
MIN_GROWTH_TOKENS = 100
MODEL_VISIBLE_FIELDS = ("name", "description", "inputSchema")


class ToolCost(TypedDict):
    name: str
    characters: int
    tokens: int


class ContextCost(TypedDict):
    tokenizer: str
    exact: bool
    characters: int
    tokens: int
    tools: list[ToolCost]


def _counter() -> tuple[str, Callable[[str], int]]:
    """The token counter and its label (one definition, in ``registry.core.tokens``)."""
    return token_counter()


def tool_context_text(tool: dict[str, Any]) -> str:
    """The text one tool puts in a model's context."""
    return canonical_json({key: tool[key] for key in MODEL_VISIBLE_FIELDS if tool.get(key) is not None})


def context_cost(snapshot: dict[str, Any]) -> ContextCost:
    """Characters and tokens per tool and for the whole tool surface of ``snapshot``."""
    label, count = _counter()
    tools: list[ToolCost] = []
    for tool in snapshot.get("tools") or []:
        if not isinstance(tool, dict):
            continue
        text = tool_context_text(tool)
        tools.append({"name": str(tool.get("name")), "characters": len(text), "tokens": count(text)})
    return {
        "tokenizer": label,
        "exact": label != ESTIMATE,
        "characters": sum(t["characters"] for t in tools),
        "tokens": sum(t["tokens"] for t in tools),
        "tools": tools,
    }


def tokens_label(cost: ContextCost) -> str:
    """``1,234 tokens`` (``~1,234 tokens (estimate: characters ÷ 4)`` without the tokenizer)."""
    if cost["exact"]:
        return f"{cost['tokens']:,} tokens ({cost['tokenizer']})"
    return f"~{cost['tokens']:,} tokens ({cost['tokenizer']})"


def context_growth_change(
    old: dict[str, Any], new: dict[str, Any], share: float = DEFAULT_GROWTH_SHARE
) -> Change | None:
    """The ``context-cost-grew`` change when ``new``'s tool surface is more than ``share`` larger
    (in tokens) than ``old``'s and at least MIN_GROWTH_TOKENS larger; None otherwise."""
    from registry.diffing.changes import table_change
    from registry.diffing.rules import rule

    before, after = context_cost(old), context_cost(new)
    grew = after["tokens"] - before["tokens"]
    if grew < MIN_GROWTH_TOKENS or after["tokens"] <= before["tokens"] * (1 + share):
        return None
    row = rule("context-cost-grew")
    grown = f"+{grew / before['tokens']:.0%}" if before["tokens"] else "from none"
    old_tools = {t["name"]: t["tokens"] for t in before["tools"]}
    movers = sorted(
        ((t["tokens"] - old_tools.get(t["name"], 0), t["name"]) for t in after["tools"]), reverse=True
    )
    detail = f"{grown}, over a {share:.0%} policy; most added by " + ", ".join(
        f"{name} (+{delta})" for delta, name in movers[:3] if delta > 0
    )
    return table_change(
        row.id,
        tool=None,
        path="/tools",
        before={"tokens": before["tokens"], "characters": before["characters"]},
        after={"tokens": after["tokens"], "characters": after["characters"]},
        shown=(f"{before['tokens']:,}", f"{after['tokens']:,}"),
        detail=detail,
        # The size pair is in the fingerprint: accepting one growth does not accept the next.
        key=f"{before['tokens']}->{after['tokens']}",
    )
