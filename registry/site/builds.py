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
from typing import Any

from registry.core.paths import templates_dir

BUILD_FORMAT = "mcpdex.build/1"
BUILD_NAME = ".mcpdex-build.json"


@dataclass(frozen=True)
class BuiltServer:
    """One server as the last build left it: its key, its index row (data and HTML) and its files."""

    key: str
    row: dict[str, Any]
    html: str
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
        return {
            name: BuiltServer(
                str(entry["key"]), dict(entry["row"]), str(entry["html"]), [str(p) for p in entry["files"]]
            )
            for name, entry in document["servers"].items()
        }
    except (ValueError, KeyError, TypeError, AttributeError):
        return {}


def build_bytes(servers: dict[str, BuiltServer]) -> bytes:
    document = {
        "format": BUILD_FORMAT,
        "servers": {
            name: {"key": built.key, "row": built.row, "html": built.html, "files": built.files}
            for name, built in sorted(servers.items())
        },
    }
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode("utf-8")
