"""Language analysis of a tool description: what it says, sentence by sentence.

Finds the purpose verb and its resource, sibling tools named, usage cues (when, when not,
alternatives), behaviour disclosures by category, parameter explanations that go beyond the
schema, filler and assertive or promotional wording. Assertive and promotional sentences are set
aside before anything else is read, so they earn nothing. Descriptions that are not English, in
any script (``scoring.languages`` tells), yield structure only: identifiers, length, sentence count.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator, Sequence, Set
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from scoring import lexicon
from scoring.languages import language_of

# --- lexicons -------------------------------------------------------------------------------------

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

# --- patterns -------------------------------------------------------------------------------------

_I = re.IGNORECASE


def _split_alternatives(pattern: str) -> list[str]:
    """The top-level ``|`` alternatives of a regular expression."""
    parts, depth, start, index, in_class = [], 0, 0, 0, False
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            parts.append(pattern[start:index])
            start = index + 1
        index += 1
    return [*parts, pattern[start:]]


_RUN = re.compile(r"[<#]?[A-Za-z0-9']+")


def _prefixes(pattern: str) -> set[str] | None:
    """Word prefixes every match of ``pattern`` starts with, or None when that cannot be told simply."""
    alternatives = _split_alternatives(pattern)
    if len(alternatives) > 1:
        found: set[str] = set()
        for alternative in alternatives:
            prefixes = _prefixes(alternative)
            if prefixes is None:
                return None
            found |= prefixes
        return found
    while pattern.startswith("\\b"):
        pattern = pattern[2:]
    if pattern.startswith("(?:"):
        depth = 0
        for index, char in enumerate(pattern):
            if pattern[index - 1 : index] != "\\":
                depth += (char == "(") - (char == ")")
            if depth == 0:
                optional = pattern[index + 1 : index + 2] in ("?", "*", "{")
                return None if optional else _prefixes(pattern[3:index])
        return None
    run = _RUN.match(pattern)
    if not run:
        return None
    prefix = run.group(0)
    if pattern[run.end() : run.end() + 1] in ("?", "*", "{"):
        prefix = prefix[:-1]  # the quantifier makes the last character optional
    return {prefix.lower()} if prefix.strip("<#") else None


# The first three characters of each ``_RUN`` word. A lone "<" or "#" is taken too: starting on one
# character class lets the scan skip ahead in C, and no cue starts with the mark alone.
_RUN_HEAD = re.compile(r"([<#A-Za-z0-9'][A-Za-z0-9']{0,2})[A-Za-z0-9']*")
_HEAD_LETTERS = "abcdefghijklmnopqrstuvwxyz0123456789'"  # what follows a head's first character


@lru_cache(maxsize=16384)
def _word_heads(text: str) -> frozenset[str]:
    """The first three characters (or fewer, in a shorter word) of every lower-cased word of ``text``,
    and any "<" or "#" that starts no word."""
    lower = text.lower()
    heads = _RUN_HEAD.findall(lower)
    if "'" in lower or "<" in lower or "#" in lower:
        # A run may start with a quote, "<" or "#" ("'delete'", "#delete"), yet a cue may match the word
        # after it: those words' own heads count too.
        heads += _RUN_HEAD.findall(lower.translate(_OPENING_MARKS))
    if not lower.isascii():
        # Ignoring case, a cue's "s" also matches the long s and its "i" the dotted capital and the dotless
        # small i, which lower-casing leaves outside ASCII: words spelt with them count as the ASCII word.
        heads += _RUN_HEAD.findall(text.translate(_ASCII_CASE_TWINS).lower())
    return frozenset(heads)


_OPENING_MARKS = str.maketrans("'<#", "   ")
# The characters beyond ASCII that a case-ignoring ASCII letter matches and lower-casing does not turn
# into it (the Kelvin sign lower-cases to "k" itself).
_ASCII_CASE_TWINS = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s"})


def _heads_starting(prefix: str) -> set[str]:
    """Every word head that starts with ``prefix`` (of at most three characters)."""
    heads = {prefix}
    for _ in range(3 - len(prefix)):
        heads |= {head + letter for head in heads for letter in _HEAD_LETTERS}
    return heads


# A pattern naming a character beyond ASCII, literally or by escape, could match an ASCII letter when
# case is ignored (the Kelvin sign matches "k"), so it is never compiled in ASCII form.
_NAMES_NON_ASCII = re.compile(r"[^\x00-\x7f]|\\[uUxN0-7]")


def reads_as_ascii(text: str) -> bool:
    """Whether a pattern naming only ASCII matches ``text`` the same when compiled with ``re.ASCII``.

    On ASCII text the two forms agree on letters in either case, ``\\w``, ``\\d`` and ``\\b``; only Unicode's
    ``\\s`` also takes the separators U+001C-U+001F.
    """
    return text.isascii() and not ("\x1c" in text or "\x1d" in text or "\x1e" in text or "\x1f" in text)


def reads_in_lower_case(pattern: str) -> bool:
    """Whether ``pattern`` finds, case-sensitively in lower-cased ASCII text, what it finds in the text when
    case is ignored: outside its escapes it has no capital letter, no character range and no inline flag."""
    index, class_start = 0, None  # class_start: where the open character class's members begin
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if "A" <= char <= "Z":
            return False
        if class_start is None:
            if char == "[":
                class_start = index + 1 + (pattern[index + 1 : index + 2] == "^")
            elif (
                char == "("
                and pattern[index + 1 : index + 2] == "?"
                and pattern[index + 2 : index + 3] in "aiLmsux-"
            ):
                return False
        elif char == "]" and index > class_start:
            class_start = None
        elif char == "-" and index > class_start and pattern[index + 1 : index + 2] != "]":
            return False
        index += 1
    return True


class Cue:
    """A case-insensitive cue pattern that is skipped outright when no word of the text could start it.

    ASCII text, nearly every description, is scanned without Unicode case folding. A pattern that reads in
    lower case is matched case-sensitively in the lower-cased text, a third of the cost of ignoring case,
    and each match is then taken from the text itself at the same place, so its groups keep their case;
    any other is compiled with ``re.ASCII``.
    """

    def __init__(self, pattern: str, flags: int = _I) -> None:
        self.regex = re.compile(pattern, flags)
        ascii_only = not _NAMES_NON_ASCII.search(pattern)
        self._ascii_regex = re.compile(pattern, flags | re.ASCII) if ascii_only else self.regex
        self._lower_case_regex = (
            re.compile(pattern, (flags & ~re.IGNORECASE) | re.ASCII)
            if ascii_only and flags & re.IGNORECASE and reads_in_lower_case(pattern)
            else None
        )
        prefixes = _prefixes(pattern)
        # The word heads a match can start in, compared with the text's own heads.
        self.heads = (
            frozenset().union(*(_heads_starting(prefix[:3]) for prefix in prefixes)) if prefixes else None
        )

    @property
    def pattern(self) -> str:
        return self.regex.pattern

    def _possible(self, text: str, heads: frozenset[str] | None) -> bool:
        """Whether a word of ``text`` (whose word heads are ``heads``, when known) could start a match."""
        return self.heads is None or not self.heads.isdisjoint(_word_heads(text) if heads is None else heads)

    def _taken_from(self, text: str, found: re.Match[str]) -> re.Match[str]:
        """The match in ``text`` at the place ``found`` was found in its lower-cased copy."""
        match = self._ascii_regex.match(text, found.start())
        assert match is not None and match.end() == found.end()
        return match

    def search(self, text: str, heads: frozenset[str] | None = None) -> re.Match[str] | None:
        if not self._possible(text, heads):
            return None
        if not reads_as_ascii(text):
            return self.regex.search(text)
        if self._lower_case_regex is None:
            return self._ascii_regex.search(text)
        found = self._lower_case_regex.search(text.lower())
        return self._taken_from(text, found) if found else None

    def finditer(self, text: str, heads: frozenset[str] | None = None) -> Iterator[re.Match[str]]:
        if not self._possible(text, heads):
            return iter(())
        if not reads_as_ascii(text):
            return self.regex.finditer(text)
        if self._lower_case_regex is None:
            return self._ascii_regex.finditer(text)
        return (self._taken_from(text, found) for found in self._lower_case_regex.finditer(text.lower()))

    def sub(self, replacement: str, text: str) -> str:
        if not self._possible(text, None):
            return text
        return (self._ascii_regex if reads_as_ascii(text) else self.regex).sub(replacement, text)


def cue(pattern: str, flags: int = _I) -> Cue:
    """Compile a cue pattern (see ``Cue``)."""
    return Cue(pattern, flags)


WORD = re.compile(r"[A-Za-z][A-Za-z0-9_'/-]*")
IDENTIFIER = re.compile(r"`?([A-Za-z][A-Za-z0-9]*(?:[_.-][A-Za-z0-9]+)+|[a-z]+[A-Z][A-Za-z0-9]*)`?")
_NON_LATIN_LETTER = re.compile(
    r"[\u0400-\u04ff\u0590-\u06ff\u0900-\u0dff\u0e00-\u0eff\u3040-\u30ff"
    r"\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]"
)
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+|(?<=[。！？；])|\n+")
_ABBREVIATED = ("e.g", "i.e", "etc", "vs", "approx", "incl", "max", "min", "no")
_ABBREVIATIONS = re.compile(rf"\b({'|'.join(map(re.escape, _ABBREVIATED))})\.", _I)
_ABBREVIATION_ENDS = tuple(f"{word}." for word in _ABBREVIATED)
_CLAUSE_BREAK = re.compile(r"\s[–—-]\s|[,;:(]")
_LEAD_IN = re.compile(
    r"^(?:(?:this|the|a|an)\s+(?:mcp\s+)?(?:tool|function|endpoint|method|command|api)\s*"
    r"(?:that|which|to|for|will|can|is used to|allows you to|lets you|enables you to|helps you)?|"
    r"tool\s+(?:to|for|that)|function\s+(?:to|for|that)|(?:it|this)\s+(?:will|can)|"
    r"(?:allows|lets|enables|helps)\s+(?:you|users?|the user|agents?|an agent|the assistant)?\s*(?:to\s+)?|"
    r"(?:is|are|can be)?\s*used\s+to|use\s+this\s+(?:tool\s+)?to|call\s+this\s+to|you\s+can|simply|"
    r"just|quickly|easily)\s+",
    _I,
)
_NAME_PREFIX = re.compile(r"^\s*(?:\[[^\]]{1,40}\]|[^\w\s]{1,3})\s*")
# "Bing search: …", "Notion | Get page", "GitHub › Create issue": a label or namespace before the text.
_LABEL = re.compile(r"^([\w.-]+(?: [\w.-]+){0,2})(?::|\s*[|›»]|\s+[–—])\s+")
_VERB_MARKERS = frozenset(["will", "can", "to", "this", "it", "which", "that", "and", "then", "also"])
_CONTAINERS = frozenset(
    [
        "list",
        "set",
        "collection",
        "number",
        "array",
        "summary",
        "details",
        "information",
        "info",
        "overview",
        "kind",
        "type",
        "count",
        "lists",
        "data",
        "metadata",
        "content",
        "contents",
    ]
)
_OF = frozenset(["of", "about", "on", "for"])

# Assertive and promotional wording: sentences carrying it are set aside and earn nothing.
PRIORITY = cue(
    r"\b(?:always\s+(?:use|call|invoke|run|prefer)\s+(?:this|it)|(?:use|call)\s+this\s+(?:tool\s+)?"
    r"(?:first|before\s+(?:any|all)\s+other|for\s+(?:everything|all|any)\b)|"
    r"(?:instead\s+of|before)\s+(?:any|all)\s+other\s+tools?|never\s+use\s+(?:any\s+)?other\s+tools?|"
    r"do\s+not\s+(?:compute|calculate|answer|do)\s+(?:this|it)\s+yourself|"
    r"must\s+(?:always\s+)?(?:use|call)\s+this|prefer\s+this\s+tool\s+over)",
    _I,
)
# "Note:" and "Warning:" usually introduce a real caveat, so they are not counted as emphasis.
EMPHASIS = cue(r"\b(?:IMPORTANT|CRITICAL|CRUCIAL|MUST|ATTENTION)\b\s*[:!]+|<important>")
PROMOTIONAL = cue(
    r"(?:\b(?:the\s+best|the\s+most\s+(?:powerful|advanced|accurate|reliable|comprehensive)|"
    r"best[- ]in[- ]class|"
    r"world[- ]class|state[- ]of[- ]the[- ]art|cutting[- ]edge|ultimate|revolutionary|unparalleled|"
    r"superior|highly\s+recommended|extremely\s+(?:powerful|useful)|incredibly|blazing(?:ly)?\s+fast|"
    r"crucial(?:ly)?|vital|essential\s+tool|number\s+one|#1)\b)",
    _I,
)
FILLER = cue(
    r"\b(?:this\s+tool\s+(?:allows|lets|enables|helps)|allows\s+you\s+to|lets\s+you|is\s+used\s+to|"
    r"can\s+be\s+used\s+to|please\s+note(?:\s+that)?|basically|simply|in\s+order\s+to|"
    r"it\s+is\s+(?:important|worth)\s+(?:to\s+note|noting)|as\s+(?:the\s+)?name\s+suggests)\b",
    _I,
)
CONTRAST = cue(
    r"\b(?:only\b(?<!read-only)(?<!read\sonly)|unlike|instead|rather\s+than|as\s+opposed\s+to|in\s+contrast|whereas|without|excluding|"
    r"except|does\s+not|doesn't|not\s+(?:for|to|the)|no\s+[\w/]+\s+filter\w*|distinct\s+from|"
    r"differs?\s+from|as\s+well\s+as|in\s+full)\b",
    _I,
)
USAGE_WHEN = cue(
    r"\b(?:use\s+(?:this|it)?\s*(?:tool\s+)?(?:when|if|after|before|once|whenever|to\s+\w+\s+\w+\s+(?:when|after|"
    r"before))|when\s+(?:you|the\s+user|an?\s+agent|a\s+user)\s+(?:need|want|ask|wish|has|have|must)|"
    r"(?:useful|helpful|ideal|intended|designed|best\s+suited|suitable|appropriate)\s+(?:for|when|if|to)|"
    r"(?:call|invoke|run)\s+(?:this|it)(?:\s+tool)?\s+(?:when|after|before|first|once|if)|"
    r"(?:before|after)\s+(?:calling|using|running|you\s+call)|should\s+be\s+(?:used|called)|"
    r"typically\s+(?:used|called)|use\s+(?:after|before|with|together|together\s+with)|prerequisite|"
    r"in\s+(?:conjunction|combination)\s+with|followed\s+by|use\s+(?:this|it)\s+(?:for|to)|"
    r"good\s+for|meant\s+for|for\s+(?:example|instance),?\s+when|when\s+to\s+use|use\s+(?:for|when|if)|"
    r"(?:cheaper|faster|quicker|lighter|smaller)\s+than)\b",
    _I,
)
USAGE_WHEN_NOT = cue(
    r"\b(?:(?:do\s+not|don't|never|avoid)\s+(?:use|call|invoke|using|calling)|not\s+(?:suitable|intended|"
    r"meant|designed|appropriate)|instead|rather\s+than|unless|prefer\s+\w+|only\s+(?:use|call)|"
    r"not\s+for\b|is\s+not\s+needed|no\s+need\s+to|when\s+not\s+to\s+use|(?:slower|costlier|heavier)\s+than)\b",
    _I,
)
USAGE_IMPLIED = cue(
    r"\b(?:e\.g\.|for\s+example|such\s+as|returned\s+by|obtained\s+from|from\s+(?:a|the)\s+previous|"
    r"(?:id|ids|identifier)\s+(?:from|returned)|helps?\s+(?:you\s+)?(?:to\s+)?\w+|to\s+(?:find|get|see|check)|"
    r"first|then|next|workflow|step)\b",
    _I,
)

# Behaviour disclosures: category -> pattern. Read outside the purpose clause only, so stating the
# action itself ("Update drive settings") is not counted as disclosing its effects.
DISCLOSURES: dict[str, Cue] = {
    "destruction": cue(
        r"\b(?:permanent(?:ly)?|irreversibl\w*|cannot\s+be\s+(?:undone|recovered|reversed)|can't\s+be\s+undone|"
        r"not\s+reversible|overwrit\w*|destroy\w*|wipes?|lost|deletes?|removes?\s+(?:all|every|the)|"
        r"cascad\w*|trash|recycle\s+bin|soft[- ]delete\w*)\b"
    ),
    "security risk": cue(
        r"\b(?:unsafe|dangerous|arbitrary\s+(?:code|commands?|javascript|js|sql|scripts?|shell|programs?)|"
        r"rce(?:-equivalent)?|remote\s+code\s+execution|untrusted|sandbox\w*|unsandboxed|full\s+access\s+to)\b"
    ),
    "side effects": cue(
        r"\b(?:side[- ]effects?|modif(?:y|ies|ied)|changes\s+the|writes?\s+(?:to|the|a)|persist\w*|stored?|"
        r"saves?|sends?\s+(?:an?\s+|the\s+)?(?:email|message|notification|request)|triggers?|notif\w*|"
        r"visible\s+to|charges?|commits?|appends?|creates?\s+(?:a|an|the)\s+\w+|updates?\s+(?:the|its)|"
        r"replaces?|publish\w*|new\s+version|in\s+place)\b"
    ),
    "authentication": cue(
        r"\b(?:auth|authenticat\w*|authori[sz]\w*|unauthori[sz]ed|api[ _-]?keys?|(?:access|api|auth|bearer|"
        r"refresh|personal\s+access)\s+tokens?|credentials?|permissions?|scopes?|logged[ -]in|log\s+in|"
        r"sign(?:ed)?[ -]in|oauth\d*|privileg\w*|sudo|admin(?:istrator)?s?|access\s+rights?|ownership)\b"
    ),
    "rate limits": cue(
        r"\b(?:rate[- ]limit\w*|quotas?|throttl\w*|requests?\s+per|per\s+(?:minute|second|hour|day)|"
        r"cooldown|billed|billing|costs?|credits?|expensive|slow)\b"
    ),
    "errors": cue(
        r"\b(?:errors?|fails?|failure|failed|throws?|raises?|exceptions?|not[_ ]found|invalid|conflict|"
        r"returns?\s+(?:an?\s+)?(?:empty|null|none|nothing|false)|if\s+(?:there\s+is|there's)\s+no|"
        r"(?:does\s+not|doesn't)\s+exist|missing|times?\s+out|timeout|"
        r"(?:an?\s+)?empty\s+(?:string|list|array|result|object)s?\s+(?:when|if)|(?:when|if)\s+nothing\s+matches)\b"
    ),
    "idempotence": cue(
        r"\b(?:idempoten\w*|safe\s+to\s+(?:retry|repeat|call\s+again)|no[- ]op|already\s+exists?|"
        r"repeated\s+calls?|calling\s+(?:it\s+)?again|has\s+no\s+effect|same\s+result|upsert\w*|"
        r"deduplicat\w*)\b"
    ),
    "pagination": cue(
        r"\b(?:paginat\w*|cursors?|next[ _]page|page[ _]?(?:token|size|number)|offset|continuation|"
        r"more\s+results|has_more|truncat\w*|at\s+most\s+\d+|up\s+to\s+\d+|first\s+\d+|top\s+\d+|"
        r"limit(?:ed)?\s+to\s+\d+)\b"
    ),
    "return shape": cue(
        r"\b(?:returns?|responds?\s+with|response\s+(?:contains|includes|is)|outputs?|results?\s+(?:is|are|"
        r"contains?|includes?)|yields|gives\s+back|as\s+(?:json|markdown|digests?|a\s+list|an\s+array|"
        r"(?:plain\s+)?text|csv|html|base64|a\s+table|an?\s+object|a\s+string)|each\s+(?:entry|item|result)|"
        r"fields?|includ(?:es|ing)\s+(?:the\s+)?\w+,)\b"
    ),
    "read-only": cue(
        r"\b(?:read[- ]only|(?:does\s+not|doesn't|never|will\s+not|won't)\s+"
        r"(?:modif(?:y|ies)|changes?|writes?|alters?|deletes?|creates?)|no\s+side[- ]effects?|"
        r"without\s+(?:modifying|changing|side\s+effects)|"
        r"non[- ]destructive|safe\s+to\s+call)\b"
    ),
    "scope and limits": cue(
        r"\b(?:only\b(?<!read-only)(?<!read\sonly)|at\s+most|maximum|max|minimum|limit(?:ed|s)?|no\s+[\w/]+\s+filter\w*|capped|at\s+least|"
        r"within|must|requires?|cannot|can't|unsupported|not\s+supported|case[- ]sensitive|"
        r"case[- ]insensitive|recursive\w*|depth|all\s+(?:of\s+)?(?:the\s+)?\w+|in\s+full)\b"
    ),
    "timing and state": cue(
        r"\b(?:asynchronous\w*|async|background|cached?|caching|eventually|takes?\s+(?:a\s+few|several|up\s+to)|"
        r"may\s+take|long[- ]running|blocks?|blocking|waits?\s+(?:for|until)|real[- ]time|stale|"
        r"consistent|atomic\w*|transaction\w*|concurren\w*|lock\w*|queued?)\b"
    ),
}
READ_ONLY_CLAIM = DISCLOSURES["read-only"]
# Categories whose cue says something specific by itself ("cannot be undone", "idempotent", "RCE").
INTRINSIC_DISCLOSURES = frozenset(
    ["destruction", "security risk", "idempotence", "read-only", "timing and state"]
)
# A claim that calling the tool is safe; the tool's own verbs can contradict it.
SAFETY_CLAIM = cue(
    r"\b(?:read[- ]only|(?:has\s+)?no\s+side[- ]effects?|side[- ]effect[- ]free|non[- ]destructive|"
    r"(?:does\s+not|doesn't|never|will\s+not|won't)\s+(?:modify|change|write|alter|delete)\s+(?:anything|any)|"
    r"safe\s+to\s+(?:call|retry|run))\b"
)
# "read-only SELECT", "read-only queries": the claim names what is read-only, a scope rather than a promise.
_QUALIFIED_CLAIM = re.compile(r"[ \t]+(?!and\b|or\b|by\b|for\b|mode\b)[A-Za-z]{3,}", re.IGNORECASE)
# Verbs of tools that change state, which a safety claim cannot describe.
CLAIM_BREAKERS = STATE_CHANGING | frozenset(["execute", "kill", "clear", "flush", "terminate", "uninstall"])
# What a destructive tool owes its caller, wherever the description says it (the purpose clause too).
REVERSIBILITY = cue(
    r"\b(?:permanent(?:ly)?|irreversibl\w*|cannot\s+be\s+(?:undone|recovered|restored)|can't\s+be\s+undone|"
    r"not\s+reversible|undo\w*|recoverable|unrecoverable|trash|recycle\s+bin|soft[- ]delete\w*|cascad\w*|"
    r"along\s+with|together\s+with|and\s+(?:all\s+)?(?:its|their)\s+\w+)\b"
)
_RETURNS_LEAD = re.compile(
    r"^\W*(?:it\s+|this\s+tool\s+)?(?:returns?|outputs?|responds?|yields|gives|(?:the\s+)?(?:result|response|"
    r"output)s?\b)",
    _I,
)
_READ_IN_RETURNS = frozenset(["return shape", "errors", "pagination", "scope and limits"])

PARAM_CUE = cue(
    r"(?:\d|\"[^\"]+\"|'[^']+'|`[^`]+`|\{[^{}]+\}|"
    r"\b(?:e\.g\.|for\s+example|such\s+as|like|format|iso[ -]?8601|"
    r"yyyy\w*|mm/dd\w*|hh:mm\w*|utc|timezone|regex|pattern|glob|absolute|relative|url|uri|path|json|csv|"
    r"comma[- ]separated|"
    r"case[- ](?:in)?sensitive|default\w*|between|range|at\s+most|up\s+to|maximum|minimum|max|min|"
    r"positive|negative|non[- ]negative|seconds?|milliseconds?|ms|minutes?|pixels?|bytes?|characters?|"
    r"if|when|unless|together\s+with|either|mutually\s+exclusive|requires?|ignored|overrides?|combined|"
    r"omit\w*|optional|required|otherwise)\b)",
    _I,
)
_SCRIPT_OR_EVAL = cue(r"<script\b|\beval\s*\(|javascript:")


@dataclass
class Analysis:
    """What a description says, with the phrases that show it."""

    text: str
    supported: bool = True
    words: int = 0
    sentences: list[str] = field(default_factory=list)
    set_aside: list[str] = field(default_factory=list)  # assertive, promotional or priority sentences
    padding: list[str] = field(default_factory=list)  # sentences with nothing specific to the tool
    priority: list[str] = field(default_factory=list)
    assertive: list[str] = field(default_factory=list)
    lead_in: str | None = None
    verb: str | None = None
    verb_kind: str | None = None
    verb_position: int | None = None  # index of the purpose verb among the first sentence's words
    subject_first: str | None = None  # an opening noun phrase naming what the tool is about, verb or not
    resource: str | None = None
    purpose_clause: str = ""
    differentiation: list[str] = field(default_factory=list)
    siblings_named: list[str] = field(default_factory=list)
    usage_when: list[str] = field(default_factory=list)
    usage_when_not: list[str] = field(default_factory=list)
    usage_implied: list[str] = field(default_factory=list)
    disclosures: dict[str, str] = field(default_factory=dict)
    read_only_claim: str | None = None
    safety_claim: str | None = None  # read-only, no side effects, idempotent, non-destructive
    false_claim: str | None = None  # a safety claim the tool's name or purpose verb contradicts
    filler: list[str] = field(default_factory=list)
    duplicate_sentences: list[str] = field(default_factory=list)
    params_documented: dict[str, str] = field(default_factory=dict)
    params_explained: dict[str, str] = field(default_factory=dict)
    schema_restatements: list[str] = field(default_factory=list)
    identifiers: list[str] = field(default_factory=list)


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
    parts = (part.replace("\x00", ".").strip(" \t-*•#>") for part in _SENTENCE_END.split(protected))
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


# Nouns an opening names itself by ("SAFE read-only tool", "A helper function"): it speaks of the tool,
# not of what it is about.
_SELF_NOUNS = frozenset(["tool", "tools", "function", "utility", "helper", "wrapper", "endpoint", "method"])


def _subject_first(sentence: str, vocabulary: Vocabulary) -> str | None:
    """The opening noun phrase when it names what the tool is about ("Delegation chain scan of skill file
    content", "PR description from commits"): its first clause starts on a word that is neither a function
    word nor only a verb form ("Given a repository …", "Based on …" lead up to the purpose), holds a
    specific word among its first four and does not end on a word for the tool itself. A name prefix or
    label before it is passed over."""
    stripped = _NAME_PREFIX.sub("", sentence)
    label = _LABEL.match(stripped)
    if label and verb_lemma(label.group(1).split()[0]) is None:
        stripped = stripped[label.end() :]
    clause = _CLAUSE_BREAK.split(stripped, maxsplit=1)[0]
    words = word_tokens(clause)
    if not words or _non_latin_letters(clause) or words[-1].lower().rstrip(".") in _SELF_NOUNS:
        return None
    first = words[0].lower()
    reading = lexicon.verb_reading(first)
    # A participle ("Given", "Based", "Using", "Orchestrated") or a word that is only ever a verb.
    if reading is not None:
        lemma, ambiguous, _ = reading
        if not ambiguous or first not in (lemma, lemma + "s", lemma + "es"):
            return None
    if first in STOPWORDS:
        return None
    return clause.strip().rstrip(".") if specific_words(" ".join(words[:4]), vocabulary) else None


def _find_purpose(sentence: str) -> tuple[str | None, str | None, int | None, str | None, str]:
    """(verb, kind, position, resource, purpose clause) of the first sentence."""
    stripped = _NAME_PREFIX.sub("", sentence)
    label = _LABEL.match(stripped)
    if label and verb_lemma(label.group(1).split()[0]) is None:
        stripped = stripped[label.end() :]
    lead = None
    for _ in range(3):  # lead-ins stack: "This tool allows you to ..."
        match = _LEAD_IN.match(stripped)
        if not match:
            break
        lead = (lead or "") + match.group(0)
        stripped = stripped[match.end() :]
    clause = _CLAUSE_BREAK.split(stripped, maxsplit=1)[0]
    # "Calculates/evaluates …": either side of a slash is a word of its own.
    tokens = word_tokens(_RATE.sub(" ", stripped))
    words = [part for word in tokens for part in _SLASH_AS_OR.sub(" or ", word).split()]
    for position, word in enumerate(words[:14]):
        following = words[position + 1] if position + 1 < len(words) else ""
        lemma = purpose_verb(word, following)
        # The verb leads, or comes after a marker that makes it one ("..., this will search issues").
        before = words[position - 1].lower() if position else ""
        # "Permanently delete ..." : a leading adverb does not hide the verb.
        marked = (
            before in _VERB_MARKERS
            or (position == 1 and before.endswith("ly"))
            or (before == "for" and word.lower().endswith("ing"))  # "deck list tool for retrieving decks"
        )
        if lemma is None or (position > 0 and not marked):
            continue
        resource_words: list[str] = []
        followers = words[position + 1 : position + 12]
        index = 0
        while index < len(followers) and len(resource_words) < 8:
            follower = followers[index]
            lower = follower.lower()
            index += 1
            after = followers[index + 1] if index + 1 < len(followers) else ""
            # "Fetch and convert a page", "Create or update a file": the object follows the last verb.
            coordinated = index < len(followers) and purpose_verb(followers[index], after)
            if not resource_words and lower in _COORDINATORS and coordinated:
                index += 1
                continue
            if lower in _BOUNDARY_WORDS:
                if len(resource_words) == 1 and resource_words[0].lower() in _CONTAINERS and lower in _OF:
                    resource_words = []  # "a list of components", "information about a summoner"
                    continue
                if resource_words or lower not in _PREPOSITIONS:
                    break
                continue  # "Subscribe to a channel": the object follows the preposition
            if lower in _DETERMINERS or lower in {"up", "out", "down", "back"}:
                continue
            resource_words.append(follower)
        specific = [word for word in resource_words if word.lower() not in _VAGUE_NOUNS]
        resource = " ".join(resource_words) if specific else None
        return lemma, VERB_KIND.get(lemma, "action"), position, resource, clause or stripped
    return None, None, None, None, clause or stripped


_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*[A-Za-z0-9]|[A-Za-z0-9]")


def _siblings_in(text: str, tokens: list[str], siblings: Sequence[str]) -> list[str]:
    """Sibling names in the text, in the siblings' order; a plain-word name (``tempo``) counts only in code
    form or as a tool. The text's tokens are looked up among the siblings, not the other way round, so a
    server's thousands of names cost nothing per tool (``scoring.toolset.Siblings`` answers in O(1))."""
    found = []
    for sibling in sorted((token for token in set(tokens) if token in siblings), key=siblings.index):
        if len(sibling) < 3:
            continue
        if is_identifier(sibling) or re.search(
            rf"[`'\"]{re.escape(sibling)}[`'\"]|\b{re.escape(sibling)}\s+(?:tool|function|command)", text
        ):
            found.append(sibling)
    return found


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


def _schema_text(schema: Any) -> str:
    """Everything the schema itself says about one parameter, as lower-case text."""
    if not isinstance(schema, dict):
        return ""
    parts = [str(schema.get(key, "")) for key in ("description", "title", "format", "pattern", "default")]
    parts += [
        str(schema.get(key, "")) for key in ("minimum", "maximum", "minLength", "maxLength", "maxItems")
    ]
    if isinstance(schema.get("enum"), list):
        parts += [str(value) for value in schema["enum"]]
    return " ".join(parts).lower()


def _content_words(text: str) -> set[str]:
    return {lower for word in word_tokens(text) if len(word) > 2 and (lower := word.lower()) not in STOPWORDS}


@lru_cache(maxsize=4096)
def _mention_pattern(param: str) -> re.Pattern[str]:
    words = name_words(param)
    alternatives = [re.escape(param)]
    # "query parameters" names query_params: a word of four letters or more stands for its longer forms.
    spelled = [
        re.escape(word.removesuffix("s")) + r"\w*" if len(word) >= 4 else re.escape(word) for word in words
    ]
    alternatives.append(r"[\s_-]?".join(spelled))
    return re.compile(rf"(?<![\w.-])(?:{'|'.join(alternatives)})(?![\w-])", _I)


_EXPLAINING = re.compile(
    r"^\s*(?:[:=(—–]|-\s|\d|[\"'`]|(?:is|are|sets?|specif(?:y|ies)|must|should|can|may|defaults?|controls?|"
    r"selects?|limits?|accepts?|takes?|gives|names?|means?|adds?|filters?|determines?|=)\b)",
    _I,
)
_PARAM_WORD = re.compile(r"\b(?:param(?:eter)?s?|arguments?|fields?|options?|flags?|inputs?)\W*$", _I)


def _explains(clause: str, match: re.Match[str], param: str) -> bool:
    """Whether the mention of ``param`` is explained rather than passed over in a list."""
    deliberate = "`" in clause[max(0, match.start() - 1) : match.end() + 1] or is_identifier(param)
    return (
        deliberate
        or bool(_EXPLAINING.match(clause[match.end() :]))
        or bool(_PARAM_WORD.search(clause[max(0, match.start() - 20) : match.start()]))
    )


def _clauses(sentence: str) -> list[str]:
    # Without a semicolon, a newline or a full stop before its end, a sentence is one clause.
    if ";" in sentence or "\n" in sentence or "." in sentence[:-1]:
        return _CLAUSE_SPLIT.split(sentence)
    return [sentence]


def _analyze_params(analysis: Analysis, sentences: list[str], params: dict[str, Any]) -> None:
    """Which parameters the prose documents, and which it explains beyond the schema."""
    clauses = [clause for sentence in sentences for clause in _clauses(sentence)]
    lowered_clauses = [clause.lower() for clause in clauses]
    lowered = " ".join(lowered_clauses)
    content: dict[int, set[str]] = {}  # a clause's content words, read once however many names it mentions
    for param, schema in params.items():
        words = name_words(param)
        if not words or words[0] not in lowered:
            continue  # cheap pre-check: the parameter is not mentioned at all
        pattern = _mention_pattern(param)
        name_set = set(words)
        schema_text, schema_words = None, set()  # read at the first explained mention
        for index, clause in enumerate(clauses):
            # A mention in ASCII text holds the name's first word in some case; without it, none can match.
            if words[0] not in lowered_clauses[index] and clause.isascii():
                continue
            match = pattern.search(clause)
            if not match:
                continue
            if index not in content:
                content[index] = _content_words(clause)
            others = content[index] - name_set
            if len(others) < 2 or not _explains(clause, match, param):
                continue  # a passing mention ("settings including name, color") documents nothing
            if schema_text is None:
                schema_text = _schema_text(schema)
                schema_words = _content_words(schema_text) | name_set
            analysis.params_documented.setdefault(param, clause.strip())
            new_words = others - schema_words
            new_numbers = set(_NUMBER.findall(clause)) - set(_NUMBER.findall(schema_text))
            if PARAM_CUE.search(clause) and (new_numbers or len(new_words) * 2 > len(others)):
                analysis.params_explained.setdefault(param, clause.strip())
            elif not new_words or len(new_words) * 3 < len(others):
                analysis.schema_restatements.append(clause.strip())


class Joined:
    """Parts joined with NUL, which no pattern matches, so one scan serves every sentence.

    No word spans a NUL, so the word heads of the joined text are those of its parts together.
    """

    def __init__(self, parts: list[str]) -> None:
        self.parts = parts
        self.text = "\x00".join(parts)
        self.starts, offset = [], 0
        for part in parts:
            self.starts.append(offset)
            offset += len(part) + 1
        self.heads = frozenset().union(*map(_word_heads, parts))

    def part_at(self, offset: int) -> int:
        """The index of the part the joined text's character at ``offset`` belongs to."""
        return bisect_right(self.starts, offset) - 1

    def search(self, cue: Cue) -> re.Match[str] | None:
        return cue.search(self.text, self.heads)

    def first_match_per_part(self, cue: Cue) -> dict[int, re.Match[str]]:
        """The first match of ``cue`` in each part, by part index, from one scan of the joined text."""
        found: dict[int, re.Match[str]] = {}
        for match in cue.finditer(self.text, self.heads):
            found.setdefault(self.part_at(match.start()), match)
        return found


_UNINFORMATIVE = STOPWORDS | _VAGUE_NOUNS


def _informative(text: str) -> set[str]:
    return {
        lower for word in word_tokens(text) if len(word) > 2 and (lower := word.lower()) not in _UNINFORMATIVE
    }


_ARG_LINE = re.compile(r"^\W*([A-Za-z_][\w-]*)\s*(?:\([^)]*\))?\s*[:=-]")
_QUOTED = re.compile(r"`[^`]+`|\"[^\"]+\"|'[^'\s][^']*'|\{[^{}]+\}")


# Words that name nothing in particular: meta words and the verbs tool names start with.
_NOT_NAMING = _UNINFORMATIVE | frozenset(VERB_KIND)


def _telling_name_word(word: str) -> bool:
    """A word of a name that names something: not everyday English ("next", "needed" of nextThoughtNeeded),
    a meta word ("tool", "data") or a verb names start with ("get", "list")."""
    return len(word) > 2 and word not in _NOT_NAMING and lexicon.zipf(word) < lexicon.EVERYDAY_ZIPF


@lru_cache(maxsize=256)
def names_vocabulary(names: frozenset[str]) -> frozenset[str]:
    """The telling words of a set of names, and the names themselves; one server's tools share it (its
    index, ``scoring.toolset.ToolNames``, computes it once for all of them)."""
    words = {word for other in names for word in name_words(other) if _telling_name_word(word)}
    return frozenset(
        words
        | {other.lower() for other in names if is_identifier(other) or _telling_name_word(other.lower())}
    )


def own_words(name: str) -> frozenset[str]:
    """The words of the tool's own name that say what it is about, however everyday ("issues", "page")."""
    own = {word for word in name_words(name) if len(word) > 2 and word not in _NOT_NAMING}
    # "issue's title" is about the issues of search_issues.
    return frozenset(own | {word[:-1] for word in own if word.endswith("s") and not word.endswith("ss")})


@dataclass(frozen=True)
class Vocabulary:
    """Words specific to one tool (``own``) and to every tool of its server (``server``, one set shared
    by all of them): membership asks both, so no tool copies the server's words, which would make a
    server of n tools cost n² however its tools are read."""

    own: frozenset[str]
    server: frozenset[str]

    def __contains__(self, word: object) -> bool:
        return word in self.own or word in self.server

    def __or__(self, words: Set[str]) -> Vocabulary:
        return Vocabulary(self.own | words, self.server)


def vocabulary_of(name: str, server_vocabulary: Vocabulary, params: dict[str, Any]) -> Vocabulary:
    """Words specific to this tool whatever their frequency: its name's, its parameters', and those of
    the server's tool names (``server_vocabulary``, see ``names_vocabulary``)."""
    named = {param.lower() for param in params if len(param) > 2 and param.lower() not in _UNINFORMATIVE}
    return Vocabulary(
        own_words(name) | frozenset(named) | names_vocabulary(frozenset(params)), server_vocabulary
    )


@lru_cache(maxsize=16384)
def _telling(word: str) -> bool:
    """Whether one word says something specific whatever the tool: a number, an identifier, a rare word."""
    if not word.isalpha():
        return any(char.isdigit() for char in word) or is_identifier(word)
    lower = word.lower()
    # Adjectives and adverbs rate ("versatile", "seamlessly"); however rare, they name nothing.
    return is_identifier(word) or (
        len(word) > 2
        and lower not in _UNINFORMATIVE
        and not lexicon.is_generic(lower)
        and not lexicon.is_modifier(lower)
    )


@lru_cache(maxsize=8192)
def specific_words(text: str, vocabulary: Vocabulary) -> tuple[str, ...]:
    """The words of ``text`` that say something specific: numbers, identifiers, quoted values, the tool's
    own vocabulary, and words rare in English (wordfreq); common words ("result", "needed") say nothing."""
    found = [match.group(0) for match in _QUOTED.finditer(text)] + _NUMBER.findall(text)
    for word in word_tokens(text):
        if word.lower().removesuffix("'s") in vocabulary or _telling(word.removesuffix("'s")):
            found.append(word)
    return tuple(found)


def _is_header(sentence: str) -> bool:
    """A section header: a few words closing on a colon ("Returns:", "When to use this tool:")."""
    return sentence.rstrip().endswith(":") and len(word_tokens(sentence)) <= 6


_BULLET_LINE = re.compile(r"^\s*(?:[-*•·]|\d{1,2}[.)])\s+")


def _join_lists(text: str) -> str:
    """A header line and the list items under it, as one line: "When to use: a; b; c"."""
    if ":\n" not in text:
        return text
    lines, out = text.split("\n"), []
    in_list = False
    for line in lines:
        if not line.strip() and in_list:
            continue  # blank lines between the items of one list
        if in_list and _BULLET_LINE.match(line):
            item = _BULLET_LINE.sub("", line).strip()
            out[-1] += (" " if out[-1].endswith(":") else "; ") + item
            continue
        in_list = line.rstrip().endswith(":")
        out.append(line)
    return "\n".join(out)


def _drop_padding(analysis: Analysis, vocabulary: Vocabulary) -> None:
    """Set aside boilerplate: sentences with nothing specific to the tool in them (filler, headers with
    nothing under them)."""
    if not analysis.supported:
        return
    kept: list[str] = []
    sentences = analysis.sentences
    for index, sentence in enumerate(sentences):
        said = specific_words(sentence, vocabulary)
        if not kept and not said and index + 1 < len(sentences) and not _is_header(sentence):
            # An opening with nothing specific ("A very handy tool.") is padding when more follows, unless
            # it states an action.
            if _find_purpose(sentence)[0] is None:
                analysis.padding.append(sentence)
                continue
        elif kept and _is_header(sentence):
            following = sentences[index + 1] if index + 1 < len(sentences) else None
            if following is None or _is_header(following):
                analysis.padding.append(sentence)  # a header with nothing under it
                continue
        elif kept and not said:
            analysis.padding.append(sentence)
            continue
        kept.append(sentence)
    analysis.sentences = kept


_SPEAKS_OF_ITSELF = re.compile(r"^\W*(?:this|it|its|these|they)\b", _I)


def idle_padding(analysis: Analysis) -> list[str]:
    """The padding sentences that cost Conciseness: those that speak of the tool itself ("This tool is very
    useful", "It works well", "A handy tool") and those with no word the description has not said before.
    Plain words that say something new but nothing specific ("Posts tweets in reply chain.") earn nothing,
    but are not redundancy."""
    idle = []
    for sentence in analysis.padding:
        words = _content_words(sentence)
        at = analysis.text.find(sentence)
        before = _content_words(analysis.text[:at]) if at >= 0 else set()
        if _SPEAKS_OF_ITSELF.match(sentence) or words & _SELF_NOUNS or not words - before:
            idle.append(sentence)
    return idle


_HEADER_REST = re.compile(r"[^:;.\x00]{0,25}:")
_CLAUSE_BREAKS = re.compile(r"[;,\x00\n]|\.(?=\s|\x00|$)")


def _clause_end(text: str, start: int, part_end: int) -> int:
    """Where the clause from ``start`` ends: past a comma that only ends the cue ("For example, …") and
    through a list of short items ("has the number, title, state and URL")."""
    end = start
    while (found := _CLAUSE_BREAKS.search(text, end, part_end)) is not None:
        said = word_tokens(text[start : found.start()])
        following = _CLAUSE_BREAKS.search(text, found.end(), part_end)
        item = word_tokens(text[found.end() : following.start() if following else part_end])
        last = bool(item) and item[0].lower() in _COORDINATORS  # "news, facts, or data beyond …"
        if text[found.start()] == "," and (not said or len(item) <= 3 or last):
            end = found.end()
            continue
        return found.start()
    return part_end


def _evidence(joined: Joined, match: re.Match[str], vocabulary: Vocabulary) -> bool:
    """Whether the clause around a cue says something specific beyond the cue itself.

    The clause runs between commas, semicolons and full stops; after a header's colon ("When to use this
    tool: …", "Returns: …") it is what follows the colon, and below a bare header, the next sentences.
    """
    text = joined.text
    part = joined.part_at(match.start())
    part_start = joined.starts[part]
    part_end = part_start + len(joined.parts[part])
    header = _HEADER_REST.match(text, match.end(), part_end)  # "When to use this tool: …"
    if header:
        window = text[match.end() : part_end]
        if not window.strip(" :"):
            window = " ".join(joined.parts[part + 1 : part + 4])
    else:
        opening = max(
            (found.end() for found in _CLAUSE_BREAKS.finditer(text, part_start, match.start())),
            default=part_start,
        )
        window = (
            text[opening : match.start()] + " " + text[match.end() : _clause_end(text, match.end(), part_end)]
        )
    return bool(specific_words(window, vocabulary))


def _first_evidence_per_part(joined: Joined, cue: Cue, vocabulary: Vocabulary) -> dict[int, re.Match[str]]:
    """The first match of ``cue`` in each part whose clause carries evidence."""
    found: dict[int, re.Match[str]] = {}
    for match in cue.finditer(joined.text, joined.heads):
        part = joined.part_at(match.start())
        if part not in found and _evidence(joined, match, vocabulary):
            found[part] = match
    return found


def identifiers(text: str) -> list[str]:
    """The snake, kebab, dotted and camel-case identifiers ``text`` names, in order."""
    return [token for token in _TOKEN.findall(text) if is_identifier(token)]


def _false_claims(analysis: Analysis, name: str) -> None:
    """Safety claims ("read-only", "no side effects", "non-destructive") about a tool whose name or purpose
    verb changes state: each such sentence is set aside and the contradiction recorded."""
    verbs = {lemma for word in name_words(name) if (lemma := verb_lemma(word))}
    if analysis.verb:
        verbs.add(analysis.verb)
    changing = sorted(verbs & CLAIM_BREAKERS)
    if not changing:
        return
    kept = []
    for index, sentence in enumerate(analysis.sentences):
        match = SAFETY_CLAIM.search(sentence)
        if match is None or _QUALIFIED_CLAIM.match(sentence, match.end()):
            kept.append(sentence)
            continue
        analysis.false_claim = (
            f"the description claims {quote(match.group(0))} but the tool will {changing[0]} "
            f"(its name or purpose says so)"
        )
        if index:
            analysis.set_aside.append(sentence)
        else:
            kept.append(sentence)
    analysis.sentences = kept


def analyze(
    description: str,
    *,
    name: str = "",
    siblings: Sequence[str] = (),
    params: dict[str, Any] | None = None,
    server_vocabulary: Vocabulary | None = None,
) -> Analysis:
    """Read ``description`` of tool ``name`` among ``siblings`` with input ``params`` (name -> schema).
    ``server_vocabulary`` is ``names_vocabulary`` of every tool name of the server, which a server's
    index computes once; without it the names of ``name`` and ``siblings`` are read here."""
    text = description.strip()
    analysis = Analysis(text=text, supported=is_supported_language(text), words=count_words(text))
    all_sentences = split_sentences(_join_lists(text))
    tokens = _TOKEN.findall(text)
    analysis.identifiers = [token for token in tokens if is_identifier(token)]
    analysis.siblings_named = _siblings_in(text, tokens, siblings)
    if server_vocabulary is None:
        server_vocabulary = names_vocabulary(frozenset((name, *siblings)))
    vocabulary = vocabulary_of(name, server_vocabulary, params or {})
    seen: set[str] = set()
    every_sentence = Joined(all_sentences)
    priorities, promotions, emphases = map(
        every_sentence.first_match_per_part, (PRIORITY, PROMOTIONAL, EMPHASIS)
    )
    for index, sentence in enumerate(all_sentences):
        key = normalized(sentence)
        if key in seen and len(key) > 12:
            analysis.duplicate_sentences.append(sentence)
            continue
        seen.add(key)
        priority, promotional, emphasis = priorities.get(index), promotions.get(index), emphases.get(index)
        if priority:
            analysis.priority.append(priority.group(0))
        analysis.assertive += [match.group(0) for match in (promotional, emphasis) if match]
        if priority or promotional:
            analysis.set_aside.append(sentence)
            continue
        if emphasis:
            # "IMPORTANT: deletes every row" keeps its disclosure; the label itself earns nothing.
            sentence = EMPHASIS.sub("", sentence).strip(" :!-")
            if len(word_tokens(sentence)) < 4:
                analysis.set_aside.append(emphasis.group(0))
                continue
        analysis.sentences.append(sentence)
    if analysis.sentences and analysis.supported:
        # What the first sentence says the tool acts on is its subject too ("Search notes …": a note).
        resource = _find_purpose(analysis.sentences[0])[3]
        if resource:
            named = {word for word in name_words(resource) if _telling_name_word(word)}
            vocabulary |= named | {
                word[:-1] for word in named if word.endswith("s") and not word.endswith("ss")
            }
    _drop_padding(analysis, vocabulary)
    if not analysis.supported:
        return analysis
    if not analysis.sentences:
        return analysis
    verb, kind, position, resource, clause = _find_purpose(analysis.sentences[0])
    analysis.verb, analysis.verb_kind, analysis.verb_position = verb, kind, position
    if position is None or position > 3:
        analysis.subject_first = _subject_first(analysis.sentences[0], vocabulary)
    analysis.resource, analysis.purpose_clause = resource, clause
    _false_claims(analysis, name)
    sentences = analysis.sentences
    lead = _LEAD_IN.match(_NAME_PREFIX.sub("", sentences[0]))
    analysis.lead_in = lead.group(0).strip() if lead else None
    analysis.filler = [match.group(0) for sentence in sentences for match in FILLER.finditer(sentence)]
    # The purpose clause states the action; disclosures are read in what follows it.
    first_rest = sentences[0].split(clause, 1)[-1] if clause else sentences[0]
    rest_parts = [part for part in (first_rest.strip(" ,;:–—-"), *sentences[1:]) if part]
    read = every_sentence if sentences == all_sentences else Joined(sentences)
    contrast, when, when_not, implied = (
        _first_evidence_per_part(read, cue, vocabulary)
        for cue in (CONTRAST, USAGE_WHEN, USAGE_WHEN_NOT, USAGE_IMPLIED)
    )
    for index, sentence in enumerate(sentences):
        if index in contrast:
            analysis.differentiation.append(contrast[index].group(0))
        if index in when:
            analysis.usage_when.append(sentence)
        if index in when_not:
            analysis.usage_when_not.append(sentence)
        elif index in implied and index > 0:
            analysis.usage_implied.append(sentence)
    # A "Returns … including size, permissions, modified time" sentence lists fields; it discloses the
    # return shape (and limits or errors), not authentication or side effects.
    effect_parts = [part for part in rest_parts if not _RETURNS_LEAD.match(part)]
    rest = Joined(rest_parts)
    scans = {True: rest, False: rest if effect_parts == rest_parts else Joined(effect_parts)}
    for category, pattern in DISCLOSURES.items():
        scan = scans[category in _READ_IN_RETURNS]
        intrinsic = category in INTRINSIC_DISCLOSURES
        # Matches come in text order, so the first with evidence is in the earliest part that has one.
        for match in pattern.finditer(scan.text, scan.heads):
            if intrinsic or _evidence(scan, match, vocabulary):
                analysis.disclosures[category] = scan.parts[scan.part_at(match.start())]
                break
    if match := read.search(READ_ONLY_CLAIM):
        analysis.read_only_claim = match.group(0)
    if match := read.search(SAFETY_CLAIM):
        analysis.safety_claim = match.group(0)
    _analyze_params(analysis, sentences, params or {})
    return analysis


# Unicode's format characters (category Cf: zero-width, bidirectional controls, tags …) except the soft
# hyphen, plus the tag block; a test checks this class against unicodedata.
_HIDDEN = re.compile(
    "[\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f]"
)


def hidden_characters(text: str) -> list[str]:
    """Zero-width, bidirectional-control and other invisible format characters in ``text``."""
    if text.isascii():
        return []
    return sorted({f"U+{ord(char):04X}" for char in _HIDDEN.findall(text)})


def script_or_eval(text: str) -> str | None:
    """``<script``, ``eval(`` or ``javascript:`` in text meant for a model."""
    match = _SCRIPT_OR_EVAL.search(text)
    return match.group(0) if match else None
