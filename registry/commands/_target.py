"""The options every command that inspects a live server shares, so they all behave like ``inspect``.

Use ``@target_options`` on a click command and pass its keyword arguments on to
``snapshot_from_options(**kwargs)`` (or ``target_from_options`` for the Target alone).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import click

from registry.core.errors import UsageError

if TYPE_CHECKING:
    from registry.inspecting.oauth import OAuthSettings
    from registry.inspecting.targets import Target

TRANSPORT_CHOICES = ("stdio", "http", "streamable-http", "sse")

PROTOCOL_ERA_HELP = "auto probes for the 2026 protocol and falls back to the initialize handshake."


def target_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add the target options and the trailing ``[--] URL | COMMAND [ARGS...]`` argument."""
    decorators = [
        click.argument("argv", nargs=-1, type=click.UNPROCESSED, metavar="[--] URL|COMMAND [ARGS]..."),
        click.option(
            "--env", "env", multiple=True, metavar="K=V", help="Environment variable for a stdio server."
        ),
        click.option("--cwd", type=click.Path(file_okay=False), help="Working directory of a stdio server."),
        click.option(
            "--header", "header", multiple=True, metavar="'NAME: VALUE'", help="HTTP header for a URL target."
        ),
        click.option(
            "--transport",
            type=click.Choice(TRANSPORT_CHOICES),
            help="For a URL: streamable HTTP (default) or the older SSE transport.",
        ),
        click.option(
            "--config",
            type=click.Path(dir_okay=False),
            help="An mcpServers client config (Claude Desktop, Cursor, VS Code).",
        ),
        click.option("--server", help="Which entry of --config to inspect (optional when it has one)."),
        click.option(
            "--timeout",
            type=click.FloatRange(min=0.5),
            default=30.0,
            show_default=True,
            help="Deadline in seconds for the whole inspection, stopping the server included.",
        ),
        click.option(
            "--protocol-era",
            type=click.Choice(("auto", "legacy", "modern")),
            default="auto",
            show_default=True,
            help=PROTOCOL_ERA_HELP,
        ),
        click.option(
            "--version-label",
            help="Label the snapshot with this version instead of serverInfo.version (what it is shown and "
            "saved under).",
        ),
        *oauth_options(),
        click.option(
            "--sandbox",
            "sandbox",
            is_flag=True,
            help="Run a stdio server in the sandbox: no host files, environment, network or processes.",
        ),
        click.option(
            "--sandbox-read",
            "sandbox_read",
            multiple=True,
            metavar="PATH",
            help="--sandbox: also let the server read this path.",
        ),
        click.option(
            "--sandbox-write",
            "sandbox_write",
            multiple=True,
            metavar="DIR",
            help="--sandbox: also let the server write this folder.",
        ),
        click.option("--sandbox-network", is_flag=True, help="--sandbox: give the server the network."),
    ]
    for decorate in reversed(decorators):
        command = decorate(command)
    return command


def oauth_options() -> list[Callable[[Any], Any]]:
    """The options of MCP authorization for a URL target (a server that answers 401)."""
    from registry.inspecting.oauth import CLIENT_AUTH_METHODS, GRANTS

    return [
        click.option(
            "--client-id", metavar="ID", help="OAuth client registered for the server (else registers)."
        ),
        click.option(
            "--client-secret",
            metavar="SECRET",
            envvar="MCPDEX_CLIENT_SECRET",
            help="Its secret: the client-credentials grant (or MCPDEX_CLIENT_SECRET).",
        ),
        click.option(
            "--client-auth",
            type=click.Choice(tuple(CLIENT_AUTH_METHODS)),
            default="basic",
            show_default=True,
            help="How the client authenticates to the token endpoint.",
        ),
        click.option(
            "--private-key",
            type=click.Path(dir_okay=False),
            help="PEM key that signs a private-key-jwt assertion (client credentials).",
        ),
        click.option("--scope", metavar="SCOPES", help="OAuth scopes to ask for (else the server's)."),
        click.option(
            "--oauth-issuer", metavar="URL", help="Only this authorization server gets the credentials."
        ),
        click.option(
            "--client-metadata-url",
            metavar="URL",
            help="An https client ID metadata document, used as the client id where allowed.",
        ),
        click.option(
            "--oauth-grant",
            type=click.Choice(GRANTS),
            default="auto",
            show_default=True,
            help="auto: client credentials with a secret or key, else the browser.",
        ),
        click.option("--no-browser", is_flag=True, help="Print the authorization URL instead of opening it."),
        click.option("--no-oauth", is_flag=True, help="Never authorize: a 401 fails the inspection."),
    ]


def oauth_from_options(
    *,
    client_id: str | None = None,
    client_secret: str | None = None,
    client_auth: str = "basic",
    private_key: str | None = None,
    scope: str | None = None,
    oauth_issuer: str | None = None,
    client_metadata_url: str | None = None,
    oauth_grant: str = "auto",
    no_browser: bool = False,
    no_oauth: bool = False,
    **_ignored: Any,
) -> OAuthSettings | None:
    """The OAuth settings the options describe (None under --no-oauth)."""
    from registry.inspecting.oauth import OAuthSettings, can_ask_a_person, read_private_key

    if no_oauth:
        return None
    if private_key and client_auth != "private-key-jwt":
        client_auth = "private-key-jwt"
    return OAuthSettings(
        client_id=client_id,
        client_secret=client_secret,
        client_auth=client_auth,
        private_key=read_private_key(private_key) if private_key else None,
        scope=scope,
        issuer=oauth_issuer,
        client_metadata_url=client_metadata_url,
        grant=oauth_grant,
        open_browser=not no_browser,
        interactive=can_ask_a_person(),
    )


def pairs(values: Sequence[str], sep: str, flag: str, example: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for value in values:
        key, found, rest = value.partition(sep)
        if not found or not key.strip():
            raise UsageError(f"{flag} {value!r} is not {example}")
        out[key.strip()] = rest.strip() if sep == ":" else rest
    return out


def target_from_options(
    *,
    argv: Sequence[str] = (),
    env: Sequence[str] = (),
    cwd: str | None = None,
    header: Sequence[str] = (),
    transport: str | None = None,
    config: str | None = None,
    server: str | None = None,
    sandbox: bool = False,
    sandbox_read: Sequence[str] = (),
    sandbox_write: Sequence[str] = (),
    sandbox_network: bool = False,
    **options: Any,
) -> Target:
    """The Target the options describe (a ``registry.inspecting.targets.Target``)."""
    from registry.inspecting.targets import Target, config_target

    argv = list(argv)
    if argv and argv[0] == "--":
        argv = argv[1:]
    if config:
        if argv:
            raise UsageError("give either --config (with --server) or a URL/command, not both")
        target = config_target(config, server)
    elif server:
        raise UsageError("--server selects an entry of --config; pass --config FILE too")
    elif not argv:
        raise UsageError("no target: pass a URL, `-- COMMAND [ARGS...]`, or --config FILE --server NAME")
    elif len(argv) == 1 and argv[0].startswith(("http://", "https://")):
        kind = "sse" if transport == "sse" else "streamable-http"
        if transport == "stdio":
            raise UsageError("--transport stdio needs a command, not a URL")
        target = Target(transport=kind, url=argv[0])
    else:
        if transport not in (None, "stdio"):
            raise UsageError(f"--transport {transport} needs a URL target, not a command")
        target = Target(transport="stdio", argv=argv)
    if env:
        if target.transport != "stdio":
            raise UsageError("--env applies to a stdio command; use --header for a URL")
        target.env = {**target.env, **pairs(env, "=", "--env", "KEY=VALUE")}
    if cwd:
        if target.transport != "stdio":
            raise UsageError("--cwd applies to a stdio command")
        target.cwd = cwd
    if header:
        if target.transport == "stdio":
            raise UsageError("--header applies to a URL target; use --env for a stdio command")
        target.headers = {**target.headers, **pairs(header, ":", "--header", "'Name: value'")}
    if target.transport != "stdio":
        given = oauth_from_options(**options)
        # A config entry's own client credentials stand unless options name a client or forbid OAuth.
        if given is None or target.oauth is None or given.client_id:
            target.oauth = given
    elif options.get("client_id") or options.get("client_secret") or options.get("private_key"):
        raise UsageError("--client-id, --client-secret and --private-key apply to a URL target")
    widened = [flag for flag, used in (("--sandbox-read", sandbox_read), ("--sandbox-write", sandbox_write),
                                       ("--sandbox-network", sandbox_network)) if used]  # fmt: skip
    if widened and not sandbox:
        raise UsageError(f"{widened[0]} widens the sandbox; add --sandbox")
    if sandbox:
        from registry.inspecting.sandbox import SandboxPolicy, require

        if target.transport != "stdio":
            raise UsageError("--sandbox applies to a stdio command; a URL's server runs on its own side")
        require()
        target.sandbox = SandboxPolicy(
            network=sandbox_network,
            read=tuple(os.path.abspath(p) for p in sandbox_read),
            write=tuple(os.path.abspath(p) for p in sandbox_write),
        )
    return target


def snapshot_from_options(
    *,
    timeout: float = 30.0,
    protocol_era: str = "auto",
    version_label: str | None = None,
    meanwhile: Callable[[], object] | None = None,
    **options: Any,
) -> dict[str, Any]:
    """Inspect the target the options describe; raises InspectionError like ``mcpdex inspect``.
    ``meanwhile`` runs once the server has been started (see ``inspect``)."""
    from registry.inspecting.inspect import inspect

    target = target_from_options(**options)
    return inspect(
        target, timeout=timeout, protocol_era=protocol_era, version_label=version_label, meanwhile=meanwhile
    )


def load_scorer() -> None:
    """Load the scorer and the token counter: ``meanwhile`` for the commands that score what they
    inspect, so that they load while a local server starts up rather than after it answered."""
    from registry.diffing.context_cost import context_cost
    from scoring import score_snapshot

    # One small tool scored and measured loads what the scorer loads on first use (its models,
    # tables and validators) and the tokenizer; the card is not kept.
    sample = {"tools": [{"name": "search_notes", "description": "Search notes.", "inputSchema": _SAMPLE}]}
    score_snapshot(sample)
    context_cost(sample)


_SAMPLE = {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}
