"""The reference knowledge-graph memory MCP server: the official tool surface on SQLite."""
