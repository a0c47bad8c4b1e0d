"""Lists four tools, two of which the MCP schema rejects and one whose JSON Schema is itself invalid."""

from rawserver import serve, tool

serve(
    [
        tool("good_before", **{"x-vendor": {"team": "a"}}),
        tool("string_root", inputSchema={"type": "string"}),
        tool("bad_json_schema", inputSchema={"type": "object", "properties": {"n": {"type": "integr"}}}),
        {"name": "no_schema", "description": "Has no inputSchema at all."},
        tool("good_after"),
    ]
)
