"""Options shared by several commands, defined once so their names, defaults and help agree."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from registry.core.errors import UsageError

# What --registry takes, worded once: a database, or (for the commands that write through it or read
# the latest version) also an `mcpdex serve` service.
_REGISTRY_DEFAULT = "(default: MCPDEX_REGISTRY, else an SQLite file in the data directory)"
DATABASE_HELP = f"An SQLite PATH, sqlite:///PATH or postgresql://… {_REGISTRY_DEFAULT}."
SERVICE_HELP = f"An SQLite PATH, sqlite:///PATH, postgresql://… or an mcpdex serve URL {_REGISTRY_DEFAULT}."


def format_option(*choices: str, help: str = "Output format.") -> Callable[[Any], Any]:
    """``--format`` (stored as ``fmt``) over ``choices``; the first is the default."""
    return click.option(
        "--format", "fmt", type=click.Choice(choices), default=choices[0], show_default=True, help=help
    )


@contextmanager
def writing(flag: str, path: str | Path) -> Iterator[None]:
    """Writes to the output ``path`` (given as ``flag``) in this block fail as one line and exit 2."""
    try:
        yield
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise UsageError(f"{flag} {path}: cannot write there ({reason}); choose another path") from None


def registry_option(help: str = DATABASE_HELP, *, purpose: str | None = None) -> Callable[[Any], Any]:
    """``--registry URL`` (stored as ``registry_url``): ``help`` says which registries the command takes
    (:data:`DATABASE_HELP` or :data:`SERVICE_HELP`, so every command words them alike), ``purpose``
    what this command does with it."""
    text = f"{purpose}. {help}" if purpose else help
    return click.option("--registry", "registry_url", metavar="URL", help=text)


def limit_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--max-tools`` and the other per-server limits of ``registry.core.limits.LIMITS``, one option each.

    Each is None when not given; ``Limits.from_env(**limits)`` then takes the environment or the default.
    """
    from registry.core.limits import LIMITS, Limits

    defaults = Limits()
    for limit in reversed(LIMITS):
        command = click.option(
            limit.option,
            limit.attribute,
            type=click.IntRange(min=1),
            metavar="N",
            help=f"At most N {limit.what} per server "
            f"(default {getattr(defaults, limit.attribute)}, or {limit.env}).",
        )(command)
    return command
