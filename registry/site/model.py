"""The data a site page is rendered from: one server's snapshot, versions, scorecard, inspections,
profile and official-registry listing, as the store, diff and scorer hand them over.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypedDict

SITE_FORMAT = "mcpdex.site/1"


class VersionEntry(TypedDict, total=False):
    """One recorded version and the changes that led to it from the previous one (``behaviour``:
    what the memory probe says changed, when both versions were probed)."""

    label: str
    digest: str | None
    first_seen: str | None
    last_seen: str | None
    changes: list[dict[str, Any]]
    behaviour: list[dict[str, Any]]


@dataclass
class ServerData:
    """Everything shown about one server; all of it plain data from the store, diff and scorer."""

    name: str
    snapshot: dict[str, Any]
    versions: list[VersionEntry] = field(default_factory=list)  # oldest → newest
    scorecard: dict[str, Any] | None = None
    inspections: list[dict[str, Any]] = field(default_factory=list)  # newest first
    profile: dict[str, Any] | None = None
    # What the official MCP Registry lists for this server: one dict per recorded version
    # (store.RegistryEntryRecord fields), oldest first; None when it was not crawled from a registry.
    registry: list[dict[str, Any]] | None = None


class IndexEntry(NamedTuple):
    """A server's part of the index: its name, its member of ``index.json`` (compact JSON) and its
    row of ``index.html``. A site build keeps it for a server that did not change."""

    name: str
    json: str
    html: str


def as_dict(value: Any) -> dict[str, Any]:
    """``value`` when it is a dict, else an empty one: recorded data is only as well formed as the server."""
    return value if isinstance(value, dict) else {}


def tools_of(snapshot: dict[str, Any]) -> list[dict[str, Any]]:
    """The snapshot's tools that are objects, in order."""
    return [tool for tool in snapshot.get("tools") or [] if isinstance(tool, dict)]
