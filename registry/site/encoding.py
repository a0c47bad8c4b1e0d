"""The JSON encoders of the site: indented JSON for what pages show, compact JSON for the files
published beside them (each tool and score card encoded once per server and spliced in).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from json.encoder import encode_basestring
from typing import Any

from registry.site.model import ServerData

# Built once (json.dumps with options builds an encoder per call). Compact separators keep json on
# its C encoder, several times faster than indented output. Site documents come from JSON, so never
# hold a cycle: the check costs a dict entry per container.
_COMPACT_JSON = json.JSONEncoder(
    ensure_ascii=False, sort_keys=True, separators=(",", ":"), check_circular=False
)


def pretty_json(value: Any) -> str:
    """Indented JSON with sorted keys: how schemas and before/after values are shown."""
    try:
        return _indented(value, "\n")
    except TypeError:  # a key that is not a string, or a value JSON cannot encode: the encoder decides
        return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)


# json.dumps(indent=...) runs Python's pure encoder, several times slower than this for the small
# values pages show by the thousand; the output is the same byte for byte.
# Strings, the most common members, are encoded in place rather than by a call each.
def _indented(value: Any, newline: str) -> str:
    if isinstance(value, str):
        return encode_basestring(value)
    if isinstance(value, dict) and value:
        inner = newline + "  "
        items = []
        for key in sorted(value):
            item = value[key]
            shown = encode_basestring(item) if type(item) is str else _indented(item, inner)
            items.append(f"{inner}{encode_basestring(key)}: {shown}")
        return "{" + ",".join(items) + newline + "}"
    if isinstance(value, (list, tuple)) and value:
        inner = newline + "  "
        members = (encode_basestring(item) if type(item) is str else _indented(item, inner) for item in value)
        return "[" + ",".join(inner + item for item in members) + newline + "]"
    return "null" if value is None else json.dumps(value)


def compact_json(value: Any) -> str:
    """Compact JSON with sorted keys, as the files beside the pages hold it."""
    return _COMPACT_JSON.encode(value)


def json_bytes(text: str) -> bytes:
    """An encoded JSON document as a file holds it: UTF-8, one final newline."""
    return (text + "\n").encode("utf-8")


def shared_parts(server: ServerData) -> tuple[dict[int, str], set[int]]:
    """Each tool and score card of ``server`` encoded once, by identity, and the dicts and lists holding them.

    Both are in the server's document and again in each tool's.
    """
    encoded: dict[int, str] = {}
    holders: set[int] = set()
    for container in (server.snapshot, server.scorecard):
        items = container.get("tools") if isinstance(container, dict) else None
        if isinstance(items, list):
            holders.update((id(container), id(items)))
            encoded.update((id(item), compact_json(item)) for item in items)
    return encoded, holders


def spliced_json(value: Any, encoded: Mapping[int, str], holders: set[int]) -> str:
    """``compact_json(value)`` that takes the objects in ``encoded`` as already encoded.

    Only the ``holders`` are walked here, the way the C encoder would write them; any other
    value is handed to it whole.
    """
    if id(value) in encoded:
        return encoded[id(value)]
    if id(value) in holders:
        if isinstance(value, list):
            return "[" + ",".join(spliced_json(item, encoded, holders) for item in value) + "]"
        if isinstance(value, dict) and all(type(key) is str for key in value):
            members = (
                f"{encode_basestring(key)}:{spliced_json(value[key], encoded, holders)}"
                for key in sorted(value)
            )
            return "{" + ",".join(members) + "}"
    return compact_json(value)
