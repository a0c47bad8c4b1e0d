"""Directory pages and reports: plain data in, rendered files out.

Pure: no network, no database, no clock. Servers, tools and descriptions come from servers
nobody vetted, so every string reaches a template as data (autoescaped there), file names are
slugs made here, and the same input always renders byte-identical output.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from functools import cache
from json.encoder import encode_basestring
from typing import Any, TypedDict

from markupsafe import Markup

from registry.core.errors import UsageError
from registry.core.snapshot import server_version, sorted_json
from registry.core.templating import environment, render
from registry.core.textdiff import line_diff
from registry.core.timestamps import parse_utc
from registry.diffing.context_cost import context_cost
from registry.diffing.rules import TEXT_DIFF_RULES

SITE_FORMAT = "mcpdex.site/1"
MANIFEST_FORMAT = "mcpdex.manifest/1"
# The list of files a site render wrote, kept in the site folder so the next render can remove
# the ones it no longer produces (and nothing else).
MANIFEST_NAME = ".mcpdex-manifest.json"

# Display order and labels of the six TDQS dimensions (the scorecard's keys).
DIMENSIONS: tuple[tuple[str, str], ...] = (
    ("purpose", "Purpose"),
    ("usage_guidelines", "Usage Guidelines"),
    ("behavior", "Behavior"),
    ("parameters", "Parameters"),
    ("conciseness", "Conciseness"),
    ("completeness", "Completeness"),
)
_DIMENSION_LABELS = dict(DIMENSIONS)
# Annotation hints shown as badges when a tool declares them true.
ANNOTATION_BADGES: tuple[tuple[str, str], ...] = (
    ("readOnlyHint", "Read-only"),
    ("destructiveHint", "Destructive"),
    ("idempotentHint", "Idempotent"),
    ("openWorldHint", "Open-world"),
)
LEVEL_RANK = {"breaking": 3, "warning": 2, "info": 1}
# The rules that report a tool arriving, and a rename (``tool`` the old name, ``after`` the new),
# whether or not their texts trip a poisoning lint.
_TOOL_ADDED = ("tool-added", "tool-added-poisoning")
_TOOL_RENAMED = ("tool-renamed", "tool-renamed-poisoning")
# (rule, whether the change's ``tool`` is the tool in question): the changes by which a tool
# arrived (added, or renamed to) and left (removed, or renamed from).
_ARRIVED = {*((rule, True) for rule in _TOOL_ADDED), *((rule, False) for rule in _TOOL_RENAMED)}
_LEFT = {("tool-removed", True), *((rule, True) for rule in _TOOL_RENAMED)}
TIERS = ("A", "B", "C", "D", "F")
# Sorting keys for the index's tier column: A first ascending, unknown last.
_TIER_RANK = {tier: rank for rank, tier in enumerate(TIERS)}
# Schema nesting shown in the tables (depth 0-9, as the stylesheet indents them); deeper levels
# stay in the raw JSON Schema view.
_MAX_SCHEMA_DEPTH = 10
_SLUG_MAX = 60
_HASHED_SUFFIX = re.compile(r"-[0-9a-f]{8}$")
_CLEAN_NAME = re.compile(r"^[a-z0-9]+(?:[-_][a-z0-9]+)*$")
# Device names Windows refuses as file names, whatever the extension.
_RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))}
# Built once (json.dumps with options builds an encoder per call). Compact separators keep json on
# its C encoder, several times faster than indented output. Site documents come from JSON, so never
# hold a cycle: the check costs a dict entry per container.
_COMPACT_JSON = json.JSONEncoder(
    ensure_ascii=False, sort_keys=True, separators=(",", ":"), check_circular=False
)


class VersionEntry(TypedDict):
    """One recorded version and the changes that led to it from the previous one."""

    label: str
    digest: str | None
    first_seen: str | None
    last_seen: str | None
    changes: list[dict[str, Any]]


@dataclass
class ServerData:
    """Everything shown about one server; all of it plain data from the store, diff and scorer."""

    name: str
    snapshot: dict[str, Any]
    versions: list[VersionEntry] = field(default_factory=list)  # oldest → newest
    scorecard: dict[str, Any] | None = None
    inspections: list[dict[str, Any]] = field(default_factory=list)  # newest first
    profile: dict[str, Any] | None = None
    # What the official MCP Registry lists for this server: one dict per recorded version
    # (store.RegistryEntryRecord fields), oldest first; None when it was not crawled from a registry.
    registry: list[dict[str, Any]] | None = None


# ---------------------------------------------------------------- slugs


def slugify(name: str, fallback: str = "item") -> str:
    """A lowercase ``[a-z0-9-]`` file-name stem for ``name``.

    Names that already are such a stem keep it; any other name (dots, slashes, case,
    non-ASCII, control or bidi characters) gets its folded form plus 8 hex of its sha256, so
    ``../../etc`` becomes ``etc-<hash>`` and never a path.
    """
    if (
        _CLEAN_NAME.match(name)
        and len(name) <= _SLUG_MAX
        and not _HASHED_SUFFIX.search(name)
        and (name not in _RESERVED)
    ):
        return name
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii").lower()
    stem = re.sub(r"[^a-z0-9_]+", "-", folded).strip("-")[:_SLUG_MAX].strip("-") or fallback
    return f"{stem}-{hashlib.sha256(name.encode('utf-8', 'surrogatepass')).hexdigest()[:8]}"


def assign_slugs(names: Sequence[str], fallback: str = "item") -> list[str]:
    """Slugs for ``names`` in order, unique among themselves even for duplicate names."""
    used: set[str] = set()
    slugs = []
    for name in names:
        slug = base = slugify(name, fallback)
        counter = 2
        while slug in used:
            slug = f"{base}-{counter}"
            counter += 1
        used.add(slug)
        slugs.append(slug)
    return slugs


# ---------------------------------------------------------------- view models


def _as_text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else sorted_json(value)


def pretty_json(value: Any) -> str:
    """Indented JSON with sorted keys: how schemas and before/after values are shown."""
    try:
        return _indented(value, "\n")
    except TypeError:  # a key that is not a string, or a value JSON cannot encode: the encoder decides
        return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)


# json.dumps(indent=...) runs Python's pure encoder, several times slower than this for the small
# values pages show by the thousand; the output is the same byte for byte.
# Strings, the most common members, are encoded in place rather than by a call each.
def _indented(value: Any, newline: str) -> str:
    if isinstance(value, str):
        return encode_basestring(value)
    if isinstance(value, dict) and value:
        inner = newline + "  "
        items = []
        for key in sorted(value):
            item = value[key]
            shown = encode_basestring(item) if type(item) is str else _indented(item, inner)
            items.append(f"{inner}{encode_basestring(key)}: {shown}")
        return "{" + ",".join(items) + newline + "}"
    if isinstance(value, (list, tuple)) and value:
        inner = newline + "  "
        shown = (encode_basestring(item) if type(item) is str else _indented(item, inner) for item in value)
        return "[" + ",".join(inner + item for item in shown) + newline + "]"
    return "null" if value is None else json.dumps(value)


def format_time(stamp: str | None) -> str:
    """``2026-09-18T10:00:00Z`` → ``Sep 18, 2026 10:00 UTC``; anything unparseable is shown as is."""
    if not stamp:
        return ""
    try:
        moment = parse_utc(stamp)
    except (ValueError, AttributeError):
        return str(stamp)
    zone = " UTC" if moment.utcoffset() is not None and not moment.utcoffset() else ""
    return f"{moment:%b} {moment.day}, {moment.year} {moment:%H:%M}{zone}"


def format_date(stamp: str | None) -> str:
    """``2026-09-18T10:00:00Z`` → ``Sep 18, 2026``."""
    text = format_time(stamp)
    return text.rsplit(" ", 2)[0] if text.endswith(" UTC") else text


def _schema_type(schema: dict[str, Any], root: dict[str, Any]) -> str:
    schema = _resolve_ref(schema, root)
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(_as_text(item) for item in kind)
    if isinstance(kind, str):
        if kind == "array" and isinstance(schema.get("items"), dict):
            inner = _schema_type(schema["items"], root)
            return f"array of {inner}" if inner else "array"
        return kind
    for keyword in ("anyOf", "oneOf"):
        branches = schema.get(keyword)
        if isinstance(branches, list):
            names = [_schema_type(branch, root) for branch in branches if isinstance(branch, dict)]
            return " | ".join(name or "any" for name in names)
    if "const" in schema:
        return "const"
    if "enum" in schema:
        return "enum"
    ref = schema.get("$ref")
    return f"ref {ref}" if isinstance(ref, str) else ""


def _resolve_ref(
    schema: dict[str, Any], root: dict[str, Any], seen: AbstractSet[str] = frozenset()
) -> dict[str, Any]:
    """Follow a local ``#/$defs/…`` or ``#/definitions/…`` reference; anything else is left alone."""
    ref = schema.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#/") or ref in seen:
        return schema
    target: Any = root
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(target, dict) or part not in target:
            return schema
        target = target[part]
    if not isinstance(target, dict):
        return schema
    merged = {**target, **{key: value for key, value in schema.items() if key != "$ref"}}
    return _resolve_ref(merged, root, seen | {ref})


def _nullable_branch(schema: dict[str, Any]) -> dict[str, Any]:
    """``anyOf: [X, {"type": "null"}]`` (Pydantic, Zod) → X, so nested properties of X are listed."""
    for keyword in ("anyOf", "oneOf"):
        branches = schema.get(keyword)
        if isinstance(branches, list) and len(branches) == 2:
            rest = [b for b in branches if not (isinstance(b, dict) and b.get("type") == "null")]
            if len(rest) == 1 and isinstance(rest[0], dict):
                return rest[0]
    return schema


def schema_rows(schema: Any) -> list[dict[str, Any]]:
    """The rows of a "Name | Required | Type | Description" table, nested properties indented."""
    if not isinstance(schema, dict):
        return []
    rows: list[dict[str, Any]] = []
    _walk_properties(schema, schema, "", 0, rows, frozenset())
    return rows


def _walk_properties(
    schema: dict[str, Any], root: dict[str, Any], prefix: str, depth: int, rows: list, seen: AbstractSet[str]
) -> None:
    if depth >= _MAX_SCHEMA_DEPTH:
        return
    schema = _nullable_branch(_resolve_ref(schema, root))
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return
    required = schema.get("required")
    required_names = (
        {item for item in required if isinstance(item, str)} if isinstance(required, list) else set()
    )
    for name, raw in properties.items():
        prop = _resolve_ref(raw, root) if isinstance(raw, dict) else {}
        path = f"{prefix}{name}"
        rows.append(
            {
                "name": str(name),
                "path": path,
                "depth": depth,
                "required": name in required_names,
                "type": _schema_type(prop, root),
                "enum": [_as_text(value) for value in prop["enum"]]
                if isinstance(prop.get("enum"), list)
                else [],
                "has_default": "default" in prop,
                "default": _as_text(prop.get("default")) if "default" in prop else "",
                "description": _as_text(prop.get("description")),
            }
        )
        ref = raw.get("$ref") if isinstance(raw, dict) else None
        if isinstance(ref, str) and ref in seen:
            continue  # a recursive schema: its rows were listed one level up
        child_seen = seen | {ref} if isinstance(ref, str) else seen
        nested = _nullable_branch(prop)
        if isinstance(nested.get("items"), dict):
            _walk_properties(nested["items"], root, f"{path}[].", depth + 1, rows, child_seen)
        else:
            _walk_properties(nested, root, f"{path}.", depth + 1, rows, child_seen)


def _dimension_rows(tool_card: dict[str, Any] | None) -> list[dict[str, Any]]:
    dimensions = (tool_card or {}).get("dimensions") or {}
    rows = []
    for key, label in DIMENSIONS:
        entry = dimensions.get(key)
        if isinstance(entry, dict):
            rows.append(
                {
                    "key": key,
                    "label": label,
                    "score": entry.get("score"),
                    "question": _as_text(entry.get("question")),
                    "justification": _as_text(entry.get("justification")),
                }
            )
    return sorted(rows, key=lambda row: row["label"])


def _badges(tool: dict[str, Any]) -> list[str]:
    annotations = tool.get("annotations")
    if not isinstance(annotations, dict):
        return []
    return [label for key, label in ANNOTATION_BADGES if annotations.get(key) is True]


def _score_number(value: Any) -> float | None:
    if isinstance(value, dict):
        value = value.get("score")
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _tier_of(value: Any) -> str:
    if isinstance(value, dict):
        value = value.get("tier")
    return value if isinstance(value, str) and value in _TIER_RANK else ""


def _change_view(change: dict[str, Any]) -> dict[str, Any]:
    return {
        "level": change.get("level") if change.get("level") in LEVEL_RANK else "info",
        "rule": _as_text(change.get("rule")),
        "tool": _as_text(change.get("tool")),
        "where": _as_text(change.get("where") or change.get("path")),
        "message": _as_text(change.get("message")),
        "has_before": change.get("before") is not None,
        "has_after": change.get("after") is not None,
        "before": pretty_json(change.get("before")),
        "after": pretty_json(change.get("after")),
        # A changed text is read as a line diff, not as two JSON strings full of \n.
        "line_diff": line_diff(change.get("before"), change.get("after"))
        if change.get("rule") in TEXT_DIFF_RULES
        else None,
    }


def _changelog(versions: Sequence[VersionEntry], template_dir: str | None) -> list[dict[str, Any]]:
    """Newest version first, each with its changes, every change rendered once."""
    macros = environment(template_dir).get_template("_macros.html.j2").module
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
                label=_as_text(version.get("label")),
                first=index == 0,
                date=format_date(version.get("first_seen")),
                datetime=_as_text(version.get("first_seen")),
                digest=_as_text(version.get("digest")),
                **_counted(views),
            )
        )
    return entries


def _counted(views: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "changes": views,
        "level": _top_level(views),
        "counts": {level: sum(c["level"] == level for c in views) for level in LEVEL_RANK},
    }


def _views_by_tool(entries: list[dict[str, Any]]) -> list[dict[Any, list[dict[str, Any]]]]:
    """For each changelog entry, its change views grouped by tool, in order: built once per server, so
    each tool page looks its own up instead of scanning every change (quadratic in a large server)."""
    grouped = []
    for entry in entries:
        by_tool: dict[Any, list[dict[str, Any]]] = {}
        for view in entry["changes"]:
            by_tool.setdefault(view["tool"], []).append(view)
        grouped.append(by_tool)
    return grouped


def _tool_changelog(
    entries: list[dict[str, Any]], views: list[dict[Any, list[dict[str, Any]]]], tool: str, first: int
) -> list[dict[str, Any]]:
    """The versions that changed ``tool`` and the one it appeared in (at ``first``), with only its changes.

    ``views`` is ``_views_by_tool(entries)``.
    """
    kept = []
    for entry, by_tool in zip(entries, views, strict=True):
        mine = by_tool.get(tool, [])
        if mine or entry["position"] == first:
            kept.append(dict(entry, first=entry["position"] == first, **_counted(mine)))
    return kept


def _changes_by_tool(versions: Sequence[VersionEntry]) -> list[dict[str, list[dict[str, Any]]]]:
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


def _tool_timeline(
    concerning: Sequence[Mapping[str, list[dict[str, Any]]]], tool: str
) -> tuple[int, list[int]]:
    """Positions of the version ``tool`` first appeared in and of the later ones that changed it.

    ``concerning`` is ``_changes_by_tool`` of the versions. A tool that a diff adds (or renames
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


def _history(versions: Sequence[VersionEntry], first: int, changed: list[int]) -> dict[str, Any]:
    """``{"first": label, "changed": [labels]}``: where a tool first appeared, and what changed it since."""
    if not versions:
        return {"first": None, "changed": []}
    return {"first": versions[first]["label"], "changed": [versions[index]["label"] for index in changed]}


def _top_level(changes: Iterable[dict[str, Any]]) -> str:
    best = ""
    for change in changes:
        level = change.get("level")
        if level in LEVEL_RANK and (not best or LEVEL_RANK[level] > LEVEL_RANK[best]):
            best = level
    return best


def _tool_views(server: ServerData, slugs: Sequence[str]) -> list[dict[str, Any]]:
    cards: dict[str, dict[str, Any]] = {}
    for card in (server.scorecard or {}).get("tools") or []:
        if isinstance(card, dict) and isinstance(card.get("name"), str):
            cards.setdefault(card["name"], card)
    views = []
    for tool, slug in zip(_tools(server.snapshot), slugs, strict=True):
        name = _as_text(tool.get("name"))
        card = cards.get(name)
        findings = [f for f in (card or {}).get("findings") or [] if isinstance(f, dict)]
        views.append(
            {
                "name": name,
                "slug": slug,
                "title": _as_text(tool.get("title") or (tool.get("annotations") or {}).get("title")),
                "description": _as_text(tool.get("description")),
                "badges": _badges(tool),
                "input_rows": schema_rows(tool.get("inputSchema")),
                "output_rows": schema_rows(tool.get("outputSchema")),
                "has_output": isinstance(tool.get("outputSchema"), dict),
                "input_json": pretty_json(tool.get("inputSchema")),
                "output_json": pretty_json(tool.get("outputSchema")),
                "score": {
                    "total": _score_number((card or {}).get("total")),
                    "tier": _tier_of(card),
                    "smells": [
                        _DIMENSION_LABELS.get(s, _as_text(s)) for s in (card or {}).get("smells") or []
                    ],
                    "flags": [_as_text(s) for s in (card or {}).get("flags") or []],
                    "dimensions": _dimension_rows(card),
                }
                if card
                else None,
                "findings": [_finding_view(f) for f in findings],
            }
        )
    return views


def _finding_view(finding: dict[str, Any]) -> dict[str, Any]:
    return {
        "rule": _as_text(finding.get("rule")),
        "level": _as_text(finding.get("level")),
        "tool": _as_text(finding.get("tool")),
        "where": _as_text(finding.get("where")),
        "message": _as_text(finding.get("message")),
        "fix": _as_text(finding.get("fix")),
    }


def _tools(snapshot: dict[str, Any]) -> list[dict[str, Any]]:
    return [tool for tool in snapshot.get("tools") or [] if isinstance(tool, dict)]


def _server_score_view(scorecard: dict[str, Any] | None) -> dict[str, Any] | None:
    roll_up = (scorecard or {}).get("server_score")
    if not isinstance(roll_up, dict):
        return None
    coherence = roll_up.get("coherence")
    coherence_rows = []
    if isinstance(coherence, dict):
        for key in sorted(coherence):
            entry = coherence[key]
            if isinstance(entry, dict):
                coherence_rows.append(
                    {
                        "label": _as_text(entry.get("label")) or key.replace("_", " ").capitalize(),
                        "score": entry.get("score"),
                        "justification": _as_text(entry.get("justification")),
                    }
                )
    shadowing = [
        {
            "tool": _as_text(item.get("tool")),
            "cheaper": _as_text(item.get("cheaperSibling") or item.get("cheaper_sibling")),
            "justification": _as_text(item.get("justification") or item.get("message")),
        }
        for item in roll_up.get("shadowing") or []
        if isinstance(item, dict)
    ]
    return {
        "overall": _score_number(roll_up.get("overall")),
        "tier": _tier_of(roll_up),
        "description_quality": _score_number(roll_up.get("description_quality")),
        "coherence": _score_number(roll_up.get("coherence_score")),
        "coherence_rows": coherence_rows,
        "shadowing": shadowing,
        "reasons": [_as_text(reason) for reason in roll_up.get("reasons") or []],
    }


def _overview(server: ServerData) -> dict[str, Any]:
    snapshot = server.snapshot
    info = snapshot.get("server") if isinstance(snapshot.get("server"), dict) else {}
    source = snapshot.get("source") if isinstance(snapshot.get("source"), dict) else {}
    capabilities = snapshot.get("capabilities") if isinstance(snapshot.get("capabilities"), dict) else {}
    return {
        "name": server.name,
        "recorded": bool(snapshot),
        "reported_name": _as_text(info.get("name")),
        "title": _as_text(info.get("title")),
        "version": server_version(snapshot) if snapshot else "",
        "protocol": _as_text(snapshot.get("protocolVersion")),
        "transport": _as_text(source.get("transport")),
        "capabilities": sorted(str(key) for key in capabilities),
        "instructions": _as_text(info.get("instructions")),
        "digest": _as_text(snapshot.get("digest")),
        "captured_at": _as_text(snapshot.get("capturedAt")),
        "captured": format_time(snapshot.get("capturedAt")),
        "counts": {
            "tools": len(_tools(snapshot)),
            "resources": len(snapshot.get("resources") or []),
            "resourceTemplates": len(snapshot.get("resourceTemplates") or []),
            "prompts": len(snapshot.get("prompts") or []),
        },
        "problems": [
            {key: _as_text(problem.get(key)) for key in ("code", "where", "message")}
            for problem in snapshot.get("problems") or []
            if isinstance(problem, dict)
        ],
    }


def _inspection_views(inspections: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "at": _as_text(item.get("at")),
            "when": format_time(item.get("at")),
            "ok": bool(item.get("ok")),
            "error": _as_text(item.get("error")),
            "version": _as_text(item.get("version")),
            "duration": f"{float(item['duration_s']):.2f} s"
            if _score_number(item.get("duration_s")) is not None
            else "",
        }
        for item in inspections
        if isinstance(item, dict)
    ]


def summary_row(server: ServerData, slug: str) -> dict[str, Any]:
    """One line of the index: what a visitor scans a directory for."""
    overview = _overview(server)
    roll_up = _server_score_view(server.scorecard)
    inspections = _inspection_views(server.inspections[:1])
    latest_changes = server.versions[-1]["changes"] if len(server.versions) > 1 else []
    return {
        "name": server.name,
        "slug": slug,
        "href": f"servers/{slug}/index.html",
        "title": overview["title"],
        "version": overview["version"],
        "tools": overview["counts"]["tools"],
        "overall": roll_up["overall"] if roll_up else None,
        "tier": roll_up["tier"] if roll_up else "",
        "tier_rank": _TIER_RANK.get(roll_up["tier"], len(TIERS)) if roll_up else len(TIERS),
        "last": inspections[0] if inspections else None,
        "change_level": _top_level(latest_changes) or ("none" if len(server.versions) > 1 else ""),
        "recorded": bool(server.versions),
        "version_count": len(server.versions),
        **_listing_columns(server),
    }


# ---------------------------------------------------------------- chart


def score_chart(overall_scores: Iterable[float | None]) -> dict[str, Any]:
    """Bars of servers per half-point of overall score (1.0–5.0), plus the unscored count."""
    bins = [{"low": 1.0 + step / 2, "count": 0} for step in range(8)]
    unscored = 0
    for score in overall_scores:
        if score is None:
            unscored += 1
            continue
        index = min(max(int((score - 1.0) * 2), 0), len(bins) - 1)
        bins[index]["count"] += 1
    peak = max([b["count"] for b in bins] + [1])
    width, height, left, bottom, bar = 480, 200, 36, 28, 48
    plot = height - bottom - 16
    for index, entry in enumerate(bins):
        entry["label"] = f"{entry['low']:.1f}"
        entry["tier"] = _tier_for(entry["low"])
        entry["x"] = left + index * (bar + 6)
        entry["h"] = round(plot * entry["count"] / peak)
        entry["y"] = height - bottom - entry["h"]
    return {
        "bins": bins,
        "unscored": unscored,
        "width": width,
        "height": height,
        "bar": bar,
        "left": left,
        "base": height - bottom,
        "total": sum(b["count"] for b in bins),
    }


def _tier_for(score: float) -> str:
    return (
        "A"
        if score >= 3.5
        else "B"
        if score >= 3.0
        else "C"
        if score >= 2.0
        else "D"
        if score >= 1.0
        else "F"
    )


# ---------------------------------------------------------------- pages


@cache
def _assets(template_dir: str | None) -> dict[str, Any]:
    """Inline CSS and script with their CSP hashes, so pages allow nothing else to run."""
    css = render("_site.css", template_dir)
    script = render("_site.js", template_dir)
    return {
        "css": Markup(css),  # our own stylesheet, not server data
        "script": Markup(script),  # our own script, not server data
        "csp": (
            "default-src 'none'; img-src data:; base-uri 'none'; form-action 'none'; "
            f"style-src '{_csp_hash(css)}'; script-src '{_csp_hash(script)}'"
        ),
    }


def _csp_hash(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def _with_parts(tools: list[dict[str, Any]], template_dir: str | None) -> list[dict[str, Any]]:
    """Render each tool's tables and scores once; its server page and tool page both show them."""
    macros = environment(template_dir).get_template("_macros.html.j2").module
    for tool in tools:
        tool["parts"] = {
            "tier": macros.tier_part(tool),
            "input": macros.input_part(tool),
            "output": macros.output_part(tool),
            "scores": macros.scores_part(tool) if tool["score"] else "",
            "findings": macros.findings_list(tool["findings"]) if tool["findings"] else "",
        }
    return tools


def _server_context(
    server: ServerData, tool_slugs: Sequence[str], template_dir: str | None
) -> dict[str, Any]:
    findings = (server.scorecard or {}).get("findings") or []
    return {
        "server": _overview(server),
        "roll_up": _server_score_view(server.scorecard),
        "tools": _with_parts(_tool_views(server, tool_slugs), template_dir),
        "server_findings": [_finding_view(f) for f in findings if isinstance(f, dict) and not f.get("tool")],
        "changelog": _changelog(server.versions, template_dir),
        "inspections": _inspection_views(server.inspections),
        "profile": server.profile,
        "listing": registry_listing(server),
        "context": _context_view(server.snapshot),
    }


def server_document(server: ServerData) -> dict[str, Any]:
    """The JSON published beside a server page: the raw data the page was rendered from."""
    return {
        "format": SITE_FORMAT,
        "server": server.name,
        "snapshot": server.snapshot,
        "scorecard": server.scorecard,
        "versions": list(server.versions),
        "inspections": list(server.inspections),
        "profile": server.profile,
        "contextCost": context_cost(server.snapshot) if server.snapshot else None,
        "registry": server.registry,
    }


def _compact_json(value: Any) -> str:
    return _COMPACT_JSON.encode(value)


def _json_bytes(text: str) -> bytes:
    return (text + "\n").encode("utf-8")


def _shared_parts(server: ServerData) -> tuple[dict[int, str], set[int]]:
    """Each tool and score card of ``server`` encoded once, by identity, and the dicts and lists holding them.

    Both are in the server's document and again in each tool's.
    """
    encoded: dict[int, str] = {}
    holders: set[int] = set()
    for container in (server.snapshot, server.scorecard):
        items = container.get("tools") if isinstance(container, dict) else None
        if isinstance(items, list):
            holders.update((id(container), id(items)))
            encoded.update((id(item), _compact_json(item)) for item in items)
    return encoded, holders


def _spliced_json(value: Any, encoded: Mapping[int, str], holders: set[int]) -> str:
    """``_compact_json(value)`` that takes the objects in ``encoded`` as already encoded.

    Only the ``holders`` are walked here, the way the C encoder would write them; any other
    value is handed to it whole.
    """
    if id(value) in encoded:
        return encoded[id(value)]
    if id(value) in holders:
        if isinstance(value, list):
            return "[" + ",".join(_spliced_json(item, encoded, holders) for item in value) + "]"
        if isinstance(value, dict) and all(type(key) is str for key in value):
            members = (
                f"{encode_basestring(key)}:{_spliced_json(value[key], encoded, holders)}"
                for key in sorted(value)
            )
            return "{" + ",".join(members) + "}"
    return _compact_json(value)


def render_server_report(server: ServerData, *, template_dir: str | None = None) -> str:
    """One self-contained HTML page for one server: every tool inline, no links out."""
    return render(
        "server.html.j2",
        template_dir,
        **_assets(template_dir),
        **_server_context(server, tool_slugs(server), template_dir),
        standalone=True,
        root="",
    )


def render_markdown(server: ServerData, *, template_dir: str | None = None) -> str:
    """The pull-request comment form of a server report."""
    context = _server_context(server, tool_slugs(server), template_dir)
    return render("report.md.j2", template_dir, md=escape_markdown, code=markdown_code, **context)


def escape_markdown(text: Any) -> str:
    """Server text made inert in Markdown: no HTML, no links, no table breaks, one line."""
    value = _as_text(text)
    value = re.sub(r"[\r\n]+", " ", value)
    value = value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return re.sub(r"([\\`*_{}\[\]()#+\-.!|~])", r"\\\1", value)


def markdown_code(text: Any) -> str:
    """``text`` as an inline code span that its own backticks cannot close."""
    value = re.sub(r"[\r\n]+", " ", _as_text(text)).replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", value)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if value.startswith("`") or value.endswith("`") or not value else ""
    return f"{fence}{pad}{value}{pad}{fence}"


def tool_slugs(server: ServerData) -> list[str]:
    """The file-name stems of a server's tool pages, in snapshot order."""
    return assign_slugs([_as_text(tool.get("name")) for tool in _tools(server.snapshot)], "tool")


def server_slugs(names: Iterable[str]) -> dict[str, str]:
    """Each server name's folder under ``servers/``; assigned over the sorted names, so stable."""
    ordered = sorted(set(names))
    return dict(zip(ordered, assign_slugs(ordered, "server"), strict=True))


def render_server_files(
    server: ServerData, slug: str, *, template_dir: str | None = None
) -> dict[str, bytes]:
    """One server's part of the site: its page, a page per tool, and the JSON beside each."""
    folder = f"servers/{slug}"
    slugs = tool_slugs(server)
    context = _server_context(server, slugs, template_dir)
    assets = _assets(template_dir)
    encoded, holders = _shared_parts(server)
    concerning = _changes_by_tool(server.versions)
    document = server_document(server)
    files = {
        f"{folder}/index.html": render(
            "server.html.j2", template_dir, **assets, **context, standalone=False, root="../../"
        ).encode("utf-8"),
        f"{folder}/index.json": _json_bytes(_spliced_json(document, encoded, {*holders, id(document)})),
    }
    views = _views_by_tool(context["changelog"])
    cards: dict[Any, dict[str, Any]] = {}
    for card in (server.scorecard or {}).get("tools") or []:
        if isinstance(card, dict):
            cards.setdefault(card.get("name"), card)
    changes: dict[Any, list[dict[str, Any]]] = {}
    for version in server.versions:
        for change in version.get("changes") or []:
            changes.setdefault(change.get("tool"), []).append({"version": version["label"], "change": change})
    for tool, view in zip(_tools(server.snapshot), context["tools"], strict=True):
        first, changed = _tool_timeline(concerning, view["name"])
        history = _history(server.versions, first, changed)
        page = render(
            "tool.html.j2",
            template_dir,
            **assets,
            **context,
            tool=view,
            tool_changelog=_tool_changelog(context["changelog"], views, view["name"], first),
            history=history,
            root="../../../",
        )
        files[f"{folder}/tools/{view['slug']}.html"] = page.encode("utf-8")
        name = tool.get("name")
        tool_document = _tool_document(server, tool, history, cards.get(name), changes.get(name, []))
        files[f"{folder}/tools/{view['slug']}.json"] = _json_bytes(
            _spliced_json(tool_document, encoded, {id(tool_document)})
        )
    return files


def render_index_files(
    rows: Sequence[dict[str, Any]], *, template_dir: str | None = None
) -> dict[str, bytes]:
    """``index.html`` and ``index.json`` from the servers' ``summary_row``s."""
    # Case-insensitively, as a reader scans a list (awslabs between Asana and Context7); ties by case.
    rows = sorted(rows, key=lambda row: (row["name"].casefold(), row["name"]))
    html = render(
        "index.html.j2",
        template_dir,
        **_assets(template_dir),
        rows=rows,
        chart=score_chart(row["overall"] for row in rows),
        root="",
    )
    index = [{key: value for key, value in row.items() if key != "tier_rank"} for row in rows]
    return {
        "index.html": html.encode("utf-8"),
        "index.json": _json_bytes(_compact_json({"format": SITE_FORMAT, "servers": index})),
    }


class SiteFiles(Mapping[str, bytes]):
    """The files of a static site, each server's rendered when one of its files is first read.

    Keys are relative POSIX paths made only of our slugs, iterated in sorted order; reading them in
    order renders each server once, and only one server's files are held at a time.
    """

    def __init__(self, servers: Iterable[ServerData], template_dir: str | None = None) -> None:
        self._template_dir = template_dir
        self._servers = sorted(servers, key=lambda server: server.name)
        self._slugs = server_slugs(server.name for server in self._servers)
        self._owner: dict[str, int] = {"index.html": -1, "index.json": -1}
        for position, server in enumerate(self._servers):
            folder = f"servers/{self._slugs[server.name]}"
            for name in ("index.html", "index.json"):
                self._owner[f"{folder}/{name}"] = position
            for slug in tool_slugs(server):
                self._owner[f"{folder}/tools/{slug}.html"] = position
                self._owner[f"{folder}/tools/{slug}.json"] = position
        self._keys = sorted(self._owner)
        self._index: dict[str, bytes] | None = None
        self._current: tuple[int, dict[str, bytes]] = (-2, {})

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __contains__(self, path: object) -> bool:
        return path in self._owner

    def __getitem__(self, path: str) -> bytes:
        position = self._owner[path]
        if position < 0:
            if self._index is None:
                rows = [summary_row(server, self._slugs[server.name]) for server in self._servers]
                self._index = render_index_files(rows, template_dir=self._template_dir)
            return self._index[path]
        if self._current[0] != position:
            server = self._servers[position]
            files = render_server_files(server, self._slugs[server.name], template_dir=self._template_dir)
            self._current = (position, files)
        return self._current[1][path]


def render_site(servers: Iterable[ServerData], *, template_dir: str | None = None) -> SiteFiles:
    """The whole directory: ``index.html``, a page per server and per tool, JSON beside each.

    A mapping of relative path to bytes, rendered lazily. ``mcpdex report`` instead calls
    ``render_server_files`` per server (in worker processes) and ``render_index_files`` once.
    """
    return SiteFiles(servers, template_dir)


def site_manifest(paths: Iterable[str]) -> bytes:
    """The manifest of a rendered site: its files' relative paths, sorted."""
    return (
        json.dumps({"format": MANIFEST_FORMAT, "files": sorted(set(paths))}, indent=2, ensure_ascii=False)
        + "\n"
    ).encode("utf-8")


def stale_paths(manifest: bytes, produced: Iterable[str]) -> list[str]:
    """Files a previous render listed in ``manifest`` that this render no longer produces, sorted.

    Only relative paths without ``..`` or empty parts qualify, so a hand-edited manifest can never
    name anything outside the site folder, nor the manifest itself.
    """
    try:
        document = json.loads(manifest)
        listed = document["files"] if document.get("format") == MANIFEST_FORMAT else None
    except (ValueError, AttributeError, KeyError):
        listed = None
    if not isinstance(listed, list):
        raise UsageError(
            f"{MANIFEST_NAME} in the site folder is not an mcpdex manifest; "
            "delete it and render again (files of removed servers then stay until you delete them)"
        )
    keep = set(produced) | {MANIFEST_NAME}
    return sorted(
        {
            path
            for path in listed
            if isinstance(path, str)
            and path not in keep
            and not path.startswith("/")
            and "\\" not in path
            and all(part not in ("", ".", "..") for part in path.split("/"))
        }
    )


def _tool_document(
    server: ServerData,
    tool: dict[str, Any],
    history: dict[str, Any],
    score: dict[str, Any] | None,
    changes: list[dict[str, Any]],
) -> dict[str, Any]:
    """A tool page's JSON: its definition, its scorecard entry and every change to it, by version."""
    return {
        "format": SITE_FORMAT,
        "server": server.name,
        "version": server_version(server.snapshot),
        "tool": tool,
        "score": score,
        "history": history,
        "changes": changes,
    }


# ---------------------------------------------------------------- official registry and context cost


def _context_view(snapshot: dict[str, Any]) -> dict[str, Any] | None:
    """The context cost of the page's version, its tools largest first."""
    if not snapshot:
        return None
    cost = context_cost(snapshot)
    largest = max((tool["tokens"] for tool in cost["tools"]), default=0) or 1
    return {
        **cost,
        "tools": [
            {**tool, "share": round(100 * tool["tokens"] / largest)}
            for tool in sorted(cost["tools"], key=lambda tool: (-tool["tokens"], tool["name"]))
        ],
    }


def _transports(server: ServerData) -> list[str]:
    """``local`` and/or ``remote``: from the registry's listing, else from how it was inspected."""
    from registry.inspecting.official.snippets import transports_of

    if server.registry:
        return transports_of(server.registry[-1].get("server") or {})
    source = server.snapshot.get("source") if isinstance(server.snapshot.get("source"), dict) else {}
    transport = source.get("transport")
    if transport == "stdio":
        return ["local"]
    return ["remote"] if transport in ("streamable-http", "sse") else []


def _listing_columns(server: ServerData) -> dict[str, Any]:
    """The index columns for context cost and transport, and the registry status when not active."""
    cost = context_cost(server.snapshot) if server.snapshot else None
    latest = server.registry[-1] if server.registry else None
    return {
        "context_tokens": cost["tokens"] if cost else None,
        "context_exact": cost["exact"] if cost else True,
        "transports": _transports(server),
        "registry_status": latest.get("status") if latest else None,
    }


def _https(url: Any) -> str:
    """``url`` when it is an http(s) URL (the only kind a page links to), else empty."""
    return url if isinstance(url, str) and url.startswith(("https://", "http://")) else ""


_PACKAGE_FIELDS = ("registryType", "identifier", "version", "runtimeHint")
_LISTING_FIELDS = ("version", "status", "status_message", "outcome", "reason")


def registry_listing(server: ServerData) -> dict[str, Any] | None:
    """What the official registry says about the server: metadata of the listing that matches the
    page's version (else the newest), each version's status, and install snippets."""
    from registry.inspecting.official.snippets import install_snippets

    if not server.registry:
        return None
    version = server_version(server.snapshot) if server.snapshot else None
    current = next((e for e in server.registry if e.get("version") == version), server.registry[-1])
    document = current.get("server") if isinstance(current.get("server"), dict) else {}
    repository = document.get("repository") if isinstance(document.get("repository"), dict) else {}
    packages = [p for p in document.get("packages") or [] if isinstance(p, dict)]
    remotes = [r for r in document.get("remotes") or [] if isinstance(r, dict)]
    return {
        "title": _as_text(document.get("title")),
        "description": _as_text(document.get("description")),
        "version": _as_text(current.get("version")),
        "status": _as_text(current.get("status")),
        "status_message": _as_text(current.get("status_message")),
        "published": format_date(current.get("published_at")),
        "website": _https(document.get("websiteUrl")),
        "repository": _https(repository.get("url")),
        "subfolder": _as_text(repository.get("subfolder")),
        "icons": [
            {
                "src": _https(icon.get("src")),
                "sizes": " ".join(map(str, icon.get("sizes") or [])),
                "theme": _as_text(icon.get("theme")),
            }
            for icon in document.get("icons") or []
            if isinstance(icon, dict) and _https(icon.get("src"))
        ],
        "packages": [
            {key: _as_text(package.get(key)) for key in _PACKAGE_FIELDS}
            | {"transport": _as_text((package.get("transport") or {}).get("type") or "stdio")}
            for package in packages
        ],
        "remotes": [{"type": _as_text(r.get("type")), "url": _as_text(r.get("url"))} for r in remotes],
        "snippets": install_snippets(document),
        "versions": [
            {key: _as_text(entry.get(key)) for key in _LISTING_FIELDS} for entry in reversed(server.registry)
        ],
    }
