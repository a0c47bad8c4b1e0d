"""The CI gate: judge a diff against a policy and report it in the format a CI system reads.

Policy: ``--fail-on`` level, per-rule level overrides, accepted changes listed by fingerprint
with a reason in an ignore file, the semver check (a breaking change needs a major bump;
in 0.x the minor acts as major) and, when asked, the quality check (both sides scored; a tool
or the server falling a tier fails). Reports render as text, JSON, Markdown, GitHub workflow
annotations, JUnit XML and SARIF 2.1.0. Pure apart from reading the ignore file and appending
to ``$GITHUB_STEP_SUMMARY``.
"""

from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from registry.core.errors import UsageError
from registry.core.snapshot import canonical_json, server_version
from registry.core.textdiff import line_diff
from registry.core.versions import semver_core
from registry.diffing.context_cost import context_growth_change
from registry.diffing.diff import Change, diff_snapshots, fingerprint, summarize
from registry.diffing.rules import AREA_LABELS, LEVELS, RULES_BY_ID, TEXT_DIFF_RULES, level_rank, rule

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
    detail = f"{breaking} breaking change{'s' if breaking != 1 else ''}"
    return Change(
        rule=row.id,
        level=level,
        tool=None,
        area=row.area,
        path="/server/version",
        where="Version",
        before=before,
        after=after,
        message=row.message.format(before=before, after=after, detail=detail, tool="", subject=""),
        fingerprint=fingerprint(row.id, None, "/server/version", f"{before}->{after}"),
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
    row = rule(rule_id)
    shown = [f"{side['tier']} ({side[score]})" for side in (before, after)]
    return Change(
        rule=row.id,
        level=row.level,
        tool=tool,
        area=row.area,
        path=path,
        where=AREA_LABELS[row.area],
        before=before,
        after=after,
        message=row.message.format(
            before=shown[0], after=shown[1], detail=detail, tool=tool or "", subject=""
        ),
        # The tier pair is in the fingerprint: accepting a drop from B to C does not accept a later one to D.
        fingerprint=fingerprint(row.id, tool, path, f"{before['tier']}->{after['tier']}"),
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
    old_origin: str = "baseline",
    new_origin: str = "current",
) -> dict[str, Any]:
    """The report of diffing ``old`` → ``new`` under a policy; ``fail_on=None`` never fails (plain diff).

    ``quality`` scores both sides and adds their quality drops (``quality_changes``) and a growth of
    the tool list's context cost past the policy share (``context-cost-grew``).
    """
    severity = severity or {}
    changes = _at_severity(diff_snapshots(old, new), severity)
    if bump_level is not None:
        level = severity.get("breaking-change-without-major-bump", bump_level)
        bump = version_bump_change(old, new, changes, level) if level else None  # type: ignore[arg-type]
        if bump:
            changes.append(dict(bump))
    # After the bump: a quality drop is not a breaking change that asks for a major version.
    if quality:
        changes += _at_severity(quality_changes(old, new), severity)
        grew = context_growth_change(old, new)
        if grew is not None:
            changes += _at_severity([grew], severity)  # type: ignore[list-item]
    by_print = {entry.fingerprint: entry for entry in accepted}
    for change in changes:
        entry = by_print.get(change["fingerprint"])
        change["accepted"] = entry is not None
        change["reason"] = entry.reason if entry else None
        change["fails"] = (
            fail_on is not None and entry is None and level_rank(change["level"]) >= level_rank(fail_on)
        )
    used = {change["fingerprint"] for change in changes}
    failing = sum(1 for change in changes if change["fails"])
    return {
        "format": REPORT_FORMAT,
        "old": _side(old, old_origin),
        "new": _side(new, new_origin),
        "failOn": fail_on,
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


# ── renderers ────────────────────────────────────────────────────────────────────────────────

_TEXT_STYLE = {"breaking": {"fg": "red", "bold": True}, "warning": {"fg": "yellow"}, "info": {"fg": "green"}}


def changes_summary(report: dict[str, Any]) -> str:
    """``3 changes: 1 breaking, 1 warning, 1 info``, and how many were accepted."""
    counts = report["counts"]
    summary = (
        f"{counts['total']} change{'s' if counts['total'] != 1 else ''}: {counts['breaking']} breaking, "
        f"{counts['warning']} warning, {counts['info']} info"
    )
    if report["accepted"]:
        summary += f" ({report['accepted']} accepted)"
    return summary


def _verdict(report: dict[str, Any]) -> str:
    summary = changes_summary(report)
    if report["failOn"] is None:
        return summary
    if report["passed"]:
        return f"{summary}\nPASSED (--fail-on {report['failOn']})"
    limit = report.get("contextCost")
    if limit is not None and not limit["withinLimit"] and not report["failing"]:
        return f"{summary}\nFAILED: {limit['message']}."
    return (
        f"{summary}\nFAILED: {report['failing']} change{'s' if report['failing'] != 1 else ''} at or above "
        f"{report['failOn']} (--fail-on {report['failOn']}). Accept a reviewed change by adding its "
        f"fingerprint and a reason to {DEFAULT_IGNORE_FILE}, or rewrite the baseline with "
        "`mcpdex check --update`."
    )


def render_text(report: dict[str, Any], color: bool = False) -> str:
    """Plain text, coloured when ``color`` (on a terminal)."""

    def style(text: str, **kwargs: Any) -> str:
        return click.style(text, **kwargs) if color else text

    old, new = report["old"], report["new"]
    lines = [
        f"{old['name']} {old['version']} ({old['origin']}) → {new['name']} {new['version']} ({new['origin']})"
    ]
    for change in report["changes"]:
        tag = style(f"{change['level'].upper():<9}", **_TEXT_STYLE[change["level"]])
        status = f"  accepted: {change['reason']}" if change["accepted"] else ""
        lines.append(f"  {tag} {change['where']}{style(status, dim=True)}")
        lines.append(f"            {change['message']}")
        if change["rule"] in TEXT_DIFF_RULES:
            colour = {"-": "red", "+": "green"}
            lines += [
                style(f"            {mark} {line}".rstrip(), fg=colour.get(mark), dim=mark not in colour)
                for mark, line in line_diff(change["before"], change["after"])
            ]
        lines.append(style(f"            {change['rule']} · fingerprint {change['fingerprint']}", dim=True))
    for stale in report["staleIgnores"]:
        lines.append(
            style(
                f"  note: ignore entry {stale['fingerprint']} (line {stale['line']}) matches no "
                "change; remove it",
                dim=True,
            )
        )
    verdict = _verdict(report)
    if report["failOn"] is not None:
        head, _, tail = verdict.partition("\n")
        verdict = f"{head}\n{style(tail, fg='green' if report['passed'] else 'red', bold=True)}"
    lines.append(verdict)
    return "\n".join(lines) + "\n"


def render_json(report: dict[str, Any]) -> str:
    return json.dumps(report, indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def render_markdown(report: dict[str, Any]) -> str:
    """Markdown for a pull-request comment or the GitHub step summary."""
    # Imported here: Jinja2 costs start-up that the other formats, and `inspect`'s summary, do not need.
    from registry.core.templating import render

    return render("check.md.j2", report=report, verdict=_verdict(report), text_diff_rules=TEXT_DIFF_RULES)


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(report: dict[str, Any], file: str | None = None) -> str:
    """GitHub Actions workflow commands: one ``::error``/``::warning``/``::notice`` per change."""
    command = {"breaking": "error", "warning": "warning", "info": "notice"}
    lines = []
    for change in report["changes"]:
        if change["accepted"]:
            continue
        kind = "error" if change["fails"] else command[change["level"]]
        title = _escape_property(f"mcpdex {change['rule']} ({change['fingerprint']})")
        where = f"file={_escape_property(file)}," if file else ""
        lines.append(
            f"::{kind} {where}title={title}::{_escape_data(change['where'] + ': ' + change['message'])}"
        )
    lines.append(f"::notice title=mcpdex::{_escape_data(_verdict(report))}")
    return "\n".join(lines) + "\n"


def render_junit(report: dict[str, Any]) -> str:
    """JUnit XML: one test case per change (failed when it fails the gate), or one passing case."""
    suite = ET.Element("testsuite", name=f"mcpdex check {report['new']['name']}")
    cases = 0
    for change in report["changes"]:
        cases += 1
        case = ET.SubElement(
            suite,
            "testcase",
            classname=change["tool"] or "(server)",
            name=f"{change['rule']}: {change['where']}",
        )
        if change["fails"]:
            failure = ET.SubElement(case, "failure", type=change["rule"], message=change["message"])
            failure.text = f"{change['level']} · fingerprint {change['fingerprint']}"
        elif change["accepted"]:
            ET.SubElement(case, "skipped", message=f"accepted: {change['reason']}")
        else:
            ET.SubElement(case, "system-out").text = f"{change['level']}: {change['message']}"
    if not cases:
        ET.SubElement(suite, "testcase", classname="mcpdex", name="no contract changes")
        cases = 1
    suite.set("tests", str(cases))
    suite.set("failures", str(report["failing"]))
    suite.set("skipped", str(report["accepted"]))
    ET.indent(suite)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suite, encoding="unicode") + "\n"


def render_sarif(report: dict[str, Any], file: str | None = None) -> str:
    """SARIF 2.1.0 for code-scanning uploads; accepted changes carry an external suppression."""
    sarif_level = {"breaking": "error", "warning": "warning", "info": "note"}
    used = sorted({change["rule"] for change in report["changes"]})
    rules = [
        {
            "id": rule_id,
            "shortDescription": {"text": RULES_BY_ID[rule_id].explanation},
            "defaultConfiguration": {"level": sarif_level[RULES_BY_ID[rule_id].level]},
            "properties": {"area": RULES_BY_ID[rule_id].area, "direction": RULES_BY_ID[rule_id].direction},
        }
        for rule_id in used
    ]
    results = []
    for change in report["changes"]:
        result: dict[str, Any] = {
            "ruleId": change["rule"],
            "ruleIndex": used.index(change["rule"]),
            "level": "error" if change["fails"] else sarif_level[change["level"]],
            "message": {"text": change["message"]},
            "partialFingerprints": {"mcpdexFingerprint/v1": change["fingerprint"]},
            "locations": [
                {
                    "logicalLocations": [
                        {
                            "fullyQualifiedName": f"{change['tool'] or '(server)'}{change['path']}",
                            "name": change["where"],
                            "kind": "member",
                        }
                    ],
                    **({"physicalLocation": {"artifactLocation": {"uri": file}}} if file else {}),
                }
            ],
        }
        if change["accepted"]:
            result["suppressions"] = [{"kind": "external", "justification": change["reason"]}]
        results.append(result)
    document = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "mcpdex", "rules": rules}}, "results": results}],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def render_report(report: dict[str, Any], fmt: str, *, color: bool = False, file: str | None = None) -> str:
    """``report`` in one of OUTPUT_FORMATS; ``file`` is the baseline path annotations point at.

    Outside JSON (which escapes them itself), control characters the servers wrote are escaped
    before any colour or markup is added.
    """
    if fmt not in ("json", "sarif"):
        from registry.core.printable import escape_controls_in

        report = escape_controls_in(report)
    if fmt == "text":
        return render_text(report, color=color)
    if fmt == "json":
        return render_json(report)
    if fmt == "markdown":
        return render_markdown(report)
    if fmt == "github":
        return render_github(report, file)
    if fmt == "junit":
        return render_junit(report)
    if fmt == "sarif":
        return render_sarif(report, file)
    raise UsageError(f"--format must be one of {', '.join(OUTPUT_FORMATS)}, not {fmt!r}")


def append_step_summary(report: dict[str, Any]) -> bool:
    """Append the Markdown report to ``$GITHUB_STEP_SUMMARY`` when that is set; True if written."""
    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if not path:
        return False
    with open(path, "a", encoding="utf-8") as summary:
        summary.write(render_markdown(report) + "\n")
    return True
