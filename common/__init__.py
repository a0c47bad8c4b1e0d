"""Definitions that ``registry``, ``scoring`` and ``server`` share, so that none of them imports
another for them: canonical JSON (what is hashed), local ``$ref`` resolution, retries and SQLite
in WAL mode.

Imports nothing from ``registry``, ``scoring`` or ``server``.
"""
