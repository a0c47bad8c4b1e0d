"""The active memory probe: a fixed, deterministic scenario run over a real MCP client session
against a memory server started for the purpose on an empty (scratch) store.

Every server whose tools map to store and recall (``registry.core.operations``) gets the
operation checks and the cost of its reads at each size (``generic``); one with the official
knowledge-graph surface also gets the official checks and read forms (``checks``, ``cost``).

It measures three things and returns them as one Profile document (``PROFILE_FORMAT``):
conformance (each check of ``CHECKS`` passes, fails with what was observed and expected, or
does not apply), token cost of each read form on a standard graph generated from a fixed seed
at two sizes, and the latency of every tool call. It writes and deletes entities, so callers
must have the user's consent (``--allow-writes``); it cleans up everything it created.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from typing import Any

from registry.core.operations import map_operations, offers_store_and_recall
from registry.core.profile import PROFILE_FORMAT, static_profile
from registry.core.timestamps import utc_now
from registry.core.tokens import token_counter
from registry.probing.checks import BEYOND_UPSTREAM, REQUIRED_TOOLS, run_checks
from registry.probing.cost import (
    CHARS_PER_TOKEN,
    TOKEN_ESTIMATE,
    latency_summary,
    measure_document,
    measure_token_cost,
)
from registry.probing.fixtures import (
    OURS,
    PREFIX,
    SEED,
    SIZES,
)
from registry.probing.generic import MemoryOps, measure_memory_cost, run_memory_checks
from registry.probing.session import ProbeError, Session


def _counts(checks: list[dict[str, Any]], groups: Sequence[str] | None, *, exclude: bool) -> dict[str, int]:
    rows = [c for c in checks if groups is None or ((c["group"] in groups) != exclude)]
    return {
        "passed": sum(1 for c in rows if c["outcome"] == "pass"),
        "failed": sum(1 for c in rows if c["outcome"] == "fail"),
        "notApplicable": sum(1 for c in rows if c["outcome"] == "n/a"),
    }


async def run_probe(
    client: Any,
    snapshot: dict[str, Any],
    *,
    force: bool = False,
    sizes: Sequence[int] = SIZES,
    seed: int = SEED,
    overrides: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Probe the server behind an open SDK ``Client``; ``snapshot`` is its inspection (for the tools).

    Any memory server whose tools map to at least store and recall is probed through those
    operations; one with the official knowledge-graph surface also gets the official checks, and
    its graph must be empty unless ``force`` (the probe then touches only names it wrote).
    Refuses (ProbeError) a server that offers neither.
    """
    started = time.perf_counter()
    tools = {t["name"]: t for t in snapshot.get("tools") or [] if isinstance(t, dict) and "name" in t}
    operations = map_operations(tools.values(), overrides)
    official = all(t in tools for t in REQUIRED_TOOLS)
    if not official and not offers_store_and_recall(operations):
        found = ", ".join(f"{op}={m['tool']}" for op, m in operations.items()) or "none"
        raise ProbeError(
            "the target offers no store and recall operations the probe can use (found: "
            f"{found}); name them with --map store=TOOL --map recall=TOOL, or see `mcpdex inspect`"
        )
    static = static_profile(snapshot) or {"officialToolCount": 0, "features": []}
    session = Session(client)
    existing = (0, 0)
    checks: list[dict[str, Any]] = []
    token_cost: list[dict[str, Any]] = []
    document: dict[str, Any] = {"observationChars": 0, "reads": []}
    leftovers: list[Any] = []
    if official:
        before = await session.call("read_graph", {})
        if not before.ok:
            raise ProbeError(f"read_graph failed before the probe started: {before.text[:300]}")
        existing = (len(before.entities()), len(before.relations()))
        if any(existing) and not force:
            raise ProbeError(
                f"the graph is not empty ({existing[0]} entities, {existing[1]} relations): the probe "
                "creates and deletes entities and measures reads of a graph it builds itself, so it needs "
                "a server started on a fresh, empty store; start one for the probe, or pass --force to run "
                f"anyway (it only writes and deletes names starting with {PREFIX!r}, but token figures "
                "will include the existing data)"
            )
        checks = await run_checks(session, static, tools)
        token_cost = await measure_token_cost(session, tools, sizes, seed)
        document = await measure_document(session, tools, static, seed)
    memory: dict[str, Any] = {"sizes": [], "note": ""}
    if offers_store_and_recall(operations):
        ops = MemoryOps(session, tools, operations)
        memory_checks = await run_memory_checks(ops, seed)
        checks += memory_checks
        stored = all(row["outcome"] == "pass" for row in memory_checks if row["id"] == "store-succeeds")
        if not stored:
            memory["note"] = "the store operation failed, so no reads were measured"
        else:
            try:
                memory["sizes"] = await measure_memory_cost(ops, sizes, seed)
            except ProbeError as exc:
                memory["note"] = str(exc)
    if official:
        final = await session.call("read_graph", {})
        leftovers = [e.get("name") for e in final.entities() if OURS.match(str(e.get("name", "")))]
    server = snapshot.get("server") or {}
    label, _ = token_counter()
    return {
        "format": PROFILE_FORMAT,
        "server": {"name": server.get("name"), "version": server.get("version")},
        "versionLabel": snapshot.get("versionLabel"),
        "protocolVersion": snapshot.get("protocolVersion"),
        "probedAt": utc_now(),
        "durationS": round(time.perf_counter() - started, 2),
        "seed": seed,
        "preexisting": {"entities": existing[0], "relations": existing[1]},
        "leftovers": leftovers,
        "static": static,
        "operations": operations,
        "conformance": {
            **_counts(checks, BEYOND_UPSTREAM, exclude=True),
            "beyondUpstream": _counts(checks, BEYOND_UPSTREAM, exclude=False),
            "checks": checks,
        },
        "tokenCost": {
            "estimate": TOKEN_ESTIMATE if label != "o200k_base" else f"tokens counted with {label}",
            "tokenizer": label,
            "charsPerToken": CHARS_PER_TOKEN,
            "sizes": token_cost,
            "document": document,
        },
        "memory": memory,
        # Known only to the caller that started the server (``mcpdex probe`` fills them in).
        "coldStartMs": None,
        "storage": None,
        "scratchStore": [],
        "latency": latency_summary(session.timings),
        "callP50Ms": round(statistics.median([v for vs in session.timings.values() for v in vs]), 2)
        if session.timings
        else None,
    }
