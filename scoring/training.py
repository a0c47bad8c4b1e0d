"""Fit the scorer's two learned parts from labelled data, and measure them honestly.

1. The sentence model (``scoring/model/sentences.json``): a logistic regression per codebook label,
   and one for ``specific``, over ``scoring.reading.unit_features``, fitted on the hand-labelled
   sentences of the calibration folder and on the project's own labels of real packages (kept by
   reference: ``scoring/model/labels.json`` names each unit by source, tool, position and hash,
   and the text is read from the source's snapshot, never stored here).
2. The dimension mapping (``scoring/model/dimensions.json``): per fitted dimension, non-negative
   weights on the evidence ``scoring.mapping`` reads from a tool's labelled sentences and its
   structure, fitted to the scores Glama published for the tools of the calibration folder.

Every agreement figure is cross-validated: the tools' servers are grouped by owner and split into
``FOLDS`` folds by a hash of the group, the same folds every run; in each fold the sentence model
and the mapping are refitted without the fold (the mapping on readings of its training tools made
by sentence models that had not seen those tools' servers either), and the fold is scored with
them. Nothing is keyed to a particular tool.

    python -m scoring.training            # refit and write scoring/model/*.json
    python -m scoring.training --check    # refit and fail if the shipped files differ

scikit-learn is needed here only (``pip install -e '.[train]'``); scoring reads the fitted data.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from scoring.calibration import report, score_entries
from scoring.mapping import (
    FITTED,
    MAPPING_FORMAT,
    MAPPING_PATH,
    PIECES,
    RUBRIC_FLOORS,
    STATEMENT_BUCKETS,
    TEXTUAL,
    Mapping,
    evidence,
)
from scoring.reading import (
    LABELS,
    MODEL_FORMAT,
    MODEL_PATH,
    SentenceModel,
    ToolContext,
    common_words,
    unit_features,
)
from scoring.scorecard import Models
from scoring.sentences import Unit, split_units
from scoring.signals import context_signals, properties_of
from scoring.structure import further_statements
from scoring.tool_reading import ToolReading, read_tool
from scoring.words import is_supported_language

FOLDS = 5
SHARED = Path(__file__).resolve().parents[2] / "shared"
CALIBRATION = ("glama-dev.json", "glama-dev-2.json")
# Logistic regression's inverse regularisation strength; chosen once under cross-validation.
_C = 1.0
_DECIMALS = 3  # weights are written rounded, so the file is the same wherever it is regenerated
_MIN_COUNT = 2  # a feature of a single labelled unit teaches nothing about the next one
# Fitted to convergence, not to the solver's default tolerance: weights that stopped early differ in their
# third decimal from one machine's floating point to another's, and the refit must be byte-identical.
_TOLERANCE = 1e-9


def group_of(server: str) -> str:
    """Related servers count as one: the owner of ``owner/repo``, else the server's name."""
    return server.split("/", 1)[0].lower()


def group_share(server: str) -> float:
    """Where a server's group falls in [0, 1), by a hash independent of its fold's."""
    return int.from_bytes(hashlib.sha256(f"share:{group_of(server)}".encode()).digest()[:4], "big") / 2**32


def fold_of(server: str) -> int:
    """The fold of a server's tools: a fixed hash of its group, the same on every run."""
    return hashlib.sha256(group_of(server).encode()).digest()[0] % FOLDS


@dataclass(frozen=True)
class LabelledUnit:
    """A hand-labelled unit in its description and tool. Units of the project's own labels come from
    servers outside the calibration set and train every fold (``held_out`` False)."""

    server: str
    units: tuple[Unit, ...]
    index: int
    context: ToolContext
    labels: frozenset[str]
    specific: bool
    held_out: bool = True

    def in_fold(self, fold: int) -> bool:
        return self.held_out and fold_of(self.server) == fold

    def features(self, common: dict[str, float]) -> list[str]:
        return unit_features(self.units, self.index, replace(self.context, common=common))

    @property
    def description(self) -> str:
        return " ".join(unit.text for unit in self.units)


@dataclass(frozen=True)
class Text:
    """A tool description the training can read (for how common its words are), labelled or not."""

    server: str
    description: str
    held_out: bool = True

    def in_fold(self, fold: int) -> bool:
        return self.held_out and fold_of(self.server) == fold


@dataclass(frozen=True)
class Corpus:
    """What the sentence model is fitted on: the labelled units and every description around them."""

    examples: list[LabelledUnit]
    texts: list[Text]

    def without(self, *folds: int) -> Corpus:
        """The corpus less what belongs to ``folds``."""
        return Corpus(
            [e for e in self.examples if not any(e.in_fold(f) for f in folds)],
            [t for t in self.texts if not any(t.in_fold(f) for f in folds)],
        )

    def share(self, part: float) -> Corpus:
        """The labelled units of about ``part`` of the server groups, chosen by a hash of the group (the
        same groups every run, and a smaller part's groups within a larger one's); every text is kept."""
        return Corpus([e for e in self.examples if group_share(e.server) < part], self.texts)

    def __add__(self, other: Corpus) -> Corpus:
        return Corpus(self.examples + other.examples, self.texts + other.texts)


@dataclass(frozen=True)
class ScoredTool:
    """A tool of the calibration set with the scores Glama published for it and its server's names."""

    server: str
    tool: dict[str, Any]
    siblings: tuple[str, ...]
    published: dict[str, int | None]


def _context(tool: dict[str, Any], siblings: Sequence[str]) -> ToolContext:
    name = str(tool.get("name") or "")
    return ToolContext.of(name, properties_of(tool.get("inputSchema")), [s for s in siblings if s != name])


def _place(units: list[Unit], text: str, index: int) -> tuple[tuple[Unit, ...], int]:
    """``units`` with the labelled ``text`` at its place: the unit it is, or contains, or is part of.
    The labels were made on a plainer split, so a few units are fragments of ours or span two."""
    for position, unit in enumerate(units):
        if unit.text == text:
            return tuple(units), position
    candidates = [p for p, unit in enumerate(units) if text in unit.text or unit.text in text]
    position = min(candidates, key=lambda p: abs(p - index)) if candidates else min(index, len(units))
    placed = Unit(0, len(text), text)
    if position < len(units):
        return (*units[:position], placed, *units[position + 1 :]), position
    return (*units, placed), len(units)


def load_calibration(shared: Path = SHARED) -> tuple[Corpus, list[ScoredTool]]:
    """The labelled sentences (in their tools' context) with every description of the calibration
    folder and the corpus, and the tools with published scores."""
    folder = shared / "calibration"
    entries = [entry for name in CALIBRATION for entry in json.loads((folder / name).read_text("utf-8"))]
    names: dict[str, list[str]] = defaultdict(list)
    definitions: dict[tuple[str, str], dict[str, Any]] = {}
    for server in json.loads((shared / "corpus" / "livemcpbench" / "tools.json").read_text("utf-8")):
        for key, listing in server["tools"].items():
            for tool in listing["tools"]:
                for label in (key, server["name"]):
                    definitions[(label, tool["name"])] = tool
                    names[label].append(tool["name"])
    for entry in entries:
        definitions[(entry["server"], entry["tool"]["name"])] = entry["tool"]
        names[entry["server"]].append(entry["tool"]["name"])
    labelled = []
    for row in json.loads((folder / "clauses-dev.json").read_text("utf-8")):
        tool = definitions[(row["server"], row["tool"])]
        units, index = _place(split_units(tool.get("description") or ""), row["text"], row["i"])
        labelled.append(
            LabelledUnit(
                server=row["server"],
                units=units,
                index=index,
                context=_context(tool, names[row["server"]]),
                labels=frozenset(row["labels"]),
                specific=bool(row["specific"]),
            )
        )
    scored = [
        ScoredTool(
            entry["server"], entry["tool"], tuple(dict.fromkeys(names[entry["server"]])), entry["glama"]
        )
        for entry in entries
    ]
    texts = {(server, str(tool.get("description") or "")) for (server, _), tool in definitions.items()}
    return Corpus(labelled, [Text(server, text) for server, text in sorted(texts)]), scored


OWN_LABELS = MODEL_PATH.parent / "labels.json"
OWN_SOURCES = MODEL_PATH.parent / "sources.json"
# Where scripts/fetch-label-sources leaves each source's snapshot (outside the package: third-party text).
SOURCE_SNAPSHOTS = MODEL_PATH.parents[2] / ".label-sources" / "snapshots"


def unit_hash(text: str) -> str:
    """How a label names its unit without holding its text: the first 16 hex of its SHA-256."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def load_own_labels(
    labels: Path = OWN_LABELS, sources: Path = OWN_SOURCES, snapshots: Path = SOURCE_SNAPSHOTS
) -> tuple[Corpus, list[str]]:
    """The project's own labels of real packages' sentences, each read from its source's snapshot, and what
    could not be read (a source not fetched, a unit whose text changed)."""
    rows = json.loads(labels.read_text("utf-8"))
    known = {source["id"] for source in json.loads(sources.read_text("utf-8"))}
    tools: dict[tuple[str, str], dict[str, Any]] = {}
    names: dict[str, list[str]] = {}
    missing: list[str] = []
    for source in sorted(known):
        path = snapshots / f"{source}.json"
        if not path.exists():
            missing.append(f"{source}: not fetched")
            continue
        listed = [t for t in json.loads(path.read_text("utf-8")).get("tools") or [] if isinstance(t, dict)]
        names[source] = [str(t.get("name")) for t in listed]
        for tool in listed:
            tools[(source, str(tool.get("name")))] = tool
    found = []
    for row in rows:
        labelled = tools.get((row["source"], row["tool"]))
        if labelled is None:
            if row["source"] in names:
                missing.append(f"{row['source']}: no tool {row['tool']}")
            continue
        units = split_units(str(labelled.get("description") or ""))
        at = row["i"] if row["i"] < len(units) and unit_hash(units[row["i"]].text) == row["hash"] else None
        if at is None:
            at = next((i for i, unit in enumerate(units) if unit_hash(unit.text) == row["hash"]), None)
        if at is None:
            missing.append(f"{row['source']}: {row['tool']} has no unit {row['hash']}")
            continue
        found.append(
            LabelledUnit(
                server=f"{row['source']}",
                units=tuple(units),
                index=at,
                context=_context(labelled, names[row["source"]]),
                labels=frozenset(row["labels"]),
                specific=bool(row["specific"]),
                held_out=False,
            )
        )
    texts = sorted(
        {(source, str(tool.get("description") or "")) for (source, _), tool in tools.items()},
    )
    return Corpus(found, [Text(source, text, held_out=False) for source, text in texts]), missing


def fit_sentence_model(corpus: Corpus) -> SentenceModel:
    """A logistic regression per label and one for ``specific``, on the labelled units' features, with
    how common each word is across the corpus' descriptions."""
    import numpy as np
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression

    examples = corpus.examples
    common = common_words(sorted({text.description for text in corpus.texts}))
    featured = [example.features(common) for example in examples]
    seen = Counter(feature for features in featured for feature in features)
    vectorizer = DictVectorizer(sort=True)
    matrix = vectorizer.fit_transform(
        [{feature: 1 for feature in features if seen[feature] >= _MIN_COUNT} for features in featured]
    ).tocsr()
    matrix.indices = matrix.indices.astype(np.int32)  # liblinear takes 32-bit indices only
    matrix.indptr = matrix.indptr.astype(np.int32)
    targets = [[label in example.labels for example in examples] for label in LABELS]
    targets.append([example.specific for example in examples])
    names = vectorizer.get_feature_names_out()
    columns: list[list[float]] = []
    bias: list[float] = []
    for position, target in enumerate(targets):
        values = np.array(target, dtype=int)
        if values.sum() < 2:  # too rare to learn: never predicted
            columns.append([0.0] * len(names))
            bias.append(-30.0)
            continue
        balanced = "balanced" if position < len(LABELS) else None
        model = LogisticRegression(
            C=_C, solver="liblinear", class_weight=balanced, tol=_TOLERANCE, max_iter=10_000
        )
        model.fit(matrix, values)
        columns.append([float(weight) for weight in model.coef_[0]])
        bias.append(float(model.intercept_[0]))
    weights = {}
    for position, name in enumerate(names):
        row = tuple(round(column[position], _DECIMALS) for column in columns)
        if any(row):
            weights[str(name)] = row
    return SentenceModel(
        labels=LABELS,
        bias=tuple(round(value, _DECIMALS) for value in bias),
        thresholds=(0.5,) * (len(LABELS) + 1),
        weights=weights,
        common=common,
    )


def model_data(model: SentenceModel) -> dict[str, Any]:
    """The model as written to ``scoring/model/sentences.json``."""
    return {
        "format": MODEL_FORMAT,
        "labels": list(model.labels),
        "outputs": [*model.labels, "specific"],
        "bias": list(model.bias),
        "thresholds": list(model.thresholds),
        "weights": {feature: list(row) for feature, row in sorted(model.weights.items())},
        "common": model.common,
    }


def label_figures(
    examples: Sequence[LabelledUnit], predicted: Sequence[tuple[Sequence[str], bool]]
) -> dict[str, Any]:
    """Micro-F1 over (unit, label) pairs, each label's precision, recall and F1, and the accuracy of
    ``specific``."""
    per_label: dict[str, dict[str, float]] = {}
    total_tp = total_fp = total_fn = 0
    for label in LABELS:
        tp = sum(
            1
            for e, (labels, _) in zip(examples, predicted, strict=True)
            if label in e.labels and label in labels
        )
        fp = sum(
            1
            for e, (labels, _) in zip(examples, predicted, strict=True)
            if label not in e.labels and label in labels
        )
        fn = sum(
            1
            for e, (labels, _) in zip(examples, predicted, strict=True)
            if label in e.labels and label not in labels
        )
        total_tp, total_fp, total_fn = total_tp + tp, total_fp + fp, total_fn + fn
        precision = tp / (tp + fp) if tp + fp else 0.0
        recall = tp / (tp + fn) if tp + fn else 0.0
        f1 = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0
        per_label[label] = {"n": tp + fn, "precision": precision, "recall": recall, "f1": f1}
    specific = sum(1 for e, (_, s) in zip(examples, predicted, strict=True) if e.specific == s) / len(
        examples
    )
    micro = 2 * total_tp / (2 * total_tp + total_fp + total_fn)
    return {"micro_f1": micro, "labels": per_label, "specific_accuracy": specific, "n": len(examples)}


def cross_validated_labels(corpus: Corpus, part: float = 1.0) -> dict[str, Any]:
    """The sentence model's figures on each fold, fitted without it (on ``part`` of the other folds'
    server groups, for a learning curve)."""
    examples = corpus.examples
    predicted: list[tuple[Sequence[str], bool] | None] = [None] * len(examples)
    for fold in range(FOLDS):
        model = fit_sentence_model(corpus.without(fold).share(part))
        for position, example in enumerate(examples):
            if example.in_fold(fold):
                predicted[position] = model.classify(example.features(model.common))
    scored = [(example, p) for example, p in zip(examples, predicted, strict=True) if p is not None]
    return label_figures([example for example, _ in scored], [p for _, p in scored])


def read_scored(tool: ScoredTool, model: SentenceModel) -> ToolReading:
    """How the scorer reads a calibration tool with ``model``."""
    definition = tool.tool
    name = str(definition.get("name") or "")
    return read_tool(
        name,
        str(definition.get("description") or ""),
        properties_of(definition.get("inputSchema")),
        context_signals(definition),
        [sibling for sibling in tool.siblings if sibling != name],
        model,
    )


@dataclass(frozen=True)
class Readings:
    """Readings of the calibration tools made without their own fold: ``held_out[i]`` by a model fitted
    on the other folds; ``inner[(f, i)]`` by one fitted on the folds other than ``f`` and tool i's."""

    held_out: list[ToolReading]
    inner: dict[tuple[int, int], ToolReading]


def cross_fitted_readings(corpus: Corpus, tools: Sequence[ScoredTool]) -> Readings:
    folds = [fold_of(tool.server) for tool in tools]
    held_out: list[ToolReading | None] = [None] * len(tools)
    inner: dict[tuple[int, int], ToolReading] = {}
    for outer in range(FOLDS):
        model = fit_sentence_model(corpus.without(outer))
        for index, fold in enumerate(folds):
            if fold == outer:
                held_out[index] = read_scored(tools[index], model)
        for other in range(FOLDS):
            if other == outer:
                continue
            model = fit_sentence_model(corpus.without(outer, other))
            for index, fold in enumerate(folds):
                if fold == other:
                    inner[(outer, index)] = read_scored(tools[index], model)
    return Readings([reading for reading in held_out if reading is not None], inner)


# Ridge strength of the mapping's least squares: a few weights on a few hundred tools need little.
_MAPPING_RIDGE = 1.0


def fit_dimension(
    dimension: str, values: Sequence[dict[str, float]], scores: Sequence[int]
) -> dict[str, Any]:
    """The intercept and weights of one dimension: least squares with a small ridge, each weight held
    to its sign, and a piece the rubric names to at least its dimension's floor either way."""
    import numpy as np
    from scipy.optimize import lsq_linear

    pieces = PIECES[dimension]
    matrix = np.array([[1.0] + [row[piece.key] for piece in pieces] for row in values])
    target = np.array(scores, dtype=float)
    ridge = np.sqrt(_MAPPING_RIDGE) * np.eye(len(pieces) + 1)[1:]
    floors = [RUBRIC_FLOORS[dimension] if piece.rubric else 0.0 for piece in pieces]
    lower = [-np.inf] + [
        floor if piece.earns else -np.inf for piece, floor in zip(pieces, floors, strict=True)
    ]
    upper = [np.inf] + [
        np.inf if piece.earns else -floor for piece, floor in zip(pieces, floors, strict=True)
    ]
    solved = lsq_linear(
        np.vstack([matrix, ridge]), np.concatenate([target, np.zeros(len(pieces))]), bounds=(lower, upper)
    )
    intercept, *weights = (round(float(value), _DECIMALS) + 0.0 for value in solved.x)
    return {
        "intercept": intercept,
        "weights": {piece.key: w for piece, w in zip(pieces, weights, strict=True)},
    }


def _english(tool: ScoredTool) -> bool:
    return is_supported_language(str(tool.tool.get("description") or ""))


def expected_table(
    readings: Sequence[ToolReading], tools: Sequence[ScoredTool]
) -> dict[str, dict[str, list[float]]]:
    """Per dimension and textual piece, its mean over English tools with 0, 1, 2 and 3+ further
    statements (a bucket with no tool takes the mean of all)."""
    rows = [
        (
            min(further_statements(str(t.tool.get("description") or "")), STATEMENT_BUCKETS - 1),
            evidence(r.units, r.facts),
        )
        for r, t in zip(readings, tools, strict=True)
        if _english(t)
    ]
    table: dict[str, dict[str, list[float]]] = {}
    for dimension, pieces in TEXTUAL.items():
        table[dimension] = {}
        for piece in pieces:
            overall = sum(values[dimension][piece] for _, values in rows) / len(rows)
            means = []
            for bucket in range(STATEMENT_BUCKETS):
                found = [values[dimension][piece] for b, values in rows if b == bucket]
                means.append(round(sum(found) / len(found) if found else overall, _DECIMALS))
            table[dimension][piece] = means
    return table


def fit_mapping(readings: Sequence[ToolReading], tools: Sequence[ScoredTool]) -> Mapping:
    """The mapping fitted to the published scores of the English ``tools`` as ``readings`` read them."""
    dimensions: dict[str, Any] = {}
    expected = expected_table(readings, tools)
    for dimension in FITTED:
        values, published = [], []
        for reading, tool in zip(readings, tools, strict=True):
            score = tool.published[dimension]
            if isinstance(score, int) and _english(tool):
                values.append(evidence(reading.units, reading.facts)[dimension])
                published.append(score)
        fitted = fit_dimension(dimension, values, published)
        dimensions[dimension] = {**fitted, "expected": expected[dimension]}
    return Mapping.from_data({"format": MAPPING_FORMAT, "dimensions": dimensions})


def _entries(tools: Sequence[ScoredTool]) -> list[dict[str, Any]]:
    return [{"server": t.server, "tool": t.tool, "glama": t.published} for t in tools]


def cross_validated_dimensions(
    corpus: Corpus, tools: Sequence[ScoredTool], readings: Readings | None = None
) -> dict[str, Any]:
    """The calibration table with every tool scored by the product's own scorer running a sentence
    model and a mapping fitted without the tool's fold, beside description length on the same tools."""
    readings = readings or cross_fitted_readings(corpus, tools)
    folds = [fold_of(tool.server) for tool in tools]
    ours: list[dict[str, int]] = [{} for _ in tools]
    for outer in range(FOLDS):
        train = [i for i, fold in enumerate(folds) if fold != outer]
        mapping = fit_mapping([readings.inner[(outer, i)] for i in train], [tools[i] for i in train])
        model = fit_sentence_model(corpus.without(outer))
        held = [i for i, fold in enumerate(folds) if fold == outer]
        for index, scores in zip(
            held, score_entries(_entries([tools[i] for i in held]), Models(model, mapping)), strict=True
        ):
            ours[index] = scores
    return report(_entries(tools), ours)


def fit_shipped(corpus: Corpus, tools: Sequence[ScoredTool]) -> tuple[SentenceModel, Mapping]:
    """The sentence model fitted on every labelled unit, and the mapping fitted on every tool as read by
    sentence models that had not seen its fold."""
    readings: list[ToolReading | None] = [None] * len(tools)
    folds = [fold_of(tool.server) for tool in tools]
    for fold in range(FOLDS):
        model = fit_sentence_model(corpus.without(fold))
        for index, tool_fold in enumerate(folds):
            if tool_fold == fold:
                readings[index] = read_scored(tools[index], model)
    mapping = fit_mapping([r for r in readings if r is not None], tools)
    return fit_sentence_model(corpus), mapping


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--shared", type=Path, default=SHARED, help="the shared data folder (calibration, corpus)"
    )
    parser.add_argument("--check", action="store_true", help="fail if the shipped model differs from a refit")
    parser.add_argument(
        "--snapshots", type=Path, default=SOURCE_SNAPSHOTS, help="where the label sources' snapshots are"
    )
    parser.add_argument(
        "--labels-only", action="store_true", help="print the sentence model's cross-validated figures"
    )
    parser.add_argument(
        "--dimensions-only", action="store_true", help="print the mapping's cross-validated figures"
    )
    args = parser.parse_args(argv)
    corpus, tools = load_calibration(args.shared)
    if OWN_LABELS.exists():
        own, missing = load_own_labels(snapshots=args.snapshots)
        if missing:
            print(
                f"{len(missing)} of the project's own labels unread: {'; '.join(missing[:5])}",
                file=sys.stderr,
            )
        corpus += own
    if args.labels_only:
        print(json.dumps(cross_validated_labels(corpus), indent=1))
        return 0
    if args.dimensions_only:
        print(json.dumps(cross_validated_dimensions(corpus, tools), indent=1))
        return 0
    model, mapping = fit_shipped(corpus, tools)
    files = {
        MODEL_PATH: json.dumps(model_data(model), separators=(",", ":")) + "\n",
        MAPPING_PATH: json.dumps(mapping.data(), indent=1) + "\n",
    }
    if args.check:
        stale = [
            path.name for path, text in files.items() if not path.exists() or path.read_text("utf-8") != text
        ]
        print(f"differs from a refit: {', '.join(stale)}" if stale else "the shipped model is the refit one")
        return 1 if stale else 0
    for path, text in files.items():
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path.relative_to(path.parents[2])}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
