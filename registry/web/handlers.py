"""The API's handlers: server lists and records, versions, snapshots, changelogs and scores read from
the store, inspections submitted to it, and candidate snapshots checked for compatibility."""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import re
from functools import partial
from typing import Any

from anyio import to_thread
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from registry.core.snapshot import snapshot_schema
from registry.core.timestamps import utc_now
from registry.diffing.changelog import build_changelog
from registry.gating.policy import evaluate
from registry.storage.records import (
    RecordRejected,
    ServerSummary,
    SubmissionKey,
    SubmissionKeyReused,
    VersionRecord,
    utc_timestamp,
)
from registry.storage.tokens import TokenRecord
from registry.web.errors import ApiError, first_line, is_database_outage
from registry.web.pages import Site, site_inputs
from registry.web.plumbing import READ_CACHE, VERSION_CACHE, cached, db, json_bytes, read_json, require_token
from registry.web.scorecards import Scores
from registry.web.summaries import ScoreBrief, Summaries
from registry.web.validation import (
    MAX_PAGE,
    MAX_QUERY,
    check_limits,
    check_server_name,
    check_snapshot,
    fail_on_param,
    first_error,
    int_param,
    looked_up,
    refuse_nul,
    submission_validator,
    tiers_param,
)

log = logging.getLogger("mcpdex.serve")

# Visible ASCII only: a UUID fits many times over, and the key is stored and compared as sent.
_IDEMPOTENCY_KEY = re.compile(r"^[\x21-\x7e]{1,128}$")


def _summary_dict(summary: ServerSummary) -> dict[str, Any]:
    return dataclasses.asdict(summary)


async def list_servers(request: Request) -> Response:
    page = int_param(request, "page", 1, 1, MAX_PAGE)
    per_page = int_param(request, "per_page", 50, 1, 200)
    raw_query = request.query_params.get("q", "")
    query = raw_query.strip().lower()
    if len(raw_query) > MAX_QUERY:
        raise ApiError(400, "invalid_parameter", f"query parameter 'q' is at most {MAX_QUERY} characters")
    tiers = tiers_param(request)
    cache: Summaries = request.app.state.summaries
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
    return cached(request, json_bytes(payload), "application/json", READ_CACHE)


async def get_server(request: Request) -> Response:
    name = looked_up(request, "name")
    store = request.app.state.store
    versions = await db(store.versions, name)
    inspections = await db(store.inspections, name, 20)
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
    return cached(request, json_bytes(payload), "application/json", READ_CACHE)


async def _stored_brief(request: Request, server: str, digest: str | None) -> ScoreBrief | None:
    summaries: Summaries = request.app.state.summaries
    await summaries.get(request.app.state.store)
    return summaries.brief(server, digest)


def _version_dict(version: VersionRecord) -> dict[str, Any]:
    # Not dataclasses.asdict: it deep-copies the snapshot too, recursively, only for it to be dropped.
    return {f.name: getattr(version, f.name) for f in dataclasses.fields(version) if f.name != "snapshot"}


async def list_versions(request: Request) -> Response:
    name = looked_up(request, "name")
    versions = await db(request.app.state.store.versions, name)
    payload = {"server": name, "versions": [_version_dict(v) for v in versions]}
    return cached(request, json_bytes(payload), "application/json", READ_CACHE)


async def get_version(request: Request) -> Response:
    name, version = looked_up(request, "name"), looked_up(request, "version")
    snapshot = await db(request.app.state.store.snapshot, name, version)
    return cached(request, json_bytes(snapshot), "application/json", VERSION_CACHE)


async def get_latest_snapshot(request: Request) -> Response:
    snapshot = await db(request.app.state.store.snapshot, looked_up(request, "name"))
    return cached(request, json_bytes(snapshot), "application/json", READ_CACHE)


async def get_changelog(request: Request) -> Response:
    name = looked_up(request, "name")
    versions = await db(request.app.state.store.versions, name)
    changelog = await to_thread.run_sync(build_changelog, name, versions)
    return cached(request, json_bytes(changelog), "application/json", READ_CACHE)


async def get_score(request: Request) -> Response:
    name = looked_up(request, "name")
    store = request.app.state.store
    digest = await db(store.version_digest, name, looked_up(request, "version"))
    scores: Scores = request.app.state.scores
    scorecard = await scores.scorecard(store, name, digest)
    return cached(request, json_bytes(scorecard), "application/json", READ_CACHE)


async def submit_inspection(request: Request) -> Response:
    name = check_server_name(request.path_params["name"])
    token = await require_token(request, name)
    body = await read_json(request)
    if isinstance(body, dict) and "format" in body:
        body = {"ok": True, "snapshot": body}
    if not isinstance(body, dict):
        raise ApiError(422, "invalid_submission", "the body must be a snapshot or {ok, snapshot, error, ...}")
    scores: Scores = request.app.state.scores
    check_limits(body.get("snapshot"), scores.limits)
    first_error(submission_validator(), body, "submission", "invalid_submission")
    snapshot = check_snapshot(body.get("snapshot")) if body["ok"] else None
    if body["ok"] and body.get("error"):
        raise ApiError(422, "invalid_submission", "an ok inspection carries no 'error'")
    if not body["ok"] and (body.get("snapshot") is not None or not body.get("error")):
        raise ApiError(422, "invalid_submission", "a failed inspection carries its 'error' and no 'snapshot'")
    refuse_nul(body.get("error"), "submission field error", "invalid_submission")
    key = _submission_key(request, name, body, token)
    try:
        started_at = _started_at(body, snapshot)
        recorded = await db(
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
            await scores.score(request.app.state.store, name, recorded.digest, snapshot)
        # The submitter pays for the pages its submission changed, not the next reader.
        site: Site = request.app.state.site
        await site.refresh(request.app.state.store, *await site_inputs(request))
    except Exception as exc:
        # The inspection is committed: its answer must say so (the score and pages follow later).
        if not is_database_outage(exc):
            raise
        log.warning("after recording %s: %s", name, first_line(exc))
    answer = dataclasses.asdict(recorded)
    headers = {"Cache-Control": "no-store"}
    if answer.pop("replayed"):
        headers["Idempotent-Replayed"] = "true"
    return JSONResponse(answer, status_code=201 if recorded.new_version else 200, headers=headers)


def _started_at(body: dict[str, Any], snapshot: dict[str, Any] | None) -> str:
    """When the inspection started, in UTC, from ``startedAt`` or else the snapshot's ``capturedAt``."""
    if body.get("startedAt"):
        return utc_timestamp(body["startedAt"], "submission field startedAt")
    captured_at = (snapshot or {}).get("capturedAt")
    if captured_at:
        return utc_timestamp(captured_at, "snapshot field capturedAt")
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
    fingerprint = "sha256:" + hashlib.sha256(json_bytes({"server": server, "body": body})).hexdigest()
    return SubmissionKey(key, fingerprint, token.id)


async def check_compatibility(request: Request) -> Response:
    name = looked_up(request, "name")
    fail_on = fail_on_param(request)
    body = await read_json(request)
    scores: Scores = request.app.state.scores
    check_limits(body, scores.limits)
    candidate = check_snapshot(body)
    base = await db(request.app.state.store.snapshot, name, looked_up(request, "version"))
    past = next(iter(scores.limits.violations(base)), None)
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
    # json_bytes, not JSONResponse: a base stored before numbers were checked may quote a NaN.
    return Response(json_bytes(payload), media_type="application/json", headers={"Cache-Control": "no-store"})


async def get_limits(request: Request) -> Response:
    scores: Scores = request.app.state.scores
    return cached(request, json_bytes(scores.limits.as_dict()), "application/json", READ_CACHE)


async def get_snapshot_schema(request: Request) -> Response:
    return cached(request, json_bytes(snapshot_schema()), "application/schema+json", "public, max-age=3600")
