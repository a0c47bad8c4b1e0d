"""Benchmark: scoring time and memory per tool stay flat from 100 to 10,000 tools in one server.

Servers of each size are built from the real corpus (its 527 tools repeated, each copy renamed
``<name>_<copy>``), plus the hostile case of the same size where every tool says "Gets it.". The
peer, measured in the same process on the same tools, is what any client does with a tool list it
takes seriously: ``json.dumps`` of the list and python-jsonschema's metaschema check of every input
schema. Per-tool CPU time of scoring is printed as a ratio to the peer's per-tool CPU time at each
size (flat ratios mean linear work), then the raw figures; peak memory (tracemalloc, in a separate
run from the timing) as a ratio to the size of the snapshot's JSON.

    .venv/bin/python bench/score_scaling.py [--sizes 100,1000,10000] [--corpus PATH]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import tracemalloc
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.score import CORPUS, corpus_snapshots  # noqa: E402


def server_of(tools: list[dict], size: int) -> dict:
    """A snapshot of ``size`` tools cycling through ``tools``, every name distinct."""
    built = []
    for index in range(size):
        tool = tools[index % len(tools)]
        copy = index // len(tools)
        built.append({**tool, "name": f"{tool['name']}_{copy}" if copy else tool["name"]})
    return {"format": "mcpdex.snapshot/1", "server": {"name": f"bench-{size}"}, "tools": built}


def hostile_server(size: int) -> dict:
    tools = [
        {"name": f"tool_{index}", "description": "Gets it.", "inputSchema": {"type": "object"}}
        for index in range(size)
    ]
    return {"format": "mcpdex.snapshot/1", "server": {"name": f"hostile-{size}"}, "tools": tools}


def cpu(work) -> float:
    start = time.process_time()
    work()
    return time.process_time() - start


def peak_bytes(work) -> int:
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def peer(snapshot: dict) -> None:
    from jsonschema import validators

    json.dumps(snapshot["tools"])
    for tool in snapshot["tools"]:
        schema = tool.get("inputSchema")
        if isinstance(schema, dict):
            cls = validators.validator_for(schema, default=validators.Draft202012Validator)
            next(cls(cls.META_SCHEMA).iter_errors(schema), None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    args = parser.parse_args()
    if not args.corpus.exists():
        raise SystemExit(f"the corpus is not at {args.corpus}")
    from scoring import score_snapshot

    corpus_tools = [tool for snapshot in corpus_snapshots(args.corpus) for tool in snapshot["tools"]]
    warm = server_of(corpus_tools, 100)
    score_snapshot(warm)  # import-time work and first-call caches, ours and the peer's, are not the subject
    peer(warm)
    rows = []
    for kind, build in (("corpus", lambda size: server_of(corpus_tools, size)), ("hostile", hostile_server)):
        for size in (int(value) for value in args.sizes.split(",")):
            snapshot = build(size)
            ours = cpu(lambda snapshot=snapshot: score_snapshot(snapshot))
            theirs = cpu(lambda snapshot=snapshot: peer(snapshot))
            memory = peak_bytes(lambda snapshot=snapshot: score_snapshot(snapshot))
            size_json = len(json.dumps(snapshot))
            rows.append((kind, size, ours, theirs, memory, size_json))
    print("per-tool CPU time of scoring / of json.dumps + jsonschema metaschema check, same tools:")
    for kind, size, ours, theirs, memory, size_json in rows:
        print(f"  {kind:7} {size:>6} tools: {ours / theirs:6.2f}x   ", end="")
        print(f"peak memory / snapshot JSON: {memory / size_json:5.1f}x")
    print("raw figures:")
    for kind, size, ours, theirs, memory, size_json in rows:
        print(
            f"  {kind:7} {size:>6} tools: score {ours:7.2f} s CPU ({ours / size * 1e3:.2f} ms/tool), "
            f"peer {theirs:6.2f} s ({theirs / size * 1e3:.2f} ms/tool), "
            f"peak {memory / 2**20:7.1f} MiB ({memory / size / 1024:.1f} KiB/tool), "
            f"JSON {size_json / 2**20:.1f} MiB"
        )


if __name__ == "__main__":
    main()
