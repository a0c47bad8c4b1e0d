"""A pass: queuing one job per server, running workers, and reading back each job's outcome."""

from __future__ import annotations

import secrets
import signal
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from registry.queue.jobs import _KEY_PREFIX, KEY_OWNER, InspectJob

if TYPE_CHECKING:
    from dramatiq import Broker

    from registry.storage.store import Store


def new_pass_id() -> str:
    """A pass id that sorts by time: ``YYYYMMDDTHHMMSSZ-`` and eight random hex digits."""
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + "-" + secrets.token_hex(4)


def enqueue_jobs(broker: Broker, jobs: list[InspectJob]) -> None:
    """Queue every job of a pass (each one message), in order."""
    from dramatiq import Message

    from registry.queue.broker import queue_name
    from registry.queue.jobs import ACTOR_NAME

    for job in jobs:
        broker.enqueue(
            Message(
                queue_name=queue_name(), actor_name=ACTOR_NAME, args=(job.payload(),), kwargs={}, options={}
            )
        )


@dataclass(frozen=True)
class Outcome:
    """What a pass recorded for one server: its inspection, and whether it made a new version."""

    server: str
    inspection_id: int
    ok: bool
    error: str | None
    new_version: bool
    digest: str | None


def pass_outcomes(store: Store, pass_id: str) -> list[Outcome]:
    """Every outcome recorded so far for ``pass_id``, one per job that finished."""
    import sqlalchemy as sa

    from registry.storage.schema import tables

    t = tables()
    k, i, s, v = t.submission_keys.c, t.inspections.c, t.servers.c, t.versions.c
    query = (
        sa.select(s.name, k.inspection_id, i.ok, i.error, k.new_version, v.digest)
        .select_from(
            t.submission_keys.join(t.inspections, k.inspection_id == i.id)
            .join(t.servers, i.server_id == s.id)
            .outerjoin(t.versions, i.version_id == v.id)
        )
        .where(k.token_id == KEY_OWNER, k.key.startswith(f"{_KEY_PREFIX}{pass_id}/", autoescape=True))
        .order_by(s.name)
    )
    with store.engine.connect() as conn:
        rows = conn.execute(query).all()
    return [
        Outcome(r.name, int(r.inspection_id), bool(r.ok), r.error, bool(r.new_version), r.digest)
        for r in rows
    ]


def run_worker(
    *,
    queue_url: str,
    registry_url: str | None,
    concurrency: int,
    visibility_timeout_s: float,
    retry_backoff_s: float,
    host_limit: int | None,
    time_limit_s: float,
    sandboxed: bool = True,
    on_ready: Any = None,
) -> None:
    """Run inspection jobs with ``concurrency`` threads until SIGINT or SIGTERM, then finish the
    jobs in hand and stop; a job not acknowledged by then is redelivered to another worker.

    ``sandboxed`` runs every stdio server in the sandbox, and refuses to start where none can be made."""
    from dramatiq import Worker

    from registry.core.errors import UsageError
    from registry.queue.broker import open_broker, queue_kind
    from registry.queue.jobs import JobRunner, declare_actor
    from registry.storage.client import open_registry
    from registry.storage.store import Store

    if sandboxed:
        from registry.inspecting.sandbox import require

        require()
    limits_url = queue_url if queue_kind(queue_url) == "redis" else None
    if host_limit is not None and limits_url is None:
        raise UsageError("--host-limit keeps its counters in Redis; give a redis:// --queue, or drop it")
    store = open_registry(registry_url)
    if not isinstance(store, Store):
        store.close()
        raise UsageError(
            "mcpdex worker records each job's key with its inspection, so it needs a database registry "
            "(sqlite:///PATH or postgresql://…), not an mcpdex serve URL"
        )
    try:
        broker = open_broker(
            queue_url,
            visibility_timeout_s=visibility_timeout_s,
            max_retries=20,
            min_backoff_s=retry_backoff_s,
            max_backoff_s=max(retry_backoff_s, 300.0),
        )
        runner = JobRunner(store, sandboxed=sandboxed, host_limit=host_limit, limits_url=limits_url)
        declare_actor(broker, runner, time_limit_s=time_limit_s)
        worker = Worker(broker, worker_threads=concurrency, worker_timeout=1000)
        stop = threading.Event()
        previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)}
        worker.start()
        if on_ready is not None:
            on_ready()
        try:
            while not stop.wait(0.5):
                pass
        finally:
            worker.stop()
            broker.close()
            for sig, handler in previous.items():
                signal.signal(sig, handler)
    finally:
        store.close()


def enqueue_crawl(
    queue_url: str,
    targets: dict[str, Any],
    *,
    names: dict[str, str],
    labels: dict[str, str],
    plans: list[Any],
    timeout: float,
    protocol_era: str,
    attempts: int,
) -> dict[str, Any]:
    """Queue one job per target (name → Target) as a new pass; returns the pass id and job count."""
    from registry.queue.broker import open_broker

    pass_id = new_pass_id()
    jobs = crawl_jobs(
        pass_id, targets, names=names, labels=labels, plans=plans,
        timeout=timeout, protocol_era=protocol_era, attempts=attempts,
    )  # fmt: skip
    broker = open_broker(queue_url)
    try:
        enqueue_jobs(broker, jobs)
    finally:
        broker.close()
    return {"pass": pass_id, "jobs": len(jobs), "servers": [job.server for job in jobs]}


def crawl_jobs(
    pass_id: str,
    targets: dict[str, Any],
    *,
    names: dict[str, str],
    labels: dict[str, str],
    plans: list[Any],
    timeout: float,
    protocol_era: str,
    attempts: int,
) -> list[InspectJob]:
    """One job per target (name → Target, planned as a sandboxed crawl plans it).

    ``names`` maps a registry key to the registry name it is recorded under (a config entry is
    recorded under its own name); a planned registry entry's metadata rides along, so that the
    worker records the entry's outcome beside its inspection, and so do its package and its
    server's own environment (the worker adds its own runner environment, as crawl does)."""
    from registry.queue.jobs import job_fields, target_fields

    planned = {plan.entry.key: plan for plan in plans if plan.outcome == "inspect"}
    jobs = []
    for key, target in targets.items():
        plan = planned.get(key)
        fields = target_fields(target)
        own_env = plan.server_env if plan is not None else None
        if own_env is not None:
            fields["env"] = dict(own_env)
        jobs.append(
            InspectJob(
                pass_id=pass_id,
                entry=key,
                server=names.get(key, key),
                target=fields,
                label=labels.get(key) or None,
                timeout=timeout,
                protocol_era=protocol_era,
                attempts=attempts,
                registry_entry=_entry_fields(plan.entry) if plan is not None else None,
                runner_env=own_env is not None,
                **job_fields(target, plan.package if plan is not None else None),
            )
        )
    return jobs


def _entry_fields(entry: Any) -> dict[str, Any]:
    return {
        "name": entry.name,
        "version": entry.version or "?",
        "status": entry.status,
        "status_message": entry.status_message,
        "published_at": entry.published_at,
        "updated_at": entry.updated_at,
        "is_latest": entry.is_latest,
        "server": entry.server,
    }
