"""Server version labels: semantic versions (semver.org's grammar, with the leading "v" many tags
carry) parsed and ordered in one place. Labels that are not semver are not versions to compare.
"""

from __future__ import annotations

import re
from typing import Any

# semver.org's grammar, with an optional leading "v" that many tags carry.
_SEMVER = re.compile(
    r"^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$"
)


# (major, minor, patch, pre-release key): tuples compare in semver precedence.
SemverKey = tuple[int, int, int, tuple[tuple[Any, ...], ...]]


def semver_key(label: str) -> SemverKey | None:
    """A sort key ordering labels by semantic-version precedence, or None when the label is not semver.

    Build metadata is ignored (as semver says); a release sorts after its pre-releases.
    """
    match = _SEMVER.match(label)
    if not match:
        return None
    major, minor, patch, pre, _build = match.groups()
    if pre is None:
        pre_key: tuple[tuple[Any, ...], ...] = ((2,),)
    else:
        # Numeric identifiers sort before alphanumeric ones, numerically among themselves.
        pre_key = tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in pre.split("."))
        pre_key = ((1,), *pre_key)
    return (int(major), int(minor), int(patch), pre_key)


def semver_core(label: str | None) -> tuple[int, int, int] | None:
    """``v1.2.3-rc.1`` → (1, 2, 3); None when the label is not semver."""
    match = _SEMVER.match(label or "")
    return (int(match[1]), int(match[2]), int(match[3])) if match else None
