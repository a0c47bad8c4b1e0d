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
from registry.diffing.witness import Side, edges, samples

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
        elif keyword in ("anyOf", "oneOf") and isinstance(before, list) and isinstance(after, list):
            _judge_alternatives(ctx, at, keyword, old, new)
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
            # presence, not the value, says added or removed: a default of null is a default
            if keyword not in old:
                what = f"added: {short_value(shown[1])}"
            elif keyword not in new:
                what = f"removed (was {short_value(shown[0])})"
            else:
                what = f"changed from {short_value(shown[0])} to {short_value(shown[1])}"
            required = ctx.prefix == "input" and _required_on_both_sides(ctx, at)
            ctx.add(
                "required-default-changed" if required else "default-changed",
                here,
                *shown,
                detail=what,
                subject_at=new_at,
            )
        elif keyword in _CONSTRAINTS:
            action = text_change(before, after)
            ctx.add(f"constraint-{action}", here, *shown, detail=f"`{keyword}`", subject_at=new_at, node=at)
        else:
            ctx.add("keyword-changed", here, *shown, detail=f"`{keyword}`", subject_at=new_at)


def _required_on_both_sides(ctx: SchemaComparison, at: _Node) -> bool:
    """The node is a property both sides' objects require (no call can omit it)."""
    for side, path in enumerate(at):
        if len(path) < 2 or path[-2] != "properties":
            return False
        parent = _at_path(ctx.roots[side], path[:-2])
        if not isinstance(parent, dict) or path[-1] not in (parent.get("required") or ()):
            return False
    return True


def _at_path(schema: Any, path: list[Any]) -> Any:
    """The node at a path of a normalised schema (None when the path leaves it)."""
    for part in path:
        if isinstance(schema, dict):
            schema = schema.get(part)
        elif isinstance(schema, list) and isinstance(part, int) and part < len(schema):
            schema = schema[part]
        else:
            return None
    return schema


def _diff_alternatives(
    ctx: SchemaComparison, old: dict[str, Any], new: dict[str, Any], old_at: list[Any], new_at: list[Any]
) -> None:
    """One side offers alternatives (``anyOf``/``oneOf``), the other a single schema, as when a
    generator wraps an old schema as ``anyOf: [old, {"type": "string"}]``: the single schema is
    one alternative, matched with the others by meaning (``_match_alternatives``). Documentation
    on the composition counts as the paired alternative's own.
    """
    many_side = NEW if _whole(new) else OLD
    keyword = _whole(new if many_side == NEW else old)
    assert keyword is not None
    many = new if many_side == NEW else old
    docs = {key: value for key, value in many.items() if key != keyword}
    single = old if many_side == NEW else new
    sides = (
        [(single, None), (many[keyword], docs)]
        if many_side == NEW
        else [(many[keyword], docs), (single, None)]
    )
    _match_alternatives(ctx, keyword, (old_at, new_at), (old, new), sides)


def _judge_alternatives(
    ctx: SchemaComparison, at: _Node, keyword: str, old: dict[str, Any], new: dict[str, Any]
) -> None:
    """Both sides offer ``anyOf`` (or ``oneOf``) alternatives: matched by meaning, never by position."""
    _match_alternatives(ctx, keyword, at, (old, new), [(old[keyword], None), (new[keyword], None)])


class _Alternatives:
    """One side's alternatives read by meaning: the finite values its constant and enum branches
    accept, the JSON types its bare ``type`` branches accept, and the rest (structured branches).

    A side that is a single schema has one alternative, at the node itself (index None).
    """

    def __init__(self, branches: Any, at: list[Any], keyword: str) -> None:
        listed = branches if isinstance(branches, list) else [branches]
        self.single = not isinstance(branches, list)
        self.at, self.keyword = at, keyword
        self.values: dict[str, tuple[Any, int | None]] = {}  # canonical value -> (value, branch)
        self.types: dict[str, int | None] = {}  # JSON type -> branch
        self.structured: list[int | None] = []
        self.branches: dict[int | None, Any] = {}
        for index, branch in enumerate(listed):
            key = None if self.single else index
            self.branches[key] = branch
            values, types = _finite_values(branch), _bare_types(branch)
            if values is not None:
                for value in values:
                    self.values.setdefault(canonical_json(value), (value, key))
            elif types is not None:
                for kind in types:
                    self.types.setdefault(kind, key)
            else:
                self.structured.append(key)

    def path(self, key: int | None) -> list[Any]:
        return list(self.at) if key is None else [*self.at, self.keyword, key]

    def types_of(self, key: int | None) -> set[str]:
        return {kind for kind, owner in self.types.items() if owner == key}


def _finite_values(branch: Any) -> list[Any] | None:
    """The values a branch that is a constant or an enum (with its type, or null) accepts."""
    if not isinstance(branch, dict):
        return None
    rest = set(branch) - _NODE_DOCS - {"type"}
    if rest == {"const"}:
        found = [branch["const"]]
    elif rest == {"enum"} and isinstance(branch["enum"], list):
        found = list(branch["enum"])
    else:
        return None
    return [*found, None] if branch.get("nullable") else found


def _bare_types(branch: Any) -> set[str] | None:
    """The JSON types a branch that constrains nothing but its type accepts (all for ``{}``)."""
    if not isinstance(branch, dict) or not set(branch) - {"type"} <= _NODE_DOCS:
        return None
    types = _type_set(branch.get("type"))
    found = set(_JSON_TYPES) if types is None else set(types)
    return found | {"null"} if branch.get("nullable") else found


def _match_alternatives(
    ctx: SchemaComparison,
    keyword: str,
    at: _Node,
    nodes: tuple[dict[str, Any], dict[str, Any]],
    sides: list[tuple[Any, dict[str, Any] | None]],
) -> None:
    """Old and new alternatives paired by what they accept, each real difference one change.

    Equal branches match. Values (constants, enums) compare as one set, types (bare ``type``
    branches, ``type`` lists) as another: a value or a type counts as kept when the other side
    still accepts it, in whichever branch. A structured branch the other side's bare types accept
    is kept too; the others pair with the branch of the other side that accepts most of their
    samples (or has their type), and each pair is diffed in place. What is left is an alternative
    removed (a narrowing, proved by a witness) or added. Every pointer is into its own side.
    """
    old_at, new_at = at
    old, new = _Alternatives(sides[0][0], old_at, keyword), _Alternatives(sides[1][0], new_at, keyword)
    docs = (sides[0][1], sides[1][1])
    checks = (Side(nodes[OLD]), Side(nodes[NEW]))
    removed_rule = _COMPOSITIONS[keyword][1]
    # equal structured branches: nothing changed there
    for key in list(old.structured):
        match = next((j for j in new.structured if new.branches[j] == old.branches[key]), _MISSING)
        if match is not _MISSING:
            old.structured.remove(key)
            new.structured.remove(match)  # type: ignore[arg-type]
    _match_values(ctx, old, new, checks)
    lost = {kind for kind in old.types if not _covers(set(new.types), {kind})}
    gained = {kind for kind in new.types if not _covers(set(old.types), {kind})}
    # a structured branch whose every value a bare type of the other side takes is no loss (gain)
    for key in list(old.structured):
        kinds = _type_set(_branch_type(old.branches[key]))
        if kinds and _covers(set(new.types), kinds):
            old.structured.remove(key)
    pairs: list[tuple[Any, int | None, Any, int | None]] = []
    # a bare type the new side narrowed to a structured branch of that type
    for key in list(new.structured):
        kinds = _type_set(_branch_type(new.branches[key])) or set()
        narrowed = {kind for kind in lost if _covers({kind}, kinds) or kind in kinds}
        if narrowed:
            kind = sorted(narrowed)[0]
            owner = old.types[kind]
            pairs.append(({"type": kind}, owner, new.branches[key], key))
            lost.discard(kind)
            new.structured.remove(key)
    # structured branches: paired by overlap (old samples the new branch accepts), then by type
    scored = []
    for o in old.structured:
        olds = samples(old.branches[o])
        for n in new.structured:
            accepting = Side(new.branches[n])
            overlap = sum(1 for value in olds if accepting.accepts(value))
            same = _type_set(_branch_type(old.branches[o])) == _type_set(_branch_type(new.branches[n]))
            if overlap or same:
                scored.append(
                    (-overlap, not same, o if o is not None else -1, n if n is not None else -1, o, n)
                )
    for *_, o, n in sorted(scored, key=lambda item: item[:4]):
        if o in old.structured and n in new.structured:
            pairs.append((old.branches[o], o, new.branches[n], n))
            old.structured.remove(o)
            new.structured.remove(n)
    old_docs, new_docs = docs
    for before, o, after, n in pairs:
        # the composition's documentation belongs to the alternative the single schema became
        if old_docs is not None and n is None and isinstance(before, dict):
            before = {**old_docs, **before}
        if new_docs is not None and o is None and isinstance(after, dict):
            after = {**new_docs, **after}
        diff_schema(ctx, before, after, old.path(o), new.path(n))
    if old.single != new.single and not pairs:
        # the single schema paired with no alternative: its documentation against that of the
        # alternative that accepts its values (the composition's own beneath the branch's)
        single, many = (old, new) if old.single else (new, old)
        values = samples(single.branches[None])
        key = next(
            (
                key
                for key, branch in many.branches.items()
                if isinstance(branch, dict) and any(Side(branch).accepts(value) for value in values)
            ),
            None,
        )
        partner = many.branches[key] if key is not None else {}
        composition = docs[OLD] if new.single else docs[NEW]
        mine = _docs_of(single.branches[None])
        theirs = _docs_of({**(composition or {}), **partner})
        # documentation the alternative carries is pointed at there, else at the composition
        there = many.path(key) if _docs_of(partner) else many.at
        if old.single:
            diff_schema(ctx, mine, theirs, old_at, there)
        else:
            diff_schema(ctx, theirs, mine, there, new_at)
    _types_moved(ctx, old, new, lost, removed=True)
    _types_moved(ctx, new, old, gained, removed=False)
    for key in old.structured:
        there = old.path(key)
        if key is None:  # the single old schema is none of the new alternatives
            before = _branch_type(old.branches[key])
            ctx.add("type-changed", [*there, "type"], before, _all_types(new), subject_at=new_at, node=at)
            continue
        ctx.add(
            removed_rule,
            there,
            old.branches[key],
            None,
            subject_at=new_at,
            key=canonical_json(old.branches[key]),
            node=(there, new_at),
            side=OLD,
        )
    for key in new.structured:
        here = new.path(key)
        _branch_added(ctx, keyword, here, new.branches[key], new_at, (old_at, here))


def _docs_of(schema: Any) -> dict[str, Any]:
    """A schema's documentation keywords (nullable is a constraint here, judged with the types)."""
    if not isinstance(schema, dict):
        return {}
    return {key: value for key, value in schema.items() if key in _NODE_DOCS - {"nullable"}}


def _all_types(side: _Alternatives) -> Any:
    """The JSON types a side's alternatives are of, as a ``type`` keyword would list them."""
    found: set[str] = set()
    for branch in side.branches.values():
        found |= _type_set(_branch_type(branch)) or set()
    listed = sorted(found)
    return listed[0] if len(listed) == 1 else listed or None


def _branch_type(branch: Any) -> Any:
    return branch.get("type") if isinstance(branch, dict) else None


def _match_values(
    ctx: SchemaComparison, old: _Alternatives, new: _Alternatives, checks: tuple[Side, Side]
) -> None:
    """Values one side's constants and enums accept and the other side (in any branch) does not."""
    for key in sorted(old.values.keys() - new.values.keys()):
        value, owner = old.values[key]
        if checks[NEW].accepts(value):
            continue
        there = [*old.path(owner), "const" if "const" in old.branches[owner] else "enum"]
        ctx.add(
            "enum-value-removed",
            there,
            value,
            None,
            subject_at=new.at,
            key=key,
            node=(old.at, new.at),
            candidates=[value],
            side=OLD,
        )
    for key in sorted(new.values.keys() - old.values.keys()):
        value, owner = new.values[key]
        if checks[OLD].accepts(value):
            continue
        here = [*new.path(owner), "const" if "const" in new.branches[owner] else "enum"]
        ctx.add(
            "enum-value-added",
            here,
            None,
            value,
            subject_at=new.at,
            key=key,
            node=(old.at, new.at),
            candidates=[value],
        )


def _types_moved(
    ctx: SchemaComparison, mine: _Alternatives, other: _Alternatives, moved: set[str], *, removed: bool
) -> None:
    """Bare types of ``mine`` the other side does not accept: per branch, the branch gone (or
    added) when all its types moved, else its type narrowed (or widened)."""
    for key in sorted({mine.types[kind] for kind in moved}, key=lambda k: -1 if k is None else k):
        kinds = mine.types_of(key)
        gone = kinds & moved
        branch = mine.branches[key]
        path = mine.path(key)
        old_at, new_at = (path, other.at) if removed else (other.at, path)
        if gone == kinds and key is None:  # the single schema's every type is gone (or new)
            before, after = (
                (branch.get("type"), _all_types(other))
                if removed
                else (_all_types(other), branch.get("type"))
            )
            ctx.add(
                "type-changed",
                [*path, "type"],
                before,
                after,
                subject_at=new_at,
                node=(old_at, new_at),
                side=OLD if removed else NEW,
            )
            continue
        if gone == kinds:
            if removed:
                ctx.add(
                    _COMPOSITIONS[mine.keyword][1],
                    path,
                    branch,
                    None,
                    subject_at=new_at,
                    key=canonical_json(branch),
                    node=(old_at, new_at),
                    side=OLD,
                )
            else:
                _branch_added(ctx, mine.keyword, path, branch, new_at, (old_at, path))
            continue
        kept = sorted(kinds - gone)
        before, after = (sorted(kinds), kept) if removed else (kept, sorted(kinds))
        ctx.add(
            "type-narrowed" if removed else "type-widened",
            [*path, "type"],
            before[0] if len(before) == 1 else before,
            (after[0] if len(after) == 1 else after) if after else None,
            subject_at=new_at,
            key=",".join(sorted(gone)),
            node=(old_at, new_at),
            side=OLD if removed else NEW,
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


def _judge_properties(ctx: SchemaComparison, at: _Node, old: dict[str, Any], new: dict[str, Any]) -> None:
    new_at = at[1]
    old_props, new_props = old.get("properties") or {}, new.get("properties") or {}
    old_required, new_required = set(old.get("required") or ()), set(new.get("required") or ())
    # Sending a removed property can fail only where the new object restricts undeclared ones
    # (closed, or a schema for them): there the witness decides; elsewhere it is ignored at worst.
    closed = new.get("additionalProperties") is not None
    for name in sorted(old_props.keys() - new_props.keys()):
        here = [*new_at, "properties", name]
        if ctx.area == "inputSchema":
            # Closed before: calls sending it break unless the new object still takes it (open now).
            # the witness sends the removed property: the node is the property's own
            there = ([*at[0], "properties", name], here)
            sent = samples(old_props[name])
            breaks = closed and ctx.has_witness("input-property-removed-from-closed-object", there, sent)
            ctx.add(
                "property-removed-from-closed-object" if breaks else "property-removed",
                here,
                old_props[name],
                node=there,
                candidates=sent,
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
