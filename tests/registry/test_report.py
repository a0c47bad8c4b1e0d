"""``mcpdex report`` on real data: peers inspected by the real CLI, a real registry, real diffs and scores."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from registry.core.snapshot import load_snapshot
from registry.storage.store import open_store
from tests.conftest import make_snapshot

MCPDEX = [sys.executable, "-m", "registry"]


def run(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([*MCPDEX, *args], capture_output=True, text=True, timeout=120)
    if check:
        assert result.returncode == 0, result.stderr
    return result


@pytest.fixture(scope="module")
def peer_snapshots(tmp_path_factory, py_peer, npm_peer) -> dict[str, Path]:
    """Real inspections of two releases of mcp-server-time and of the official memory server."""
    folder = tmp_path_factory.mktemp("snapshots")
    peers = {
        "time-old": ["--version-label", "2025.9.25", "--", py_peer("time-old", "mcp-server-time")],
        "time-new": ["--version-label", "2026.10.19", "--", py_peer("mcp-server-time")],
        "memory": ["--", *npm_peer("server-memory")],
    }
    paths = {}
    for key, args in peers.items():
        paths[key] = folder / f"{key}.json"
        run("inspect", "--out", str(paths[key]), "--format", "json", *args)
    return paths


def fill_registry(url: str, snapshots: dict[str, Path], without: str = "") -> None:
    """Record the peers as the store does after `inspect --save`, plus one failed inspection."""
    with open_store(url) as store:
        for key, server, at in (
            ("time-old", "time", "2026-09-01T10:00:00Z"),
            ("time-new", "time", "2026-10-20T10:00:00Z"),
            ("memory", "memory", "2026-10-20T11:00:00Z"),
        ):
            if server == without:
                continue
            snapshot = dict(load_snapshot(snapshots[key]))
            store.record_inspection(
                snapshot, server=server, ok=True, error=None, started_at=at, duration_s=1.5
            )
        store.record_inspection(
            None,
            server="broken",
            ok=False,
            error="the server exited before answering initialize",
            started_at="2026-10-20T12:00:00Z",
            duration_s=0.2,
        )


@pytest.fixture
def sqlite_registry(tmp_path, peer_snapshots) -> str:
    url = f"sqlite:///{tmp_path / 'registry.sqlite'}"
    fill_registry(url, peer_snapshots)
    return url


def read(folder: Path, relative: str) -> str:
    return (folder / relative).read_text(encoding="utf-8")


def text_of(html: str) -> str:
    from html import unescape

    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def check_site(site: Path) -> None:
    index = text_of(read(site, "index.html"))
    for name in ("time", "memory", "broken"):
        assert name in index
    assert "failed" in index  # the broken server's last inspection
    entries = {entry["name"]: entry for entry in json.loads(read(site, "index.json"))["servers"]}
    assert entries["time"]["version"] == "2026.10.19" and entries["time"]["version_count"] == 2
    assert entries["time"]["change_level"] in {"breaking", "warning", "info"}
    # Three of the nine tools reach A (3.5-3.6), the rest B and one C; the roll-up lands on 3.5, just an A.
    assert entries["memory"]["tools"] == 9 and entries["memory"]["tier"] == "A"

    time_page = text_of(read(site, "servers/time/index.html"))
    assert "v2026.10.19" in time_page and "v2025.9.25" in time_page and "First observed." in time_page
    assert "get_current_time" in time_page and "convert_time" in time_page
    tool_page = text_of(read(site, "servers/time/tools/convert_time.html"))
    assert "Purpose" in tool_page and "Usage Guidelines" in tool_page  # the six dimensions, per tool
    time_doc = json.loads(read(site, "servers/time/index.json"))
    changes = time_doc["versions"][1]["changes"]
    assert changes, "two releases of mcp-server-time differ"
    assert all(change["rule"] in time_page for change in changes)

    tool_page = text_of(read(site, "servers/memory/tools/create_entities.html"))
    assert "entities" in tool_page and "Input Schema" in tool_page
    tool_doc = json.loads(read(site, "servers/memory/tools/create_entities.json"))
    assert tool_doc["tool"]["name"] == "create_entities" and tool_doc["score"]["tier"]
    assert "No successful inspection is recorded yet" in text_of(read(site, "servers/broken/index.html"))


@pytest.mark.slow
def test_report_renders_the_registry_as_a_static_site(tmp_path, sqlite_registry) -> None:
    result = run("report", "--out", str(tmp_path / "site"), "--registry", sqlite_registry)
    assert "for 3 servers" in result.stderr and result.stdout == ""
    check_site(tmp_path / "site")


@pytest.mark.slow
@pytest.mark.postgres
def test_report_renders_the_same_site_from_postgresql(
    tmp_path, sqlite_registry, postgres_url, peer_snapshots
):
    fill_registry(postgres_url, peer_snapshots)
    run("report", "--out", str(tmp_path / "pg"), "--registry", postgres_url)
    run("report", "--out", str(tmp_path / "lite"), "--registry", sqlite_registry)
    check_site(tmp_path / "pg")
    # The store stamps first/last seen with its own clock; everything else must match byte for byte,
    # but for the build record, whose keys digest each database's own rows.
    pg, lite = (files_of(tmp_path / site) for site in ("pg", "lite"))
    pg.pop(".mcpdex-build.json"), lite.pop(".mcpdex-build.json")
    assert without_seen_times(pg) == without_seen_times(lite)


def without_seen_times(files: dict[str, bytes]) -> dict[str, bytes]:
    pattern = re.compile(rb'"(?:first|last)_seen": ?"[^"]*"|<time datetime="[^"]*">[^<]*</time>')
    return {path: pattern.sub(b"", body) for path, body in files.items()}


def files_of(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_rerendering_or_rendering_in_parallel_gives_byte_identical_files(tmp_path, sqlite_registry) -> None:
    site = tmp_path / "site"
    run("report", "--out", str(site), "--registry", sqlite_registry)
    before = files_of(site)
    stamps = {p: p.stat().st_mtime_ns for p in site.rglob("*.html")}
    run("report", "--out", str(site), "--registry", sqlite_registry)
    assert files_of(site) == before
    assert {p: p.stat().st_mtime_ns for p in site.rglob("*.html")} == stamps
    run("report", "--out", str(tmp_path / "parallel"), "--jobs", "2", "--registry", sqlite_registry)
    assert files_of(tmp_path / "parallel") == before


def test_report_on_a_snapshot_file_writes_one_self_contained_page(tmp_path, peer_snapshots) -> None:
    out = tmp_path / "memory.html"
    run("report", str(peer_snapshots["memory"]), "--out", str(out))
    html = out.read_text(encoding="utf-8")
    assert "create_entities" in html and "read_graph" in html
    assert 'id="memory-profile"' in html  # the official memory server gets its feature table
    assert not re.search(r"""(?:src|href)=["']?(?:https?:)?//""", html)
    assert re.findall(r'href="([^"]*)"', html) and all(
        h.startswith("#") for h in re.findall(r'href="([^"]*)"', html)
    )


def test_report_markdown_since_a_baseline_lists_the_changes(peer_snapshots) -> None:
    result = run(
        "report",
        str(peer_snapshots["time-new"]),
        "--since",
        str(peer_snapshots["time-old"]),
        "--format",
        "markdown",
    )
    assert result.stdout.startswith("### mcpdex: `")
    assert "#### Changes in 2026\\.10\\.19" in result.stdout
    assert "| `get_current_time` |" in result.stdout


def test_report_on_a_registry_server_includes_its_history(sqlite_registry) -> None:
    result = run("report", "time", "--format", "json", "--registry", sqlite_registry)
    document = json.loads(result.stdout)
    assert [version["label"] for version in document["versions"]] == ["2025.9.25", "2026.10.19"]
    assert document["scorecard"]["format"] == "mcpdex.scorecard/1"
    older = json.loads(
        run("report", "time@2025.9.25", "--format", "json", "--registry", sqlite_registry).stdout
    )
    assert [version["label"] for version in older["versions"]] == ["2025.9.25"]


@pytest.mark.slow
def test_report_on_a_live_target_inspects_it(py_peer) -> None:
    result = run("report", "--format", "markdown", "--", py_peer("mcp-server-time"))
    assert "`convert_time`" in result.stdout


def test_template_dir_overrides_a_bundled_template(tmp_path, peer_snapshots) -> None:
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "report.md.j2").write_text("custom report for {{ code(server.name) }}\n", encoding="utf-8")
    result = run(
        "report", str(peer_snapshots["memory"]), "--format", "markdown", "--template-dir", str(templates)
    )
    assert result.stdout.startswith("custom report for `")


def test_report_without_a_target_or_out_is_a_usage_error() -> None:
    result = run("report", check=False)
    assert result.returncode == 2
    assert "mcpdex: error: pass --out FOLDER" in result.stderr and "Traceback" not in result.stderr


def test_unknown_registry_version_is_reported_without_traceback(sqlite_registry) -> None:
    result = run("report", "time@9.9.9", "--registry", sqlite_registry, check=False)
    assert result.returncode == 2
    assert "9.9.9" in result.stderr and "Traceback" not in result.stderr


def test_rerendering_removes_the_files_of_a_server_that_left_and_nothing_else(
    tmp_path, sqlite_registry, peer_snapshots
) -> None:
    site = tmp_path / "site"
    run("report", "--out", str(site), "--registry", sqlite_registry)
    manifest = json.loads(read(site, ".mcpdex-manifest.json"))
    assert manifest["files"] == sorted(manifest["files"]) and "servers/memory/index.html" in manifest["files"]
    (site / "CNAME").write_text("mcp.example.org\n", encoding="utf-8")
    (site / "servers" / "memory" / "notes.txt").write_text("mine\n", encoding="utf-8")
    (site / "servers" / "time" / "tools" / "extra.html").write_text("mine\n", encoding="utf-8")

    # The same registry without the memory server.
    fewer = f"sqlite:///{tmp_path / 'fewer.sqlite'}"
    fill_registry(fewer, peer_snapshots, without="memory")
    result = run("report", "--out", str(site), "--registry", fewer)
    assert "for 2 servers" in result.stderr
    assert not (site / "servers" / "memory" / "index.html").exists()
    assert not (site / "servers" / "memory" / "tools").exists()  # emptied, so pruned
    assert (site / "servers" / "memory" / "notes.txt").read_text(encoding="utf-8") == "mine\n"
    assert (site / "CNAME").exists() and (site / "servers" / "time" / "tools" / "extra.html").exists()
    assert (site / "servers" / "time" / "index.html").exists()
    listed = json.loads(read(site, ".mcpdex-manifest.json"))["files"]
    assert not [path for path in listed if path.startswith("servers/memory/")]
    assert sorted(listed) == sorted(
        str(p.relative_to(site))
        for p in site.rglob("*")
        if p.is_file() and p.name not in {".mcpdex-manifest.json", "CNAME", "notes.txt", "extra.html"}
    )


def test_a_manifest_never_removes_files_outside_the_site(tmp_path, sqlite_registry) -> None:
    site, outside = tmp_path / "site", tmp_path / "outside.txt"
    outside.write_text("keep\n", encoding="utf-8")
    run("report", "--out", str(site), "--registry", sqlite_registry)
    manifest = site / ".mcpdex-manifest.json"
    document = json.loads(manifest.read_text(encoding="utf-8"))
    document["files"] += ["../outside.txt", str(outside), "servers/../../outside.txt"]
    manifest.write_text(json.dumps(document), encoding="utf-8")
    run("report", "--out", str(site), "--registry", sqlite_registry)
    assert outside.read_text(encoding="utf-8") == "keep\n"
    manifest.write_text("not json", encoding="utf-8")
    result = run("report", "--out", str(site), "--registry", sqlite_registry, check=False)
    assert result.returncode == 2 and ".mcpdex-manifest.json" in result.stderr
    assert "Traceback" not in result.stderr


def notes_snapshot(version: str, tools: list[dict]) -> dict:
    return make_snapshot(*tools, name="notes", version=version, capturedAt="2026-10-01T10:00:00Z")


def test_a_tool_page_dates_the_tool_from_the_version_that_added_it(tmp_path) -> None:
    schema = {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}
    read_note = {"name": "read_note", "description": "Read one note by id.", "inputSchema": schema}
    write_note = {"name": "write_note", "description": "Write one note.", "inputSchema": schema}
    reworded = {**write_note, "description": "Write one note, replacing any note with that id."}
    url = f"sqlite:///{tmp_path / 'registry.sqlite'}"
    with open_store(url) as store:
        for day, (version, tools) in enumerate(
            (("1.0.0", [read_note]), ("1.1.0", [read_note, write_note]), ("1.2.0", [read_note, reworded])),
            start=1,
        ):
            store.record_inspection(
                notes_snapshot(version, tools),
                server="notes",
                ok=True,
                error=None,
                started_at=f"2026-10-0{day}T10:00:00Z",
                duration_s=0.1,
            )
    site = tmp_path / "site"
    run("report", "--out", str(site), "--registry", url)

    added = json.loads(read(site, "servers/notes/tools/write_note.json"))
    assert added["history"] == {"first": "1.1.0", "changed": ["1.2.0"]}
    assert json.loads(read(site, "servers/notes/tools/read_note.json"))["history"] == {
        "first": "1.0.0",
        "changed": [],
    }
    html = read(site, "servers/notes/tools/write_note.html")
    assert "First appeared in v1.1.0 ; changed in v1.2.0 ." in text_of(html)
    sections = dict(re.findall(r'<section aria-label="Version ([^"]+)">(.*?)</section>', html, re.S))
    assert set(sections) == {"1.1.0", "1.2.0"}  # the version before the tool existed is not its history
    assert "First observed." in sections["1.1.0"] and "First observed." not in sections["1.2.0"]
    assert "First observed." in text_of(read(site, "servers/notes/tools/read_note.html"))


def test_the_site_writer_follows_links_only_while_they_stay_in_the_site(tmp_path) -> None:
    from registry.commands.report import _write_files
    from registry.core.errors import UsageError

    root, outside = (tmp_path / "site").resolve(), (tmp_path / "outside").resolve()
    (root / "servers" / "plain").mkdir(parents=True)
    outside.mkdir()
    (root / "servers" / "linked").symlink_to(outside)
    (root / "servers" / "plain" / "leak.html").symlink_to(outside / "leak.html")
    (root / "servers" / "plain" / "alias.html").symlink_to(root / "servers" / "plain" / "real.html")
    for relative in ("servers/linked/index.html", "servers/plain/leak.html"):
        with pytest.raises(UsageError, match="outside the folder"):
            _write_files(root, {"servers/plain/first.html": b"first", relative: b"page"})
    assert list(outside.iterdir()) == []
    _write_files(root, {"servers/plain/alias.html": b"page", "servers/new/tools/a.html": b"tool"})
    assert (root / "servers" / "plain" / "real.html").read_bytes() == b"page"
    assert (root / "servers" / "plain" / "alias.html").is_symlink()
    assert (root / "servers" / "new" / "tools" / "a.html").read_bytes() == b"tool"


def one_line_refusal(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("mcpdex: error: ")
    return line


def test_every_refused_output_path_is_one_line_and_exit_2(tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'registry.sqlite'}"
    tool = {"name": "read_note", "description": "Read one note by id.", "inputSchema": {"type": "object"}}
    with open_store(url) as store:
        store.record_inspection(
            notes_snapshot("1.0.0", [tool]),
            server="notes",
            ok=True,
            error=None,
            started_at="2026-10-01T10:00:00Z",
            duration_s=0.1,
        )
    site, outside = tmp_path / "site", tmp_path / "outside.html"
    site.mkdir()
    outside.write_text("keep\n", encoding="utf-8")
    (site / "index.html").symlink_to(outside)
    line = one_line_refusal(run("report", "--out", str(site), "--registry", url, check=False))
    assert "index.html is a link to" in line and outside.read_text(encoding="utf-8") == "keep\n"
    a_file = tmp_path / "a-file"
    a_file.write_text("", encoding="utf-8")
    assert f"--out {a_file}" in one_line_refusal(
        run("report", "--out", str(a_file), "--registry", url, check=False)
    )
    snapshot_file = tmp_path / "notes.json"
    run("show", "notes", "--registry", url, "--format", "json")
    from registry.core.snapshot import dump_snapshot

    dump_snapshot(notes_snapshot("1.0.0", [tool]), snapshot_file)
    missing = tmp_path / "no-such-folder" / "page.html"
    assert "--out" in one_line_refusal(run("report", str(snapshot_file), "--out", str(missing), check=False))
    assert "--write" in one_line_refusal(run("rules", "--write", str(missing), check=False))
    server = [sys.executable, str(Path(__file__).parent / "servers" / "resources_without_templates.py")]
    for command in ("inspect", "lock"):
        result = run(command, "--protocol-era", "legacy", "--out", str(missing), "--", *server, check=False)
        assert "cannot write there" in one_line_refusal(result)
