"""Fixtures of the registry tests: a live ``mcpdex memory --http`` server, and the hostile server the
sandbox is tried against."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import require

SERVERS = Path(__file__).parent / "servers"
HOSTILE = [sys.executable, str(SERVERS / "hostile.py")]


def hostile_report(snapshot: dict) -> dict[str, str]:
    """What the hostile server's attempts came to, from its one tool's description."""
    (tool,) = snapshot["tools"]
    return dict(part.split(": ", 1) for part in tool["description"].split(" | "))


@pytest.fixture
def bubblewrap() -> None:
    """Skips (fails in CI) where no sandbox can be made."""
    from registry.inspecting import sandbox

    reason = sandbox.unavailable_reason()
    require(
        reason is None,
        f"no sandbox can be made here: {reason}",
        "CI must install bubblewrap: see scripts/test",
    )


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
