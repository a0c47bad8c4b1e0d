"""Inspect an MCP server into a Snapshot: the only MCP client code of the registry.

A target (``registry.inspecting.targets``) is reached over a transport (``transports``, ``stdio``)
whose every message is teed, so tools are recorded verbatim (vendor fields included) and a
definition the SDK rejects is still recorded, with the reason in ``problems`` (``session``,
``listing``). One deadline bounds the whole inspection, including stopping the server; a failure
becomes one line (``failures``). ``mcp`` is imported only when an inspection needs it, so commands
that never inspect start fast, and a local stdio server in the handshake era is listed without it
(``rpc``).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Sequence
from typing import IO, Any

from registry.core.errors import InspectionError, UsageError
from registry.core.limits import Limits
from registry.core.snapshot import SNAPSHOT_FORMAT, compute_digest
from registry.core.timestamps import utc_now
from registry.inspecting.failures import classify, died_on_probe, with_stderr
from registry.inspecting.session import check_era, session
from registry.inspecting.targets import Target, target_from_string
from registry.inspecting.transports import Wire

# The listing's own deadline keeps this much of --timeout back (at most a quarter) for stopping a
# stdio server.
_SHUTDOWN_RESERVE_S = 2.0
# Falling back to the handshake on a fresh connection is worth it only with this much time left.
_FALLBACK_MIN_S = 1.0


def inspect(
    target: Target | str | Sequence[str],
    *,
    timeout: float = 30.0,
    protocol_era: str = "auto",
    version_label: str | None = None,
    limits: Limits | None = None,
    meanwhile: Callable[[], object] | None = None,
) -> dict[str, Any]:
    """Inspect ``target`` and return its Snapshot; raises InspectionError (one-line reason first).

    ``timeout`` bounds everything, checking what was listed included; ``limits`` (by default those
    of the environment, see ``registry.core.limits``) stop the listing at the item limit and record
    what goes past the others as problems. ``meanwhile`` is called once the server has been started,
    before its first answer is awaited, so that what the caller loads for the snapshot (a scorer)
    loads while a local server starts up.
    """
    import anyio

    if isinstance(target, str):
        target = target_from_string(target)
    elif not isinstance(target, Target):
        target = Target(transport="stdio", argv=list(target))
    check_era(protocol_era)
    if timeout <= 0:
        raise UsageError("--timeout must be a positive number of seconds")
    return anyio.run(_inspect_async, target, timeout, protocol_era, version_label, limits, meanwhile)


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
    target: Target,
    timeout: float,
    era: str,
    version_label: str | None,
    limits: Limits | None = None,
    meanwhile: Callable[[], object] | None = None,
) -> dict[str, Any]:
    """One inspection under one deadline: the session (once more with the handshake if the discover
    probe killed the server), then the snapshot's own fields, the over-limit problems and the digest."""
    import anyio

    limits = limits or Limits.from_env()
    captured_at = utc_now()
    started = time.perf_counter()
    stop_by = anyio.current_time() + timeout
    reserve = min(_SHUTDOWN_RESERVE_S, timeout / 4) if target.transport == "stdio" else 0.0
    wire = Wire()
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
        try:
            with anyio.fail_after(timeout):
                result = await _negotiated_session(
                    target, era, wire, errlog, stop_by - reserve, stop_by, limits, meanwhile
                )
        except InspectionError as exc:
            raise InspectionError(with_stderr(str(exc), errlog)) from None
        except BaseException as exc:
            reason = classify(exc, target, timeout, time.perf_counter() - started, wire)
            if reason is None:
                raise
            raise InspectionError(with_stderr(reason, errlog)) from None
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
    target: Target,
    era: str,
    wire: Wire,
    errlog: IO[str],
    work_by: float,
    stop_by: float,
    limits: Limits,
    meanwhile: Callable[[], object] | None,
) -> dict[str, Any]:
    """The session; under ``auto``, a server that died or fell silent on the ``server/discover`` probe
    (Python SDK 1.1 servers crash on an unknown method) is inspected again over a fresh connection
    with the initialize handshake (a stdio server is restarted once), and its problems say so."""
    import anyio

    if era != "auto":
        return await session(target, era, wire, errlog, work_by, stop_by, limits, meanwhile)
    try:
        return await session(target, era, wire, errlog, work_by, stop_by, limits, meanwhile)
    except Exception as exc:  # cancellation is a BaseException and propagates
        if not died_on_probe(exc, wire) or work_by - anyio.current_time() < _FALLBACK_MIN_S:
            raise
    again = "restarted it" if target.transport == "stdio" else "connected again"
    result = await session(target, "legacy", wire, errlog, work_by, stop_by, limits)
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
