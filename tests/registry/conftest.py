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


def wait_until_served(process: subprocess.Popen[bytes], url: str, log: Path, what: str) -> None:
    """Wait up to 60 s until ``url`` answers (any answer means the port is served), failing with the
    process's log if it exits first."""
    deadline = time.monotonic() + 60
    while True:
        assert process.poll() is None, log.read_text()
        try:
            httpx.get(url, timeout=2)
            return
        except httpx.TransportError:
            assert time.monotonic() < deadline, f"{what} did not listen within 60 s"
            time.sleep(0.2)


def stop(process: subprocess.Popen[bytes]) -> None:
    """Terminate ``process``, killing it if it has not exited 15 s later."""
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=5)


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
        wait_until_served(process, url, folder / "memory.log", "mcpdex memory --http")
        yield url
    finally:
        stop(process)
        log.close()
