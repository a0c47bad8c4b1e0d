"""The published form of the SDK's generated schemas: ``$defs`` inlined, generated titles dropped,
optional parameters shown as their type; as the reference memory server publishes them."""

from __future__ import annotations

from typing import Any

from common.refs import LocalRefs


def tidy_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """One plain schema, as the reference server publishes: ``$defs`` inlined, pydantic's generated
    titles dropped, and an optional parameter shown as its type (not ``anyOf [T, null]``, default null)."""
    refs = LocalRefs(schema)

    def walk(node: Any, in_properties: bool = False) -> Any:
        if isinstance(node, list):
            return [walk(item) for item in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            target = refs.resolve(node["$ref"])  # the SDK only writes local refs that resolve
            return walk({**target, **{k: v for k, v in node.items() if k != "$ref"}})
        branches = node.get("anyOf", [])
        if node.get("default", ...) is None and len(branches) == 2 and {"type": "null"} in branches:
            [present] = [branch for branch in branches if branch != {"type": "null"}]
            rest = {k: v for k, v in node.items() if k not in ("anyOf", "default")}
            return walk({**present, **rest})
        return {
            key: walk(value, key == "properties")
            for key, value in node.items()
            if key != "$defs" and (in_properties or key != "title")
        }

    tidy: dict[str, Any] = walk(schema)
    return tidy
