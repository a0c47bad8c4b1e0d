"""The httpx client of an ``mcpdex serve`` registry: submit inspections, fetch snapshots, ask compatibility.

Used by ``inspect --save``, ``crawl`` and ``check`` when ``--registry`` is an http(s) URL. Writes carry
the bearer token from ``MCPDEX_TOKEN``. A 503 (the service's database is restarting, or a scorecard is
being computed) is retried a few times, after the ``Retry-After`` the service sends (up to 10 s) or
else a short back-off, before it becomes an error; a submission carries one idempotency key across
its retries, so one whose commit landed but whose answer was lost is not recorded twice.
"""

from __future__ import annotations

import os
import uuid
from typing import TYPE_CHECKING, Any, Self
from urllib.parse import quote

from common.retries import AGAIN, Backoff, Retry, retry_after_seconds, with_retries
from registry.core.errors import NotFoundError, RegistryError, UsageError
from registry.core.strict_json import MAX_JSON_DEPTH, JSONValueError, check_json
from registry.storage.records import Recorded, ServerSummary, VersionRecord

if TYPE_CHECKING:
    import httpx

    from registry.storage.protocol import Registry

TOKEN_ENV = "MCPDEX_TOKEN"
# A 503 is retried four times: after the service's Retry-After (capped at 10 s, so that a service
# asking for minutes does not hang a command for them), else after these waits.
_BACKOFF = Backoff((0.5, 1.0, 2.0, 4.0), max_wait=10.0)
_MAX_PAGES = 1000  # 200 servers a page: a bound on listing, far above any directory's size


def is_service_url(url: str | None) -> bool:
    """Whether a ``--registry`` value names an HTTP service rather than a database."""
    return bool(url) and url.lower().startswith(("http://", "https://"))  # type: ignore[union-attr]


def _unavailable(response: httpx.Response) -> Retry | None:
    """A 503 is retried, after the delay its ``Retry-After`` gives in seconds, if any."""
    if response.status_code != 503:
        return None
    wait = retry_after_seconds(response.headers.get("Retry-After"))
    return AGAIN if wait is None else Retry(wait)


def _server_path(server: str) -> str:
    # '/' stays literal: the service routes multi-segment names such as ``mcp-servers/everything``.
    return "/api/servers/" + quote(server, safe="/@")


class RegistryClient:
    """A client of one service; ``token`` defaults to ``$MCPDEX_TOKEN`` and is needed for writes only."""

    def __init__(
        self,
        base_url: str,
        *,
        token: str | None = None,
        timeout: float = 30.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if not is_service_url(base_url):
            raise UsageError(f"--registry {base_url!r} is not an http(s) URL of an `mcpdex serve` service")
        self.base_url = base_url.rstrip("/")
        self.token = token if token is not None else os.environ.get(TOKEN_ENV)
        # Imported here, not with the module: opening a database registry never needs it (~60 ms).
        import httpx

        self._http = httpx.Client(
            base_url=self.base_url,
            timeout=timeout,
            transport=transport,
            headers={"Accept": "application/json", "User-Agent": "mcpdex"},
        )

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def _request(
        self,
        method: str,
        path: str,
        *,
        write: bool = False,
        headers: dict[str, str] | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        import httpx

        if "json" in kwargs:
            # What the service would refuse with a 422 (and httpx could not even encode: NaN, a lone
            # surrogate, nesting past the recursion limit) is refused here, naming the same field.
            try:
                check_json(kwargs["json"], max_depth=MAX_JSON_DEPTH + 1, what="body field")
            except JSONValueError as exc:
                raise RegistryError(f"cannot send to the registry service {self.base_url}: {exc}") from None
        headers = dict(headers or {})
        if write:
            if not self.token:
                raise UsageError(
                    f"writing to {self.base_url} needs a token: set {TOKEN_ENV} to one made with "
                    "`mcpdex token create NAME` on the service's registry"
                )
            headers["Authorization"] = f"Bearer {self.token}"

        def send() -> httpx.Response:
            try:
                return self._http.request(method, path, headers=headers, **kwargs)
            except httpx.HTTPError as exc:
                raise RegistryError(
                    f"cannot reach the registry service {self.base_url} ({exc}); check the URL and that "
                    "`mcpdex serve` is running"
                ) from None

        response = with_retries(send, _BACKOFF, on_result=_unavailable)
        return self._answer(response)

    def _answer(self, response: httpx.Response) -> dict[str, Any]:
        try:
            body = response.json()
        except ValueError:
            body = None
        if response.is_success:
            if not isinstance(body, dict):  # every endpoint of the service answers a JSON object
                raise RegistryError(f"{response.url} answered {response.status_code} without a JSON object")
            return body
        error = (body or {}).get("error") if isinstance(body, dict) else None
        message = error.get("message") if isinstance(error, dict) else response.text[:200]
        code = error.get("code") if isinstance(error, dict) else f"http_{response.status_code}"
        text = f"registry service {self.base_url}: {message} ({code}, HTTP {response.status_code})"
        if response.status_code == 404:
            raise NotFoundError(text)
        raise RegistryError(text)

    def submit(
        self,
        server: str,
        snapshot: dict[str, Any] | None,
        *,
        error: str | None = None,
        started_at: str | None = None,
        duration_s: float = 0.0,
        idempotency_key: str | None = None,
    ) -> dict[str, Any]:
        """Record an inspection of ``server``: a snapshot, or ``snapshot=None`` with the ``error``.

        Returns the service's answer: ``server``, ``version``, ``digest``, ``new_version``, ``inspection_id``.
        ``idempotency_key`` (a new UUID when None) is sent with every retry of this call; pass the same
        one again to repeat a submission whose outcome is unknown and get its first answer.
        """
        if snapshot is None and not error:
            raise UsageError("a failed inspection needs its error message")
        body: dict[str, Any] = {"ok": snapshot is not None, "snapshot": snapshot, "error": error}
        if started_at:
            body["startedAt"] = started_at
        body["durationS"] = duration_s
        key = idempotency_key or str(uuid.uuid4())
        return self._request(
            "POST",
            _server_path(server) + "/inspections",
            write=True,
            headers={"Idempotency-Key": key},
            json=body,
        )

    def snapshot(self, server: str, version: str | None = None) -> dict[str, Any]:
        """The recorded snapshot of ``server`` at ``version`` (the latest when None)."""
        if version is None:
            return self._request("GET", _server_path(server) + "/snapshot")
        return self._request("GET", _server_path(server) + "/versions/" + quote(version, safe=""))

    def servers(self, **filters: Any) -> dict[str, Any]:
        """One page of the server list; filters are ``q``, ``tier``, ``page``, ``per_page``."""
        return self._request("GET", "/api/servers", params={k: v for k, v in filters.items() if v})

    def server(self, server: str) -> dict[str, Any]:
        return self._request("GET", _server_path(server))

    def versions(self, server: str) -> list[dict[str, Any]]:
        versions: list[dict[str, Any]] = self._request("GET", _server_path(server) + "/versions")["versions"]
        return versions

    def compatibility(
        self, server: str, snapshot: dict[str, Any], version: str | None = None
    ) -> dict[str, Any]:
        """Diff ``snapshot`` against the recorded latest (or ``version``) without storing it."""
        params = {"version": version} if version else None
        return self._request("POST", _server_path(server) + "/compatibility", json=snapshot, params=params)


class ServiceRegistry:
    """The store's interface, for the parts a client uses, over an ``mcpdex serve`` service.

    ``open_registry`` returns one for an http(s) URL, so ``inspect --save``, ``crawl``, ``check`` and
    ``SERVER@VERSION`` lookups work the same against a database and a service.
    """

    def __init__(self, url: str, *, token: str | None = None, timeout: float = 30.0) -> None:
        self.url = url
        self._client = RegistryClient(url, token=token, timeout=timeout)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self._client.close()

    def record_inspection(
        self,
        snapshot: dict[str, Any] | None,
        *,
        server: str,
        ok: bool,
        error: str | None,
        started_at: str,
        duration_s: float,
    ) -> Recorded:
        if ok != (snapshot is not None):
            raise UsageError("an ok inspection carries a snapshot, a failed one its error")
        answer = self._client.submit(
            server, snapshot, error=error, started_at=started_at, duration_s=duration_s
        )
        return Recorded(
            answer["server"],
            answer["version"],
            answer["digest"],
            answer["new_version"],
            answer["inspection_id"],
        )

    def snapshot(self, server: str, version: str | None = None) -> dict[str, Any]:
        return self._client.snapshot(server, version)

    def latest_version(self, server: str) -> VersionRecord | None:
        """The latest version of ``server`` with its snapshot; None when it has none or is not recorded."""
        try:
            versions = self._client.versions(server)
        except NotFoundError:
            return None
        if not versions:
            return None
        latest = versions[-1]
        return VersionRecord(
            latest["label"],
            latest["digest"],
            latest["first_seen"],
            latest["last_seen"],
            self._client.snapshot(server, latest["label"]),
        )

    def servers(self) -> list[ServerSummary]:
        summaries: list[ServerSummary] = []
        for page in range(1, _MAX_PAGES + 1):
            answer = self._client.servers(page=page, per_page=200)
            fields = ServerSummary.__dataclass_fields__
            summaries += [
                ServerSummary(**{k: v for k, v in item.items() if k in fields}) for item in answer["servers"]
            ]
            if not answer["next_page"]:
                break
        return summaries


def open_registry(url: str | None = None, *, timeout: float = 30.0) -> Registry:
    """The registry ``url`` names: a database (``open_store``), or an ``mcpdex serve`` service for http(s),
    whose every request has ``timeout`` seconds. None is the default registry, which ``MCPDEX_REGISTRY``
    may name as either."""
    from registry.core.paths import resolve_registry_url

    url = resolve_registry_url(url)
    if is_service_url(url):
        return ServiceRegistry(url, timeout=timeout)
    from registry.storage.store import open_store

    return open_store(url)
