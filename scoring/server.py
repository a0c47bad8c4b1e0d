"""The server roll-up: description quality, the four coherence dimensions, overall, shadowing risks.

Coherence is judged deterministically: disambiguation from how alike the tools' descriptions and
schemas are, naming consistency from the naming conventions and verb positions, tool count from
the rubric's bands, lifecycle completeness from the create/read/update/delete verbs per resource.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Set
from dataclasses import dataclass
from typing import Any

from scoring.arithmetic import (
    COHERENCE_DIMENSIONS,
    coherence_score,
    description_quality,
    overall_score,
    round1,
    tenths,
    tier,
)
from scoring.lints import GENERIC_NAMES, naming_convention
from scoring.signals import ContextSignals, properties_of
from scoring.tool_reading import ToolReading
from scoring.toolset import ToolNames, content, jaccard, name_actions, name_verb, stem
from scoring.toolset import namespace as toolset_namespace
from scoring.words import VERB_KIND, name_words, verb_lemma, word_tokens


@dataclass(frozen=True)
class Confusable:
    """The pairs of tools an agent could take for one another: descriptions sharing most of their words
    (or one template with schemas alike) for purposes not told apart by kind of action or object.
    ``helped`` pairs are those whose descriptions name each other. Tools' Purpose and the server's
    Disambiguation read the same pairs."""

    confused: tuple[tuple[str, str], ...]
    helped: tuple[tuple[str, str], ...]
    confused_count: int
    helped_count: int
    twins: int  # pairs with near-identical descriptions
    cut: bool  # whether comparisons per tool were bounded, so the counts are a floor
    partners: dict[str, tuple[str, ...]]

    def of(self, name: str) -> tuple[str, ...]:
        """The tools ``name`` could be taken for."""
        return self.partners.get(name, ())


_EXAMPLES = 3  # pairs kept by name; a server of look-alikes has tens of thousands


def confusable_pairs(
    tools: list[dict[str, Any]], readings: dict[str, ToolReading], index: ToolNames
) -> Confusable:
    # Names differ by design, so only what the descriptions say is compared: the index finds the pairs
    # whose descriptions share at least half their words (more unlike ones cannot be confused).
    names = index.names
    params = [set(properties_of(t.get("inputSchema"))) for t in tools]
    confused: list[tuple[str, str]] = []
    helped: list[tuple[str, str]] = []
    counts = {"confused": 0, "helped": 0, "twins": 0}
    partners: dict[str, list[str]] = {}
    pairs, cut = index.alike_pairs()
    theme = index.theme
    for left_index, right_index, text_similarity in pairs:
        left, right = names[left_index], names[right_index]
        left_params, right_params = params[left_index], params[right_index]
        schema_similarity = jaccard(left_params, right_params) if left_params or right_params else 1.0
        counts["twins"] += text_similarity >= 0.9
        # "Get dividends for a symbol" and "Get news for a symbol", "Create a directory" and "List a
        # directory": one template, two purposes, told apart by what each acts on or how.
        objects = (_objects(left, readings[left], theme), _objects(right, readings[right], theme))
        kinds = {readings[left].action, readings[right].action}
        distinct_actions = len(kinds) == 2 and kinds <= _DISTINCT_KINDS
        if text_similarity < 0.9 and (distinct_actions or _different_objects(*objects)):
            continue
        if text_similarity >= 0.7 or schema_similarity >= 0.8:
            named = right in readings[left].siblings_named or left in readings[right].siblings_named
            kind, examples = ("helped", helped) if named else ("confused", confused)
            counts[kind] += 1
            if len(examples) < _EXAMPLES:
                examples.append((left, right))
            if len(partners.get(left, ())) < _EXAMPLES:
                partners.setdefault(left, []).append(right)
            if len(partners.get(right, ())) < _EXAMPLES:
                partners.setdefault(right, []).append(left)
    return Confusable(
        confused=tuple(confused),
        helped=tuple(helped),
        confused_count=counts["confused"],
        helped_count=counts["helped"],
        twins=counts["twins"],
        cut=cut,
        partners={name: tuple(others) for name, others in partners.items()},
    )


def disambiguation(tools: list[dict[str, Any]], pairs: Confusable) -> tuple[int, str]:
    weight = pairs.confused_count + pairs.helped_count / 2
    if pairs.twins >= 2:
        score = 1
    elif weight == 0:
        score = 5
    elif weight <= 2:
        score = 4
    elif weight <= max(3, len(tools) / 2):
        score = 3
    else:
        score = 2
    if not pairs.confused and not pairs.helped:
        return (
            score,
            f"No two of the {len(tools)} tools have alike descriptions and schemas; each is distinct.",
        )
    shown = ", ".join(f"`{a}`/`{b}`" for a, b in (pairs.confused + pairs.helped)[:_EXAMPLES])
    total = pairs.confused_count + pairs.helped_count
    # Past the comparison bound the count is a floor.
    text = f"{'at least ' if pairs.cut else ''}{total} pair{'s' if total != 1 else ''} read alike ({shown})"
    if pairs.helped:
        text += f"; in {pairs.helped_count} the descriptions name each other, which helps"
    return score, text + ". Say in each what sets it apart from the other to earn more."


# Verb kinds that never stand for one another (an "action" or a vague verb may be any of them).
_DISTINCT_KINDS = frozenset(["read", "create", "update", "delete"])


def _objects(name: str, reading: ToolReading, theme: Set[str]) -> set[str]:
    """The stems of what a tool acts on, by its name and its purpose, beyond the server's theme."""
    return ({stem(word) for word in name_verb(name)[1]} | content(reading.purpose_object)) - theme


def _different_objects(left: set[str], right: set[str]) -> bool:
    """Whether two tools name what they act on and share no word of it ("dividends" and "news")."""
    return bool(left and right) and not left & right


def naming_consistency(tools: list[dict[str, Any]]) -> tuple[int, str]:
    names = [str(t.get("name")) for t in tools]
    conventions = Counter(naming_convention(name) for name in names)
    conventions.pop("single", None)
    namespace = toolset_namespace(names)
    orders: Counter[str] = Counter()
    for name in names:
        words = list(name_words(name))
        if namespace and len(words) > 1 and words[0] == namespace:
            words = words[1:]
        if len(words) < 2:
            continue
        # Verb first, verb last, or a noun-only name; any single habit is consistent.
        orders[
            "verb first" if verb_lemma(words[0]) else "verb last" if verb_lemma(words[-1]) else "no verb"
        ] += 1
    counted = sum(orders.values())
    order, dominant = orders.most_common(1)[0] if orders else ("verb first", 0)
    order_share = dominant / counted if counted else 1.0
    kinds = len(conventions)
    if kinds >= 3:
        score = 1 if kinds >= 4 or order_share < 0.5 else 2
    elif kinds == 2:
        minority = min(conventions.values())
        score = 4 if minority == 1 and order_share >= 0.8 else 3 if order_share >= 0.6 else 2
    else:
        score = 5 if order_share >= 0.8 else 4 if order_share >= 0.6 else 3
    shown = ", ".join(f"{kind} {count}" for kind, count in conventions.most_common()) or "single words"
    prefix = f" after the shared prefix '{namespace}'" if namespace else ""
    habit = "have no verb" if order == "no verb" else f"are {order}"
    text = f"Conventions: {shown}; {dominant} of {counted} multi-word names{prefix} {habit}."
    if score < 5:
        text += " Use one convention and one word order (snake_case verb_noun is the most common)."
    return score, text


def tool_count(tools: list[dict[str, Any]], tool_scores: list[float]) -> tuple[int, str]:
    count = len(tools)
    if count == 1:
        score, band = (1, "a single trivial tool") if tool_scores[0] < 2.0 else (2, "a single tool")
    elif count == 2:
        score, band = 3, "1-2 tools is thin"
    elif count <= 15:
        score, band = 5, "3-15 is the sweet spot"
    elif count <= 20:
        score, band = 4, "slightly heavy (16-20)"
    elif count <= 25:
        score, band = 3, "heavy (21-25)"
    elif count <= 49:
        score, band = 2, "too many (26+)"
    else:
        score, band = 1, "extreme (50+)"
    generic = [str(t.get("name")) for t in tools if _is_generic(str(t.get("name")))]
    text = f"{count} tool(s): {band}."
    if generic and len(generic) * 4 >= count:
        score = max(1, score - 2)
        text += f" {len(generic)} have generic names ({', '.join(generic[:4])}) and do not earn their place."
    if score < 5:
        text += " Merge thin tools or split the server so each tool earns its place."
    return score, text


def _is_generic(name: str) -> bool:
    words = name_words(name)
    stripped = [word for word in words if not word.startswith("v") or not word[1:].isdigit()]
    return name.lower() in GENERIC_NAMES or (
        bool(stripped)
        and all(
            word in GENERIC_NAMES
            or word in {"thing", "data", "request", "stuff"}
            or VERB_KIND.get(word) == "vague"
            for word in stripped
        )
    )


def lifecycle(tools: list[dict[str, Any]], readings: dict[str, ToolReading]) -> tuple[int, str]:
    kinds_by_resource: dict[str, set[str]] = {}
    shown: dict[str, str] = {}
    unknown = 0
    read_tools = 0
    for tool in tools:
        name = str(tool.get("name"))
        # Every action a name states counts (``create_or_update_file`` creates and updates a file); a name
        # without a verb ("whois_domain") takes the action its description leads with.
        verbs, resource = name_actions(name)
        kinds = {VERB_KIND[verb] for verb in verbs} or {
            kind for kind in (readings[name].action,) if kind is not None and kind != "vague"
        }
        if not kinds or _is_generic(name):
            unknown += 1
            continue
        read_tools += "read" in kinds
        key = stem(resource[-1]) if resource else None
        if key and kinds & {"create", "read", "update", "delete"}:
            kinds_by_resource.setdefault(key, set()).update(kinds)
            shown.setdefault(key, resource[-1])
    if unknown * 2 >= len(tools):
        return 3, (
            f"{unknown} of {len(tools)} tools state no clear action on a resource, in the name or the "
            "description, so the lifecycle they cover cannot be seen; name tools verb_noun."
        )
    created = {key: kinds for key, kinds in kinds_by_resource.items() if "create" in kinds}
    if not created:
        return 5, "A read-only or action tool set: nothing is created that the tools cannot read back."

    def listed(keys: list[str]) -> str:
        return ", ".join(shown[key] for key in sorted(keys))

    if read_tools == 0:
        return 2, f"Creates {listed(list(created))} but no tool reads anything back: a dead end."
    no_change = [key for key, kinds in created.items() if not kinds & {"update", "delete"}]
    partial = [key for key, kinds in created.items() if not {"update", "delete"} <= kinds]
    if no_change and len(no_change) * 2 >= len(created):
        return 3, f"Creates {listed(no_change)} but cannot update or delete them; add those tools."
    if no_change or partial:
        missing: dict[str, list[str]] = {}
        for key in sorted(partial):
            missing.setdefault(" or ".join(sorted({"update", "delete"} - created[key])), []).append(key)
        gaps = "; ".join(f"no tool to {verbs} {listed(keys)}" for verbs, keys in sorted(missing.items()))
        return 4, f"Minor gaps: {gaps}."
    return 5, f"Full lifecycle for {listed(list(created))}: create, read, update and delete."


def shadowing(
    tools: list[dict[str, Any]],
    signals: dict[str, ContextSignals],
    readings: dict[str, ToolReading],
    index: ToolNames,
) -> list[dict[str, Any]]:
    """Tools whose purpose a much cheaper sibling substantially covers (reported, never scored)."""
    costs = {str(t.get("name")): signals[str(t.get("name"))]["invocationCost"] for t in tools}
    by_cost = sorted((cost, name) for name, cost in costs.items())
    theme = index.theme
    risks = []
    flagged: set[str] = set()
    for dear, dear_cost in sorted(costs.items(), key=lambda item: -item[1]):
        if dear in flagged:
            continue
        # The dearest sibling at most half as dear and 4 cheaper, so a `ping` claims nothing: found by
        # bisection in the tools sorted by cost, not by reading every sibling.
        ceiling = min(dear_cost / 2, dear_cost - 4)
        below = bisect_right(by_cost, ceiling, key=lambda item: item[0])
        if below == 0:
            continue
        cheap_cost, cheap = by_cost[below - 1]
        overlap = _purpose_overlap(dear, cheap, readings, theme)
        if overlap:
            flagged.add(dear)
            risks.append(
                {
                    "tool": dear,
                    "invocationCost": dear_cost,
                    "cheaperSibling": cheap,
                    "cheaperSiblingInvocationCost": cheap_cost,
                    "justification": (
                        f"`{cheap}` (cost {cheap_cost}) covers the same purpose ({overlap}) "
                        f"at under half the cost of `{dear}` ({dear_cost}); agents drift to the "
                        f"cheaper call. Say in `{cheap}` when `{dear}` is the authoritative one."
                    ),
                }
            )
    return risks


def _purpose_overlap(dear: str, cheap: str, readings: dict[str, ToolReading], theme: Set[str]) -> str | None:
    """The shared action and resource of two tools beyond the server's ``theme``, or None when their
    purposes differ."""
    left, right = readings[dear], readings[cheap]
    left_verb, left_words = name_verb(dear)
    right_verb, _ = name_verb(cheap)
    left_kind = left.action or VERB_KIND.get(left_verb or "")
    right_kind = right.action or VERB_KIND.get(right_verb or "")
    if left_kind != right_kind or left_kind not in {"read", "action"}:
        return None
    shared = _objects(dear, left, theme) & _objects(cheap, right, theme)
    # Compared by stem, shown as the dearer tool's own words ("variant", not the stem "varian").
    said = [*left_words, *word_tokens(left.purpose_object)]
    shown = sorted({word.lower() for word in said if stem(word) in shared})
    return f"both {left_kind} {', '.join(shown)}" if shared else None


def roll_up(
    tools: list[dict[str, Any]],
    tool_cards: list[dict[str, Any]],
    readings: dict[str, ToolReading],
    signals: dict[str, ContextSignals],
    index: ToolNames,
    pairs: Confusable,
) -> dict[str, Any]:
    """The server score of ``tools`` (distinct names, in ``index``'s order): description quality,
    coherence, overall and shadowing, with reasons."""
    scores = [card["total"] for card in tool_cards]
    if not scores:
        return {
            "description_quality": None,
            "description_quality_tier": None,
            "coherence": {},
            "coherence_score": None,
            "coherence_tier": None,
            "overall": None,
            "tier": None,
            "shadowing": [],
            "reasons": ["The server offers no tools, so there is nothing to score."],
            "tool_count": 0,
        }
    quality = description_quality(scores)
    judged = {
        "disambiguation": disambiguation(tools, pairs),
        "naming_consistency": naming_consistency(tools),
        "tool_count": tool_count(tools, scores),
        "completeness": lifecycle(tools, readings),
    }
    coherence = {
        key: {"score": score, "justification": text, "label": COHERENCE_DIMENSIONS[key]}
        for key, (score, text) in judged.items()
    }
    coherent = coherence_score([score for score, _ in judged.values()])
    overall = overall_score(quality, coherent)
    worst = min(tool_cards, key=lambda card: (card["total"], card["name"]))
    reasons = [
        f"Average {round_mean(scores)}/5 across {len(scores)} tools; lowest {worst['total']}/5 "
        f"(`{worst['name']}`, tier {worst['tier']}). Description quality weighs the lowest tool at 40%.",
        f"Coherence {coherent} from disambiguation {judged['disambiguation'][0]}, naming "
        f"{judged['naming_consistency'][0]}, tool count {judged['tool_count'][0]}, lifecycle "
        f"{judged['completeness'][0]}.",
        f"Overall {overall} = 0.7 x {quality} + 0.3 x {coherent}, rounded half-up.",
    ]
    risks = shadowing(tools, signals, readings, index)
    if risks:
        reasons.append(f"{len(risks)} tool(s) at shadowing risk: {', '.join(r['tool'] for r in risks)}.")
    return {
        "description_quality": quality,
        "description_quality_tier": tier(quality),
        "mean": round_mean(scores),
        "min": min(scores),
        "tool_count": len(scores),
        "coherence": coherence,
        "coherence_score": coherent,
        "coherence_tier": tier(coherent),
        "overall": overall,
        "tier": tier(overall),
        "shadowing": risks,
        "reasons": reasons,
    }


def round_mean(scores: list[float]) -> float:
    """The published one-decimal mean TDQS (half-up on exact tenths)."""
    return round1(sum(tenths(score) for score in scores), 10 * len(scores))
