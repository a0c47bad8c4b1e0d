"""Benchmark ``mcpdex probe``: how much the probe adds to the latencies it measures, and how long
a whole probe of the official server takes.

1. Overhead. A trivial local MCP server (one tool answering an empty graph, over stdio) is called
   by the peer, a bare SDK ``Client.call_tool`` timed around the call, and by the probe's
   ``Session.call`` (timing, bookkeeping, reply decoding), alternating call by call on one session.
   The ratio of median per-call wall times is the probe's overhead (target ≤ 1.05).
2. The official ``@modelcontextprotocol/server-memory`` probed end to end at the smaller size,
   then at both sizes: wall time against the sum of the server's timed calls.

    .venv/bin/python bench/probe.py
    .venv/bin/python bench/probe.py --calls 300 --rounds 5
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
OFFICIAL = REPO / ".peers/npm/node_modules/@modelcontextprotocol/server-memory/dist/index.js"

TRIVIAL_SERVER = r"""
from mcp.server import MCPServer
server = MCPServer("trivial")

@server.tool()
def read_graph() -> dict:
    return {"entities": [], "relations": []}

server.run()
"""


async def overhead(calls: int, rounds: int) -> tuple[list[float], list[float], list[float]]:
    """Per-call wall ms of the bare client loop, of the probe's Session, and what the Session recorded."""
    from mcp import Client, StdioServerParameters

    from registry.probing.session import Session

    bare: list[float] = []
    probed: list[float] = []
    params = StdioServerParameters(command=sys.executable, args=["-c", TRIVIAL_SERVER])
    async with Client(params, mode="legacy", cache=None) as client:
        session = Session(client)
        for _ in range(20):  # warm up both paths
            await client.call_tool("read_graph", {})
            await session.call("read_graph", {})
        session.timings.clear()
        # Call by call, alternating which path goes first, so load on the machine hits both alike.
        for turn in range(rounds * calls):
            for path in ("bare", "probe") if turn % 2 else ("probe", "bare"):
                started = time.perf_counter()
                if path == "bare":
                    await client.call_tool("read_graph", {})
                    bare.append((time.perf_counter() - started) * 1000)
                else:
                    await session.call("read_graph", {})
                    probed.append((time.perf_counter() - started) * 1000)
    return bare, probed, session.timings["read_graph"]


async def probe_official(sizes: tuple[int, ...]) -> tuple[float, float, dict]:
    """Wall seconds of inspect + probe, and the sum of the timed tool calls, for the official server."""
    from registry.inspecting.inspect import inspect_async
    from registry.inspecting.session import open_client
    from registry.inspecting.targets import Target
    from registry.probing.probe import run_probe

    with tempfile.TemporaryDirectory() as folder:
        node = shutil.which("node") or "node"
        target = Target(
            transport="stdio",
            argv=[node, str(OFFICIAL)],
            env={"MEMORY_FILE_PATH": str(Path(folder) / "memory.jsonl")},
        )
        started = time.perf_counter()
        snapshot = await inspect_async(target, timeout=30, protocol_era="legacy")
        async with open_client(target, timeout=30, protocol_era="legacy") as client:
            profile = await run_probe(client, snapshot, sizes=sizes)
        wall = time.perf_counter() - started
    in_calls = sum(row["totalMs"] for row in profile["latency"].values()) / 1000
    return wall, in_calls, profile


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200, help="calls per round and path")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    bare, probed, recorded = anyio.run(overhead, args.calls, args.rounds)
    ratio = statistics.median(probed) / statistics.median(bare)
    print(f"overhead ratio (probe Session / bare SDK client, median per call): {ratio:.3f}  (target <= 1.05)")
    print(
        f"  bare client   median {statistics.median(bare):.3f} ms  p95 "
        f"{sorted(bare)[int(0.95 * len(bare)) - 1]:.3f} ms  over {len(bare)} calls"
    )
    print(
        f"  probe Session median {statistics.median(probed):.3f} ms  p95 "
        f"{sorted(probed)[int(0.95 * len(probed)) - 1]:.3f} ms  (it recorded median "
        f"{statistics.median(recorded):.3f} ms)"
    )
    if not OFFICIAL.exists():
        print("official server not installed under .peers/ (run scripts/install-peers); skipped")
        return
    for sizes in ((100,), (100, 1000)):
        wall, in_calls, profile = anyio.run(probe_official, sizes)
        label = " and ".join(str(s) for s in sizes)
        print(
            f"official server-memory, standard graph at {label} entities: "
            f"{wall / in_calls:.2f}x the time spent in tool calls (target: whole probe < 60 s)"
        )
        conformance = profile["conformance"]
        print(
            f"  wall {wall:.2f} s (inspection included), in tool calls {in_calls:.2f} s, "
            f"{sum(r['calls'] for r in profile['latency'].values())} calls, "
            f"{conformance['passed']} passed / {conformance['failed']} failed / "
            f"{conformance['notApplicable']} n/a"
        )


if __name__ == "__main__":
    main()
