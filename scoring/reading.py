"""What each sentence of a description tells an agent, read by a model learned from labelled sentences.

A description is cut into units (``scoring.sentences``); each unit is described by features (its
words and word pairs, lightly normalised, with the tool's own parameter and sibling names standing
as placeholders; its shape; its place; the heading it sits under; how many specific words it
holds) and a linear model gives it the labels of the clause codebook and whether it is specific to
its tool. The weights are data (``scoring/model/sentences.json``), fitted by ``scoring.training``
from hand-labelled sentences; the same ``unit_features`` serve training and scoring, so the two
cannot drift apart.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from scoring import lexicon
from scoring.sentences import Unit, split_units
from scoring.toolset import name_verb
from scoring.words import STOPWORDS, is_identifier, name_words, verb_lemma

# The clause codebook's labels, in its order.
LABELS: tuple[str, ...] = (
    "purpose",
    "usage",
    "alternative",
    "side_effect",
    "auth",
    "limits",
    "returns",
    "errors",
    "param_meaning",
    "param_restated",
    "filler",
    "model_instruction",
    "none",
)
MODEL_PATH = Path(__file__).resolve().parent / "model" / "sentences.json"
MODEL_FORMAT = "mcpdex.sentence-model/1"


@dataclass(frozen=True)
class ToolContext:
    """What a unit is read against: the tool's name, its parameters and its siblings' names, and how
    common each word is across tool descriptions (``SentenceModel.common``)."""

    name: str = ""
    params: frozenset[str] = frozenset()  # parameter names, lower-cased
    siblings: Collection[str] = ()  # the other tool names of the server
    name_words: frozenset[str] = field(default=frozenset())
    object_words: frozenset[str] = field(default=frozenset())  # the name's words that are not its verb
    param_words: frozenset[str] = field(default=frozenset())
    common: Mapping[str, float] = field(default_factory=dict)

    @classmethod
    def of(cls, name: str, params: Collection[str] = (), siblings: Collection[str] = ()) -> ToolContext:
        lowered = frozenset(param.lower() for param in params)
        words = frozenset(name_words(name))
        _, resource = name_verb(name)
        return cls(
            name=name,
            params=lowered,
            siblings=siblings,
            name_words=words,
            object_words=frozenset(_word_form(w) for w in resource if len(w) > 2 and w not in STOPWORDS),
            param_words=frozenset(word for param in params for word in name_words(param)),
        )


@dataclass(frozen=True)
class ReadUnit:
    """A unit with what the model read in it."""

    unit: Unit
    labels: tuple[str, ...]
    specific: bool
    chances: tuple[float, ...] = ()  # the model's probability of each label, in LABELS order

    def chance(self, label: str) -> float:
        """How likely the unit carries ``label``, as the model reads it; 0 for a unit that is not specific."""
        return self.chances[LABELS.index(label)] if self.specific and self.chances else 0.0

    @property
    def text(self) -> str:
        return self.unit.text

    def says(self, label: str) -> bool:
        """Whether the unit carries ``label`` and something specific to its tool."""
        return self.specific and label in self.labels


# Code spans, URLs, identifiers and words, numbers, and the punctuation that shapes a unit.
_TOKEN = re.compile(
    r"`[^`\n]{1,80}`|https?://\S+|[A-Za-z][A-Za-z0-9]*(?:['’][a-z]+)?(?:[_.\-/][A-Za-z0-9]+)*|\d+(?:[.,:]\d+)*"
    r"|->|=>|→|[:;()\[\]{}=<>\"'$%#@*?!|]"
)
_NEGATION = frozenset(
    ["not", "never", "no", "cannot", "can't", "don't", "doesn't", "won't", "without", "nor"]
)
# What makes a unit specific to its tool, whatever the model says: a value (a number, a quoted or code
# value, a URL, a parameter set to a value, choices joined by slashes, a structure naming its fields), a
# tool's or other identifier's name, a word of the tool's own name that names its object (in a purpose
# sentence only: elsewhere "many tasks" of a task tool says nothing), a list of three or more named
# things, or a word that is rare both in English (wordfreq's Zipf scale: below 4, about once in 100,000
# words) and across tool descriptions (in fewer than 2 in 100 of them, 1 for a word found once in a
# million words of English), and names a thing rather than a quality ("versatile", "seamlessly",
# "functionality" name nothing). Content-free wording is made of everyday words, so it is never read as
# specific however the model reads it.
RARE_ZIPF = 4.0
RARE_SHARE = 0.02
# Labels a plain-worded sentence earns when it speaks of the tool's own object (_discloses_of_own_object).
DISCLOSURES = ("usage", "side_effect", "auth", "limits", "returns", "errors")
DISCLOSURE_CHANCE = 0.7  # how sure the model must be of a plain-worded disclosure (_discloses_of_own_object)
DISCLOSURE_WORDS = 6
# The parts of a tool definition itself (MCP's own terms): a sentence that names one speaks of the
# interface ("takes parameters as described in the input schema"), even of get_database_schema.
INTERFACE_WORDS = frozenset(
    {
        "argument",
        "call",
        "field",
        "function",
        "input",
        "output",
        "parameter",
        "property",
        "request",
        "response",
        "result",
        "schema",
        "tool",
        "value",
    }
)
_EMPTY = frozenset(["param_restated", "filler", "none"])  # labels that are never specific
OBJECT_SHARE = 0.1
FAIRLY_COMMON_ZIPF = 3.0  # once in a million words of English
COMMON_SHARE = 0.01  # the shares the model keeps: the words of at least one description in a hundred
_WORDS = re.compile(r"[A-Za-z][a-z]+")
_QUOTED = re.compile(r"\"[^\"\n]{1,40}\"|(?<![A-Za-z])'[^'\s][^'\n]{0,38}'(?![A-Za-z])")
# Three or more short named things in a row ("the number, title, state and URL") are specific content.
_ENUMERATION = re.compile(r"\b\w+(?: \w+){0,2}, \w+(?: \w+){0,2},? (?:and|or) \w+")
# A structure that names its fields ("{ source, score, text }", "[r, g, b]", "{ tables: [...] }").
_FIELD_STRUCTURE = re.compile(r"[{\[]\s*[A-Za-z_]\w*\s*[,:]")
_CODE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[_.][A-Za-z0-9]+)+|[a-z]+[A-Z][A-Za-z0-9]*")
# How many words of a unit's heading or of the unit before it are features of it.
_CONTEXT_WORDS = 4


@lru_cache(maxsize=32768)
def _word_form(word: str) -> str:
    """A word's base form, so that "returns", "returned" and "return" are one feature."""
    lower = word.lower()
    reading = lexicon.verb_reading(lower) if lower.isalpha() and len(lower) > 3 else None
    if reading is not None:
        return reading[0]
    if len(lower) > 4 and lower.endswith("ies"):
        return lower[:-3] + "y"
    if len(lower) > 3 and lower.endswith("s") and not lower.endswith(("ss", "us", "is")):
        return lower[:-1]
    return lower


@lru_cache(maxsize=32768)
def _names_a_thing(word: str) -> bool:
    """Whether a lower-case word could carry something specific: not a quality, not the plural of an
    everyday noun ("contexts" of "context"), not rare for its spelling alone."""
    return word.isalpha() and len(word) > 2 and not lexicon.is_modifier(word) and not lexicon.is_generic(word)


def _specific_word(word: str, context: ToolContext) -> bool:
    """Whether ``word`` (lower case) says something specific to the tool (see ``RARE_ZIPF``)."""
    base = _word_form(word)
    if word in context.param_words or not _names_a_thing(word):
        return False
    zipf = max(lexicon.zipf(word), lexicon.zipf(base))  # "scenarios" is as common as "scenario"
    if zipf >= RARE_ZIPF:
        return False
    share = context.common.get(base, 0.0)
    # Fairly common in English and fairly common in tool descriptions is common enough ("workflows").
    return share < (RARE_SHARE if zipf < FAIRLY_COMMON_ZIPF else COMMON_SHARE)


def _names_an_object(word: str, context: ToolContext) -> bool:
    """Whether ``word`` (lower case) can name what a purpose sentence's verb acts on: a content word, not
    only a verb, not a quality, and not one of the words one in ten tool descriptions use ("tool", "data",
    "user"). Read in purpose sentences only, where it names the object of the action."""
    if len(word) < 3 or not word.isalpha() or word in STOPWORDS or lexicon.is_modifier(word):
        return False
    return context.common.get(_word_form(word), 0.0) < OBJECT_SHARE


# Words that end the object of a purpose verb: what follows says for what, from where, how.
# English prepositions, conjunctions and relative words: a closed class, so a list is the whole of it.
# "of" is left out ("a list of repositories" acts on repositories), and "out" ("fill out a form").
_OBJECT_ENDS = frozenset(
    (  # noqa: SIM905 (a word list reads better as prose)
        "about above across after against along among and around as at before behind below beneath"
        " beside between beyond but by despite during except for from if in inside into like near onto"
        " or outside over past per since than that through throughout to toward towards under unless"
        " until upon using via when where whether which while with within without"
    ).split()
)
# Prepositions that, right after a verb, lead to what it acts on ("search for places", "click on a link",
# "look into logs"); "by" and "with" lead to a means ("search by text" names no object).
_PHRASAL = frozenset(["for", "on", "into", "through"])
_PHRASE_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'_.-]*")


def object_phrase(text: str) -> list[str]:
    """The words a purpose sentence says the tool acts on: those after the verb that leads it (among its
    first three words) and the preposition that may follow it, up to the next preposition or conjunction
    ("Get dividends for a symbol": dividends; "Search for places in an area": places; "Search by text":
    none)."""
    # A word keeps its inner dots and hyphens ("v2.1", "read-only") but not the full stop after it.
    words = [word.rstrip(".-'") for word in _PHRASE_WORD.findall(text)]
    lead = next((i for i, word in enumerate(words[:3]) if verb_lemma(word) is not None), -1)
    taken: list[str] = []
    for position, word in enumerate(words[lead + 1 :]):
        if word.lower() in _OBJECT_ENDS:
            if position == 0 and word.lower() in _PHRASAL:  # the verb's own: "Search for places"
                continue
            break
        taken.append(word)
    return taken


def _own_object(word: str, context: ToolContext) -> bool:
    """Whether ``word`` (lower case) names what the tool acts on by its name: a purpose sentence that
    names it states the tool's object ("List all calls in a date range" of get_calls), unless one in ten
    tool descriptions uses it ("tool", "user")."""
    base = _word_form(word.split("'")[0])
    return base in context.object_words and context.common.get(base, 0.0) < OBJECT_SHARE


def _discloses_of_own_object(
    text: str, labels: Sequence[str], chances: Sequence[float], context: ToolContext
) -> bool:
    """Whether a later unit the model surely reads as a disclosure (when to call it, what a call returns,
    changes, needs, bounds or how it fails) says it of the tool's own object, in plain words: "Failed
    reads for individual files won't stop the entire operation" of read_multiple_files, "Use it to find a
    note before editing it" of search_notes. The object must be named past the unit's first word (which
    leads an imperative), neither as a parameter nor as one of the words for a tool definition's own
    parts, and the unit must run to a sentence, so "Raises an exception on invalid input" of any tool
    earns nothing. Words of the purpose's object and parameter names do not count: content-free
    sentences share them by chance too often ("useful for many tasks" of task_status)."""
    if not any(chances[LABELS.index(label)] >= DISCLOSURE_CHANCE for label in DISCLOSURES if label in labels):
        return False
    words = _PHRASE_WORD.findall(text)
    return len(words) >= DISCLOSURE_WORDS and any(
        (lowered := word.lower()) not in context.params
        and _word_form(lowered) not in INTERFACE_WORDS
        and _own_object(lowered, context)
        for word in words[1:]
    )


def _names_things(listed: str) -> bool:
    """Whether a list of three or more names things: two of its items end on a word that is no quality
    ("the number, title, state and URL"; not "versatile, robust and intuitive")."""
    items = re.split(r",\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+", listed)
    return sum(1 for item in items if item.split() and not lexicon.is_modifier(item.split()[-1].lower())) >= 2


def _tokens(text: str, context: ToolContext) -> tuple[list[str], dict[str, int]]:
    """The normalised tokens of ``text`` and counts of what they name (parameters, tools, rare words…)."""
    tokens: list[str] = []
    counts = {"param": 0, "tool": 0, "ident": 0, "evidence": 0, "num": 0, "own": 0, "words": 0}
    params, siblings = context.params, context.siblings
    if ('"' in text or "'" in text) and _QUOTED.search(text):
        counts["evidence"] += 1
    if "," in text and any(_names_things(match.group(0)) for match in _ENUMERATION.finditer(text)):
        counts["evidence"] += 1
    if ("{" in text or "[" in text) and _FIELD_STRUCTURE.search(text):
        counts["evidence"] += 1
    for raw in _TOKEN.findall(text):
        first = raw[0]
        if first == "`":
            inner = raw[1:-1].strip()
            lowered = inner.lower()
            if lowered in params:
                tokens.append("<param>")
                counts["param"] += 1
            elif inner == context.name or inner in siblings:
                tokens.append("<tool>" if inner != context.name else "<self>")
                counts["tool"] += inner != context.name
                counts["evidence"] += 1
            else:
                tokens.append("<code>")
                counts["ident"] += 1
                counts["evidence"] += 1
            continue
        if first.isdigit():
            tokens.append("<num>")
            counts["num"] += 1
            counts["evidence"] += 1
            continue
        if not first.isalpha():
            tokens.append(raw)
            continue
        if raw.startswith(("http://", "https://")):
            tokens.append("<url>")
            counts["evidence"] += 1
            continue
        counts["words"] += 1
        lowered = raw.lower()
        if lowered in params:
            tokens.append("<param>")
            counts["param"] += 1
            counts["own"] += _own_object(lowered, context)  # "Create entities" of create_entities(entities)
        elif raw == context.name:
            tokens.append("<self>")
            counts["evidence"] += 1
        elif raw in siblings:
            tokens.append("<tool>")
            counts["tool"] += 1
            counts["evidence"] += 1
        elif raw.count("/") >= 2 and not raw.startswith(("/", ".")):  # "ok/warn/block", "archive/year/x"
            tokens.append("<ident>")
            counts["ident"] += 1
            counts["evidence"] += 1
        elif is_identifier(raw):
            tokens.append("<ident>")
            counts["ident"] += 1
            # "read-only" and "non-destructive" are words joined by a hyphen, not names of code
            code = _CODE_NAME.fullmatch(raw) is not None
            counts["evidence"] += code or any(
                _specific_word(part, context) for part in re.split(r"[-/]", lowered) if part
            )
        else:
            tokens.append(_word_form(raw))
            counts["own"] += _own_object(lowered, context)
            counts["evidence"] += _specific_word(lowered, context)
    # A parameter given a value ("dry_run=true", "mode=append") states a default or a choice.
    if "=" in text:
        counts["evidence"] += sum(
            1
            for first, sign, value in zip(tokens, tokens[1:], tokens[2:], strict=False)
            if first == "<param>" and sign == "=" and (value[0].isalnum() or value[0] in "<\"'")
        )
    return tokens, counts


def _bucket(value: int, edges: Sequence[int]) -> int:
    """The index of the first edge ``value`` does not exceed (len(edges) past the last)."""
    for index, edge in enumerate(edges):
        if value <= edge:
            return index
    return len(edges)


def unit_features(
    units: Sequence[Unit],
    index: int,
    context: ToolContext,
    tokens_of: Callable[[int], tuple[list[str], dict[str, int]]] | None = None,
) -> list[str]:
    """The features of ``units[index]`` read in its description and against its tool; ``tokens_of(i)``
    gives unit i's tokens when a caller reading every unit keeps them."""
    if tokens_of is None:

        def tokens_of(position: int) -> tuple[list[str], dict[str, int]]:
            return _tokens(units[position].text, context)

    unit = units[index]
    tokens, counts = tokens_of(index)
    features = {f"w:{token}" for token in tokens}
    features.update(f"b:{left} {right}" for left, right in zip(["^", *tokens], tokens, strict=False))
    if tokens:
        features.add(f"h:{tokens[0]}")
        features.add(f"h2:{' '.join(tokens[:2])}")
    # Only what comes before a unit is read with it, so text added after it cannot change its reading.
    features.add(f"at:{min(index, 2)}")
    features.add(f"n:{_bucket(counts['words'], (1, 3, 7, 15, 30))}")
    for key, edges in (
        ("param", (0, 1)),
        ("tool", (0,)),
        ("ident", (0, 1)),
        ("evidence", (0, 1, 2)),
        ("num", (0,)),
    ):
        features.add(f"{key}:{_bucket(counts[key], edges)}")
    if counts["own"]:
        features.add("own")
    if unit.heading:
        features.add("heading")
    first = tokens[0] if tokens else ""
    if first == "<param>" and len(tokens) > 1 and tokens[1] in {":", "(", "=", "-", "->", "→"}:
        features.add("param-first")
    if _NEGATION.intersection(unit.text.lower().split()) or "n't" in unit.text:
        features.add("negated")
    if unit.text.isupper() and counts["words"] >= 2:
        features.add("shouted")
    for previous in range(index - 1, -1, -1):
        if units[previous].heading:
            heading, _ = tokens_of(previous)
            features.update(f"sec:{token}" for token in heading[:_CONTEXT_WORDS] if token.isalpha())
            if previous == index - 1:
                features.add("under-heading")
            break
    if index:
        before, _ = tokens_of(index - 1)
        features.update(f"pw:{token}" for token in before if token[0].isalpha())
    return sorted(features)


@dataclass(frozen=True)
class SentenceModel:
    """A linear model per output (each label, then ``specific``), applied to a unit's features."""

    labels: tuple[str, ...]
    bias: tuple[float, ...]
    thresholds: tuple[float, ...]
    weights: dict[str, tuple[float, ...]]
    # Words in at least one in a hundred of the training tools' descriptions, with the share of them.
    common: dict[str, float]

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> SentenceModel:
        if data.get("format") != MODEL_FORMAT:
            raise ValueError(f"not a sentence model of format {MODEL_FORMAT}")
        return cls(
            labels=tuple(data["labels"]),
            bias=tuple(data["bias"]),
            thresholds=tuple(data["thresholds"]),
            weights={feature: tuple(row) for feature, row in data["weights"].items()},
            common={word: float(share) for word, share in data["common"].items()},
        )

    def probabilities(self, features: Sequence[str]) -> list[float]:
        """The probability of each label, then of ``specific``."""
        weights = self.weights
        rows = [row for feature in features if (row := weights.get(feature)) is not None]
        sums = map(sum, zip(self.bias, *rows, strict=True)) if rows else iter(self.bias)
        return [1.0 / (1.0 + math.exp(-min(max(value, -30.0), 30.0))) for value in sums]

    def classify(self, features: Sequence[str]) -> tuple[tuple[str, ...], bool]:
        """The labels a unit earns (at least one: the likeliest relative to its threshold) and whether it
        is specific."""
        labels, specific, _ = self.read(features)
        return labels, specific

    def read(self, features: Sequence[str]) -> tuple[tuple[str, ...], bool, tuple[float, ...]]:
        """``classify``, with the probability of each label."""
        *scores, specific = self.probabilities(features)
        chosen = tuple(
            label
            for label, score, threshold in zip(self.labels, scores, self.thresholds, strict=False)
            if score >= threshold
        )
        if not chosen:
            best = max(range(len(self.labels)), key=lambda i: scores[i] / self.thresholds[i])
            chosen = (self.labels[best],)
        # param_restated is never specific (the codebook); filler and none earn nothing whatever they say;
        # and a unit with no evidence of anything specific (see RARE_ZIPF) is not, whatever the model says.
        evident = "evidence:0" not in features
        empty = _EMPTY & set(chosen)
        specific_kept = specific >= self.thresholds[-1] and evident and not empty
        return chosen, specific_kept, tuple(round(score, 4) for score in scores)


@cache
def shipped_model() -> SentenceModel:
    """The model fitted on the labelled sentences, as shipped in the package."""
    return SentenceModel.from_data(json.loads(MODEL_PATH.read_text(encoding="utf-8")))


def read_units(
    units: Sequence[Unit], context: ToolContext, model: SentenceModel | None = None
) -> list[ReadUnit]:
    """Each unit with its labels and specificity. Besides what the specificity rule credits (a value, a
    name, a rare word), an opening unit that states the purpose is specific when it names an object (a
    word of the tool's name, or a content word tool descriptions do not all use: "Create entities in the
    knowledge graph"), as the one sentence whose job that is; anywhere else such words are as often
    generic ("useful for many tasks" of a task tool, "it works well" of update_work_status)."""
    model = model or shipped_model()
    context = replace(context, common=model.common)
    tokens = [_tokens(unit.text, context) for unit in units]
    read: list[ReadUnit] = []
    for index, unit in enumerate(units):
        features = unit_features(units, index, context, tokens.__getitem__)
        labels, specific, chances = model.read(features)
        if specific or _EMPTY & set(labels):
            pass
        elif index == 0:
            specific = "purpose" in labels and (
                "own" in features
                or any(_names_an_object(w.lower(), context) for w in object_phrase(unit.text))
            )
        else:
            specific = _discloses_of_own_object(unit.text, labels, chances, context)
        read.append(ReadUnit(unit, labels, specific, chances))
    return read


def common_words(descriptions: Collection[str]) -> dict[str, float]:
    """The words (in their base form) found in at least ``COMMON_SHARE`` of ``descriptions``, each with
    the share of descriptions it is found in, to four places."""
    counts: Counter[str] = Counter()
    for description in descriptions:
        counts.update({_word_form(word) for word in _WORDS.findall(description)})
    total = max(1, len(descriptions))
    return {word: round(n / total, 4) for word, n in sorted(counts.items()) if n / total >= COMMON_SHARE}


def read_description(
    description: str, context: ToolContext, model: SentenceModel | None = None
) -> list[ReadUnit]:
    """The units of ``description`` with what each tells an agent."""
    return read_units(split_units(description), context, model)
