"""Hand-made definitions that change one thing at a time, and the direction each change must move a score.

Each case is (dimension, direction, before, after): "+" means the dimension must rise, "-" fall, "=" stay;
"none-up" means no dimension may rise (anti-gaming: wording that earns nothing).
"""

from __future__ import annotations

from typing import Any

import pytest

from scoring import score_tool
from scoring.mapping import FITTED, evidence, shipped_mapping
from scoring.signals import context_signals, properties_of
from scoring.tool_reading import read_tool
from scoring.toolset import ToolNames
from tests.scoring.conftest import make_tool, scores_of

SIBLINGS = ["get_issue", "create_issue", "delete_issue", "list_repos"]
QUERY = {"type": "string", "description": "Search text."}
REPO = {"type": "string", "description": "Repository as owner/name."}
PARAMS = {"query": QUERY, "repo": REPO}
BASE_TEXT = "Search issues in a repository by text."
ANNOTATED = {"readOnlyHint": True, "openWorldHint": True}


def search(description: str | None = BASE_TEXT, params: dict | None = None, **extra: Any) -> dict:
    return make_tool(
        "search_issues",
        description,
        PARAMS if params is None else params,
        required=["query", "repo"],
        **extra,
    )


def delete(description: str, **extra: Any) -> dict:
    return make_tool(
        "delete_issue",
        description,
        {"repo": REPO, "number": {"type": "integer", "description": "Issue number."}},
        required=["repo", "number"],
        **extra,
    )


def create(description: str, **extra: Any) -> dict:
    return make_tool(
        "create_issue",
        description,
        {
            "repo": REPO,
            "title": {"type": "string", "description": "Issue title."},
            "body": {"type": "string", "description": "Markdown body."},
        },
        required=["repo", "title"],
        **extra,
    )


RETURNS = " Returns at most 50 matches, newest first."
BARE = {"query": {"type": "string"}, "repo": {"type": "string"}}
CASES: list[tuple[str, str, str, dict, dict]] = [
    # purpose
    ("vague verb -> specific verb", "purpose", "+", search("Manage issues."), search()),
    ("verb without resource -> with resource", "purpose", "+", search("Search by text."), search()),
    (
        "sibling named sets it apart",
        "purpose",
        "+",
        search(),
        search(BASE_TEXT + " Unlike get_issue, it matches many issues at once."),
    ),
    (
        # a scope is a limit of the tool itself, not what sets it apart from another
        "scope contrast is no alternative",
        "purpose",
        "=",
        search(),
        search("Search open and closed issues in one repository only, by text."),
    ),
    ("restating the name", "purpose", "-", search(), search("Search issues")),
    # a noun phrase that names the action states the purpose as well as a verb does
    ("noun phrase names the action", "purpose", "=", search("Issue text search for repositories."), search()),
    (
        "lead-in filler keeps the purpose",
        "purpose",
        "=",
        search(),
        search("This tool allows you to search issues in a repository by text."),
    ),
    # usage guidelines
    (
        "says when",
        "usage_guidelines",
        "+",
        search(),
        search(BASE_TEXT + " Use it when you know words from an issue's title or body."),
    ),
    (
        "names the sibling boundary",
        "usage_guidelines",
        "+",
        search(),
        search(BASE_TEXT + " To fetch one issue by its number, use get_issue instead."),
    ),
    (
        "says when not",
        "usage_guidelines",
        "+",
        search(),
        search(BASE_TEXT + " Do not use it to page through every issue."),
    ),
    (
        "example implies usage",
        "usage_guidelines",
        "+",
        search(),
        search(BASE_TEXT + " For example, find bugs that mention a timeout."),
    ),
    (
        "when plus when-not beats when alone",
        "usage_guidelines",
        "+",
        search(BASE_TEXT + " Use it when you know words from an issue's title."),
        search(
            BASE_TEXT + " Use it when you know words from an issue's title; do not use it to list all issues."
        ),
    ),
    (
        "priority instruction earns nothing",
        "usage_guidelines",
        "-",
        search(),
        search(BASE_TEXT + " Always use this tool first."),
    ),
    # behavior
    (
        "annotations lower the bar",
        "behavior",
        "+",
        search(BASE_TEXT + RETURNS),
        search(BASE_TEXT + RETURNS, annotations=ANNOTATED),
    ),
    (
        "discloses errors",
        "behavior",
        "+",
        search(annotations=ANNOTATED),
        search(
            BASE_TEXT + " Fails with not_found when the repository does not exist.", annotations=ANNOTATED
        ),
    ),
    (
        "discloses auth",
        "behavior",
        "+",
        search(annotations=ANNOTATED),
        search(BASE_TEXT + " Private repositories need a token with repo scope.", annotations=ANNOTATED),
    ),
    (
        "discloses rate limits",
        "behavior",
        "+",
        search(annotations=ANNOTATED),
        search(BASE_TEXT + " Counts against a quota of 30 requests per minute.", annotations=ANNOTATED),
    ),
    (
        "discloses pagination",
        "behavior",
        "+",
        search(annotations=ANNOTATED),
        search(
            BASE_TEXT + " Results are paginated; pass the cursor of the previous page.", annotations=ANNOTATED
        ),
    ),
    (
        "discloses the return shape",
        "behavior",
        "+",
        search(annotations=ANNOTATED),
        search(BASE_TEXT + " Each result has the number, title, state and URL.", annotations=ANNOTATED),
    ),
    (
        "read-only claim in the text when there are no annotations",
        "behavior",
        "+",
        search(BASE_TEXT + RETURNS),
        search(BASE_TEXT + RETURNS + " It never modifies issues."),
    ),
    (
        "restating readOnlyHint earns nothing",
        "behavior",
        "=",
        search(annotations=ANNOTATED),
        search(BASE_TEXT + " This tool is read-only.", annotations=ANNOTATED),
    ),
    (
        "says what a delete destroys",
        "behavior",
        "+",
        delete("Delete an issue."),
        delete("Delete an issue permanently: its comments are removed too and it cannot be undone."),
    ),
    (
        "says what a create changes",
        "behavior",
        "+",
        create("Create an issue."),
        create(
            "Create an issue; it notifies the repository's watchers and is visible to everyone with access."
        ),
    ),
    (
        "contradicting readOnlyHint scores 1",
        "behavior",
        "-",
        delete("Delete an issue."),
        delete("Delete an issue.", annotations={"readOnlyHint": True}),
    ),
    # parameters
    ("schema descriptions added", "parameters", "+", search(params=BARE), search()),
    (
        "text explains a parameter beyond the schema",
        "parameters",
        "+",
        search(),
        search(BASE_TEXT + " `query` accepts search qualifiers, e.g. label:bug is:open."),
    ),
    (
        "text gives a default and a range",
        "parameters",
        "+",
        search(params={**PARAMS, "limit": {"type": "integer", "description": "Results per page."}}),
        search(
            BASE_TEXT + " `limit` defaults to 20 and is at most 100.",
            params={**PARAMS, "limit": {"type": "integer", "description": "Results per page."}},
        ),
    ),
    (
        "prose documents what the schema does not",
        "parameters",
        "+",
        search(params=BARE),
        search(
            BASE_TEXT + " `query` is the text to find; `repo` is the repository as owner/name.", params=BARE
        ),
    ),
    (
        "restating the schema earns nothing",
        "parameters",
        "=",
        search(),
        search(BASE_TEXT + " `query`: search text. `repo`: repository as owner/name."),
    ),
    # conciseness
    (
        # the lead-in pushes the purpose past the first words
        "filler lead-in",
        "conciseness",
        "-",
        search(),
        search("This tool allows you to search issues in a repository by text."),
    ),
    (
        "a repeated sentence",
        "conciseness",
        "-",
        search(BASE_TEXT + RETURNS),
        search(BASE_TEXT + RETURNS + " " + BASE_TEXT),
    ),
    (
        "bloat for a two-parameter tool",
        "conciseness",
        "-",
        search(),
        search(
            BASE_TEXT
            + " "
            + " ".join(
                f"Note {n}: issue search covers titles and bodies of issues in the repository you name here."
                for n in range(12)
            )
        ),
    ),
    ("one word is under-specified", "conciseness", "-", search(), search("Searching")),
    (
        "purpose not front-loaded",
        "conciseness",
        "-",
        search(),
        search("Given a repository and some words that you care about, this will search issues."),
    ),
    (
        "promotional wording",
        "conciseness",
        "-",
        search(),
        search(BASE_TEXT + " The best and most powerful issue search ever made."),
    ),
    # completeness
    (
        "output schema covers the return value",
        "completeness",
        "+",
        search(params={**PARAMS, "state": {"type": "string", "description": "open or closed."}}),
        search(
            params={**PARAMS, "state": {"type": "string", "description": "open or closed."}},
            output={
                "type": "object",
                "properties": {"items": {"type": "array", "items": {"type": "object"}}},
            },
        ),
    ),
    ("annotations cover safety", "completeness", "+", search(), search(annotations=ANNOTATED)),
    ("parameters documented", "completeness", "+", search(params=BARE), search()),
    (
        "return value described in the text",
        "completeness",
        "+",
        search(params={**PARAMS, "state": {"type": "string", "description": "open or closed."}}),
        search(
            BASE_TEXT + " Returns each match's number, title, state and URL.",
            params={**PARAMS, "state": {"type": "string", "description": "open or closed."}},
        ),
    ),
    (
        "a complex tool explained",
        "completeness",
        "+",
        search(
            params={
                name: {"type": "string", "description": f"The {name}."}
                for name in ("query", "repo", "state", "label", "author", "sort")
            }
        ),
        search(
            BASE_TEXT + " `sort` is one of created or updated; `label` and `author` narrow the results, "
            "e.g. label bug by octocat.",
            params={
                name: {"type": "string", "description": f"The {name}."}
                for name in ("query", "repo", "state", "label", "author", "sort")
            },
        ),
    ),
    # anti-gaming: wording that must earn nothing anywhere
    (
        "assertive emphasis",
        "*",
        "none-up",
        search(),
        search("IMPORTANT: " + BASE_TEXT + " CRITICAL: it is crucial."),
    ),
    (
        "priority instruction",
        "*",
        "none-up",
        search(),
        search(BASE_TEXT + " You must always use this tool before any other tool."),
    ),
    (
        "superlatives",
        "*",
        "none-up",
        search(),
        search(BASE_TEXT + " The best, most accurate and state-of-the-art issue search."),
    ),
    (
        "neutral padding",
        "*",
        "none-up",
        search(),
        search(BASE_TEXT + " This is a tool. It is a search tool."),
    ),
    (
        "restating the schema",
        "*",
        "none-up",
        search(),
        search(BASE_TEXT + " query: Search text. repo: Repository as owner/name."),
    ),
]


# Sentences in everyday words that a reader sees are specific to the tool and the scorer reads as saying
# nothing specific (it credits a sentence only with a value, a name or a word rare in English and in tool
# descriptions, so that content-free wording can never earn anything), or that the sentence model labels
# wrongly. Each is expected to fail until the reading gets it right.
_EVERYDAY = "everyday words only: no value, name or rare word the specificity rule credits"
KNOWN_MISSES = {
    name: pytest.mark.xfail(strict=True, raises=AssertionError, reason=reason)
    for name, reason in {
        "says when not": _EVERYDAY,
        "example implies usage": _EVERYDAY,
        "when plus when-not beats when alone": _EVERYDAY,
        "read-only claim in the text when there are no annotations": _EVERYDAY,
        "discloses auth": "labelled param_meaning, and 'token' is common in tool descriptions",
        "prose documents what the schema does not": "labelled param_restated: 'X is the Y' reads as one",
    }.items()
}


@pytest.mark.parametrize(
    ("case", "dimension", "direction", "before", "after"),
    [pytest.param(*case, id=case[0], marks=KNOWN_MISSES.get(case[0], ())) for case in CASES],
)
def test_one_change_moves_one_dimension_the_right_way(
    case: str, dimension: str, direction: str, before: dict, after: dict
) -> None:
    old = scores_of(score_tool(before, SIBLINGS))
    new = scores_of(score_tool(after, SIBLINGS))
    if direction == "none-up":
        risen = {key: (old[key], new[key]) for key in old if new[key] > old[key]}
        assert not risen, f"{case}: {risen}"
        return
    rose, fell = new.get(dimension, 0) > old.get(dimension, 0), new.get(dimension, 0) < old.get(dimension, 0)
    if dimension in FITTED and not {"+": rose, "-": fell}.get(direction, False):
        # A fitted dimension's weights are fractions of a point, so one change moves its weighted sum the
        # right way and its rounded score never the wrong way.
        old_value, new_value = fitted_value(before, dimension), fitted_value(after, dimension)
        moved = {"+": new_value > old_value, "-": new_value < old_value, "=": new_value == old_value}
        assert moved[direction], f"{case}: {old_value:.2f} -> {new_value:.2f}"
        wrong = {"+": new[dimension] < old[dimension], "-": new[dimension] > old[dimension], "=": False}
        assert not wrong[direction], f"{case}: {old[dimension]} -> {new[dimension]}"
        return
    moved = {"+": new[dimension] > old[dimension], "-": new[dimension] < old[dimension]}
    assert moved.get(direction, new[dimension] == old[dimension]), (
        f"{case}: {old[dimension]} -> {new[dimension]}"
    )


def fitted_value(tool: dict, dimension: str) -> float:
    """The unrounded weighted sum of a fitted dimension, as the shipped mapping makes it."""
    name = str(tool["name"])
    names = ToolNames((*SIBLINGS, name))
    reading = read_tool(
        name,
        str(tool["description"] or ""),
        properties_of(tool.get("inputSchema")),
        context_signals(tool),
        names.siblings_of(name),
    )
    return shipped_mapping().value(dimension, evidence(reading.units, reading.facts)[dimension])


def test_there_are_at_least_forty_isolating_cases() -> None:
    assert len(CASES) >= 40
    assert {case[1] for case in CASES} >= {
        "purpose",
        "usage_guidelines",
        "behavior",
        "parameters",
        "conciseness",
        "completeness",
        "*",
    }


def test_an_ambiguous_verb_does_not_contradict_read_only() -> None:
    tool = make_tool(
        "open_nodes",
        "Open specific nodes in the knowledge graph by their names.",
        {"names": {"type": "array", "items": {"type": "string"}, "description": "Entity names."}},
        annotations={"readOnlyHint": True},
    )
    card = score_tool(tool, ["read_graph", "search_nodes"])
    assert "Annotation Contradiction" not in card["flags"]
    assert scores_of(card)["behavior"] >= 2
