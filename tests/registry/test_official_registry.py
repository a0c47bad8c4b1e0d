"""``mcpdex crawl --from-registry``: the official MCP Registry's pages replayed by a local HTTP server,
its npm and PyPI entries run for real, a remote entry served by ``mcpdex memory --http``, and bad
entries that are reported without stopping the crawl."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from registry.core.errors import UsageError
from registry.inspecting.official.entries import entry_from_item, read_entries
from registry.inspecting.official.launch import (
    EntryInvalid,
    EntrySkipped,
    Inputs,
    entry_launch,
    select_entries,
)
from registry.storage.store import open_store
from tests.conftest import REPO, SHARED_DATA, require
from tests.registry.conftest import free_port

SAMPLES = REPO.parent / "shared" / "reference" / "mcp-registry"
OFFICIAL = "io.modelcontextprotocol.registry/official"
BAD_CURSOR = "io.github.test/bad:0"


def sample_pages() -> list[dict]:
    require(SAMPLES.is_dir(), f"the registry sample pages are missing ({SAMPLES})", SHARED_DATA)
    return [json.loads((SAMPLES / f"sample-list-page-{n}.json").read_text()) for n in (1, 2, 3)]


def item(server: dict, *, status: str = "active", updated: str = "2026-11-01T00:00:00Z") -> dict:
    return {"server": server, "_meta": {OFFICIAL: {"status": status, "updatedAt": updated, "isLatest": True}}}


def bad_page(memory_url: str, dead_port: int) -> dict:
    """Entries that cannot be inspected, each for its own reason, and one remote that can."""
    base = {"description": "A test entry.", "version": "1.0.0"}
    memory = urlsplit(memory_url)
    return {
        "servers": [
            item({**base, "name": "io.github.test/cargo-only",
                  "packages": [{"registryType": "cargo", "identifier": "x", "version": "1.0.0",
                                "transport": {"type": "stdio"}}]}),
            item({"name": "io.github.test/no-version", "description": "No version.",
                  "packages": [{"registryType": "npm", "identifier": "x", "transport": {"type": "stdio"}}]}),
            item({**base, "name": "not a registry name", "packages": "npm"}),
            item({**base, "name": "io.github.test/wont-install",
                  "packages": [{"registryType": "npm", "identifier": "@mcpdex-test/no-such-package-7f3a",
                                "version": "1.0.0", "transport": {"type": "stdio"}}]}),
            item({**base, "name": "io.github.test/silent-remote",
                  "remotes": [{"type": "streamable-http", "url": f"http://127.0.0.1:{dead_port}/mcp"}]}),
            item({**base, "name": "io.github.test/gone",
                  "remotes": [{"type": "streamable-http", "url": "https://gone.example.com/mcp"}]},
                 status="deleted"),
            item({**base, "name": "io.github.test/memory-remote", "title": "Memory over HTTP",
                  "remotes": [{"type": "streamable-http", "url": f"http://{memory.hostname}:{{port}}/mcp",
                               "variables": {"port": {"default": str(memory.port), "isRequired": True}}}]}),
        ],
        "metadata": {"count": 7},
    }  # fmt: skip


class ReplayedRegistry:
    """Serves ``/v0.1/servers`` from fixed pages by cursor, and filters on ``updated_since``."""

    def __init__(self, pages: dict[str | None, dict]) -> None:
        self.pages = pages
        self.requests: list[str] = []
        registry = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                registry.requests.append(self.path)
                parts = urlsplit(self.path)
                query = {k: v[0] for k, v in parse_qs(parts.query).items()}
                page = registry.pages.get(query.get("cursor"))
                if parts.path != "/v0.1/servers" or page is None:
                    self.send_response(404)
                    self.end_headers()
                    return
                page = copy.deepcopy(page)
                since = query.get("updated_since")
                if since:
                    page["servers"] = [
                        s for s in page["servers"] if (s.get("_meta") or {})[OFFICIAL]["updatedAt"] > since
                    ]
                body = json.dumps(page).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def replayed(memory_http: str) -> Iterator[ReplayedRegistry]:
    first, second, third = sample_pages()
    third = copy.deepcopy(third)
    third["metadata"]["nextCursor"] = BAD_CURSOR  # the samples, then the test's own bad entries
    pages = {
        None: first,
        first["metadata"]["nextCursor"]: second,
        second["metadata"]["nextCursor"]: third,
        BAD_CURSOR: bad_page(memory_http, free_port()),
    }
    registry = ReplayedRegistry(pages)
    yield registry
    registry.close()


def crawl(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "registry", "crawl", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def outcomes(result: subprocess.CompletedProcess, exit_code: int = 0) -> dict[str, dict]:
    assert result.returncode == exit_code, result.stderr
    return {f"{e['name']}@{e['version']}": e for e in json.loads(result.stdout)["entries"]}


# -- reading and normalising entries --------------------------------------------------------


def test_an_august_2025_dump_reads_under_the_current_field_names(tmp_path):
    dump = tmp_path / "dump.json"
    dump.write_text(json.dumps({"servers": [{
        "name": "io.github.user/old", "description": "Old.", "status": "deprecated",
        "version_detail": {"version": "0.3.0", "release_date": "2025-08-01T00:00:00Z", "is_latest": True},
        "packages": [{"registry_name": "docker", "name": "mcp/old", "version": "0.3.0",
                      "environment_variables": [{"name": "TOKEN", "is_required": True, "is_secret": True}]}],
        "remotes": [{"transport_type": "streamable", "url": "https://old.example.com/mcp"}],
    }], "metadata": {"next_cursor": None}}))  # fmt: skip
    (entry,) = read_entries(str(dump))
    assert (entry.name, entry.version, entry.status, entry.published_at) == (
        "io.github.user/old", "0.3.0", "deprecated", "2025-08-01T00:00:00Z",
    )  # fmt: skip
    (package,) = entry.server["packages"]
    assert (package["registryType"], package["identifier"], package["transport"]) == (
        "oci", "mcp/old", {"type": "stdio"},
    )  # fmt: skip
    assert package["environmentVariables"][0]["isSecret"] is True
    assert entry.server["remotes"][0]["type"] == "streamable-http"
    # Without the package's secret the entry's remote is the way in; with it, the package.
    assert entry_launch(entry, Inputs()).url == "https://old.example.com/mcp"
    entry.server["remotes"] = []
    with pytest.raises(EntrySkipped, match="required secret TOKEN"):
        entry_launch(entry, Inputs())
    launch = entry_launch(entry, Inputs({"TOKEN": "t0k"}))
    assert launch.argv == ["docker", "run", "-i", "--rm", "-e", "TOKEN", "mcp/old:0.3.0"]
    assert launch.env["TOKEN"] == "t0k"


def test_september_2025_snake_case_and_embedded_official_meta(tmp_path):
    folder = tmp_path / "servers"
    folder.mkdir()
    (folder / "a.json").write_text(json.dumps({
        "name": "com.example/a", "description": "A.", "version": "1.2.0", "website_url": "https://a.example",
        "_meta": {OFFICIAL: {"is_latest": True, "updated_at": "2025-09-10T00:00:00Z"}},
        "packages": [{"registry_type": "pypi", "identifier": "a-mcp", "version": "1.2.0",
                      "runtime_hint": "uvx", "transport": {"type": "stdio"},
                      "package_arguments": [{"type": "named", "name": "--root", "is_required": True,
                                             "value_hint": "dir"}]}],
    }))  # fmt: skip
    (folder / "broken.json").write_text("{not json")
    entries = {e.name: e for e in read_entries(str(folder))}
    a = entries["com.example/a"]
    assert a.server["websiteUrl"] == "https://a.example" and a.is_latest is True
    assert a.updated_at == "2025-09-10T00:00:00Z" and OFFICIAL not in a.server.get("_meta", {})
    launch = entry_launch(a, Inputs(per_server={"com.example/a": {"--root": "/srv"}}))
    assert launch.argv[-3:] == ["a-mcp==1.2.0", "--root", "/srv"]
    assert "broken.json is not valid JSON" in entries["broken.json"].invalid


def test_latest_active_version_per_server_and_all_versions():
    entries = [entry_from_item(i) for page in sample_pages() for i in page["servers"]]
    chosen, older = select_entries(entries, all_versions=False)
    latest = {(e.name, e.version) for e in chosen}
    memory = "io.github.modelcontextprotocol/server-memory"
    assert (memory, "2026.8.31") in latest and (memory, "2025.4.25") not in latest
    assert len(latest) == 7 and [(e.name, e.version) for e in older] == [(memory, "2025.4.25")]
    every, none_older = select_entries(entries, all_versions=True)
    assert (memory, "2025.4.25") in {(e.name, e.version) for e in every} and len(every) == 8
    assert none_older == []
    # An incremental page holding only the deprecated older version does not make it the latest.
    deprecated = [e for e in entries if e.version == "2025.4.25"]
    assert select_entries(deprecated, all_versions=False) == ([], deprecated)


def test_without_is_latest_semver_then_publication_order_decides():
    def entry(version: str, published: str) -> dict:
        return {"server": {"name": "io.github.t/x", "description": "x", "version": version},
                "_meta": {OFFICIAL: {"status": "active", "publishedAt": published}}}  # fmt: skip

    items = [entry("1.10.0", "2026-01-01"), entry("1.9.0", "2026-02-01"), entry("1.2.0-rc.1", "2026-03-01")]
    (chosen,), _ = select_entries([entry_from_item(i) for i in items], all_versions=False)
    assert chosen.version == "1.10.0"
    # The latest active version, though a later one is deprecated.
    deprecated = entry_from_item(entry("2.0.0", "2026-04-01"))
    deprecated.status, deprecated.is_latest = "deprecated", True
    active = entry_from_item(entry("1.10.0", "2026-01-01"))
    active.is_latest = False
    assert select_entries([deprecated, active], all_versions=False) == ([active], [deprecated])
    dates = [entry("alpha", "2026-01-01"), entry("beta", "2025-01-01")]
    (chosen,), _ = select_entries([entry_from_item(i) for i in dates], all_versions=False)
    assert chosen.version == "alpha"


def test_remote_variables_and_headers_are_filled():
    (weather,) = [
        entry_from_item(i) for i in sample_pages()[0]["servers"] if i["server"]["name"].endswith("weather")
    ]
    with pytest.raises(EntrySkipped, match=r"secret \{api_token\}"):
        entry_launch(weather, Inputs())
    launch = entry_launch(weather, Inputs({"api_token": "s3cret", "region": "eu"}))
    assert launch.url == "https://eu.weather.example.com/mcp"
    assert launch.headers == {"Authorization": "Bearer s3cret"}
    with pytest.raises(EntrySkipped, match=r"\{region\} of the remote URL is 'asia', not one of us, eu"):
        entry_launch(weather, Inputs({"api_token": "s3cret", "region": "asia"}))
    whole = entry_launch(weather, Inputs({"Authorization": "Token abc"}))
    assert whole.url == "https://us.weather.example.com/mcp" and whole.headers["Authorization"] == "Token abc"


@pytest.mark.parametrize(
    ("server", "reason"),
    [
        ({"packages": [{"registryType": "nuget", "identifier": "X", "version": "1"}]}, "registryType nuget"),
        ({"packages": [{"registryType": "npm", "identifier": "x"}]}, "has no 'version'"),
        ({"packages": [{"registryType": "npm", "version": "1"}]}, "no 'identifier'"),
        ({"remotes": [{"type": "websocket", "url": "wss://x"}]}, "remote type 'websocket'"),
        ({"remotes": [{"type": "sse", "url": "{base}/sse"}]}, "not a valid http(s) URL"),
        ({}, "neither packages nor remotes"),
        ({"packages": [{"registryType": "npm", "identifier": "x", "version": "1",
                        "packageArguments": [{"type": "flag"}]}]}, "argument type 'flag'"),
    ],
)  # fmt: skip
def test_entries_that_cannot_run_are_invalid_with_the_reason(server, reason):
    entry = entry_from_item({"name": "io.github.t/x", "description": "x", "version": "1", **server})
    with pytest.raises(EntryInvalid, match=reason.replace("(", r"\(").replace(")", r"\)")):
        entry_launch(entry, Inputs())


def test_a_source_that_is_not_a_registry_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError, match="neither an http"):
        read_entries(str(tmp_path / "nope.json"))
    (tmp_path / "x.json").write_text('{"items": []}')
    with pytest.raises(UsageError, match="no 'servers' list"):
        read_entries(str(tmp_path / "x.json"))


# -- crawling the replayed registry for real --------------------------------------------------


@pytest.fixture
def allowed() -> Iterator[Path]:
    """A folder for the filesystem server that the sandbox's unprivileged user may read (pytest's
    temporary folders are private to their owner)."""
    folder = Path(tempfile.mkdtemp(prefix="mcpdex-allowed-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder)


@pytest.mark.peers
@pytest.mark.slow
def test_crawl_of_the_registry_pages_inspects_runnable_entries_and_reports_the_rest(
    replayed, allowed, tmp_path
):
    registry = f"sqlite:///{tmp_path / 'r.sqlite'}"
    # The packages are fetched (install scripts off), then run offline in the sandbox, where the
    # filesystem server is given a folder its unprivileged user may read; the remote is on loopback.
    args = ("--from-registry", replayed.url, "--registry", registry, "--save", "--format", "json",
            "--allow-private-remotes")  # fmt: skip
    first = outcomes(
        crawl(
            *args,
            "--concurrency",
            "4",
            "--timeout",
            "90",
            "--env",
            f"io.github.modelcontextprotocol/server-filesystem/allowed_directory={allowed}",
        )
    )
    by_outcome: dict[str, set[str]] = {}
    for key, entry in first.items():
        by_outcome.setdefault(entry["outcome"], set()).add(key)
    sample = "io.github.modelcontextprotocol/server-"
    assert by_outcome["ok"] == {
        f"{sample}fetch@2026.10.24", f"{sample}filesystem@2026.8.31", f"{sample}git@2026.10.19",
        f"{sample}memory@2026.8.31", f"{sample}sequential-thinking@2026.8.31", f"{sample}time@2026.10.19",
        "io.github.test/memory-remote@1.0.0",
    }, {k: e["reason"] for k, e in first.items()}  # fmt: skip
    assert by_outcome["skipped"] == {"com.example/acme-weather@2.1.0"}
    assert "api_token" in first["com.example/acme-weather@2.1.0"]["reason"]
    assert by_outcome["failed"] == {"io.github.test/wont-install@1.0.0", "io.github.test/silent-remote@1.0.0"}
    assert by_outcome["deleted"] == {"io.github.test/gone@1.0.0"}
    assert by_outcome["invalid"] == {
        "io.github.test/cargo-only@1.0.0", "io.github.test/no-version@None", "not a registry name@1.0.0",
    }  # fmt: skip
    assert "registryType cargo" in first["io.github.test/cargo-only@1.0.0"]["reason"]
    assert first[f"{sample}fetch@2026.10.24"]["kind"] == "pypi"
    assert first["io.github.test/memory-remote@1.0.0"]["kind"] == "remote"

    with open_store(registry) as store:
        assert [v.label for v in store.versions(f"{sample}time")] == ["2026.10.19"]
        # Fetched with install scripts off, then run offline in the sandbox; the target is its command.
        source = store.versions(f"{sample}memory")[0].snapshot["source"]
        assert source["fetched"] == {
            "registryType": "npm", "package": "@modelcontextprotocol/server-memory@2026.8.31",
            "installScripts": "off",
        }  # fmt: skip
        assert source["target"] == "npx -y @modelcontextprotocol/server-memory@2026.8.31"
        assert source["sandbox"]["network"] == "none" and "<package>" in source["sandbox"]["read"]
        assert store.versions("io.github.test/memory-remote")[0].snapshot["source"]["transport"] == (
            "streamable-http"
        )
        (row,) = store.registry_entries(f"{sample}fetch")
        assert (row.status, row.outcome, row.server["title"]) == ("active", "ok", "Fetch")
        assert store.last_sync(replayed.url) == "2026-11-01T00:00:00Z"
        # The older, deprecated version is not inspected, but its status is kept.
        older = {r.version: r for r in store.registry_entries(f"{sample}memory")}["2025.4.25"]
        assert (older.status, older.outcome) == ("deprecated", "older")
        assert older.status_message.startswith("Superseded")

    # The stored sync time: the registry is asked only for what changed since, and nothing did.
    replayed.requests.clear()
    again = outcomes(crawl(*args), exit_code=2)
    assert all("updated_since=2026-11-01" in r for r in replayed.requests)
    # Nothing new is inspected; only entries that were skipped or failed last time are tried again.
    assert {k: e["outcome"] for k, e in again.items()} == {
        "com.example/acme-weather@2.1.0": "skipped",
        "io.github.test/wont-install@1.0.0": "failed",
        "io.github.test/silent-remote@1.0.0": "failed",
    }
    # Asked for everything again, versions already recorded are not inspected a second time.
    since = outcomes(crawl(*args, "--updated-since", "2000-01-01T00:00:00Z"), exit_code=2)
    assert {k for k, e in since.items() if e["outcome"] == "recorded"} == by_outcome["ok"]
    # Failed inspections are tried again (and, as every inspection of this run failed, it exits 2).
    assert {k for k, e in since.items() if e["outcome"] in ("ok", "failed")} == by_outcome["failed"]


@pytest.mark.peers
@pytest.mark.slow
def test_all_versions_inspects_the_deprecated_one_and_shows_its_status(replayed, tmp_path):
    registry = f"sqlite:///{tmp_path / 'r.sqlite'}"
    dump = tmp_path / "page-2.json"
    dump.write_text(json.dumps(sample_pages()[1]))
    result = crawl("--from-registry", str(dump), "--registry", registry, "--save", "--all-versions",
                   "--timeout", "90")  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "deprecated: io.github.modelcontextprotocol/server-memory@2025.4.25: Superseded" in result.stdout
    with open_store(registry) as store:
        rows = {r.version: r for r in store.registry_entries("io.github.modelcontextprotocol/server-memory")}
    assert rows["2025.4.25"].status == "deprecated" and rows["2025.4.25"].outcome == "ok"
    assert rows["2026.8.31"].status == "active"


def test_registry_flags_need_from_registry(tmp_path):
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"a": {"command": "x"}}}))
    result = crawl(str(config), "--all-versions")
    assert result.returncode == 2 and "--all-versions apply to --from-registry" in result.stderr
    bad_time = crawl("--from-registry", str(config), "--updated-since", "yesterday")
    assert bad_time.returncode == 2 and "not an RFC 3339 time" in bad_time.stderr


def test_secrets_header_and_force_on_a_remote_entry(memory_http, tmp_path):
    dump = tmp_path / "dump.json"
    dump.write_text(json.dumps({"servers": [item({
        "name": "io.github.test/memory-remote", "description": "Memory.", "version": "1.0.0",
        "remotes": [{"type": "streamable-http", "url": memory_http,
                     "headers": [{"name": "X-Token", "isRequired": True, "isSecret": True}]}],
    })]}))  # fmt: skip
    registry = f"sqlite:///{tmp_path / 'r.sqlite'}"
    # The remote is on loopback, which a crawl refuses unless told otherwise.
    args = (
        "--from-registry",
        str(dump),
        "--registry",
        registry,
        "--format",
        "json",
        "--allow-private-remotes",
    )
    key = "io.github.test/memory-remote@1.0.0"

    missing = outcomes(crawl(*args, "--save"))[key]
    assert missing["outcome"] == "skipped"
    assert missing["reason"].startswith("required secret X-Token (headers) not supplied")
    assert (
        outcomes(crawl(*args, "--header", "io.github.test/memory-remote/X-Token: t0k"))[key]["outcome"]
        == "ok"
    )
    secrets = tmp_path / "secrets.json"
    secrets.write_text(json.dumps({"io.github.test/other": {"X-Token": "no"}}))
    assert outcomes(crawl(*args, "--secrets", str(secrets)))[key]["outcome"] == "skipped"
    secrets.write_text(json.dumps({"io.github.test/memory-remote": {"X-Token": "t0k"}}))
    assert outcomes(crawl(*args, "--save", "--secrets", str(secrets)))[key]["outcome"] == "ok"
    # Recorded: not inspected again, even when asked for everything since long ago, unless --force.
    since = ("--save", "--secrets", str(secrets), "--updated-since", "2000-01-01T00:00:00Z")
    assert outcomes(crawl(*args, *since))[key]["outcome"] == "recorded"
    assert outcomes(crawl(*args, *since, "--force"))[key]["outcome"] == "ok"
    with open_store(registry) as store:
        assert len(store.inspections("io.github.test/memory-remote")) == 2
        (row,) = store.registry_entries("io.github.test/memory-remote")
        assert row.outcome == "ok"
    # The secret reached the target but never the stored snapshot.
    with open_store(registry) as store:
        stored = json.dumps(store.snapshot("io.github.test/memory-remote"))
    assert "t0k" not in stored and "X-Token" in stored


def test_saving_registry_metadata_needs_a_database_registry(tmp_path):
    dump = tmp_path / "dump.json"
    dump.write_text(json.dumps(sample_pages()[2]))
    result = crawl("--from-registry", str(dump), "--save", "--registry", "http://127.0.0.1:9")
    assert result.returncode == 2 and "needs a database registry" in result.stderr
    assert "Traceback" not in result.stderr
