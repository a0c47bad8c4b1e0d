"""Lists a tool whose description holds a lone UTF-16 surrogate escape (valid JSON, not Unicode)."""

from rawserver import serve, tool

serve([tool("odd", description="Reads \ud800 notes."), tool("plain")])
