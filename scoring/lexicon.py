"""English word knowledge from maintained resources: how common a word is, and whether it is a verb form.

Word frequencies come from ``wordfreq`` (Zipf scale: 7 for "the", 3 for a word met once in a million
words), verb forms and their lemmas from ``lemminflect``. Importing and loading the two takes about a
second, more than scoring a hundred tools, so the tables the scorer reads are derived from them once
and kept as JSON in the user's cache folder, keyed by where and when both libraries were installed; a
cache that cannot be written is rebuilt in memory by each process.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
from functools import lru_cache
from importlib.util import find_spec
from pathlib import Path
from typing import TypedDict

from platformdirs import user_cache_dir

# Words at least this common (about once in 100,000 words of English) say nothing specific by themselves:
# "result", "needed", "error", "useful", "many". Rarer words ("timestamp", "cutoff", "idempotent") do.
GENERIC_ZIPF = 4.0
# Words this common ("page", "title", "needed", about once in 10,000 words) are everyday English even in a
# tool's own name; "weather", "issues" and "file" are not quite, and name what the tool is about.
EVERYDAY_ZIPF = 5.0
# How much rarer one inflected form reads in a language that inflects more than English.
_INFLECTED_ZIPF = 0.5
_KEPT_ZIPF = 3.0  # the cache stores frequencies down to here; anything rarer reads as rare
_VERB_ZIPF = 1.5  # verb forms are looked up for every word at least this common
_PARTICLES = ("up", "out", "down", "off", "in", "over", "back")
_FORMAT = 3


def _cache_path() -> Path:
    # Where both libraries are installed and when, read without importing them (importlib.metadata alone
    # takes a tenth of a second): an upgrade or a new environment derives the tables again.
    stamps = []
    for package in ("wordfreq", "lemminflect"):
        spec = find_spec(package)
        origin = spec.origin if spec and spec.origin else package
        stamps.append(f"{origin}:{os.stat(origin).st_mtime_ns if os.path.exists(origin) else 0}")
    key = hashlib.sha256("|".join([*stamps, str(_FORMAT)]).encode()).hexdigest()[:16]
    return Path(user_cache_dir("mcpdex")) / f"lexicon-{key}.json"


class _Tables(TypedDict):
    """The derived tables, as cached in one JSON file."""

    zipf: dict[str, float]  # word -> Zipf frequency, for words at least _KEPT_ZIPF
    verbs: dict[str, tuple[str, bool]]  # verb form -> (lemma, also another part of speech); a JSON pair
    modifiers: list[str]  # words that read as adjectives or adverbs and never as verbs


def _build() -> _Tables:
    """The frequency and verb tables, from the two libraries themselves."""
    import lemminflect
    import wordfreq

    zipf: dict[str, float] = {}
    verbs: dict[str, tuple[str, bool]] = {}
    modifiers: list[str] = []
    for word, frequency in wordfreq.get_frequency_dict("en", "small").items():
        value = math.log10(frequency * 1e9)
        if value >= _KEPT_ZIPF:
            zipf[word] = round(value, 2)
        if value < _VERB_ZIPF or not word.isalpha():
            continue
        readings = lemminflect.getAllLemmas(word)
        if ({"ADJ", "ADV"} & readings.keys() and "VERB" not in readings) or (
            not readings and word.endswith("ly")
        ):
            modifiers.append(word)
        if "VERB" in readings:
            # [lemma, whether the form also reads as a noun or adjective ("set", "live")]
            verbs[word] = (readings["VERB"][0], any(pos != "VERB" for pos in readings))
    return {"zipf": zipf, "verbs": verbs, "modifiers": modifiers}


@lru_cache(maxsize=1)
def _tables() -> _Tables:
    path = _cache_path()
    try:
        cached: _Tables = json.loads(path.read_text(encoding="utf-8"))
        return cached
    except (OSError, ValueError):
        pass
    tables = _build()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, encoding="utf-8") as out:
            json.dump(tables, out, separators=(",", ":"))
        os.replace(out.name, path)
    except OSError:
        pass  # a read-only home: every process derives the tables again
    return tables


def zipf(word: str) -> float:
    """How common ``word`` is in English on the Zipf scale; 0 for words rarer than the cache keeps."""
    return _tables()["zipf"].get(word.lower(), 0.0)


def _singulars(word: str) -> tuple[str, ...]:
    if word.endswith("ies"):
        return (word[:-3] + "y",)
    if word.endswith("s") and not word.endswith("ss"):
        return (word[:-1], word[:-2]) if word.endswith("es") else (word[:-1],)
    return ()


def is_generic(word: str) -> bool:
    """Whether ``word`` is so common in English that it says nothing specific on its own. A plural splits
    its noun's frequency with the singular, so it is as generic as a noun half a point commoner: "contexts"
    (3.6) is, as "context" (4.6) is, while "commits" (3.5; "commit", 4.3) is not."""
    lower = word.lower()
    return zipf(lower) >= GENERIC_ZIPF or any(
        zipf(singular) - _INFLECTED_ZIPF >= GENERIC_ZIPF for singular in _singulars(lower)
    )


@lru_cache(maxsize=16384)
def is_generic_in(word: str, language: str) -> bool:
    """Whether ``word`` is so common in the language of ISO 639-1 code ``language`` ("de", "es") that it
    says nothing specific on its own. Read from wordfreq itself: it is asked only for descriptions that
    are not in English. German and the Romance languages spread a word over many more inflected forms
    than English ("usarla", "überschreibt"), each rarer for it, so the line is half a point lower."""
    import wordfreq

    return wordfreq.zipf_frequency(word, language) >= GENERIC_ZIPF - _INFLECTED_ZIPF


@lru_cache(maxsize=1)
def _modifiers() -> frozenset[str]:
    return frozenset(_tables()["modifiers"])


# Nouns of a quality, made from an adjective: "usability" (usable), "functionality" (functional),
# "robustness" (robust), "tidiness" (tidy). Not "-ency" or "-ivity", which name things as often
# ("latency", "currency", "dependency", "activity").
_QUALITY_NOUN = (("ility", "le"), ("ality", "al"), ("iness", "y"), ("ness", ""))


def is_modifier(word: str) -> bool:
    """Whether ``word`` reads as an adjective or an adverb and never as a verb ("versatile", "seamlessly",
    "intuitive"), or names the quality of one ("usability", "robustness"): it rates or colours what it
    qualifies and, however rare, names nothing by itself."""
    lower = word.lower()
    modifiers = _modifiers()
    if lower in modifiers:
        return True
    singular = lower[:-3] + "y" if lower.endswith("ies") else lower
    return any(
        singular.endswith(suffix) and singular[: -len(suffix)] + base in modifiers
        for suffix, base in _QUALITY_NOUN
    )


@lru_cache(maxsize=8192)
def verb_reading(word: str) -> tuple[str, bool, str] | None:
    """(lemma, also another part of speech, the verb's form) when ``word`` is an English verb, else None.

    A solid phrasal verb reads as its verb: "cleanup" as "clean", "lookup" as "look", "login" as "log".
    """
    lower = word.lower()
    verbs = _tables()["verbs"]
    if lower in verbs:
        lemma, ambiguous = verbs[lower]
        return lemma, ambiguous, lower
    for particle in _PARTICLES:
        stem = lower.removesuffix(particle)
        if stem != lower and len(stem) >= 3 and stem in verbs:
            return verbs[stem][0], True, stem
    return None
