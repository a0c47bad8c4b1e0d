"""One tool read whole: its units with their labels, what is set aside before reading, and the facts
the fitted dimensions need besides the sentences.

Units that carry assertive, promotional or priority wording (the lints of that name) are set aside
before the model reads anything, so they can earn nothing; a unit said a second time is read once.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from scoring.cues import CLAIM_BREAKERS, CONDITION, EMPHASIS, MODE, PRIORITY, PROMOTIONAL, SAFETY_CLAIM
from scoring.mapping import Facts
from scoring.reading import ReadUnit, SentenceModel, ToolContext, object_phrase, read_units
from scoring.sentences import Unit, split_units
from scoring.signals import ContextSignals
from scoring.toolset import name_verb
from scoring.words import VERB_KIND, name_words, normalized, verb_lemma

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'_.-]*")
# A label of emphasis alone ("IMPORTANT:") leaves too little to read once it is taken away.
_FEWEST_WORDS_LEFT = 4
# Words that end the object of a purpose verb: what follows says for what, from where, how.
_OBJECT_ENDS = frozenset(
    [
        "for",
        "by",
        "in",
        "from",
        "with",
        "to",
        "on",
        "at",
        "using",
        "via",
        "and",
        "or",
        "into",
        "across",
        "within",
    ]
)
# Kinds of action that change state.
MUTATING_KINDS = frozenset(["create", "update", "delete"])


@dataclass(frozen=True)
class ToolReading:
    """What a tool's description says, unit by unit, and the facts around it."""

    units: tuple[ReadUnit, ...]
    set_aside: tuple[Unit, ...]
    repeated: tuple[Unit, ...]
    facts: Facts
    action: str | None  # the kind of the purpose verb: read, create, update, delete, action, vague
    siblings_named: tuple[str, ...] = ()  # sibling tools the text names, in server order
    priority: tuple[str, ...] = ()  # priority instructions ("always use this tool first")
    assertive: tuple[str, ...] = ()  # assertive and promotional wording
    safety_claim: str | None = None  # the first claim that a call changes nothing
    false_claim: str | None = None  # such a claim on a tool whose name or purpose changes state

    def saying(self, label: str) -> list[ReadUnit]:
        """The specific units that carry ``label``."""
        return [unit for unit in self.units if unit.says(label)]

    def _purpose_words(self) -> tuple[list[str], int]:
        """The words of the purpose sentence and the position of the verb that leads it (-1 for none)."""
        purpose = next((unit for unit in self.units if "purpose" in unit.labels), None)
        if purpose is None:
            return [], -1
        words = _WORD.findall(purpose.text)
        return words, next((i for i, word in enumerate(words[:3]) if verb_lemma(word) is not None), -1)

    @property
    def purpose_verb(self) -> str | None:
        """The lemma of the verb that leads the purpose sentence."""
        words, lead = self._purpose_words()
        return verb_lemma(words[lead]) if lead >= 0 else None

    @property
    def purpose_verb_kind(self) -> str | None:
        """The kind of the verb that leads the purpose sentence ("vague" for manage, handle, process)."""
        verb = self.purpose_verb
        return VERB_KIND[verb] if verb else None

    @property
    def purpose_object(self) -> str:
        """What the purpose sentence says the tool acts on (``scoring.reading.object_phrase``)."""
        purpose = next((unit for unit in self.units if "purpose" in unit.labels), None)
        return " ".join(object_phrase(purpose.text)) if purpose else ""


def _word_count(text: str) -> int:
    return len(_WORD.findall(text))


def _set_aside(unit: Unit) -> bool:
    """Whether ``unit`` carries wording that sways selection without informing it."""
    if PRIORITY.search(unit.text) or PROMOTIONAL.search(unit.text):
        return True
    emphasis = EMPHASIS.search(unit.text)
    return bool(emphasis) and _word_count(EMPHASIS.sub("", unit.text)) < _FEWEST_WORDS_LEFT


def unconditional_claim(text: str) -> re.Match[str] | None:
    """The claim ``text`` makes that every call changes nothing: not a scope ("read-only SELECT queries"),
    not one made under a condition or of a mode ("with dry_run it changes nothing")."""
    match = SAFETY_CLAIM.search(text)
    if match is None or CONDITION.search(text, 0, match.start()) or MODE.search(text):
        return None
    qualifier = _QUALIFIED_CLAIM.match(text, match.end())
    if (
        qualifier
        and match.group(0).lower().startswith("read")
        and qualifier.group(0).strip().lower() not in _CLAIM_OF_ACCESS
    ):
        return None
    return match


# "read-only SELECT": the word after a read-only claim names what is read-only, a scope, unless it names
# the call itself ("read-only access", "read-only tool").
_QUALIFIED_CLAIM = re.compile(r"[ \t]+(?!and\b|or\b|by\b|for\b|mode\b)[A-Za-z]{3,}", re.IGNORECASE)
_CLAIM_OF_ACCESS = frozenset(
    [
        "access",
        "mode",
        "call",
        "calls",
        "tool",
        "tools",
        "operation",
        "function",
        "endpoint",
        "method",
        "data",
    ]
)


def _changing_verbs(name: str, first: Unit | None) -> list[str]:
    """The verbs of the tool's name and of its opening words that change state."""
    words = list(name_words(name)) + (_WORD.findall(first.text)[:3] if first else [])
    return sorted({lemma for word in words if (lemma := verb_lemma(word))} & CLAIM_BREAKERS)


def _siblings_in(text: str, siblings: Collection[str]) -> list[str]:
    """Sibling names in ``text``; a plain-word name (``tempo``) counts only in code form or as a tool."""
    found = []
    for token in dict.fromkeys(_WORD.findall(text)):
        token = token.strip(".'")
        if len(token) < 3 or token not in siblings:
            continue
        if (
            "_" in token
            or "-" in token
            or "." in token
            or not token.islower()
            or re.search(
                rf"[`'\"]{re.escape(token)}[`'\"]|\b{re.escape(token)}\s+(?:tool|function|command)", text
            )
        ):
            found.append(token)
    return found


def action_kind(name: str, units: Sequence[ReadUnit]) -> str | None:
    """The kind of action the tool's name states, else the first verb of its purpose."""
    verb, _ = name_verb(name)
    if verb is not None:
        return VERB_KIND[verb]
    purpose = next((unit for unit in units if "purpose" in unit.labels), None)
    if purpose is None:
        return None
    for word in _WORD.findall(purpose.text)[:3]:
        lemma = verb_lemma(word)
        if lemma is not None:
            return VERB_KIND[lemma]
    return None


def _documented_in_text(units: Sequence[ReadUnit], bare: Collection[str]) -> frozenset[str]:
    """The parameters of ``bare`` (lower-cased names) that a specific parameter-meaning unit names."""
    if not bare:
        return frozenset()
    found = set()
    for unit in units:
        if not unit.says("param_meaning"):
            continue
        words = {token.strip("`'\"").lower() for token in _WORD.findall(unit.text)}
        spaced = f" {normalized(unit.text)} "
        for param in bare:
            if param in words or f" {' '.join(name_words(param))} " in spaced:
                found.add(param)
    return frozenset(found)


def read_tool(
    name: str,
    description: str,
    params: dict[str, object],
    signals: ContextSignals,
    siblings: Collection[str] = (),
    model: SentenceModel | None = None,
) -> ToolReading:
    """Read ``description`` of tool ``name`` with input ``params`` among ``siblings``."""
    kept: list[Unit] = []
    aside: list[Unit] = []
    repeated: list[Unit] = []
    seen: set[str] = set()
    every = split_units(description)
    changing = _changing_verbs(name, every[0] if every else None)
    claims: list[str] = []
    for unit in every:
        key = normalized(unit.text)
        if key in seen and len(key) > 12:
            repeated.append(unit)
            continue
        seen.add(key)
        claim = unconditional_claim(unit.text)
        if claim:
            claims.append(claim.group(0))
        # A safety claim the tool's own verbs contradict earns nothing: it is read as no disclosure.
        if _set_aside(unit) or (claim and changing and len(every) > 1):
            aside.append(unit)
        else:
            kept.append(unit)
    context = ToolContext.of(name, params, siblings)
    units = tuple(read_units(kept, context, model))
    bare = [
        param.lower()
        for param, schema in params.items()
        if not (
            isinstance(schema, dict)
            and isinstance(schema.get("description"), str)
            and schema["description"].strip()
        )
    ]
    action = action_kind(name, units)
    # readOnlyHint says a call changes nothing: "build" or "generate" then makes a result, not a change.
    hints = signals["annotationValues"]
    mutating = (action in MUTATING_KINDS and hints["readOnly"] is not True) or hints["destructive"] is True
    facts = Facts(
        signals=signals,
        documented_in_text=_documented_in_text(units, bare),
        param_names=tuple(params),
        mutating=mutating,
        words=_word_count(description),
        informative_words=sum(_word_count(unit.text) for unit in units if unit.specific),
        set_aside=len(aside),
        repeated=len(repeated),
    )
    false_claim = (
        f"the description claims {claims[0]!r} but the tool will {changing[0]} (its name or purpose says so)"
        if claims and changing
        else None
    )
    return ToolReading(
        units,
        tuple(aside),
        tuple(repeated),
        facts,
        action,
        siblings_named=tuple(_siblings_in(description, siblings)),
        priority=tuple(m.group(0) for unit in aside if (m := PRIORITY.search(unit.text))),
        assertive=tuple(
            m.group(0)
            for unit in every
            for pattern in (PROMOTIONAL, EMPHASIS)
            if (m := pattern.search(unit.text))
        ),
        safety_claim=claims[0] if claims else None,
        false_claim=false_claim,
    )
