"""A diff's Change records and the builder that fills them from the rule table (level, where,
message, fingerprint, witness); each snapshot's tools read once, and the security lints run on new
texts so that a changed text that newly trips one is reported as poisoning. Pure.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from json.encoder import encode_basestring
from typing import Any, NotRequired, TypedDict

from common.canonical import canonical_json
from registry.core.snapshot import sorted_json
from registry.core.wording import counted
from registry.diffing.normalize import normalize_tool
from registry.diffing.rules import AREA_LABELS, CHANGE_LEVELS, POISONING_LINTS, rule
from registry.diffing.witness import NOT_FOUND

# How each kind of witness is told, after the change's message, in every format that shows messages.
WITNESS_SENTENCES = {
    "call": "This call was valid before and is rejected now: {}",
    "result": "This result is allowed now and was rejected before: {}",
}
# A witness no value shows alone: it fails at its change's path, and for another change elsewhere.
SHARED_SENTENCES = {
    "call": "No call fails for this change alone; this one, valid before, is rejected here and elsewhere: {}",
    "result": "No result fails for this change alone; this one, allowed now, was rejected here and "
    "elsewhere: {}",
}
UNPROVED_SENTENCES = {
    "call": "No call that was valid before and is rejected now at this change was found, so this is a "
    "warning: check it.",
    "result": "No result allowed now and rejected before at this change was found, so this is a warning: "
    "check it.",
}
_MAX_VALUE_CHARS = 80  # longer before/after values are shortened in messages (not in the Change)


class Change(TypedDict):
    """One difference between two snapshots (docs/architecture.md describes the record), plus
    ``where``: the human path."""

    rule: str
    level: str
    tool: str | None
    area: str
    path: str
    where: str
    before: Any
    after: Any
    message: str
    fingerprint: str
    # A call the old input schema accepted and the new one rejects, or a result the new output schema
    # allows and the old one rejected, confirmed with jsonschema; None for a change that claims no break.
    witness: NotRequired[Any]  # absent on the gate's own changes (version bump, quality, context cost)


def fingerprint(rule_id: str, tool: str | None, path: str, detail: str = "") -> str:
    """12 hex of sha256 over rule, tool, path (and a detail for set members): stable across runs."""
    text = f"{rule_id}:{tool or ''}:{path}:{detail}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def table_change(
    rule_id: str,
    *,
    tool: str | None,
    path: str,
    before: Any,
    after: Any,
    shown: tuple[str, str],
    detail: str,
    key: str,
    level: str | None = None,
    where: str | None = None,
) -> Change:
    """A Change judged outside the schema diff (by the gate, or the context cost), its level, area,
    where and message from the rule table; ``shown`` is (before, after) as the message prints them
    and ``key`` what sets this change apart in its fingerprint."""
    row = rule(rule_id)
    return Change(
        rule=row.id,
        level=level or row.level,
        tool=tool,
        area=row.area,
        path=path,
        where=where or AREA_LABELS[row.area],
        before=before,
        after=after,
        message=row.message.format(
            before=shown[0], after=shown[1], detail=detail, tool=tool or "", subject=""
        ),
        fingerprint=fingerprint(row.id, tool, path, key),
    )


def json_pointer(segments: Iterable[Any]) -> str:
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in segments)


def short_value(value: Any) -> str:
    text = encode_basestring(value) if isinstance(value, str) else sorted_json(value)
    return text if len(text) <= _MAX_VALUE_CHARS else text[: _MAX_VALUE_CHARS - 1] + "…"


def schema_subject(area: str, segments: list[Any]) -> str:
    """``input property `filter.kind``` or ``the output schema root`` for a schema path."""
    side = "input" if area == "inputSchema" else "output"
    parts: list[str] = []
    index = 0
    while index < len(segments):
        key = segments[index]
        if key in ("properties", "patternProperties") and index + 1 < len(segments):
            parts.append(("." if parts else "") + str(segments[index + 1]))
            index += 2
            continue
        if key == "items":
            parts.append("[]")
        elif key == "additionalProperties":
            parts.append("{*}")
        elif key in ("anyOf", "oneOf", "allOf", "prefixItems") and index + 1 < len(segments):
            parts.append(f"/{key}[{segments[index + 1]}]")
            index += 1
        index += 1
    return f"{side} property `{''.join(parts)}`" if parts else f"the {side} schema root"


def text_change(before: Any, after: Any) -> str:
    if before is None:
        return "added"
    if after is None:
        return "removed"
    return "changed"


class ToolSide:
    """One snapshot's tools by name, each serialised, normalised and linted at most once.

    A version history is diffed pair by pair, so each middle version is the newer side of one diff
    and the older side of the next; sharing its ``ToolSide`` does that work once.
    """

    def __init__(self, snapshot: dict[str, Any]) -> None:
        self.listed = [tool for tool in snapshot.get("tools") or [] if isinstance(tool, dict)]
        self.by_name = {tool["name"]: tool for tool in self.listed}
        self._canonical: dict[str, str] = {}
        self._normalized: dict[str, dict[str, Any]] = {}
        self._lint_context: tuple[frozenset[str], frozenset[str]] | None = None

    def canonical(self, name: str) -> str:
        if name not in self._canonical:
            self._canonical[name] = canonical_json(self.by_name[name])
        return self._canonical[name]

    def normalized(self, name: str) -> dict[str, Any]:
        if name not in self._normalized:
            self._normalized[name] = normalize_tool(self.by_name[name])
        return self._normalized[name]

    def lint_context(self) -> tuple[frozenset[str], frozenset[str]]:
        """The tool names and the known words the security lints read a description among."""
        if self._lint_context is None:
            from scoring.lints import known_words

            names = frozenset(str(tool.get("name")) for tool in self.listed)
            self._lint_context = (names, known_words(self.listed))
        return self._lint_context


def model_texts_of(definition: dict[str, Any] | None) -> list[tuple[str, str]]:
    """(where, text) pairs of everything in a tool, resource or prompt a model reads (none for None)."""
    if definition is None:
        return []
    from scoring.lints import model_texts  # imported here, as in TextLints._findings

    return model_texts(definition)


class TextLints:
    """The security lints of ``scoring`` run on new texts, each side's texts among its own tools."""

    def __init__(
        self, old_tools: ToolSide, new_tools: ToolSide, foreign_tools: frozenset[str] = frozenset()
    ) -> None:
        self._tools = (old_tools, new_tools)
        # a name in a text is a cross-server reference only when it is a tool another server offers
        self._foreign = foreign_tools

    def _findings(self, side: int, tool: str | None, text: Any) -> set[tuple[str, str]]:
        if not isinstance(text, str) or not text:
            return set()
        # Imported here: the scorer's language tables cost start-up a diff without text changes skips.
        from scoring.language import Analysis
        from scoring.lints import security_findings
        from scoring.words import identifiers

        names, known = self._tools[side].lint_context()
        # The poisoning lints read a description's text and identifiers only; the rest of a full
        # analysis feeds the priority and assertive lints, which are not signs of poisoning. Any
        # model-visible text is read as a description, so each trips the lints a description would.
        analysis = Analysis(text=text.strip(), identifiers=identifiers(text))
        found = security_findings(
            {"name": tool, "description": text}, analysis, names, known, foreign_tools=self._foreign - names
        )
        return {
            (item["rule"], item["message"])
            for item in found
            if item["rule"] in POISONING_LINTS and item["where"] == "description"
        }

    def gained(
        self, tool: str | None, before: Sequence[tuple[str, Any]], after: Sequence[tuple[str, Any]]
    ) -> dict[str, list[tuple[str, str]]]:
        """For each lint the new texts trip with a finding no old text has, its (where, finding) pairs.

        ``before`` and ``after`` are (where, text) pairs: one text, or every text of a definition.
        """
        found = [(where, item) for where, text in after for item in self._findings(1, tool, text)]
        if not found:
            return {}  # most new texts trip no lint: then the old ones (and their side) are never read
        old = set().union(*(self._findings(0, tool, text) for _, text in before))
        gained: dict[str, list[tuple[str, str]]] = {}
        for where, (lint, message) in found:
            if (lint, message) not in old:
                gained.setdefault(lint, []).append((where, message))
        return dict(sorted(gained.items()))


class ChangeBuilder:
    """Collects Changes for one diff, filling level, where, message and fingerprint from the table."""

    def __init__(self, lints: TextLints) -> None:
        self.changes: list[Change] = []
        self.lints = lints

    def text_changed(
        self,
        rule_id: str,
        poisoning_id: str,
        *,
        tool: str | None,
        segments: list[Any],
        before: Any,
        after: Any,
        subject: str = "",
    ) -> None:
        """A changed text: ``poisoning_id`` per security lint it newly trips, else ``rule_id``."""
        action = text_change(before, after)
        self.texts_changed(
            rule_id,
            poisoning_id,
            [("", before)],
            [("", after)],
            trips=f"{action} and now trips",
            tool=tool,
            segments=segments,
            before=before,
            after=after,
            detail=action,
            subject=subject,
        )

    def texts_changed(
        self,
        rule_id: str,
        poisoning_id: str,
        old_texts: Sequence[tuple[str, Any]],
        new_texts: Sequence[tuple[str, Any]],
        *,
        trips: str,
        tool: str | None,
        segments: list[Any],
        before: Any = None,
        after: Any = None,
        detail: str = "",
        subject: str = "",
        key: str = "",
    ) -> None:
        """``poisoning_id`` per security lint the new texts trip and the old ones did not, else ``rule_id``.

        The texts are (where, text) pairs; a poisoning change's detail is ``trips`` followed by the
        lint and its findings, each after its text's where (if any).
        """
        gained = self.lints.gained(tool, old_texts, new_texts)
        # (rule, detail, key) of each change: one per lint newly tripped, else the plain change.
        reported = [
            (
                poisoning_id,
                f"{trips} the security lint `{lint}` ("
                + "; ".join(f"{where}: {finding}" if where else finding for where, finding in findings)
                + ")",
                f"{key}:{lint}" if key else lint,
            )
            for lint, findings in gained.items()
        ] or [(rule_id, detail, key)]
        for reported_rule, reported_detail, reported_key in reported:
            self.add(
                reported_rule,
                tool=tool,
                segments=segments,
                before=before,
                after=after,
                detail=reported_detail,
                subject=subject,
                key=reported_key,
            )

    def add(
        self,
        rule_id: str,
        *,
        tool: str | None,
        segments: list[Any],
        before: Any = None,
        after: Any = None,
        detail: str = "",
        subject: str = "",
        key: str = "",
        witness: Any = NOT_FOUND,
        unproved: bool = False,
        alone: bool = True,
    ) -> None:
        """Record a change. ``unproved``: its rule claims a break, but no witness was found, so no
        call (or result) is known to break: it is reported at warning, saying so, not as breaking."""
        row = rule(rule_id)
        path = json_pointer(segments)
        label = AREA_LABELS[row.area]
        where = " / ".join([label, *(str(s) for s in segments)]) if segments else f"{label} / (root)"
        message = row.message.format(
            tool=tool or "",
            subject=subject,
            detail=detail,
            before=short_value(before),
            after=short_value(after),
        )
        if witness is not NOT_FOUND:
            sentences = WITNESS_SENTENCES if alone else SHARED_SENTENCES
            message += " " + sentences[row.witness].format(sorted_json(witness))
        elif unproved:
            message += " " + UNPROVED_SENTENCES[row.witness]
        self.changes.append(
            Change(
                rule=rule_id,
                level="warning" if unproved else row.level,
                tool=tool,
                area=row.area,
                path=path,
                where=where,
                before=before,
                after=after,
                message=message,
                fingerprint=fingerprint(rule_id, tool, path, key),
                witness=None if witness is NOT_FOUND else witness,
            )
        )


def summarize(changes: Iterable[Change]) -> dict[str, int]:
    """Counts per level, most severe first, plus the total:
    ``{"lint": 0, "breaking": 1, "quality": 0, "warning": 0, "info": 3, "total": 4}``."""
    counts: dict[str, int] = {level.name: 0 for level in CHANGE_LEVELS}
    for change in changes:
        counts[change["level"]] += 1
    return {**counts, "total": sum(counts.values())}


def counts_in_words(counts: Mapping[str, int], *, zeros: bool) -> str:
    """``1 breaking, 0 warnings, 2 info; 1 quality drop``: the levels ranked against --fail-on, then,
    after a semicolon, those counted apart, named only when present; ``zeros`` names a ranked level
    at zero too."""
    ranked: list[str] = []
    apart: list[str] = []
    for level in CHANGE_LEVELS:
        count = counts.get(level.name, 0)
        if count or (zeros and not level.apart):
            (apart if level.apart else ranked).append(counted(count, level.singular, level.plural))
    return "; ".join(", ".join(part) for part in (ranked, apart) if part)
