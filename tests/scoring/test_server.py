"""The server roll-up: description quality, the coherence dimensions, overall and shadowing risk."""

from __future__ import annotations

from scoring import score_snapshot
from scoring.arithmetic import description_quality, overall_score
from tests.scoring.conftest import make_tool, snapshot_of

REPO = {"type": "string", "description": "Repository as owner/name."}
GITHUB = [
    ("create_issue", "Create an issue in a repository with a title and body."),
    ("get_issue", "Get one issue by its number, with labels and assignees."),
    ("update_issue", "Update the title, body, state or labels of an existing issue."),
    ("list_issues", "List issues of a repository, filtered by state and label."),
    ("create_pull_request", "Open a pull request from a head branch into a base branch."),
    ("get_pull_request", "Get one pull request by number, with its review status."),
    ("merge_pull_request", "Merge an open pull request with a merge, squash or rebase commit."),
    ("search_code", "Search source code across repositories with code search syntax."),
    ("get_file_contents", "Get the contents of a file or directory at a branch or commit."),
    ("create_branch", "Create a branch from another branch or commit."),
]
UTILITY = ["process", "run", "execute", "do_thing", "helper", "transform_data", "processV2", "handleRequest"]


def coherence_of(snapshot: dict) -> dict[str, int]:
    roll_up = score_snapshot(snapshot)["server_score"]
    return {key: entry["score"] for key, entry in roll_up["coherence"].items()}


def test_github_like_server_coherence_is_near_5_5_5_4() -> None:
    tools = [make_tool(name, text, {"repo": REPO}, required=["repo"]) for name, text in GITHUB]
    scores = coherence_of(snapshot_of(*tools))
    published = {"disambiguation": 5, "naming_consistency": 5, "tool_count": 5, "completeness": 4}
    assert all(abs(scores[key] - value) <= 1 for key, value in published.items()), scores
    roll_up = score_snapshot(snapshot_of(*tools))["server_score"]
    assert roll_up["coherence_tier"] == "A"


def test_utility_toolkit_coherence_is_near_1_2_3_2() -> None:
    tools = [
        make_tool(name, "Process the input and return a result.", {"input": {"type": "string"}})
        for name in UTILITY
    ]
    scores = coherence_of(snapshot_of(*tools))
    published = {"disambiguation": 1, "naming_consistency": 2, "tool_count": 3, "completeness": 2}
    assert all(abs(scores[key] - value) <= 1 for key, value in published.items()), scores
    roll_up = score_snapshot(snapshot_of(*tools))["server_score"]
    assert roll_up["coherence_tier"] == "C"  # 2.5; Glama's published 1, 2, 3, 2 average 2.0, also a C


def test_description_quality_weighs_the_worst_tool() -> None:
    good = make_tool(
        "get_issue",
        "Get one issue by its number, with labels; use list_issues to find numbers.",
        {"number": {"type": "integer", "description": "Issue number."}},
        required=["number"],
        annotations={"readOnlyHint": True},
    )
    bad = make_tool("list_issues", None)
    roll_up = score_snapshot(snapshot_of(good, bad))["server_score"]
    cards = score_snapshot(snapshot_of(good, bad))["tools"]
    totals = [card["total"] for card in cards]
    assert roll_up["description_quality"] == description_quality(totals)
    assert roll_up["description_quality"] < sum(totals) / 2
    assert roll_up["overall"] == overall_score(roll_up["description_quality"], roll_up["coherence_score"])
    assert roll_up["min"] == 1.0
    assert any("lowest" in reason for reason in roll_up["reasons"])


def test_every_coherence_dimension_has_a_justification() -> None:
    roll_up = score_snapshot(snapshot_of(make_tool("get_issue", "Get one issue by number.")))["server_score"]
    for entry in roll_up["coherence"].values():
        assert 1 <= entry["score"] <= 5 and len(entry["justification"]) > 20


def test_tool_count_bands() -> None:
    def count_score(n: int) -> int:
        tools = [make_tool(f"get_item_{i}", f"Get item number {i} of the catalogue by id.") for i in range(n)]
        return coherence_of(snapshot_of(*tools))["tool_count"]

    assert count_score(8) == 5
    assert count_score(18) == 4
    assert count_score(30) == 2
    assert count_score(55) == 1


def test_cheap_sibling_with_the_same_purpose_is_a_shadowing_risk() -> None:
    nested = {
        "type": "object",
        "properties": {
            "panel": {"type": "string"},
            "metrics": {
                "type": "array",
                "items": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
            },
            "window": {
                "oneOf": [
                    {"type": "object", "properties": {"from": {"type": "string"}}, "required": ["from"]},
                    {"type": "object", "properties": {"days": {"type": "integer"}}, "required": ["days"]},
                    {"type": "string"},
                ]
            },
            "group": {"type": "string"},
            "filter": {"type": "string"},
            "order": {"type": "string"},
        },
        "required": ["panel", "metrics", "window", "group", "filter", "order"],
    }
    query_panel = {
        "name": "query_panel",
        "description": "Query statistics across a panel of metrics over a time "
        "window; the authoritative source for statistics.",
        "inputSchema": nested,
    }
    get_stat = make_tool(
        "get_stat",
        "Get one statistic by name for the last day.",
        {n: {"type": "string"} for n in ("name", "unit", "scope", "source")},
        required=["name", "unit", "scope", "source"],
    )
    card = score_snapshot(snapshot_of(query_panel, get_stat))
    risks = card["server_score"]["shadowing"]
    assert [(r["tool"], r["cheaperSibling"]) for r in risks] == [("query_panel", "get_stat")]
    assert risks[0]["invocationCost"] >= 2 * risks[0]["cheaperSiblingInvocationCost"]
    assert "Shadowing Risk" in next(t for t in card["tools"] if t["name"] == "query_panel")["server_flags"]


def test_cheap_sibling_with_a_different_purpose_is_not_at_risk() -> None:
    search_code = make_tool(
        "search_code",
        "Search source code across repositories.",
        {n: {"type": "string"} for n in "abcdefgh"},
        required=list("abcdefgh"),
    )
    get_repo = make_tool(
        "get_repo", "Get repository details.", {"owner": REPO, "name": REPO}, required=["owner", "name"]
    )
    assert score_snapshot(snapshot_of(search_code, get_repo))["server_score"]["shadowing"] == []


def test_a_ping_does_not_claim_the_slot() -> None:
    dear = make_tool(
        "search_stats",
        "Search statistics by metric.",
        {n: {"type": "string"} for n in "abcdefghij"},
        required=list("abcdefghij"),
    )
    ping = make_tool("ping", "Check the server answers.")
    stat = make_tool(
        "get_stats",
        "Get statistics for one metric.",
        {n: {"type": "string"} for n in "abc"},
        required=list("abc"),
    )
    risks = score_snapshot(snapshot_of(dear, ping, stat))["server_score"]["shadowing"]
    assert [r["cheaperSibling"] for r in risks] == ["get_stats"]


SYMBOL = {"symbol": {"type": "string", "description": "Ticker symbol, e.g. AAPL."}}


def disambiguation_of(*tools: dict) -> dict:
    return score_snapshot(snapshot_of(*tools))["server_score"]["coherence"]["disambiguation"]


def test_one_template_for_two_objects_does_not_read_alike() -> None:
    # yahoo-finance's shape: the same sentence and schema, told apart by what each one gets.
    found = disambiguation_of(
        make_tool("get_dividends", "Get dividends for a given stock symbol.", SYMBOL),
        make_tool("get_news", "Get news for a given stock symbol.", SYMBOL),
        make_tool("get_cashflow", "Get cashflow for a given stock symbol.", SYMBOL),
    )
    assert found["score"] == 5, found


def test_two_tools_for_one_object_read_alike() -> None:
    found = disambiguation_of(
        make_tool("get_stock_price", "Get the stock price for a given stock symbol on a date.", SYMBOL),
        make_tool("get_stock_prices", "Get the stock prices for a given stock symbol over dates.", SYMBOL),
    )
    assert found["score"] == 4 and "`get_stock_price`/`get_stock_prices`" in found["justification"]


def test_the_servers_theme_word_is_no_shared_purpose() -> None:
    # mcp-server-chart's shape: every name says "chart"; a cheap liquid chart does not shadow a bar chart.
    points = {"type": "array", "items": {"type": "object", "properties": {"x": {}, "y": {}}}}
    dear = {
        name: make_tool(
            name,
            f"Generate a {name.split('_')[1]} chart from data points.",
            {c: points for c in "abcdef"},
            required=list("abcdef"),
        )
        for name in ("generate_bar_chart", "generate_line_chart", "generate_pie_chart")
    }
    liquid = make_tool(
        "generate_liquid_chart", "Generate a liquid chart of one percentage.", {"percent": {"type": "number"}}
    )
    card = score_snapshot(snapshot_of(*dear.values(), liquid))
    assert card["server_score"]["shadowing"] == []


def test_chinese_description_is_scored_on_structure_and_flagged() -> None:
    tool = make_tool(
        "fetch_webpage",
        "根据提供的ID获取对应网页的内容，ID来自bing_search返回的结果",
        {"result_id": {"type": "string", "description": "从bing_search返回的结果ID"}},
        required=["result_id"],
    )
    card = score_snapshot(snapshot_of(tool, make_tool("bing_search", "使用必应搜索指定的关键词")))["tools"][0]
    assert "Unsupported Language" in card["flags"]
    scores = {key: entry["score"] for key, entry in card["dimensions"].items()}
    # Structure only: naming the sibling `bing_search` by its identifier is what any language shows.
    assert scores["purpose"] == 5 and scores["behavior"] == 2 and scores["usage_guidelines"] == 4
    assert "Structure only (the description is in Chinese" in card["dimensions"]["purpose"]["justification"]


def test_a_server_without_tools_has_no_roll_up() -> None:
    card = score_snapshot(snapshot_of(name="empty"))
    assert card["tools"] == [] and card["server_score"]["overall"] is None
