"""Why an inspection failed, in one line: the failure classified from the exception (an exception
group's leaves included) and what crossed the wire, then the tail of the server's stderr.

Cancellation, ``KeyboardInterrupt`` and ``SystemExit`` are not classified: they propagate.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import IO, TYPE_CHECKING, Any

from registry.core.errors import InspectionError
from registry.inspecting.targets import Target, describe

if TYPE_CHECKING:
    from registry.inspecting.transports import Wire

_STDERR_TAIL_LINES = 15
# The SDK's OAuth failures (mcp.client.auth.exceptions), told by name so that no import is needed.
_OAUTH_ERRORS = ("OAuthFlowError", "OAuthTokenError", "OAuthRegistrationError")


class RPCError(Exception):
    """An error response to a request sent without the SDK (``registry.inspecting.rpc``), told as the
    SDK's ``MCPError`` is: ``str()`` is its message, and -32000 means the connection closed."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(code, message, data)
        self.code, self.message, self.data = code, message, data

    def __str__(self) -> str:
        return self.message


def loaded(module: str, name: str) -> tuple[type, ...]:
    """``(module.name,)`` when ``module`` is already imported, else ``()`` (which ``isinstance`` matches
    nothing with): an error of a module never imported was not raised, and importing the SDK only to
    rule its errors out would cost what listing without it saves."""
    found = getattr(sys.modules.get(module), name, None)
    return (found,) if isinstance(found, type) else ()


def error_code(exc: BaseException) -> int | None:
    """The JSON-RPC error code of an error response (an ``RPCError`` or the SDK's ``MCPError``), else None."""
    if isinstance(exc, (RPCError, *loaded("mcp", "MCPError"))):
        code: int = exc.code  # type: ignore[attr-defined]
        return code
    return None


def leaves(exc: BaseException) -> Iterator[BaseException]:
    """The exceptions inside ``exc``: itself, or every leaf of a (nested) exception group."""
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            yield from leaves(inner)
    else:
        yield exc


def classify(exc: BaseException, target: Target, timeout: float, elapsed: float, wire: Wire) -> str | None:
    """A one-line reason for an inspection failure, or None for what must propagate (cancellation)."""
    import anyio

    found = list(leaves(exc))
    if any(isinstance(e, anyio.get_cancelled_exc_class()) for e in found) and not any(
        isinstance(e, TimeoutError) for e in found
    ):
        return None
    if any(isinstance(e, KeyboardInterrupt | SystemExit) for e in found):
        return None
    what = describe(target)
    for leaf in found:
        code = error_code(leaf)
        if isinstance(leaf, InspectionError):
            return str(leaf)
        if type(leaf).__name__ in _OAUTH_ERRORS:
            return (
                f"{what}: authorization failed: {first_line(leaf)}; check --client-id, --client-secret, "
                "--private-key and --scope, or sign in with `mcpdex auth login URL`"
            )
        if isinstance(leaf, TimeoutError) or code == -32001:
            stage = "after the handshake" if wire.handshake_result() else "before answering the handshake"
            return (
                f"{what}: no complete answer within the {timeout:g} s deadline ({stage}); "
                "raise --timeout or check that the server speaks MCP on this transport"
            )
        if isinstance(leaf, FileNotFoundError):
            return f"{what}: command {target.argv[0]!r} not found; check the command and PATH"
        if isinstance(leaf, PermissionError):
            return f"{what}: cannot run {target.argv[0]!r} ({leaf.strerror}); check its permissions"
        if code == -32000:
            return f"{what}: the server closed the connection after {elapsed:.1f} s (it exited or crashed)"
        if code is not None and wire.refused is not None:
            return _refusal(what, target, *wire.refused)
        if code is not None:
            hint = "; check the URL, --transport and --header" if target.transport != "stdio" else ""
            return f"{what}: the server answered with error {code}: {first_line(leaf)}{hint}"
        if isinstance(leaf, loaded("pydantic", "ValidationError")):
            return f"{what}: the server's handshake is not valid MCP: {leaf.errors()[0]['msg']}"  # type: ignore[attr-defined]
    first = found[0] if found else exc
    name = type(first).__name__
    if "ConnectError" in name or "ConnectTimeout" in name:
        return f"{what}: cannot connect ({first_line(first)}); check the URL and that the server is running"
    if "HTTPStatusError" in name:
        return f"{what}: HTTP error ({first_line(first)}); check the URL, --transport and --header"
    return f"{what}: inspection failed: {name}: {first_line(first)}".rstrip(": ")


def _refusal(what: str, target: Target, status: int, challenge: str) -> str:
    """Why a server behind authorization refused the inspection, and what to pass."""
    if status == 403:
        return (
            f"{what}: HTTP 403, the server refused the credentials ({challenge or 'no challenge'}); "
            "ask for more with --scope or use other credentials"
        )
    if target.oauth is None:
        how = "without --no-oauth mcpdex authorizes itself, or pass --header 'Authorization: …'"
    else:
        how = "pass --client-id and --client-secret, or sign in with `mcpdex auth login URL`"
    return f"{what}: HTTP 401, the server requires authorization ({challenge or 'no challenge'}); {how}"


def died_on_probe(exc: BaseException, wire: Wire) -> bool:
    """Whether the connection closed or went silent after a ``server/discover`` nothing answered."""
    lost = any(error_code(leaf) in (-32000, -32001) for leaf in leaves(exc))
    return lost and wire.unanswered("server/discover") and wire.handshake_result() is None


def first_line(exc: BaseException) -> str:
    """The first line of an exception's message (empty when it has none)."""
    return (str(exc).splitlines() or [""])[0]


def with_stderr(reason: str, errlog: IO[str]) -> str:
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
