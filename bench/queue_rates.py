"""Benchmark the queue itself: enqueue and dequeue rates of inspection jobs as the queue grows.

``--jobs`` messages (each the payload of a real inspection job) are queued in ten equal batches on a
queue of this run's own, then consumed and acknowledged in ten batches, with no inspection run: what
is left is the broker's and Dramatiq's own cost per job, the overhead a worker adds to each
inspection. Flat rates across the batches mean the queue does not slow as it fills or drains. The
queue is deleted afterwards.

    .venv/bin/python bench/queue_rates.py --queue redis://127.0.0.1:6379/0 --jobs 100000
    .venv/bin/python bench/queue_rates.py --queue amqp://guest:guest@127.0.0.1:5672/ --jobs 100000
"""

from __future__ import annotations

import argparse
import os
import time
import uuid


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queue", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--jobs", type=int, default=100_000)
    args = parser.parse_args()
    name = f"mcpdex-bench-{uuid.uuid4().hex[:8]}"
    os.environ["MCPDEX_QUEUE_NAME"] = name

    from registry.queue.broker import open_broker
    from registry.queue.jobs import InspectJob
    from registry.queue.passes import enqueue_jobs, new_pass_id

    broker = open_broker(args.queue)
    pass_id = new_pass_id()
    target = {"transport": "stdio", "argv": ["npx", "-y", "@scope/server@1.2.3"], "env": {}, "cwd": None,
              "url": None, "headers": {}, "name": None}  # fmt: skip
    batch = args.jobs // 10
    enqueue_rates, dequeue_rates = [], []
    try:
        for part in range(10):
            jobs = [
                InspectJob(pass_id, f"server-{part}-{i}", f"server-{part}-{i}", target) for i in range(batch)
            ]
            started = time.perf_counter()
            enqueue_jobs(broker, jobs)
            enqueue_rates.append(batch / (time.perf_counter() - started))
        consumer = broker.consume(name, prefetch=256, timeout=1000)
        for _ in range(10):
            started = time.perf_counter()
            taken = 0
            while taken < batch:
                message = next(consumer)
                if message is None:
                    continue
                consumer.ack(message)
                taken += 1
            dequeue_rates.append(batch / (time.perf_counter() - started))
        consumer.close()
    finally:
        _drop(broker, name)
        broker.close()
    kind = args.queue.partition("://")[0]
    print(
        f"{kind}: {args.jobs:,} jobs; enqueue {min(enqueue_rates):,.0f}-{max(enqueue_rates):,.0f} jobs/s, "
        f"dequeue+ack {min(dequeue_rates):,.0f}-{max(dequeue_rates):,.0f} jobs/s per batch of {batch:,}; "
        f"overhead {1e6 / (sum(enqueue_rates) / 10) + 1e6 / (sum(dequeue_rates) / 10):.0f} µs per job"
    )
    print("  enqueue per batch: " + ", ".join(f"{rate:,.0f}" for rate in enqueue_rates))
    print("  dequeue per batch: " + ", ".join(f"{rate:,.0f}" for rate in dequeue_rates))


def _drop(broker: object, name: str) -> None:
    client = getattr(broker, "client", None)
    if client is not None:  # Redis
        keys = list(client.scan_iter(f"mcpdex:{name}*"))
        if keys:
            client.delete(*keys)
        return
    channel = broker.channel  # type: ignore[attr-defined]
    for queue in (name, f"{name}.DQ", f"{name}.XQ"):
        channel.queue_delete(queue)


if __name__ == "__main__":
    main()
