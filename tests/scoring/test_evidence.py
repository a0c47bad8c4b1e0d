"""The cases of the scoring audit: credit rests on evidence, claims are checked, English is read as English.

The descriptions are written here in the audited phrasings; each test failed on the scorer before it.
"""

from __future__ import annotations

import pytest

from scoring import score_tool
from scoring.language import analyze
from tests.scoring.conftest import make_tool, scores_of

QUERY = {"sql": {"type": "string", "description": "The SQL statement."}}
TEMPLATE = " Use when: needed. Returns: the result. Errors: on error."


def test_the_cue_template_earns_nothing_on_a_weak_tool() -> None:
    before = score_tool(make_tool("query", "Run a read-only SQL query.", QUERY))
    after = score_tool(make_tool("query", "Run a read-only SQL query." + TEMPLATE, QUERY))
    assert after["total"] <= before["total"]
    for key in ("usage_guidelines", "behavior", "completeness"):
        assert scores_of(after)[key] <= scores_of(before)[key], key


def test_filler_is_not_a_when_to_use_cue_and_costs_conciseness() -> None:
    text = "Get the forecast for a city."
    filler = " This tool is very useful for many tasks."
    params = {"city": {"type": "string", "description": "City name."}}
    before, after = (score_tool(make_tool("get_forecast", t, params)) for t in (text, text + filler))
    assert scores_of(after)["usage_guidelines"] == scores_of(before)["usage_guidelines"]
    assert scores_of(after)["conciseness"] < scores_of(before)["conciseness"]
    assert "adds nothing" in after["dimensions"]["conciseness"]["justification"]


def test_a_false_safety_claim_on_delete_is_a_contradiction() -> None:
    key = {"key": {"type": "string", "description": "The key to delete."}}
    card = score_tool(make_tool("delete", "Read-only, idempotent, no side effects, returns JSON.", key))
    assert scores_of(card)["behavior"] == 1
    assert "False Safety Claim" in card["flags"]
    assert any(finding["rule"] == "false-safety-claim" for finding in card["findings"])


@pytest.mark.parametrize(
    "claim",
    [
        "Read-only, idempotent, no side effects.",
        "Idempotent and side-effect free.",
        "It never modifies any data and has no side effects.",
    ],
)
def test_a_safety_claim_without_annotations_earns_partial_credit_only(claim: str) -> None:
    # A claim that nothing changes is no disclosure of side effects, however it is worded.
    text = f"List the keys of a namespace. {claim}"
    card = score_tool(make_tool("list_keys", text, {"namespace": {"type": "string", "description": "Name."}}))
    assert scores_of(card)["behavior"] <= 3


def test_authoritative_is_not_an_authentication_disclosure() -> None:
    analysis = analyze(
        "Search clinical trials. Connects to authoritative biomedical data sources.", name="search"
    )
    assert "authentication" not in analysis.disclosures


@pytest.mark.parametrize(
    "text",
    [
        "Take a screenshot of the current page or a specific element.",
        "Calculates/evaluates the given expression.",
        "Cleanup all managed resources.",
        "Notion | Get page by its id.",
    ],
)
def test_action_verbs_are_recognised(text: str) -> None:
    card = score_tool(make_tool("tool_x", text))
    assert "No action verb" not in card["dimensions"]["purpose"]["justification"]
    assert scores_of(card)["purpose"] >= 3


@pytest.mark.parametrize(
    ("text", "resource"),
    [
        ("Fetch and convert an AWS documentation page to markdown.", "documentation page"),
        ("Create or update a single file in a GitHub repository.", "file"),
    ],
)
def test_the_object_of_coordinated_verbs_is_found(text: str, resource: str) -> None:
    card = score_tool(make_tool("tool_x", text))
    assert "no specific object" not in card["dimensions"]["purpose"]["justification"]
    assert resource in (analyze(text).resource or "")


@pytest.mark.parametrize(
    "usage",
    [
        "Use for news, facts, or data beyond your knowledge cutoff.",
        "Prefer taking a snapshot over taking a screenshot.",
        "It is cheaper than capturing the whole snapshot when you only need one element.",
        "When to use this tool:\n- Breaking a problem into steps\n- Planning with room for revision",
        "Best used for triage of incoming bug reports.",
        "Only needed if the page's URL is unknown.",
        "Must be called after open_browser.",
        "Reach for this when a cached copy is stale.",
        "Works best with two or three keywords.",
        "For a known URL, fetch_page is faster.",
        "Avoid for bulk crawling; use crawl_site.",
        "Prefer fetch_page for a known URL.",
    ],
)
def test_usage_phrasings_are_read_as_guidance(usage: str) -> None:
    base = "Search the web for current pages."
    before = score_tool(make_tool("web_search", base))
    after = score_tool(make_tool("web_search", f"{base} {usage}"))
    assert scores_of(after)["usage_guidelines"] > scores_of(before)["usage_guidelines"]


def test_an_rce_warning_discloses_behaviour() -> None:
    text = (
        "Evaluate a script in the page. Unsafe: executes arbitrary JavaScript in the browser, RCE-equivalent."
    )
    card = score_tool(
        make_tool("browser_evaluate", text, {"script": {"type": "string", "description": "JS."}})
    )
    assert "Discloses no behaviour" not in card["dimensions"]["behavior"]["justification"]
    assert "security risk" in card["dimensions"]["behavior"]["justification"]


def test_a_parameter_explained_without_its_exact_name_earns_credit() -> None:
    params = {
        "query": {"type": "string", "description": "SQL to run."},
        "query_params": {"type": "object", "description": "Values for the placeholders."},
    }
    plain = "Run a SQL query against ClickHouse."
    bound = plain + " Bind values with {name:Type} placeholders in the SQL and pass them as query parameters."
    before, after = (score_tool(make_tool("run_query", text, params)) for text in (plain, bound))
    assert scores_of(after)["parameters"] > scores_of(before)["parameters"]
    assert "query_params" in after["dimensions"]["parameters"]["justification"]


@pytest.mark.parametrize(
    ("annotations", "claim"),
    [
        ({"destructiveHint": True}, "Non-destructive and free of side effects."),
        ({"readOnlyHint": False}, "It is read-only."),
    ],
)
def test_a_safety_claim_against_the_annotations_is_a_contradiction(annotations: dict, claim: str) -> None:
    text = f"Archive a project and its boards. {claim}"
    params = {"project": {"type": "string", "description": "Project key."}}
    card = score_tool(make_tool("archive_project", text, params, annotations=annotations))
    assert scores_of(card)["behavior"] == 1
    assert "Annotation Contradiction" in card["flags"]


def test_a_list_of_returned_fields_discloses_the_return_shape_however_everyday_its_words() -> None:
    text = (
        "Retrieve detailed metadata about a file or directory. Returns comprehensive information including "
        "size, creation time, last modified time, permissions, and type."
    )
    card = score_tool(make_tool("get_file_info", text, {"path": {"type": "string"}}))
    assert "Discloses return shape" in card["dimensions"]["behavior"]["justification"]
    bare = score_tool(
        make_tool("get_file_info", "Retrieve metadata about a file. Returns the result, data and output.")
    )
    assert "return shape" not in bare["dimensions"]["behavior"]["justification"].split(";")[0]


@pytest.mark.parametrize(
    "claim",
    [
        "It never modifies any data.",
        "Will not alter or delete anything.",
        "No data is modified.",
        "Harmless: makes no changes.",
        "This is a non-mutating operation.",
        "Purely informational, no writes.",
        "It has no side-effects whatsoever.",
        "Safe: read only access.",
        "Read only.",
    ],
)
def test_any_wording_of_a_safety_claim_on_a_tool_that_deletes_is_a_contradiction(claim: str) -> None:
    key = {"key": {"type": "string", "description": "The key to delete."}}
    text = "Delete a key and its value from the store."
    before = score_tool(make_tool("delete_key", text, key))
    after = score_tool(make_tool("delete_key", f"{text} {claim}", key))
    assert "False Safety Claim" in after["flags"]
    assert scores_of(after)["behavior"] == 1 and after["total"] <= before["total"]


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("move_file", "Move a file to a new path. Does not delete the original until the copy succeeds."),
        ("git_commit", "Record the staged changes as a commit. Fails if there are no changes to commit."),
        ("write_file", "Write text to a file. With dry_run set, nothing is written."),
        ("update_record", "Update a record's fields. Read-only fields such as id are ignored."),
        ("delete_branch", "Delete a branch. Never deletes the default branch."),
        ("send_email", "Send an email to one recipient. Does not modify any drafts."),
    ],
)
def test_a_bound_on_what_a_tool_changes_is_no_safety_claim(name: str, text: str) -> None:
    card = score_tool(make_tool(name, text, {"target": {"type": "string", "description": "What to act on."}}))
    assert "False Safety Claim" not in card["flags"]


@pytest.mark.parametrize(
    ("text", "verb", "resource"),
    [
        ("Upsert a vector into the index.", "upsert", "vector"),
        ("Unstages all staged changes", "unstage", "staged changes"),
        ("Bulk-delete messages in a channel.", "delete", "messages"),
        ("Re-index the collection.", "index", "collection"),
        ("jira_create_issue - Create an issue in a project.", "create", "issue"),
        ("(Admin) Reset a user's password.", "reset", "user's password"),
        ("Searches, filters and sorts tickets by status.", "search", "tickets"),
        ("Fetch & parse an RSS feed.", "fetch", "RSS feed"),
        ("Allows the agent to list open pull requests.", "list", "open pull requests"),
    ],
)
def test_verbs_of_the_trade_labels_and_lists_of_verbs_are_read(text: str, verb: str, resource: str) -> None:
    analysis = analyze(text, name="tool")
    assert (analysis.verb, analysis.resource) == (verb, resource)


@pytest.mark.parametrize(
    ("sentence", "category"),
    [
        ("Returns 404 when the repository is private.", "errors"),
        ("Requires an API key.", "authentication"),
        ("Use the cursor from the previous page to continue.", "pagination"),
        ("Caches the result for five minutes.", "timing and state"),
        ("This permanently removes the file.", "destruction"),
    ],
)
def test_a_disclosure_that_names_its_mechanism_needs_no_other_evidence(sentence: str, category: str) -> None:
    analysis = analyze(f"Fetch a repository's README. {sentence}", name="get_readme", params={"repo": {}})
    assert category in analysis.disclosures


def test_naming_a_category_alone_is_still_no_disclosure() -> None:
    analysis = analyze("Fetch a repository's README. Authentication: as needed. Pagination: supported.")
    assert not {"authentication", "pagination"} & analysis.disclosures.keys()


@pytest.mark.parametrize(
    ("name", "text", "resource"),
    [
        ("list_requests", "List all requests with their basic information.", "requests"),
        ("excel_write_to_sheet", "Write values to the Excel sheet", "Excel sheet"),
        (
            "interact_with_process",
            "Send input to a running process and receive the response.",
            "running process",
        ),
        ("force_terminate", "Force terminate a running terminal session.", "running terminal session"),
        ("npm_deprecated", "Check if packages are deprecated", "packages are deprecated"),
    ],
)
def test_the_object_is_found_past_a_vague_head_a_modifier_or_a_conjunction(
    name: str, text: str, resource: str
) -> None:
    # A word of the tool's own name is its object however vague elsewhere; a vague object gives way to
    # the target after its preposition.
    card = score_tool(make_tool(name, text))
    assert analyze(text, name=name).resource == resource
    assert scores_of(card)["purpose"] >= 4, card["dimensions"]["purpose"]["justification"]


@pytest.mark.parametrize(
    ("text", "clear"),
    [
        ("Perform an HTTP DELETE request", True),
        ("Perform a detailed commute analysis between two addresses.", True),
        ("Perform operations on files.", False),
        ("Manage slide transitions and timing.", False),
    ],
)
def test_a_light_verb_takes_its_action_from_its_object(text: str, clear: bool) -> None:
    card = score_tool(make_tool("tool_x", text))
    assert (scores_of(card)["purpose"] >= 4) is clear, card["dimensions"]["purpose"]["justification"]
