"""The learning curve's shares of the labelled data: fixed, nested and apart from the folds."""

from __future__ import annotations

from scoring.reading import ToolContext
from scoring.sentences import split_units
from scoring.training import Corpus, LabelledUnit, fold_of, group_share

SERVERS = [f"owner{n}/server" for n in range(400)]


def _unit(server: str) -> LabelledUnit:
    units = tuple(split_units("Read a note."))
    return LabelledUnit(server, units, 0, ToolContext.of("read_note"), frozenset({"purpose"}), True)


def test_a_smaller_share_is_part_of_a_larger_one_and_the_same_every_run() -> None:
    corpus = Corpus([_unit(server) for server in SERVERS], [])
    kept = {part: {e.server for e in corpus.share(part).examples} for part in (0.25, 0.5, 0.75, 1.0)}
    assert kept[0.25] < kept[0.5] < kept[0.75] < kept[1.0] == set(SERVERS)
    assert 60 < len(kept[0.25]) < 140 and 160 < len(kept[0.5]) < 240, {k: len(v) for k, v in kept.items()}
    # One owner's servers go together, and the share is another hash than the fold's: each share keeps
    # servers of every fold.
    assert group_share("owner7/a") == group_share("Owner7/b")
    assert {fold_of(server) for server in kept[0.25]} == {0, 1, 2, 3, 4}
