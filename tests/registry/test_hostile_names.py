"""Names and text a server chooses are shown, never obeyed: terminals, registry names and pages."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from registry.core.names import server_name_problem
from registry.core.snapshot import dump_snapshot, load_snapshot
from registry.diffing.changelog import render_changelog
from registry.gating.formats import render_report
from registry.gating.policy import evaluate
from tests.conftest import make_snapshot

SERVERS = Path(__file__).parent / "servers"
HOSTILE = [sys.executable, str(SERVERS / "hostile_names.py")]
# What a terminal would obey: escape, NUL, BEL, carriage return, DEL, CSI.
OBEYED = ("\x1b", "\x00", "\x07", "\r", "\x7f", "\x9b")


def mcpdex(*args: str, tmp_path: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "registry", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ | {"MCPDEX_DATA_DIR": str(tmp_path / "data")} | (env or {}),
    )


def assert_inert(text: str) -> None:
    assert not [ch for ch in OBEYED if ch in text], repr(text)


def hostile_snapshot(version: str, description: str) -> dict:
    return make_snapshot(
        {"name": "paint\x1b[31mred", "description": description, "inputSchema": {"type": "object"}},
        name="evil\x1b[2J",
        version=version,
    )


def test_inspect_text_shows_escape_sequences_as_text(tmp_path: Path) -> None:
    result = mcpdex("inspect", "--protocol-era", "legacy", "--", *HOSTILE, tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    assert_inert(result.stdout + result.stderr)
    assert "../../../evil\\x1b[2J" in result.stdout and "paint\\x1b[31mred" in result.stdout


def test_inspect_save_refuses_a_server_chosen_name_the_service_would_refuse(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'r.sqlite'}"
    result = mcpdex(
        "inspect", "--save", "--registry", url, "--protocol-era", "legacy", "--", *HOSTILE, tmp_path=tmp_path
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert "is not allowed" in line and "--name" in line
    assert_inert(line)
    assert not (tmp_path / "r.sqlite").exists()
    named = mcpdex(
        "inspect",
        "--save",
        "--registry",
        url,
        "--name",
        "evil",
        "--protocol-era",
        "legacy",
        "--",
        *HOSTILE,
        tmp_path=tmp_path,
    )
    assert named.returncode == 0, named.stderr
    assert "saved evil@0.0.1" in named.stderr


def test_an_explicit_bad_name_is_refused_before_the_server_is_started(tmp_path: Path) -> None:
    started = time.perf_counter()
    result = mcpdex(
        "inspect",
        "--save",
        "--name",
        "../escape",
        "--timeout",
        "20",
        "--",
        sys.executable,
        str(SERVERS / "hangs_before_answering.py"),
        tmp_path=tmp_path,
    )
    assert result.returncode == 2 and "server name '../escape' is not allowed" in result.stderr
    assert time.perf_counter() - started < 10


def test_the_store_and_the_service_share_one_name_rule() -> None:
    from registry.core.errors import RegistryError
    from registry.storage.store import open_store
    from registry.web.errors import ApiError
    from registry.web.validation import check_server_name

    for bad in ("../../../evil\x1b[2J", "a\nb", "name\n", "..", "acme/versions", " lead", "trail "):
        assert server_name_problem(bad) is not None, bad
        try:
            check_server_name(bad)
        except ApiError as exc:
            assert exc.status == 400
        else:
            raise AssertionError(f"the service took {bad!r}")
    for good in ("Notion API", "@scope/pkg", "mcp-servers/everything", "memory.v2"):
        assert server_name_problem(good) is None and check_server_name(good) == good
    with open_store("sqlite:///:memory:") as store:
        try:
            store.record_inspection(
                None, server="a\x1b[2J", ok=False, error="x", started_at="2026-01-01T00:00:00Z", duration_s=0
            )
        except RegistryError as exc:
            assert "is not allowed" in str(exc)
        else:
            raise AssertionError("the store took a name with an escape sequence")


def test_diff_score_and_errors_print_control_characters_as_escapes(tmp_path: Path) -> None:
    dump_snapshot(hostile_snapshot("1.0.0", "Old\x07 text."), tmp_path / "a.json")
    dump_snapshot(hostile_snapshot("2.0.0", "New\x1b[2J text\x00."), tmp_path / "b.json")
    for fmt in ("text", "markdown"):
        result = mcpdex(
            "diff", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--format", fmt, tmp_path=tmp_path
        )
        assert result.returncode == 0, result.stderr
        assert "\\x1b[2J" in result.stdout
        assert_inert(result.stdout)
    report = evaluate(load_snapshot(tmp_path / "a.json"), load_snapshot(tmp_path / "b.json"))
    for fmt in ("github", "junit"):  # the other formats of `mcpdex check`
        assert_inert(render_report(report, fmt, file="mcpdex.lock.json"))
    for fmt in ("text", "markdown"):
        scored = mcpdex("score", str(tmp_path / "b.json"), "--format", fmt, tmp_path=tmp_path)
        assert scored.returncode == 0, scored.stderr
        assert_inert(scored.stdout)
    failed = mcpdex(
        "inspect",
        "--",
        sys.executable,
        "-c",
        "import sys; sys.stderr.write('boom\\x1b[2J\\x07\\n')",
        tmp_path=tmp_path,
    )
    assert failed.returncode == 2 and "boom\\x1b[2J\\x07" in failed.stderr
    assert_inert(failed.stderr)


def test_nul_and_bel_never_reach_an_html_page(tmp_path: Path) -> None:
    dump_snapshot(hostile_snapshot("1.0.0", "Rings\x07 and ends\x00 here."), tmp_path / "a.json")
    page = mcpdex("report", str(tmp_path / "a.json"), "--format", "html", tmp_path=tmp_path)
    assert page.returncode == 0, page.stderr
    assert_inert(page.stdout)
    assert "Rings\\x07 and ends\\x00 here." in page.stdout
    data = json.loads(
        mcpdex("report", str(tmp_path / "a.json"), "--format", "json", tmp_path=tmp_path).stdout
    )
    assert data["snapshot"]["tools"][0]["description"] == "Rings\x07 and ends\x00 here."  # data stays as sent


def test_a_plain_path_in_mcpdex_registry_is_an_sqlite_file(tmp_path: Path) -> None:
    path = tmp_path / "plain" / "registry.sqlite"
    env = {"MCPDEX_REGISTRY": str(path)}
    saved = mcpdex("inspect", "--save", "--name", "plain", "--", *HOSTILE, tmp_path=tmp_path, env=env)
    assert saved.returncode == 0, saved.stderr
    assert path.is_file() and "saved plain@0.0.1" in saved.stderr
    listed = mcpdex("versions", "plain", "--registry", str(path), "--format", "json", tmp_path=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert [row["version"] for row in json.loads(listed.stdout)] == ["0.0.1"]


def test_a_registry_that_cannot_be_saved_to_is_refused_before_inspecting(tmp_path: Path) -> None:
    started = time.perf_counter()
    result = mcpdex(
        "inspect",
        "--save",
        "--timeout",
        "20",
        "--",
        sys.executable,
        str(SERVERS / "hangs_before_answering.py"),
        tmp_path=tmp_path,
        env={"MCPDEX_REGISTRY": "mysql://db/registry"},
    )
    assert (
        result.returncode == 2 and "mysql://db/registry" in result.stderr and "Traceback" not in result.stderr
    )
    assert time.perf_counter() - started < 10


def test_json_outputs_write_del_and_c1_as_escapes_and_keep_the_value(tmp_path: Path) -> None:
    # json.dumps escapes C0 itself, never DEL or C1: a lone 0x9b is CSI to some terminals.
    description = "New\x9b2J text\x7f and \x85 more."
    dump_snapshot(hostile_snapshot("1.0.0", "Old text."), tmp_path / "a.json")
    dump_snapshot(hostile_snapshot("2.0.0", description), tmp_path / "b.json")
    a, b = str(tmp_path / "a.json"), str(tmp_path / "b.json")
    commands = [
        ("diff", a, b, "--format", "json"),
        ("score", b, "--format", "json"),
        ("report", b, "--format", "json"),
    ]
    for command in commands:
        result = mcpdex(*command, tmp_path=tmp_path)
        assert result.returncode == 0, (command, result.stderr)
        assert_inert(result.stdout)
        parsed = json.dumps(json.loads(result.stdout), ensure_ascii=False)
        if command[0] != "score":  # a scorecard quotes no description whole
            assert "\\u009b2J" in result.stdout and description in parsed, command
    report = evaluate(load_snapshot(tmp_path / "a.json"), load_snapshot(tmp_path / "b.json"))
    rendered = [render_report(report, fmt, file="mcpdex.lock.json") for fmt in ("json", "sarif")]
    rendered.append(render_changelog({"server": "s", "entries": [{"description": description}]}, "json"))
    for text in rendered:
        assert_inert(text)
        json.loads(text)
