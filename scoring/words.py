"""English words of tool names and descriptions: verbs by the kind of action they state (which the
lifecycle, the annotation checks and the claim checks read), stopwords, and the word-level readings
every check shares: tokens, verb lemmas, identifiers, names split into words.
"""

from __future__ import annotations

import re
from functools import lru_cache

from scoring import lexicon
from scoring.languages import language_of

_VERBS_BY_KIND: dict[str, str] = {
    "read": (
        "get list read fetch retrieve search find query show view describe lookup look browse inspect "
        "check count load download export scan explore monitor peek preview display return obtain "
        "access extract parse analyze analyse summarize summarise compare calculate compute convert "
        "translate format validate verify test evaluate resolve detect recognize identify estimate "
        "measure predict recommend suggest capture screenshot crawl scrape ping echo sample diff "
        "transcribe geocode encode decode hash sort filter match grep tokenize explain interpret "
        "classify render generate draw plot chart visualize visualise print calculate solve "
        "lint audit review research discover locate trace track watch poll open"
    ),
    "create": (
        "create add insert make register post publish upload write save store put build schedule book "
        "launch spawn invite submit commit push log record import install initialize init clone fork "
        "copy duplicate attach comment reply tag label star follow subscribe enqueue provision allocate"
    ),
    "update": (
        "update edit modify set change patch rename move replace merge assign configure enable disable "
        "toggle mark apply sync refresh reset restore resize rotate reorder transition approve reject "
        "archive lock unlock pin unpin adjust increment decrement upgrade migrate append link unlink "
        "overwrite fill"
    ),
    "delete": (
        "delete remove destroy drop purge erase clear wipe truncate revoke cancel terminate kill "
        "uninstall unsubscribe discard detach evict unregister"
    ),
    "action": (
        "send email notify execute run call invoke trigger click type press navigate go scroll hover "
        "select drag wait play pause stop start restart deploy reboot shutdown emit broadcast transfer "
        "pay charge order buy sell tweet message speak connect disconnect login logout authenticate "
        "authorize focus close forward share sign"
    ),
    "vague": (
        "handle manage process do perform work deal interact operate provide support help utilize "
        "facilitate assist leverage"
    ),
}


VERB_KIND: dict[str, str] = {}


for _kind, _words in _VERBS_BY_KIND.items():
    for _word in _words.split():
        VERB_KIND.setdefault(_word, _kind)


# Verbs that change state in every reading; "open nodes", "log in", "book" or "tag" can be reads or
# ambiguous, so only these contradict readOnlyHint.
_STATE_CHANGING_WORDS = (
    "create add insert write save store put post publish upload submit commit push delete remove destroy "
    "drop purge erase wipe truncate revoke cancel terminate kill uninstall update edit modify set change "
    "patch rename move replace merge overwrite append reset restore send email pay transfer deploy"
)


STATE_CHANGING = frozenset(_STATE_CHANGING_WORDS.split())


STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "if",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "from",
        "with",
        "as",
        "is",
        "are",
        "be",
        "been",
        "being",
        "was",
        "were",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "you",
        "your",
        "can",
        "will",
        "may",
        "must",
        "should",
        "would",
        "could",
        "not",
        "no",
        "do",
        "does",
        "any",
        "all",
        "each",
        "which",
        "what",
        "when",
        "where",
        "who",
        "how",
        "than",
        "then",
        "there",
        "their",
        "they",
        "them",
        "we",
        "our",
        "us",
        "i",
        "me",
        "my",
    ]
)


# What follows an imperative verb: an object's determiner, a pronoun, a particle or a preposition.
_I = re.IGNORECASE


WORD = re.compile(r"[A-Za-z][A-Za-z0-9_'/-]*")


IDENTIFIER = re.compile(r"`?([A-Za-z][A-Za-z0-9]*(?:[_.-][A-Za-z0-9]+)+|[a-z]+[A-Z][A-Za-z0-9]*)`?")


@lru_cache(maxsize=4096)
def verb_lemma(word: str) -> str | None:
    """The base form of ``word`` when it is a verb of the lexicon ("Retrieves" -> "retrieve", "ran" -> "run").

    English forms come from lemminflect; the inflections of technical verbs it does not know ("geocodes",
    "upserted") from the regular suffixes.
    """
    lower = word.lower()
    if lower in VERB_KIND:
        return lower
    reading = lexicon.verb_reading(lower)
    if reading and reading[0] in VERB_KIND:
        return reading[0]
    candidates = []
    if lower.endswith("ies"):
        candidates.append(lower[:-3] + "y")
    if lower.endswith("es"):
        candidates.append(lower[:-2])
    if lower.endswith("s") and not lower.endswith("ss"):
        candidates.append(lower[:-1])
    for suffix in ("ing", "ed"):
        if lower.endswith(suffix):
            stem = lower[: -len(suffix)]
            candidates += [stem, stem + "e", stem[:-1] if len(stem) > 2 and stem[-1] == stem[-2] else stem]
    return next((candidate for candidate in candidates if candidate in VERB_KIND), None)


@lru_cache(maxsize=4096)
def word_tokens(text: str) -> tuple[str, ...]:
    """The ``WORD`` tokens of ``text``: a description and its sentences are read by several checks."""
    return tuple(WORD.findall(text))


def is_supported_language(text: str) -> bool:
    """Whether the text is English, the language the analysis reads (``scoring.languages`` tells)."""
    return language_of(text) == "English"


# Runs of ASCII letters and digits, split where a capital follows a small letter or a digit (camelCase).
# An acronym ends where a capitalised word begins: getUIComponents -> get, UI, Components.
_NAME_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]+[a-z0-9]*|[a-z0-9]+")


@lru_cache(maxsize=8192)
def name_words(name: str) -> tuple[str, ...]:
    """The words of an identifier: ``getUserById`` / ``get_user-by.id`` -> get, user, by, id."""
    return tuple(normalized(name).split())


def normalized(text: str) -> str:
    """Lower-case words joined by single spaces, for comparing a description with a name."""
    return " ".join(_NAME_WORD.findall(text)).lower()


def quote(text: str, limit: int = 90) -> str:
    """A phrase shortened for a justification, in single quotes."""
    text = " ".join(text.split())
    return f"'{text if len(text) <= limit else text[: limit - 1].rstrip() + '…'}'"


_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*[A-Za-z0-9]|[A-Za-z0-9]")


def is_identifier(token: str) -> bool:
    """A code-like name (``get_user``, ``user-id``, ``searchFiles``) rather than an English word."""
    return (
        bool(IDENTIFIER.fullmatch(token))
        if (
            "_" in token
            or "-" in token
            or "." in token
            or not (token.islower() or token.isupper() or token.istitle())
        )
        else False
    )


def identifiers(text: str) -> list[str]:
    """The snake, kebab, dotted and camel-case identifiers ``text`` names, in order."""
    return [token for token in _TOKEN.findall(text) if is_identifier(token)]
