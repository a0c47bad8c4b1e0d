"""Local $ref resolution: the one resolver the diff, the pages, the scorer and the memory server use."""

from __future__ import annotations

import pytest

from common.refs import LocalRefs

DOCUMENT = {
    "properties": {"x": {"anyOf": [{"type": "string"}, {"type": "integer"}]}},
    "$defs": {"Name": {"type": "string"}, "a/b": {"const": 1}, "t~x": {"const": 2}, "100%": {"const": 3}},
    "definitions": {"Old": {"type": "boolean"}},
}


@pytest.mark.parametrize(
    ("ref", "expected"),
    [
        ("#/$defs/Name", {"type": "string"}),
        ("#/definitions/Old", {"type": "boolean"}),
        ("#/properties/x/anyOf/1", {"type": "integer"}),
        ("#/$defs/a~1b", {"const": 1}),  # RFC 6901 escapes
        ("#/$defs/t~0x", {"const": 2}),
        ("#/$defs/100%25", {"const": 3}),  # a URI fragment is percent-decoded first
        ("#", DOCUMENT),
    ],
)
def test_local_pointers_resolve(ref: str, expected: object) -> None:
    assert LocalRefs(DOCUMENT).resolve(ref) == expected


@pytest.mark.parametrize(
    "ref",
    [
        "#/$defs/Missing",
        "#/properties/x/anyOf/7",
        "#/properties/x/anyOf/one",
        "https://example.com/s.json#/a",  # another document is never fetched
        "",
    ],
)
def test_what_names_nothing_here_is_none(ref: str) -> None:
    assert LocalRefs(DOCUMENT).resolve(ref) is None
