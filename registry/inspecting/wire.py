"""The handshake era's wire schemas as JSON Schema, generated from the SDK's own models.

Listing a local server without the SDK (``registry.inspecting.rpc``) checks what it sent against
these first, and asks the SDK's models only about what they reject, so a well-formed server never
pays for importing them while a broken one gets the SDK's own verdict and words. The schemas are
the models' JSON Schemas, which every value of the models' types passes and no value of another
type does; where the SDK is more lenient (coercing ``"1"`` to 1) it is asked. ``--check`` (run by
the tests) fails when the installed SDK's models differ from the file, ``--write`` regenerates it.

    python -m registry.inspecting.wire --write
"""

from __future__ import annotations

import json
import sys
from functools import cache
from pathlib import Path
from typing import Any

WIRE_FILE = Path(__file__).with_name("schema") / "handshake-wire.json"
# The list results whose items an inspection records, by the key that holds them.
LIST_METHODS = {
    "tools": "tools/list",
    "resources": "resources/list",
    "resourceTemplates": "resources/templates/list",
    "prompts": "prompts/list",
}


def generate() -> dict[str, Any]:
    """The wire document from the installed SDK: its handshake versions, and the JSON Schemas of the
    initialize result (both the era's wire model and the SDK's own, which it validates in turn) and
    of each listed item."""
    from mcp.client.session import DISCOVER_TIMEOUT_SECONDS
    from mcp.types import (
        CLIENT_CAPABILITIES_META_KEY,
        CLIENT_INFO_META_KEY,
        PROTOCOL_VERSION_META_KEY,
        UNSUPPORTED_PROTOCOL_VERSION,
        InitializeResult,
    )
    from mcp.types.methods import SERVER_RESULTS
    from mcp.types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION, LATEST_MODERN_VERSION

    from registry.inspecting.listing import item_model

    wire_result = SERVER_RESULTS[("initialize", LATEST_HANDSHAKE_VERSION)]
    return {
        "latestVersion": LATEST_HANDSHAKE_VERSION,
        "versions": list(HANDSHAKE_PROTOCOL_VERSIONS),
        # The server/discover probe that --protocol-era auto sends first, how long it is waited for,
        # and the error code that answers it with the server's own versions.
        "discover": {
            "version": LATEST_MODERN_VERSION,
            "timeoutSeconds": DISCOVER_TIMEOUT_SECONDS,
            "metaKeys": {
                "protocolVersion": PROTOCOL_VERSION_META_KEY,
                "clientInfo": CLIENT_INFO_META_KEY,
                "clientCapabilities": CLIENT_CAPABILITIES_META_KEY,
            },
            "unsupportedVersionCode": UNSUPPORTED_PROTOCOL_VERSION,
        },
        # What must pass all of the schemas listed under its name: an initialize result, an item of a list.
        "schemas": {
            "initialize": [
                wire_result.model_json_schema(by_alias=True),  # type: ignore[union-attr]
                InitializeResult.model_json_schema(by_alias=True),
            ],
            **{key: [item_model(key, modern=False).model_json_schema(by_alias=True)] for key in LIST_METHODS},
        },
    }


@cache
def wire() -> dict[str, Any]:
    """The wire document as written in :data:`WIRE_FILE`."""
    document: dict[str, Any] = json.loads(WIRE_FILE.read_text(encoding="utf-8"))
    return document


@cache
def _validators(name: str) -> list[Any]:
    from jsonschema import validators

    return [validators.validator_for(schema)(schema) for schema in wire()["schemas"][name]]


def fits(value: Any, name: str) -> bool:
    """Whether ``value`` passes the wire schemas of ``name`` (``initialize``, or a list's key such as
    ``tools``); a value that passes is one the SDK's models accept."""
    return all(validator.is_valid(value) for validator in _validators(name))


def _text(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    if argv not in (["--write"], ["--check"]):
        print("usage: python -m registry.inspecting.wire --write | --check", file=sys.stderr)
        return 2
    fresh = _text(generate())
    if argv == ["--write"]:
        WIRE_FILE.parent.mkdir(exist_ok=True)
        WIRE_FILE.write_text(fresh, encoding="utf-8")
        return 0
    if not WIRE_FILE.exists() or WIRE_FILE.read_text(encoding="utf-8") != fresh:
        print(
            f"{WIRE_FILE.name} differs from the installed SDK's models; "
            "run python -m registry.inspecting.wire --write",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
