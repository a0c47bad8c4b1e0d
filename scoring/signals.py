"""Context signals of one tool definition, exactly as the TDQS rubric defines them.

Structure only: counts over the input schema, annotation values, the invocation cost of the
required subtree and the definition's hash. The language of the description is not read here.
"""

from __future__ import annotations

import hashlib
from typing import Any, Literal, TypedDict

from common.canonical import canonical_json
from common.refs import LocalRefs

MAX_DEPTH = 10
HASHED_FIELDS = ("name", "title", "description", "inputSchema", "outputSchema", "annotations")


class InvocationCost(TypedDict):
    """What calling the tool costs the model: the required subtree of its input schema."""

    requiredFieldCount: int
    schemaDepth: int
    unionChoiceCount: int
    invocationCost: int


Hint = Literal["readOnly", "destructive", "idempotent", "openWorld"]


class AnnotationValues(TypedDict):
    """The four behaviour hints, each ``None`` when the tool does not send it as a boolean."""

    readOnly: bool | None
    destructive: bool | None
    idempotent: bool | None
    openWorld: bool | None


class ContextSignals(InvocationCost):
    """The context signals of one tool (§2 of the rubric), keyed as the published ``contextSignals``."""

    paramCount: int
    requiredParamCount: int
    paramsWithDescriptions: int
    paramsWithEnums: int
    schemaDescriptionCoverage: int
    hasNestedObjects: bool
    hasOutputSchema: bool
    hasAnnotations: bool
    annotationValues: AnnotationValues
    titleIsMeaningful: bool
    definitionBytes: int
    inputHash: str


def properties_of(schema: Any) -> dict[str, Any]:
    """The ``properties`` of an object schema, or ``{}`` for anything else."""
    if isinstance(schema, dict):
        properties = schema.get("properties")
        if isinstance(properties, dict):
            return properties
    return {}


def described_parameters(params: dict[str, Any]) -> set[str]:
    """The names of the parameters whose schema has a non-blank description."""
    return {
        name
        for name, schema in params.items()
        if isinstance(schema, dict)
        and isinstance(schema.get("description"), str)
        and schema["description"].strip()
    }


def required_of(schema: Any) -> list[str]:
    """The top-level ``required`` list of a schema, keeping only strings."""
    required = schema.get("required") if isinstance(schema, dict) else None
    return [name for name in required if isinstance(name, str)] if isinstance(required, list) else []


def has_type(schema: Any, name: str) -> bool:
    """Whether ``schema`` declares ``type`` ``name`` (alone or in a type array)."""
    if not isinstance(schema, dict):
        return False
    declared = schema.get("type")
    return declared == name or (isinstance(declared, list) and name in declared)


def is_nullable_union(branches: list[Any]) -> bool:
    """The Pydantic/Zod nullable idiom: one real branch plus ``{"type": "null"}``."""
    real = [branch for branch in branches if not (isinstance(branch, dict) and branch.get("type") == "null")]
    return len(branches) >= 2 and len(real) == 1


def _resolve(schema: Any, refs: LocalRefs, seen: frozenset[str]) -> tuple[Any, frozenset[str]]:
    """Follow local ``$ref`` pointers (into ``$defs``/``definitions``, say); a repeated one stops."""
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
        pointer = schema["$ref"]
        if pointer in seen or not pointer.startswith("#/"):
            return None, seen
        seen = seen | {pointer}
        schema = refs.resolve(pointer)
    return schema, seen


def _measure(schema: Any, refs: LocalRefs, level: int, seen: frozenset[str]) -> tuple[int, int, int]:
    """(required fields, depth, union choices) of the required subtree below ``schema``."""
    schema, seen = _resolve(schema, refs, seen)
    if not isinstance(schema, dict) or level > MAX_DEPTH:
        return 0, 0, 0
    required_count, depth, unions = 0, 0, 0
    properties = properties_of(schema)
    if properties:
        depth = level
        for name in required_of(schema):
            if name not in properties:
                continue
            required_count += 1
            child, child_seen = _resolve(properties[name], refs, seen)
            if has_type(child, "array") and isinstance(child, dict):
                child = child.get("items")
            child_required, child_depth, child_unions = _measure(child, refs, level + 1, child_seen)
            required_count += child_required
            depth = max(depth, child_depth)
            unions += child_unions
    for branch in schema.get("allOf") or []:
        branch_required, branch_depth, branch_unions = _measure(branch, refs, max(level, 1), seen)
        required_count += branch_required
        depth = max(depth, branch_depth)
        unions += branch_unions
    for key in ("oneOf", "anyOf"):
        branches = schema.get(key)
        if not isinstance(branches, list) or not branches:
            continue
        if not is_nullable_union(branches):
            unions += len(branches) - 1
        measured = [_measure(branch, refs, max(level, 1), seen) for branch in branches]
        required_count += max(item[0] for item in measured)
        depth = max(depth, *(item[1] for item in measured))
        unions += sum(item[2] for item in measured)
    return required_count, depth, unions


def invocation_cost(input_schema: Any) -> InvocationCost:
    """``requiredFieldCount``, ``schemaDepth``, ``unionChoiceCount`` and ``invocationCost``."""
    root = input_schema if isinstance(input_schema, dict) else {}
    if not properties_of(root) and not any(root.get(key) for key in ("oneOf", "anyOf", "allOf", "$ref")):
        required_count, depth, unions = 0, 0, 0
    else:
        required_count, depth, unions = _measure(root, LocalRefs(root), 1, frozenset())
    return {
        "requiredFieldCount": required_count,
        "schemaDepth": depth,
        "unionChoiceCount": unions,
        "invocationCost": required_count + 2 * max(0, depth - 1) + 2 * unions,
    }


def definition_text(tool: dict[str, Any]) -> str:
    """The deterministic serialization of a definition that ``inputHash`` covers."""
    return canonical_json({field: tool.get(field) for field in HASHED_FIELDS})


def _object(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else ``{}``."""
    return value if isinstance(value, dict) else {}


def _hint(annotations: dict[str, Any], wire: str) -> bool | None:
    """The annotation ``wire`` (``readOnlyHint`` ...) when it is a boolean, else ``None``."""
    value = annotations.get(wire)
    return value if isinstance(value, bool) else None


def tool_title(tool: dict[str, Any]) -> str | None:
    """The tool's display title: ``title``, else ``annotations.title``."""
    annotations = _object(tool.get("annotations"))
    title = tool.get("title") or annotations.get("title")
    return title if isinstance(title, str) and title.strip() else None


def context_signals(tool: dict[str, Any]) -> ContextSignals:
    """Every context signal of §2 of the rubric, keyed as the published ``contextSignals``."""
    schema = _object(tool.get("inputSchema"))
    properties = properties_of(schema)
    param_count = len(properties)
    described = sum(
        1
        for prop in properties.values()
        if isinstance(prop, dict) and isinstance(prop.get("description"), str) and prop["description"].strip()
    )
    with_enums = sum(1 for prop in properties.values() if isinstance(prop, dict) and "enum" in prop)
    coverage = 100 if param_count == 0 else (200 * described + param_count) // (2 * param_count)
    annotations = _object(tool.get("annotations"))
    output_schema = tool.get("outputSchema")
    name = str(tool.get("name") or "")
    title = tool_title(tool)
    serialized = definition_text(tool).encode("utf-8")
    return {
        "paramCount": param_count,
        "requiredParamCount": len(required_of(schema)),
        "paramsWithDescriptions": described,
        "paramsWithEnums": with_enums,
        "schemaDescriptionCoverage": coverage,
        "hasNestedObjects": any(has_type(prop, "object") for prop in properties.values()),
        "hasOutputSchema": isinstance(output_schema, dict) and bool(output_schema),
        "hasAnnotations": bool(annotations),
        "annotationValues": {
            "readOnly": _hint(annotations, "readOnlyHint"),
            "destructive": _hint(annotations, "destructiveHint"),
            "idempotent": _hint(annotations, "idempotentHint"),
            "openWorld": _hint(annotations, "openWorldHint"),
        },
        "titleIsMeaningful": bool(title) and title != name and len(title or "") > len(name),
        **invocation_cost(schema),
        "definitionBytes": len(serialized),
        "inputHash": hashlib.sha256(serialized).hexdigest()[:16],
    }
