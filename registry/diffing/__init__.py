"""Diffing two snapshots: normalisation, the rule table, the schema and tool diff, witnesses, the
changelog and context cost. Pure: no MCP, database, HTTP or CLI.
"""
