"""Benchmark: diff two 1,000-tool snapshots built from the LiveMCPBench corpus, against plain deepdiff.

The corpus tools are repeated (renamed) to 1,000 and the second snapshot mutated the ways real
releases change: types, required lists, enums, bounds, descriptions, tools removed and added.
Prints the ratio to a plain ``DeepDiff`` of the same two documents first, then the raw figures.

    .venv/bin/python bench/diff.py [--corpus PATH] [--repeat 5]
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from deepdiff import DeepDiff

from registry.core.snapshot import compute_digest, dump_snapshot
from registry.diffing.diff import diff_snapshots

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "livemcpbench" / "tools.json"
TOOLS = 1000


def corpus_tools(path: Path) -> list[dict[str, Any]]:
    servers = json.loads(path.read_text(encoding="utf-8"))
    return [
        tool
        for server in servers
        for entry in (server.get("tools") or {}).values()
        for tool in entry.get("tools") or []
        if isinstance(tool.get("inputSchema"), dict)
    ]


def build(tools: list[dict[str, Any]]) -> dict[str, Any]:
    repeated = []
    for index in range(TOOLS):
        tool = copy.deepcopy(tools[index % len(tools)])
        tool["name"] = f"{tool['name']}_{index}"
        repeated.append(tool)
    snapshot = {
        "format": "mcpdex.snapshot/1",
        "server": {"name": "bench", "version": "1.0.0"},
        "tools": repeated,
    }
    snapshot["digest"] = compute_digest(snapshot)
    return snapshot


def mutate(snapshot: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A later release: about one tool in five changed, some removed, some added."""
    new = copy.deepcopy(snapshot)
    new["server"]["version"] = "2.0.0"
    tools = new["tools"]
    for tool in rng.sample(tools, len(tools) // 5):
        schema = tool["inputSchema"]
        props = schema.setdefault("properties", {})
        action = rng.randrange(6)
        if action == 0 and props:
            name = rng.choice(sorted(props))
            props[name] = {
                **props[name],
                "type": "integer" if props[name].get("type") != "integer" else "number",
            }
        elif action == 1:
            props["added_flag"] = {"type": "boolean", "description": "A new switch."}
            schema["required"] = [*schema.get("required", []), "added_flag"]
        elif action == 2 and schema.get("required"):
            schema["required"] = schema["required"][1:]
        elif action == 3 and props:
            name = rng.choice(sorted(props))
            props[name] = {**props[name], "enum": ["a", "b", "c"], "maxLength": 40}
        elif action == 4:
            tool["description"] = (tool.get("description") or "") + " Now faster."
        else:
            tool["annotations"] = {"readOnlyHint": True, "openWorldHint": False}
    del tools[: TOOLS // 50]  # 2% removed
    tools += [{**copy.deepcopy(t), "name": t["name"] + "_v2"} for t in tools[: TOOLS // 50]]  # 2% added
    new["digest"] = compute_digest(new)
    return new


def timed(function: Any, repeat: int) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(20261129)
    old = build(corpus_tools(args.corpus))
    new = mutate(old, rng)

    ours, changes = timed(lambda: diff_snapshots(old, new), args.repeat)
    plain, found = timed(lambda: DeepDiff(old, new), args.repeat)
    with tempfile.TemporaryDirectory() as tmp:
        a, b = Path(tmp, "a.json"), Path(tmp, "b.json")
        dump_snapshot(old, a)
        dump_snapshot(new, b)
        mcpdex = str(Path(sys.executable).with_name("mcpdex"))
        process, _ = timed(
            lambda: subprocess.run(
                [mcpdex, "diff", str(a), str(b), "--format", "json"], capture_output=True, check=True
            ),
            args.repeat,
        )
        peer_code = (
            "import json,sys; from deepdiff import DeepDiff; "
            "DeepDiff(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))"
        )
        peer_process, _ = timed(
            lambda: subprocess.run(
                [sys.executable, "-c", peer_code, str(a), str(b)], capture_output=True, check=True
            ),
            args.repeat,
        )

    levels = {
        level: sum(1 for c in changes if c["level"] == level) for level in ("breaking", "warning", "info")
    }
    print(f"ratio diff_snapshots / plain DeepDiff (in process): {ours / plain:.3f}")
    print(f"ratio `mcpdex diff` / plain DeepDiff script (whole process): {process / peer_process:.3f}")
    print(f"tools: {len(old['tools'])} → {len(new['tools'])} ({args.corpus.name}), median of {args.repeat}")
    print(f"diff_snapshots: {ours:.3f} s, {len(changes)} changes {levels}")
    witnessed = sum(1 for c in changes if c["witness"] is not None)
    unwitnessed = sum(
        1
        for c in changes
        if c["level"] == "breaking" and c["witness"] is None and c["area"] in ("inputSchema", "outputSchema")
    )
    print(f"witnesses: {witnessed}; breaking schema changes without one: {unwitnessed}")
    located = sum(len(v) for v in found.values())
    print(f"plain DeepDiff: {plain:.3f} s, {located} differences located, none judged")
    print(f"`mcpdex diff a.json b.json --format json` process: {process:.3f} s")
    print(f"`python -c DeepDiff(a, b)` process: {peer_process:.3f} s")


if __name__ == "__main__":
    main()
