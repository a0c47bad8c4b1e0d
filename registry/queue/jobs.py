"""One inspection job: what it carries, its idempotency key, and how a worker runs it.

A job is at-least-once on either broker (a worker killed mid-job has its job run again), so
exactly one outcome per job comes from the registry: the job's key is recorded in the same
transaction as its inspection (``idempotency_keys``), a run that finds its key recorded records
nothing, and the same digest never makes a second version. A server that fails to inspect is
retried with back-off up to the job's bound, then recorded as a failed inspection with its
reason and the number of attempts.
"""

from __future__ import annotations

import hashlib
import threading
import time
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from registry.storage.records import SubmissionKey

if TYPE_CHECKING:
    from dramatiq import Actor, Broker

    from registry.inspecting.official.fetch import PackageSpec
    from registry.inspecting.targets import Target
    from registry.storage.records import Recorded
    from registry.storage.store import Store

ACTOR_NAME = "mcpdex_inspect"
# The owner of the keys queue jobs record, beside the service's tokens (whose ids are hex).
KEY_OWNER = "queue"
_KEY_PREFIX = "pass/"


@dataclass(frozen=True)
class InspectJob:
    """One server of a pass: the target to inspect, the name to record it under, and its bounds.

    A stdio target carries the sandbox policy its config entry gives (``sandbox``, a SandboxPolicy's
    fields) and a registry npm or PyPI entry its package (``package``, a PackageSpec's fields), so a
    sandboxed worker runs it as a sandboxed crawl does: the package fetched with install scripts off,
    then run offline. A registry entry's ``env`` is the server's own: the worker adds the runner
    environment of its own machine where crawl adds it (``runner_env``).

    The target's environment, headers and OAuth client secret or key travel in the message: whoever
    can read the broker can read them, as whoever can read the crawl config can."""

    pass_id: str
    entry: str  # the config entry or registry key, as the crawl names it
    server: str  # the registry name it is recorded under
    target: dict[str, Any]
    label: str | None = None
    timeout: float = 30.0
    protocol_era: str = "auto"
    attempts: int = 3  # inspections at most, the last one's failure recorded
    registry_entry: dict[str, Any] | None = field(default=None)  # a RegistryEntryRecord's fields
    sandbox: dict[str, Any] | None = None  # a SandboxPolicy's fields; without them, the default policy
    package: dict[str, Any] | None = None  # a PackageSpec's fields: fetched first under the sandbox
    oauth: dict[str, Any] | None = None  # an OAuthSettings' fields, for a remote behind MCP authorization
    runner_env: bool = False  # a registry package or image: add the worker's runner environment

    def payload(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_payload(cls, payload: dict[str, Any]) -> InspectJob:
        return cls(**payload)

    def key(self) -> SubmissionKey:
        """The job's idempotency key: one per pass and entry, whatever attempt records it."""
        ident = hashlib.sha256(f"{self.entry}\0{self.server}".encode()).hexdigest()[:40]
        fingerprint = hashlib.sha256(f"{self.pass_id}\0{self.entry}\0{self.server}".encode()).hexdigest()
        return SubmissionKey(
            key=f"{_KEY_PREFIX}{self.pass_id}/{ident}", fingerprint=fingerprint, owner=KEY_OWNER
        )

    def fetch_host(self) -> str | None:
        """Where the server's package or endpoint is fetched from, for per-host rate limits."""
        if self.package is not None:
            return {"npm": "npm", "pypi": "pypi"}.get(str(self.package.get("kind")))
        if self.target.get("url"):
            from urllib.parse import urlsplit

            return urlsplit(str(self.target["url"])).hostname
        argv = self.target.get("argv") or []
        launcher = str(argv[0]).rsplit("/", 1)[-1] if argv else ""
        return {"npx": "npm", "uvx": "pypi", "pipx": "pypi", "docker": "oci", "podman": "oci"}.get(launcher)

    def runnable(self, *, sandboxed: bool) -> tuple[Target, PackageSpec | None]:
        """The Target this job inspects, and the package to fetch before it runs (None: run the
        target as it is), as ``crawl`` makes them with the sandbox on or off: sandboxed, a stdio
        target runs under the job's policy (the default one when it has none) and a package is
        fetched first; off, it runs as the user, a package through its npx or uvx command."""
        from registry.inspecting.oauth import OAuthSettings
        from registry.inspecting.official.fetch import PackageSpec
        from registry.inspecting.official.launch import runner_environment
        from registry.inspecting.sandbox import SandboxPolicy
        from registry.inspecting.targets import Target

        target = Target(**self.target)
        if self.oauth is not None:
            target.oauth = OAuthSettings(**self.oauth)
        stdio = target.transport == "stdio"
        package = None
        if sandboxed and stdio:
            fields = self.sandbox or {}
            target.sandbox = SandboxPolicy(
                network=bool(fields.get("network", False)),
                read=tuple(fields.get("read") or ()),
                write=tuple(fields.get("write") or ()),
            )
            if self.package is not None:
                package = PackageSpec(
                    kind=str(self.package["kind"]),
                    identifier=str(self.package["identifier"]),
                    version=str(self.package["version"]),
                    runtime=tuple(self.package.get("runtime") or ()),
                    arguments=tuple(self.package.get("arguments") or ()),
                )
        if stdio and self.runner_env and package is None:
            target.env = runner_environment() | target.env
        return target, package


def target_fields(target: Target) -> dict[str, Any]:
    """A Target as the plain fields a message carries (its sandbox policy and OAuth settings apart:
    :func:`job_fields`)."""
    return {
        "transport": target.transport,
        "argv": list(target.argv),
        "env": dict(target.env),
        "cwd": target.cwd,
        "url": target.url,
        "headers": dict(target.headers),
        "name": target.name,
    }


def job_fields(target: Target, package: PackageSpec | None = None) -> dict[str, Any]:
    """The job fields beside the target: its sandbox policy, package and OAuth settings, as plain
    values (a message is JSON)."""
    sandbox = target.sandbox
    return {
        "sandbox": None
        if sandbox is None
        else {"network": sandbox.network, "read": list(sandbox.read), "write": list(sandbox.write)},
        "package": None if package is None else {**asdict(package), "runtime": list(package.runtime),
                                                 "arguments": list(package.arguments)},
        "oauth": None if target.oauth is None else asdict(target.oauth),
    }  # fmt: skip


class RetryInspection(Exception):
    """An inspection failed with attempts left: the broker runs the job again after a back-off."""


@dataclass
class JobRunner:
    """What a worker process shares between its threads: the store, its write lock and the limits.

    ``sandboxed`` (the default) runs every stdio job in the sandbox, whatever the job says."""

    store: Store
    sandboxed: bool = True
    host_limit: int | None = None
    limits_url: str | None = None
    write_lock: threading.Lock = field(default_factory=threading.Lock)

    def run(self, job: InspectJob, attempt: int) -> Recorded | None:
        """Inspect and record ``job`` (``attempt`` counts from 0); None when its key was already
        recorded, so nothing was inspected or written."""
        from registry.core.errors import InspectionError
        from registry.core.timestamps import utc_now

        key = job.key()
        recorded = recorded_outcome(self.store, key)
        if recorded is not None:
            # A run before this one recorded the inspection and died before it acknowledged the
            # job, perhaps before it recorded the registry entry too: record that (an upsert) again.
            if job.registry_entry is not None:
                with self.write_lock:
                    _record_entry(self.store, job.registry_entry, recorded)
            return None
        started_at = utc_now()
        started = time.perf_counter()
        snapshot: dict[str, Any] | None = None
        error: str | None = None
        try:
            with self._fetch_slot(job):
                snapshot = self._inspect(job)
        except InspectionError as exc:
            if attempt + 1 < job.attempts:
                raise RetryInspection(
                    f"{job.entry}: attempt {attempt + 1} of {job.attempts}: {exc}"
                ) from None
            error = str(exc) if job.attempts == 1 else f"{exc} (after {job.attempts} attempts)"
        duration = time.perf_counter() - started
        with self.write_lock:
            result = self.store.record_inspection(
                snapshot,
                server=job.server,
                ok=snapshot is not None,
                error=error,
                started_at=started_at,
                duration_s=duration,
                key=key,
            )
            if job.registry_entry is not None:
                _record_entry(self.store, job.registry_entry, error)
        return result

    def _inspect(self, job: InspectJob) -> dict[str, Any]:
        """The job's inspection, as ``crawl`` runs it: a package fetched first, then run offline in
        the sandbox; any other target as it is, a stdio one in the sandbox."""
        import anyio

        from registry.inspecting.inspect import inspect
        from registry.inspecting.official.fetch import inspect_package
        from registry.inspecting.official.launch import runner_environment

        if self.sandboxed:
            from registry.inspecting.sandbox import require

            require()
        target, package = job.runnable(sandboxed=self.sandboxed)
        if package is not None:
            spec = package

            async def fetched() -> dict[str, Any]:
                return await inspect_package(
                    spec, target, runner_environment(),
                    timeout=job.timeout, protocol_era=job.protocol_era, version_label=job.label,
                )  # fmt: skip

            return anyio.run(fetched)
        return inspect(target, timeout=job.timeout, protocol_era=job.protocol_era, version_label=job.label)

    def _fetch_slot(self, job: InspectJob) -> Any:
        """At most ``host_limit`` inspections at once that fetch from the job's host, across every
        worker that shares the limits' Redis; no limit for a local command."""
        from contextlib import nullcontext

        host = job.fetch_host()
        if self.host_limit is None or host is None or self.limits_url is None:
            return nullcontext()
        from registry.inspecting.official.fetch import FETCH_TIMEOUT_S

        # A slot is held while the job runs: a package's fetch is bounded apart from its inspection.
        held_s = job.timeout * 4 + (FETCH_TIMEOUT_S if job.package is not None else 0.0)
        return _host_slot(self.limits_url, host, self.host_limit, deadline_s=held_s)


def _host_slot(url: str, host: str, limit: int, *, deadline_s: float) -> Any:
    from contextlib import contextmanager

    from dramatiq.rate_limits import ConcurrentRateLimiter
    from dramatiq.rate_limits.backends import RedisBackend

    from registry.queue.broker import queue_name

    limiter = ConcurrentRateLimiter(  # type: ignore[no-untyped-call]
        RedisBackend(url=url), f"mcpdex-host:{queue_name()}:{host}", limit=limit, ttl=int(deadline_s * 1000)
    )

    @contextmanager
    def slot() -> Any:
        waited_until = time.monotonic() + deadline_s
        while True:
            with limiter.acquire(raise_on_failure=False) as acquired:
                if acquired:
                    yield
                    return
            if time.monotonic() > waited_until:
                raise RetryInspection(f"no fetch slot for {host} within {deadline_s:.0f} s")
            time.sleep(0.2)

    return slot()


def _record_entry(store: Store, fields: dict[str, Any], error: str | None) -> None:
    """The registry entry's row with the job's outcome (``error`` None or '' when it succeeded)."""
    from registry.core.timestamps import utc_now
    from registry.storage.records import RegistryEntryRecord

    store.record_registry_entry(
        RegistryEntryRecord(
            **fields,
            outcome="failed" if error else "ok",
            reason=error or None,
            seen_at=utc_now(),
        )
    )


def recorded_outcome(store: Store, key: SubmissionKey) -> str | None:
    """None when ``key`` has no inspection in the registry yet; else that inspection's error, or ''
    when it succeeded."""
    import sqlalchemy as sa

    from registry.storage.schema import tables

    t = tables()
    k, i = t.submission_keys.c, t.inspections.c
    with store.engine.connect() as conn:
        found = conn.execute(
            sa.select(i.ok, i.error)
            .select_from(t.submission_keys.join(t.inspections, k.inspection_id == i.id))
            .where(k.token_id == key.owner, k.key == key.key)
        ).first()
    if found is None:
        return None
    return "" if found.ok else str(found.error or "failed")


def declare_actor(broker: Broker, runner: JobRunner, *, time_limit_s: float) -> Actor[..., None]:
    """The inspection actor on ``broker``, run by ``runner``."""
    import dramatiq
    from dramatiq.middleware import CurrentMessage

    from registry.queue.broker import queue_name

    def mcpdex_inspect(payload: dict[str, Any]) -> None:
        message = CurrentMessage.get_current_message()
        attempt = int((message.options.get("retries") if message is not None else 0) or 0)
        runner.run(InspectJob.from_payload(payload), attempt)

    actor: Actor[..., None] = dramatiq.actor(
        actor_name=ACTOR_NAME, queue_name=queue_name(), broker=broker, time_limit=int(time_limit_s * 1000)
    )(mcpdex_inspect)
    return actor
