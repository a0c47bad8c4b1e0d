"""File-name stems for servers and tools: lowercase ``[a-z0-9-]``, unique, never a path."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable, Sequence

from registry.site.model import ServerData, tools_of
from registry.site.text import as_text

_SLUG_MAX = 60


_HASHED_SUFFIX = re.compile(r"-[0-9a-f]{8}$")


_CLEAN_NAME = re.compile(r"^[a-z0-9]+(?:[-_][a-z0-9]+)*$")


# Device names Windows refuses as file names, whatever the extension.
_RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))}


def slugify(name: str, fallback: str = "item") -> str:
    """A lowercase ``[a-z0-9-]`` file-name stem for ``name``.

    Names that already are such a stem keep it; any other name (dots, slashes, case,
    non-ASCII, control or bidi characters) gets its folded form plus 8 hex of its sha256, so
    ``../../etc`` becomes ``etc-<hash>`` and never a path.
    """
    if (
        _CLEAN_NAME.match(name)
        and len(name) <= _SLUG_MAX
        and not _HASHED_SUFFIX.search(name)
        and (name not in _RESERVED)
    ):
        return name
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii").lower()
    stem = re.sub(r"[^a-z0-9_]+", "-", folded).strip("-")[:_SLUG_MAX].strip("-") or fallback
    return f"{stem}-{hashlib.sha256(name.encode('utf-8', 'surrogatepass')).hexdigest()[:8]}"


def assign_slugs(names: Sequence[str], fallback: str = "item") -> list[str]:
    """Slugs for ``names`` in order, unique among themselves even for duplicate names."""
    used: set[str] = set()
    slugs = []
    for name in names:
        slug = base = slugify(name, fallback)
        counter = 2
        while slug in used:
            slug = f"{base}-{counter}"
            counter += 1
        used.add(slug)
        slugs.append(slug)
    return slugs


def tool_slugs(server: ServerData) -> list[str]:
    """The file-name stems of a server's tool pages, in snapshot order."""
    return assign_slugs([as_text(tool.get("name")) for tool in tools_of(server.snapshot)], "tool")


def server_slugs(names: Iterable[str]) -> dict[str, str]:
    """Each server name's folder under ``servers/``; assigned over the sorted names, so stable."""
    ordered = sorted(set(names))
    return dict(zip(ordered, assign_slugs(ordered, "server"), strict=True))
