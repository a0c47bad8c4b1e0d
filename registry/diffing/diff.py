"""Direction-aware diff of two snapshots into a list of Changes, judged by the rule table.

``_changed_keywords`` only *locates* differing schema keywords; the judges below decide what each
difference means, using ``registry.diffing.rules``. Both sides are normalised first
(``registry.diffing.normalize``), so re-serialisation by another SDK produces no change.
Pure: no MCP, no database, no clock.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from json.encoder import encode_basestring
from typing import Any, NotRequired, TypedDict

from registry.core.snapshot import canonical_json, sorted_json
from registry.diffing.normalize import normalize_tool, origin
from registry.diffing.rules import AREA_LABELS, AREAS, LEVELS, POISONING_LINTS, rule
from registry.diffing.witness import NOT_FOUND, Side, edges, find, samples

# How each kind of witness is told, after the change's message, in every format that shows messages.
WITNESS_SENTENCES = {
    "call": "This call was valid before and is rejected now: {}",
    "result": "This result is allowed now and was rejected before: {}",
}
UNPROVED_SENTENCES = {
    "call": "No call that was valid before and is rejected now was found, so this is a warning: check it.",
    "result": "No result allowed now and rejected before was found, so this is a warning: check it.",
}
_MAX_VALUE_CHARS = 80  # longer before/after values are shortened in messages (not in the Change)

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
_HINT_RULES = {  # hint -> (rule when it becomes true, rule when it becomes false)
    "readOnlyHint": ("tool-became-read-only", "tool-became-writable"),
    "destructiveHint": ("tool-became-destructive", "tool-became-non-destructive"),
    "idempotentHint": ("tool-became-idempotent", "tool-became-non-idempotent"),
    "openWorldHint": ("tool-became-open-world", "tool-became-closed-world"),
}
_NAMED_LISTS = (
    ("resources", "resource", "uri"),
    ("resourceTemplates", "resource-template", "uriTemplate"),
    ("prompts", "prompt", "name"),
)


class Change(TypedDict):
    """One difference, as DESIGN.md describes it, plus ``where``: the human path."""

    rule: str
    level: str
    tool: str | None
    area: str
    path: str
    where: str
    before: Any
    after: Any
    message: str
    fingerprint: str
    # A call the old input schema accepted and the new one rejects, or a result the new output schema
    # allows and the old one rejected, confirmed with jsonschema; None for a change that claims no break.
    witness: NotRequired[Any]  # absent on the gate's own changes (version bump, quality, context cost)


def fingerprint(rule_id: str, tool: str | None, path: str, detail: str = "") -> str:
    """12 hex of sha256 over rule, tool, path (and a detail for set members): stable across runs."""
    text = f"{rule_id}:{tool or ''}:{path}:{detail}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def _pointer(segments: Iterable[Any]) -> str:
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in segments)


def _short(value: Any) -> str:
    text = encode_basestring(value) if isinstance(value, str) else sorted_json(value)
    return text if len(text) <= _MAX_VALUE_CHARS else text[: _MAX_VALUE_CHARS - 1] + "…"


def _subject(area: str, segments: list[Any]) -> str:
    """``input property `filter.kind``` or ``the output schema root`` for a schema path."""
    side = "input" if area == "inputSchema" else "output"
    parts: list[str] = []
    index = 0
    while index < len(segments):
        key = segments[index]
        if key in ("properties", "patternProperties") and index + 1 < len(segments):
            parts.append(("." if parts else "") + str(segments[index + 1]))
            index += 2
            continue
        if key == "items":
            parts.append("[]")
        elif key == "additionalProperties":
            parts.append("{*}")
        elif key in ("anyOf", "oneOf", "allOf", "prefixItems") and index + 1 < len(segments):
            parts.append(f"/{key}[{segments[index + 1]}]")
            index += 1
        index += 1
    return f"{side} property `{''.join(parts)}`" if parts else f"the {side} schema root"


def _text_change(before: Any, after: Any) -> str:
    if before is None:
        return "added"
    if after is None:
        return "removed"
    return "changed"


class _Tools:
    """One snapshot's tools by name, each serialised, normalised and linted at most once.

    A version history is diffed pair by pair, so each middle version is the newer side of one diff
    and the older side of the next; sharing its ``_Tools`` does that work once.
    """

    def __init__(self, snapshot: dict[str, Any]) -> None:
        self.listed = [tool for tool in snapshot.get("tools") or [] if isinstance(tool, dict)]
        self.by_name = {tool["name"]: tool for tool in self.listed}
        self._canonical: dict[str, str] = {}
        self._normalized: dict[str, dict[str, Any]] = {}
        self._lint_context: tuple[frozenset[str], frozenset[str]] | None = None

    def canonical(self, name: str) -> str:
        if name not in self._canonical:
            self._canonical[name] = canonical_json(self.by_name[name])
        return self._canonical[name]

    def normalized(self, name: str) -> dict[str, Any]:
        if name not in self._normalized:
            self._normalized[name] = normalize_tool(self.by_name[name])
        return self._normalized[name]

    def lint_context(self) -> tuple[frozenset[str], frozenset[str]]:
        """The tool names and the known words the security lints read a description among."""
        if self._lint_context is None:
            from scoring.lints import known_words

            names = frozenset(str(tool.get("name")) for tool in self.listed)
            self._lint_context = (names, known_words(self.listed))
        return self._lint_context


def _model_texts(definition: dict[str, Any] | None) -> list[tuple[str, str]]:
    """(where, text) pairs of everything in a tool, resource or prompt a model reads (none for None)."""
    if definition is None:
        return []
    from scoring.lints import model_texts  # imported here, as in _TextLints._findings

    return model_texts(definition)


class _TextLints:
    """The security lints of ``scoring`` run on new texts, each side's texts among its own tools."""

    def __init__(self, old_tools: _Tools, new_tools: _Tools) -> None:
        self._tools = (old_tools, new_tools)

    def _findings(self, side: int, tool: str | None, text: Any) -> set[tuple[str, str]]:
        if not isinstance(text, str) or not text:
            return set()
        # Imported here: the scorer's language tables cost start-up a diff without text changes skips.
        from scoring.language import Analysis, identifiers
        from scoring.lints import security_findings

        names, known = self._tools[side].lint_context()
        # The poisoning lints read a description's text and identifiers only; the rest of a full
        # analysis feeds the priority and assertive lints, which are not signs of poisoning. Any
        # model-visible text is read as a description, so each trips the lints a description would.
        analysis = Analysis(text=text.strip(), identifiers=identifiers(text))
        found = security_findings({"name": tool, "description": text}, analysis, names, known)
        return {
            (item["rule"], item["message"])
            for item in found
            if item["rule"] in POISONING_LINTS and item["where"] == "description"
        }

    def gained(
        self, tool: str | None, before: Sequence[tuple[str, Any]], after: Sequence[tuple[str, Any]]
    ) -> dict[str, list[tuple[str, str]]]:
        """For each lint the new texts trip with a finding no old text has, its (where, finding) pairs.

        ``before`` and ``after`` are (where, text) pairs: one text, or every text of a definition.
        """
        found = [(where, item) for where, text in after for item in self._findings(1, tool, text)]
        if not found:
            return {}  # most new texts trip no lint: then the old ones (and their side) are never read
        old = set().union(*(self._findings(0, tool, text) for _, text in before))
        gained: dict[str, list[tuple[str, str]]] = {}
        for where, (lint, message) in found:
            if (lint, message) not in old:
                gained.setdefault(lint, []).append((where, message))
        return dict(sorted(gained.items()))


class _Builder:
    """Collects Changes for one diff, filling level, where, message and fingerprint from the table."""

    def __init__(self, lints: _TextLints) -> None:
        self.changes: list[Change] = []
        self.lints = lints

    def text_changed(
        self,
        rule_id: str,
        poisoning_id: str,
        *,
        tool: str | None,
        segments: list[Any],
        before: Any,
        after: Any,
        subject: str = "",
    ) -> None:
        """A changed text: ``poisoning_id`` per security lint it newly trips, else ``rule_id``."""
        action = _text_change(before, after)
        self.texts_changed(
            rule_id,
            poisoning_id,
            [("", before)],
            [("", after)],
            trips=f"{action} and now trips",
            tool=tool,
            segments=segments,
            before=before,
            after=after,
            detail=action,
            subject=subject,
        )

    def texts_changed(
        self,
        rule_id: str,
        poisoning_id: str,
        old_texts: Sequence[tuple[str, Any]],
        new_texts: Sequence[tuple[str, Any]],
        *,
        trips: str,
        tool: str | None,
        segments: list[Any],
        before: Any = None,
        after: Any = None,
        detail: str = "",
        subject: str = "",
        key: str = "",
    ) -> None:
        """``poisoning_id`` per security lint the new texts trip and the old ones did not, else ``rule_id``.

        The texts are (where, text) pairs; a poisoning change's detail is ``trips`` followed by the
        lint and its findings, each after its text's where (if any).
        """
        gained = self.lints.gained(tool, old_texts, new_texts)
        # (rule, detail, key) of each change: one per lint newly tripped, else the plain change.
        reported = [
            (
                poisoning_id,
                f"{trips} the security lint `{lint}` ("
                + "; ".join(f"{where}: {finding}" if where else finding for where, finding in findings)
                + ")",
                f"{key}:{lint}" if key else lint,
            )
            for lint, findings in gained.items()
        ] or [(rule_id, detail, key)]
        for reported_rule, reported_detail, reported_key in reported:
            self.add(
                reported_rule,
                tool=tool,
                segments=segments,
                before=before,
                after=after,
                detail=reported_detail,
                subject=subject,
                key=reported_key,
            )

    def add(
        self,
        rule_id: str,
        *,
        tool: str | None,
        segments: list[Any],
        before: Any = None,
        after: Any = None,
        detail: str = "",
        subject: str = "",
        key: str = "",
        witness: Any = NOT_FOUND,
        unproved: bool = False,
    ) -> None:
        """Record a change. ``unproved``: its rule claims a break, but no witness was found, so no
        call (or result) is known to break: it is reported at warning, saying so, not as breaking."""
        row = rule(rule_id)
        path = _pointer(segments)
        label = AREA_LABELS[row.area]
        where = " / ".join([label, *(str(s) for s in segments)]) if segments else f"{label} / (root)"
        message = row.message.format(
            tool=tool or "", subject=subject, detail=detail, before=_short(before), after=_short(after)
        )
        if witness is not NOT_FOUND:
            message += " " + WITNESS_SENTENCES[row.witness].format(sorted_json(witness))
        elif unproved:
            message += " " + UNPROVED_SENTENCES[row.witness]
        self.changes.append(
            Change(
                rule=rule_id,
                level="warning" if unproved else row.level,
                tool=tool,
                area=row.area,
                path=path,
                where=where,
                before=before,
                after=after,
                message=message,
                fingerprint=fingerprint(rule_id, tool, path, key),
                witness=None if witness is NOT_FOUND else witness,
            )
        )


def diff_snapshots(old: dict[str, Any], new: dict[str, Any]) -> list[Change]:
    """Every change from snapshot ``old`` to snapshot ``new``, ordered by tool, area and path."""
    return _diff(old, new, _Tools(old), _Tools(new))


def diff_history(snapshots: Sequence[dict[str, Any]]) -> list[list[Change]]:
    """The changes into each snapshot from the one before it (none into the first), oldest first.

    The same as ``diff_snapshots`` on each neighbouring pair, with each version's tools read once.
    """
    tools = [_Tools(snapshot) for snapshot in snapshots]
    return [
        _diff(snapshots[index - 1], snapshot, tools[index - 1], tools[index]) if index else []
        for index, snapshot in enumerate(snapshots)
    ]


def _diff(old: dict[str, Any], new: dict[str, Any], old_side: _Tools, new_side: _Tools) -> list[Change]:
    out = _Builder(_TextLints(old_side, new_side))
    _diff_server(out, old, new)
    old_tools, new_tools = old_side.by_name, new_side.by_name
    same_era = old.get("protocolVersion") == new.get("protocolVersion")
    for name in sorted(old_tools.keys() & new_tools.keys()):
        if old_side.canonical(name) != new_side.canonical(name):
            _diff_tool(out, old_side.normalized(name), new_side.normalized(name), same_era)
    removed = {name: old_side.normalized(name) for name in sorted(old_tools.keys() - new_tools.keys())}
    added = {name: new_side.normalized(name) for name in sorted(new_tools.keys() - old_tools.keys())}
    for old_name, new_name in _renames(removed, added):
        out.texts_changed(
            "tool-renamed",
            "tool-renamed-poisoning",
            [("name", old_name)],
            [("name", new_name)],
            trips="now trips",
            tool=old_name,
            segments=[],
            before=old_name,
            after=new_name,
            key=new_name,
        )
        # A rename keeps the schemas, not the rest: its description, title and annotations are
        # judged as a kept tool's are.
        _diff_tool(out, removed.pop(old_name), added.pop(new_name), same_era)
    for name in removed:
        out.add("tool-removed", tool=name, segments=[], before=name)
    for name in added:
        out.texts_changed(
            "tool-added",
            "tool-added-poisoning",
            [],
            _model_texts(new_side.by_name[name]),
            trips="trips",
            tool=name,
            segments=[],
            after=name,
        )
    area_order = {area: index for index, area in enumerate(AREAS)}
    return sorted(
        out.changes,
        key=lambda c: (c["tool"] or "", area_order[c["area"]], c["path"], c["rule"], c["fingerprint"]),
    )


def summarize(changes: Iterable[Change]) -> dict[str, int]:
    """Counts per level plus the total: ``{"breaking": 1, "warning": 0, "info": 3, "total": 4}``."""
    counts: dict[str, int] = dict.fromkeys(reversed(LEVELS), 0)
    for change in changes:
        counts[change["level"]] += 1
    return {**counts, "total": sum(counts.values())}


def _renames(removed: dict[str, dict[str, Any]], added: dict[str, dict[str, Any]]) -> list[tuple[str, str]]:
    """Pairs (old name, new name) of a removed and an added tool with the same schemas.

    An argument-less tool matches any other argument-less tool, so those pair only when their
    descriptions are equal too.
    """
    pairs: list[tuple[str, str]] = []
    taken: set[str] = set()
    for old_name, old_tool in removed.items():
        for new_name, new_tool in added.items():
            if new_name in taken:
                continue
            same_schemas = (
                old_tool["inputSchema"] == new_tool["inputSchema"]
                and old_tool["outputSchema"] == new_tool["outputSchema"]
            )
            distinctive = bool(old_tool["inputSchema"].get("properties")) or (
                old_tool["description"] == new_tool["description"]
            )
            if same_schemas and distinctive:
                pairs.append((old_name, new_name))
                taken.add(new_name)
                break
    return pairs


def _diff_server(out: _Builder, old: dict[str, Any], new: dict[str, Any]) -> None:
    before = (old.get("server") or {}).get("instructions") or None
    after = (new.get("server") or {}).get("instructions") or None
    if before != after:
        out.text_changed(
            "server-instructions-changed",
            "server-instructions-poisoning",
            tool=None,
            segments=["instructions"],
            before=before,
            after=after,
        )
    for key, kind, identity in _NAMED_LISTS:
        olds = {str(item.get(identity)): item for item in old.get(key) or [] if isinstance(item, dict)}
        news = {str(item.get(identity)): item for item in new.get(key) or [] if isinstance(item, dict)}
        for ident in sorted(olds.keys() | news.keys()):
            before_item, after_item = olds.get(ident), news.get(ident)
            if (
                before_item is not None
                and after_item is not None
                and (canonical_json(before_item) == canonical_json(after_item))
            ):
                continue
            action = _text_change(before_item, after_item)
            if after_item is None:
                out.add(
                    f"{kind}-removed",
                    tool=None,
                    segments=[key, ident],
                    before=before_item,
                    detail=f"`{ident}`",
                )
                continue
            out.texts_changed(
                f"{kind}-{action}",
                f"{kind}-{action}-poisoning",
                _model_texts(before_item),
                _model_texts(after_item),
                trips="now trips" if action == "changed" else "trips",
                tool=None,
                segments=[key, ident],
                before=before_item,
                after=after_item,
                detail=f"`{ident}`",
                subject=f"`{ident}`",
            )


def _diff_tool(out: _Builder, old: dict[str, Any], new: dict[str, Any], same_era: bool) -> None:
    name = old["name"]
    if old["description"] != new["description"]:
        out.text_changed(
            "tool-description-changed",
            "tool-description-poisoning",
            tool=name,
            segments=["description"],
            before=old["description"],
            after=new["description"],
        )
    # A display title is judged alike wherever the server puts it: MCP shows `title`, else
    # `annotations.title`, and either reaches the model.
    for segments, before, after in (
        (["title"], old["title"], new["title"]),
        (["annotations", "title"], old["annotations"].get("title"), new["annotations"].get("title")),
    ):
        if before != after:
            out.text_changed(
                "tool-title-changed",
                "tool-title-poisoning",
                tool=name,
                segments=segments,
                before=before,
                after=after,
            )
    _diff_annotations(out, name, old["annotations"], new["annotations"])
    for area in ("inputSchema", "outputSchema"):
        before, after = old["dialects"][area], new["dialects"][area]
        if before != after and old[area] is not None and new[area] is not None:
            prefix = "input" if area == "inputSchema" else "output"
            out.add(f"{prefix}-dialect-changed", tool=name, segments=["$schema"], before=before, after=after)
    if _declared_at_last(old, new):
        ctx = _Context(out, name, "inputSchema", old, new)
        required = new["inputSchema"].get("required") or []
        ctx.add(
            "schema-declared",
            [],
            old["sent"]["inputSchema"],
            new["sent"]["inputSchema"],
            detail=", ".join(f"`{prop}`" for prop in required) or "nothing",
            node=([], []),
            candidates=[{}],
        )
    else:
        _diff_schema(_Context(out, name, "inputSchema", old, new), old["inputSchema"], new["inputSchema"])
    if old["outputSchema"] is None and new["outputSchema"] is not None:
        out.add("output-schema-added", tool=name, segments=[], after=new["sent"]["outputSchema"])
    elif old["outputSchema"] is not None and new["outputSchema"] is None:
        out.add("output-schema-removed", tool=name, segments=[], before=old["sent"]["outputSchema"])
    elif old["outputSchema"] is not None:
        _diff_schema(_Context(out, name, "outputSchema", old, new), old["outputSchema"], new["outputSchema"])
    for field in sorted(old["extra"].keys() | new["extra"].keys()):
        if field == "execution" and not same_era:
            continue  # `execution` exists in one protocol era only: comparing across eras is noise
        before, after = old["extra"].get(field), new["extra"].get(field)
        if before != after:
            out.add(
                "tool-field-changed",
                tool=name,
                segments=[field],
                before=before,
                after=after,
                detail=f"`{field}`",
            )


_ANY_OBJECT = {"type": "object"}


def _declared_at_last(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """The old input schema declared nothing (missing, empty or not a valid schema) and the new one rejects
    calls: one `input-schema-declared` says so, in place of a change per keyword of the new schema.

    A new schema that only offers optional properties of an open object is diffed as usual.
    """
    schema = new["inputSchema"]
    if not isinstance(schema, dict) or not (
        schema.get("required") or schema.get("additionalProperties") is False
    ):
        return False
    sent = old["sent"]["inputSchema"]
    if not isinstance(sent, dict) or set(sent) <= _NOTHING_DECLARED:
        return True  # `{"type": "object"}` is declared: a tool that takes no arguments
    return not Side(sent).valid() and Side(new["sent"]["inputSchema"]).valid()


# Keywords of a schema that declares nothing: the dialect stamp and documentation.
_NOTHING_DECLARED = frozenset({"$schema", "$id", "$comment", "title", "description"})


def _diff_annotations(out: _Builder, tool: str, old: dict[str, Any], new: dict[str, Any]) -> None:
    for key in sorted(old.keys() | new.keys()):
        before, after = old.get(key), new.get(key)
        if before == after or key == "title":  # the title is judged with the tool's own
            continue
        if key in _HINT_RULES and isinstance(after, bool):
            became_true, became_false = _HINT_RULES[key]
            out.add(
                became_true if after else became_false, tool=tool, segments=[key], before=before, after=after
            )
        else:
            out.add(
                "annotation-changed", tool=tool, segments=[key], before=before, after=after, detail=f"`{key}`"
            )


# ── schemas ─────────────────────────────────────────────────────────────────────────────────────

_OLD, _NEW = 0, 1


class _Context:
    """One schema comparison: the tool, the area and rule-id prefix, and both sides' schemas.

    Each side is held three ways: normalised (what the judges compare), its origins (to show a
    value as the server sent it) and as sent (what a witness is confirmed against).
    """

    def __init__(self, out: _Builder, tool: str, area: str, old: dict[str, Any], new: dict[str, Any]) -> None:
        self.out, self.tool, self.area = out, tool, area
        self.prefix = "input" if area == "inputSchema" else "output"
        self.roots = (old[area], new[area])
        self.origins = (old["origins"], new["origins"])
        sent = [old["sent"][area], new["sent"][area]]
        if area == "inputSchema":  # a tool without an input schema takes any arguments object
            sent = [_ANY_OBJECT if schema is None else schema for schema in sent]
        self._sent = sent
        self._sides: list[Side | None] = [None, None]
        # a judge that asks whether a witness exists then reports the change searches once
        self._found: dict[tuple[str, str, str, str], Any] = {}

    def side(self, index: int) -> Side:
        if self._sides[index] is None:
            self._sides[index] = Side(self._sent[index])
        return self._sides[index]  # type: ignore[return-value]

    def shown(self, index: int, value: Any) -> Any:
        """``value`` as the server sent it, when it is a normalised subschema of that side."""
        return origin(self.origins[index], value) if isinstance(value, dict) else value

    def sent(self, index: int, node: Any, keyword: str, value: Any) -> Any:
        """The value of ``keyword`` at a normalised ``node`` as the server sent it (else ``value``)."""
        raw = self.shown(index, node)
        if raw is not node and isinstance(raw, dict) and keyword in raw:
            return raw[keyword]
        return self.shown(index, value)

    def add(
        self,
        name: str,
        segments: list[Any],
        before: Any = None,
        after: Any = None,
        *,
        detail: str = "",
        subject_at: list[Any] | None = None,
        key: str = "",
        node: tuple[list[Any], list[Any]] | None = None,
        candidates: Sequence[Any] = (),
    ) -> None:
        """Report a change; for a rule that claims a break, with its witness found from ``node`` (the
        node's path on each side) and ``candidates`` (values to try there before the node's probes)."""
        rule_id = f"{self.prefix}-{name}"
        row = rule(rule_id)
        witness = self.witness(rule_id, node, candidates)
        subject = _subject(self.area, subject_at if subject_at is not None else segments)
        self.out.add(
            rule_id,
            tool=self.tool,
            segments=segments,
            before=self.shown(_OLD, before),
            after=self.shown(_NEW, after),
            detail=detail,
            subject=subject,
            key=key,
            witness=witness,
            unproved=witness is NOT_FOUND and bool(row.witness) and row.level == "breaking",
        )

    def witness(
        self, rule_id: str, node: tuple[list[Any], list[Any]] | None, candidates: Sequence[Any]
    ) -> Any:
        """The witness of a rule that carries one (``NOT_FOUND`` if none is found, or the rule has none)."""
        kind = rule(rule_id).witness
        if not kind or node is None:
            return NOT_FOUND
        key = (rule_id, _pointer(node[0]), _pointer(node[1]), repr(candidates))
        if key not in self._found:
            accepting = _OLD if kind == "call" else _NEW
            self._found[key] = find(
                self.side(accepting),
                self.side(1 - accepting),
                self.roots[accepting],
                node[accepting],
                candidates,
            )
        return self._found[key]

    def has_witness(
        self, rule_id: str, node: tuple[list[Any], list[Any]], candidates: Sequence[Any] = ()
    ) -> bool:
        return self.witness(rule_id, node, candidates) is not NOT_FOUND


def _diff_schema(
    ctx: _Context, old: Any, new: Any, old_at: list[Any] | None = None, new_at: list[Any] | None = None
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
    ctx: _Context, at: _Node, old: dict[str, Any], new: dict[str, Any], keywords: set[str]
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
        shown = (ctx.sent(_OLD, old, keyword, before), ctx.sent(_NEW, new, keyword, after))
        here = [*new_at, keyword]
        if keyword in _UPPER_BOUNDS or keyword in _LOWER_BOUNDS:
            _judge_bound(ctx, at, keyword, before, after, shown)
        elif keyword in _COMPOSITIONS:
            _judge_composition(ctx, at, keyword, before, after)
        elif keyword == "const":
            action = _text_change(before, after)
            # the old constant is the call that fails now; the new one the result old clients reject
            ctx.add(f"const-{action}", here, *shown, subject_at=new_at, node=at, candidates=[before, after])
        elif keyword in ("pattern", "format"):
            ctx.add(f"{keyword}-{_text_change(before, after)}", here, *shown, subject_at=new_at, node=at)
        elif keyword in ("description", "title"):
            ctx.out.text_changed(
                f"{ctx.prefix}-{keyword}-changed",
                f"{ctx.prefix}-{keyword}-poisoning",
                tool=ctx.tool,
                segments=here,
                before=before,
                after=after,
                subject=_subject(ctx.area, new_at),
            )
        elif keyword == "default":
            action = _text_change(before, after)
            ctx.add("default-changed", here, *shown, detail=action, subject_at=new_at)
        elif keyword in _CONSTRAINTS:
            action = _text_change(before, after)
            ctx.add(f"constraint-{action}", here, *shown, detail=f"`{keyword}`", subject_at=new_at, node=at)
        else:
            ctx.add("keyword-changed", here, *shown, detail=f"`{keyword}`", subject_at=new_at)


def _diff_alternatives(
    ctx: _Context, old: dict[str, Any], new: dict[str, Any], old_at: list[Any], new_at: list[Any]
) -> None:
    """One side offers alternatives (``anyOf``/``oneOf``), the other a single schema, as when a
    generator wraps an old schema as ``anyOf: [old, {"type": "string"}]``.

    The single schema is diffed against its closest alternative; every other alternative is one
    added (a widening) or removed (a narrowing). Documentation on the composition counts as the
    paired alternative's own.
    """
    many_side = _NEW if _whole(new) else _OLD
    many, single = (new, old) if many_side == _NEW else (old, new)
    keyword = _whole(many)
    assert keyword is not None
    docs = {key: value for key, value in many.items() if key != keyword}
    branches = many[keyword]
    removed_rule = _COMPOSITIONS[keyword][1]
    many_at = new_at if many_side == _NEW else old_at
    if many_side == _NEW and single not in branches and any(_subsumes(b, single) for b in branches):
        # An alternative that accepts every value of the old schema (an open object for an object):
        # nothing the old schema accepted is lost, and each alternative is one the new schema adds.
        for index, branch in enumerate(branches):
            here = [*new_at, keyword, index]
            _branch_added(ctx, keyword, here, branch, new_at, (old_at, here))
        return
    index = _closest(single, branches)
    paired = {**docs, **branches[index]} if isinstance(branches[index], dict) else branches[index]
    if many_side == _NEW:
        _diff_schema(ctx, single, paired, old_at, [*new_at, keyword, index])
    else:
        _diff_schema(ctx, paired, single, [*old_at, keyword, index], new_at)
    for other, branch in enumerate(branches):
        if other == index:
            continue
        here = [*many_at, keyword, other]
        if many_side == _NEW:
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
    ctx: _Context, keyword: str, here: list[Any], branch: Any, subject_at: list[Any], node: _Node
) -> None:
    """A new alternative: a widening, except a oneOf alternative that overlaps what callers sent.

    oneOf wants exactly one match, so an input value that matched an old alternative and matches
    the new one too is rejected now: the old node's samples laid over the new branch's find it.
    """
    added_rule = _COMPOSITIONS[keyword][0]
    key = canonical_json(branch)
    if keyword == "oneOf" and ctx.prefix == "input":
        olds = samples(_at(ctx.roots[_OLD], node[0]))
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


def _judge_properties(ctx: _Context, at: _Node, old: dict[str, Any], new: dict[str, Any]) -> None:
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


def _judge_type(ctx: _Context, at: _Node, old: dict[str, Any], new: dict[str, Any]) -> None:
    before, after = old.get("type"), new.get("type")
    old_types, new_types = _type_set(before), _type_set(after)
    here = [*at[1], "type"]
    old_all = old_types if old_types is not None else set(_JSON_TYPES)
    new_all = new_types if new_types is not None else set(_JSON_TYPES)
    wider, narrower = _covers(new_all, old_all), _covers(old_all, new_all)
    shown_before = ctx.sent(_OLD, old, "type", before) if before is not None else "any"
    shown_after = ctx.sent(_NEW, new, "type", after) if after is not None else "any"
    if wider and narrower:
        return  # the same set of values, spelled differently
    name = "type-widened" if wider else "type-narrowed" if narrower else "type-changed"
    ctx.add(name, here, shown_before, shown_after, subject_at=at[1], node=at)


def _judge_enum(ctx: _Context, at: _Node, before: Any, after: Any) -> None:
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
    ctx: _Context, at: _Node, keyword: str, before: Any, after: Any, shown: tuple[Any, Any]
) -> None:
    here = [*at[1], keyword]
    numeric = all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in (before, after) if v is not None
    )
    if not numeric:
        action = _text_change(before, after)
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
        what = f"`{keyword}` set to {_short(after)}" + (
            " (absent means 0)" if keyword in _COUNT_MINIMUMS else ""
        )
    elif after is None:
        what = f"`{keyword}` removed (was {_short(before)})"
    else:
        what = (
            f"`{keyword}` {'tightened' if stricter else 'relaxed'} from {_short(before)} to {_short(after)}"
        )
    if breaks:
        name = (
            "bound-tightened"
            if ctx.prefix == "input"
            else ("bound-removed" if after is None else "bound-relaxed")
        )
        node = at[0] if ctx.prefix == "input" else at[1]
        schema = _at(ctx.roots[_OLD if ctx.prefix == "input" else _NEW], node)
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


def _judge_additional(ctx: _Context, at: _Node, old: dict[str, Any], new: dict[str, Any]) -> None:
    # Normalisation drops `additionalProperties: true` and `{}`, so None here means "open".
    before, after = old.get("additionalProperties"), new.get("additionalProperties")
    old_at, new_at = at
    here = [*new_at, "additionalProperties"]
    shown = (
        ctx.sent(_OLD, old, "additionalProperties", True if before is None else before),
        ctx.sent(_NEW, new, "additionalProperties", True if after is None else after),
    )
    if after is False:
        ctx.add("additional-properties-closed", here, *shown, subject_at=new_at, node=at)
    elif before is False:
        ctx.add("additional-properties-opened", here, *shown, subject_at=new_at, node=at)
    else:  # a schema for undeclared properties where there was none (or the reverse): judged as one
        _diff_schema(ctx, before or {}, after or {}, [*old_at, "additionalProperties"], here)


def _judge_composition(ctx: _Context, at: _Node, keyword: str, before: Any, after: Any) -> None:
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
        _diff_schema(
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


__all__ = ["Change", "diff_history", "diff_snapshots", "fingerprint", "summarize"]
