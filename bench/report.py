"""Benchmark ``mcpdex report --out``: a registry of 1,000 servers × 20 tools × 3 versions.

The peer, measured in the same run, is a plain ``json.dumps`` of the same registry data to files
(one per server and one per tool, read from the same store): the least any publisher must do.
Both run as child processes, so wall time and peak memory (max RSS) are theirs alone.

    .venv/bin/python bench/report.py                   # the full size; target < 60 s, < 500 MB
    .venv/bin/python bench/report.py --servers 100     # a quick look
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# The peer: the same store reads, then every server and tool document dumped as JSON files.
PEER = r"""
import json, sys
from pathlib import Path
from registry.storage.store import open_store
out = Path(sys.argv[2])
with open_store(sys.argv[1]) as store:
    for summary in store.servers():
        versions = store.versions(summary.name)
        document = {"server": summary.name, "versions": [vars(v) for v in versions],
                    "inspections": [vars(i) for i in store.inspections(summary.name, limit=20)]}
        folder = out / "servers" / str(abs(hash(summary.name)))
        (folder / "tools").mkdir(parents=True, exist_ok=True)
        (folder / "index.json").write_text(json.dumps(document, indent=2, sort_keys=True))
        for n, tool in enumerate(versions[-1].snapshot["tools"]):
            (folder / "tools" / f"{n}.json").write_text(json.dumps(tool, indent=2, sort_keys=True))
"""

WORDS = [
    *("read", "write", "note", "graph", "entity", "relation", "search", "index", "file", "path", "query"),
    *("limit", "page", "cursor", "token", "user", "project", "issue", "record", "field", "value", "list"),
    *("create", "update", "delete", "return", "match", "filter", "sort", "order", "time", "zone"),
]


def sentence(rng: random.Random, words: int) -> str:
    text = " ".join(rng.choice(WORDS) for _ in range(words))
    return text[0].upper() + text[1:] + "."


def make_tool(server: int, index: int, version: int) -> dict:
    """Tool ``index`` of a server at release ``version``: the same tool in every release, changed a little.

    Each tool draws from its own generator, and what a release adds is drawn last, so every release
    keeps the name and texts of the one before.
    """
    rng = random.Random(f"{server}:{index}")
    name = f"{rng.choice(WORDS)}_{rng.choice(WORDS)}_{index}"
    title = sentence(rng, 3).rstrip(".")
    properties = {
        "query": {"type": "string", "description": sentence(rng, 8), "maxLength": 200},
        "limit": {
            "type": "integer",
            "minimum": 1,
            "maximum": 100,
            "default": 20,
            "description": sentence(rng, 6),
        },
        "mode": {"type": "string", "enum": ["fast", "full", "exact"][: 3 - (version == 2)]},
        "filter": {
            "type": "object",
            "description": sentence(rng, 5),
            "properties": {"tag": {"type": "string"}, "since": {"type": "string", "format": "date-time"}},
        },
    }
    description = " ".join(sentence(rng, 12) for _ in range(3 + version))
    if version >= 1:
        properties["cursor"] = {"type": "string", "description": sentence(rng, 6)}
    tool = {
        "name": name,
        "title": title,
        "description": description,
        "inputSchema": {
            "type": "object",
            "properties": properties,
            "required": ["query", "limit"] if version == 2 else ["query"],
            "additionalProperties": False,
        },
        "annotations": {"readOnlyHint": index % 2 == 0, "openWorldHint": False},
    }
    if index % 3 == 0:
        tool["outputSchema"] = {
            "type": "object",
            "properties": {
                "items": {"type": "array", "items": {"type": "object"}},
                "next": {"type": "string"},
            },
            "required": ["items"],
        }
    return tool


def build_registry(url: str, servers: int, tools: int, versions: int) -> None:
    from registry.core.snapshot import compute_digest
    from registry.storage.store import open_store

    with open_store(url) as store:
        for server in range(servers):
            for version in range(versions):
                snapshot = {
                    "format": "mcpdex.snapshot/1",
                    "server": {
                        "name": f"server-{server:04d}",
                        "version": f"1.{version}.0",
                        "instructions": None,
                    },
                    "source": {"transport": "stdio", "target": "bench"},
                    "protocolVersion": "2025-11-25",
                    "capabilities": {"tools": {}},
                    "capturedAt": f"2026-0{version + 1}-01T00:00:00Z",
                    "tools": [make_tool(server, index, version) for index in range(tools)],
                    "resources": [],
                    "resourceTemplates": [],
                    "prompts": [],
                    "problems": [],
                }
                snapshot["digest"] = compute_digest(snapshot)
                store.record_inspection(
                    snapshot,
                    server=f"server-{server:04d}",
                    ok=True,
                    error=None,
                    started_at=snapshot["capturedAt"],
                    duration_s=1.0,
                )


def measure(argv: list[str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and peak memory (MB) of one child process, its workers included.

    Memory is the largest sum of the resident sets of the process and its descendants, sampled
    every 20 ms from /proc, so parallel workers count together. CPU time (user + system, workers
    included) is the fairer figure on a machine shared with other jobs.
    """
    started = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
    peak = 0
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            break
        peak = max(peak, _tree_rss_kb(process.pid))
        time.sleep(0.02)
    elapsed = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"bench: {argv[:4]} failed")
    return elapsed, usage.ru_utime + usage.ru_stime, peak / 1024


def _tree_rss_kb(pid: int) -> int:
    total = 0
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            for line in Path(f"/proc/{current}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
            for task in Path(f"/proc/{current}/task").iterdir():
                pending.extend(int(child) for child in (task / "children").read_text().split())
        except (FileNotFoundError, ProcessLookupError):
            continue  # exited between samples
    return total


def tree_size(folder: Path) -> tuple[int, float]:
    files = [p for p in folder.rglob("*") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", type=int, default=1000)
    parser.add_argument("--tools", type=int, default=20)
    parser.add_argument("--versions", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="Work in this folder and keep it (reuses its registry).")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="mcpdex-bench-report-"))
    work.mkdir(parents=True, exist_ok=True)
    registry = work / f"registry-{args.servers}x{args.tools}x{args.versions}.sqlite"
    url = f"sqlite:///{registry}"
    if not registry.exists():
        started = time.perf_counter()
        build_registry(url, args.servers, args.tools, args.versions)
        print(f"setup: registry built in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    for folder in ("site", "peer"):
        shutil.rmtree(work / folder, ignore_errors=True)

    peer_s, peer_cpu, peer_mb = measure([sys.executable, "-c", PEER, url, str(work / "peer")])
    ours_s, ours_cpu, ours_mb = measure(
        [sys.executable, "-m", "registry", "report", "--out", str(work / "site"), "--registry", url]
    )
    site_files, site_mb = tree_size(work / "site")
    peer_files, peer_out_mb = tree_size(work / "peer")
    print(
        f"ratio: report {ours_s / peer_s:.1f}x the wall time, {ours_cpu / peer_cpu:.1f}x the CPU time, "
        f"{ours_mb / peer_mb:.1f}x the memory of json.dumps"
    )
    print(f"registry: {args.servers} servers x {args.tools} tools x {args.versions} versions")
    for label, (seconds, cpu, peak, files, written) in (
        ("mcpdex report --out", (ours_s, ours_cpu, ours_mb, site_files, site_mb)),
        ("json.dumps peer", (peer_s, peer_cpu, peer_mb, peer_files, peer_out_mb)),
    ):
        figures = f"{seconds:.1f} s wall, {cpu:.1f} s CPU, peak {peak:.0f} MB"
        print(f"{label:20} {figures}, {files} files, {written:.0f} MB out")
    print(f"target: < 60 s and < 500 MB -> {'met' if ours_s < 60 and ours_mb < 500 else 'MISSED'}")
    if not args.keep:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
