"""The memory-operations probe against real memory servers of different kinds, over real stdio,
each started by the probe on a scratch store of its own."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from registry.core.errors import UsageError
from registry.core.operations import map_operations, parse_overrides
from tests.conftest import PEERS, require

MEMORY = PEERS / "memory"
# server → (its argv under .peers, extra probe options); one of each kind the probe is measured on.
SERVERS = {
    "official graph file": ("npm/node_modules/@modelcontextprotocol/server-memory/dist/index.js", ()),
    "fork of the graph": (
        "memory/@itseasy21/mcp-knowledge-graph@1.0.7/node_modules/@itseasy21/mcp-knowledge-graph/dist/index.js",
        (),
    ),
    "libSQL graph": ("memory/mcp-memory-libsql@0.0.17/node_modules/.bin/mcp-memory-libsql", ()),
    "session and context store": (
        "memory/mcp-memory-keeper@0.14.1/node_modules/.bin/mcp-memory-keeper",
        ("--map", "list=context_get"),
    ),
    "full-text notes store": ("py/frugal-memory/bin/frugal-memory", ()),
}


def run_probe(
    relative: str, options: tuple[str, ...], cwd: Path, fmt: str = "json"
) -> subprocess.CompletedProcess:
    exe = PEERS / relative
    require(exe.exists(), f"{relative} is not installed under .peers (run scripts/install-peers)")
    argv = ["node", str(exe)] if relative.endswith(".js") else [str(exe)]
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "registry.cli",
            "probe",
            "--format",
            fmt,
            "--sizes",
            "10,100",
            *options,
            "--",
            *argv,
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=cwd,
    )


@pytest.fixture(scope="module")
def registry_url(tmp_path_factory) -> str:
    """One registry every probe below saves its profile in, for the comparison view."""
    return f"sqlite:///{tmp_path_factory.mktemp('registry') / 'registry.sqlite'}"


@pytest.fixture(scope="module", params=sorted(SERVERS))
def probed(request, tmp_path_factory, registry_url) -> tuple[str, dict, Path]:
    cwd = tmp_path_factory.mktemp("cwd")
    relative, options = SERVERS[request.param]
    save = ("--save", "--registry", registry_url, "--name", request.param.replace(" ", "-"))
    result = run_probe(relative, (*options, *save), cwd)
    assert result.returncode == 0, result.stderr[-2000:]
    return request.param, json.loads(result.stdout), cwd


def test_each_server_gets_a_full_report_on_a_scratch_store(probed):
    kind, profile, cwd = probed
    assert {"store", "recall"} <= set(profile["operations"]), kind
    assert profile["scratchStore"], f"{kind} was not pointed at a scratch store"
    assert list(cwd.iterdir()) == [], f"{kind} wrote into the working directory the probe was run from"
    checks = {row["id"]: row for row in profile["conformance"]["checks"] if row["group"] == "memory"}
    for check_id in (
        "store-succeeds",
        "recall-round-trip",
        "recall-precise",
        "recall-absent",
        "delete-removes",
    ):
        assert checks[check_id]["outcome"] == "pass", (kind, checks[check_id])
    sizes = profile["memory"]["sizes"]
    assert [size["items"] for size in sizes] == [10, 100], profile["memory"]["note"]
    one = next(row for row in sizes[1]["reads"] if row["form"] == "recall of one item")
    assert one["items"] == 1 and one["tokens"] > 0
    assert profile["coldStartMs"] > 0 and profile["callP50Ms"] > 0
    assert profile["storage"] in ("file", "SQLite")


def test_the_official_release_passes_its_own_semantics_and_fails_only_beyond_upstream(probed):
    kind, profile, _ = probed
    conformance = profile["conformance"]
    official = [r for r in conformance["checks"] if r["group"] == "official"]
    if kind == "official graph file":
        assert len(official) >= 20
        assert conformance["failed"] == 0, [r for r in conformance["checks"] if r["outcome"] == "fail"]
        assert conformance["beyondUpstream"]["failed"] == 2
    elif kind == "fork of the graph":
        # A fork of an older release: the official checks run, since it has the official surface.
        assert len(official) >= 20
    else:
        assert official == [] and conformance["beyondUpstream"]["failed"] == 0


def test_an_unbounded_recall_returns_every_item_and_a_bounded_one_stays_bounded(probed):
    kind, profile, _ = probed
    reads = {row["form"]: row for row in profile["memory"]["sizes"][1]["reads"]}
    bounded = [row for form, row in reads.items() if "limit 10" in form and form.startswith("recall")]
    if bounded:
        assert bounded[0]["items"] <= 10, kind
    else:
        assert reads["recall “lantern” (every item matches)"]["items"] == 100, kind


def test_text_output_to_a_pipe_is_not_cut(tmp_path):
    relative, options = SERVERS["official graph file"]
    result = run_probe(relative, options, tmp_path, fmt="text")
    assert result.returncode == 0, result.stderr[-2000:]
    assert "create-relations-unknown-endpoint-rejected" in result.stdout
    assert "…" not in result.stdout
    assert "Beyond upstream" in result.stdout


def test_a_server_without_store_and_recall_is_refused_with_what_it_offers(py_peer, tmp_path):
    exe = py_peer("mcp-server-time")
    result = subprocess.run(
        [sys.executable, "-m", "registry", "probe", "--allow-writes", "--", exe],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert result.returncode == 2
    assert "no store and recall operations" in result.stderr and "--map store=TOOL" in result.stderr


def test_operations_are_read_from_descriptions_when_names_say_nothing():
    tools = [
        {
            "name": "merken",
            "description": "Stores a text in memory.",
            "inputSchema": {
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"],
            },
        },
        {
            "name": "suche",
            "description": "Searches memory with full-text search.",
            "inputSchema": {
                "type": "object",
                "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}},
                "required": ["query"],
            },
        },
        {
            "name": "vergessen",
            "description": "Removes entries by id.",
            "inputSchema": {"type": "object", "properties": {"ids": {"type": "string"}}, "required": ["ids"]},
        },
    ]
    mapping = map_operations(tools)
    assert {op: row["tool"] for op, row in mapping.items()} == {
        "store": "merken",
        "recall": "suche",
        "delete": "vergessen",
    }
    assert mapping["recall"]["arguments"] == {"query": "query", "limit": "limit"}
    assert map_operations(tools, {"read": "suche"})["read"]["source"] == "override"


def test_a_bad_override_names_the_field_and_the_fix():
    with pytest.raises(UsageError, match="OPERATION=TOOL"):
        parse_overrides(["recall"])
    with pytest.raises(UsageError, match="unknown operation"):
        map_operations([{"name": "x"}], {"remember": "x"})
    with pytest.raises(UsageError, match="has no tool"):
        map_operations([{"name": "x"}], {"recall": "y"})


def test_the_index_compares_every_probed_memory_server_with_measured_numbers(probed, registry_url, tmp_path):
    kind, profile, _ = probed
    site = tmp_path / "site"
    report = subprocess.run(
        [sys.executable, "-m", "registry", "report", "--registry", registry_url, "--out", str(site)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert report.returncode == 0, report.stderr
    index = json.loads((site / "index.json").read_text(encoding="utf-8"))
    rows = {row["name"]: row["memory"] for row in index["servers"]}
    row = rows[kind.replace(" ", "-")]
    assert row["probed"] and row["passed"] == profile["conformance"]["passed"]
    assert row["items"] == 100 and row["full_tokens"] > 0 and row["p50_ms"] > 0 and row["cold_start_ms"] > 0
    assert row["storage"] == profile["storage"] and row["install"]
    if kind == "fork of the graph":
        assert row["install"] == "npx -y @itseasy21/mcp-knowledge-graph"
    assert {"store", "recall"} <= set(row["operations"])
    html = (site / "index.html").read_text(encoding="utf-8")
    assert '<h2 id="memory">Memory servers</h2>' in html and kind.replace(" ", "-") in html


# The release before search and open returned relations touching either endpoint.
OLD_OFFICIAL = (
    "releases/@modelcontextprotocol/server-memory@2026.1.26/"
    "node_modules/@modelcontextprotocol/server-memory/dist/index.js"
)


def test_the_changelog_shows_what_the_probe_says_changed_between_official_releases(tmp_path):
    registry = f"sqlite:///{tmp_path / 'registry.sqlite'}"
    for relative, label in ((OLD_OFFICIAL, "2026.1.26"), (SERVERS["official graph file"][0], "2026.8.31")):
        saved = ("--save", "--registry", registry, "--name", "official-memory", "--version-label", label)
        result = run_probe(relative, saved, tmp_path)
        assert result.returncode == 0, result.stderr[-2000:]
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "registry",
            "changelog",
            "official-memory",
            "--registry",
            registry,
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    newest = json.loads(result.stdout)["versions"][0]
    assert newest["version"] == "2026.8.31"
    moved = {b["check"]: (b["before"], b["after"]) for b in newest["behaviour"] if b["kind"] == "check"}
    # Search and open return relations touching either endpoint since 2026.3 upstream.
    assert moved["search-relations-either-endpoint"] == ("fail", "pass")
    assert moved["open-nodes-relations-either-endpoint"] == ("fail", "pass")
    text = subprocess.run(
        [sys.executable, "-m", "registry", "changelog", "official-memory", "--registry", registry],
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    assert "behaviour (what the memory probe says changed)" in text
    assert "behaviour change" in text.splitlines()[2]
    site = tmp_path / "site"
    report = subprocess.run(
        [sys.executable, "-m", "registry", "report", "--registry", registry, "--out", str(site)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert report.returncode == 0, report.stderr
    page = (site / "servers" / "official-memory" / "index.html").read_text(encoding="utf-8")
    changelog = page[page.index('id="changelog"') :]
    assert "What the memory probe says changed:" in changelog
    assert "returns the relations with either endpoint among the matches: now passes" in changelog


def test_a_directory_depth_is_not_a_relation_depth_read():
    from registry.core.profile import static_profile

    def tool(tool_name: str, **props: dict) -> dict:
        return {"name": tool_name, "inputSchema": {"type": "object", "properties": props}}

    snapshot = {
        "server": {"name": "memory-and-files"},
        "tools": [
            tool("create_entities", entities={"type": "array"}),
            tool("delete_entities", entityNames={"type": "array"}),
            tool("read_graph"),
            tool("list_directory", path={"type": "string"}, depth={"type": "integer"}),
            tool("find", path={"type": "string"}, depth={"type": "integer"}),
            tool("get_context", name={"type": "string"}, depth={"type": "integer"}),
        ],
    }
    features = {row["id"]: row["evidence"] for row in static_profile(snapshot)["features"]}
    assert features["depth-read"] == ["get_context.depth"]


def test_a_server_that_dies_on_discover_is_probed_over_the_handshake(py_peer, tmp_path):
    # SDK 1.1's time server dies on server/discover; the probe reaches it as inspect does and then
    # refuses it for what it is (no memory operations) rather than crashing.
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "registry",
            "probe",
            "--allow-writes",
            "--",
            py_peer("time-sdk11", "mcp-server-time"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert result.returncode == 2, result.stderr
    assert "no store and recall operations" in result.stderr and "Traceback" not in result.stderr


def test_a_memory_page_says_why_a_server_without_store_and_recall_is_not_probed():
    from registry.core.profile import page_profile
    from registry.core.templating import render

    snapshot = {
        "server": {"name": "notes-reader"},
        "tools": [
            {
                "name": "recall_search",
                "description": "Search the notes.",
                "inputSchema": {
                    "type": "object",
                    "properties": {"query": {"type": "string"}},
                    "required": ["query"],
                },
            },
            {
                "name": "recall_list_notes",
                "description": "List all notes.",
                "inputSchema": {"type": "object"},
            },
        ],
    }
    profile = page_profile(snapshot)
    assert profile is not None and profile["probeable"] is False
    html = render("_memory_profile.html.j2", profile=profile)
    assert "needs a store and a recall operation, and its tools offer only recall, list" in html
