"""A stdio server in the handshake era is listed without the SDK (``registry.inspecting.rpc``); its
snapshot, its problems and its failures are the same as through the SDK's ``Client``, on real
servers and on broken ones."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from registry.core.errors import InspectionError
from registry.inspecting import rpc
from registry.inspecting.inspect import inspect
from registry.inspecting.stdio import _plain_message
from registry.inspecting.wire import fits

SERVERS = Path(__file__).parent / "servers"


def both_ways(
    monkeypatch: pytest.MonkeyPatch, argv: list[str], *, started: bool = True, **options: Any
) -> tuple[Any, Any]:
    """What inspecting ``argv`` gives without the SDK, then through it: a snapshot less its capture
    time, or the failure's text. A server that ``started`` was sent requests without the SDK."""
    sent: list[str] = []
    request = rpc.Connection.request

    async def recorded(self: rpc.Connection, method: str, *args: Any, **kwargs: Any) -> Any:
        sent.append(method)
        return await request(self, method, *args, **kwargs)

    def outcome() -> Any:
        try:
            snapshot = inspect(argv, **options)
        except InspectionError as exc:
            return ("failed", str(exc).split("\nserver stderr")[0])
        snapshot.pop("capturedAt")
        return snapshot

    with monkeypatch.context() as patched:
        patched.setattr(rpc.Connection, "request", recorded)
        without = outcome()
    assert bool(sent) == started, sent
    with monkeypatch.context() as patched:
        patched.setattr(rpc, "listed_without_sdk", lambda target, era: False)
        through = outcome()
    return without, through


@pytest.mark.parametrize("era", ["legacy", "auto"])
@pytest.mark.parametrize("name", ["server-memory", "server-everything", "server-sequential-thinking"])
def test_real_npm_servers_give_the_same_snapshot(
    monkeypatch, npm_peer, tmp_path, name: str, era: str
) -> None:
    monkeypatch.setenv("MEMORY_FILE_PATH", str(tmp_path / "memory.jsonl"))
    without, through = both_ways(monkeypatch, npm_peer(name), protocol_era=era, timeout=60)
    assert without == through
    assert without["tools"] and without["source"]["protocolEra"] == "legacy"


def test_a_real_filesystem_server_gives_the_same_snapshot(monkeypatch, npm_peer, tmp_path) -> None:
    without, through = both_ways(monkeypatch, npm_peer("server-filesystem", str(tmp_path)), timeout=60)
    assert without == through and without["tools"]


@pytest.mark.parametrize(("venv", "script"), [("frugal-memory", None), ("time-old", "mcp-server-time")])
def test_real_python_servers_give_the_same_snapshot(monkeypatch, py_peer, tmp_path, venv, script) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    without, through = both_ways(monkeypatch, [py_peer(venv, script)], protocol_era="legacy", timeout=60)
    assert without == through


def test_a_modern_server_under_auto_is_handed_to_the_sdk(monkeypatch, py_peer) -> None:
    # The discover probe is answered: the SDK negotiates the modern era on a fresh connection.
    without, through = both_ways(monkeypatch, [py_peer("mcp-server-time")], timeout=60)
    assert without == through
    assert without["source"]["protocolEra"] == "modern"


@pytest.mark.parametrize(
    "server",
    [
        "deeply_nested_schema.py",
        "describes_itself.py",
        "exits_mid_listing.py",
        "invalid_input_schema.py",
        "invalid_utf8.py",
        "junk_on_stdout.py",
        "lone_surrogate.py",
        "resources_without_templates.py",
        "schema_declared_later.py",
        "hostile_names.py",
        "notes_server.py",
    ],
)
def test_broken_and_hostile_servers_give_the_same_snapshot_or_failure(monkeypatch, server: str) -> None:
    argv = [sys.executable, str(SERVERS / server)]
    for era in ("legacy", "auto"):
        without, through = both_ways(monkeypatch, argv, protocol_era=era, timeout=30)
        assert without == through, era


def test_a_server_that_exits_on_the_probe_is_restarted_with_the_handshake_as_through_the_sdk(
    monkeypatch,
) -> None:
    without, through = both_ways(
        monkeypatch, [sys.executable, str(SERVERS / "exits_on_discover.py")], timeout=30
    )
    assert without == through
    assert without["problems"][0]["code"] == "discover-crashed"


def test_a_silent_server_times_out_alike(monkeypatch) -> None:
    argv = [sys.executable, str(SERVERS / "hangs_before_answering.py")]
    without, through = both_ways(monkeypatch, argv, protocol_era="legacy", timeout=3)
    assert without == through
    assert without[0] == "failed" and "no complete answer within the 3 s deadline" in without[1]


def test_a_missing_command_fails_alike(monkeypatch, tmp_path) -> None:
    argv = [str(tmp_path / "no-such-server")]
    without, through = both_ways(monkeypatch, argv, started=False, protocol_era="legacy")
    assert without == through and "not found" in without[1]


@pytest.mark.parametrize(
    "result",
    [
        {"protocolVersion": "2025-06-18", "capabilities": {}},  # no serverInfo
        {"protocolVersion": "2025-06-18", "capabilities": [], "serverInfo": {"name": "x", "version": "1"}},
        {"protocolVersion": "1999-01-01", "capabilities": {}, "serverInfo": {"name": "x", "version": "1"}},
        {"protocolVersion": 20250618, "capabilities": {}, "serverInfo": {"name": "x", "version": "1"}},
    ],
)
def test_a_broken_handshake_fails_with_the_sdks_words(monkeypatch, tmp_path, result) -> None:
    server = tmp_path / "server.py"
    server.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if m.get('method') == 'initialize':\n"
        f"        print(json.dumps({{'jsonrpc': '2.0', 'id': m['id'], 'result': {result!r}}}), flush=True)\n"
    )
    without, through = both_ways(
        monkeypatch, [sys.executable, str(server)], protocol_era="legacy", timeout=10
    )
    assert without == through and without[0] == "failed"


@pytest.mark.parametrize(
    "line",
    [
        b'{"jsonrpc":"2.0","id":1,"result":{"tools":[]},"extra":1}',
        b'{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"no","data":[1],"more":2}}',
        b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}',
        b'{"jsonrpc":"2.0","id":1,"error":{"code":"-32601","message":"coerced"}}',
        b'{"jsonrpc":"2.0","id":true,"result":{}}',
        b'{"jsonrpc":"2.0","id":1.0,"result":{}}',
        b'{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}',
        b'{"jsonrpc":"2.0","method":"notifications/message","params":null}',
        b'{"jsonrpc":"2.0","id":1,"result":{"text":"\\ud83d\\ude00 and \\ud800"}}',
        b'{"jsonrpc":"1.0","id":1,"result":{}}',
        b'{"jsonrpc":"2.0","id":1,"result":' + b"[" * 150 + b"]" * 150 + b"}",
        b"not json",
        b'{"log": "a line a server printed"}',
        b'{"jsonrpc":"2.0","id":1,"result":{"bad":"\xff"}}',
    ],
)
def test_a_line_is_read_as_the_sdks_parser_reads_it(line: bytes) -> None:
    from registry.inspecting.stdio import _parse_line

    ours, theirs = _plain_message(line), _parse_line(line)
    if isinstance(theirs, Exception):
        assert isinstance(ours, Exception) and str(ours) == str(theirs)
    else:
        assert ours == theirs.message.model_dump(by_alias=True, mode="json", exclude_unset=True)


def test_what_the_wire_schemas_accept_the_sdks_models_accept() -> None:
    from registry.inspecting.listing import item_model

    tool = {"name": "t", "inputSchema": {"type": "object"}}
    variants = [
        tool,
        {**tool, "annotations": {"readOnlyHint": "yes"}},
        {**tool, "annotations": {"title": 3}},
        {**tool, "inputSchema": {"type": "array"}},
        {**tool, "inputSchema": {"type": "object", "properties": {"a": 1}}},
        {**tool, "icons": [{"src": "x", "theme": "blue"}]},
        {**tool, "execution": {"taskSupport": "never"}},
        {**tool, "execution": {"taskSupport": "sometimes"}},
        {**tool, "title": None, "description": None, "_meta": {"k": 1}},
        {"name": "t"},
        {"name": 5, "inputSchema": {"type": "object"}},
    ]
    for item in variants:
        if fits(item, "tools"):
            item_model("tools", modern=False).model_validate(item)
    resource = {"name": "r", "uri": "file:///x"}
    for item in [
        resource,
        {**resource, "annotations": {"priority": 2}},
        {**resource, "annotations": {"priority": 0.5, "audience": ["user"]}},
        {**resource, "annotations": {"audience": ["robot"]}},
        {**resource, "size": 1.5},
        {"name": "r"},
    ]:
        if fits(item, "resources"):
            item_model("resources", modern=False).model_validate(item)
    assert fits(tool, "tools") and not fits({"name": "t"}, "tools")
    assert not fits({**resource, "annotations": {"priority": 2}}, "resources")


def test_the_wire_schemas_are_the_installed_sdks() -> None:
    check = subprocess.run(
        [sys.executable, "-m", "registry.inspecting.wire", "--check"], capture_output=True, text=True
    )
    assert check.returncode == 0, check.stderr
    document = json.loads((Path(rpc.__file__).parent / "schema" / "handshake-wire.json").read_text())
    assert document["latestVersion"] in document["versions"]
