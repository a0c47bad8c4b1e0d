"""Options shared by several commands, defined once so their names, defaults and help agree."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

DATABASE_HELP = (
    "An SQLite PATH, sqlite:///PATH or postgresql://… (default: MCPDEX_REGISTRY, else data dir)."
)
SERVICE_HELP = "An SQLite PATH, postgresql://… or an mcpdex serve URL (default: as for a database)."


def format_option(*choices: str, help: str = "Output format.") -> Callable[[Any], Any]:
    """``--format`` (stored as ``fmt``) over ``choices``; the first is the default."""
    return click.option(
        "--format", "fmt", type=click.Choice(choices), default=choices[0], show_default=True, help=help
    )


def registry_option(help: str = DATABASE_HELP) -> Callable[[Any], Any]:
    """``--registry URL`` (stored as ``registry_url``)."""
    return click.option("--registry", "registry_url", metavar="URL", help=help)
