"""One search tool whose input schema is only a draft-07 stamp; with --declared, a real object schema."""

import sys

from rawserver import serve

DESCRIPTION = (
    "Search notes by their title and body text. Use it to find a note before reading it; to list every "
    "note use list_notes instead. Returns up to 20 matches as note ids with titles, best first. Read-only."
)
STAMP = {"$schema": "http://json-schema.org/draft-07/schema#"}
DECLARED = {
    **STAMP,
    "type": "object",
    "properties": {name: {"type": "string"} for name in ("query", "tag", "sort", "after", "before")},
    "required": ["query"],
}

serve(
    [
        {
            "name": "search_notes",
            "description": DESCRIPTION,
            "inputSchema": DECLARED if "--declared" in sys.argv else STAMP,
        },
        {
            "name": "list_notes",
            "description": "List every note, newest first. Returns ids and titles, at most 100. Read-only.",
            "inputSchema": {"type": "object"},
        },
    ]
)
