"""The memory probe's data, the same on every run: the standard graph and the long document,
drawn from a fixed seed, and the prefix of every name the probe writes.
"""

from __future__ import annotations

import random
import re
from typing import Any

SEED = 20261129
SIZES: tuple[int, int] = (100, 1000)
# Every name the probe writes starts with this, so a forced run on a non-empty graph touches only its own.
PREFIX = "Probe"
OURS = re.compile(rf"^{PREFIX}(\d\d)?_")
BATCH = 100


_TYPES = ("person", "project", "organization", "place", "tool", "event", "concept")
_ADJECTIVES = (
    "Amber",
    "Brisk",
    "Cobalt",
    "Dune",
    "Ember",
    "Frost",
    "Granite",
    "Harbor",
    "Indigo",
    "Juniper",
    "Kestrel",
    "Lumen",
    "Maple",
    "Nimbus",
    "Onyx",
    "Pine",
    "Quartz",
    "Raven",
    "Sable",
    "Tidal",
)
_NOUNS = (
    "Falcon",
    "Atlas",
    "Beacon",
    "Cedar",
    "Delta",
    "Echo",
    "Forge",
    "Grove",
    "Helix",
    "Iris",
    "Jetty",
    "Keel",
    "Lattice",
    "Meridian",
    "Nova",
    "Orbit",
    "Prism",
    "Quill",
    "Ridge",
    "Summit",
)
_RELATION_TYPES = ("works_on", "knows", "depends_on", "located_in", "part_of", "uses", "leads", "mentions")
_FACTS = (
    "Prefers {a} over {b} for day-to-day work",
    "Met the {a} team at the {b} offsite in {year}",
    "Owns the {a} project deadline, due in {month} {year}",
    "Reported a regression in {a} after the {b} upgrade",
    "Speaks at the {a} meetup every {month}",
    "Moved the {a} service to the {b} cluster in {year}",
    "Asked to be reminded about the {a} review before {month}",
    "Keeps the {a} runbook and the {b} checklist up to date",
    "Was introduced by {a} during the {b} kickoff",
    "Budget for {a} was approved in {month} {year}",
)
_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


def standard_graph(size: int, seed: int = SEED) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """``size`` entities (1–6 observations each) and about two relations per entity, from ``seed``.

    The graph of a smaller size is a prefix of a larger one (relations only point backwards), so
    the probe grows the small graph into the large one instead of rebuilding it.
    """
    rng = random.Random(seed)
    entities: list[dict[str, Any]] = []
    relations: list[dict[str, str]] = []
    for index in range(size):
        name = f"{PREFIX}_{rng.choice(_ADJECTIVES)}_{rng.choice(_NOUNS)}_{index:04d}"
        observations = []
        for _ in range(rng.randint(1, 6)):
            fact = rng.choice(_FACTS).format(
                a=f"{rng.choice(_ADJECTIVES)} {rng.choice(_NOUNS)}",
                b=f"{rng.choice(_ADJECTIVES)} {rng.choice(_NOUNS)}",
                month=rng.choice(_MONTHS),
                year=rng.randint(2019, 2026),
            )
            if fact not in observations:
                observations.append(fact)
        entities.append({"name": name, "entityType": rng.choice(_TYPES), "observations": observations})
        targets = sorted({rng.randrange(index) for _ in range(2)}) if index else []
        for target in targets:
            relations.append(
                {"from": name, "to": entities[target]["name"], "relationType": rng.choice(_RELATION_TYPES)}
            )
    return entities, relations


# One sentence in the middle of the standard document: what a match-scoped read looks for.
DOCUMENT_MARKER = "Decision: the Quartz Meridian rollout moves to March after the load test."


def standard_document(seed: int = SEED, chars: int = 24_000) -> str:
    """A long observation (design notes of about ``chars`` characters) for the ranged-read figures."""
    rng = random.Random(seed)
    sentences: list[str] = []
    while sum(len(s) + 1 for s in sentences) < chars:
        sentences.append(
            rng.choice(_FACTS).format(
                a=f"{rng.choice(_ADJECTIVES)} {rng.choice(_NOUNS)}",
                b=f"{rng.choice(_ADJECTIVES)} {rng.choice(_NOUNS)}",
                month=rng.choice(_MONTHS),
                year=rng.randint(2019, 2026),
            )
            + "."
        )
    sentences.insert(len(sentences) // 2, DOCUMENT_MARKER)
    return " ".join(sentences)[:chars]
