"""What the store hands out and takes in: the records of servers, versions, inspections, scores and
official-registry entries, the key of a submission, the store's two refusals, version order and
the check of an inspection's start time.

Plain dataclasses, free of SQL, so the HTTP client and the commands share them without a database.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from registry.core.errors import RegistryError
from registry.core.timestamps import parse_utc, utc_text
from registry.core.versions import semver_key


@dataclass(frozen=True)
class RegistryEntryRecord:
    """What an official-registry crawl recorded about one server version (``outcome``: ok, failed,
    skipped, invalid or deleted, with ``reason``)."""

    name: str
    version: str
    status: str
    status_message: str | None
    published_at: str | None
    updated_at: str | None
    is_latest: bool | None
    server: dict[str, Any]
    outcome: str
    reason: str | None
    seen_at: str


@dataclass(frozen=True)
class StoredScore:
    """A version's stored scorecard, or None with the ``note`` saying why it was not scored."""

    scorecard: dict[str, Any] | None
    note: str | None


@dataclass(frozen=True)
class Recorded:
    """What ``record_inspection`` did: the version label the snapshot landed under, and if it was new.

    ``replayed`` says the submission's key had been recorded before: the rest is that first answer.
    """

    server: str
    version: str | None
    digest: str | None
    new_version: bool
    inspection_id: int
    replayed: bool = False


@dataclass(frozen=True)
class SubmissionKey:
    """A client's key for one logical submission, a fingerprint of what it submitted under it, and
    ``owner``: the id of the token that sent it, whose keys alone it is compared with."""

    key: str
    fingerprint: str
    owner: str


# The owner of keys recorded before keys were scoped per token: honoured for retries to the same server.
UNSCOPED_OWNER = ""


class SubmissionKeyReused(RegistryError):
    """An idempotency key came back with a different submission than the one first recorded under it."""


class RecordRejected(RegistryError):
    """An inspection the store will not write, whichever the database: ``field`` names what is wrong and
    the message how to fix it. Nothing was written."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class ServerSummary:
    name: str
    title: str | None
    latest_version: str | None
    latest_digest: str | None
    version_count: int
    last_inspected_at: str | None
    last_ok: bool | None
    last_error: str | None


@dataclass(frozen=True)
class VersionRecord:
    label: str
    digest: str
    first_seen: str
    last_seen: str
    snapshot: dict[str, Any]


@dataclass(frozen=True)
class InspectionRecord:
    at: str
    ok: bool
    error: str | None
    duration_s: float
    version: str | None


def order_versions(rows: list[VersionRecord]) -> list[VersionRecord]:
    """Oldest → newest: first-seen order, with the semver-parsable labels re-sorted by precedence
    among the positions they occupy (labels that do not parse keep their first-seen place)."""
    by_seen = sorted(rows, key=lambda r: r.first_seen)
    keyed = [(i, semver_key(r.label)) for i, r in enumerate(by_seen)]
    slots = [i for i, key in keyed if key is not None]
    ranked = sorted((i for i in slots), key=lambda i: (keyed[i][1], by_seen[i].first_seen))
    result = list(by_seen)
    for slot, source in zip(slots, ranked, strict=True):
        result[slot] = by_seen[source]
    return result


def utc_timestamp(text: str, field: str = "started_at") -> str:
    """An RFC 3339 time as the store keeps it: UTC, to the second, ``2026-11-29T18:00:00Z`` (20
    characters, so it fits its column whatever the fraction or offset, and sorts as text in time
    order). RecordRejected naming ``field`` when it is not an RFC 3339 time within years 1-9999."""
    import rfc3339_validator

    fix = "send an RFC 3339 time such as 2026-11-29T18:00:00Z"
    if not isinstance(text, str) or len(text) > 64 or not rfc3339_validator.validate_rfc3339(text):
        raise RecordRejected(field, f"{field} {str(text)[:80]!r} is not an RFC 3339 date-time; {fix}")
    try:
        # Converting to UTC overflows for a time near year 1 or 9999 with an offset that crosses it.
        return utc_text(parse_utc(text))
    except (ValueError, OverflowError):
        raise RecordRejected(field, f"{field} {text!r} is outside years 1-9999 in UTC; {fix}") from None
