"""Witnesses: the value that proves a schema change breaks a client.

An input schema change breaks callers when some call the old schema accepted is rejected by the
new one; an output schema change breaks clients when some result the new schema allows was
rejected by the old one. A witness is that value. It is built from the normalised schemas (values
probed at the changed node, embedded in an instance of the whole schema), found with jsonschema-rs
and confirmed with jsonschema against both schemas as the servers sent them: nothing unconfirmed
is ever reported. Pure: no MCP, no I/O.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator, Sequence
from typing import Any

_MAX_CANDIDATES = 60  # root instances tried per change: a bound on the cost of an unprovable claim
_MAX_DEPTH = 8  # nesting a sample is built to (recursive schemas keep a `$ref` at the cycle)
_UNSET: Any = object()
NOT_FOUND: Any = _UNSET  # what `find` returns when no candidate is a witness
# Strings tried against a `pattern` (and as plain strings): short, of the shapes patterns often ask.
_PROBE_STRINGS = (
    "",
    "a",
    "abc",
    "A",
    "0",
    "1",
    "abc123",
    "a-b",
    "a_b",
    "a b",
    "owner/repo",
    "https://example.com",
    "a@example.com",
    "2026-01-01",
    "2026-01-01T00:00:00Z",
    "00000000-0000-4000-8000-000000000000",
    "#",
    " ",
)
_FORMAT_SAMPLES = {
    "date-time": "2026-01-01T00:00:00Z",
    "date": "2026-01-01",
    "time": "00:00:00Z",
    "uri": "https://example.com",
    "url": "https://example.com",
    "uri-reference": "https://example.com",
    "email": "a@example.com",
    "uuid": "00000000-0000-4000-8000-000000000000",
    "ipv4": "127.0.0.1",
    "ipv6": "::1",
    "hostname": "example.com",
}
_ONE_OF_EACH_TYPE: tuple[Any, ...] = ("", 0, 0.5, True, None, {}, [])
_COMPOSITIONS = ("anyOf", "oneOf", "allOf")
_OBJECT_ONLY = frozenset({"properties", "required", "additionalProperties", "patternProperties"})


class Side:
    """One schema as a server sent it, compiled on first use.

    The search runs on jsonschema-rs (offline: a remote ``$ref`` is never fetched), which also
    tells whether the schema is one; a witness it finds is confirmed with jsonschema before it is
    reported, so two validators agree on every witness shown.
    """

    def __init__(self, raw: Any) -> None:
        self.raw = raw
        self._fast: Any = _UNSET
        self._python: Any = _UNSET

    def _compiled(self) -> Any:
        if self._fast is _UNSET:
            import jsonschema_rs

            self._fast = None
            if isinstance(self.raw, dict | bool):
                with contextlib.suppress(
                    jsonschema_rs.ValidationError, jsonschema_rs.ReferencingError, ValueError
                ):
                    self._fast = jsonschema_rs.validator_for(self.raw, offline=True)
        return self._fast

    def valid(self) -> bool:
        """Whether this is a schema a validator can use (its metaschema accepts it, its refs resolve)."""
        return self._compiled() is not None

    def accepts(self, instance: Any) -> bool | None:
        """True or False, or None when it cannot tell (not a schema)."""
        validator = self._compiled()
        if validator is None:
            return None
        try:
            return bool(validator.is_valid(instance))
        except ValueError:  # an instance it cannot read as JSON (a NaN); no witness is one
            return None

    def fails_at(self, instance: Any, location: Sequence[Any]) -> tuple[bool, bool]:
        """Whether jsonschema finds an error of ``instance`` at ``location`` (an instance path, ``*``
        for any item or key), and whether every error it finds is there: the value fails for the
        change there, and for nothing else."""
        self.confirms(instance)
        try:
            errors = list(self._python.iter_errors(instance))
        except Exception:  # a ref it cannot follow: it cannot say where the value fails
            return False, False
        own = [_error_at(error, list(location)) for error in errors]
        return any(own), bool(own) and all(own)

    def confirms(self, instance: Any) -> bool | None:
        """What jsonschema says of ``instance`` (None when it cannot follow the schema)."""
        if self._python is _UNSET:
            from jsonschema import Draft202012Validator, validators

            cls = validators.validator_for(self.raw, default=Draft202012Validator)
            self._python = cls(self.raw)
        try:
            return bool(self._python.is_valid(instance))
        except Exception:  # jsonschema raises its own types (and referencing's) for refs it cannot follow
            return None


def find(
    accepting: Side,
    rejecting: Side,
    root: Any,
    path: Sequence[Any],
    candidates: Sequence[Any] = (),
    other: Any = None,
    location: Sequence[Any] | None = None,
) -> tuple[Any, bool]:
    """A value ``accepting`` allows and ``rejecting`` rejects at the change alone, with True; else one
    it rejects there and elsewhere too, with False; else ``NOT_FOUND``.

    ``root`` is the normalised form of ``accepting``'s schema, ``other`` that of ``rejecting``'s and
    ``path`` the node where the change sits; ``candidates`` (then the node's own probes) are tried
    there, each inside an instance of the root built around it with values both sides accept
    elsewhere. A value is a witness only when ``rejecting`` finds an error at the change's own
    instance path (``location``, else the node's); it shows this change alone when every error is
    there. A value rejected only elsewhere shows another change and is never returned.
    """
    node = _at(root, path)
    location = instance_location(path) if location is None else location
    tried = 0
    seen: set[str] = set()
    shared: Any = NOT_FOUND
    for local in _chain(candidates, probes(node)):
        # filled first with what both sides require (a call valid but for the change), then with
        # what the accepting side requires alone (the change may be a property now required)
        for instance in _chain(_embed(root, list(path), local, other), _embed(root, list(path), local)):
            key = repr(instance)
            if key in seen:
                continue
            seen.add(key)
            tried += 1
            if (
                accepting.accepts(instance)
                and rejecting.accepts(instance) is False
                and accepting.confirms(instance)
                and rejecting.confirms(instance) is False
            ):
                here, alone = rejecting.fails_at(instance, location)
                if alone:
                    return instance, True
                if here and shared is NOT_FOUND:
                    shared = instance
            if tried >= _MAX_CANDIDATES:
                break
    return shared, False


# Errors a container reports at its own path for one of its keys: an undeclared key sent, a key
# that became required or too many keys; each is the error of the change at that key.
_CONTAINER_ERRORS = frozenset(
    {"additionalProperties", "unevaluatedProperties", "propertyNames", "maxProperties", "required"}
)


def _error_at(error: Any, location: list[Any]) -> bool:
    """The error is of the value at ``location``: there or within it, a container's error for
    that very key (sent undeclared, missing though required), or a composition's whose
    alternatives fail there."""
    at = [str(part) for part in error.absolute_path]
    if len(at) >= len(location) and _same_place(at[: len(location)], location):
        return True
    if location and error.validator in _CONTAINER_ERRORS and _same_place(at, location[:-1]):
        key = str(location[-1])
        instance = error.instance if isinstance(error.instance, dict) else {}
        if error.validator == "required":
            return key not in instance and error.message.startswith(repr(key))
        return key in instance or key == "*"
    if error.validator in ("anyOf", "oneOf", "allOf") and _same_place(at, location[: len(at)]):
        # a composition fails at its own node; the change sits in one of its alternatives
        return not error.context or any(_error_at(inner, location) for inner in error.context)
    return False


def _same_place(at: list[str], location: list[Any]) -> bool:
    return len(at) == len(location) and all(
        part == "*" or str(part) == here for part, here in zip(location, at, strict=True)
    )


def instance_location(path: Sequence[Any]) -> list[Any]:
    """The instance path a schema path points into (``*`` for any item or undeclared key)."""
    found: list[Any] = []
    index = 0
    while index < len(path):
        part = path[index]
        if part == "properties" and index + 1 < len(path):
            found.append(path[index + 1])
            index += 2
            continue
        if part in ("patternProperties", "prefixItems") and index + 1 < len(path):
            found.append("*")
            index += 2
            continue
        if part in ("items", "additionalProperties"):
            found.append("*")
        elif part in _COMPOSITIONS and index + 1 < len(path):
            index += 1  # the branch index: the same instance
        else:
            break  # a keyword of the node itself
        index += 1
    return found


def _chain(*groups: Any) -> Iterator[Any]:
    for group in groups:
        yield from group


def _at(schema: Any, path: Sequence[Any]) -> Any:
    for part in path:
        if isinstance(schema, dict):
            schema = schema.get(part, {})
        elif isinstance(schema, list) and isinstance(part, int) and part < len(schema):
            schema = schema[part]
        else:
            return {}
    return schema


def _merged(parent: dict[str, Any], member: Any) -> Any:
    """A branch of ``parent``'s composition with the parent's own keywords applied to it too."""
    if not isinstance(member, dict):
        return member
    out = {key: value for key, value in parent.items() if key not in _COMPOSITIONS}
    for key, value in member.items():
        if key == "properties" and isinstance(out.get(key), dict):
            out[key] = {**out[key], **value}
        elif key == "required" and isinstance(out.get(key), list):
            out[key] = sorted(set(out[key]) | set(value))
        else:
            out[key] = value
    return out


def _embed(schema: Any, path: list[Any], value: Any, other: Any = None) -> Iterator[Any]:
    """Instances of ``schema`` that hold ``value`` at the schema node ``path`` names, the rest of
    each object filled with values ``other`` (the other side's schema, walked alongside) accepts too."""
    if not path:
        yield value
        return
    if not isinstance(schema, dict):
        return
    other = other if isinstance(other, dict) else {}
    key, rest = path[0], path[1:]
    if key in ("properties", "patternProperties") and rest:
        name = rest[0]
        prop = name if key == "properties" else _key_matching(name)
        if prop is None or not isinstance(schema.get(key), dict) or name not in schema[key]:
            return
        base = _object_base(schema, exclude=prop, other=other)
        inner_other = (other.get(key) or {}).get(name) if isinstance(other.get(key), dict) else None
        for inner in _embed(schema[key][name], rest[1:], value, inner_other):
            yield {**base, prop: inner}
    elif key == "additionalProperties":
        base = _object_base(schema, other=other)
        extra = _unused_key(schema)
        for inner in _embed(schema.get(key, {}), rest, value, other.get(key)):
            yield {**base, extra: inner}
    elif key == "items":
        filler = _first(samples(schema.get("items", {})))
        count = max(int(schema.get("minItems", 1) or 1), 1)
        for inner in _embed(schema.get(key, {}), rest, value, other.get(key)):
            yield [inner, *([filler] * (count - 1) if filler is not _UNSET else [])]
    elif key in _COMPOSITIONS and rest and isinstance(schema.get(key), list):
        yield from _embed(_merged(schema, schema[key][rest[0]]), rest[1:], value, other)


def _key_matching(pattern: str) -> str | None:
    return next((text for text in _PROBE_STRINGS if text and _matches(pattern, text)), None)


def _matches(pattern: str, text: str) -> bool:
    try:
        return re.search(pattern, text) is not None
    except re.error:
        return False


def _unused_key(schema: dict[str, Any]) -> str:
    declared = schema.get("properties") or {}
    return next(name for name in ("extra", "unexpected", "x-extra-1") if name not in declared)


def _first(values: list[Any]) -> Any:
    return values[0] if values else _UNSET


def _object_base(schema: dict[str, Any], exclude: str | None = None, other: Any = None) -> dict[str, Any]:
    """The smallest object ``schema`` accepts: its required properties with a sample each; with
    ``other`` (the other side's object), its required properties too, each with a sample both take."""
    props = schema.get("properties") or {}
    other = other if isinstance(other, dict) else {}
    other_props = other.get("properties") if isinstance(other.get("properties"), dict) else {}
    names = list(dict.fromkeys([*(schema.get("required") or ()), *(other.get("required") or ())]))
    base: dict[str, Any] = {}
    for name in names:
        if name == exclude:
            continue
        mine = props.get(name, schema.get("additionalProperties", {}))
        theirs = other_props.get(name) if other else None
        options = samples(mine) + (samples(theirs) if isinstance(theirs, dict) else [])
        check = Side(theirs) if isinstance(theirs, dict) and isinstance(mine, dict) else None
        both = [
            value
            for value in options
            if check is None or (check.accepts(value) is not False and Side(mine).accepts(value) is not False)
        ]
        sample = _first(both or options)
        base[name] = "" if sample is _UNSET else sample
    return base


def samples(schema: Any, depth: int = 0) -> list[Any]:
    """A few values a normalised schema accepts, simplest first (best effort: callers confirm)."""
    if not isinstance(schema, dict):
        return []
    if depth > _MAX_DEPTH or "$ref" in schema:
        return ["", 0, {}]
    out: list[Any] = []
    if "const" in schema:
        return [schema["const"]]
    if isinstance(schema.get("enum"), list):
        return list(schema["enum"][:3])
    for keyword in ("anyOf", "oneOf"):
        if isinstance(schema.get(keyword), list):
            for branch in schema[keyword]:
                out += samples(_merged(schema, branch), depth + 1)[:2]
            return out
    if isinstance(schema.get("allOf"), list):
        merged: Any = {key: value for key, value in schema.items() if key != "allOf"}
        for member in schema["allOf"]:
            merged = _merged(merged, member)
        return samples(merged, depth + 1)
    for example in (schema.get("default"), *(schema.get("examples") or [])):
        if example is not None:
            out.append(example)
    types = schema.get("type")
    if types is None:
        types = ["object"] if _OBJECT_ONLY & schema.keys() else ["string", "integer", "boolean", "object"]
    for kind in types if isinstance(types, list) else [types]:
        out += _typed(kind, schema, depth)
    if schema.get("nullable"):
        out.append(None)
    return out


def _typed(kind: str, schema: dict[str, Any], depth: int) -> list[Any]:
    if kind == "null":
        return [None]
    if kind == "boolean":
        return [False, True]
    if kind in ("integer", "number"):
        return _numbers(kind, schema)
    if kind == "string":
        low = int(schema.get("minLength") or 0)
        format_sample = _FORMAT_SAMPLES.get(str(schema.get("format")))
        values = [format_sample] if format_sample else []
        if "pattern" not in schema:
            return [*values, "a" * low]
        return values + [text for text in _PROBE_STRINGS if _matches(str(schema["pattern"]), text)][:3]
    if kind == "array":
        item = _first(samples(schema.get("items", {}), depth + 1))
        count = int(schema.get("minItems") or 0)
        return [[item] * count] if item is not _UNSET or not count else []
    if kind == "object":
        base = _object_base(schema)
        return [base] if depth <= _MAX_DEPTH else []
    return []


def _numbers(kind: str, schema: dict[str, Any]) -> list[Any]:
    """Numbers within the schema's bounds, the simplest first."""
    values: list[Any] = [0, 1, -1]
    for keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        bound = schema.get(keyword)
        if isinstance(bound, int | float) and not isinstance(bound, bool):
            values += [bound, bound + 1, bound - 1, bound + 0.5, bound - 0.5]
    step = schema.get("multipleOf")
    if isinstance(step, int | float) and not isinstance(step, bool) and step > 0:
        values = [step * round(value / step) for value in values]
    if kind == "integer":
        values = [int(value) for value in values if float(value).is_integer()]
    return [value for value in dict.fromkeys(values) if _within(schema, value)]


def _within(schema: dict[str, Any], value: float) -> bool:
    def number(keyword: str) -> Any:
        bound = schema.get(keyword)
        return bound if isinstance(bound, int | float) and not isinstance(bound, bool) else None

    low, high = number("minimum"), number("maximum")
    low_open, high_open = number("exclusiveMinimum"), number("exclusiveMaximum")
    return (
        (low is None or value >= low)
        and (high is None or value <= high)
        and (low_open is None or value > low_open)
        and (high_open is None or value < high_open)
    )


def probes(schema: Any) -> list[Any]:
    """Values to try at a changed node: its samples, then its edges, then one value of each type."""
    if not isinstance(schema, dict):
        return list(_ONE_OF_EACH_TYPE)
    values = samples(schema)
    base = _first([value for value in values if isinstance(value, dict)])
    if isinstance(base, dict):  # objects: each optional property, then an undeclared one
        props = schema.get("properties") or {}
        for name, prop in props.items():
            sample = _first(samples(prop, 1))
            if name not in base and sample is not _UNSET:
                values.append({**base, name: sample})
        extra = _unused_key(schema)
        values += [{**base, extra: value} for value in _ONE_OF_EACH_TYPE]
        values.append({})
    for keyword in _BOUNDS:
        values += edges(schema, keyword, schema.get(keyword))
    item = _first(samples(schema.get("items", {}), 1))
    filler = "" if item is _UNSET else item
    values += [[filler], [filler, filler], *([value] for value in _ONE_OF_EACH_TYPE)]
    values += [*_PROBE_STRINGS, 10**6, -(10**6), 1.5, *_ONE_OF_EACH_TYPE]
    return values


_BOUNDS = (
    "maxLength",
    "minLength",
    "maxItems",
    "minItems",
    "maxProperties",
    "minProperties",
    "maximum",
    "minimum",
    "exclusiveMaximum",
    "exclusiveMinimum",
)


def edges(schema: Any, keyword: str, bound: Any) -> list[Any]:
    """Values of ``schema``'s kind just inside, at and just outside ``bound`` for ``keyword``.

    A bound's witness sits at one of them, whichever side the bound was moved to.
    """
    if not isinstance(bound, int | float) or isinstance(bound, bool) or not isinstance(schema, dict):
        return []
    if keyword in ("maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum"):
        values: list[Any] = [bound, bound - 1, bound + 1, bound - 0.5, bound + 0.5]
        return [int(value) if float(value).is_integer() else value for value in values]
    if bound > 10_000:  # a value this long proves nothing a shorter one would not; skip it
        return []
    counts = [int(bound), int(bound) + 1, *([int(bound) - 1] if bound >= 1 else [])]
    if keyword in ("maxLength", "minLength"):
        return ["a" * count for count in counts]
    if keyword in ("maxItems", "minItems"):
        item = _first(samples(schema.get("items", {}), 1))
        return [["" if item is _UNSET else item] * count for count in counts]
    base = _object_base(schema)
    return [{**base, **{f"k{i}": "" for i in range(max(count - len(base), 0))}} for count in counts]


__all__ = ["NOT_FOUND", "Side", "find", "instance_location", "probes", "samples"]
