"""The scorer's documentation, generated from its tables: ``docs/scoring.md`` and ``mcpdex explain``.

Run ``python -m scoring.reference > docs/scoring.md`` after changing a table; a test fails while the
committed file and the tables disagree.
"""

from __future__ import annotations

from scoring.arithmetic import COHERENCE_DIMENSIONS, DIMENSIONS, TIERS
from scoring.dimensions import QUESTIONS
from scoring.mapping import PIECES, shipped_mapping
from scoring.reading import LABELS
from scoring.rules import LEVELS, LINT_RULES


def _fitted_steps(dimension: str) -> list[str]:
    """How a fitted dimension is scored, read from the shipped mapping: its evidence and their weights."""
    mapping = shipped_mapping()
    weights = mapping.weights[dimension]
    pieces = ", ".join(
        f"{piece.meaning} ({weights[piece.key]:+.2f})" for piece in PIECES[dimension] if weights[piece.key]
    )
    unused = [piece.meaning for piece in PIECES[dimension] if not weights[piece.key]]
    steps = [
        f"The weighted sum of its evidence, from {mapping.intercepts[dimension]:.2f}, rounded half up to "
        f"1-5: {pieces}.",
    ]
    if unused:
        steps.append(f"Read but weighted 0 by the fit: {'; '.join(unused)}.")
    return steps


_READ = (
    "Each sentence of the description is labelled by the sentence model with what it tells an agent "
    "(the clause codebook's labels) and whether it is specific to the tool; only specific sentences "
    "earn anything."
)

# How each dimension is judged, in the order the scorer applies the steps.
HOW_JUDGED: dict[str, list[str]] = {
    "purpose": [
        _READ,
        "The purpose sentence that opens a description is specific when it names what the tool acts on "
        "(a word of the tool's name, or a content word tool descriptions do not all use), as well as by the "
        "rule every sentence meets.",
        "5: a specific purpose and a specific sentence that sets the tool apart (`alternative`) or a sibling "
        "named. 4: a specific purpose and nothing that sets it apart; the justification names the sibling "
        "to set it apart from: one whose description reads like it (the pairs the server's Disambiguation "
        "counts), else one whose name does the same kind of action to the same thing, never an opposite "
        "action (`delete_note` for `create_note`). 3: a specific purpose led by a verb that says no action "
        "(manage, handle, process).",
        "2: no sentence states a specific purpose but something specific is said, or the description only "
        "restates the name (the tautology gate; 1 for a single word). 1: nothing but assertive wording.",
    ],
    "usage_guidelines": [
        _READ,
        "5: a specific `usage` sentence and a specific `alternative` sentence or a sibling named. 4: one of "
        "the two. 3: usage only implied by the purpose sentence (a prerequisite it names: 'to existing "
        "entities'). 2: no guidance. 1: a priority instruction ('always use this tool first') and no "
        "guidance, or no stated purpose at all.",
    ],
    "behavior": [
        _READ,
        *_fitted_steps("behavior"),
        "A safety claim (read-only, no side effects, non-destructive) on a tool whose name or purpose "
        "verb deletes, writes, sends, executes or kills is false: the claim's sentence is set aside, "
        "Behavior scores 1 and the False Safety Claim flag is raised. A claim made under a condition or of "
        "a mode ('with dry_run set, nothing is written') or of a scope ('read-only fields') is none. A "
        "description that contradicts its annotations scores 1 and raises Annotation Contradiction.",
    ],
    "parameters": [
        "A missing or unusable input schema (not an object schema, or invalid against its metaschema, as "
        "`input-schema-not-object` and `schema-invalid` report it): 1, with the reason.",
        *_fitted_steps("parameters"),
        "A parameter the schema leaves bare is documented by the text when a specific `param_meaning` "
        "sentence names it; a sentence that only names parameters (`param_restated`) documents nothing.",
    ],
    "conciseness": [
        _READ,
        *_fitted_steps("conciseness"),
        "Informative words are the words of the specific sentences; a description needs about six, and "
        "two more for each parameter nothing documents. The word budget is 40, plus 15 a parameter and 20 "
        "for nesting.",
    ],
    "completeness": [
        _READ,
        *_fitted_steps("completeness"),
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
    "sentences": [{"start", "end", "text",  # each unit of the description, offsets into it
                   "labels": [LABEL, ...],  # the clause codebook's labels, as the sentence model read them
                   "specific": bool,        # whether it says something specific to this tool
                   "set_aside": why}],      # only on units read as nothing: assertive, or repeated
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


CALIBRATION_DOC_PATH = "docs/calibration.md"
CALIBRATION_DOC = (
    "`bench/calibration.py` measures the scorer against the TDQS scores Glama published for 427 real "
    "tools of 340 servers (the two dev files of the calibration folder: Behavior, Conciseness and "
    "Completeness on every page, Parameters on about half) and the sentence model against the "
    "hand-labelled sentences, cross-validated: servers are grouped by owner and split into five fixed "
    "folds, and each fold is scored by this scorer running a sentence model and a mapping refitted "
    "without it. Its tables, with the date and what each target is, are in `docs/calibration.md`."
)


WHAT_STAYS = [
    "The lint patterns for priority, emphasis and promotional wording (`scoring/cues.py`): a sentence "
    "that carries them is set aside before the model reads it, so it earns nothing whatever the model "
    "would make of it, and the lints report it; exactness matters more here than coverage.",
    "The patterns of a claim that a call changes nothing, and of a claim's condition or mode: the False "
    "Safety Claim and Annotation Contradiction gates compare a claim with the tool's own verbs and hints, "
    "which a label alone cannot do (it says a sentence speaks of side effects, not which way).",
    "The verbs by kind of action (`scoring/words.py`): the lifecycle of the server roll-up, the state a "
    "tool changes and the contradiction of readOnlyHint are read from tool names, which have no sentences.",
    "The specificity rule (`scoring/reading.py`): a sentence counts as specific only when it holds a value "
    "(a number, a quoted or code value, a URL, a parameter set to a value, choices joined by slashes, a "
    "structure that names its fields), a list of named things, a name, a word rare in English and "
    "in tool descriptions, or, opening the description as its purpose, "
    "a word that names an object, or, later, is a disclosure the model is sure of (when to call it, what "
    "it returns, changes, needs, bounds or how it fails) that names the tool's "
    "own object (a word of its name, neither a parameter nor one of the words for a tool definition's own "
    "parts: parameter, schema, result…). The model alone calls nearly every sentence specific (nine in ten "
    "of the labelled ones are), content-free wording included; the rule is what keeps that wording from "
    "earning anything.",
    "The rubric's anchors for Purpose and Usage Guidelines, which Glama almost never publishes, so nothing "
    "can be fitted to them; and its floors for the fitted dimensions (a disclosure the rubric names "
    "earns at least a fraction of a point).",
]


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
        "Score, offline and deterministically: the same definition always gets the same scores. It reads a "
        "description sentence by sentence with a linear model learned from hand-labelled sentences (what "
        "each tells an agent, by the clause codebook's labels, and whether it is specific to its tool), and "
        "turns what the sentences say, with the schema, annotations and output schema, into each "
        "dimension's score through a small mapping fitted to the scores Glama published. Each score comes "
        "with a justification that quotes the sentences that earned it, with their labels, and names what "
        "would earn more.",
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
        "description that only restates the name flags `Tautological Description` and caps Purpose at 2 (a "
        "description that repeats the title is noted in Purpose's justification, not flagged: clients show "
        "the title beside it). A description with nothing specific that only restates the name scores 1 on "
        "Behavior and Completeness, as the rubric's 'Process' does. Smells are the dimensions below 3. A "
        "description that is not English, in any script (Chinese by its letters; German, Spanish, French, "
        "Portuguese, Italian or Dutch told offline by lingua when English function words are rare), is "
        "flagged `Unsupported Language` and scored on structure alone: a stated purpose 4 (5 naming a "
        "sibling), usage 2 (3 with three or more further statements, 4 naming a sibling), and the fitted "
        "dimensions through the same mapping, with what the schema and annotations show measured and what "
        "only the words could show counted at the rate English descriptions of as many further statements "
        "show it (a table fitted with the mapping). A further statement counts only when it says something "
        "specific (a number, an identifier, or a word rare in its language by wordfreq).",
        "",
    ]
    out += ["## How sentences are read", ""]
    out += [
        "A description is cut into units (`scoring/sentences.py`): sentences, list items, headings and "
        "fenced blocks, each with its offsets. Units with priority, emphasis or promotional wording, units "
        "said a second time, and a safety claim on a tool whose name or purpose changes state are set aside "
        "first: they earn nothing. The sentence model (`scoring/model/sentences.json`) gives every other "
        "unit the labels " + ", ".join(f"`{label}`" for label in LABELS) + " from its words and word pairs "
        "(in base form, with the tool's parameter and sibling names as placeholders), its place, the "
        "heading it sits under and the unit before it; one logistic regression per label, and one for "
        "`specific`. `param_restated`, `filler` and `none` are never specific.",
        "",
        "The model and the mapping are fitted by `python -m scoring.training` from the calibration folder's "
        "labelled sentences and the project's own labels of real packages (`scoring/model/labels.json`, by "
        "source, tool, position and hash; the text is read from each source's snapshot, which "
        "`scripts/fetch-label-sources` makes); the same command with `--check` refits and fails if the "
        "shipped files differ.",
        "",
        "What is still read by rule, and why:",
        "",
        *[f"- {item}" for item in WHAT_STAYS],
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
