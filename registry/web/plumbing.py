"""The HTTP plumbing every handler shares: a store call in a worker thread, a JSON body read within
the size limit, the bearer-token check of a write, and JSON answers with a strong ``ETag``."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

from anyio import to_thread
from starlette.requests import Request
from starlette.responses import Response

from registry.core.printable import json_inert
from registry.core.strict_json import MAX_JSON_DEPTH, finite_or_none
from registry.storage.tokens import TokenRecord, TokenRejected, TokenStore
from registry.web.errors import ApiError
from registry.web.validation import refuse_unstorable

MAX_BODY_BYTES = 4 * 1024 * 1024

READ_CACHE = "public, max-age=30"
VERSION_CACHE = "public, max-age=300"

T = TypeVar("T")


async def db(function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run a blocking store call in a worker thread."""
    return await to_thread.run_sync(partial(function, *args, **kwargs))


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


def json_bytes(payload: Any) -> bytes:
    try:
        text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except ValueError:
        # A NaN stored before submissions were checked: JSON has no such number, so it is served as null.
        text = json.dumps(finite_or_none(payload), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return json_inert(text).encode("utf-8")


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
    refuse_unstorable(body, "body field", max_depth=None)
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
        token = await db(tokens.authenticate, presented.strip())
    except TokenRejected as exc:
        raise ApiError(401, f"token_{exc.reason}", str(exc), challenge) from None
    if not token.allows(server):
        raise ApiError(
            403,
            "token_out_of_scope",
            f"token {token.name!r} may write to servers matching {token.scope!r}, not {server!r}",
        )
    await db(tokens.touch, token)
    return token
