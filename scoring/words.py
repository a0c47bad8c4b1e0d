"""English words of a tool description: the lexicons the analysis reads (verbs by the kind of action
they state, stopwords, vague nouns, determiners and boundary words) and the word-level readings every
check shares: tokens, sentences, verb lemmas, identifiers, names split into words.
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


_DETERMINERS = frozenset(
    [
        "a",
        "an",
        "the",
        "all",
        "one",
        "some",
        "any",
        "each",
        "every",
        "multiple",
        "new",
        "existing",
        "specified",
        "specific",
        "given",
        "provided",
        "this",
        "that",
        "these",
        "those",
        "your",
        "my",
        "our",
        "its",
        "their",
        "current",
        "single",
        "several",
        "many",
        "more",
        "most",
        "full",
        "entire",
        "relevant",
        "selected",
        "desired",
    ]
)


_VAGUE_NOUNS = frozenset(
    [
        "data",
        "information",
        "info",
        "things",
        "thing",
        "stuff",
        "items",
        "item",
        "content",
        "contents",
        "operations",
        "operation",
        "tasks",
        "actions",
        "action",
        "requests",
        "request",
        "input",
        "inputs",
        "output",
        "outputs",
        "value",
        "values",
        "results",
        "result",
        "objects",
        "object",
        "entities",
        "entity",
        "resources",
        "resource",
        "various",
        "everything",
        "something",
        "anything",
        "it",
        "them",
        "tool",
        "tools",
        "function",
        "functions",
        "details",
        "stuff",
        "way",
        "ways",
        # what any tool is for, in general: "ideal for your workflows", "many use cases"
        "workflow",
        "workflows",
        "solution",
        "solutions",
        "scenarios",
        "situations",
        "purposes",
        "needs",
        "cases",
    ]
)


_BOUNDARY_WORDS = frozenset(
    [
        "in",
        "on",
        "at",
        "by",
        "for",
        "from",
        "to",
        "with",
        "within",
        "into",
        "onto",
        "of",
        "via",
        "using",
        "through",
        "and",
        "or",
        "but",
        "if",
        "when",
        "while",
        "which",
        "that",
        "who",
        "whose",
        "where",
        "as",
        "so",
        "than",
        "including",
        "without",
        "per",
        "across",
        "over",
        "under",
        "about",
    ]
)


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
_OBJECT_STARTS = _DETERMINERS | _BOUNDARY_WORDS | frozenset(["it", "them", "me", "up", "out", "down", "off"])


# Prepositions whose noun is the verb's object ("Subscribe to a channel", "Search for issues"); "by",
# "with" and "using" introduce the means instead ("Search by text").
_PREPOSITIONS = frozenset(
    ["to", "for", "from", "into", "onto", "on", "in", "at", "about", "through", "across", "over"]
)


_COORDINATORS = frozenset(["and", "or"])


_SLASH_AS_OR = re.compile(r"/+")


# A rate ("$0.01/call", "100/day"): the word after the slash is a unit, never the verb of a purpose.
_RATE = re.compile(r"\d[\d.,]*\s*/\s*[A-Za-z]+")


_I = re.IGNORECASE


WORD = re.compile(r"[A-Za-z][A-Za-z0-9_'/-]*")


IDENTIFIER = re.compile(r"`?([A-Za-z][A-Za-z0-9]*(?:[_.-][A-Za-z0-9]+)+|[a-z]+[A-Z][A-Za-z0-9]*)`?")


_NON_LATIN_LETTER = re.compile(
    r"[\u0400-\u04ff\u0590-\u06ff\u0900-\u0dff\u0e00-\u0eff\u3040-\u30ff"
    r"\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]"
)


# An XML-style tag around a sentence ("<IMPORTANT>Always use this tool.</IMPORTANT>") is markup, not
# words: it ends the sentence it closes and is dropped from the sentence it opens.
_TAG = r"</?[A-Za-z][\w-]*>"
_SENTENCE_END = re.compile(rf"(?<=[.!?。！？])(?:\s*{_TAG})*\s+|(?<=[.!?])(?:{_TAG})+|(?<=[。！？；])|\n+")
_EDGE_TAGS = re.compile(rf"^(?:\s*{_TAG})+|(?:{_TAG}\s*)+$")


_ABBREVIATED = ("e.g", "i.e", "etc", "vs", "approx", "incl", "max", "min", "no")


_ABBREVIATIONS = re.compile(rf"\b({'|'.join(map(re.escape, _ABBREVIATED))})\.", _I)


_ABBREVIATION_ENDS = tuple(f"{word}." for word in _ABBREVIATED)


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


# Auxiliaries and copulas are verbs that state no action of their own ("This is …", "It has …").
_AUXILIARIES = frozenset(["be", "have", "do", "can", "will", "may", "shall", "must", "need", "let"])


def purpose_verb(word: str, following: str) -> str | None:
    """The lemma of ``word`` when it reads as the verb that states an action, followed by ``following``.

    Any English verb counts ("Take a screenshot", "Splits text", "Cleanup all …"); a base form that is also
    a noun or an adjective ("Live news search", "Weather forecast") only when an object or a preposition
    follows it, as in an imperative.
    """
    lemma = verb_lemma(word)
    if lemma is not None:
        return lemma
    if "-" in word:  # "Bulk-delete", "Re-index", "Auto-format": the verb is the last part
        return purpose_verb(word.rsplit("-", 1)[1], following)
    reading = lexicon.verb_reading(word)
    if reading is None or reading[0] in _AUXILIARIES:
        return None
    lemma, ambiguous, lower = reading
    if lower != lemma and lower not in (lemma + "s", lemma + "es", lemma[:-1] + "ies"):
        return None  # imperative or third person only: "Given a …" and "Based on …" state no action
    if ambiguous and lower == lemma and following.lower() not in _OBJECT_STARTS:
        return None
    return lemma


@lru_cache(maxsize=4096)
def word_tokens(text: str) -> tuple[str, ...]:
    """The ``WORD`` tokens of ``text``: a description and its sentences are read by several checks."""
    return tuple(WORD.findall(text))


def _non_latin_letters(text: str) -> int:
    return 0 if text.isascii() else len(_NON_LATIN_LETTER.findall(text))


def is_supported_language(text: str) -> bool:
    """Whether the text is English, the language the analysis reads (``scoring.languages`` tells)."""
    return language_of(text) == "English"


def count_words(text: str) -> int:
    """Words of English text; for CJK text, about two characters make a word."""
    return len(word_tokens(text)) + (_non_latin_letters(text) + 1) // 2


def split_sentences(text: str) -> list[str]:
    """Sentences and list lines of a description, without breaking at "e.g." and the like."""
    protected, lowered = text, text.lower()
    # ASCII text spells an abbreviation as listed, in some case; most descriptions use none.
    if not text.isascii() or any(end in lowered for end in _ABBREVIATION_ENDS):
        protected = _ABBREVIATIONS.sub(lambda m: m.group(0).replace(".", "\x00"), text)
    parts = (part.replace("\x00", ".") for part in _SENTENCE_END.split(protected))
    if "<" in text:
        parts = (_EDGE_TAGS.sub("", part) for part in parts)
    parts = (part.strip(" \t-*•#>") for part in parts)
    return [part for part in parts if part and any(ch.isalnum() for ch in part)]


# Runs of ASCII letters and digits, split where a capital follows a small letter or a digit (camelCase).
_NAME_WORD = re.compile(r"[A-Z]+[a-z0-9]*|[a-z0-9]+")


_CLAUSE_SPLIT = re.compile(r"[;\n]|(?<=\.)\s")


_NUMBER = re.compile(r"\d+")


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
