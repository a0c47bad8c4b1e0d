"""Reasons read the text as a reader does: each class of misreading met on real memory servers, in the
shape it took there, on definitions written for these tests."""

from __future__ import annotations

from typing import Any

from scoring import score_snapshot, score_tool
from tests.scoring.conftest import make_tool, scores_of, snapshot_of

NAME = {"type": "string", "description": "Exact name of the note."}


def card_of(tools: list[dict[str, Any]], name: str) -> dict[str, Any]:
    return next(card for card in score_snapshot(snapshot_of(*tools))["tools"] if card["name"] == name)


def reason(card: dict[str, Any], key: str) -> str:
    return str(card["dimensions"][key]["justification"])


def test_a_limitation_of_the_tool_itself_does_not_set_it_apart_from_other_tools() -> None:
    for text in (
        "Delete a note from the vault. A deleted note can be recovered only from a backup.",
        "Open a note by its identifier. If the identifier doesn't resolve, nothing is returned.",
    ):
        card = score_tool(make_tool("note_tool", text, {"name": NAME}), ["note_search", "note_write"])
        assert card["dimensions"]["purpose"]["score"] < 5, (text, reason(card, "purpose"))


def test_a_create_tool_is_not_told_to_set_itself_apart_from_its_opposite() -> None:
    tools = [
        make_tool("create_note", "Create a note with a title and a body in the vault.", {"name": NAME}),
        make_tool("delete_note", "Delete a note from the vault by its exact name.", {"name": NAME}),
        make_tool("read_note", "Read a note's body from the vault by its exact name.", {"name": NAME}),
    ]
    card = card_of(tools, "create_note")
    assert "delete_note" not in reason(card, "purpose")
    assert "delete_note" not in reason(card, "usage_guidelines")


def test_a_title_equal_to_the_description_is_noted_not_tautological() -> None:
    text = "Append a paragraph to a note in the vault."
    tools = [
        make_tool(
            f"{verb}_note", f"{verb.title()} a paragraph of a note in the vault.", {"name": NAME}, title=None
        )
        for verb in ("prepend", "replace")
    ] + [make_tool("append_note", text, {"name": NAME}, title=text)]
    scorecard = score_snapshot(snapshot_of(*[{**tool, "title": tool["description"]} for tool in tools]))
    for card in scorecard["tools"]:
        assert "Tautological Description" not in card["flags"], card["name"]
        assert card["dimensions"]["purpose"]["score"] >= 3
        assert "repeats the title" in reason(card, "purpose")
    assert scorecard["server_score"]["tier"] != "C"


def test_a_stated_change_is_read_as_what_it_changes() -> None:
    card = score_tool(
        make_tool(
            "move_note",
            "Move a note to another folder. The file moves on disk and every link to it is rewritten to the "
            "new path.",
            {"name": NAME, "folder": {"type": "string", "description": "Target folder."}},
        )
    )
    assert "never says what it changes" not in reason(card, "completeness")
    assert "no sentence says what it changes" not in reason(card, "behavior")
    assert "side_effect" in reason(card, "behavior")


def test_return_shape_size_cap_and_refusal_are_disclosed_behaviour() -> None:
    card = score_tool(
        make_tool(
            "read_note",
            "Read a note's body by its exact name. You get the title, the Markdown body and the tags. A body "
            "over 200 KB comes back cut short. A name that matches nothing is refused.",
            {"name": NAME},
            annotations={"readOnlyHint": True},
        )
    )
    assert "Discloses no" not in reason(card, "behavior") and "Discloses nothing" not in reason(
        card, "behavior"
    )
    assert card["dimensions"]["behavior"]["score"] >= 4, reason(card, "behavior")


def test_a_response_that_can_be_passed_back_describes_the_return_value() -> None:
    card = score_tool(
        make_tool(
            "search_notes",
            "Search notes by a phrase. The response includes the full path, which can be passed back to "
            "read_note.",
            {"query": {"type": "string", "description": "Phrase to look for."}},
        ),
        ["read_note"],
    )
    completeness = reason(card, "completeness")
    assert "not described" not in completeness and "describe what comes back" not in completeness, (
        completeness
    )


def test_a_read_only_tool_is_never_said_to_change_state() -> None:
    card = score_tool(
        make_tool(
            "build_digest",
            "Build a digest of the notes of a folder, newest first.",
            {"folder": {"type": "string", "description": "Folder."}},
            annotations={"readOnlyHint": True},
        )
    )
    for key in ("behavior", "completeness"):
        assert "changes state" not in reason(card, key), reason(card, key)


def test_an_args_line_naming_a_delete_discloses_no_destruction() -> None:
    card = score_tool(
        make_tool(
            "drop_collection",
            "Drop a collection.\n\nArgs:\n    name: Name of the collection to delete",
            {"name": {"type": "string"}},
        )
    )
    assert card["dimensions"]["behavior"]["score"] <= 2, reason(card, "behavior")
    assert "Name of the collection" not in reason(card, "behavior")


def test_a_five_word_read_tool_is_not_complete() -> None:
    card = score_tool(
        make_tool(
            "get_note",
            "Get a note by name.",
            {"name": NAME},
            annotations={"readOnlyHint": True},
            output={"type": "object", "properties": {"body": {"type": "string"}}},
        )
    )
    assert card["dimensions"]["completeness"]["score"] <= 4, reason(card, "completeness")


def test_a_5_has_no_advice_and_no_reason_contradicts_another() -> None:
    described = {
        f"p{index}": {"type": "string", "description": f"Field {index} of the note."} for index in range(6)
    }
    tools = [
        make_tool(
            "update_note",
            "Update the fields of one note by its exact name; use create_note for a new note.",
            described,
            annotations={"readOnlyHint": False, "destructiveHint": False},
            output={"type": "object", "properties": {"note": {"type": "object"}}},
        ),
        make_tool("create_note", "Create a note.", {"name": NAME}, annotations={"readOnlyHint": False}),
        make_tool(
            "list_notes",
            "List the notes of a folder.",
            {"folder": {"type": "string", "description": "Folder."}},
            annotations={"readOnlyHint": True},
        ),
    ]
    for card in score_snapshot(snapshot_of(*tools))["tools"]:
        for key, entry in card["dimensions"].items():
            if entry["score"] == 5:
                assert "earn more" not in entry["justification"], (card["name"], key, entry["justification"])
        if "its behaviour" in reason(card, "completeness"):
            behaviour = reason(card, "behavior")
            assert "Discloses no" not in behaviour and "Discloses nothing" not in behaviour, card["name"]


ALIKE = "notes in the vault that mention a phrase and return their names."


def test_the_roll_up_and_the_tools_name_the_same_alike_pairs() -> None:
    tools = [
        make_tool(
            "find_notes", "Find notes in the vault that mention a phrase and return their names.", {"q": NAME}
        ),
        make_tool(
            "search_notes",
            "Search notes in the vault that mention a phrase and return their names.",
            {"q": NAME},
        ),
        make_tool("delete_note", "Delete one note from the vault by its exact name.", {"name": NAME}),
    ]
    scorecard = score_snapshot(snapshot_of(*tools))
    disambiguation = scorecard["server_score"]["coherence"]["disambiguation"]["justification"]
    named = {
        card["name"]: reason(card, "purpose")
        for card in scorecard["tools"]
        if "reads like" in reason(card, "purpose")
    }
    assert ("read alike" in disambiguation) == bool(named)
    assert "find_notes" in named and "search_notes" in named["find_notes"]
    assert "delete_note" not in named


def test_scores_and_sentences_are_in_the_json_scorecard() -> None:
    text = "Read a note by its exact name. Returns the body as Markdown."
    card = score_tool(make_tool("read_note", text, {"name": NAME}))
    assert [entry["text"] for entry in card["sentences"]] == [
        "Read a note by its exact name.",
        "Returns the body as Markdown.",
    ]
    for entry in card["sentences"]:
        assert text[entry["start"] : entry["end"]] == entry["text"]
        assert set(entry) >= {"start", "end", "text", "labels", "specific"}
    assert "purpose" in card["sentences"][0]["labels"] and "returns" in card["sentences"][1]["labels"]
    assert set(scores_of(card)) == set(card["dimensions"])


def test_a_value_given_as_a_structure_a_setting_or_choices_is_specific() -> None:
    # Plain words around it, on a tool whose name names no object: the value is what makes it specific.
    params = {
        "query": {"type": "string", "description": "Words to look for."},
        "dry_run": {"type": "boolean", "description": "Only report what would change."},
    }
    for sentence in (
        "Returns ranked { source, score, text } passages.",
        "By default dry_run=true.",
        "Each answer carries a verdict of ok/warn/block.",
        "Shows subscription credits, purchased credit packs, and total available credits.",
    ):
        card = score_tool(make_tool("lookup", f"Look up passages for a question. {sentence}", params))
        read = {entry["text"]: entry for entry in card["sentences"]}
        assert read[sentence]["specific"], (sentence, read[sentence])
