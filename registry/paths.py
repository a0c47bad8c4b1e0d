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


def default_registry_url() -> str:
    """``MCPDEX_REGISTRY`` if set, else an SQLite file in the data directory.

    Nothing is created here: a read of a registry that is not there finds nothing, and the store
    makes the file and its folder on its first write.
    """
    return os.environ.get("MCPDEX_REGISTRY") or f"sqlite:///{data_dir(create=False) / 'registry.sqlite'}"


def templates_dir() -> Path:
    """The bundled Jinja2 templates: inside the wheel, or ``templates/`` of a source checkout."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "templates", here.parent / "templates"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("mcpdex templates are missing; reinstall mcpdex")
