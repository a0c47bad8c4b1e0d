"""From what a tool's sentences say, and from its structure, to the fitted dimensions' scores.

Each of Behavior, Parameters, Conciseness and Completeness is a weighted sum of a few named pieces
of evidence, rounded to 1-5. The evidence is what the rubric names: which labels the specific
sentences carry, the schema's coverage, the annotations, the output schema, the tool's size. The
weights and the intercept are fitted to the scores Glama published (``scoring.training``) and
shipped in ``scoring/model/dimensions.json``; evidence that the rubric says earns credit has a
weight of at least 0, a fault at most 0, so no sentence that says nothing can raise a score.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from scoring.reading import ReadUnit
from scoring.signals import ContextSignals
from scoring.words import verb_lemma

MAPPING_PATH = Path(__file__).resolve().parent / "model" / "dimensions.json"
MAPPING_FORMAT = "mcpdex.dimension-mapping/1"
FITTED = ("behavior", "parameters", "conciseness", "completeness")
# Labels that disclose behaviour beyond the action itself, as the Behavior question lists it.
BEHAVIOUR_LABELS = ("side_effect", "auth", "limits", "errors", "returns")


@dataclass(frozen=True)
class Piece:
    """One piece of evidence of a dimension: its key, what it means, whether it earns or costs, and
    what an author can do to earn it (empty when the text cannot change it)."""

    key: str
    meaning: str
    earns: bool  # True: weight >= 0 (credit); False: weight <= 0 (a fault)
    advice: str = ""
    rubric: bool = True  # the rubric names it, so it earns (or costs) at least its dimension's floor


# What a piece the rubric names earns or costs at least, whatever the fit, per dimension: a fit alone lets a
# disclosure the rubric names earn next to nothing where the published scores seldom show it. Of
# Conciseness's faults all but the ones Glama's scores contradict have one (a sentence that says nothing
# specific costs nothing there, and the fit says so): Glama gives most tools a 5.
RUBRIC_FLOORS = {"behavior": 0.4, "parameters": 0.4, "completeness": 0.3, "conciseness": 0.5}

# The evidence of each fitted dimension, in the order its justification names it.
PIECES: dict[str, tuple[Piece, ...]] = {
    "behavior": (
        Piece(
            "side_effect",
            "says what a call changes, or that it changes nothing",
            True,
            "say what a call changes or destroys, or that it changes nothing [side_effect]",
        ),
        Piece(
            "auth",
            "says what access or credentials it needs",
            True,
            "say what access, credentials or account it needs [auth]",
        ),
        Piece(
            "limits",
            "states bounds (sizes, counts, rates, scope)",
            True,
            "state its bounds: sizes, counts, rates, paging, scope [limits]",
        ),
        Piece(
            "errors", "says when and how it fails", True, "say when and how it fails, and what then [errors]"
        ),
        Piece("returns", "describes what comes back", True, "describe what comes back [returns]"),
        Piece("more", "a second and third disclosing sentence", True, rubric=False),
        Piece(
            "annotated",
            "declares behaviour annotations",
            True,
            "declare annotations (readOnlyHint, destructiveHint, idempotentHint)",
        ),
        Piece("read_only", "is annotated read-only", True, rubric=False),
        Piece("content", "how many specific sentences it has", True, rubric=False),
        Piece("words", "how many informative words it has", True, rubric=False),
        Piece("unstated_change", "changes state without saying what it changes", False),
    ),
    "parameters": (
        Piece("no_params", "takes no parameters", True, rubric=False),
        Piece(
            "schema_coverage",
            "share of parameters the schema describes",
            True,
            "describe every parameter in the schema",
        ),
        Piece(
            "text_coverage",
            "share of the undescribed parameters the text documents",
            True,
            "document in the text the parameters the schema leaves bare [param_meaning]",
        ),
        Piece(
            "meaning",
            "sentences that add parameter meaning beyond the schema",
            True,
            "explain formats, defaults, ranges or how parameters interact [param_meaning]",
        ),
        Piece("undocumented", "share of parameters nothing documents", False, rubric=False),
    ),
    "conciseness": (
        Piece("too_short", "too few informative words for what it must cover", False, rubric=False),
        Piece("too_long", "more words than a tool of this size needs", False),
        Piece("empty", "sentences that say nothing specific (filler, bare headings)", False, rubric=False),
        Piece("restated", "sentences that only restate parameters", False),
        Piece("set_aside", "assertive, promotional or priority wording", False),
        Piece("repeated", "a sentence said twice", False),
        Piece("late_purpose", "the purpose is not the first thing said", False),
    ),
    "completeness": (
        Piece("purpose", "states what it does to what", True, "state what it does to what [purpose]"),
        Piece(
            "usage",
            "says when to use it or what else to use",
            True,
            "say when to use it or what else to use [usage, alternative]",
        ),
        Piece(
            "behaviour",
            "discloses behaviour beyond the action",
            True,
            "disclose what it changes, needs, bounds or how it fails [side_effect, auth, limits, errors]",
        ),
        Piece(
            "returns",
            "the return value is described or has an output schema",
            True,
            "describe what comes back [returns], or declare an output schema",
        ),
        Piece(
            "parameters",
            "share of parameters documented in schema or text",
            True,
            "document every parameter [param_meaning]",
        ),
        Piece(
            "annotated",
            "declares behaviour annotations",
            True,
            "declare annotations (readOnlyHint, destructiveHint, idempotentHint)",
        ),
        Piece("content", "how many specific sentences it has", True, rubric=False),
        Piece("words", "how many informative words it has", True, rubric=False),
        Piece("complexity", "how many parameters it takes: the bar rises with them", False, rubric=False),
        Piece("unexplained_complexity", "five or more parameters and no parameter meaning", False),
        Piece("unstated_change", "changes state without saying what it changes", False),
    ),
}


# The pieces only the words can show, and how many further statements a description of another
# language is read by: there, each takes the value English descriptions of as many statements have on
# average (``Mapping.expected``), so the same content scores about the same in any language.
TEXTUAL: dict[str, tuple[str, ...]] = {
    "behavior": ("side_effect", "auth", "limits", "errors", "returns", "more", "content", "words"),
    "parameters": ("meaning",),
    "conciseness": ("empty", "restated", "late_purpose"),
    "completeness": ("usage", "behaviour", "returns", "content", "words", "unexplained_complexity"),
}
STATEMENT_BUCKETS = 4  # 0, 1, 2, and 3 or more further statements


@dataclass(frozen=True)
class Facts:
    """What the fitted dimensions read of one tool besides its sentences."""

    signals: ContextSignals
    documented_in_text: frozenset[str]  # parameters the schema leaves bare that the text documents
    param_names: tuple[str, ...]
    mutating: bool  # the name or the purpose creates, changes or deletes (or destructiveHint)
    words: int  # every word of the description
    informative_words: int  # words of the specific sentences
    set_aside: int  # sentences set aside as assertive, promotional or priority wording
    repeated: int  # sentences said a second time


def _says(units: Sequence[ReadUnit], label: str) -> list[ReadUnit]:
    return [unit for unit in units if unit.says(label)]


def word_budget(signals: ContextSignals) -> tuple[int, int]:
    """(fewest informative, most) words a description of this complexity takes: about six for what it
    does and two for each parameter nothing documents; forty, plus fifteen a parameter and twenty for
    nesting, at most."""
    params = min(signals["paramCount"], 10)
    nested = 1 if signals["hasNestedObjects"] or signals["unionChoiceCount"] else 0
    return 6, 40 + 15 * params + 20 * nested


_LEADING_WORDS = 4  # the words in which a purpose sentence says what the tool does, to be front-loaded
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


def _verb_comes_late(text: str) -> bool:
    """Whether a purpose sentence says what the tool does only after its first words ("Given a repository
    and some words …, this will search issues"); a noun phrase with no verb ("Weather forecast for a
    city") names the subject first."""
    positions = [i for i, word in enumerate(_WORD.findall(text)[:30]) if verb_lemma(word) is not None]
    return bool(positions) and positions[0] >= _LEADING_WORDS


def _mass(units: Sequence[ReadUnit], labels: Sequence[str], most: float = 1.0) -> float:
    """How much the specific units say of ``labels``: the sum over units of the model's likeliest of them,
    at most ``most``, as a share of ``most``."""
    return min(most, sum(max(unit.chance(label) for label in labels) for unit in units)) / most


_MANY_PARAMETERS = 10  # from here on a tool is as complex as Completeness reckons
# Units and informative words at which the amount of specific content counts in full (8 and 128).
_FULL_CONTENT_UNITS = 3  # log2(1 + 7)
_FULL_CONTENT_WORDS = 7  # log2(1 + 127)


def evidence(units: Sequence[ReadUnit], facts: Facts) -> dict[str, dict[str, float]]:
    """Per fitted dimension, the value of each piece of evidence, from 0 (absent) to 1 (in full). What a
    label contributes is the model's probability of it in the specific units, so a sentence the model is
    unsure of counts in part; units that are not specific contribute nothing but faults."""
    signals = facts.signals
    count = signals["paramCount"]
    described = signals["paramsWithDescriptions"]
    bare = max(0, count - described)
    in_text = len(facts.documented_in_text)
    meaning = _mass(units, ("param_meaning",), 2.0)
    change_stated = any(unit.says("side_effect") for unit in units)
    unstated = 1.0 if facts.mutating and not change_stated else 0.0
    fewest, most = word_budget(signals)
    needed = fewest + 2 * min(max(0, bare - in_text), 8)
    short = max(0.0, (needed - facts.informative_words) / needed)
    long = max(0.0, facts.words / most - 1.0)
    empty = sum(1 for unit in units if not unit.specific and "param_restated" not in unit.labels)
    restated = sum(1 for unit in units if "param_restated" in unit.labels)
    first_purpose = next((i for i, unit in enumerate(units) if "purpose" in unit.labels), None)
    late = first_purpose is None or first_purpose > 0 or _verb_comes_late(units[first_purpose].text)
    documented = 1.0 if count == 0 else min(1.0, (described + in_text) / count)
    specific = sum(1 for unit in units if unit.specific)
    content = {
        "content": min(1.0, math.log2(1 + specific) / _FULL_CONTENT_UNITS),
        "words": min(1.0, math.log2(1 + facts.informative_words) / _FULL_CONTENT_WORDS),
    }
    returns = _mass(units, ("returns",))
    return {
        "behavior": {
            **{label: _mass(units, (label,)) for label in BEHAVIOUR_LABELS},
            "more": _mass(units, BEHAVIOUR_LABELS, 3.0),
            "annotated": float(signals["hasAnnotations"]),
            "read_only": float(signals["annotationValues"]["readOnly"] is True),
            **content,
            "unstated_change": unstated,
        },
        "parameters": {
            "no_params": float(count == 0),
            "schema_coverage": 1.0 if count == 0 else described / count,
            "text_coverage": 1.0 if bare == 0 else min(1.0, in_text / bare),
            "meaning": meaning,
            "undocumented": 0.0 if count == 0 else 1.0 - documented,
        },
        "conciseness": {
            "too_short": short,
            "too_long": min(3.0, long),
            "empty": min(3, empty) / 3,
            "restated": min(3, restated) / 3,
            "set_aside": min(2, facts.set_aside) / 2,
            "repeated": min(1, facts.repeated),
            "late_purpose": float(late),
        },
        "completeness": {
            "purpose": float(any(unit.says("purpose") for unit in units)),
            "usage": _mass(units, ("usage", "alternative")),
            "behaviour": _mass(units, ("side_effect", "auth", "limits", "errors")),
            "returns": 1.0 if signals["hasOutputSchema"] else returns,
            "parameters": documented,
            "annotated": float(signals["hasAnnotations"]),
            **content,
            "complexity": min(1.0, count / _MANY_PARAMETERS),
            "unexplained_complexity": float(
                count >= 5 and not any(unit.says("param_meaning") for unit in units)
            ),
            "unstated_change": unstated,
        },
    }


@dataclass(frozen=True)
class Mapping:
    """Per fitted dimension, an intercept and a weight per piece of evidence."""

    intercepts: dict[str, float]
    weights: dict[str, dict[str, float]]
    # Per dimension and textual piece, its mean value in English descriptions by further statements.
    expected: dict[str, dict[str, tuple[float, ...]]]

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Mapping:
        if data.get("format") != MAPPING_FORMAT:
            raise ValueError(f"not a dimension mapping of format {MAPPING_FORMAT}")
        dimensions = data["dimensions"]
        return cls(
            intercepts={key: float(value["intercept"]) for key, value in dimensions.items()},
            weights={
                key: {k: float(w) for k, w in value["weights"].items()} for key, value in dimensions.items()
            },
            expected={
                key: {k: tuple(float(x) for x in row) for k, row in value.get("expected", {}).items()}
                for key, value in dimensions.items()
            },
        )

    def data(self) -> dict[str, Any]:
        """The mapping as written to ``scoring/model/dimensions.json``."""
        return {
            "format": MAPPING_FORMAT,
            "dimensions": {
                key: {
                    "intercept": self.intercepts[key],
                    "weights": self.weights[key],
                    "expected": {k: list(row) for k, row in self.expected.get(key, {}).items()},
                }
                for key in self.weights
            },
        }

    def expect(self, dimension: str, piece: str, statements: int) -> float:
        """The mean of ``piece`` in English descriptions with as many further statements."""
        row = self.expected.get(dimension, {}).get(piece)
        return row[min(statements, len(row) - 1)] if row else 0.0

    def value(self, dimension: str, values: dict[str, float]) -> float:
        """The unrounded score."""
        weights = self.weights[dimension]
        return self.intercepts[dimension] + sum(weights[key] * value for key, value in values.items())

    def score(self, dimension: str, values: dict[str, float]) -> int:
        """The score 1-5: the weighted sum, rounded half up."""
        return max(1, min(5, int(self.value(dimension, values) + 0.5)))

    def contributions(self, dimension: str, values: dict[str, float]) -> list[tuple[Piece, float]]:
        """Each piece of evidence present, with what it added to (or took from) the score."""
        weights = self.weights[dimension]
        return [
            (piece, weights[piece.key] * values[piece.key])
            for piece in PIECES[dimension]
            if values[piece.key] and weights[piece.key]
        ]

    def missing(self, dimension: str, values: dict[str, float]) -> list[tuple[Piece, float]]:
        """The credit-earning pieces an author can add, with what each would add, largest first: only the
        absent ones, since a reason that says a piece is covered must not also ask for it."""
        weights = self.weights[dimension]
        gaps = [
            (piece, weights[piece.key])
            for piece in PIECES[dimension]
            if piece.earns and piece.advice and weights[piece.key] > 0 and not values[piece.key]
        ]
        return sorted(gaps, key=lambda gap: -gap[1])


@cache
def shipped_mapping() -> Mapping:
    """The mapping fitted to Glama's published scores, as shipped in the package."""
    return Mapping.from_data(json.loads(MAPPING_PATH.read_text(encoding="utf-8")))
