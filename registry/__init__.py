"""mcpdex's record of MCP servers: inspect → snapshot → store → diff → changelog → gate.

The CLI (``registry.cli``) and the HTTP service are thin shells over these modules.
"""

from registry.core.errors import MCPDexError, SnapshotError, UsageError
from registry.core.snapshot import (
    SNAPSHOT_FORMAT,
    Snapshot,
    compute_digest,
    dump_snapshot,
    load_snapshot,
)

__all__ = [
    "RULES",
    "SNAPSHOT_FORMAT",
    "MCPDexError",
    "Snapshot",
    "SnapshotError",
    "UsageError",
    "compute_digest",
    "diff_snapshots",
    "dump_snapshot",
    "load_snapshot",
]


def __getattr__(name: str) -> object:
    # The diff and the rule table load only when asked, so `mcpdex --help` imports no more than it needs.
    if name == "diff_snapshots":
        from registry.diffing.diff import diff_snapshots

        return diff_snapshots
    if name == "RULES":
        from registry.diffing.rules import RULES

        return RULES
    raise AttributeError(f"module 'registry' has no attribute {name!r}")
