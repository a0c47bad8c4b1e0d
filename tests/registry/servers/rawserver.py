"""A minimal MCP server speaking raw JSON-RPC over stdio, so a test server can break the protocol on purpose.

No SDK: each broken server below controls every byte it writes.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

PROTOCOL = "2025-11-25"


def tool(name: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "description": f"The {name} tool.", "inputSchema": {"type": "object"}, **extra}


def write(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def serve(
    tools: list[dict[str, Any]],
    *,
    page_size: int = 0,
    name: str = "broken",
    on_request: Callable[[dict[str, Any]], bool] | None = None,
    server_info: dict[str, Any] | None = None,
) -> None:
    """Answer initialize and tools/list (paged when ``page_size``); ``on_request`` may take over a
    request; ``server_info`` adds fields to serverInfo."""
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        if "id" not in request:
            continue  # a notification
        if on_request and on_request(request):
            continue
        method = request.get("method")
        if method == "initialize":
            result: dict[str, Any] = {
                "protocolVersion": PROTOCOL,
                "capabilities": {"tools": {}},
                "serverInfo": {"name": name, "version": "0.0.1", **(server_info or {})},
            }
        elif method == "tools/list":
            start = int((request.get("params") or {}).get("cursor") or 0)
            end = start + page_size if page_size else len(tools)
            result = {"tools": tools[start:end]}
            if end < len(tools):
                result["nextCursor"] = str(end)
        else:
            write(
                {
                    "jsonrpc": "2.0",
                    "id": request["id"],
                    "error": {"code": -32601, "message": "Method not found"},
                }
            )
            continue
        write({"jsonrpc": "2.0", "id": request["id"], "result": result})
