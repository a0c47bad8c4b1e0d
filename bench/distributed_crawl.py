"""Benchmark: a pass on the queue with 1, 2 and 4 ``mcpdex worker`` processes against ``mcpdex crawl``
at the same total concurrency, on this one machine, over the real npm peers of bench/crawl.py.

For each count of workers (each ``--concurrency 2``), the workers are started and left idle, then
the clock runs from ``crawl --enqueue`` until the registry holds the pass's last outcome; the peer
is ``crawl --save --concurrency 2×workers`` of the same servers into a registry of its own. The two
alternate, and each figure is the best of ``--rounds``. On two cores the ratio is the point: what
one machine shows of the queue's cost, not the speed-up of more machines.

    .venv/bin/python bench/distributed_crawl.py --queue redis://127.0.0.1:6379/0 [--servers 12]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from crawl import config  # bench/crawl.py: the npm peers as an mcpServers config

MCPDEX = [sys.executable, "-m", "registry"]


def queued_pass(cfg: Path, registry: str, queue: str, workers: int, servers: int) -> float:
    from registry.queue.passes import pass_outcomes
    from registry.storage.store import open_store

    procs = [
        subprocess.Popen([*MCPDEX, "worker", "--registry", registry, "--queue", queue, "--concurrency", "2"],
                         stderr=subprocess.DEVNULL)
        for _ in range(workers)
    ]  # fmt: skip
    try:
        time.sleep(3)  # started and idle
        started = time.perf_counter()
        out = subprocess.run(
            [*MCPDEX, "crawl", str(cfg), "--enqueue", "--registry", registry, "--queue", queue,
             "--format", "json"],
            capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        pass_id = json.loads(out)["pass"]
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            with open_store(registry) as store:
                if len(pass_outcomes(store, pass_id)) >= servers:
                    return time.perf_counter() - started
            time.sleep(0.1)
        raise SystemExit("bench: the pass did not finish in 10 minutes")
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
        for proc in procs:
            proc.wait(60)


def one_process(cfg: Path, registry: str, concurrency: int) -> float:
    started = time.perf_counter()
    subprocess.run(
        [*MCPDEX, "crawl", str(cfg), "--save", "--registry", registry, "--concurrency", str(concurrency)],
        capture_output=True, check=True,
    )  # fmt: skip
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queue", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--servers", type=int, default=12)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    os.environ["MCPDEX_QUEUE_NAME"] = f"mcpdex-bench-{uuid.uuid4().hex[:8]}"
    work = Path(tempfile.mkdtemp(prefix="mcpdex-bench-distributed-"))
    cfg = work / "servers.json"
    cfg.write_text(json.dumps(config(args.servers, work)))
    results: dict[int, tuple[list[float], list[float]]] = {n: ([], []) for n in (1, 2, 4)}
    for round_ in range(args.rounds):
        for workers in (1, 2, 4):
            queued, single = results[workers]
            queued.append(queued_pass(cfg, f"sqlite:///{work / f'q{workers}-{round_}.sqlite'}", args.queue,
                                      workers, args.servers))  # fmt: skip
            single.append(one_process(cfg, f"sqlite:///{work / f'c{workers}-{round_}.sqlite'}", 2 * workers))
    for workers, (queued, single) in results.items():
        q, c = min(queued), min(single)
        per_job = (q - c) / args.servers * 1000
        print(
            f"{workers} worker(s) x 2 vs crawl --concurrency {2 * workers}: {q / c:.2f}x the crawl's time "
            f"({q:.1f} s vs {c:.1f} s for {args.servers} servers; {per_job:+.0f} ms per job)"
        )


if __name__ == "__main__":
    main()
