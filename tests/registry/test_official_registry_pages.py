"""The official registry's metadata in the store (SQLite and PostgreSQL, older databases gaining the
tables) and on the directory pages: install snippets, status, context cost and the transport filter."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from registry.diffing.context_cost import context_cost
from registry.inspecting.official.entries import entry_from_item
from registry.inspecting.official.snippets import install_snippets
from registry.storage.records import RegistryEntryRecord
from registry.storage.store import open_store
from tests.conftest import make_snapshot, require

MCPDEX = [sys.executable, "-m", "registry"]
CHROMIUM = Path("/usr/bin/chromium")
OFFICIAL = "io.modelcontextprotocol.registry/official"

FILES_JSON = {
    "name": "io.github.test/files",
    "title": "Files",
    "description": "Read files under the directories you allow.",
    "version": "2.0.0",
    "websiteUrl": "https://files.example.com/docs",
    "repository": {"url": "https://github.com/test/files", "source": "github", "subfolder": "src/files"},
    "icons": [{"src": "https://files.example.com/icon.png", "sizes": ["48x48"]}],
    "packages": [{
        "registryType": "npm", "identifier": "@test/files-mcp", "version": "2.0.0",
        "transport": {"type": "stdio"},
        "packageArguments": [{"type": "positional", "valueHint": "root", "isRequired": True}],
        "environmentVariables": [{"name": "FILES_TOKEN", "isRequired": True, "isSecret": True}],
    }],
}  # fmt: skip
REMOTE_JSON = {
    "name": "io.github.test/hosted",
    "description": "A hosted server.",
    "version": "1.0.0",
    "remotes": [{"type": "streamable-http", "url": "https://{region}.hosted.example.com/mcp",
                 "variables": {"region": {"default": "eu"}},
                 "headers": [{"name": "X-Key", "isRequired": True, "isSecret": True}]}],
}  # fmt: skip


def snapshot(name: str, version: str, transport: str, *descriptions: str) -> dict:
    tools = [
        {"name": f"tool_{i}", "description": text, "inputSchema": {"type": "object"}}
        for i, text in enumerate(descriptions)
    ]
    source = {"transport": transport, "target": "npx -y x" if transport == "stdio" else "https://h/mcp"}
    return make_snapshot(*tools, name=name, version=version, source=source, versionLabel=version)


def entry_record(document: dict, status: str = "active", message: str | None = None) -> RegistryEntryRecord:
    return RegistryEntryRecord(
        name=document["name"], version=document["version"], status=status, status_message=message,
        published_at="2026-10-01T00:00:00Z", updated_at="2026-10-02T00:00:00Z", is_latest=status == "active",
        server=document, outcome="ok", reason=None, seen_at="2026-11-01T00:00:00Z",
    )  # fmt: skip


def record(store, snap: dict, at: str) -> None:
    server = snap["server"]["name"]
    store.record_inspection(snap, server=server, ok=True, error=None, started_at=at, duration_s=1.0)


def fill(registry: str) -> None:
    long = "Read a file under an allowed root. " * 20
    with open_store(registry) as store:
        old = {**FILES_JSON, "version": "1.0.0"}
        record(store, snapshot(old["name"], "1.0.0", "stdio", "Read a file."), "2026-10-01T00:00:00Z")
        store.record_registry_entry(entry_record(old, "deprecated", "Use 2.0.0."))
        record(store, snapshot(FILES_JSON["name"], "2.0.0", "stdio", long, "List."), "2026-10-02T00:00:00Z")
        store.record_registry_entry(entry_record(FILES_JSON))
        hosted = snapshot(REMOTE_JSON["name"], "1.0.0", "streamable-http", "Do it.")
        record(store, hosted, "2026-10-02T00:00:00Z")
        store.record_registry_entry(entry_record(REMOTE_JSON))
        store.record_sync("https://registry.example", "2026-10-02T00:00:00Z")


def check_store(registry: str) -> None:
    with open_store(registry) as store:
        rows = store.registry_entries(FILES_JSON["name"])
        assert [(r.version, r.status, r.status_message) for r in rows] == [
            ("1.0.0", "deprecated", "Use 2.0.0."), ("2.0.0", "active", None),
        ]  # fmt: skip
        assert rows[1].server == FILES_JSON and rows[1].is_latest is True
        # Recording a version again replaces its row: the registry changed its status.
        store.record_registry_entry(entry_record({**FILES_JSON, "version": "1.0.0"}, "deleted", "Malware."))
        assert store.registry_entries(FILES_JSON["name"])[0].status == "deleted"
        assert len(store.registry_entries()) == 3
        assert store.last_sync("https://registry.example") == "2026-10-02T00:00:00Z"
        assert store.last_sync("https://elsewhere.example") is None


def test_registry_metadata_round_trips_in_sqlite(tmp_path):
    registry = f"sqlite:///{tmp_path / 'r.sqlite'}"
    fill(registry)
    check_store(registry)


@pytest.mark.postgres
def test_registry_metadata_round_trips_in_postgresql(postgres_url):
    fill(postgres_url)
    check_store(postgres_url)


def test_a_registry_from_before_the_metadata_gains_its_tables(tmp_path):
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as conn:  # the schema as it was: no registry tables
        conn.executescript(
            "CREATE TABLE servers (id INTEGER PRIMARY KEY, name VARCHAR(512) NOT NULL UNIQUE, title TEXT,"
            " created_at VARCHAR(32) NOT NULL);"
            "INSERT INTO servers (name, created_at) VALUES ('kept', '2026-01-01');"
        )
    with open_store(f"sqlite:///{path}") as store:
        assert store.registry_entries() == [] and store.last_sync("x") is None
        store.record_registry_entry(entry_record(REMOTE_JSON))
        assert [r.name for r in store.registry_entries()] == [REMOTE_JSON["name"]]
        assert [s.name for s in store.servers()] == ["kept"]


def test_install_snippets_for_each_client_come_from_the_package():
    snippets = {s["client"]: json.loads(s["json"]) for s in install_snippets(FILES_JSON)}
    assert snippets["claude-desktop"] == snippets["cursor"] == {"mcpServers": {"files": {
        "command": "npx", "args": ["-y", "@test/files-mcp@2.0.0", "<root>"],
        "env": {"FILES_TOKEN": "<FILES_TOKEN>"},
    }}}  # fmt: skip
    vscode = snippets["vscode"]
    assert vscode["servers"]["files"] == {
        "type": "stdio", "command": "npx", "args": ["-y", "@test/files-mcp@2.0.0", "${input:root}"],
        "env": {"FILES_TOKEN": "${input:files_token}"},
    }  # fmt: skip
    assert {i["id"]: i["password"] for i in vscode["inputs"]} == {"root": False, "files_token": True}
    remote = {s["client"]: json.loads(s["json"]) for s in install_snippets(REMOTE_JSON)}
    assert remote["cursor"]["mcpServers"]["hosted"] == {
        "url": "https://eu.hosted.example.com/mcp", "headers": {"X-Key": "<X-Key>"},
    }  # fmt: skip
    assert remote["vscode"]["servers"]["hosted"]["type"] == "http"
    assert remote["claude-desktop"]["mcpServers"]["hosted"]["args"][:3] == [
        "-y", "mcp-remote", "https://eu.hosted.example.com/mcp",
    ]  # fmt: skip
    package = {"registryType": "pypi", "identifier": "files-mcp", "version": "2.0.0"}
    pypi = entry_from_item({**FILES_JSON, "packages": [package]}).server
    assert json.loads(install_snippets(pypi)[0]["json"])["mcpServers"]["files"]["command"] == "uvx"
    assert install_snippets({"name": "a/b", "packages": [{"registryType": "mcpb", "identifier": "x"}]}) == []


@pytest.fixture
def site(tmp_path) -> Path:
    registry = f"sqlite:///{tmp_path / 'r.sqlite'}"
    fill(registry)
    out = tmp_path / "site"
    result = subprocess.run([*MCPDEX, "report", "--registry", registry, "--out", str(out)],
                            capture_output=True, text=True, timeout=180)  # fmt: skip
    assert result.returncode == 0, result.stderr
    return out


def test_pages_show_the_listing_snippets_and_context_cost(site):
    index = json.loads((site / "index.json").read_text())
    rows = {row["name"]: row for row in index["servers"]}
    files, hosted = rows[FILES_JSON["name"]], rows[REMOTE_JSON["name"]]
    assert (files["transports"], hosted["transports"]) == (["local"], ["remote"])
    page = (site / files["href"]).read_text()
    document = json.loads((site / files["href"]).with_suffix(".json").read_text())
    cost = context_cost(document["snapshot"])
    assert files["context_tokens"] == cost["tokens"] == document["contextCost"]["tokens"]
    assert f"{cost['tokens']:,} tokens</strong>" in page and "Tokens: o200k_base" in page
    assert "Claude Desktop" in page and "Cursor" in page and "VS Code" in page
    assert "@test/files-mcp@2.0.0" in page and "&lt;FILES_TOKEN&gt;" in page
    assert 'href="https://github.com/test/files"' in page and "src/files" in page
    assert 'href="https://files.example.com/docs"' in page
    assert "Use 2.0.0." in page and "deprecated" in page
    html = (site / "index.html").read_text()
    assert "Context tokens" in html and 'data-transport="remote"' in html


def test_the_index_sorts_by_context_cost_and_filters_by_transport(site):
    require(CHROMIUM.exists(), "Chromium is not at /usr/bin/chromium (scripts/test installs it)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        page = browser.new_page()
        page.goto((site / "index.html").as_uri())
        names = "#servers th[scope=row]"
        page.select_option("#transport-servers", "remote")
        assert page.locator(f"{names}:visible").all_inner_texts() == [REMOTE_JSON["name"]]
        page.select_option("#transport-servers", "local")
        assert page.locator(f"{names}:visible").all_inner_texts() == [FILES_JSON["name"]]
        page.select_option("#transport-servers", "")
        page.get_by_role("button", name="Context tokens").click()
        page.get_by_role("button", name="Context tokens").click()  # descending: the largest first
        assert page.locator(names).all_inner_texts()[0] == FILES_JSON["name"]
        browser.close()
