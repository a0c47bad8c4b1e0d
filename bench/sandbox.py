"""Benchmark: what the sandbox costs. A crawl of 20 real servers (the npm peers of bench/crawl.py) and
one inspection of server-everything, each sandboxed and not, in interleaved rounds; then where the
sandbox's own time goes (starting bubblewrap with its limits, making and removing the cgroups).

``--registry`` also crawls the official registry's sample pages (real npm and PyPI packages):
sandboxed, each package fetched into a folder of its own (install scripts off, its own download
cache) and then run offline; unsandboxed, ``npx -y`` and ``uvx`` from their warm caches; and
unsandboxed from empty caches, which downloads as much as the fetch does. Prints the ratios first,
then the raw figures.

    .venv/bin/python bench/sandbox.py [--runs 3] [--servers 20] [--concurrency 8] [--registry]
        [--only-registry]
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from crawl import PEERS, config, timed

from registry.inspecting import sandbox


def startup_costs(rounds: int = 20) -> dict[str, float]:
    """Median ms of: /bin/true directly, in the sandbox (bwrap, prlimit, setpriv as root), and
    making and removing the sandbox's cgroups alone."""
    policy = sandbox.SandboxPolicy()
    direct, wrapped, cgroups = [], [], []
    for _ in range(rounds):
        started = time.perf_counter()
        subprocess.run(["/bin/true"], check=True)
        direct.append(time.perf_counter() - started)
        started = time.perf_counter()
        with sandbox.sandboxed(["/bin/true"], {}, None, policy) as run:
            subprocess.run(run.argv, env=run.env, check=True)
        wrapped.append(time.perf_counter() - started)
        started = time.perf_counter()
        for group in sandbox._make_cgroups():
            group.rmdir()
        cgroups.append(time.perf_counter() - started)
    return {
        "true directly": statistics.median(direct) * 1000,
        "true sandboxed": statistics.median(wrapped) * 1000,
        "cgroups made and removed": statistics.median(cgroups) * 1000,
    }


PAGES = Path(__file__).resolve().parents[2] / "shared" / "reference" / "mcp-registry"


def registry_runs(work: Path, base: list[str]) -> dict[str, list[str]]:
    """The registry crawls to time: the sample pages as one list dump, every runnable entry inspected."""
    if not PAGES.is_dir():
        raise SystemExit(f"--registry needs the registry sample pages at {PAGES}")
    pages = [json.loads((PAGES / f"sample-list-page-{n}.json").read_text()) for n in (1, 2, 3)]
    servers = [server for page in pages for server in page["servers"]]
    dump = work / "registry.json"
    dump.write_text(json.dumps({"servers": servers, "metadata": {"count": len(servers)}}))
    allowed = "io.github.modelcontextprotocol/server-filesystem/allowed_directory=" + str(work)
    crawl = [*base, "crawl", "--from-registry", str(dump), "--format", "json", "--timeout", "120",
             "--concurrency", "4", "--env", allowed]  # fmt: skip
    return {
        "registry sandboxed (fetch, then offline)": [*crawl, "--sandbox", "on"],
        "registry unsandboxed (warm caches)": [*crawl, "--sandbox", "off"],
        "registry unsandboxed (empty caches)": ["cold", *crawl, "--sandbox", "off"],
    }


def timed_cold(argv: list[str]) -> float:
    """``argv`` with npm's and uv's caches pointed at empty folders, removed afterwards."""
    caches = Path(tempfile.mkdtemp(prefix="mcpdex-cold-"))
    env = os.environ | {"npm_config_cache": str(caches / "npm"), "UV_CACHE_DIR": str(caches / "uv")}
    try:
        started = time.perf_counter()
        result = subprocess.run(argv, capture_output=True, text=True, timeout=900, env=env)
        if result.returncode != 0:
            raise SystemExit(f"{argv[:4]} failed: {result.stderr[-800:]}")
        return time.perf_counter() - started
    finally:
        shutil.rmtree(caches, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--servers", type=int, default=20)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--registry", action="store_true", help="also crawl the registry sample pages")
    parser.add_argument("--only-registry", action="store_true", help="only the registry crawls")
    args = parser.parse_args()
    reason = sandbox.unavailable_reason()
    if reason is not None:
        raise SystemExit(f"no sandbox can be made here: {reason}")
    work = Path(tempfile.mkdtemp(prefix="mcpdex-sandbox-bench-"))
    try:
        measure(args, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def measure(args: argparse.Namespace, work: Path) -> None:
    work.chmod(0o755)  # the sandbox user reads the filesystem server's root in it
    path = work / "servers.json"
    path.write_text(json.dumps(config(args.servers, work)))
    base = [sys.executable, "-m", "registry"]
    crawl = [*base, "crawl", str(path), "--protocol-era", "legacy", "--format", "json", "--timeout", "120",
             "--concurrency", str(args.concurrency)]  # fmt: skip
    everything = str(PEERS / "server-everything/dist/index.js")
    inspect = [*base, "inspect", "--protocol-era", "legacy", "--format", "json", "--timeout", "60"]
    runs: dict[str, list[str]] = {}
    if not args.only_registry:
        runs |= {
            "crawl sandboxed": [*crawl, "--sandbox", "on"],
            "crawl unsandboxed": [*crawl, "--sandbox", "off"],
            "inspect sandboxed": [*inspect, "--sandbox", "--", "node", everything, "stdio"],
            "inspect unsandboxed": [*inspect, "--", "node", everything, "stdio"],
        }
    if args.registry or args.only_registry:
        runs |= registry_runs(work, base)

    def one(argv: list[str]) -> float:
        return timed_cold(argv[1:]) if argv[0] == "cold" else timed(argv)

    figures: dict[str, list[float]] = {name: [] for name in runs}
    for argv in runs.values():
        one(argv)  # warm-up (npx's and uvx's caches included)
    for round_ in range(args.runs):
        # Interleaved, and the order flipped every round, so machine load falls on both alike.
        order = list(runs.items()) if round_ % 2 == 0 else list(reversed(runs.items()))
        for name, argv in order:
            figures[name].append(one(argv))
    median = {name: statistics.median(values) for name, values in figures.items()}
    for label, over, under in (
        (f"crawl of {args.servers} servers", "crawl sandboxed", "crawl unsandboxed"),
        ("one inspection", "inspect sandboxed", "inspect unsandboxed"),
        ("registry crawl, against warm caches", "registry sandboxed (fetch, then offline)",
         "registry unsandboxed (warm caches)"),
        ("registry crawl, against empty caches", "registry sandboxed (fetch, then offline)",
         "registry unsandboxed (empty caches)"),
    ):  # fmt: skip
        if over in median and under in median:
            print(f"ratio {label}, sandboxed / unsandboxed: {median[over] / median[under]:.2f}")
    for name, value in median.items():
        print(f"{name}: {value:.2f} s")
    for name, ms in startup_costs().items():
        print(f"{name}: {ms:.1f} ms")
    print("raw (s): " + "; ".join(f"{k} " + " ".join(f"{v:.2f}" for v in vs) for k, vs in figures.items()))
    print(f"cores: {os.cpu_count()}; load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
