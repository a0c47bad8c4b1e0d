"""Benchmark `mcpdex serve` on SQLite against the same service on PostgreSQL, measured in one run.

Each backend gets a fresh registry seeded with the same servers, one `mcpdex serve` process on a
free loopback port, and the same bounded load per operation (a fixed number of requests from a few
client threads, stopped early at a time limit): the server list (GET /api/servers), a server page
(GET /servers/<slug>/) and a submission (POST /api/servers/<name>/inspections, new versions and
repeats mixed). The PostgreSQL/SQLite throughput ratio is printed first, then the raw figures.

    .venv/bin/python bench/serve.py [--postgres postgresql://postgres@127.0.0.1:5432/postgres]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from registry.core.snapshot import SNAPSHOT_FORMAT, compute_digest
from registry.storage.store import open_store
from registry.storage.tokens import open_tokens

SEED_SERVERS = 40
SEED_VERSIONS = 3


def snapshot(server: str, version: int, tools: int = 6) -> dict[str, Any]:
    """A plausible snapshot: ``tools`` tools with described, typed inputs; ``version`` adds a property."""
    body: dict[str, Any] = {
        "format": SNAPSHOT_FORMAT,
        "server": {
            "name": server,
            "title": server.title(),
            "version": f"1.{version}.0",
            "instructions": None,
        },
        "source": {"transport": "stdio", "target": server},
        "protocolVersion": "2025-11-25",
        "capabilities": {"tools": {}},
        "capturedAt": "2026-11-29T18:00:00Z",
        "tools": [
            {
                "name": f"tool_{n}",
                "description": f"Does operation {n} on one record of {server} by its id. Returns the record; "
                "fails with not_found when no record has that id. Read-only.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string", "description": "The record's id."},
                        **{f"option_{k}": {"type": "integer", "minimum": 0} for k in range(version)},
                    },
                    "required": ["id"],
                },
                "annotations": {"readOnlyHint": True},
            }
            for n in range(tools)
        ],
        "resources": [],
        "resourceTemplates": [],
        "prompts": [],
        "problems": [],
    }
    body["digest"] = compute_digest(body)
    return body


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def postgres_database(admin_url: str) -> Iterator[str]:
    import psycopg

    name = f"mcpdex_bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield admin_url.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def seed(url: str) -> str:
    """Fill the registry with SEED_SERVERS servers of SEED_VERSIONS versions; returns a write token."""
    with open_store(url) as store:
        for index in range(SEED_SERVERS):
            for version in range(SEED_VERSIONS):
                store.record_inspection(
                    snapshot(f"bench-{index:03d}", version),
                    server=f"bench-{index:03d}",
                    ok=True,
                    error=None,
                    started_at=f"2026-11-{version + 1:02d}T00:00:00Z",
                    duration_s=0.5,
                )
        return open_tokens(store).create(f"bench-{uuid.uuid4().hex[:6]}")[1]


@contextmanager
def service(url: str, *options: str) -> Iterator[str]:
    """A `mcpdex serve` process over ``url`` (with more ``options``); yields its base URL."""
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "registry",
            "serve",
            "--registry",
            url,
            "--port",
            str(port),
            "--log-level",
            "error",
            *options,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"mcpdex serve did not start: {process.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
            try:
                httpx.get(base + "/api/openapi.json", timeout=2).raise_for_status()
                break
            except httpx.HTTPError:
                time.sleep(0.2)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


def drive(
    request: Callable[[httpx.Client, int], httpx.Response], count: int, clients: int, limit_s: float
) -> dict:
    """Run ``count`` requests from ``clients`` threads (stopping at ``limit_s``); latency and throughput."""
    latencies: list[float] = []
    failures: list[str] = []
    lock = threading.Lock()
    next_index = iter(range(count))
    deadline = time.monotonic() + limit_s

    def worker() -> None:
        with httpx.Client(timeout=30) as http:
            while time.monotonic() < deadline:
                with lock:
                    index = next(next_index, None)
                if index is None:
                    return
                started = time.perf_counter()
                response = request(http, index)
                elapsed = time.perf_counter() - started
                with lock:
                    latencies.append(elapsed)
                    if response.status_code >= 400:
                        failures.append(f"{response.status_code} {response.text[:200]}")

    started = time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - started
    if failures:
        raise SystemExit(f"{len(failures)} requests failed, first: {failures[0]}")
    ordered = sorted(latencies)
    return {
        "requests": len(ordered),
        "rps": len(ordered) / wall,
        "p50_ms": statistics.median(ordered) * 1000,
        "p99_ms": ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000,
    }


def measure(url: str, count: int, clients: int, limit_s: float) -> dict[str, dict]:
    token = seed(url)
    with service(url) as base:
        page = base + "/" + httpx.get(base + "/index.json", timeout=60).json()["servers"][0]["href"]
        page = page.removesuffix("index.html")
        # The first list scores every server and the first page builds the site: warm both up.
        httpx.get(base + "/api/servers", timeout=60).raise_for_status()
        httpx.get(page, timeout=60).raise_for_status()
        auth = {"Authorization": f"Bearer {token}"}

        def submission(http: httpx.Client, index: int) -> httpx.Response:
            # Half repeat a recorded version, half make a new one.
            version = SEED_VERSIONS - 1 if index % 2 else SEED_VERSIONS + index
            server = f"bench-{index % SEED_SERVERS:03d}"
            return http.post(
                f"{base}/api/servers/{server}/inspections", json=snapshot(server, version), headers=auth
            )

        return {
            "server list": drive(lambda http, _: http.get(base + "/api/servers"), count, clients, limit_s),
            "server page": drive(lambda http, _: http.get(page), count, clients, limit_s),
            "submission": drive(submission, count, clients, limit_s),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--postgres",
        default=os.environ.get("MCPDEX_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres"),
        help="An admin URL of a PostgreSQL server; the benchmark makes and drops its own database there.",
    )
    parser.add_argument("--requests", type=int, default=300, help="Requests per operation (default 300).")
    parser.add_argument("--clients", type=int, default=8, help="Concurrent client threads (default 8).")
    parser.add_argument(
        "--limit", type=float, default=60.0, help="Seconds at most per operation (default 60)."
    )
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        sqlite = measure(
            f"sqlite:///{Path(folder) / 'bench.sqlite'}", args.requests, args.clients, args.limit
        )
    with postgres_database(args.postgres) as url:
        postgres = measure(url, args.requests, args.clients, args.limit)

    print(
        f"mcpdex serve, PostgreSQL vs SQLite ({SEED_SERVERS} servers x {SEED_VERSIONS} versions, "
        f"{args.clients} clients, {args.requests} requests per operation)"
    )
    for operation in sqlite:
        ratio = postgres[operation]["rps"] / sqlite[operation]["rps"]
        print(f"  {operation:12} PostgreSQL/SQLite throughput ratio {ratio:5.2f}x")
    print()
    print(f"  {'operation':12} {'backend':10} {'requests':>8} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8}")
    for operation in sqlite:
        for backend, figures in (("SQLite", sqlite[operation]), ("PostgreSQL", postgres[operation])):
            print(
                f"  {operation:12} {backend:10} {figures['requests']:8d} {figures['rps']:8.1f} "
                f"{figures['p50_ms']:8.1f} {figures['p99_ms']:8.1f}"
            )


if __name__ == "__main__":
    main()
