"""The CI gate: the policy that turns a diff and scores into pass or fail, and its output formats.
Pure: no MCP, database, HTTP or CLI.
"""
