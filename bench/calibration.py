"""Calibration report, cross-validated: the scorer against the TDQS scores Glama published, and the
sentence model against the hand-labelled sentences.

Both dev files of real tools with Glama's published scores, and the labelled sentences, are split into
five folds by a hash of each server's owner (the same folds every run; ``scoring.training``). Each fold
is scored by the product's own scorer running a sentence model and a dimension mapping refitted without
it, the mapping on readings made by sentence models that had not seen the readings' folds either.
Printed per dimension: how many tools carry a published score, exact and within-±1 agreement,
Spearman's ρ and the mean bias (ours minus theirs), beside description length's ρ on the same tools
(ranked and mapped onto the published distribution: its bias is about 0 by construction). Then per
codebook label: the sentence model's precision, recall and F1 on the held-out folds, and micro-F1; and
the learning curve: micro-F1 with each fold's model trained on a quarter, a half, three quarters and
all of the other folds' labelled server groups.

    .venv/bin/python bench/calibration.py [--shared PATH] [--snapshots PATH] [--update-docs]

The project's own labels are read from the label sources' snapshots (scripts/fetch-label-sources). It
refits the models 56 times: about four minutes on a quiet machine of two cores.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from scoring import training  # noqa: E402
from scoring.calibration import markdown  # noqa: E402


def label_table(figures: dict) -> str:
    rows = [
        "| label | n | precision | recall | F1 |",
        "|---|---|---|---|---|",
    ]
    for label, row in figures["labels"].items():
        rows.append(
            f"| {label} | {row['n']:.0f} | {row['precision']:.2f} | {row['recall']:.2f} | {row['f1']:.2f} |"
        )
    rows.append(f"| micro | {figures['n']} units | | | {figures['micro_f1']:.3f} |")
    return "\n".join(rows) + "\n"


# The shares of the labelled server groups the learning curve trains each fold on.
CURVE_PARTS = (0.25, 0.5, 0.75, 1.0)


def curve_table(corpus: training.Corpus) -> str:
    """Micro-F1 on the held-out folds with each fold's model trained on a share of the other folds'
    labelled server groups: how much more labelled data of this kind would move the sentence model."""
    rows = ["| share of the labelled groups | training units (mean) | micro-F1 |", "|---|---|---|"]
    for part in CURVE_PARTS:
        sizes = [len(corpus.without(fold).share(part).examples) for fold in range(training.FOLDS)]
        figures = training.cross_validated_labels(corpus, part)
        rows.append(f"| {part:.0%} | {sum(sizes) / len(sizes):,.0f} | {figures['micro_f1']:.3f} |")
    return "\n".join(rows) + "\n"


DOC = REPO / "docs" / "calibration.md"


def section(name: str, text: str) -> str:
    """``text`` between the markers of section ``name`` of docs/calibration.md."""
    return f"<!-- table:{name} -->\n{text}<!-- end:{name} -->"


def published(name: str, doc: str | None = None) -> str | None:
    """The text of section ``name`` as docs/calibration.md holds it, or None when it has none."""
    doc = DOC.read_text(encoding="utf-8") if doc is None else doc
    begin = f"<!-- table:{name} -->\n"
    if begin not in doc:
        return None
    return doc.split(begin, 1)[1].split(f"<!-- end:{name} -->", 1)[0]


def update_doc(tables: dict[str, str]) -> None:
    doc = DOC.read_text(encoding="utf-8")
    for name, text in tables.items():
        old = published(name, doc)
        if old is None:
            raise SystemExit(f"docs/calibration.md has no <!-- table:{name} --> section")
        doc = doc.replace(section(name, old), section(name, text))
    DOC.write_text(doc, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=training.SHARED)
    parser.add_argument("--snapshots", type=Path, default=training.SOURCE_SNAPSHOTS)
    parser.add_argument(
        "--update-docs", action="store_true", help="write the tables into docs/calibration.md"
    )
    args = parser.parse_args()
    if not (args.shared / "calibration").exists():
        raise SystemExit(f"the calibration data is not at {args.shared / 'calibration'}")
    corpus, tools = training.load_calibration(args.shared)
    own, missing = training.load_own_labels(snapshots=args.snapshots)
    if missing:
        raise SystemExit(
            f"{len(missing)} of the project's own labels could not be read ({missing[0]}; …): "
            "run scripts/fetch-label-sources first"
        )
    print(
        f"{len(tools)} tools of {len({t.server for t in tools})} servers; {len(corpus.examples)} labelled "
        f"sentences of the calibration folder and {len(own.examples)} of the project's own (these train "
        "every fold)\n",
        file=sys.stderr,
    )
    tables = {
        "dimensions": markdown(training.cross_validated_dimensions(corpus + own, tools)),
        "labels": label_table(training.cross_validated_labels(corpus + own)),
        "curve": curve_table(corpus + own),
    }
    for name, text in tables.items():
        print(f"{name}:\n{text}")
    if args.update_docs:
        update_doc(tables)
        print("wrote docs/calibration.md", file=sys.stderr)


if __name__ == "__main__":
    main()
