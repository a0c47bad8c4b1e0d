"""Local ``$ref`` resolution (``#/$defs/Name``, JSON pointers per RFC 6901 with ``~0``/``~1`` and
percent escapes), by ``referencing``, the library jsonschema itself resolves with.
"""

from __future__ import annotations

from typing import Any

from referencing import Registry
from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT202012

_BASE = "urn:mcpdex:document"


def resolve_ref(document: Any, ref: str) -> Any:
    """The value the local reference ``ref`` names inside ``document``, or None when it names
    nothing there (a dangling pointer, or a reference to another document, which is never fetched)."""
    if not isinstance(ref, str) or not ref.startswith("#"):
        return None
    resource = DRAFT202012.create_resource(document)
    resolver = Registry().with_resource(_BASE, resource).resolver(_BASE)
    try:
        return resolver.lookup(ref).contents
    except (Unresolvable, AttributeError, TypeError, ValueError, KeyError, IndexError):
        return None
