"""Sends one tools/list page of about 50 MB on one line: 25,000 tools with 2,000-character descriptions."""

from rawserver import serve, tool

DESCRIPTION = ("Reads one record of the archive by its key and returns it whole. " * 32)[:2000]

serve([tool(f"tool_{i:05d}", description=DESCRIPTION) for i in range(25_000)], name="fifty-megabytes")
