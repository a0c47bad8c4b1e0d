"""The site writer: a page per server and per tool with JSON beside each, the index, the
manifest of written files, and the one-server HTML and Markdown reports.

Pure: no network, no database, no clock. Servers, tools and descriptions come from servers
nobody vetted, so every string reaches a template as data (autoescaped there), file names are
slugs made here, and the same input always renders byte-identical output.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from functools import cache
from json.encoder import encode_basestring
from typing import Any

from markupsafe import Markup

from registry.core.errors import UsageError
from registry.core.templating import render
from registry.site.chart import score_chart
from registry.site.encoding import compact_json, json_bytes, shared_parts, spliced_json
from registry.site.model import SITE_FORMAT, IndexEntry, ServerData, tools_of
from registry.site.slugs import server_slugs, tool_slugs
from registry.site.text import escape_markdown, markdown_code
from registry.site.timeline import changes_by_tool, tool_changelog, tool_history, tool_timeline, views_by_tool
from registry.site.views import server_context, server_document, summary_row, tool_document

MANIFEST_FORMAT = "mcpdex.manifest/1"


# The list of files a site render wrote, kept in the site folder so the next render can remove
# the ones it no longer produces (and nothing else).
MANIFEST_NAME = ".mcpdex-manifest.json"


def render_server_report(server: ServerData, *, template_dir: str | None = None) -> str:
    """One self-contained HTML page for one server: every tool inline, no links out."""
    return render(
        "server.html.j2",
        template_dir,
        **_inline_assets(template_dir),
        **server_context(server, tool_slugs(server), template_dir),
        standalone=True,
        root="",
    )


def render_markdown(server: ServerData, *, template_dir: str | None = None) -> str:
    """The pull-request comment form of a server report."""
    context = server_context(server, tool_slugs(server), template_dir)
    return render("report.md.j2", template_dir, md=escape_markdown, code=markdown_code, **context)


def render_server_files(
    server: ServerData, slug: str, *, template_dir: str | None = None
) -> dict[str, bytes]:
    """One server's part of the site: its page, a page per tool, and the JSON beside each."""
    folder = f"servers/{slug}"
    slugs = tool_slugs(server)
    context = server_context(server, slugs, template_dir)
    assets = _LINKED_ASSETS
    encoded, holders = shared_parts(server)
    concerning = changes_by_tool(server.versions)
    document = server_document(server)
    files = {
        f"{folder}/index.html": render(
            "server.html.j2", template_dir, **assets, **context, standalone=False, root="../../"
        ).encode("utf-8"),
        f"{folder}/index.json": json_bytes(spliced_json(document, encoded, {*holders, id(document)})),
    }
    views = views_by_tool(context["changelog"])
    cards: dict[Any, dict[str, Any]] = {}
    for card in (server.scorecard or {}).get("tools") or []:
        if isinstance(card, dict):
            cards.setdefault(card.get("name"), card)
    changes: dict[Any, list[dict[str, Any]]] = {}
    for version in server.versions:
        for change in version.get("changes") or []:
            changes.setdefault(change.get("tool"), []).append({"version": version["label"], "change": change})
    for tool, view in zip(tools_of(server.snapshot), context["tools"], strict=True):
        first, changed = tool_timeline(concerning, view["name"])
        history = tool_history(server.versions, first, changed)
        page = render(
            "tool.html.j2",
            template_dir,
            **assets,
            **context,
            tool=view,
            tool_changelog=tool_changelog(context["changelog"], views, view["name"], first),
            history=history,
            root="../../../",
        )
        files[f"{folder}/tools/{view['slug']}.html"] = page.encode("utf-8")
        name = tool.get("name")
        tool_json = tool_document(server, tool, history, cards.get(name), changes.get(name, []))
        files[f"{folder}/tools/{view['slug']}.json"] = json_bytes(
            spliced_json(tool_json, encoded, {id(tool_json)})
        )
    return files


def index_entry(row: dict[str, Any], *, template_dir: str | None = None) -> IndexEntry:
    """A server's part of the index, from its ``summary_row``."""
    member = compact_json({key: value for key, value in row.items() if key != "tier_rank"})
    return IndexEntry(row["name"], member, render("_index_row.html.j2", template_dir, row=row))


def render_index_files(entries: Iterable[IndexEntry], *, template_dir: str | None = None) -> dict[str, bytes]:
    """``index.html`` and ``index.json`` from the servers' :func:`index_entry`.

    Both are joined from the entries as they are, so a site build that keeps the entries of the
    servers that did not change neither encodes nor renders their rows again."""
    # Case-insensitively, as a reader scans a list (awslabs between Asana and Context7); ties by case.
    ordered = sorted(entries, key=lambda entry: (entry.name.casefold(), entry.name))
    # compact_json of the whole document, written member by member.
    members = ",".join(entry.json for entry in ordered)
    index = f'{{"format":{compact_json(SITE_FORMAT)},"servers":[{members}]}}'
    rows = json.loads(index)["servers"]
    html = render(
        "index.html.j2",
        template_dir,
        **_LINKED_ASSETS,
        rows=rows,
        rows_html=Markup("".join(entry.html for entry in ordered)),  # rendered from our templates
        chart=score_chart(row["overall"] for row in rows),
        root="",
    )
    return {"index.html": html.encode("utf-8"), "index.json": json_bytes(index)}


class SiteFiles(Mapping[str, bytes]):
    """The files of a static site, each server's rendered when one of its files is first read.

    Keys are relative POSIX paths made only of our slugs, iterated in sorted order; reading them in
    order renders each server once, and only one server's files are held at a time.
    """

    def __init__(self, servers: Iterable[ServerData], template_dir: str | None = None) -> None:
        self._template_dir = template_dir
        self._servers = sorted(servers, key=lambda server: server.name)
        self._slugs = server_slugs(server.name for server in self._servers)
        self._owner: dict[str, int] = {"index.html": -1, "index.json": -1, **dict.fromkeys(ASSETS, -2)}
        for position, server in enumerate(self._servers):
            folder = f"servers/{self._slugs[server.name]}"
            for name in ("index.html", "index.json"):
                self._owner[f"{folder}/{name}"] = position
            for slug in tool_slugs(server):
                self._owner[f"{folder}/tools/{slug}.html"] = position
                self._owner[f"{folder}/tools/{slug}.json"] = position
        self._keys = sorted(self._owner)
        self._index: dict[str, bytes] | None = None
        self._current: tuple[int, dict[str, bytes]] = (-2, {})

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __contains__(self, path: object) -> bool:
        return path in self._owner

    def __getitem__(self, path: str) -> bytes:
        position = self._owner[path]
        if position == -2:
            return site_assets(self._template_dir)[path]
        if position < 0:
            if self._index is None:
                entries = [
                    index_entry(
                        summary_row(server, self._slugs[server.name]), template_dir=self._template_dir
                    )
                    for server in self._servers
                ]
                self._index = render_index_files(entries, template_dir=self._template_dir)
            return self._index[path]
        if self._current[0] != position:
            server = self._servers[position]
            files = render_server_files(server, self._slugs[server.name], template_dir=self._template_dir)
            self._current = (position, files)
        return self._current[1][path]


def render_site(servers: Iterable[ServerData], *, template_dir: str | None = None) -> SiteFiles:
    """The whole directory: ``index.html``, a page per server and per tool, JSON beside each, and
    the stylesheet and script they all link to.

    A mapping of relative path to bytes, rendered lazily. ``mcpdex report`` instead calls
    ``render_server_files`` per server (in worker processes) and ``render_index_files`` once.
    """
    return SiteFiles(servers, template_dir)


def site_manifest(paths: Iterable[str]) -> bytes:
    """The manifest of a rendered site: its files' relative paths, sorted."""
    # json.dumps(indent=2) byte for byte, without its pure-Python encoder: a site lists 100,000s of paths.
    listed = ",\n    ".join(encode_basestring(path) for path in sorted(set(paths)))
    files = f"[\n    {listed}\n  ]" if listed else "[]"
    return f'{{\n  "format": {encode_basestring(MANIFEST_FORMAT)},\n  "files": {files}\n}}\n'.encode()


def stale_paths(manifest: bytes, produced: Iterable[str]) -> list[str]:
    """Files a previous render listed in ``manifest`` that this render no longer produces, sorted.

    Only relative paths without ``..`` or empty parts qualify, so a hand-edited manifest can never
    name anything outside the site folder, nor the manifest itself.
    """
    try:
        document = json.loads(manifest)
        listed = document["files"] if document.get("format") == MANIFEST_FORMAT else None
    except (ValueError, AttributeError, KeyError):
        listed = None
    if not isinstance(listed, list):
        raise UsageError(
            f"{MANIFEST_NAME} in the site folder is not an mcpdex manifest; "
            "delete it and render again (files of removed servers then stay until you delete them)"
        )
    keep = set(produced) | {MANIFEST_NAME}
    return sorted(
        {
            path
            for path in listed
            if isinstance(path, str)
            and path not in keep
            and not path.startswith("/")
            and "\\" not in path
            and all(part not in ("", ".", "..") for part in path.split("/"))
        }
    )


# The stylesheet and script of a site, one file each that every page links to (a page would
# otherwise repeat 10 KB of them), by path and by the template each is rendered from.
ASSETS = {"assets/site.css": "_site.css", "assets/site.js": "_site.js"}

# A site page allows only style and script from the site itself: its own two files.
_LINKED_ASSETS: dict[str, Any] = {
    "css": None,
    "script": None,
    "csp": (
        "default-src 'none'; img-src data:; base-uri 'none'; form-action 'none'; "
        "style-src 'self'; script-src 'self'"
    ),
}


def site_assets(template_dir: str | None = None) -> dict[str, bytes]:
    """The files every page of a site links to: its stylesheet and its script."""
    return {path: render(name, template_dir).encode("utf-8") for path, name in ASSETS.items()}


@cache
def _inline_assets(template_dir: str | None) -> dict[str, Any]:
    """Inline CSS and script with their CSP hashes, so a page on its own allows nothing else to run."""
    css = render("_site.css", template_dir)
    script = render("_site.js", template_dir)
    return {
        "css": Markup(css),  # our own stylesheet, not server data
        "script": Markup(script),  # our own script, not server data
        "csp": (
            "default-src 'none'; img-src data:; base-uri 'none'; form-action 'none'; "
            f"style-src '{_csp_hash(css)}'; script-src '{_csp_hash(script)}'"
        ),
    }


def _csp_hash(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")
