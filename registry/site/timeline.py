"""A server's history as pages show it: the changelog (newest version first, changes ranked by
level), and for each tool the version it appeared in and the versions that changed it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from registry.core.templating import environment
from registry.core.textdiff import line_diff
from registry.core.wording import counted
from registry.diffing.rules import CHANGE_LEVELS, LEVEL_RANK, TEXT_DIFF_RULES
from registry.site.encoding import pretty_json
from registry.site.model import VersionEntry
from registry.site.text import as_text, format_date

# The rules that report a tool arriving, and a rename (``tool`` the old name, ``after`` the new),
# whether or not their texts trip a poisoning lint.
_TOOL_ADDED = ("tool-added", "tool-added-poisoning")


_TOOL_RENAMED = ("tool-renamed", "tool-renamed-poisoning")


# (rule, whether the change's ``tool`` is the tool in question): the changes by which a tool
# arrived (added, or renamed to) and left (removed, or renamed from).
_ARRIVED = {*((rule, True) for rule in _TOOL_ADDED), *((rule, False) for rule in _TOOL_RENAMED)}


_LEFT = {("tool-removed", True), *((rule, True) for rule in _TOOL_RENAMED)}


def _change_view(change: dict[str, Any]) -> dict[str, Any]:
    return {
        "level": change.get("level") if change.get("level") in LEVEL_RANK else "info",
        "rule": as_text(change.get("rule")),
        "tool": as_text(change.get("tool")),
        "where": as_text(change.get("where") or change.get("path")),
        "message": as_text(change.get("message")),
        "has_before": change.get("before") is not None,
        "has_after": change.get("after") is not None,
        "before": pretty_json(change.get("before")),
        "after": pretty_json(change.get("after")),
        # A changed text is read as a line diff, not as two JSON strings full of \n.
        "line_diff": line_diff(change.get("before"), change.get("after"))
        if change.get("rule") in TEXT_DIFF_RULES
        else None,
    }


def changelog_entries(versions: Sequence[VersionEntry], template_dir: str | None) -> list[dict[str, Any]]:
    """Newest version first, each with its changes, every change rendered once."""
    # Any: a template module's attributes are its macros, which no type describes.
    macros: Any = environment(template_dir).get_template("_macros.html.j2").module
    entries = []
    for index, version in reversed(list(enumerate(versions))):
        views = sorted(
            (_change_view(change) for change in version.get("changes") or []),
            key=lambda c: (-LEVEL_RANK[c["level"]], c["tool"], c["where"], c["rule"]),
        )
        for view in views:
            view["html"] = macros.change_item(view)
        entries.append(
            dict(
                position=index,
                label=as_text(version.get("label")),
                first=index == 0,
                date=format_date(version.get("first_seen")),
                datetime=as_text(version.get("first_seen")),
                digest=as_text(version.get("digest")),
                behaviour=[as_text(b.get("message")) for b in version.get("behaviour") or []],
                **_counted(views),
            )
        )
    return entries


def _counted(views: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "changes": views,
        "level": top_level(views),
        # (level, "2 quality drops"), most severe first, for the levels present
        "counts": [
            (level.name, counted(count, level.singular, level.plural))
            for level in CHANGE_LEVELS
            if (count := sum(c["level"] == level.name for c in views))
        ],
    }


def top_level(changes: Iterable[dict[str, Any]]) -> str:
    """The most severe level among ``changes``, or empty when there are none."""
    best = ""
    for change in changes:
        level = change.get("level")
        if level in LEVEL_RANK and (not best or LEVEL_RANK[level] > LEVEL_RANK[best]):
            best = level
    return best


def views_by_tool(entries: list[dict[str, Any]]) -> list[dict[Any, list[dict[str, Any]]]]:
    """For each changelog entry, its change views grouped by tool, in order: built once per server, so
    each tool page looks its own up instead of scanning every change (quadratic in a large server)."""
    grouped = []
    for entry in entries:
        by_tool: dict[Any, list[dict[str, Any]]] = {}
        for view in entry["changes"]:
            by_tool.setdefault(view["tool"], []).append(view)
        grouped.append(by_tool)
    return grouped


def tool_changelog(
    entries: list[dict[str, Any]], views: list[dict[Any, list[dict[str, Any]]]], tool: str, first: int
) -> list[dict[str, Any]]:
    """The versions that changed ``tool`` and the one it appeared in (at ``first``), with only its changes.

    ``views`` is ``views_by_tool(entries)``.
    """
    kept = []
    for entry, by_tool in zip(entries, views, strict=True):
        mine = by_tool.get(tool, [])
        if mine or entry["position"] == first:
            kept.append(dict(entry, first=entry["position"] == first, **_counted(mine)))
    return kept


def changes_by_tool(versions: Sequence[VersionEntry]) -> list[dict[str, list[dict[str, Any]]]]:
    """For each version, the changes that concern each tool (its own and a rename to it), in order."""
    grouped = []
    for version in versions:
        by_tool: dict[str, list[dict[str, Any]]] = {}
        for change in version.get("changes") or []:
            names = [change.get("tool")]
            if change.get("rule") in _TOOL_RENAMED and change.get("after") != names[0]:
                names.append(change.get("after"))
            for name in names:
                if isinstance(name, str):
                    by_tool.setdefault(name, []).append(change)
        grouped.append(by_tool)
    return grouped


def tool_timeline(
    concerning: Sequence[Mapping[str, list[dict[str, Any]]]], tool: str
) -> tuple[int, list[int]]:
    """Positions of the version ``tool`` first appeared in and of the later ones that changed it.

    ``concerning`` is ``changes_by_tool`` of the versions. A tool that a diff adds (or renames
    to) before any diff removes it arrived then; otherwise it was there from the first recorded
    version.
    """
    arrived = left = None
    changed = []
    for position, by_tool in enumerate(concerning):
        mine = by_tool.get(tool, [])
        if mine:
            changed.append(position)
        rules = {(change.get("rule"), change.get("tool") == tool) for change in mine}
        if arrived is None and rules & _ARRIVED:
            arrived = position
        if left is None and rules & _LEFT:
            left = position
    first = arrived if arrived is not None and (left is None or arrived < left) else 0
    return first, [position for position in changed if position > first]


def tool_history(versions: Sequence[VersionEntry], first: int, changed: list[int]) -> dict[str, Any]:
    """``{"first": label, "changed": [labels]}``: where a tool first appeared, and what changed it since."""
    if not versions:
        return {"first": None, "changed": []}
    return {"first": versions[first]["label"], "changed": [versions[index]["label"] for index in changed]}
