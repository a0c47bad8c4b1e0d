"""``mcpdex report --out`` renders only the servers whose stored inputs changed since the last build
into the folder, and the result is byte for byte what a full build writes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from registry.storage.store import open_store
from tests.conftest import make_snapshot


def _tool(name: str, description: str) -> dict:
    return {"name": name, "description": description, "inputSchema": {"type": "object", "properties": {}}}


def _record(url: str, server: str, description: str, at: str) -> None:
    snapshot = make_snapshot(_tool("get_note", description), name=server, capturedAt=at)
    with open_store(url) as store:
        store.record_inspection(snapshot, server=server, ok=True, error=None, started_at=at, duration_s=1.0)


def _report(site: Path, url: str, *extra: str) -> str:
    result = subprocess.run(
        [sys.executable, "-m", "registry", "report", "--out", str(site), "--registry", url, *extra],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result.stderr


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _stamps(folder: Path) -> dict[str, int]:
    return {str(p.relative_to(folder)): p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()}


def test_only_the_changed_server_is_rendered_and_the_site_equals_a_full_build(tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'r.sqlite'}"
    for index in range(4):
        _record(
            url,
            f"notes-{index}",
            "Fetch one note by its id and return its title and body.",
            "2026-11-01T00:00:00Z",
        )
    site = tmp_path / "site"
    assert "(4 rendered, 0 unchanged)" in _report(site, url)

    # Nothing changed: nothing is rendered and no file is written again.
    stamps = _stamps(site)
    assert "(0 rendered, 4 unchanged)" in _report(site, url)
    assert _stamps(site) == stamps

    # One server gains a version: it alone is rendered; the index shows it; the rest keep their files.
    _record(url, "notes-2", "Fetch one note by id; returns its title, body and tags.", "2026-11-02T00:00:00Z")
    assert "(1 rendered, 3 unchanged)" in _report(site, url)
    changed = {path for path, stamp in _stamps(site).items() if stamps.get(path) != stamp}
    assert changed and all(p.startswith("servers/notes-2/") or not p.startswith("servers/") for p in changed)
    assert "index.json" in changed

    full = tmp_path / "full"
    assert "(4 rendered, 0 unchanged)" in _report(full, url)
    assert _files(full) == _files(site)
    assert "(4 rendered, 0 unchanged)" in _report(site, url, "--full")
    assert _files(full) == _files(site)


def test_a_failed_inspection_or_another_template_renders_again(tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'r.sqlite'}"
    _record(url, "a", "Fetch one note by its id and return its title and body.", "2026-11-01T00:00:00Z")
    _record(url, "b", "Fetch one note by its id and return its title and body.", "2026-11-01T00:00:00Z")
    site = tmp_path / "site"
    _report(site, url)
    with open_store(url) as store:
        store.record_inspection(
            None, server="b", ok=False, error="timed out", started_at="2026-11-03T00:00:00Z", duration_s=30.0
        )
    assert "(1 rendered, 1 unchanged)" in _report(site, url)
    assert "timed out" in (site / "servers" / "b" / "index.html").read_text(encoding="utf-8")

    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "_site.css").write_text("body { color: black; }\n", encoding="utf-8")
    assert "(2 rendered, 0 unchanged)" in _report(site, url, "--template-dir", str(templates))

    # A build record that is not one of ours is ignored, not trusted.
    (site / ".mcpdex-build.json").write_text("{not json", encoding="utf-8")
    assert "(2 rendered, 0 unchanged)" in _report(site, url, "--template-dir", str(templates))
