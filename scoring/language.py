"""Language analysis of a tool description: what it says, sentence by sentence.

Finds the purpose verb and its resource, sibling tools named, usage cues (when, when not,
alternatives), behaviour disclosures by category, parameter explanations that go beyond the
schema, filler and assertive or promotional wording. Assertive and promotional sentences are set
aside before anything else is read, so they earn nothing. Descriptions that are not English, in
any script (``scoring.languages`` tells), yield structure only: identifiers, length, sentence count.

The words, cues and evidence it reads are in ``scoring.words``, ``scoring.cues`` and
``scoring.evidence``; the names other modules import from here are re-exported.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from scoring import lexicon
from scoring.cues import (
    _CLAUSE_BREAK,
    _CONTAINERS,
    _LABEL,
    _LEAD_IN,
    _NAME_PREFIX,
    _OF,
    _QUALIFIED_CLAIM,
    _READ_IN_RETURNS,
    _RETURNS_LEAD,
    _SCRIPT_OR_EVAL,
    _VERB_MARKERS,
    CLAIM_BREAKERS,
    CONCRETE_DISCLOSURE,
    CONDITION,
    CONTRAST,
    DISCLOSURES,
    EMPHASIS,
    FILLER,
    INTRINSIC_DISCLOSURES,
    MODE,
    PARAM_CUE,
    PRIORITY,
    PROMOTIONAL,
    READ_ONLY_CLAIM,
    SAFETY_CATEGORIES,
    SAFETY_CLAIM,
    USAGE_IMPLIED,
    USAGE_WHEN,
    USAGE_WHEN_NOT,
)
from scoring.evidence import (
    PARAMETER_WORDS,
    Joined,
    Vocabulary,
    _enumerates,
    _evidence,
    _first_evidence_per_part,
    _telling_name_word,
    names_vocabulary,
    specific_words,
    vocabulary_of,
)
from scoring.words import (
    _BOUNDARY_WORDS,
    _CLAUSE_SPLIT,
    _COORDINATORS,
    _DETERMINERS,
    _I,
    _NUMBER,
    _PREPOSITIONS,
    _RATE,
    _SLASH_AS_OR,
    _TOKEN,
    _VAGUE_NOUNS,
    STOPWORDS,
    VERB_KIND,
    _non_latin_letters,
    count_words,
    is_identifier,
    is_supported_language,
    name_words,
    normalized,
    purpose_verb,
    quote,
    split_sentences,
    verb_lemma,
    word_tokens,
)

# What other modules import from here, wherever it is defined.


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


def _find_purpose(
    sentence: str, own: frozenset[str] = frozenset()
) -> tuple[str | None, str | None, int | None, str | None, str]:
    """(verb, kind, position, resource, purpose clause) of the first sentence; ``own`` are the words of
    the tool's name, which name its object however vague they are elsewhere ("List all requests" of
    list_requests)."""
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
    # "Calculates/evaluates …": either side of a slash is a word of its own; "Fetch & parse" is "and".
    tokens = word_tokens(_RATE.sub(" ", stripped.replace(" & ", " and ")))
    words = [part for word in tokens for part in _SLASH_AS_OR.sub(" or ", word).split()]
    # "Searches, filters and sorts tickets": verbs listed after the first come before its object.
    listed = bool(words) and re.match(rf"\W*{re.escape(words[0])}\s*,", stripped) is not None
    for position, word in enumerate(words[:14]):
        following = words[position + 1] if position + 1 < len(words) else ""
        lemma = purpose_verb(word, following) or (_unknown_verb(word, following) if position == 0 else None)
        # The verb leads, or comes after a marker that makes it one ("..., this will search issues").
        before = words[position - 1].lower() if position else ""
        # "Permanently delete ...", "Force terminate a session": a leading adverb or modifier does not hide
        # the verb that takes the object.
        marked = (
            before in _VERB_MARKERS
            or (position == 1 and (before.endswith("ly") or following.lower() in _DETERMINERS))
            or (before == "for" and word.lower().endswith("ing"))  # "deck list tool for retrieving decks"
        )
        if lemma is None or (position > 0 and not marked):
            continue
        resource_words: list[str] = []
        targeted = False  # whether the object is the target of a preposition after a vague one
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
                listed = False  # "…, filters and sorts": the last verb of the list is passed
                continue
            if listed and not resource_words and purpose_verb(follower, after or "the"):
                continue
            if not resource_words and lower in {"if", "whether"}:
                continue  # "Check if packages are deprecated"
            if lower in _BOUNDARY_WORDS:
                if len(resource_words) == 1 and resource_words[0].lower() in _CONTAINERS and lower in _OF:
                    resource_words = []  # "a list of components", "information about a summoner"
                    continue
                if resource_words and lower in _PREPOSITIONS and not _specific(resource_words, own):
                    resource_words = []  # "Write values to the Excel sheet": the target names the object
                    targeted = True
                    continue
                if resource_words or lower not in _PREPOSITIONS:
                    break
                continue  # "Subscribe to a channel": the object follows the preposition
            if lower in _DETERMINERS or lower in {"up", "out", "down", "back"}:
                continue
            resource_words.append(follower)
        resource = " ".join(resource_words) if _specific(resource_words, own) else None
        kind = VERB_KIND.get(lemma, "action")
        if lemma in _LIGHT_VERBS and resource and not targeted and _names_an_action(resource_words[-1]):
            kind = "action"  # "Perform an HTTP DELETE request", "Perform a commute analysis"
        return lemma, kind, position, resource, clause or stripped
    return None, None, None, None, clause or stripped


# Verbs whose object carries the action: "perform a search" is a search, however vague "perform" is.
_LIGHT_VERBS = frozenset(["perform", "do", "conduct"])


def _names_an_action(noun: str) -> bool:
    """Whether ``noun`` names an action: a verb's form ("request", "search", "thinking") or a noun made
    from one ("analysis", "conversion", "assessment")."""
    lower = noun.lower()
    return lexicon.verb_reading(lower) is not None or lower.endswith(("sis", "tion", "ment"))


def _specific(words: list[str], own: frozenset[str]) -> bool:
    """Whether one of ``words`` names a thing: not a vague noun ("values", "input"), or a word of the
    tool's own name."""
    return any(word.lower() not in _VAGUE_NOUNS or word.lower() in own for word in words)


def _unknown_verb(word: str, following: str) -> str | None:
    """A word too rare for the lexicon's tables ("Upsert", "Unstages", "Populate"), leading the sentence
    before a determiner: an imperative or third-person verb of the trade, read as its base form. A noun
    seldom opens a description with "a" or "the" after it."""
    lower = word.lower()
    if not lower.isalpha() or following.lower() not in _DETERMINERS or lexicon.zipf(lower) > 0:
        return None
    if lexicon.verb_reading(lower) is not None or is_identifier(word):
        return None
    return lower[:-1] if lower.endswith("s") and not lower.endswith("ss") else lower


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


# "(string)", "(int, optional)", "(List[str])": an Args line's type note, which the schema carries.
_TYPE_NOTE = re.compile(
    r"\(\s*(?:str|string|int|integer|number|float|double|bool|boolean|array|list|object|dict|null|any)"
    r"(?:\[[^\]]*\])?(?:\s*[,|]\s*(?:optional|required|none|null))?\s*\)",
    re.IGNORECASE,
)


def _parameter_names(params: dict[str, Any]) -> set[str]:
    """Every parameter's name, lower-cased, and the words of each ("dt_str", "dt", "str")."""
    return {param.lower() for param in params} | {word for param in params for word in name_words(param)}


# What a sentence that only lists the inputs adds to their names, besides type notes: whether they are
# required and the verb that introduces them ("Takes a query (required) and a limit (optional).").
_LISTING_WORDS = PARAMETER_WORDS | frozenset(
    ["optional", "required", "input", "inputs", "take", "takes", "accept", "accepts", "expect", "expects"]
)


def _is_safety_label(sentence: str) -> bool:
    """A few words that state how safe the tool is and not what it does ("SAFE read-only tool.",
    "Destructive operation!")."""
    said = (SAFETY_CLAIM.search(sentence) or DISCLOSURES["destruction"].search(sentence)) is not None
    return said and len(word_tokens(sentence)) <= 5 and _find_purpose(sentence)[0] is None


def _set_aside_restatements(analysis: Analysis, params: dict[str, Any]) -> None:
    """Set aside the sentences after the first that name parameters and say nothing of them ("Args: query:
    the query.", "Takes a query (required) and a limit."): they earn nothing and, two or more, cost
    Conciseness as a restated schema."""
    if not params or len(analysis.sentences) < 2:
        return
    names = _parameter_names(params)
    kept = analysis.sentences[:1]
    for sentence in analysis.sentences[1:]:
        said = _content_words(_TYPE_NOTE.sub(" ", sentence))
        if said & names and not said - names - _LISTING_WORDS:
            analysis.schema_restatements.append(sentence)
        else:
            kept.append(sentence)
    analysis.sentences = kept


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
        name_set = {*words, param.lower()}
        schema_text, schema_words = None, set()  # read at the first explained mention
        for index, clause in enumerate(clauses):
            # A mention in ASCII text holds the name's first word in some case; without it, none can match.
            if words[0] not in lowered_clauses[index] and clause.isascii():
                continue
            match = pattern.search(clause)
            if not match:
                continue
            if index not in content:
                content[index] = _content_words(_TYPE_NOTE.sub(" ", clause))
            # An "Args:" or "Parameters:" header joined to its first item documents nothing by itself.
            others = content[index] - name_set - PARAMETER_WORDS
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


def _is_header(sentence: str) -> bool:
    """A section header: a few words closing on a colon ("Returns:", "When to use this tool:")."""
    return sentence.rstrip().endswith(":") and len(word_tokens(sentence)) <= 6


_BULLET_LINE = re.compile(r"^\s*(?:[-*•·]|\d{1,2}[.)])\s+")


def _join_lists(text: str) -> str:
    """A header line and the list items under it, as one line: "When to use: a; b; c"."""
    if ":\n" not in text:
        return text
    out: list[str]
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


def _discloses_by_itself(sentence: str) -> bool:
    """Whether ``sentence`` holds a disclosure that needs no evidence ("This permanently removes it.")."""
    return any(DISCLOSURES[category].search(sentence) for category in INTRINSIC_DISCLOSURES)


def _drop_padding(analysis: Analysis, vocabulary: Vocabulary) -> None:
    """Set aside boilerplate: sentences with nothing specific to the tool in them (filler, headers with
    nothing under them)."""
    if not analysis.supported:
        return
    kept: list[str] = []
    sentences = analysis.sentences
    for index, sentence in enumerate(sentences):
        said = specific_words(sentence, vocabulary) or _enumerates(sentence) or _discloses_by_itself(sentence)
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


def _false_claims(analysis: Analysis, name: str) -> None:
    """Safety claims ("read-only", "no side effects", "non-destructive") about a tool whose name or purpose
    verb changes state: each such sentence is set aside and the contradiction recorded."""
    verbs = {lemma for word in name_words(name) if (lemma := verb_lemma(word))}
    if analysis.verb:
        verbs.add(analysis.verb)
    changing = sorted(verbs & CLAIM_BREAKERS)
    if not changing:
        return
    kept: list[str] = []
    claims = []
    for index, sentence in enumerate(analysis.sentences):
        match = _unconditional_claim(sentence)
        if match:
            claims.append(match)
        (analysis.set_aside if match and index else kept).append(sentence)
    # Padding is read too: "Read only." says nothing specific, and is a claim all the same.
    claims += filter(None, map(_unconditional_claim, analysis.padding))
    if claims:
        analysis.false_claim = (
            f"the description claims {quote(claims[0].group(0))} but the tool will {changing[0]} "
            f"(its name or purpose says so)"
        )
    analysis.sentences = kept


def _unconditional_claim(sentence: str) -> re.Match[str] | None:
    """The safety claim ``sentence`` makes of every call: not a scope ("read-only SELECT queries"), not one
    made under a condition or of a mode ("with dry_run it changes nothing")."""
    match = SAFETY_CLAIM.search(sentence)
    if match is None or CONDITION.search(sentence, 0, match.start()) or MODE.search(sentence):
        return None
    qualifier = _QUALIFIED_CLAIM.match(sentence, match.end())
    if (
        qualifier
        and match.group(0).lower().startswith("read")
        and qualifier.group(0).strip().lower() not in (_SELF_NOUNS | _VAGUE_NOUNS | _CLAIM_OF_ACCESS)
    ):
        return None
    return match


# "read-only access", "read-only mode": the words after the claim name the call itself, not a scope.
_CLAIM_OF_ACCESS = frozenset(["access", "mode", "call", "calls"])


def analyze(
    description: str,
    *,
    name: str = "",
    siblings: Sequence[str] = (),
    params: dict[str, Any] | None = None,
    server_vocabulary: frozenset[str] | None = None,
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
    own = frozenset(name_words(name))
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
        resource = _find_purpose(analysis.sentences[0], own)[3]
        if resource:
            named = {word for word in name_words(resource) if _telling_name_word(word)}
            vocabulary |= named | {
                word[:-1] for word in named if word.endswith("s") and not word.endswith("ss")
            }
    _set_aside_restatements(analysis, params or {})
    _drop_padding(analysis, vocabulary)
    if not analysis.supported:
        return analysis
    if not analysis.sentences:
        return analysis
    if len(analysis.sentences) > 1 and _is_safety_label(analysis.sentences[0]):
        # "SAFE read-only tool. Shows all lights …": the label leads, the purpose is the sentence after it.
        first, second, *others = analysis.sentences
        analysis.sentences = [second, first, *others]
    verb, kind, position, resource, clause = _find_purpose(analysis.sentences[0], own)
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
    match: re.Match[str] | None
    # "side-effect free", "does not delete anything": a claim that nothing changes discloses no effect.
    claimed = {
        key: [found.span() for found in SAFETY_CLAIM.finditer(scan.text, scan.heads)]
        for key, scan in scans.items()
    }
    named_params = {param.lower() for param in params or {}}
    for category, pattern in DISCLOSURES.items():
        scan = scans[category in _READ_IN_RETURNS]
        intrinsic = category in INTRINSIC_DISCLOSURES
        claims = claimed[category in _READ_IN_RETURNS] if category not in SAFETY_CATEGORIES else []
        # Matches come in text order, so the first with evidence is in the earliest part that has one.
        for match in pattern.finditer(scan.text, scan.heads):
            if any(start < match.end() and match.start() < end for start, end in claims):
                continue
            if match.group(0).lower() in named_params:
                continue  # "limit: the limit" names a parameter, not a limit
            concrete = intrinsic or CONCRETE_DISCLOSURE.fullmatch(match.group(0)) is not None
            if concrete or _evidence(scan, match, vocabulary):
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
