"""The layers are a rule, checked here: which package may import which.

Every import statement counts, at module level or inside a function, because a lazy import still
ties the two together; only imports under ``if TYPE_CHECKING:`` do not, as they load nothing. The
pure core (the snapshot model, the diff, the gate, the scorer, the site) imports neither the MCP
SDK, a database driver, an HTTP client nor the CLI framework, and importing it in a fresh
interpreter loads none of them.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("common", "registry", "scoring", "server")
IO_LIBRARIES = ("mcp", "sqlalchemy", "httpx", "click", "starlette", "uvicorn", "psycopg")
REGISTRY_LAYERS = (
    "core",
    "diffing",
    "gating",
    "site",
    "inspecting",
    "storage",
    "probing",
    "queue",
    "web",
    "commands",
)


def _others(*allowed: str) -> tuple[str, ...]:
    return tuple(f"registry.{layer}" for layer in REGISTRY_LAYERS if layer not in allowed)


# (package, what it must not import, why). A name forbids the package and everything under it.
CONTRACTS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("common", ("registry", "scoring", "server", *IO_LIBRARIES), "shared by all, so it depends on none"),
    ("scoring", ("registry", "server", *IO_LIBRARIES), "the scorer is pure; the registry imports it"),
    ("server", ("registry", "scoring"), "the memory server ships on its own"),
    ("registry.core", (*_others("core"), "scoring", "server", *IO_LIBRARIES), "the model every layer shares"),
    ("registry.diffing", (*_others("core"), "server", *IO_LIBRARIES), "the diff is pure"),
    ("registry.gating", (*_others("core", "diffing"), "server", *IO_LIBRARIES), "the gate is pure"),
    (
        "registry.site",
        (*_others("core", "diffing", "inspecting"), "server", *IO_LIBRARIES),
        "rendering is pure; it reads the official registry's entry helpers, never a live server",
    ),
    ("registry.inspecting", (*_others("core", "inspecting"), "scoring", "server", "click"), "no CLI"),
    ("registry.storage", (*_others("core"), "server", "click", "mcp"), "the store is not the memory server"),
    ("registry.probing", (*_others("core", "inspecting"), "server", "click"), "the probe talks MCP only"),
    (
        "registry.queue",
        (*_others("core", "inspecting", "storage", "queue"), "server", "click", "mcp"),
        "jobs call the inspector and the store; the CLI calls them",
    ),
    ("registry.web", ("registry.commands", "registry.inspecting", "registry.probing", "click"), "no CLI"),
)


def _modules(package: str) -> Iterator[tuple[str, Path]]:
    root = REPO / package.replace(".", "/")
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(REPO).with_suffix("")
        parts = relative.parts[:-1] if relative.name == "__init__" else relative.parts
        yield ".".join(parts), path


def _type_only(tree: ast.AST) -> set[int]:
    """The ids of the import nodes under ``if TYPE_CHECKING:``: they name a type, load nothing."""
    return {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for statement in node.body
        for inner in ast.walk(statement)
    }


def _imports(module: str, path: Path) -> Iterator[tuple[str, int]]:
    """Every module name an import statement in ``path`` names, with its line (type-only ones aside)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    type_only = _type_only(tree)
    for node in ast.walk(tree):
        if id(node) in type_only:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against the importing package
                base = module.split(".")[: -node.level] if path.name != "__init__.py" else module.split(".")
                if path.name == "__init__.py" and node.level > 1:
                    base = base[: -(node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            yield target, node.lineno
            for alias in node.names:  # `from registry import diffing` names a package too
                yield f"{target}.{alias.name}", node.lineno


def _under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def violations(package: str, forbidden: tuple[str, ...]) -> list[str]:
    forbidden = tuple(banned for banned in forbidden if not _under(package, banned))  # its own modules
    found = []
    for module, path in _modules(package):
        for target, line in _imports(module, path):
            for banned in forbidden:
                if _under(target, banned):
                    found.append(f"{path.relative_to(REPO)}:{line} imports {target} ({banned} is forbidden)")
                    break
    return sorted(set(found))


@pytest.mark.parametrize(("package", "forbidden", "why"), CONTRACTS, ids=[c[0] for c in CONTRACTS])
def test_import_contract(package: str, forbidden: tuple[str, ...], why: str) -> None:
    assert violations(package, forbidden) == [], f"{package}: {why}"


def test_the_contracts_catch_a_violation(tmp_path: Path) -> None:
    # The checker itself: a lazy import of the CLI framework inside a function is found.
    module = tmp_path / "probe_module.py"
    module.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    import sqlalchemy\n"
        "def f():\n    import click.testing\n    from registry.commands import score\n"
    )
    names = [name for name, _ in _imports("probe_module", module)]
    assert "click.testing" in names and "registry.commands.score" in names
    assert "sqlalchemy" not in names


def test_every_registry_module_belongs_to_a_layer() -> None:
    top_level = {"registry", "registry.cli", "registry.__main__"}
    stray = [
        module
        for module, _ in _modules("registry")
        if module not in top_level and module.split(".")[1] not in REGISTRY_LAYERS
    ]
    assert stray == [], "put each module in the sub-package whose job it does"


PURE = ("registry.core", "registry.diffing", "registry.gating", "registry.site", "scoring", "common")


def test_importing_the_pure_core_loads_no_io_library() -> None:
    modules = [module for package in PURE for module, _ in _modules(package)]
    script = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & {set(IO_LIBRARIES)!r}))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]", "importing the pure core loaded these"
