"""Targets: what to inspect and how to reach it, with every secret kept out of what is recorded.

A target is a stdio command, a streamable-HTTP or SSE URL, or an entry of an ``mcpServers`` client
config file (Claude Desktop, Cursor, VS Code); :meth:`Target.source` and :func:`describe` name it
with secrets redacted, for the snapshot and for error messages.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from registry.core.errors import UsageError

if TYPE_CHECKING:
    from registry.inspecting.oauth import OAuthSettings
    from registry.inspecting.sandbox import SandboxPolicy

TRANSPORTS = ("stdio", "streamable-http", "sse")
REDACTED = "<redacted>"
_SECRET_WORD = re.compile(r"(token|secret|password|passwd|api[-_]?key|auth|credential|private[-_]?key)", re.I)


@dataclass
class Target:
    """What to inspect and how to reach it. Secrets live here, never in the snapshot's ``source``."""

    transport: str  # one of TRANSPORTS
    argv: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    name: str | None = None  # the config entry it came from, if any
    # How to authorize when the server answers 401 (MCP authorization); None sends no OAuth at all.
    oauth: OAuthSettings | None = field(default=None, repr=False, compare=False)
    sandbox: SandboxPolicy | None = None  # a stdio server runs in the sandbox under this policy

    def __post_init__(self) -> None:
        if self.transport not in TRANSPORTS:
            raise UsageError(f"transport {self.transport!r} is not one of {', '.join(TRANSPORTS)}")
        if self.transport == "stdio" and not self.argv:
            raise UsageError("a stdio target needs a command: `mcpdex inspect -- COMMAND [ARGS...]`")
        if self.transport != "stdio" and not self.url:
            raise UsageError(f"a {self.transport} target needs a URL (http://… or https://…)")

    def source(self) -> dict[str, Any]:
        """The snapshot's ``source``: how the server was reached, with every secret redacted."""
        if self.transport == "stdio":
            out: dict[str, Any] = {"transport": "stdio", "target": shlex.join(redact_argv(self.argv))}
            if self.env:
                out["env"] = {key: REDACTED for key in sorted(self.env)}
            if self.cwd:
                out["cwd"] = self.cwd
            if self.sandbox is not None:
                from registry.inspecting.sandbox import named_paths

                out["sandbox"] = self.sandbox.describe(named_paths(self.argv, self.cwd))
        else:
            out = {"transport": self.transport, "target": redact_url(self.url or "")}
            if self.headers:
                out["headers"] = {key: REDACTED for key in sorted(self.headers)}
        if self.name:
            out["configEntry"] = self.name
        return out


def redact_url(url: str) -> str:
    """Drop credentials from a URL: user:password@ and secret-looking query values."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{REDACTED}@" + netloc.rsplit("@", 1)[1]
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        query = urlencode([(k, REDACTED if _SECRET_WORD.search(k) else v) for k, v in pairs], safe="<>")
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def redact_argv(argv: Sequence[str]) -> list[str]:
    """Redact the values of secret-looking flags (``--api-key X``, ``--token=X``) in a command line."""
    out: list[str] = []
    hide_next = False
    for arg in argv:
        if hide_next:
            out.append(REDACTED)
            hide_next = False
        elif arg.startswith("-") and "=" in arg and _SECRET_WORD.search(arg.split("=", 1)[0]):
            out.append(arg.split("=", 1)[0] + "=" + REDACTED)
        elif arg.startswith("-") and _SECRET_WORD.search(arg):
            out.append(arg)
            hide_next = True
        elif arg.startswith(("http://", "https://")):
            out.append(redact_url(arg))
        else:
            out.append(arg)
    return out


def target_from_string(spec: str, *, transport: str | None = None) -> Target:
    """A URL (streamable HTTP unless ``transport`` says ``sse``) or a shell-style command line."""
    if spec.startswith(("http://", "https://")):
        return Target(transport=transport or "streamable-http", url=spec)
    try:
        argv = shlex.split(spec)
    except ValueError as exc:
        raise UsageError(f"cannot split the command line {spec!r}: {exc}; check its quotes") from None
    return Target(transport="stdio", argv=argv)


# -- client config files (Claude Desktop, Cursor, VS Code) ---------------------------------------

_ENV_REF = re.compile(r"\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}")


def _expand(value: str) -> str:
    # VS Code and Cursor configs reference the environment as ${env:NAME} (or ${NAME}).
    return _ENV_REF.sub(lambda m: os.environ.get(m.group(1), ""), value)


def config_servers(path: str | Path) -> dict[str, Target]:
    """Every server entry of a client config file, by name.

    Accepts ``{"mcpServers": {...}}`` (Claude Desktop, Cursor), ``{"servers": {...}}`` (VS Code's
    mcp.json) and ``{"mcp": {"servers": {...}}}`` (VS Code settings). An entry is either
    ``command``/``args``/``env``/``cwd`` or ``url``/``headers`` with an optional ``type``.
    """
    file = Path(path)
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"config file {file} does not exist; check the path given to --config") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UsageError(f"config file {file} is not readable JSON ({exc}); fix the file") from None
    entries = None
    if isinstance(data, dict):
        entries = data.get("mcpServers") or data.get("servers") or (data.get("mcp") or {}).get("servers")
    if not isinstance(entries, dict):
        raise UsageError(
            f"config file {file} has no 'mcpServers' (or VS Code 'servers') object; "
            'expected {"mcpServers": {"NAME": {"command": ..., "args": [...]}}}'
        )
    return {name: _entry_target(file, name, entry) for name, entry in entries.items()}


def config_sandbox_specs(path: str | Path) -> dict[str, Any]:
    """Each entry's ``sandbox`` object of a config file (how far to widen the sandbox for it), by name."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))  # config_servers has read it already
    entries = data.get("mcpServers") or data.get("servers") or (data.get("mcp") or {}).get("servers")
    if not isinstance(entries, dict):
        return {}
    return {name: entry.get("sandbox") for name, entry in entries.items() if isinstance(entry, dict)}


def _entry_target(file: Path, name: str, entry: Any) -> Target:
    where = f"{file}: mcpServers.{name}"
    if not isinstance(entry, dict):
        raise UsageError(f"{where} must be an object with 'command' or 'url'")
    kind = str(entry.get("type") or entry.get("transport") or "").lower()
    if "url" in entry or kind in ("http", "streamable-http", "streamablehttp", "sse"):
        url = entry.get("url") or entry.get("serverUrl")
        if not isinstance(url, str):
            raise UsageError(f"{where}: field 'url' must be a string URL")
        headers = entry.get("headers") or {}
        if not isinstance(headers, dict):
            raise UsageError(f"{where}: field 'headers' must be an object of header names to values")
        transport = "sse" if kind == "sse" else "streamable-http"
        return Target(
            transport=transport,
            url=_expand(url),
            headers={str(k): _expand(str(v)) for k, v in headers.items()},
            name=name,
            oauth=_entry_oauth(file, where, entry.get("oauth")),
        )
    command = entry.get("command")
    if not isinstance(command, str) or not command:
        raise UsageError(f"{where}: field 'command' (or 'url') is required")
    args = entry.get("args") or []
    env = entry.get("env") or {}
    if not isinstance(args, list) or not isinstance(env, dict):
        raise UsageError(f"{where}: 'args' must be a list and 'env' an object")
    cwd = entry.get("cwd")
    if cwd is not None:
        cwd = str((file.parent / _expand(str(cwd))).resolve())
    return Target(
        transport="stdio",
        argv=[_expand(command), *(_expand(str(a)) for a in args)],
        env={str(k): _expand(str(v)) for k, v in env.items()},
        cwd=cwd,
        name=name,
    )


# An entry's "oauth" object: client credentials for a server behind MCP authorization, so that a crawl
# (which never opens a browser) can reach it. Values may reference the environment, as ${env:NAME}.
_OAUTH_FIELDS = {
    "clientId": "client_id",
    "clientSecret": "client_secret",
    "clientAuth": "client_auth",
    "privateKeyFile": "private_key",
    "scope": "scope",
    "issuer": "issuer",
}


def _entry_oauth(file: Path, where: str, raw: Any) -> OAuthSettings | None:
    if raw is None:
        return None
    from registry.inspecting.oauth import CLIENT_AUTH_METHODS, OAuthSettings, read_private_key

    if not isinstance(raw, dict) or not raw.get("clientId"):
        raise UsageError(
            f"{where}: field 'oauth' must be an object with a \"clientId\" (and a secret or key)"
        )
    unknown = sorted(set(raw) - set(_OAUTH_FIELDS))
    if unknown:
        known = ", ".join(_OAUTH_FIELDS)
        raise UsageError(f"{where}: field 'oauth' has no {', '.join(unknown)}; it takes {known}")
    values = {_OAUTH_FIELDS[key]: _expand(str(value)) for key, value in raw.items()}
    if "private_key" in values:
        values["private_key"] = read_private_key(str(file.parent / values["private_key"]))
        values.setdefault("client_auth", "private-key-jwt")
    if not (values.get("client_secret") or values.get("private_key")):
        raise UsageError(f'{where}: field \'oauth\' needs a "clientSecret" or a "privateKeyFile"')
    method = values.get("client_auth", "basic")
    if method not in CLIENT_AUTH_METHODS:
        raise UsageError(f"{where}: field 'oauth' \"clientAuth\" is one of {', '.join(CLIENT_AUTH_METHODS)}")
    return OAuthSettings(
        client_id=values["client_id"],
        client_secret=values.get("client_secret"),
        client_auth=method,
        private_key=values.get("private_key"),
        scope=values.get("scope"),
        issuer=values.get("issuer"),
        grant="client-credentials",
        interactive=False,
    )


def config_target(path: str | Path, server: str | None) -> Target:
    """One entry of a config file; ``server`` may be omitted when the file has exactly one."""
    entries = config_servers(path)
    if server is None:
        if len(entries) == 1:
            return next(iter(entries.values()))
        raise UsageError(
            f"{path} has {len(entries)} servers; choose one with --server ({', '.join(entries)})"
        )
    if server not in entries:
        raise UsageError(f"{path} has no server {server!r}; choose one of: {', '.join(entries) or '(none)'}")
    return entries[server]


def describe(target: Target) -> str:
    """The target as a reason names it, secrets redacted."""
    if target.transport == "stdio":
        return shlex.join(redact_argv(target.argv))
    return redact_url(target.url or "")
