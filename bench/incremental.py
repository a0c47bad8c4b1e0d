"""Benchmark ``mcpdex report --out`` rebuilding a site after one server changed, against a full build.

A synthetic registry (the servers, tools and versions of bench/report.py) is built once; then, in
order: a full build into an empty folder, a rebuild with nothing changed, and a rebuild after one
server records a new version. Each runs as a child process (wall time, CPU time and peak memory of
the process tree are its own). The ratio printed first is full ÷ incremental wall time.

    .venv/bin/python bench/incremental.py --servers 1000
    .venv/bin/python bench/incremental.py --servers 10000 --tools 5 --versions 1
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from report import build_registry, make_tool, measure  # bench/report.py, beside this file


def change_one(url: str, server: int, tools: int, version: int) -> None:
    """Record a new release of ``server``: every tool at ``version``, one of them renamed."""
    from registry.core.snapshot import compute_digest
    from registry.storage.store import open_store

    snapshot = {
        "format": "mcpdex.snapshot/1",
        "server": {"name": f"server-{server:04d}", "version": f"2.{version}.0", "instructions": None},
        "source": {"transport": "stdio", "target": "bench"},
        "protocolVersion": "2025-11-25",
        "capabilities": {"tools": {}},
        "capturedAt": "2026-11-30T00:00:00Z",
        "tools": [make_tool(server, index, min(version, 2)) for index in range(tools)],
        "resources": [],
        "resourceTemplates": [],
        "prompts": [],
        "problems": [],
    }
    snapshot["tools"][0] = {**snapshot["tools"][0], "name": f"renamed_{version}"}
    snapshot["digest"] = compute_digest(snapshot)
    with open_store(url) as store:
        store.record_inspection(
            snapshot, server=f"server-{server:04d}", ok=True, error=None,
            started_at=snapshot["capturedAt"], duration_s=1.0,
        )  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", type=int, default=1000)
    parser.add_argument("--tools", type=int, default=15)
    parser.add_argument("--versions", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3, help="Incremental rebuilds after a change.")
    parser.add_argument("--keep", type=Path, help="Work in this folder and keep it (reuses its registry).")
    parser.add_argument(
        "--no-full",
        action="store_true",
        help="With --keep: reuse the site built before, skip the full build.",
    )
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="mcpdex-bench-incremental-"))
    work.mkdir(parents=True, exist_ok=True)
    registry = work / f"registry-{args.servers}x{args.tools}x{args.versions}.sqlite"
    url = f"sqlite:///{registry}"
    if not registry.exists():
        started = time.perf_counter()
        build_registry(url, args.servers, args.tools, args.versions)
        print(f"setup: registry built in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    site = work / "site"
    report = [sys.executable, "-m", "registry", "report", "--out", str(site), "--registry", url]
    if args.no_full and (site / ".mcpdex-build.json").is_file():
        measure(report)  # brings the site up to date with the registry
        full = (float("nan"), float("nan"), float("nan"))
    else:
        shutil.rmtree(site, ignore_errors=True)
        full = measure(report)
    same = measure(report)
    changed = []
    for round_ in range(args.rounds):
        change_one(url, args.servers // 2, args.tools, round_ + 10 + int(time.time()) % 1000 * 10)
        changed.append(measure(report))
    best = min(changed)
    if full[0] == full[0]:  # not NaN: there was a full build
        print(
            f"incremental after one change: {full[0] / best[0]:.0f}x faster than a full build "
            f"({best[0]:.2f} s vs {full[0]:.1f} s wall) at {args.servers:,} servers x {args.tools} tools"
        )
    else:
        print(
            f"incremental after one change: {best[0]:.2f} s wall "
            f"at {args.servers:,} servers x {args.tools} tools"
        )
    print(f"  full build:         {full[0]:7.2f} s wall, {full[1]:7.2f} s CPU, {full[2]:6.0f} MB peak")
    print(f"  nothing changed:    {same[0]:7.2f} s wall, {same[1]:7.2f} s CPU, {same[2]:6.0f} MB peak")
    for wall, cpu, peak in changed:
        print(f"  one server changed: {wall:7.2f} s wall, {cpu:7.2f} s CPU, {peak:6.0f} MB peak")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
