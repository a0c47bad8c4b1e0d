"""Calibration report: the scorer against the TDQS scores Glama published for real tools.

Reads the development set (real tool definitions with the dimension scores shown on their pages)
and prints, per dimension: how many entries carry a published score, exact and within-±1 agreement,
Spearman's ρ, and the mean bias (ours minus theirs). Beside each, the same figures for the baseline
that needs no scorer: description length, ranked and mapped onto the published score distribution
of that dimension (its bias is about 0 by construction; its ρ is the figure to beat).

Siblings are the other tools of the same server found in the set. Glama's judge is an LLM whose
scores move by one between runs, so within-±1 and ρ matter more than exact agreement.

    .venv/bin/python bench/calibration.py [--data PATH]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "calibration" / "glama-dev.json"
sys.path.insert(0, str(REPO))

from scoring.calibration import markdown, report  # noqa: E402


def load(path: Path) -> list[dict[str, Any]]:
    return json.loads(path.read_text(encoding="utf-8"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    if not args.data.exists():
        raise SystemExit(f"the calibration set is not at {args.data}")
    print(markdown(report(load(args.data))), end="")


if __name__ == "__main__":
    main()
