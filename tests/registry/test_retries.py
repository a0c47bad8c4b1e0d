"""The one retry helper, and the service client honouring a 503's Retry-After against a real server."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from common.retries import AGAIN, AT_ONCE, Backoff, Retry, retry_after_seconds, with_retries
from registry.core.errors import RegistryError
from registry.storage.client import RegistryClient


class Flaky:
    """A call that fails (or answers ``"busy"``) ``failures`` times, then answers ``"done"``."""

    def __init__(self, failures: int, *, raises: bool) -> None:
        self.failures, self.raises, self.calls = failures, raises, 0

    def __call__(self) -> str:
        self.calls += 1
        if self.calls <= self.failures:
            if self.raises:
                raise ConnectionError(f"attempt {self.calls}")
            return "busy"
        return "done"


def test_an_error_is_retried_after_each_delay_of_the_backoff() -> None:
    slept: list[float] = []
    call = Flaky(2, raises=True)
    result = with_retries(call, Backoff((0.1, 0.2, 0.4)), on_error=lambda exc: AGAIN, sleep=slept.append)
    assert result == "done" and call.calls == 3 and slept == [0.1, 0.2]


def test_the_last_attempts_error_propagates_and_an_unretriable_one_at_once() -> None:
    slept: list[float] = []
    call = Flaky(5, raises=True)
    with pytest.raises(ConnectionError, match="attempt 3"):
        with_retries(call, Backoff((0.1, 0.2)), on_error=lambda exc: AGAIN, sleep=slept.append)
    assert call.calls == 3 and slept == [0.1, 0.2]
    call = Flaky(5, raises=True)
    with pytest.raises(ConnectionError, match="attempt 1"):
        with_retries(call, Backoff((0.1, 0.2)), on_error=lambda exc: None, sleep=slept.append)
    assert call.calls == 1


def test_a_result_is_retried_and_the_last_one_returned_retriable_or_not() -> None:
    slept: list[float] = []

    def busy(answer: str) -> Retry | None:
        return AGAIN if answer == "busy" else None

    assert with_retries(Flaky(1, raises=False), Backoff((0.5,)), on_result=busy, sleep=slept.append) == "done"
    assert with_retries(Flaky(3, raises=False), Backoff((0.5,)), on_result=busy, sleep=slept.append) == "busy"
    assert slept == [0.5, 0.5]


def test_a_given_wait_replaces_the_backoffs_up_to_its_cap_and_zero_does_not_sleep() -> None:
    backoff = Backoff((0.5, 1.0), max_wait=10.0)
    assert backoff.wait(AGAIN, 1) == 1.0
    assert backoff.wait(Retry(3.0), 0) == 3.0
    assert backoff.wait(Retry(3600.0), 0) == 10.0
    slept: list[float] = []
    with_retries(Flaky(1, raises=True), backoff, on_error=lambda exc: AT_ONCE, sleep=slept.append)
    assert slept == []


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        ("2", 2.0),
        (" 120 ", 120.0),
        ("0", 0.0),
        (None, None),
        ("", None),
        ("-1", None),
        ("1.5", None),
        ("Wed, 21 Oct 2026 07:28:00 GMT", None),
        ("²", None),
    ],
)
def test_retry_after_is_read_in_its_seconds_form_only(header: str | None, seconds: float | None) -> None:
    assert retry_after_seconds(header) == seconds


class _UnavailableServer(ThreadingHTTPServer):
    """Answers 503 (with ``Retry-After: retry_after`` when given) ``unavailable`` times, then 200;
    ``seen`` holds when each request came."""

    def __init__(self, unavailable: int, retry_after: str | None) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.unavailable, self.retry_after = unavailable, retry_after
        self.seen: list[float] = []


class _Handler(BaseHTTPRequestHandler):
    server: _UnavailableServer

    def do_GET(self) -> None:
        self.server.seen.append(time.monotonic())
        unavailable = len(self.server.seen) <= self.server.unavailable
        error = {"code": "unavailable", "message": "the registry database is unavailable"}
        data = json.dumps({"error": error} if unavailable else {"servers": [], "next_page": None}).encode()
        self.send_response(503 if unavailable else 200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if unavailable and self.server.retry_after is not None:
            self.send_header("Retry-After", self.server.retry_after)
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


# start(unavailable, retry_after) -> (the server's URL, when each request came)
Start = Callable[[int, str | None], tuple[str, list[float]]]


@pytest.fixture
def unavailable_server() -> Iterator[Start]:
    servers: list[_UnavailableServer] = []

    def start(unavailable: int, retry_after: str | None) -> tuple[str, list[float]]:
        server = _UnavailableServer(unavailable, retry_after)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}", server.seen

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def test_the_client_waits_the_retry_after_a_503_gives_before_asking_again(unavailable_server: Start) -> None:
    url, seen = unavailable_server(1, "2")
    with RegistryClient(url) as client:
        assert client.servers() == {"servers": [], "next_page": None}
    assert len(seen) == 2
    assert seen[1] - seen[0] >= 2.0  # the service's delay, not the client's first back-off (0.5 s)


def test_the_client_falls_back_to_its_backoff_without_a_retry_after_and_gives_up_after_five(
    unavailable_server: Start, monkeypatch: pytest.MonkeyPatch
) -> None:
    slept: list[float] = []
    monkeypatch.setattr(time, "sleep", slept.append)
    url, seen = unavailable_server(10, None)
    with RegistryClient(url) as client, pytest.raises(RegistryError, match=r"unavailable.*HTTP 503"):
        client.servers()
    assert len(seen) == 5 and slept == [0.5, 1.0, 2.0, 4.0]
