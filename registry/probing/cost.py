"""What the memory probe measures besides conformance: the token cost of each read form on the
standard graph at two sizes and on the long document, and the latency of every tool call.
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Sequence
from typing import Any

from registry.core.profile import FEATURES_BY_ID, has_feature
from registry.core.tokens import token_counter
from registry.probing.checks import entity_address, feature_tool, offers
from registry.probing.fixtures import (
    BATCH,
    PREFIX,
    standard_document,
    standard_graph,
)
from registry.probing.session import ProbeError, Reply, Session

CHARS_PER_TOKEN = 4
TOKEN_ESTIMATE = (
    "Estimated tokens = characters of the text content ÷ 4, rounded up (the usual rule of thumb for "
    "English prose and JSON with BPE tokenizers; real counts vary by model)"
)


def estimate_tokens(chars: int) -> int:
    return math.ceil(chars / CHARS_PER_TOKEN)


def _cost(form: str, arguments: dict[str, Any], reply: Reply | None, why: str = "") -> dict[str, Any]:
    row: dict[str, Any] = {"form": form, "arguments": arguments, "available": reply is not None}
    if reply is None:
        row["note"] = why
        return row
    structured = (
        json.dumps(reply.structured, ensure_ascii=False, separators=(",", ":")) if reply.structured else ""
    )
    entities = len(reply.entities())
    _, count = token_counter()
    # What a model is handed: the text and, beside it, the structuredContent.
    tokens = count(reply.text) + count(structured)
    row.update(
        ok=reply.ok,
        entities=entities,
        relations=len(reply.relations()),
        textChars=len(reply.text),
        structuredChars=len(structured),
        tokens=tokens,
        tokensPerEntity=round(tokens / entities, 1) if entities else None,
        ms=round(reply.ms, 2),
        note=why,
    )
    return row


async def _load(session: Session, entities: list[dict[str, Any]], relations: list[dict[str, Any]]) -> None:
    for start in range(0, len(entities), BATCH):
        reply = await session.call("create_entities", {"entities": entities[start : start + BATCH]})
        if not reply.ok:
            raise ProbeError(
                f"loading the standard graph failed: create_entities answered {reply.text[:200]}"
            )
    for start in range(0, len(relations), BATCH):
        reply = await session.call("create_relations", {"relations": relations[start : start + BATCH]})
        if not reply.ok:
            raise ProbeError(
                f"loading the standard graph failed: create_relations answered {reply.text[:200]}"
            )


async def measure_reads(
    session: Session, tools: dict[str, dict[str, Any]], entities: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Each read form once on the graph now loaded; unavailable forms say why."""

    rows = [_cost("read_graph", {}, await session.call("read_graph", {}))]
    if offers(tools, "read_graph", "observationLimit"):
        args: dict[str, Any] = {"observationLimit": 0}
        rows.append(_cost("read_graph observationLimit 0", args, await session.call("read_graph", args)))
    else:
        rows.append(
            _cost(
                "read_graph observationLimit 0",
                {"observationLimit": 0},
                None,
                "read_graph has no observationLimit",
            )
        )
    if "search_nodes" in tools:
        if offers(tools, "search_nodes", "limit"):
            args = {"query": "project", "limit": 10}
            rows.append(_cost("search_nodes limit 10", args, await session.call("search_nodes", args)))
        else:
            args = {"query": "project"}
            rows.append(
                _cost(
                    "search_nodes (no limit offered)",
                    args,
                    await session.call("search_nodes", args),
                    "search_nodes has no limit: every match comes back",
                )
            )
    if "open_nodes" in tools:
        picks = [entities[i]["name"] for i in (0, len(entities) // 2, len(entities) - 1)]
        args = {"names": picks}
        rows.append(_cost("open_nodes of 3 names", args, await session.call("open_nodes", args)))
    return rows


async def measure_document(
    session: Session, tools: dict[str, dict[str, Any]], static: dict[str, Any], seed: int
) -> dict[str, Any]:
    """One entity holding one long observation: reading it whole against a range and a find."""
    name = f"{PREFIX}_Design_Notes"
    body = standard_document(seed)
    await session.call(
        "create_entities", {"entities": [{"name": name, "entityType": "document", "observations": [body]}]}
    )
    rows = []
    try:
        if "open_nodes" in tools:
            rows.append(
                _cost(
                    "open_nodes of the document",
                    {"names": [name]},
                    await session.call("open_nodes", {"names": [name]}),
                )
            )
        for feature, form, options in (
            ("ranged-read", "ranged read, 2,000 code points", {"offset": 0, "limit": 2000}),
            (
                "match-scoped-read",
                "match-scoped read, find “Decision:”, context 600",
                {"find": "Decision:", "context": 600},
            ),
        ):
            if not has_feature(static, feature):
                rows.append(_cost(form, options, None, f"no {FEATURES_BY_ID[feature].label.lower()}"))
                continue
            tool = feature_tool(static, feature)
            address = entity_address(tools, tool, name)
            if isinstance(address, str):
                rows.append(_cost(form, options, None, address))
                continue
            arguments = {**address, **options}
            rows.append(_cost(form, arguments, await session.call(tool, arguments)))
    finally:
        await session.call("delete_entities", {"entityNames": [name]})
    return {"observationChars": len(body), "reads": rows}


async def measure_token_cost(
    session: Session, tools: dict[str, dict[str, Any]], sizes: Sequence[int], seed: int
) -> list[dict[str, Any]]:
    """Load the standard graph at each size (growing it), measure every read form, then delete it."""
    entities, relations = standard_graph(max(sizes), seed)
    loaded_entities = loaded_relations = 0
    results = []
    try:
        for size in sorted(sizes):
            names = {e["name"] for e in entities[:size]}
            size_relations = [r for r in relations if r["from"] in names]
            await _load(session, entities[loaded_entities:size], size_relations[loaded_relations:])
            loaded_entities, loaded_relations = size, len(size_relations)
            results.append(
                {
                    "entities": size,
                    "observations": sum(len(e["observations"]) for e in entities[:size]),
                    "relations": len(size_relations),
                    "reads": await measure_reads(session, tools, entities[:size]),
                }
            )
    finally:
        loaded = [e["name"] for e in entities[:loaded_entities]]
        for start in range(0, len(loaded), BATCH):
            await session.call("delete_entities", {"entityNames": loaded[start : start + BATCH]})
    return results


def percentile(values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile (p95 of 20 calls is the 19th fastest)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def latency_summary(timings: dict[str, list[float]]) -> dict[str, dict[str, Any]]:
    return {
        tool: {
            "calls": len(values),
            "medianMs": round(statistics.median(values), 2),
            "p95Ms": round(percentile(values, 0.95), 2),
            "totalMs": round(sum(values), 1),
        }
        for tool, values in sorted(timings.items())
        if values
    }
