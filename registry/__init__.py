"""mcpdex's record of MCP servers: inspect → snapshot → store → diff → changelog → gate.

The CLI (``registry.cli``) and the HTTP service are thin shells over these modules.
"""

from registry.errors import MCPDexError, SnapshotError, UsageError
from registry.snapshot import (
    SNAPSHOT_FORMAT,
    Snapshot,
    compute_digest,
    dump_snapshot,
    load_snapshot,
)

__all__ = [
    "SNAPSHOT_FORMAT",
    "MCPDexError",
    "Snapshot",
    "SnapshotError",
    "UsageError",
    "compute_digest",
    "dump_snapshot",
    "load_snapshot",
]
