"""Bounded work: the service's list latency before and after a 10,000-tool submission, and `mcpdex
inspect` of huge servers against its --timeout, measured in one run.

The service part runs one real `mcpdex serve` per backend over the registry of bench/serve.py (40
servers × 3 versions, scored by the service's background job before measuring), then measures
GET /api/servers and another tenant's page from 4 client threads, submits one snapshot of 10,000
tools with a token scoped to `acme-*`, and measures again at once (while the service's background
job scores that version in its child process) and once that job is over (done, or stopped at
--score-budget 20). The ratios after ÷ before are printed first. The inspect part runs `mcpdex
inspect --timeout T` (text summary, scores included) against a server that pages forever and one
that sends a 50 MB tool list, and prints the time to the last byte of output ÷ T.

    .venv/bin/python bench/bounded.py [--postgres postgresql://postgres@127.0.0.1:5432/postgres]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serve import drive, postgres_database, seed, service, snapshot

from registry.core.snapshot import compute_digest
from registry.storage.store import open_store
from registry.storage.tokens import open_tokens

SERVERS = Path(__file__).resolve().parents[1] / "tests" / "registry" / "servers"
REQUESTS, CLIENTS = 300, 4
SCORE_BUDGET_S = 20  # the 10,000-tool version's scoring is stopped past this if it has not finished


def huge(tools: int) -> dict[str, Any]:
    body = snapshot("acme-huge", 0)
    body["server"]["name"] = "acme-huge"
    body["tools"] = [
        {"name": f"tool_{i:05d}", "description": "Gets it.", "inputSchema": {"type": "object"}}
        for i in range(tools)
    ]
    body["digest"] = compute_digest(body)
    return body


def wait_until_scored(base: str, limit_s: float = 300) -> float:
    started = time.monotonic()
    while time.monotonic() - started < limit_s:
        listed = httpx.get(base + "/api/servers", params={"per_page": 200}, timeout=30).json()["servers"]
        if all(item["score"] is not None for item in listed):
            return time.monotonic() - started
        time.sleep(0.5)
    raise SystemExit("the background job did not score the seeded versions in time")


def reads(base: str) -> dict[str, dict]:
    return {
        "list": drive(lambda http, _: http.get(base + "/api/servers"), REQUESTS, CLIENTS, 60),
        "page": drive(lambda http, _: http.get(base + "/servers/bench-007/"), REQUESTS, CLIENTS, 60),
    }


def measure_service(url: str) -> dict[str, Any]:
    seed(url)
    with open_store(url) as store:
        acme = open_tokens(store).create("acme-bench", "acme-*")[1]
    with service(url, "--score-budget", str(SCORE_BUDGET_S)) as base:
        scored_in = wait_until_scored(base)
        httpx.get(base + "/", timeout=60)  # the pages are built once before measuring
        before = reads(base)
        started = time.perf_counter()
        answer = httpx.post(
            base + "/api/servers/acme-huge/inspections",
            json=huge(10_000),
            headers={"Authorization": f"Bearer {acme}"},
            timeout=120,
        )
        submitted = time.perf_counter() - started
        if answer.status_code != 201:
            raise SystemExit(f"the 10,000-tool submission got {answer.status_code}: {answer.text[:300]}")
        after = reads(base)
        # Then once its scoring is over (done, or stopped at the budget): no job competes for the CPU.
        started = time.perf_counter()
        while httpx.get(base + "/api/servers/acme-huge/score", timeout=30).status_code == 503:
            time.sleep(0.5)
        job = time.perf_counter() - started
        settled = reads(base)
    return {
        "scored_in": scored_in,
        "before": before,
        "after": after,
        "settled": settled,
        "submitted": submitted,
        "job": job,
    }


def last_byte(script: str, timeout: int) -> tuple[float, float, str]:
    """Seconds to the last byte of `mcpdex inspect --timeout`'s text output, to exit, and its last line."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("MCPDEX_")}
    env["MCPDEX_DATA_DIR"] = "/nonexistent-bench-dir"
    started = time.perf_counter()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "registry",
            "inspect",
            "--timeout",
            str(timeout),
            "--protocol-era",
            "legacy",
            "--",
            sys.executable,
            str(SERVERS / script),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    assert process.stdout is not None
    chunks, last = [], started
    while chunk := process.stdout.read1(65536):
        chunks.append(chunk)
        last = time.perf_counter()
    process.wait(timeout=600)
    lines = b"".join(chunks).decode(errors="replace").strip().splitlines()
    return last - started, time.perf_counter() - started, lines[-1] if lines else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", help="An admin URL; a throwaway database is made on it.")
    parser.add_argument("--timeout", type=int, default=30, help="--timeout of the inspect runs.")
    options = parser.parse_args()
    print(f"load average before: {os.getloadavg()}")
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        results["SQLite"] = measure_service(f"sqlite:///{folder}/registry.sqlite")
    if options.postgres:
        with postgres_database(options.postgres) as url:
            results["PostgreSQL"] = measure_service(url)
    for backend, result in results.items():
        for what in ("list", "page"):
            before = result["before"][what]
            for when in ("settled", "after"):
                after = result[when][what]
                print(
                    f"{backend} {what} ({when}): after ÷ before p50 "
                    f"**{after['p50_ms'] / before['p50_ms']:.2f}** ({before['p50_ms']:.1f} → "
                    f"{after['p50_ms']:.1f} ms; p99 {before['p99_ms']:.1f} → {after['p99_ms']:.1f} ms; "
                    f"{before['rps']:.0f} → {after['rps']:.0f} req/s)"
                )
        print(
            f"{backend}: the 10,000-tool submission answered in {result['submitted']:.2f} s; "
            f"its scoring ended {result['job']:.1f} s after the first measurement; the seeded 120 versions "
            f"were scored by the background job in {result['scored_in']:.1f} s"
        )
    for script in ("pages_forever.py", "fifty_megabyte_list.py"):
        to_last, to_exit, line = last_byte(script, options.timeout)
        print(
            f"inspect --timeout {options.timeout} of {script}: last byte at "
            f"**{to_last / options.timeout:.2f}**× the timeout ({to_last:.1f} s; exit at {to_exit:.1f} s); "
            f"last line: {line[:160]}"
        )
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
