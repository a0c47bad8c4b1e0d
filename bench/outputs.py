"""Write every user-visible output of mcpdex for a fixed set of inputs into one folder, so that a
refactor can be checked byte for byte with ``diff -r``.

    .venv/bin/python bench/outputs.py --build-inputs --inputs /tmp/mcpdex-inputs   # once, on the old code
    .venv/bin/python bench/outputs.py --inputs /tmp/mcpdex-inputs --out /tmp/before
    .venv/bin/python bench/outputs.py --inputs /tmp/mcpdex-inputs --out /tmp/after \
        --mcpdex ../new/.venv/bin/mcpdex
    diff -r /tmp/before /tmp/after

``--build-inputs`` writes the inputs once: the corpus grouped by server into snapshot files, the
npm release pairs of ``.peers/releases`` inspected with ``mcpdex inspect --out``, deterministic
mutations of corpus servers, a registry of the corpus, mutations and releases, and the 100-server
registry of ``bench/report.py``. It is the only step that imports mcpdex (the registry builders).
Without it the script only runs the ``mcpdex`` console script as child processes, in a scratch copy of
the inputs and with relative paths, and writes each command's stdout to a file (stderr beside it when
there is any; every command with its exit code in ``commands.txt``).

A live target is a stdlib JSON-RPC server (``replay.py`` in the inputs) that serves a snapshot file's
tools, resources and prompts. Only wall-clock values are normalised, each by one narrow substitution
(see ``NORMALISED``): the inspection time and ``capturedAt`` of a live inspection, and the two
temporary folders (the demo's, and the scratch copy an error message may name).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.output_inputs import (
    BENCH_REGISTRY,
    CORPUS_REGISTRY,
    LIVE,
    TIMEOUT,
    build_inputs,
)

SCORE_FORMATS = ("text", "json", "markdown")
DIFF_FORMATS = ("text", "json", "markdown")
CHECK_FORMATS = ("text", "json", "markdown", "github", "junit", "sarif")
EXTENSIONS = {"text": "txt", "json": "json", "markdown": "md", "github": "github.txt", "junit": "xml"}
EXTENSIONS |= {"sarif": "sarif", "html": "html"}
# The only substitutions made on outputs: wall-clock values of a live inspection.
DURATION = (re.compile(r"^(.*  via \w[\w-]*) in \d+\.\d\d s$", re.M), r"\1 in <seconds> s")
CAPTURED_AT = (re.compile(r'^(\s*"capturedAt": )"[^"]*"', re.M), r'\1"<captured-at>"')
# A page of a live inspection shows when it ran.
CAPTURE_TIME = (
    re.compile(r'<time datetime="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ">[^<]*</time>'),
    '<time datetime="<captured-at>"><captured-at></time>',
)
NORMALISED = (
    "inspect text: the first line's ' in 1.23 s' -> ' in <seconds> s'; "
    "inspect --format json and lock --out: the 'capturedAt' value -> '<captured-at>'; "
    "report --since (a live inspection) as HTML: its times -> '<captured-at>'; "
    "demo: its temporary folder -> '<demo>'; any command: the scratch folder -> '<work>'"
)

# -- outputs (only the mcpdex console script, as child processes) ------------------------------------


@dataclass
class Run:
    """One mcpdex command: stdout goes to ``name`` in the output folder, stderr to ``name.stderr``."""

    name: str
    args: list[str]
    env: dict[str, str] = field(default_factory=dict)
    normalise: tuple[tuple[re.Pattern[str], str], ...] = ()
    cost: int = 1  # started largest first, so the pool ends together


@dataclass
class Result:
    run: Run
    code: int
    stdout: str
    stderr: str


def stem(path: str) -> str:
    return Path(path).stem


def pair_name(old: str, new: str) -> str:
    if old.startswith("releases/"):
        return f"{stem(old)}..{stem(new).partition('@')[2]}"
    return f"{Path(new).parent.name}.{stem(new)}"


def replayed(snapshot: str) -> list[str]:
    return [*LIVE, "--", "python3", "replay.py", snapshot]


def plan(manifest: dict[str, Any]) -> list[Run]:
    """Every command, named by where its stdout goes."""
    runs: list[Run] = []
    add = runs.append
    reg_c, reg_b = ["--registry", CORPUS_REGISTRY], ["--registry", BENCH_REGISTRY]
    # (1) scorecards of every corpus server and release, in every format, and the gate options.
    for file in manifest["corpus"] + manifest["releases"]:
        group = file.split("/")[0]
        for fmt in SCORE_FORMATS:
            add(
                Run(f"score/{group}/{stem(file)}.{EXTENSIONS[fmt]}", ["score", file, "--format", fmt], cost=3)
            )
    first, release = manifest["corpus"][0], manifest["releases"][-1]
    add(Run("score/options/min-tier-b.txt", ["score", first, "--min-tier", "b"], cost=3))
    add(
        Run(
            "score/options/min-score-4.5-worst-2.md",
            ["score", release, "--min-score", "4.5", "--worst", "2", "--format", "markdown"],
            cost=3,
        )
    )
    add(Run("score/options/worst-0.txt", ["score", release, "--worst", "0"], cost=3))
    add(Run("score/options/from-registry.txt", ["score", "npm/notion@2.5.2", *reg_c], cost=3))
    add(Run("score/options/live.txt", ["score", *replayed(first)], cost=4))
    # (2) diffs of every pair, and the gate on the new side replayed live.
    for old, new in manifest["pairs"]:
        name = pair_name(old, new)
        for fmt in DIFF_FORMATS:
            add(Run(f"diff/{name}.{EXTENSIONS[fmt]}", ["diff", old, new, "--format", fmt]))
        formats = CHECK_FORMATS if [old, new] in manifest["fullChecks"] else ("json",)
        for fmt in formats:
            args = ["check", "--baseline", old, "--format", fmt, *replayed(new)]
            add(Run(f"check/{name}.{EXTENSIONS[fmt]}", args, cost=6))
    old, new = manifest["pairs"][0]
    full = manifest["fullChecks"][-1]
    add(Run("diff/options/fail-on-breaking.txt", ["diff", old, new, "--fail-on", "breaking"]))
    add(Run("diff/options/fail-on-info-unchanged.txt", ["diff", old, old, "--fail-on", "info"]))
    add(
        Run(
            "diff/options/from-registry.md",
            ["diff", "npm/notion@1.9.1", "npm/notion@2.5.2", *reg_c, "--format", "markdown"],
        )
    )
    add(Run("diff/options/missing-file.txt", ["diff", old, "corpus/no-such-server.json"]))
    add(Run("diff/options/not-a-snapshot.txt", ["diff", old, "manifest.json"]))
    gate = [("fail-on-warning", ["--fail-on", "warning"]), ("fail-on-info", ["--fail-on", "info"])]
    gate += [
        ("severity", ["--severity", "tool-description-changed=breaking", "--severity", "tool-added=none"])
    ]
    gate += [("bump-level-none", ["--bump-level", "none"]), ("no-quality", ["--no-quality"])]
    gate += [
        ("max-context-tokens", ["--max-context-tokens", "500"]),
        ("ignore", ["--ignore", "accepted.ignore"]),
    ]
    for label, options in gate:
        args = ["check", "--baseline", full[0], *options, *replayed(full[1])]
        add(Run(f"check/options/{label}.txt", args, cost=6))
    add(
        Run(
            "check/options/ignore-release.txt",
            ["check", "--baseline", old, "--ignore", "accepted.ignore", *replayed(new)],
            cost=6,
        )
    )
    add(Run("check/options/unchanged.txt", ["check", "--baseline", full[0], *replayed(full[0])], cost=6))
    against = ["--against", f"{stem(full[0])}@0.1.0"]
    add(
        Run(
            "check/options/registry.json",
            ["check", *reg_c, *against, "--format", "json", *replayed(full[1])],
            cost=6,
        )
    )
    add(
        Run("check/options/no-baseline.txt", ["check", "--baseline", "no-such.lock.json", *replayed(full[1])])
    )
    summary = {"GITHUB_STEP_SUMMARY": "step-summary.md"}
    add(
        Run(
            "check/options/step-summary.github.txt",
            ["check", "--baseline", full[0], "--format", "github", *replayed(full[1])],
            env=summary,
            cost=6,
        )
    )
    # (3) registry reads: changelogs, versions, show.
    for server, labels in manifest["histories"].items():
        if len(labels) > 1:
            for fmt in ("text", "markdown", "json"):
                add(
                    Run(
                        f"changelog/{server}.{EXTENSIONS[fmt]}",
                        ["changelog", server, *reg_c, "--format", fmt],
                        cost=2,
                    )
                )
            for fmt in ("text", "json"):
                add(
                    Run(f"versions/{server}.{EXTENSIONS[fmt]}", ["versions", server, *reg_c, "--format", fmt])
                )
                add(
                    Run(
                        f"show/{server}@{labels[0]}.{EXTENSIONS[fmt]}",
                        ["show", f"{server}@{labels[0]}", *reg_c, "--format", fmt],
                    )
                )
            add(Run(f"changelog/limit-1/{server}.txt", ["changelog", server, *reg_c, "--limit", "1"], cost=2))
    for fmt in ("text", "json"):
        add(Run(f"versions/all.{EXTENSIONS[fmt]}", ["versions", "--all", *reg_c, "--format", fmt]))
        add(Run(f"versions/all-bench.{EXTENSIONS[fmt]}", ["versions", "--all", *reg_b, "--format", fmt]))
        add(Run(f"show/{stem(first)}.{EXTENSIONS[fmt]}", ["show", stem(first), *reg_c, "--format", fmt]))
        add(
            Run(
                f"show/{manifest['failed']}.{EXTENSIONS[fmt]}",
                ["show", manifest["failed"], *reg_c, "--format", fmt],
            )
        )
    add(Run("show/unknown.txt", ["show", "no-such-server", *reg_c]))
    add(Run("changelog/unknown.txt", ["changelog", "no-such-server", *reg_c]))
    add(
        Run(
            "changelog/bench-server-0007.md",
            ["changelog", "server-0007", *reg_b, "--format", "markdown"],
            cost=2,
        )
    )
    # (4) sites of both registries, and single-server reports.
    add(Run("report/site-bench.txt", ["report", "--out", "site-bench", *reg_b, "--jobs", "2"], cost=60))
    add(Run("report/site-corpus.txt", ["report", "--out", "site-corpus", *reg_c, "--jobs", "2"], cost=40))
    for file in [*manifest["corpus"][:3], release]:
        for fmt in ("html", "markdown", "json"):
            add(Run(f"report/one/{stem(file)}.{EXTENSIONS[fmt]}", ["report", file, "--format", fmt], cost=3))
    add(
        Run(
            "report/one/registry-notion@2.5.2.md",
            ["report", "npm/notion@2.5.2", *reg_c, "--format", "markdown"],
            cost=3,
        )
    )
    add(
        Run(
            "report/one/since.md",
            ["report", "--since", full[0], "--format", "markdown", *replayed(full[1])],
            cost=5,
        )
    )
    add(
        Run(
            "report/one/since.html",
            ["report", "--since", old, "--format", "html", *replayed(new)],
            normalise=(CAPTURE_TIME,),
            cost=5,
        )
    )
    # (5) the rules, and explain for each kind of id.
    for fmt in ("text", "json", "markdown"):
        add(Run(f"rules/rules.{EXTENSIONS[fmt]}", ["rules", "--format", fmt]))
    add(Run("rules/write.txt", ["rules", "--write", "rules-written.md"]))
    for rule in (
        "tool-removed",
        "input-required-property-added",
        "hidden-unicode",
        "usage_guidelines",
        "tool-remove",
    ):
        add(Run(f"explain/{rule}.txt", ["explain", rule]))
    # Live inspection's own outputs, over a replayed snapshot (the summary reads the corpus registry).
    add(
        Run(
            "inspect/changed.txt",
            ["inspect", *reg_c, "--name", stem(full[0]), *replayed(full[1])],
            normalise=(DURATION,),
            cost=4,
        )
    )
    add(Run("inspect/corpus.txt", ["inspect", *replayed(first)], normalise=(DURATION,), cost=4))
    add(
        Run(
            "inspect/corpus.json",
            ["inspect", "--format", "json", *replayed(first)],
            normalise=(CAPTURED_AT,),
            cost=2,
        )
    )
    add(Run("inspect/lock.txt", ["lock", "--out", "locked.json", *replayed(release)], cost=2))
    add(Run("inspect/no-target.txt", ["inspect"]))
    add(Run("help/mcpdex.txt", ["--help"]))
    for command in (
        "score",
        "diff",
        "check",
        "changelog",
        "report",
        "rules",
        "inspect",
        "lock",
        "show",
        "versions",
    ):
        add(Run(f"help/{command}.txt", [command, "--help"]))
    return runs


def clean_env(work: Path) -> dict[str, str]:
    """The environment without what changes mcpdex's output (MCPDEX_*, GitHub, terminal size)."""
    dropped = ("COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR", "TERM", "GITHUB_STEP_SUMMARY")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MCPDEX_") and k not in dropped}
    env |= {"MCPDEX_DATA_DIR": str(work / "data"), "LC_ALL": "C.UTF-8", "TZ": "UTC"}
    return env


def execute(run: Run, mcpdex: str, work: Path, env: dict[str, str]) -> Result:
    extra = {key: str(work / value) for key, value in run.env.items()}
    done = subprocess.run([mcpdex, *run.args], cwd=work, env=env | extra, capture_output=True)
    stdout, stderr = (part.decode("utf-8", "backslashreplace") for part in (done.stdout, done.stderr))
    for pattern, replacement in run.normalise:
        stdout, stderr = pattern.sub(replacement, stdout), pattern.sub(replacement, stderr)
    # An error message may name the registry file, which lies in this run's scratch folder.
    stdout, stderr = (text.replace(str(work), "<work>") for text in (stdout, stderr))
    return Result(run, done.returncode, stdout, stderr)


def demo(mcpdex: str, env: dict[str, str]) -> list[Result]:
    """scripts/demo's inspect, score and check, in a temporary folder (named '<demo>' in the output)."""
    results = []
    with tempfile.TemporaryDirectory(prefix="mcpdex-outputs-demo-") as folder:
        root = Path(folder)
        work = root / ".mcpdex-demo"
        work.mkdir()
        demo_env = env | {"MCPDEX_REGISTRY": f"sqlite:///{work / 'registry.sqlite'}"}
        memory = ["--", mcpdex, "memory", "--db", str(work / "memory.sqlite")]
        lock = ".mcpdex-demo/mcpdex.lock.json"
        tmp = (re.compile(re.escape(folder)), "<demo>")
        steps = [
            Run(
                "demo/inspect.txt",
                ["inspect", "--save", "--out", lock, "--timeout", TIMEOUT, *memory],
                normalise=(tmp, DURATION),
            ),
            Run("demo/score.txt", ["score", lock], normalise=(tmp,)),
            Run(
                "demo/check.txt",
                ["check", "--baseline", lock, "--timeout", TIMEOUT, *memory],
                normalise=(tmp,),
            ),
        ]
        for step in steps:
            results.append(execute(step, mcpdex, root, demo_env))
    return results


def produce(inputs: Path, out: Path, mcpdex: str, jobs: int) -> int:
    """Run every command into ``out``; the number of files written."""
    if out.exists():
        sys.exit(f"outputs: {out} exists; pass a new folder")
    manifest = json.loads((inputs / "manifest.json").read_text(encoding="utf-8"))
    runs = sorted(plan(manifest), key=lambda run: -run.cost)
    with tempfile.TemporaryDirectory(prefix="mcpdex-outputs-") as folder:
        work = Path(folder) / "work"
        shutil.copytree(inputs, work)  # a scratch copy: nothing a command writes reaches the inputs
        (work / "data").mkdir()
        env = clean_env(work)
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            demo_results = pool.submit(demo, mcpdex, env)
            results = list(pool.map(lambda run: execute(run, mcpdex, work, env), runs))
            results += demo_results.result()
        out.mkdir(parents=True)
        lines = []
        for result in sorted(results, key=lambda result: result.run.name):
            target = out / result.run.name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(result.stdout, encoding="utf-8")
            if result.stderr:
                target.with_name(target.name + ".stderr").write_text(result.stderr, encoding="utf-8")
            command = " ".join(result.run.args).replace(mcpdex, "<mcpdex>")
            for pattern, replacement in result.run.normalise:
                command = pattern.sub(replacement, command)
            lines.append(f"{result.run.name}\t{result.code}\tmcpdex {command}")
        (out / "commands.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        for site in ("site-bench", "site-corpus"):
            shutil.move(work / site, out / "report" / site)
        shutil.copy(work / "step-summary.md", out / "check" / "options" / "step-summary.md")
        shutil.copy(work / "rules-written.md", out / "rules" / "rules-written.md")
        locked = CAPTURED_AT[0].sub(CAPTURED_AT[1], (work / "locked.json").read_text(encoding="utf-8"))
        (out / "inspect" / "locked.json").write_text(locked, encoding="utf-8")
    return sum(1 for path in out.rglob("*") if path.is_file())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mcpdex", default=".venv/bin/mcpdex", help="the console script to drive")
    parser.add_argument("--inputs", type=Path, required=True, help="the inputs folder")
    parser.add_argument(
        "--build-inputs", action="store_true", help="write the inputs (once, on the old code)"
    )
    parser.add_argument("--out", type=Path, help="a new folder for the outputs")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="commands run at once")
    args = parser.parse_args()
    mcpdex = str(Path(args.mcpdex).resolve())
    started = time.perf_counter()
    if args.build_inputs:
        build_inputs(args.inputs.resolve(), mcpdex)
        print(f"inputs: {args.inputs} in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    if args.out:
        files = produce(args.inputs.resolve(), args.out.resolve(), mcpdex, args.jobs)
        print(
            f"outputs: {files} files in {args.out} in {time.perf_counter() - started:.0f} s", file=sys.stderr
        )
        print(f"normalised: {NORMALISED}", file=sys.stderr)
    elif not args.build_inputs:
        parser.error("pass --build-inputs, --out, or both")


if __name__ == "__main__":
    main()
