"""Score one tool or a whole snapshot into the Scorecard (format ``mcpdex.scorecard/1``)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
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
    repeats_title,
    score_dimensions,
)
from scoring.language import text_facts
from scoring.mapping import Mapping, shipped_mapping
from scoring.reading import SentenceModel, shipped_model
from scoring.server import Confusable, confusable_pairs, roll_up
from scoring.signals import ContextSignals, context_signals, properties_of, tool_title
from scoring.structure import structure_dimensions
from scoring.tool_reading import ToolReading, read_tool
from scoring.toolset import Siblings, ToolNames, name_verb
from scoring.words import VERB_KIND, is_supported_language

SCORECARD_FORMAT = "mcpdex.scorecard/1"
_LEVEL_ORDER = {"error": 0, "warning": 1, "info": 2}


def _dimension_entries(results: dict[str, tuple[int, str]]) -> dict[str, dict[str, Any]]:
    return {
        key: {"score": score, "question": QUESTIONS[key], "justification": text, "label": DIMENSIONS[key][2]}
        for key, (score, text) in results.items()
    }


@dataclass(frozen=True)
class Models:
    """The learned parts a scorer runs with: the shipped ones unless a calibration run fits others."""

    sentences: SentenceModel
    mapping: Mapping

    @classmethod
    def shipped(cls) -> Models:
        return cls(shipped_model(), shipped_mapping())


def _read(tool: dict[str, Any], siblings: Siblings, models: Models) -> tuple[ToolReading, ContextSignals]:
    signals = context_signals(tool)
    name = str(tool.get("name") or "")
    params = properties_of(tool.get("inputSchema"))
    return read_tool(name, _description(tool), params, signals, siblings, models.sentences), signals


def _sentences(reading: ToolReading, supported: bool) -> list[dict[str, Any]]:
    """Every unit of the description with what the model read in it, in text order; units set aside
    before reading say why, and a description in another language is cut into units but not labelled."""
    read = [
        {
            "start": unit.unit.start,
            "end": unit.unit.end,
            "text": unit.text,
            "labels": list(unit.labels) if supported else [],
            "specific": unit.specific and supported,
        }
        for unit in reading.units
    ]
    aside = [
        {
            "start": unit.start,
            "end": unit.end,
            "text": unit.text,
            "labels": [],
            "specific": False,
            "set_aside": why,
        }
        for why, units in (
            ("assertive, promotional or a false claim", reading.set_aside),
            ("repeated", reading.repeated),
        )
        for unit in units
    ]
    return sorted(read + aside, key=lambda entry: entry["start"])


def _likeliest(siblings: Siblings, reading: ToolReading) -> str | None:
    """The sibling whose name acts on the same thing in the same kind of way, if any: the one an agent
    would most likely take this tool for (``get_issue`` for ``list_issues``; never ``delete_issue`` for
    ``create_issue``)."""
    other = siblings.alternative()
    if other is None:
        return None
    verb, _ = name_verb(other)
    kind = VERB_KIND[verb] if verb else None
    return other if kind is not None and kind == reading.action else None


def _score_one(
    tool: dict[str, Any],
    reading: ToolReading,
    signals: ContextSignals,
    confusable: tuple[str, ...],
    siblings: Siblings,
    server_names: frozenset[str],
    known: frozenset[str],
    mapping: Mapping,
) -> dict[str, Any]:
    name = str(tool.get("name") or "")
    title = tool_title(tool)
    description = _description(tool)
    params = properties_of(tool.get("inputSchema"))
    supported = is_supported_language(description)
    schema_lints = lints.schema_findings(tool)
    flags: list[str] = []
    contradiction = None
    false_claim = reading.false_claim if supported else None
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
            title=title,
            signals=signals,
            reading=reading,
            params=params,
            confusable=confusable,
            likeliest=_likeliest(siblings, reading),
            # Boilerplate around a restated name does not hide the restatement.
            tautological=is_tautological(
                " ".join(u.text for u in reading.units if u.specific) or description, name
            ),
            false_claim=false_claim,
            schema_problem=_input_schema_problem(schema_lints),
            mapping=mapping,
        )
        view.contradiction = annotation_contradiction(view, reading.safety_claim) if supported else None
        contradiction = view.contradiction
        if view.tautological:
            flags.append("Tautological Description")
        if contradiction:
            flags.append("Annotation Contradiction")
        if not supported:
            flags.append("Unsupported Language")
        if false_claim:
            flags.append("False Safety Claim")
        results = score_dimensions(view) if supported else structure_dimensions(view)
        if repeats_title(description, title) and not view.tautological:
            score, text = results["purpose"]
            results["purpose"] = (
                score,
                text + " The description repeats the title, which clients show beside it.",
            )
    scores = {key: score for key, (score, _) in results.items()}
    total = tdqs(scores)
    destructive = signals["annotationValues"]["destructive"] is True or reading.action == "delete"
    warned = (
        not destructive
        or bool(reading.saying("side_effect"))
        or REVERSIBILITY.search(description) is not None
    )
    analysis = text_facts(description, reading)
    findings = (
        lints.description_findings(tool, flags, contradiction, warned or not supported, false_claim)
        + lints.security_findings(tool, analysis, server_names, known)
        + schema_lints
        + lints.naming_findings(tool)
    )
    return {
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
        "sentences": _sentences(reading, supported),
        "findings": sorted(findings, key=_finding_order),
    }


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
    models = Models.shipped()
    reading, signals = _read(tool, names.siblings_of(name), models)
    known = lints.known_words([tool])
    siblings_of = names.siblings_of(name)
    return _score_one(tool, reading, signals, (), siblings_of, frozenset(names.names), known, models.mapping)


def score_snapshot(snapshot: dict[str, Any], models: Models | None = None) -> dict[str, Any]:
    """The full Scorecard of a snapshot: every tool, the server roll-up and all findings. ``models``
    replaces the shipped learned parts (a calibration run scores each fold with models fitted without
    it)."""
    models = models or Models.shipped()
    tools = [tool for tool in snapshot.get("tools") or [] if isinstance(tool, dict)]
    names = [str(tool.get("name") or "") for tool in tools]
    server_names = frozenset(names)
    unique = {name: tool for name, tool in zip(names, tools, strict=True)}  # the last of a duplicate name
    index = ToolNames(unique, {name: _description(tool) for name, tool in unique.items()})
    known = lints.known_words(tools)
    read = [_read(tool, index.siblings_of(name), models) for tool, name in zip(tools, names, strict=True)]
    readings: dict[str, ToolReading] = {}
    signals: dict[str, ContextSignals] = {}
    for name, (reading, tool_signals) in zip(names, read, strict=True):
        readings.setdefault(name, reading)
        signals.setdefault(name, tool_signals)
    pairs: Confusable = confusable_pairs(list(unique.values()), readings, index)
    cards = [
        _score_one(
            tool,
            reading,
            tool_signals,
            pairs.of(name),
            index.siblings_of(name),
            server_names,
            known,
            models.mapping,
        )
        for tool, name, (reading, tool_signals) in zip(tools, names, read, strict=True)
    ]
    server_score = roll_up(list(unique.values()), cards, readings, signals, index, pairs)
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
    package = Path(__file__).resolve().parent
    for path in sorted([*package.glob("*.py"), *package.glob("model/*.json")]):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes())
    try:
        version = metadata.version("mcpdex")
    except metadata.PackageNotFoundError:
        version = "0"
    return f"mcpdex {version}+{digest.hexdigest()[:16]}"
