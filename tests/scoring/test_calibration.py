"""The rubric's calibration examples and the seed's memory_read reproduce their published scores."""

from __future__ import annotations

import json

import pytest

from scoring import score_snapshot, score_tool
from tests.scoring.conftest import make_tool, scores_of, snapshot_of

# The rubric's exact descriptions, as JSON strings (\u002f is a slash, \u2013 an en dash).
DESCRIPTIONS = {
    "get_calls": json.loads(
        r'"List ALL calls in date range \u2013 no user\u002fworkspace filtering. '
        r'To filter by user\u002fworkspace, use search_calls_extensive instead."'
    ),
    "update_drive": "Update shared drive settings including name, color, and restrictions.",
    "process": "Process",
    "create_record": "Creates a new record in the database",
}
ORDER = ("purpose", "usage_guidelines", "behavior", "parameters", "conciseness", "completeness")


def assert_within_one(card: dict, published: tuple[int, ...]) -> None:
    got = scores_of(card)
    for key, expected in zip(ORDER, published, strict=True):
        assert abs(got[key] - expected) <= 1, f"{card['name']} {key}: {got[key]} vs published {expected}"


def test_get_calls_scores_5_5_3_3_5_5_tier_a() -> None:
    tool = make_tool(
        "get_calls",
        DESCRIPTIONS["get_calls"],
        {
            "fromDateTime": {"type": "string", "description": "Start of the range (ISO 8601)."},
            "toDateTime": {"type": "string", "description": "End of the range (ISO 8601)."},
        },
        required=["fromDateTime", "toDateTime"],
        annotations={"readOnlyHint": True, "destructiveHint": False},
    )
    card = score_tool(tool, ["get_calls", "search_calls_extensive"])
    assert_within_one(card, (5, 5, 3, 3, 5, 5))
    assert card["tier"] == "A"
    assert "search_calls_extensive" in card["dimensions"]["usage_guidelines"]["justification"]


def test_update_drive_scores_4_2_2_3_4_2_tier_c() -> None:
    tool = make_tool(
        "update_drive",
        DESCRIPTIONS["update_drive"],
        {
            "driveId": {"type": "string", "description": "The ID of the shared drive."},
            "name": {"type": "string", "description": "The new name of the shared drive."},
            "colorRgb": {"type": "string"},
            "restrictions": {"type": "object"},
        },
        required=["driveId"],
    )
    card = score_tool(tool)
    assert_within_one(card, (4, 2, 2, 3, 4, 2))
    assert card["tier"] == "C"
    assert {"usage_guidelines", "behavior"} <= set(card["smells"])


def test_process_scores_1_1_1_1_2_1_tier_d() -> None:
    tool = make_tool(
        "process",
        DESCRIPTIONS["process"],
        {"input": {"type": "string"}, "mode": {"type": "string"}, "options": {"type": "object"}},
    )
    card = score_tool(tool)
    assert_within_one(card, (1, 1, 1, 1, 2, 1))
    assert card["tier"] == "D"
    assert scores_of(card)["conciseness"] == 2  # under-specification is not conciseness


def test_create_record_marked_read_only_contradicts_its_annotations() -> None:
    tool = make_tool(
        "create_record",
        DESCRIPTIONS["create_record"],
        {"table": {"type": "string", "description": "Table name."}},
        annotations={"readOnlyHint": True},
    )
    card = score_tool(tool)
    assert scores_of(card)["behavior"] == 1
    assert "Annotation Contradiction" in card["flags"]
    assert any(f["rule"] == "annotation-contradiction" for f in card["findings"])


def test_seed_memory_read_scores_within_one_of_glama_and_tier_a(memory_read: dict) -> None:
    siblings = ["memory_search", "memory_write", "memory_link", "memory_forget"]
    card = score_tool(memory_read, siblings)
    assert_within_one(card, (5, 5, 4, 3, 4, 5))
    assert card["tier"] == "A"
    assert card["flags"] == []


def test_no_description_gate_scores_every_dimension_1() -> None:
    card = score_tool(make_tool("fetch_page", None, {"url": {"type": "string"}}))
    assert set(scores_of(card).values()) == {1}
    assert card["total"] == 1.0 and card["tier"] == "D"
    assert card["flags"] == ["No Description"]


def test_whitespace_description_is_no_description() -> None:
    card = score_tool(make_tool("fetch_page", "   \n "))
    assert card["flags"] == ["No Description"]


def test_tautological_description_caps_purpose_at_2() -> None:
    card = score_tool(
        make_tool("get_weather", "Get weather", {"city": {"type": "string", "description": "City"}})
    )
    assert "Tautological Description" in card["flags"]
    assert scores_of(card)["purpose"] <= 2


def test_a_description_that_repeats_the_title_is_noted_not_flagged() -> None:
    # Clients show the title beside the description, so repeating it is redundancy, not a tautology: the
    # tautology gate is for a description that only restates the tool's name.
    text = "Look up the weather for a city"
    card = score_tool(make_tool("wx", text, title=text))
    assert "Tautological Description" not in card["flags"]
    assert "repeats the title" in card["dimensions"]["purpose"]["justification"]


def test_smells_are_the_dimensions_below_3() -> None:
    card = score_tool(make_tool("update_drive", DESCRIPTIONS["update_drive"]))
    assert card["smells"] == [key for key, value in scores_of(card).items() if value < 3]


def test_every_justification_names_evidence_and_is_short(memory_read: dict) -> None:
    snapshot = snapshot_of(
        memory_read,
        make_tool("update_drive", DESCRIPTIONS["update_drive"], {"driveId": {"type": "string"}}),
        make_tool("process", "Process"),
    )
    for card in score_snapshot(snapshot)["tools"]:
        for key, entry in card["dimensions"].items():
            text = entry["justification"]
            assert 20 <= len(text) <= 600, (card["name"], key, text)
            assert entry["question"].endswith("?")
            if entry["score"] < 5:  # says what would earn more
                assert any(
                    word in text
                    for word in (
                        "earn",
                        "Say",
                        "say",
                        "Document",
                        "add",
                        "Add",
                        "name",
                        "Write",
                        "Close",
                        "Fix",
                        "State",
                        "start",
                    )
                ), text


@pytest.mark.parametrize("dimension", ORDER)
def test_scorecard_dimensions_have_the_fixed_keys(dimension: str, memory_read: dict) -> None:
    entry = score_tool(memory_read)["dimensions"][dimension]
    assert set(entry) >= {"score", "question", "justification"}
    assert entry["score"] in range(1, 6)
