"""The rule for registry server names, shared by every path that saves one: the CLI, the store, the service.

A name is one or more '/'-separated segments (``mcp-servers/everything``); the first may start with
'@' like an npm scope. A segment starts with a letter or digit and holds letters, digits, '.', '_',
'-' and inner spaces (``Notion API``): no control characters, no ``..`` path tricks. Segments that
are route words of the service would make its URLs ambiguous.
"""

from __future__ import annotations

import re

MAX_SERVER_NAME = 200
ROUTE_WORDS = frozenset({"versions", "changelog", "score", "inspections", "compatibility", "snapshot"})
_SEGMENT = r"[A-Za-z0-9](?:[A-Za-z0-9._ -]*[A-Za-z0-9._-])?"
_SHAPE = re.compile(rf"@?{_SEGMENT}(?:/{_SEGMENT})*")


def server_name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a registry server name (one sentence), or None when it can."""
    if len(name) > MAX_SERVER_NAME or not _SHAPE.fullmatch(name):
        return (
            f"server name {name[:80]!r} is not allowed: use letters, digits, spaces, '.', '_' and '-' "
            f"in '/'-separated segments (at most {MAX_SERVER_NAME} characters, optional leading '@')"
        )
    if ROUTE_WORDS.intersection(name.split("/")):
        return f"server name {name!r} has a segment that is a route word ({', '.join(sorted(ROUTE_WORDS))})"
    return None
