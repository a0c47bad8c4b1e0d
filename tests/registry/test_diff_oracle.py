"""An oracle for the diff: instances drawn from the schemas decide what a breaking change is.

Hypothesis builds an input schema and a release of it, changed the ways real releases change
(including the classes the issue lists: additionalProperties closed, count bounds set,
propertyNames, alternatives wrapped around an old schema, declared integer bounds re-spelled,
generator stamps); hypothesis-jsonschema draws calls the old schema accepts. Then:

- when the diff reports no breaking input change, no drawn call the old schema accepts fails the new;
- every witness the diff reports is accepted by the old schema and rejected by the new one, and
  rejected for its own change: each error is at the change's path (or within the value there);
- each drawn call that fails the new schema is explained by a breaking change at its path (or by
  a rule the table keeps below breaking by stated policy, ``BY_POLICY``).

The same holds for output schemas with the sides swapped (results the new schema allows).
bench/README.md records how many pairs and instances a CI run checks.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from hypothesis_jsonschema import from_schema
from hypothesis_jsonschema._canonicalise import FALSEY, canonicalish
from jsonschema import Draft202012Validator

from registry.diffing.changes import SHARED_SENTENCES
from registry.diffing.diff import diff_snapshots
from tests.conftest import make_snapshot

PAIRS = 150  # schema pairs per direction; each draws up to INSTANCES calls (or results)
INSTANCES = 12
SAFE = 2**53 - 1
NAMES = ("a", "b", "c", "d")
CHECKED = {"pairs": 0, "instances": 0, "failing": 0, "breaking": 0, "witnesses": 0, "alone": 0}
# Rules that see a value fail and still are not breaking, by the table's stated policy: a changed
# pattern is a warning (which strings two patterns share is not decided); undeclared and new
# result properties are what clients ignore (the open-content lesson), and a new result
# enum value is a warning, as in oasdiff. A failing instance these explain is not a missed break.
BY_POLICY = frozenset(
    {
        "input-pattern-changed",
        "output-additional-properties-opened",
        "output-optional-property-added",
        "output-required-property-added",
        "output-enum-value-added",
    }
)

# ── schemas ──────────────────────────────────────────────────────────────────────────────────


@st.composite
def leaves(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["string", "integer", "number", "boolean", "enum", "array"]))
    if kind == "string":
        schema: dict[str, Any] = {"type": "string"}
        if draw(st.booleans()):
            schema["maxLength"] = draw(st.integers(1, 6))
        if draw(st.booleans()):
            schema["minLength"] = draw(st.integers(0, 1))
        return schema
    if kind in ("integer", "number"):
        schema = {"type": kind}
        if draw(st.booleans()):
            schema["minimum"] = draw(st.integers(-3, 3))
        if draw(st.booleans()):
            schema["maximum"] = draw(st.integers(4, 9))
        return schema
    if kind == "enum":
        return {
            "type": "string",
            "enum": draw(st.lists(st.sampled_from("xyzw"), min_size=1, max_size=3, unique=True)),
        }
    if kind == "array":
        schema = {"type": "array", "items": draw(st.sampled_from([{"type": "string"}, {"type": "integer"}]))}
        if draw(st.booleans()):
            schema["maxItems"] = draw(st.integers(1, 3))
        return schema
    return {"type": "boolean"}


@st.composite
def objects(draw: st.DrawFn, depth: int = 0) -> dict[str, Any]:
    names = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=3, unique=True))
    children = leaves() if depth else st.one_of(leaves(), objects(depth=1))
    schema: dict[str, Any] = {"type": "object", "properties": {name: draw(children) for name in names}}
    required = draw(st.lists(st.sampled_from(names), unique=True, max_size=len(names)))
    if required:
        schema["required"] = required
    closing = draw(st.sampled_from([None, None, False, {}, {"type": "string"}]))
    if closing is not None:
        schema["additionalProperties"] = closing
    return schema


def _paths(schema: dict[str, Any], at: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Schema paths of every subschema reached through ``properties``."""
    found = [at]
    for name, prop in (schema.get("properties") or {}).items():
        if isinstance(prop, dict):
            found += _paths(prop, (*at, "properties", name))
    return found


def _node(schema: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    for part in path:
        schema = schema[part]
    return schema


def _parent_and_key(schema: dict[str, Any], path: tuple[str, ...]) -> tuple[dict[str, Any], str]:
    return _node(schema, path[:-1]), path[-1]


def _mutations(node: dict[str, Any]) -> list[str]:
    kind = node.get("type")
    found = ["wrap-any-of", "type", "nullable", "const"]
    if kind == "object":
        found += [
            "close",
            "open",
            "require",
            "unrequire",
            "add-property",
            "remove-property",
            "property-names",
        ]
        found += ["min-properties"]
    if kind == "string":
        found += ["max-length", "min-length", "pattern", "enum"]
    if kind in ("integer", "number"):
        found += ["maximum", "minimum", "zod-stamp", "exclusive"]
    if kind == "array":
        found += ["min-items", "max-items", "items"]
    if "enum" in node:
        found += ["enum-add", "enum-remove"]
    if "anyOf" in node:
        found += ["branch-remove", "branch-add"]
    return found


def _mutate(draw: st.DrawFn, schema: dict[str, Any]) -> None:
    """One change, of a kind real releases make, at a property (or the root) of ``schema``."""
    path = draw(st.sampled_from(_paths(schema)))
    node = _node(schema, path)
    what = draw(st.sampled_from(_mutations(node)))
    at_root = not path
    if what == "wrap-any-of" and not at_root:
        parent, key = _parent_and_key(schema, path)
        other = draw(
            st.sampled_from([{"type": "string"}, {"type": "object"}, {"type": "null"}, {"type": "integer"}])
        )
        parent[key] = {"anyOf": [copy.deepcopy(node), other]}
    elif what == "type" and not at_root:
        parent, key = _parent_and_key(schema, path)
        parent[key] = draw(
            st.sampled_from([{"type": "string"}, {"type": "integer"}, {"type": ["string", "integer"]}])
        )
    elif what == "nullable" and not at_root:
        parent, key = _parent_and_key(schema, path)
        parent[key] = {"anyOf": [copy.deepcopy(node), {"type": "null"}]}
    elif what == "const" and not at_root and node.get("type") in ("string", "integer", "boolean"):
        node["const"] = {"string": "x", "integer": 5, "boolean": True}[node["type"]]
    elif what == "close":
        node["additionalProperties"] = False
    elif what == "open":
        node.pop("additionalProperties", None)
    elif what == "require":
        names = sorted(node.get("properties") or {})
        if names:
            node["required"] = sorted({*node.get("required", []), draw(st.sampled_from(names))})
    elif what == "unrequire" and node.get("required"):
        node["required"] = node["required"][1:]
        if not node["required"]:
            del node["required"]
    elif what == "add-property":
        name = draw(st.sampled_from(["e", "f"]))
        node.setdefault("properties", {})[name] = draw(leaves())
        if draw(st.booleans()):
            node["required"] = sorted({*node.get("required", []), name})
    elif what == "remove-property" and node.get("properties"):
        name = draw(st.sampled_from(sorted(node["properties"])))
        del node["properties"][name]
        if name in node.get("required", []):
            node["required"] = [n for n in node["required"] if n != name]
            if not node["required"]:
                del node["required"]
    elif what == "property-names":
        node["propertyNames"] = {"type": "string"}
    elif what == "min-properties":
        node["minProperties"] = draw(st.integers(0, 2))
    elif what in ("max-length", "min-length", "min-items", "max-items", "maximum", "minimum"):
        keyword = {"max-length": "maxLength", "min-length": "minLength", "min-items": "minItems"}.get(
            what, what
        )
        keyword = {"max-items": "maxItems"}.get(what, keyword)
        if draw(st.booleans()) and keyword in node:
            del node[keyword]
        else:
            node[keyword] = draw(st.integers(0, 5))
    elif what == "zod-stamp":
        node["maximum"], node["minimum"] = SAFE, node.get("minimum", -SAFE)
    elif what == "exclusive" and node.get("type") == "integer" and isinstance(node.get("minimum"), int):
        node["exclusiveMinimum"] = node.pop("minimum") - 1
    elif what == "pattern":
        node["pattern"] = draw(st.sampled_from(["^[a-z]*$", "^x", "b"]))
    elif what == "enum":
        node["enum"] = ["x", "y"]
    elif what == "items":
        node["items"] = draw(st.sampled_from([{"type": "string"}, {"type": "integer"}, {}]))
    elif what == "enum-add":
        node["enum"] = sorted({*node["enum"], "v"})
    elif what == "enum-remove" and len(node["enum"]) > 1:
        node["enum"] = node["enum"][1:]
    elif what == "branch-remove" and len(node["anyOf"]) > 1:
        node["anyOf"] = node["anyOf"][:-1]
    elif what == "branch-add":
        node["anyOf"] = [*node["anyOf"], {"type": "boolean"}]


@st.composite
def schema_pairs(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    old = draw(objects())
    new = copy.deepcopy(old)
    for _ in range(draw(st.integers(1, 3))):
        _mutate(draw, new)
    return old, new


# ── the oracle ───────────────────────────────────────────────────────────────────────────────


def _diff(area: str, old: dict[str, Any], new: dict[str, Any]) -> list[dict[str, Any]]:
    def snapshot(schema: dict[str, Any]) -> dict[str, Any]:
        tool = {"name": "t", "inputSchema": {"type": "object"}, area: schema}
        return make_snapshot(tool, name="s", version="1")

    return [c for c in diff_snapshots(snapshot(old), snapshot(new)) if c["area"] == area]


def _within_safe_integers(instance: Any) -> bool:
    if isinstance(instance, dict):
        return all(map(_within_safe_integers, instance.values()))
    if isinstance(instance, list):
        return all(map(_within_safe_integers, instance))
    # Floats too: 9007199254740992.0 is an integer to JSON Schema.
    return not isinstance(instance, int | float) or isinstance(instance, bool) or abs(instance) <= SAFE


def _instance_path(schema_path: str) -> list[str]:
    """The instance location a schema path points into (``*`` for any item or undeclared key)."""
    parts = [p.replace("~1", "/").replace("~0", "~") for p in schema_path.split("/")[1:]]
    found: list[str] = []
    index = 0
    while index < len(parts):
        part = parts[index]
        if part in ("properties", "patternProperties") and index + 1 < len(parts):
            found.append(parts[index + 1])
            index += 2
            continue
        if part in ("items", "additionalProperties"):
            found.append("*")
        elif part in ("anyOf", "oneOf", "allOf", "prefixItems"):
            index += 1  # the branch index: the same instance
        else:
            break  # a keyword of the node itself
        index += 1
    return found


def _related(change_at: list[str], error_at: list[str]) -> bool:
    """One location contains the other (errors of a composition surface at its node, or deeper)."""
    shorter = min(len(change_at), len(error_at))
    return all(a == b or "*" in (a, b) for a, b in zip(change_at[:shorter], error_at[:shorter], strict=True))


def _own(change_at: list[str], error: Any) -> bool:
    """A witness's error is its change's own: at the change's location or within the value there,
    the object there reporting that very key, or a composition above that the change sits in."""
    error_at = [str(p) for p in error.absolute_path]

    def within(outer: list[str], inner: list[str]) -> bool:
        return len(inner) >= len(outer) and all(
            a == b or "*" in (a, b) for a, b in zip(outer, inner[: len(outer)], strict=True)
        )

    if within(change_at, error_at):
        return True
    if change_at and error_at == change_at[:-1] and error.validator in ("additionalProperties", "required"):
        return change_at[-1] in str(error.message) or change_at[-1] == "*"
    return error.validator in ("anyOf", "oneOf") and within(error_at, change_at)


def _check(area: str, old: dict[str, Any], new: dict[str, Any], drawn: list[Any]) -> None:
    changes = _diff(area, old, new)
    # inputs: calls the old schema accepts must pass the new; outputs: results the new allows the old
    accepting, rejecting = (old, new) if area == "inputSchema" else (new, old)
    accepts, rejects = Draft202012Validator(accepting), Draft202012Validator(rejecting)
    breaking = [c for c in changes if c["level"] == "breaking"]
    explaining = breaking + [c for c in changes if c["rule"] in BY_POLICY]
    CHECKED["pairs"] += 1
    CHECKED["breaking"] += len(breaking)
    for change in changes:
        if change["witness"] is not None:
            assert accepts.is_valid(change["witness"]), change
            assert not rejects.is_valid(change["witness"]), change
            CHECKED["witnesses"] += 1
            change_at = _instance_path(change["path"])
            errors = list(rejects.iter_errors(change["witness"]))
            assert any(_own(change_at, error) for error in errors), (
                f"the witness of {change['rule']} fails only elsewhere than {change_at}: {change}"
            )
            if not any(sentence.format("") in change["message"] for sentence in SHARED_SENTENCES.values()):
                CHECKED["alone"] += 1  # shown as failing for its change alone: every error is there
                for error in errors:
                    assert _own(change_at, error), (
                        f"the witness of {change['rule']} at {change_at} fails elsewhere too: "
                        f"{error.message} at {list(error.absolute_path)}"
                    )
        elif change["level"] == "breaking":
            pytest.fail(f"breaking change without a witness: {change}")
    for instance in drawn:
        if not _within_safe_integers(instance):
            # Numbers past ±(2**53 - 1) are outside what a JSON client can send exactly, and bounds
            # at that range are normalised away as generator stamps: such a call proves nothing.
            continue
        CHECKED["instances"] += 1
        assert accepts.is_valid(instance)
        errors = list(rejects.iter_errors(instance))
        if not errors:
            continue
        CHECKED["failing"] += 1
        assert explaining, (
            f"{instance!r} fails the {area} {rejecting} but no breaking change was reported: {changes}"
        )
        error_paths = [[str(p) for p in error.absolute_path] for error in errors]
        assert any(
            _related(_instance_path(change["path"]), error_at)
            for change in explaining
            for error_at in error_paths
        ), f"{instance!r} fails at {error_paths}, explained by none of {[c['path'] for c in explaining]}"


def _draw(data: st.DataObject, schema: dict[str, Any], label: str) -> list[Any]:
    """Instances of ``schema``; none when a mutation left it accepting nothing (its witnesses are
    still checked)."""
    if canonicalish(schema) == FALSEY:
        return []
    try:
        return data.draw(st.lists(from_schema(schema), min_size=3, max_size=INSTANCES), label=label)
    except InvalidArgument:  # a bound pair hypothesis-jsonschema finds contradictory (minLength > maxLength)
        return []


_SETTINGS = settings(
    max_examples=PAIRS,
    deadline=None,
    derandomize=True,  # the same pairs in every run (and no replayed failures from a local database),
    database=None,  # so the counts bench/README.md records hold
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)


@_SETTINGS
@given(pair=schema_pairs(), data=st.data())
def test_input_oracle(pair: tuple[dict[str, Any], dict[str, Any]], data: st.DataObject) -> None:
    old, new = pair
    _check("inputSchema", old, new, _draw(data, old, "calls"))


@_SETTINGS
@given(pair=schema_pairs(), data=st.data())
def test_output_oracle(pair: tuple[dict[str, Any], dict[str, Any]], data: st.DataObject) -> None:
    old, new = pair
    _check("outputSchema", old, new, _draw(data, new, "results"))


def test_the_oracle_checked_enough() -> None:
    """Runs after the two oracles (file order): they checked pairs, calls and breaks, and say how many."""
    if CHECKED["pairs"] == 0:
        pytest.skip("run with the oracle tests above")
    # Shown with `pytest -s` (or in the report of a failure), not in every test run's output.
    print(f"diff oracle: {CHECKED}")
    assert CHECKED["pairs"] >= PAIRS and CHECKED["instances"] >= PAIRS and CHECKED["failing"] > 0, CHECKED
