"""The sandbox against a hostile server (tests/registry/servers/hostile.py): each thing it tries —
read a canary in HOME, read mcpdex's environment through /proc, write outside its folder, connect
to a listener of the test's own, leave a double-forked sleeper, allocate 2 GiB, flood stderr — is
blocked, and nothing of it reaches the snapshot, a file, the listener or the process table.

Needs bubblewrap (scripts/test installs it); where namespaces cannot be made these tests skip,
except in CI, where they fail.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from registry.core.errors import InspectionError, UsageError
from registry.inspecting import sandbox
from registry.inspecting.inspect import inspect
from registry.inspecting.targets import Target
from tests.conftest import require
from tests.registry.conftest import HOSTILE, SERVERS
from tests.registry.conftest import hostile_report as report

pytestmark = pytest.mark.usefixtures("bubblewrap")


@pytest.fixture
def world() -> Iterator[Path]:
    """A folder the sandbox user could write to and read from, were it visible (pytest's own
    temporary folders are root-only)."""
    folder = Path(tempfile.mkdtemp(prefix="mcpdex-sandbox-test-"))
    folder.chmod(0o777)
    try:
        yield folder
    finally:
        for child in folder.iterdir():
            child.unlink()
        folder.rmdir()


class Listener:
    """A TCP listener on 127.0.0.1 that records every connection it accepts."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.accepted: list[bytes] = []
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stopped.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(1)
                try:
                    self.accepted.append(conn.recv(100) or b"(connected)")
                except OSError:
                    self.accepted.append(b"(connected)")

    def close(self) -> None:
        self.stopped.set()
        self.thread.join(timeout=2)
        self.sock.close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    found = Listener()
    try:
        yield found
    finally:
        found.close()


def processes_with(word: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if word.encode() in (entry / "cmdline").read_bytes().split(b"\0"):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def hostile_env(world: Path, listener: Listener, mark: str) -> dict[str, str]:
    canary = world / "canary"
    canary.write_text("CANARY-" + mark)
    canary.chmod(0o644)
    return {
        "HOSTILE_CANARY": str(canary),
        "HOSTILE_SECRET_NAME": "MCPDEX_TEST_TOKEN",
        "HOSTILE_WRITE": str(world / "written"),
        "HOSTILE_PORT": str(listener.port),
        "HOSTILE_MARK": mark,
    }


def inspect_cli(flags: list[str], server_env: dict[str, str], token: str, home: Path) -> dict:
    """``mcpdex inspect`` in a process of its own whose environment holds ``token`` (so /proc shows it)."""
    pairs = [arg for key, value in server_env.items() for arg in ("--env", f"{key}={value}")]
    result = subprocess.run(
        [sys.executable, "-m", "registry", "inspect", *flags, *pairs, "--format", "json", "--timeout", "30",
         "--protocol-era", "legacy", "--", *HOSTILE],
        capture_output=True, text=True, timeout=90,
        env={**os.environ, "MCPDEX_TEST_TOKEN": token, "HOME": str(home)},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_every_row_is_blocked_under_the_sandbox(world, listener):
    mark = "hostile-" + secrets.token_hex(6)
    token = "tok-" + secrets.token_hex(8)
    env = hostile_env(world, listener, mark) | {"HOSTILE_ALLOC_MIB": "2048"}
    snapshot = inspect_cli(["--sandbox"], env, token, home=world)  # the canary sits in mcpdex's HOME
    outcomes = report(snapshot)
    assert outcomes["canary"].startswith("blocked"), outcomes
    assert outcomes["environ"].startswith("blocked"), outcomes
    assert outcomes["write"].startswith("blocked"), outcomes
    assert outcomes["tcp"].startswith("blocked"), outcomes
    assert outcomes["alloc"] == "blocked (MemoryError)", outcomes
    text = json.dumps(snapshot)
    assert "CANARY-" not in text and token not in text
    assert not (world / "written").exists()
    time.sleep(0.3)
    assert listener.accepted == []
    assert processes_with(mark) == [], "the double-forked sleeper outlived the inspection"
    assert snapshot["source"]["sandbox"]["network"] == "none"
    assert snapshot["source"]["target"].endswith("hostile.py")  # the server's command, not the wrapper


def test_without_the_sandbox_the_same_server_gets_through_but_leaves_no_orphan(world, listener):
    """The control: what the sandbox blocks is real, and ending orphans holds without it."""
    mark = "hostile-" + secrets.token_hex(6)
    outcomes = report(inspect_cli([], hostile_env(world, listener, mark), "tok-visible", home=world))
    assert outcomes["canary"] == "CANARY-" + mark
    assert "MCPDEX_TEST_TOKEN=tok-visible" in outcomes["environ"]
    assert outcomes["write"] == "wrote" and (world / "written").exists()
    assert outcomes["tcp"] == "connected"
    time.sleep(0.3)
    assert processes_with(mark) == [], "the double-forked sleeper outlived the inspection"


# Runs a command and reports its peak RSS. A child forked from the test process starts with the test
# process's pages counted in its peak (ru_maxrss survives exec), so the peak is read one exec away.
_PEAK = (
    "import resource, subprocess, sys; code = subprocess.call(sys.argv[1:]); "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); sys.exit(code)"
)


def test_a_stderr_flood_is_kept_as_a_bounded_tail_and_the_deadline_holds(tmp_path):
    """512 MiB on stderr: mcpdex stays small and on time, sandbox or not."""
    for flags in (["--sandbox"], []):
        started = time.perf_counter()
        result = subprocess.run(
            [sys.executable, "-c", _PEAK, sys.executable, "-m", "registry", "inspect", *flags, "--format",
             "json", "--timeout", "20", "--env", "HOSTILE_STDERR_MIB=512", "--", *HOSTILE],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        elapsed = time.perf_counter() - started
        snapshot = json.loads(result.stdout)
        assert result.returncode == 0, result.stderr[-2000:]
        assert snapshot["tools"][0]["name"] == "report"
        peak_kib = int(result.stderr.strip().splitlines()[-1])
        assert peak_kib < 400 * 1024, f"mcpdex peaked at {peak_kib // 1024} MiB"
        assert elapsed < 25, f"took {elapsed:.1f} s for a 20 s deadline"


def test_the_memory_cgroup_or_address_space_ends_a_server_that_touches_too_much(world):
    target = Target(
        transport="stdio", argv=HOSTILE, env={"HOSTILE_ALLOC_MIB": "1536"}, sandbox=sandbox.SandboxPolicy()
    )
    try:
        outcomes = report(inspect(target, timeout=30, protocol_era="legacy"))
    except InspectionError as exc:
        assert "exited or crashed" in str(exc)  # the cgroup's OOM killer ended it
    else:
        assert outcomes["alloc"] == "blocked (MemoryError)", outcomes


def test_files_the_command_names_are_readable_and_a_widened_folder_writable(world):
    script = world / "local_server.py"
    script.write_text(
        "import sys, pathlib\n"
        f"sys.path.insert(0, {str(SERVERS)!r})\n"
        "from rawserver import serve, tool\n"
        "pathlib.Path(sys.argv[1], 'out.txt').write_text('kept')\n"
        "serve([tool('local')])\n"
    )
    script.chmod(0o644)
    policy = sandbox.SandboxPolicy(read=(str(SERVERS),), write=(str(world),))
    target = Target(transport="stdio", argv=[sys.executable, str(script), str(world)], sandbox=policy)
    snapshot = inspect(target, timeout=30, protocol_era="legacy")
    assert [t["name"] for t in snapshot["tools"]] == ["local"]
    assert (world / "out.txt").read_text() == "kept"
    if os.geteuid() == 0:
        assert (world / "out.txt").stat().st_uid == sandbox.UNPRIVILEGED_UID  # not owned by root


def test_the_sandbox_has_no_network_unless_widened(listener):
    code = (
        "import socket, sys\n"
        f"sys.path.insert(0, {str(SERVERS)!r})\n"
        "from rawserver import serve, tool\n"
        "try:\n"
        f"    socket.create_connection(('127.0.0.1', {listener.port}), timeout=2).close()\n"
        "    said = 'connected'\n"
        "except OSError as exc:\n"
        "    said = 'refused'\n"
        "serve([tool(said)])\n"
    )
    for network, expected in ((False, "refused"), (True, "connected")):
        target = Target(
            transport="stdio",
            argv=[sys.executable, "-c", code],
            sandbox=sandbox.SandboxPolicy(network=network, read=(str(SERVERS),)),
        )
        snapshot = inspect(target, timeout=30, protocol_era="legacy")
        assert [t["name"] for t in snapshot["tools"]] == [expected]
        assert snapshot["source"]["sandbox"]["network"] == ("host" if network else "none")


def test_crawl_is_sandboxed_by_default(world, listener, tmp_path, monkeypatch):
    mark = "hostile-" + secrets.token_hex(6)
    monkeypatch.delenv(sandbox.SANDBOX_VARIABLE, raising=False)
    config = tmp_path / "servers.json"
    entry = {"command": HOSTILE[0], "args": HOSTILE[1:], "env": hostile_env(world, listener, mark)}
    config.write_text(json.dumps({"mcpServers": {"hostile": entry}}))
    result = subprocess.run(
        [sys.executable, "-m", "registry", "crawl", str(config), "--format", "json"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "CANARY-" not in result.stdout
    assert not (world / "written").exists() and listener.accepted == []


def test_a_queued_hostile_server_is_blocked_under_a_worker_as_under_crawl(
    world, listener, tmp_path, monkeypatch
):
    """The same config crawled and queued: the worker, sandboxed by default, runs the hostile server
    as crawl does, and everything it tries is blocked the same way."""
    from registry.queue.passes import pass_outcomes
    from registry.storage.store import open_store
    from tests.registry.test_queue import BROKERS, _drop_queue, _reachable

    url = BROKERS["redis"]
    require(_reachable(url), f"no redis broker at {url} (set MCPDEX_TEST_REDIS_URL)", "CI runs Redis")
    queue_name = f"mcpdex-test-{secrets.token_hex(5)}"
    mark = "hostile-" + secrets.token_hex(6)
    token = "tok-" + secrets.token_hex(8)
    config = tmp_path / "servers.json"
    entry = {"command": HOSTILE[0], "args": HOSTILE[1:], "env": hostile_env(world, listener, mark)}
    config.write_text(json.dumps({"mcpServers": {"hostile": entry}}))
    env = {**os.environ, "MCPDEX_TEST_TOKEN": token, "HOME": str(world), "MCPDEX_QUEUE_NAME": queue_name}
    env.pop(sandbox.SANDBOX_VARIABLE, None)
    monkeypatch.setenv("MCPDEX_QUEUE_NAME", queue_name)

    def mcpdex(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "registry", *args], capture_output=True, text=True,
                              timeout=120, env=env)  # fmt: skip

    crawled, queued = (f"sqlite:///{tmp_path / name}" for name in ("crawled.sqlite", "queued.sqlite"))
    result = mcpdex("crawl", str(config), "--save", "--registry", crawled, "--protocol-era", "legacy")
    assert result.returncode == 0, result.stderr
    result = mcpdex("crawl", str(config), "--enqueue", "--registry", queued, "--queue", url,
                    "--protocol-era", "legacy", "--attempts", "1", "--format", "json")  # fmt: skip
    assert result.returncode == 0, result.stderr
    pass_id = json.loads(result.stdout)["pass"]
    worker = subprocess.Popen(
        [sys.executable, "-m", "registry", "worker", "--registry", queued, "--queue", url],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 90
        outcomes: list = []
        while not outcomes and time.monotonic() < deadline and worker.poll() is None:
            time.sleep(0.5)
            with open_store(queued) as store:
                outcomes = pass_outcomes(store, pass_id)
    finally:
        worker.send_signal(signal.SIGTERM)
        _, err = worker.communicate(timeout=30)
        _drop_queue("redis", url, queue_name)
    assert "running 4 at once, sandboxed" in err
    assert [o.ok for o in outcomes] == [True], err
    snapshots = {}
    for name, registry in (("crawl", crawled), ("worker", queued)):
        with open_store(registry) as store:
            snapshots[name] = store.snapshot("hostile")
    under_worker, under_crawl = report(snapshots["worker"]), report(snapshots["crawl"])
    for row in ("canary", "environ", "write", "tcp"):
        assert under_worker[row].startswith("blocked"), under_worker
        assert under_worker[row] == under_crawl[row], (under_worker, under_crawl)
    assert snapshots["worker"]["source"]["sandbox"] == snapshots["crawl"]["source"]["sandbox"]
    assert snapshots["worker"]["source"]["sandbox"]["network"] == "none"
    text = json.dumps(snapshots["worker"])
    assert "CANARY-" not in text and token not in text
    assert not (world / "written").exists()
    time.sleep(0.3)
    assert listener.accepted == []
    assert processes_with(mark) == [], "the double-forked sleeper outlived the job"


def test_crawl_fails_closed_in_one_line_where_no_sandbox_can_be_made(tmp_path):
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"one": {"command": sys.executable, "args": ["-V"]}}}))
    env = {**os.environ, "PATH": str(tmp_path)}  # no bwrap on PATH
    env.pop(sandbox.SANDBOX_VARIABLE, None)
    argv = [sys.executable, "-m", "registry", "crawl", str(config)]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=env)
    assert result.returncode == 2
    (line,) = result.stderr.strip().splitlines()
    assert "bwrap is not installed" in line and "--sandbox off" in line and "MCPDEX_SANDBOX=off" in line
    opted_out = subprocess.run(
        [*argv, "--sandbox", "off"], capture_output=True, text=True, timeout=60, env=env
    )
    assert "no sandbox can be made" not in opted_out.stderr


def test_a_widening_option_without_sandbox_and_a_bad_config_entry_are_refused(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "registry", "inspect", "--sandbox-network", "--", sys.executable, "-V"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 2 and "add --sandbox" in result.stderr
    with pytest.raises(UsageError, match=r"sandbox\.read must be a list of absolute paths"):
        sandbox.policy_from_entry({"read": ["relative"]}, "servers.json: mcpServers.x")
    with pytest.raises(UsageError, match="unknown field 'net'"):
        sandbox.policy_from_entry({"net": True}, "servers.json: mcpServers.x")
