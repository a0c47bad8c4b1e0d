"""Where snapshots are kept: the SQL store (SQLite or PostgreSQL), the HTTP client of a registry
service, API tokens and stored scorecards.
"""
