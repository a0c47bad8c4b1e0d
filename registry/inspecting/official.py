"""Entries of the official MCP Registry (``/v0.1``): read list pages, dumps or server.json files,
normalise every dated schema to the current field names, pick the versions to inspect, and turn an
entry into a runnable target.

Reading a URL uses httpx (imported on use); everything else is plain data. An entry that cannot
run (unknown ``registryType``, no version, a required secret not supplied) is not an exception
that stops a crawl: :func:`entry_launch` raises :class:`EntrySkipped` or :class:`EntryInvalid`
with the reason, and the caller records it and goes on.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

from registry.core.errors import UsageError
from registry.core.versions import semver_key

OFFICIAL_REGISTRY = "https://registry.modelcontextprotocol.io"
OFFICIAL_META = "io.modelcontextprotocol.registry/official"
STATUSES = ("active", "deprecated", "deleted")
PAGE_LIMIT = 100  # the service's maximum page size
MAX_PAGES = 10_000  # a registry whose cursor never ends would page forever

_NAME = re.compile(r"^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$")
_CAMEL = re.compile(r"_([a-z0-9])")
_VARIABLE = re.compile(r"\{([A-Za-z0-9_.-]+)\}")
# Older registry types with their current names; ``homebrew`` has no current equivalent.
_REGISTRY_TYPE_RENAMES = {"docker": "oci"}
_REMOTE_TYPE_RENAMES = {"streamable": "streamable-http", "http": "streamable-http"}
_RUNNABLE_TYPES = ("npm", "pypi", "oci")
# What npx, uvx and docker need from our environment to reach their registries (certificates,
# proxies, their own settings); an MCP server's default environment leaves these out.
_RUNNER_ENV = re.compile(
    r"^(SSL_CERT_(FILE|DIR)|NODE_EXTRA_CA_CERTS|REQUESTS_CA_BUNDLE|(HTTPS?|NO|ALL)_PROXY|(https?|no|all)_proxy"
    r"|UV_[A-Z_]+|NPM_CONFIG_[A-Z_]+|npm_config_[a-z_]+|PIP_[A-Z_]+|DOCKER_[A-Z_]+|XDG_CACHE_HOME)$"
)
_REMOTE_TYPES = ("streamable-http", "sse")


class EntryInvalid(Exception):
    """The entry cannot be turned into a server to inspect; the message says why."""


class EntrySkipped(Exception):
    """The entry could run, but not with what was supplied (a required secret or argument)."""


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


@dataclass
class Launch:
    """How to start or reach an entry: a command line with its environment, or a URL with headers."""

    transport: str  # "stdio" | "streamable-http" | "sse"
    argv: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    kind: str = ""  # npm | pypi | oci | remote


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
    server = _camel_keys(document)
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
        kind = package.get("registryType")
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


# -- choosing versions -----------------------------------------------------------------------


def _later(a: RegistryEntry, b: RegistryEntry) -> bool:
    """Whether ``a`` is a later version than ``b`` by the registry's aggregator rule."""
    if bool(a.is_latest) != bool(b.is_latest):
        return bool(a.is_latest)
    ka, kb = semver_key(a.version or ""), semver_key(b.version or "")
    if ka is not None and kb is not None:
        return ka > kb
    if ka is None and kb is None:
        return (a.published_at or "") > (b.published_at or "")
    return ka is not None


def _preferred(a: RegistryEntry, b: RegistryEntry) -> bool:
    """Whether ``a`` is the version to inspect rather than ``b``: an active one first, then the later."""
    if (a.status == "active") != (b.status == "active"):
        return a.status == "active"
    return _later(a, b)


def select_entries(
    entries: list[RegistryEntry], *, all_versions: bool
) -> tuple[list[RegistryEntry], list[RegistryEntry]]:
    """The entries to act on, and the older versions passed over.

    Acted on: per server the latest active version, else the latest deprecated one (every version
    with ``all_versions``), plus every deleted and every invalid entry (recorded, never inspected). A
    deprecated version the registry marks ``isLatest: false`` is never taken, so an incremental page
    holding only an older version that was just deprecated does not inspect it."""
    unique: dict[tuple[str, str | None], RegistryEntry] = {}
    for entry in entries:
        unique[(entry.name, entry.version)] = entry  # a later page's copy is the newer one
    chosen: list[RegistryEntry] = []
    older: list[RegistryEntry] = []
    latest: dict[str, RegistryEntry] = {}
    for entry in unique.values():
        if entry.invalid or entry.status == "deleted" or all_versions:
            chosen.append(entry)
        elif entry.is_latest is False and entry.status != "active":
            older.append(entry)
        elif entry.name not in latest:
            latest[entry.name] = entry
        elif _preferred(entry, latest[entry.name]):
            older.append(latest[entry.name])
            latest[entry.name] = entry
        else:
            older.append(entry)
    chosen.extend(latest.values())

    def order(e: RegistryEntry) -> tuple:
        return (e.name, semver_key(e.version or "") or (), e.version or "")

    return sorted(chosen, key=order), sorted(older, key=order)


# -- from an entry to a runnable server --------------------------------------------------------


@dataclass
class Inputs:
    """Values the user supplied: ``values`` by input name (env var, argument, variable, header),
    ``per_server`` the same keyed by registry name first."""

    values: dict[str, str] = field(default_factory=dict)
    per_server: dict[str, dict[str, str]] = field(default_factory=dict)

    def lookup(self, server: str, *names: str) -> str | None:
        for source in (self.per_server.get(server) or {}, self.values):
            for name in names:
                if name and name in source:
                    return source[name]
        return None


def load_secrets(path: str) -> Inputs:
    """A secrets file: a JSON object of ``NAME: value``, or ``"registry/name": {NAME: value}`` for one
    server."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UsageError(f"--secrets {path}: not a readable JSON file ({exc})") from None
    if not isinstance(data, dict):
        raise UsageError(f"--secrets {path}: expected a JSON object of NAME: value (or server: {{...}})")
    inputs = Inputs()
    for key, value in data.items():
        if isinstance(value, dict):
            inputs.per_server[key] = {str(k): str(v) for k, v in value.items()}
        elif isinstance(value, str | int | float | bool):
            inputs.values[key] = str(value).lower() if isinstance(value, bool) else str(value)
        else:
            raise UsageError(f"--secrets {path}: value of {key!r} must be a string or an object")
    return inputs


class _Resolver:
    """Fills an entry's inputs from ``inputs``; with ``placeholders`` a required input nobody gave
    becomes ``<name>`` (for a config snippet the user completes) instead of skipping the entry."""

    def __init__(self, entry: RegistryEntry, inputs: Inputs, *, placeholders: bool = False) -> None:
        self.entry, self.inputs, self.placeholders = entry, inputs, placeholders

    def value(self, spec: dict[str, Any], *names: str, what: str) -> str | None:
        """An input's value: its fixed ``value``, the user's, else its ``default``; with ``{vars}`` filled.

        A required input with none raises EntrySkipped naming it (and whether it is a secret)."""
        raw = spec.get("value")
        if raw is None:
            raw = self.inputs.lookup(self.entry.name, *names)
        if raw is None:
            raw = spec.get("default")
        if raw is None:
            if spec.get("isRequired") and self.placeholders:
                return f"<{names[0]}>"
            if spec.get("isRequired"):
                kind = "secret" if spec.get("isSecret") else "input"
                raise EntrySkipped(
                    f"required {kind} {what} not supplied (give it with --env {names[0]}=VALUE, "
                    f"--header or --secrets)"
                )
            return None
        raw = str(raw).lower() if isinstance(raw, bool) else str(raw)
        choices = spec.get("choices")
        if isinstance(choices, list) and choices and raw not in map(str, choices) and not self.placeholders:
            raise EntrySkipped(f"{what} is {raw!r}, not one of {', '.join(map(str, choices))}")
        return self.fill(raw, spec.get("variables") or {}, what)

    def fill(self, text: str, variables: Mapping[str, Any], what: str) -> str:
        def one(match: re.Match[str]) -> str:
            name = match.group(1)
            spec = variables.get(name)
            if not isinstance(spec, dict):
                return match.group(0)  # an undefined {x} stays literal
            return self.value(spec, name, what=f"{{{name}}} of {what}") or ""

        return _VARIABLE.sub(one, text)

    def arguments(self, specs: Any, where: str) -> list[str]:
        out: list[str] = []
        for spec in specs or []:
            if not isinstance(spec, dict):
                raise EntryInvalid(f"{where} must hold argument objects")
            kind = spec.get("type")
            if kind == "named":
                flag = spec.get("name")
                if not isinstance(flag, str) or not flag:
                    raise EntryInvalid(f"a named argument in {where} has no 'name'")
                value = self.value(spec, flag.lstrip("-"), flag, what=f"argument {flag}")
                if value is None:
                    continue
                out.extend([flag, value] if value else [flag])
            elif kind == "positional":
                hint = spec.get("valueHint") or ""
                value = self.value(spec, hint, what=f"argument <{hint or 'positional'}>")
                if value is not None and value != "":
                    out.append(value)
            else:
                raise EntryInvalid(f"argument type {kind!r} in {where} is neither 'positional' nor 'named'")
        return out

    def pairs(self, specs: Any, where: str) -> dict[str, str]:
        out: dict[str, str] = {}
        for spec in specs or []:
            if not isinstance(spec, dict) or not isinstance(spec.get("name"), str):
                raise EntryInvalid(f"every entry of {where} needs a 'name'")
            # A whole value the user gave (--header 'Authorization: …') wins over the entry's template.
            value = self.inputs.lookup(self.entry.name, spec["name"])
            if value is None:
                value = self.value(spec, spec["name"], what=f"{spec['name']} ({where})")
            if value is not None:
                out[spec["name"]] = value
        return out


def _uvx() -> list[str] | None:
    """How to run ``uvx``: on PATH, beside this Python, or the binary the ``uv`` package ships."""
    found = shutil.which("uvx") or shutil.which("uvx", path=str(Path(sys.executable).parent))
    if found:
        return [found]
    try:
        from uv import find_uv_bin
    except ImportError:
        return None
    return [find_uv_bin(), "tool", "run"]


def _package_launch(
    entry: RegistryEntry, package: dict[str, Any], inputs: Inputs, *, for_config: bool = False
) -> Launch:
    """The command of a package; ``for_config`` writes it as a client config would (the runtimes by
    name, placeholders for what the user must fill in, none of our environment)."""
    resolve = _Resolver(entry, inputs, placeholders=for_config)
    kind = package.get("registryType")
    identifier = package.get("identifier")
    if not isinstance(identifier, str) or not identifier:
        raise EntryInvalid(f"the {kind} package has no 'identifier'")
    version = package.get("version")
    runtime = resolve.arguments(package.get("runtimeArguments"), "runtimeArguments")
    arguments = resolve.arguments(package.get("packageArguments"), "packageArguments")
    env = resolve.pairs(package.get("environmentVariables"), "environmentVariables")
    if kind in ("npm", "pypi") and not version:
        raise EntryInvalid(f"the {kind} package {identifier} has no 'version'")
    if kind == "npm":
        argv = ["npx", "-y", *runtime, f"{identifier}@{version}", *arguments]
    elif kind == "pypi" and for_config:
        argv = ["uvx", *runtime, f"{identifier}=={version}", *arguments]
    elif kind == "pypi":
        uvx = _uvx()
        if uvx is None:
            raise EntrySkipped("uvx is not installed; install uv (pip install uv) to run PyPI entries")
        argv = [*uvx, *runtime, f"{identifier}=={version}", *arguments]
    else:
        image = identifier
        # Before 2025-10-11 the tag was the separate version field.
        if version and ":" not in image.rsplit("/", 1)[-1] and "@" not in image:
            image = f"{image}:{version}"
        forwarded = [flag for name in env for flag in ("-e", name)]
        argv = ["docker", "run", "-i", "--rm", *runtime, *forwarded, image, *arguments]
    transport = package.get("transport") or {"type": "stdio"}
    if transport.get("type") not in (None, "stdio"):
        raise EntrySkipped(
            f"the {kind} package serves {transport.get('type')} on a local port; only stdio packages are run"
        )
    if for_config:
        return Launch("stdio", argv=argv, env=env, kind=kind)
    runner_env = {key: value for key, value in os.environ.items() if _RUNNER_ENV.match(key)}
    return Launch("stdio", argv=argv, env=runner_env | env, kind=kind)


def _remote_launch(
    entry: RegistryEntry, remote: dict[str, Any], inputs: Inputs, *, for_config: bool = False
) -> Launch:
    resolve = _Resolver(entry, inputs, placeholders=for_config)
    kind = remote.get("type")
    if kind not in _REMOTE_TYPES:
        raise EntryInvalid(f"remote type {kind!r} is not streamable-http or sse")
    url = remote.get("url")
    if not isinstance(url, str):
        raise EntryInvalid("a remote has no 'url'")
    url = resolve.fill(url, remote.get("variables") or {}, "the remote URL")
    parts = urlsplit(url)
    if not for_config and (parts.scheme not in ("http", "https") or not parts.netloc):
        raise EntryInvalid(f"remote URL {url!r} is not a valid http(s) URL once filled")
    headers = resolve.pairs(remote.get("headers"), "headers")
    return Launch(kind, url=url, headers=headers, kind="remote")


def entry_launch(entry: RegistryEntry, inputs: Inputs) -> Launch:
    """How to run ``entry``: its first runnable package, else its remote (streamable HTTP first).

    Raises EntryInvalid when nothing in it can run, EntrySkipped when a required input is missing."""
    if entry.invalid:
        raise EntryInvalid(entry.invalid)
    packages = entry.server.get("packages") or []
    remotes = sorted(entry.server.get("remotes") or [], key=lambda r: r.get("type") != "streamable-http")
    skipped: list[str] = []
    for package in packages:
        if package.get("registryType") in _RUNNABLE_TYPES:
            try:
                return _package_launch(entry, package, inputs)
            except EntrySkipped as exc:
                skipped.append(str(exc))
    for remote in remotes:
        try:
            return _remote_launch(entry, remote, inputs)
        except EntrySkipped as exc:
            skipped.append(str(exc))
    if skipped:
        raise EntrySkipped(skipped[0])
    kinds = sorted({str(p.get("registryType")) for p in packages})
    if kinds:
        raise EntryInvalid(
            f"registryType {', '.join(kinds)} cannot be run here (runnable: {', '.join(_RUNNABLE_TYPES)})"
        )
    raise EntryInvalid("the entry lists neither packages nor remotes")


def transports_of(server: dict[str, Any]) -> list[str]:
    """``local`` when the entry has a package, ``remote`` when it lists a remote."""
    out = []
    if server.get("packages"):
        out.append("local")
    if server.get("remotes"):
        out.append("remote")
    return out


# -- install snippets -----------------------------------------------------------------------------

_SNIPPET_CLIENTS = (
    ("claude-desktop", "Claude Desktop", "claude_desktop_config.json"),
    ("cursor", "Cursor", ".cursor/mcp.json"),
    ("vscode", "VS Code", ".vscode/mcp.json"),
)
_PLACEHOLDER = re.compile(r"<([A-Za-z0-9_.{}-]+)>")


def _short_name(name: str) -> str:
    return name.rsplit("/", 1)[-1] or name


def _config_launch(server: dict[str, Any]) -> Launch | None:
    """The entry as a client would run it: its first runnable package, else its first remote."""
    entry = entry_from_item(server)
    for package in server.get("packages") or []:
        if isinstance(package, dict) and package.get("registryType") in _RUNNABLE_TYPES:
            try:
                return _package_launch(entry, package, Inputs(), for_config=True)
            except (EntryInvalid, EntrySkipped):
                continue
    remotes = [r for r in server.get("remotes") or [] if isinstance(r, dict)]
    for remote in sorted(remotes, key=lambda r: r.get("type") != "streamable-http"):
        try:
            return _remote_launch(entry, remote, Inputs(), for_config=True)
        except (EntryInvalid, EntrySkipped):
            continue
    return None


class _VSCodePrompts:
    """VS Code asks for ``${input:ID}`` values when the server starts (secrets masked), so its snippet
    refers to prompts where the others hold ``<NAME>`` placeholders."""

    def __init__(self, secrets: set[str]) -> None:
        self.secrets, self.inputs = secrets, {}

    def __call__(self, text: str, owner: str = "") -> str:
        def one(match: re.Match[str]) -> str:
            name = match.group(1)
            ident = re.sub(r"[^A-Za-z0-9_-]", "-", name).strip("-").lower() or "value"
            self.inputs.setdefault(
                ident,
                {"type": "promptString", "id": ident, "description": name,
                 "password": name in self.secrets or owner in self.secrets},
            )  # fmt: skip
            return "${input:" + ident + "}"

        return _PLACEHOLDER.sub(one, text)


def install_snippets(server: dict[str, Any]) -> list[dict[str, str]]:
    """Ready-to-paste client configs for the entry ``server`` (a normalised server.json): one each for
    Claude Desktop, Cursor and VS Code, built from its package (or its remote). ``<NAME>`` marks a
    value the user must fill in. Empty when nothing in the entry can run."""
    launch = _config_launch(server)
    if launch is None:
        return []
    key = _short_name(str(server.get("name") or "server"))
    secrets = {
        str(item.get("name"))
        for package in server.get("packages") or []
        if isinstance(package, dict)
        for item in package.get("environmentVariables") or []
        if isinstance(item, dict) and item.get("isSecret")
    } | {
        str(header.get("name"))
        for remote in server.get("remotes") or []
        if isinstance(remote, dict)
        for header in remote.get("headers") or []
        if isinstance(header, dict) and header.get("isSecret")
    }
    snippets = []
    for client, label, file in _SNIPPET_CLIENTS:
        entry: dict[str, Any]
        prompt = _VSCodePrompts(secrets) if client == "vscode" else (lambda text, owner="": text)
        if launch.transport == "stdio":
            entry = {"command": launch.argv[0], "args": [prompt(arg) for arg in launch.argv[1:]]}
            if client == "vscode":
                entry = {"type": "stdio", **entry}
            if launch.env:
                entry["env"] = {name: prompt(value, name) for name, value in launch.env.items()}
        elif client == "claude-desktop":
            # Claude Desktop's config file starts local servers only: mcp-remote bridges to the URL.
            args = ["-y", "mcp-remote", launch.url or ""]
            for name, value in launch.headers.items():
                args += ["--header", f"{name}:{value}"]
            entry = {"command": "npx", "args": args}
        else:
            entry = {"url": prompt(launch.url or "")}
            if client == "vscode":
                entry = {"type": "http" if launch.transport == "streamable-http" else "sse", **entry}
            if launch.headers:
                entry["headers"] = {name: prompt(value, name) for name, value in launch.headers.items()}
        root = "servers" if client == "vscode" else "mcpServers"
        document: dict[str, Any] = {root: {key: entry}}
        if isinstance(prompt, _VSCodePrompts) and prompt.inputs:
            document = {"inputs": list(prompt.inputs.values()), **document}
        snippets.append(
            {"client": client, "label": label, "file": file, "json": json.dumps(document, indent=2)}
        )
    return snippets
