"""A server's record from the store, judged for its pages: the diffs between its versions, a
scorecard of the latest one, its inspections, profile and official-registry entries. Both
``mcpdex report`` and the HTTP service build their pages from it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from registry.core.errors import NotFoundError
from registry.core.profile import page_profile
from registry.diffing.behaviour import behaviour_changes
from registry.diffing.diff import diff_history
from registry.site.model import ServerData, VersionEntry
from scoring import score_snapshot
from scoring.scorecard import scorer_key

if TYPE_CHECKING:
    from registry.storage.store import Store

# Inspections listed on a server page; older ones stay in the registry.
_INSPECTIONS_SHOWN = 20


def server_data(
    store: Store, name: str, version: str | None = None, *, stored_scores_only: bool = False
) -> ServerData:
    """A server's record from the store, judged: diffs between its versions and a scorecard of one.

    The scorecard stored with the version is used when there is one; otherwise the version is scored
    here, unless ``stored_scores_only`` (the service, whose requests never score) leaves it unscored.
    """
    records = store.versions(name)
    if version is not None:
        found = [index for index, record in enumerate(records) if version in (record.label, record.digest)]
        if not found:
            known = ", ".join(record.label for record in records[-10:]) or "none"
            raise NotFoundError(f"{name}@{version} is not in the registry; known versions: {known}")
        records = records[: found[0] + 1]
    versions: list[VersionEntry] = []
    histories = diff_history([record.snapshot for record in records])
    latest_profile = store.profile(name, records[-1].label) if records else None
    # A probed memory server: what its probe says changed, for each version probed after another.
    profiles = [store.profile(name, record.label) for record in records] if latest_profile else []
    for index, (record, changes) in enumerate(zip(records, histories, strict=True)):
        versions.append(
            {
                "label": record.label,
                "digest": record.digest,
                "first_seen": record.first_seen,
                "last_seen": record.last_seen,
                "changes": [dict(change) for change in changes],
                "behaviour": behaviour_changes(profiles[index - 1], profiles[index])
                if profiles and index
                else [],
            }
        )
    snapshot = records[-1].snapshot if records else {}
    stored = store.stored_score(name, records[-1].digest, scorer_key()) if records else None
    scorecard = stored.scorecard if stored is not None else None
    if scorecard is None and records and not stored_scores_only:
        scorecard = score_snapshot(snapshot)
    return ServerData(
        name=name,
        snapshot=snapshot,
        versions=versions,
        scorecard=scorecard,
        inspections=[dict(vars(item)) for item in store.inspections(name, limit=_INSPECTIONS_SHOWN)],
        profile=page_profile(snapshot, latest_profile) if records else None,
        registry=[dict(vars(entry)) for entry in store.registry_entries(name)] or None,
    )
