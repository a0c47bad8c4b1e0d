"""The registry as an HTTP service: ``create_app`` builds the Starlette app over the store, the diff,
the scorer and the pages.

Reads are public and carry ``ETag`` and ``Cache-Control``; writes need a bearer token from
``registry.storage.tokens``. Every endpoint is one row of ``registry.web.openapi.ENDPOINTS``, from which
both the routes and the OpenAPI document are built. Errors are JSON ``{"error": {"code", "message"}}``;
a database outage is a 503 with ``Retry-After``, never a half-written inspection (the store writes each
one in a transaction). A submission with an ``Idempotency-Key`` header is recorded once: a retry of it
gets the first answer. A body is checked whole before anything is written (registry.core.strict_json,
then the published schema).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
from starlette.applications import Starlette
from starlette.routing import Route

from registry.core.limits import Limits
from registry.storage.store import open_store
from registry.storage.tokens import open_tokens
from registry.web.errors import exception_handlers
from registry.web.openapi import ENDPOINTS, route_path
from registry.web.pages import Site, get_page
from registry.web.plumbing import MAX_BODY_BYTES, db
from registry.web.scorecards import Scores
from registry.web.summaries import Summaries


def create_app(
    registry_url: str | None = None,
    *,
    template_dir: str | None = None,
    max_body_bytes: int = MAX_BODY_BYTES,
    limits: Limits | None = None,
    score_poll_s: float = 5.0,
    score_budget_s: float = 300.0,
) -> Starlette:
    """The service over the registry at ``registry_url`` (the default registry when None).

    ``limits`` bound every submitted snapshot (the defaults when None). A background job scores
    each recorded version once, within ``score_budget_s`` seconds, looking for versions recorded
    elsewhere every ``score_poll_s`` seconds.
    """

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        store = await db(open_store, registry_url)
        app.state.store = store
        app.state.tokens = await db(open_tokens, store)
        try:
            async with anyio.create_task_group() as background:
                background.start_soon(app.state.scores.run, store, app.state.summaries.invalidate)
                try:
                    yield
                finally:
                    background.cancel_scope.cancel()
        finally:
            await db(store.close)

    routes = [Route(route_path(e), e.handler, methods=[e.method]) for e in ENDPOINTS]
    routes += [
        Route(path, get_page, methods=["GET"])
        for path in ("/", "/index.html", "/index.json", "/assets/{name}", "/servers/{rest:path}")
    ]
    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers=exception_handlers())
    app.state.max_body_bytes = max_body_bytes
    app.state.site = Site(template_dir)
    app.state.summaries = Summaries()
    app.state.scores = Scores(limits or Limits(), poll_s=score_poll_s, budget_s=score_budget_s)
    return app
