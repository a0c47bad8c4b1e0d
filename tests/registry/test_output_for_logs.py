"""What the commands write where no terminal reads it (a pipe, a file, a CI log): tables as wide as
their values, never cut; colour only when asked for; and a clean stop of the service says nothing
but that it stopped."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.registry.conftest import free_port

SERVERS = Path(__file__).parent / "servers"
LONG_NAME = "create-relations-unknown-endpoint-server-with-a-long-name"


def mcpdex(*args: str, env: dict[str, str] | None = None, **options) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "NO_COLOR", "FORCE_COLOR")}
    return subprocess.run(
        [sys.executable, "-m", "registry", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=environment | (env or {}),
        **options,
    )


def saved_registry(tmp_path: Path) -> dict[str, str]:
    env = {"MCPDEX_REGISTRY": f"sqlite:///{tmp_path / 'registry.sqlite'}"}
    notes = [sys.executable, str(SERVERS / "notes_server.py")]
    result = mcpdex(
        "inspect", "--save", "--name", LONG_NAME, "--out", str(tmp_path / "a.json"), "--", *notes, env=env
    )
    assert result.returncode == 0, result.stderr
    return env


def test_tables_in_a_pipe_show_every_value_whole(tmp_path: Path) -> None:
    env = saved_registry(tmp_path)
    listing = mcpdex("versions", "--all", env=env)
    assert listing.returncode == 0, listing.stderr
    row = next(line for line in listing.stdout.splitlines() if LONG_NAME in line)
    assert "…" not in listing.stdout
    # The whole timestamp of the last inspection, not "2026-12-02T03:52:…".
    cells = [cell.strip() for cell in row.split("│")]
    assert cells[0] == LONG_NAME and re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", cells[3]), row
    # What a user sets is still honoured.
    narrow = mcpdex("versions", "--all", env=env | {"COLUMNS": "40"})
    assert LONG_NAME not in narrow.stdout and "…" in narrow.stdout


def test_the_crawl_summary_in_a_pipe_shows_long_entry_names_whole(tmp_path: Path) -> None:
    config = tmp_path / "servers.json"
    notes = {"command": sys.executable, "args": [str(SERVERS / "notes_server.py")]}
    config.write_text(json.dumps({"mcpServers": {LONG_NAME: notes}}))
    result = mcpdex("crawl", str(config))
    assert result.returncode == 0, result.stderr
    row = next(line for line in result.stdout.splitlines() if LONG_NAME in line)
    assert "…" not in result.stdout and "ok" in row


def test_colour_only_on_a_terminal_or_when_forced_and_never_with_no_color(tmp_path: Path) -> None:
    env = saved_registry(tmp_path)
    before = tmp_path / "a.json"
    snapshot = json.loads(before.read_text())
    snapshot["tools"] = snapshot["tools"][1:]
    after = tmp_path / "b.json"
    after.write_text(json.dumps(snapshot))
    plain = mcpdex("diff", str(before), str(after), env=env)
    forced = mcpdex("diff", str(before), str(after), env=env | {"FORCE_COLOR": "1"})
    refused = mcpdex("diff", str(before), str(after), env=env | {"FORCE_COLOR": "1", "NO_COLOR": "1"})
    assert "BREAKING" in plain.stdout and "\x1b[" not in plain.stdout
    assert "\x1b[31m" in forced.stdout
    assert refused.stdout == plain.stdout


def test_stopping_the_service_with_ctrl_c_prints_no_warning_or_traceback(tmp_path: Path) -> None:
    env = saved_registry(tmp_path)
    # A version with no stored score, so the service starts its scoring child for it.
    with sqlite3.connect(tmp_path / "registry.sqlite") as db:
        db.execute("DELETE FROM scores")
    port = free_port()
    environment = {k: v for k, v in os.environ.items() if k != "NO_COLOR"} | env
    service = subprocess.Popen(
        [sys.executable, "-m", "registry", "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
        start_new_session=True,  # Ctrl-C reaches the whole process group, as in a terminal
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with sqlite3.connect(tmp_path / "registry.sqlite") as db:
                if db.execute("SELECT count(*) FROM scores").fetchone()[0]:
                    break
            time.sleep(0.2)
        else:
            raise AssertionError("the service never scored the version")
        assert httpx.get(f"http://127.0.0.1:{port}/api/servers", timeout=10).status_code == 200
        os.killpg(service.pid, signal.SIGINT)
        _, stderr = service.communicate(timeout=30)
    finally:
        if service.poll() is None:
            os.killpg(service.pid, signal.SIGKILL)
    assert service.returncode == 0, stderr
    assert "Finished server process" in stderr
    for word in ("Traceback", "KeyboardInterrupt", "leaked", "Warning"):
        assert word not in stderr, stderr
