"""The broker a queue URL names, with the middleware every mcpdex queue runs under.

``redis://`` and ``rediss://`` name a Redis broker, ``amqp://`` and ``amqps://`` a RabbitMQ one.
Either redelivers a job whose worker died before acknowledging it: RabbitMQ as soon as the
worker's connection drops, Redis once the worker's heartbeat is older than the visibility
timeout.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from registry.core.errors import UsageError

if TYPE_CHECKING:
    from dramatiq import Broker

# The queue's name on the broker; MCPDEX_QUEUE_NAME gives each directory sharing one broker its own.
DEFAULT_QUEUE_NAME = "mcpdex-inspect"
SCHEMES = {"redis": "redis", "rediss": "redis", "amqp": "rabbitmq", "amqps": "rabbitmq"}
# A job whose worker sends no heartbeat for this long is given to another worker (Redis).
DEFAULT_VISIBILITY_TIMEOUT_S = 60.0
# Of every million broker commands, how many also look for dead workers' jobs (Redis). The check
# is one sorted-set range read; Dramatiq's default of 1,000 can leave a dead worker's job
# unnoticed for minutes when the queue is quiet.
_MAINTENANCE_CHANCE = 100_000


def queue_name() -> str:
    """The queue jobs go to: ``MCPDEX_QUEUE_NAME``, else ``mcpdex-inspect``."""
    name = os.environ.get("MCPDEX_QUEUE_NAME") or DEFAULT_QUEUE_NAME
    if not name.replace("-", "").replace("_", "").isalnum() or len(name) > 100:
        raise UsageError(f"MCPDEX_QUEUE_NAME {name!r}: use up to 100 letters, digits, '-' and '_'")
    return name


def queue_kind(url: str) -> str:
    """``redis`` or ``rabbitmq``, from the URL's scheme; anything else is a UsageError naming the fix."""
    scheme = url.partition("://")[0].lower() if "://" in url else ""
    if scheme not in SCHEMES:
        raise UsageError(
            f"--queue {url!r}: give a redis://HOST:PORT/DB or amqp://USER:PASSWORD@HOST:PORT/ URL"
        )
    return SCHEMES[scheme]


def open_broker(
    url: str,
    *,
    visibility_timeout_s: float = DEFAULT_VISIBILITY_TIMEOUT_S,
    max_retries: int = 0,
    min_backoff_s: float = 5.0,
    max_backoff_s: float = 300.0,
) -> Broker:
    """A connected broker for ``url`` with the mcpdex queue declared.

    ``max_retries`` and the back-off bound how often a job that raised is run again; an
    inspection that fails is retried by the job itself (``registry.queue.jobs``), which records
    the failure on its last attempt, so a raise here means the registry could not be written.
    """
    try:
        from dramatiq.middleware import CurrentMessage, Retries, ShutdownNotifications, TimeLimit
    except ModuleNotFoundError:
        raise UsageError(
            "the queue needs Dramatiq, which is not installed; install it with pip install 'mcpdex[queue]'"
        ) from None

    kind = queue_kind(url)
    middleware = [
        TimeLimit(),
        ShutdownNotifications(),
        Retries(
            max_retries=max_retries,
            min_backoff=int(min_backoff_s * 1000),
            max_backoff=int(max_backoff_s * 1000),
        ),
        CurrentMessage(),
    ]
    broker: Broker
    try:
        if kind == "redis":
            from dramatiq.brokers.redis import RedisBroker

            broker = RedisBroker(  # type: ignore[no-untyped-call]
                url=url,
                middleware=middleware,
                namespace="mcpdex",
                heartbeat_timeout=int(visibility_timeout_s * 1000),
                maintenance_chance=_MAINTENANCE_CHANCE,
            )
        else:
            from dramatiq.brokers.rabbitmq import RabbitmqBroker

            broker = RabbitmqBroker(url=url, middleware=middleware, confirm_delivery=True)
        broker.declare_queue(queue_name())
    except Exception as exc:  # the client libraries raise their own connection errors
        from registry.core.errors import RegistryError

        raise RegistryError(
            f"cannot reach the queue at {_display(url)}: {exc}; is the broker running?"
        ) from None
    return broker


def _display(url: str) -> str:
    """The URL without its password."""
    scheme, _, rest = url.partition("://")
    credentials, at, host = rest.rpartition("@")
    if not at:
        return url
    user = credentials.partition(":")[0]
    return f"{scheme}://{user}:***@{host}" if ":" in credentials else f"{scheme}://{user}@{host}"
