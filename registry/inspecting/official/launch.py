"""From entries of the official MCP Registry to servers to inspect: which versions to act on, and how
to run one (its package with npx, uvx or docker, else its remote URL), its inputs filled from what
the user supplied.

An entry that cannot run (unknown ``registryType``, no version, a required secret not supplied) is
not an exception that stops a crawl: :func:`entry_launch` raises :class:`EntrySkipped` or
:class:`EntryInvalid` with the reason, and the caller records it and goes on.
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
import shutil
import socket
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from registry.core.errors import UsageError
from registry.core.versions import semver_key
from registry.inspecting.official.entries import RegistryEntry
from registry.inspecting.official.fetch import PackageSpec

RUNNABLE_TYPES = ("npm", "pypi", "oci")
_VARIABLE = re.compile(r"\{([A-Za-z0-9_.-]+)\}")
# What npx, uvx and docker need from our environment to reach their registries (certificates,
# proxies, their own settings); an MCP server's default environment leaves these out.
_RUNNER_ENV = re.compile(
    r"^(SSL_CERT_(FILE|DIR)|NODE_EXTRA_CA_CERTS|REQUESTS_CA_BUNDLE|(HTTPS?|NO|ALL)_PROXY|(https?|no|all)_proxy"
    r"|UV_[A-Z_]+|NPM_CONFIG_[A-Z_]+|npm_config_[a-z_]+|PIP_[A-Z_]+|DOCKER_[A-Z_]+|XDG_CACHE_HOME)$"
)
_REMOTE_TYPES = ("streamable-http", "sse")
# A runner variable whose name says it holds a credential is never passed on to a server (nor is
# one whose value is a URL with a password in it, such as a proxy's).
_CREDENTIAL_NAME = re.compile(r"(AUTH|TOKEN|PASSWORD|PASSWD|SECRET|CREDENTIAL|USERNAME|_KEY$)", re.I)
_URL_WITH_PASSWORD = re.compile(r"^[a-z][a-z0-9+.-]*://[^/@\s]*:[^/@\s]*@", re.I)
# The runtimeArguments an entry may pass to its runner, per runner; anything else is refused by name
# (a volume of the host, --privileged, the host's network or PID namespace, a capability, a device,
# a shell command for npx, a host path for uvx).
RUNTIME_FLAGS: dict[str, frozenset[str]] = {
    "npm": frozenset({"-y", "--yes", "-p", "--package", "-q", "--quiet"}),
    "pypi": frozenset({"--from", "--with", "--python", "--prerelease", "--isolated", "-q", "--quiet"}),
    "oci": frozenset({"-e", "--env", "-i", "--interactive", "-t", "--tty", "--rm", "--init", "--platform",
                      "--pull", "-w", "--workdir", "-u", "--user", "--name", "--memory", "--cpus"}),
}  # fmt: skip
# What an entry may name as its package and version (and as the value of a runner flag that names a
# package or an interpreter): a registry name, never a path, a URL or a git or file specifier, which
# npm and uv would fetch from wherever it points (a folder of the host included).
_NAMES = {
    "npm": re.compile(r"^(@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9~][a-z0-9._~-]*$"),
    "pypi": re.compile(r"^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$"),
}
_VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.+!_-]*$")
_REQUIREMENT = {
    "npm": re.compile(r"^(@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9~][a-z0-9._~-]*(@[A-Za-z0-9.^~<>=*+_ |-]+)?$"),
    "pypi": re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(\[[A-Za-z0-9,._-]+\])?([=<>!~]=?[A-Za-z0-9.*+!_-]+)?$"),
}
_PACKAGE_FLAGS = {"npm": ("-p", "--package"), "pypi": ("--from", "--with")}
_PYTHON = re.compile(r"^[A-Za-z]*[0-9][0-9.]*$")
_LOCAL_NAMES = ("localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback")
_LOCAL_SUFFIXES = (".localhost", ".local", ".internal", ".lan", ".home.arpa")


class EntryInvalid(Exception):
    """The entry cannot be turned into a server to inspect; the message says why."""


class EntrySkipped(Exception):
    """The entry could run, but not with what was supplied (a required secret or argument)."""


@dataclass
class Launch:
    """How to start or reach an entry: a command line with its environment, or a URL with headers."""

    transport: str  # "stdio" | "streamable-http" | "sse"
    argv: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    kind: str = ""  # npm | pypi | oci | remote
    # An npm or PyPI package, for a sandboxed crawl to fetch before it runs (registry.inspecting.
    # official.fetch); ``server_env`` is then the server's own environment, without the runner's.
    package: PackageSpec | None = None
    server_env: dict[str, str] = field(default_factory=dict)


# -- choosing versions -----------------------------------------------------------------------


def _later(a: RegistryEntry, b: RegistryEntry) -> bool:
    """Whether ``a`` is a later version than ``b`` by the registry's aggregator rule."""
    if bool(a.is_latest) != bool(b.is_latest):
        return bool(a.is_latest)
    ka, kb = semver_key(a.version or ""), semver_key(b.version or "")
    if ka is not None and kb is not None:
        return ka > kb
    if ka is None and kb is None:
        return (a.published_at or "") > (b.published_at or "")
    return ka is not None


def _preferred(a: RegistryEntry, b: RegistryEntry) -> bool:
    """Whether ``a`` is the version to inspect rather than ``b``: an active one first, then the later."""
    if (a.status == "active") != (b.status == "active"):
        return a.status == "active"
    return _later(a, b)


def select_entries(
    entries: list[RegistryEntry], *, all_versions: bool
) -> tuple[list[RegistryEntry], list[RegistryEntry]]:
    """The entries to act on, and the older versions passed over.

    Acted on: per server the latest active version, else the latest deprecated one (every version
    with ``all_versions``), plus every deleted and every invalid entry (recorded, never inspected). A
    deprecated version the registry marks ``isLatest: false`` is never taken, so an incremental page
    holding only an older version that was just deprecated does not inspect it."""
    unique: dict[tuple[str, str | None], RegistryEntry] = {}
    for entry in entries:
        unique[(entry.name, entry.version)] = entry  # a later page's copy is the newer one
    chosen: list[RegistryEntry] = []
    older: list[RegistryEntry] = []
    latest: dict[str, RegistryEntry] = {}
    for entry in unique.values():
        if entry.invalid or entry.status == "deleted" or all_versions:
            chosen.append(entry)
        elif entry.is_latest is False and entry.status != "active":
            older.append(entry)
        elif entry.name not in latest:
            latest[entry.name] = entry
        elif _preferred(entry, latest[entry.name]):
            older.append(latest[entry.name])
            latest[entry.name] = entry
        else:
            older.append(entry)
    chosen.extend(latest.values())

    def order(e: RegistryEntry) -> tuple[str, Any, str]:
        return (e.name, semver_key(e.version or "") or (), e.version or "")

    return sorted(chosen, key=order), sorted(older, key=order)


# -- from an entry to a runnable server --------------------------------------------------------


@dataclass
class Inputs:
    """Values the user supplied: ``values`` by input name (env var, argument, variable, header),
    ``per_server`` the same keyed by registry name first."""

    values: dict[str, str] = field(default_factory=dict)
    per_server: dict[str, dict[str, str]] = field(default_factory=dict)

    def lookup(self, server: str, *names: str) -> str | None:
        for source in (self.per_server.get(server) or {}, self.values):
            for name in names:
                if name and name in source:
                    return source[name]
        return None


def load_secrets(path: str) -> Inputs:
    """A secrets file: a JSON object of ``"registry/name": {NAME: value}``, each secret for one server
    only (a value given for every server is refused: it would reach whichever entry names it)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UsageError(f"--secrets {path}: not a readable JSON file ({exc})") from None
    if not isinstance(data, dict):
        raise UsageError(f"--secrets {path}: expected a JSON object of NAME: value (or server: {{...}})")
    inputs = Inputs()
    for key, value in data.items():
        if isinstance(value, dict):
            inputs.per_server[key] = {str(k): str(v) for k, v in value.items()}
        elif isinstance(value, str | int | float | bool):
            raise UsageError(
                f"--secrets {path}: {key!r} names no server, so it would reach every entry that asks for "
                f'it; put it under its server: {{"io.github.owner/server": {{"{key}": ...}}}}'
            )
        else:
            raise UsageError(f"--secrets {path}: value of {key!r} must be a string or an object")
    return inputs


class _Resolver:
    """Fills an entry's inputs from ``inputs``; with ``placeholders`` a required input nobody gave
    becomes ``<name>`` (for a config snippet the user completes) instead of skipping the entry."""

    def __init__(self, entry: RegistryEntry, inputs: Inputs, *, placeholders: bool = False) -> None:
        self.entry, self.inputs, self.placeholders = entry, inputs, placeholders

    def value(self, spec: dict[str, Any], *names: str, what: str) -> str | None:
        """An input's value: its fixed ``value``, the user's, else its ``default``; with ``{vars}`` filled.

        A required input with none raises EntrySkipped naming it (and whether it is a secret)."""
        raw = spec.get("value")
        if raw is None:
            raw = self.inputs.lookup(self.entry.name, *names)
        if raw is None:
            raw = spec.get("default")
        if raw is None:
            if spec.get("isRequired") and self.placeholders:
                return f"<{names[0]}>"
            if spec.get("isRequired"):
                kind = "secret" if spec.get("isSecret") else "input"
                raise EntrySkipped(
                    f"required {kind} {what} not supplied (give it with --env "
                    f"{self.entry.name}/{names[0]}=VALUE, --header or --secrets)"
                )
            return None
        raw = str(raw).lower() if isinstance(raw, bool) else str(raw)
        choices = spec.get("choices")
        if isinstance(choices, list) and choices and raw not in map(str, choices) and not self.placeholders:
            raise EntrySkipped(f"{what} is {raw!r}, not one of {', '.join(map(str, choices))}")
        return self.fill(raw, spec.get("variables") or {}, what)

    def fill(self, text: str, variables: Mapping[str, Any], what: str) -> str:
        def one(match: re.Match[str]) -> str:
            name = match.group(1)
            spec = variables.get(name)
            if not isinstance(spec, dict):
                return match.group(0)  # an undefined {x} stays literal
            return self.value(spec, name, what=f"{{{name}}} of {what}") or ""

        return _VARIABLE.sub(one, text)

    def arguments(self, specs: Any, where: str) -> list[str]:
        out: list[str] = []
        for spec in specs or []:
            if not isinstance(spec, dict):
                raise EntryInvalid(f"{where} must hold argument objects")
            kind = spec.get("type")
            if kind == "named":
                flag = spec.get("name")
                if not isinstance(flag, str) or not flag:
                    raise EntryInvalid(f"a named argument in {where} has no 'name'")
                value = self.value(spec, flag.lstrip("-"), flag, what=f"argument {flag}")
                if value is None:
                    continue
                out.extend([flag, value] if value else [flag])
            elif kind == "positional":
                hint = spec.get("valueHint") or ""
                value = self.value(spec, hint, what=f"argument <{hint or 'positional'}>")
                if value is not None and value != "":
                    out.append(value)
            else:
                raise EntryInvalid(f"argument type {kind!r} in {where} is neither 'positional' nor 'named'")
        return out

    def pairs(self, specs: Any, where: str) -> dict[str, str]:
        out: dict[str, str] = {}
        for spec in specs or []:
            if not isinstance(spec, dict) or not isinstance(spec.get("name"), str):
                raise EntryInvalid(f"every entry of {where} needs a 'name'")
            # A whole value the user gave (--header 'Authorization: …') wins over the entry's template.
            value = self.inputs.lookup(self.entry.name, spec["name"])
            if value is None:
                value = self.value(spec, spec["name"], what=f"{spec['name']} ({where})")
            if value is not None:
                out[spec["name"]] = value
        return out


def _uvx() -> list[str] | None:
    """How to run ``uvx``: on PATH, beside this Python, or the binary the ``uv`` package ships."""
    found = shutil.which("uvx") or shutil.which("uvx", path=str(Path(sys.executable).parent))
    if found:
        return [found]
    try:
        from uv import find_uv_bin
    except ImportError:
        return None
    return [find_uv_bin(), "tool", "run"]


def package_launch(
    entry: RegistryEntry, package: dict[str, Any], inputs: Inputs, *, for_config: bool = False
) -> Launch:
    """The command of a package; ``for_config`` writes it as a client config would (the runtimes by
    name, placeholders for what the user must fill in, none of our environment)."""
    resolve = _Resolver(entry, inputs, placeholders=for_config)
    kind = str(package.get("registryType"))  # only runnable types get here: a string
    identifier = package.get("identifier")
    if not isinstance(identifier, str) or not identifier:
        raise EntryInvalid(f"the {kind} package has no 'identifier'")
    version = package.get("version")
    runtime = resolve.arguments(package.get("runtimeArguments"), "runtimeArguments")
    if not for_config:
        check_runtime_arguments(kind, runtime)
    arguments = resolve.arguments(package.get("packageArguments"), "packageArguments")
    env = resolve.pairs(package.get("environmentVariables"), "environmentVariables")
    if kind in ("npm", "pypi") and not version:
        raise EntryInvalid(f"the {kind} package {identifier} has no 'version'")
    if kind in ("npm", "pypi") and not for_config:
        check_package(kind, identifier, str(version), runtime)
    if kind == "npm":
        argv = ["npx", "-y", *runtime, f"{identifier}@{version}", *arguments]
    elif kind == "pypi" and for_config:
        argv = ["uvx", *runtime, f"{identifier}=={version}", *arguments]
    elif kind == "pypi":
        uvx = _uvx()
        if uvx is None:
            raise EntrySkipped("uvx is not installed; install uv (pip install uv) to run PyPI entries")
        argv = [*uvx, *runtime, f"{identifier}=={version}", *arguments]
    else:
        image = identifier
        # Before 2025-10-11 the tag was the separate version field.
        if version and ":" not in image.rsplit("/", 1)[-1] and "@" not in image:
            image = f"{image}:{version}"
        forwarded = [flag for name in env for flag in ("-e", name)]
        argv = ["docker", "run", "-i", "--rm", *runtime, *forwarded, image, *arguments]
    transport = package.get("transport") or {"type": "stdio"}
    if transport.get("type") not in (None, "stdio"):
        raise EntrySkipped(
            f"the {kind} package serves {transport.get('type')} on a local port; only stdio packages are run"
        )
    if for_config:
        return Launch("stdio", argv=argv, env=env, kind=kind)
    spec = None
    if kind in ("npm", "pypi"):
        spec = PackageSpec(kind, identifier, str(version), tuple(runtime), tuple(arguments))
    return Launch("stdio", argv=argv, env=runner_environment() | env, kind=kind, package=spec, server_env=env)


def runner_environment() -> dict[str, str]:
    """What of our environment npx, uvx and docker need (certificates, proxies, their settings),
    without any variable that carries a credential."""
    return {
        key: value
        for key, value in os.environ.items()
        if _RUNNER_ENV.match(key) and not _CREDENTIAL_NAME.search(key) and not _URL_WITH_PASSWORD.match(value)
    }


def check_package(kind: str, identifier: str, version: str, runtime: list[str]) -> None:
    """Refuse an npm or PyPI package that is not a registry name at a plain version (a path, a URL, a
    git or file specifier), and a runner flag whose value is one."""
    if not _NAMES[kind].match(identifier):
        raise EntryInvalid(
            f"the {kind} identifier {identifier!r} is not a package name (no paths, URLs or specifiers)"
        )
    if not _VERSION.match(version):
        raise EntryInvalid(
            f"the {kind} package {identifier} has version {version!r}, which is not a plain version"
        )
    for index, arg in enumerate(runtime):
        flag, equals, inline = arg.partition("=")
        value = inline if equals else (runtime[index + 1] if index + 1 < len(runtime) else "")
        if flag in _PACKAGE_FLAGS[kind] and not _REQUIREMENT[kind].match(value):
            raise EntryInvalid(f"runtimeArguments {flag} {value!r} is not a package name or requirement")
        if flag == "--python" and not _PYTHON.match(value):
            raise EntryInvalid(f"runtimeArguments --python {value!r} is not a Python version (like 3.12)")


def check_runtime_arguments(kind: str, runtime: list[str]) -> None:
    """Refuse, by name, a runtimeArguments flag outside the runner's allow-list."""
    allowed = RUNTIME_FLAGS.get(kind, frozenset())
    for arg in runtime:
        if arg.startswith("-"):
            flag = arg.split("=", 1)[0]
            if flag not in allowed:
                raise EntryInvalid(
                    f"runtimeArguments flag {flag} is not allowed for {kind} packages "
                    f"(allowed: {', '.join(sorted(allowed))})"
                )


def remote_launch(
    entry: RegistryEntry,
    remote: dict[str, Any],
    inputs: Inputs,
    *,
    for_config: bool = False,
    allow_private: bool = False,
) -> Launch:
    resolve = _Resolver(entry, inputs, placeholders=for_config)
    kind = remote.get("type")
    if kind not in _REMOTE_TYPES:
        raise EntryInvalid(f"remote type {kind!r} is not streamable-http or sse")
    url = remote.get("url")
    if not isinstance(url, str):
        raise EntryInvalid("a remote has no 'url'")
    url = resolve.fill(url, remote.get("variables") or {}, "the remote URL")
    parts = urlsplit(url)
    if not for_config and (parts.scheme not in ("http", "https") or not parts.netloc):
        raise EntryInvalid(f"remote URL {url!r} is not a valid http(s) URL once filled")
    if not for_config and not allow_private:
        check_public_remote(url)
    headers = resolve.pairs(remote.get("headers"), "headers")
    return Launch(kind, url=url, headers=headers, kind="remote")


def check_public_remote(url: str) -> None:
    """Refuse a remote that is not https, or whose host is (or resolves to) a loopback, private,
    link-local or otherwise non-public address."""
    parts = urlsplit(url)
    if parts.scheme != "https":
        raise EntryInvalid(f"remote URL {url!r} is not https; --allow-private-remotes inspects it anyway")
    host = (parts.hostname or "").lower().rstrip(".")
    if host in _LOCAL_NAMES or host.endswith(_LOCAL_SUFFIXES):
        raise EntryInvalid(f"remote host {host} is local, not public; --allow-private-remotes inspects it")
    try:
        addresses = [ipaddress.ip_address(host)]
    except ValueError:
        try:
            found = socket.getaddrinfo(host, parts.port or 443, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError):
            return  # not resolvable here: the inspection will say it cannot connect
        addresses = [ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in found]
    for address in addresses:
        if not address.is_global:
            raise EntryInvalid(
                f"remote host {host} is at {address}, not a public address; "
                "--allow-private-remotes inspects it"
            )


def entry_launch(entry: RegistryEntry, inputs: Inputs, *, allow_private_remotes: bool = False) -> Launch:
    """How to run ``entry``: its first runnable package, else its remote (streamable HTTP first).

    Raises EntryInvalid when nothing in it can run, EntrySkipped when a required input is missing."""
    if entry.invalid:
        raise EntryInvalid(entry.invalid)
    packages = entry.server.get("packages") or []
    remotes = sorted(entry.server.get("remotes") or [], key=lambda r: r.get("type") != "streamable-http")
    skipped: list[str] = []
    for package in packages:
        if package.get("registryType") in RUNNABLE_TYPES:
            try:
                return package_launch(entry, package, inputs)
            except EntrySkipped as exc:
                skipped.append(str(exc))
    for remote in remotes:
        try:
            return remote_launch(entry, remote, inputs, allow_private=allow_private_remotes)
        except EntrySkipped as exc:
            skipped.append(str(exc))
    if skipped:
        raise EntrySkipped(skipped[0])
    kinds = sorted({str(p.get("registryType")) for p in packages})
    if kinds:
        raise EntryInvalid(
            f"registryType {', '.join(kinds)} cannot be run here (runnable: {', '.join(RUNNABLE_TYPES)})"
        )
    raise EntryInvalid("the entry lists neither packages nor remotes")
