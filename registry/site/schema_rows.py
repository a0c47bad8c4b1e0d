"""The rows of a tool page's parameter tables, walked from a JSON Schema: nested properties
indented, local ``$ref``s followed (with their sibling keywords, stopping at a cycle).
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import Any, TypedDict

from common.refs import LocalRefs
from registry.site.text import as_text

# Schema nesting shown in the tables (depth 0-9, as the stylesheet indents them); deeper levels
# stay in the raw JSON Schema view.
_MAX_SCHEMA_DEPTH = 10


class SchemaRow(TypedDict):
    """One property of a parameter table; ``path`` is dotted, with ``[]`` for array items."""

    name: str
    path: str
    depth: int
    required: bool
    type: str
    enum: list[str]
    has_default: bool
    default: str
    description: str


def schema_rows(schema: Any) -> list[SchemaRow]:
    """The rows of a "Name | Required | Type | Description" table, nested properties indented."""
    if not isinstance(schema, dict):
        return []
    rows: list[SchemaRow] = []
    _walk_properties(schema, LocalRefs(schema), "", 0, rows, frozenset())
    return rows


def _walk_properties(
    schema: dict[str, Any],
    refs: LocalRefs,
    prefix: str,
    depth: int,
    rows: list[SchemaRow],
    seen: AbstractSet[str],
) -> None:
    if depth >= _MAX_SCHEMA_DEPTH:
        return
    schema = _nullable_branch(_resolve_ref(schema, refs))
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return
    required = schema.get("required")
    required_names = (
        {item for item in required if isinstance(item, str)} if isinstance(required, list) else set()
    )
    for name, raw in properties.items():
        prop = _resolve_ref(raw, refs) if isinstance(raw, dict) else {}
        path = f"{prefix}{name}"
        rows.append(
            {
                "name": str(name),
                "path": path,
                "depth": depth,
                "required": name in required_names,
                "type": _schema_type(prop, refs),
                "enum": [as_text(value) for value in prop["enum"]]
                if isinstance(prop.get("enum"), list)
                else [],
                "has_default": "default" in prop,
                "default": as_text(prop.get("default")) if "default" in prop else "",
                "description": as_text(prop.get("description")),
            }
        )
        ref = raw.get("$ref") if isinstance(raw, dict) else None
        if isinstance(ref, str) and ref in seen:
            continue  # a recursive schema: its rows were listed one level up
        child_seen = seen | {ref} if isinstance(ref, str) else seen
        nested = _nullable_branch(prop)
        if isinstance(nested.get("items"), dict):
            _walk_properties(nested["items"], refs, f"{path}[].", depth + 1, rows, child_seen)
        else:
            _walk_properties(nested, refs, f"{path}.", depth + 1, rows, child_seen)


def _schema_type(schema: dict[str, Any], refs: LocalRefs) -> str:
    schema = _resolve_ref(schema, refs)
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(as_text(item) for item in kind)
    if isinstance(kind, str):
        if kind == "array" and isinstance(schema.get("items"), dict):
            inner = _schema_type(schema["items"], refs)
            return f"array of {inner}" if inner else "array"
        return kind
    for keyword in ("anyOf", "oneOf"):
        branches = schema.get(keyword)
        if isinstance(branches, list):
            names = [_schema_type(branch, refs) for branch in branches if isinstance(branch, dict)]
            return " | ".join(name or "any" for name in names)
    if "const" in schema:
        return "const"
    if "enum" in schema:
        return "enum"
    ref = schema.get("$ref")
    return f"ref {ref}" if isinstance(ref, str) else ""


def _resolve_ref(
    schema: dict[str, Any], refs: LocalRefs, seen: AbstractSet[str] = frozenset()
) -> dict[str, Any]:
    """``schema`` merged over the target of its local JSON-pointer ``$ref`` (``#/$defs/…``), its own
    keywords winning, and again while the result has one; a reference that names nothing, another
    document or one already followed (a cycle) is left alone."""
    ref = schema.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#/") or ref in seen:
        return schema
    target = refs.resolve(ref)
    if not isinstance(target, dict):
        return schema
    merged = {**target, **{key: value for key, value in schema.items() if key != "$ref"}}
    return _resolve_ref(merged, refs, seen | {ref})


def _nullable_branch(schema: dict[str, Any]) -> dict[str, Any]:
    """``anyOf: [X, {"type": "null"}]`` (Pydantic, Zod) → X, so nested properties of X are listed."""
    for keyword in ("anyOf", "oneOf"):
        branches = schema.get(keyword)
        if isinstance(branches, list) and len(branches) == 2:
            rest = [b for b in branches if not (isinstance(b, dict) and b.get("type") == "null")]
            if len(rest) == 1 and isinstance(rest[0], dict):
                return rest[0]
    return schema
