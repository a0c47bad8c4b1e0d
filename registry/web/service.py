"""The registry as an HTTP service: a Starlette app over the store, the diff, the scorer and the pages.

Reads are public and carry ``ETag`` and ``Cache-Control``; writes need a bearer token from
``registry.storage.tokens``. Every endpoint is one row of ``ENDPOINTS``, from which both the routes and the
OpenAPI document are built. Errors are JSON ``{"error": {"code", "message"}}``; a database outage is a
503 with ``Retry-After``, never a half-written inspection (the store writes each one in a transaction).
A submission with an ``Idempotency-Key`` header is recorded once: a retry of it gets the first answer.
A body is checked whole before anything is written (registry.core.strict_json, then the published schema).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import logging
import re
import sqlite3
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Mapping
from concurrent.futures.process import BrokenProcessPool
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from functools import cache, partial
from importlib import metadata
from typing import Any

import anyio
import jsonschema
from anyio import to_thread
from sqlalchemy import exc as sa_exc
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from registry.core.errors import MCPDexError, NotFoundError, SnapshotError
from registry.core.limits import Limits
from registry.core.names import server_name_problem
from registry.core.snapshot import parse_snapshot, server_version, snapshot_schema
from registry.core.strict_json import MAX_JSON_DEPTH, JSONValueError, check_json, finite_or_none
from registry.core.timestamps import utc_now
from registry.diffing.changelog import build_changelog
from registry.gating.gate import evaluate
from registry.storage.scores import ScoringProcess, score_and_store, scorer_key
from registry.storage.store import RecordRejected, SubmissionKey, SubmissionKeyReused, utc_timestamp
from registry.storage.tokens import TokenRecord, TokenRejected, TokenStore, open_tokens

log = logging.getLogger("mcpdex.serve")
log_scores = logging.getLogger("mcpdex.serve.scores")

MAX_BODY_BYTES = 4 * 1024 * 1024

_MAX_LABEL = 128
# Visible ASCII only: a UUID fits many times over, and the key is stored and compared as sent.
_IDEMPOTENCY_KEY = re.compile(r"^[\x21-\x7e]{1,128}$")
_TIERS = frozenset("ABCDF")
_FAIL_ON = frozenset({"breaking", "warning", "info"})

READ_CACHE = "public, max-age=30"
VERSION_CACHE = "public, max-age=300"

# The body of POST .../inspections; a bare snapshot document is accepted as shorthand for ok=true.
SUBMISSION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "ok": {"type": "boolean"},
        "snapshot": {"type": ["object", "null"]},
        "error": {"type": ["string", "null"], "maxLength": 10000},
        "startedAt": {"type": "string", "format": "date-time", "maxLength": 64},
        "durationS": {"type": "number", "minimum": 0, "maximum": 86400},
    },
    "required": ["ok"],
}
ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "error": {
            "type": "object",
            "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
            "required": ["code", "message"],
        }
    },
    "required": ["error"],
}


class ApiError(Exception):
    """An expected failure answered as ``{"error": {"code", "message"}}`` with ``status``."""

    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.headers = status, code, message, headers or {}


@cache
def _snapshot_validator() -> jsonschema.protocols.Validator:
    schema = snapshot_schema()
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


@cache
def _submission_validator() -> jsonschema.protocols.Validator:
    return jsonschema.Draft202012Validator(SUBMISSION_SCHEMA, format_checker=jsonschema.FormatChecker())


def _first_error(validator: jsonschema.protocols.Validator, document: Any, what: str, code: str) -> None:
    error = jsonschema.exceptions.best_match(validator.iter_errors(document))
    if error is not None:
        where = "/".join(str(part) for part in error.absolute_path) or "(root)"
        raise ApiError(422, code, f"{what} field {where}: {error.message[:300]}{_fix_for(error)}")


def _fix_for(error: jsonschema.exceptions.ValidationError) -> str:
    """What to send instead, for the schema keywords whose own message does not say it."""
    if error.validator == "format" and error.validator_value == "date-time":
        return "; send an RFC 3339 time such as 2026-11-29T18:00:00Z"
    if error.validator == "maxLength":
        return f"; send at most {error.validator_value} characters"
    return ""


def check_server_name(name: str) -> str:
    """``name`` if a server may be recorded under it; ApiError 400 saying what is allowed otherwise."""
    problem = server_name_problem(name)
    if problem is not None:
        raise ApiError(400, "invalid_server_name", problem)
    return name


def _refuse_nul(value: Any, what: str, code: str) -> None:
    # These strings become database text, and PostgreSQL text cannot hold NUL.
    if isinstance(value, str) and "\x00" in value:
        raise ApiError(422, code, f"{what} contains a NUL character; remove it")


def _refuse_unstorable(document: Any, what: str, max_depth: int | None = MAX_JSON_DEPTH) -> None:
    """422 naming the first non-finite number, lone surrogate or too-deep nesting in ``document``."""
    try:
        check_json(document, max_depth=max_depth, what=what)
    except JSONValueError as exc:
        raise ApiError(422, exc.code, exc.message) from None


def _check_snapshot(document: Any) -> dict[str, Any]:
    """Validate a submitted snapshot against the published schema and the format's own checks."""
    if not isinstance(document, dict):
        raise ApiError(422, "invalid_snapshot", "the snapshot must be a JSON object in the mcpdex format")
    # Nesting was checked with the limits (check_limits), before this.
    _first_error(_snapshot_validator(), document, "snapshot", "invalid_snapshot")
    try:
        snapshot = parse_snapshot(json.dumps(document), origin="snapshot")
    except SnapshotError as exc:
        raise ApiError(422, "invalid_snapshot", str(exc)) from None
    for key, value in (snapshot.get("server") or {}).items():
        _refuse_nul(value, f"snapshot field server/{key}", "invalid_snapshot")
    label = server_version(snapshot)
    if len(label) > _MAX_LABEL or not label.isprintable():
        raise ApiError(
            422,
            "invalid_snapshot",
            f"snapshot version label must be printable, at most {_MAX_LABEL} characters",
        )
    return dict(snapshot)


# ---------------------------------------------------------------- the request/response plumbing


async def _db(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Run a blocking store call in a worker thread."""
    return await to_thread.run_sync(partial(function, *args, **kwargs))


def _is_database_outage(exc: BaseException) -> bool:
    """Whether ``exc`` (or what it wraps) says the database cannot be reached or is busy, not that a
    query was wrong; the store reads SQLite through sqlite3 directly, hence its error too."""
    seen: BaseException | None = exc
    while seen is not None:
        outage = (
            sa_exc.OperationalError,
            sa_exc.InterfaceError,
            sa_exc.TimeoutError,
            sqlite3.OperationalError,
        )
        if isinstance(seen, outage):
            return True
        if isinstance(seen, sa_exc.DBAPIError) and seen.connection_invalidated:
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _error_response(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> Response:
    body = {"error": {"code": code, "message": message}}
    return JSONResponse(body, status_code=status, headers={"Cache-Control": "no-store", **(headers or {})})


def _etag(body: bytes) -> str:
    return '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def _matches(if_none_match: str | None, etag: str) -> bool:
    if not if_none_match:
        return False
    tags = {tag.strip().removeprefix("W/") for tag in if_none_match.split(",")}
    return "*" in tags or etag in tags


def cached(request: Request, body: bytes, media_type: str, cache_control: str) -> Response:
    """A read response with a strong ETag; 304 when the client already holds this body."""
    etag = _etag(body)
    headers = {"ETag": etag, "Cache-Control": cache_control}
    if _matches(request.headers.get("if-none-match"), etag):
        return Response(status_code=304, headers=headers)
    return Response(body, media_type=media_type, headers=headers)


def _json_bytes(payload: Any) -> bytes:
    try:
        text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except ValueError:
        # A NaN stored before submissions were checked: JSON has no such number, so it is served as null.
        text = json.dumps(finite_or_none(payload), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return text.encode("utf-8")


async def read_json(request: Request) -> Any:
    """The request body parsed as JSON, refused past the size limit or when it is not JSON."""
    limit: int = request.app.state.max_body_bytes
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type != "application/json":
        raise ApiError(
            415, "unsupported_media_type", "send the body as JSON with Content-Type: application/json"
        )
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > limit):
        raise ApiError(413, "body_too_large", f"the request body is over the limit of {limit} bytes")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise ApiError(413, "body_too_large", f"the request body is over the limit of {limit} bytes")
        chunks.append(chunk)
    try:
        body = json.loads(b"".join(chunks))
    except RecursionError:
        raise ApiError(
            422,
            "nesting_too_deep",
            f"the request body nests objects and arrays far deeper than {MAX_JSON_DEPTH} levels: flatten it",
        ) from None
    except ValueError as exc:
        raise ApiError(400, "invalid_json", f"the request body is not valid JSON ({exc})"[:300]) from None
    # Numbers and text anywhere in the body; nesting is checked on the snapshot (check_limits).
    _refuse_unstorable(body, "body field", max_depth=None)
    return body


async def require_token(request: Request, server: str) -> TokenRecord:
    """The bearer token of the request, if it may write to ``server``; 401/403 otherwise."""
    challenge = {"WWW-Authenticate": 'Bearer realm="mcpdex"'}
    scheme, _, presented = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not presented.strip():
        raise ApiError(
            401,
            "token_missing",
            "writes need 'Authorization: Bearer <token>'; create one with `mcpdex token create`",
            challenge,
        )
    tokens: TokenStore = request.app.state.tokens
    try:
        token = await _db(tokens.authenticate, presented.strip())
    except TokenRejected as exc:
        raise ApiError(401, f"token_{exc.reason}", str(exc), challenge) from None
    if not token.allows(server):
        raise ApiError(
            403,
            "token_out_of_scope",
            f"token {token.name!r} may write to servers matching {token.scope!r}, not {server!r}",
        )
    await _db(tokens.touch, token)
    return token


# ---------------------------------------------------------------- limits and stored scores


def check_limits(document: Any, limits: Limits) -> None:
    """422 naming the first field of a submitted snapshot nested past what any database can hold back
    (``nesting_too_deep``), then the first past a configured limit (``over_limit``).

    Checked before the published schema, whose check costs far more per tool than these walks.
    """
    if isinstance(document, dict):
        _refuse_unstorable(document, "snapshot field")
        violation = next(iter(limits.violations(document)), None)
        if violation is not None:
            raise ApiError(422, "over_limit", f"snapshot field {violation.message}; see GET /api/limits")


class _Scores:
    """Each recorded version is scored once and its scorecard stored with it; requests only read.

    A submission's version of at most ``in_thread_tools`` tools is scored in a worker thread before
    the answer (milliseconds). Bigger ones are scored in a child process, one at a time: first the
    versions this process's submissions recorded (each submission waits up to ``answer_wait_s`` for
    its score), then every version recorded without a score (by another process or the CLI),
    newest first, looked for every ``poll_s``. A job past ``budget_s`` is stopped, and the version
    noted as not scored. A read of a version not scored yet is a 503 ``score_pending``.
    """

    def __init__(
        self,
        limits: Limits,
        *,
        poll_s: float = 5.0,
        budget_s: float = 300.0,
        answer_wait_s: float = 10.0,
        in_thread_tools: int = 200,
        cards: int = 16,
    ) -> None:
        self.limits = limits
        self._in_thread_tools = in_thread_tools
        self._poll_s, self._budget_s, self._answer_wait_s = poll_s, budget_s, answer_wait_s
        self._process = ScoringProcess()
        self._queue: deque[tuple[str, str]] = deque()
        self._done: dict[tuple[str, str], anyio.Event] = {}
        self._wake = anyio.Event()
        # Parsed stored scorecards by digest: a digest's scorecard never changes, so entries never go stale.
        self._cards: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._size = cards

    async def score(self, store: Any, server: str, digest: str, snapshot: dict[str, Any]) -> None:
        """Score a version just recorded: a small one at once, a big one first in the queue, waited for
        a little."""
        if len(snapshot.get("tools") or []) <= self._in_thread_tools:
            if await _db(store.stored_score, server, digest, scorer_key()) is None:
                await to_thread.run_sync(score_and_store, store, server, digest, snapshot, self.limits)
            return
        key = (server, digest)
        done = self._done.setdefault(key, anyio.Event())
        self._queue.append(key)
        self._wake.set()
        with anyio.move_on_after(self._answer_wait_s):
            await done.wait()

    async def scorecard(self, store: Any, server: str, digest: str) -> dict[str, Any]:
        """The stored scorecard of ``server``'s version ``digest``; ApiError while there is none."""
        if digest in self._cards:
            self._cards.move_to_end(digest)
            return self._cards[digest]
        stored = await _db(store.stored_score, server, digest, scorer_key())
        if stored is None:
            self._wake.set()
            raise ApiError(
                503,
                "score_pending",
                f"the scorecard of this version of {server!r} is being computed; retry shortly",
                {"Retry-After": "2"},
            )
        if stored.scorecard is None:
            raise ApiError(422, "not_scored", f"this version of {server!r} is {stored.note}")
        self._cards[digest] = stored.scorecard
        if len(self._cards) > self._size:
            self._cards.popitem(last=False)
        return stored.scorecard

    async def run(self, store: Any, scored: Callable[[], None]) -> None:
        """The background job: forever, score what is queued, then what is unscored, else wait."""
        try:
            while True:
                if self._queue:
                    batch = [self._queue.popleft()]
                else:
                    try:
                        batch = await _db(store.unscored_versions, scorer_key(), 20)
                    except Exception as exc:  # a database outage: look again on the next pass
                        log_scores.warning("cannot list unscored versions: %s", _first_line(exc))
                        batch = []
                for server, digest in batch:
                    await self._score_one(store, server, digest)
                    scored()
                    done = self._done.pop((server, digest), None)
                    if done is not None:
                        done.set()
                    if self._queue:
                        break  # a submission's version goes first
                if not batch:
                    with anyio.move_on_after(self._poll_s):
                        await self._wake.wait()
                    self._wake = anyio.Event()
        finally:
            self._process.kill()

    async def _score_one(self, store: Any, server: str, digest: str) -> None:
        job = self._process.submit(store.url, server, digest, self.limits)
        try:
            await to_thread.run_sync(job.result, self._budget_s, abandon_on_cancel=True)
            return
        except TimeoutError:
            self._process.kill()
            note = f"not scored: scoring took longer than {self._budget_s:g} s"
        except BrokenProcessPool:
            self._process.kill()
            note = "not scored: the scoring process died (out of memory?)"
        except MCPDexError as exc:
            log_scores.warning("scoring %s %s: %s", server, digest, _first_line(exc))
            return  # the version is gone or the database is away: looked at again on the next pass
        except Exception as exc:
            if _is_database_outage(exc):
                return
            note = f"not scored: the scorer failed ({type(exc).__name__})"
        # Noted once, so the same version is not tried again on every pass.
        log_scores.error("%s %s %s", server, digest, note)
        with contextlib.suppress(Exception):
            await _db(
                store.save_score,
                server,
                digest,
                scorer_key(),
                scorecard=None,
                tier=None,
                overall=None,
                note=note,
            )


def _first_line(exc: BaseException) -> str:
    return (str(exc).splitlines() or [type(exc).__name__])[0][:200]


# ---------------------------------------------------------------- the server list, briefly cached


class _Summaries:
    """The store's server list and stored score briefs, reused for ``ttl_s`` seconds: the list and
    every page need them. Past ``ttl_s`` one request refreshes them while the others keep the
    previous ones; this process's own writes make the next request wait for fresh ones, so other
    processes' writes show within about ``ttl_s``."""

    def __init__(self, ttl_s: float = 1.0) -> None:
        self._ttl_s = ttl_s
        self._value: list[Any] | None = None
        # The stored tier and overall score of each scored version, by (server, digest).
        self.briefs: dict[tuple[str, str], tuple[str, float]] = {}
        self._at = 0.0
        self._stale = True
        self._refreshing = False
        self._lock = anyio.Lock()

    async def get(self, store: Any) -> list[Any]:
        if self._value is not None and not self._stale and time.monotonic() - self._at > self._ttl_s:
            if not self._refreshing:
                self._refreshing = True
                try:
                    await self._refresh(store)
                finally:
                    self._refreshing = False
            return self._value
        if self._value is None or self._stale:
            async with self._lock:
                if self._value is None or self._stale:
                    await self._refresh(store)
        return self._value

    async def _refresh(self, store: Any) -> None:
        at = time.monotonic()
        self._stale = False
        value = await _db(store.servers)
        self.briefs = await _db(store.score_briefs, scorer_key())
        self._value, self._at = value, at

    def brief(self, server: str, digest: str | None) -> dict[str, Any] | None:
        """The stored tier and overall score of ``server``'s version ``digest``; None while unscored."""
        known = self.briefs.get((server, digest or ""))
        return None if known is None else {"tier": known[0], "overall": known[1]}

    def invalidate(self) -> None:
        self._stale = True


# ---------------------------------------------------------------- the directory pages


class _Site:
    """The pages of ``mcpdex report``, served from memory and rebuilt for the servers that changed.

    A server's judged record (diffs, stored scorecard) is kept until its latest version, version count,
    last inspection or stored score changes; rendered pages are kept in a bounded LRU. A rebuild is
    done beside the site being served, which is swapped for it when it is ready: a submission
    rebuilds before it answers, and while a rebuild runs, other pages are served from the last site
    instead of waiting for it (a tenant's huge submission holds up no one else's pages).
    """

    def __init__(self, template_dir: str | None, pages: int = 512) -> None:
        self._template_dir = template_dir
        self._key: tuple[Any, ...] | None = None
        self._records: dict[str, tuple[Any, Any]] = {}
        self._files: Mapping[str, bytes] = {}
        self._pages: OrderedDict[str, bytes] = OrderedDict()
        self._capacity = pages
        self._lock = anyio.Lock()  # one render at a time: the site keeps the last server's pages
        self._building = anyio.Lock()  # one rebuild at a time

    async def refresh(self, store: Any, summaries: list[Any], scored: set[str], *, wait: bool = True) -> None:
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

    async def page(self, store: Any, summaries: list[Any], scored: set[str], path: str) -> bytes | None:
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
        self, store: Any, summaries: list[Any], scored: set[str]
    ) -> tuple[dict[str, tuple[Any, Any]], Mapping[str, bytes]]:
        from registry.site.server_data import server_data
        from registry.site.render import render_site

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


def _record_key(summary: Any, scored: set[str]) -> tuple[Any, ...]:
    # A server's page changes with its latest version, its versions, its last inspection, and when the
    # latest version's stored score arrives (pages never score: they show a version unscored until then).
    return (
        summary.name,
        summary.latest_digest,
        summary.version_count,
        summary.last_inspected_at,
        summary.name in scored,
    )


_PAGE_HEADERS = {
    # The pages carry their own CSP (hashes of the inline style and script); these add what a meta tag cannot.
    "Content-Security-Policy": (
        "frame-ancestors 'none'; base-uri 'none'; form-action 'none'; object-src 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


async def _site_inputs(request: Request) -> tuple[list[Any], set[str]]:
    """The server list, and the names of the servers whose latest version has a stored score."""
    summaries: _Summaries = request.app.state.summaries
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
    store = request.app.state.store
    body = await request.app.state.site.page(store, *await _site_inputs(request), path)
    if body is None:
        return HTMLResponse(
            '<!doctype html><title>Not found</title><p>No such page. <a href="/">The directory</a>.</p>',
            status_code=404,
            headers={"Cache-Control": "no-store", **_PAGE_HEADERS},
        )
    media_type = "application/json" if path.endswith(".json") else "text/html; charset=utf-8"
    response = cached(request, body, media_type, READ_CACHE)
    response.headers.update(_PAGE_HEADERS)
    return response


# ---------------------------------------------------------------- handlers


def _looked_up(request: Request, key: str) -> Any:
    """A name or version from the path (or the query) to look up; one that cannot be stored is not found.

    PostgreSQL text cannot hold NUL, and no name or label is longer than the columns, so such
    values are answered here instead of reaching the database.
    """
    value = request.path_params.get(key, request.query_params.get(key))
    if value is not None and (len(value) > 512 or not value.isprintable()):
        raise NotFoundError(key)
    return value


def _int_param(request: Request, name: str, default: int, low: int, high: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    # ASCII digits only: str.isdigit also accepts '²' (which int() refuses) and '٣' (which int() reads as 3).
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 9 or not low <= int(raw) <= high:
        raise ApiError(
            400, "invalid_parameter", f"query parameter {name!r} must be an integer from {low} to {high}"
        )
    return int(raw)


def _summary_dict(summary: Any) -> dict[str, Any]:
    return dataclasses.asdict(summary)


async def list_servers(request: Request) -> Response:
    page = _int_param(request, "page", 1, 1, 1_000_000)
    per_page = _int_param(request, "per_page", 50, 1, 200)
    query = request.query_params.get("q", "").strip().lower()
    if len(query) > 200:
        raise ApiError(400, "invalid_parameter", "query parameter 'q' is at most 200 characters")
    tiers = {t.strip().upper() for t in request.query_params.get("tier", "").split(",") if t.strip()}
    if not tiers <= _TIERS:
        raise ApiError(400, "invalid_parameter", "query parameter 'tier' takes letters from A, B, C, D, F")
    cache: _Summaries = request.app.state.summaries
    summaries = await cache.get(request.app.state.store)
    if query:
        summaries = [s for s in summaries if query in s.name.lower() or query in (s.title or "").lower()]
    # Scores are read as stored with each version (None while a version waits for its scoring).
    items = []
    for summary in summaries:
        brief = cache.brief(summary.name, summary.latest_digest)
        if not tiers or (brief and brief["tier"] in tiers):
            items.append(_summary_dict(summary) | {"score": brief})
    total = len(items)
    items = items[(page - 1) * per_page : page * per_page]
    more = page * per_page < total
    payload = {
        "servers": items,
        "page": page,
        "per_page": per_page,
        "total": total,
        "next_page": page + 1 if more else None,
    }
    return cached(request, _json_bytes(payload), "application/json", READ_CACHE)


async def get_server(request: Request) -> Response:
    name = _looked_up(request, "name")
    store = request.app.state.store
    versions = await _db(store.versions, name)
    inspections = await _db(store.inspections, name, 20)
    latest = versions[-1] if versions else None
    last = inspections[0] if inspections else None
    payload = {
        "name": name,
        "title": ((latest.snapshot.get("server") or {}).get("title") if latest else None),
        "latest_version": latest.label if latest else None,
        "latest_digest": latest.digest if latest else None,
        "version_count": len(versions),
        "last_inspected_at": last.at if last else None,
        "last_ok": last.ok if last else None,
        "last_error": last.error if last else None,
        "score": await _stored_brief(request, name, latest.digest if latest else None),
        "versions": [_version_dict(v) for v in reversed(versions)],
        "inspections": [dataclasses.asdict(i) for i in inspections],
    }
    return cached(request, _json_bytes(payload), "application/json", READ_CACHE)


async def _stored_brief(request: Request, server: str, digest: str | None) -> dict[str, Any] | None:
    summaries: _Summaries = request.app.state.summaries
    await summaries.get(request.app.state.store)
    return summaries.brief(server, digest)


def _version_dict(version: Any) -> dict[str, Any]:
    # Not dataclasses.asdict: it deep-copies the snapshot too, recursively, only for it to be dropped.
    return {f.name: getattr(version, f.name) for f in dataclasses.fields(version) if f.name != "snapshot"}


async def list_versions(request: Request) -> Response:
    name = _looked_up(request, "name")
    versions = await _db(request.app.state.store.versions, name)
    payload = {"server": name, "versions": [_version_dict(v) for v in versions]}
    return cached(request, _json_bytes(payload), "application/json", READ_CACHE)


async def get_version(request: Request) -> Response:
    name, version = _looked_up(request, "name"), _looked_up(request, "version")
    snapshot = await _db(request.app.state.store.snapshot, name, version)
    return cached(request, _json_bytes(snapshot), "application/json", VERSION_CACHE)


async def get_latest_snapshot(request: Request) -> Response:
    snapshot = await _db(request.app.state.store.snapshot, _looked_up(request, "name"))
    return cached(request, _json_bytes(snapshot), "application/json", READ_CACHE)


async def get_changelog(request: Request) -> Response:
    name = _looked_up(request, "name")
    versions = await _db(request.app.state.store.versions, name)
    changelog = await to_thread.run_sync(build_changelog, name, versions)
    return cached(request, _json_bytes(changelog), "application/json", READ_CACHE)


async def get_score(request: Request) -> Response:
    name = _looked_up(request, "name")
    store = request.app.state.store
    digest = await _db(store.version_digest, name, _looked_up(request, "version"))
    scorecard = await request.app.state.scores.scorecard(store, name, digest)
    return cached(request, _json_bytes(scorecard), "application/json", READ_CACHE)


async def submit_inspection(request: Request) -> Response:
    name = check_server_name(request.path_params["name"])
    token = await require_token(request, name)
    body = await read_json(request)
    if isinstance(body, dict) and "format" in body:
        body = {"ok": True, "snapshot": body}
    if not isinstance(body, dict):
        raise ApiError(422, "invalid_submission", "the body must be a snapshot or {ok, snapshot, error, ...}")
    check_limits(body.get("snapshot"), request.app.state.scores.limits)
    _first_error(_submission_validator(), body, "submission", "invalid_submission")
    snapshot = _check_snapshot(body.get("snapshot")) if body["ok"] else None
    if body["ok"] and body.get("error"):
        raise ApiError(422, "invalid_submission", "an ok inspection carries no 'error'")
    if not body["ok"] and (body.get("snapshot") is not None or not body.get("error")):
        raise ApiError(422, "invalid_submission", "a failed inspection carries its 'error' and no 'snapshot'")
    _refuse_nul(body.get("error"), "submission field error", "invalid_submission")
    key = _submission_key(request, name, body, token)
    try:
        started_at = _started_at(body, snapshot)
        recorded = await _db(
            request.app.state.store.record_inspection,
            snapshot,
            server=name,
            ok=bool(body["ok"]),
            error=body.get("error"),
            started_at=started_at,
            duration_s=float(body.get("durationS", 0.0)),
            key=key,
        )
    except SubmissionKeyReused as exc:
        raise ApiError(422, "idempotency_key_reused", str(exc)) from None
    except RecordRejected as exc:
        raise ApiError(422, "invalid_submission", str(exc)) from None
    request.app.state.summaries.invalidate()
    try:
        if snapshot is not None and recorded.digest and not recorded.replayed:
            # Scored once, at write time, within the limits checked above; lists and pages read it.
            await request.app.state.scores.score(request.app.state.store, name, recorded.digest, snapshot)
        # The submitter pays for the pages its submission changed, not the next reader.
        await request.app.state.site.refresh(request.app.state.store, *await _site_inputs(request))
    except Exception as exc:
        # The inspection is committed: its answer must say so (the score and pages follow later).
        if not _is_database_outage(exc):
            raise
        log.warning("after recording %s: %s", name, _first_line(exc))
    answer = dataclasses.asdict(recorded)
    headers = {"Cache-Control": "no-store"}
    if answer.pop("replayed"):
        headers["Idempotent-Replayed"] = "true"
    return JSONResponse(answer, status_code=201 if recorded.new_version else 200, headers=headers)


def _started_at(body: dict[str, Any], snapshot: dict[str, Any] | None) -> str:
    """When the inspection started, in UTC, from ``startedAt`` or else the snapshot's ``capturedAt``."""
    if body.get("startedAt"):
        return utc_timestamp(body["startedAt"], "submission field startedAt")
    if (snapshot or {}).get("capturedAt"):
        return utc_timestamp(snapshot["capturedAt"], "snapshot field capturedAt")  # type: ignore[index]
    return utc_now()


def _submission_key(
    request: Request, server: str, body: dict[str, Any], token: TokenRecord
) -> SubmissionKey | None:
    """The request's ``Idempotency-Key``, with a fingerprint of the server and the body as sent; the key
    is the token's own, so tenants sending the same key (``ci-build-1234``) never meet."""
    key = request.headers.get("idempotency-key")
    if key is None:
        return None
    if not _IDEMPOTENCY_KEY.match(key):
        raise ApiError(
            400,
            "invalid_idempotency_key",
            "header Idempotency-Key must be 1 to 128 visible ASCII characters (a UUID, say)",
        )
    fingerprint = "sha256:" + hashlib.sha256(_json_bytes({"server": server, "body": body})).hexdigest()
    return SubmissionKey(key, fingerprint, token.id)


async def check_compatibility(request: Request) -> Response:
    name = _looked_up(request, "name")
    fail_on = request.query_params.get("fail_on", "breaking")
    if fail_on not in _FAIL_ON:
        raise ApiError(
            400, "invalid_parameter", "query parameter 'fail_on' is one of breaking, warning, info"
        )
    body = await read_json(request)
    check_limits(body, request.app.state.scores.limits)
    candidate = _check_snapshot(body)
    base = await _db(request.app.state.store.snapshot, name, _looked_up(request, "version"))
    past = next(iter(request.app.state.scores.limits.violations(base)), None)
    if past is not None:
        # A version stored before the limits were enforced: the diff is only bounded within them.
        raise ApiError(
            422,
            "over_limit",
            f"the stored version of {name!r} is past the limits ({past.message}), so it cannot be "
            "compared; record a version within them (GET /api/limits)",
        )
    # The same schema judgement as `mcpdex check --no-quality`: compatible means that gate would pass.
    report = await to_thread.run_sync(
        partial(
            evaluate, base, candidate, fail_on=fail_on, old_origin=f"registry:{name}", new_origin="candidate"
        )
    )
    payload = {"server": name, "compatible": report["passed"], **report}
    # _json_bytes, not JSONResponse: a base stored before numbers were checked may quote a NaN.
    return Response(
        _json_bytes(payload), media_type="application/json", headers={"Cache-Control": "no-store"}
    )


async def get_limits(request: Request) -> Response:
    return cached(
        request, _json_bytes(request.app.state.scores.limits.as_dict()), "application/json", READ_CACHE
    )


async def get_openapi(request: Request) -> Response:
    return cached(request, _json_bytes(openapi_document()), "application/json", "public, max-age=3600")


async def get_snapshot_schema(request: Request) -> Response:
    return cached(request, _json_bytes(snapshot_schema()), "application/schema+json", "public, max-age=3600")


# ---------------------------------------------------------------- the endpoint table


@dataclass(frozen=True)
class Param:
    name: str
    where: str  # "path" | "query" | "header"
    description: str
    schema: dict[str, Any] = field(default_factory=lambda: {"type": "string"})


@dataclass(frozen=True)
class Endpoint:
    method: str
    path: str
    operation_id: str
    summary: str
    handler: Callable[[Request], Awaitable[Response]]
    params: tuple[Param, ...] = ()
    body: str | None = None  # a component schema name
    responses: dict[int, str] = field(default_factory=dict)
    auth: bool = False


_NAME = Param("name", "path", "The server's registry name; may contain '/' between segments.")
_VERSION_Q = Param("version", "query", "A recorded version label; the latest version when absent.")
_OK = {200: "OK", 304: "Not modified (If-None-Match)"}
_NOT_FOUND = {404: "No such server or version", 503: "The registry database is unavailable"}

ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint(
        "GET",
        "/api/servers",
        "listServers",
        "List servers by name, paginated; filter by name or tier.",
        list_servers,
        (
            Param("q", "query", "Case-insensitive substring of the name or title."),
            Param("tier", "query", "Comma-separated tiers (A,B,C,D,F) of the latest version's score."),
            Param("page", "query", "Page number, from 1.", {"type": "integer", "minimum": 1}),
            Param(
                "per_page", "query", "Servers per page.", {"type": "integer", "minimum": 1, "maximum": 200}
            ),
        ),
        responses={**_OK, 400: "Bad query parameter", 503: _NOT_FOUND[503]},
    ),
    Endpoint(
        "GET",
        "/api/servers/{name}/versions",
        "listVersions",
        "The recorded versions, oldest first.",
        list_versions,
        (_NAME,),
        responses={**_OK, **_NOT_FOUND},
    ),
    Endpoint(
        "GET",
        "/api/servers/{name}/versions/{version}",
        "getVersion",
        "The snapshot of one version.",
        get_version,
        (_NAME, Param("version", "path", "The version label.")),
        responses={**_OK, **_NOT_FOUND},
    ),
    Endpoint(
        "GET",
        "/api/servers/{name}/snapshot",
        "getLatestSnapshot",
        "The snapshot of the latest version.",
        get_latest_snapshot,
        (_NAME,),
        responses={**_OK, **_NOT_FOUND},
    ),
    Endpoint(
        "GET",
        "/api/servers/{name}/changelog",
        "getChangelog",
        "The schema changelog across all versions.",
        get_changelog,
        (_NAME,),
        responses={**_OK, **_NOT_FOUND},
    ),
    Endpoint(
        "GET",
        "/api/servers/{name}/score",
        "getScore",
        "The scorecard of the latest (or a named) version.",
        get_score,
        (_NAME, _VERSION_Q),
        responses={
            **_OK,
            **_NOT_FOUND,
            422: "The version was recorded past the limits and is not scored",
            503: "The database is unavailable, or the version's scoring has not finished (Retry-After)",
        },
    ),
    Endpoint(
        "POST",
        "/api/servers/{name}/inspections",
        "submitInspection",
        "Record an inspection: a snapshot (answers whether it made a new version) or a failure.",
        submit_inspection,
        (
            _NAME,
            Param(
                "Idempotency-Key",
                "header",
                "A key for this submission, kept across its retries (a UUID): a key already recorded "
                "answers the first result again, with Idempotent-Replayed: true, and records nothing.",
                {"type": "string", "minLength": 1, "maxLength": 128, "pattern": "^[\\x21-\\x7e]+$"},
            ),
        ),
        body="Submission",
        responses={
            200: "Recorded; the version was already known",
            201: "Recorded; a new version",
            400: "Malformed JSON, server name or Idempotency-Key",
            401: "Missing, unknown or revoked token",
            403: "The token's scope does not cover this server",
            413: "Body over the size limit",
            415: "Body is not JSON",
            422: "The snapshot or submission does not validate (a non-finite number, a lone surrogate or "
            f"nesting past {MAX_JSON_DEPTH} levels included), goes past a limit (GET /api/limits), or this "
            "token used the Idempotency-Key for another submission",
            503: _NOT_FOUND[503],
        },
        auth=True,
    ),
    Endpoint(
        "POST",
        "/api/servers/{name}/compatibility",
        "checkCompatibility",
        "Diff a candidate snapshot against the latest (or a named) version without storing it.",
        check_compatibility,
        (
            _NAME,
            _VERSION_Q,
            Param(
                "fail_on",
                "query",
                "The lowest change level that makes the candidate incompatible (default breaking).",
                {"type": "string", "enum": ["breaking", "warning", "info"]},
            ),
        ),
        body="Snapshot",
        responses={
            200: "The changes and the verdict",
            400: "Malformed JSON",
            413: "Body over the size limit",
            422: "The snapshot does not validate (a non-finite number, a lone surrogate or nesting past "
            f"{MAX_JSON_DEPTH} levels included) or goes past a limit (GET /api/limits)",
            **_NOT_FOUND,
        },
    ),
    Endpoint(
        "GET",
        "/api/servers/{name}",
        "getServer",
        "A server: summary, versions, recent inspections, score.",
        get_server,
        (_NAME,),
        responses={**_OK, **_NOT_FOUND},
    ),
    Endpoint(
        "GET",
        "/api/schema/snapshot.json",
        "getSnapshotSchema",
        "The JSON Schema submissions are validated against.",
        get_snapshot_schema,
        responses=_OK,
    ),
    Endpoint(
        "GET",
        "/api/limits",
        "getLimits",
        "The per-server limits submissions and compatibility checks are held to.",
        get_limits,
        responses=_OK,
    ),
    Endpoint(
        "GET",
        "/api/openapi.json",
        "getOpenAPI",
        "The OpenAPI description of this API.",
        get_openapi,
        responses=_OK,
    ),
)


def _route_path(endpoint: Endpoint) -> str:
    # Names may hold '/', so the name is a path parameter; routes with a suffix come before the bare one.
    return endpoint.path.replace("{name}", "{name:path}")


@cache
def openapi_document() -> dict[str, Any]:
    """The OpenAPI 3.1 description of ``ENDPOINTS``."""
    paths: dict[str, dict[str, Any]] = {}
    for endpoint in ENDPOINTS:
        operation: dict[str, Any] = {
            "operationId": endpoint.operation_id,
            "summary": endpoint.summary,
            "parameters": [
                {
                    "name": p.name,
                    "in": p.where,
                    "required": p.where == "path",
                    "description": p.description,
                    "schema": p.schema,
                }
                for p in endpoint.params
            ],
            "responses": {
                str(status): {
                    "description": text,
                    **(
                        {}
                        if (status in (200, 201) and endpoint.method == "GET") or status == 304
                        else {
                            "content": {
                                "application/json": {"schema": {"$ref": "#/components/schemas/Error"}}
                            }
                        }
                        if status >= 400
                        else {}
                    ),
                }
                for status, text in endpoint.responses.items()
            },
        }
        if endpoint.body:
            operation["requestBody"] = {
                "required": True,
                "content": {
                    "application/json": {"schema": {"$ref": f"#/components/schemas/{endpoint.body}"}}
                },
            }
        if endpoint.auth:
            operation["security"] = [{"bearer": []}]
        paths.setdefault(endpoint.path, {})[endpoint.method.lower()] = operation
    submission = json.loads(json.dumps(SUBMISSION_SCHEMA))
    submission["properties"]["snapshot"] = {
        "oneOf": [{"$ref": "#/components/schemas/Snapshot"}, {"type": "null"}]
    }
    snapshot = {k: v for k, v in snapshot_schema().items() if k not in ("$schema", "$id")}
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "mcpdex registry",
            "version": metadata.version("mcpdex"),
            "description": "Snapshots, versions, changelogs and scores of MCP servers' tool definitions.",
        },
        "paths": paths,
        "components": {
            "schemas": {"Snapshot": snapshot, "Submission": submission, "Error": ERROR_SCHEMA},
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    }


# ---------------------------------------------------------------- the app


def _exception_handlers() -> dict[Any, Callable[[Request, Exception], Awaitable[Response]]]:
    async def api_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ApiError)
        return _error_response(exc.status, exc.code, exc.message, exc.headers)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, f"http_{exc.status_code}")
        message = "no such endpoint; see /api/openapi.json" if exc.status_code == 404 else str(exc.detail)
        return _error_response(exc.status_code, code, message, dict(exc.headers or {}))

    async def registry_error(request: Request, exc: Exception) -> Response:
        # Store messages are written for a local CLI (they name files and commands): answer with our own.
        if _is_database_outage(exc):
            log.warning("database unavailable: %s", str(exc).splitlines()[0][:200])
            return _error_response(
                503,
                "database_unavailable",
                "the registry database is unavailable; retry shortly",
                {"Retry-After": "2"},
            )
        if isinstance(exc, NotFoundError):
            return _error_response(404, "not_found", _not_found_message(request))
        log.error("registry error on %s %s: %s", request.method, request.url.path, exc)
        return _error_response(500, "registry_error", "the registry could not answer; the error is logged")

    async def unexpected(request: Request, exc: Exception) -> Response:
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        return _error_response(500, "internal_error", "the service failed unexpectedly; the error is logged")

    return {
        ApiError: api_error,
        HTTPException: http_error,
        MCPDexError: registry_error,
        sa_exc.SQLAlchemyError: registry_error,
        Exception: unexpected,
    }


def _not_found_message(request: Request) -> str:
    name = str(request.path_params.get("name", ""))[:100]
    version = request.path_params.get("version") or request.query_params.get("version")
    if version:
        return (
            f"server {name!r} has no recorded version {version[:100]!r}; "
            f"GET /api/servers/{name}/versions lists them"
        )
    return f"no server named {name!r} in this registry; GET /api/servers lists them"


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
    async def lifespan(app: Starlette):  # type: ignore[no-untyped-def]
        from registry.storage.store import open_store

        store = await _db(open_store, registry_url)
        app.state.store = store
        app.state.tokens = await _db(open_tokens, store)
        try:
            async with anyio.create_task_group() as background:
                background.start_soon(app.state.scores.run, store, app.state.summaries.invalidate)
                try:
                    yield
                finally:
                    background.cancel_scope.cancel()
        finally:
            await _db(store.close)

    routes = [Route(_route_path(e), e.handler, methods=[e.method]) for e in ENDPOINTS]
    routes += [
        Route(path, get_page, methods=["GET"])
        for path in ("/", "/index.html", "/index.json", "/servers/{rest:path}")
    ]
    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers=_exception_handlers())
    app.state.max_body_bytes = max_body_bytes
    app.state.site = _Site(template_dir)
    app.state.summaries = _Summaries()
    app.state.scores = _Scores(limits or Limits(), poll_s=score_poll_s, budget_s=score_budget_s)
    return app


__all__ = [
    "ENDPOINTS",
    "MAX_BODY_BYTES",
    "ApiError",
    "check_server_name",
    "create_app",
    "openapi_document",
    "snapshot_schema",
]
