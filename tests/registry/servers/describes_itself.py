"""A server whose serverInfo carries a description and a website besides its name and version."""

from rawserver import serve, tool

serve(
    [tool("lookup")],
    name="described",
    server_info={"description": "Looks words up in a dictionary.", "websiteUrl": "https://example.com/dict"},
)
