"""The service's error answers: ``ApiError``, the JSON body ``{"error": {"code", "message"}}`` every
failure is answered with, and the exception handlers that turn store failures into 404, 500 or a
503 with ``Retry-After`` when the database is unavailable."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Awaitable, Callable

from sqlalchemy import exc as sa_exc
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from registry.core.errors import MCPDexError, NotFoundError

log = logging.getLogger("mcpdex.serve")

ExceptionHandler = Callable[[Request, Exception], Awaitable[Response]]


class ApiError(Exception):
    """An expected failure answered as ``{"error": {"code", "message"}}`` with ``status``."""

    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.headers = status, code, message, headers or {}


def error_response(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> Response:
    body = {"error": {"code": code, "message": message}}
    return JSONResponse(body, status_code=status, headers={"Cache-Control": "no-store", **(headers or {})})


def is_database_outage(exc: BaseException) -> bool:
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


def first_line(exc: BaseException) -> str:
    return (str(exc).splitlines() or [type(exc).__name__])[0][:200]


def exception_handlers() -> dict[type[Exception], ExceptionHandler]:
    async def api_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ApiError)
        return error_response(exc.status, exc.code, exc.message, exc.headers)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, f"http_{exc.status_code}")
        message = "no such endpoint; see /api/openapi.json" if exc.status_code == 404 else str(exc.detail)
        return error_response(exc.status_code, code, message, dict(exc.headers or {}))

    async def registry_error(request: Request, exc: Exception) -> Response:
        # Store messages are written for a local CLI (they name files and commands): answer with our own.
        if is_database_outage(exc):
            log.warning("database unavailable: %s", str(exc).splitlines()[0][:200])
            return error_response(
                503,
                "database_unavailable",
                "the registry database is unavailable; retry shortly",
                {"Retry-After": "2"},
            )
        if isinstance(exc, NotFoundError):
            return error_response(404, "not_found", _not_found_message(request))
        log.error("registry error on %s %s: %s", request.method, request.url.path, exc)
        return error_response(500, "registry_error", "the registry could not answer; the error is logged")

    async def unexpected(request: Request, exc: Exception) -> Response:
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        return error_response(500, "internal_error", "the service failed unexpectedly; the error is logged")

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
