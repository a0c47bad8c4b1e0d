"""``mcpdex crawl``: every server of a config, concurrently; failures are recorded, not fatal."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from registry.storage.store import open_store

SERVERS = Path(__file__).parent / "servers"


def crawl(config: Path, registry: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "registry", "crawl", str(config), "--registry", registry, *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.peers
@pytest.mark.slow
def test_crawl_saves_every_server_and_records_failures(npm_peer, tmp_path):
    node, memory_js = npm_peer("server-memory")
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {
        "memory": {"command": node, "args": [memory_js],
                   "env": {"MEMORY_FILE_PATH": str(tmp_path / "m.jsonl")}},
        "everything": {"command": node, "args": [npm_peer("server-everything")[1], "stdio"]},
        "many": {"command": sys.executable, "args": [str(SERVERS / "five_thousand_tools.py")]},
        "junk": {"command": sys.executable, "args": [str(SERVERS / "junk_on_stdout.py")]},
        "missing": {"command": str(tmp_path / "no-such-server")},
    }}))  # fmt: skip
    registry = f"sqlite:///{tmp_path / 'r.sqlite'}"
    result = crawl(
        config, registry, "--save", "--format", "json", "--timeout", "25", "--protocol-era", "legacy"
    )
    assert result.returncode == 0, result.stderr
    rows = {row["name"]: row for row in json.loads(result.stdout)["servers"]}
    assert list(rows) == ["memory", "everything", "many", "junk", "missing"]
    assert [name for name, row in rows.items() if row["ok"]] == ["memory", "everything", "many", "junk"], {
        n: r["error"] for n, r in rows.items()
    }
    assert (rows["memory"]["tools"], rows["everything"]["tools"], rows["many"]["tools"]) == (9, 13, 5000)
    assert rows["junk"]["problems"] == 1 and "not found" in rows["missing"]["error"]
    assert all(row["newVersion"] for row in rows.values() if row["ok"])

    with open_store(registry) as store:
        summaries = {s.name: s for s in store.servers()}
        assert summaries["memory"].latest_version == "0.6.3"
        assert summaries["missing"].last_ok is False and summaries["missing"].version_count == 0
        assert "not found" in store.inspections("missing")[0].error

    again = crawl(
        config, registry, "--save", "--format", "json", "--only", "memory", "--protocol-era", "legacy"
    )
    (row,) = json.loads(again.stdout)["servers"]
    assert row["ok"] and row["newVersion"] is False
    with open_store(registry) as store:
        assert len(store.versions("memory")) == 1 and len(store.inspections("memory")) == 2


def test_crawl_where_every_server_fails_exits_2(tmp_path):
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"a": {"command": str(tmp_path / "nope")}}}))
    result = crawl(config, f"sqlite:///{tmp_path / 'r.sqlite'}")
    assert result.returncode == 2
    assert "none of the 1 servers" in result.stderr and "crawl: a failed" in result.stderr


def test_crawl_rejects_unknown_only_names(tmp_path):
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"a": {"command": "x"}}}))
    result = crawl(config, f"sqlite:///{tmp_path / 'r.sqlite'}", "--only", "b")
    assert result.returncode == 2 and "--only b: not in" in result.stderr


def test_crawl_save_refuses_an_entry_name_the_registry_would_refuse_before_starting(tmp_path):
    config = tmp_path / "servers.json"
    marker = tmp_path / "started"
    command = {"command": sys.executable, "args": ["-c", f"open({str(marker)!r}, 'w')"]}
    config.write_text(json.dumps({"mcpServers": {"good one": command, "../evil\u001b[2J": command}}))
    result = crawl(config, f"sqlite:///{tmp_path / 'r.sqlite'}", "--save")
    assert result.returncode == 2 and "is not allowed" in result.stderr and "\x1b" not in result.stderr
    assert not marker.exists() and not (tmp_path / "r.sqlite").exists()
