"""Transports to an MCP server, and the tee that records what crosses them.

:func:`open_transport` picks the stdio process group (``registry.inspecting.stdio``), streamable
HTTP (on an httpx2 client of our own, with the target's headers) or SSE; :func:`teed` wraps it so
that every message is kept as it came off the wire (:class:`Wire`), before the SDK validates it.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import IO, TYPE_CHECKING, Any, Protocol

from registry.inspecting.stdio import stdio_transport
from registry.inspecting.targets import Target

if TYPE_CHECKING:
    import httpx2
    from mcp.client import Transport


class _Receiving(Protocol):
    async def receive(self) -> Any: ...
    async def aclose(self) -> None: ...


class _Sending(Protocol):
    async def send(self, item: Any, /) -> None: ...
    async def aclose(self) -> None: ...


def open_transport(
    target: Target, errlog: IO[str], timeout: float, stop_by: float | None = None, wire: Wire | None = None
) -> Transport:
    """The transport to ``target``; ``timeout`` bounds HTTP reads, ``stop_by`` stopping a stdio server;
    ``wire`` is told of an HTTP refusal (401, 403) the SDK reports only as an error response."""
    if target.transport == "stdio":
        return stdio_transport(target, errlog, stop_by)
    if target.transport == "sse":
        from mcp.client.sse import sse_client

        return sse_client(
            target.url or "",
            headers=target.headers or None,
            timeout=timeout,
            sse_read_timeout=timeout,
            auth=_auth(target),
        )
    return _owned_http(target, timeout, wire)


@asynccontextmanager
async def _owned_http(target: Target, timeout: float, wire: Wire | None) -> AsyncIterator[Any]:
    """Streamable HTTP on an httpx2 client of our own, so the target's headers go with every request."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    async def refused(response: httpx2.Response) -> None:
        if wire is not None and response.status_code in (401, 403):
            wire.refused = (response.status_code, response.headers.get("WWW-Authenticate", ""))

    async with (
        httpx2.AsyncClient(
            headers=target.headers,
            timeout=httpx2.Timeout(timeout),
            follow_redirects=True,
            auth=_auth(target),
            event_hooks={"response": [refused]},
        ) as http,
        streamable_http_client(target.url or "", http_client=http) as streams,
    ):
        yield streams


def _auth(target: Target) -> httpx2.Auth | None:
    """MCP authorization for ``target`` (``registry.inspecting.oauth``), unless it sends its own
    ``Authorization`` header or asked for none."""
    if target.oauth is None or any(name.lower() == "authorization" for name in target.headers):
        return None
    from registry.inspecting.oauth import http_auth

    return http_auth(target.url or "", target.oauth)


class Wire:
    """Everything that crossed the transport: outgoing requests, incoming messages, junk lines."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.received: list[dict[str, Any]] = []
        self.junk: list[str] = []
        # The last HTTP refusal seen: its status and WWW-Authenticate challenge.
        self.refused: tuple[int, str] | None = None

    def forget(self) -> None:
        """Drop what crossed so far (a connection given up for a fresh one)."""
        self.sent.clear()
        self.received.clear()
        self.junk.clear()
        self.refused = None

    def mark(self) -> int:
        """Where the requests sent from now on start (for :meth:`result_since`)."""
        return len(self.sent)

    def _response(self, request_id: Any) -> dict[str, Any] | None:
        for message in reversed(self.received):
            if message.get("id") == request_id and "method" not in message:
                response: dict[str, Any] = message
                return response
        return None

    def result_since(self, mark: int, method: str) -> Any:
        """The result of the last ``method`` request sent since ``mark`` (None without a response)."""
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

    def handshake_result(self) -> dict[str, Any] | None:
        """The result of the ``initialize`` (else the ``server/discover``) that was answered."""
        for method in ("initialize", "server/discover"):
            for request in reversed(self.sent):
                if request.get("method") == method:
                    response = self._response(request.get("id"))
                    if response and isinstance(response.get("result"), dict):
                        result: dict[str, Any] = response["result"]
                        return result
        return None

    def stream_problems(self) -> list[dict[str, str]]:
        """Problems with the stream itself: lines that were not JSON-RPC, text that was not UTF-8."""
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


def teed(transport: Transport, wire: Wire) -> Transport:
    """``transport`` with every message that crosses it recorded on ``wire``."""

    @asynccontextmanager
    async def recording() -> AsyncIterator[tuple[_TeeRead, _TeeWrite]]:
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


def _as_dict(item: Any) -> dict[str, Any]:
    """A message as the wire carried it: the plain stdio transport's dict, or the SDK's message dumped."""
    if isinstance(item, dict):
        return item
    dumped: dict[str, Any] = item.message.model_dump(by_alias=True, mode="json", exclude_unset=True)
    return dumped


class _TeeRead:
    """A read stream that records each inbound message before the SDK validates it."""

    def __init__(self, inner: _Receiving, wire: Wire) -> None:
        self._inner, self._wire = inner, wire

    async def receive(self) -> Any:
        item = await self._inner.receive()
        if isinstance(item, Exception):
            self._wire.junk.append(_junk_line(item))
        else:
            self._wire.received.append(_as_dict(item))
        return item

    async def aclose(self) -> None:
        await self._inner.aclose()

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

    def __init__(self, inner: _Sending, wire: Wire) -> None:
        self._inner, self._wire = inner, wire

    async def send(self, item: Any) -> None:
        message = _as_dict(item)
        if "method" in message and "id" in message:
            self._wire.sent.append({"id": message["id"], "method": message["method"]})
        await self._inner.send(item)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _TeeWrite:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
