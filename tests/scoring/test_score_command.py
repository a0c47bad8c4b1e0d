"""``mcpdex score`` and ``mcpdex explain`` as whole processes, on snapshot files and a live server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from registry.core.snapshot import dump_snapshot
from tests.scoring.conftest import make_tool, snapshot_of

MCPDEX = [sys.executable, "-m", "registry"]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*MCPDEX, *args], capture_output=True, text=True, timeout=120)


@pytest.fixture
def snapshot_file(tmp_path: Path, memory_read: dict) -> Path:
    snapshot = snapshot_of(
        memory_read,
        make_tool(
            "memory_search",
            "Search memory notes by words in their title and body; returns digests, "
            "newest first. Use memory_read for a note's full body.",
            {"query": {"type": "string", "description": "Words to find."}},
            required=["query"],
            annotations={"readOnlyHint": True},
        ),
        make_tool("process", "Process"),
        name="memory-demo",
    )
    path = tmp_path / "snapshot.json"
    dump_snapshot(snapshot, path)
    return path


def test_score_json_is_the_full_scorecard(snapshot_file: Path) -> None:
    result = run("score", str(snapshot_file), "--format", "json")
    assert result.returncode == 0, result.stderr
    card = json.loads(result.stdout)
    assert card["format"] == "mcpdex.scorecard/1"
    assert card["server"] == {"name": "memory-demo", "version": "1.0.0"}
    assert [tool["name"] for tool in card["tools"]] == ["memory_read", "memory_search", "process"]
    # Two A tools (4.7, 4.3) and a bare "Process" (D, 1.7) roll up to 3.3: the weak tool costs the A.
    assert card["server_score"]["tier"] == "B"
    assert {"rule", "level", "tool", "where", "message", "fix"} <= set(card["findings"][0])


def test_score_text_lists_tools_roll_up_and_worst_first(snapshot_file: Path) -> None:
    result = run("score", str(snapshot_file))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert any(line.startswith("process ") and " D " in line for line in lines)
    assert "server: overall" in result.stdout
    worst = result.stdout.split("Lowest scores", 1)[1]
    assert worst.splitlines()[1].strip().startswith("1 process")


def test_score_markdown_is_a_pr_report(snapshot_file: Path) -> None:
    result = run("score", str(snapshot_file), "--format", "markdown", "--min-tier", "B")
    assert result.returncode == 1
    assert result.stdout.startswith("## ❌ mcpdex score: `memory-demo`")
    assert "| `process` | 1 |" in result.stdout
    assert "gate failed: 1 tool below tier B: process (D " in result.stderr


def test_min_tier_passes_when_every_tool_meets_it(tmp_path: Path, memory_read: dict) -> None:
    path = tmp_path / "good.json"
    dump_snapshot(snapshot_of(memory_read), path)
    assert run("score", str(path), "--min-tier", "A").returncode == 0
    assert run("score", str(path), "--min-score", "4.9").returncode == 1


def test_score_of_a_missing_file_is_a_usage_error_without_traceback(tmp_path: Path) -> None:
    result = run("score", str(tmp_path / "nope.json"))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith("mcpdex: error:")


def test_explain_lint_rule_dimension_and_unknown() -> None:
    lint = run("explain", "hidden-unicode")
    assert lint.returncode == 0 and "Fix:" in lint.stdout
    dimension = run("explain", "usage_guidelines")
    assert dimension.returncode == 0 and "20% of TDQS" in dimension.stdout
    coherence = run("explain", "coherence.completeness")
    assert coherence.returncode == 0 and "Completeness (coherence" in coherence.stdout
    unknown = run("explain", "hiden-unicode")
    assert unknown.returncode == 2 and "did you mean hidden-unicode" in unknown.stderr


def test_explain_covers_diff_rules() -> None:
    from registry.diffing.rules import RULES

    result = run("explain", RULES[0].id)
    assert result.returncode == 0
    assert RULES[0].explanation in result.stdout


@pytest.mark.slow
def test_score_a_live_stdio_server(py_peer) -> None:
    server = py_peer("mcp-server-time")
    result = run("score", "--format", "json", "--", server)
    assert result.returncode == 0, result.stderr
    card = json.loads(result.stdout)
    assert {tool["name"] for tool in card["tools"]} == {"get_current_time", "convert_time"}
    # One sentence each with annotations and an output schema: B (3.4 and 3.3), short of an A for saying
    # nothing of when to use either or how they fail.
    assert {tool["name"]: tool["tier"] for tool in card["tools"]} == {
        "get_current_time": "B",
        "convert_time": "B",
    }
