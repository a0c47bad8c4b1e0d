"""Deliberately broken servers: each inspection ends within its deadline, with a snapshot or one reason."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from registry.core.errors import InspectionError
from registry.inspecting.inspect import inspect

SERVERS = Path(__file__).parent / "servers"


def argv(script: str) -> list[str]:
    return [sys.executable, str(SERVERS / script)]


def mcpdex(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "registry", *args], capture_output=True, text=True, timeout=timeout
    )


@pytest.mark.slow
def test_server_that_hangs_before_answering_fails_within_the_deadline():
    started = time.perf_counter()
    with pytest.raises(InspectionError) as failure:
        inspect(argv("hangs_before_answering.py"), timeout=6, protocol_era="legacy")
    elapsed = time.perf_counter() - started
    assert elapsed < 6.3, f"took {elapsed:.1f} s for a 6 s deadline"
    assert "within the 6 s deadline (before answering the handshake)" in str(failure.value)


@pytest.mark.slow
def test_hanging_server_in_auto_era_also_respects_the_deadline():
    started = time.perf_counter()
    with pytest.raises(InspectionError):
        inspect(argv("hangs_before_answering.py"), timeout=6, protocol_era="auto")
    assert time.perf_counter() - started < 6.3


def test_server_exiting_mid_listing_fails_with_its_stderr_shown():
    result = mcpdex(
        "inspect", "--protocol-era", "legacy", "--timeout", "10", "--", *argv("exits_mid_listing.py")
    )
    assert result.returncode == 2
    first, *rest = result.stderr.strip().splitlines()
    assert first.startswith("mcpdex: error: ") and "closed the connection" in first
    assert "lost the database connection while listing" in "\n".join(rest)
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_junk_on_stdout_is_a_problem_not_a_failure():
    snapshot = inspect(argv("junk_on_stdout.py"), timeout=10, protocol_era="legacy")
    assert [t["name"] for t in snapshot["tools"]] == ["ok_one", "ok_two"]
    (problem,) = [p for p in snapshot["problems"] if p["code"] == "non-protocol-output"]
    assert problem["where"] == "stdout" and "[info] handling" in problem["message"]


def test_invalid_tools_are_recorded_raw_with_problems_and_do_not_lose_the_others():
    snapshot = inspect(argv("invalid_input_schema.py"), timeout=10, protocol_era="legacy")
    tools = {t["name"]: t for t in snapshot["tools"]}
    assert list(tools) == ["good_before", "string_root", "bad_json_schema", "no_schema", "good_after"]
    assert tools["good_before"]["x-vendor"] == {"team": "a"}  # vendor fields kept as sent
    assert tools["string_root"]["inputSchema"] == {"type": "string"}
    problems = {(p["code"], p["where"]) for p in snapshot["problems"]}
    assert ("invalid-tool", "tools[1]") in problems
    assert ("invalid-tool", "tools[3]") in problems
    assert ("invalid-json-schema", "tools[2].inputSchema") in problems
    assert not any(p["where"] in ("tools[0]", "tools[4]") for p in snapshot["problems"])


@pytest.mark.slow
def test_five_thousand_tools_over_a_hundred_pages_are_all_recorded():
    snapshot = inspect(argv("five_thousand_tools.py"), timeout=60, protocol_era="legacy")
    names = [t["name"] for t in snapshot["tools"]]
    assert len(names) == 5000 and names[0] == "tool_0000" and names[-1] == "tool_4999"
    assert len(set(names)) == 5000 and snapshot["problems"] == []


def test_megabyte_description_is_kept_whole():
    snapshot = inspect(argv("megabyte_description.py"), timeout=15, protocol_era="legacy")
    huge = next(t for t in snapshot["tools"] if t["name"] == "huge")
    assert len(huge["description"]) == 1024 * 1024
    assert [t["name"] for t in snapshot["tools"]] == ["huge", "small"]


@pytest.mark.slow
def test_server_that_never_exits_is_killed_and_reaped():
    started = time.perf_counter()
    result = mcpdex(
        "inspect",
        "--protocol-era",
        "legacy",
        "--timeout",
        "20",
        "--format",
        "json",
        "--",
        *argv("never_exits.py"),
    )
    elapsed = time.perf_counter() - started
    assert result.returncode == 0, result.stderr
    assert '"still_here"' in result.stdout
    assert elapsed < 20
    leftover = subprocess.run(
        ["pgrep", "-f", str(SERVERS / "never_exits.py")], capture_output=True, text=True
    )
    assert leftover.stdout.strip() == "", "the server outlived the inspection"


def _running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie left for init to reap counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("script", "era"),
    [
        ("never_exits.py", "legacy"),
        ("hangs_before_answering.py", "legacy"),
        ("hangs_before_answering.py", "auto"),
    ],
)
def test_short_deadline_holds_and_leaves_no_process_behind(tmp_path, script, era):
    # The server runs behind a shell that also starts a child in the server's process group, as
    # npx and shell wrappers do; both pids are written down to check afterwards.
    pids = tmp_path / "pids"
    launcher = 'echo $$ > "$0"; sleep 300 & echo $! >> "$0"; exec "$@"'
    started = time.perf_counter()
    try:
        inspect(["sh", "-c", launcher, str(pids), *argv(script)], timeout=3, protocol_era=era)
    except InspectionError as failure:
        assert "within the 3 s deadline" in str(failure)
    elapsed = time.perf_counter() - started
    assert elapsed < 3 + 1.5, f"took {elapsed:.1f} s for a 3 s deadline"
    server, child = (int(pid) for pid in pids.read_text().split())
    # The server is our own child: reaped, so not even a zombie is left.
    assert not Path(f"/proc/{server}").exists(), "the server outlived the inspection"
    # SIGKILL is delivered asynchronously: give the kernel a moment to finish the grandchild off.
    deadline = time.monotonic() + 2
    while _running(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _running(child), "a process the server started outlived the inspection"


def test_invalid_utf8_is_replaced_and_reported():
    snapshot = inspect(argv("invalid_utf8.py"), timeout=10, protocol_era="legacy")
    tools = {t["name"]: t for t in snapshot["tools"]}
    assert set(tools) == {"latin1", "plain"}
    assert "\ufffd" in tools["latin1"]["description"]
    assert any(p["code"] == "invalid-utf8" for p in snapshot["problems"])


def test_missing_command_is_one_line_and_exit_code_2():
    result = mcpdex("inspect", "--", "no-such-mcp-server-binary", "--flag")
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "mcpdex: error: no-such-mcp-server-binary --flag: command 'no-such-mcp-server-binary' not found; "
        "check the command and PATH"
    )


def test_nothing_listening_on_the_url_is_exit_code_2():
    result = mcpdex("inspect", "http://127.0.0.1:9/mcp", "--timeout", "5")
    assert result.returncode == 2
    assert "cannot connect" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_url_that_is_not_an_mcp_endpoint_is_one_line(tmp_path):
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    web = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(tmp_path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(100):
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        for args in (
            [f"http://127.0.0.1:{port}/mcp"],
            [f"http://127.0.0.1:{port}/sse", "--transport", "sse"],
        ):
            result = mcpdex("inspect", *args, "--timeout", "10")
            assert result.returncode == 2
            (line,) = result.stderr.strip().splitlines()
            assert line.endswith("check the URL, --transport and --header"), line
    finally:
        web.terminate()
        web.wait(timeout=10)


def test_failed_inspection_is_saved_under_the_given_name(tmp_path):
    from registry.storage.store import open_store

    registry = f"sqlite:///{tmp_path / 'r.sqlite'}"
    result = mcpdex(
        "inspect", "--save", "--name", "ghost", "--registry", registry, "--", str(tmp_path / "nope")
    )
    assert result.returncode == 2
    with open_store(registry) as store:
        (inspection,) = store.inspections("ghost")
    assert not inspection.ok and "not found" in inspection.error


def test_list_methods_answered_method_not_found_mean_none_not_a_problem():
    snapshot = inspect(argv("resources_without_templates.py"), timeout=10, protocol_era="legacy")
    assert [r["name"] for r in snapshot["resources"]] == ["readme"]
    assert snapshot["resourceTemplates"] == [] and snapshot["prompts"] == []
    assert snapshot["problems"] == []


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc (Linux)")
def test_grandchildren_that_call_setsid_do_not_outlive_the_inspection(tmp_path):
    pid_file = tmp_path / "grandchild.pid"
    result = mcpdex(
        "inspect",
        "--protocol-era",
        "legacy",
        "--timeout",
        "20",
        "--",
        *argv("setsid_grandchild.py"),
        str(pid_file),
    )
    assert result.returncode == 0, result.stderr
    pids = []
    for path in (pid_file, Path(f"{pid_file}.2")):
        deadline = time.monotonic() + 5
        while not path.exists() or not path.read_text():
            assert time.monotonic() < deadline, f"{path.name} was never written"
            time.sleep(0.05)
        pids.append(int(path.read_text()))
    try:
        deadline = time.monotonic() + 2
        while any(_running(pid) for pid in pids) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [pid for pid in pids if _running(pid)] == []
    finally:
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def test_auto_era_restarts_a_server_that_exits_on_the_probe_and_uses_the_handshake():
    started = time.perf_counter()
    snapshot = inspect(argv("exits_on_discover.py"), timeout=20, protocol_era="auto")
    assert time.perf_counter() - started < 10
    assert [t["name"] for t in snapshot["tools"]] == ["still_here"]
    assert snapshot["source"]["protocolEra"] == "legacy" and snapshot["source"]["requestedEra"] == "auto"
    assert snapshot["problems"][0]["code"] == "discover-crashed"


def test_auto_era_without_a_probe_to_blame_does_not_restart(tmp_path):
    # The server crashes on the second tools/list page: a failure after the handshake is reported as is.
    result = mcpdex("inspect", "--timeout", "20", "--", *argv("exits_mid_listing.py"))
    assert result.returncode == 2 and "closed the connection" in result.stderr
    assert result.stderr.count("lost the database connection while listing") == 1


def test_a_schema_nested_past_the_parsers_limit_is_kept_cut_with_problems_not_waited_out():
    """The SDK's parser refuses JSON nested past its recursion limit; the answer used to be dropped as
    junk, and the inspection waited out its whole deadline for a page the server had sent."""
    started = time.perf_counter()
    snapshot = inspect(argv("deeply_nested_schema.py"), timeout=20, protocol_era="legacy")
    assert time.perf_counter() - started < 10
    assert [t["name"] for t in snapshot["tools"]] == ["deep", "flat"]
    assert "nested deeper than" in str(snapshot["tools"][0]["inputSchema"])
    assert {"over-limit", "invalid-json-schema"} <= {p["code"] for p in snapshot["problems"]}


def test_a_lone_surrogate_escape_is_replaced_and_recorded_not_waited_out():
    """The SDK's parser refuses a lone surrogate escape, which JSON allows; the whole page was dropped
    and the inspection waited out its deadline."""
    started = time.perf_counter()
    snapshot = inspect(argv("lone_surrogate.py"), timeout=20, protocol_era="legacy")
    assert time.perf_counter() - started < 10
    assert [t["name"] for t in snapshot["tools"]] == ["odd", "plain"]
    assert "\ud800" not in snapshot["tools"][0]["description"]
    assert "\ufffd" in snapshot["tools"][0]["description"]
    assert "invalid-utf8" in {p["code"] for p in snapshot["problems"]}
