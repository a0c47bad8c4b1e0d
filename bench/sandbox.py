"""Benchmark: what the sandbox costs. A crawl of 20 real servers (the npm peers of bench/crawl.py) and
one inspection of server-everything, each sandboxed and not, in interleaved rounds; then where the
sandbox's own time goes (starting bubblewrap with its limits, making and removing the cgroups).
Prints the ratios first, then the raw figures.

    .venv/bin/python bench/sandbox.py [--runs 3] [--servers 20] [--concurrency 8]
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--servers", type=int, default=20)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    reason = sandbox.unavailable_reason()
    if reason is not None:
        raise SystemExit(f"no sandbox can be made here: {reason}")
    work = Path(tempfile.mkdtemp(prefix="mcpdex-sandbox-bench-"))
    work.chmod(0o755)  # the sandbox user reads the filesystem server's root in it
    path = work / "servers.json"
    path.write_text(json.dumps(config(args.servers, work)))
    base = [sys.executable, "-m", "registry"]
    crawl = [*base, "crawl", str(path), "--protocol-era", "legacy", "--format", "json", "--timeout", "120",
             "--concurrency", str(args.concurrency)]  # fmt: skip
    everything = str(PEERS / "server-everything/dist/index.js")
    inspect = [*base, "inspect", "--protocol-era", "legacy", "--format", "json", "--timeout", "60"]
    runs = {
        "crawl sandboxed": [*crawl, "--sandbox", "on"],
        "crawl unsandboxed": [*crawl, "--sandbox", "off"],
        "inspect sandboxed": [*inspect, "--sandbox", "--", "node", everything, "stdio"],
        "inspect unsandboxed": [*inspect, "--", "node", everything, "stdio"],
    }
    figures: dict[str, list[float]] = {name: [] for name in runs}
    for argv in runs.values():
        timed(argv)  # warm-up
    for round_ in range(args.runs):
        # Interleaved, and the order flipped every round, so machine load falls on both alike.
        order = list(runs.items()) if round_ % 2 == 0 else list(reversed(runs.items()))
        for name, argv in order:
            figures[name].append(timed(argv))
    median = {name: statistics.median(values) for name, values in figures.items()}
    print(f"ratio crawl of {args.servers} servers, sandboxed / unsandboxed: "
          f"{median['crawl sandboxed'] / median['crawl unsandboxed']:.2f}")  # fmt: skip
    print(f"ratio one inspection, sandboxed / unsandboxed: "
          f"{median['inspect sandboxed'] / median['inspect unsandboxed']:.2f}")  # fmt: skip
    for name, value in median.items():
        print(f"{name}: {value:.2f} s")
    for name, ms in startup_costs().items():
        print(f"{name}: {ms:.1f} ms")
    print("raw (s): " + "; ".join(f"{k} " + " ".join(f"{v:.2f}" for v in vs) for k, vs in figures.items()))
    print(f"cores: {os.cpu_count()}; load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
