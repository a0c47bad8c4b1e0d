"""One MCP session: the protocol era's client mode, connecting (with ``server/discover`` pinned
under ``--protocol-era modern``), and reading a connected server into the fields of a snapshot.

:func:`connected` is the one place an SDK ``Client`` is made, for :func:`session` (an inspection)
and :func:`open_client` (a session kept open to call tools, for the memory probe).
"""

from __future__ import annotations

import contextlib
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import IO, TYPE_CHECKING, Any

from registry.core.errors import InspectionError, MCPDexError, UsageError
from registry.core.limits import Limits
from registry.inspecting.failures import classify, first_line, leaves, with_stderr
from registry.inspecting.listing import check_items, list_all
from registry.inspecting.stdio import stdio_transport
from registry.inspecting.targets import Target, describe
from registry.inspecting.transports import Wire, open_transport, teed
from registry.inspecting.wire import LIST_METHODS

if TYPE_CHECKING:
    from mcp import Client
    from mcp.client import Transport

PROTOCOL_ERAS = ("auto", "legacy", "modern")
# Paging stops when this share of the time to work has passed, leaving the rest for the checks.
_LISTING_SHARE = 0.8


def check_era(era: str) -> None:
    """Refuse an era that is not one of :data:`PROTOCOL_ERAS`."""
    if era not in PROTOCOL_ERAS:
        raise UsageError(f"--protocol-era must be one of {', '.join(PROTOCOL_ERAS)}, not {era!r}")


def client_mode(era: str) -> str:
    """The SDK ``Client`` mode of an era: ``auto`` and ``legacy`` as they are, ``modern`` pinned to
    the latest modern protocol version."""
    from mcp.types.version import LATEST_MODERN_VERSION

    return {"auto": "auto", "legacy": "legacy", "modern": LATEST_MODERN_VERSION}[era]


@asynccontextmanager
async def connected(target: Target, transport: Transport, era: str, timeout: float) -> AsyncIterator[Client]:
    """An SDK ``Client`` over ``transport`` in ``era``'s mode, connected; ``timeout`` bounds each request."""
    from mcp import Client
    from mcp.types import Implementation

    client = Client(
        transport,
        mode=client_mode(era),
        cache=None,
        read_timeout_seconds=timeout,
        client_info=Implementation(name="mcpdex", version=_own_version()),
    )
    async with client:
        if era == "modern":
            await _discover_pinned(client, target)
        yield client


async def session(
    target: Target,
    era: str,
    wire: Wire,
    errlog: IO[str],
    work_by: float,
    stop_by: float,
    limits: Limits,
    meanwhile: Callable[[], object] | None = None,
) -> dict[str, Any]:
    """One connection to ``target``: its server info, capabilities and every listed item, checked, with
    the problems found (and ``_era``, the era it spoke). Listing ends by ``work_by``, the server by
    ``stop_by`` (both ``anyio.current_time()``); ``meanwhile`` runs in a thread of its own from when
    the server has been started, and has ended when this returns. A stdio server in the handshake
    era is listed without the SDK (``registry.inspecting.rpc``), the rest through the SDK's ``Client``."""
    import anyio

    from registry.inspecting.rpc import listed_without_sdk

    remaining = max(0.1, work_by - anyio.current_time())
    problems: list[dict[str, str]] = []
    # Paging stops early enough to leave time for checking what was listed and stopping the server.
    list_by = anyio.current_time() + remaining * _LISTING_SHARE
    listing = _Listing(wire, problems, limits.max_tools, list_by, meanwhile)
    with anyio.fail_after(remaining):
        read = None
        if listed_without_sdk(target, era):
            read = await _read_without_sdk(target, era, errlog, remaining, stop_by, listing)
        if read is None:
            read = await _read_with_sdk(target, era, errlog, remaining, stop_by, listing)
    # The checks are CPU work on what the server sent: bounded by the deadline, not only by its size.
    check_by = time.monotonic() + max(0.0, work_by - anyio.current_time())
    modern = read.pop("_era") == "modern"
    for key in ("tools", "resources", "resourceTemplates", "prompts"):
        read[key] = check_items(key, read[key], modern, problems, check_by)
    problems.extend(wire.stream_problems())
    listing.finished()
    server_info = read.pop("_server_info")
    if not server_info.get("name"):
        problems.append(
            {
                "code": "no-server-info",
                "where": "serverInfo",
                "message": "the server did not identify itself; name the version with --version-label",
            }
        )
    return {
        # every serverInfo field as sent (description, websiteUrl, icons…), then the named ones
        "server": {
            **{key: value for key, value in server_info.items() if isinstance(key, str)},
            "name": server_info.get("name"),
            "title": server_info.get("title"),
            "version": server_info.get("version"),
            "instructions": read.pop("_instructions"),
        },
        **read,
        "problems": problems,
        "_era": "modern" if modern else "legacy",
    }


class _Listing:
    """Every list a server offers, paged within the item limit and by ``list_by``, onto ``problems``."""

    def __init__(
        self,
        wire: Wire,
        problems: list[dict[str, str]],
        max_items: int,
        list_by: float,
        meanwhile: Callable[[], object] | None,
    ) -> None:
        self.wire, self.problems, self.max_items, self.list_by = wire, problems, max_items, list_by
        self._meanwhile = meanwhile
        self._thread: threading.Thread | None = None

    def started(self) -> None:
        """The server has been started: the caller's ``meanwhile`` starts (once), in a thread, so that
        it runs while the server starts up and while this one waits on the server's answers."""
        meanwhile, self._meanwhile = self._meanwhile, None
        if meanwhile is None:
            return

        def run() -> None:
            # What it raises is the caller's to meet again when it does the same work itself, not a
            # failure of the inspection.
            with contextlib.suppress(Exception):
                meanwhile()

        self._thread = threading.Thread(target=run, name="mcpdex-meanwhile", daemon=True)
        self._thread.start()

    def finished(self) -> None:
        """Wait for ``meanwhile`` to end."""
        if self._thread is not None:
            self._thread.join()

    async def lists(self, page: Callable[[str], Any], resources: bool, prompts: bool) -> dict[str, list[Any]]:
        """Tools always; resources and their templates, and prompts, where the server offers them.
        ``page(method)`` is the call that lists one page of ``method``."""
        found: dict[str, list[Any]] = {"resources": [], "resourceTemplates": [], "prompts": []}
        offered = ["tools", *(["resources", "resourceTemplates"] if resources else [])]
        offered += ["prompts"] if prompts else []
        for key in offered:
            found[key] = await list_all(
                page(LIST_METHODS[key]),
                LIST_METHODS[key],
                key,
                self.wire,
                self.problems,
                required=key == "tools",
                max_items=self.max_items,
                list_by=self.list_by,
            )
        return {"tools": found.pop("tools"), **found}


async def _read_without_sdk(
    target: Target, era: str, errlog: IO[str], remaining: float, stop_by: float, listing: _Listing
) -> dict[str, Any] | None:
    """What the server sent, listed without the SDK; None for one that may speak the modern era, which
    the SDK's ``Client`` then negotiates on a fresh connection (the first one's record forgotten)."""
    from registry.inspecting import rpc

    async with (
        teed(stdio_transport(target, errlog, stop_by, plain=True), listing.wire) as streams,
        rpc.connected(streams, remaining) as connection,
    ):
        listing.started()
        client_info = {"name": "mcpdex", "version": _own_version()}
        if era == "auto" and await connection.probe(client_info):
            handshake = None
        else:
            handshake = await connection.initialize(client_info)
            capabilities = handshake["capabilities"]
            lists = await listing.lists(
                connection.lister,
                resources=capabilities.get("resources") is not None,
                prompts=capabilities.get("prompts") is not None,
            )
    if handshake is None:
        listing.wire.forget()
        return None
    return {
        "_server_info": handshake["serverInfo"],
        "_instructions": handshake.get("instructions"),
        "protocolVersion": handshake["protocolVersion"],
        "capabilities": capabilities,
        **lists,
        "_era": "legacy",
    }


async def _read_with_sdk(
    target: Target, era: str, errlog: IO[str], remaining: float, stop_by: float, listing: _Listing
) -> dict[str, Any]:
    wire = listing.wire
    # The transport opens before the SDK is imported: a stdio server starts up while `import mcp`
    # (most of a short inspection's time) runs, instead of after it.
    async with teed(open_transport(target, errlog, remaining, stop_by, wire), wire) as streams:
        listing.started()
        async with connected(target, contextlib.nullcontext(streams), era, remaining) as client:
            return await _listed_by_client(client, listing)


async def _listed_by_client(client: Client, listing: _Listing) -> dict[str, Any]:
    """What the SDK's connected ``client`` read of the handshake, and every list it pages."""
    from mcp.types.version import LATEST_MODERN_VERSION

    handshake = listing.wire.handshake_result()
    caps = client.server_capabilities
    calls = {
        "tools/list": client.list_tools,
        "resources/list": client.list_resources,
        "resources/templates/list": client.list_resource_templates,
        "prompts/list": client.list_prompts,
    }
    lists = await listing.lists(
        calls.__getitem__, resources=caps.resources is not None, prompts=caps.prompts is not None
    )
    capabilities = (handshake or {}).get("capabilities")
    if not isinstance(capabilities, dict):
        capabilities = caps.model_dump(by_alias=True, mode="json", exclude_none=True)
    return {
        "_server_info": _server_info(client, handshake),
        "_instructions": client.instructions,
        "protocolVersion": client.protocol_version,
        "capabilities": capabilities,
        **lists,
        "_era": "modern" if client.protocol_version == LATEST_MODERN_VERSION else "legacy",
    }


async def _discover_pinned(client: Client, target: Target) -> None:
    """Under ``--protocol-era modern``, ask the server for its protocol versions and capabilities.

    The SDK pins 2026-07-28 without a word on the wire, and a handshake-only server still answers
    the listings then, in the old shapes and anonymously; ``server/discover`` tells the two apart.
    """
    from mcp import MCPError
    from mcp.types import DiscoverResult
    from mcp.types.version import LATEST_MODERN_VERSION
    from pydantic import ValidationError

    advice = f"it does not speak MCP {LATEST_MODERN_VERSION}; use --protocol-era auto or legacy"
    try:
        raw = await client.session.send_discover(LATEST_MODERN_VERSION)
        # Adopting the answer puts the server's own capabilities in place of the SDK's empty ones.
        client.session.adopt(DiscoverResult.model_validate(raw))
    except MCPError as exc:
        raise InspectionError(
            f"{describe(target)}: server/discover failed (error {exc.code}: {first_line(exc)}), so {advice}"
        ) from None
    except (ValidationError, RuntimeError) as exc:
        raise InspectionError(
            f"{describe(target)}: server/discover gave no usable {LATEST_MODERN_VERSION} answer "
            f"({first_line(exc)}), so {advice}"
        ) from None


def _own_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mcpdex")
    except PackageNotFoundError:
        return "0"


def _server_info(client: Client, handshake: dict[str, Any] | None) -> dict[str, Any]:
    raw = (handshake or {}).get("serverInfo")
    if raw is None:
        raw = ((handshake or {}).get("_meta") or {}).get("io.modelcontextprotocol/serverInfo")
    if isinstance(raw, dict):
        return raw
    info = client.server_info
    return info.model_dump(by_alias=True, mode="json", exclude_none=True) if info else {}


@asynccontextmanager
async def open_client(
    target: Target, *, timeout: float = 30.0, protocol_era: str = "auto"
) -> AsyncIterator[Client]:
    """An SDK ``Client`` connected to ``target``; ``timeout`` bounds the handshake and each request.

    Failing to connect raises InspectionError with the same one-line reasons (and the server's
    stderr) as an inspection; mcpdex errors raised inside the block pass through unchanged.
    """
    check_era(protocol_era)
    started = time.perf_counter()
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
        try:
            async with connected(
                target, open_transport(target, errlog, timeout), protocol_era, timeout
            ) as client:
                yield client
        except BaseException as exc:  # classified below; cancellation re-raised
            for leaf in leaves(exc):
                if isinstance(leaf, MCPDexError):
                    raise leaf from None
            reason = classify(exc, target, timeout, time.perf_counter() - started, Wire())
            if reason is None:
                raise
            raise InspectionError(with_stderr(reason, errlog)) from None
