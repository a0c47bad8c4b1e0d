"""What a registry feed with attacker entries cannot get, sandbox or not: another server's secret, a
remote on loopback or a private address, a runner flag that opens the host, the runner's credentials."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from registry.inspecting.official.entries import entry_from_item
from registry.inspecting.official.launch import EntryInvalid, Inputs, entry_launch, runner_environment

VICTIM = "io.github.victim/api"
ATTACKER = "io.github.attacker/api"


def entry(name: str, **server: object):  # type: ignore[no-untyped-def]
    return entry_from_item({"server": {"name": name, "description": "x", "version": "1.0.0", **server}})


def remote(url: str = "https://api.example.com/mcp", header: str = "Authorization") -> dict:
    return {
        "remotes": [{"type": "streamable-http", "url": url, "headers": [{"name": header, "isSecret": True}]}]
    }


def crawl(tmp_path, *args: str) -> subprocess.CompletedProcess:
    dump = tmp_path / "dump.json"
    items = [
        {"server": {"name": n, "description": "x", "version": "1.0.0", **remote()}}
        for n in (VICTIM, ATTACKER)
    ]
    dump.write_text(json.dumps({"servers": items}))
    return subprocess.run(
        [sys.executable, "-m", "registry", "crawl", "--from-registry", str(dump), "--format", "json", *args],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_a_secret_given_for_one_server_reaches_only_that_server():
    scoped = Inputs(per_server={VICTIM: {"Authorization": "Bearer victim-token"}})
    assert entry_launch(entry(VICTIM, **remote()), scoped).headers == {"Authorization": "Bearer victim-token"}
    assert entry_launch(entry(ATTACKER, **remote()), scoped).headers == {}


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["--header", "Authorization: Bearer t0k"], "--header Authorization: names no server"),
        (["--env", "API_KEY=t0k"], "--env API_KEY: names no server"),
    ],
)
def test_a_global_env_or_header_is_refused_for_a_registry_crawl(tmp_path, flags, said):
    result = crawl(tmp_path, *flags, "--sandbox", "off")
    assert result.returncode == 2
    (line,) = result.stderr.strip().splitlines()
    assert said in line and "io.github.owner/server/" in line


def test_a_secrets_file_value_for_every_server_is_refused(tmp_path):
    secrets = tmp_path / "secrets.json"
    secrets.write_text(json.dumps({"Authorization": "Bearer t0k"}))
    result = crawl(tmp_path, "--secrets", str(secrets), "--sandbox", "off")
    assert result.returncode == 2 and "'Authorization' names no server" in result.stderr


@pytest.mark.parametrize(
    "url",
    [
        "http://api.example.com/mcp",
        "https://127.0.0.1:8080/mcp",
        "https://[::1]/mcp",
        "https://10.1.2.3/mcp",
        "https://192.168.0.9/mcp",
        "https://169.254.169.254/latest",
        "https://localhost/mcp",
        "https://db.internal/mcp",
    ],
)
def test_a_remote_must_be_https_to_a_public_address(url):
    with pytest.raises(EntryInvalid, match="--allow-private-remotes"):
        entry_launch(entry(ATTACKER, **remote(url)), Inputs())
    assert entry_launch(entry(ATTACKER, **remote(url)), Inputs(), allow_private_remotes=True).url == url


@pytest.mark.parametrize(
    ("kind", "flag"),
    [
        ("oci", "-v"),
        ("oci", "--mount"),
        ("oci", "--privileged"),
        ("oci", "--network"),
        ("oci", "--pid"),
        ("oci", "--cap-add"),
        ("oci", "--device"),
        ("npm", "--call"),
        ("pypi", "--with-editable"),
    ],
)
def test_runtime_arguments_outside_the_allow_list_are_refused_by_name(kind, flag):
    argument = {"type": "named", "name": flag, "value": "/:/host"}
    package = {"registryType": kind, "identifier": "x", "version": "1", "runtimeArguments": [argument]}
    with pytest.raises(EntryInvalid, match=f"runtimeArguments flag {flag} is not allowed for {kind}"):
        entry_launch(entry(ATTACKER, packages=[package]), Inputs())


@pytest.mark.parametrize(
    ("kind", "identifier", "version", "runtime", "said"),
    [
        ("npm", "/home/someone/project", "1.0.0", [], "is not a package name"),
        ("npm", "../../etc", "1.0.0", [], "is not a package name"),
        ("npm", "git+ssh://git@example.com/x.git", "1.0.0", [], "is not a package name"),
        ("npm", "left-pad", "file:/etc", [], "is not a plain version"),
        ("npm", "left-pad", "1.3.0", ["-p", "/home/someone/.ssh"], "-p '/home/someone/.ssh' is not"),
        ("pypi", "https://example.com/x.whl", "1.0", [], "is not a package name"),
        ("pypi", "docopt", "0.6.2 @ https://example.com/x", [], "is not a plain version"),
        ("pypi", "docopt", "0.6.2", ["--from", "git+https://example.com/x"], "--from 'git+https://"),
        ("pypi", "docopt", "0.6.2", ["--with", "/srv/wheels/x.whl"], "--with '/srv/wheels/x.whl'"),
        ("pypi", "docopt", "0.6.2", ["--python", "/opt/evil/python"], "is not a Python version"),
    ],
)
def test_a_package_that_names_a_path_url_or_specifier_is_refused(kind, identifier, version, runtime, said):
    """npm and uv would fetch such a package from wherever it points, a folder of the host included."""
    arguments = [{"type": "positional", "value": arg} for arg in runtime]
    package = {
        "registryType": kind,
        "identifier": identifier,
        "version": version,
        "runtimeArguments": arguments,
    }
    with pytest.raises(EntryInvalid, match=re.escape(said)):
        entry_launch(entry(ATTACKER, packages=[package]), Inputs())


def test_registry_package_names_and_requirements_still_pass():
    for kind, identifier, version, runtime in (
        ("npm", "@modelcontextprotocol/server-memory", "2026.8.31", ["-y", "-p", "typescript@5.6.2"]),
        ("pypi", "mcp-server-fetch", "2026.10.24", ["--with", "httpx[http2]>=0.27", "--python", "3.12"]),
    ):
        arguments = [{"type": "positional", "value": arg} for arg in runtime]
        package = {"registryType": kind, "identifier": identifier, "version": version,
                   "runtimeArguments": arguments}  # fmt: skip
        launch = entry_launch(entry(ATTACKER, packages=[package]), Inputs())
        assert launch.package is not None and launch.package.identifier == identifier


def test_allowed_runtime_arguments_still_reach_the_runner():
    env = {"type": "named", "name": "-e", "value": "MODE=fast"}
    package = {"registryType": "oci", "identifier": "x/y", "version": "1", "runtimeArguments": [env]}
    assert entry_launch(entry(ATTACKER, packages=[package]), Inputs()).argv[4:6] == ["-e", "MODE=fast"]


def test_runner_variables_with_credentials_are_not_forwarded(monkeypatch):
    monkeypatch.setenv("NPM_CONFIG__AUTH", "c2VjcmV0")
    monkeypatch.setenv("NPM_CONFIG_REGISTRY", "https://registry.example.com/")
    monkeypatch.setenv("UV_INDEX_PRIVATE_PASSWORD", "hunter2")
    monkeypatch.setenv("UV_INDEX_PRIVATE_USERNAME", "me")
    monkeypatch.setenv("HTTPS_PROXY", "http://me:hunter2@proxy.example.com:3128")
    monkeypatch.setenv("NO_PROXY", "localhost")
    forwarded = runner_environment()
    assert "NPM_CONFIG__AUTH" not in forwarded and "UV_INDEX_PRIVATE_PASSWORD" not in forwarded
    assert "UV_INDEX_PRIVATE_USERNAME" not in forwarded and "HTTPS_PROXY" not in forwarded
    assert (
        forwarded["NPM_CONFIG_REGISTRY"] == "https://registry.example.com/"
        and forwarded["NO_PROXY"] == "localhost"
    )


def test_links_out_of_a_fetched_package_folder_are_not_followed(tmp_path):
    """What a package's tarball left in its folder is read by mcpdex (as root, in CI): a link to a
    host file or folder is not read through."""
    from registry.inspecting.official.fetch import _npm_scripts

    host = tmp_path / "host"
    host.mkdir()
    secret = {"name": "HOST-SECRET", "version": "1", "scripts": {"postinstall": "x"}}
    (host / "package.json").write_text(json.dumps(secret))
    modules = tmp_path / "package" / "node_modules"
    modules.mkdir(parents=True)
    (modules / "linked-folder").symlink_to(host)
    (modules / "linked-manifest").mkdir()
    (modules / "linked-manifest" / "package.json").symlink_to(host / "package.json")
    (modules / "@scope" / "real").mkdir(parents=True)
    own = {"name": "@scope/real", "version": "1.0.0", "scripts": {"postinstall": "node x.js"}}
    (modules / "@scope" / "real" / "package.json").write_text(json.dumps(own))
    assert _npm_scripts(modules) == ["@scope/real@1.0.0 postinstall"]
