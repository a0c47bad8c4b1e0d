"""A small note-taking server with one well-described tool and two poor ones.

``NOTES_LIMIT_REQUIRED=1`` makes search_notes' ``limit`` required (a breaking change) and rewords its
description, so two runs can show what changed between versions; ``NOTES_EXTRA_TOOLS=N`` adds N more
poorly described tools, for the lists that are cut short.
"""

import os

from rawserver import serve, tool

changed = os.environ.get("NOTES_LIMIT_REQUIRED") == "1"
search_notes = {
    "name": "search_notes",
    "description": (
        "Search the notes by words in their title or body and return the matching notes, newest first. "
        "Use it to find a note before reading or deleting it. Read-only; returns an empty list when "
        "nothing matches." + (" Pass `limit` on every call." if changed else "")
    ),
    "inputSchema": {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "Words to look for, all of which must appear."},
            "limit": {"type": "integer", "minimum": 1, "description": "Most notes to return (1 or more)."},
        },
        "required": ["query", "limit"] if changed else ["query"],
    },
    "annotations": {"readOnlyHint": True},
}
delete_note = {
    "name": "delete_note",
    "description": "Deletes a note.",
    "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
}
extra = [tool(f"archive_note_{index}") for index in range(int(os.environ.get("NOTES_EXTRA_TOOLS", "0")))]
serve([search_notes, delete_note, tool("tag_note"), *extra], name="notes")
