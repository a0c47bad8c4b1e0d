"""One tool whose description is 1 MB long, next to an ordinary one."""

from rawserver import serve, tool

serve([tool("huge", description="x" * (1024 * 1024)), tool("small")], name="huge-description")
