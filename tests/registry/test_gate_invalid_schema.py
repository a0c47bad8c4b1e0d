"""A tool whose input schema was missing or invalid: scored Parameters 1 with the reason, and a server that
then declares the schema is never reported as a quality drop (real servers over stdio, real `mcpdex`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from registry.gating.policy import evaluate
from registry.inspecting.inspect import inspect
from scoring import score_snapshot

SERVERS = Path(__file__).parent / "servers"
MCPDEX = str(Path(sys.executable).with_name("mcpdex"))
DECLARED_LATER = ["--protocol-era", "legacy", "--", sys.executable, str(SERVERS / "schema_declared_later.py")]


def parameters_of(snapshot: dict) -> dict[str, dict]:
    return {card["name"]: card["dimensions"]["parameters"] for card in score_snapshot(snapshot)["tools"]}


def test_missing_or_invalid_input_schemas_score_parameters_1_with_the_reason() -> None:
    broken = inspect(
        [sys.executable, str(SERVERS / "invalid_input_schema.py")], timeout=10, protocol_era="legacy"
    )
    stamped = inspect(
        [sys.executable, str(SERVERS / "schema_declared_later.py")], timeout=10, protocol_era="legacy"
    )
    assert any(p["code"] == "invalid-tool" and p["where"] == "tools[0]" for p in stamped["problems"])
    scored = parameters_of(broken) | parameters_of(stamped)
    reasons = {
        "string_root": "inputSchema is type 'string'",
        "bad_json_schema": "at properties/n/type",
        "no_schema": "inputSchema is missing",
        "search_notes": "inputSchema is a schema without a type",  # only {"$schema": "…draft-07…"}
    }
    for name, reason in reasons.items():
        assert scored[name]["score"] == 1, (name, scored[name])
        assert (
            reason in scored[name]["justification"]
            and "Takes no parameters" not in scored[name]["justification"]
        )
    # A declared object schema without properties still takes no parameters.
    assert (
        scored["good_before"]["score"] >= 4
        and "Takes no parameters" in scored["good_before"]["justification"]
    )
    assert scored["list_notes"]["score"] >= 4


def mcpdex(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k != "GITHUB_STEP_SUMMARY"}
    return subprocess.run(
        [MCPDEX, *args], cwd=cwd, env=environment, capture_output=True, text=True, timeout=120
    )


@pytest.mark.slow
def test_check_reports_no_quality_drop_when_the_old_schema_was_invalid(tmp_path: Path) -> None:
    locked = mcpdex(tmp_path, "lock", *DECLARED_LATER)
    assert locked.returncode == 0, locked.stderr
    declared = [*DECLARED_LATER, "--declared"]
    checked = mcpdex(tmp_path, "check", "--format", "json", *declared)
    report = json.loads(checked.stdout)
    quality = [change for change in report["changes"] if change["area"] == "quality"]
    assert quality == [], quality
    # What keeps a tool's drop out is its invalid old schema: the new version with a shorter description
    # is not reported against the recorded one, and it is against the same old version with its schema
    # valid.
    old, new = (
        inspect(argv, timeout=10, protocol_era="legacy") for argv in (DECLARED_LATER[3:], declared[3:])
    )
    shorter = {**new, "tools": [{**new["tools"][0], "description": "Search notes."}, *new["tools"][1:]]}
    kept = [c["rule"] for c in evaluate(old, shorter, quality=True)["changes"] if c["tool"] == "search_notes"]
    assert "tool-quality-dropped" not in kept and "tool-score-dropped" not in kept, kept
    valid_old = {
        **old,
        "tools": [{**old["tools"][0], "inputSchema": new["tools"][0]["inputSchema"]}, *old["tools"][1:]],
    }
    dropped = [
        c["rule"] for c in evaluate(valid_old, shorter, quality=True)["changes"] if c["area"] == "quality"
    ]
    assert "tool-quality-dropped" in dropped, dropped
