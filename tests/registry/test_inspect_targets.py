"""Targets, config files, redaction and start-up cost: everything around an inspection but the wire."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from registry.commands._target import target_from_options
from registry.core.errors import UsageError
from registry.inspecting.targets import Target, config_servers, config_target, redact_argv, redact_url


def test_url_credentials_and_secret_query_values_are_redacted():
    assert redact_url("https://bob:hunter2@api.example.com/mcp?token=abc&region=eu") == (
        "https://<redacted>@api.example.com/mcp?token=<redacted>&region=eu"
    )


def test_secret_flags_in_a_command_line_are_redacted():
    argv = ["server", "--api-key", "k1", "--token=t1", "--port", "80", "https://u:p@h/x"]
    assert redact_argv(argv) == ["server", "--api-key", "<redacted>", "--token=<redacted>", "--port", "80",
                                 "https://<redacted>@h/x"]  # fmt: skip


def test_source_keeps_env_and_header_names_but_not_values():
    stdio = Target(transport="stdio", argv=["srv"], env={"GITHUB_TOKEN": "ghp_x"}, cwd="/srv")
    assert stdio.source() == {"transport": "stdio", "target": "srv", "env": {"GITHUB_TOKEN": "<redacted>"},
                              "cwd": "/srv"}  # fmt: skip
    http = Target(transport="sse", url="http://h/sse", headers={"Authorization": "Bearer x"})
    assert http.source()["headers"] == {"Authorization": "<redacted>"}


def test_config_formats_of_claude_cursor_and_vscode(tmp_path, monkeypatch):
    monkeypatch.setenv("MY_TOKEN", "from-env")
    claude = tmp_path / "claude.json"
    claude.write_text(json.dumps({"mcpServers": {
        "mem": {"command": "npx", "args": ["-y", "server-memory"], "env": {"K": "V"}},
        "remote": {"url": "https://h/mcp", "headers": {"Authorization": "Bearer ${env:MY_TOKEN}"}},
    }}))  # fmt: skip
    vscode = tmp_path / "mcp.json"
    vscode.write_text(json.dumps({"servers": {"old": {"type": "sse", "url": "https://h/sse"}}}))
    servers = config_servers(claude)
    assert servers["mem"].argv == ["npx", "-y", "server-memory"] and servers["mem"].env == {"K": "V"}
    assert servers["remote"].transport == "streamable-http"
    assert servers["remote"].headers == {"Authorization": "Bearer from-env"}
    assert config_target(vscode, None).transport == "sse"


def test_config_errors_name_the_field_and_the_choices(tmp_path):
    config = tmp_path / "c.json"
    config.write_text(json.dumps({"mcpServers": {"a": {"args": []}, "b": {"command": "x"}}}))
    with pytest.raises(UsageError, match="field 'command'"):
        config_servers(config)
    config.write_text(json.dumps({"mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}}}))
    with pytest.raises(UsageError, match=r"choose one with --server \(a, b\)"):
        config_target(config, None)
    with pytest.raises(UsageError, match="has no server 'c'"):
        config_target(config, "c")
    config.write_text("{}")
    with pytest.raises(UsageError, match="no 'mcpServers'"):
        config_servers(config)


def test_target_options_pick_url_command_or_config():
    assert target_from_options(argv=["http://h/mcp"], header=["X-A: 1"]).headers == {"X-A": "1"}
    assert target_from_options(argv=["http://h/sse"], transport="sse").transport == "sse"
    assert target_from_options(argv=["--", "node", "s.js"], env=["A=1=2"]).env == {"A": "1=2"}
    with pytest.raises(UsageError, match="--header applies to a URL"):
        target_from_options(argv=["node"], header=["A: b"])
    with pytest.raises(UsageError, match="no target"):
        target_from_options()
    with pytest.raises(UsageError, match="is not KEY=VALUE"):
        target_from_options(argv=["node"], env=["oops"])


@pytest.mark.parametrize("args", [["--help"], ["show", "--help"], ["versions", "--all"]])
def test_commands_that_do_not_inspect_never_import_mcp(args, tmp_path):
    code = (
        "import sys, runpy; sys.argv = ['mcpdex', *sys.argv[1:]]\n"
        "try:\n    runpy.run_module('registry', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "loaded = any(m == 'mcp' or m.startswith('mcp.') for m in sys.modules)\n"
        "print('MCP' if loaded else 'NO-MCP', file=sys.stderr)"
    )
    env = {"MCPDEX_REGISTRY": f"sqlite:///{tmp_path / 'r.sqlite'}", "PATH": "/usr/bin:/bin"}
    result = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env)
    assert result.stderr.strip().splitlines()[-1] == "NO-MCP", result.stderr
