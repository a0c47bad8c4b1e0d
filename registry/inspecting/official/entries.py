"""Reading entries of the official MCP Registry: list pages from a URL (httpx, imported on use), saved
dumps or folders of server.json files, every dated schema normalised to the current field names.

An entry whose server.json is not usable is still read, with the reason in ``invalid``: a crawl
records it and goes on.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from registry.core.errors import UsageError

OFFICIAL_REGISTRY = "https://registry.modelcontextprotocol.io"
OFFICIAL_META = "io.modelcontextprotocol.registry/official"
STATUSES = ("active", "deprecated", "deleted")
PAGE_LIMIT = 100  # the service's maximum page size
MAX_PAGES = 10_000  # a registry whose cursor never ends would page forever

_NAME = re.compile(r"^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$")
_CAMEL = re.compile(r"_([a-z0-9])")
# Older registry types with their current names; ``homebrew`` has no current equivalent.
_REGISTRY_TYPE_RENAMES = {"docker": "oci"}
_REMOTE_TYPE_RENAMES = {"streamable": "streamable-http", "http": "streamable-http"}


@dataclass
class RegistryEntry:
    """One server version as the registry lists it, with the registry's own metadata."""

    name: str
    version: str | None
    server: dict[str, Any]
    status: str = "active"
    status_message: str | None = None
    published_at: str | None = None
    updated_at: str | None = None
    is_latest: bool | None = None
    invalid: str | None = None  # why the server.json is not usable, when it is not

    @property
    def key(self) -> str:
        return f"{self.name}@{self.version or '?'}"


# -- normalising older dumps ------------------------------------------------------------------


def _camel(key: str) -> str:
    return _CAMEL.sub(lambda m: m.group(1).upper(), key)


def _camel_keys(value: Any, *, keep: frozenset[str] = frozenset()) -> Any:
    """Every snake_case key renamed to camelCase, recursively; maps of user names (``variables``,
    ``_meta``) keep their own keys."""
    if isinstance(value, list):
        return [_camel_keys(item) for item in value]
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for key, item in value.items():
        new = key if key.startswith(("$", "_")) or key in keep else _camel(key)
        if new in ("variables",) and isinstance(item, dict):
            out[new] = {name: _camel_keys(spec) for name, spec in item.items()}
        elif key == "_meta":
            out[new] = item
        else:
            out[new] = _camel_keys(item)
    return out


def normalise_server(document: dict[str, Any]) -> dict[str, Any]:
    """A server.json of any dated schema, with the 2025-12-11 field names (the reference's rename table)."""
    server: dict[str, Any] = _camel_keys(document)
    detail = server.pop("versionDetail", None)
    if isinstance(detail, dict) and "version" not in server:
        server["version"] = detail.get("version")
    packages = []
    for package in server.get("packages") or []:
        if not isinstance(package, dict):
            packages.append(package)
            continue
        package = dict(package)
        if "registryName" in package and "registryType" not in package:
            package["registryType"] = package.pop("registryName")
        if "name" in package and "identifier" not in package:
            package["identifier"] = package.pop("name")
        kind: Any = package.get("registryType")  # JSON: a string, or whatever the file holds
        package["registryType"] = _REGISTRY_TYPE_RENAMES.get(kind, kind)
        package.setdefault("transport", {"type": "stdio"})
        packages.append(package)
    if "packages" in server:
        server["packages"] = packages
    remotes = []
    for remote in server.get("remotes") or []:
        if isinstance(remote, dict):
            remote = dict(remote)
            kind = remote.pop("transportType", None)
            if kind and "type" not in remote:
                remote["type"] = _REMOTE_TYPE_RENAMES.get(kind, kind)
        remotes.append(remote)
    if "remotes" in server:
        server["remotes"] = remotes
    return server


def _official(meta: Any) -> dict[str, Any]:
    official = (meta or {}).get(OFFICIAL_META) if isinstance(meta, dict) else None
    return _camel_keys(official) if isinstance(official, dict) else {}


def entry_from_item(item: Any) -> RegistryEntry:
    """One list item (``{"server": …, "_meta": …}``) or a bare server.json, as an entry."""
    if isinstance(item, dict) and isinstance(item.get("server"), dict):
        document, official = item["server"], _official(item.get("_meta"))
    elif isinstance(item, dict):
        document, official = item, {}
    else:
        return RegistryEntry(
            "(unnamed)", None, {}, invalid=f"an entry must be a JSON object, not {item!r:.60}"
        )
    server = normalise_server(document)
    # Before 2025-09-29 status and the official metadata lived inside server.json itself.
    official = {**_official(server.pop("_meta", None)), **official}
    if "status" in server and "status" not in official:
        official["status"] = server.pop("status")
    server.pop("status", None)
    if isinstance(document.get("version_detail"), dict):
        detail = _camel_keys(document["version_detail"])
        official.setdefault("publishedAt", detail.get("releaseDate"))
        official.setdefault("isLatest", detail.get("isLatest"))
    if isinstance(document.get("_meta"), dict):
        server["_meta"] = {k: v for k, v in document["_meta"].items() if k != OFFICIAL_META}
    name = server.get("name")
    version = server.get("version")
    entry = RegistryEntry(
        name=name if isinstance(name, str) and name else "(unnamed)",
        version=version if isinstance(version, str) and version else None,
        server=server,
        status=official.get("status") or "active",
        status_message=official.get("statusMessage"),
        published_at=official.get("publishedAt"),
        updated_at=official.get("updatedAt") or official.get("publishedAt"),
        is_latest=official.get("isLatest"),
    )
    entry.invalid = _invalid(entry)
    return entry


def _invalid(entry: RegistryEntry) -> str | None:
    server = entry.server
    name = server.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        return f"field 'name' {name!r} is not a registry name like 'io.github.user/server'"
    if entry.version is None:
        return "field 'version' is missing; a registry entry names one specific version"
    if entry.status not in STATUSES:
        return f"registry status {entry.status!r} is not one of {', '.join(STATUSES)}"
    for where in ("packages", "remotes"):
        items = server.get(where, [])
        if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
            return f"field '{where}' must be a list of objects"
    return None


# -- reading pages, dumps and folders ----------------------------------------------------------


def _page_items(page: Any, origin: str) -> tuple[list[Any], str | None]:
    """The items of one list page and its next cursor (``nextCursor``, or the preview ``next_cursor``)."""
    if isinstance(page, list):
        return page, None
    if not isinstance(page, dict):
        raise UsageError(f"{origin} is not a registry list page: expected an object with 'servers'")
    if "servers" not in page:
        if "name" in page or "server" in page:
            return [page], None  # one server.json or one ServerResponse
        raise UsageError(f"{origin} has no 'servers' list; is it a /v0.1/servers page or a server.json?")
    items = page["servers"]
    if not isinstance(items, list):
        raise UsageError(f"{origin}: field 'servers' must be a list")
    metadata = page.get("metadata") or {}
    cursor = metadata.get("nextCursor") or metadata.get("next_cursor") if isinstance(metadata, dict) else None
    return items, cursor or None


def read_file_entries(path: Path) -> list[RegistryEntry]:
    """Entries of a saved dump (one list page, a list of pages or of items) or of a folder of
    server.json files."""
    files = sorted(path.rglob("*.json")) if path.is_dir() else [path]
    if path.is_dir() and not files:
        raise UsageError(f"{path} holds no .json files; give a folder of server.json files or a dump")
    entries: list[RegistryEntry] = []
    for file in files:
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            if not path.is_dir():
                raise UsageError(f"{file} is not readable JSON ({exc}); give a registry dump") from None
            entries.append(
                RegistryEntry(file.name, None, {}, invalid=f"{file.name} is not valid JSON: {exc}")
            )
            continue
        pages = (
            data
            if isinstance(data, list) and all(isinstance(p, dict) and "servers" in p for p in data)
            else [data]
        )
        for page in pages:
            items, _ = _page_items(page, str(file))
            entries.extend(entry_from_item(item) for item in items)
    return entries


def _api_base(url: str) -> str:
    """The ``/v0.1`` base of a registry URL (given bare, with its version prefix, or with /servers)."""
    url = url.rstrip("/").removesuffix("/servers")
    if re.search(r"/v0(\.\d+)?$", url):
        return url
    return url + "/v0.1"


def fetch_entries(
    url: str,
    *,
    updated_since: str | None = None,
    timeout: float = 30.0,
) -> Iterator[RegistryEntry]:
    """Every entry the registry at ``url`` lists, page by page (deleted ones too when ``updated_since``)."""
    import httpx

    base = _api_base(url)
    params: dict[str, Any] = {"limit": PAGE_LIMIT}
    if updated_since:
        params["updated_since"] = updated_since
    cursor: str | None = None
    with httpx.Client(
        timeout=timeout, follow_redirects=True, headers={"Accept": "application/json"}
    ) as client:
        for _ in range(MAX_PAGES):
            query = urlencode({**params, **({"cursor": cursor} if cursor else {})})
            page_url = f"{base}/servers?{query}"
            try:
                response = client.get(page_url)
            except httpx.HTTPError as exc:
                raise UsageError(f"cannot read the registry at {page_url}: {exc}") from None
            if response.status_code != 200:
                raise UsageError(
                    f"the registry at {page_url} answered HTTP {response.status_code}; "
                    "check the URL (it should serve /v0.1/servers)"
                )
            try:
                page = response.json()
            except ValueError:
                raise UsageError(f"the registry at {page_url} did not answer JSON") from None
            items, next_cursor = _page_items(page, page_url)
            yield from (entry_from_item(item) for item in items)
            if not next_cursor or next_cursor == cursor:
                return
            cursor = next_cursor
    raise UsageError(f"the registry at {url} kept paging past {MAX_PAGES} pages; stopped")


def read_entries(source: str, *, updated_since: str | None = None) -> list[RegistryEntry]:
    """Entries from a registry URL, a saved dump or a folder; a file's entries are filtered on
    ``updated_since`` here, as the service filters its own."""
    if source.startswith(("http://", "https://")):
        return list(fetch_entries(source, updated_since=updated_since))
    path = Path(source)
    if not path.exists():
        raise UsageError(
            f"--from-registry {source!r} is neither an http(s) URL nor an existing file or folder"
        )
    entries = read_file_entries(path)
    if updated_since:
        entries = [e for e in entries if e.updated_at is None or e.updated_at > updated_since]
    return entries
