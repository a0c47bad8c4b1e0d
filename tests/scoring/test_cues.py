"""Cue scanning: a cue's ASCII and lower-case forms find exactly what its Unicode form finds, where used."""

from __future__ import annotations

import re

import pytest

from scoring import cues, lints
from scoring.cues import _RUN, Cue, _prefixes, _word_heads, reads_as_ascii, reads_in_lower_case

CUES = [value for module in (cues, lints) for value in vars(module).values() if isinstance(value, Cue)]
PROBES = [r"\w", r"\W", r"\d", r"\D", r"\s", r"\S", r"\b", r"\B"] + [re.escape(chr(c)) for c in range(128)]


@pytest.fixture(scope="module")
def descriptions(corpus_tools: list[dict]) -> list[str]:
    return [
        tool.get("description") or ""
        for server in corpus_tools
        for entry in server["tools"].values()
        for tool in entry["tools"]
    ]


def test_ascii_form_agrees_on_every_ascii_character_it_is_used_for() -> None:
    for char in map(chr, range(128)):
        for probe in PROBES:
            pattern = rf"(?:{probe})x" if probe in (r"\b", r"\B") else probe
            text = f"{char}x" if probe in (r"\b", r"\B") else char
            unicode_form = re.fullmatch(pattern, text, re.IGNORECASE)
            ascii_form = re.fullmatch(pattern, text, re.IGNORECASE | re.ASCII)
            assert bool(unicode_form) == bool(ascii_form) or not reads_as_ascii(text), (probe, char)
    assert not reads_as_ascii("a\x1cb") and not reads_as_ascii("café") and reads_as_ascii("a\tb\nc")


def test_a_pattern_naming_a_character_beyond_ascii_keeps_the_unicode_form() -> None:
    # Case-insensitively the dotless i (U+0131) in the range matches "i"; the ASCII form would miss it.
    assert Cue(r"[\u0100-\u017f]x").search("ix") is not None
    assert Cue("\u212aelvin").search("kelvin") is not None


def test_every_cue_finds_the_same_matches_in_its_ascii_and_lower_case_forms(descriptions: list[str]) -> None:
    texts = [text for text in descriptions if reads_as_ascii(text)]
    assert len(texts) > 400
    for cue in CUES:
        assert cue.regex is not cue._ascii_regex
        for text in texts:
            unicode_spans = [match.span() for match in cue.regex.finditer(text)]
            assert [match.span() for match in cue._ascii_regex.finditer(text)] == unicode_spans, cue.pattern
            if cue._lower_case_regex is not None:
                lower_case_spans = [match.span() for match in cue._lower_case_regex.finditer(text.lower())]
                assert lower_case_spans == unicode_spans, (cue.pattern, text)
            expected = (
                [match.group(0) for match in cue.regex.finditer(text)] if cue._possible(text, None) else []
            )
            assert [match.group(0) for match in cue.finditer(text)] == expected


def test_a_pattern_reads_in_lower_case_only_without_capitals_ranges_or_flags() -> None:
    for pattern in (r"\bdelete\w*\S", r"[- ]only[^]-]", r"(?:a|b)(?<!x)(?=y)", r"[\w/][a-]"):
        assert reads_in_lower_case(pattern), pattern
    for pattern in (r"IMPORTANT", r"[!-a]", r"[\.-z]", r"[^a-z]", r"(?i:x)", r"(?-i:x)", r"(?P<name>x)"):
        assert not reads_in_lower_case(pattern), pattern
    assert sum(cue._lower_case_regex is None for cue in CUES) == 1  # only EMPHASIS, in capitals


def test_a_match_found_in_lower_case_keeps_the_case_of_the_text() -> None:
    cue = Cue(r"\bdelete\w*")
    assert cue.search("Please DELETE it").group(0) == "DELETE"
    assert [match.group(0) for match in cue.finditer("Deletes, then DELETED")] == ["Deletes", "DELETED"]
    assert cues.EMPHASIS.search("important: x").group(0) == "important:"


def test_word_heads_are_the_first_three_characters_of_every_word() -> None:
    texts = ["<script> eval(", "a<b #1 <<c #<d # <", "'x'", "\u0130stanbul \u212aelvin", "Get_User."]
    for text in texts:
        assert _word_heads(text) - {"<", "#"} >= {token[:3] for token in _RUN.findall(text.lower())}
    assert not any(cue.heads & {"<", "#"} for cue in CUES if cue.heads)  # a lone mark starts no match


def test_a_word_opened_by_a_quote_or_mark_has_its_own_head(descriptions: list[str]) -> None:
    assert {"del", "'de", "#de", "<de"} <= _word_heads("the 'delete' call, #delete, <delete>")
    assert Cue(r"\bdelete\w*").search("Calls the 'delete' endpoint").group(0) == "delete"
    # Every word of real descriptions opened by each mark: the pre-check never hides a match.
    texts = [re.sub(r"\b(?=[A-Za-z])", mark, text) for mark in ("'", "#", "<") for text in descriptions[:150]]
    for cue in CUES:
        for text in texts:
            assert bool(cue.search(text)) == bool(cue.regex.search(text)), (cue.pattern, text[:80])


def test_a_word_spelt_with_a_case_twin_of_an_ascii_letter_has_its_ascii_head(descriptions: list[str]) -> None:
    # Every character beyond ASCII that a letter matches when case is ignored, found by asking re itself.
    twins = {
        char: letter
        for char in map(chr, range(0x80, 0x110000))
        if re.fullmatch("[a-z]", char, re.IGNORECASE)
        for letter in "abcdefghijklmnopqrstuvwxyz"
        if re.fullmatch(letter, char, re.IGNORECASE)
    }
    assert set(twins.values()) == {"i", "k", "s"}
    assert Cue(r"\bsearch").search("\u017fearch notes").group(0) == "\u017fearch"
    # Each twin in place of its letter at the start of every word of real descriptions: the pre-check
    # never hides a match the pattern finds.
    texts = [
        re.sub(rf"\b{letter}", char, text, flags=re.IGNORECASE)
        for char, letter in twins.items()
        for text in descriptions[:150]
    ]
    for cue in CUES:
        for text in texts:
            assert bool(cue.search(text)) == bool(cue.regex.search(text)), (cue.pattern, text[:80])


def test_a_cue_is_skipped_exactly_when_no_word_starts_like_a_match(descriptions: list[str]) -> None:
    texts = [*descriptions, "e", "E.g. x", "do", "'delete'", "<script", "#1 pick", "not"]
    for cue in CUES:
        if cue.heads is None:
            continue
        starts = {prefix[:3] for prefix in _prefixes(cue.pattern)}
        for text in texts:
            lower = text.lower()
            # A word opened by a quote, "<" or "#" counts with the mark and without it.
            words = _RUN.findall(lower) + _RUN.findall(re.sub("['<#]", " ", lower))
            assert cue._possible(text, None) == any(word.startswith(tuple(starts)) for word in words)
