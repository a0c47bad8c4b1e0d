"""Calibration report: the scorer against the TDQS scores Glama published for real tools.

Reads the development set (real tool definitions with the dimension scores shown on their pages)
and prints, per dimension: how many entries carry a published score, exact and within-±1 agreement,
Spearman's ρ, and the mean bias (ours minus theirs). Beside each, the same figures for the baseline
that needs no scorer: description length, ranked and mapped onto the published score distribution
of that dimension (its bias is about 0 by construction; its ρ is the figure to beat).

Siblings are the other tools of the same server found in the set. Glama's judge is an LLM whose
scores move by one between runs, so within-±1 and ρ matter more than exact agreement.

With ``--halves`` it prints the same table for each half of the set split by server (a server's tools
fall in half A or B by the parity of the first byte of the SHA-256 of its name), so a rule tuned by
looking at one half can be checked on the other.

    .venv/bin/python bench/calibration.py [--data PATH] [--halves]
"""

from __future__ import annotations

import argparse
import hashlib
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


def half(server: str) -> str:
    """Half A or B of the set for the tools of ``server``: a fixed split that depends on nothing else."""
    return "AB"[hashlib.sha256(server.encode()).digest()[0] % 2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--halves", action="store_true", help="a table for each half of the set, by server")
    args = parser.parse_args()
    if not args.data.exists():
        raise SystemExit(f"the calibration set is not at {args.data}")
    entries = load(args.data)
    if not args.halves:
        print(markdown(report(entries)), end="")
        return
    for name in "AB":
        chosen = [entry for entry in entries if half(entry["server"]) == name]
        servers = len({entry["server"] for entry in chosen})
        print(f"Half {name}: {len(chosen)} entries of {servers} servers\n")
        print(markdown(report(chosen)))


if __name__ == "__main__":
    main()
