"""Sends a tools/list answer containing bytes that are not UTF-8."""

import json
import sys

from rawserver import serve, tool


def bad_bytes(request: dict) -> bool:
    if request.get("method") != "tools/list":
        return False
    body = json.dumps(
        {"jsonrpc": "2.0", "id": request["id"], "result": {"tools": [tool("latin1"), tool("plain")]}}
    )
    raw = body.encode().replace(b"The latin1 tool.", b"Caf\xe9 \xff tool.")
    sys.stdout.buffer.write(raw + b"\n")
    sys.stdout.buffer.flush()
    return True


serve([], on_request=bad_bytes)
