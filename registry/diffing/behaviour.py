"""What the memory probe says changed between two versions of a server: the behaviour diff that
stands beside the schema diff in a changelog.

Pure. Each change is one check whose outcome moved (a search that now returns relations touching
either endpoint passes where it failed), an operation that appeared or went, or a read that
became bounded or unbounded (the recall every item matches returned all items before and fewer
now, or the other way round). Both versions must have a stored probe profile.
"""

from __future__ import annotations

from typing import Any

_MOVES = {
    ("fail", "pass"): "now passes",
    ("pass", "fail"): "now fails",
    ("n/a", "pass"): "now applies and passes",
    ("n/a", "fail"): "now applies and fails",
    ("pass", "n/a"): "no longer applies",
    ("fail", "n/a"): "no longer applies",
}


def _checks(profile: dict[str, Any]) -> dict[str, dict[str, Any]]:
    rows = (profile.get("conformance") or {}).get("checks") or []
    return {row["id"]: row for row in rows if isinstance(row, dict) and "id" in row}


def _bounded(profile: dict[str, Any]) -> bool | None:
    sizes = (profile.get("memory") or {}).get("sizes") or []
    if not sizes:
        return None
    largest = max(sizes, key=lambda size: size["items"])
    every = next((r for r in largest["reads"] if str(r["form"]).endswith("(every item matches)")), None)
    return None if every is None else every["items"] < largest["items"]


def behaviour_changes(before: dict[str, Any] | None, after: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The probe's changes from ``before`` to ``after`` (both probe profiles), in check order."""
    if not before or not after or "conformance" not in before or "conformance" not in after:
        return []
    changes: list[dict[str, Any]] = []
    old, new = _checks(before), _checks(after)
    for check_id, row in new.items():
        if check_id not in old:
            continue
        move = (old[check_id]["outcome"], row["outcome"])
        if move in _MOVES:
            changes.append(
                {
                    "kind": "check",
                    "check": check_id,
                    "group": row.get("group"),
                    "before": move[0],
                    "after": move[1],
                    "message": f"{row.get('title') or check_id}: {_MOVES[move]} (was {move[0]})",
                }
            )
    old_ops, new_ops = before.get("operations") or {}, after.get("operations") or {}
    for op in sorted(set(old_ops) | set(new_ops)):
        was, now = (old_ops.get(op) or {}).get("tool"), (new_ops.get(op) or {}).get("tool")
        if was != now:
            changes.append(
                {
                    "kind": "operation",
                    "check": op,
                    "group": None,
                    "before": was,
                    "after": now,
                    "message": f"operation {op}: "
                    + (f"now {now}" if now and not was else f"{was} → {now}" if now else f"{was} is gone"),
                }
            )
    was_bounded, now_bounded = _bounded(before), _bounded(after)
    if None not in (was_bounded, now_bounded) and was_bounded != now_bounded:
        changes.append(
            {
                "kind": "bounded",
                "check": "recall-bounded-by-default",
                "group": None,
                "before": was_bounded,
                "after": now_bounded,
                "message": "a recall every item matches "
                + (
                    "now returns fewer than all (bounded)"
                    if now_bounded
                    else "now returns every item (unbounded)"
                ),
            }
        )
    return changes
