"""``mcpdex lock`` and ``mcpdex check`` end to end, on a real MCP server whose schema an env var changes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import make_snapshot

MCPDEX = str(Path(sys.executable).with_name("mcpdex"))

SERVER = '''
import os
from mcp.server import MCPServer

mcp = MCPServer("gate-demo", version=os.environ.get("DEMO_VERSION", "1.0.0"))

if os.environ.get("DEMO_SCHEMA") == "v2":
    @mcp.tool(description=os.environ.get("DEMO_DESCRIPTION"))
    def search(query: str, limit: int) -> str:
        """Search notes by text."""
        return query
else:
    @mcp.tool(description=os.environ.get("DEMO_DESCRIPTION"))
    def search(query: str, limit: int = 10) -> str:
        """Search notes by text."""
        return query

if __name__ == "__main__":
    mcp.run()
'''


def run(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k != "GITHUB_STEP_SUMMARY"}
    environment.update(env)
    return subprocess.run(
        [MCPDEX, *args], cwd=cwd, env=environment, capture_output=True, text=True, timeout=120
    )


def target(*env: str) -> list[str]:
    flags = [f"--env={pair}" for pair in env]
    return ["--protocol-era", "legacy", *flags, "--", sys.executable, "server.py"]


@pytest.mark.slow
def test_lock_change_fail_ignore_pass_update(tmp_path: Path) -> None:
    (tmp_path / "server.py").write_text(SERVER, encoding="utf-8")
    locked = run(tmp_path, "lock", *target())
    assert locked.returncode == 0, locked.stderr
    baseline = json.loads((tmp_path / "mcpdex.lock.json").read_text(encoding="utf-8"))
    assert [t["name"] for t in baseline["tools"]] == ["search"]

    unchanged = run(tmp_path, "check", *target())
    assert unchanged.returncode == 0, unchanged.stdout + unchanged.stderr
    assert "0 changes" in unchanged.stdout and "PASSED" in unchanged.stdout

    summary = tmp_path / "summary.md"
    changed = run(
        tmp_path, "check", "--format", "markdown", *target("DEMO_SCHEMA=v2"), GITHUB_STEP_SUMMARY=str(summary)
    )
    assert changed.returncode == 1, changed.stdout + changed.stderr
    assert "❌ mcpdex check failed" in changed.stdout
    assert "Input schema / properties / limit" in changed.stdout and "is now required" in changed.stdout
    assert "mcpdex check failed" in summary.read_text(encoding="utf-8")

    report = json.loads(run(tmp_path, "check", "--format", "json", *target("DEMO_SCHEMA=v2")).stdout)
    failing = [c for c in report["changes"] if c["fails"]]
    assert [c["rule"] for c in failing] == ["input-property-became-required"]
    (tmp_path / "mcpdex.ignore").write_text(
        f"# reviewed schema changes\n{failing[0]['fingerprint']} limit is required; every caller sends it\n",
        encoding="utf-8",
    )
    accepted = run(tmp_path, "check", *target("DEMO_SCHEMA=v2"))
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert "accepted: limit is required; every caller sends it" in accepted.stdout

    updated = run(tmp_path, "check", "--update", "--ignore", os.devnull, *target("DEMO_SCHEMA=v2"))
    assert updated.returncode == 0 and "updated the baseline" in updated.stderr
    (tmp_path / "mcpdex.ignore").unlink()
    after_update = run(tmp_path, "check", "--fail-on", "info", *target("DEMO_SCHEMA=v2"))
    assert after_update.returncode == 0, after_update.stdout


@pytest.mark.slow
def test_check_fails_when_a_description_gets_worse(tmp_path: Path) -> None:
    (tmp_path / "server.py").write_text(SERVER, encoding="utf-8")
    described = (
        "DEMO_DESCRIPTION=Search notes by their title and body text, newest first: `query` is matched as "
        "words, case-insensitively. Returns up to `limit` matching lines (default 10) as plain text, or an "
        "empty string when nothing matches. Read-only: it changes no note."
    )
    assert run(tmp_path, "lock", *target(described)).returncode == 0

    # Without DEMO_DESCRIPTION the description is the docstring, "Search notes by text.".
    worse = run(tmp_path, "check", "--format", "markdown", *target())
    assert worse.returncode == 1, worse.stdout + worse.stderr
    assert "| 🟠 quality | `search` | Quality | search: TDQS tier fell, A (" in worse.stdout
    assert "`tool-quality-dropped` · `" in worse.stdout and "**fails the gate**" in worse.stdout
    # the tool and the server roll-up fall a tier: two quality drops, and no break
    assert "3 changes: 0 breaking, 1 warning, 0 info; 2 quality drops" in worse.stdout, worse.stdout
    assert "FAILED on 2 quality drops (--fail-on breaking)" in worse.stdout
    assert "Parameters 4 → 2: The schema describes 0 of 2 parameters" in worse.stdout, worse.stdout

    schema_only = run(tmp_path, "check", "--no-quality", *target())
    assert schema_only.returncode == 0, schema_only.stdout + schema_only.stderr
    assert "tool-description-changed" in schema_only.stdout and "Quality" not in schema_only.stdout


def test_check_without_a_baseline_is_a_usage_error(tmp_path: Path) -> None:
    result = run(tmp_path, "check", "--", sys.executable, "server.py")
    assert result.returncode == 2
    assert "mcpdex.lock.json: no baseline; write one with `mcpdex lock`" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.slow
def test_check_that_cannot_inspect_exits_2(tmp_path: Path) -> None:
    (tmp_path / "mcpdex.lock.json").write_text(json.dumps(make_snapshot()))
    result = run(tmp_path, "check", "--timeout", "5", "--", sys.executable, "-c", "import sys; sys.exit(3)")
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.startswith("mcpdex: error:") and "Traceback" not in result.stderr


REPO = Path(__file__).resolve().parents[2]


def _action_script() -> str:
    """The shell script of the `check` step of action.yml, as the runner would execute it."""
    text = (REPO / "action.yml").read_text(encoding="utf-8")
    block = text.split("      run: |\n", 1)[1]
    return "\n".join(line.removeprefix("        ") for line in block.splitlines())


@pytest.mark.slow
def test_the_github_action_script_gates_and_sets_its_outputs(tmp_path: Path) -> None:
    (tmp_path / "server.py").write_text(SERVER, encoding="utf-8")
    assert run(tmp_path, "lock", *target()).returncode == 0
    outputs, summary = tmp_path / "outputs.txt", tmp_path / "summary.md"
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "GITHUB_OUTPUT": str(outputs),
        "GITHUB_STEP_SUMMARY": str(summary),
        "MCPDEX_COMMAND": f"'{sys.executable}' server.py",
        "MCPDEX_BASELINE": "mcpdex.lock.json",
        "MCPDEX_FAIL_ON": "breaking",
        "MCPDEX_IGNORE": "",
        "MCPDEX_FORMAT": "github",
        "MCPDEX_ARGS": "--protocol-era legacy --env DEMO_SCHEMA=v2",
    }
    result = subprocess.run(
        ["bash", "-e", "-c", _action_script()],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "::error file=mcpdex.lock.json,title=mcpdex input-property-became-required" in result.stdout
    assert outputs.read_text(encoding="utf-8").splitlines() == ["exit-code=1", "passed=false"]
    assert "mcpdex check failed" in summary.read_text(encoding="utf-8")


def test_action_and_pre_commit_hook_only_use_options_check_has() -> None:
    from registry.commands.gate import check

    known = {opt for param in check.params for opt in getattr(param, "opts", [])}
    action = (REPO / "action.yml").read_text(encoding="utf-8")
    used = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]+)", _action_script()))
    assert used and used <= known, used - known
    assert "--bump-level" in known and "--bump-level" in action
    hooks = (REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    assert "entry: mcpdex check" in hooks and "entry: mcpdex lock" in hooks


def test_recording_a_checked_server_that_names_itself_nowhere_asks_for_against(tmp_path: Path) -> None:
    from registry.commands.gate import _record
    from registry.core.errors import UsageError

    nameless = make_snapshot(server={"version": "1.0.0"})
    with pytest.raises(UsageError, match="--against NAME"):
        _record(f"sqlite:///{tmp_path / 'registry.sqlite'}", None, nameless)
    assert not (tmp_path / "registry.sqlite").exists()  # refused before the registry is opened
