"""One schema comparison's state: the tool, the area, each side held normalised (what the judges
compare), with its origins (to show a value as the server sent it) and as sent (what a witness is
confirmed against), and the witness search each claimed break runs once. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from registry.diffing.changes import ChangeBuilder, json_pointer, schema_subject
from registry.diffing.normalize import origin
from registry.diffing.rules import rule
from registry.diffing.witness import NOT_FOUND, Side, find, instance_location

# A tool without an input schema takes any arguments object.
_ANY_OBJECT = {"type": "object"}
OLD, NEW = 0, 1
_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")


class SchemaComparison:
    """One schema comparison: the tool, the area and rule-id prefix, and both sides' schemas.

    Each side is held three ways: normalised (what the judges compare), its origins (to show a
    value as the server sent it) and as sent (what a witness is confirmed against).
    """

    def __init__(
        self, out: ChangeBuilder, tool: str, area: str, old: dict[str, Any], new: dict[str, Any]
    ) -> None:
        self.out, self.tool, self.area = out, tool, area
        self.prefix = "input" if area == "inputSchema" else "output"
        self.roots = (old[area], new[area])
        self.origins = (old["origins"], new["origins"])
        sent = [old["sent"][area], new["sent"][area]]
        if area == "inputSchema":  # a tool without an input schema takes any arguments object
            sent = [_ANY_OBJECT if schema is None else schema for schema in sent]
        self._sent = sent
        self._sides: list[Side | None] = [None, None]
        # a judge that asks whether a witness exists then reports the change searches once
        self._found: dict[tuple[str, ...], Any] = {}

    def side(self, index: int) -> Side:
        if self._sides[index] is None:
            self._sides[index] = Side(self._sent[index])
        return self._sides[index]  # type: ignore[return-value]

    def shown(self, index: int, value: Any) -> Any:
        """``value`` as the server sent it, when it is a normalised subschema of that side."""
        return origin(self.origins[index], value) if isinstance(value, dict) else value

    def sent(self, index: int, node: Any, keyword: str, value: Any) -> Any:
        """The value of ``keyword`` at a normalised ``node`` as the server sent it (else ``value``)."""
        raw = self.shown(index, node)
        if raw is not node and isinstance(raw, dict) and keyword in raw:
            return raw[keyword]
        return self.shown(index, value)

    def add(
        self,
        name: str,
        segments: list[Any],
        before: Any = None,
        after: Any = None,
        *,
        detail: str = "",
        subject_at: list[Any] | None = None,
        key: str = "",
        node: tuple[list[Any], list[Any]] | None = None,
        candidates: Sequence[Any] = (),
        side: int = NEW,
    ) -> None:
        """Report a change; for a rule that claims a break, with its witness found from ``node`` (the
        node's path on each side) and ``candidates`` (values to try there before the node's probes).

        ``segments`` is a path into the new schema, or into the old one (``side``) for what only the
        old one has (a removed alternative); either is reported as the server sent that schema.
        """
        rule_id = f"{self.prefix}-{name}"
        row = rule(rule_id)
        location = instance_location(segments)
        witness = self.witness(rule_id, node, candidates, location)
        alone = self.alone(rule_id, node, candidates, location)
        subject_side = side if subject_at is None else NEW
        subject = schema_subject(
            self.area,
            self.sent_path(subject_side, subject_at if subject_at is not None else segments),
        )
        self.out.add(
            rule_id,
            tool=self.tool,
            segments=self.sent_path(side, segments),
            before=self.shown(OLD, before),
            after=self.shown(NEW, after),
            detail=detail,
            subject=subject,
            key=key,
            witness=witness,
            alone=alone,
            unproved=witness is NOT_FOUND and bool(row.witness) and row.level == "breaking",
        )

    def sent_path(self, index: int, segments: list[Any]) -> list[Any]:
        """A path into one side's normalised schema as a path into that schema as the server sent
        it: normalisation sorts alternatives (and drops null ones), so a branch's index is looked up
        in the list it came from. A branch reached through a ``$ref`` keeps its normalised index."""
        node: Any = self.roots[index]
        found: list[Any] = []
        at = 0
        while at < len(segments):
            part = segments[at]
            listed = node.get(part) if isinstance(node, dict) else None
            if part in _LISTS and isinstance(listed, list) and at + 1 < len(segments):
                position = segments[at + 1]
                branch = listed[position] if isinstance(position, int) and position < len(listed) else None
                raw = self.shown(index, node)
                sent = raw.get(part) if isinstance(raw, dict) and raw is not node else None
                if isinstance(sent, list) and branch is not None:
                    raw_branch = self.shown(index, branch)
                    position = next((k for k, item in enumerate(sent) if item is raw_branch), position)
                found += [part, position]
                node = branch
                at += 2
                continue
            found.append(part)
            node = node.get(part) if isinstance(node, dict) else None
            at += 1
        return found

    def witness(
        self,
        rule_id: str,
        node: tuple[list[Any], list[Any]] | None,
        candidates: Sequence[Any],
        location: list[Any] | None = None,
    ) -> Any:
        """The witness of a rule that carries one (``NOT_FOUND`` if none is found, or the rule has none):
        a value rejected at ``location`` (the change's instance path; else the node's)."""
        return self._search(rule_id, node, candidates, location)[0]

    def alone(
        self,
        rule_id: str,
        node: tuple[list[Any], list[Any]] | None,
        candidates: Sequence[Any],
        location: list[Any] | None = None,
    ) -> bool:
        """Whether the witness fails for its change alone (else it fails elsewhere too)."""
        return self._search(rule_id, node, candidates, location)[1]

    def _search(
        self,
        rule_id: str,
        node: tuple[list[Any], list[Any]] | None,
        candidates: Sequence[Any],
        location: list[Any] | None,
    ) -> tuple[Any, bool]:
        kind = rule(rule_id).witness
        if not kind or node is None:
            return NOT_FOUND, False
        accepting = OLD if kind == "call" else NEW
        if location is None:
            location = instance_location(node[accepting])
        key = (rule_id, json_pointer(node[0]), json_pointer(node[1]), repr(candidates), repr(location))
        if key not in self._found:
            self._found[key] = find(
                self.side(accepting),
                self.side(1 - accepting),
                self.roots[accepting],
                node[accepting],
                candidates,
                self.roots[1 - accepting],
                location,
            )
        found: tuple[Any, bool] = self._found[key]
        return found

    def has_witness(
        self, rule_id: str, node: tuple[list[Any], list[Any]], candidates: Sequence[Any] = ()
    ) -> bool:
        return self.witness(rule_id, node, candidates) is not NOT_FOUND
