"""MCP authorization as a client: the SDK's OAuth providers, a token cache per server, a loopback
redirect for the user's browser.

A remote server that answers ``401`` with ``WWW-Authenticate`` is discovered and authorized by the
SDK's providers (protected-resource metadata, authorization-server metadata, client registration,
scopes and step-up, refresh): :func:`http_auth` picks the provider the :class:`OAuthSettings` call
for — client credentials with a secret (``basic`` or ``post``) or a private key (``private-key-jwt``)
for CI and crawls, else the authorization code with PKCE through the user's browser. Tokens and
client registrations are cached per server (:class:`TokenCache`) in the data directory, each file
readable by its owner alone; they never reach a snapshot, a message or the terminal.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import parse_qs, urlsplit

from registry.core.errors import UsageError
from registry.core.paths import data_dir

if TYPE_CHECKING:
    import httpx2
    from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthToken

CLIENT_AUTH_METHODS = {
    "basic": "client_secret_basic",
    "post": "client_secret_post",
    "private-key-jwt": "private_key_jwt",
}
GRANTS = ("auto", "client-credentials", "authorization-code")
# How long the loopback redirect waits for the browser to come back with the code.
BROWSER_WAIT_S = 300.0
_CACHE_FORMAT = "mcpdex.oauth/1"
_CALLBACK_PATH = "/callback"


@dataclass
class OAuthSettings:
    """How to authorize against a server behind MCP authorization. Holds secrets: never recorded."""

    client_id: str | None = None
    client_secret: str | None = field(default=None, repr=False)
    client_auth: str = "basic"  # a key of CLIENT_AUTH_METHODS
    private_key: str | None = field(default=None, repr=False)  # PEM text, for private-key-jwt
    scope: str | None = None
    issuer: str | None = None  # the authorization server the client credentials belong to
    client_metadata_url: str | None = None  # an https URL used as client id where the server allows
    grant: str = "auto"  # one of GRANTS
    interactive: bool = True  # may the authorization code grant send the user to a browser
    open_browser: bool = True  # open one, or only print the URL to visit
    cache: bool = True  # keep tokens in the data directory between runs

    def __post_init__(self) -> None:
        if self.client_auth not in CLIENT_AUTH_METHODS:
            raise UsageError(f"--client-auth must be one of {', '.join(CLIENT_AUTH_METHODS)}")
        if self.grant not in GRANTS:
            raise UsageError(f"--oauth-grant must be one of {', '.join(GRANTS)}")
        if self.client_auth == "private-key-jwt" and not self.private_key:
            raise UsageError("--client-auth private-key-jwt signs with a key: pass --private-key FILE")
        if self.client_secret and not self.client_id:
            raise UsageError("--client-secret goes with the client it belongs to: pass --client-id ID")
        if self.private_key and not self.client_id:
            raise UsageError("--private-key goes with the client it belongs to: pass --client-id ID")
        if self.client_metadata_url is not None:
            parts = urlsplit(self.client_metadata_url)
            if parts.scheme != "https" or parts.path in ("", "/"):
                raise UsageError(
                    "--client-metadata-url must be an https URL with a path (the client's metadata document)"
                )

    @property
    def client_credentials(self) -> bool:
        """Whether the client-credentials grant is used (a secret or a key, unless told otherwise)."""
        if self.grant == "client-credentials":
            return True
        if self.grant == "authorization-code":
            return False
        return bool(self.client_secret or self.private_key)


def read_private_key(path: str) -> str:
    """The PEM text of ``path``, refused with a clear line when it is not a private key."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(
            f"--private-key {path}: cannot read it ({exc}); pass a PEM private key file"
        ) from None
    _signing_algorithm(text, f"--private-key {path}")
    return text


def _signing_algorithm(pem: str, where: str) -> str:
    """The JWS algorithm that fits the key: ES256/384/512 for an EC key by its curve, RS256 for RSA,
    EdDSA for Ed25519."""
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    try:
        key = load_pem_private_key(pem.encode(), password=None)
    except (ValueError, TypeError) as exc:
        raise UsageError(f"{where}: not an unencrypted PEM private key ({exc})") from None
    if isinstance(key, rsa.RSAPrivateKey):
        return "RS256"
    if isinstance(key, ed25519.Ed25519PrivateKey):
        return "EdDSA"
    if isinstance(key, ec.EllipticCurvePrivateKey):
        by_curve = {"secp256r1": "ES256", "secp384r1": "ES384", "secp521r1": "ES512"}
        if key.curve.name in by_curve:
            return by_curve[key.curve.name]
    raise UsageError(f"{where}: an RSA, P-256, P-384, P-521 or Ed25519 key is needed to sign the assertion")


def resource_key(url: str) -> str:
    """What a cached token is filed under: the server's URL without query or fragment, host lowercase."""
    parts = urlsplit(url)
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}{parts.path or '/'}"


def cache_path(url: str) -> Path:
    """The file that holds ``url``'s tokens and client registration (it may not exist)."""
    digest = hashlib.sha256(resource_key(url).encode()).hexdigest()[:32]
    return data_dir(create=False) / "oauth" / f"{digest}.json"


class TokenCache:
    """The SDK's token storage, in one JSON file per server, mode 0600, replaced atomically.

    The token's absolute expiry is kept beside it, so that a token read back after it expired is
    refreshed (or the grant run again) before it is sent.
    """

    def __init__(self, url: str, *, persist: bool = True) -> None:
        self.url = url
        self.path = cache_path(url)
        self._persist = persist
        self._data: dict[str, Any] = self._read() if persist else {}

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict) or data.get("format") != _CACHE_FORMAT:
            return {}
        return data

    def _write(self) -> None:
        if not self._persist:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        os.chmod(self.path.parent, 0o700)
        body = {"format": _CACHE_FORMAT, "server": resource_key(self.url)} | self._data
        temporary = self.path.with_suffix(f".{os.getpid()}.tmp")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            json.dump(body, handle, indent=2, sort_keys=True)
        os.replace(temporary, self.path)

    @property
    def expires_at(self) -> float | None:
        value = self._data.get("expiresAt")
        return float(value) if isinstance(value, int | float) else None

    def status(self) -> dict[str, Any]:
        """What is cached, without a secret: whether a token is held, its scope and expiry, the client id."""
        tokens = self._data.get("tokens") or {}
        client = self._data.get("client") or {}
        return {
            "server": resource_key(self.url),
            "token": bool(tokens.get("access_token")),
            "refreshable": bool(tokens.get("refresh_token")),
            "scope": tokens.get("scope"),
            "expiresAt": self.expires_at,
            "clientId": client.get("client_id"),
        }

    def forget(self) -> bool:
        """Delete the cache file; whether there was one."""
        self._data = {}
        try:
            self.path.unlink()
        except FileNotFoundError:
            return False
        return True

    async def get_tokens(self) -> OAuthToken | None:
        from mcp.shared.auth import OAuthToken
        from pydantic import ValidationError

        raw = self._data.get("tokens")
        if not isinstance(raw, dict):
            return None
        try:
            return OAuthToken.model_validate(raw)
        except ValidationError:
            return None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self._data["tokens"] = tokens.model_dump(mode="json", exclude_none=True)
        expires = time.time() + tokens.expires_in if tokens.expires_in is not None else None
        self._data["expiresAt"] = expires
        self._write()

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        from mcp.shared.auth import OAuthClientInformationFull
        from pydantic import ValidationError

        raw = self._data.get("client")
        if not isinstance(raw, dict):
            return None
        try:
            return OAuthClientInformationFull.model_validate(raw)
        except ValidationError:
            return None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self._data["client"] = client_info.model_dump(mode="json", exclude_none=True)
        self._write()

    def cached_redirect_port(self) -> int | None:
        """The loopback port of the cached registration's redirect URI, to listen on again."""
        client = self._data.get("client") or {}
        for uri in client.get("redirect_uris") or []:
            parts = urlsplit(str(uri))
            if parts.hostname in ("127.0.0.1", "localhost") and parts.port:
                return parts.port
        return None

    def drop_client(self) -> None:
        self._data.pop("client", None)


class _Loopback:
    """The redirect URI of the authorization code grant: one request to 127.0.0.1, answered in plain text."""

    def __init__(self, port: int | None) -> None:
        from http.server import BaseHTTPRequestHandler, HTTPServer

        self.result: dict[str, str] = {}
        result = self.result

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # the browser coming back
                if urlsplit(self.path).path != _CALLBACK_PATH:
                    self.send_error(404)
                    return
                query = parse_qs(urlsplit(self.path).query)
                for key in ("code", "state", "iss", "error", "error_description"):
                    if query.get(key):
                        result[key] = query[key][0]
                done = "code" in result
                self.send_response(200 if done else 400)
                self.send_header("Content-Type", "text/plain; charset=utf-8")
                self.end_headers()
                message = "mcpdex is authorized; you can close this page." if done else "no code came back"
                self.wfile.write(message.encode())

            def log_message(self, format: str, *args: Any) -> None:
                return

        try:
            self.server = HTTPServer(("127.0.0.1", port or 0), Handler)
            self.reused = port is not None
        except OSError:
            self.server = HTTPServer(("127.0.0.1", 0), Handler)
            self.reused = False
        self.redirect_uri = f"http://127.0.0.1:{self.server.server_address[1]}{_CALLBACK_PATH}"

    async def wait(self) -> AuthorizationCodeResult:
        import anyio
        from mcp.client.auth import OAuthFlowError
        from mcp.shared.auth import AuthorizationCodeResult

        give_up = time.monotonic() + BROWSER_WAIT_S
        while not self.result and time.monotonic() < give_up:
            self.server.timeout = max(0.1, min(1.0, give_up - time.monotonic()))
            await anyio.to_thread.run_sync(self.server.handle_request, abandon_on_cancel=True)
        self.server.server_close()
        if "code" not in self.result:
            reason = self.result.get("error_description") or self.result.get("error") or "no answer"
            raise OAuthFlowError(f"the authorization server sent no code back to the loopback ({reason})")
        return AuthorizationCodeResult(
            code=self.result["code"], state=self.result.get("state"), iss=self.result.get("iss")
        )

    def close(self) -> None:
        self.server.server_close()


def _send_user(open_browser: bool) -> Any:
    """The redirect handler: start the user's browser at the authorization URL (in a thread of its own,
    as a browser command may wait for the page it opened) and print the URL for a terminal without one."""

    async def redirect(url: str) -> None:
        import threading
        import webbrowser

        if open_browser:
            threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
        verb = "opening your browser at" if open_browser else "to authorize, open this URL in a browser:"
        print(f"mcpdex: {verb} {url}", file=sys.stderr, flush=True)

    return redirect


def _no_person(url: str) -> Any:
    """The redirect handler where no one can sign in (no terminal, no browser): stop with what to do."""

    async def refuse(authorization_url: str) -> None:
        from mcp.client.auth import OAuthFlowError

        raise OAuthFlowError(
            f"signing in needs a browser; run `mcpdex auth login {resource_key(url)}` where one opens, "
            "or pass client credentials (--client-id with --client-secret or --private-key)"
        )

    return refuse


def can_ask_a_person() -> bool:
    """Whether the authorization code grant may send someone to a browser: a terminal is attached, or
    BROWSER names the browser to start."""
    return sys.stdin.isatty() or bool(os.environ.get("BROWSER"))


def http_auth(url: str, settings: OAuthSettings) -> httpx2.Auth | None:
    """The httpx2 auth that authorizes requests to the server at ``url`` as ``settings`` say; None when
    nothing could be used (not interactive and no client credentials)."""
    from mcp.client.auth import OAuthClientProvider
    from mcp.client.auth.extensions.client_credentials import (
        ClientCredentialsOAuthProvider,
        PrivateKeyJWTOAuthProvider,
        SignedJWTParameters,
    )
    from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata
    from mcp.shared.exceptions import MCPDeprecationWarning

    # The SDK logs a failed flow with its traceback; the failure reaches the user as one line instead.
    logging.getLogger("mcp.client.auth").addHandler(logging.NullHandler())
    cache = TokenCache(url, persist=settings.cache)
    with warnings.catch_warnings():
        # Without --oauth-issuer the server's advertised authorization server is used, as asked.
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        if settings.client_credentials:
            if not settings.client_id:
                raise UsageError("--oauth-grant client-credentials needs --client-id and a secret or key")
            if settings.client_auth == "private-key-jwt":
                pem = settings.private_key or ""
                assertion = SignedJWTParameters(
                    issuer=settings.client_id,
                    subject=settings.client_id,
                    signing_key=pem,
                    signing_algorithm=_signing_algorithm(pem, "--private-key"),
                ).create_assertion_provider()
                return cast(
                    "httpx2.Auth",
                    _expiring(PrivateKeyJWTOAuthProvider)(
                        url,
                        cache,
                        settings.client_id,
                        assertion,
                        scope=settings.scope,
                        issuer=settings.issuer,
                    ),
                )
            if not settings.client_secret:
                raise UsageError("the client-credentials grant needs --client-secret (or --private-key)")
            method = CLIENT_AUTH_METHODS[settings.client_auth]
            return cast(
                "httpx2.Auth",
                _expiring(ClientCredentialsOAuthProvider)(
                    url,
                    cache,
                    settings.client_id,
                    settings.client_secret,
                    token_endpoint_auth_method=method,
                    scope=settings.scope,
                    issuer=settings.issuer,
                ),
            )
    if not settings.interactive and not cache.status()["token"]:
        return None  # nothing to send and no one to sign in: a 401 says what to pass
    loopback = _Loopback(cache.cached_redirect_port())
    if not loopback.reused:
        cache.drop_client()  # registered for another redirect URI
    metadata = OAuthClientMetadata.model_validate(
        {
            "redirect_uris": [loopback.redirect_uri],
            "client_name": "mcpdex",
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none" if not settings.client_secret else None,
            "scope": settings.scope,
        }
    )
    provider = _expiring(OAuthClientProvider)(
        url,
        metadata,
        cache,
        redirect_handler=_send_user(settings.open_browser) if settings.interactive else _no_person(url),
        callback_handler=loopback.wait,
        client_metadata_url=settings.client_metadata_url,
    )
    if settings.client_id:
        # A pre-registered client: its id (and secret) stand in for a registration.
        method = CLIENT_AUTH_METHODS[settings.client_auth] if settings.client_secret else "none"
        provider.fixed_client = OAuthClientInformationFull(
            client_id=settings.client_id,
            client_secret=settings.client_secret,
            redirect_uris=[loopback.redirect_uri],  # type: ignore[list-item]
            token_endpoint_auth_method=method,
            grant_types=["authorization_code", "refresh_token"],
        )
    return cast("httpx2.Auth", provider)


def _expiring(base: type[Any]) -> type[Any]:
    """``base`` (an SDK provider) that reads the cached token's expiry back, so an expired token is
    refreshed rather than sent, and that may carry a pre-registered client."""

    class Provider(base):
        fixed_client: OAuthClientInformationFull | None = None

        async def _initialize(self) -> None:
            await super()._initialize()
            if self.fixed_client is not None:
                self.context.client_info = self.fixed_client
            storage = self.context.storage
            if isinstance(storage, TokenCache) and self.context.current_tokens is not None:
                self.context.token_expiry_time = storage.expires_at

    Provider.__name__ = base.__name__
    return Provider
