"""One exception hierarchy for every expected failure; the CLI turns these into one line and an exit code."""

from __future__ import annotations


class MCPDexError(Exception):
    """An expected failure: the message says what was wrong and what to do about it."""

    exit_code: int = 2


class UsageError(MCPDexError):
    """The caller asked for something that cannot be done as asked (bad flag, bad file)."""


class SnapshotError(MCPDexError):
    """A snapshot document is missing, unreadable or not in the mcpdex snapshot format."""


class InspectionError(MCPDexError):
    """The target could not be inspected (did not start, did not answer, broke the protocol)."""


class RegistryError(MCPDexError):
    """The registry could not be opened, read or written."""


class NotFoundError(RegistryError):
    """A server or version the caller named is not in the registry."""
