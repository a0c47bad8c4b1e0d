"""Entries of the official MCP Registry (``/v0.1``): reading and normalising them (``entries``),
choosing the versions to inspect and turning an entry into a runnable target (``launch``), and the
install snippets the directory pages show (``snippets``).
"""
