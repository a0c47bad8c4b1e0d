"""What the code and the documents cite exists: every repository path (``registry/core/limits.py``)
and every dotted module name (``registry.diffing.rules``) they mention names a file that is there,
so a moved module cannot leave a stale pointer behind.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("common", "registry", "scoring", "server")
TOP_LEVEL = (*PACKAGES, "docs", "bench", "scripts", "templates", "tests")
SOURCES = (*PACKAGES, "docs", "bench", "scripts", "templates")
PATH = re.compile(rf"\b((?:{'|'.join(TOP_LEVEL)})/[\w./-]*\w)")
# A module is cited in backquotes (``registry.diffing.rules``); `server` is left out, since as a word
# it starts template variables (server.counts) and file names.
MODULE = re.compile(r"(?<=`)((?:common|registry|scoring)(?:\.[a-z_][a-z0-9_]*)+)(?=[`(])")
HOSTS = ("io", "com", "org", "dev", "net")


def _texts() -> Iterator[tuple[Path, str]]:
    for top in SOURCES:
        for path in sorted((REPO / top).rglob("*")):
            if (
                path.is_file()
                and path.suffix in (".py", ".md", ".j2", ".toml", "")
                and "__pycache__" not in path.parts
            ):
                yield path, path.read_text(encoding="utf-8", errors="replace")
    for name in ("README.md", "pyproject.toml"):
        yield REPO / name, (REPO / name).read_text(encoding="utf-8")


def _module_exists(dotted: str) -> bool:
    """``a.b.c`` names a module or package, or a name a module defines (``registry.cli.main``)."""
    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):
        base = REPO.joinpath(*parts[:end])
        source = base.with_suffix(".py") if base.with_suffix(".py").is_file() else base / "__init__.py"
        if source.is_file():
            if end == len(parts):
                return True
            name = re.escape(parts[end])
            defined = rf"^(?:async )?(?:def|class) {name}\b|^{name}\b\s*[:=]|^\s+{name}\b\s*[:=]"
            return (
                end == len(parts) - 1
                and re.search(defined, source.read_text(encoding="utf-8"), re.M) is not None
            )
    return False


def test_cited_paths_exist() -> None:
    missing = []
    for path, text in _texts():
        for match in PATH.finditer(text):
            cited = match.group(1).rstrip(".")
            if "*" in cited or not Path(cited).suffix:
                continue  # globs and folders-in-prose are not file citations
            if not (REPO / cited).exists():
                missing.append(f"{path.relative_to(REPO)}: {cited}")
    assert missing == []


def test_cited_modules_exist() -> None:
    missing = []
    for path, text in _texts():
        for match in MODULE.finditer(text):
            dotted = match.group(1)
            if dotted.split(".")[-1] in ("py", "md", "json", "toml", "sqlite", *HOSTS):
                continue
            if not _module_exists(dotted):
                missing.append(f"{path.relative_to(REPO)}: {dotted}")
    assert missing == []


def test_the_checker_tells_a_moved_module_from_a_present_one() -> None:
    assert _module_exists("registry.storage.store") and _module_exists("registry.storage.store.open_store")
    assert not _module_exists("registry.store")  # where the store lived before the sub-packages
    cited = "see ``registry.diffing.rules``, `registry.cli.main()` and ``registry.sqlite`` files"
    assert [m.group(1) for m in MODULE.finditer(cited)] == [
        "registry.diffing.rules",
        "registry.cli.main",
        "registry.sqlite",
    ]
    assert [m.group(1) for m in PATH.finditer("in registry/core/limits.py.")] == ["registry/core/limits.py"]
