"""The official MCP conformance suite against mcpdex: its client scenarios that apply to an inspector
(the handshake, SSE retry, the authorization suite) against `mcpdex inspect`, through
tests/conformance/client, and its server scenarios against `mcpdex memory --http`.

What does not apply is listed with its reason in tests/conformance/expected-failures.toml; any other
failure fails, and so does a listed scenario that passes.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import PEERS, REPO, require

pytestmark = [pytest.mark.peers, pytest.mark.slow]

SUITE = PEERS / "conformance" / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
HERE = REPO / "tests" / "conformance"
EXPECTED = tomllib.loads((HERE / "expected-failures.toml").read_text(encoding="utf-8"))
# Client scenarios that apply to an inspector: it connects and lists, it calls no tool and answers
# no elicitation, so tools_call and elicitation-sep1034-client-defaults are not run.
CLIENT_SCENARIOS = [
    "initialize",
    "sse-retry",
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/basic-cimd",
    "auth/2025-03-26-oauth-metadata-backcompat",
    "auth/2025-03-26-oauth-endpoint-fallback",
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    "auth/scope-step-up",
    "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/client-credentials-jwt",
    "auth/client-credentials-basic",
]
_SCENARIO_TIMEOUT_S = 120


@pytest.fixture(scope="module")
def suite(node: str) -> list[str]:
    require(
        SUITE.exists(), "the MCP conformance suite is not installed under .peers/ (run scripts/install-peers)"
    )
    return [node, str(SUITE)]


def _checks(output: Path) -> dict[str, list[dict[str, Any]]]:
    """Each scenario's checks, from the suite's output folder (one checks.json per scenario run)."""
    found: dict[str, list[dict[str, Any]]] = {}
    for path in output.rglob("checks.json"):
        found[path.parent.name] = json.loads(path.read_text(encoding="utf-8"))
    return found


def _failed(checks: list[dict[str, Any]]) -> list[str]:
    return [f"{c['id']}: {c.get('description', '')}" for c in checks if c.get("status") == "FAILURE"]


def _run_scenario(
    suite: list[str], scenario: str, output: Path, command: str, env: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    """The suite's client ``scenario`` run against ``command``: the run, and its one result's checks."""
    done = subprocess.run(
        [*suite, "client", "--command", command, "--scenario", scenario, "-o", str(output)],
        capture_output=True,
        text=True,
        timeout=_SCENARIO_TIMEOUT_S,
        check=False,
        env=os.environ | (env or {}),
    )
    runs = _checks(output)
    assert len(runs) == 1, f"{scenario}: the suite wrote no result ({sorted(runs)})"
    return done, next(iter(runs.values()))


def _run_client(
    suite: list[str], scenario: str, output: Path, *inspect_options: str, env: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    command = " ".join([sys.executable, str(HERE / "client"), *inspect_options])
    return _run_scenario(suite, scenario, output, command, env)[1]


@pytest.mark.parametrize("scenario", CLIENT_SCENARIOS)
def test_client_scenario(suite: list[str], scenario: str, tmp_path: Path) -> None:
    failures = _failed(_run_client(suite, scenario, tmp_path / "out"))
    expected = EXPECTED["client"].get(scenario)
    if expected is None:
        assert not failures, f"mcpdex inspect fails {scenario}: {failures}"
    else:
        assert failures, f"{scenario} passes now: drop it from expected-failures.toml ({expected})"


def test_every_expected_client_failure_is_a_scenario_run() -> None:
    assert set(EXPECTED["client"]) <= set(CLIENT_SCENARIOS)


def test_server_scenarios_against_the_memory_server(
    suite: list[str], memory_http: str, tmp_path: Path
) -> None:
    done = subprocess.run(
        [*suite, "server", "--url", memory_http, "-o", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    runs = {
        name.removeprefix("server-").rsplit("-", 6)[0]: checks for name, checks in _checks(tmp_path).items()
    }
    assert runs, f"the suite ran no server scenario: {done.stdout[-2000:]}{done.stderr[-2000:]}"
    unexpected = {name: _failed(checks) for name, checks in runs.items() if _failed(checks)}
    unexpected = {name: why for name, why in unexpected.items() if name not in EXPECTED["server"]}
    assert not unexpected, f"mcpdex memory --http fails: {unexpected}"
    passing = sorted(name for name in EXPECTED["server"] if name in runs and not _failed(runs[name]))
    assert not passing, f"these pass now: drop them from expected-failures.toml: {passing}"
    for applies in (
        "server-initialize",
        "ping",
        "tools-list",
        "resources-list",
        "server-sse-multiple-streams",
    ):
        assert applies in runs and not _failed(runs[applies]), applies


def test_a_server_behind_oauth_is_inspected_saved_and_diffed(suite: list[str], tmp_path: Path) -> None:
    """The suite's client-credentials server: inspected with the credentials it hands out, saved, its
    token cached readable by its owner alone, and neither token nor secret in the snapshot or the store."""
    registry, out, data = tmp_path / "registry.sqlite", tmp_path / "authed.json", tmp_path / "data"
    env_data = {"MCPDEX_DATA_DIR": str(data)}
    options = ("--save", "--registry", str(registry), "--name", "authed", "--out", str(out))
    checks = _run_client(suite, "auth/client-credentials-basic", tmp_path / "run", *options, env=env_data)
    assert not _failed(checks), _failed(checks)
    snapshot = json.loads(out.read_text(encoding="utf-8"))
    assert [tool["name"] for tool in snapshot["tools"]] == ["test-tool"]
    text = out.read_text(encoding="utf-8")
    for secret in ("conformance-test-secret", "cc-token-"):
        assert secret not in text
    with sqlite3.connect(registry) as db:
        dumped = "\n".join(db.iterdump())
    assert "test-tool" in dumped
    for secret in ("conformance-test-secret", "cc-token-"):
        assert secret not in dumped
    cached = list((data / "oauth").glob("*.json"))
    assert len(cached) == 1
    assert stat.S_IMODE(cached[0].stat().st_mode) == 0o600
    assert "cc-token-" in cached[0].read_text(encoding="utf-8")  # the cache is where the token lives
    mcpdex = [sys.executable, "-m", "registry"]
    diff = subprocess.run(
        [*mcpdex, "diff", "--registry", str(registry), "--fail-on", "info", "authed", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=os.environ | env_data,
    )
    assert diff.returncode == 0, diff.stderr + diff.stdout
    assert "0 changes" in diff.stdout, diff.stdout


def test_auth_login_keeps_a_token_that_status_shows_and_logout_forgets(
    suite: list[str], tmp_path: Path
) -> None:
    """`mcpdex auth login` through the suite's authorization-code flow (registration, the browser, the
    token), then `auth status` says what is kept without the token, and `auth logout` removes it."""
    data = tmp_path / "data"
    env = {"MCPDEX_DATA_DIR": str(data), "BROWSER": f"{sys.executable} {HERE / 'browser'} %s"}
    command = f"{sys.executable} -m registry auth login --timeout 30"
    done, checks = _run_scenario(suite, "auth/metadata-default", tmp_path / "o", command, env)
    assert not _failed(checks), done.stdout[-3000:]
    cached = list((data / "oauth").glob("*.json"))
    assert len(cached) == 1 and stat.S_IMODE(cached[0].stat().st_mode) == 0o600
    kept = json.loads(cached[0].read_text(encoding="utf-8"))
    url, token = kept["server"], kept["tokens"]["access_token"]
    mcpdex = [sys.executable, "-m", "registry", "auth"]

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*mcpdex, *args], capture_output=True, text=True, timeout=60, check=False, env=os.environ | env
        )

    shown = run("status", url)
    assert shown.returncode == 0 and shown.stdout.startswith(f"signed in to {url}"), shown.stdout
    assert "client test-client-id" in shown.stdout and token not in shown.stdout + shown.stderr
    as_json = json.loads(run("status", url, "--format", "json").stdout)
    assert as_json["token"] is True and as_json["clientId"] == "test-client-id"
    assert run("logout", url).stdout.startswith("signed out of")
    assert not cached[0].exists()
    assert run("status", url).stdout.startswith("not signed in to")
    assert run("logout", url).stdout.startswith("nothing was kept")


_EXPIRE_THEN_INSPECT = """
import json, subprocess, sys
from pathlib import Path

url, data = sys.argv[-1], Path(sys.argv[1])
mcpdex = [sys.executable, "-m", "registry"]
subprocess.run([*mcpdex, "auth", "login", "--timeout", "30", url], check=True)
(cache,) = (data / "oauth").glob("*.json")
kept = json.loads(cache.read_text())
kept["expiresAt"] = 1  # as if the hour had passed (long ago)
cache.write_text(json.dumps(kept))
sys.exit(subprocess.run([*mcpdex, "inspect", "--format", "json", "--timeout", "20", url]).returncode)
"""


def test_an_expired_token_is_not_sent_again(suite: list[str], tmp_path: Path) -> None:
    """The kept token's expiry is read back with it: once past, the token is refreshed or, as here
    (the suite's authorization server issues no refresh token), the grant runs again, though the
    server would still take the old one."""
    data = tmp_path / "data"
    script = tmp_path / "expire_then_inspect.py"
    script.write_text(_EXPIRE_THEN_INSPECT, encoding="utf-8")
    env = {"MCPDEX_DATA_DIR": str(data), "BROWSER": f"{sys.executable} {HERE / 'browser'} %s"}
    command = f"{sys.executable} {script} {data}"
    _, checks = _run_scenario(suite, "auth/metadata-default", tmp_path / "o", command, env)
    assert not _failed(checks), _failed(checks)
    grants = [c["details"]["grantType"] for c in checks if c["id"] == "token-request"]
    assert grants == ["authorization_code", "authorization_code"], grants
    assert not any("refresh_token" in (c.get("details") or {}).get("body", {}) for c in checks)


_CRAWL_A_CONFIG = """
import json, os, subprocess, sys
from pathlib import Path

url, folder = sys.argv[-1], Path(sys.argv[1])
context = json.loads(os.environ["MCP_CONFORMANCE_CONTEXT"])
entry = {"url": url, "oauth": {"clientId": context["client_id"], "clientSecret": "${env:CC_SECRET}"}}
config = folder / "servers.json"
config.write_text(json.dumps({"mcpServers": {"behind-oauth": entry}}))
registry = ["--save", "--registry", str(folder / "r.sqlite"), "--format", "json"]
crawl = [sys.executable, "-m", "registry", "crawl", str(config), *registry]
env = os.environ | {"CC_SECRET": context["client_secret"]}
with open(folder / "crawl.json", "w") as out:
    sys.exit(subprocess.run(crawl, env=env, stdout=out).returncode)
"""


def test_crawl_reaches_a_server_behind_oauth_with_the_client_credentials_of_its_entry(
    suite: list[str], tmp_path: Path
) -> None:
    """A config entry's "oauth" object (its secret from the environment) gives crawl, which opens no
    browser, the client-credentials grant; the crawl records the server, and no secret."""
    script = tmp_path / "crawl_a_config.py"
    script.write_text(_CRAWL_A_CONFIG, encoding="utf-8")
    env = {"MCPDEX_DATA_DIR": str(tmp_path / "data")}
    command, output = f"{sys.executable} {script} {tmp_path}", str(tmp_path / "o")
    subprocess.run(
        [*suite, "client", "--command", command, "--scenario", "auth/client-credentials-basic", "-o", output],
        capture_output=True,
        text=True,
        timeout=_SCENARIO_TIMEOUT_S,
        check=False,
        env=os.environ | env,
    )
    (checks,) = _checks(tmp_path / "o").values()
    assert not _failed(checks), _failed(checks)
    crawled = (tmp_path / "crawl.json").read_text(encoding="utf-8")
    (server,) = json.loads(crawled)["servers"]
    assert (server["name"], server["ok"], server["tools"]) == ("behind-oauth", True, 1), server
    with sqlite3.connect(tmp_path / "r.sqlite") as db:
        dumped = "\n".join(db.iterdump())
    assert "behind-oauth" in dumped and "test-tool" in dumped
    assert "conformance-test-secret" not in dumped + crawled
