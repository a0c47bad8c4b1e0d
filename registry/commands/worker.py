"""``mcpdex worker``: run the inspection jobs that ``mcpdex crawl --enqueue`` queued."""

from __future__ import annotations

import click

from registry.commands._options import DATABASE_HELP, registry_option
from registry.queue.broker import DEFAULT_VISIBILITY_TIMEOUT_S


@click.command("worker")
@registry_option(DATABASE_HELP)
@click.option(
    "--queue",
    "queue_url",
    metavar="URL",
    envvar="MCPDEX_QUEUE",
    required=True,
    help="The broker: redis://HOST:PORT/DB or amqp://USER:PASSWORD@HOST:PORT/ (or MCPDEX_QUEUE).",
)
@click.option(
    "--concurrency", type=click.IntRange(min=1), default=4, show_default=True, help="Jobs run at once."
)
@click.option(
    "--visibility-timeout",
    type=click.FloatRange(min=1),
    default=DEFAULT_VISIBILITY_TIMEOUT_S,
    show_default=True,
    metavar="SECONDS",
    help="Redis: a job whose worker sent no heartbeat for this long goes to another worker.",
)
@click.option(
    "--retry-backoff",
    type=click.FloatRange(min=0.1),
    default=15.0,
    show_default=True,
    metavar="SECONDS",
    help="The first wait before a failed inspection is tried again; each retry doubles it.",
)
@click.option(
    "--host-limit",
    type=click.IntRange(min=1),
    metavar="N",
    help="At most N inspections at once fetching from one host (npm, PyPI, a remote's host), "
    "across every worker on the same Redis queue.",
)
@click.option(
    "--sandbox",
    "sandbox",
    type=click.Choice(("on", "off")),
    default=None,
    help="Run each stdio server in the sandbox (default on, or MCPDEX_SANDBOX); off runs them as you.",
)
def worker(
    registry_url: str | None,
    queue_url: str,
    concurrency: int,
    visibility_timeout: float,
    retry_backoff: float,
    host_limit: int | None,
    sandbox: str | None,
) -> None:
    """Run queued inspection jobs and record each one's outcome in the registry, until stopped.

    Run as many as you like, on any machines that reach the queue and the registry: each job is
    recorded once, and a job whose worker dies is given to another.

    \b
    mcpdex worker --registry postgresql://… --queue redis://127.0.0.1:6379/0 --concurrency 8

    Each job runs as `mcpdex crawl` runs its server: a stdio server in the sandbox under the policy
    its config entry gave (the default one otherwise), a registry npm or PyPI package fetched first
    with install scripts off, then run offline. Where no sandbox can be made the worker refuses to
    start; --sandbox off (or MCPDEX_SANDBOX=off) runs the servers as you.
    """
    from registry.inspecting.sandbox import mode_from
    from registry.queue.passes import run_worker

    sandboxed = mode_from(sandbox, default="on") == "on"

    def ready() -> None:
        mode = "sandboxed" if sandboxed else "not sandboxed"
        click.echo(f"worker: running {concurrency} at once, {mode}; stop with Ctrl-C", err=True)

    run_worker(
        queue_url=queue_url,
        registry_url=registry_url,
        concurrency=concurrency,
        visibility_timeout_s=visibility_timeout,
        retry_backoff_s=retry_backoff,
        host_limit=host_limit,
        time_limit_s=3600.0,
        sandboxed=sandboxed,
        on_ready=ready,
    )
