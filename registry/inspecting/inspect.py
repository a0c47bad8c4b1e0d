"""Inspect an MCP server into a Snapshot: the only MCP client code of the registry.

A target is a stdio command, a streamable-HTTP or SSE URL, or an entry of an ``mcpServers``
client config file. The SDK's ``Client`` does the protocol; a teed transport keeps every
message as it came off the wire, so tools are recorded verbatim (vendor fields included) and
a definition the SDK rejects is still recorded, with the reason in ``problems``. One deadline
bounds the whole inspection, including stopping the server; ``mcp`` is imported only here and
only when an inspection runs, so commands that never inspect start fast.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import shlex
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from registry.core.errors import InspectionError, UsageError
from registry.core.limits import LIMITS, Limits
from registry.core.snapshot import SNAPSHOT_FORMAT, compute_digest
from registry.core.timestamps import utc_now

PROTOCOL_ERAS = ("auto", "legacy", "modern")
TRANSPORTS = ("stdio", "streamable-http", "sse")
REDACTED = "<redacted>"
# A stdio server is stopped politely: its stdin closed, then SIGTERM to its process group, each
# step given this long to work, but never past the deadline; then SIGKILL to the group at once.
_STDIN_CLOSE_GRACE_S = 2.0
_SIGTERM_GRACE_S = 1.0
# The listing's own deadline keeps this much of --timeout back (at most a quarter) for that stop.
_SHUTDOWN_RESERVE_S = 2.0
# After SIGKILL the process is gone in milliseconds; this only bounds waiting to reap it.
_REAP_WAIT_S = 0.3
# Falling back to the handshake on a fresh connection is worth it only with this much time left.
_FALLBACK_MIN_S = 1.0
# A server whose cursors never end would page forever; this bounds it (with a problem recorded), as
# do the item limit and the deadline: paging stops when this share of the time to work has passed.
MAX_PAGES = 1000
_LISTING_SHARE = 0.8
_MAX_ITEMS = next(limit for limit in LIMITS if limit.attribute == "max_tools")
_STDERR_TAIL_LINES = 15
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


# -- the inspection ----------------------------------------------------------------------------


def inspect(
    target: Target | str | Sequence[str],
    *,
    timeout: float = 30.0,
    protocol_era: str = "auto",
    version_label: str | None = None,
    limits: Limits | None = None,
) -> dict[str, Any]:
    """Inspect ``target`` and return its Snapshot; raises InspectionError (one-line reason first).

    ``timeout`` bounds everything, checking what was listed included; ``limits`` (by default those
    of the environment, see ``registry.core.limits``) stop the listing at the item limit and record
    what goes past the others as problems.
    """
    import anyio

    if isinstance(target, str):
        target = target_from_string(target)
    elif not isinstance(target, Target):
        target = Target(transport="stdio", argv=list(target))
    if protocol_era not in PROTOCOL_ERAS:
        raise UsageError(f"--protocol-era must be one of {', '.join(PROTOCOL_ERAS)}, not {protocol_era!r}")
    if timeout <= 0:
        raise UsageError("--timeout must be a positive number of seconds")
    return anyio.run(_inspect_async, target, timeout, protocol_era, version_label, limits)


async def inspect_async(
    target: Target,
    *,
    timeout: float = 30.0,
    protocol_era: str = "auto",
    version_label: str | None = None,
    limits: Limits | None = None,
) -> dict[str, Any]:
    """The same as :func:`inspect`, inside a running event loop (``crawl`` runs several at once)."""
    return await _inspect_async(target, timeout, protocol_era, version_label, limits)


async def _inspect_async(
    target: Target, timeout: float, era: str, version_label: str | None, limits: Limits | None = None
) -> dict[str, Any]:
    import anyio

    limits = limits or Limits.from_env()
    captured_at = utc_now()
    started = time.perf_counter()
    stop_by = anyio.current_time() + timeout
    reserve = min(_SHUTDOWN_RESERVE_S, timeout / 4) if target.transport == "stdio" else 0.0
    wire = _Wire()
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
        try:
            with anyio.fail_after(timeout):
                result = await _negotiated_session(
                    target, era, wire, errlog, stop_by - reserve, stop_by, limits
                )
        except InspectionError as exc:
            raise InspectionError(_with_stderr(str(exc), errlog)) from None
        except BaseException as exc:
            reason = _classify(exc, target, timeout, time.perf_counter() - started, wire)
            if reason is None:
                raise
            raise InspectionError(_with_stderr(reason, errlog)) from None
    result.update(
        format=SNAPSHOT_FORMAT,
        source=target.source() | {"protocolEra": result.pop("_era"), "requestedEra": era},
        capturedAt=captured_at,
    )
    if version_label:
        result["versionLabel"] = version_label
    result["problems"].extend(
        {"code": "over-limit", "where": violation.field, "message": f"{violation.message}; {violation.hint}"}
        for violation in limits.violations(result)
    )
    result["digest"] = compute_digest(result)
    return result


async def _negotiated_session(
    target: Target, era: str, wire: _Wire, errlog: Any, work_by: float, stop_by: float, limits: Limits
) -> dict[str, Any]:
    """:func:`_session`; under ``auto``, a server that died or fell silent on the ``server/discover``
    probe (Python SDK 1.1 servers crash on an unknown method) is inspected again over a fresh
    connection with the initialize handshake (a stdio server is restarted once), and its problems
    say so."""
    import anyio

    if era != "auto":
        return await _session(target, era, wire, errlog, work_by, stop_by, limits)
    try:
        return await _session(target, era, wire, errlog, work_by, stop_by, limits)
    except Exception as exc:  # cancellation is a BaseException and propagates
        if not _died_on_probe(exc, wire) or work_by - anyio.current_time() < _FALLBACK_MIN_S:
            raise
    again = "restarted it" if target.transport == "stdio" else "connected again"
    result = await _session(target, "legacy", wire, errlog, work_by, stop_by, limits)
    result["problems"].insert(
        0,
        {
            "code": "discover-crashed",
            "where": "server/discover",
            "message": "the server stopped answering after the server/discover probe (it should answer "
            f"-32601 Method not found); mcpdex {again} and used the initialize handshake",
        },
    )
    return result


def _died_on_probe(exc: BaseException, wire: _Wire) -> bool:
    """Whether the connection closed or went silent after a ``server/discover`` nothing answered."""
    from mcp import MCPError

    lost = any(isinstance(leaf, MCPError) and leaf.code in (-32000, -32001) for leaf in _leaves(exc))
    return lost and wire.unanswered("server/discover") and wire.handshake_result() is None


async def _session(
    target: Target, era: str, wire: _Wire, errlog: Any, work_by: float, stop_by: float, limits: Limits
) -> dict[str, Any]:
    import anyio
    from mcp import Client
    from mcp.types import Implementation
    from mcp_types.version import LATEST_MODERN_VERSION

    mode = {"auto": "auto", "legacy": "legacy", "modern": LATEST_MODERN_VERSION}[era]
    remaining = max(0.1, work_by - anyio.current_time())
    client = Client(
        _teed(_transport(target, errlog, remaining, stop_by), wire),
        mode=mode,
        cache=None,
        read_timeout_seconds=remaining,
        client_info=Implementation(name="mcpdex", version=_own_version()),
    )
    problems: list[dict[str, str]] = []
    # Paging stops early enough to leave time for checking what was listed and stopping the server.
    bounds = {"max_items": limits.max_tools, "list_by": anyio.current_time() + remaining * _LISTING_SHARE}
    with anyio.fail_after(remaining):
        async with client:
            if era == "modern":
                await _discover_pinned(client, target)
            handshake = wire.handshake_result()
            modern = client.protocol_version == LATEST_MODERN_VERSION
            caps = client.server_capabilities
            tools = await _list_all(
                client.list_tools, "tools/list", "tools", wire, problems, required=True, **bounds
            )
            resources = templates = prompts = []
            if caps.resources is not None:
                resources = await _list_all(
                    client.list_resources, "resources/list", "resources", wire, problems, **bounds
                )
                templates = await _list_all(
                    client.list_resource_templates,
                    "resources/templates/list",
                    "resourceTemplates",
                    wire,
                    problems,
                    **bounds,
                )
            if caps.prompts is not None:
                prompts = await _list_all(
                    client.list_prompts, "prompts/list", "prompts", wire, problems, **bounds
                )
            server_info = _server_info(client, handshake)
            capabilities = (handshake or {}).get("capabilities")
            if not isinstance(capabilities, dict):
                capabilities = caps.model_dump(by_alias=True, mode="json", exclude_none=True)
            instructions = client.instructions
            protocol_version = client.protocol_version
    # The checks are CPU work on what the server sent: bounded by the deadline, not only by its size.
    check_by = time.monotonic() + max(0.0, work_by - anyio.current_time())
    tools = _check_items("tools", tools, modern, problems, check_by)
    resources = _check_items("resources", resources, modern, problems, check_by)
    templates = _check_items("resourceTemplates", templates, modern, problems, check_by)
    prompts = _check_items("prompts", prompts, modern, problems, check_by)
    problems.extend(wire.stream_problems())
    if not server_info.get("name"):
        problems.append(
            {
                "code": "no-server-info",
                "where": "serverInfo",
                "message": "the server did not identify itself; name the version with --version-label",
            }
        )
    return {
        "server": {
            "name": server_info.get("name"),
            "title": server_info.get("title"),
            "version": server_info.get("version"),
            "instructions": instructions,
        },
        "protocolVersion": protocol_version,
        "capabilities": capabilities,
        "tools": tools,
        "resources": resources,
        "resourceTemplates": templates,
        "prompts": prompts,
        "problems": problems,
        "_era": "modern" if modern else "legacy",
    }


async def _discover_pinned(client: Any, target: Target) -> None:
    """Under ``--protocol-era modern``, ask the server for its protocol versions and capabilities.

    The SDK pins 2026-07-28 without a word on the wire, and a handshake-only server still answers
    the listings then, in the old shapes and anonymously; ``server/discover`` tells the two apart.
    """
    from mcp import MCPError
    from mcp.types import DiscoverResult
    from mcp_types.version import LATEST_MODERN_VERSION
    from pydantic import ValidationError

    advice = f"it does not speak MCP {LATEST_MODERN_VERSION}; use --protocol-era auto or legacy"
    try:
        raw = await client.session.send_discover(LATEST_MODERN_VERSION)
        # Adopting the answer puts the server's own capabilities in place of the SDK's empty ones.
        client.session.adopt(DiscoverResult.model_validate(raw))
    except MCPError as exc:
        raise InspectionError(
            f"{_what(target)}: server/discover failed (error {exc.code}: {_first_line(exc)}), so {advice}"
        ) from None
    except (ValidationError, RuntimeError) as exc:
        raise InspectionError(
            f"{_what(target)}: server/discover gave no usable {LATEST_MODERN_VERSION} answer "
            f"({_first_line(exc)}), so {advice}"
        ) from None


def _own_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mcpdex")
    except PackageNotFoundError:
        return "0"


def _server_info(client: Any, handshake: dict | None) -> dict[str, Any]:
    raw = (handshake or {}).get("serverInfo")
    if raw is None:
        raw = ((handshake or {}).get("_meta") or {}).get("io.modelcontextprotocol/serverInfo")
    if isinstance(raw, dict):
        return raw
    info = client.server_info
    return info.model_dump(by_alias=True, mode="json", exclude_none=True) if info else {}


async def _list_all(
    call: Any,
    method: str,
    key: str,
    wire: _Wire,
    problems: list[dict[str, str]],
    *,
    required: bool = False,
    max_items: int = Limits().max_tools,
    list_by: float = math.inf,
) -> list[Any]:
    """Every item over every page, taken raw from the wire; the SDK's rejection becomes a problem.

    Paging also stops, with a problem, past ``max_items`` items and at ``list_by`` (an
    ``anyio.current_time()``): a server sending fresh cursors forever keeps what was listed by then.
    """
    import anyio
    from mcp import MCPError
    from pydantic import ValidationError

    items: list[Any] = []
    cursor: str | None = None
    seen: set[str] = set()
    for page in range(MAX_PAGES):
        mark = wire.mark()
        try:
            # The first page may take the whole deadline; the next ones only until ``list_by``.
            with anyio.move_on_after(max(0.0, list_by - anyio.current_time()) if page else None) as waited:
                await call(cursor=cursor)
        except ValidationError:
            # Recorded item by item below; the raw page is still on the wire.
            pass
        except MCPError as exc:
            if exc.code == -32601 and page == 0:
                # "Method not found" on the first page means none: a server that advertises
                # resources need not implement resources/templates/list, nor any list at all.
                return items
            if not required:
                problems.append(
                    {"code": "list-failed", "where": method, "message": f"{method} failed: {exc}"}
                )
                return items
            if exc.code == -32000:
                raise InspectionError(
                    f"the server closed the connection during {method} page {page + 1} (it exited or crashed)"
                ) from None
            raise InspectionError(f"{method} failed on page {page + 1}: {exc}") from None
        if waited.cancelled_caught:
            problems.append(_listing_deadline(method, key, page, items))
            return items
        raw = wire.result_since(mark, method)
        if not isinstance(raw, dict):
            raise InspectionError(f"{method} page {page + 1}: the server sent no usable result")
        page_items = raw.get(key)
        if not isinstance(page_items, list):
            problems.append(
                {
                    "code": "invalid-list",
                    "where": method,
                    "message": f"page {page + 1}: '{key}' is not a list",
                }
            )
            return items
        items.extend(page_items)
        if len(items) > max_items:
            problems.append(
                {
                    "code": "over-limit",
                    "where": method,
                    "message": f"stopped at {max_items:,} {key} (page {page + 1}), the limit of "
                    f"{_MAX_ITEMS.what}; the rest are not recorded ({_MAX_ITEMS.option} or "
                    f"{_MAX_ITEMS.env} raises it)",
                }
            )
            return items[:max_items]
        cursor = raw.get("nextCursor")
        if not cursor:
            return items
        if not isinstance(cursor, str) or cursor in seen:
            problems.append(
                {
                    "code": "cursor-loop",
                    "where": method,
                    "message": f"page {page + 1}: nextCursor repeats or is not a string",
                }
            )
            return items
        seen.add(cursor)
        if anyio.current_time() >= list_by:
            problems.append(_listing_deadline(method, key, page + 1, items))
            return items
    problems.append(
        {"code": "too-many-pages", "where": method, "message": f"stopped after {MAX_PAGES} pages"}
    )
    return items


def _listing_deadline(method: str, key: str, pages: int, items: list[Any]) -> dict[str, str]:
    return {
        "code": "listing-deadline",
        "where": method,
        "message": f"stopped after {pages} page(s) and {len(items):,} {key} at the --timeout deadline, "
        "the server still sending cursors; the rest are not recorded (raise --timeout if it ends)",
    }


_ITEM_MODEL = {
    "tools": "Tool",
    "resources": "Resource",
    "resourceTemplates": "ResourceTemplate",
    "prompts": "Prompt",
}


def _check_items(
    key: str, items: list[Any], modern: bool, problems: list[dict[str, str]], check_by: float = math.inf
) -> list[dict[str, Any]]:
    """Keep each item as sent; note what the era's wire schema (and JSON Schema itself) rejects.

    Items left when ``check_by`` (a ``time.monotonic()``) passes are kept unchecked, with a problem.
    """
    from jsonschema import SchemaError, validators
    from pydantic import ValidationError

    # The era-specific wire models are what the SDK validates list results against.
    if modern:
        import mcp_types._v2026_07_28 as wire_types
    else:
        import mcp_types._v2025_11_25 as wire_types
    model = getattr(wire_types, _ITEM_MODEL[key])
    kept: list[dict[str, Any]] = []
    seen_names: set[str] = set()
    schema_errors: dict[str, str | None] = {}
    for index, item in enumerate(items):
        if time.monotonic() > check_by:
            problems.append(
                {
                    "code": "unchecked",
                    "where": key,
                    "message": f"{len(items) - index:,} of {len(items):,} {key} were kept without being "
                    "checked against the protocol's schema: the --timeout deadline came first",
                }
            )
            kept.extend(item for item in items[index:] if isinstance(item, dict))
            break
        where = f"{key}[{index}]"
        name = item.get("name") if isinstance(item, dict) else None
        if not isinstance(name, str):
            preview = json.dumps(item, ensure_ascii=False)[:200]
            problems.append(
                {"code": "unnamed-item", "where": where, "message": f"dropped: no string 'name' in {preview}"}
            )
            continue
        if name in seen_names:
            problems.append(
                {"code": "duplicate-name", "where": where, "message": f"{name!r} is listed twice"}
            )
        seen_names.add(name)
        try:
            model.model_validate(item)
        except ValidationError as exc:
            reasons = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or '(item)'}: {err['msg']}"
                for err in exc.errors()[:5]
            )
            code = {"tools": "invalid-tool"}.get(key, "invalid-item")
            problems.append({"code": code, "where": where, "message": f"{name}: {reasons}"})
        for schema_key in ("inputSchema", "outputSchema") if key == "tools" else ():
            schema = item.get(schema_key)
            if isinstance(schema, dict):
                text = json.dumps(schema, sort_keys=True)
                if text not in schema_errors:
                    # Servers repeat schemas across tools; checking each distinct one once keeps
                    # thousands of tools fast.
                    try:
                        validators.validator_for(schema).check_schema(schema)
                        schema_errors[text] = None
                    except SchemaError as exc:
                        schema_errors[text] = exc.message
                if schema_errors[text] is not None:
                    problems.append(
                        {
                            "code": "invalid-json-schema",
                            "where": f"{where}.{schema_key}",
                            "message": f"{name}: {schema_errors[text]}",
                        }
                    )
        kept.append(item)
    return kept


# -- transports and the wire tee ---------------------------------------------------------------


def _transport(target: Target, errlog: Any, timeout: float, stop_by: float | None = None) -> Any:
    if target.transport == "stdio":
        return _stdio(target, errlog, stop_by)
    import httpx2

    if target.transport == "sse":
        from mcp.client.sse import sse_client

        return sse_client(
            target.url or "", headers=target.headers or None, timeout=timeout, sse_read_timeout=timeout
        )
    from mcp.client.streamable_http import streamable_http_client

    return _owned_http(target, timeout, httpx2, streamable_http_client)


@asynccontextmanager
async def _stdio(target: Target, errlog: Any, stop_by: float | None) -> AsyncIterator[tuple[Any, Any]]:
    """Run a stdio server in its own process group and exchange newline-delimited JSON-RPC with it.

    Our own rather than the SDK's ``stdio_client``, whose fixed 2 s + 2 s stop can overrun a short
    deadline: here each polite step ends at ``stop_by`` (an ``anyio.current_time()``), and the
    whole group is SIGKILLed then; what left the group (``setsid()``) is found and ended by
    ``registry.inspecting.processes``, so neither the server nor anything it spawned outlives us.
    """
    import anyio
    from mcp.client.stdio import get_default_environment

    from registry.inspecting import processes

    processes.become_subreaper()
    mark = processes.new_mark()
    process = await anyio.open_process(
        target.argv,
        env=get_default_environment() | target.env | mark,
        stderr=errlog,
        cwd=target.cwd,
        start_new_session=True,
    )
    to_session, from_server = anyio.create_memory_object_stream[Any](0)
    to_server, from_session = anyio.create_memory_object_stream[Any](0)

    async def read_stdout() -> None:
        # Only each new chunk is searched for line ends, so a line of any length costs time linear
        # in its size (splitting the whole buffer on every chunk was quadratic: 30 s for 50 MB).
        partial = bytearray()
        async with to_session:
            with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                async for chunk in process.stdout:
                    lines = chunk.split(b"\n")
                    if len(lines) == 1:
                        partial += chunk
                        continue
                    lines[0] = bytes(partial + lines[0])
                    partial = bytearray(lines.pop())
                    for line in lines:
                        if line.strip():
                            # Once the session is gone, keep draining: a server blocked writing
                            # stdout could not see its stdin close.
                            with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                                await to_session.send(_parse_line(bytes(line)))

    async def write_stdin() -> None:
        async with from_session:
            try:
                async for item in from_session:
                    data = item.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                    await process.stdin.send(data.encode("utf-8"))
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                # The server stopped reading: end the session's reads rather than leave it waiting.
                await to_session.aclose()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(read_stdout)
        tasks.start_soon(write_stdin)
        try:
            yield from_server, to_server
        finally:
            # Shielded so a cancelled inspection still stops the server; every wait is bounded.
            with anyio.CancelScope(shield=True):
                await _stop(process, stop_by, mark)
            tasks.cancel_scope.cancel()


def _parse_line(line: bytes) -> Any:
    """A message off stdout, or the parse error as a value (the tee records it as junk)."""
    import mcp_types
    from mcp.shared.message import SessionMessage

    # Invalid UTF-8 becomes U+FFFD (and a problem) instead of ending the read loop.
    text = line.decode("utf-8", errors="replace")
    try:
        return SessionMessage(mcp_types.jsonrpc_message_adapter.validate_json(text, by_name=False))
    except ValueError as exc:
        # The SDK's parser refuses JSON that Python reads: nesting past its recursion limit (a schema a
        # few hundred levels deep) and lone UTF-16 surrogate escapes. Dropping such an answer as junk
        # left its request waiting out the whole deadline; it is kept instead, its deepest part
        # replaced by a note (the depth limit records a problem) and each lone surrogate by U+FFFD
        # (recorded as invalid-utf8).
        from registry.core.strict_json import prune_depth

        try:
            repaired = _lone_surrogates_replaced(prune_depth(json.loads(text)))
            return SessionMessage(mcp_types.jsonrpc_message_adapter.validate_python(repaired, by_name=False))
        except (ValueError, RecursionError):
            return exc


def _lone_surrogates_replaced(value: Any) -> Any:
    """``value`` with every lone surrogate in its strings and keys replaced by U+FFFD (depth-bounded)."""
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    if isinstance(value, dict):
        return {_lone_surrogates_replaced(k): _lone_surrogates_replaced(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_lone_surrogates_replaced(item) for item in value]
    return value


async def _stop(process: Any, stop_by: float | None, mark: dict[str, str]) -> None:
    """Close stdin, then SIGTERM the group, then SIGKILL it; reap the server; then end every other
    descendant (those that left the group with setsid() included). Ends by ``stop_by``."""
    import signal

    import anyio

    from registry.inspecting import processes

    # Read while the server lives: once it exits, its children's parentage no longer leads to it.
    strays = processes.descendants(process.pid)

    def until(grace: float) -> float:
        end = anyio.current_time() + grace
        return end if stop_by is None else min(end, stop_by)

    with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await process.stdin.aclose()
    if not await _exited(process, until(_STDIN_CLOSE_GRACE_S)):
        _signal_group(process.pid, signal.SIGTERM)
        await _exited(process, until(_SIGTERM_GRACE_S))
    # Even after the server exited: what it spawned (npx, a shell) may still run in its group.
    _signal_group(process.pid, signal.SIGKILL)
    with anyio.move_on_after(_REAP_WAIT_S):
        await process.aclose()
    processes.end((strays | processes.marked(mark)) - {process.pid})


async def _exited(process: Any, end: float) -> bool:
    import anyio

    with anyio.move_on_after(max(0.0, end - anyio.current_time())):
        await process.wait()
    return process.returncode is not None


def _signal_group(pid: int, sig: int) -> None:
    # The server leads its own session, so its process group id is its pid.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


def _owned_http(target: Target, timeout: float, httpx2: Any, streamable_http_client: Any) -> Any:
    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def connect():
        async with (
            httpx2.AsyncClient(
                headers=target.headers, timeout=httpx2.Timeout(timeout), follow_redirects=True
            ) as http,
            streamable_http_client(target.url or "", http_client=http) as streams,
        ):
            yield streams

    return connect()


class _Wire:
    """Everything that crossed the transport: outgoing requests, incoming messages, junk lines."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.received: list[dict[str, Any]] = []
        self.junk: list[str] = []

    def mark(self) -> int:
        return len(self.sent)

    def _response(self, request_id: Any) -> dict | None:
        for message in reversed(self.received):
            if message.get("id") == request_id and "method" not in message:
                return message
        return None

    def result_since(self, mark: int, method: str) -> Any:
        for request in reversed(self.sent[mark:]):
            if request.get("method") == method:
                response = self._response(request.get("id"))
                return None if response is None else response.get("result")
        return None

    def unanswered(self, method: str) -> bool:
        """Whether ``method`` was sent and no response to it came back."""
        return any(
            request.get("method") == method and self._response(request.get("id")) is None
            for request in self.sent
        )

    def handshake_result(self) -> dict | None:
        for method in ("initialize", "server/discover"):
            for request in reversed(self.sent):
                if request.get("method") == method:
                    response = self._response(request.get("id"))
                    if response and isinstance(response.get("result"), dict):
                        return response["result"]
        return None

    def stream_problems(self) -> list[dict[str, str]]:
        problems = []
        if self.junk:
            sample = "; ".join(self.junk[:3])
            problems.append(
                {
                    "code": "non-protocol-output",
                    "where": "stdout",
                    "message": f"{len(self.junk)} line(s) on stdout were not JSON-RPC "
                    f"(logs belong on stderr): {sample}",
                }
            )
        if any("\ufffd" in json.dumps(m, ensure_ascii=False) for m in self.received):
            problems.append(
                {
                    "code": "invalid-utf8",
                    "where": "stdout",
                    "message": "the server sent bytes that are not UTF-8 or escapes that are not "
                    "Unicode (a lone surrogate); they were replaced with U+FFFD",
                }
            )
        return problems


def _teed(transport: Any, wire: _Wire) -> Any:
    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def recording():
        async with transport as (read, write):
            yield _TeeRead(read, wire), _TeeWrite(write, wire)

    return recording()


def _junk_line(exc: Exception) -> str:
    """The offending stdout line, from the SDK's parse error."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        with contextlib.suppress(Exception):
            return repr(errors()[0]["input"])[:160]
    return (str(exc).splitlines() or [type(exc).__name__])[0][:160]


class _TeeRead:
    """A read stream that records each inbound message before the SDK validates it."""

    def __init__(self, inner: Any, wire: _Wire) -> None:
        self._inner, self._wire = inner, wire

    async def receive(self) -> Any:
        item = await self._inner.receive()
        if isinstance(item, Exception):
            self._wire.junk.append(_junk_line(item))
        else:
            self._wire.received.append(
                item.message.model_dump(by_alias=True, mode="json", exclude_unset=True)
            )
        return item

    async def aclose(self) -> None:
        await self._inner.aclose()

    def close(self) -> None:
        self._inner.close()

    def __aiter__(self) -> _TeeRead:
        return self

    async def __anext__(self) -> Any:
        import anyio

        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    async def __aenter__(self) -> _TeeRead:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class _TeeWrite:
    """A write stream that records each outgoing request (to match responses to methods)."""

    def __init__(self, inner: Any, wire: _Wire) -> None:
        self._inner, self._wire = inner, wire

    async def send(self, item: Any) -> None:
        message = item.message.model_dump(by_alias=True, mode="json", exclude_unset=True)
        if "method" in message and "id" in message:
            self._wire.sent.append({"id": message["id"], "method": message["method"]})
        await self._inner.send(item)

    async def aclose(self) -> None:
        await self._inner.aclose()

    def close(self) -> None:
        self._inner.close()

    async def __aenter__(self) -> _TeeWrite:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


# -- failures ----------------------------------------------------------------------------------


def _leaves(exc: BaseException):
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            yield from _leaves(inner)
    else:
        yield exc


def _classify(exc: BaseException, target: Target, timeout: float, elapsed: float, wire: _Wire) -> str | None:
    """A one-line reason for an inspection failure, or None for what must propagate (cancellation)."""
    import anyio
    from mcp import MCPError
    from pydantic import ValidationError

    leaves = list(_leaves(exc))
    if any(isinstance(e, anyio.get_cancelled_exc_class()) for e in leaves) and not any(
        isinstance(e, TimeoutError) for e in leaves
    ):
        return None
    if any(isinstance(e, KeyboardInterrupt | SystemExit) for e in leaves):
        return None
    what = _what(target)
    for leaf in leaves:
        if isinstance(leaf, InspectionError):
            return str(leaf)
        if isinstance(leaf, TimeoutError) or (isinstance(leaf, MCPError) and leaf.code == -32001):
            stage = "after the handshake" if wire.handshake_result() else "before answering the handshake"
            return (
                f"{what}: no complete answer within the {timeout:g} s deadline ({stage}); "
                "raise --timeout or check that the server speaks MCP on this transport"
            )
        if isinstance(leaf, FileNotFoundError):
            return f"{what}: command {target.argv[0]!r} not found; check the command and PATH"
        if isinstance(leaf, PermissionError):
            return f"{what}: cannot run {target.argv[0]!r} ({leaf.strerror}); check its permissions"
        if isinstance(leaf, MCPError) and leaf.code == -32000:
            return f"{what}: the server closed the connection after {elapsed:.1f} s (it exited or crashed)"
        if isinstance(leaf, MCPError):
            hint = "; check the URL, --transport and --header" if target.transport != "stdio" else ""
            return f"{what}: the server answered with error {leaf.code}: {_first_line(leaf)}{hint}"
        if isinstance(leaf, ValidationError):
            return f"{what}: the server's handshake is not valid MCP: {leaf.errors()[0]['msg']}"
    first = leaves[0] if leaves else exc
    name = type(first).__name__
    if "ConnectError" in name or "ConnectTimeout" in name:
        return f"{what}: cannot connect ({_first_line(first)}); check the URL and that the server is running"
    if "HTTPStatusError" in name:
        return f"{what}: HTTP error ({_first_line(first)}); check the URL, --transport and --header"
    return f"{what}: inspection failed: {name}: {_first_line(first)}".rstrip(": ")


def _what(target: Target) -> str:
    """The target as a reason names it, secrets redacted."""
    if target.transport == "stdio":
        return shlex.join(redact_argv(target.argv))
    return redact_url(target.url or "")


def _first_line(exc: BaseException) -> str:
    return (str(exc).splitlines() or [""])[0]


def _with_stderr(reason: str, errlog: Any) -> str:
    """The reason, then the tail of the server's stderr (where servers say why they failed)."""
    try:
        errlog.flush()
        errlog.seek(0)
        lines = [line.rstrip() for line in errlog.read().splitlines() if line.strip()]
    except (OSError, ValueError):
        lines = []
    if not lines:
        return reason
    tail = lines[-_STDERR_TAIL_LINES:]
    return reason + "\nserver stderr (last lines):\n" + "\n".join(f"  {line[:300]}" for line in tail)


# -- an open session for callers that go on to call tools (the memory probe) -------------------


@asynccontextmanager
async def open_client(
    target: Target, *, timeout: float = 30.0, protocol_era: str = "auto"
) -> AsyncIterator[Any]:
    """An SDK ``Client`` connected to ``target``; ``timeout`` bounds the handshake and each request.

    Failing to connect raises InspectionError with the same one-line reasons (and the server's
    stderr) as :func:`inspect`; mcpdex errors raised inside the block pass through unchanged.
    """
    from mcp import Client
    from mcp.types import Implementation
    from mcp_types.version import LATEST_MODERN_VERSION

    from registry.core.errors import MCPDexError

    if protocol_era not in PROTOCOL_ERAS:
        raise UsageError(f"--protocol-era must be one of {', '.join(PROTOCOL_ERAS)}, not {protocol_era!r}")
    mode = {"auto": "auto", "legacy": "legacy", "modern": LATEST_MODERN_VERSION}[protocol_era]
    started = time.perf_counter()
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
        client = Client(
            _transport(target, errlog, timeout),
            mode=mode,
            cache=None,
            read_timeout_seconds=timeout,
            client_info=Implementation(name="mcpdex", version=_own_version()),
        )
        try:
            async with client:
                if protocol_era == "modern":
                    await _discover_pinned(client, target)
                yield client
        except BaseException as exc:  # classified below; cancellation re-raised
            for leaf in _leaves(exc):
                if isinstance(leaf, MCPDexError):
                    raise leaf from None
            reason = _classify(exc, target, timeout, time.perf_counter() - started, _Wire())
            if reason is None:
                raise
            raise InspectionError(_with_stderr(reason, errlog)) from None
