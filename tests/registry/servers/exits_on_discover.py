"""A handshake-era server that exits when it receives server/discover, as early SDK servers crash on it."""

import sys

from rawserver import serve, tool


def die_on_discover(request: dict) -> bool:
    if request.get("method") == "server/discover":
        sys.stderr.write("fatal: unknown method server/discover\n")
        sys.exit(1)
    return False


serve([tool("still_here")], on_request=die_on_discover)
