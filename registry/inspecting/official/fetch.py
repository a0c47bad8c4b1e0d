"""A registry package in two phases: fetched first, then run offline in the sandbox.

The fetch runs npm or uv in the sandbox with the network, nothing secret (the runner's own settings
only, none of the server's inputs) and only the package's own folder writable, install scripts off:
npm with ``--ignore-scripts``, uv with ``--no-build`` (wheels only, so no ``setup.py`` runs). Each
package gets a folder of its own, its download cache included, removed once it has been inspected,
so nothing one package writes is read by the next. Then the package's command runs in the sandbox
as any untrusted server does (no network), with that folder readable.

A package that needs an sdist build fails its fetch with a message that says so; one whose install
scripts did not run and that then fails is reported with the scripts it has.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from registry.core.errors import InspectionError

if TYPE_CHECKING:
    from registry.inspecting.sandbox import SandboxPolicy

# A fetch downloads a package and its dependencies: it gets longer than an inspection, and may write
# larger files than a server may (a wheel with a native library, a bundled binary).
FETCH_TIMEOUT_S = 300.0
FETCH_LIMITS = {"fileSizeMiB": 1024, "cpuSeconds": 600}
# npm's install scripts: what --ignore-scripts leaves unrun.
_INSTALL_SCRIPTS = ("preinstall", "install", "postinstall")
_NEEDS_PYTHON = re.compile(r"current Python version \([^)]*\) does not satisfy Python\s*>=\s*([0-9][0-9.]*)")
_NO_WHEEL = re.compile(r"Wheels are required for `([^`]+)` because building from source is disabled")


class FetchFailed(InspectionError):
    """A package could not be fetched (or, fetched, could not be run); the message says why."""

    def __init__(self, message: str, output: str = "") -> None:
        super().__init__(message)
        self.output = output  # the tail of what the fetching tool wrote


@dataclass(frozen=True)
class PackageSpec:
    """What to fetch for a registry package: ``kind`` (npm or pypi), its identifier and version, the
    entry's runtimeArguments (already allow-listed) and its packageArguments."""

    kind: str
    identifier: str
    version: str
    runtime: tuple[str, ...] = ()
    arguments: tuple[str, ...] = ()

    @property
    def requirement(self) -> str:
        separator = "@" if self.kind == "npm" else "=="
        return f"{self.identifier}{separator}{self.version}"


@dataclass
class Fetched:
    """A fetched package: the command that runs it from its folder, and the install scripts its
    packages have that were not run."""

    folder: Path
    argv: list[str]
    unrun_scripts: list[str] = field(default_factory=list)

    def policy(self, base: SandboxPolicy) -> SandboxPolicy:
        """``base`` with this package's folder readable: what its command runs under."""
        return replace(base, read=(*base.read, str(self.folder)))

    def failure_note(self) -> str:
        """What to add to a failed inspection of this package: the install scripts it did not run."""
        if not self.unrun_scripts:
            return ""
        shown = ", ".join(self.unrun_scripts[:3]) + (", …" if len(self.unrun_scripts) > 3 else "")
        return (
            f" (its install scripts were not run: {shown}; a package that needs them cannot be inspected "
            "in the sandbox, --sandbox off runs them)"
        )


@contextlib.contextmanager
def package_folder() -> Iterator[Path]:
    """A folder for one package's fetch, removed afterwards; run as root, it belongs to the sandbox's
    unprivileged user, who fetches into it."""
    from registry.inspecting.sandbox import UNPRIVILEGED_UID

    folder = Path(tempfile.mkdtemp(prefix="mcpdex-package-"))
    try:
        # Made before anything runs in it, so that nothing there can turn it into a link first.
        (folder / "tmp").mkdir()
        for path in (folder / "tmp", folder):
            if os.geteuid() == 0:
                os.chown(path, UNPRIVILEGED_UID, UNPRIVILEGED_UID, follow_symlinks=False)
            path.chmod(0o755)
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def fetch(spec: PackageSpec, folder: Path, runner_env: dict[str, str]) -> Fetched:
    """Fetch ``spec`` into ``folder`` in the sandbox, install scripts off, and return how to run it.

    Raises FetchFailed naming the package and the reason (an sdist build it would need included)."""
    if spec.kind == "npm":
        return _fetch_npm(spec, folder, runner_env)
    if spec.kind == "pypi":
        return _fetch_pypi(spec, folder, runner_env)
    raise FetchFailed(f"{spec.kind} packages are not fetched; only npm and pypi are")


def _run(what: str, argv: list[str], folder: Path, env: dict[str, str]) -> str:
    """One step of a fetch in the sandbox: the network, ``folder`` writable, nothing else; its output,
    or FetchFailed with its last lines."""
    from registry.inspecting.sandbox import SandboxPolicy, run

    policy = SandboxPolicy(network=True, write=(str(folder),))
    # Temporary files and every cache go to the package's folder: the sandbox's HOME is small.
    env = env | {"TMPDIR": str(folder / "tmp"), "XDG_CACHE_HOME": str(folder / "cache")}
    ran = run(argv, env, str(folder), policy, timeout=FETCH_TIMEOUT_S, limits=FETCH_LIMITS)
    if ran.returncode == 0:
        return ran.output
    if ran.returncode is None:
        raise FetchFailed(f"{what} did not finish within {FETCH_TIMEOUT_S:.0f} s")
    lines = [line.strip() for line in ran.output.splitlines() if line.strip()]
    errors = [line for line in lines if "error" in line.lower()] or lines or [_status(ran.returncode)]
    raise FetchFailed(f"{what} failed: {errors[0][:300]}", ran.output)


def _status(code: int) -> str:
    """An exit code for people: a signal by name."""
    import signal

    if code < 0:
        with contextlib.suppress(ValueError):
            return f"ended by {signal.Signals(-code).name}"
    return f"exit status {code}, no output"


def _fetch_npm(spec: PackageSpec, folder: Path, runner_env: dict[str, str]) -> Fetched:
    npm = shutil.which("npm")
    if npm is None:
        raise FetchFailed("npm is not installed; install Node.js to inspect npm packages")
    extra: list[str] = []
    runtime = list(spec.runtime)
    while runtime:
        arg = runtime.pop(0)
        if arg in ("-p", "--package") and runtime:
            extra.append(runtime.pop(0))
        elif arg.startswith("--package="):
            extra.append(arg.split("=", 1)[1])
    argv = [
        npm, "install", "--prefix", str(folder), "--cache", str(folder / "npm-cache"),
        "--ignore-scripts", "--no-audit", "--no-fund", "--no-save", "--no-update-notifier",
        "--loglevel=error", spec.requirement, *extra,
    ]  # fmt: skip
    _run(f"npm install {spec.requirement}", argv, folder, runner_env)
    modules = folder / "node_modules"
    manifest = _read_json(modules / spec.identifier / "package.json", folder)
    bins = manifest.get("bin")
    program = _npm_bin(spec.identifier, bins, manifest.get("name"))
    if program is None and isinstance(bins, dict) and bins:
        raise FetchFailed(
            f"the npm package {spec.requirement} has several commands ({', '.join(sorted(bins))}) and none "
            "is named after it, so which one to run is not known"
        )
    if program is None:
        raise FetchFailed(f"the npm package {spec.requirement} has no command (no 'bin' in its package.json)")
    path = modules / ".bin" / program
    if not path.exists() or not path.resolve().is_relative_to(folder.resolve()):
        raise FetchFailed(f"the npm package {spec.requirement} names the command {program}, which it lacks")
    return Fetched(folder, [str(path), *spec.arguments], _npm_scripts(modules))


def _npm_bin(identifier: str, bins: Any, name: Any) -> str | None:
    """The command npx would run for a package: its only bin, else the one named after it."""
    unscoped = str(name or identifier).rsplit("/", 1)[-1]
    if isinstance(bins, str):
        return unscoped
    if isinstance(bins, dict) and bins:
        if len(bins) == 1:
            return str(next(iter(bins)))
        return unscoped if unscoped in bins else None
    return None


def _npm_scripts(modules: Path) -> list[str]:
    """``package@version postinstall`` for each installed package with an install script (a
    ``binding.gyp`` counts: npm builds it with node-gyp)."""
    found: list[str] = []
    for package in sorted(_installed(modules)):
        manifest = _read_json(package / "package.json", modules)
        scripts = manifest.get("scripts")
        scripts = scripts if isinstance(scripts, dict) else {}
        names = [name for name in _INSTALL_SCRIPTS if name in scripts]
        if not names and (package / "binding.gyp").is_file() and not (package / "binding.gyp").is_symlink():
            names = ["install (node-gyp)"]
        if names:
            found.append(f"{manifest.get('name')}@{manifest.get('version')} {'/'.join(names)}")
    return found


def _installed(modules: Path) -> Iterator[Path]:
    """Every package folder under ``modules`` (``name``, ``@scope/name``, and those nested in their
    own ``node_modules``), links not followed."""
    for entry in _folders(modules):
        if entry.name.startswith("@"):
            packages = list(_folders(entry))
        elif entry.name.startswith("."):
            continue  # .bin, .package-lock.json's neighbours
        else:
            packages = [entry]
        for package in packages:
            yield package
            if (package / "node_modules").is_dir() and not (package / "node_modules").is_symlink():
                yield from _installed(package / "node_modules")


def _folders(path: Path) -> Iterator[Path]:
    with contextlib.suppress(OSError):
        for entry in os.scandir(path):
            if entry.is_dir(follow_symlinks=False):
                yield Path(entry.path)


def _read_json(path: Path, within: Path) -> dict[str, Any]:
    """A manifest the fetch wrote, read by us: only where it resolves inside the package's folder (a
    link out of it, to a file of the host, is not followed)."""
    try:
        if not path.resolve().is_relative_to(within.resolve()):
            return {}
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def _uv() -> str | None:
    """The ``uv`` program: on PATH, beside this Python, or the binary the ``uv`` package ships."""
    found = shutil.which("uv") or shutil.which("uv", path=str(Path(sys.executable).parent))
    if found:
        return found
    try:
        from uv import find_uv_bin
    except ImportError:
        return None
    return str(find_uv_bin())


def _fetch_pypi(spec: PackageSpec, folder: Path, runner_env: dict[str, str]) -> Fetched:
    uv = _uv()
    if uv is None:
        raise FetchFailed("uv is not installed; install uv (pip install uv) to inspect PyPI packages")
    requirement, command, python, extra, prerelease = spec.requirement, spec.identifier, [], [], []
    runtime = list(spec.runtime)
    while runtime:
        arg = runtime.pop(0)
        flag, _, inline = arg.partition("=")
        if flag in ("--from", "--with", "--python", "--prerelease"):
            value = inline or (runtime.pop(0) if runtime else "")
            if flag == "--from":
                requirement = value
            elif flag == "--with":
                extra.append(value)
            elif flag == "--python":
                python = ["--python", value]
            else:
                prerelease = ["--prerelease", value]
    env = runner_env | {
        "UV_CACHE_DIR": str(folder / "uv-cache"),
        "UV_PYTHON_INSTALL_DIR": str(folder / "python"),
        "UV_NO_CONFIG": "1",
    }
    venv = folder / "venv"
    install = [uv, "pip", "install", "--quiet", "--python", str(venv), "--no-build", *prerelease,
               requirement, *extra]  # fmt: skip
    needs: str | None = None
    while True:
        try:
            _run(f"uv venv for {spec.requirement}", [uv, "venv", "--quiet", *python, str(venv)], folder, env)
        except FetchFailed as exc:
            if needs is None:
                raise
            raise FetchFailed(
                f"{requirement} needs Python {needs}, which is not installed here and could not be "
                f"downloaded ({exc})"
            ) from None
        try:
            _run(f"uv pip install {requirement}", install, folder, env)
            break
        except FetchFailed as exc:
            wheel = _NO_WHEEL.search(exc.output)
            if wheel is not None:
                raise FetchFailed(
                    f"{wheel.group(1)} has no wheel for this platform and needs an sdist build (its setup.py "
                    f"or build backend), which the sandbox's fetch does not run; --sandbox off builds it"
                ) from None
            newer = _NEEDS_PYTHON.search(exc.output)
            if newer is None or python:
                raise
            # As uvx would: an interpreter the package accepts, the oldest it names (uv downloads one
            # into the package's folder where the system has none).
            needs = ">=" + newer.group(1)
            python = ["--python", newer.group(1)]
            shutil.rmtree(venv)
    program = venv / "bin" / command
    if not program.exists():
        offered = sorted(_console_scripts(venv))
        listed = f" (it provides {', '.join(offered)})" if offered else ""
        raise FetchFailed(f"the PyPI package {requirement} provides no command named {command}{listed}")
    return Fetched(folder, [str(program), *spec.arguments])


def _console_scripts(venv: Path) -> set[str]:
    from importlib.metadata import distributions

    found: set[str] = set()
    for site in venv.glob("lib/python*/site-packages"):
        for dist in distributions(path=[str(site)]):
            found |= {ep.name for ep in dist.entry_points if ep.group == "console_scripts"}
    return found


async def inspect_package(
    spec: PackageSpec,
    target: Any,
    runner_env: dict[str, str],
    *,
    timeout: float,
    protocol_era: str,
    version_label: str | None,
) -> dict[str, Any]:
    """Fetch ``spec`` into a folder of its own, then inspect its command offline in the sandbox under
    ``target``'s policy with that folder readable; the folder is removed afterwards.

    The snapshot's ``source`` names the package's command (``target``'s, as a client would run it)
    and records that it was fetched with install scripts off."""
    import anyio

    from registry.inspecting.inspect import inspect_async
    from registry.inspecting.targets import redact_argv

    with package_folder() as folder:
        fetched = await anyio.to_thread.run_sync(fetch, spec, folder, runner_env)
        runnable = replace(target, argv=fetched.argv, sandbox=fetched.policy(target.sandbox))
        try:
            snapshot = await inspect_async(
                runnable, timeout=timeout, protocol_era=protocol_era, version_label=version_label
            )
        except InspectionError as exc:
            raise InspectionError(f"{exc}{fetched.failure_note()}") from None
    source = snapshot["source"]
    source["target"] = shlex.join(redact_argv(target.argv))
    shown = str(folder)
    if isinstance(source.get("sandbox"), dict):
        source["sandbox"]["read"] = sorted(
            "<package>" + path[len(shown) :] if path == shown or path.startswith(shown + "/") else path
            for path in source["sandbox"]["read"]
        )
    source["fetched"] = {"registryType": spec.kind, "package": spec.requirement, "installScripts": "off"}
    return snapshot
