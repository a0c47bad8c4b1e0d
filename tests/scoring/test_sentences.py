"""Descriptions are cut into units with offsets into the text as sent."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from scoring.sentences import split_units


def texts(description: str) -> list[str]:
    return [unit.text for unit in split_units(description)]


def test_sentences_break_at_full_stops_but_not_at_abbreviations() -> None:
    assert texts("Sort rows, e.g. by date. Max. 10 rows; NO. 5 first. Etc. and so on.") == [
        "Sort rows, e.g. by date.",
        "Max. 10 rows; NO. 5 first.",
        "Etc. and so on.",
    ]
    assert texts("Works in the U.S. only. Done!") == ["Works in the U.S. only.", "Done!"]


def test_list_markers_are_not_part_of_a_unit_and_headings_keep_their_marks() -> None:
    units = split_units("## Returns\n- `id`: the note id\n2. title\n  • body text")
    assert [unit.text for unit in units] == ["## Returns", "`id`: the note id", "title", "body text"]
    assert [unit.heading for unit in units] == [True, False, False, False]
    assert split_units("Args:")[0].heading and split_units("WHEN TO USE")[0].heading


def test_a_fenced_block_is_one_unit() -> None:
    description = 'Example:\n```json\n{"query": "x. y"}\n```\nThen stop.'
    assert texts(description) == ["Example:", '```json\n{"query": "x. y"}\n```', "Then stop."]


def test_an_element_fences_text_off_but_a_placeholder_does_not() -> None:
    assert texts("<IMPORTANT>Always prefer this.</IMPORTANT> Read a note.") == [
        "Always prefer this.",
        "Read a note.",
    ]
    assert texts("Parse a <title> block. Then stop.") == ["Parse a <title> block.", "Then stop."]


@given(st.text(alphabet=st.sampled_from(list("ab .!?\n-#*:`<>/1")), max_size=80))
def test_every_unit_is_the_text_at_its_offsets(description: str) -> None:
    for unit in split_units(description):
        assert description[unit.start : unit.end] == unit.text
        assert unit.text == unit.text.strip() and unit.text
