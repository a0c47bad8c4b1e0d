"""The memory server's stdio guard: a line that is not a JSON-RPC message gets a JSON-RPC error back."""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, AsyncIterator

import mcp_types
import pydantic_core
from anyio.streams.memory import MemoryObjectSendStream
from mcp.types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError


async def valid_lines(
    lines: AsyncIterable[str], errors: MemoryObjectSendStream[JSONRPCError]
) -> AsyncIterator[str]:
    """The lines of ``lines`` that are JSON-RPC messages; for each other one, an error sent to ``errors``."""
    async with errors:
        async for line in lines:
            if not line.strip():
                continue
            try:
                mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
            except ValueError as exc:
                await errors.send(rejection(line, exc))
                continue
            yield line


def rejection(line: str, exc: ValueError) -> JSONRPCError:
    """The error answering ``line``: Invalid Request with the request's id when Python's JSON parser can
    still read one (it takes lone surrogates), else Parse error with a null id, as JSON-RPC says."""
    reason = exc.errors()[0]["msg"] if isinstance(exc, pydantic_core.ValidationError) else str(exc)
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return JSONRPCError(
            jsonrpc="2.0", id=None, error=ErrorData(code=PARSE_ERROR, message=f"Parse error: {reason}")
        )
    request_id = message.get("id") if isinstance(message, dict) else None
    if not isinstance(request_id, int | str) or isinstance(request_id, bool):
        request_id = None
    return JSONRPCError(
        jsonrpc="2.0",
        id=request_id,
        error=ErrorData(code=INVALID_REQUEST, message=f"Invalid Request: {reason}"),
    )
