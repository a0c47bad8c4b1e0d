"""The CI gate's policy: judge a diff against ``--fail-on``, per-rule level overrides, accepted
changes listed by fingerprint with a reason in an ignore file, the semver check (a breaking change
needs a major bump; in 0.x the minor acts as major) and, when asked, the quality check (both sides
scored; a tool or the server falling a tier is a quality drop, which fails). Pure apart from
reading the ignore file; the report it returns is rendered by ``registry.gating.formats``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from common.canonical import canonical_json
from registry.core.errors import UsageError
from registry.core.snapshot import server_version
from registry.core.versions import semver_core
from registry.diffing.changes import Change, summarize, table_change
from registry.diffing.context_cost import context_growth_change
from registry.diffing.diff import diff_snapshots
from registry.diffing.rules import LEVELS, LINT, QUALITY, RULES_BY_ID, level_rank, rule

REPORT_FORMAT = "mcpdex.check/1"
OUTPUT_FORMATS = ("text", "json", "markdown", "github", "junit", "sarif")
DEFAULT_IGNORE_FILE = "mcpdex.ignore"
_FINGERPRINT = re.compile(r"^[0-9a-f]{12}$")


@dataclass(frozen=True)
class Accepted:
    """One line of the ignore file: a reviewed change, by fingerprint, and why it is accepted."""

    fingerprint: str
    reason: str
    line: int


def parse_ignore(text: str, origin: str = DEFAULT_IGNORE_FILE) -> list[Accepted]:
    """Lines ``<12-hex fingerprint> <reason>``; ``#`` starts a comment; blank lines are skipped."""
    entries: list[Accepted] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        print_, reason = [*line.split(None, 1), ""][:2]
        if not _FINGERPRINT.match(print_):
            raise UsageError(
                f"{origin}:{number}: {print_!r} is not a fingerprint; each line is a 12-hex fingerprint "
                "from `mcpdex check` output, a space, and the reason the change is accepted"
            )
        if not reason.strip():
            raise UsageError(
                f"{origin}:{number}: fingerprint {print_} has no reason; write why it is accepted"
            )
        entries.append(Accepted(print_, reason.strip(), number))
    return entries


def load_ignore(path: str | Path | None) -> list[Accepted]:
    """The accepted changes in ``path``; a missing default file means none."""
    if path is None:
        return []
    file = Path(path)
    try:
        return parse_ignore(file.read_text(encoding="utf-8"), origin=str(file))
    except FileNotFoundError:
        raise UsageError(f"{file}: no such ignore file; create it or drop --ignore") from None


def parse_severity(values: tuple[str, ...] | list[str]) -> dict[str, str | None]:
    """``RULE=LEVEL`` pairs (LEVEL breaking, warning, info or none) → overrides; none drops the rule."""
    overrides: dict[str, str | None] = {}
    for value in values:
        rule_id, found, level = value.partition("=")
        if not found or rule_id not in RULES_BY_ID:
            raise UsageError(f"--severity {value!r}: expected RULE=LEVEL with a rule id from `mcpdex rules`")
        if level not in (*LEVELS, "none"):
            raise UsageError(f"--severity {value!r}: LEVEL must be breaking, warning, info or none")
        overrides[rule_id] = None if level == "none" else level
    return overrides


def version_bump_change(
    old: dict[str, Any], new: dict[str, Any], changes: list[Change], level: str = "warning"
) -> Change | None:
    """The ``breaking-change-without-major-bump`` change, when breaking changes came without one.

    Semver only: in 0.x a minor bump counts as major; versions that do not parse are skipped.
    """
    breaking = sum(1 for change in changes if change["level"] == "breaking")
    before, after = server_version(old), server_version(new)
    old_version, new_version = semver_core(before), semver_core(after)
    if not breaking or old_version is None or new_version is None:
        return None
    if old_version[0] == 0 and new_version[0] == 0:
        bumped = new_version[1] > old_version[1]
    else:
        bumped = new_version[0] > old_version[0]
    if bumped:
        return None
    row = rule("breaking-change-without-major-bump")
    counted = f"{breaking} breaking change{'s' if breaking != 1 else ''}"
    if new_version < old_version:
        detail = f"went down and has {counted}"
    elif new_version == old_version:
        detail = f"is the same release number and has {counted}"
    else:
        detail = f"went up without a major version bump and has {counted}"
    return table_change(
        row.id,
        tool=None,
        path="/server/version",
        before=before,
        after=after,
        shown=(str(before), str(after)),
        detail=detail,
        key=f"{before}->{after}",
        level=level,
        where="Version",
    )


def _quality_change(
    rule_id: str,
    tool: str | None,
    path: str,
    before: dict[str, Any],
    after: dict[str, Any],
    score: str,
    detail: str,
) -> Change:
    """A quality rule's Change; ``before`` and ``after`` hold the tier and the ``score`` key shown with it."""
    return table_change(
        rule_id,
        tool=tool,
        path=path,
        before=before,
        after=after,
        shown=(f"{before['tier']} ({before[score]})", f"{after['tier']} ({after[score]})"),
        detail=detail,
        # The tier pair is in the fingerprint: accepting a drop from B to C does not accept a later one to D.
        key=f"{before['tier']}->{after['tier']}",
    )


def quality_changes(old: dict[str, Any], new: dict[str, Any]) -> list[Change]:
    """The quality drops from ``old`` to ``new``: each tool kept under its name, then the server roll-up.

    A tool that fell a TDQS tier is ``tool-quality-dropped``, one whose total fell within its tier
    ``tool-score-dropped``; the message names each dimension that fell with its new justification.
    """
    # Scores are a function of the tools alone, so the usual CI run, tools unchanged, scores nothing.
    if canonical_json(old.get("tools") or []) == canonical_json(new.get("tools") or []):
        return []
    # Imported here: scoring costs start-up that a schema-only diff does not need to pay.
    from scoring import score_snapshot
    from scoring.arithmetic import tier_rank
    from scoring.scorecard import invalid_input_schema

    old_card, new_card = score_snapshot(old), score_snapshot(new)
    old_tools = {card["name"]: card for card in old_card["tools"]}
    new_tools = {card["name"]: card for card in new_card["tools"]}
    changes: list[Change] = []
    for name in sorted(old_tools.keys() & new_tools.keys()):
        before, after = old_tools[name], new_tools[name]
        if after["total"] >= before["total"]:
            continue
        if invalid_input_schema(before) and not invalid_input_schema(after):
            continue  # scored against a schema that declared nothing: the diff reports the schema declared
        fell = tier_rank(after["tier"]) < tier_rank(before["tier"])
        detail = " ".join(
            f"{dimension['label']} {before['dimensions'][key]['score']} → {dimension['score']}: "
            f"{dimension['justification']}"
            for key, dimension in after["dimensions"].items()
            if dimension["score"] < before["dimensions"][key]["score"]
        )
        changes.append(
            _quality_change(
                "tool-quality-dropped" if fell else "tool-score-dropped",
                name,
                "/quality",
                {"tier": before["tier"], "total": before["total"]},
                {"tier": after["tier"], "total": after["total"]},
                "total",
                detail,
            )
        )
    before, after = old_card["server_score"], new_card["server_score"]
    if before["tier"] and after["tier"] and tier_rank(after["tier"]) < tier_rank(before["tier"]):
        changes.append(
            _quality_change(
                "server-quality-dropped",
                None,
                "/server/quality",
                {"tier": before["tier"], "overall": before["overall"]},
                {"tier": after["tier"], "overall": after["overall"]},
                "overall",
                " ".join(after["reasons"]),
            )
        )
    return changes


def _side(snapshot: dict[str, Any], origin: str) -> dict[str, Any]:
    server = snapshot.get("server") or {}
    return {
        "name": server.get("name"),
        "version": server_version(snapshot),
        "digest": snapshot.get("digest"),
        "origin": origin,
    }


def _at_severity(changes: Iterable[Change], severity: dict[str, str | None]) -> list[dict[str, Any]]:
    """``changes`` at their overridden levels; a rule overridden to none is dropped."""
    kept: list[dict[str, Any]] = []
    for change in changes:
        level = severity.get(change["rule"], change["level"])
        if level is not None:
            kept.append({**change, "level": level})
    return kept


def evaluate(
    old: dict[str, Any],
    new: dict[str, Any],
    *,
    fail_on: str | None = "breaking",
    accepted: Sequence[Accepted] = (),
    severity: dict[str, str | None] | None = None,
    bump_level: str | None = "warning",
    quality: bool = False,
    fail_on_lint: bool = True,
    old_origin: str = "baseline",
    new_origin: str = "current",
    foreign_tools: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """The report of diffing ``old`` → ``new`` under a policy; ``fail_on=None`` never fails (plain diff).

    ``quality`` scores both sides and adds their quality drops (``quality_changes``) and a growth of
    the tool list's context cost past the policy share (``context-cost-grew``). ``foreign_tools``
    are the tools other servers offer, for the cross-server-reference lint (``diff_snapshots``).
    ``fail_on_lint``: a change at the ``lint`` level (a text that newly trips a security lint) fails
    the gate whatever ``fail_on`` is (when it is not None). A change at the ``quality`` level fails it
    likewise: asking for ``quality`` is what gates on it.
    """
    severity = severity or {}
    changes = _at_severity(diff_snapshots(old, new, foreign_tools=foreign_tools), severity)
    if bump_level is not None:
        level = severity.get("breaking-change-without-major-bump", bump_level)
        bump = version_bump_change(old, new, changes, level) if level else None  # type: ignore[arg-type]
        if bump:
            changes.append(dict(bump))
    # After the bump: a quality drop, even one raised to breaking by --severity, asks for no major version.
    if quality:
        changes += _at_severity(quality_changes(old, new), severity)
        grew = context_growth_change(old, new)
        if grew is not None:
            changes += _at_severity([grew], severity)
    by_print = {entry.fingerprint: entry for entry in accepted}
    for change in changes:
        entry = by_print.get(change["fingerprint"])
        change["accepted"] = entry is not None
        change["reason"] = entry.reason if entry else None
        # a description lint and a quality drop are gated apart from schema breaks, not by fail_on's level
        if change["level"] == LINT:
            gated = fail_on_lint
        elif change["level"] == QUALITY:
            gated = True
        else:
            gated = level_rank(change["level"]) >= level_rank(fail_on or "info")
        change["fails"] = fail_on is not None and entry is None and gated
    used = {change["fingerprint"] for change in changes}
    failing = sum(1 for change in changes if change["fails"])
    return {
        "format": REPORT_FORMAT,
        "old": _side(old, old_origin),
        "new": _side(new, new_origin),
        "failOn": fail_on,
        "failOnLint": fail_on is not None and fail_on_lint,
        "failOnQuality": fail_on is not None and quality,
        "passed": failing == 0,
        "failing": failing,
        "counts": summarize(changes),  # type: ignore[arg-type]
        "accepted": sum(1 for change in changes if change["accepted"]),
        "staleIgnores": [
            {"fingerprint": e.fingerprint, "reason": e.reason, "line": e.line}
            for e in accepted
            if e.fingerprint not in used
        ],
        "changes": changes,
    }
