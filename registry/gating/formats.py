"""The CI gate's report in the formats CI systems read: text (coloured on a terminal), JSON,
Markdown, GitHub workflow annotations, JUnit XML and SARIF 2.1.0. Pure apart from appending to
``$GITHUB_STEP_SUMMARY``.
"""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from typing import Any

from registry.core.errors import UsageError
from registry.core.printable import json_inert
from registry.core.textdiff import line_diff
from registry.core.wording import counted
from registry.diffing.changes import counts_in_words, summarize
from registry.diffing.rules import RULES_BY_ID, TEXT_DIFF_RULES
from registry.gating.policy import DEFAULT_IGNORE_FILE, OUTPUT_FORMATS

# SGR codes, as terminals read them; None leaves an attribute alone, False switches it off.
_FOREGROUND = {"red": 31, "green": 32, "yellow": 33, "magenta": 35, "cyan": 36}


def ansi(text: str, *, fg: str | None = None, bold: bool | None = None, dim: bool | None = None) -> str:
    """``text`` in colour for a terminal, reset after."""
    codes = [_FOREGROUND[fg]] if fg else []
    if bold is not None:
        codes.append(1 if bold else 22)
    if dim is not None:
        codes.append(2 if dim else 22)
    return "".join(f"\x1b[{code}m" for code in codes) + text + "\x1b[0m"


_TEXT_STYLE: dict[str, dict[str, Any]] = {
    "lint": {"fg": "magenta", "bold": True},
    "breaking": {"fg": "red", "bold": True},
    "quality": {"fg": "cyan", "bold": True},
    "warning": {"fg": "yellow"},
    "info": {"fg": "green"},
}


def changes_summary(report: dict[str, Any]) -> str:
    """``3 changes: 1 breaking, 1 warning, 1 info; 1 quality drop``, and how many were accepted."""
    counts = report["counts"]
    summary = f"{counted(counts['total'], 'change')}: {counts_in_words(counts, zeros=True)}"
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
    # The failing changes by level: a lint or a quality drop fails whatever --fail-on says.
    failing = counts_in_words(summarize(c for c in report["changes"] if c["fails"]), zeros=False)
    return (
        f"{summary}\nFAILED on {failing} (--fail-on {report['failOn']}). Accept a reviewed change by "
        f"adding its fingerprint and a reason to {DEFAULT_IGNORE_FILE}, or rewrite the baseline with "
        "`mcpdex check --update`."
    )


def render_text(report: dict[str, Any], color: bool = False) -> str:
    """Plain text, coloured when ``color`` (on a terminal)."""

    def style(text: str, **kwargs: Any) -> str:
        return ansi(text, **kwargs) if color else text

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
    return json_inert(json.dumps(report, indent=2, ensure_ascii=False, sort_keys=True)) + "\n"


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
    command = {
        "lint": "error",
        "breaking": "error",
        "quality": "error",
        "warning": "warning",
        "info": "notice",
    }
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
    sarif_level = {
        "lint": "error",
        "breaking": "error",
        "quality": "error",
        "warning": "warning",
        "info": "note",
    }
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
    return json_inert(json.dumps(document, indent=2, ensure_ascii=False)) + "\n"


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
