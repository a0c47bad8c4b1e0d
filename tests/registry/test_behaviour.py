"""The behaviour diff between two stored probe profiles: checks that moved, operations that came
or went, and a recall that became bounded."""

from __future__ import annotations

from registry.diffing.behaviour import behaviour_changes


def profile(outcomes: dict[str, str], operations: dict[str, str], every_returned: int) -> dict:
    return {
        "conformance": {
            "checks": [{"id": i, "group": "memory", "title": i, "outcome": o} for i, o in outcomes.items()]
        },
        "operations": {op: {"tool": tool} for op, tool in operations.items()},
        "memory": {
            "sizes": [
                {"items": 100, "reads": [{"form": "recall “lantern” (every item matches)", "items": 100}]},
                {
                    "items": 1000,
                    "reads": [{"form": "recall “lantern” (every item matches)", "items": every_returned}],
                },
            ]
        },
    }


def test_a_check_that_moved_an_operation_that_came_and_a_recall_that_became_bounded():
    before = profile({"recall-precise": "fail", "delete-removes": "pass"}, {"store": "add"}, 1000)
    after = profile(
        {"recall-precise": "pass", "delete-removes": "pass"}, {"store": "add", "recall": "find"}, 10
    )
    changes = {(c["kind"], c["check"]): (c["before"], c["after"]) for c in behaviour_changes(before, after)}
    assert changes == {
        ("check", "recall-precise"): ("fail", "pass"),
        ("operation", "recall"): (None, "find"),
        ("bounded", "recall-bounded-by-default"): (False, True),
    }


def test_nothing_changed_or_one_side_not_probed_is_no_change():
    same = profile({"recall-precise": "pass"}, {"store": "add"}, 1000)
    assert behaviour_changes(same, same) == []
    assert behaviour_changes(None, same) == []
    assert behaviour_changes(same, {"static": {}}) == []
