"""`mcpdex inspect`'s text summary of a real stdio server: scores with reasons, and what changed since the
registry's latest version."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

from scoring import score_snapshot

NOTES = [
    "--protocol-era",
    "legacy",
    "--",
    sys.executable,
    str(Path(__file__).parent / "servers" / "notes_server.py"),
]
LIMIT_REQUIRED = ["--env", "NOTES_LIMIT_REQUIRED=1"]


def mcpdex(*args: str, data_dir: Path) -> subprocess.CompletedProcess:
    """``mcpdex ARGS`` whose default registry lives in ``data_dir`` (MCPDEX_REGISTRY unset)."""
    env = {key: value for key, value in os.environ.items() if key != "MCPDEX_REGISTRY"}
    env["MCPDEX_DATA_DIR"] = str(data_dir)
    return subprocess.run(
        [sys.executable, "-m", "registry", *args], capture_output=True, text=True, timeout=60, env=env
    )


def inspect(*args: str, data_dir: Path) -> subprocess.CompletedProcess:
    result = mcpdex("inspect", *args, *NOTES, data_dir=data_dir)
    assert result.returncode == 0, result.stderr
    return result


def lines_after(stdout: str, heading: str) -> list[str]:
    """The indented lines that follow the line starting with ``heading``."""
    lines = stdout.splitlines()
    start = next(index for index, line in enumerate(lines) if line.startswith(heading))
    block = []
    for line in lines[start + 1 :]:
        if not line.startswith("  "):
            break
        block.append(line.strip())
    return block


def test_each_tool_shows_its_score_and_each_tool_below_tier_a_its_weakest_dimension(tmp_path):
    out = tmp_path / "notes.json"
    result = inspect("--out", str(out), data_dir=tmp_path / "data")
    scorecard = score_snapshot(json.loads(out.read_text(encoding="utf-8")))
    rows = {line.split()[0]: line.split() for line in result.stdout.splitlines() if "│" in line}
    for card in scorecard["tools"]:
        assert rows[card["name"]][-2:] == [card["tier"], f"{card['total']:.1f}"]
    roll_up = scorecard["server_score"]
    assert (
        f"\nserver: overall {roll_up['overall']:.1f} {roll_up['tier']}  description quality" in result.stdout
    )
    below = [card for card in scorecard["tools"] if card["tier"] != "A"]
    assert {card["name"] for card in below} == {"delete_note", "tag_note"}  # the server's design
    listed = lines_after(result.stdout, "To improve")
    assert len(listed) == len(below)
    for card in below:
        (line,) = [
            line
            for line in listed
            if line.startswith(f"{card['name']} {card['tier']} {card['total']:.1f} · ")
        ]
        lowest = min(entry["score"] for entry in card["dimensions"].values())
        assert any(
            line.endswith(f"· {entry['label']} {lowest}: {entry['justification']}")
            for entry in card["dimensions"].values()
            if entry["score"] == lowest
        ), line
    assert "`mcpdex score` with the same target gives every dimension" in result.stdout
    assert result.stderr == f"wrote {out}\n"


def test_the_to_improve_list_is_cut_short_and_says_how_many_tools_it_left_out(tmp_path):
    out = tmp_path / "notes.json"
    result = inspect("--out", str(out), "--env", "NOTES_EXTRA_TOOLS=12", data_dir=tmp_path / "data")
    below = [card for card in score_snapshot(json.loads(out.read_text()))["tools"] if card["tier"] != "A"]
    listed = lines_after(result.stdout, "To improve")
    assert len(below) == 14 and len(listed) == 9
    assert listed[-1] == "and 6 more"


def test_a_second_save_reports_what_changed_since_the_version_saved_before_it(tmp_path):
    data = tmp_path / "data"
    first = inspect("--save", data_dir=data)
    assert "first version of notes in the registry" in first.stderr
    assert "since" not in first.stdout
    second = inspect("--save", *LIMIT_REQUIRED, data_dir=data)
    saved = second.stderr.splitlines()[0]
    assert saved.startswith("saved notes@0.0.1+") and "(new version" in saved
    new_label = saved.split()[1].removeprefix("notes@")
    heading = next(line for line in second.stdout.splitlines() if line.startswith("since "))
    assert heading.startswith("since notes@0.0.1 (last seen ")
    assert heading.endswith(" UTC): 3 changes: 1 breaking, 2 warnings, 0 info")
    changes = lines_after(second.stdout, "since ")
    assert changes[0] == (
        "BREAKING  search_notes: input property `limit` is now required; calls that omit it are rejected. "
        'This call was valid before and is rejected now: {"query": ""} (input-property-became-required)'
    )
    assert {line.split()[0] for line in changes[1:]} == {"WARNING"}
    pointer = f"`mcpdex diff notes@0.0.1 notes@{new_label}` lists every change in full"
    assert pointer in second.stdout
    diffed = mcpdex("diff", "notes@0.0.1", f"notes@{new_label}", data_dir=data)
    assert diffed.stdout.splitlines()[-1] == "3 changes: 1 breaking, 2 warnings, 0 info"
    # Saved again unchanged: compared with the version recorded before this save, not the one it wrote.
    third = inspect("--save", *LIMIT_REQUIRED, data_dir=data)
    assert f"\nno changes since notes@{new_label} (last seen " in third.stdout
    assert "first version" not in third.stderr


def test_changes_are_listed_most_severe_first_and_cut_short(tmp_path):
    data = tmp_path / "data"
    inspect("--save", data_dir=data)
    result = inspect("--env", "NOTES_EXTRA_TOOLS=12", *LIMIT_REQUIRED, data_dir=data)
    changes = lines_after(result.stdout, "since ")
    levels = [line.split()[0] for line in changes[:-1]]
    assert len(levels) == 10 and levels[:3] == ["BREAKING", "WARNING", "WARNING"]
    assert set(levels[3:]) == {"INFO"} and changes[-1] == "and 5 more"  # 12 tools added, 3 above


def test_without_save_the_default_registry_is_read_but_never_created(tmp_path):
    missing = tmp_path / "no-data-dir"
    plain = inspect(data_dir=missing)
    assert not missing.exists() and plain.stderr == ""
    database = tmp_path / "absent" / "registry.sqlite"
    inspect("--registry", f"sqlite:///{database}", data_dir=missing)
    assert not database.parent.exists() and not missing.exists()
    data = tmp_path / "data"
    inspect("--save", data_dir=data)
    again = inspect(*LIMIT_REQUIRED, data_dir=data)
    assert "\nsince notes@0.0.1 (last seen " in again.stdout
    assert "`mcpdex diff notes@0.0.1 NEW.json` lists every change in full (write NEW.json with --out)" in (
        again.stdout
    )


def test_commands_that_read_the_default_registry_leave_no_folder_behind(tmp_path):
    missing = tmp_path / "no-data-dir"
    assert mcpdex("versions", "--all", data_dir=missing).returncode == 0
    unknown = mcpdex("changelog", "notes", data_dir=missing)
    assert unknown.returncode == 2 and "is not in the registry" in unknown.stderr
    assert not missing.exists()
    inspect("--save", data_dir=missing)  # the first write makes the folder and the file
    assert (missing / "registry.sqlite").is_file()


def test_json_format_prints_only_the_snapshot(tmp_path):
    data = tmp_path / "data"
    inspect("--save", data_dir=data)
    out = tmp_path / "notes.json"
    result = inspect("--format", "json", "--out", str(out), *LIMIT_REQUIRED, data_dir=data)
    assert result.stdout == out.read_text(encoding="utf-8")
    assert json.loads(result.stdout)["server"]["name"] == "notes"
    assert result.stderr == f"wrote {out}\n"


def test_a_registry_that_cannot_be_read_is_one_warning_and_the_inspection_succeeds(tmp_path):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    not_sqlite = tmp_path / "notes.txt"
    not_sqlite.write_text("not a database\n" * 100)
    for url in (f"http://127.0.0.1:{port}", "nosuch://registry", f"sqlite:///{not_sqlite}"):
        result = inspect("--registry", url, data_dir=tmp_path / "data")
        (warning,) = result.stderr.splitlines()
        assert warning.startswith("mcpdex: warning: ") and warning.endswith("; not showing what changed")
        assert "To improve" in result.stdout and "since" not in result.stdout


def test_a_service_registry_that_never_answers_holds_the_summary_up_for_seconds_only(tmp_path):
    # Accepts the connection and reads the request, then says nothing: the client's 30 s request
    # timeout would apply without the summary's own deadline.
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        started = time.monotonic()
        result = inspect("--registry", f"http://127.0.0.1:{port}", data_dir=tmp_path / "data")
        elapsed = time.monotonic() - started
    (warning,) = result.stderr.splitlines()
    assert "timed out" in warning and warning.endswith("; not showing what changed")
    assert "To improve" in result.stdout
    assert elapsed < 25, elapsed


def test_an_older_release_saved_after_a_newer_one_is_summarised_in_release_order(tmp_path):
    data = tmp_path / "data"
    inspect("--save", "--version-label", "2.0.0", *LIMIT_REQUIRED, data_dir=data)
    older = inspect("--save", "--version-label", "1.0.0", data_dir=data)
    assert "since notes@2.0.0" not in older.stdout
    heading = next(line for line in older.stdout.splitlines() if line.startswith("from this release"))
    assert heading.startswith("from this release to the later notes@2.0.0 (last seen ")
    # 1.0.0 → 2.0.0, as released: `limit` became required (not "optional" since a newer release)
    changes = lines_after(older.stdout, "from this release")
    assert changes[0].startswith("BREAKING  search_notes: input property `limit` is now required")
    assert "`mcpdex diff notes@1.0.0 notes@2.0.0` lists every change in full" in older.stdout


def test_a_version_label_given_to_an_unchanged_digest_names_the_stored_version(tmp_path):
    data = tmp_path / "data"
    inspect("--save", data_dir=data)
    again = inspect("--save", "--version-label", "2025.4.25", data_dir=data)
    assert "saved notes@0.0.1 (unchanged; 2025.4.25 names it too" in again.stderr.splitlines()[0]
    shown = mcpdex("show", "notes@2025.4.25", data_dir=data)
    assert shown.returncode == 0, shown.stderr
    diffed = mcpdex("diff", "notes@0.0.1", "notes@2025.4.25", data_dir=data)
    assert (
        diffed.returncode == 0
        and diffed.stdout.splitlines()[-1] == "0 changes: 0 breaking, 0 warnings, 0 info"
    )
