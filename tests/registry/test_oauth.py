"""MCP authorization's own parts: the per-server token cache, the settings the options make, the key
that signs a private-key-jwt assertion. The flows themselves run against the conformance suite's
authorization servers in test_conformance.py."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from registry.commands._target import target_from_options
from registry.core.errors import UsageError
from registry.inspecting.oauth import OAuthSettings, TokenCache, cache_path, read_private_key


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MCPDEX_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


def _store(url: str, expires_in: int | None) -> TokenCache:
    cache = TokenCache(url)

    async def fill() -> None:
        await cache.set_client_info(
            OAuthClientInformationFull(client_id="the-client", client_secret="s3cret-value")
        )
        await cache.set_tokens(
            OAuthToken(access_token="tok-123", refresh_token="ref-456", expires_in=expires_in, scope="read")
        )

    anyio.run(fill)
    return cache


def test_the_cache_file_is_readable_by_its_owner_alone() -> None:
    cache = _store("https://example.test/mcp", 3600)
    assert stat.S_IMODE(cache.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(cache.path.parent.stat().st_mode) == 0o700
    assert json.loads(cache.path.read_text())["tokens"]["access_token"] == "tok-123"


def test_a_token_read_back_keeps_its_expiry_so_it_is_refreshed_when_due() -> None:
    _store("https://example.test/mcp", 60)
    again = TokenCache("https://example.test/mcp")
    assert again.expires_at is not None and 0 < again.expires_at - time.time() <= 60
    token = anyio.run(again.get_tokens)
    assert token is not None and token.refresh_token == "ref-456"
    assert TokenCache("https://example.test/other").expires_at is None  # another server, another file


def test_status_says_what_is_cached_without_a_secret() -> None:
    status = _store("https://Example.test/mcp?x=1", 3600).status()
    assert status["server"] == "https://example.test/mcp"
    assert status["token"] and status["refreshable"] and status["clientId"] == "the-client"
    assert "tok-123" not in json.dumps(status) and "s3cret" not in json.dumps(status)


def test_forget_removes_the_file() -> None:
    cache = _store("https://example.test/mcp", None)
    assert cache.forget() and not cache_path("https://example.test/mcp").exists()
    assert not TokenCache("https://example.test/mcp").forget()


def test_a_corrupt_cache_is_ignored() -> None:
    path = cache_path("https://example.test/mcp")
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    assert anyio.run(TokenCache("https://example.test/mcp").get_tokens) is None


def test_options_make_oauth_settings_for_a_url_only() -> None:
    target = target_from_options(argv=["https://example.test/mcp"], client_id="a", client_secret="zq-secret")
    assert target.oauth is not None and target.oauth.client_credentials
    assert "zq-secret" not in json.dumps(target.source())
    assert "zq-secret" not in repr(target) and "zq-secret" not in repr(target.oauth)
    assert target_from_options(argv=["https://example.test/mcp"], no_oauth=True).oauth is None
    with pytest.raises(UsageError, match="apply to a URL target"):
        target_from_options(argv=["node", "server.js"], client_id="a")


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"client_secret": "x"}, "--client-id"),
        ({"client_auth": "private-key-jwt", "client_id": "a"}, "--private-key"),
        ({"client_metadata_url": "http://example.test/client.json"}, "https URL with a path"),
        ({"client_metadata_url": "https://example.test/"}, "https URL with a path"),
        ({"grant": "password"}, "--oauth-grant"),
    ],
)
def test_bad_settings_are_refused_naming_the_option(settings: dict[str, str], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        OAuthSettings(**settings)  # type: ignore[arg-type]


def test_a_private_key_is_read_and_what_is_not_one_is_refused(tmp_path: Path) -> None:
    for key in (ec.generate_private_key(ec.SECP256R1()), rsa.generate_private_key(65537, 2048)):
        pem = key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ).decode()
        path = tmp_path / "key.pem"
        path.write_text(pem)
        assert read_private_key(str(path)) == pem
    path.write_text("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n")
    with pytest.raises(UsageError, match="not an unencrypted PEM private key"):
        read_private_key(str(path))
    with pytest.raises(UsageError, match="cannot read it"):
        read_private_key(str(tmp_path / "missing.pem"))


@pytest.mark.parametrize(
    ("options", "advice"),
    [(["--no-oauth"], "without --no-oauth"), ([], "mcpdex auth login"), ([], "--client-id")],
)
def test_a_401_that_no_one_can_answer_fails_at_once_in_one_line(
    tmp_path: Path, options: list[str], advice: str
) -> None:
    """--no-oauth sends nothing but the given headers; without a terminal or a BROWSER, and with no
    token kept, no one can sign in: either way the refusal is one line that says what to pass, at once
    rather than at the deadline."""
    from tests.registry.conftest import free_port

    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-c", _UNAUTHORIZED, str(port)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None and server.stdout.readline().strip() == "ready"
        url = f"http://127.0.0.1:{port}/mcp"
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "registry", "inspect", *options, "--timeout", "20", url],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            stdin=subprocess.DEVNULL,
            env={k: v for k, v in os.environ.items() if k != "BROWSER"},
        )
        elapsed = time.monotonic() - started
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "HTTP 401" in done.stderr and advice in done.stderr, done.stderr
    assert elapsed < 15, elapsed


# A server behind authorization that never grants: every request is 401 with a challenge.
_UNAUTHORIZED = """
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

class Handler(BaseHTTPRequestHandler):
    def _deny(self):
        self.send_response(401)
        self.send_header("WWW-Authenticate", 'Bearer resource_metadata="http://127.0.0.1/none"')
        self.send_header("Content-Length", "0")
        self.end_headers()
    do_GET = do_POST = do_DELETE = _deny
    def log_message(self, *args):
        pass

server = HTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
print("ready", flush=True)
server.serve_forever()
"""


def _config(tmp_path: Path, oauth: object) -> Path:
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": {"api": {"url": "https://example.test/mcp", "oauth": oauth}}}))
    return path


def test_a_config_entry_carries_client_credentials_that_never_open_a_browser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from registry.inspecting.targets import config_servers

    monkeypatch.setenv("API_SECRET", "zq-from-env")
    target = config_servers(_config(tmp_path, {"clientId": "ci", "clientSecret": "${env:API_SECRET}"}))["api"]
    assert target.oauth is not None
    assert (target.oauth.client_secret, target.oauth.interactive) == ("zq-from-env", False)
    assert target.oauth.client_credentials and "zq-from-env" not in json.dumps(target.source())
    # The options of inspect --config leave it be, unless they name another client.
    kept = target_from_options(config=str(_config(tmp_path, {"clientId": "ci", "clientSecret": "x"})))
    assert kept.oauth is not None and kept.oauth.client_id == "ci"
    assert target_from_options(config=str(tmp_path / "servers.json"), no_oauth=True).oauth is None


@pytest.mark.parametrize(
    ("oauth", "message"),
    [
        ("ci", "must be an object"),
        ({"clientSecret": "x"}, "must be an object"),
        ({"clientId": "ci"}, 'needs a "clientSecret" or a "privateKeyFile"'),
        ({"clientId": "ci", "clientSecret": "x", "secret": "y"}, "has no secret"),
        ({"clientId": "ci", "clientSecret": "x", "clientAuth": "jwt"}, "is one of basic, post"),
        ({"clientId": "ci", "privateKeyFile": "missing.pem"}, "cannot read it"),
    ],
)
def test_a_bad_oauth_entry_is_refused_naming_the_field(tmp_path: Path, oauth: object, message: str) -> None:
    from registry.inspecting.targets import config_servers

    with pytest.raises(UsageError, match=re.escape(message)):
        config_servers(_config(tmp_path, oauth))
