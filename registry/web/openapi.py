"""The API's description: the endpoint table (each route's method, path, handler, parameters and
answers), from which both the app's routes and the OpenAPI 3.1 document are built."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import cache
from importlib import metadata
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from registry.core.snapshot import snapshot_schema
from registry.core.strict_json import MAX_JSON_DEPTH
from registry.web.handlers import (
    check_compatibility,
    get_changelog,
    get_latest_snapshot,
    get_limits,
    get_score,
    get_server,
    get_snapshot_schema,
    get_version,
    list_servers,
    list_versions,
    submit_inspection,
)
from registry.web.plumbing import cached, json_bytes
from registry.web.validation import (
    FAIL_ON,
    LABEL_SCHEMA,
    MAX_PAGE,
    MAX_QUERY,
    SUBMISSION_SCHEMA,
    TIER_LETTERS,
    TIER_SCHEMA,
)

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


async def get_openapi(request: Request) -> Response:
    return cached(request, json_bytes(openapi_document()), "application/json", "public, max-age=3600")


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
            Param(
                "q",
                "query",
                "Case-insensitive substring of the name or title.",
                {"type": "string", "maxLength": MAX_QUERY},
            ),
            Param(
                "tier",
                "query",
                f"Comma-separated tiers ({','.join(TIER_LETTERS)}, either case) of the latest score.",
                TIER_SCHEMA,
            ),
            Param(
                "page",
                "query",
                "Page number, from 1.",
                {"type": "integer", "minimum": 1, "maximum": MAX_PAGE},
            ),
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
                {"type": "string", "enum": list(FAIL_ON)},
            ),
        ),
        body="Snapshot",
        responses={
            200: "The changes and the verdict",
            400: "Malformed JSON",
            413: "Body over the size limit",
            415: "Body is not JSON",
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


def route_path(endpoint: Endpoint) -> str:
    # Names may hold '/', so the name is a path parameter; routes with a suffix come before the bare one.
    return endpoint.path.replace("{name}", "{name:path}")


_LABEL = LABEL_SCHEMA
# The version a snapshot is recorded under: its versionLabel when one is given, else server.version.
_LABEL_RULE: dict[str, Any] = {
    "anyOf": [
        {"properties": {"versionLabel": _LABEL}, "required": ["versionLabel"]},
        {
            "properties": {
                "versionLabel": {"enum": [None, ""]},
                "server": {"properties": {"version": {"anyOf": [{"type": "null"}, {"const": ""}, _LABEL]}}},
            }
        },
    ]
}


def _submission() -> dict[str, Any]:
    """The body of a submission: a bare snapshot, an inspection that worked (its snapshot, no error) or
    one that failed (its error, no snapshot)."""
    fields = json.loads(json.dumps(SUBMISSION_SCHEMA))
    ok = json.loads(json.dumps(fields))
    ok["properties"]["ok"] = {"const": True}
    ok["properties"]["snapshot"] = {"$ref": "#/components/schemas/Snapshot"}
    ok["properties"]["error"] = {"anyOf": [{"type": "null"}, {"const": ""}]}
    ok["required"] = ["ok", "snapshot"]
    failed = json.loads(json.dumps(fields))
    failed["properties"]["ok"] = {"const": False}
    failed["properties"]["snapshot"] = {"type": "null"}
    # The error becomes database text, which cannot hold NUL (refuse_nul).
    failed["properties"]["error"] = {
        **fields["properties"]["error"],
        "type": "string",
        "minLength": 1,
        "not": {"pattern": "\\x00"},
    }
    failed["required"] = ["ok", "error"]
    return {"oneOf": [{"$ref": "#/components/schemas/Snapshot"}, ok, failed]}


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
    snapshot = {k: v for k, v in snapshot_schema().items() if k not in ("$schema", "$id")}
    snapshot["allOf"] = [*snapshot.get("allOf", []), _LABEL_RULE]
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "mcpdex registry",
            "version": metadata.version("mcpdex"),
            "description": "Snapshots, versions, changelogs and scores of MCP servers' tool definitions.",
        },
        "paths": paths,
        "components": {
            "schemas": {"Snapshot": snapshot, "Submission": _submission(), "Error": ERROR_SCHEMA},
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    }
