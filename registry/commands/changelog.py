"""``mcpdex changelog SERVER``: every recorded version of a server, diffed against the one before."""

from __future__ import annotations

import click

from registry.commands._options import format_option, registry_option


@click.command("changelog")
@click.argument("server")
@registry_option()
@format_option("text", "markdown", "json")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Show only the newest N versions.")
def changelog(server: str, registry_url: str | None, fmt: str, limit: int | None) -> None:
    """Print SERVER's schema changelog, newest version first, changes grouped by tool, and, for a
    memory server probed at both versions, what its probe says changed.

    \b
    mcpdex changelog memory-server
    mcpdex changelog memory-server --format markdown > CHANGELOG-tools.md
    """
    from registry.diffing.changelog import build_changelog, render_changelog
    from registry.storage.store import open_store

    with open_store(registry_url) as store:
        versions = store.versions(server)
        profiles = {v.label: store.profile(server, v.label) for v in versions}
    log = build_changelog(server, versions, profiles)
    if limit is not None:
        log["versions"] = log["versions"][:limit]
    click.echo(render_changelog(log, fmt), nl=False)
