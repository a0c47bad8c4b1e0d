"""Local ``$ref`` resolution (``#/$defs/Name``, JSON pointers per RFC 6901 with ``~0``/``~1`` and
percent escapes), by ``referencing``, the library jsonschema itself resolves with.
"""

from __future__ import annotations

from typing import Any

from referencing import Registry
from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT202012

_BASE = "urn:mcpdex:document"
_NOTHING = object()


class LocalRefs:
    """The local references of one document, each resolved once: build one per document that is
    walked, and ask it for every ``$ref`` met on the way (nothing is built until the first)."""

    def __init__(self, document: Any) -> None:
        self._document = document
        self._registry: Registry[Any] | None = None
        self._found: dict[str, Any] = {}

    def resolve(self, ref: str) -> Any:
        """The value ``ref`` names inside the document, or None when it names nothing there (a
        dangling pointer, or a reference to another document, which is never fetched)."""
        if not isinstance(ref, str) or not ref.startswith("#"):
            return None
        found = self._found.get(ref, _NOTHING)
        if found is _NOTHING:
            if self._registry is None:
                self._registry = Registry().with_resource(_BASE, DRAFT202012.create_resource(self._document))
            try:
                found = self._registry.resolver(_BASE).lookup(ref).contents
            except (Unresolvable, AttributeError, TypeError, ValueError, KeyError, IndexError):
                found = None
            self._found[ref] = found
        return found
