"""Lists 5,000 tools, 50 per page (100 pages of tools/list)."""

from rawserver import serve, tool

serve([tool(f"tool_{i:04d}") for i in range(5000)], page_size=50, name="many-tools")
