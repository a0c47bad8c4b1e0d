"""Turn one string naming a server into a Snapshot: a file, a registry entry, a URL or a command.

Precedence, first match wins:

1. an existing file → a snapshot file (``mcpdex inspect --out``, ``mcpdex.lock.json``), unless it is an
   executable whose name does not end in ``.json``: that is a server, run over stdio;
2. ``http://`` or ``https://`` → a live server over streamable HTTP;
3. ``NAME`` or ``NAME@VERSION`` recorded in the registry → the stored snapshot (latest for ``NAME``),
   looked up before any shell splitting, so names with spaces (``Notion API@1.0.0``) work;
   a single word with ``@`` that the registry does not know is an error, not a command;
4. a single word that looks like a path (it holds a ``/`` or ends in ``.json``) and names nothing → an
   error, "no such file", rather than a command that is not found;
5. anything else → a shell-style command line (split like a POSIX shell) run over stdio.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from registry.core.errors import NotFoundError
from registry.core.snapshot import load_snapshot


def resolve_snapshot(spec: str, *, registry_url: str | None = None, timeout: float = 30.0) -> dict[str, Any]:
    """The snapshot ``spec`` names (see the module docstring for the precedence)."""
    if os.path.isfile(spec) and not _is_program(spec):
        return dict(load_snapshot(spec))
    if spec.startswith(("http://", "https://")):
        from registry.inspecting.inspect import inspect

        return inspect(spec, timeout=timeout)
    stored = _from_registry(spec, registry_url)
    if stored is not None:
        return stored
    if _looks_like_a_path(spec) and not os.path.exists(spec):
        raise NotFoundError(
            f"{spec}: no such file, nor a server of that name in the registry; check the path"
        )
    from registry.inspecting.inspect import inspect

    return inspect(spec, timeout=timeout)


def _is_program(path: str) -> bool:
    """An executable file that is not named as a snapshot (``server.py`` with its x bit, a binary)."""
    return not path.endswith(".json") and os.access(path, os.X_OK)


def _looks_like_a_path(spec: str) -> bool:
    """One word that names a file rather than a program on the PATH: it holds a ``/`` or ends in ``.json``."""
    return bool(spec) and not any(ch.isspace() for ch in spec) and ("/" in spec or spec.endswith(".json"))


def split_server_spec(spec: str) -> tuple[str, str | None]:
    """``NAME@VERSION`` → (NAME, VERSION); ``NAME`` → (NAME, None).

    Scoped names (``@org/x@1``) keep their leading ``@``.
    """
    head, sep, version = spec.rpartition("@")
    if not sep or not head:
        return spec, None
    return head, version or None


def _from_registry(spec: str, registry_url: str | None) -> dict[str, Any] | None:
    if not spec.strip():
        return None
    name, version = split_server_spec(spec)
    # A spec with a space not in the registry is a command line (`npx -y pkg@1`), not a missing name.
    one_word = not any(ch.isspace() for ch in spec)
    from registry.core.paths import resolve_registry_url

    url = resolve_registry_url(registry_url)
    if url.startswith("sqlite:///") and not Path(url.removeprefix("sqlite:///")).exists():
        if version is not None and one_word:
            raise NotFoundError(
                f"{spec}: no registry at {url} to look it up in; pass --registry or a snapshot file"
            )
        return None
    from registry.storage.client import open_registry

    store = open_registry(url)
    try:
        known = {summary.name for summary in store.servers()}
        if name not in known:
            if version is not None and one_word:
                raise NotFoundError(
                    f"{spec}: server {name!r} is not in the registry; "
                    "record it with `mcpdex inspect --save`, "
                    "or pass a snapshot file or a command"
                )
            return None
        return store.snapshot(name, version)
    finally:
        store.close()


def other_servers_tools(store: Any, excluding: set[str]) -> frozenset[str]:
    """The tool names of the latest version of every server in ``store`` but those ``excluding``
    names: what a changed text may refer to as another server's tool (cross-server-reference)."""
    return frozenset(
        str(tool.get("name"))
        for other in store.servers()
        if other.name not in excluding and other.latest_version is not None
        for tool in store.snapshot(other.name).get("tools") or []
        if isinstance(tool, dict)
    )
