"""The active memory probe: a fixed, deterministic scenario run over a real MCP client session
against a knowledge-graph memory server started for the purpose on an empty store.

It measures three things and returns them as one Profile document (``PROFILE_FORMAT``):
conformance (each check of ``CHECKS`` passes, fails with what was observed and expected, or
does not apply), token cost of each read form on a standard graph generated from a fixed seed
at two sizes, and the latency of every tool call. It writes and deletes entities, so callers
must have the user's consent (``--allow-writes``); it cleans up everything it created.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from registry.core.profile import PROFILE_FORMAT, static_profile
from registry.core.timestamps import utc_now
from registry.probing.checks import REQUIRED_TOOLS, run_checks
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
from registry.probing.session import ProbeError, Session


async def run_probe(
    client: Any,
    snapshot: dict[str, Any],
    *,
    force: bool = False,
    sizes: Sequence[int] = SIZES,
    seed: int = SEED,
) -> dict[str, Any]:
    """Probe the server behind an open SDK ``Client``; ``snapshot`` is its inspection (for the tools).

    Refuses (ProbeError) a server without the knowledge-graph tools the scenario needs, and a
    non-empty graph unless ``force``; with ``force`` the probe touches only names it wrote.
    """
    started = time.perf_counter()
    tools = {t["name"]: t for t in snapshot.get("tools") or [] if isinstance(t, dict) and "name" in t}
    missing = [t for t in REQUIRED_TOOLS if t not in tools]
    if missing:
        raise ProbeError(
            f"the target has no {', '.join(missing)}: the probe runs the knowledge-graph scenario of "
            "@modelcontextprotocol/server-memory and needs at least create_entities, delete_entities and "
            "read_graph; `mcpdex inspect` shows what this server offers"
        )
    static = static_profile(snapshot) or {}
    session = Session(client)
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
    final = await session.call("read_graph", {})
    leftovers = [e.get("name") for e in final.entities() if OURS.match(str(e.get("name", "")))]
    counts = {kind: sum(1 for c in checks if c["outcome"] == kind) for kind in ("pass", "fail", "n/a")}
    server = snapshot.get("server") or {}
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
        "conformance": {
            "passed": counts["pass"],
            "failed": counts["fail"],
            "notApplicable": counts["n/a"],
            "checks": checks,
        },
        "tokenCost": {
            "estimate": TOKEN_ESTIMATE,
            "charsPerToken": CHARS_PER_TOKEN,
            "sizes": token_cost,
            "document": document,
        },
        "latency": latency_summary(session.timings),
    }
