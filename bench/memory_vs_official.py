"""Benchmark: the mcpdex memory server against the official npm server, same MCP stdio client.

For each graph size (entities with 3 observations of about 100 characters and 2 relations each)
both servers get the same graph (the official one as its JSONL file, ours through the import
path), then the same calls. Prints, per operation, the ratio of median latencies first, then each
server's median, the characters of text each reply carries, and each server's peak memory.

    .venv/bin/python bench/memory_vs_official.py                  # 1k, 10k and 50k entities
    .venv/bin/python bench/memory_vs_official.py --sizes 1000 --calls 30
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

REPO = Path(__file__).resolve().parents[1]
OFFICIAL_JS = REPO / ".peers/npm/node_modules/@modelcontextprotocol/server-memory/dist/index.js"
WORDS = [
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliet",
    "kilo",
    "lima",
    "mike",
    "november",
    "oscar",
    "papa",
    "quebec",
    "romeo",
    "sierra",
    "tango",
    "uniform",
    "victor",
    "whiskey",
    "xray",
    "yankee",
    "zulu",
    "project",
    "meeting",
    "prefers",
    "works",
    "lives",
    "deadline",
    "review",
    "budget",
    "coffee",
    "morning",
    "remote",
    "office",
    "launch",
    "design",
    "data",
    "model",
    "team",
]
TYPES = ["person", "organization", "project", "place", "concept"]

# operation -> (arguments for call number n on a graph of `size` entities, calls at the largest size)
Operation = Callable[[int, int], tuple[str, dict[str, Any]]]


def sentence(rng: random.Random) -> str:
    words = []
    while len(" ".join(words)) < 95:
        words.append(rng.choice(WORDS))
    return " ".join(words)


def build_jsonl(size: int) -> str:
    """The graph as the official server's JSONL file (its own format, written directly)."""
    from server.jsonl import dumps_record

    rng = random.Random(size)
    lines = [
        dumps_record(
            {
                "type": "entity",
                "name": f"entity-{i:05d}",
                "entityType": TYPES[i % len(TYPES)],
                "observations": [sentence(rng) for _ in range(3)],
            }
        )
        for i in range(size)
    ]
    for i in range(size):
        for target, kind in (((i + 1) % size, "links_to"), ((i * 7 + 3) % size, "relates_to")):
            lines.append(
                dumps_record(
                    {
                        "type": "relation",
                        "from": f"entity-{i:05d}",
                        "to": f"entity-{target:05d}",
                        "relationType": kind,
                    }
                )
            )
    return "\n".join(lines)


OPERATIONS: dict[str, Operation] = {
    "create_entities (1)": lambda size, n: (
        "create_entities",
        {
            "entities": [
                {"name": f"new-{n}", "entityType": "person", "observations": ["added by the benchmark"]}
            ]
        },
    ),
    "add_observations (1)": lambda size, n: (
        "add_observations",
        {
            "observations": [
                {"entityName": f"entity-{(n * 37) % size:05d}", "contents": [f"benchmark fact {n}"]}
            ]
        },
    ),
    "search_nodes": lambda size, n: ("search_nodes", {"query": f"ENTITY-{(n * 53) % size:05d}"}),
    "open_nodes (1)": lambda size, n: ("open_nodes", {"names": [f"entity-{(n * 71) % size:05d}"]}),
    "read_graph": lambda size, n: ("read_graph", {}),
    "read_graph observationLimit 0": lambda size, n: ("read_graph", {"observationLimit": 0}),
}
READ_ALL = {"read_graph", "read_graph observationLimit 0"}


def peak_rss_mb(marker: str) -> float | None:
    """Peak resident memory (VmHWM) of the process whose command line or environment holds ``marker``."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            blob = (entry / "cmdline").read_bytes() + (entry / "environ").read_bytes()
            if marker.encode() not in blob:
                continue
            for line in (entry / "status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        except OSError:
            continue
    return None


async def _no_validation(name: str, result: Any) -> None:
    return None


def relations_chars(structured: dict[str, Any]) -> int:
    """Characters of a reply's relations alone, in compact JSON: the part of an overview that seed
    000 fixes (every relation, in full), whatever a server does with the entities."""
    return len(json.dumps(structured["relations"], separators=(",", ":"), ensure_ascii=False))


async def measure(client: Client, size: int, calls: int) -> dict[str, Any]:
    """Median milliseconds and text characters per reply, per operation."""
    # The client re-validates structured results against the output schema with jsonschema: the same
    # cost for both servers, but over a minute per read of a 50k-entity graph, so it is switched off.
    client.session.validate_tool_result = _no_validation  # type: ignore[method-assign]
    results = {}
    for label, operation in OPERATIONS.items():
        count = max(3, calls // 10) if label in READ_ALL and size > 1000 else calls
        timings, chars = [], 0
        for n in range(count + 1):  # the first call warms caches and is not counted
            tool, arguments = operation(size, n)
            started = time.perf_counter()
            result = await client.call_tool(tool, arguments)
            elapsed = time.perf_counter() - started
            if result.is_error:
                raise RuntimeError(f"{label}: {result.content[0].text}")
            if n:
                timings.append(elapsed * 1000)
                chars = len(result.content[0].text)
        results[label] = (statistics.median(timings), chars)
        if label == "read_graph observationLimit 0":
            results["relations chars"] = relations_chars(result.structured_content)
    return results


async def run_size(size: int, calls: int, folder: Path) -> dict[str, Any]:
    from server.graph import GraphStore
    from server.jsonl import import_jsonl

    document = build_jsonl(size)
    official_file = folder / f"official-{size}.jsonl"
    official_file.write_text(document, encoding="utf-8")
    db = folder / f"ours-{size}.sqlite"
    started = time.perf_counter()
    store = GraphStore(db)
    import_jsonl(store, document)
    store.close()
    import_s = time.perf_counter() - started

    ours = StdioServerParameters(command=sys.executable, args=["-m", "registry", "memory", "--db", str(db)])
    theirs = StdioServerParameters(
        command="node", args=[str(OFFICIAL_JS)], env={"MEMORY_FILE_PATH": str(official_file)}
    )
    figures: dict[str, Any] = {"size": size, "import_s": import_s, "file_mb": len(document.encode()) / 1e6}
    for side, params, marker in (("ours", ours, str(db)), ("official", theirs, str(official_file))):
        async with Client(params, mode="legacy", cache=None, read_timeout_seconds=600) as client:
            figures[side] = await measure(client, size, calls)
            figures[f"{side}_peak_mb"] = peak_rss_mb(marker)
    return figures


def report(all_figures: list[dict[str, Any]]) -> str:
    lines = []
    for figures in all_figures:
        size = figures["size"]
        lines += [
            f"\n### {size:,} entities, {2 * size:,} relations (official file {figures['file_mb']:.1f} MB; "
            f"our import {figures['import_s']:.1f} s)\n",
            "| operation | official ÷ ours | ours ms | official ms | ours chars | official chars |",
            "|---|---|---|---|---|---|",
        ]
        for label in OPERATIONS:
            ours_ms, ours_chars = figures["ours"][label]
            their_ms, their_chars = figures["official"][label]
            lines.append(
                f"| {label} | {their_ms / ours_ms:,.1f}× | {ours_ms:,.2f} | {their_ms:,.2f} | "
                f"{ours_chars:,} | {their_chars:,} |"
            )
        lines.append(
            f"\npeak memory: ours {figures['ours_peak_mb'] or 0:.0f} MB, "
            f"official {figures['official_peak_mb'] or 0:.0f} MB"
        )
        overview = figures["ours"]["read_graph observationLimit 0"][1]
        lines.append(
            f"our read_graph observationLimit 0 is {overview / figures['official']['read_graph'][1]:.1%} "
            f"of the official full read_graph text; our full read is "
            f"{figures['ours']['read_graph'][1] / figures['official']['read_graph'][1]:.1%} of it; "
            f"the relations the overview carries in full are "
            f"{figures['ours']['relations chars'] / figures['official']['read_graph'][1]:.1%} of it alone"
        )
    smallest, largest = all_figures[0], all_figures[-1]
    if largest is not smallest:
        lines.append(f"\nour latency at {largest['size']:,} ÷ at {smallest['size']:,}:")
        for label in list(OPERATIONS)[:4]:
            lines.append(f"- {label}: {largest['ours'][label][0] / smallest['ours'][label][0]:.2f}×")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="1000,10000,50000", help="comma-separated entity counts")
    parser.add_argument(
        "--calls", type=int, default=20, help="timed calls per operation (fewer for reads of all)"
    )
    options = parser.parse_args()
    if not OFFICIAL_JS.exists():
        sys.exit(f"the official server is not installed at {OFFICIAL_JS}; run scripts/install-peers")
    sizes = [int(s) for s in options.sizes.split(",")]
    with tempfile.TemporaryDirectory() as folder:
        all_figures = []
        for size in sizes:
            print(f"measuring {size:,} entities ...", file=sys.stderr)
            all_figures.append(anyio.run(run_size, size, options.calls, Path(folder)))
    print(report(all_figures))


if __name__ == "__main__":
    main()
