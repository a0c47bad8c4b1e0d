"""Definitions that both ``registry`` and ``scoring`` use, so neither imports the other for them.

Pure standard library: imports nothing from ``registry``, ``scoring`` or ``server``.
"""
