"""Direction-aware diff of two snapshots into a list of Changes, judged by the rule table: the
server's lists (tools, resources, templates, prompts), each tool's texts and annotations, and its
schemas (judged in ``registry.diffing.schema_diff``). Both sides are normalised first
(``registry.diffing.normalize``), so re-serialisation by another SDK produces no change.
Pure: no MCP, no database, no clock.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from common.canonical import canonical_json
from registry.diffing.changes import (
    Change,
    ChangeBuilder,
    TextLints,
    ToolSide,
    model_texts_of,
    text_change,
)
from registry.diffing.rules import AREAS
from registry.diffing.schema_diff import SchemaComparison, diff_schema
from registry.diffing.witness import Side

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


def diff_snapshots(
    old: dict[str, Any], new: dict[str, Any], *, foreign_tools: frozenset[str] = frozenset()
) -> list[Change]:
    """Every change from snapshot ``old`` to snapshot ``new``, ordered by tool, area and path.

    ``foreign_tools`` are the tools other servers are known to offer (a registry's, a client
    config's): a changed text that names one of them is a cross-server reference; no other name is.
    """
    return _diff(old, new, ToolSide(old), ToolSide(new), foreign_tools)


def diff_history(snapshots: Sequence[dict[str, Any]]) -> list[list[Change]]:
    """The changes into each snapshot from the one before it (none into the first), oldest first.

    The same as ``diff_snapshots`` on each neighbouring pair, with each version's tools read once.
    """
    tools = [ToolSide(snapshot) for snapshot in snapshots]
    return [
        _diff(snapshots[index - 1], snapshot, tools[index - 1], tools[index]) if index else []
        for index, snapshot in enumerate(snapshots)
    ]


def _diff(
    old: dict[str, Any],
    new: dict[str, Any],
    old_side: ToolSide,
    new_side: ToolSide,
    foreign_tools: frozenset[str] = frozenset(),
) -> list[Change]:
    out = ChangeBuilder(TextLints(old_side, new_side, foreign_tools))
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
            model_texts_of(new_side.by_name[name]),
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


def _diff_server(out: ChangeBuilder, old: dict[str, Any], new: dict[str, Any]) -> None:
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
            action = text_change(before_item, after_item)
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
                model_texts_of(before_item),
                model_texts_of(after_item),
                trips="now trips" if action == "changed" else "trips",
                tool=None,
                segments=[key, ident],
                before=before_item,
                after=after_item,
                detail=f"`{ident}`",
                subject=f"`{ident}`",
            )


def _diff_tool(out: ChangeBuilder, old: dict[str, Any], new: dict[str, Any], same_era: bool) -> None:
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
                "tool-title-added" if before is None else "tool-title-changed",
                "tool-title-poisoning",
                tool=name,
                segments=segments,
                before=before,
                after=after,
            )
    _diff_annotations(out, name, old["annotations"], new["annotations"])
    for area in ("inputSchema", "outputSchema"):
        before, after = old["dialects"][area], new["dialects"][area]
        stamp_only = None in (before, after) and _is_draft_07_stamp(before or after)
        if before != after and not stamp_only and old[area] is not None and new[area] is not None:
            prefix = "input" if area == "inputSchema" else "output"
            if before is None:
                what = f"added: {after} (absent means 2020-12)"
            elif after is None:
                what = f"removed (was {before}; absent means 2020-12)"
            else:
                what = f"changed from {before} to {after}"
            out.add(
                f"{prefix}-dialect-changed",
                tool=name,
                segments=["$schema"],
                before=before,
                after=after,
                detail=what,
            )
    if _declared_at_last(old, new):
        ctx = SchemaComparison(out, name, "inputSchema", old, new)
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
        diff_schema(
            SchemaComparison(out, name, "inputSchema", old, new), old["inputSchema"], new["inputSchema"]
        )
    if old["outputSchema"] is None and new["outputSchema"] is not None:
        out.add("output-schema-added", tool=name, segments=[], after=new["sent"]["outputSchema"])
    elif old["outputSchema"] is not None and new["outputSchema"] is None:
        out.add("output-schema-removed", tool=name, segments=[], before=old["sent"]["outputSchema"])
    elif old["outputSchema"] is not None:
        diff_schema(
            SchemaComparison(out, name, "outputSchema", old, new), old["outputSchema"], new["outputSchema"]
        )
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


def _is_draft_07_stamp(dialect: Any) -> bool:
    """The draft-07 ``$schema`` the TypeScript SDK stamps on every schema (zod-to-json-schema's):
    normalised away like the rest of one SDK's serialisation, so gaining or losing it is no change."""
    text = str(dialect or "").rstrip("#")
    return text in ("http://json-schema.org/draft-07/schema", "https://json-schema.org/draft-07/schema")


# Keywords of a schema that declares nothing: the dialect stamp and documentation.
_NOTHING_DECLARED = frozenset({"$schema", "$id", "$comment", "title", "description"})


def _diff_annotations(out: ChangeBuilder, tool: str, old: dict[str, Any], new: dict[str, Any]) -> None:
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
