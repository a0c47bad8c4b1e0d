"""Benchmark: ``mcpdex crawl --from-registry`` of the official registry's sample pages, at
concurrency 4 against concurrency 1 and against one ``mcpdex inspect`` per entry (a shell loop).

The pages (three list pages in the real format, naming real npm and PyPI packages) are read from
the shared reference folder; each run saves to a fresh SQLite registry, so every runnable entry is
inspected (npx and uvx run from their warm caches, outside the sandbox, as ``mcpdex inspect`` runs
them; bench/sandbox.py --registry measures the sandboxed crawl, which fetches each package first).
Runs alternate. Prints the ratios first, then the raw figures.

    .venv/bin/python bench/registry_crawl.py [--runs 1] [--pages DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PAGES = REPO.parent / "shared" / "reference" / "mcp-registry"
MCPDEX = [sys.executable, "-m", "registry"]


def crawl(pages: Path, work: Path, concurrency: int, allowed: Path) -> tuple[float, dict]:
    registry = f"sqlite:///{work / f'c{concurrency}-{time.monotonic_ns()}.sqlite'}"
    started = time.perf_counter()
    result = subprocess.run(
        [*MCPDEX, "crawl", "--from-registry", str(pages), "--save", "--registry", registry,
         "--concurrency", str(concurrency), "--timeout", "120", "--format", "json",
         "--env", f"io.github.modelcontextprotocol/server-filesystem/allowed_directory={allowed}",
         "--sandbox", "off"],
        capture_output=True, text=True,
    )  # fmt: skip
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(result.stderr)
    entries = json.loads(result.stdout)["entries"]
    return elapsed, {e["name"]: e["outcome"] for e in entries}


def separate_runs(pages: Path, allowed: Path) -> float:
    """One ``mcpdex inspect`` per runnable entry, with the argv and environment the crawl uses."""
    from registry.inspecting.official.entries import read_entries
    from registry.inspecting.official.launch import Inputs, entry_launch, select_entries

    started = time.perf_counter()
    for entry in select_entries(read_entries(str(pages)), all_versions=False)[0]:
        try:
            launch = entry_launch(entry, Inputs({"allowed_directory": str(allowed)}))
        except Exception:  # skipped or invalid: the crawl does not inspect it either
            continue
        env = [flag for key, value in launch.env.items() for flag in ("--env", f"{key}={value}")]
        subprocess.run(
            [*MCPDEX, "inspect", "--timeout", "120", *env, "--", *launch.argv],
            capture_output=True, check=True,
        )  # fmt: skip
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--pages", type=Path, default=PAGES)
    args = parser.parse_args()
    if not (args.pages / "sample-list-page-1.json").is_file():
        raise SystemExit(f"no sample pages in {args.pages}")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        pages = work / "pages"
        pages.mkdir()
        for number in (1, 2, 3):
            name = f"sample-list-page-{number}.json"
            (pages / name).write_bytes((args.pages / name).read_bytes())
        allowed = work / "allowed"
        allowed.mkdir()
        four, one, loop = [], [], []
        outcomes: dict = {}
        for _ in range(args.runs):
            elapsed, outcomes = crawl(pages, work, 4, allowed)
            four.append(elapsed)
            one.append(crawl(pages, work, 1, allowed)[0])
            loop.append(separate_runs(pages, allowed))
    c4, c1, shell = (statistics.median(xs) for xs in (four, one, loop))
    inspected = sum(1 for outcome in outcomes.values() if outcome == "ok")
    print(f"crawl at concurrency 4 / concurrency 1: {c4 / c1:.2f} ({c4:.1f} s vs {c1:.1f} s)")
    print(
        f"crawl at concurrency 4 / {inspected} separate mcpdex inspect runs: {c4 / shell:.2f} ({shell:.1f} s)"
    )
    print(f"entries: {json.dumps(outcomes, sort_keys=True)}")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
