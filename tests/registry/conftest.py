"""Fixtures of the registry tests: a live ``mcpdex memory --http`` server."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import httpx
import pytest


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def memory_http(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``mcpdex memory --http`` on a free loopback port with a fresh graph; yields its /mcp URL."""
    folder = tmp_path_factory.mktemp("memory-http")
    port = free_port()
    log = (folder / "memory.log").open("w")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "registry",
            "memory",
            "--http",
            "--port",
            str(port),
            "--db",
            str(folder / "graph.db"),
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, (folder / "memory.log").read_text()
            try:
                httpx.get(url, timeout=2)  # any answer means the port is served
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "mcpdex memory --http did not listen within 60 s"
                time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)
        log.close()
