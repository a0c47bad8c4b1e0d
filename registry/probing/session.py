"""One tool call of the memory probe over an open SDK client: the timed Session, its Reply,
and the error a probe that cannot run raises.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from registry.core.errors import MCPDexError


class ProbeError(MCPDexError):
    """The probe cannot run against this target (refused, or not a knowledge-graph memory server)."""


@dataclass
class Reply:
    """A tool call's outcome: ``ok`` false for an ``isError`` result or a JSON-RPC error alike."""

    ok: bool
    text: str
    structured: Any
    ms: float

    def payload(self) -> Any:
        """structuredContent when present, else the text parsed as JSON (None when it is not JSON)."""
        if self.structured is not None:
            return self.structured
        try:
            return json.loads(self.text)
        except ValueError:
            return None

    def entities(self) -> list[dict[str, Any]]:
        data = self.payload()
        items = data.get("entities") if isinstance(data, dict) else data
        return [e for e in items or [] if isinstance(e, dict)] if isinstance(items, list) else []

    def relations(self) -> list[dict[str, Any]]:
        data = self.payload()
        items = data.get("relations") if isinstance(data, dict) else data
        return [r for r in items or [] if isinstance(r, dict)] if isinstance(items, list) else []


class Session:
    """Calls tools on an open SDK ``Client`` and times each call; only the call itself is timed."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self.timings: dict[str, list[float]] = {}

    async def call(self, tool: str, arguments: dict[str, Any]) -> Reply:
        from mcp import MCPError
        from pydantic import ValidationError

        started = time.perf_counter()
        try:
            # The client's own read timeout bounds each call (open_client sets it from --timeout).
            result = await self._client.call_tool(tool, arguments)
        except MCPError as exc:
            ms = (time.perf_counter() - started) * 1000
            self.timings.setdefault(tool, []).append(ms)
            return Reply(ok=False, text=f"MCP error {exc.code}: {exc}", structured=None, ms=ms)
        except (RuntimeError, ValidationError) as exc:
            # The SDK refuses structuredContent that does not match the tool's outputSchema, and
            # results that are not valid MCP.
            ms = (time.perf_counter() - started) * 1000
            self.timings.setdefault(tool, []).append(ms)
            return Reply(ok=False, text=f"client rejected the result: {exc}", structured=None, ms=ms)
        ms = (time.perf_counter() - started) * 1000
        self.timings.setdefault(tool, []).append(ms)
        text = "".join(getattr(block, "text", "") for block in result.content or [])
        return Reply(ok=not result.is_error, text=text, structured=result.structured_content, ms=ms)
