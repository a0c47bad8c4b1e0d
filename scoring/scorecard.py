"""Score one tool or a whole snapshot into the Scorecard (format ``mcpdex.scorecard/1``)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

from scoring import lints
from scoring.arithmetic import DIMENSIONS, tdqs, tier, tool_hundredths
from scoring.cues import REVERSIBILITY
from scoring.dimensions import (
    QUESTIONS,
    ToolView,
    annotation_contradiction,
    is_tautological,
    score_dimensions,
)
from scoring.language import Analysis, analyze
from scoring.server import roll_up
from scoring.signals import ContextSignals, context_signals, properties_of, tool_title
from scoring.structure import structure_dimensions
from scoring.toolset import Siblings, ToolNames

SCORECARD_FORMAT = "mcpdex.scorecard/1"
_LEVEL_ORDER = {"error": 0, "warning": 1, "info": 2}


def _dimension_entries(results: dict[str, tuple[int, str]]) -> dict[str, dict[str, Any]]:
    return {
        key: {"score": score, "question": QUESTIONS[key], "justification": text, "label": DIMENSIONS[key][2]}
        for key, (score, text) in results.items()
    }


def _score_one(
    tool: dict[str, Any], siblings: Siblings, server_names: frozenset[str], known: frozenset[str]
) -> tuple[dict[str, Any], Analysis]:
    name = str(tool.get("name") or "")
    title = tool_title(tool)
    signals = context_signals(tool)
    description = _description(tool)
    params = properties_of(tool.get("inputSchema"))
    analysis = analyze(
        description, name=name, siblings=siblings, params=params, server_vocabulary=siblings.vocabulary
    )
    schema_lints = lints.schema_findings(tool)
    flags: list[str] = []
    contradiction = None
    if not description.strip():
        flags.append("No Description")
        results = {
            key: (
                1,
                "No description: every dimension is 1. Write one to three sentences saying what "
                "the tool does, when to use it and what it changes or returns.",
            )
            for key in DIMENSIONS
        }
    else:
        view = ToolView(
            name=name,
            description=description,
            signals=signals,
            analysis=analysis,
            siblings=siblings,
            params=params,
            # Boilerplate around a restated name does not hide the restatement.
            tautological=is_tautological(" ".join(analysis.sentences) or description, name, title),
            schema_problem=_input_schema_problem(schema_lints),
        )
        view.contradiction = annotation_contradiction(view) if analysis.supported else None
        contradiction = view.contradiction
        if view.tautological:
            flags.append("Tautological Description")
        if contradiction:
            flags.append("Annotation Contradiction")
        if not analysis.supported:
            flags.append("Unsupported Language")
        if analysis.false_claim:
            flags.append("False Safety Claim")
        results = score_dimensions(view) if analysis.supported else structure_dimensions(view)
    scores = {key: score for key, (score, _) in results.items()}
    total = tdqs(scores)
    destructive = signals["annotationValues"]["destructive"] is True or analysis.verb_kind == "delete"
    warned = (
        not destructive
        or bool({"destruction", "idempotence"} & analysis.disclosures.keys())
        or REVERSIBILITY.search(analysis.text) is not None
    )
    findings = (
        lints.description_findings(
            tool, flags, contradiction, warned or not analysis.supported, analysis.false_claim
        )
        + lints.security_findings(tool, analysis, server_names, known)
        + schema_lints
        + lints.naming_findings(tool)
    )
    card = {
        "name": name,
        "title": title,
        "dimensions": _dimension_entries(results),
        "hundredths": tool_hundredths(scores),
        "total": total,
        "tier": tier(total),
        "smells": [key for key, score in scores.items() if score < 3],
        "flags": flags,
        "server_flags": [],
        "signals": signals,
        "findings": sorted(findings, key=_finding_order),
    }
    return card, analysis


# The lints whose finding on the input schema means the tool declares no usable parameters.
_UNUSABLE_INPUT_SCHEMA = frozenset(["input-schema-not-object", "schema-invalid"])


def _input_schema_problem(findings: list[dict[str, Any]]) -> str | None:
    """What makes the input schema unusable (missing, not an object, invalid JSON Schema), or None."""
    for item in findings:
        if item["rule"] in _UNUSABLE_INPUT_SCHEMA and item["where"] == "Input schema":
            return str(item["message"])
    return None


def invalid_input_schema(card: dict[str, Any]) -> str | None:
    """What made a scored tool's input schema unusable, from its Scorecard entry, or None."""
    return _input_schema_problem(card["findings"])


def _description(tool: dict[str, Any]) -> str:
    return tool["description"] if isinstance(tool.get("description"), str) else ""


def _finding_order(item: dict[str, Any]) -> tuple[int, str, str, str]:
    return _LEVEL_ORDER[item["level"]], item["tool"] or "", item["rule"], item["where"]


def score_tool(tool: dict[str, Any], siblings: Sequence[str] = ()) -> dict[str, Any]:
    """The Scorecard entry of one tool definition (as sent on the wire) among sibling tool names."""
    name = str(tool.get("name") or "")
    names = ToolNames((*siblings, name))
    card, _ = _score_one(tool, names.siblings_of(name), frozenset(names.names), lints.known_words([tool]))
    return card


def score_snapshot(snapshot: dict[str, Any]) -> dict[str, Any]:
    """The full Scorecard of a snapshot: every tool, the server roll-up and all findings."""
    tools = [tool for tool in snapshot.get("tools") or [] if isinstance(tool, dict)]
    names = [str(tool.get("name") or "") for tool in tools]
    server_names = frozenset(names)
    unique = {name: tool for name, tool in zip(names, tools, strict=True)}  # the last of a duplicate name
    index = ToolNames(unique, {name: _description(tool) for name, tool in unique.items()})
    known = lints.known_words(tools)
    cards: list[dict[str, Any]] = []
    analyses: dict[str, Analysis] = {}
    signals: dict[str, ContextSignals] = {}
    for tool, name in zip(tools, names, strict=True):
        card, analysis = _score_one(tool, index.siblings_of(name), server_names, known)
        cards.append(card)
        analyses.setdefault(name, analysis)
        signals.setdefault(name, card["signals"])
    server_score = roll_up(list(unique.values()), cards, analyses, signals, index)
    at_risk = {risk["tool"] for risk in server_score["shadowing"]}
    for card in cards:
        if card["name"] in at_risk:
            card["server_flags"].append("Shadowing Risk")
    findings = [item for card in cards for item in card["findings"]] + lints.server_findings(tools)
    server = snapshot.get("server") or {}
    return {
        "format": SCORECARD_FORMAT,
        "server": {
            "name": server.get("name"),
            "version": snapshot.get("versionLabel") or server.get("version"),
        },
        "digest": snapshot.get("digest"),
        "tools": cards,
        "server_score": server_score,
        "findings": sorted(findings, key=_finding_order),
    }


@cache
def scorer_key() -> str:
    """Names this scorer: ``mcpdex <version>+<hash of the scoring package's sources>``."""
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).resolve().parent.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    try:
        version = metadata.version("mcpdex")
    except metadata.PackageNotFoundError:
        version = "0"
    return f"mcpdex {version}+{digest.hexdigest()[:16]}"
