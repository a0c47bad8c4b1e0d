"""The per-version changelog: pure building and rendering, the CLI over a real registry, a real pair."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from registry.diffing.changelog import build_changelog, headline, render_changelog
from tests.conftest import make_snapshot

MCPDEX = str(Path(sys.executable).with_name("mcpdex"))
READ = {
    "name": "memory_read",
    "description": "Read one memory note.",
    "inputSchema": {
        "type": "object",
        "properties": {"name": {"type": "string"}, "agent": {"type": "string"}, "depth": {"type": "integer"}},
        "required": ["name", "agent"],
    },
}
DESCRIBED = {
    **READ,
    "inputSchema": {
        **READ["inputSchema"],
        "properties": {
            "name": {"type": "string", "description": "A permalink, an id, or an exact title."},
            "agent": {"type": "string", "description": "Your stable agent name."},
            "depth": {"type": "integer", "description": "How many relation hops, 0 to 3."},
        },
    },
    "outputSchema": {"type": "object", "properties": {"status": {"type": "string"}}, "required": ["status"]},
}


def snap(*tools: dict[str, Any]) -> dict[str, Any]:
    return make_snapshot(*tools, server={"name": "tirith"})


VERSIONS = [
    {"label": "1.1.1", "digest": "sha256:a", "first_seen": "2026-09-18T08:00:00Z", "snapshot": snap(READ)},
    {
        "label": "1.1.2",
        "digest": "sha256:b",
        "first_seen": "2026-09-18T09:00:00Z",
        "snapshot": snap(DESCRIBED),
    },
    {"label": "2.0.0", "digest": "sha256:c", "first_seen": "2026-10-01T09:00:00Z", "snapshot": snap()},
]


def test_changelog_is_newest_first_with_a_first_observed_entry() -> None:
    log = build_changelog("tirith", VERSIONS)
    assert [headline(e) for e in log["versions"]] == [
        "v2.0.0 (2026-10-01): 1 change, 1 breaking",
        "v1.1.2 (2026-09-18): 4 changes",
        "First observed v1.1.1 (2026-09-18)",
    ]


def test_changes_are_grouped_by_tool_as_the_seed_shows() -> None:
    entry = build_changelog("tirith", VERSIONS)["versions"][1]
    [group] = entry["tools"]
    assert group["tool"] == "memory_read"
    assert [c["where"] for c in group["changes"]] == [
        "Input schema / properties / agent / description",
        "Input schema / properties / depth / description",
        "Input schema / properties / name / description",
        "Output schema / (root)",
    ]


def test_changelog_renders_as_text_markdown_and_json() -> None:
    log = build_changelog("tirith", VERSIONS)
    text = render_changelog(log, "text")
    assert "v1.1.2 (2026-09-18): 4 changes" in text and "First observed v1.1.1" in text
    markdown = render_changelog(log, "markdown")
    assert "## v2.0.0 (2026-10-01): 1 change, 1 breaking" in markdown and "### `memory_read`" in markdown
    assert json.loads(render_changelog(log, "json"))["format"] == "mcpdex.changelog/1"


def test_a_version_without_contract_changes_says_so() -> None:
    versions = [
        {**VERSIONS[0]},
        {**VERSIONS[0], "label": "1.1.3", "snapshot": snap(json.loads(json.dumps(READ)))},
    ]
    assert headline(build_changelog("t", versions)["versions"][0]).endswith(": no contract changes")


def _record(url: str, snapshot: dict[str, Any], when: str) -> None:
    from registry.storage.store import open_store

    with open_store(url) as store:
        store.record_inspection(
            snapshot, server="tirith", ok=True, error=None, started_at=when, duration_s=0.1
        )


def test_changelog_command_reads_the_registry(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'registry.sqlite'}"
    for version in VERSIONS:
        snapshot = {**version["snapshot"], "server": {"name": "tirith", "version": version["label"]}}
        _record(url, snapshot, version["first_seen"])
    result = subprocess.run(
        [MCPDEX, "changelog", "tirith", "--registry", url, "--format", "markdown"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert (
        result.stdout.index("## v2.0.0")
        < result.stdout.index("## v1.1.2")
        < result.stdout.index("## First observed v1.1.1")
    )
    missing = subprocess.run(
        [MCPDEX, "changelog", "nobody", "--registry", url], capture_output=True, text=True
    )
    assert missing.returncode == 2 and missing.stderr.startswith("mcpdex: error:")


@pytest.mark.slow
@pytest.mark.peers
def test_real_pair_mcp_server_time_changelog_lists_what_really_changed(py_peer, tmp_path: Path) -> None:
    """mcp-server-time 2025.9.25 (mcp 1.x) → 2026.10.19 (mcp 2.x), both inspected for real."""
    from registry.inspecting.inspect import inspect

    old = inspect([py_peer("time-old", "mcp-server-time")], protocol_era="legacy", version_label="2025.9.25")
    new = inspect([py_peer("mcp-server-time")], protocol_era="legacy", version_label="2026.10.19")
    url = f"sqlite:///{tmp_path / 'registry.sqlite'}"
    _record(url, old, "2025-09-25T00:00:00Z")
    _record(url, new, "2026-10-19T00:00:00Z")
    from registry.storage.store import open_store

    with open_store(url) as store:
        log = build_changelog("tirith", store.versions("tirith"))
    latest = log["versions"][0]
    assert headline(latest).startswith("v2026.10.19 (") and headline(latest).endswith(
        "): 11 changes, 1 warning"
    )
    found = {(c["tool"], c["rule"]) for c in latest["changes"]}
    for tool in ("get_current_time", "convert_time"):
        # Both tools gain annotations (read-only, non-destructive, idempotent, closed world) and outputSchema.
        assert {
            (tool, rule)
            for rule in (
                "tool-became-read-only",
                "tool-became-non-destructive",
                "tool-became-idempotent",
                "tool-became-closed-world",
                "output-schema-added",
            )
        } <= found
    [text] = [c for c in latest["changes"] if c["rule"] == "tool-description-changed"]
    assert (text["tool"], text["before"], text["after"]) == (
        "get_current_time",
        "Get current time in a specific timezones",
        "Get current time in a specific timezone",
    )
    # The Pydantic titles the new SDK adds everywhere are noise, not changes.
    assert not [c for c in latest["changes"] if c["rule"].endswith("title-changed")]
    assert headline(log["versions"][1]).startswith("First observed v2025.9.25 (")
