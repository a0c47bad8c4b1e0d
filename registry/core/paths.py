"""Where mcpdex keeps things: the user's data directory and the bundled templates."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_NAME = "mcpdex"


def data_dir(*, create: bool = True) -> Path:
    """The user's data directory for mcpdex (``MCPDEX_DATA_DIR`` overrides it), created unless ``create``
    is false."""
    override = os.environ.get("MCPDEX_DATA_DIR")
    path = Path(override) if override else Path(platformdirs.user_data_dir(APP_NAME))
    if create:
        path.mkdir(parents=True, exist_ok=True)
    return path


def resolve_registry_url(url: str | None) -> str:
    """The registry a ``--registry`` value names: ``url``, else ``MCPDEX_REGISTRY``, else an SQLite file
    in the data directory. A plain path (no ``scheme://``) is an SQLite file.

    Nothing is created here: a read of a registry that is not there finds nothing, and the store
    makes the file and its folder on its first write.
    """
    url = url or os.environ.get("MCPDEX_REGISTRY")
    if not url:
        return f"sqlite:///{data_dir(create=False) / 'registry.sqlite'}"
    if "://" not in url:
        return f"sqlite:///{Path(url).expanduser().absolute()}"
    return url


def templates_dir() -> Path:
    """The bundled Jinja2 templates: inside the wheel, or ``templates/`` of a source checkout."""
    package = Path(__file__).resolve().parents[1]
    for candidate in (package / "templates", package.parent / "templates"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("mcpdex templates are missing; reinstall mcpdex")
