"""`mcpdex serve` as real uvicorn processes: the httpx client, concurrent writers, a PostgreSQL restart.

The load and fault tests run their own throwaway PostgreSQL cluster (initdb on a free loopback port),
so restarting it never disturbs the machine's shared server. Every loop is bounded in count and time.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa

from registry.core.errors import NotFoundError, RegistryError, UsageError
from registry.core.snapshot import SNAPSHOT_FORMAT, compute_digest
from registry.storage.client import RegistryClient
from registry.storage.store import open_store, store_engine, tables
from registry.storage.tokens import open_tokens
from tests.conftest import require


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def variant(index: int, label: str, server: str = "load-notes") -> dict[str, Any]:
    """A distinct snapshot per ``index``: tool ``op_<index>`` is added to a fixed search tool."""
    snapshot = {
        "format": SNAPSHOT_FORMAT,
        "server": {"name": server, "title": None, "version": label, "instructions": None},
        "source": {"transport": "stdio", "target": server},
        "protocolVersion": "2025-11-25",
        "capabilities": {"tools": {}},
        "capturedAt": "2026-11-29T18:00:00Z",
        "tools": [
            {
                "name": "search_notes",
                "description": "Search notes by words; returns matching notes, newest first.",
                "inputSchema": {
                    "type": "object",
                    "properties": {"query": {"type": "string"}},
                    "required": ["query"],
                },
            },
            {
                "name": f"op_{index}",
                "description": f"Operation number {index} on one note by id.",
                "inputSchema": {
                    "type": "object",
                    "properties": {"id": {"type": "string"}},
                    "required": ["id"],
                },
            },
        ],
        "resources": [],
        "resourceTemplates": [],
        "prompts": [],
        "problems": [],
    }
    snapshot["digest"] = compute_digest(snapshot)
    return snapshot


class Service:
    """One ``mcpdex serve`` process on a free loopback port, stopped by its own pid."""

    def __init__(self, registry_url: str, log: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._log = log.open("w")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "registry",
                "serve",
                "--registry",
                registry_url,
                "--port",
                str(self.port),
                "--log-level",
                "warning",
            ],
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"mcpdex serve exited: {log.read_text()}")
            try:
                if httpx.get(self.url + "/api/openapi.json", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.2)
        self.stop()
        raise AssertionError(f"mcpdex serve did not answer within 60 s: {log.read_text()}")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5)
        self._log.close()


@pytest.fixture(scope="module")
def sqlite_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Service, str]]:
    tmp_path = tmp_path_factory.mktemp("serve")
    url = f"sqlite:///{tmp_path / 'registry.sqlite'}"
    store = open_store(url)
    secret = open_tokens(store).create("ci", "acme-*")[1]
    store.close()
    service = Service(url, tmp_path / "serve.log")
    yield service, secret
    service.stop()


# ------------------------------------------------------------------ the client against a live service


def test_client_submits_reads_and_checks_compatibility(sqlite_service) -> None:
    service, secret = sqlite_service
    with RegistryClient(service.url, token=secret) as client:
        first = client.submit(
            "acme-notes", variant(1, "1.0.0"), started_at="2026-11-29T18:00:00Z", duration_s=0.4
        )
        assert first["new_version"] is True and first["version"] == "1.0.0"
        assert client.submit("acme-notes", variant(1, "1.0.0"))["new_version"] is False
        assert client.submit("acme-notes", None, error="spawn failed: no such file")["version"] is None
        assert client.submit("acme-notes", variant(2, "1.1.0"))["new_version"] is True
        assert client.snapshot("acme-notes")["digest"] == variant(2, "1.1.0")["digest"]
        assert client.snapshot("acme-notes", "1.0.0")["digest"] == variant(1, "1.0.0")["digest"]
        assert [v["label"] for v in client.versions("acme-notes")] == ["1.0.0", "1.1.0"]
        assert client.servers(q="acme")["total"] == 1
        verdict = client.compatibility("acme-notes", variant(3, "1.2.0"))
        assert verdict["compatible"] is False  # op_2 removed
        assert any(c["level"] == "breaking" and c["tool"] == "op_2" for c in verdict["changes"])


def test_client_errors_name_the_problem(sqlite_service) -> None:
    service, secret = sqlite_service
    with RegistryClient(service.url, token="") as anonymous, pytest.raises(UsageError, match="MCPDEX_TOKEN"):
        anonymous.submit("acme-notes", variant(1, "1.0.0"))
    with RegistryClient(service.url, token=secret) as client:
        with pytest.raises(RegistryError, match="token_out_of_scope"):
            client.submit("globex", variant(1, "1.0.0"))
        with pytest.raises(NotFoundError, match="not_found"):
            client.snapshot("acme-missing")
    with (
        RegistryClient(service.url, token=secret[:-2] + "zz") as forged,
        pytest.raises(RegistryError, match="401"),
    ):
        forged.submit("acme-notes", variant(1, "1.0.0"))
    nowhere = RegistryClient(f"http://127.0.0.1:{free_port()}", timeout=2)
    with nowhere, pytest.raises(RegistryError, match="cannot reach"):
        nowhere.servers()


def test_client_reads_token_from_the_environment(sqlite_service, monkeypatch) -> None:
    service, secret = sqlite_service
    monkeypatch.setenv("MCPDEX_TOKEN", secret)
    with RegistryClient(service.url) as client:
        assert client.submit("acme-env", variant(1, "1.0.0"))["new_version"] is True


def test_serve_refuses_an_http_registry_url() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "registry", "serve", "--registry", "http://127.0.0.1:1/"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2 and "database URL" in result.stderr


def test_serve_with_an_unreachable_database_fails_in_one_line() -> None:
    url = f"postgresql://postgres@127.0.0.1:{free_port()}/nowhere"
    result = subprocess.run(
        [sys.executable, "-m", "registry", "serve", "--registry", url, "--port", str(free_port())],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2 and result.stderr.startswith("mcpdex: error: cannot open the registry")
    assert "Traceback" not in result.stderr


# ------------------------------------------------------------------ a private PostgreSQL cluster


@dataclass
class PrivatePostgres:
    url: str
    data: Path
    pg_ctl: list[str]

    def ctl(self, *args: str) -> None:
        subprocess.run([*self.pg_ctl, *args], check=True, capture_output=True, timeout=60)


def _pg_bin() -> Path | None:
    candidates = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]))
    if candidates:
        return candidates[-1].parent
    found = shutil.which("initdb")
    return Path(found).parent if found else None


@pytest.fixture(scope="module")
def private_postgres() -> Iterator[PrivatePostgres]:
    bindir = _pg_bin()
    require(bindir is not None, "PostgreSQL's initdb is not installed (scripts/ensure-postgres installs it)")
    as_user: list[str] = []
    root = tempfile.mkdtemp(prefix="mcpdex-pg-")
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root: run the cluster as the postgres user
        as_user = ["runuser", "-u", "postgres", "--"]
        shutil.chown(root, "postgres", "postgres")
    data, port = Path(root) / "data", free_port()
    subprocess.run(
        [*as_user, str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8"],
        check=True,
        capture_output=True,
        timeout=120,
    )
    options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100"
    pg_ctl = [*as_user, str(bindir / "pg_ctl"), "-D", str(data), "-l", f"{root}/log", "-o", options, "-w"]
    cluster = PrivatePostgres(f"postgresql://postgres@127.0.0.1:{port}/postgres", data, pg_ctl)
    cluster.ctl("start")
    try:
        yield cluster
    finally:
        subprocess.run([*pg_ctl, "-m", "immediate", "stop"], capture_output=True, timeout=60)
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def fresh_database(private_postgres: PrivatePostgres) -> Iterator[str]:
    import psycopg

    name = f"load_{random.randrange(16**8):08x}"
    with psycopg.connect(private_postgres.url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    yield private_postgres.url.rsplit("/", 1)[0] + f"/{name}"
    with psycopg.connect(private_postgres.url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _two_services(url: str, tmp_path: Path) -> tuple[list[Service], str]:
    store = open_store(url)
    secret = open_tokens(store).create("loader", "load-*")[1]
    store.close()
    return [Service(url, tmp_path / f"serve-{n}.log") for n in range(2)], secret


def _rows(url: str) -> tuple[list[Any], list[Any]]:
    store = open_store(url)
    with store_engine(store).connect() as conn:
        versions = conn.execute(sa.select(tables().versions)).all()
        inspections = conn.execute(sa.select(tables().inspections)).all()
    store.close()
    return versions, inspections


# ------------------------------------------------------------------ load


@pytest.mark.slow
@pytest.mark.postgres
def test_two_services_eight_clients_200_submissions_lose_and_double_nothing(fresh_database, tmp_path) -> None:
    services, secret = _two_services(fresh_database, tmp_path)
    rng = random.Random(7)
    # 200 submissions over two servers: 30 distinct digests each, many repeats, some sharing a label with
    # another digest (tools changed, version not bumped), and some failed inspections.
    plan: list[tuple[str, dict[str, Any] | None]] = []
    for _ in range(200):
        server = rng.choice(["load-a", "load-b"])
        if rng.random() < 0.1:
            plan.append((server, None))
        else:
            index = rng.randrange(30)
            plan.append((server, variant(index, f"1.{index % 20}.0", server)))
    answers: list[tuple[str, dict[str, Any] | None, dict[str, Any]]] = []
    failures: list[BaseException] = []
    lock = threading.Lock()
    deadline = time.monotonic() + 120

    def client(number: int) -> None:
        service = services[number % 2]
        with RegistryClient(service.url, token=secret, timeout=30) as registry:
            for server, snapshot in plan[number::8]:
                if time.monotonic() > deadline:
                    raise TimeoutError("load test ran past its 120 s budget")
                answer = registry.submit(
                    server, snapshot, error=None if snapshot else "timed out", duration_s=0.1
                )
                with lock:
                    answers.append((server, snapshot, answer))

    def run(number: int) -> None:
        try:
            client(number)
        except BaseException as exc:  # collected and re-raised in the test thread
            failures.append(exc)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(8)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=150)
    finally:
        for service in services:
            service.stop()
    assert not failures, failures[0]
    assert len(answers) == 200

    versions, inspections = _rows(fresh_database)
    # every inspection recorded, once
    assert len(inspections) == 200
    assert len({a["inspection_id"] for _, _, a in answers}) == 200
    # every distinct (server, digest) is exactly one version row, labels unique per server
    submitted = {(server, snap["digest"]) for server, snap, _ in answers if snap}
    assert len(versions) == len(submitted)
    store = open_store(fresh_database)
    stored = {(server, v.digest): v.label for server in ("load-a", "load-b") for v in store.versions(server)}
    store.close()
    assert set(stored) == submitted
    server_ids = {row.server_id for row in versions}
    for server_id in server_ids:
        labels = [row.label for row in versions if row.server_id == server_id]
        assert len(labels) == len(set(labels))
    # every client was told the truth: one "new" per digest, and the label it landed under
    news = Counter((server, snap["digest"]) for server, snap, a in answers if snap and a["new_version"])
    assert set(news) == submitted and set(news.values()) == {1}
    for server, snap, answer in answers:
        if snap:
            assert (
                answer["digest"] == snap["digest"] and answer["version"] == stored[(server, snap["digest"])]
            )
        else:
            assert answer["version"] is None and answer["new_version"] is False


# ------------------------------------------------------------------ the database restarting mid-run


@pytest.mark.slow
@pytest.mark.postgres
def test_database_restart_gives_503_then_success_with_nothing_half_written(
    private_postgres, fresh_database, tmp_path
) -> None:
    services, secret = _two_services(fresh_database, tmp_path)
    statuses: Counter[int] = Counter()
    outage_bodies: list[tuple[dict[str, Any], str | None]] = []
    acknowledged: list[tuple[str, dict[str, Any]]] = []
    failures: list[BaseException] = []
    lock = threading.Lock()
    deadline = time.monotonic() + 90

    def writer(number: int) -> None:
        url = services[number % 2].url + "/api/servers/load-restart/inspections"
        with httpx.Client(timeout=10) as http:
            for step in range(30):
                snapshot = variant(number * 100 + step, f"{number}.{step}.0", "load-restart")
                # one key per logical submission, kept across its retries
                headers = {"Authorization": f"Bearer {secret}", "Idempotency-Key": str(uuid.uuid4())}
                while True:
                    if time.monotonic() > deadline:
                        raise TimeoutError("restart test ran past its 90 s budget")
                    response = http.post(url, json=snapshot, headers=headers)
                    with lock:
                        statuses[response.status_code] += 1
                        if response.status_code == 503:
                            outage_bodies.append((response.json(), response.headers.get("retry-after")))
                    if response.status_code in (200, 201):
                        with lock:
                            acknowledged.append((snapshot["digest"], response.json()))
                        break
                    assert response.status_code == 503, response.text
                    time.sleep(0.2)
                time.sleep(0.1)

    def run(number: int) -> None:
        try:
            writer(number)
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(4)]
    try:
        for thread in threads:
            thread.start()
        time.sleep(1.0)
        private_postgres.ctl("-m", "fast", "stop")
        time.sleep(2.0)  # writers keep going against a database that is down
        private_postgres.ctl("start")
        for thread in threads:
            thread.join(timeout=120)
        listing = httpx.get(services[1].url + "/api/servers", timeout=10)
    finally:
        for service in services:
            service.stop()
    assert not failures, failures[0]
    assert statuses[503] >= 1, statuses
    assert all(
        body["error"]["code"] == "database_unavailable" and retry == "2" for body, retry in outage_bodies
    )
    assert listing.status_code == 200 and listing.json()["servers"][0]["name"] == "load-restart"
    assert len(acknowledged) == 120

    versions, inspections = _rows(fresh_database)
    # nothing half-written: each version has the inspection written in its transaction; and exactly
    # one inspection per logical submission, even where a 503 hid a commit and the retry replayed it
    assert {row.digest for row in versions} == {digest for digest, _ in acknowledged}
    assert len(versions) == 120
    assert len(inspections) == 120
    assert sorted(row.version_id for row in inspections) == sorted(row.id for row in versions)
    assert {row.id for row in inspections} == {answer["inspection_id"] for _, answer in acknowledged}
    assert all(answer["new_version"] for _, answer in acknowledged)


# ------------------------------------------------------------------ the commands against a live service


def _mcpdex(*args: str, token: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "MCPDEX_TOKEN"}
    if token:
        env["MCPDEX_TOKEN"] = token
    return subprocess.run(
        [sys.executable, "-m", "registry", *args], capture_output=True, text=True, timeout=120, env=env
    )


def test_open_registry_gives_the_store_interface_over_http(sqlite_service) -> None:
    from registry.storage.client import ServiceRegistry, open_registry

    service, secret = sqlite_service
    with open_registry(service.url) as registry:
        assert isinstance(registry, ServiceRegistry)
        registry._client.token = secret
        recorded = registry.record_inspection(
            variant(7, "7.0.0"),
            server="acme-iface",
            ok=True,
            error=None,
            started_at="2026-11-29T18:00:00Z",
            duration_s=0.2,
        )
        assert recorded.new_version and recorded.version == "7.0.0" and recorded.server == "acme-iface"
        assert registry.snapshot("acme-iface")["digest"] == variant(7, "7.0.0")["digest"]
        summary = next(s for s in registry.servers() if s.name == "acme-iface")
        assert summary.latest_version == "7.0.0" and summary.version_count == 1 and summary.last_ok is True


def test_mcpdex_registry_may_name_a_service_as_the_default_registry(
    sqlite_service, tmp_path, monkeypatch
) -> None:
    from registry.storage.client import ServiceRegistry, open_registry

    service, secret = sqlite_service
    monkeypatch.setenv("MCPDEX_REGISTRY", service.url)
    with open_registry() as registry:
        assert isinstance(registry, ServiceRegistry)
    # `crawl --save` without --registry records in the service the variable names.
    notes = Path(__file__).parent / "servers" / "notes_server.py"
    config = tmp_path / "servers.json"
    entry = {"command": sys.executable, "args": [str(notes)]}
    config.write_text(json.dumps({"mcpServers": {"acme-env": entry}}))
    crawled = _mcpdex("crawl", str(config), "--save", "--protocol-era", "legacy", token=secret)
    assert crawled.returncode == 0, crawled.stderr
    listing = httpx.get(service.url + "/api/servers", params={"q": "acme-env"}).json()["servers"]
    assert [(s["name"], s["last_ok"]) for s in listing] == [("acme-env", True)]


def test_service_registry_reads_the_latest_version_with_its_snapshot(sqlite_service) -> None:
    from registry.storage.client import ServiceRegistry

    service, secret = sqlite_service
    with ServiceRegistry(service.url, token=secret) as registry:
        assert registry.latest_version("acme-latest") is None
        for index, label in ((1, "1.0.0"), (2, "1.1.0")):
            registry.record_inspection(
                variant(index, label, "acme-latest"),
                server="acme-latest",
                ok=True,
                error=None,
                started_at="2026-11-29T18:00:00Z",
                duration_s=0.1,
            )
        latest = registry.latest_version("acme-latest")
    assert latest is not None and latest.label == "1.1.0"
    assert latest.snapshot["digest"] == latest.digest == variant(2, "1.1.0", "acme-latest")["digest"]
    assert latest.last_seen >= latest.first_seen


@pytest.mark.peers
def test_inspect_save_then_check_against_the_service(sqlite_service, npm_peer, tmp_path) -> None:
    service, secret = sqlite_service
    argv = npm_peer("server-memory")
    env_file = tmp_path / "memory.jsonl"
    saved = _mcpdex(
        "inspect",
        "--save",
        "--registry",
        service.url,
        "--name",
        "acme-memory",
        "--env",
        f"MEMORY_FILE_PATH={env_file}",
        "--",
        *argv,
        token=secret,
    )
    assert saved.returncode == 0, saved.stderr
    assert "saved acme-memory@" in saved.stderr and "new version" in saved.stderr
    snapshot = httpx.get(service.url + "/api/servers/acme-memory/snapshot", timeout=30).json()
    assert "create_entities" in {tool["name"] for tool in snapshot["tools"]}
    refused = _mcpdex("inspect", "--save", "--registry", service.url, "--name", "acme-memory", "--", *argv)
    assert refused.returncode == 2 and "MCPDEX_TOKEN" in refused.stderr
    checked = _mcpdex("check", "--registry", service.url, "--against", "acme-memory", "--", *argv)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    page = httpx.get(service.url + "/", timeout=60)
    assert "acme-memory" in page.text


@pytest.mark.peers
def test_crawl_saves_successes_and_failures_to_the_service(sqlite_service, npm_peer, tmp_path) -> None:
    service, secret = sqlite_service
    argv = npm_peer("server-memory")
    config = tmp_path / "servers.json"
    config.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "acme-crawled": {
                        "command": argv[0],
                        "args": argv[1:],
                        "env": {"MEMORY_FILE_PATH": str(tmp_path / "m.jsonl")},
                    },
                    "acme-broken": {"command": str(tmp_path / "no-such-server")},
                }
            }
        )
    )
    crawled = _mcpdex(
        "crawl", str(config), "--save", "--registry", service.url, "--timeout", "20", token=secret
    )
    assert crawled.returncode == 0, crawled.stderr
    listing = {
        s["name"]: s for s in httpx.get(service.url + "/api/servers", params={"q": "acme-"}).json()["servers"]
    }
    assert listing["acme-crawled"]["last_ok"] is True and listing["acme-crawled"]["version_count"] == 1
    assert listing["acme-broken"]["last_ok"] is False and listing["acme-broken"]["version_count"] == 0


def test_crawl_whose_save_is_refused_exits_2_with_the_reason(sqlite_service, tmp_path) -> None:
    service, secret = sqlite_service
    config = tmp_path / "servers.json"
    missing = str(tmp_path / "no-such-server")
    config.write_text(json.dumps({"mcpServers": {"other-broken": {"command": missing}}}))
    crawled = _mcpdex("crawl", str(config), "--save", "--registry", service.url, token=secret)
    assert crawled.returncode == 2
    assert "Traceback" not in crawled.stderr
    assert "token_out_of_scope" in crawled.stderr and "'other-broken'" in crawled.stderr


# ------------------------------------------------------------------ refused input, over real HTTP


def _error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("mcpdex: error:")]


def test_inspect_save_refused_by_the_service_says_why_in_one_line(sqlite_service) -> None:
    service, secret = sqlite_service
    notes = Path(__file__).parent / "servers" / "notes_server.py"
    inspect = ("inspect", "--save", "--registry", service.url, "--name", "acme-refused")
    target = ("--protocol-era", "legacy", "--", sys.executable, str(notes))
    # the service refuses: a version label longer than it keeps
    refused = _mcpdex(*inspect, "--version-label", "v" * 200, *target, token=secret)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr, refused.stderr
    (line,) = _error_lines(refused.stderr)
    assert "HTTP 422" in line and "invalid_snapshot" in line and "at most 128 characters" in line
    # the client refuses what it could not even encode (a lone surrogate, here from a non-UTF-8
    # argument), naming the field as the service would
    unsendable = _mcpdex(*inspect, "--version-label", "1.0\udcff", *target, token=secret)
    assert unsendable.returncode == 2 and "Traceback" not in unsendable.stderr, unsendable.stderr
    (line,) = _error_lines(unsendable.stderr)
    assert "snapshot/versionLabel" in line and "lone UTF-16 surrogate" in line
    assert httpx.get(service.url + "/api/servers/acme-refused", timeout=30).status_code == 404


@pytest.mark.postgres
def test_a_live_service_on_postgresql_answers_unstorable_input_with_4xx(postgres_url, tmp_path) -> None:
    store = open_store(postgres_url)
    secret = open_tokens(store).create("ci", "acme-*")[1]
    store.close()
    service = Service(postgres_url, tmp_path / "serve.log")
    try:
        post = partial(
            httpx.post,
            service.url + "/api/servers/acme-live/inspections",
            headers={"Authorization": f"Bearer {secret}", "Content-Type": "application/json"},
            timeout=30,
        )
        snapshot = variant(1, "1.0.0", "acme-live")
        bad_schema = json.loads(json.dumps(snapshot))
        bad_schema["tools"][0]["inputSchema"]["properties"]["query"]["maxLength"] = float("nan")
        lone = json.loads(json.dumps(snapshot))
        lone["tools"][1]["description"] = "Operation \ud800."
        deep: Any = "leaf"
        for _ in range(200):
            deep = {"x": deep}
        too_deep = json.loads(json.dumps(snapshot))
        too_deep["capabilities"]["experimental"] = deep
        for body, code in (
            ({"ok": True, "snapshot": snapshot, "durationS": float("nan")}, "unsupported_number"),
            (bad_schema, "unsupported_number"),
            (lone, "invalid_unicode"),
            ({"ok": False, "error": "crashed \udfff"}, "invalid_unicode"),
            (too_deep, "nesting_too_deep"),
            ({"ok": False, "error": "x", "startedAt": "not a date"}, "invalid_submission"),
        ):
            response = post(content=json.dumps(body).encode("ascii"))
            assert response.status_code == 422 and response.json()["error"]["code"] == code, response.text
        for query in ("page=%C2%B2", "per_page=%D9%A3"):
            response = httpx.get(f"{service.url}/api/servers?{query}", timeout=30)
            assert response.status_code == 400, response.text
        assert httpx.get(service.url + "/api/servers/acme-live", timeout=30).status_code == 404
        # a valid RFC 3339 time longer than the 32-character column is stored in UTC
        started = "2026-11-29T18:00:00.123456789012345678Z"
        assert post(json={"ok": True, "snapshot": snapshot, "startedAt": started}).status_code == 201
        detail = httpx.get(service.url + "/api/servers/acme-live", timeout=30).json()
        assert detail["inspections"][0]["at"] == "2026-11-29T18:00:00Z"
    finally:
        service.stop()
    log = (tmp_path / "serve.log").read_text()
    assert "unexpected error" not in log and "registry error" not in log, log
