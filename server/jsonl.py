"""The reference server's JSONL file format: one entity or relation object per line.

Export writes what the reference server writes (entities first, then relations, keys in its
order, compact JSON, non-ASCII kept as is) and ends every line with a newline. Import reads
such a file into a graph in one transaction; a line that is not a valid record is skipped and
reported with its line number, and lines of other ``type`` values (markers some forks add) are
ignored, as the reference server ignores them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, TextIO

from server.graph import GraphStore

_FIELDS = {
    "entity": (("name", str), ("entityType", str), ("observations", list)),
    "relation": (("from", str), ("to", str), ("relationType", str)),
}


@dataclass
class ImportReport:
    """What an import added, which lines it skipped (line number, reason) and how many it ignored."""

    entities: int = 0
    observations: int = 0
    relations: int = 0
    ignored: int = 0
    skipped: list[tuple[int, str]] = field(default_factory=list)


def dumps_record(record: dict[str, Any]) -> str:
    """One JSONL line (without its newline), byte-for-byte as JavaScript's JSON.stringify writes it."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def _check(record: dict[str, Any]) -> str | None:
    """Why ``record`` (of a known type) is not a valid entity or relation line, or None when it is."""
    for key, kind in _FIELDS[record["type"]]:
        if not isinstance(record.get(key), kind):
            return f"{record['type']} without a {kind.__name__} {key!r}"
    if record["type"] == "entity" and not all(isinstance(o, str) for o in record["observations"]):
        return "entity whose observations are not all strings"
    return None


def parse_lines(lines: Iterable[str]) -> tuple[list[dict[str, Any]], list[dict[str, str]], ImportReport]:
    """Split JSONL lines into entity and relation records (``type`` stripped) and a report of the rest."""
    report = ImportReport()
    entities: list[dict[str, Any]] = []
    relations: list[dict[str, str]] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            report.skipped.append((number, f"not valid JSON ({exc.msg} at column {exc.colno})"))
            continue
        if not isinstance(record, dict):
            report.skipped.append((number, "not a JSON object"))
            continue
        if record.get("type") not in _FIELDS:
            report.ignored += 1
            continue
        problem = _check(record)
        if problem:
            report.skipped.append((number, problem))
        elif record["type"] == "entity":
            entities.append(
                {
                    "name": record["name"],
                    "entityType": record["entityType"],
                    "observations": record["observations"],
                }
            )
        else:
            relations.append(
                {"from": record["from"], "to": record["to"], "relationType": record["relationType"]}
            )
    return entities, relations, report


def import_jsonl(store: GraphStore, text: str) -> ImportReport:
    """Load a JSONL document into ``store`` in one transaction (known entities gain missing observations)."""
    # The reference server splits on "\n" alone; so do we, so line numbers agree with it.
    entities, relations, report = parse_lines(text.split("\n"))
    added = store.merge_records(entities, relations)
    report.entities, report.observations, report.relations = (
        added["entities"],
        added["observations"],
        added["relations"],
    )
    return report


def export_jsonl(store: GraphStore, out: TextIO) -> int:
    """Write the whole graph to ``out`` as JSONL; returns the number of records written."""
    written = 0
    for record in store.iter_records():
        out.write(dumps_record(record) + "\n")
        written += 1
    return written
