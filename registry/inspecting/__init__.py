"""Inspecting a live MCP server: targets and client configs, the session, the transports (a stdio
process group, streamable HTTP, SSE), failures, and entries of the official MCP Registry turned
into targets.
"""
