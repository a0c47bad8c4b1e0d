"""`inspect --timeout` bounds the whole run, and the per-server limits bound what an inspection takes in.

Real stdio servers from tests/registry/servers: one that pages forever with fresh cursors, one that
sends a 50 MB tool list on one line, 5,000 tools over 100 pages, a 1 MB description.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from registry.core.limits import Limits
from registry.inspecting.inspect import inspect
from registry.inspecting.targets import Target

SERVERS = Path(__file__).parent / "servers"


def argv(script: str) -> list[str]:
    return [sys.executable, str(SERVERS / script)]


def problem(snapshot: dict, code: str) -> dict:
    (found,) = [p for p in snapshot["problems"] if p["code"] == code]
    return found


def test_a_server_that_pages_forever_stops_at_the_item_limit_with_a_problem() -> None:
    snapshot = inspect(
        argv("pages_forever.py"), timeout=60, protocol_era="legacy", limits=Limits(max_tools=500)
    )
    assert len(snapshot["tools"]) == 500
    found = problem(snapshot, "over-limit")
    assert found["where"] == "tools/list" and "stopped at 500 tools" in found["message"]
    assert "--max-tools" in found["message"] and "MCPDEX_MAX_TOOLS" in found["message"]


def test_a_server_that_pages_forever_stops_at_the_deadline_with_a_problem() -> None:
    started = time.perf_counter()
    # 10 ms a page: the deadline comes before the page limit (1,000 pages) however fast the machine.
    server = Target(transport="stdio", argv=argv("pages_forever.py"), env={"PAGE_DELAY_S": "0.01"})
    snapshot = inspect(server, timeout=5, protocol_era="legacy", limits=Limits(max_tools=10**9))
    elapsed = time.perf_counter() - started
    assert elapsed < 5.5, f"took {elapsed:.1f} s for a 5 s deadline"
    found = problem(snapshot, "listing-deadline")
    assert "at the --timeout deadline" in found["message"] and snapshot["tools"]


def test_a_fifty_megabyte_tool_list_is_read_in_linear_time_and_cut_at_the_tool_limit() -> None:
    started = time.perf_counter()
    snapshot = inspect(argv("fifty_megabyte_list.py"), timeout=60, protocol_era="legacy")
    elapsed = time.perf_counter() - started
    # Splitting the whole buffer on each 64 KiB chunk cost 30 s for this line alone.
    assert elapsed < 30, f"took {elapsed:.1f} s"
    assert len(snapshot["tools"]) == 10_000 and snapshot["tools"][-1]["name"] == "tool_09999"
    assert "stopped at 10,000 tools (page 1)" in problem(snapshot, "over-limit")["message"]


def test_a_fifty_megabyte_tool_list_respects_a_short_timeout() -> None:
    started = time.perf_counter()
    try:
        snapshot = inspect(argv("fifty_megabyte_list.py"), timeout=4, protocol_era="legacy")
    except Exception as exc:  # an InspectionError naming the deadline is a fine end too
        assert "within the 4 s deadline" in str(exc)
    else:
        assert snapshot["tools"]
    elapsed = time.perf_counter() - started
    # One 50 MB message is parsed in one go (about 2 s here): the deadline is kept to that step.
    assert elapsed < 4 + 2.5, f"took {elapsed:.1f} s for a 4 s deadline"


def test_descriptions_and_schemas_past_a_limit_are_recorded_as_problems() -> None:
    snapshot = inspect(argv("megabyte_description.py"), timeout=15, protocol_era="legacy")
    huge = next(t for t in snapshot["tools"] if t["name"] == "huge")
    assert len(huge["description"]) == 1024 * 1024  # kept as sent
    found = problem(snapshot, "over-limit")
    assert found["where"] == "/tools/0/description"
    assert "1,048,576 characters" in found["message"] and "--max-description-chars" in found["message"]
    raised = inspect(
        argv("megabyte_description.py"),
        timeout=15,
        protocol_era="legacy",
        limits=Limits(max_description_chars=2**21),
    )
    assert not [p for p in raised["problems"] if p["code"] == "over-limit"]
    tight = inspect(
        argv("megabyte_description.py"), timeout=15, protocol_era="legacy", limits=Limits(max_schema_bytes=10)
    )
    found = [p for p in tight["problems"] if p["code"] == "over-limit"]
    assert [p["where"] for p in found] == ["/tools/0/description", "/tools/0/inputSchema"]
    assert found[1]["message"].startswith("/tools/0/inputSchema has 17 bytes")


def mcpdex_env(**extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("MCPDEX_")}
    return env | extra


def run_until_last_byte(args: list[str], env: dict[str, str]) -> tuple[float, str, str, int]:
    """Run ``mcpdex ARGS``; the seconds from start to the last byte on stdout, stdout, stderr, exit code."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "registry", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    assert process.stdout is not None and process.stderr is not None
    chunks, last = [], started
    while chunk := process.stdout.read1(65536):
        chunks.append(chunk)
        last = time.perf_counter()
    stderr = process.stderr.read().decode()
    process.wait(timeout=120)
    return last - started, b"".join(chunks).decode(), stderr, process.returncode


@pytest.mark.slow
def test_the_text_summary_of_a_huge_server_ends_by_the_timeout_and_says_what_it_left_out(tmp_path) -> None:
    timeout = 15
    args = ["inspect", "--timeout", str(timeout), "--protocol-era", "legacy", "--", *argv("pages_forever.py")]
    took, stdout, stderr, code = run_until_last_byte(args, mcpdex_env(MCPDEX_DATA_DIR=str(tmp_path)))
    assert code == 0, stderr
    # The deadline starts once the command runs; the interpreter's start-up (about a second) comes before.
    assert took < timeout + 2, f"the last byte came {took:.1f} s after start for a {timeout} s --timeout"
    assert "and 9,900 more tools; `--format json` has them all" in stdout
    assert "problem over-limit at tools/list: stopped at 10,000 tools" in stdout
    # Scoring 10,000 tools fits in the time left (a score column), or the summary says it was left out.
    header = next(line for line in stdout.splitlines() if line.startswith("tool "))
    left_out = f"scores not shown: judging the tools did not finish within the {timeout} s --timeout"
    assert left_out in stdout or header.rstrip().endswith("score")


def test_the_limit_options_and_environment_apply_to_inspect(tmp_path) -> None:
    base = ["inspect", "--timeout", "60", "--protocol-era", "legacy", "--format", "json"]
    env = mcpdex_env(MCPDEX_DATA_DIR=str(tmp_path))

    def run(*options: str, **variables: str) -> subprocess.CompletedProcess[str]:
        args = [*base, *options, "--", *argv("five_thousand_tools.py")]
        command = [sys.executable, "-m", "registry", *args]
        return subprocess.run(command, capture_output=True, text=True, env=env | variables, timeout=120)

    by_option = run("--max-tools", "120")
    assert by_option.returncode == 0, by_option.stderr
    assert len(json.loads(by_option.stdout)["tools"]) == 120
    assert len(json.loads(run(MCPDEX_MAX_TOOLS="75").stdout)["tools"]) == 75
    wrong = run(MCPDEX_MAX_TOOLS="lots")
    assert wrong.returncode == 2 and "MCPDEX_MAX_TOOLS='lots' must be a positive integer" in wrong.stderr
    assert "Traceback" not in wrong.stderr
