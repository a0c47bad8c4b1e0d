"""Coherence reads every tool's action and suggests alternatives only where purposes overlap; the name
index makes scoring linear in the number of tools."""

from __future__ import annotations

import json
import tracemalloc
from itertools import combinations

import pytest

from scoring import score_snapshot, toolset
from scoring.toolset import Siblings, ToolNames, content, jaccard
from tests.conftest import CORPUS, SHARED_DATA, require
from tests.scoring.conftest import make_tool, snapshot_of

# The tools of the reference GitHub server (@modelcontextprotocol/server-github 2025.4.8), as it lists them.
GITHUB = [
    ("create_or_update_file", "Create or update a single file in a GitHub repository"),
    ("search_repositories", "Search for GitHub repositories"),
    ("create_repository", "Create a new GitHub repository in your account"),
    ("get_file_contents", "Get the contents of a file or directory from a GitHub repository"),
    ("push_files", "Push multiple files to a GitHub repository in a single commit"),
    ("create_issue", "Create a new issue in a GitHub repository"),
    ("create_pull_request", "Create a new pull request in a GitHub repository"),
    ("fork_repository", "Fork a GitHub repository to your account or specified organization"),
    ("create_branch", "Create a new branch in a GitHub repository"),
    ("list_commits", "Get list of commits of a branch in a GitHub repository"),
    ("list_issues", "List issues in a GitHub repository with filtering options"),
    ("update_issue", "Update an existing issue in a GitHub repository"),
    ("add_issue_comment", "Add a comment to an existing issue"),
    ("search_code", "Search for code across GitHub repositories"),
    ("search_issues", "Search for issues and pull requests across GitHub repositories"),
    ("search_users", "Search for users on GitHub"),
    ("get_issue", "Get details of a specific issue in a GitHub repository."),
    ("get_pull_request", "Get details of a specific pull request"),
    ("list_pull_requests", "List and filter repository pull requests"),
    ("create_pull_request_review", "Create a review on a pull request"),
    ("merge_pull_request", "Merge a pull request"),
    ("get_pull_request_files", "Get the list of files changed in a pull request"),
    ("get_pull_request_status", "Get the combined status of all status checks for a pull request"),
    (
        "update_pull_request_branch",
        "Update a pull request branch with the latest changes from the base branch",
    ),
    ("get_pull_request_comments", "Get the review comments on a pull request"),
    ("get_pull_request_reviews", "Get the reviews on a pull request"),
]
# The browser tools of Microsoft's Playwright MCP server, by name and description.
PLAYWRIGHT = [
    ("browser_close", "Close the page"),
    ("browser_resize", "Resize the browser window"),
    ("browser_navigate", "Navigate to a URL"),
    ("browser_navigate_back", "Go back to the previous page"),
    ("browser_navigate_forward", "Go forward to the next page"),
    (
        "browser_take_screenshot",
        "Take a screenshot of the current page. You can't perform actions based on it.",
    ),
    (
        "browser_snapshot",
        "Capture accessibility snapshot of the current page, this is better than screenshot",
    ),
    ("browser_click", "Perform click on a web page"),
    ("browser_hover", "Hover over element on page"),
    ("browser_type", "Type text into editable element"),
    ("browser_tab_list", "List browser tabs"),
    ("browser_tab_new", "Open a new tab"),
    ("browser_tab_close", "Close a tab"),
]


def server(pairs: list[tuple[str, str]]) -> dict:
    return snapshot_of(*(make_tool(name, description) for name, description in pairs))


def justifications(card: dict) -> str:
    return " ".join(entry["justification"] for entry in card["dimensions"].values())


def test_lifecycle_reads_every_action_of_every_tool() -> None:
    lifecycle = score_snapshot(server(GITHUB))["server_score"]["coherence"]["completeness"]
    text = lifecycle["justification"]
    # update_issue updates issues and create_or_update_file updates files: neither is a gap.
    assert "cannot update" not in text and lifecycle["score"] == 4, text
    gaps = {verbs: part.split(", ") for verbs, part in _gaps(text)}
    assert "issue" in gaps["delete"] and "file" in gaps["delete"]
    assert not {"issue", "file", "files"} & set(gaps.get("delete or update", [])), gaps
    assert {"comment", "review"} <= set(gaps["delete or update"])


def _gaps(text: str) -> list[tuple[str, str]]:
    found = []
    for part in text.removeprefix("Minor gaps: ").rstrip(".").split("; "):
        verbs, _, resources = part.removeprefix("no tool to ").partition(" ")
        if verbs == "delete" and resources.startswith("or update "):
            verbs, resources = "delete or update", resources.removeprefix("or update ")
        found.append((verbs, resources))
    return found


def test_alternatives_are_only_tools_whose_purpose_overlaps() -> None:
    cards = {card["name"]: card for card in score_snapshot(server(PLAYWRIGHT))["tools"]}
    for name in ("browser_click", "browser_hover", "browser_type", "browser_resize"):
        said = justifications(cards[name])
        assert "`browser_" not in said, (name, said)  # no unrelated tool is named as the alternative
    assert "`browser_navigate`" in justifications(cards["browser_navigate_back"])
    assert "`browser_tab_close`" not in justifications(cards["browser_tab_new"])  # opening is not closing
    github = {card["name"]: card for card in score_snapshot(server(GITHUB))["tools"]}
    assert "`get_issue`" in justifications(github["list_issues"])
    # Opposite actions on one resource are no alternatives of each other: nobody takes an update for a create.
    assert "`create_issue`" not in justifications(github["update_issue"])


def test_a_sibling_named_in_the_text_is_found_through_the_index() -> None:
    tools = [make_tool(f"get_record_{index}", f"Get record {index} by id.") for index in range(300)]
    tools.append(make_tool("list_records", "List records; to read one use `get_record_7` instead."))
    card = score_snapshot(snapshot_of(*tools))["tools"][-1]
    assert "`get_record_7`" in card["dimensions"]["usage_guidelines"]["justification"]
    siblings = ToolNames(tool["name"] for tool in tools).siblings_of("list_records")
    assert "get_record_7" in siblings and "list_records" not in siblings and len(siblings) == 300
    assert siblings.index("get_record_7") == 7 and siblings[7] == "get_record_7"


def test_scoring_never_walks_every_sibling_of_each_tool(monkeypatch: pytest.MonkeyPatch) -> None:
    def walked(self: Siblings) -> None:
        raise AssertionError("a tool's siblings were walked one by one")

    monkeypatch.setattr(Siblings, "__iter__", walked)
    tools = [
        make_tool(f"fetch_item_{index}", f"Fetch item {index}; see `fetch_item_{index + 1}`.")
        for index in range(200)
    ]
    assert len(score_snapshot(snapshot_of(*tools))["tools"]) == 200


def _peak_per_tool(count: int) -> float:
    tools = [
        {"name": f"tool_{index}", "description": "Gets it.", "inputSchema": {"type": "object"}}
        for index in range(count)
    ]
    snapshot = snapshot_of(*tools)
    tracemalloc.start()
    try:
        card = score_snapshot(snapshot)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert card["server_score"]["coherence"]["disambiguation"]["score"] == 1
    return peak / count


@pytest.mark.slow
def test_identical_descriptions_cost_memory_linear_in_the_tools() -> None:
    # Every pair of 2,000 "Gets it." tools reads alike: all pairs would be 2 million.
    small, large = _peak_per_tool(200), _peak_per_tool(2000)
    assert large < 1.5 * small, (small, large)


def test_each_tool_is_compared_with_a_bounded_number_of_others(monkeypatch: pytest.MonkeyPatch) -> None:
    compared = 0

    def counted(left: set[str], right: set[str]) -> float:
        nonlocal compared
        compared += 1
        return jaccard(left, right)

    monkeypatch.setattr(toolset, "jaccard", counted)
    for count in (100, 1000):
        compared = 0
        tools = [make_tool(f"tool_{index}", "Gets it.") for index in range(count)]
        score_snapshot(snapshot_of(*tools))
        assert compared <= 200 * count, (count, compared)  # all pairs would be count² / 2


def test_the_index_finds_every_pair_all_pairs_would_on_the_corpus() -> None:
    require((CORPUS / "tools.json").exists(), f"the corpus is not at {CORPUS}", SHARED_DATA)
    servers = json.loads((CORPUS / "tools.json").read_text(encoding="utf-8"))
    checked = 0
    for entry in (entry for item in servers for entry in item["tools"].values()):
        names = list(dict.fromkeys(tool["name"] for tool in entry["tools"]))
        descriptions = {tool["name"]: tool.get("description") or "" for tool in entry["tools"]}
        index = ToolNames(names, descriptions)
        contents = [content(descriptions[name]) for name in names]
        every_pair = [
            (left, right, jaccard(contents[left], contents[right]))
            for left, right in combinations(range(len(names)), 2)
            if jaccard(contents[left], contents[right]) >= 0.5
        ]
        assert index.alike_pairs() == (every_pair, False), entry["tools"][0]["name"]
        checked += len(every_pair)
    assert checked > 20  # the corpus does have servers whose descriptions read alike
