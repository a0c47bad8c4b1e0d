"""Serves the first page of tools/list, then exits when asked for the second."""

import sys

from rawserver import serve, tool


def crash_on_second_page(request: dict) -> bool:
    if request.get("method") == "tools/list" and (request.get("params") or {}).get("cursor"):
        sys.stderr.write("fatal: lost the database connection while listing\n")
        sys.exit(3)
    return False


serve([tool(f"tool_{i}") for i in range(6)], page_size=3, on_request=crash_on_second_page)
