"""JSON values that both databases and every reader can carry: finite numbers, Unicode text, bounded nesting.

Python's ``json`` reads ``NaN``, ``Infinity`` and numbers past the float range (``1e400`` becomes
infinity), none of which can be written back as JSON; and strings holding a lone UTF-16 surrogate
(``"\\ud800"``), which cannot be encoded as UTF-8 for a database or a response. The diff, the scorer and
the templates recurse into documents, so nesting is bounded by ``MAX_JSON_DEPTH``, far below the
interpreter's recursion limit. One iterative walk checks all three and names the first field at fault.
Pure: no I/O.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

# Levels of objects and arrays, the outermost counting as 1. The deepest tools of our corpus make a
# snapshot about 15 levels deep; every recursive reader stays far from Python's limit of 1000 at 128.
MAX_JSON_DEPTH = 128

_SURROGATE = re.compile("[\ud800-\udfff]")


class JSONValueError(ValueError):
    """A value JSON, UTF-8 or a bounded walk cannot carry: ``code``, the ``field`` path and the fix."""

    def __init__(self, code: str, field: str, message: str) -> None:
        super().__init__(message)
        self.code, self.field, self.message = code, field, message


# A path is kept as a chain of (key, parent) pairs, so a walk costs O(1) per node, not O(depth).
_Path = tuple[Any, "_Path"] | None


def _pointer(path: _Path) -> str:
    keys: list[str] = []
    while path is not None:
        key, path = path
        keys.append(_escaped(str(key)))
    keys.reverse()
    # Named so a person can find it: long keys cut short, a path hundreds deep by its two ends.
    keys = [key if len(key) <= 40 else key[:37] + "..." for key in keys]
    if len(keys) > 12:
        keys = [*keys[:8], f"...{len(keys) - 12} more...", *keys[-4:]]
    return "/".join(keys)


def _escaped(text: str) -> str:
    # A message naming a key that holds a lone surrogate must itself be encodable.
    return _SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def _named(what: str, where: str) -> str:
    return f"{what} {where}" if where else what


def check_json(value: Any, *, max_depth: int | None = MAX_JSON_DEPTH, what: str = "field") -> None:
    """Raise :class:`JSONValueError` at the first non-finite number, lone surrogate (in a string or a
    key) or container nested deeper than ``max_depth`` (None: any depth), in document order. The walk
    is iterative, so any depth can be walked; it is linear in the size of
    ``value``; ``what`` names ``value`` in the message (``snapshot field``, followed by the path)."""
    stack: list[tuple[Any, _Path, int]] = [(value, None, 1)]
    while stack:
        current, path, depth = stack.pop()
        if isinstance(current, str):
            if _SURROGATE.search(current):
                raise _surrogate(what, path, current)
        elif isinstance(current, float):
            if not math.isfinite(current):
                where = _pointer(path)
                raise JSONValueError(
                    "unsupported_number",
                    where,
                    f"{_named(what, where)} is {json.dumps(current)} (NaN, Infinity or beyond ±1.8e308), "
                    "which JSON cannot carry; send a finite number or leave the field out",
                )
        elif isinstance(current, dict | list):
            if max_depth is not None and depth > max_depth:
                where = _pointer(path)
                raise JSONValueError(
                    "nesting_too_deep",
                    where,
                    f"{_named(what, where)} is nested {depth} levels deep; objects and arrays may nest "
                    f"at most {max_depth} levels: flatten it",
                )
            children = current.items() if isinstance(current, dict) else enumerate(current)
            pending = []
            for key, child in children:
                if isinstance(key, str) and _SURROGATE.search(key):
                    raise _surrogate(f"the name of {what}", (key, path), key)
                pending.append((child, (key, path), depth + 1))
            stack.extend(reversed(pending))


def _surrogate(what: str, path: _Path, text: str) -> JSONValueError:
    where = _pointer(path)
    escape = _escaped(_SURROGATE.search(text).group())  # type: ignore[union-attr]
    return JSONValueError(
        "invalid_unicode",
        where,
        f"{_named(what, where)} holds a lone UTF-16 surrogate ({escape} without its pair), which is not "
        "Unicode text; send the character itself or a complete surrogate pair",
    )


def finite_or_none(value: Any) -> Any:
    """``value`` with every non-finite number replaced by None: what JSON can say of a stored NaN."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if not isinstance(value, dict | list):
        return value
    # Iterative copy, so a deep stored document is not a RecursionError.
    root: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(value, root, 0)]
    while stack:
        current, parent, key = stack.pop()
        if isinstance(current, float) and not math.isfinite(current):
            current = None
        elif isinstance(current, dict):
            copied: Any = dict.fromkeys(current)  # keeps the key order
            stack.extend((child, copied, k) for k, child in current.items())
            current = copied
        elif isinstance(current, list):
            copied = [None] * len(current)
            stack.extend((child, copied, i) for i, child in enumerate(current))
            current = copied
        parent[key] = current
    return root[0]


def prune_depth(value: Any, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``value`` itself when it nests at most ``max_depth`` levels; else a copy whose containers past that
    depth are replaced by a short note, so readers of a document stored before the limit existed
    neither recurse past the interpreter's limit nor fail on every read of it."""
    if not deeper_than(value, max_depth):
        return value
    note = f"<nested deeper than {max_depth} levels: not kept>"
    root: list[Any] = [None]
    stack: list[tuple[Any, Any, Any, int]] = [(value, root, 0, 1)]
    while stack:
        current, parent, key, depth = stack.pop()
        if isinstance(current, dict | list) and depth > max_depth:
            current = note
        elif isinstance(current, dict):
            copied: Any = dict.fromkeys(current)  # keeps the key order
            stack.extend((child, copied, k, depth + 1) for k, child in current.items())
            current = copied
        elif isinstance(current, list):
            copied = [None] * len(current)
            stack.extend((child, copied, i, depth + 1) for i, child in enumerate(current))
            current = copied
        parent[key] = current
    return root[0]


def deeper_than(value: Any, max_depth: int) -> bool:
    # Level by level, looking at containers only: about a third of json.loads's time on the same
    # document, since every stored snapshot read passes through here.
    level = [value] if type(value) in (dict, list) else []
    depth = 1
    while level:
        if depth > max_depth:
            return True
        below = []
        for container in level:
            for child in container.values() if type(container) is dict else container:
                if type(child) is dict or type(child) is list:
                    below.append(child)
        level, depth = below, depth + 1
    return False
