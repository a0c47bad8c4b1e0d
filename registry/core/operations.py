"""Memory operations, not tool names: which tool of a memory server stores, recalls, reads, lists,
updates, deletes and relates, inferred from names, descriptions, annotations and schemas.

Pure (no MCP). ``OPERATIONS`` is the table (one row per operation, with the words that name it);
``map_operations`` scores every tool against every row and gives each operation its best tool,
with the argument each role (content, key, query, identifier, limit) goes to and the evidence.
``parse_overrides`` reads ``--map recall=search_notes`` and the same pairs from a small file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from registry.core.errors import UsageError


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


@dataclass(frozen=True)
class Operation:
    """One row: an operation every memory server offers in some form."""

    id: str
    label: str
    verbs: frozenset[str]  # words of a tool name or of its description's first sentence
    explanation: str


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "store",
        "store",
        _set(
            "create add save store remember memorize write insert put upsert record stores saves creates adds"
        ),
        "writes a new item (an entity, a note, a memory, a context item)",
    ),
    Operation(
        "recall",
        "recall by query",
        _set("search find query recall lookup searches finds match"),
        "returns the items that match a query",
    ),
    Operation(
        "read",
        "read by id or name",
        _set("get open read show fetch retrieve view load returns"),
        "returns named items in full",
    ),
    Operation(
        "list",
        "list or overview",
        _set("list read all entire overview browse index recent graph status shows summary"),
        "returns every item or an overview, with no query",
    ),
    Operation(
        "update",
        "update",
        _set("update edit modify change patch append replace sets"),
        "changes an item that exists",
    ),
    Operation(
        "delete",
        "delete",
        _set("delete remove forget erase purge drop deletes removes forgets marks"),
        "removes an item, or hides it from recall",
    ),
    Operation(
        "relate",
        "relate",
        _set("relate relation relations link connect edge"),
        "connects two items",
    ),
)
OPERATIONS_BY_ID = {op.id: op for op in OPERATIONS}
# Assigned in this order, each to the best tool not taken yet: a tool does one operation.
_ORDER = ("relate", "delete", "update", "recall", "store", "read", "list")

_CONTENT = _set(
    "text content value observation observations body memory note fact information contents data message"
)
_KEY = _set("key name title entityname label slug")
_QUERY = _set("query q search keyword keywords term terms question text")
_IDENT = _set("id ids key keys name names entityname entitynames uuid memoryid noteid identifier")
_LIMIT = _set("limit topk k maxresults max pagesize count n")
_RELATION_OBJECTS = _set("relation relations link links edge edges relationship")
_EXISTING = re.compile(r"\bexisting\b|\bpartial updates?\b", re.I)


def words(name: str) -> list[str]:
    """``readGraph``, ``read-graph``, ``mcp__memory__read_graph`` → their lower-case words."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    return [w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if w]


def fold(name: str) -> str:
    return "".join(words(name))


def _first_sentence(text: str) -> str:
    return re.split(r"(?<=[.!?])\s|\n", text.strip(), maxsplit=1)[0] if text else ""


def _properties(tool: Mapping[str, Any]) -> tuple[dict[str, dict[str, Any]], frozenset[str]]:
    schema = tool.get("inputSchema") if isinstance(tool.get("inputSchema"), dict) else {}
    assert isinstance(schema, dict)
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    assert isinstance(props, dict)
    required = frozenset(r for r in schema.get("required") or [] if isinstance(r, str))
    return {k: v for k, v in props.items() if isinstance(v, dict)}, required


def _role(props: Mapping[str, Any], names: frozenset[str], *, prefer: Sequence[str] = ()) -> str | None:
    found = [p for p in props if fold(p) in names]
    for wanted in prefer:
        for p in found:
            if fold(p) == wanted:
                return p
    return found[0] if found else None


def _score(op: Operation, tool: Mapping[str, Any]) -> tuple[int, list[str]]:
    """How strongly ``tool`` looks like ``op``, with the evidence; 0 when it cannot be it."""
    name_words = set(words(str(tool.get("name", ""))))
    description = str(tool.get("description") or "")
    sentence_words = set(words(_first_sentence(description)))
    props, required = _properties(tool)
    annotations = tool.get("annotations") if isinstance(tool.get("annotations"), dict) else {}
    assert isinstance(annotations, dict)
    read_only = annotations.get("readOnlyHint") is True
    destructive = annotations.get("destructiveHint") is True
    folded = {fold(p) for p in props}
    folded_required = {fold(p) for p in required}
    about_relations = bool(_RELATION_OBJECTS & name_words)
    score, evidence = 0, []
    if op.verbs & name_words:
        score += 4
        evidence.append(f"name: {', '.join(sorted(op.verbs & name_words))}")
    if op.verbs & sentence_words:
        score += 3
        evidence.append(f"description: {', '.join(sorted(op.verbs & sentence_words))}")
    if not score:
        return 0, []
    if op.id in ("store", "update", "delete", "relate") and read_only:
        return 0, []
    if op.id == "relate":
        if (
            not about_relations
            and "relationship" not in folded
            and not ({"sourcekey", "targetkey"} <= folded or {"from", "to"} <= folded)
        ):
            return 0, []
        if name_words & {"delete", "remove"}:
            return 0, []
        score += 2
    elif about_relations:
        return 0, []
    if op.id == "store":
        if not (folded & (_CONTENT | {"entities", "items", "memories", "notes"})):
            return 0, []
        if _EXISTING.search(_first_sentence(description)):
            score -= 3
    if op.id == "recall":
        if not folded_required & _QUERY and not folded & {"query", "q", "search"}:
            return 0, []
        score += 2
        evidence.append("takes a query")
    if op.id == "read" and not folded & _IDENT:
        return 0, []
    if op.id == "list":
        if required:
            return 0, []
        if name_words & {"status", "summary"}:
            score -= 2
    if op.id == "update":
        if not (folded & (_IDENT | {"updates", "observations", "entities"})):
            return 0, []
        if _EXISTING.search(description):
            score += 2
            evidence.append("acts on existing items")
    if op.id == "delete":
        if not (folded & (_IDENT | {"entitynames", "keypattern"})):
            return 0, []
        if destructive:
            score += 1
            evidence.append("destructiveHint")
    return max(score, 0), evidence


def _arguments(op: str, tool: Mapping[str, Any]) -> dict[str, str]:
    """Which input property plays each role of ``op``."""
    props, required = _properties(tool)
    roles: dict[str, str | None] = {}
    if op == "store":
        roles["content"] = _role(props, _CONTENT - {"name"}, prefer=("text", "content", "value"))
        roles["key"] = _role(props, _KEY)
        roles["items"] = next(
            (p for p, s in props.items() if s.get("type") == "array" and isinstance(s.get("items"), dict)),
            None,
        )
    elif op == "recall":
        roles["query"] = _role(props, _QUERY, prefer=("query", "q", "search"))
        roles["limit"] = _role(props, _LIMIT)
    elif op in ("read", "delete", "update"):
        roles["id"] = _role(
            {p: s for p, s in props.items() if p in required} or props,
            _IDENT | {"entitynames", "keys"},
            prefer=("ids", "id", "keys", "key", "names", "name", "entitynames"),
        )
    elif op == "list":
        roles["limit"] = _role(props, _LIMIT)
    return {role: prop for role, prop in roles.items() if prop}


def map_operations(
    tools: Iterable[Mapping[str, Any]], overrides: Mapping[str, str] | None = None
) -> dict[str, dict[str, Any]]:
    """Operation id → ``{tool, arguments, evidence, source}`` for each operation the tools offer."""
    by_name = {str(t.get("name")): t for t in tools if isinstance(t, Mapping) and t.get("name")}
    overrides = dict(overrides or {})
    for op, tool in overrides.items():
        if op not in OPERATIONS_BY_ID:
            raise UsageError(
                f"--map {op}={tool}: unknown operation; use one of {', '.join(OPERATIONS_BY_ID)}"
            )
        if tool not in by_name:
            raise UsageError(
                f"--map {op}={tool}: the server has no tool {tool!r}; `mcpdex inspect` lists them"
            )
    mapping: dict[str, dict[str, Any]] = {}
    # A tool given with --map may do another operation too (one tool that reads by key and lists).
    taken: set[str] = set()
    for op_id in _ORDER:
        if op_id in overrides:
            mapping[op_id] = {
                "tool": overrides[op_id],
                "arguments": _arguments(op_id, by_name[overrides[op_id]]),
                "evidence": ["given with --map"],
                "source": "override",
            }
            continue
        # The best score wins; of equals, the plainer name (context_get before context_get_related).
        best: tuple[int, int, str, list[str]] | None = None
        for name, candidate in by_name.items():
            if name in taken:
                continue
            score, evidence = _score(OPERATIONS_BY_ID[op_id], candidate)
            rank = (score, -len(words(name)))
            if score >= 3 and (best is None or rank > best[:2]):
                best = (score, -len(words(name)), name, evidence)
        if best:
            taken.add(best[2])
            mapping[op_id] = {
                "tool": best[2],
                "arguments": _arguments(op_id, by_name[best[2]]),
                "evidence": best[3],
                "source": "inferred",
            }
    return {op.id: mapping[op.id] for op in OPERATIONS if op.id in mapping}


def parse_overrides(pairs: Sequence[str], file: str | None = None) -> dict[str, str]:
    """``recall=search_notes`` pairs, after those of ``file`` (a JSON object or ``op = tool`` lines)."""
    out: dict[str, str] = {}
    if file:
        text = Path(file).read_text(encoding="utf-8")
        if text.lstrip().startswith("{"):
            try:
                data = json.loads(text)
            except ValueError as exc:
                raise UsageError(f"--map-file {file}: not valid JSON ({exc})") from None
            if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
                raise UsageError(f"--map-file {file}: give an object of operation → tool name")
            out.update({str(k): v for k, v in data.items()})
        else:
            pairs = [
                line.replace(" ", "")
                for line in text.splitlines()
                if line.strip() and not line.startswith("#")
            ] + list(pairs)
    for pair in pairs:
        op, found, tool = pair.partition("=")
        if not found or not op.strip() or not tool.strip():
            raise UsageError(f"--map {pair!r} is not OPERATION=TOOL, e.g. --map recall=search_notes")
        out[op.strip()] = tool.strip()
    return out


def offers_store_and_recall(mapping: Mapping[str, Any]) -> bool:
    return "store" in mapping and "recall" in mapping
