"""The Snapshot: one JSON document per inspection, also the lock-file format.

Pure data helpers only: no MCP, no database. Tools are kept as the server sent them on
the wire, so the types here are deliberately loose ``dict`` shapes.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path
from typing import Any, TypedDict

from common.canonical import canonical_json
from registry.core.errors import SnapshotError

SNAPSHOT_FORMAT = "mcpdex.snapshot/1"

# The parts of a snapshot that describe what the server offers; the digest covers these only,
# so capture time, transport and key order never make a new version.
DIGESTED_KEYS = ("tools", "resources", "resourceTemplates", "prompts")


class ServerInfo(TypedDict, total=False):
    name: str
    title: str | None
    version: str | None
    instructions: str | None


class Source(TypedDict, total=False):
    transport: str  # "stdio" | "streamable-http" | "sse" | "file"
    target: str
    protocolEra: str


class Problem(TypedDict):
    code: str
    where: str
    message: str


class Snapshot(TypedDict, total=False):
    format: str
    server: ServerInfo
    source: Source
    protocolVersion: str | None
    capabilities: dict[str, Any]
    capturedAt: str
    tools: list[dict[str, Any]]
    resources: list[dict[str, Any]]
    resourceTemplates: list[dict[str, Any]]
    prompts: list[dict[str, Any]]
    problems: list[Problem]
    digest: str
    versionLabel: str | None


# json.dumps with options builds an encoder per call; this one is built once.
_SORTED_JSON = json.JSONEncoder(sort_keys=True, ensure_ascii=False)


def sorted_json(value: Any) -> str:
    """Serialise ``value`` on one line with sorted keys and JSON's usual spacing: the form people read."""
    return _SORTED_JSON.encode(value)


def compute_digest(snapshot: dict[str, Any]) -> str:
    """``sha256:<hex>`` of the canonical JSON of tools, resources, templates and prompts."""
    body = {key: snapshot.get(key) or [] for key in DIGESTED_KEYS}
    return "sha256:" + hashlib.sha256(canonical_json(body).encode("utf-8")).hexdigest()


def server_version(snapshot: dict[str, Any]) -> str:
    """The version label a snapshot is recorded under: the caller's label, else serverInfo's."""
    label = snapshot.get("versionLabel") or (snapshot.get("server") or {}).get("version")
    return str(label) if label else "unversioned"


def dumps_snapshot(snapshot: dict[str, Any]) -> str:
    """The on-disk text: sorted keys, two-space indent, trailing newline, so it diffs in git."""
    return json.dumps(snapshot, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def dump_snapshot(snapshot: dict[str, Any], path: str | Path) -> None:
    """Write ``snapshot`` to ``path`` atomically (a temp file renamed over the target)."""
    target = Path(path)
    tmp = target.with_name(f".{target.name}.tmp")
    tmp.write_text(dumps_snapshot(snapshot), encoding="utf-8")
    tmp.replace(target)


def parse_snapshot(text: str, origin: str = "<snapshot>") -> Snapshot:
    """Parse and check a snapshot document; errors name the field and the fix."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SnapshotError(
            f"{origin}: not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}); "
            "pass a file written by `mcpdex inspect --out` or `mcpdex lock`"
        ) from None
    if not isinstance(data, dict):
        raise SnapshotError(f"{origin}: a snapshot is a JSON object, found {type(data).__name__}")
    if data.get("format") != SNAPSHOT_FORMAT:
        raise SnapshotError(
            f"{origin}: field 'format' is {data.get('format')!r}, expected {SNAPSHOT_FORMAT!r}; "
            "re-create the file with `mcpdex inspect --out` or `mcpdex lock`"
        )
    for key in DIGESTED_KEYS:
        value = data.setdefault(key, [])
        if not isinstance(value, list):
            raise SnapshotError(f"{origin}: field '{key}' must be a list, found {type(value).__name__}")
    for index, tool in enumerate(data["tools"]):
        if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
            raise SnapshotError(f"{origin}: tools[{index}] must be an object with a string 'name'")
    data.setdefault("problems", [])
    data.setdefault("server", {})
    data["digest"] = compute_digest(data)
    return data  # type: ignore[return-value]


def load_snapshot(path: str | Path) -> Snapshot:
    """Read a snapshot file written by mcpdex (``inspect --out``, ``lock``)."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SnapshotError(f"{file}: no such file; check the path") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SnapshotError(f"{file}: cannot read it ({exc})") from None
    return parse_snapshot(text, origin=str(file))


@cache
def snapshot_schema() -> dict[str, Any]:
    """The published JSON Schema of the snapshot format (``registry/core/schema/snapshot.schema.json``,
    served at ``/api/schema/snapshot.json``)."""
    path = Path(__file__).resolve().parent / "schema" / "snapshot.schema.json"
    schema: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return schema
