"""``mcpdex auth``: sign in to a server behind MCP authorization, see what is kept, sign out.

The tokens live in the data directory, one file per server, readable by the user alone; inspect,
check, score and the other commands use and refresh them. Nothing here prints a token or a secret.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import click

from registry.commands._target import oauth_from_options, oauth_options


@click.group("auth")
def auth() -> None:
    """Sign in to servers behind MCP authorization (OAuth), and sign out."""


def _url_argument(command: Any) -> Any:
    return click.argument("url", metavar="URL")(command)


def _with_oauth_options(command: Any) -> Any:
    for option in reversed(oauth_options()):
        command = option(command)
    return command


def _check_url(url: str) -> None:
    from registry.core.errors import UsageError

    if not url.startswith(("http://", "https://")):
        raise UsageError(f"{url!r} is not a server URL; pass the http(s) URL you inspect")


@auth.command("login")
@_url_argument
@_with_oauth_options
@click.option(
    "--transport",
    type=click.Choice(("streamable-http", "sse")),
    default="streamable-http",
    show_default=True,
    help="The server's transport.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=1),
    default=300.0,
    show_default=True,
    help="Seconds to finish signing in (the browser included).",
)
def login(url: str, transport: str, timeout: float, **options: Any) -> None:
    """Authorize with the server at URL and keep its token for later commands.

    \b
    mcpdex auth login https://example.com/mcp                  # in your browser
    mcpdex auth login https://example.com/mcp --client-id ID --client-secret SECRET
    """
    import anyio

    from registry.core.errors import UsageError
    from registry.inspecting.oauth import TokenCache
    from registry.inspecting.session import open_client
    from registry.inspecting.targets import Target

    _check_url(url)
    settings = oauth_from_options(**options)
    if settings is None:
        raise UsageError("auth login authorizes: drop --no-oauth")
    settings.interactive = True  # asked for: the URL is printed where no browser opens
    target = Target(transport=transport, url=url, oauth=settings)

    async def connect() -> None:
        async with open_client(target, timeout=timeout, protocol_era="legacy"):
            pass

    anyio.run(connect)
    status = TokenCache(url).status()
    if not status["token"]:
        click.echo(f"connected to {status['server']}; it asked for no authorization, so no token is kept")
        return
    click.echo(f"signed in to {status['server']}{_details(status)}")


@auth.command("logout")
@_url_argument
def logout(url: str) -> None:
    """Forget the token and client registration kept for the server at URL."""
    from registry.inspecting.oauth import TokenCache

    _check_url(url)
    cache = TokenCache(url)
    if cache.forget():
        click.echo(f"signed out of {cache.status()['server']}")
    else:
        click.echo(f"nothing was kept for {cache.status()['server']}")


@auth.command("status")
@_url_argument
@click.option(
    "--format",
    "fmt",
    type=click.Choice(("text", "json")),
    default="text",
    show_default=True,
    help="text for people, json for scripts.",
)
def status(url: str, fmt: str) -> None:
    """What is kept for the server at URL: whether a token is, its scope and expiry (never the token)."""
    from registry.inspecting.oauth import TokenCache

    _check_url(url)
    state = TokenCache(url).status()
    if fmt == "json":
        click.echo(json.dumps(state, sort_keys=True))
        return
    if not state["token"]:
        click.echo(f"not signed in to {state['server']}; `mcpdex auth login {url}` signs in")
        return
    click.echo(f"signed in to {state['server']}{_details(state)}")


def _details(state: dict[str, Any]) -> str:
    parts = []
    if state.get("scope"):
        parts.append(f"scope {state['scope']}")
    expires = state.get("expiresAt")
    if expires is not None:
        moment = datetime.fromtimestamp(expires, UTC).strftime("%Y-%m-%d %H:%M UTC")
        expired = expires <= datetime.now(UTC).timestamp()
        parts.append(f"{'expired' if expired else 'expires'} {moment}")
        if expired and state.get("refreshable"):
            parts.append("refreshed on next use")
    if state.get("clientId"):
        parts.append(f"client {state['clientId']}")
    return f" ({', '.join(parts)})" if parts else ""
