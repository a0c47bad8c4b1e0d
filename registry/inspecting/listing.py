"""Listing a connected server: every page of tools, resources, resource templates and prompts, taken
raw off the wire, then each item checked against its era's wire schema (and JSON Schema itself).

Paging is bounded by the item limit, a page count and a deadline; what the SDK rejects, or what
goes past a bound, is kept or dropped with a problem recorded, never raised.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Awaitable, Callable
from functools import cache
from typing import TYPE_CHECKING, Any, get_args

from registry.core.errors import InspectionError
from registry.core.limits import LIMITS, Limits
from registry.inspecting.transports import Wire

if TYPE_CHECKING:
    from pydantic import BaseModel

# A server whose cursors never end would page forever; this bounds it (with a problem recorded), as
# do the item limit and the deadline.
MAX_PAGES = 1000
_MAX_ITEMS = next(limit for limit in LIMITS if limit.attribute == "max_tools")


async def list_all(
    call: Callable[..., Awaitable[object]],
    method: str,
    key: str,
    wire: Wire,
    problems: list[dict[str, str]],
    *,
    required: bool = False,
    max_items: int = Limits().max_tools,
    list_by: float = math.inf,
) -> list[Any]:
    """Every item over every page, taken raw from the wire; the SDK's rejection becomes a problem.

    Paging also stops, with a problem, past ``max_items`` items and at ``list_by`` (an
    ``anyio.current_time()``): a server sending fresh cursors forever keeps what was listed by then.
    """
    import anyio

    from registry.inspecting.failures import error_code, loaded

    items: list[Any] = []
    cursor: str | None = None
    seen: set[str] = set()
    for page in range(MAX_PAGES):
        mark = wire.mark()
        try:
            # The first page may take the whole deadline; the next ones only until ``list_by``.
            with anyio.move_on_after(max(0.0, list_by - anyio.current_time()) if page else None) as waited:
                await call(cursor=cursor)
        except loaded("pydantic", "ValidationError"):  # type: ignore[misc]
            # Recorded item by item below; the raw page is still on the wire.
            pass
        except Exception as exc:
            code = error_code(exc)
            if code is None:
                raise
            if code == -32601 and page == 0:
                # "Method not found" on the first page means none: a server that advertises
                # resources need not implement resources/templates/list, nor any list at all.
                return items
            if not required:
                problems.append(
                    {"code": "list-failed", "where": method, "message": f"{method} failed: {exc}"}
                )
                return items
            if code == -32000:
                raise InspectionError(
                    f"the server closed the connection during {method} page {page + 1} (it exited or crashed)"
                ) from None
            raise InspectionError(f"{method} failed on page {page + 1}: {exc}") from None
        if waited.cancelled_caught:
            problems.append(_listing_deadline(method, key, page, items))
            return items
        raw = wire.result_since(mark, method)
        if not isinstance(raw, dict):
            raise InspectionError(f"{method} page {page + 1}: the server sent no usable result")
        page_items = raw.get(key)
        if not isinstance(page_items, list):
            problems.append(
                {
                    "code": "invalid-list",
                    "where": method,
                    "message": f"page {page + 1}: '{key}' is not a list",
                }
            )
            return items
        items.extend(page_items)
        if len(items) > max_items:
            problems.append(
                {
                    "code": "over-limit",
                    "where": method,
                    "message": f"stopped at {max_items:,} {key} (page {page + 1}), the limit of "
                    f"{_MAX_ITEMS.what}; the rest are not recorded ({_MAX_ITEMS.option} or "
                    f"{_MAX_ITEMS.env} raises it)",
                }
            )
            return items[:max_items]
        cursor = raw.get("nextCursor")
        if not cursor:
            return items
        if not isinstance(cursor, str) or cursor in seen:
            problems.append(
                {
                    "code": "cursor-loop",
                    "where": method,
                    "message": f"page {page + 1}: nextCursor repeats or is not a string",
                }
            )
            return items
        seen.add(cursor)
        if anyio.current_time() >= list_by:
            problems.append(_listing_deadline(method, key, page + 1, items))
            return items
    problems.append(
        {"code": "too-many-pages", "where": method, "message": f"stopped after {MAX_PAGES} pages"}
    )
    return items


def _listing_deadline(method: str, key: str, pages: int, items: list[Any]) -> dict[str, str]:
    return {
        "code": "listing-deadline",
        "where": method,
        "message": f"stopped after {pages} page(s) and {len(items):,} {key} at the --timeout deadline, "
        "the server still sending cursors; the rest are not recorded (raise --timeout if it ends)",
    }


@cache
def item_model(key: str, modern: bool) -> type[BaseModel]:
    """The era's wire model of one item of a list result, which the SDK validates list results against.

    Looked up in the SDK's public method registry (``mcp.types.methods``): the result model of the
    list method at the era's latest version, and the item type of its ``key`` field.
    """
    from mcp.types.methods import SERVER_RESULTS
    from mcp.types.version import LATEST_HANDSHAKE_VERSION, LATEST_MODERN_VERSION
    from pydantic import BaseModel

    from registry.inspecting.wire import LIST_METHODS

    method = LIST_METHODS[key]
    version = LATEST_MODERN_VERSION if modern else LATEST_HANDSHAKE_VERSION
    result = SERVER_RESULTS[(method, version)]
    if isinstance(result, type) and issubclass(result, BaseModel):
        for name, field in result.model_fields.items():
            if (field.alias or name) == key:
                (model,) = get_args(field.annotation)
                if isinstance(model, type) and issubclass(model, BaseModel):
                    return model
    raise LookupError(f"the SDK's {method} result at {version} has no list of {key} models")


def _rejection(key: str, modern: bool, item: Any) -> str | None:
    """Why the era's wire model rejects ``item`` (its first five errors), or None when it accepts it."""
    from pydantic import ValidationError

    try:
        item_model(key, modern).model_validate(item)
    except ValidationError as exc:
        return "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(item)'}: {err['msg']}" for err in exc.errors()[:5]
        )
    return None


def check_items(
    key: str, items: list[Any], modern: bool, problems: list[dict[str, str]], check_by: float = math.inf
) -> list[dict[str, Any]]:
    """Keep each item as sent; note what the era's wire schema (and JSON Schema itself) rejects.

    Items left when ``check_by`` (a ``time.monotonic()``) passes are kept unchecked, with a problem.
    """
    from jsonschema import SchemaError, validators

    from registry.inspecting.wire import fits

    kept: list[dict[str, Any]] = []
    seen_names: set[str] = set()
    schema_errors: dict[str, str | None] = {}
    for index, item in enumerate(items):
        if time.monotonic() > check_by:
            problems.append(
                {
                    "code": "unchecked",
                    "where": key,
                    "message": f"{len(items) - index:,} of {len(items):,} {key} were kept without being "
                    "checked against the protocol's schema: the --timeout deadline came first",
                }
            )
            kept.extend(item for item in items[index:] if isinstance(item, dict))
            break
        where = f"{key}[{index}]"
        name = item.get("name") if isinstance(item, dict) else None
        if not isinstance(name, str):
            preview = json.dumps(item, ensure_ascii=False)[:200]
            problems.append(
                {"code": "unnamed-item", "where": where, "message": f"dropped: no string 'name' in {preview}"}
            )
            continue
        if name in seen_names:
            problems.append(
                {"code": "duplicate-name", "where": where, "message": f"{name!r} is listed twice"}
            )
        seen_names.add(name)
        # What the handshake era's wire schema accepts the SDK's model does; the rest is its to judge.
        reasons = None if not modern and fits(item, key) else _rejection(key, modern, item)
        if reasons:
            code = {"tools": "invalid-tool"}.get(key, "invalid-item")
            problems.append({"code": code, "where": where, "message": f"{name}: {reasons}"})
        for schema_key in ("inputSchema", "outputSchema") if key == "tools" else ():
            schema = item.get(schema_key)
            if isinstance(schema, dict):
                text = json.dumps(schema, sort_keys=True)
                if text not in schema_errors:
                    # Servers repeat schemas across tools; checking each distinct one once keeps
                    # thousands of tools fast.
                    try:
                        validators.validator_for(schema).check_schema(schema)
                        schema_errors[text] = None
                    except SchemaError as exc:
                        schema_errors[text] = exc.message
                if schema_errors[text] is not None:
                    problems.append(
                        {
                            "code": "invalid-json-schema",
                            "where": f"{where}.{schema_key}",
                            "message": f"{name}: {schema_errors[text]}",
                        }
                    )
        kept.append(item)
    return kept
