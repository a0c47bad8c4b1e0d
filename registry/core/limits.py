"""Per-server limits on what a snapshot may hold, so the work done on input that is not ours is bounded.

Four limits: tools (and items of each other list), the total size of the tools' schemas, the
nesting depth of a schema, and the length of a description. ``inspect`` records what goes past them
as problems (and stops listing at the item limit); the service refuses a submission past them
with a 422 naming the field and the limit. The defaults are far above real servers (the largest in
our corpus: 35 tools, 35 KB of schemas, depth 11, a 3,866-character description).
Pure: no I/O beyond reading the environment when asked to.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, fields
from typing import Any

from registry.core.errors import UsageError

_LISTS = ("tools", "resources", "resourceTemplates", "prompts")


@dataclass(frozen=True)
class Limit:
    """One limit as the CLI, the environment and the service name it."""

    attribute: str
    option: str  # the CLI option of `inspect` and `serve`
    env: str
    what: str  # what the number counts, for messages and help


LIMITS: tuple[Limit, ...] = (
    Limit("max_tools", "--max-tools", "MCPDEX_MAX_TOOLS", "tools (and items of each other list)"),
    Limit(
        "max_schema_bytes",
        "--max-schema-bytes",
        "MCPDEX_MAX_SCHEMA_BYTES",
        "bytes of all tools' input and output schemas together (compact JSON)",
    ),
    Limit("max_schema_depth", "--max-schema-depth", "MCPDEX_MAX_SCHEMA_DEPTH", "levels of schema nesting"),
    Limit(
        "max_description_chars",
        "--max-description-chars",
        "MCPDEX_MAX_DESCRIPTION_CHARS",
        "characters of one description (or of the server's instructions)",
    ),
)


@dataclass(frozen=True)
class Violation:
    """One place a snapshot goes past a limit: ``field`` is a JSON pointer into the snapshot."""

    limit: Limit
    field: str
    actual: int | None  # None: measured only as far as the limit (nesting depth)
    allowed: int

    @property
    def message(self) -> str:
        """What went past which limit, for a reader who cannot change the limit (a service's client)."""
        amount = f"more than {self.allowed:,}" if self.actual is None else f"{self.actual:,}"
        return (
            f"{self.field} has {amount} {self.limit.what}, over the limit of {self.allowed:,} "
            f"({self.limit.attribute})"
        )

    @property
    def hint(self) -> str:
        """How whoever runs mcpdex raises the limit."""
        return f"raise it with {self.limit.option} or {self.limit.env}"


@dataclass(frozen=True)
class Limits:
    """The limits one inspection or one service applies."""

    max_tools: int = 10_000
    max_schema_bytes: int = 4 * 1024 * 1024
    max_schema_depth: int = 64
    max_description_chars: int = 64 * 1024

    def __post_init__(self) -> None:
        for limit in LIMITS:
            value = getattr(self, limit.attribute)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise UsageError(f"{limit.option} ({limit.env}) must be a positive integer, not {value!r}")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **given: int | None) -> Limits:
        """The limits given (None: not given), else those set in the environment, else the defaults."""
        environ = os.environ if environ is None else environ
        values: dict[str, int] = {}
        for limit in LIMITS:
            value = given.get(limit.attribute)
            if value is None and environ.get(limit.env, "").strip():
                raw = environ[limit.env].strip()
                if not raw.isascii() or not raw.isdigit():
                    raise UsageError(f"{limit.env}={raw[:40]!r} must be a positive integer")
                value = int(raw)
            if value is not None:
                values[limit.attribute] = value
        return cls(**values)

    def as_dict(self) -> dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def violations(self, snapshot: Mapping[str, Any]) -> Iterator[Violation]:
        """Every place ``snapshot`` goes past a limit, in document order; linear in its size."""
        by_name = {limit.attribute: limit for limit in LIMITS}
        # Read before the schema is checked: any part may be of any type.
        server = snapshot.get("server")
        instructions = server.get("instructions") if isinstance(server, dict) else None
        if isinstance(instructions, str) and len(instructions) > self.max_description_chars:
            yield Violation(
                by_name["max_description_chars"],
                "/server/instructions",
                len(instructions),
                self.max_description_chars,
            )
        schema_bytes, size_reported = 0, False
        for key in _LISTS:
            items = snapshot.get(key)
            if not isinstance(items, list):
                continue
            if len(items) > self.max_tools:
                yield Violation(by_name["max_tools"], f"/{key}", len(items), self.max_tools)
            for index, item in enumerate(items[: self.max_tools]):
                if not isinstance(item, dict):
                    continue
                description = item.get("description")
                if isinstance(description, str) and len(description) > self.max_description_chars:
                    yield Violation(
                        by_name["max_description_chars"],
                        f"/{key}/{index}/description",
                        len(description),
                        self.max_description_chars,
                    )
                for schema_key in ("inputSchema", "outputSchema") if key == "tools" else ():
                    schema = item.get(schema_key)
                    if schema is None:
                        continue
                    where = f"/{key}/{index}/{schema_key}"
                    if nesting_depth(schema, self.max_schema_depth + 1) > self.max_schema_depth:
                        yield Violation(by_name["max_schema_depth"], where, None, self.max_schema_depth)
                        continue  # too deep to encode safely; its size no longer matters
                    if size_reported:
                        continue
                    schema_bytes += len(
                        json.dumps(schema, separators=(",", ":"), ensure_ascii=False).encode()
                    )
                    if schema_bytes > self.max_schema_bytes:
                        # Reported once, at the schema that went past it.
                        size_reported = True
                        yield Violation(
                            by_name["max_schema_bytes"], where, schema_bytes, self.max_schema_bytes
                        )


def nesting_depth(value: Any, stop_at: int) -> int:
    """How many objects and arrays deep ``value`` goes (a scalar is 0), counted up to ``stop_at``.

    Iterative, so a hostile document nested past the interpreter's recursion limit is measured, not
    crashed on; it stops at ``stop_at`` levels, so the walk never costs more than the document's size.
    """
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        current, depth = stack.pop()
        if isinstance(current, dict):
            children: Any = current.values()
        elif isinstance(current, list):
            children = current
        else:
            continue
        deepest = max(deepest, depth)
        if depth >= stop_at:
            return depth
        stack.extend((child, depth + 1) for child in children)
    return deepest
