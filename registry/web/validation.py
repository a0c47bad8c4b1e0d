"""What the service accepts: the submission and snapshot schemas, the limits, server names, and the
path and query parameters, each refused with an ``ApiError`` that says what to send instead."""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

import jsonschema
from starlette.requests import Request

from registry.core.errors import NotFoundError, SnapshotError
from registry.core.limits import Limits
from registry.core.names import server_name_problem
from registry.core.snapshot import parse_snapshot, server_version, snapshot_schema
from registry.core.strict_json import MAX_JSON_DEPTH, JSONValueError, check_json
from registry.diffing.rules import LEVELS
from registry.web.errors import ApiError
from scoring.arithmetic import TIERS

_MAX_LABEL = 128
# A version label the service records: 1 to 128 characters, none of them a control (C0, DEL, C1), an
# invisible format character (soft hyphen, zero-width and bidirectional controls, word joiners, BOM),
# a space other than U+0020, a line or paragraph separator (a lone surrogate is refused in any text,
# before this). One set of characters,
# refused here and published in the OpenAPI document (as a pattern with no anchors, which every regular
# expression engine reads alike), so the two cannot disagree.
_UNPRINTABLE = (
    "[\\x00-\\x1f\\x7f-\\xa0\\xad\\u061c\\u1680\\u180e\\u2000-\\u200f\\u2028-\\u202f"
    "\\u205f-\\u2064\\u2066-\\u206f\\u3000\\ufeff\\ufff9-\\ufffb]"
)
LABEL_SCHEMA: dict[str, Any] = {
    "type": "string",
    "minLength": 1,
    "maxLength": _MAX_LABEL,
    "not": {"pattern": _UNPRINTABLE},
}
_LABEL_UNPRINTABLE = re.compile(_UNPRINTABLE)
# The letters a server list may be filtered by: the scorer's tiers, best first, then F below them all.
TIER_LETTERS: tuple[str, ...] = (*(letter for letter, _ in TIERS), "F")
# The tier filter: comma-separated letters of TIER_LETTERS, either case, spaces around each, empty
# items ignored. Published as what it may not hold (a character besides those, two letters in one item).
_TIER_CLASS = "[" + "".join(letter + letter.lower() for letter in TIER_LETTERS) + "]"
TIER_SCHEMA: dict[str, Any] = {
    "type": "string",
    "allOf": [
        {"not": {"pattern": "[^ ," + _TIER_CLASS[1:]}},
        {"not": {"pattern": f"{_TIER_CLASS} *{_TIER_CLASS}"}},
    ],
}
_TIERS = re.compile(f" *{_TIER_CLASS}? *(, *{_TIER_CLASS}? *)*")
MAX_PAGE = 1_000_000
MAX_QUERY = 200
# The change levels a compatibility check may fail on, most severe first.
FAIL_ON: tuple[str, ...] = tuple(reversed(LEVELS))

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


@cache
def _snapshot_validator() -> jsonschema.protocols.Validator:
    schema = snapshot_schema()
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


@cache
def submission_validator() -> jsonschema.protocols.Validator:
    return jsonschema.Draft202012Validator(SUBMISSION_SCHEMA, format_checker=jsonschema.FormatChecker())


def first_error(validator: jsonschema.protocols.Validator, document: Any, what: str, code: str) -> None:
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


def refuse_nul(value: Any, what: str, code: str) -> None:
    # These strings become database text, and PostgreSQL text cannot hold NUL.
    if isinstance(value, str) and "\x00" in value:
        raise ApiError(422, code, f"{what} contains a NUL character; remove it")


def refuse_unstorable(document: Any, what: str, max_depth: int | None = MAX_JSON_DEPTH) -> None:
    """422 naming the first non-finite number, lone surrogate or too-deep nesting in ``document``."""
    try:
        check_json(document, max_depth=max_depth, what=what)
    except JSONValueError as exc:
        raise ApiError(422, exc.code, exc.message) from None


def check_snapshot(document: Any) -> dict[str, Any]:
    """Validate a submitted snapshot against the published schema and the format's own checks."""
    if not isinstance(document, dict):
        raise ApiError(422, "invalid_snapshot", "the snapshot must be a JSON object in the mcpdex format")
    # Nesting was checked with the limits (check_limits), before this.
    first_error(_snapshot_validator(), document, "snapshot", "invalid_snapshot")
    try:
        snapshot: dict[str, Any] = dict(parse_snapshot(json.dumps(document), origin="snapshot"))
    except SnapshotError as exc:
        raise ApiError(422, "invalid_snapshot", str(exc)) from None
    for key, value in (snapshot.get("server") or {}).items():
        refuse_nul(value, f"snapshot field server/{key}", "invalid_snapshot")
    label = server_version(snapshot)
    if not 1 <= len(label) <= _MAX_LABEL or _LABEL_UNPRINTABLE.search(label):
        raise ApiError(
            422,
            "invalid_snapshot",
            f"snapshot version label must be printable, at most {_MAX_LABEL} characters",
        )
    return snapshot


def check_limits(document: Any, limits: Limits) -> None:
    """422 naming the first field of a submitted snapshot nested past what any database can hold back
    (``nesting_too_deep``), then the first past a configured limit (``over_limit``).

    Checked before the published schema, whose check costs far more per tool than these walks.
    """
    if isinstance(document, dict):
        refuse_unstorable(document, "snapshot field")
        violation = next(iter(limits.violations(document)), None)
        if violation is not None:
            raise ApiError(422, "over_limit", f"snapshot field {violation.message}; see GET /api/limits")


# ---------------------------------------------------------------- path and query parameters


def looked_up(request: Request, key: str) -> Any:
    """A name or version from the path (or the query) to look up; one that cannot be stored is not found.

    PostgreSQL text cannot hold NUL, and no name or label is longer than the columns, so such
    values are answered here instead of reaching the database.
    """
    value = request.path_params.get(key, request.query_params.get(key))
    if value is not None and (len(value) > 512 or not value.isprintable()):
        raise NotFoundError(key)
    return value


def int_param(request: Request, name: str, default: int, low: int, high: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    # ASCII digits only: str.isdigit also accepts '²' (which int() refuses) and '٣' (which int() reads as 3).
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 9 or not low <= int(raw) <= high:
        raise ApiError(
            400, "invalid_parameter", f"query parameter {name!r} must be an integer from {low} to {high}"
        )
    return int(raw)


def tiers_param(request: Request) -> set[str]:
    """The upper-cased letters of the comma-separated ``tier`` query parameter; empty when absent."""
    raw = request.query_params.get("tier", "")
    tiers = {t.strip(" ").upper() for t in raw.split(",") if t.strip(" ")}
    if not _TIERS.fullmatch(raw) or not tiers <= set(TIER_LETTERS):
        raise ApiError(
            400, "invalid_parameter", f"query parameter 'tier' takes letters from {', '.join(TIER_LETTERS)}"
        )
    return tiers


def fail_on_param(request: Request) -> str:
    """The ``fail_on`` query parameter: the lowest change level that fails a compatibility check."""
    fail_on = request.query_params.get("fail_on", "breaking")
    if fail_on not in FAIL_ON:
        raise ApiError(400, "invalid_parameter", f"query parameter 'fail_on' is one of {', '.join(FAIL_ON)}")
    return fail_on
