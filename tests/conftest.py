"""Fixtures shared by every test package: paths to the real peers, PostgreSQL, the corpus."""

from __future__ import annotations

import os
import shutil
import sqlite3
import sys
import threading
import time
import uuid
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

# Something in the test process's start-up (a terminal library under a plugin) exports COLUMNS and LINES
# to the C environment without putting them in os.environ; every child would inherit a width of 80 its
# user never set, and cut its tables to it. Children get the environment os.environ shows.
for _name in ("COLUMNS", "LINES"):
    if _name not in os.environ:
        os.unsetenv(_name)

REPO = Path(__file__).resolve().parents[1]
PEERS = REPO / ".peers"
NPM_MODULES = PEERS / "npm" / "node_modules" / "@modelcontextprotocol"
CORPUS = REPO.parent / "shared" / "corpus" / "livemcpbench"
IN_CI = os.environ.get("CI") == "true"
# The nine tools of the official knowledge-graph memory server, written out here as the tests'
# own expectation rather than taken from the code under test.
OFFICIAL_MEMORY_TOOLS = frozenset(
    [
        "create_entities",
        "create_relations",
        "add_observations",
        "delete_entities",
        "delete_observations",
        "delete_relations",
        "read_graph",
        "search_nodes",
        "open_nodes",
    ]
)


SNAPSHOT_FORMAT = "mcpdex.snapshot/1"  # written out as the tests' expectation, like the tool names above


def make_snapshot(
    *tools: dict[str, Any],
    name: str = "demo",
    version: str | None = "1.0.0",
    title: str | None = None,
    instructions: str | None = None,
    server: dict[str, Any] | None = None,
    without: Iterable[str] = (),
    **fields: Any,
) -> dict[str, Any]:
    """A valid snapshot shaped as ``mcpdex inspect --out`` writes it, holding ``tools``.

    ``name``, ``version``, ``title`` and ``instructions`` fill the server object; ``server`` replaces
    that object whole (for a test that needs, say, no version at all). Any other top-level key is set by
    its wire name (``resources=[...]``, ``capturedAt="..."``, ``source={...}``, ``versionLabel="2"``),
    ``without`` drops keys, and the digest is computed over the result unless given or dropped.
    """
    snapshot: dict[str, Any] = {
        "format": SNAPSHOT_FORMAT,
        "server": dict(server)
        if server is not None
        else {"name": name, "title": title, "version": version, "instructions": instructions},
        "source": {"transport": "stdio", "target": name},
        "protocolVersion": "2025-11-25",
        "capabilities": {"tools": {"listChanged": False}},
        "capturedAt": "2026-11-29T18:00:00Z",
        "tools": list(tools),
        "resources": [],
        "resourceTemplates": [],
        "prompts": [],
        "problems": [],
    }
    snapshot.update(fields)
    dropped = set(without)
    for key in dropped:
        snapshot.pop(key, None)
    if "digest" not in snapshot and "digest" not in dropped:
        from registry.core.snapshot import compute_digest

        snapshot["digest"] = compute_digest(snapshot)
    return snapshot


# What CI must do about missing data that lives beside the repository rather than in it.
SHARED_DATA = "CI must check out the shared data as ../shared beside the repository"


def require(condition: bool, why: str, fix: str = "CI must install it: see scripts/test") -> None:
    """Skip locally when a real dependency is missing; in CI (``CI=true``) a missing dependency is a
    failure, so a run cannot pass green with the coverage it gives gone."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"{why} ({fix})")
    pytest.skip(why)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def node() -> str:
    path = shutil.which("node")
    require(path is not None, "node is not on PATH")
    return path  # type: ignore[return-value]


@pytest.fixture(scope="session")
def npm_peer(node: str):
    """``npm_peer("server-memory")`` → the argv that starts that official npm server."""

    def argv(name: str, *args: str) -> list[str]:
        script = NPM_MODULES / name / "dist" / "index.js"
        require(script.exists(), f"{name} is not installed under .peers/ (run scripts/install-peers)")
        return [node, str(script), *args]

    return argv


@pytest.fixture(scope="session")
def py_peer():
    """``py_peer("mcp-server-time")`` → the path of a PyPI peer's console script in its own venv."""

    def path(venv: str, script: str | None = None) -> str:
        exe = PEERS / "py" / venv / "bin" / (script or venv)
        require(exe.exists(), f"{venv} is not installed under .peers/py (run scripts/install-peers)")
        return str(exe)

    return path


@pytest.fixture(scope="session")
def python() -> str:
    """The interpreter running the tests (has mcpdex and the SDK installed)."""
    return sys.executable


@pytest.fixture(scope="session")
def corpus_tools() -> list[dict]:
    import json

    tools_file = CORPUS / "tools.json"
    require(tools_file.exists(), f"the corpus is not at {CORPUS}", SHARED_DATA)
    return json.loads(tools_file.read_text(encoding="utf-8"))


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """A fresh, empty PostgreSQL database for one test, dropped afterwards."""
    base = os.environ.get("MCPDEX_TEST_POSTGRES_URL")
    require(bool(base), "MCPDEX_TEST_POSTGRES_URL is not set (scripts/ensure-postgres prints one)")
    import psycopg

    admin_url = base.replace("postgresql+psycopg://", "postgresql://")  # type: ignore[union-attr]
    name = f"mcpdex_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    yield admin_url.rsplit("/", 1)[0] + f"/{name}"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def sqlite_file_being_created() -> Iterator[Any]:
    """``sqlite_file_being_created(path, seconds)`` makes ``path`` a new SQLite file whose first write
    transaction another connection holds for ``seconds``: the state a file is in while another process
    creates it."""
    threads: list[threading.Thread] = []

    def create(path: Path, seconds: float) -> None:
        holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        holder.execute("BEGIN IMMEDIATE")
        holder.execute("CREATE TABLE other_writer (x)")

        def release() -> None:
            time.sleep(seconds)
            holder.execute("COMMIT")
            holder.close()

        threads.append(threading.Thread(target=release))
        threads[-1].start()

    yield create
    for thread in threads:
        thread.join()
