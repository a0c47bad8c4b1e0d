"""The canonical JSON form of snapshot data: sorted keys, no whitespace, non-ASCII kept; what is hashed."""

from __future__ import annotations

import json
from typing import Any

# json.dumps with options builds an encoder per call; this one is built once.
_CANONICAL_JSON = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical_json(value: Any) -> str:
    """Serialise ``value`` with sorted keys and no whitespace: the form that is hashed."""
    return _CANONICAL_JSON.encode(value)
