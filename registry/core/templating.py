"""The one Jinja2 environment every renderer uses (HTML, Markdown, text).

Autoescape is on for ``.html`` templates; an operator can restyle pages by passing their own
template folder, which is searched before the bundled one.
"""

from __future__ import annotations

import re
from collections.abc import MutableMapping
from functools import cache
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup, escape

from registry.core.paths import templates_dir
from registry.core.printable import escape_controls
from registry.core.textdiff import line_diff
from registry.core.wording import counted


def version_tag(label: object) -> str:
    """A version label as a heading shows it: ``v1.0.8`` for ``1.0.8``, and ``v1.0.8`` left as it is."""
    text = str(label)
    return f"v{text}" if text[:1].isdigit() else text


_CODE_SPAN = re.compile(r"`([^`\n]+)`")


def code_spans(text: object) -> Markup:
    """Escape ``text``, then show its `backticked` names as code (escaping first keeps it inert)."""
    escaped = escape(_finalize(text))
    if "`" not in escaped:  # most reasons and findings name nothing
        return escaped
    return Markup(_CODE_SPAN.sub(r"<code>\1</code>", str(escaped)))


_BREAK_AFTER = re.compile(r"([/_.\-])")
# A run this long with none of those characters can break anywhere: it would never fit otherwise.
_LONG_RUN = 24


def breakable(text: object) -> Markup:
    """Escape ``text`` (a server or version name), letting it wrap after ``/``, ``-``, ``_`` and
    ``.`` rather than mid-word; a run longer than ``_LONG_RUN`` without them may break anywhere."""
    parts = []
    for part in _BREAK_AFTER.split(str(_finalize(text))):
        piece = escape(part)
        if len(part) > _LONG_RUN:
            piece = Markup('<span class="long">') + piece + Markup("</span>")
        parts.append(piece + (Markup("<wbr>") if _BREAK_AFTER.fullmatch(part) else ""))
    return Markup("").join(parts)


_SENTENCE_END = re.compile(r"(?<=[.!?])\s|\n")


def summary(text: object, limit: int = 160) -> Markup:
    """The first sentence (or line) of ``text``, at most ``limit`` characters, with its `backticked`
    names as code, for a table cell."""
    first = _SENTENCE_END.split(str(_finalize(text)).strip(), maxsplit=1)[0]
    if len(first) > limit:
        first = first[: limit - 1].rstrip() + "…"
    return code_spans(first)


def _finalize(value: Any) -> Any:
    """Every string a template prints, control characters escaped (a NUL or BEL in a page, an escape
    sequence in text). Markup passes as it is: ours, or made by a macro or filter that escaped its
    own strings (a macro's expressions pass here too), so large rendered parts are not scanned twice."""
    if type(value) is str:
        return escape_controls(value)
    return value


# What ``getattr`` finds on a plain dict: its methods, and nothing a key could add.
_DICT_ATTRIBUTES = frozenset(dir(dict))


class _Environment(jinja2.Environment):
    """Jinja's environment minus two costs of every page; templates read what Jinja's own would give."""

    def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
        """A template's globals as one plain dict rather than Jinja's ChainMap over the environment's.

        Every page imports the macros, and Jinja then compares the page's globals with theirs; over
        a ChainMap that is a loop in Python per page. The environment's globals are set once, before
        any template loads, so there is nothing for a ChainMap to follow.
        """
        return {**self.globals, **(d or {})}

    def getattr(self, obj: Any, attribute: str) -> Any:
        """``row.name`` on a plain dict is ``row["name"]``, read straight away.

        Jinja tries ``getattr`` first and falls back to the item, so every key read on a dict
        raised and caught an AttributeError. A name that is a dict method (``counts.items``) still
        finds the method.
        """
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)
        return super().getattr(obj, attribute)


@cache
def environment(user_dir: str | None = None) -> jinja2.Environment:
    """A cached environment; ``user_dir`` templates override the bundled ones by name."""
    search = [str(Path(user_dir))] if user_dir else []
    search.append(str(templates_dir()))
    env = _Environment(
        loader=jinja2.FileSystemLoader(search),
        autoescape=jinja2.select_autoescape(enabled_extensions=("html", "html.j2", "svg.j2")),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        finalize=_finalize,
    )
    env.filters["counted"] = counted
    env.filters["code_spans"] = code_spans
    env.filters["breakable"] = breakable
    env.filters["summary"] = summary
    env.filters["version_tag"] = version_tag
    env.globals["line_diff"] = line_diff
    return env


def render(name: str, user_dir: str | None = None, **context: object) -> str:
    """Render template ``name`` with ``context``."""
    return environment(user_dir).get_template(name).render(**context)
