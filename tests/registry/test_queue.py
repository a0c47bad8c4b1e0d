"""The distributed crawl on a real broker (Redis and RabbitMQ): three worker processes, one of them
SIGKILLed in the middle of a job, still leave exactly one outcome per server, and a second pass of
the same servers records no new version."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from registry.queue.jobs import InspectJob, JobRunner, RetryInspection
from registry.queue.passes import pass_outcomes
from registry.storage.store import open_store
from tests.conftest import require

SERVERS = Path(__file__).parent / "servers"
BROKERS = {
    "redis": os.environ.get("MCPDEX_TEST_REDIS_URL", "redis://127.0.0.1:6379/0"),
    "rabbitmq": os.environ.get("MCPDEX_TEST_AMQP_URL", "amqp://guest:guest@127.0.0.1:5672/"),
}


def _reachable(url: str) -> bool:
    parts = urlsplit(url)
    try:
        with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 0), timeout=2):
            return True
    except OSError:
        return False


@pytest.fixture(params=sorted(BROKERS))
def queue(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    """A broker URL and a queue name of this test's own, the queue removed afterwards."""
    url = BROKERS[request.param]
    require(
        _reachable(url), f"no {request.param} broker at {url} (set MCPDEX_TEST_{request.param.upper()}_URL)"
    )
    name = f"mcpdex-test-{uuid.uuid4().hex[:10]}"
    monkeypatch.setenv("MCPDEX_QUEUE_NAME", name)
    yield url
    _drop_queue(request.param, url, name)


def _drop_queue(kind: str, url: str, name: str) -> None:
    if kind == "redis":
        import redis

        client = redis.Redis.from_url(url)
        keys = [key for pattern in (f"mcpdex:{name}*",) for key in client.scan_iter(pattern)]
        if keys:
            client.delete(*keys)
        client.close()
    else:
        import pika

        connection = pika.BlockingConnection(pika.URLParameters(url))
        channel = connection.channel()
        for queue_name in (name, f"{name}.DQ", f"{name}.XQ"):
            channel.queue_delete(queue_name)
        connection.close()


def _mcpdex(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "registry", *args], capture_output=True, text=True, timeout=120, env=env
    )


def _config(tmp_path: Path, marks: Path, count: int) -> Path:
    servers = {
        f"slow-{index}": {
            "command": sys.executable,
            "args": [str(SERVERS / "slow_start.py")],
            "env": {"SLOW_START_S": "1.5", "SLOW_TOOL": f"tool_{index}", "SLOW_MARKS": str(marks)},
        }
        for index in range(count)
    }
    servers["missing"] = {"command": str(tmp_path / "no-such-server")}
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": servers}))
    return config


def _enqueue(config: Path, registry: str, queue: str) -> str:
    result = _mcpdex(
        "crawl", str(config), "--enqueue", "--registry", registry, "--queue", queue,
        "--attempts", "2", "--timeout", "20", "--format", "json",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    body = json.loads(result.stdout)
    assert body["jobs"] == len(json.loads(config.read_text())["mcpServers"])
    return str(body["pass"])


def _wait_for(registry: str, pass_id: str, count: int, seconds: float) -> list:
    deadline = time.monotonic() + seconds
    while True:
        with open_store(registry) as store:
            outcomes = pass_outcomes(store, pass_id)
        if len(outcomes) >= count or time.monotonic() > deadline:
            return outcomes
        time.sleep(0.5)


@pytest.mark.slow
def test_three_workers_one_killed_mid_job_leave_one_outcome_per_server(queue, tmp_path):
    _kill_one_of_three(queue, f"sqlite:///{tmp_path / 'r.sqlite'}", tmp_path)


@pytest.mark.slow
@pytest.mark.postgres
def test_three_workers_on_a_postgresql_registry_one_killed_leave_one_outcome_per_server(
    queue, postgres_url, tmp_path
):
    _kill_one_of_three(queue, postgres_url, tmp_path)


def _kill_one_of_three(queue: str, registry: str, tmp_path: Path) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    config = _config(tmp_path, marks, count=8)
    pass_id = _enqueue(config, registry, queue)
    # The servers tell which worker runs them by their parent's pid, which the sandbox's own pid
    # namespace hides: these workers run them as the user (test_sandbox.py runs a queued job sandboxed).
    worker_args = [
        sys.executable, "-m", "registry", "worker", "--registry", registry, "--queue", queue,
        "--concurrency", "1", "--visibility-timeout", "3", "--retry-backoff", "0.2", "--sandbox", "off",
    ]  # fmt: skip
    workers = [subprocess.Popen(worker_args, stderr=subprocess.DEVNULL) for _ in range(3)]
    try:
        # The first server a worker starts tells which worker is in the middle of a job: kill it there.
        deadline = time.monotonic() + 60
        while not any(marks.iterdir()) and time.monotonic() < deadline:
            time.sleep(0.05)
        first = next(iter(marks.iterdir()))
        victim = next(w for w in workers if w.pid == int(first.name.split("-")[0]))
        victim.send_signal(signal.SIGKILL)
        victim.wait(10)

        outcomes = _wait_for(registry, pass_id, count=9, seconds=120)
        by_server = {o.server: o for o in outcomes}
        assert len(outcomes) == len(by_server) == 9, [o.server for o in outcomes]
        assert sorted(by_server) == sorted(["missing", *(f"slow-{i}" for i in range(8))])
        assert all(by_server[f"slow-{i}"].ok for i in range(8))
        assert not by_server["missing"].ok and "after 2 attempts" in (by_server["missing"].error or "")
        # The killed worker's server was inspected again by another worker, and recorded once.
        killed_server = f"slow-{first.read_text().removeprefix('tool_')}"
        assert len([m for m in marks.iterdir() if m.read_text() == f"tool_{killed_server[5:]}"]) >= 2
        with open_store(registry) as store:
            for name in by_server:
                assert len(store.inspections(name)) == 1, name
                assert len(store.versions(name)) == (0 if name == "missing" else 1), name

        # The same servers again: every one inspected once more, none makes a new version.
        second = _enqueue(config, registry, queue)
        again = _wait_for(registry, second, count=9, seconds=120)
        assert len(again) == 9 and not any(o.new_version for o in again)
        with open_store(registry) as store:
            assert all(len(store.versions(f"slow-{i}")) == 1 for i in range(8))
    finally:
        for w in workers:
            if w.poll() is None:
                w.send_signal(signal.SIGTERM)
        for w in workers:
            try:
                w.wait(30)
            except subprocess.TimeoutExpired:
                w.kill()


def test_enqueue_without_a_queue_names_the_option(tmp_path, monkeypatch):
    monkeypatch.delenv("MCPDEX_QUEUE", raising=False)
    config = _config(tmp_path, tmp_path, count=1)
    result = _mcpdex("crawl", str(config), "--enqueue", "--registry", f"sqlite:///{tmp_path / 'r.sqlite'}")
    assert result.returncode == 2 and "--enqueue needs --queue URL" in result.stderr


def test_a_queue_url_of_another_scheme_is_refused_with_the_forms_it_takes(tmp_path):
    config = _config(tmp_path, tmp_path, count=1)
    result = _mcpdex(
        "crawl", str(config), "--enqueue", "--registry", f"sqlite:///{tmp_path / 'r.sqlite'}",
        "--queue", "http://127.0.0.1:6379",
    )  # fmt: skip
    assert result.returncode == 2 and "give a redis://" in result.stderr


def test_watch_queues_a_pass_every_period_until_stopped(queue, tmp_path):
    config = _config(tmp_path, tmp_path, count=2)
    registry = f"sqlite:///{tmp_path / 'r.sqlite'}"
    watcher = subprocess.Popen(
        [sys.executable, "-m", "registry", "crawl", str(config), "--enqueue", "--watch", "1",
         "--registry", registry, "--queue", queue],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    time.sleep(4.5)
    watcher.send_signal(signal.SIGTERM)
    out, err = watcher.communicate(timeout=30)
    assert watcher.returncode == 0, err
    passes = [line for line in out.splitlines() if line.startswith("queued pass ")]
    assert 3 <= len(passes) <= 6 and all(line.endswith(": 3 servers") for line in passes), out
    assert len({line.split()[2] for line in passes}) == len(passes)  # a new pass id each time


def test_all_every_needs_the_official_registry(tmp_path):
    config = _config(tmp_path, tmp_path, count=1)
    result = _mcpdex(
        "crawl", str(config), "--enqueue", "--queue", "redis://127.0.0.1:6379/0", "--watch", "5",
        "--all-every", "60", "--registry", f"sqlite:///{tmp_path / 'r.sqlite'}",
    )  # fmt: skip
    assert result.returncode == 2 and "--all-every applies to --from-registry" in result.stderr


def test_an_unchanged_registry_feed_queues_nothing_and_renders_no_page_again(queue, tmp_path, memory_http):
    meta = {
        "io.modelcontextprotocol.registry/official": {
            "status": "active",
            "updatedAt": "2026-11-01T00:00:00Z",
            "isLatest": True,
        }
    }
    feed = tmp_path / "feed.json"
    feed.write_text(json.dumps({"servers": [
        {"server": {"name": f"io.github.test/memory-{n}", "description": "Memory over HTTP.",
                    "version": "1.0.0", "remotes": [{"type": "streamable-http", "url": memory_http}]},
         "_meta": meta}
        for n in (1, 2)
    ], "metadata": {"count": 2}}))  # fmt: skip
    registry = f"sqlite:///{tmp_path / 'r.sqlite'}"

    def enqueue() -> dict:
        result = _mcpdex("crawl", "--from-registry", str(feed), "--allow-private-remotes", "--enqueue",
                         "--registry", registry, "--queue", queue, "--format", "json")  # fmt: skip
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)

    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "registry",
            "worker",
            "--registry",
            registry,
            "--queue",
            queue,
            "--concurrency",
            "2",
        ],
        stderr=subprocess.DEVNULL,
    )
    try:
        first = enqueue()
        assert first["jobs"] == 2
        outcomes = _wait_for(registry, first["pass"], count=2, seconds=90)
        assert sorted(o.server for o in outcomes) == ["io.github.test/memory-1", "io.github.test/memory-2"]
        assert all(o.ok and o.new_version for o in outcomes)
    finally:
        worker.send_signal(signal.SIGTERM)
        worker.wait(30)
    with open_store(registry) as store:
        assert {(e.name, e.outcome) for e in store.registry_entries()} == {
            ("io.github.test/memory-1", "ok"), ("io.github.test/memory-2", "ok")}  # fmt: skip
    site = tmp_path / "site"
    report = [sys.executable, "-m", "registry", "report", "--out", str(site), "--registry", registry]
    assert (
        "(2 rendered, 0 unchanged)"
        in subprocess.run(report, capture_output=True, text=True, check=True).stderr
    )

    # The same feed again: every entry is recorded, so nothing is queued, stored or rendered.
    assert enqueue()["jobs"] == 0
    with open_store(registry) as store:
        assert [len(store.inspections(f"io.github.test/memory-{n}")) for n in (1, 2)] == [1, 1]
    assert (
        "(0 rendered, 2 unchanged)"
        in subprocess.run(report, capture_output=True, text=True, check=True).stderr
    )


def _job(tmp_path: Path, **fields) -> InspectJob:
    target = {"transport": "stdio", "argv": [str(tmp_path / "no-such-server")], "env": {}, "cwd": None,
              "url": None, "headers": {}, "name": None}  # fmt: skip
    return InspectJob(**{"pass_id": "p1", "entry": "io.github.test/x", "server": "io.github.test/x",
                         "target": target, "attempts": 2, **fields})  # fmt: skip


def test_a_failing_server_is_retried_then_recorded_once_with_its_reason(tmp_path):
    with open_store(f"sqlite:///{tmp_path / 'r.sqlite'}") as store:
        runner = JobRunner(store)
        with pytest.raises(RetryInspection, match="attempt 1 of 2"):
            runner.run(_job(tmp_path), attempt=0)
        assert store.servers() == []  # nothing recorded while attempts are left
        recorded = runner.run(_job(tmp_path), attempt=1)
        assert recorded is not None and recorded.new_version is False
        (inspection,) = store.inspections("io.github.test/x")
        assert not inspection.ok and "(after 2 attempts)" in (inspection.error or "")
        assert runner.run(_job(tmp_path), attempt=1) is None  # delivered again: nothing more recorded
        assert len(store.inspections("io.github.test/x")) == 1


def test_a_job_redelivered_after_its_inspection_was_recorded_still_records_its_registry_entry(tmp_path):
    entry = {"name": "io.github.test/x", "version": "1.0.0", "status": "active", "status_message": None,
             "published_at": None, "updated_at": "2026-11-01T00:00:00Z", "is_latest": True,
             "server": {"name": "io.github.test/x", "version": "1.0.0"}}  # fmt: skip
    job = _job(tmp_path, registry_entry=entry, attempts=1)
    with open_store(f"sqlite:///{tmp_path / 'r.sqlite'}") as store:
        # The first run recorded its inspection, then died before it wrote the entry.
        store.record_inspection(None, server=job.server, ok=False, error="exited",
                                started_at="2026-11-02T00:00:00Z", duration_s=0.1, key=job.key())  # fmt: skip
        assert store.registry_entries() == []
        assert JobRunner(store).run(job, attempt=0) is None
        (row,) = store.registry_entries()
        assert (row.name, row.outcome, row.reason) == ("io.github.test/x", "failed", "exited")
        assert len(store.inspections(job.server)) == 1


def test_host_limit_keeps_inspections_from_one_host_one_at_a_time(tmp_path, monkeypatch):
    url = BROKERS["redis"]
    require(_reachable(url), f"no redis broker at {url} (set MCPDEX_TEST_REDIS_URL)")
    monkeypatch.setenv("MCPDEX_QUEUE_NAME", f"mcpdex-test-{uuid.uuid4().hex[:10]}")  # limits of its own
    # A launcher named npx, so both servers count as fetched from npm.
    npx = tmp_path / "npx"
    npx.write_text(f"#!/bin/sh\nexec {sys.executable} {SERVERS / 'slow_start.py'}\n")
    npx.chmod(0o755)
    spans: dict[str, tuple[float, float]] = {}

    def job(n: int) -> InspectJob:
        target = {"transport": "stdio", "argv": [str(npx)],
                  "env": {"SLOW_START_S": "1", "SLOW_TOOL": f"t{n}"},
                  "cwd": None, "url": None, "headers": {}, "name": None}  # fmt: skip
        return InspectJob(pass_id=uuid.uuid4().hex, entry=f"s{n}", server=f"s{n}", target=target, attempts=1)

    with open_store(f"sqlite:///{tmp_path / 'r.sqlite'}") as store:
        # What is measured is the limit: the launcher runs a server beside it, outside the sandbox.
        runner = JobRunner(store, sandboxed=False, host_limit=1, limits_url=url)

        def run(n: int) -> None:
            started = time.monotonic()
            assert runner.run(job(n), attempt=0) is not None
            spans[f"s{n}"] = (started, time.monotonic())

        import threading

        threads = [threading.Thread(target=run, args=(n,)) for n in (1, 2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert all(store.inspections(name)[0].ok for name in ("s1", "s2"))
    first, second = sorted(end for _, end in spans.values())
    # Both asked at once; the second inspection (its server takes 1 s to answer) began after the first ended.
    assert second - first >= 0.9, spans


def test_a_job_carries_what_a_sandboxed_crawl_runs_its_server_with(tmp_path, monkeypatch):
    """Queued, a config entry keeps its sandbox policy and OAuth client, a registry npm entry its
    package and its own environment; the worker builds the target crawl would build, on or off."""
    from registry.commands.crawl import _config_targets, _plan_registry
    from registry.inspecting.official.launch import Inputs
    from registry.inspecting.sandbox import SandboxPolicy
    from registry.queue.passes import crawl_jobs

    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.invalid:3128")  # a runner setting npx would need
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {
        "local": {"command": sys.executable, "args": ["-V"], "sandbox": {"network": True, "read": ["/opt"]}},
        "plain": {"command": sys.executable, "args": ["-V"]},
        "remote": {"url": "https://mcp.example.test/mcp", "oauth": {"clientId": "c1", "clientSecret": "s3"}},
    }}))  # fmt: skip
    feed = tmp_path / "feed.json"
    package = {"registryType": "npm", "identifier": "@example/server", "version": "1.2.3",
               "transport": {"type": "stdio"}, "packageArguments": [{"type": "positional", "value": "serve"}],
               "environmentVariables": [{"name": "MODE", "default": "fast"}]}  # fmt: skip
    feed.write_text(json.dumps({"servers": [{
        "server": {"name": "io.github.test/pkg", "description": "A package.", "version": "1.2.3",
                   "packages": [package]},
        "_meta": {"io.modelcontextprotocol.registry/official": {"status": "active", "isLatest": True,
                                                                 "updatedAt": "2026-11-01T00:00:00Z"}},
    }]}))  # fmt: skip
    targets = _config_targets(str(config), (), sandboxed=True)
    plans, _ = _plan_registry(
        str(feed), None, all_versions=False, updated_since=None, force=False, inputs=Inputs(), sandboxed=True
    )
    (plan,) = plans
    targets[plan.entry.key] = plan.target
    jobs = crawl_jobs("p1", targets, names={plan.entry.key: plan.entry.name}, labels={}, plans=plans,
                      timeout=30, protocol_era="auto", attempts=1)  # fmt: skip
    # As a broker carries them: JSON, tuples as lists.
    by_entry = {job.entry: InspectJob.from_payload(json.loads(json.dumps(job.payload()))) for job in jobs}
    assert "HTTPS_PROXY" not in json.dumps(by_entry[plan.entry.key].payload())  # the worker adds its own

    local, _ = by_entry["local"].runnable(sandboxed=True)
    assert local.sandbox == SandboxPolicy(network=True, read=("/opt",))
    plain, _ = by_entry["plain"].runnable(sandboxed=True)
    assert plain.sandbox == SandboxPolicy()
    assert by_entry["plain"].runnable(sandboxed=False)[0].sandbox is None
    remote, _ = by_entry["remote"].runnable(sandboxed=True)
    assert remote.sandbox is None and remote.oauth is not None
    assert (remote.oauth.client_id, remote.oauth.client_secret, remote.oauth.grant) == (
        "c1", "s3", "client-credentials")  # fmt: skip

    job = by_entry[plan.entry.key]
    target, spec = job.runnable(sandboxed=True)
    assert spec is not None and (spec.kind, spec.requirement, spec.arguments) == (
        "npm", "@example/server@1.2.3", ("serve",))  # fmt: skip
    assert spec == plan.package and target.sandbox == SandboxPolicy() and target.env == {"MODE": "fast"}
    assert job.fetch_host() == "npm"
    unsandboxed, none = job.runnable(sandboxed=False)
    assert none is None and unsandboxed.sandbox is None
    assert (
        unsandboxed.argv[:2] == ["npx", "-y"]
        and unsandboxed.env["HTTPS_PROXY"] == "http://proxy.invalid:3128"
    )
    assert unsandboxed.env["MODE"] == "fast"


def test_enqueue_refuses_sandbox_and_a_worker_fails_closed_where_no_sandbox_can_be_made(tmp_path):
    config = _config(tmp_path, tmp_path, count=1)
    registry = f"sqlite:///{tmp_path / 'r.sqlite'}"
    result = _mcpdex("crawl", str(config), "--enqueue", "--sandbox", "off", "--registry", registry,
                     "--queue", BROKERS["redis"])  # fmt: skip
    assert result.returncode == 2 and "give it to mcpdex worker" in result.stderr
    env = {key: value for key, value in os.environ.items() if key != "MCPDEX_SANDBOX"}
    env["PATH"] = str(tmp_path)  # no bwrap on PATH
    argv = ["worker", "--registry", registry, "--queue", "http://127.0.0.1:6379"]
    result = _mcpdex(*argv, env=env)
    assert result.returncode == 2
    (line,) = result.stderr.strip().splitlines()
    assert "bwrap is not installed" in line and "--sandbox off" in line and "MCPDEX_SANDBOX=off" in line
    opted_out = _mcpdex(*argv, "--sandbox", "off", env=env)  # goes on, to the queue URL it refuses
    assert opted_out.returncode == 2 and "give a redis://" in opted_out.stderr
    assert "no sandbox can be made" not in opted_out.stderr
