"""Benchmark: scoring the 527-tool LiveMCPBench corpus, in process and as a whole ``mcpdex score`` process.

Peers measured in the same run on the same definitions:
- in process: the MCP SDK parsing every tool (``mcp.types.Tool.model_validate``), the least a client
  does with a tool list, and python-jsonschema's metaschema check of every input schema, what a
  validating client adds;
- whole process: ``python -m json.tool`` reading the same 100-tool snapshot, the floor for any
  Python process that reads the file.

CPU time (``time.process_time``) is reported beside wall time because the machine is shared.
Prints the ratios first, then the raw figures.

    .venv/bin/python bench/score.py [--runs 5] [--corpus PATH] [--update-docs]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus" / "livemcpbench" / "tools.json"
DOC = REPO / "docs" / "corpus-scores.md"
sys.path.insert(0, str(REPO))


def corpus_snapshots(path: Path) -> list[dict]:
    """One snapshot per server of the corpus."""
    servers = json.loads(path.read_text(encoding="utf-8"))
    return [
        {
            "format": "mcpdex.snapshot/1",
            "server": {"name": key, "version": entry.get("version")},
            "tools": entry["tools"],
        }
        for server in servers
        for key, entry in server["tools"].items()
    ]


def timed(work, runs: int) -> tuple[float, float]:
    """Median (wall, cpu) seconds of ``work()`` over ``runs``."""
    walls, cpus = [], []
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        work()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def in_process(snapshots: list[dict], runs: int) -> dict[str, tuple[float, float]]:
    from jsonschema import validators
    from mcp.types import Tool

    from scoring import score_snapshot

    tools = [tool for snapshot in snapshots for tool in snapshot["tools"]]
    schemas = [tool["inputSchema"] for tool in tools if isinstance(tool.get("inputSchema"), dict)]
    score_snapshot(snapshots[0])  # import-time work and caches of the first call are not the subject

    def check_schemas() -> None:
        for schema in schemas:
            cls = validators.validator_for(schema, default=validators.Draft202012Validator)
            next(cls(cls.META_SCHEMA).iter_errors(schema), None)

    return {
        "score": timed(lambda: [score_snapshot(snapshot) for snapshot in snapshots], runs),
        "sdk": timed(lambda: [Tool.model_validate(tool) for tool in tools], runs),
        "jsonschema": timed(check_schemas, max(1, runs // 2)),
    }


def whole_process(snapshots: list[dict], runs: int) -> tuple[float, float, int]:
    """Median wall seconds of `mcpdex score` and of `python -m json.tool` on one 100-tool snapshot."""
    from registry.core.snapshot import dumps_snapshot

    tools, seen = [], set()
    for snapshot in snapshots:
        for tool in snapshot["tools"]:
            if tool["name"] not in seen and len(tools) < 100:
                seen.add(tool["name"])
                tools.append(tool)
    with tempfile.TemporaryDirectory() as work:
        path = Path(work) / "snapshot.json"
        path.write_text(
            dumps_snapshot({"format": "mcpdex.snapshot/1", "server": {"name": "corpus-100"}, "tools": tools}),
            encoding="utf-8",
        )
        mcpdex = [sys.executable, "-m", "registry", "score", str(path), "--format", "json"]
        peer = [sys.executable, "-m", "json.tool", str(path)]
        ours, theirs = [], []
        for _ in range(runs):  # alternate, so load changes hit both alike
            for command, into in ((mcpdex, ours), (peer, theirs)):
                start = time.perf_counter()
                subprocess.run(command, check=True, capture_output=True)
                into.append(time.perf_counter() - start)
    return statistics.median(ours), statistics.median(theirs), len(tools)


def update_docs(snapshots: list[dict]) -> None:
    """Rewrite the generated tables of docs/corpus-scores.md between their markers."""
    from scoring import score_snapshot
    from scoring.statistics import comparison_table, summarize

    cards = [score_snapshot(snapshot) for snapshot in snapshots]
    english = [{**card, "tools": [tool for tool in card["tools"] if not tool["flags"]]} for card in cards]
    text = DOC.read_text(encoding="utf-8")
    for marker, stats in (("all", summarize(cards)), ("analysed", summarize(english))):
        start, end = f"<!-- table:{marker} -->\n", f"<!-- end:{marker} -->"
        head, rest = text.split(start, 1)
        text = head + start + comparison_table(stats) + end + rest.split(end, 1)[1]
    DOC.write_text(text, encoding="utf-8")
    print(f"updated {DOC.relative_to(REPO)}", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument(
        "--update-docs", action="store_true", help="rewrite the tables of docs/corpus-scores.md"
    )
    args = parser.parse_args()
    if not args.corpus.exists():
        raise SystemExit(f"the corpus is not at {args.corpus}")
    snapshots = corpus_snapshots(args.corpus)
    if args.update_docs:
        update_docs(snapshots)
        return
    count = sum(len(snapshot["tools"]) for snapshot in snapshots)
    figures = in_process(snapshots, args.runs)
    ours, sdk, schema = figures["score"], figures["sdk"], figures["jsonschema"]
    process, peer, size = whole_process(snapshots, args.runs)
    print(f"score / SDK Tool parsing, CPU time: {ours[1] / sdk[1]:.2f}x")
    print(f"score / jsonschema metaschema check, CPU time: {ours[1] / schema[1]:.2f}x")
    print(f"mcpdex score ({size} tools) / python -m json.tool, whole process: {process / peer:.2f}x")
    print(
        f"score: {count} tools in {ours[0]:.3f} s wall, {ours[1]:.3f} s CPU = "
        f"{count / ours[1]:.0f} tools per CPU-second ({count / ours[0]:.0f} per wall second)"
    )
    print(f"SDK Tool.model_validate: {sdk[0]:.3f} s wall, {sdk[1]:.3f} s CPU")
    print(f"jsonschema check_schema: {schema[0]:.3f} s wall, {schema[1]:.3f} s CPU")
    print(
        f"mcpdex score --format json, {size} tools, whole process: {process:.3f} s; json.tool: {peer:.3f} s"
    )


if __name__ == "__main__":
    main()
