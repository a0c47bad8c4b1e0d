"""Answers every tools/list with 20 new tools and a fresh cursor, forever (PAGE_DELAY_S apart)."""

import os
import time
from typing import Any

from rawserver import serve, tool, write

_PAGE_TOOLS = 20
_PAGE_DELAY_S = float(os.environ.get("PAGE_DELAY_S", "0"))


def endless_pages(request: dict[str, Any]) -> bool:
    if request.get("method") != "tools/list":
        return False
    page = int((request.get("params") or {}).get("cursor") or 0)
    time.sleep(_PAGE_DELAY_S)
    tools = [tool(f"tool_{page:07d}_{i:02d}") for i in range(_PAGE_TOOLS)]
    write({"jsonrpc": "2.0", "id": request["id"], "result": {"tools": tools, "nextCursor": str(page + 1)}})
    return True


serve([], name="pages-forever", on_request=endless_pages)
