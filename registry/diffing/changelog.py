"""A server's schema changelog: every recorded version diffed against the one before it.

Pure: takes the versions (oldest → newest, as the store returns them) and returns plain data,
newest first, which the text, Markdown and JSON renderers print. No database, no clock.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from registry.core.printable import json_inert
from registry.core.templating import render
from registry.core.wording import counted
from registry.diffing.behaviour import behaviour_changes
from registry.diffing.changes import Change, counts_in_words, summarize
from registry.diffing.context_cost import context_growth_change
from registry.diffing.diff import diff_history
from registry.diffing.rules import TEXT_DIFF_RULES

CHANGELOG_FORMAT = "mcpdex.changelog/1"


def _field(version: Any, name: str) -> Any:
    """Read ``name`` from a store VersionRecord or from a plain mapping with the same keys."""
    return version[name] if isinstance(version, dict) else getattr(version, name)


def display_version(label: str) -> str:
    """``1.1.2`` → ``v1.1.2``; labels that do not start with a digit are shown as they are."""
    return f"v{label}" if label[:1].isdigit() else label


def group_by_tool(changes: Iterable[Change]) -> list[dict[str, Any]]:
    """``[{"tool": name or None, "changes": [...]}]`` in the order the changes come (server-level first)."""
    groups: dict[str | None, list[Change]] = {}
    for change in changes:
        groups.setdefault(change["tool"], []).append(change)
    return [{"tool": tool, "changes": items} for tool, items in groups.items()]


def build_changelog(
    server: str, versions: Sequence[Any], profiles: Mapping[str, dict[str, Any] | None] | None = None
) -> dict[str, Any]:
    """The changelog of ``server`` from its versions (each with label, digest, first_seen, snapshot);
    ``profiles`` (version label → stored probe profile) adds what the probe says changed."""
    profiles = profiles or {}
    entries: list[dict[str, Any]] = []
    snapshots = [_field(version, "snapshot") for version in versions]
    histories = diff_history(snapshots)
    for index in range(1, len(snapshots)):
        grew = context_growth_change(snapshots[index - 1], snapshots[index])
        if grew is not None:
            histories[index].append(grew)
    for index, (version, changes) in enumerate(zip(versions, histories, strict=True)):
        entries.append(
            {
                "version": _field(version, "label"),
                "display": display_version(_field(version, "label")),
                "date": str(_field(version, "first_seen"))[:10],
                "digest": _field(version, "digest"),
                "first": index == 0,
                "counts": summarize(changes),
                "tools": group_by_tool(changes),
                "changes": changes,
                "behaviour": behaviour_changes(
                    profiles.get(_field(versions[index - 1], "label")) if index else None,
                    profiles.get(_field(version, "label")),
                ),
            }
        )
    entries.reverse()
    return {"format": CHANGELOG_FORMAT, "server": server, "versions": entries}


def headline(entry: dict[str, Any]) -> str:
    """``First observed v1.1.1 (2026-09-18)`` or ``v1.1.2 (2026-09-18): 4 changes, 1 breaking``."""
    if entry["first"]:
        return f"First observed {entry['display']} ({entry['date']})"
    counts = entry["counts"]
    total = counts["total"]
    behaviour = len(entry.get("behaviour") or [])
    also = f", {counted(behaviour, 'behaviour change')}" if behaviour else ""
    if total == 0:
        return f"{entry['display']} ({entry['date']}): no contract changes{also}"
    # Info is the bulk of most versions: the headline names only the levels a reader has to look at.
    notable = counts_in_words({**counts, "info": 0}, zeros=False)
    counts_said = ", ".join(part for part in (counted(total, "change"), notable) if part)
    return f"{entry['display']} ({entry['date']}): {counts_said}{also}"


def render_changelog(changelog: dict[str, Any], fmt: str = "text") -> str:
    """The changelog as ``text``, ``markdown`` or ``json``."""
    if fmt == "json":
        return json_inert(json.dumps(changelog, indent=2, ensure_ascii=False, sort_keys=True)) + "\n"
    template = "changelog.md.j2" if fmt == "markdown" else "changelog.txt.j2"
    return render(template, changelog=changelog, headline=headline, text_diff_rules=TEXT_DIFF_RULES)
