"""What pages show beside the tools: the official MCP Registry's listing of a server, its
transports, and the context cost of its tool definitions.
"""

from __future__ import annotations

from typing import Any

from registry.core.snapshot import server_version
from registry.diffing.context_cost import context_cost
from registry.site.model import ServerData, as_dict
from registry.site.text import as_text, format_date


def context_view(snapshot: dict[str, Any]) -> dict[str, Any] | None:
    """The context cost of the page's version, its tools largest first."""
    if not snapshot:
        return None
    cost = context_cost(snapshot)
    largest = max((tool["tokens"] for tool in cost["tools"]), default=0) or 1
    return {
        **cost,
        "tools": [
            {**tool, "share": round(100 * tool["tokens"] / largest)}
            for tool in sorted(cost["tools"], key=lambda tool: (-tool["tokens"], tool["name"]))
        ],
    }


def _transports(server: ServerData) -> list[str]:
    """``local`` and/or ``remote``: from the registry's listing, else from how it was inspected."""
    from registry.inspecting.official.snippets import transports_of

    if server.registry:
        return transports_of(server.registry[-1].get("server") or {})
    source = as_dict(server.snapshot.get("source"))
    transport = source.get("transport")
    if transport == "stdio":
        return ["local"]
    return ["remote"] if transport in ("streamable-http", "sse") else []


def listing_columns(server: ServerData) -> dict[str, Any]:
    """The index columns for context cost and transport, and the registry status when not active."""
    cost = context_cost(server.snapshot) if server.snapshot else None
    latest = server.registry[-1] if server.registry else None
    return {
        "context_tokens": cost["tokens"] if cost else None,
        "context_exact": cost["exact"] if cost else True,
        "transports": _transports(server),
        "registry_status": latest.get("status") if latest else None,
    }


def _https(url: Any) -> str:
    """``url`` when it is an http(s) URL (the only kind a page links to), else empty."""
    return url if isinstance(url, str) and url.startswith(("https://", "http://")) else ""


_PACKAGE_FIELDS = ("registryType", "identifier", "version", "runtimeHint")


_LISTING_FIELDS = ("version", "status", "status_message", "outcome", "reason")


def registry_listing(server: ServerData) -> dict[str, Any] | None:
    """What the official registry says about the server: metadata of the listing that matches the
    page's version (else the newest), each version's status, and install snippets."""
    from registry.inspecting.official.snippets import install_snippets

    if not server.registry:
        return None
    version = server_version(server.snapshot) if server.snapshot else None
    current = next((e for e in server.registry if e.get("version") == version), server.registry[-1])
    document = as_dict(current.get("server"))
    repository = as_dict(document.get("repository"))
    packages = [p for p in document.get("packages") or [] if isinstance(p, dict)]
    remotes = [r for r in document.get("remotes") or [] if isinstance(r, dict)]
    return {
        "title": as_text(document.get("title")),
        "description": as_text(document.get("description")),
        "version": as_text(current.get("version")),
        "status": as_text(current.get("status")),
        "status_message": as_text(current.get("status_message")),
        "published": format_date(current.get("published_at")),
        "website": _https(document.get("websiteUrl")),
        "repository": _https(repository.get("url")),
        "subfolder": as_text(repository.get("subfolder")),
        "icons": [
            {
                "src": _https(icon.get("src")),
                "sizes": " ".join(map(str, icon.get("sizes") or [])),
                "theme": as_text(icon.get("theme")),
            }
            for icon in document.get("icons") or []
            if isinstance(icon, dict) and _https(icon.get("src"))
        ],
        "packages": [
            {key: as_text(package.get(key)) for key in _PACKAGE_FIELDS}
            | {"transport": as_text((package.get("transport") or {}).get("type") or "stdio")}
            for package in packages
        ],
        "remotes": [{"type": as_text(r.get("type")), "url": as_text(r.get("url"))} for r in remotes],
        "snippets": install_snippets(document),
        "versions": [
            {key: as_text(entry.get(key)) for key in _LISTING_FIELDS} for entry in reversed(server.registry)
        ],
    }


def _largest(profile: dict[str, Any]) -> dict[str, Any] | None:
    sizes = (profile.get("memory") or {}).get("sizes") or []
    return max(sizes, key=lambda size: size["items"]) if sizes else None


def _install_line(server: ServerData) -> str:
    """How a reader starts it: the official registry's package when listed, else the package of
    the command recorded (``npx -y`` for one under node_modules), else that command's program."""
    import shlex

    entry = server.registry[-1] if server.registry else None
    for package in as_dict(as_dict(entry).get("server")).get("packages") or []:
        if not isinstance(package, dict) or not package.get("identifier"):
            continue
        name, version = as_text(package["identifier"]), as_text(package.get("version"))
        pin = {"npm": f"npx -y {name}@{version}", "pypi": f"uvx {name}=={version}"}
        return pin.get(as_text(package.get("registryType")), name) if version else name
    target = as_text(as_dict(as_dict(server.snapshot).get("source")).get("target"))
    try:
        argv = shlex.split(target)
    except ValueError:
        return ""
    if argv and argv[0].rsplit("/", 1)[-1] in ("npx", "uvx", "pipx", "bunx", "pnpx", "docker"):
        return " ".join([argv[0].rsplit("/", 1)[-1], *argv[1:]])
    for arg in argv:
        parts = arg.split("/")
        if "node_modules" in parts:
            rest = parts[len(parts) - parts[::-1].index("node_modules") :]
            if rest and rest[0] == ".bin" and len(rest) > 1:
                return f"npx -y {rest[1]}"
            name = "/".join(rest[:2]) if rest and rest[0].startswith("@") else (rest[0] if rest else "")
            return f"npx -y {name}" if name else ""
    return " ".join([argv[0].rsplit("/", 1)[-1], *argv[1:]]) if argv else ""


def memory_columns(server: ServerData) -> dict[str, Any] | None:
    """The memory view's columns for one memory server (None for any other): operations offered,
    probe outcome, bounded reads, token cost of a full and of a bounded read at the largest size
    probed, p50 call latency, cold start, storage and the install line."""
    from registry.core.operations import OPERATIONS, map_operations

    profile = server.profile
    if not profile or not server.snapshot:
        return None
    operations = profile.get("operations") or map_operations(server.snapshot.get("tools") or [])
    conformance = profile.get("conformance")
    largest = _largest(profile)
    reads = {row["form"]: row for row in (largest or {}).get("reads", []) if row.get("ok", True)}
    # The full read is the unbounded read that returned the most (a list that failed is none).
    unbounded = [row for form, row in reads.items() if "limit" not in form and "one item" not in form]
    full = max(unbounded, key=lambda row: (row["items"], row["tokens"]), default=None)
    bounded = next((row for form, row in reads.items() if "limit 10" in form), None)
    every = next((row for form, row in reads.items() if form.endswith("(every item matches)")), None)
    bounded_by_default = bool(every and largest and every["items"] < largest["items"])
    offers_limit = bool((operations.get("recall") or {}).get("arguments", {}).get("limit"))
    return {
        "operations": [op.id for op in OPERATIONS if op.id in operations],
        "probed": conformance is not None,
        "probed_at": profile.get("probedAt"),
        "passed": conformance["passed"] if conformance else None,
        "failed": conformance["failed"] if conformance else None,
        "beyond_failed": (conformance.get("beyondUpstream") or {}).get("failed", 0) if conformance else 0,
        "bounded": "by default" if bounded_by_default else ("with a limit" if offers_limit else "no"),
        "items": largest["items"] if largest else None,
        "full_tokens": full["tokens"] if full else None,
        "full_items": full["items"] if full else None,
        "bounded_tokens": bounded["tokens"]
        if bounded
        else (every["tokens"] if bounded_by_default and every else None),
        "p50_ms": profile.get("callP50Ms"),
        "cold_start_ms": profile.get("coldStartMs"),
        "storage": profile.get("storage"),
        "install": _install_line(server),
    }
