"""What the last build of a site rendered, so the next renders only the servers whose inputs changed.

A server's build key is a digest of its stored inputs (``registry.storage.fingerprints``), its slug
and the renderer: the templates (bundled and the operator's), the code of the site, the diff and
the scorer, and mcpdex's version. A server whose key is the one recorded keeps its files and its
index row; any other is judged and rendered again. A full build writes the same bytes.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from dataclasses import dataclass
from functools import cache
from importlib import metadata
from pathlib import Path

from registry.core.paths import templates_dir
from registry.site.model import IndexEntry

BUILD_FORMAT = "mcpdex.build/2"
BUILD_NAME = ".mcpdex-build.json"


@dataclass(frozen=True)
class BuiltServer:
    """One server as the last build left it: its key, its part of the index and its files."""

    key: str
    entry: IndexEntry
    files: list[str]


def server_key(renderer: str, slug: str, inputs: str) -> str:
    return hashlib.sha256(f"{renderer}\0{slug}\0{inputs}".encode()).hexdigest()


@cache
def renderer_key(template_dir: str | None) -> str:
    """A digest of everything besides the data that decides what a page holds."""
    import registry.diffing
    import registry.site
    import scoring

    digest = hashlib.sha256()
    with contextlib.suppress(metadata.PackageNotFoundError):
        digest.update(metadata.version("mcpdex").encode())
    folders = [
        templates_dir(),
        *(Path(str(package.__file__)).parent for package in (registry.site, registry.diffing, scoring)),
    ]
    if template_dir is not None:
        folders.append(Path(template_dir))
    for folder in folders:
        for path in sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            digest.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def read_build(body: bytes | None) -> dict[str, BuiltServer]:
    """The servers recorded by the last build; none when there was none or its record is unreadable
    (the build then renders everything, as a first build does)."""
    if body is None:
        return {}
    try:
        document = json.loads(body)
        if document.get("format") != BUILD_FORMAT:
            return {}
        built = {}
        # Each server is a list of strings, not an object: the record of tens of thousands of
        # servers is read and written on every build, and lists of strings are what json does fastest.
        for name, (key, row, html, *files) in document["servers"].items():
            if not all(type(text) is str for text in (name, key, row, html, *files)) or not files:
                return {}
            built[name] = BuiltServer(key, IndexEntry(name, row, html), files)
        return built
    except (ValueError, KeyError, TypeError, AttributeError):
        return {}


def build_bytes(servers: dict[str, BuiltServer]) -> bytes:
    document = {
        "format": BUILD_FORMAT,
        "servers": {
            name: [built.key, built.entry.json, built.entry.html, *built.files]
            for name, built in sorted(servers.items())
        },
    }
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
