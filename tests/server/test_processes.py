"""The memory server as users run it: `mcpdex memory` over real stdio and streamable HTTP, several
processes on one file, a process killed mid-write, and the import/export commands."""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import warnings
from pathlib import Path

import anyio
import pytest
from click.testing import CliRunner
from mcp.shared.exceptions import MCPDeprecationWarning

from registry.cli import cli
from tests.server.conftest import Updates, entity

pytestmark = pytest.mark.anyio


def memory_command(db: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "registry", "memory", "--db", str(db), *extra]


def stdio_params(db: Path):
    from mcp import StdioServerParameters

    command, *args = memory_command(db)
    return StdioServerParameters(command=command, args=args)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_mcpdex_memory_serves_stdio_in_both_eras(tmp_path, mode):
    from mcp import Client

    db = tmp_path / "graph.sqlite"
    async with Client(stdio_params(db), mode=mode, cache=None, read_timeout_seconds=30) as client:
        assert client.protocol_version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
        if mode == "legacy":  # a modern client that pins its version skips discovery, so no serverInfo
            assert client.server_info.name == "mcpdex-memory"
        created = await client.call_tool("create_entities", {"entities": [entity("Zoë", "thing", "東京 😊")]})
        assert created.structured_content == {"entities": [entity("Zoë", "thing", "東京 😊")]}
        found = await client.call_tool("search_nodes", {"query": "zOË"})
        assert [e["name"] for e in found.structured_content["entities"]] == ["Zoë"]
    # The file outlives the process and holds the write.
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT name FROM entities").fetchall() == [("Zoë",)]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.slow
async def test_mcpdex_memory_serves_streamable_http_in_both_eras(tmp_path):
    from mcp import Client

    port = free_port()
    process = subprocess.Popen(
        memory_command(tmp_path / "graph.sqlite", "--http", "--port", str(port)), stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert process.poll() is None, process.stderr.read().decode()
                assert time.monotonic() < deadline, "the HTTP server did not start"
                time.sleep(0.1)
        url = f"http://127.0.0.1:{port}/mcp"
        updates = Updates()
        async with (
            Client(url, mode="legacy", cache=None) as client,
            Client(url, mode="legacy", cache=None, message_handler=updates) as subscriber,
        ):
            assert client.protocol_version == "2025-11-25"
            with warnings.catch_warnings(category=MCPDeprecationWarning, action="ignore"):
                await subscriber.subscribe_resource("memory://knowledge-graph")
            await client.call_tool(
                "create_entities", {"entities": [entity("Over HTTP", "thing", "legacy era")]}
            )
            # The other HTTP session hears the write on its own stream, in its own time.
            with anyio.fail_after(10):
                while not updates.uris:
                    await anyio.sleep(0.05)
            assert updates.uris == ["memory://knowledge-graph"]
        async with Client(url, mode="2026-07-28", cache=None) as client:
            assert client.protocol_version == "2026-07-28"
            graph = await client.call_tool("read_graph", {"observationLimit": 0})
            assert graph.structured_content["entities"] == [
                {"name": "Over HTTP", "entityType": "thing", "observations": [], "observationCount": 1}
            ]
            resource = await client.read_resource("memory://knowledge-graph")
            assert json.loads(resource.contents[0].text)["entities"][0]["name"] == "Over HTTP"
    finally:
        process.terminate()
        process.wait(timeout=10)
        process.stderr.close()


@pytest.mark.slow
async def test_two_processes_on_one_file_lose_no_concurrent_write(tmp_path):
    from mcp import Client

    db = tmp_path / "shared.sqlite"
    async with (
        Client(stdio_params(db), mode="legacy", cache=None, read_timeout_seconds=60) as first,
        Client(stdio_params(db), mode="legacy", cache=None, read_timeout_seconds=60) as second,
    ):
        results = []

        async def create(client, number: int) -> None:
            result = await client.call_tool(
                "create_entities", {"entities": [entity(f"Entity {number:02}", "thing", f"fact {number}")]}
            )
            results.append(result)

        async with anyio.create_task_group() as group:
            for number in range(20):
                group.start_soon(create, (first, second)[number % 2], number)
        assert all(not r.is_error and len(r.structured_content["entities"]) == 1 for r in results)
        for client in (first, second):
            graph = (await client.call_tool("read_graph", {})).structured_content
            assert sorted(e["name"] for e in graph["entities"]) == [f"Entity {n:02}" for n in range(20)]


def server_pid(db: Path) -> int:
    """The pid of the server process serving ``db`` (its command line names the unique file)."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if str(db).encode() in argv and b"memory" in argv:
                return int(entry.name)
    raise AssertionError(f"no server process for {db}")


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="finds the server process through /proc")
async def test_kill_9_in_the_middle_of_a_large_batch_leaves_the_state_before_it(tmp_path):
    from mcp import Client

    db = tmp_path / "killed.sqlite"
    wal = Path(f"{db}-wal")
    batch = [
        entity(f"Big {i:04}", "thing", *(f"{i}-{j} " + "x" * 300 for j in range(8))) for i in range(1000)
    ]
    async with Client(stdio_params(db), mode="legacy", cache=None, read_timeout_seconds=60) as client:
        await client.call_tool("create_entities", {"entities": [entity("Before", "thing", "kept")]})
        pid = server_pid(db)
        wal_at_rest = wal.stat().st_size

        async def killer() -> None:
            # Pages of the open transaction spill into the WAL before its commit: kill while they do.
            deadline = time.monotonic() + 30
            while wal.stat().st_size <= wal_at_rest + 1_000_000:
                assert time.monotonic() < deadline, "the batch never started writing"
                await anyio.sleep(0.002)
            os.kill(pid, signal.SIGKILL)

        with pytest.raises(BaseException):  # noqa: B017 - the transport dies in whatever way it dies
            async with anyio.create_task_group() as group:
                group.start_soon(killer)
                await client.call_tool("create_entities", {"entities": batch})
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert conn.execute("SELECT name FROM entities").fetchall() == [("Before",)]
        assert conn.execute("SELECT count(*) FROM observations").fetchone() == (1,)
    # The server starts again on the same file, and its search index agrees with the data.
    async with Client(stdio_params(db), mode="legacy", cache=None, read_timeout_seconds=60) as client:
        await client.call_tool("create_entities", {"entities": batch[:1]})
        found = await client.call_tool("search_nodes", {"query": "0-7 xx"})
        assert [e["name"] for e in found.structured_content["entities"]] == ["Big 0000"]
        missing = await client.call_tool("search_nodes", {"query": "999-"})
        assert missing.structured_content["entities"] == []


OFFICIAL_LINES = (
    '{"type":"entity","name":"John_Smith","entityType":"person","observations":["Speaks fluent Spanish"]}\n'
    '{"type":"entity","name":"Anthropic","entityType":"organization","observations":[]}\n'
    '{"type":"relation","from":"John_Smith","to":"Anthropic","relationType":"works_at"}'
)


def test_import_then_export_reproduces_the_official_file(tmp_path):
    source = tmp_path / "memory.jsonl"
    source.write_text(OFFICIAL_LINES, encoding="utf-8")
    db = tmp_path / "graph.sqlite"
    runner = CliRunner()
    imported = runner.invoke(cli, ["memory", "--db", str(db), "import", str(source)])
    assert imported.exit_code == 0, imported.output
    assert "imported 2 entities, 1 observation and 1 relation" in imported.stdout
    exported = runner.invoke(cli, ["memory", "export", "--db", str(db)])
    assert exported.exit_code == 0
    assert exported.stdout == OFFICIAL_LINES + "\n"


def test_import_reports_malformed_lines_on_stderr(tmp_path):
    source = tmp_path / "broken.jsonl"
    source.write_text(OFFICIAL_LINES + '\n{"type":"entity","name":\n{"type":"relation"}\n', encoding="utf-8")
    result = CliRunner().invoke(cli, ["memory", "--db", str(tmp_path / "g.sqlite"), "import", str(source)])
    assert result.exit_code == 0
    assert f"{source}:4: skipped, not valid JSON" in result.stderr
    assert f"{source}:5: skipped, relation without" in result.stderr
    assert "skipped 2 malformed lines" in result.stdout


def test_the_database_comes_from_the_environment_or_the_data_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("MCPDEX_DATA_DIR", str(tmp_path / "data"))
    source = tmp_path / "memory.jsonl"
    source.write_text(OFFICIAL_LINES, encoding="utf-8")
    assert CliRunner().invoke(cli, ["memory", "import", str(source)]).exit_code == 0
    assert (tmp_path / "data" / "memory.sqlite").exists()
    monkeypatch.setenv("MCPDEX_MEMORY_DB", str(tmp_path / "env.sqlite"))
    assert CliRunner().invoke(cli, ["memory", "import", str(source)]).exit_code == 0
    assert (tmp_path / "env.sqlite").exists()


def test_an_unusable_database_is_a_one_line_error_with_exit_code_2(tmp_path):
    not_a_db = tmp_path / "notes.txt"
    not_a_db.write_text("these are not SQLite pages " * 100, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "registry", "memory", "--db", str(not_a_db), "export"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr.startswith(f"mcpdex: error: --db {not_a_db}: cannot open it as a memory graph")
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def test_mcpdex_memory_answers_lines_it_cannot_take_with_a_json_rpc_error(tmp_path):
    lone_surrogate = '{"jsonrpc":"2.0","id":7,"method":"ping","params":{"_meta":{"note":"\\ud800"}}}'
    deep = '{"jsonrpc":"2.0","id":8,"method":"ping","params":{"a":' + "[" * 100_000 + "]" * 100_000 + "}}"
    not_a_message = '{"jsonrpc":"2.0","id":9,"params":{}}'
    initialize = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 10,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"},
            },
        }
    )
    process = subprocess.Popen(
        memory_command(tmp_path / "graph.sqlite"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        answers = []
        for line in (lone_surrogate, deep, not_a_message, initialize):
            process.stdin.write(line + "\n")
            process.stdin.flush()
            ready, _, _ = select.select([process.stdout], [], [], 20)
            assert ready, f"no answer to {line[:60]!r} within 20 s"
            answers.append(json.loads(process.stdout.readline()))
    finally:
        process.kill()
        process.wait()
    surrogate, too_deep, shapeless, handshake = answers
    assert surrogate["id"] == 7 and surrogate["error"]["code"] == -32600
    assert too_deep["id"] is None and too_deep["error"]["code"] == -32700
    assert shapeless["id"] == 9 and shapeless["error"]["code"] == -32600
    assert handshake["id"] == 10 and handshake["result"]["serverInfo"]["name"] == "mcpdex-memory"
