"""Benchmark: ``mcpdex inspect`` against the official MCP Inspector CLI on the same server.

Both list the tools of the official memory server over stdio (the Inspector 2.12 CLI with
``mcp-inspector --cli … --method tools/list``, mcpdex also writing the snapshot with ``--out``);
runs alternate so machine load hits both alike. Then ``mcpdex score`` and ``mcpdex check`` of the
same live server, each against that ``inspect``. Prints the ratios of the medians first, then the
raw figures, then how long interpreter start-up and the CLI's import take on their own (a stdio
server in the handshake era is listed without importing the SDK; ``import mcp`` is timed beside,
for what it would add).

    .venv/bin/python bench/inspect_vs_inspector.py [--runs 7]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
NPM = REPO / ".peers" / "npm"
MEMORY_JS = NPM / "node_modules" / "@modelcontextprotocol" / "server-memory" / "dist" / "index.js"
INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"
# The launcher is the package's `mcp-inspector` command; `--cli` hands over to its CLI client.
INSPECTOR_JS = (
    REPO / ".peers" / "releases" / INSPECTOR / "node_modules" / "@modelcontextprotocol" / "inspector"
    / "clients" / "launcher" / "build" / "index.js"
)  # fmt: skip


def timed(argv: list[str], env: dict[str, str], cwd: Path) -> float:
    started = time.perf_counter()
    result = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=120)
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"{argv[:3]} failed ({result.returncode}): {result.stderr[-500:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    node = shutil.which("node")
    if not (node and MEMORY_JS.exists() and INSPECTOR_JS.exists()):
        raise SystemExit(
            f"needs node, the npm peers and {INSPECTOR} under .peers (bash scripts/install-peers)"
        )
    work = Path(tempfile.mkdtemp(prefix="mcpdex-bench-"))
    env = {**os.environ, "MEMORY_FILE_PATH": str(work / "memory.jsonl")}
    server = [node, str(MEMORY_JS)]
    memory_env = f"MEMORY_FILE_PATH={work / 'memory.jsonl'}"
    ours = [sys.executable, "-m", "registry", "inspect", "--protocol-era", "legacy", "--format", "json",
            "--out", str(work / "snap.json"), "--env", memory_env, "--", *server]  # fmt: skip
    theirs = [node, str(INSPECTOR_JS), "--cli", "-e", memory_env, *server, "--method", "tools/list"]
    mcpdex = [sys.executable, "-m", "registry"]
    target = ["--protocol-era", "legacy", "--env", memory_env, "--", *server]
    score = [*mcpdex, "score", "--format", "json", *target]
    check = [*mcpdex, "check", "--baseline", str(work / "snap.json"), "--format", "json", *target]
    startup = [sys.executable, "-c", "import registry.cli"]
    sdk = [sys.executable, "-c", "import mcp"]
    bare = [sys.executable, "-c", "pass"]
    # One warm-up each: page cache and bytecode, not what a user waits for twice.
    for argv in (ours, theirs, score, check, startup, sdk):
        timed(argv, env, REPO)
    runs = {"mcpdex": ours, "inspector": theirs, "score": score, "check": check}
    runs |= {"startup": startup, "sdk": sdk}
    figures: dict[str, list[float]] = {name: [] for name in (*runs, "python")}
    for _ in range(args.runs):
        for name, argv in runs.items():
            figures[name].append(timed(argv, env, REPO))
        figures["python"].append(timed(bare, env, REPO))
    median = {name: statistics.median(values) for name, values in figures.items()}
    after_startup = median["mcpdex"] - median["startup"]
    print(f"ratio mcpdex inspect/inspector (whole run): {median['mcpdex'] / median['inspector']:.2f}")
    print(f"ratio mcpdex score/inspect: {median['score'] / median['mcpdex']:.2f}")
    print(f"ratio mcpdex check/inspect: {median['check'] / median['mcpdex']:.2f}")
    print(f"mcpdex inspect --out (median of {args.runs}): {median['mcpdex']:.3f} s")
    print(f"{INSPECTOR} --cli tools/list (median of {args.runs}): {median['inspector']:.3f} s")
    print(f"mcpdex score / check (median of {args.runs}): {median['score']:.3f} s / {median['check']:.3f} s")
    print(f"of mcpdex: interpreter start {median['python']:.3f} s, "
          f"the CLI's import {median['startup'] - median['python']:.3f} s, "
          f"the rest of inspect beyond them {after_startup:.3f} s; "
          f"import mcp alone (not done) {median['sdk'] - median['python']:.3f} s")  # fmt: skip
    print("raw (s): " + "; ".join(f"{k} " + " ".join(f"{v:.2f}" for v in vs) for k, vs in figures.items()))


if __name__ == "__main__":
    main()
