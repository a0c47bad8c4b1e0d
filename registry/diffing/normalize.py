"""Normalise tool definitions before diffing, so cosmetic re-serialisation produces no change.

Different SDKs write the same contract differently: key order, the order of ``required`` and
``enum``, ``$ref``/``$defs`` factoring, three spellings of "nullable", absent annotation hints,
TypeScript's draft-07 ``$schema`` stamp and Pydantic's generated ``title`` s. Every function here
is pure and returns new data; the inputs are never modified.
"""

from __future__ import annotations

import math
from json.encoder import encode_basestring
from typing import Any

from common.canonical import canonical_json
from common.refs import LocalRefs

# MCP's defaults for absent annotation hints (spec, ToolAnnotations): an absent hint counts as its
# default, so removing "destructiveHint": false means the tool became destructive.
ANNOTATION_DEFAULTS: dict[str, bool] = {
    "readOnlyHint": False,
    "destructiveHint": True,
    "idempotentHint": False,
    "openWorldHint": True,
}

# Tool fields that make up the contract; anything else a server sends is an "extra" field.
TOOL_CONTRACT_FIELDS = ("name", "title", "description", "inputSchema", "outputSchema", "annotations")

# Keywords whose value is one subschema, a map of subschemas, or a list of subschemas.
_SCHEMA_VALUED = (
    "additionalProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "additionalItems",
)
_SCHEMA_MAPS = ("properties", "patternProperties", "dependentSchemas")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_COMPOSITIONS = ("anyOf", "oneOf", "allOf")
# Keywords that only document a schema: a `$ref` sibling or a single-member allOf wrapper carrying
# only these can be merged into the referenced schema without changing what validates.
_DOC_KEYWORDS = frozenset(
    {"title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly", "$comment"}
)
_MAX_REF_DEPTH = 10  # recursive schemas are expanded this deep at most (TDQS caps traversal at 10)
# How ``_Resolver.node`` treats the value of each keyword; any other keyword's value is plain data.
_SKIPPED, _MAP, _LIST, _ITEMS, _VALUED = range(5)
_KEYWORD_KINDS = {
    # the dialect is compared separately; definitions are inlined where used
    **dict.fromkeys(("$schema", "$defs", "definitions"), _SKIPPED),
    **dict.fromkeys(_SCHEMA_MAPS, _MAP),
    **dict.fromkeys(_SCHEMA_LISTS, _LIST),
    "items": _ITEMS,
    **dict.fromkeys(_SCHEMA_VALUED, _VALUED),
}
# Values normalize_numbers returns as they are: the most common leaves skip the call.
_NUMBER_FREE = frozenset({str, int, bool, type(None)})
# Keywords _tidy rewrites; a node with none of them (and a single type) is already tidy.
_TIDIED = frozenset(
    {"nullable", "anyOf", "oneOf", "allOf", "required", "enum"}
    | {"additionalProperties", "uniqueItems", "items", "properties", "deprecated", "propertyNames"}
    | {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}
    | {"minLength", "minItems", "minProperties", "minContains"}
)
# Bounds generators stamp on every integer, which bound nothing a caller sends: zod 4 writes
# JavaScript's safe-integer range (±(2**53 - 1)) as minimum and maximum of every `z.number().int()`.
_SAFE_INTEGER = 2**53 - 1
# Keywords whose value equals their absence: `additionalProperties: {}` accepts anything, as true
# does; a count bound of 0 bounds nothing; JSON object keys are always strings.
_NEUTRAL: tuple[tuple[str, Any], ...] = (
    ("additionalProperties", True),
    ("additionalProperties", {}),
    ("uniqueItems", False),
    ("items", {}),
    ("properties", {}),
    ("deprecated", False),
    ("propertyNames", {}),
    ("propertyNames", {"type": "string"}),
    ("minLength", 0),
    ("minItems", 0),
    ("minProperties", 0),
)


def normalize_numbers(value: Any) -> Any:
    """Integral floats become ints (``100.0`` ≡ ``100``), recursively; booleans stay booleans."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: normalize_numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [normalize_numbers(item) for item in value]
    return value


def _plain(value: Any) -> Any:
    """``normalize_numbers(value)``, without its walk for the values it returns as they are."""
    return value if type(value) in _NUMBER_FREE else normalize_numbers(value)


def _canonical(value: Any) -> str:
    """``canonical_json(value)``; a string's is its JSON string, made here without building an encoder."""
    return encode_basestring(value) if type(value) is str else canonical_json(value)


def pydantic_titles(name: str) -> set[str]:
    """The titles Pydantic generates for a field called ``name`` (v2 and the older v1 style)."""
    return {name.title().replace("_", " ").strip(), name.replace("_", " ").title().strip()}


def schema_dialect(schema: Any) -> str | None:
    """The ``$schema`` a schema declares (absent means JSON Schema 2020-12 in MCP)."""
    return schema.get("$schema") if isinstance(schema, dict) else None


def normalize_schema(
    schema: Any, *, root_titles: tuple[str, ...] = (), origins: dict[int, tuple[Any, Any]] | None = None
) -> Any:
    """The normalised form of a JSON Schema: refs inlined, nullable unified, sets sorted, noise removed.

    ``root_titles`` are titles that carry no information at the root (Pydantic's
    ``"<tool>Arguments"``); they are dropped. ``origins``, when given, is filled with the node of
    ``schema`` each normalised subschema came from (by ``id``), so a report can show a subschema as
    the server sent it: normalisation decides equality, never what is shown.
    """
    if not isinstance(schema, dict):
        return normalize_numbers(schema)
    result = _Resolver(schema, origins).node(schema, stack=())
    if isinstance(result, dict) and result.get("title") in root_titles:
        result.pop("title")
    return result


class _Resolver:
    """Walks one schema document, inlining local ``$ref`` s with a stack that stops cycles.

    The walk builds every container of its result anew and normalises numbers on the way, so the
    result shares nothing with the document.
    """

    def __init__(self, document: dict[str, Any], origins: dict[int, tuple[Any, Any]] | None = None) -> None:
        self.document = document
        self.origins = origins
        self.refs = LocalRefs(document)

    def node(self, schema: Any, stack: tuple[str, ...]) -> Any:
        result = self._node(schema, stack)
        if self.origins is not None and isinstance(result, dict):
            # setdefault: a `$ref` node shows as the definition it names, recorded by the inner call
            # The entry holds the normalised node too, so its id is never reused while the map lives.
            self.origins.setdefault(id(result), (result, schema))
        return result

    def _node(self, schema: Any, stack: tuple[str, ...]) -> Any:
        if schema is True:
            return {}
        if schema is False:
            return {"not": {}}
        if not isinstance(schema, dict):
            return normalize_numbers(schema)
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#"):
            return self._inline(schema, ref, stack)
        out: dict[str, Any] = {}
        for key, value in schema.items():
            kind = _KEYWORD_KINDS.get(key)
            if kind is None:  # most keywords hold plain data (_plain, inlined in this hottest loop)
                out[key] = value if type(value) in _NUMBER_FREE else normalize_numbers(value)
            elif kind == _MAP and isinstance(value, dict):
                out[key] = {name: self._property(name, sub, stack, key) for name, sub in value.items()}
            elif kind in (_LIST, _ITEMS) and isinstance(value, list):
                out[key] = [self.node(sub, stack) for sub in value]
            elif kind in (_ITEMS, _VALUED) and isinstance(value, dict):
                out[key] = self.node(value, stack)
            elif kind != _SKIPPED:
                out[key] = normalize_numbers(value)
        return _tidy(out)

    def _property(self, name: str, schema: Any, stack: tuple[str, ...], container: str) -> Any:
        result = self.node(schema, stack)
        if (
            container == "properties"
            and isinstance(result, dict)
            and "title" in result
            and result["title"] in pydantic_titles(name)
        ):
            result.pop("title")
        return result

    def _inline(self, schema: dict[str, Any], ref: str, stack: tuple[str, ...]) -> Any:
        siblings = {key: value for key, value in schema.items() if key != "$ref"}
        target = self.refs.resolve(ref)
        if target is None or ref in stack or len(stack) >= _MAX_REF_DEPTH:
            # A cycle (or a dangling ref): keep the pointer; its target was compared where first expanded.
            return _tidy(
                {
                    "$ref": ref,
                    **{
                        k: self.node(v, stack) if k in _SCHEMA_VALUED else normalize_numbers(v)
                        for k, v in siblings.items()
                    },
                }
            )
        resolved = self.node(target, (*stack, ref))
        if not isinstance(resolved, dict):
            return resolved
        definition_name = ref.rsplit("/", 1)[-1]
        if resolved.get("title") == definition_name:
            resolved.pop("title")  # Pydantic titles a model schema with its class name
        if not siblings:
            return resolved
        normalized_siblings = self.node(siblings, stack)
        return _merge_or_wrap(resolved, normalized_siblings)


def _merge_or_wrap(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """``base`` with ``extra`` laid over it when ``extra`` only documents; else both as an allOf."""
    if set(extra) <= _DOC_KEYWORDS or not (set(extra) & set(base)):
        return _tidy({**base, **extra})
    return _tidy({"allOf": [base], **extra})


def _is_null_schema(schema: Any) -> bool:
    return isinstance(schema, dict) and schema.get("type") == "null" and set(schema) <= {"type", "title"}


def _tidy(out: dict[str, Any]) -> dict[str, Any]:
    """Unify nullable forms, sort set-like arrays and drop keywords equal to their defaults.

    ``out`` is a node the resolver has just built: it is tidied in place.
    """
    if _TIDIED.isdisjoint(out) and not isinstance(out.get("type"), list):
        return out
    nullable = out.pop("nullable", False) is True  # OpenAPI 3.0 spelling
    types = out.get("type")
    if isinstance(types, list):
        if "null" in types and len(types) > 1:
            nullable = True
            types = [t for t in types if t != "null"]
        types = sorted(set(types), key=str)
        out["type"] = types[0] if len(types) == 1 else types
    for keyword in ("anyOf", "oneOf"):
        branches = out.get(keyword)
        if isinstance(branches, list) and any(_is_null_schema(b) for b in branches):
            rest = [b for b in branches if not _is_null_schema(b)]
            if rest:
                nullable = True
                out[keyword] = rest
    # anyOf (and allOf) repeat a branch without effect; oneOf's repeats reject what both match.
    for keyword in ("anyOf", "allOf"):
        branches = out.get(keyword)
        if isinstance(branches, list) and len(branches) > 1:
            out[keyword] = list({canonical_json(branch): branch for branch in branches}.values())
    # A single-member allOf/anyOf/oneOf is the member itself (Pydantic wraps `$ref`s this way).
    for keyword in _COMPOSITIONS:
        branches = out.get(keyword)
        if isinstance(branches, list) and len(branches) == 1 and isinstance(branches[0], dict):
            del out[keyword]
            member = branches[0]
            if set(out) <= _DOC_KEYWORDS or not (set(out) & set(member)):
                out = {**member, **out}
                nullable = nullable or out.pop("nullable", False) is True
            else:
                out["allOf"] = [member]
    for keyword in _COMPOSITIONS:
        if isinstance(out.get(keyword), list):
            out[keyword] = sorted(out[keyword], key=canonical_json)
    if isinstance(out.get("required"), list):
        out["required"] = sorted(set(out["required"]), key=str)
        if not out["required"]:
            del out["required"]
    if isinstance(out.get("enum"), list):
        values = {_canonical(value): value for value in out["enum"]}
        out["enum"] = [values[key] for key in sorted(values)]
    for keyword, default in _NEUTRAL:
        if keyword in out and out[keyword] == default:
            del out[keyword]
    if out.get("type") == "integer":
        _integer_bounds(out)
    if out.get("type") in ("integer", "number"):
        if _is_number(out.get("minimum")) and out["minimum"] <= -_SAFE_INTEGER:
            del out["minimum"]
        if _is_number(out.get("maximum")) and out["maximum"] >= _SAFE_INTEGER:
            del out["maximum"]
    if nullable:
        out["nullable"] = True
    return out


def _integer_bounds(out: dict[str, Any]) -> None:
    """One spelling of an integer's range: inclusive bounds, without the safe-integer stamps.

    ``exclusiveMinimum: 0`` and ``minimum: 1`` admit the same integers, so the exclusive form becomes
    the inclusive one (the stricter of the two when both are given).
    """
    low, high = out.pop("exclusiveMinimum", None), out.pop("exclusiveMaximum", None)
    if _is_number(low):
        bound = math.floor(low) + 1
        out["minimum"] = bound if not _is_number(out.get("minimum")) else max(bound, out["minimum"])
    elif low is not None:
        out["exclusiveMinimum"] = low
    if _is_number(high):
        bound = math.ceil(high) - 1
        out["maximum"] = bound if not _is_number(out.get("maximum")) else min(bound, out["maximum"])
    elif high is not None:
        out["exclusiveMaximum"] = high
    if _is_number(out.get("minimum")):
        out["minimum"] = math.ceil(out["minimum"])
    if _is_number(out.get("maximum")):
        out["maximum"] = math.floor(out["maximum"])


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def origin(origins: dict[int, tuple[Any, Any]], node: Any) -> Any:
    """``node`` as the server sent it, when ``node`` is a normalised subschema in ``origins``."""
    entry = origins.get(id(node))
    return entry[1] if entry is not None and entry[0] is node else node


def normalize_annotations(annotations: Any) -> dict[str, Any]:
    """Annotations with every absent hint set to the default MCP gives it."""
    result: dict[str, Any] = dict(ANNOTATION_DEFAULTS)
    if isinstance(annotations, dict):
        result.update({key: _plain(value) for key, value in annotations.items() if value is not None})
    return result


def _arguments(schema: Any) -> Any:
    """An input schema root that names no type: tool arguments are always an object, so it is one."""
    if isinstance(schema, dict) and "type" not in schema and _COMPOSITION_FREE.isdisjoint(schema):
        schema["type"] = "object"  # in place: the node is new, and keeps its origin
    return schema


_COMPOSITION_FREE = frozenset({"anyOf", "oneOf", "allOf", "not", "$ref", "if", "const", "enum"})


def normalize_tool(tool: dict[str, Any]) -> dict[str, Any]:
    """One tool in normalised form: the contract fields, the dialects, and the other fields apart."""
    name = tool.get("name", "")
    output = tool.get("outputSchema")
    origins: dict[int, tuple[Any, Any]] = {}
    return {
        "name": name,
        "title": tool.get("title") or None,
        # MCPServer sends "" for a function without a docstring; other SDKs omit the field.
        "description": tool.get("description") or None,
        "inputSchema": _arguments(
            normalize_schema(
                tool.get("inputSchema") or {"type": "object"},
                root_titles=(f"{name}Arguments",),
                origins=origins,
            )
        ),
        "outputSchema": (
            normalize_schema(output, root_titles=(f"{name}Output",), origins=origins)
            if isinstance(output, dict)
            else None
        ),
        # id of each normalised subschema → the subschema as the server sent it (see normalize_schema)
        "origins": origins,
        "sent": {"inputSchema": tool.get("inputSchema"), "outputSchema": output},
        "annotations": normalize_annotations(tool.get("annotations")),
        "dialects": {
            "inputSchema": schema_dialect(tool.get("inputSchema")),
            "outputSchema": schema_dialect(output),
        },
        "extra": {
            key: _plain(value)
            for key, value in tool.items()
            if key not in TOOL_CONTRACT_FIELDS and value is not None
        },
    }
