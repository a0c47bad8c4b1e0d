"""Text a server chose, made safe to print: control characters shown as escapes, never obeyed.

Server names, tool names, descriptions and stderr come from the server. Printed raw, ``\\x1b[2J``
clears the user's screen and a NUL or BEL lands in an HTML page. Every printer goes through
:func:`escape_controls`: the Jinja environment (pages, Markdown, text), the consoles of the text
output (:func:`console`), the coloured diff text and the one-line errors.
"""

from __future__ import annotations

import os
import re
from functools import cache
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from rich.console import Console

T = TypeVar("T")

# C0 but newline and tab, DEL, and C1 (a lone 0x9b is CSI to some terminals). Bidirectional marks
# stay: right-to-left text needs them, and pages isolate what they reorder in <bdi>.
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _escape(match: re.Match[str]) -> str:
    return f"\\x{ord(match.group()):02x}"


def escape_controls(text: str) -> str:
    """``text`` with each control character written as its escape (``\\x1b``)."""
    # Most text has none; searching first skips building a new string for it.
    return text if _CONTROLS.search(text) is None else _CONTROLS.sub(_escape, text)


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def json_inert(text: str) -> str:
    """JSON text with DEL and C1 characters written as ``\\u`` escapes: the same value when parsed, and
    nothing a terminal obeys when printed (``json.dumps`` escapes C0 itself, and these occur only inside
    strings)."""
    return text if _CONTROLS.search(text) is None else _CONTROLS.sub(_json_escape, text)


def escape_controls_in(value: T) -> T:
    """``value`` with :func:`escape_controls` applied to every string inside it (dict keys included)."""
    if isinstance(value, str):
        return escape_controls(value)  # type: ignore[return-value]
    if isinstance(value, dict):
        return {escape_controls_in(k): escape_controls_in(v) for k, v in value.items()}  # type: ignore[return-value]
    if isinstance(value, list | tuple):
        return type(value)(escape_controls_in(item) for item in value)
    return value


# The width of a console that does not write to a terminal (a pipe, a file, a CI log): no table is
# narrowed to fit it, so none of its values is cut or wrapped; each table is as wide as its content.
_UNBOUNDED_WIDTH = 100_000


def console(**options: Any) -> Console:
    """A rich Console that escapes control characters in every string it is given to print.

    On a terminal it is the terminal's width; elsewhere ``COLUMNS`` when set, else as wide as what it
    prints, so a table in a CI log shows every value whole. Colour follows :func:`colour_wanted`.
    """
    import sys

    stream = options.get("file") or (sys.stderr if options.get("stderr") else sys.stdout)
    if "width" not in options and not _is_terminal(stream) and not os.environ.get("COLUMNS", "").isdigit():
        options["width"] = _UNBOUNDED_WIDTH
    if "no_color" not in options and "NO_COLOR" in os.environ:
        options["no_color"] = True
    return _safe_console_class()(**options)


def colour_wanted(stream: Any) -> bool:
    """Whether to colour what goes to ``stream``: never with ``NO_COLOR`` set (to anything), always
    with ``FORCE_COLOR`` set to something, else when ``stream`` is a terminal."""
    if "NO_COLOR" in os.environ:
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return _is_terminal(stream)


def _is_terminal(stream: Any) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


@cache
def _safe_console_class() -> type[Console]:
    # rich is imported only by commands that print a table, not with this module.
    from rich.console import Console

    class SafeConsole(Console):
        def render_str(self, text: str, **kwargs: Any) -> Any:
            return super().render_str(escape_controls(text), **kwargs)

    return SafeConsole
