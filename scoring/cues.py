"""Cues: the patterns that find what a description says (usage, behaviour disclosures, safety claims,
assertive, promotional and filler wording, lead-ins and labels before the purpose), and the ``Cue`` class
that skips a scan when a text holds none of the word heads a cue could start with.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from scoring.words import (
    _I,
    STATE_CHANGING,
)


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


_CLAUSE_BREAK = re.compile(r"\s[–—-]\s|[,;:(]")


_LEAD_IN = re.compile(
    r"^(?:(?:this|the|a|an)\s+(?:mcp\s+)?(?:tool|function|endpoint|method|command|api)\s*"
    r"(?:that|which|to|for|will|can|is used to|allows you to|lets you|enables you to|helps you)?|"
    r"tool\s+(?:to|for|that)|function\s+(?:to|for|that)|(?:it|this)\s+(?:will|can)|"
    r"(?:allows|lets|enables|helps)\s+(?:you|(?:the\s+|an?\s+)?(?:users?|agents?|assistants?|models?|llms?|ai|"
    r"clients?|callers?))?\s*(?:to\s+)?|"
    r"(?:is|are|can be)?\s*used\s+to|use\s+this\s+(?:tool\s+)?to|call\s+this\s+to|you\s+can|simply|"
    r"just|quickly|easily)\s+",
    _I,
)


_NAME_PREFIX = re.compile(r"^\s*(?:\[[^\]]{1,40}\]|\([^)]{1,40}\)|[^\w\s(]{1,3})\s*")


# "Bing search: …", "Notion | Get page", "jira_create_issue - Create …": a label or namespace before the text.
_LABEL = re.compile(r"^([\w.-]+(?: [\w.-]+){0,2})(?::|\s*[|›»]|\s+[–—-])\s+")


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
    r"(?:cheaper|faster|quicker|lighter|smaller)\s+than|best\s+used\s+(?:for|when|if|to|with)|"
    r"(?:must|needs?\s+to)\s+be\s+(?:called|used|run)|only\s+(?:needed|required|necessary)\s+(?:if|when|for)|"
    r"(?:reach\s+for|pick|choose)\s+(?:this|it)(?:\s+tool)?\s+(?:when|if|for)|works\s+best\s+(?:with|when|for|if))\b",
    _I,
)


USAGE_WHEN_NOT = cue(
    r"\b(?:(?:do\s+not|don't|never|avoid)\s+(?:use|call|invoke|using|calling)|not\s+(?:suitable|intended|"
    r"meant|designed|appropriate)|instead|rather\s+than|unless|prefer\s+\w+|only\s+(?:use|call)|"
    r"not\s+for\b|is\s+not\s+needed|no\s+need\s+to|when\s+not\s+to\s+use|(?:slower|costlier|heavier)\s+than|"
    r"avoid\s+(?:for|when|if|it|this)|(?:is|are)\s+(?:faster|cheaper|quicker|lighter|better\s+suited))\b",
    _I,
)


USAGE_IMPLIED = cue(
    r"\b(?:e\.g\.|for\s+example|such\s+as|returned\s+by|obtained\s+from|from\s+(?:a|the)\s+previous|"
    r"(?:id|ids|identifier)\s+(?:from|returned)|helps?\s+(?:you\s+)?(?:to\s+)?\w+|to\s+(?:find|get|see|check)|"
    r"first|then|next|workflow|step)\b",
    _I,
)


_CHANGE_VERB = (
    r"(?:modif(?:y|ies)|changes?|writes?|alters?|deletes?|removes?|mutates?|affects?|touch(?:es)?|updates?|"
    r"creates?|destroys?)"
)
# That calling the tool changes nothing at all: read-only, no side effects, nothing written, or a negated
# change verb whose object is everything ("never modifies any data", "will not alter or delete anything").
# A negation with an object of its own ("does not delete the original") bounds what a tool changes and
# claims nothing; nor does "no changes" outside "makes no changes" ("fails if there are no changes").
_CLAIMS_NO_CHANGE = (
    r"\b(?:read[- ]?only|(?:has\s+|with\s+|causes\s+)?(?:no|zero)\s+side[- ]?effects?|"
    r"side[- ]?effect[- ]?free|free\s+of\s+side[- ]?effects?|non[- ]?(?:destructive|mutating|modifying)|"
    r"harmless|purely\s+informational|no\s+(?:writes|mutations)|"
    r"(?:makes|performs|causes|has)\s+no\s+(?:changes|modifications|mutations|writes)|"
    rf"(?:does\s+not|doesn't|do\s+not|don't|never|will\s+not|won't|cannot|can't)\s+(?:{_CHANGE_VERB}\s+"
    rf"(?:or|and|nor)\s+)?{_CHANGE_VERB}\s+(?:anything|(?:any\s+)?(?:data|state)|the\s+(?:system|state|data))|"
    r"(?:nothing|no\s+(?:data|state|files?|records?))\s+(?:is|are|gets?|will\s+be)\s+(?:ever\s+)?"
    r"(?:modified|changed|written|altered|deleted|touched|mutated)|"
    r"safe\s+to\s+(?:call|retry|run))\b"
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
        r"(?:returns?|responds?\s+with|status(?:\s+code)?|http)\s+[45]\d\d|"
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
        rf"{_CLAIMS_NO_CHANGE}|\b(?:(?:does\s+not|doesn't|never|will\s+not|won't)\s+{_CHANGE_VERB}|"
        r"without\s+(?:modifying|changing|side\s+effects))\b"
    ),
    "scope and limits": cue(
        r"\b(?:only\b(?<!read-only)(?<!read\sonly)|at\s+most|maximum|max|minimum|limit(?:ed|s)?|no\s+[\w/]+\s+filter\w*|capped|at\s+least|"
        r"within|must|requires?|cannot|can't|unsupported|not\s+supported|case[- ]sensitive|"
        r"case[- ]insensitive|recursive\w*|depth|all\s+(?:of\s+)?(?:the\s+)?\w+|in\s+full)\b"
    ),
    "timing and state": cue(
        r"\b(?:asynchronous\w*|async|background|cach(?:e|es|ed|ing)|eventually|takes?\s+(?:a\s+few|several|up\s+to)|"
        r"may\s+take|long[- ]running|blocks?|blocking|waits?\s+(?:for|until)|real[- ]time|stale|"
        r"consistent|atomic\w*|transaction\w*|concurren\w*|lock\w*|queued?)\b"
    ),
}


READ_ONLY_CLAIM = DISCLOSURES["read-only"]


# The categories that say a call is safe rather than what it does.
SAFETY_CATEGORIES = frozenset(["read-only", "idempotence"])


# Categories whose cue says something specific by itself ("cannot be undone", "idempotent", "RCE").
INTRINSIC_DISCLOSURES = frozenset(
    ["destruction", "security risk", "idempotence", "read-only", "timing and state"]
)


# Cue words of the other categories that name a mechanism rather than the category ("an API key", "the
# cursor", "a quota", "status 404"), and so say something specific by themselves; "authentication",
# "errors" or "pagination" alone do not.
CONCRETE_DISCLOSURE = re.compile(
    r"(?:api[ _-]?keys?|(?:access|api|auth|bearer|refresh|personal\s+access)\s+tokens?|oauth\d*|credentials?|"
    r"logged[ -]in|signed[ -]in|sudo|cursors?|next[ _]page|page[ _]?(?:token|size|number)|has_more|offset|"
    r"truncat\w*|quotas?|requests?\s+per|per\s+(?:minute|second|hour|day)|"
    r"(?:returns?|responds?\s+with|status(?:\s+code)?|http)\s+[45]\d\d)",
    _I,
)


# A claim that calling the tool is safe; the tool's own verbs can contradict it.
SAFETY_CLAIM = cue(_CLAIMS_NO_CHANGE)


# A claim made under a condition that comes before it ("with dry_run it changes nothing") or of a mode
# ("in preview mode it is read-only") describes that mode, which a tool that changes state may well have.
CONDITION = re.compile(r"\b(?:if|when|unless|while|with)\b", _I)
MODE = re.compile(r"\b(?:dry[-_ ]?run|preview|simulat\w*|validate_only)\b", _I)


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
