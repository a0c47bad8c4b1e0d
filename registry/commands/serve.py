"""``mcpdex serve`` (the registry over HTTP) and ``mcpdex token`` (its write tokens)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import click

from registry.commands._options import limit_options, registry_option
from registry.core.errors import UsageError

if TYPE_CHECKING:
    from registry.storage.tokens import TokenStore


@click.command()
@registry_option()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="Port to listen on."
)
@click.option(
    "--template-dir",
    type=click.Path(exists=True, file_okay=False),
    help="A folder of templates that override the bundled page templates by name.",
)
@click.option(
    "--max-body",
    default=4 * 1024 * 1024,
    show_default=True,
    type=click.IntRange(1024, 256 * 1024 * 1024),
    help="Largest request body accepted, in bytes.",
)
@limit_options
@click.option(
    "--score-budget",
    default=300.0,
    show_default=True,
    type=click.FloatRange(min=1),
    metavar="SECONDS",
    help="Longest the scoring of one version may take; past it the version is left unscored.",
)
@click.option(
    "--log-level",
    default="info",
    show_default=True,
    type=click.Choice(["critical", "error", "warning", "info", "debug"]),
    help="The least severe messages the service logs to stderr.",
)
def serve(
    registry_url: str | None,
    host: str,
    port: int,
    template_dir: str | None,
    max_body: int,
    log_level: str,
    score_budget: float,
    **limits: int | None,
) -> None:
    """Serve the registry: the JSON API under /api (OpenAPI at /api/openapi.json) and the pages at /.

    Reads are public; writes need a token from `mcpdex token create`. Run several processes on one
    PostgreSQL registry to scale out. Submissions past the per-server limits are refused (422).
    """
    import uvicorn

    from registry.core.limits import Limits
    from registry.web.app import create_app

    if registry_url and registry_url.startswith(("http://", "https://")):
        raise UsageError(
            "--registry for `serve` is a database URL (sqlite:///… or postgresql://…), not http(s)"
        )
    with _tokens(registry_url):  # fail here, in one line, when the database cannot be opened
        pass
    app = create_app(
        registry_url,
        template_dir=template_dir,
        max_body_bytes=max_body,
        limits=Limits.from_env(None, **limits),
        score_budget_s=score_budget,
    )
    click.echo(f"mcpdex: serving the registry on http://{host}:{port}/ (API: /api/openapi.json)", err=True)
    uvicorn.run(app, host=host, port=port, log_level=log_level, proxy_headers=False, server_header=False)


@contextmanager
def _tokens(registry_url: str | None) -> Iterator[TokenStore]:
    from registry.storage.store import open_store
    from registry.storage.tokens import open_tokens

    store = open_store(registry_url)
    try:
        yield open_tokens(store)
    finally:
        store.close()


@click.group()
def token() -> None:
    """Create, list and revoke the bearer tokens that may write to `mcpdex serve`."""


@token.command("create")
@click.argument("name")
@click.option(
    "--scope",
    default="*",
    show_default=True,
    metavar="PATTERN",
    help="Shell-style pattern of the server names this token may write to, e.g. 'acme-*'.",
)
@registry_option()
def create(name: str, scope: str, registry_url: str | None) -> None:
    """Create a token NAME; prints the secret once (only its hash is kept)."""
    with _tokens(registry_url) as tokens:
        record, secret = tokens.create(name, scope)
    click.echo(
        f"mcpdex: created token {record.name!r} (id {record.id}) for servers matching {record.scope!r}; "
        "it is shown once, keep it in a secret store",
        err=True,
    )
    click.echo(secret)


@token.command("list")
@registry_option()
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="Output format: a table, or JSON for scripts.",
)
def list_tokens(registry_url: str | None, output_format: str) -> None:
    """List the tokens (never their secrets)."""
    import dataclasses

    with _tokens(registry_url) as tokens:
        records = tokens.list()
    if output_format == "json":
        click.echo(json.dumps([dataclasses.asdict(r) for r in records], indent=2))
        return
    if not records:
        click.echo("no tokens; create one with `mcpdex token create NAME`", err=True)
        return
    click.echo(f"{'NAME':24} {'ID':12} {'SCOPE':24} {'CREATED':20} {'LAST USED':20} STATUS")
    for r in records:
        status = "active" if r.active else f"revoked {r.revoked_at}"
        click.echo(
            f"{r.name:24} {r.id:12} {r.scope:24} {r.created_at:20} {r.last_used_at or '-':20} {status}"
        )


@token.command("revoke")
@click.argument("name_or_id")
@registry_option()
def revoke(name_or_id: str, registry_url: str | None) -> None:
    """Revoke a token by name or id; writes with it are refused from now on."""
    with _tokens(registry_url) as tokens:
        record = tokens.revoke(name_or_id)
    click.echo(f"mcpdex: token {record.name!r} revoked at {record.revoked_at}", err=True)
