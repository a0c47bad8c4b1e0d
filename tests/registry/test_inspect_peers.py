"""Inspecting the real third-party servers: what they list is what the snapshot records."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from registry.core.errors import InspectionError
from registry.inspecting.inspect import inspect
from registry.inspecting.targets import Target, config_target
from tests.conftest import OFFICIAL_MEMORY_TOOLS

pytestmark = pytest.mark.peers


def test_official_memory_server(npm_peer, tmp_path):
    target = Target(
        transport="stdio",
        argv=npm_peer("server-memory"),
        env={"MEMORY_FILE_PATH": str(tmp_path / "memory.jsonl")},
    )
    snapshot = inspect(target, timeout=30, protocol_era="legacy")
    assert snapshot["server"] == {
        "name": "memory-server",
        "title": None,
        "version": "0.6.3",
        "instructions": None,
    }
    assert snapshot["protocolVersion"] == "2025-11-25" and snapshot["source"]["protocolEra"] == "legacy"
    tools = {t["name"]: t for t in snapshot["tools"]}
    assert set(tools) == OFFICIAL_MEMORY_TOOLS
    assert all(
        "outputSchema" in t and set(t["annotations"]) >= {"readOnlyHint", "destructiveHint"}
        for t in tools.values()
    )
    assert tools["read_graph"]["annotations"]["readOnlyHint"] is True
    # Kept as sent on the wire: the TypeScript SDK's draft-07 stamp and the 2025-11-25 execution field.
    assert tools["search_nodes"]["inputSchema"]["$schema"] == "http://json-schema.org/draft-07/schema#"
    assert tools["search_nodes"]["execution"] == {"taskSupport": "forbidden"}
    assert [r["uri"] for r in snapshot["resources"]] == ["memory://knowledge-graph"]
    assert snapshot["capabilities"]["resources"] == {"subscribe": True, "listChanged": True}
    assert snapshot["source"]["env"] == {"MEMORY_FILE_PATH": "<redacted>"}
    assert str(tmp_path) not in json.dumps(snapshot)
    assert snapshot["problems"] == []


def test_official_everything_server_lists_tools_resources_templates_prompts(npm_peer):
    snapshot = inspect(npm_peer("server-everything", "stdio"), timeout=30)
    names = {t["name"] for t in snapshot["tools"]}
    assert (
        len(names) == 13 and {"echo", "get-sum", "get-structured-content", "simulate-research-query"} <= names
    )
    with_output = [t["name"] for t in snapshot["tools"] if "outputSchema" in t]
    assert with_output == ["get-structured-content"]
    assert len(snapshot["resources"]) == 7 and len(snapshot["resourceTemplates"]) == 2
    assert len(snapshot["prompts"]) == 4
    assert snapshot["server"]["name"] == "mcp-servers/everything" and snapshot["server"]["instructions"]
    assert {"tools", "logging", "completions"} <= set(snapshot["capabilities"])
    echo = next(t for t in snapshot["tools"] if t["name"] == "echo")
    assert "description" not in echo["inputSchema"]["properties"]["message"]


def test_official_filesystem_server(npm_peer, tmp_path):
    snapshot = inspect(npm_peer("server-filesystem", str(tmp_path)), timeout=30, protocol_era="legacy")
    tools = {t["name"]: t for t in snapshot["tools"]}
    assert len(tools) == 14 and {"read_text_file", "directory_tree", "list_allowed_directories"} <= set(tools)
    assert all("outputSchema" in t for t in tools.values())
    assert tools["list_directory"]["annotations"] == {"readOnlyHint": True, "openWorldHint": False} or (
        tools["list_directory"]["annotations"].get("readOnlyHint") is True
    )
    assert snapshot["server"]["name"] == "secure-filesystem-server"


def test_python_time_server_negotiates_the_modern_era_in_auto(py_peer):
    snapshot = inspect([py_peer("mcp-server-time")], timeout=40, protocol_era="auto")
    assert snapshot["protocolVersion"] == "2026-07-28" and snapshot["source"]["protocolEra"] == "modern"
    tools = {t["name"]: t for t in snapshot["tools"]}
    assert set(tools) == {"get_current_time", "convert_time"}
    assert tools["convert_time"]["outputSchema"]["$defs"]
    assert tools["get_current_time"]["annotations"]["readOnlyHint"] is True
    assert snapshot["server"]["version"] == "2026.10.19"


def test_old_python_time_server_reports_its_sdk_version_and_label_overrides_it(py_peer):
    snapshot = inspect(
        [py_peer("time-old", "mcp-server-time")], timeout=40, protocol_era="legacy", version_label="2025.9.25"
    )
    assert snapshot["server"]["version"] == "1.30.0" and snapshot["versionLabel"] == "2025.9.25"
    tools = {t["name"]: t for t in snapshot["tools"]}
    assert tools["get_current_time"]["description"] == "Get current time in a specific timezones"
    assert "outputSchema" not in tools["get_current_time"]


@pytest.mark.slow
def test_auto_falls_back_to_the_handshake_when_an_sdk_1_1_server_dies_on_the_probe(py_peer):
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "registry",
            "inspect",
            "--timeout",
            "40",
            "--",
            py_peer("time-sdk11", "mcp-server-time"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    head = result.stdout.splitlines()[0]
    assert head.startswith("mcp-time 1.1.3  protocol 2024-11-05 (legacy)"), head
    assert "problem discover-crashed at server/discover" in result.stdout
    assert "restarted it and used the initialize handshake" in result.stdout


def test_modern_era_pinned_against_handshake_only_server_fails_with_the_way_out(npm_peer, tmp_path):
    # Pinned, the SDK sends no handshake and the TypeScript server would still list its tools
    # anonymously; server/discover shows it does not speak 2026-07-28, and that is the reason.
    command = ["inspect", "--protocol-era", "modern", "--timeout", "20", "--", *npm_peer("server-memory")]
    result = subprocess.run(
        [sys.executable, "-m", "registry", *command],
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ | {"MEMORY_FILE_PATH": str(tmp_path / "m")},
    )
    assert result.returncode == 2 and result.stdout == ""
    first = result.stderr.splitlines()[0]
    assert first.startswith("mcpdex: error: ") and "server/discover failed (error -32601" in first
    assert first.endswith("does not speak MCP 2026-07-28; use --protocol-era auto or legacy"), first


def test_modern_era_pinned_against_a_modern_server_reads_its_discover_answer(py_peer):
    snapshot = inspect([py_peer("mcp-server-time")], timeout=40, protocol_era="modern")
    assert snapshot["protocolVersion"] == "2026-07-28" and snapshot["source"]["protocolEra"] == "modern"
    assert snapshot["server"]["version"] == "2026.10.19" and "tools" in snapshot["capabilities"]
    assert not any(p["code"] == "no-server-info" for p in snapshot["problems"])


def test_unreachable_target_raises_inspection_error(tmp_path):
    with pytest.raises(InspectionError, match="not found"):
        inspect([str(tmp_path / "missing-server")], timeout=5)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def everything_over(npm_peer, mode: str) -> Iterator[int]:
    """server-everything listening on a free port over ``mode`` (streamableHttp or sse)."""
    port = _free_port()
    proc = subprocess.Popen(
        npm_peer("server-everything", mode),
        env={**os.environ, "PORT": str(port)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_streamable_http_with_header_redacted(npm_peer):
    with everything_over(npm_peer, "streamableHttp") as port:
        target = Target(
            transport="streamable-http",
            url=f"http://user:pw@127.0.0.1:{port}/mcp?api_key=s3cret",
            headers={"Authorization": "Bearer s3cret"},
        )
        snapshot = inspect(target, timeout=30, protocol_era="legacy")
    assert len(snapshot["tools"]) == 13
    assert snapshot["source"] == {
        "transport": "streamable-http",
        "target": f"http://<redacted>@127.0.0.1:{port}/mcp?api_key=<redacted>",
        "headers": {"Authorization": "<redacted>"},
        "protocolEra": "legacy",
        "requestedEra": "legacy",
    }
    assert "s3cret" not in json.dumps(snapshot)


def test_sse_transport(npm_peer):
    with everything_over(npm_peer, "sse") as port:
        snapshot = inspect(Target(transport="sse", url=f"http://127.0.0.1:{port}/sse"), timeout=30)
    assert snapshot["source"]["transport"] == "sse"
    assert len(snapshot["tools"]) == 13


def test_claude_desktop_config_entry_with_env(npm_peer, tmp_path):
    node, script = npm_peer("server-memory")
    config = tmp_path / "claude_desktop_config.json"
    config.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "memory": {
                        "command": node,
                        "args": [script],
                        "env": {"MEMORY_FILE_PATH": str(tmp_path / "mem.jsonl")},
                    },
                    "remote": {"url": "http://127.0.0.1:9/mcp", "headers": {"X-Key": "k"}},
                }
            }
        )
    )
    target = config_target(config, "memory")
    snapshot = inspect(target, timeout=30, protocol_era="legacy")
    assert snapshot["server"]["name"] == "memory-server"
    assert snapshot["source"]["configEntry"] == "memory"
    assert snapshot["source"]["env"] == {"MEMORY_FILE_PATH": "<redacted>"}


def test_cli_inspect_saves_then_show_and_versions_read_back(npm_peer, tmp_path):
    registry = f"sqlite:///{tmp_path / 'r.sqlite'}"
    env = {**os.environ, "MCPDEX_REGISTRY": registry}
    run = [sys.executable, "-m", "registry"]
    out = tmp_path / "snap.json"
    first = subprocess.run(
        [*run, "inspect", "--save", "--out", str(out), "--protocol-era", "legacy", "--env",
         f"MEMORY_FILE_PATH={tmp_path / 'm.jsonl'}", "--", *npm_peer("server-memory")],
        capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
    assert first.returncode == 0, first.stderr
    assert "memory-server" in first.stdout and "read_graph" in first.stdout
    assert "saved memory-server@0.6.3 (new version" in first.stderr
    assert json.loads(out.read_text())["server"]["version"] == "0.6.3"
    shown = subprocess.run([*run, "show", "memory-server@0.6.3", "--format", "json"], capture_output=True,
                           text=True, env=env, timeout=30)  # fmt: skip
    assert (
        shown.returncode == 0 and json.loads(shown.stdout)["digest"] == json.loads(out.read_text())["digest"]
    )
    listed = subprocess.run([*run, "versions", "memory-server", "--format", "json"], capture_output=True,
                            text=True, env=env, timeout=30)  # fmt: skip
    assert [v["version"] for v in json.loads(listed.stdout)] == ["0.6.3"]
