"""Real releases, inspected live from npm and diffed: each pair's full change list, checked by hand.

scripts/install-peers installs every version in its own prefix under .peers/releases. The lists
below were read against the servers' schemas; the notes say why the less obvious entries are
right. Every reported witness is confirmed again here with jsonschema against the schemas as the
servers sent them.

- notion 1.9.1 → 2.5.2 wraps sub-schemas as ``anyOf: [old, {"type": "string"}]`` (and
  ``children[]``/``properties`` as ``anyOf`` with an open object): widenings, reported as the
  alternatives added (pointed at as sent: ``children[]`` lists its object alternative third, after
  two identical strings; ``properties``' object alternative carries the description the old
  schema lacked). Three real breaks remain: ``filter.value`` became an enum (``"database"`` is
  rejected now), and ``parent`` became ``oneOf`` [page, data source, workspace] whose alternatives
  overlap the old page parent (a call with both ``page_id`` and ``database_id``, or with ``page_id``
  and ``type: "workspace"``, matches two alternatives and fails oneOf).
- sequential-thinking 0.6.2 → 2026.8.31: zod 4's ±(2**53-1) integer bounds are stamps, not bounds,
  and the draft-07 ``$schema`` the old release stamped is normalised away.
- memory 0.6.2 → 2026.8.31 adds a title, hints and an output schema to each of its nine tools: no
  call or result breaks, and a title where there was none is info, so the release gates on nothing.
- github 0.6.2 → 2025.4.8 and playwright 0.0.20 → 0.0.83: the old versions sent empty input
  schemas (``{"$schema": …}`` only), so each kept tool gets one ``input-schema-declared``.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest
from jsonschema.validators import validator_for

from registry.diffing.diff import diff_snapshots
from registry.diffing.rules import rule
from registry.inspecting.inspect import inspect
from registry.inspecting.targets import Target
from tests.conftest import PEERS, require

pytestmark = [pytest.mark.peers, pytest.mark.slow]

RELEASES = PEERS / "releases"
SERVERS = {  # name → (npm package, environment it needs to list its tools: dummy tokens)
    "notion": ("@notionhq/notion-mcp-server", {"NOTION_TOKEN": "ntn_dummy"}),
    "playwright": ("@playwright/mcp", {}),
    "context7": ("@upstash/context7-mcp", {}),
    "github": ("@modelcontextprotocol/server-github", {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_dummy"}),
    "puppeteer": ("@modelcontextprotocol/server-puppeteer", {}),
    "sequential-thinking": ("@modelcontextprotocol/server-sequential-thinking", {}),
    "memory": ("@modelcontextprotocol/server-memory", {}),
}

EXPECTED = {
    ("memory", "0.6.2", "2026.8.31"): """
    info resource-added - /resources/memory:~1~1knowledge-graph
    info tool-title-added add_observations /title
    info tool-became-non-destructive add_observations /destructiveHint
    info tool-became-closed-world add_observations /openWorldHint
    info output-schema-added add_observations -
    info tool-title-added create_entities /title
    info tool-became-non-destructive create_entities /destructiveHint
    info tool-became-closed-world create_entities /openWorldHint
    info output-schema-added create_entities -
    info tool-title-added create_relations /title
    info tool-became-non-destructive create_relations /destructiveHint
    info tool-became-closed-world create_relations /openWorldHint
    info output-schema-added create_relations -
    info tool-title-added delete_entities /title
    info tool-became-idempotent delete_entities /idempotentHint
    info tool-became-closed-world delete_entities /openWorldHint
    info output-schema-added delete_entities -
    info tool-title-added delete_observations /title
    info tool-became-idempotent delete_observations /idempotentHint
    info tool-became-closed-world delete_observations /openWorldHint
    info output-schema-added delete_observations -
    info tool-title-added delete_relations /title
    info tool-became-idempotent delete_relations /idempotentHint
    info tool-became-closed-world delete_relations /openWorldHint
    info output-schema-added delete_relations -
    info tool-title-added open_nodes /title
    info tool-became-non-destructive open_nodes /destructiveHint
    info tool-became-idempotent open_nodes /idempotentHint
    info tool-became-closed-world open_nodes /openWorldHint
    info tool-became-read-only open_nodes /readOnlyHint
    info output-schema-added open_nodes -
    info tool-title-added read_graph /title
    info tool-became-non-destructive read_graph /destructiveHint
    info tool-became-idempotent read_graph /idempotentHint
    info tool-became-closed-world read_graph /openWorldHint
    info tool-became-read-only read_graph /readOnlyHint
    info output-schema-added read_graph -
    info tool-title-added search_nodes /title
    info tool-became-non-destructive search_nodes /destructiveHint
    info tool-became-idempotent search_nodes /idempotentHint
    info tool-became-closed-world search_nodes /openWorldHint
    info tool-became-read-only search_nodes /readOnlyHint
    info output-schema-added search_nodes -
    """,
    ("notion", "1.9.1", "2.5.2"): """
    info tool-title-added API-create-a-comment /annotations/title
    warning tool-description-changed API-create-a-comment /description
    info input-any-of-branch-added API-create-a-comment /properties/parent/anyOf/1
    info input-any-of-branch-added API-create-a-comment /properties/rich_text/items/anyOf/1
    info input-any-of-branch-added API-create-a-comment /properties/rich_text/items/anyOf/2
    info tool-added API-create-a-data-source -
    breaking tool-removed API-create-a-database -
    info tool-title-added API-delete-a-block /annotations/title
    warning tool-description-changed API-delete-a-block /description
    info tool-title-added API-get-block-children /annotations/title
    warning tool-description-changed API-get-block-children /description
    info tool-became-read-only API-get-block-children /readOnlyHint
    info tool-title-added API-get-self /annotations/title
    warning tool-description-changed API-get-self /description
    info tool-became-read-only API-get-self /readOnlyHint
    info tool-title-added API-get-user /annotations/title
    warning tool-description-changed API-get-user /description
    info tool-became-read-only API-get-user /readOnlyHint
    info tool-title-added API-get-users /annotations/title
    warning tool-description-changed API-get-users /description
    info tool-became-read-only API-get-users /readOnlyHint
    info tool-added API-list-data-source-templates -
    info tool-added API-move-page -
    info tool-title-added API-patch-block-children /annotations/title
    warning tool-description-changed API-patch-block-children /description
    info input-any-of-branch-added API-patch-block-children /properties/children/items/anyOf/0
    info input-any-of-branch-added API-patch-block-children /properties/children/items/anyOf/1
    info input-any-of-branch-added API-patch-block-children /properties/children/items/anyOf/2
    info tool-title-added API-patch-page /annotations/title
    warning tool-description-changed API-patch-page /description
    info input-any-of-branch-added API-patch-page /properties/cover/anyOf/1
    info input-any-of-branch-added API-patch-page /properties/icon/anyOf/1
    info input-any-of-branch-added API-patch-page /properties/properties/anyOf/0
    info input-any-of-branch-added API-patch-page /properties/properties/anyOf/1
    breaking tool-removed API-post-database-query -
    info tool-title-added API-post-page /annotations/title
    warning tool-description-changed API-post-page /description
    info input-any-of-branch-added API-post-page /properties/children/items/anyOf/2
    breaking input-one-of-branch-overlaps API-post-page /properties/parent/anyOf/0/oneOf/0
    breaking input-one-of-branch-overlaps API-post-page /properties/parent/anyOf/0/oneOf/2
    info input-any-of-branch-added API-post-page /properties/parent/anyOf/1
    info input-any-of-branch-added API-post-page /properties/properties/anyOf/0
    info input-description-changed API-post-page /properties/properties/anyOf/0/description
    info input-any-of-branch-added API-post-page /properties/properties/anyOf/1
    info tool-title-added API-post-search /annotations/title
    warning tool-description-changed API-post-search /description
    info input-description-changed API-post-search /properties/filter/anyOf/0/description
    info input-description-changed API-post-search /properties/filter/anyOf/0/properties/property/description
    info input-description-changed API-post-search /properties/filter/anyOf/0/properties/value/description
    breaking input-became-enum API-post-search /properties/filter/anyOf/0/properties/value/enum
    info input-any-of-branch-added API-post-search /properties/filter/anyOf/1
    info input-any-of-branch-added API-post-search /properties/sort/anyOf/1
    info tool-added API-query-data-source -
    info tool-title-added API-retrieve-a-block /annotations/title
    warning tool-description-changed API-retrieve-a-block /description
    info tool-became-read-only API-retrieve-a-block /readOnlyHint
    info tool-title-added API-retrieve-a-comment /annotations/title
    warning tool-description-changed API-retrieve-a-comment /description
    info tool-became-read-only API-retrieve-a-comment /readOnlyHint
    info tool-added API-retrieve-a-data-source -
    info tool-title-added API-retrieve-a-database /annotations/title
    warning tool-description-changed API-retrieve-a-database /description
    info tool-became-read-only API-retrieve-a-database /readOnlyHint
    info input-description-changed API-retrieve-a-database /properties/database_id/description
    info tool-title-added API-retrieve-a-page /annotations/title
    warning tool-description-changed API-retrieve-a-page /description
    info tool-became-read-only API-retrieve-a-page /readOnlyHint
    info tool-title-added API-retrieve-a-page-property /annotations/title
    warning tool-description-changed API-retrieve-a-page-property /description
    info tool-became-read-only API-retrieve-a-page-property /readOnlyHint
    info tool-added API-retrieve-page-markdown -
    info tool-title-added API-update-a-block /annotations/title
    warning tool-description-changed API-update-a-block /description
    info input-any-of-branch-added API-update-a-block /properties/type/anyOf/1
    info tool-added API-update-a-data-source -
    breaking tool-removed API-update-a-database -
    info tool-added API-update-page-markdown -
    """,
    ("sequential-thinking", "0.6.2", "2026.8.31"): """
    warning tool-description-changed sequentialthinking /description
    info tool-title-added sequentialthinking /title
    info tool-became-non-destructive sequentialthinking /destructiveHint
    info tool-became-idempotent sequentialthinking /idempotentHint
    info tool-became-closed-world sequentialthinking /openWorldHint
    info tool-became-read-only sequentialthinking /readOnlyHint
    info input-type-widened sequentialthinking /properties/isRevision/type
    info input-type-widened sequentialthinking /properties/needsMoreThoughts/type
    info input-type-widened sequentialthinking /properties/nextThoughtNeeded/type
    info input-description-changed sequentialthinking /properties/thoughtNumber/description
    info input-description-changed sequentialthinking /properties/totalThoughts/description
    info output-schema-added sequentialthinking -
    """,
    ("puppeteer", "0.6.2", "2025.5.12"): """
    info input-optional-property-added puppeteer_navigate /properties/allowDangerous
    info input-optional-property-added puppeteer_navigate /properties/launchOptions
    info input-description-changed puppeteer_navigate /properties/url/description
    info input-optional-property-added puppeteer_screenshot /properties/encoded
    """,
    ("context7", "1.0.8", "2.1.0"): """
    warning server-instructions-changed - /instructions
    breaking tool-removed get-library-docs -
    info tool-added query-docs -
    warning tool-description-changed resolve-library-id /description
    info tool-title-added resolve-library-id /title
    info tool-became-read-only resolve-library-id /readOnlyHint
    breaking input-required-property-added resolve-library-id /properties/query
    """,
    ("context7", "2.1.0", "4.1.1"): """
    warning server-instructions-changed - /instructions
    warning tool-description-changed query-docs /description
    info tool-became-non-destructive query-docs /destructiveHint
    info tool-became-idempotent query-docs /idempotentHint
    info input-dialect-changed query-docs /$schema
    info input-additional-properties-opened query-docs /additionalProperties
    info input-description-changed query-docs /properties/query/description
    warning tool-description-changed resolve-library-id /description
    info tool-became-non-destructive resolve-library-id /destructiveHint
    info tool-became-idempotent resolve-library-id /idempotentHint
    info input-dialect-changed resolve-library-id /$schema
    info input-additional-properties-opened resolve-library-id /additionalProperties
    info input-description-changed resolve-library-id /properties/libraryName/description
    info input-description-changed resolve-library-id /properties/query/description
    """,
    ("playwright", "0.0.20", "0.0.83"): """
    info tool-title-added browser_click /annotations/title
    warning input-schema-declared browser_click -
    info input-dialect-changed browser_click /$schema
    info tool-title-added browser_close /annotations/title
    warning input-schema-declared browser_close -
    info input-dialect-changed browser_close /$schema
    info tool-title-added browser_console_messages /annotations/title
    info tool-became-non-destructive browser_console_messages /destructiveHint
    info tool-became-read-only browser_console_messages /readOnlyHint
    warning input-schema-declared browser_console_messages -
    info input-dialect-changed browser_console_messages /$schema
    info tool-title-added browser_drag /annotations/title
    warning input-schema-declared browser_drag -
    info input-dialect-changed browser_drag /$schema
    info tool-added browser_drop -
    info tool-added browser_emulate_media -
    info tool-added browser_evaluate -
    info tool-title-added browser_file_upload /annotations/title
    warning input-schema-declared browser_file_upload -
    info input-dialect-changed browser_file_upload /$schema
    info tool-added browser_fill_form -
    info tool-added browser_find -
    breaking tool-removed browser_generate_playwright_test -
    info tool-title-added browser_handle_dialog /annotations/title
    warning input-schema-declared browser_handle_dialog -
    info input-dialect-changed browser_handle_dialog /$schema
    info tool-title-added browser_hover /annotations/title
    warning input-schema-declared browser_hover -
    info input-dialect-changed browser_hover /$schema
    breaking tool-removed browser_install -
    info tool-title-added browser_navigate /annotations/title
    warning input-schema-declared browser_navigate -
    info input-dialect-changed browser_navigate /$schema
    info tool-title-added browser_navigate_back /annotations/title
    warning tool-description-changed browser_navigate_back /description
    warning input-schema-declared browser_navigate_back -
    info input-dialect-changed browser_navigate_back /$schema
    breaking tool-removed browser_navigate_forward -
    info tool-added browser_network_request -
    info tool-title-added browser_network_requests /annotations/title
    warning tool-description-changed browser_network_requests /description
    info tool-became-non-destructive browser_network_requests /destructiveHint
    info tool-became-read-only browser_network_requests /readOnlyHint
    warning input-schema-declared browser_network_requests -
    info input-dialect-changed browser_network_requests /$schema
    breaking tool-removed browser_pdf_save -
    info tool-title-added browser_press_key /annotations/title
    warning input-schema-declared browser_press_key -
    info input-dialect-changed browser_press_key /$schema
    info tool-title-added browser_resize /annotations/title
    warning input-schema-declared browser_resize -
    info input-dialect-changed browser_resize /$schema
    info tool-added browser_run_code_unsafe -
    info tool-title-added browser_select_option /annotations/title
    warning input-schema-declared browser_select_option -
    info input-dialect-changed browser_select_option /$schema
    info tool-title-added browser_snapshot /annotations/title
    info tool-became-non-destructive browser_snapshot /destructiveHint
    info tool-became-read-only browser_snapshot /readOnlyHint
    warning input-schema-declared browser_snapshot -
    info input-dialect-changed browser_snapshot /$schema
    breaking tool-removed browser_tab_close -
    breaking tool-removed browser_tab_list -
    breaking tool-removed browser_tab_new -
    breaking tool-removed browser_tab_select -
    info tool-added browser_tabs -
    info tool-title-added browser_take_screenshot /annotations/title
    info tool-became-non-destructive browser_take_screenshot /destructiveHint
    info tool-became-read-only browser_take_screenshot /readOnlyHint
    warning input-schema-declared browser_take_screenshot -
    info input-dialect-changed browser_take_screenshot /$schema
    info tool-title-added browser_type /annotations/title
    warning input-schema-declared browser_type -
    info input-dialect-changed browser_type /$schema
    breaking tool-removed browser_wait -
    info tool-added browser_wait_for -
    """,
    ("github", "0.6.2", "2025.4.8"): """
    info tool-added add_issue_comment -
    warning input-schema-declared create_branch -
    warning input-schema-declared create_issue -
    warning input-schema-declared create_or_update_file -
    warning input-schema-declared create_pull_request -
    info tool-added create_pull_request_review -
    warning input-schema-declared create_repository -
    warning input-schema-declared fork_repository -
    warning input-schema-declared get_file_contents -
    info tool-added get_issue -
    info tool-added get_pull_request -
    info tool-added get_pull_request_comments -
    info tool-added get_pull_request_files -
    info tool-added get_pull_request_reviews -
    info tool-added get_pull_request_status -
    info tool-added list_commits -
    info tool-added list_issues -
    info tool-added list_pull_requests -
    info tool-added merge_pull_request -
    warning input-schema-declared push_files -
    info tool-added search_code -
    info tool-added search_issues -
    warning input-schema-declared search_repositories -
    info tool-added search_users -
    info tool-added update_issue -
    info tool-added update_pull_request_branch -
    """,
}


@cache
def _snapshot(name: str, version: str) -> dict[str, Any]:
    package, env = SERVERS[name]
    root = RELEASES / f"{package}@{version}" / "node_modules" / package
    require(
        (root / "package.json").exists(), f"{package}@{version} is not installed (run scripts/install-peers)"
    )
    manifest = json.loads((root / "package.json").read_text(encoding="utf-8"))
    bin_entry = manifest["bin"] if isinstance(manifest["bin"], str) else next(iter(manifest["bin"].values()))
    return inspect(Target(transport="stdio", argv=["node", str(root / bin_entry)], env=env), timeout=60)


@pytest.mark.parametrize(("name", "old", "new"), list(EXPECTED), ids=lambda v: v)
def test_release_pair_reports_the_hand_checked_changes(node: str, name: str, old: str, new: str) -> None:
    before, after = _snapshot(name, old), _snapshot(name, new)
    changes = diff_snapshots(before, after)
    got = [f"{c['level']} {c['rule']} {c['tool'] or '-'} {c['path'] or '-'}" for c in changes]
    assert got == [line.strip() for line in EXPECTED[(name, old, new)].strip().splitlines()]
    tools = ({t["name"]: t for t in snapshot["tools"]} for snapshot in (before, after))
    old_tools, new_tools = tools
    for change in changes:
        if rule(change["rule"]).witness and change["area"] in ("inputSchema", "outputSchema"):
            assert change["witness"] is not None, change["message"]
        if change["witness"] is None:
            continue
        area = change["area"]
        schemas = [side[change["tool"]].get(area) or {"type": "object"} for side in (old_tools, new_tools)]
        accepting, rejecting = schemas if area == "inputSchema" else schemas[::-1]
        assert validator_for(accepting)(accepting).is_valid(change["witness"]), change["message"]
        assert not validator_for(rejecting)(rejecting).is_valid(change["witness"]), change["message"]
