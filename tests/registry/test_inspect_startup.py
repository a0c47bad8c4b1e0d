"""A stdio server in the handshake era is listed without importing the SDK at all; where the SDK is
used, the server starts before it is imported, so its start-up and ``import mcp`` overlap. It gets
the same environment as the SDK's own stdio client would give it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from mcp.client.stdio import get_default_environment

from registry.inspecting.stdio import server_environment

SERVERS = Path(__file__).parent / "servers"

# `mcpdex inspect`, writing down in order when it imports the SDK and when it starts a process.
_INSPECT = """
import json, runpy, sys
events = []
def hook(event, args):
    if event == "import" and args[0] in ("mcp", "pydantic") and args[0] not in events:
        events.append(args[0])
    elif event == "subprocess.Popen":
        events.append([str(arg) for arg in args[1]])
sys.addaudithook(hook)
out, sys.argv = sys.argv[1], ["mcpdex", *sys.argv[2:]]
try:
    runpy.run_module("registry", run_name="__main__")
finally:
    open(out, "w").write(json.dumps(events))
"""


def _events(tmp_path: Path, *argv: str) -> list[object]:
    events = tmp_path / "events.json"
    result = subprocess.run(
        [sys.executable, "-c", _INSPECT, str(events), "inspect", "--format", "json", *argv],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["tools"], result.stdout
    order: list[object] = json.loads(events.read_text())
    return order


def test_a_stdio_server_in_the_handshake_era_is_listed_without_the_sdk(tmp_path: Path) -> None:
    server = [sys.executable, str(SERVERS / "notes_server.py")]
    # auto probes with server/discover first; the notes server answers it with an error, as a
    # handshake-era server does, and is listed without the SDK too.
    for era in ("legacy", "auto"):
        assert _events(tmp_path, "--protocol-era", era, "--", *server) == [server], era


def test_the_server_is_started_before_the_sdk_is_imported(tmp_path: Path) -> None:
    # The modern era is the SDK's to speak; our memory server speaks it.
    server = [sys.executable, "-m", "registry", "memory", "--db", str(tmp_path / "graph.db")]
    order = _events(tmp_path, "--protocol-era", "modern", "--", *server)
    assert server in order and "mcp" in order, order
    assert order.index(server) < order.index("mcp"), order


def test_a_server_inherits_what_the_sdk_stdio_client_passes_on(monkeypatch) -> None:
    monkeypatch.setenv("HOME", "/home/someone")
    monkeypatch.setenv("TERM", "() { :; }; echo shellshock")
    monkeypatch.setenv("MCPDEX_TEST_SECRET", "s3cret")
    monkeypatch.delenv("LOGNAME", raising=False)
    ours = server_environment()
    assert ours == get_default_environment()
    assert ours["HOME"] == "/home/someone" and ours["PATH"] == os.environ["PATH"]
    assert "TERM" not in ours and "MCPDEX_TEST_SECRET" not in ours and "LOGNAME" not in ours


def test_meanwhile_runs_once_in_its_own_thread_while_the_server_runs_and_ends_before_inspect_returns(
    tmp_path: Path,
) -> None:
    import threading
    import time

    from registry.inspecting import processes
    from registry.inspecting.inspect import inspect

    seen: list[tuple[str, bool, bool]] = []

    def meanwhile() -> None:
        server_running = bool(processes.running)
        time.sleep(0.3)  # longer than the notes server takes to answer: inspect must wait for it
        seen.append((threading.current_thread().name, server_running, True))

    server = [sys.executable, str(SERVERS / "notes_server.py")]
    for era in ("legacy", "modern"):
        seen.clear()
        argv = (
            server
            if era == "legacy"
            else [sys.executable, "-m", "registry", "memory", "--db", str(tmp_path / "g.db")]
        )
        snapshot = inspect(argv, protocol_era=era, meanwhile=meanwhile)
        assert snapshot["tools"]
        ((name, server_running, finished),) = seen
        assert name != threading.main_thread().name and server_running and finished, era
