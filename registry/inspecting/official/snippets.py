"""What the directory pages show about running an entry of the official MCP Registry: its transports
(local, remote) and ready-to-paste client configs for Claude Desktop, Cursor and VS Code.
"""

from __future__ import annotations

import json
import re
from typing import Any

from registry.inspecting.official.entries import entry_from_item
from registry.inspecting.official.launch import (
    RUNNABLE_TYPES,
    EntryInvalid,
    EntrySkipped,
    Inputs,
    Launch,
    package_launch,
    remote_launch,
)


def transports_of(server: dict[str, Any]) -> list[str]:
    """``local`` when the entry has a package, ``remote`` when it lists a remote."""
    out = []
    if server.get("packages"):
        out.append("local")
    if server.get("remotes"):
        out.append("remote")
    return out


_SNIPPET_CLIENTS = (
    ("claude-desktop", "Claude Desktop", "claude_desktop_config.json"),
    ("cursor", "Cursor", ".cursor/mcp.json"),
    ("vscode", "VS Code", ".vscode/mcp.json"),
)
_PLACEHOLDER = re.compile(r"<([A-Za-z0-9_.{}-]+)>")


def _short_name(name: str) -> str:
    return name.rsplit("/", 1)[-1] or name


def _config_launch(server: dict[str, Any]) -> Launch | None:
    """The entry as a client would run it: its first runnable package, else its first remote."""
    entry = entry_from_item(server)
    for package in server.get("packages") or []:
        if isinstance(package, dict) and package.get("registryType") in RUNNABLE_TYPES:
            try:
                return package_launch(entry, package, Inputs(), for_config=True)
            except (EntryInvalid, EntrySkipped):
                continue
    remotes = [r for r in server.get("remotes") or [] if isinstance(r, dict)]
    for remote in sorted(remotes, key=lambda r: r.get("type") != "streamable-http"):
        try:
            return remote_launch(entry, remote, Inputs(), for_config=True)
        except (EntryInvalid, EntrySkipped):
            continue
    return None


class _VSCodePrompts:
    """VS Code asks for ``${input:ID}`` values when the server starts (secrets masked), so its snippet
    refers to prompts where the others hold ``<NAME>`` placeholders."""

    def __init__(self, secrets: set[str]) -> None:
        self.secrets = secrets
        self.inputs: dict[str, dict[str, Any]] = {}

    def __call__(self, text: str, owner: str = "") -> str:
        def one(match: re.Match[str]) -> str:
            name = match.group(1)
            ident = re.sub(r"[^A-Za-z0-9_-]", "-", name).strip("-").lower() or "value"
            self.inputs.setdefault(
                ident,
                {"type": "promptString", "id": ident, "description": name,
                 "password": name in self.secrets or owner in self.secrets},
            )  # fmt: skip
            return "${input:" + ident + "}"

        return _PLACEHOLDER.sub(one, text)


def install_snippets(server: dict[str, Any]) -> list[dict[str, str]]:
    """Ready-to-paste client configs for the entry ``server`` (a normalised server.json): one each for
    Claude Desktop, Cursor and VS Code, built from its package (or its remote). ``<NAME>`` marks a
    value the user must fill in. Empty when nothing in the entry can run."""
    launch = _config_launch(server)
    if launch is None:
        return []
    key = _short_name(str(server.get("name") or "server"))
    secrets = {
        str(item.get("name"))
        for package in server.get("packages") or []
        if isinstance(package, dict)
        for item in package.get("environmentVariables") or []
        if isinstance(item, dict) and item.get("isSecret")
    } | {
        str(header.get("name"))
        for remote in server.get("remotes") or []
        if isinstance(remote, dict)
        for header in remote.get("headers") or []
        if isinstance(header, dict) and header.get("isSecret")
    }
    snippets = []
    for client, label, file in _SNIPPET_CLIENTS:
        entry: dict[str, Any]
        prompt = _VSCodePrompts(secrets) if client == "vscode" else (lambda text, owner="": text)
        if launch.transport == "stdio":
            entry = {"command": launch.argv[0], "args": [prompt(arg) for arg in launch.argv[1:]]}
            if client == "vscode":
                entry = {"type": "stdio", **entry}
            if launch.env:
                entry["env"] = {name: prompt(value, name) for name, value in launch.env.items()}
        elif client == "claude-desktop":
            # Claude Desktop's config file starts local servers only: mcp-remote bridges to the URL.
            args = ["-y", "mcp-remote", launch.url or ""]
            for name, value in launch.headers.items():
                args += ["--header", f"{name}:{value}"]
            entry = {"command": "npx", "args": args}
        else:
            entry = {"url": prompt(launch.url or "")}
            if client == "vscode":
                entry = {"type": "http" if launch.transport == "streamable-http" else "sse", **entry}
            if launch.headers:
                entry["headers"] = {name: prompt(value, name) for name, value in launch.headers.items()}
        root = "servers" if client == "vscode" else "mcpServers"
        document: dict[str, Any] = {root: {key: entry}}
        if isinstance(prompt, _VSCodePrompts) and prompt.inputs:
            document = {"inputs": list(prompt.inputs.values()), **document}
        snippets.append(
            {"client": client, "label": label, "file": file, "json": json.dumps(document, indent=2)}
        )
    return snippets
