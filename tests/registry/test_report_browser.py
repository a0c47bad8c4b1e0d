"""Directory pages in a real headless Chromium: what a person sees, and that hostile servers stay inert."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO, make_snapshot, require

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = REPO / "test-artifacts" / "report"
MCPDEX = [sys.executable, "-m", "registry"]

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# Each payload would set window.__pwned if any of it ran.
PAYLOADS = [
    "<script>window.__pwned = 1</script>",
    '"><img src=x onerror="window.__pwned = 2">',
    "javascript:window.__pwned = 3",
    "'><svg onload=window.__pwned=4>",
    "</pre></code></bdi><script>window.__pwned = 5</script>",
    "{{ 7 * 7 }} {% raw %}",
]
RTL = "\u202eexe.txt\u202c"
HUGE = "A tool that " + "repeats itself " * 70_000  # a ~1 MB description


def mcpdex(*args: str) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([*MCPDEX, *args], capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr
    return result


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    require(CHROMIUM.exists(), "Chromium is not at /usr/bin/chromium (scripts/test installs it)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        yield chromium
        chromium.close()


def hostile_snapshot(version: str, extra_tool: bool, huge: bool) -> dict:
    evil = " ".join(PAYLOADS)
    tools = [
        {
            "name": PAYLOADS[0],
            "title": PAYLOADS[1],
            "description": f"{evil} {RTL}",
            "inputSchema": {
                "type": "object",
                "properties": {
                    PAYLOADS[1]: {"type": "string", "description": PAYLOADS[0], "default": PAYLOADS[2]},
                    "mode": {"type": "string", "enum": [PAYLOADS[3], PAYLOADS[4]]},
                },
                "required": [PAYLOADS[1]],
            },
            "outputSchema": {
                "type": "object",
                "properties": {"x": {"type": "string", "description": PAYLOADS[4]}},
            },
            "annotations": {"title": PAYLOADS[3], "readOnlyHint": True},
        },
        {"name": "../../etc", "description": HUGE if huge else RTL, "inputSchema": {"type": "object"}},
        {"name": PAYLOADS[2], "description": RTL, "inputSchema": {"type": "object"}},
    ]
    if extra_tool:
        tools.append({"name": "added_later", "description": PAYLOADS[5], "inputSchema": {"type": "object"}})
        tools[0]["description"] += " changed"
    return make_snapshot(
        *tools,
        name=PAYLOADS[1],
        title=PAYLOADS[0],
        version=version,
        instructions=evil,
        source={"transport": "stdio", "target": PAYLOADS[2]},
        protocolVersion=PAYLOADS[4],
        capabilities={PAYLOADS[3]: {}},
        capturedAt="2026-10-20T10:00:00Z",
        problems=[{"code": "invalid-tool", "where": PAYLOADS[1], "message": PAYLOADS[0]}],
    )


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory) -> Path:
    """A registry of servers nobody vetted, recorded through the real store, rendered by the real CLI.

    The store now refuses these server names; a registry written before it did still holds them, and
    its pages must stay inert, so the name rule is lifted while this one is written.
    """
    from registry.storage.store import open_store

    folder = tmp_path_factory.mktemp("hostile")
    url = f"sqlite:///{folder / 'registry.sqlite'}"
    with pytest.MonkeyPatch.context() as patch, open_store(url) as store:
        patch.setattr("registry.core.names.server_name_problem", lambda name: None)
        for name in (*PAYLOADS, "../../etc", "..", RTL, "Plain", "plain"):
            for index, version in enumerate(("1.0.0", "1.1.0")):
                snapshot = hostile_snapshot(version, extra_tool=bool(index), huge=name == "../../etc")
                store.record_inspection(
                    snapshot,
                    server=name,
                    ok=True,
                    error=None,
                    started_at=f"2026-10-2{index}T10:00:00Z",
                    duration_s=1,
                )
        store.record_inspection(
            None,
            server=PAYLOADS[0] + " down",
            ok=False,
            error=PAYLOADS[1],
            started_at="2026-10-22T10:00:00Z",
            duration_s=0.1,
        )
    mcpdex("report", "--out", str(folder / "site"), "--registry", url)
    return folder / "site"


@pytest.fixture(scope="module")
def peer_site(tmp_path_factory, npm_peer, py_peer) -> Path:
    """Real peers inspected and saved by `mcpdex inspect --save`, then rendered by `mcpdex report`."""
    folder = tmp_path_factory.mktemp("peers")
    url = f"sqlite:///{folder / 'registry.sqlite'}"
    mcpdex("inspect", "--save", "--registry", url, "--name", "memory", "--", *npm_peer("server-memory"))
    for venv, label in (("time-old", "2025.9.25"), ("mcp-server-time", "2026.10.19")):
        exe = py_peer(venv, "mcp-server-time")
        mcpdex("inspect", "--save", "--registry", url, "--name", "time", "--version-label", label, "--", exe)
    mcpdex("report", "--out", str(folder / "site"), "--registry", url)
    return folder / "site"


class Tab:
    """One browser page that records anything a visitor should never see: dialogs, errors, requests."""

    def __init__(self, browser, **options) -> None:
        self.page = browser.new_page(**options)
        self.problems: list[str] = []
        self.page.on(
            "dialog", lambda dialog: (self.problems.append(f"dialog {dialog.message}"), dialog.dismiss())
        )
        self.page.on("pageerror", lambda error: self.problems.append(f"page error {error}"))
        self.page.on(
            "console", lambda msg: msg.type == "error" and self.problems.append(f"console {msg.text}")
        )
        self.page.on(
            "request", lambda r: r.url.startswith("file:") or self.problems.append(f"request {r.url}")
        )

    def open(self, path: Path):
        self.problems.clear()
        self.page.goto(path.as_uri())
        return self.page


def open_page(browser, path: Path, **options):
    tab = Tab(browser, **options)
    return tab.open(path), tab.problems


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=False)


def test_no_injected_script_runs_and_hostile_text_shows_literally(browser, hostile_site) -> None:
    pages = sorted(hostile_site.rglob("*.html"))
    assert len(pages) > 30
    seen_text = ""
    tab = Tab(browser)
    for path in pages:
        page, problems = tab.open(path), tab.problems
        state = page.evaluate(
            """() => ({
                pwned: window.__pwned === undefined ? null : window.__pwned,
                scripts: document.scripts.length,
                images: document.images.length,
                handlers: [...document.querySelectorAll('*')].flatMap(
                    el => [...el.attributes].filter(a => a.name.startsWith('on')).map(a => a.name)),
                links: [...document.links].map(a => a.protocol),
            })"""
        )
        relative = path.relative_to(hostile_site)
        assert problems == [], (relative, problems)
        assert state["pwned"] is None, relative
        assert state["scripts"] == 1 and state["images"] == 0 and state["handlers"] == [], (relative, state)
        assert set(state["links"]) <= {"file:"}, (relative, state["links"])
        if path.stat().st_size < 2_000_000:
            seen_text += page.inner_text("body")
        if relative.parts[-1] == "index.html" and relative.parent.name.startswith("script"):
            shot(page, "hostile-server")
    tab.page.close()
    for payload in PAYLOADS:
        assert payload in seen_text, payload
    assert RTL in seen_text
    index, _ = open_page(browser, hostile_site / "index.html")
    index_text = index.inner_text("body")
    assert "Plain" in index_text and "plain" in index_text and "../../etc" in index_text
    assert index.locator("tbody tr").count() == len(PAYLOADS) + 6
    shot(index, "hostile-index")
    index.close()


def test_every_file_stays_inside_the_site_folder(hostile_site) -> None:
    for path in hostile_site.rglob("*"):
        assert path.resolve().is_relative_to(hostile_site.resolve())
        assert all(part not in {"..", "."} for part in path.relative_to(hostile_site).parts)
    assert len(list((hostile_site / "servers").iterdir())) == len(PAYLOADS) + 6


def test_the_huge_description_is_shown_in_full_on_its_tool_page(browser, hostile_site) -> None:
    huge_pages = [p for p in hostile_site.glob("servers/etc-*/tools/etc-*.html")]
    assert len(huge_pages) == 1
    page, problems = open_page(browser, huge_pages[0])
    text = page.locator("article.tool .prose").first.inner_text()
    assert len(text) == len(HUGE) and problems == []
    page.close()


def test_a_visitor_filters_the_index_and_opens_a_server_and_a_tool(browser, peer_site) -> None:
    page, problems = open_page(browser, peer_site / "index.html", viewport={"width": 1280, "height": 900})
    assert page.get_by_role("heading", name="MCP servers").is_visible()
    rows = page.locator("tbody#servers tr")
    assert rows.count() == 2
    # The memory view below lists the one memory server, not yet probed.
    memory = page.locator("table.memory tbody tr")
    assert memory.count() == 1 and "not probed" in memory.first.inner_text()
    assert page.locator("figure.chart svg rect").count() == 8
    shot(page, "index")

    page.get_by_label("Filter servers").fill("tim")
    assert [rows.nth(i).is_visible() for i in range(2)].count(True) == 1
    assert page.get_by_role("status").inner_text() == "1 of 2 shown"
    shot(page, "index-filtered")
    page.get_by_label("Filter servers").fill("")
    assert [rows.nth(i).is_visible() for i in range(2)].count(True) == 2

    page.get_by_role("button", name="Tools").click()
    counts = [int(rows.nth(i).locator("td.num").first.inner_text()) for i in range(2)]
    assert counts == sorted(counts)
    page.get_by_role("button", name="Tools").click()
    counts = [int(rows.nth(i).locator("td.num").first.inner_text()) for i in range(2)]
    assert counts == sorted(counts, reverse=True)

    page.get_by_role("link", name="time", exact=True).click()
    assert page.get_by_role("heading", name="Schema changelog", exact=True).is_visible()
    assert page.get_by_role("heading", name="v2025.9.25").count() == 1
    body = page.inner_text("body")
    assert "First observed." in body and "Before" in body and "After" in body
    shot(page, "server")

    page.get_by_role("link", name="convert_time").first.click()
    assert page.get_by_role("heading", name="convert_time", level=1).is_visible()
    body = page.inner_text("body")
    assert "Usage Guidelines" in body and "Input Schema" in body
    table = page.get_by_role("table", name="Input schema of convert_time")
    assert table.get_by_role("columnheader").all_inner_texts() == ["Name", "Required", "Type", "Description"]
    assert "Yes" in table.inner_text()
    shot(page, "tool")
    page.get_by_role("link", name="Directory").click()
    assert page.url.endswith("/index.html")
    assert problems == []
    page.close()


PHONE = {"width": 390, "height": 844}
# How far the document reaches past the phone's own width. With is_mobile a page wider than the
# viewport widens the layout viewport (innerWidth) to fit, so that is not what it is compared with.
_PAST_THE_PHONE = "(width) => document.documentElement.scrollWidth - width"


def test_pages_fit_a_phone_and_follow_the_dark_scheme(browser, peer_site) -> None:
    options = {"viewport": PHONE, "color_scheme": "dark", "is_mobile": True}
    for relative, name in (
        ("index.html", "phone-dark-index"),
        ("servers/memory/index.html", "phone-dark-server"),
    ):
        page, problems = open_page(browser, peer_site / relative, **options)
        background = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
        assert background == "rgb(17, 20, 24)"
        shot(page, name)
        assert problems == []
        page.close()
    # Every page, the tool pages with their schema tables too, fits the phone's width.
    tab = Tab(browser, **options)
    for path in sorted(peer_site.rglob("*.html")):
        page = tab.open(path)
        assert page.evaluate(_PAST_THE_PHONE, PHONE["width"]) <= 0, path.relative_to(peer_site)
        assert tab.problems == []
    tab.page.close()


def test_on_a_phone_a_wide_table_is_stacked_each_value_after_its_column_name(browser, peer_site) -> None:
    page, problems = open_page(browser, peer_site / "index.html", viewport=PHONE, is_mobile=True)
    memory = page.locator("table.memory tbody tr").first
    memory.scroll_into_view_if_needed()
    page.locator("table.memory").screenshot(path=str(ARTIFACTS / "phone-memory-servers.png"))
    assert page.locator("table.memory thead").bounding_box()["height"] <= 1  # read, not shown
    cells = memory.locator("td:visible")
    assert cells.count() >= 10
    for index in range(cells.count()):
        box = cells.nth(index).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], index
    label = page.evaluate(
        "(cell) => getComputedStyle(cell, '::before').content", cells.nth(1).element_handle()
    )
    assert label == '"Checks passed "' and "not probed" in cells.nth(1).inner_text()
    tool = peer_site / "servers" / "memory" / "tools" / "add_observations.html"
    page.goto(tool.as_uri())
    rows = page.locator("table.stack").first.locator("tbody tr")
    top, nested = (rows.nth(index).locator("th").bounding_box() for index in (0, 1))
    assert nested["x"] > top["x"]  # a nested property is indented under its parent
    page.locator("table.stack").first.screenshot(path=str(ARTIFACTS / "phone-tool-schema.png"))
    assert problems == []
    page.close()


def test_a_probed_memory_servers_profile_tables_fit_a_phone(browser, tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'registry.sqlite'}"
    mcpdex(
        "probe",
        "--save",
        "--allow-writes",
        "--registry",
        url,
        "--name",
        "notes",
        "--timeout",
        "120",
        "--",
        *MCPDEX,
        "memory",
        "--db",
        str(tmp_path / "scratch.db"),
    )
    mcpdex("report", "--out", str(tmp_path / "site"), "--registry", url)
    page, problems = open_page(
        browser, tmp_path / "site" / "servers" / "notes" / "index.html", viewport=PHONE, is_mobile=True
    )
    assert page.evaluate(_PAST_THE_PHONE, PHONE["width"]) <= 0
    for label in ("Memory features against the official server", "Token cost of each read form"):
        table = page.locator(f"table[aria-label='{label}']")
        table.scroll_into_view_if_needed()
        box = table.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], label
    page.locator("#memory-profile table.stack").first.screenshot(
        path=str(ARTIFACTS / "phone-memory-profile.png")
    )
    assert problems == []
    page.close()


def test_the_single_server_report_works_from_file_without_network(browser, peer_site, tmp_path) -> None:
    out = tmp_path / "time.html"
    registry = f"sqlite:///{peer_site.parent / 'registry.sqlite'}"
    mcpdex("report", "time", "--out", str(out), "--registry", registry)
    page, problems = open_page(browser, out)
    page.get_by_role("link", name="get_current_time").first.click()
    assert page.url.endswith("#tool-get_current_time")
    assert problems == []
    shot(page, "single-report")
    page.close()


def test_long_server_names_and_labels_wrap_instead_of_scrolling_the_index(browser, tmp_path) -> None:
    from registry.storage.store import open_store

    url = f"sqlite:///{tmp_path / 'registry.sqlite'}"
    names = [
        "io.github.an-organisation-with-a-long-name/an-mcp-server-whose-name-goes-on-and-on-and-on-without-a-space",
        "Notion API",
        "x" * 150,
    ]
    with open_store(url) as store:
        for name in names:
            snapshot = make_snapshot(
                {"name": "t", "description": "Does t.", "inputSchema": {"type": "object"}},
                name=name,
                title="T" * 120,
                version="1.0.0+cdcd4fbb1d6d" * 4,
            )
            store.record_inspection(
                snapshot, server=name, ok=True, error=None, started_at="2026-10-20T10:00:00Z", duration_s=1
            )
    mcpdex("report", "--out", str(tmp_path / "site"), "--registry", url)
    page, problems = open_page(
        browser, tmp_path / "site" / "index.html", viewport={"width": 1280, "height": 900}
    )
    sizes = page.evaluate(
        """() => ({
            page: document.documentElement.scrollWidth - window.innerWidth,
            table: [...document.querySelectorAll('.table-wrap')].map(w => w.scrollWidth - w.clientWidth),
        })"""
    )
    shot(page, "long-names-index")
    assert sizes["page"] <= 1 and all(extra <= 1 for extra in sizes["table"]), sizes
    assert problems == []
    page.close()


# Each character's line in the name cell, by the top of its box: where the name wraps.
_LINE_BREAKS = """(cell) => {
    const text = cell.querySelector('a');
    const walker = document.createTreeWalker(text, NodeFilter.SHOW_TEXT);
    const chars = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (let i = 0; i < node.length; i++) {
            const range = document.createRange();
            range.setStart(node, i); range.setEnd(node, i + 1);
            const box = range.getClientRects()[0];
            if (box) chars.push([node.data[i], Math.round(box.top)]);
        }
    }
    return chars.filter((c, i) => i + 1 < chars.length && chars[i + 1][1] > c[1]).map(c => c[0]);
}"""


@pytest.fixture(scope="module")
def scan_site(tmp_path_factory) -> Path:
    """Servers with long dotted, dashed and slashed names and tools whose descriptions hold Markdown."""
    from registry.storage.store import open_store

    folder = tmp_path_factory.mktemp("scan")
    url = f"sqlite:///{folder / 'registry.sqlite'}"
    tools = [
        {
            "name": f"search_{kind}_by_an_exact_name",
            "title": f"Search {kind}",
            "description": f"Find {kind} whose `name` matches. Pass `limit` to page; the rest of this "
            "description is long enough that only its first sentence belongs in a table.",
            "inputSchema": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "limit": {"type": "integer"}},
                "required": ["name"],
            },
            "annotations": {"readOnlyHint": True},
        }
        for kind in ("notes", "files", "tickets", "issues", "users", "teams", "pages", "spaces")
    ]
    names = [
        "io.github.an-organisation-with-a-long-name/an-mcp-server-whose-name-goes-on_and_on",
        "com.example/notes",
    ]
    with open_store(url) as store:
        for name in names:
            snapshot = make_snapshot(*tools, name=name, title="A server with a fairly long human title")
            store.record_inspection(
                snapshot, server=name, ok=True, error=None, started_at="2026-10-20T10:00:00Z", duration_s=1
            )
    mcpdex("report", "--out", str(folder / "site"), "--registry", url)
    return folder / "site"


def test_the_index_wraps_names_at_separators_and_aligns_numbers_under_their_headers(
    browser, scan_site
) -> None:
    page, problems = open_page(browser, scan_site / "index.html", viewport={"width": 1280, "height": 900})
    shot(page, "scan-index-desktop")
    long_name = page.locator("table.servers tbody th").filter(has_text="io.github")
    breaks = page.evaluate(_LINE_BREAKS, long_name.element_handle())
    assert breaks and all(char in "/-_." for char in breaks), breaks
    edges = page.evaluate(
        """() => {
            const head = document.querySelector('table.servers thead th.num button');
            const cell = document.querySelector('table.servers tbody td.num');
            const range = document.createRange(); range.selectNodeContents(cell);
            return [head.getBoundingClientRect().right, range.getBoundingClientRect().right];
        }"""
    )
    assert abs(edges[0] - edges[1]) <= 2, edges
    # The current page is not a link to itself; the chart says what its axes count.
    assert page.locator("header.site nav a").count() == 0
    assert page.locator("figure.chart text.axis-label").all_text_contents() == [
        "overall score (TDQS, 1–5)",
        "servers",
    ]
    assert "F below" in page.locator("figure.chart figcaption").inner_text()
    assert page.locator("table.servers thead th[title]").count() >= 3
    assert problems == []
    page.close()


def test_on_a_phone_the_key_columns_fit_and_the_rest_shows_under_the_name(browser, scan_site) -> None:
    options = {"viewport": PHONE, "is_mobile": True}
    for relative, table, keys, name in (
        ("index.html", "table.servers", ["Server", "Tools", "Tier"], "scan-index-phone"),
        (
            "servers/com.example/notes/index.html",
            "table.tools",
            ["Tool", "Description", "TDQS"],
            "scan-server-phone",
        ),
    ):
        path = scan_site / relative
        if not path.exists():  # the slug of a name with a slash
            path = next(scan_site.glob("servers/*notes*/index.html"))
        page, problems = open_page(browser, path, **options)
        page.locator(table).scroll_into_view_if_needed()
        shot(page, name)
        assert page.evaluate(_PAST_THE_PHONE, PHONE["width"]) <= 0, relative
        extra = page.evaluate(
            "(t) => t.parentElement.scrollWidth - t.parentElement.clientWidth",
            page.locator(table).element_handle(),
        )
        assert extra <= 1, (relative, extra)
        headers = page.locator(f"{table} thead th:visible")
        assert headers.all_inner_texts() == keys, relative
        for index in range(headers.count()):
            box = headers.nth(index).bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], (relative, keys[index])
        if table == "table.servers":
            details = page.locator("table.servers tbody th .phone-only").first
            assert (
                details.is_visible()
                and "tokens" in details.inner_text()
                and "first version" in details.inner_text()
            )
        assert problems == []
        page.close()


def test_a_server_page_lists_its_tools_compactly_with_a_link_to_each(browser, scan_site) -> None:
    page, problems = open_page(
        browser, next(scan_site.glob("servers/*notes*/index.html")), viewport={"width": 1280, "height": 900}
    )
    height = page.evaluate("() => document.documentElement.scrollHeight")
    page.locator("table.tools").scroll_into_view_if_needed()
    shot(page, "scan-server-desktop")
    assert page.locator("article.tool").count() == 0
    rows = page.locator("table.tools tbody tr")
    assert rows.count() == 8
    first = rows.first
    # Markdown code spans render as code; only the first sentence is in the table.
    assert first.locator("td.summary code").all_inner_texts() == ["name"]
    assert "`" not in first.inner_text() and "only its first sentence" not in first.inner_text()
    assert first.locator("td").nth(1).inner_text() == "2" and "Read-only" in first.inner_text()
    assert height < 6000, height
    # Every header and fact that is not plain English says what it means.
    assert page.locator("table.tools thead th[title]").count() == 3
    assert page.locator("dt[title]").filter(has_text="Capabilities declared").count() == 1
    assert page.get_by_role("columnheader", name="Weak dimensions").get_attribute("title")
    first.get_by_role("link").click()
    assert page.get_by_role("heading", name="search_notes_by_an_exact_name", level=1).is_visible()
    description = page.locator("article.tool .prose").first
    assert description.locator("code").all_inner_texts() == ["name", "limit"]
    assert "`" not in description.inner_text()
    assert "Usage Guidelines" in page.inner_text("body") and "Input Schema" in page.inner_text("body")
    assert problems == []
    page.close()
