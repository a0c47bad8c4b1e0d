"""One schema judged against another: ``_changed_keywords`` only *locates* differing keywords; the
judges decide what each difference means by the rule table, with a witness for every claimed break
(a call the old input schema accepts and the new one rejects, or a result the other way round).
Both sides arrive normalised (``registry.diffing.normalize``). Pure.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from common.canonical import canonical_json
from registry.diffing.changes import schema_subject, short_value, text_change
from registry.diffing.comparison import NEW, OLD, SchemaComparison
from registry.diffing.witness import edges, samples

# Numeric bounds: for "upper" keywords a smaller value is stricter, for "lower" ones a larger.
_UPPER_BOUNDS = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains")
_LOWER_BOUNDS = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains")
# Validation keywords compared as whole values: their inner semantics (e.g. under `not`) are not
# direction-preserving, so they are never descended into.
_CONSTRAINTS = frozenset(
    {
        "if",
        "then",
        "else",
        "not",
        "dependentRequired",
        "dependentSchemas",
        "propertyNames",
        "unevaluatedProperties",
        "unevaluatedItems",
        "contains",
        "uniqueItems",
        "multipleOf",
        "items",
        "prefixItems",
        "patternProperties",
        "additionalItems",
        "minContains",
        "maxContains",
    }
)
_COMPOSITIONS = {
    "anyOf": ("any-of-branch-added", "any-of-branch-removed"),
    "oneOf": ("one-of-branch-added", "one-of-branch-removed"),
    "allOf": ("all-of-member-added", "all-of-member-removed"),
}
_JSON_TYPES = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})


def diff_schema(
    ctx: SchemaComparison,
    old: Any,
    new: Any,
    old_at: list[Any] | None = None,
    new_at: list[Any] | None = None,
) -> None:
    old_at, new_at = old_at or [], new_at or []
    if old == new:
        return
    if not isinstance(old, dict) or not isinstance(new, dict):
        ctx.add("type-changed", new_at, old, new, node=(old_at, new_at))
        return
    if _one_sided(old, new):
        _diff_alternatives(ctx, old, new, old_at, new_at)
        return
    located = _changed_keywords(old, new)
    for node in sorted(located, key=lambda segs: (len(segs), [str(s) for s in segs])):
        _judge_node(ctx, ([*old_at, *node], [*new_at, *node]), _at(old, node), _at(new, node), located[node])


def _at(schema: dict[str, Any], segments: Iterable[Any]) -> dict[str, Any]:
    for part in segments:
        schema = schema[part]
    return schema


_MISSING = object()
_ALTERNATIVES = "(alternatives)"  # the marker of a node where one side offers alternatives, the other not
_NODE_DOCS = frozenset({"title", "description", "default", "examples", "deprecated", "nullable", "$comment"})


def _whole(schema: Any) -> str | None:
    """``anyOf``/``oneOf`` when that composition is the whole schema (besides documentation)."""
    if not isinstance(schema, dict):
        return None
    for keyword in ("anyOf", "oneOf"):
        if isinstance(schema.get(keyword), list) and set(schema) - {keyword} <= _NODE_DOCS:
            return keyword
    return None


def _one_sided(old: Any, new: Any) -> bool:
    """One side is a set of alternatives and the other a single schema (or other alternatives)."""
    old_kind, new_kind = _whole(old), _whole(new)
    if (old_kind is None) == (new_kind is None):
        return False
    single = old if old_kind is None else new
    # an unconstrained schema is no alternative: gaining or losing the composition is judged whole
    return isinstance(single, dict) and not set(single) <= _NODE_DOCS


def _changed_keywords(
    old: dict[str, Any],
    new: dict[str, Any],
    node: tuple[Any, ...] = (),
    located: dict[tuple[Any, ...], set[str]] | None = None,
) -> dict[tuple[Any, ...], set[str]]:
    """Locate differences: the keywords that differ at each schema node, by the node's path.

    Descends only where both sides hold a subschema whose meaning keeps the direction (a property
    both sides define, ``items``, ``additionalProperties``); a difference anywhere else, however
    deep, is a difference of the keyword that holds it, for its judge to weigh as a whole. A node
    where one side is a set of alternatives and the other is not is marked for pairing them.
    """
    located = {} if located is None else located
    if _one_sided(old, new):
        located.setdefault(node, set()).add(_ALTERNATIVES)
        return located
    for keyword in old.keys() | new.keys():
        before, after = old.get(keyword, _MISSING), new.get(keyword, _MISSING)
        if before == after:
            continue
        if (
            keyword in ("properties", "patternProperties")
            and isinstance(before, dict)
            and isinstance(after, dict)
        ):
            for name in before.keys() | after.keys():
                child_old, child_new = before.get(name, _MISSING), after.get(name, _MISSING)
                if child_old == child_new:
                    continue
                if isinstance(child_old, dict) and isinstance(child_new, dict):
                    _changed_keywords(child_old, child_new, (*node, keyword, name), located)
                else:
                    located.setdefault(node, set()).add(keyword)
        elif (
            keyword in ("items", "additionalProperties")
            and isinstance(before, dict)
            and isinstance(after, dict)
        ):
            _changed_keywords(before, after, (*node, keyword), located)
        else:
            located.setdefault(node, set()).add(keyword)
    return located


_Node = tuple[list[Any], list[Any]]  # a schema node's path on the old side and on the new side


def _judge_node(
    ctx: SchemaComparison, at: _Node, old: dict[str, Any], new: dict[str, Any], keywords: set[str]
) -> None:
    """Apply every keyword judge whose keyword differs at this node."""
    old_at, new_at = at
    if _ALTERNATIVES in keywords:
        _diff_alternatives(ctx, old, new, old_at, new_at)
        return
    if keywords & {"properties", "required"}:
        _judge_properties(ctx, at, old, new)
    if "type" in keywords:
        _judge_type(ctx, at, old, new)
    if "nullable" in keywords:
        now = bool(new.get("nullable"))
        ctx.add(
            "became-nullable" if now else "became-not-nullable",
            new_at,
            not now,
            now,
            node=at,
            candidates=[None],
        )
    if "enum" in keywords:
        _judge_enum(ctx, at, old.get("enum"), new.get("enum"))
    if "additionalProperties" in keywords:
        _judge_additional(ctx, at, old, new)
    for keyword in sorted(
        keywords - {"properties", "required", "type", "nullable", "enum", "additionalProperties"}
    ):
        before, after = old.get(keyword), new.get(keyword)
        shown = (ctx.sent(OLD, old, keyword, before), ctx.sent(NEW, new, keyword, after))
        here = [*new_at, keyword]
        if keyword in _UPPER_BOUNDS or keyword in _LOWER_BOUNDS:
            _judge_bound(ctx, at, keyword, before, after, shown)
        elif keyword in _COMPOSITIONS:
            _judge_composition(ctx, at, keyword, before, after)
        elif keyword == "const":
            action = text_change(before, after)
            # the old constant is the call that fails now; the new one the result old clients reject
            ctx.add(f"const-{action}", here, *shown, subject_at=new_at, node=at, candidates=[before, after])
        elif keyword in ("pattern", "format"):
            ctx.add(f"{keyword}-{text_change(before, after)}", here, *shown, subject_at=new_at, node=at)
        elif keyword in ("description", "title"):
            ctx.out.text_changed(
                f"{ctx.prefix}-{keyword}-changed",
                f"{ctx.prefix}-{keyword}-poisoning",
                tool=ctx.tool,
                segments=here,
                before=before,
                after=after,
                subject=schema_subject(ctx.area, new_at),
            )
        elif keyword == "default":
            action = text_change(before, after)
            ctx.add("default-changed", here, *shown, detail=action, subject_at=new_at)
        elif keyword in _CONSTRAINTS:
            action = text_change(before, after)
            ctx.add(f"constraint-{action}", here, *shown, detail=f"`{keyword}`", subject_at=new_at, node=at)
        else:
            ctx.add("keyword-changed", here, *shown, detail=f"`{keyword}`", subject_at=new_at)


def _diff_alternatives(
    ctx: SchemaComparison, old: dict[str, Any], new: dict[str, Any], old_at: list[Any], new_at: list[Any]
) -> None:
    """One side offers alternatives (``anyOf``/``oneOf``), the other a single schema, as when a
    generator wraps an old schema as ``anyOf: [old, {"type": "string"}]``.

    The single schema is diffed against its closest alternative; every other alternative is one
    added (a widening) or removed (a narrowing). Documentation on the composition counts as the
    paired alternative's own.
    """
    many_side = NEW if _whole(new) else OLD
    many, single = (new, old) if many_side == NEW else (old, new)
    keyword = _whole(many)
    assert keyword is not None
    docs = {key: value for key, value in many.items() if key != keyword}
    branches = many[keyword]
    removed_rule = _COMPOSITIONS[keyword][1]
    many_at = new_at if many_side == NEW else old_at
    if many_side == NEW and single not in branches and any(_subsumes(b, single) for b in branches):
        # An alternative that accepts every value of the old schema (an open object for an object):
        # nothing the old schema accepted is lost, and each alternative is one the new schema adds.
        for index, branch in enumerate(branches):
            here = [*new_at, keyword, index]
            _branch_added(ctx, keyword, here, branch, new_at, (old_at, here))
        return
    index = _closest(single, branches)
    paired = {**docs, **branches[index]} if isinstance(branches[index], dict) else branches[index]
    if many_side == NEW:
        diff_schema(ctx, single, paired, old_at, [*new_at, keyword, index])
    else:
        diff_schema(ctx, paired, single, [*old_at, keyword, index], new_at)
    for other, branch in enumerate(branches):
        if other == index:
            continue
        here = [*many_at, keyword, other]
        if many_side == NEW:
            _branch_added(ctx, keyword, here, branch, new_at, (old_at, here))
        else:
            ctx.add(
                removed_rule,
                [*new_at, keyword, other],
                branch,
                None,
                subject_at=new_at,
                key=canonical_json(branch),
                node=(here, new_at),
            )


def _branch_added(
    ctx: SchemaComparison, keyword: str, here: list[Any], branch: Any, subject_at: list[Any], node: _Node
) -> None:
    """A new alternative: a widening, except a oneOf alternative that overlaps what callers sent.

    oneOf wants exactly one match, so an input value that matched an old alternative and matches
    the new one too is rejected now: the old node's samples laid over the new branch's find it.
    """
    added_rule = _COMPOSITIONS[keyword][0]
    key = canonical_json(branch)
    if keyword == "oneOf" and ctx.prefix == "input":
        olds = samples(_at(ctx.roots[OLD], node[0]))
        news = samples(branch)
        both = [
            {**old, **new} for old in olds for new in news if isinstance(old, dict) and isinstance(new, dict)
        ]
        if both and ctx.has_witness("input-one-of-branch-overlaps", node, both):
            ctx.add(
                "one-of-branch-overlaps",
                here,
                None,
                branch,
                subject_at=subject_at,
                key=key,
                node=node,
                candidates=both,
            )
            return
    ctx.add(added_rule, here, None, branch, subject_at=subject_at, key=key, node=node)


def _subsumes(wide: Any, narrow: dict[str, Any]) -> bool:
    """``wide`` accepts every value ``narrow`` does, seen from its keywords alone: it constrains
    nothing but the type, and its types cover ``narrow``'s."""
    if not isinstance(wide, dict) or not set(wide) - {"type"} <= _NODE_DOCS:
        return False
    wide_types, narrow_types = _type_set(wide.get("type")), _type_set(narrow.get("type"))
    if wide_types is None:
        return True
    if narrow_types is None:
        return False
    return _covers(wide_types | ({"null"} if wide.get("nullable") else set()), narrow_types) and (
        not narrow.get("nullable") or bool(wide.get("nullable"))
    )


def _closest(schema: dict[str, Any], branches: list[Any]) -> int:
    """The index of the alternative ``schema`` most likely became (or came from)."""
    for index, branch in enumerate(branches):
        if branch == schema:
            return index
    kinds = _type_set(schema.get("type"))
    for index, branch in enumerate(branches):
        if isinstance(branch, dict) and _type_set(branch.get("type")) == kinds:
            return index
    for index, branch in enumerate(branches):
        if isinstance(branch, dict) and kinds and (_type_set(branch.get("type")) or set()) & kinds:
            return index
    return 0


def _judge_properties(ctx: SchemaComparison, at: _Node, old: dict[str, Any], new: dict[str, Any]) -> None:
    new_at = at[1]
    old_props, new_props = old.get("properties") or {}, new.get("properties") or {}
    old_required, new_required = set(old.get("required") or ()), set(new.get("required") or ())
    closed = old.get("additionalProperties") is False
    for name in sorted(old_props.keys() - new_props.keys()):
        here = [*new_at, "properties", name]
        if ctx.area == "inputSchema":
            # Closed before: calls sending it break unless the new object still takes it (open now).
            breaks = closed and ctx.has_witness("input-property-removed-from-closed-object", at)
            ctx.add(
                "property-removed-from-closed-object" if breaks else "property-removed",
                here,
                old_props[name],
                node=at,
            )
        else:
            required = name in old_required
            ctx.add(
                "required-property-removed" if required else "optional-property-removed",
                here,
                old_props[name],
                node=at,
            )
    for name in sorted(new_props.keys() - old_props.keys()):
        here = [*new_at, "properties", name]
        kind = "required" if name in new_required else "optional"
        ctx.add(f"{kind}-property-added", here, None, new_props[name], node=at)
    moved = old_props.keys() ^ new_props.keys()
    for name in sorted((old_required ^ new_required) - moved, key=str):
        here = [*new_at, "properties", name]
        now_required = name in new_required
        ctx.add(
            "property-became-required" if now_required else "property-became-optional",
            here,
            not now_required,
            now_required,
            node=at,
        )


def _type_set(value: Any) -> set[str] | None:
    """The JSON types a ``type`` keyword allows; None means any type (the keyword is absent)."""
    if value is None:
        return None
    return {str(t) for t in value} if isinstance(value, list) else {str(value)}


def _covers(wide: set[str], narrow: set[str]) -> bool:
    """Every type in ``narrow`` is allowed by ``wide`` (a number includes every integer)."""
    return all(t in wide or (t == "integer" and "number" in wide) for t in narrow)


def _judge_type(ctx: SchemaComparison, at: _Node, old: dict[str, Any], new: dict[str, Any]) -> None:
    before, after = old.get("type"), new.get("type")
    old_types, new_types = _type_set(before), _type_set(after)
    here = [*at[1], "type"]
    old_all = old_types if old_types is not None else set(_JSON_TYPES)
    new_all = new_types if new_types is not None else set(_JSON_TYPES)
    wider, narrower = _covers(new_all, old_all), _covers(old_all, new_all)
    shown_before = ctx.sent(OLD, old, "type", before) if before is not None else "any"
    shown_after = ctx.sent(NEW, new, "type", after) if after is not None else "any"
    if wider and narrower:
        return  # the same set of values, spelled differently
    name = "type-widened" if wider else "type-narrowed" if narrower else "type-changed"
    ctx.add(name, here, shown_before, shown_after, subject_at=at[1], node=at)


def _judge_enum(ctx: SchemaComparison, at: _Node, before: Any, after: Any) -> None:
    new_at = at[1]
    here = [*new_at, "enum"]
    if before is None:
        ctx.add("became-enum", here, None, after, subject_at=new_at, node=at)
        return
    if after is None:
        ctx.add("enum-removed", here, before, None, subject_at=new_at, node=at)
        return
    old_values = {canonical_json(v): v for v in before}
    new_values = {canonical_json(v): v for v in after}
    for key in sorted(new_values.keys() - old_values.keys()):
        value = new_values[key]
        ctx.add(
            "enum-value-added", here, None, value, subject_at=new_at, key=key, node=at, candidates=[value]
        )
    for key in sorted(old_values.keys() - new_values.keys()):
        value = old_values[key]
        ctx.add(
            "enum-value-removed", here, value, None, subject_at=new_at, key=key, node=at, candidates=[value]
        )


# Lower bounds of a count, whose absence means 0 (a string's length, an array's items…).
_COUNT_MINIMUMS = frozenset({"minLength", "minItems", "minProperties", "minContains"})


def _judge_bound(
    ctx: SchemaComparison, at: _Node, keyword: str, before: Any, after: Any, shown: tuple[Any, Any]
) -> None:
    here = [*at[1], keyword]
    numeric = all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in (before, after) if v is not None
    )
    if not numeric:
        action = text_change(before, after)
        ctx.add(f"constraint-{action}", here, *shown, detail=f"`{keyword}`", subject_at=at[1], node=at)
        return
    upper = keyword in _UPPER_BOUNDS
    low_before = 0 if before is None and keyword in _COUNT_MINIMUMS else before
    low_after = 0 if after is None and keyword in _COUNT_MINIMUMS else after
    if low_before is None:
        stricter = True
    elif low_after is None:
        stricter = False
    else:
        stricter = low_after < low_before if upper else low_after > low_before
    # What a reader of the input (or of the output) loses is judged by a witness: a bound that
    # rejects a value the other side allowed is a tightening wherever it came from.
    breaks = stricter if ctx.prefix == "input" else not stricter
    if before is None:
        what = f"`{keyword}` set to {short_value(after)}" + (
            " (absent means 0)" if keyword in _COUNT_MINIMUMS else ""
        )
    elif after is None:
        what = f"`{keyword}` removed (was {short_value(before)})"
    else:
        moved = "tightened" if stricter else "relaxed"
        what = f"`{keyword}` {moved} from {short_value(before)} to {short_value(after)}"
    if breaks:
        name = (
            "bound-tightened"
            if ctx.prefix == "input"
            else ("bound-removed" if after is None else "bound-relaxed")
        )
        node = at[0] if ctx.prefix == "input" else at[1]
        schema = _at(ctx.roots[OLD if ctx.prefix == "input" else NEW], node)
        # the values around either bound, of the reading side's kind, hold the witness if there is one
        candidates = [*edges(schema, keyword, before), *edges(schema, keyword, after)]
        if ctx.has_witness(f"{ctx.prefix}-{name}", at, candidates):
            ctx.add(name, here, *shown, detail=what, subject_at=at[1], node=at, candidates=candidates)
            return
        # no value one side allows falls outside the bound: another constraint already kept it in
        ctx.add("bound-restated", here, *shown, detail=what, subject_at=at[1])
        return
    if stricter:
        name = "bound-added" if before is None else "bound-tightened"
    else:
        name = "bound-removed" if after is None else "bound-relaxed"
    ctx.add(name, here, *shown, detail=what, subject_at=at[1], node=at)


def _judge_additional(ctx: SchemaComparison, at: _Node, old: dict[str, Any], new: dict[str, Any]) -> None:
    # Normalisation drops `additionalProperties: true` and `{}`, so None here means "open".
    before, after = old.get("additionalProperties"), new.get("additionalProperties")
    old_at, new_at = at
    here = [*new_at, "additionalProperties"]
    shown = (
        ctx.sent(OLD, old, "additionalProperties", True if before is None else before),
        ctx.sent(NEW, new, "additionalProperties", True if after is None else after),
    )
    if after is False:
        ctx.add("additional-properties-closed", here, *shown, subject_at=new_at, node=at)
    elif before is False:
        ctx.add("additional-properties-opened", here, *shown, subject_at=new_at, node=at)
    else:  # a schema for undeclared properties where there was none (or the reverse): judged as one
        diff_schema(ctx, before or {}, after or {}, [*old_at, "additionalProperties"], here)


def _judge_composition(ctx: SchemaComparison, at: _Node, keyword: str, before: Any, after: Any) -> None:
    old_at, new_at = at
    removed_rule = _COMPOSITIONS[keyword][1]
    if not (isinstance(before, list) and isinstance(after, list)):  # the keyword itself came or went
        action = "removed" if isinstance(before, list) else "added"
        ctx.add(
            f"composition-{action}",
            [*new_at, keyword],
            before,
            after,
            detail=f"`{keyword}`",
            subject_at=new_at,
            node=at,
        )
        return
    # Branches are a multiset: identical ones match; a changed branch pairs with the added branch
    # of the same type (or the only one left) and is diffed in place.
    unmatched_new = list(range(len(after)))
    unmatched_old: list[int] = []
    for index, branch in enumerate(before):
        match = next((j for j in unmatched_new if after[j] == branch), None)
        if match is None:
            unmatched_old.append(index)
        else:
            unmatched_new.remove(match)
    pairs: list[tuple[int, int]] = []
    for index in list(unmatched_old):
        kind = before[index].get("type") if isinstance(before[index], dict) else None
        same = [j for j in unmatched_new if isinstance(after[j], dict) and after[j].get("type") == kind]
        if same and (kind is not None or len(unmatched_old) == len(unmatched_new) == 1):
            pairs.append((index, same[0]))
            unmatched_old.remove(index)
            unmatched_new.remove(same[0])
    for old_index, new_index in pairs:
        diff_schema(
            ctx,
            before[old_index],
            after[new_index],
            [*old_at, keyword, old_index],
            [*new_at, keyword, new_index],
        )
    for index in unmatched_new:
        here = [*new_at, keyword, index]
        # an allOf member narrows the whole node; an alternative widens from its own branch
        node = at if keyword == "allOf" else (old_at, here)
        _branch_added(ctx, keyword, here, after[index], new_at, node)
    for index in unmatched_old:
        there = [*old_at, keyword, index]
        node = at if keyword == "allOf" else (there, new_at)
        ctx.add(
            removed_rule,
            [*new_at, keyword, index],
            before[index],
            None,
            subject_at=new_at,
            key=canonical_json(before[index]),
            node=node,
        )
