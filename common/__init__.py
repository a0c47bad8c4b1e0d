"""Definitions that ``registry``, ``scoring`` and ``server`` share, so that none of them imports
another for them: canonical JSON (what is hashed) and local ``$ref`` resolution.

Imports nothing from ``registry``, ``scoring`` or ``server``.
"""
