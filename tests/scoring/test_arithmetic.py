"""The TDQS arithmetic: weights, integer half-up rounding, tiers and the server roll-up."""

from __future__ import annotations

import itertools

import pytest

from scoring.arithmetic import (
    WEIGHTS,
    coherence_score,
    description_quality,
    overall_score,
    round1,
    tdqs,
    tier,
    tool_hundredths,
)

# linux-mcp-daemon v0.3.5, as published: Beh, Con, Cmp, Par, Pur, Use, hundredths, TDQS, tier.
PUBLISHED = [
    ("auth/sudo-rules", 3, 5, 4, 3, 5, 3, 380, 3.8, "A"),
    ("cpu/list", 2, 5, 4, 3, 5, 5, 400, 4.0, "A"),
    ("cpu/load-average", 3, 5, 4, 3, 5, 4, 400, 4.0, "A"),
    ("disks/free", 4, 5, 4, 3, 4, 4, 395, 4.0, "A"),
    ("disks/health", 4, 5, 4, 3, 5, 4, 420, 4.2, "A"),
    ("disks/list", 4, 5, 5, 4, 5, 5, 465, 4.7, "A"),
    ("disks/mounts", 3, 5, 4, 3, 5, 5, 420, 4.2, "A"),
    ("disks/partitions", 3, 4, 4, 3, 5, 4, 390, 3.9, "A"),
    ("disks/performance", 3, 5, 4, 4, 5, 4, 415, 4.2, "A"),
    ("disks/usage", 2, 5, 3, 3, 5, 5, 390, 3.9, "A"),
    ("files/chmod", 4, 5, 4, 4, 5, 4, 435, 4.4, "A"),
    ("files/chown", 5, 5, 4, 3, 5, 4, 440, 4.4, "A"),
    ("files/create", 2, 5, 3, 3, 4, 2, 305, 3.1, "B"),
    ("files/filetype", 4, 5, 4, 3, 5, 5, 440, 4.4, "A"),
    ("files/find", 2, 3, 1, 3, 4, 2, 265, 2.7, "C"),
    ("files/list", 3, 5, 4, 3, 5, 4, 400, 4.0, "A"),
    ("files/read", 3, 4, 3, 3, 4, 3, 335, 3.4, "B"),
    ("files/update", 3, 5, 3, 3, 5, 3, 370, 3.7, "A"),
    ("kernel/system-control", 4, 5, 4, 3, 5, 4, 420, 4.2, "A"),
]


@pytest.mark.parametrize("row", PUBLISHED, ids=[row[0] for row in PUBLISHED])
def test_published_linux_daemon_rows_reproduce_exactly(row: tuple) -> None:
    _, beh, con, cmp_, par, pur, use, hundredths, published, letter = row
    scores = {
        "purpose": pur,
        "usage_guidelines": use,
        "behavior": beh,
        "parameters": par,
        "conciseness": con,
        "completeness": cmp_,
    }
    assert tool_hundredths(scores) == hundredths
    assert tdqs(scores) == published
    assert tier(tdqs(scores)) == letter


def test_spec_worked_example_rounds_285_to_2_9() -> None:
    scores = {
        "purpose": 4,
        "usage_guidelines": 2,
        "behavior": 2,
        "parameters": 3,
        "conciseness": 4,
        "completeness": 2,
    }
    assert tool_hundredths(scores) == 285
    assert tdqs(scores) == 2.9
    assert tier(2.9) == "C"


def test_every_tie_rounds_half_up_where_floats_would_not() -> None:
    ties = 0
    for vector in itertools.product(range(1, 6), repeat=6):
        scores = dict(zip(WEIGHTS, vector, strict=True))
        hundredths = tool_hundredths(scores)
        expected = (hundredths + 5) // 10 / 10
        assert tdqs(scores) == expected
        ties += hundredths % 10 == 5
    assert ties > 0


def test_round1_is_half_up_not_bankers() -> None:
    assert round1(345, 100) == 3.5
    assert round1(325, 100) == 3.3  # banker's rounding of 32.5 would give 3.2
    assert round1(305, 100) == 3.1
    assert round1(19, 4) == 4.8


@pytest.mark.parametrize(
    ("score", "letter"),
    [(3.5, "A"), (3.4, "B"), (3.0, "B"), (2.9, "C"), (2.0, "C"), (1.9, "D"), (1.0, "D"), (0.9, "F")],
)
def test_tier_boundaries(score: float, letter: str) -> None:
    assert tier(score) == letter


def test_coherence_github_example_is_4_8() -> None:
    assert coherence_score([5, 5, 5, 4]) == 4.8
    assert coherence_score([1, 2, 3, 2]) == 2.0


def test_overall_tie_trap_publishes_a_in_integers() -> None:
    assert overall_score(3.0, 4.5) == 3.5
    assert tier(overall_score(3.0, 4.5)) == "A"


def test_spec_server_example() -> None:
    # mean 3.4, min 2.1: two tools 4.7 and 2.1 have mean 3.4.
    quality = description_quality([4.7, 2.1])
    assert quality == 2.9 and tier(quality) == "C"
    coherence = coherence_score([4, 5, 5, 4])
    assert coherence == 4.5 and tier(coherence) == "A"
    assert overall_score(quality, coherence) == 3.4


def test_description_quality_uses_the_exact_mean() -> None:
    # mean of 3.1, 3.1, 3.2 is 3.1333...; 0.6 x 3.1333 + 0.4 x 3.1 = 3.12 -> 3.1
    assert description_quality([3.1, 3.1, 3.2]) == 3.1
    with pytest.raises(ValueError):
        description_quality([])
