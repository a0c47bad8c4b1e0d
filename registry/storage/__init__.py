"""Where snapshots are kept: the SQL store (SQLite or PostgreSQL), the HTTP client of a registry
service, the one ``Registry`` protocol both implement, API tokens and stored scorecards.
"""
