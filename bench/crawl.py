"""Benchmark: ``mcpdex crawl`` of 20 real servers at concurrency 8 against one by one.

The 20 servers are the official npm peers (memory, everything, filesystem), several instances
each. "One by one" is the same crawl at ``--concurrency 1`` (one process, one ``import mcp``), and
also 20 separate ``mcpdex inspect`` runs, the way a shell loop would do it. Runs alternate.
Prints the ratio first, then the raw figures.

    .venv/bin/python bench/crawl.py [--runs 3] [--servers 20] [--concurrency 8]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PEERS = REPO / ".peers" / "npm" / "node_modules" / "@modelcontextprotocol"


def config(count: int, work: Path) -> dict:
    node = shutil.which("node")
    if not node or not (PEERS / "server-memory").exists():
        raise SystemExit("needs node and the npm peers under .peers/npm (bash scripts/install-peers)")
    (work / "fsroot").mkdir(exist_ok=True)
    kinds = [
        lambda i: {"command": node, "args": [str(PEERS / "server-memory/dist/index.js")],
                   "env": {"MEMORY_FILE_PATH": str(work / f"memory-{i}.jsonl")}},
        lambda i: {"command": node, "args": [str(PEERS / "server-everything/dist/index.js"), "stdio"]},
        lambda i: {"command": node,
                   "args": [str(PEERS / "server-filesystem/dist/index.js"), str(work / "fsroot")]},
    ]  # fmt: skip
    return {"mcpServers": {f"server-{i:02d}": kinds[i % len(kinds)](i) for i in range(count)}}


def timed(argv: list[str]) -> float:
    started = time.perf_counter()
    result = subprocess.run(argv, capture_output=True, text=True, timeout=600, env=os.environ)
    if result.returncode != 0:
        raise SystemExit(f"{argv[:4]} failed: {result.stderr[-800:]}")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--servers", type=int, default=20)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="mcpdex-crawl-bench-"))
    servers = config(args.servers, work)
    path = work / "servers.json"
    path.write_text(json.dumps(servers))
    base = [sys.executable, "-m", "registry"]
    crawl = [*base, "crawl", str(path), "--protocol-era", "legacy", "--format", "json", "--timeout", "120"]
    singles = []
    for entry in servers["mcpServers"].values():
        env = [f"--env={k}={v}" for k, v in (entry.get("env") or {}).items()]
        singles.append([*base, "inspect", "--protocol-era", "legacy", "--format", "json", *env, "--",
                        entry["command"], *entry["args"]])  # fmt: skip
    figures: dict[str, list[float]] = {"concurrent": [], "sequential": [], "separate": []}
    timed([*crawl, "--concurrency", str(args.concurrency)])  # warm-up
    for _ in range(args.runs):
        figures["concurrent"].append(timed([*crawl, "--concurrency", str(args.concurrency)]))
        figures["sequential"].append(timed([*crawl, "--concurrency", "1"]))
        figures["separate"].append(sum(timed(argv) for argv in singles))
    median = {name: statistics.median(values) for name, values in figures.items()}
    print(f"ratio concurrency {args.concurrency} / one by one (same process): "
          f"{median['concurrent'] / median['sequential']:.2f}")  # fmt: skip
    print(f"ratio concurrency {args.concurrency} / {args.servers} separate inspect runs: "
          f"{median['concurrent'] / median['separate']:.2f}")  # fmt: skip
    print(f"crawl of {args.servers} servers at concurrency {args.concurrency}: {median['concurrent']:.2f} s")
    print(f"crawl at concurrency 1: {median['sequential']:.2f} s")
    print(f"{args.servers} separate mcpdex inspect runs: {median['separate']:.2f} s")
    print("raw (s): " + "; ".join(f"{k} " + " ".join(f"{v:.2f}" for v in vs) for k, vs in figures.items()))
    print(f"cores: {os.cpu_count()}")


if __name__ == "__main__":
    main()
