"""The templates ship inside the wheel: an installed mcpdex renders pages without a source checkout."""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.conftest import REPO, make_snapshot

SNAPSHOT = make_snapshot(
    {
        "name": "read_note",
        "description": "Read one note by its id. Use search_notes to find ids.",
        "inputSchema": {
            "type": "object",
            "properties": {"id": {"type": "string", "description": "The note's id."}},
            "required": ["id"],
        },
    },
    name="wheel-check",
)


@pytest.mark.slow
def test_an_installed_wheel_renders_a_page_from_its_bundled_templates(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(REPO)],
        check=True,
        timeout=300,
    )
    wheel = next(wheels.glob("mcpdex-*.whl"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    fresh = venv / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(fresh), "install", "-q", "--no-deps", str(wheel)],
        check=True,
        timeout=300,
    )
    # Dependencies come from the test environment; a plain path line adds no .pth of it, so the
    # editable source checkout installed there stays out of the fresh interpreter's reach.
    fresh_site = subprocess.run(
        [str(fresh), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(fresh_site, "test-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")

    (tmp_path / "snapshot.json").write_text(json.dumps(SNAPSHOT), encoding="utf-8")
    where = subprocess.run(
        [str(fresh), "-c", "import registry.core.paths as p; print(p.templates_dir())"],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    ).stdout.strip()
    assert Path(where).is_relative_to(venv), where
    result = subprocess.run(
        [str(fresh), "-m", "registry", "report", "snapshot.json", "--out", "page.html"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    html = (tmp_path / "page.html").read_text(encoding="utf-8")
    assert "read_note" in html and "The note&#39;s id." in html and "<style>" in html
    # The console script the README's install puts on the PATH runs from there, outside the checkout.
    on_path = subprocess.run(
        ["mcpdex", "--version"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(tmp_path)},
        timeout=60,
    )
    assert on_path.returncode == 0 and on_path.stdout.startswith("mcpdex, version "), on_path.stderr
