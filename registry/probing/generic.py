"""The memory-operations probe: what any memory server that stores and recalls must do, run
through the tools ``registry.core.operations`` mapped (store, recall, read, list, delete).

Checks: a round trip (what was stored comes back), search precision (it finds the one item that
holds a word and not the others, and nothing for a word never stored), read by id, list, delete
(the item is gone from recall), bounded recall and list (a limit is honoured), and bad input
(an error result, and the server still answers). Then the token cost and latency of each read at
each size of a standard set of items (100 and 1,000 by default), counted with the same counter as
``inspect`` over the text and the ``structuredContent`` of each reply.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Mapping, Sequence
from typing import Any

from common.refs import LocalRefs
from registry.core.operations import fold
from registry.core.tokens import token_counter
from registry.probing.checks import Outcome, expect, not_applicable
from registry.probing.session import ProbeError, Reply, Session

GROUP = "memory"


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


GROUP_TITLE = "Memory operations (any memory server: store, recall, read, list, delete)"
SHARED_WORD = "lantern"  # in every item the probe stores: what a bounded recall asks for
ABSENT_WORD = "xylophonequasar"  # in none
_TOKEN = re.compile(r"\b(qzx[a-z]{4}) probe note\b")  # the query echoed back is not the item
_TYPES = _set("type entitytype category kind art")
_KEYS = _set("key name title entityname label slug")
_CONTENT = _set("text content value observation observations body memory note fact information contents data")
_BY_KEY = _set("key keys name names entityname entitynames title")
_TOPICS = ("harbor", "orchard", "glacier", "meadow", "quarry", "canyon", "delta", "tundra")


def token_word(index: int) -> str:
    """A word unique to item ``index``: letters only, so every full-text tokenizer keeps it whole."""
    letters = ""
    for _ in range(4):
        index, digit = divmod(index, 26)
        letters = chr(ord("a") + digit) + letters
    return "qzx" + letters


class Item:
    def __init__(self, index: int, rng: random.Random) -> None:
        self.index = index
        self.token = token_word(index)
        self.key = f"Probe_{self.token}"
        topic = rng.choice(_TOPICS)
        self.text = (
            f"{self.token} probe note {index}: the {SHARED_WORD} by the {topic} was checked "
            f"in week {rng.randint(1, 52)}"
        )
        self.id: str | None = None  # what the server called it, when it assigned an id
        self.stored = ""  # the start of the store result


def items(count: int, seed: int, start: int = 0) -> list[Item]:
    rng = random.Random(seed)
    made = [Item(i, rng) for i in range(start + count)]
    return made[start:]


def _schema_props(schema: Any) -> tuple[dict[str, dict[str, Any]], set[str]]:
    if not isinstance(schema, dict):
        return {}, set()
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    required = {r for r in schema.get("required") or [] if isinstance(r, str)}
    return {k: v for k, v in (props or {}).items() if isinstance(v, dict)}, required


def _filler(schema: dict[str, Any]) -> Any:
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    kind = schema.get("type")
    kind = kind[0] if isinstance(kind, list) and kind else kind
    return {"array": [], "integer": 1, "number": 1, "boolean": False, "object": {}}.get(str(kind), "probe")


def _instance(schema: Any, item: Item) -> dict[str, Any]:
    """An object the schema accepts, carrying ``item``: its key, its text and a plain type."""
    props, required = _schema_props(schema)
    out: dict[str, Any] = {}
    content_done = False
    for name, prop in props.items():
        folded = fold(name)
        is_array = prop.get("type") == "array"
        if folded in _CONTENT and not content_done:
            out[name] = [item.text] if is_array else item.text
            content_done = True
        elif folded in _KEYS:
            out[name] = item.key
        elif folded in _TYPES and name in required:
            out[name] = prop["enum"][0] if isinstance(prop.get("enum"), list) and prop["enum"] else "note"
        elif name in required:
            out[name] = _filler(prop)
    return out


class MemoryOps:
    """The mapped operations, turned into calls."""

    def __init__(self, session: Session, tools: Mapping[str, Any], mapping: Mapping[str, Any]) -> None:
        self.session = session
        self.tools = tools
        self.mapping = mapping

    def has(self, op: str) -> bool:
        return op in self.mapping

    def tool(self, op: str) -> str:
        return str(self.mapping[op]["tool"])

    def arg(self, op: str, role: str) -> str | None:
        value = self.mapping[op]["arguments"].get(role)
        return str(value) if value else None

    def schema(self, op: str) -> dict[str, Any]:
        schema = self.tools[self.tool(op)].get("inputSchema")
        return schema if isinstance(schema, dict) else {}

    def batchable(self) -> bool:
        return self.arg("store", "items") is not None

    async def store(self, batch: Sequence[Item]) -> list[Reply]:
        schema = self.schema("store")
        items_prop = self.arg("store", "items")
        if items_prop:
            item_schema = _schema_props(schema)[0][items_prop].get("items")
            if isinstance(item_schema, dict) and "$ref" in item_schema:
                item_schema = LocalRefs(schema).resolve(item_schema["$ref"]) or item_schema
            reply = await self.session.call(
                self.tool("store"), {items_prop: [_instance(item_schema, i) for i in batch]}
            )
            return [reply]
        replies = []
        for item in batch:
            reply = await self.session.call(self.tool("store"), _instance(schema, item))
            item.id = assigned_id(reply, item)
            item.stored = reply.text[:200]
            replies.append(reply)
        return replies

    async def recall(self, query: str, limit: int | None = None) -> Reply:
        args: dict[str, Any] = {str(self.arg("recall", "query")): query}
        props, required = _schema_props(self.schema("recall"))
        for name in required - set(args):
            args[name] = _filler(props.get(name, {}))
        if limit is not None and self.arg("recall", "limit"):
            args[str(self.arg("recall", "limit"))] = limit
        return await self.session.call(self.tool("recall"), args)

    async def overview(self, limit: int | None = None) -> Reply:
        args: dict[str, Any] = {}
        if limit is not None and self.arg("list", "limit"):
            args[str(self.arg("list", "limit"))] = limit
        return await self.session.call(self.tool("list"), args)

    def address(self, op: str, batch: Sequence[Item]) -> dict[str, Any] | None:
        """The arguments naming ``batch`` for ``op`` (read or delete), or None when no id is known."""
        prop = self.arg(op, "id")
        if prop is None:
            return None
        props, _ = _schema_props(self.schema(op))
        schema = props.get(prop, {})
        if fold(prop) in _BY_KEY:
            values = [i.key for i in batch]
        else:
            values = [i.id for i in batch if i.id is not None]
            if len(values) < len(batch):
                return None
        if schema.get("type") == "array":
            return {prop: values}
        if len(values) == 1:
            return {prop: values[0]}
        return {prop: ",".join(str(v) for v in values)}

    async def delete(self, batch: Sequence[Item]) -> list[Reply]:
        prop = self.arg("delete", "id")
        props, _ = _schema_props(self.schema("delete"))
        per_call = 100 if prop and props.get(prop, {}).get("type") == "array" else 1
        replies = []
        for start in range(0, len(batch), per_call):
            args = self.address("delete", batch[start : start + per_call])
            if args is None:
                unnamed = next((i for i in batch[start : start + per_call] if i.id is None), batch[start])
                raise ProbeError(
                    f"the probe cannot name its items for {self.tool('delete')}: it read no id in the "
                    f"store result {unnamed.stored!r}; pass --map delete=TOOL"
                )
            replies.append(await self.session.call(self.tool("delete"), args))
        return replies


_ID_KEYS = ("id", "ids", "uuid", "memoryId", "memory_id", "noteId", "key")
_ID_PATTERNS = (
    re.compile(r"(?:^|\s)(#\d+|[\w.-]+#\d+)\b"),
    re.compile(r"\b([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b", re.I),
    re.compile(r"\bid[\"':= ]+\"?([\w-]+)", re.I),
)


def _find_id(data: Any) -> str | None:
    if isinstance(data, dict):
        for key in _ID_KEYS:
            value = data.get(key)
            if isinstance(value, (str, int)) and not isinstance(value, bool):
                return str(value)
        for value in data.values():
            found = _find_id(value)
            if found:
                return found
    if isinstance(data, list):
        for value in data:
            found = _find_id(value)
            if found:
                return found
    return None


def assigned_id(reply: Reply, item: Item) -> str | None:
    """The id a store result gives the new item: a JSON ``id`` field, else an id in the text."""
    if not reply.ok:
        return None
    found = _find_id(reply.payload())
    if found and found != item.key:
        return found
    for pattern in _ID_PATTERNS:
        match = pattern.search(reply.text)
        if match:
            return match.group(1)
    return found


def reply_text(reply: Reply) -> str:
    """What the reply puts in a model's context: its text and, beside it, its structuredContent."""
    structured = (
        json.dumps(reply.structured, ensure_ascii=False, separators=(",", ":"))
        if reply.structured is not None
        else ""
    )
    return reply.text + structured


def found(reply: Reply) -> list[str]:
    """The probe's item words a reply holds, sorted, each once."""
    return sorted(set(_TOKEN.findall(reply_text(reply))))


def cost_row(form: str, arguments: dict[str, Any], reply: Reply) -> dict[str, Any]:
    label, count = token_counter()
    structured = reply_text(reply)[len(reply.text) :]
    return {
        "form": form,
        "arguments": arguments,
        "ok": reply.ok,
        "items": len(found(reply)),
        "textChars": len(reply.text),
        "structuredChars": len(structured),
        "tokens": count(reply.text) + count(structured),
        "tokenizer": label,
        "ms": round(reply.ms, 2),
    }


# The checks -----------------------------------------------------------------------------------


async def run_memory_checks(ops: MemoryOps, seed: int) -> list[dict[str, Any]]:
    """The operation checks on three items of their own, deleted again when delete is offered."""
    a, b, c = items(3, seed, start=9000)
    rows: list[dict[str, Any]] = []

    def add(check_id: str, title: str, outcome: Outcome, tools: Sequence[str]) -> None:
        rows.append(
            {
                "id": check_id,
                "group": GROUP,
                "title": title,
                "tools": list(tools),
                "outcome": outcome.outcome,
                "observed": outcome.observed,
                "expected": outcome.expected,
                "note": outcome.note,
            }
        )

    stored = await ops.store([a, b, c])
    ok = all(r.ok for r in stored)
    add(
        "store-succeeds",
        "storing three items succeeds",
        expect(["ok" if r.ok else f"error: {r.text[:160]}" for r in stored], ["ok"] * len(stored)),
        [ops.tool("store")],
    )
    if not ok:
        return rows  # nothing stored: no other check can say anything
    recall = ops.tool("recall")
    reply = await ops.recall(a.token)
    add(
        "recall-round-trip",
        "what was stored comes back from recall, with its text",
        expect(
            {"found": a.token in found(reply), "text": a.text in reply.text}, {"found": True, "text": True}
        ),
        [ops.tool("store"), recall],
    )
    reply = await ops.recall(b.token)
    add(
        "recall-precise",
        "recall of a word one item holds returns that item and not the others",
        expect(found(reply), [b.token]),
        [recall],
    )
    reply = await ops.recall(ABSENT_WORD)
    add(
        "recall-absent",
        "recall of a word never stored returns none of the items",
        expect(found(reply), []),
        [recall],
    )
    if ops.has("read"):
        args = ops.address("read", [c])
        if args is None:
            add("read-by-id", "read by id returns the item", not_applicable("no id to read by"), [])
        else:
            reply = await ops.session.call(ops.tool("read"), args)
            add(
                "read-by-id",
                "read by id or name returns that item",
                expect({"ok": reply.ok, "found": found(reply)}, {"ok": True, "found": [c.token]}),
                [ops.tool("read")],
            )
    else:
        add("read-by-id", "read by id or name returns that item", not_applicable("no read operation"), [])
    if ops.has("list"):
        reply = await ops.overview()
        add(
            "list-includes",
            "the list or overview names the stored items",
            expect(
                {"ok": reply.ok, "found": [t for t in found(reply) if t in (a.token, b.token, c.token)]},
                {"ok": True, "found": sorted([a.token, b.token, c.token])},
            ),
            [ops.tool("list")],
        )
    else:
        add("list-includes", "the list names the stored items", not_applicable("no list operation"), [])
    if ops.arg("recall", "limit"):
        reply = await ops.recall(SHARED_WORD, limit=2)
        add(
            "recall-bounded",
            "recall with a limit of 2 returns at most 2 items",
            expect({"ok": reply.ok, "atMost2": len(found(reply)) <= 2}, {"ok": True, "atMost2": True}),
            [recall],
        )
    else:
        add("recall-bounded", "recall takes a limit", not_applicable("recall offers no limit"), [recall])
    # A number where the schema wants text or a list: every required argument, else the item's.
    wrong = {name: 12345 for name in _schema_props(ops.schema("store"))[1]} or {
        str(prop): 12345 for prop in (ops.arg("store", "items") or ops.arg("store", "content"),) if prop
    }
    if wrong:
        bad = await ops.session.call(ops.tool("store"), wrong)
        alive = await ops.recall(a.token)
        outcome = expect({"error": not bad.ok, "alive": alive.ok}, {"error": True, "alive": True})
    else:
        outcome = not_applicable("the store takes no argument the probe could give the wrong type")
    add(
        "bad-input-is-error",
        "a store of the wrong types is an error result, and the server answers the next call",
        outcome,
        [ops.tool("store")],
    )
    if ops.has("delete"):
        await ops.delete([a])
        gone = await ops.recall(a.token)
        kept = await ops.recall(b.token)
        add(
            "delete-removes",
            "a deleted item no longer comes back from recall; the others still do",
            expect(
                {"deleted": a.token in found(gone), "kept": b.token in found(kept)},
                {"deleted": False, "kept": True},
            ),
            [ops.tool("delete"), recall],
        )
        await ops.delete([b, c])
    else:
        add("delete-removes", "delete removes an item", not_applicable("no delete operation"), [])
    return rows


async def measure_memory_cost(ops: MemoryOps, sizes: Sequence[int], seed: int) -> list[dict[str, Any]]:
    """Store the standard items up to each size (growing), and measure each read form there."""
    made = items(max(sizes), seed)
    loaded = 0
    results = []
    per_call = 100 if ops.batchable() else 1
    for size in sorted(sizes):
        for start in range(loaded, size, per_call):
            batch = made[start : min(size, start + per_call)]
            replies = await ops.store(batch)
            if not all(r.ok for r in replies) and len(batch) > 1:
                # A server may cap a batch below the schema's word: store the items one by one.
                replies = [reply for item in batch for reply in await ops.store([item])]
            if not all(r.ok for r in replies):
                bad = next(r for r in replies if not r.ok)
                raise ProbeError(f"storing the standard items failed: {bad.text[:200]}")
        loaded = size
        rows = []
        if ops.has("list"):
            rows.append(cost_row("list (full read)", {}, await ops.overview()))
            if ops.arg("list", "limit"):
                rows.append(cost_row("list, limit 10", {"limit": 10}, await ops.overview(10)))
        rows.append(
            cost_row(f"recall “{SHARED_WORD}” (every item matches)", {}, await ops.recall(SHARED_WORD))
        )
        if ops.arg("recall", "limit"):
            rows.append(
                cost_row(
                    f"recall “{SHARED_WORD}”, limit 10", {"limit": 10}, await ops.recall(SHARED_WORD, 10)
                )
            )
        rows.append(cost_row("recall of one item", {}, await ops.recall(made[size // 2].token)))
        results.append({"items": size, "reads": rows})
    if ops.has("delete"):
        await ops.delete(made[:loaded])
    return results
