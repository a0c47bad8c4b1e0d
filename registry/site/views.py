"""The view models of the server and tool pages and of the index row: plain data from the store,
diff and scorer turned into what the templates print.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from registry.core.snapshot import server_version
from registry.core.templating import environment
from registry.diffing.context_cost import context_cost
from registry.diffing.rules import LEVEL_RANK
from registry.site.encoding import pretty_json
from registry.site.listing import context_view, listing_columns, memory_columns, registry_listing
from registry.site.model import SITE_FORMAT, ServerData, as_dict, tools_of
from registry.site.schema_rows import schema_rows
from registry.site.text import as_text, format_time
from registry.site.timeline import changelog_entries, top_level
from scoring.arithmetic import DIMENSION_LABELS, TIER_LETTERS

# Annotation hints shown as badges when a tool declares them true.
ANNOTATION_BADGES: tuple[tuple[str, str], ...] = (
    ("readOnlyHint", "Read-only"),
    ("destructiveHint", "Destructive"),
    ("idempotentHint", "Idempotent"),
    ("openWorldHint", "Open-world"),
)


def server_context(server: ServerData, tool_slugs: Sequence[str], template_dir: str | None) -> dict[str, Any]:
    """What the server page, tool pages and reports of ``server`` all render from."""
    findings = (server.scorecard or {}).get("findings") or []
    return {
        "server": _overview(server),
        "roll_up": _server_score_view(server.scorecard),
        "tools": _with_parts(_tool_views(server, tool_slugs), template_dir),
        "server_findings": [_finding_view(f) for f in findings if isinstance(f, dict) and not f.get("tool")],
        "changelog": changelog_entries(server.versions, template_dir),
        "inspections": _inspection_views(server.inspections),
        "profile": server.profile,
        "listing": registry_listing(server),
        "context": context_view(server.snapshot),
    }


def _with_parts(tools: list[dict[str, Any]], template_dir: str | None) -> list[dict[str, Any]]:
    """Render each tool's tables and scores once; its server page and tool page both show them."""
    # Any: a template module's attributes are its macros, which no type describes.
    macros: Any = environment(template_dir).get_template("_macros.html.j2").module
    for tool in tools:
        tool["parts"] = {
            "tier": macros.tier_part(tool),
            "input": macros.input_part(tool),
            "output": macros.output_part(tool),
            "scores": macros.scores_part(tool) if tool["score"] else "",
            "findings": macros.findings_list(tool["findings"]) if tool["findings"] else "",
        }
    return tools


def _tool_views(server: ServerData, slugs: Sequence[str]) -> list[dict[str, Any]]:
    cards: dict[str, dict[str, Any]] = {}
    for card in (server.scorecard or {}).get("tools") or []:
        if isinstance(card, dict) and isinstance(card.get("name"), str):
            cards.setdefault(card["name"], card)
    views = []
    for tool, slug in zip(tools_of(server.snapshot), slugs, strict=True):
        name = as_text(tool.get("name"))
        card = cards.get(name)
        findings = [f for f in (card or {}).get("findings") or [] if isinstance(f, dict)]
        views.append(
            {
                "name": name,
                "slug": slug,
                "title": as_text(tool.get("title") or (tool.get("annotations") or {}).get("title")),
                "description": as_text(tool.get("description")),
                "badges": _badges(tool),
                "input_rows": schema_rows(tool.get("inputSchema")),
                "output_rows": schema_rows(tool.get("outputSchema")),
                "has_output": isinstance(tool.get("outputSchema"), dict),
                "input_json": pretty_json(tool.get("inputSchema")),
                "output_json": pretty_json(tool.get("outputSchema")),
                "score": {
                    "total": _score_number(card.get("total")),
                    "tier": _tier_of(card),
                    "smells": [DIMENSION_LABELS.get(s, as_text(s)) for s in card.get("smells") or []],
                    "flags": [as_text(s) for s in card.get("flags") or []],
                    "dimensions": _dimension_rows(card),
                }
                if card
                else None,
                "findings": [_finding_view(f) for f in findings],
            }
        )
    return views


def _dimension_rows(tool_card: dict[str, Any] | None) -> list[dict[str, Any]]:
    dimensions = (tool_card or {}).get("dimensions") or {}
    rows = []
    for key, label in DIMENSION_LABELS.items():
        entry = dimensions.get(key)
        if isinstance(entry, dict):
            rows.append(
                {
                    "key": key,
                    "label": label,
                    "score": entry.get("score"),
                    "question": as_text(entry.get("question")),
                    "justification": as_text(entry.get("justification")),
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
    return value if isinstance(value, str) and value in TIER_LETTERS else ""


def _finding_view(finding: dict[str, Any]) -> dict[str, Any]:
    return {
        "rule": as_text(finding.get("rule")),
        "level": as_text(finding.get("level")),
        "tool": as_text(finding.get("tool")),
        "where": as_text(finding.get("where")),
        "message": as_text(finding.get("message")),
        "fix": as_text(finding.get("fix")),
    }


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
                        "label": as_text(entry.get("label")) or key.replace("_", " ").capitalize(),
                        "score": entry.get("score"),
                        "justification": as_text(entry.get("justification")),
                    }
                )
    shadowing = [
        {
            "tool": as_text(item.get("tool")),
            "cheaper": as_text(item.get("cheaperSibling") or item.get("cheaper_sibling")),
            "justification": as_text(item.get("justification") or item.get("message")),
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
        "reasons": [as_text(reason) for reason in roll_up.get("reasons") or []],
    }


def _overview(server: ServerData) -> dict[str, Any]:
    snapshot = server.snapshot
    info = as_dict(snapshot.get("server"))
    source = as_dict(snapshot.get("source"))
    capabilities = as_dict(snapshot.get("capabilities"))
    return {
        "name": server.name,
        "recorded": bool(snapshot),
        "reported_name": as_text(info.get("name")),
        "title": as_text(info.get("title")),
        "description": as_text(info.get("description")),
        "website": as_text(info.get("websiteUrl")),
        "version": server_version(snapshot) if snapshot else "",
        "protocol": as_text(snapshot.get("protocolVersion")),
        "transport": as_text(source.get("transport")),
        "capabilities": sorted(str(key) for key in capabilities),
        "instructions": as_text(info.get("instructions")),
        "digest": as_text(snapshot.get("digest")),
        "captured_at": as_text(snapshot.get("capturedAt")),
        "captured": format_time(snapshot.get("capturedAt")),
        "counts": {
            "tools": len(tools_of(snapshot)),
            "resources": len(snapshot.get("resources") or []),
            "resourceTemplates": len(snapshot.get("resourceTemplates") or []),
            "prompts": len(snapshot.get("prompts") or []),
        },
        "problems": [
            {key: as_text(problem.get(key)) for key in ("code", "where", "message")}
            for problem in snapshot.get("problems") or []
            if isinstance(problem, dict)
        ],
    }


def _inspection_views(inspections: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "at": as_text(item.get("at")),
            "when": format_time(item.get("at")),
            "ok": bool(item.get("ok")),
            "error": as_text(item.get("error")),
            "version": as_text(item.get("version")),
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
    tier = roll_up["tier"] if roll_up else ""
    change_level = top_level(latest_changes) or ("none" if len(server.versions) > 1 else "")
    return {
        "name": server.name,
        "slug": slug,
        "href": f"servers/{slug}/index.html",
        "title": overview["title"],
        "version": overview["version"],
        "tools": overview["counts"]["tools"],
        "overall": roll_up["overall"] if roll_up else None,
        "tier": tier,
        # The index sorts its tier column by this: A first, unscored last.
        "tier_rank": TIER_LETTERS.index(tier) if tier else len(TIER_LETTERS),
        "last": inspections[0] if inspections else None,
        "change_level": change_level,
        # The index sorts its latest-change column by this: most severe first, then no schema
        # change (0), then a first version or none recorded (-1).
        "change_rank": LEVEL_RANK[change_level] + 1
        if change_level in LEVEL_RANK
        else {"none": 0}.get(change_level, -1),
        "recorded": bool(server.versions),
        "version_count": len(server.versions),
        **listing_columns(server),
        "memory": memory_columns(server),
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


def tool_document(
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
