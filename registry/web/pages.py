"""The directory pages of ``mcpdex report``, served from memory: the site is rebuilt beside the one
being served for the servers that changed, and its pages are answered with the headers a page needs."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping

import anyio
from anyio import to_thread
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from registry.site.model import ServerData
from registry.site.server_data import server_data
from registry.site.writer import render_site
from registry.storage.records import ServerSummary
from registry.storage.store import Store
from registry.web.plumbing import READ_CACHE, cached
from registry.web.summaries import Summaries

# What a server's page depends on: its name, latest digest, version count, last inspection, and
# whether its latest version has a stored score.
RecordKey = tuple[str, str | None, int, str | None, bool]


class Site:
    """The pages of ``mcpdex report``, served from memory and rebuilt for the servers that changed.

    A server's judged record (diffs, stored scorecard) is kept until its latest version, version count,
    last inspection or stored score changes; rendered pages are kept in a bounded LRU. A rebuild is
    done beside the site being served, which is swapped for it when it is ready: a submission
    rebuilds before it answers, and while a rebuild runs, other pages are served from the last site
    instead of waiting for it (a tenant's huge submission holds up no one else's pages).
    """

    def __init__(self, template_dir: str | None, pages: int = 512) -> None:
        self._template_dir = template_dir
        self._key: tuple[RecordKey, ...] | None = None
        self._records: dict[str, tuple[RecordKey, ServerData]] = {}
        self._files: Mapping[str, bytes] = {}
        self._pages: OrderedDict[str, bytes] = OrderedDict()
        self._capacity = pages
        self._lock = anyio.Lock()  # one render at a time: the site keeps the last server's pages
        self._building = anyio.Lock()  # one rebuild at a time

    async def refresh(
        self, store: Store, summaries: list[ServerSummary], scored: set[str], *, wait: bool = True
    ) -> None:
        """Rebuild what changed; without ``wait``, leave it to a rebuild already running, if any.

        ``scored`` names the servers whose latest version has a stored score.
        """
        key = tuple(_record_key(s, scored) for s in summaries)
        if key == self._key or (not wait and self._key is not None and self._building.locked()):
            return
        async with self._building:
            if key != self._key:
                records, files = await to_thread.run_sync(self._rebuild, store, summaries, scored)
                async with self._lock:
                    self._records, self._files, self._key = records, files, key
                    self._pages.clear()

    async def page(
        self, store: Store, summaries: list[ServerSummary], scored: set[str], path: str
    ) -> bytes | None:
        """The page at ``path``, from the last site built (rebuilt first unless a rebuild is running)."""
        await self.refresh(store, summaries, scored, wait=False)
        async with self._lock:
            if path in self._pages:
                self._pages.move_to_end(path)
                return self._pages[path]
            if path not in self._files:
                return None
            body = await to_thread.run_sync(self._files.__getitem__, path)
            self._pages[path] = body
            if len(self._pages) > self._capacity:
                self._pages.popitem(last=False)
            return body

    def _rebuild(
        self, store: Store, summaries: list[ServerSummary], scored: set[str]
    ) -> tuple[dict[str, tuple[RecordKey, ServerData]], Mapping[str, bytes]]:
        records = {}
        for summary in summaries:
            key = _record_key(summary, scored)
            cached_record = self._records.get(summary.name)
            records[summary.name] = (
                cached_record
                if cached_record and cached_record[0] == key
                else (key, server_data(store, summary.name, stored_scores_only=True))
            )
        return records, render_site([data for _, data in records.values()], template_dir=self._template_dir)


def _record_key(summary: ServerSummary, scored: set[str]) -> RecordKey:
    # A server's page changes with its latest version, its versions, its last inspection, and when the
    # latest version's stored score arrives (pages never score: they show a version unscored until then).
    return (
        summary.name,
        summary.latest_digest,
        summary.version_count,
        summary.last_inspected_at,
        summary.name in scored,
    )


# By file extension; with nosniff, a browser applies a stylesheet or runs a script only when its type says so.
_MEDIA_TYPES = {
    "json": "application/json",
    "css": "text/css; charset=utf-8",
    "js": "text/javascript; charset=utf-8",
}

_PAGE_HEADERS = {
    # The pages carry their own CSP (style and script from the site only); these add what a meta tag cannot.
    "Content-Security-Policy": (
        "frame-ancestors 'none'; base-uri 'none'; form-action 'none'; object-src 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


async def site_inputs(request: Request) -> tuple[list[ServerSummary], set[str]]:
    """The server list, and the names of the servers whose latest version has a stored score."""
    summaries: Summaries = request.app.state.summaries
    listed = await summaries.get(request.app.state.store)
    return listed, {s.name for s in listed if summaries.brief(s.name, s.latest_digest) is not None}


async def get_page(request: Request) -> Response:
    rest = request.path_params.get("rest")
    if rest is None:
        path = request.url.path.lstrip("/") or "index.html"
    elif rest == "" or rest.endswith("/"):
        path = f"servers/{rest}index.html"
    else:
        path = f"servers/{rest}"
    if rest and not rest.endswith("/") and "." not in rest.rsplit("/", 1)[-1]:
        # A server folder without its slash: redirect, so the pages' relative links resolve.
        return RedirectResponse(request.url.path + "/", status_code=308)
    site: Site = request.app.state.site
    body = await site.page(request.app.state.store, *await site_inputs(request), path)
    if body is None:
        return HTMLResponse(
            '<!doctype html><title>Not found</title><p>No such page. <a href="/">The directory</a>.</p>',
            status_code=404,
            headers={"Cache-Control": "no-store", **_PAGE_HEADERS},
        )
    media_type = _MEDIA_TYPES.get(path.rpartition(".")[2], "text/html; charset=utf-8")
    response = cached(request, body, media_type, READ_CACHE)
    response.headers.update(_PAGE_HEADERS)
    return response
