"""Listing a local stdio server without the SDK: JSON-RPC over our own stdio transport in the
handshake era, sending what the SDK's ``Client`` sends (``initialize``, ``notifications/initialized``,
then every page of each list) and reading what it reads, so the snapshot is the one the SDK's path
makes, problems and failures included.

Importing the SDK (its client, the server it imports, hundreds of Pydantic models) is most of a
short inspection's time. Here answers are checked against the wire schemas of ``wire``, and the
SDK's models are imported only to judge what those reject (and its parser only for a line that is
not a plain JSON-RPC message, ``stdio``). The discover-first eras, HTTP, SSE and OAuth stay on the
SDK's ``Client`` (``session``).
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from registry.inspecting.failures import RPCError
from registry.inspecting.targets import Target
from registry.inspecting.wire import fits, wire

_CONNECTION_CLOSED = -32000
_REQUEST_TIMEOUT = -32001
_METHOD_NOT_FOUND = -32601


def listed_without_sdk(target: Target, era: str) -> bool:
    """Whether ``target`` in ``era`` is listed here: a stdio server in the handshake era, or under
    ``auto`` (where one that answers the discover probe goes to the SDK, :meth:`Connection.probe`)."""
    return target.transport == "stdio" and era in ("legacy", "auto")


class Connection:
    """Requests over a pair of plain-message streams, each answered or failed as the SDK's would be:
    an error response raises :class:`RPCError` with its code, the connection closing -32000, a
    request outliving ``timeout`` -32001; the server's own requests get the SDK's answers."""

    def __init__(self, read: Any, write: Any, timeout: float) -> None:
        self._read, self._write, self._timeout = read, write, timeout
        self._ids = itertools.count(1)
        self._waiting: dict[int, Any] = {}
        self._answers: dict[int, dict[str, Any]] = {}
        self._closed = False

    async def run(self) -> None:
        """Read until the server's stdout ends: answers to their requests, the server's requests
        answered, notifications and lines that are not JSON-RPC (recorded by the tee) passed over."""
        async for message in self._read:
            if not isinstance(message, dict):
                continue
            if "method" in message:
                if "id" in message:
                    await self._answer(message)
                continue
            request_id = message.get("id")
            if request_id in self._waiting:
                self._answers[request_id] = message
                self._waiting.pop(request_id).set()
        self._closed = True
        for event in self._waiting.values():
            event.set()

    async def _answer(self, request: dict[str, Any]) -> None:
        # As the SDK's client answers with no callbacks: a ping, and nothing else.
        if request["method"] == "ping":
            reply: dict[str, Any] = {"result": {}}
        else:
            reply = {"error": {"code": _METHOD_NOT_FOUND, "message": "Method not found"}}
        await self._write.send({"jsonrpc": "2.0", "id": request["id"], **reply})

    async def request(
        self, method: str, params: dict[str, Any] | None = None, timeout: float | None = None
    ) -> dict[str, Any]:
        """The result of ``method``, waited for ``timeout`` (by default the connection's); raises
        :class:`RPCError` as the SDK raises ``MCPError``."""
        import anyio

        if self._closed:
            raise RPCError(_CONNECTION_CLOSED, "Connection closed")
        request_id = next(self._ids)
        done = self._waiting[request_id] = anyio.Event()
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params:
            message["params"] = params
        try:
            await self._write.send(message)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            raise RPCError(_CONNECTION_CLOSED, "Connection closed") from None
        with anyio.move_on_after(self._timeout if timeout is None else timeout) as waited:
            await done.wait()
        if waited.cancelled_caught:
            self._waiting.pop(request_id, None)
            raise RPCError(_REQUEST_TIMEOUT, f"Request {method!r} timed out")
        answer = self._answers.pop(request_id, None)
        if answer is None:
            raise RPCError(_CONNECTION_CLOSED, "Connection closed")
        if "error" in answer:
            error = answer["error"]
            raise RPCError(error["code"], error["message"], error.get("data"))
        result: dict[str, Any] = answer["result"]
        return result

    async def notify(self, method: str) -> None:
        await self._write.send({"jsonrpc": "2.0", "method": method})

    async def probe(self, client_info: dict[str, str]) -> bool:
        """Whether the server answers the ``server/discover`` probe the SDK's ``Client`` sends first
        under ``auto`` with a result or with its versions, and so may speak the modern era, which the
        SDK negotiates. Any other failure (an error answer, no answer within the probe's time, the
        connection closing) means the handshake era, as it does for the SDK, whose handshake then
        follows on the same connection."""
        discover = wire()["discover"]
        keys = discover["metaKeys"]
        meta = {
            keys["protocolVersion"]: discover["version"],
            keys["clientInfo"]: client_info,
            keys["clientCapabilities"]: {},
        }
        try:
            await self.request("server/discover", {"_meta": meta}, timeout=discover["timeoutSeconds"])
        except RPCError as exc:
            return bool(exc.code == discover["unsupportedVersionCode"])
        return True

    async def initialize(self, client_info: dict[str, str]) -> dict[str, Any]:
        """The handshake as the SDK's ``Client`` makes it in the handshake era; the result as sent.

        A result the wire schemas reject is judged by the SDK's own models, which raise the SDK's
        ``ValidationError``; a protocol version outside the era, the SDK's ``RuntimeError``.
        """
        document = wire()
        params = {"protocolVersion": document["latestVersion"], "capabilities": {}, "clientInfo": client_info}
        result = await self.request("initialize", params)
        if not fits(result, "initialize"):
            _sdk_verdict(result)
        if result["protocolVersion"] not in document["versions"]:
            raise RuntimeError(f"Unsupported protocol version from the server: {result['protocolVersion']}")
        await self.notify("notifications/initialized")
        return result

    def lister(self, method: str) -> Any:
        """``method`` as the listing calls it: one page per call, from ``cursor``."""

        async def page(cursor: str | None = None) -> dict[str, Any]:
            return await self.request(method, {"cursor": cursor} if cursor else None)

        return page


def _sdk_verdict(result: dict[str, Any]) -> None:
    """Validate an initialize result as the SDK's ``Client`` does: against the era's wire model, then
    against its own model (raising its ``ValidationError``)."""
    from mcp.types import InitializeResult
    from mcp.types.methods import validate_server_result

    version = wire()["latestVersion"]
    validate_server_result("initialize", version, result)
    InitializeResult.model_validate(result, by_name=False)


@asynccontextmanager
async def connected(streams: Any, timeout: float) -> AsyncIterator[Connection]:
    """A :class:`Connection` over ``streams`` (the plain stdio transport's, teed), reading all along."""
    import anyio

    read, write = streams
    connection = Connection(read, write, timeout)
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(connection.run)
        try:
            yield connection
        finally:
            tasks.cancel_scope.cancel()
