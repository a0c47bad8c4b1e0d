"""TDQS arithmetic: the dimension weights, exact integer half-up rounding, tiers and roll-ups.

Everything is integer arithmetic on hundredths or tenths; floats appear only in the returned
one-decimal values. Summing float weights lands just below ties such as 3.45, and Python's
``round`` rounds half to even, so neither is used.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

# Scorecard key -> (weight in hundredths, TDQS spec key, label). Order is the rubric's order.
DIMENSIONS: dict[str, tuple[int, str, str]] = {
    "purpose": (25, "purpose_clarity", "Purpose"),
    "usage_guidelines": (20, "usage_guidelines", "Usage Guidelines"),
    "behavior": (20, "behavioral_transparency", "Behavior"),
    "parameters": (15, "parameter_semantics", "Parameters"),
    "conciseness": (10, "conciseness_structure", "Conciseness"),
    "completeness": (10, "contextual_completeness", "Completeness"),
}
WEIGHTS: dict[str, int] = {key: weight for key, (weight, _, _) in DIMENSIONS.items()}
DIMENSION_LABELS: dict[str, str] = {key: label for key, (_, _, label) in DIMENSIONS.items()}

COHERENCE_DIMENSIONS: dict[str, str] = {
    "disambiguation": "Disambiguation",
    "naming_consistency": "Naming Consistency",
    "tool_count": "Tool Count Appropriateness",
    "completeness": "Completeness",
}

TIERS: tuple[tuple[str, int], ...] = (("A", 35), ("B", 30), ("C", 20), ("D", 10))
TIER_LETTERS: tuple[str, ...] = (*(letter for letter, _ in TIERS), "F")  # best first


def round1(numerator: int, denominator: int) -> float:
    """``numerator / denominator`` rounded half-up to one decimal, exactly."""
    return ((20 * numerator + denominator) // (2 * denominator)) / 10


def tenths(score: float) -> int:
    """A one-decimal score as an integer count of tenths (3.5 -> 35), without float drift."""
    # Scores are non-negative with one decimal, so the nearest integer is the exact count.
    return int(score * 10 + 0.5)


def tool_hundredths(scores: Mapping[str, int]) -> int:
    """The weighted sum of the six dimension scores, in hundredths (100..500)."""
    return sum(scores[key] * weight for key, weight in WEIGHTS.items())


def tdqs(scores: Mapping[str, int]) -> float:
    """The Tool Definition Quality Score: weighted sum rounded half-up to one decimal."""
    return round1(tool_hundredths(scores), 100)


def tier(score: float) -> str:
    """The tier letter of a one-decimal score (A >= 3.5, B >= 3.0, C >= 2.0, D >= 1.0, else F)."""
    value = tenths(score)
    for letter, floor in TIERS:
        if value >= floor:
            return letter
    return "F"


def tier_rank(letter: str) -> int:
    """Higher is better: A=4 ... F=0; raises ValueError for an unknown letter."""
    return len(TIER_LETTERS) - 1 - TIER_LETTERS.index(letter.upper())


def description_quality(tool_scores: Sequence[float]) -> float:
    """0.6 x mean + 0.4 x min of the tools' TDQS, computed exactly on tenths."""
    if not tool_scores:
        raise ValueError("description quality needs at least one scored tool")
    values = [tenths(score) for score in tool_scores]
    count = len(values)
    return round1(6 * sum(values) + 4 * count * min(values), 100 * count)


def coherence_score(dimension_scores: Sequence[int]) -> float:
    """The four equally weighted coherence dimensions, rounded half-up to one decimal."""
    return round1(sum(dimension_scores), len(dimension_scores))


def overall_score(description_quality_score: float, coherence: float) -> float:
    """0.7 x description quality + 0.3 x coherence, exactly."""
    return round1(7 * tenths(description_quality_score) + 3 * tenths(coherence), 100)
