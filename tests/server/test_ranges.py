"""Ranged reads as pure functions: code-point offsets, whole characters, merged windows."""

from __future__ import annotations

import regex
from hypothesis import given
from hypothesis import strategies as st

from server.ranges import excerpt, find_windows, match_offsets, slice_text

GRAPHEMES = regex.compile(r"\X")

# Text built from pieces that are easy to split wrongly: emoji sequences, CJK, combining marks.
PIECES = ["a", "b", "é", "e\u0301", "東", "京", "😊", "👍🏽", "👨‍👩‍👧", "🇫🇷", " ", "TEST", "ab"]
texts = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)


def cluster_starts(text: str) -> set[int]:
    return {m.start() for m in GRAPHEMES.finditer(text)} | {len(text)}


def test_range_vector_from_the_contract():
    window = slice_text("aé😊z", 1, 2)
    assert (window.offset, window.text) == (1, "é😊")


def test_offset_past_the_end_is_an_empty_slice():
    assert slice_text("abc", 7, 5).text == ""
    assert slice_text("abc", 3).text == ""


def test_matches_overlap():
    assert match_offsets("aaaaa", "aa") == [0, 1, 2, 3]
    assert match_offsets("abc", "") == []


def test_touching_windows_merge():
    count, windows = find_windows("abca", "a", 1)
    assert count == 2 and [(w.offset, w.text) for w in windows] == [(0, "abca")]


def test_find_vector_from_the_contract():
    count, windows = find_windows("xxTESTyyyyyTESTzz", "TEST", 2)
    assert count == 2
    assert [(w.offset, w.text) for w in windows] == [(0, "xxTESTyy"), (9, "yyTESTzz")]


def test_a_combining_mark_is_never_cut_off_its_letter():
    window = slice_text("xe\u0301y", 1, 1)
    assert window.text == "e\u0301"
    _, windows = find_windows("abe\u0301cd", "b", 1)
    assert [w.text for w in windows] == ["abe\u0301"]


def test_an_emoji_sequence_is_never_split():
    family = "👨‍👩‍👧"
    window = slice_text(f"a{family}b", 2, 1)
    assert window.text == family and window.offset == 1


def test_excerpt_marks_a_cut():
    assert excerpt("short", 10) == "short"
    assert excerpt("abcdefghijkl", 5) == "abcd…"
    assert excerpt("😊" * 10, 4) == "😊😊😊…"


@given(texts, st.integers(0, 60), st.integers(0, 60))
def test_slices_hold_whole_characters_and_the_requested_range(text, offset, limit):
    window = slice_text(text, offset, limit)
    assert text[window.offset : window.offset + len(window.text)] == window.text
    if offset < len(text) and limit > 0:
        starts = cluster_starts(text)
        assert window.offset in starts and window.offset + len(window.text) in starts
        assert window.offset <= offset and window.offset + len(window.text) >= min(len(text), offset + limit)


@given(texts, st.sampled_from(["a", "TEST", "é", "😊", "b a", "ab"]), st.integers(0, 8))
def test_windows_are_disjoint_whole_and_never_exceed_the_text(text, needle, context):
    count, windows = find_windows(text, needle, context)
    assert count == len(match_offsets(text, needle))
    assert sum(len(w.text) for w in windows) <= len(text)
    starts = cluster_starts(text)
    end = -1
    for window in windows:
        assert window.offset > end  # disjoint and not touching: touching windows merge
        assert text[window.offset : window.offset + len(window.text)] == window.text
        assert window.offset in starts and window.offset + len(window.text) in starts
        end = window.offset + len(window.text)
    for at in match_offsets(text, needle):
        assert any(w.offset <= at and at + len(needle) <= w.offset + len(w.text) for w in windows)
