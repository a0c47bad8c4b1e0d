"""Which language a description is written in: English, which the analysis reads, or another one.

Cheap checks settle nearly every description: text mostly in a script other than Latin is not English,
and Latin text in which English function words are common is. Only the rest (short texts without them,
and text in another Latin-script language) is given to lingua, an offline detector whose n-gram models
ship inside its wheel, restricted to the Latin-script languages below and in its low-accuracy (trigram)
mode, which loads in a fraction of a second. Its verdict counts only when it gives English little
confidence, and texts of fewer than five prose words stay English ("Merge a pull request").
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache, lru_cache
from typing import Any

# Prose words: no digit, underscore or inner capital, not part of a domain name. Identifiers, acronyms
# (HTTP, PUT), code and names are the same in every language and only mislead the detector.
_PROSE_WORD = re.compile(r"(?<![\w`./-])[^\W\d_][^\W\d_A-Z]*(?:['’-][^\W\d_]+)*(?![\w`/]|\.\w)")
# A URL, scheme and all ("https" is no word of any language), taken out before prose words are read.
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S*", re.IGNORECASE)
_SENTENCE_START = frozenset(".!?:;\n(-\"'")
# The Latin-script languages told apart from English; other scripts are not English by their letters.
DETECTED_LANGUAGES = ("ENGLISH", "GERMAN", "SPANISH", "FRENCH", "PORTUGUESE", "ITALIAN", "DUTCH")
# Function words of English that none of the languages above uses as a word of its own.
_ENGLISH_FUNCTION_WORDS = frozenset(
    [
        "the",
        "and",
        "of",
        "to",
        "is",
        "are",
        "for",
        "with",
        "from",
        "this",
        "that",
        "by",
        "or",
        "it",
        "be",
        "as",
        "at",
        "if",
        "which",
        "when",
        "your",
        "you",
        "can",
        "its",
        "their",
        "into",
        "returns",
        "than",
        "not",
        "these",
        "those",
        "has",
        "have",
        "was",
        "were",
        "been",
        "any",
        "each",
        "only",
        "on",
    ]
)
# At least this share of the words being English function words is English without asking the detector.
_ENGLISH_SHARE = 0.06
# Below this confidence in English the detector's verdict stands; fewer prose words than this are English.
_UNSURE = 0.2
_FEWEST_WORDS = 5


def _latin(char: str) -> bool:
    return char.isascii() or unicodedata.name(char, "").startswith("LATIN")


def language_of(text: str) -> str:
    """``"English"``, or the name of the language or script ``text`` is written in (``"German"``,
    ``"Chinese or Japanese script"``); text that cannot be placed is taken as English."""
    return _language_of(text.strip())


@lru_cache(maxsize=8192)
def _language_of(text: str) -> str:
    if not text.isascii():
        letters = [char for char in text if char.isalpha()]
        foreign = [char for char in letters if not _latin(char)]
        if foreign and len(foreign) * 3 > len(letters):  # as the analysis counts words: two letters to one
            return f"{_script(foreign)} script"
    words = _prose_words(text)
    english = sum(word.lower() in _ENGLISH_FUNCTION_WORDS for word in words)
    if (english and english >= _ENGLISH_SHARE * len(words)) or len(words) < _FEWEST_WORDS:
        return "English"
    confidence = {
        value.language.name: value.value
        for value in _detector().compute_language_confidence_values(" ".join(words))
    }
    top = max(confidence, key=confidence.__getitem__)
    if top == "ENGLISH" or confidence["ENGLISH"] >= _UNSURE:
        return "English"
    return top.title() if _commoner_in(words, top) else "English"


def _commoner_in(words: list[str], language: str) -> bool:
    """Whether ``words`` are, taken together, commoner in ``language`` than in English by wordfreq: a
    second opinion on the trigram detector, which can take a few English words ("Usage", "Output",
    "Error handling") for German."""
    import wordfreq

    code = iso_code(language)
    lowered = [word.lower() for word in words]
    theirs = sum(wordfreq.zipf_frequency(word, code) for word in lowered) if code else 0.0
    return theirs > sum(wordfreq.zipf_frequency(word, "en") for word in lowered)


def _prose_words(text: str) -> list[str]:
    """The words of ``text`` that belong to its language: not identifiers or acronyms, nor a small word
    between two capitalised ones inside a sentence, which is part of a name ("Museum of Art")."""
    kept: list[tuple[str, bool]] = []  # (word, whether it is capitalised inside a sentence)
    text = _URL.sub(" ", text)
    for match in _PROSE_WORD.finditer(text):
        word = match.group(0)
        # Acronyms, and words of another script, which the Latin-script detector has no model of.
        if (len(word) > 1 and word.isupper()) or not all(map(_latin, word)):
            continue
        before = text[: match.start()].rstrip()
        kept.append((word, word[0].isupper() and bool(before) and before[-1] not in _SENTENCE_START))
    return [
        word
        for index, (word, _) in enumerate(kept)
        if not (0 < index < len(kept) - 1 and word.islower() and kept[index - 1][1] and kept[index + 1][1])
    ]


def _script(letters: list[str]) -> str:
    """The Unicode script most of ``letters`` belong to, by the first word of their character names."""
    counts: dict[str, int] = {}
    for char in letters:
        script = unicodedata.name(char, "UNKNOWN").split()[0]
        counts[script] = counts.get(script, 0) + 1
    script = max(counts, key=counts.__getitem__)
    return {
        "CJK": "Chinese or Japanese",
        "HIRAGANA": "Japanese",
        "KATAKANA": "Japanese",
        "HANGUL": "Korean",
    }.get(script, script.title())


def iso_code(language: str) -> str | None:
    """The ISO 639-1 code of a Latin-script language ``language_of`` names (``"German"`` -> ``"de"``),
    None for a script or English."""
    name = language.upper()
    if name not in DETECTED_LANGUAGES or name == "ENGLISH":
        return None
    from lingua import Language

    return str(getattr(Language, name).iso_code_639_1.name.lower())


@cache
def _detector() -> Any:
    from lingua import Language, LanguageDetectorBuilder

    languages = [getattr(Language, name) for name in DETECTED_LANGUAGES]
    return LanguageDetectorBuilder.from_languages(*languages).with_low_accuracy_mode().build()
