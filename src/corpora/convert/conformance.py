"""`make conformance LEGACY=DIR`: `corpora convert --dummy --reference 2.21` over every script folder
under DIR, then `corpora validate` of each export, and a table of what each gave: identical (and its
rows), differs, or refused with its one line. docs/converting.md holds the table of a run.

    python -m corpora.convert.conformance DIR [--reference 2.21 | --reference-python PY] [--jobs N]
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

CORPORA = [sys.executable, "-m", "corpora.cli"]
TIME_LIMIT = 1800  # seconds per script: the largest run configs by the hundred
IDENTICAL = re.compile(r"identical: ([\d,]+) rows in (\d+) splits")


@dataclass
class Outcome:
    name: str
    result: str  # identical, differs or refused
    said: str  # the rows and splits, the first differing lines, or the refusal's line
    validated: str = ""  # "passes", or validate's line


def last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""


def convert(folder: Path, out: Path, reference: list[str]) -> Outcome:
    command = [*CORPORA, "convert", str(folder), "--out", str(out), "--dummy", *reference]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=TIME_LIMIT)
    except subprocess.TimeoutExpired:
        return Outcome(folder.name, "refused", f"no end within {TIME_LIMIT} s")
    found = IDENTICAL.search(done.stdout)
    if done.returncode == 0 and found:
        outcome = Outcome(folder.name, "identical", f"{found[1]} rows in {found[2]} splits")
    elif done.returncode == 1:  # the rows differ (an error's status is 2)
        report = done.stdout[done.stdout.find("\nold: reference"):]  # after the table of what was written
        changed = [line.strip() for line in report.splitlines() if line.startswith("  ") and "identical" not in line]
        outcome = Outcome(folder.name, "differs", "; ".join(changed[:3]))
    else:
        return Outcome(folder.name, "refused", last_line(done.stderr) or f"exit status {done.returncode}")
    checked = subprocess.run([*CORPORA, "validate", str(out / folder.name)], capture_output=True, text=True)
    failed = [line.split(": ", 1)[-1] for line in checked.stdout.splitlines() if ": FAILED: " in line]
    outcome.validated = ("passes" if checked.returncode == 0
                         else "; ".join(failed) or last_line(checked.stderr or checked.stdout))
    return outcome


def table(outcomes: list[Outcome]) -> str:
    counts = Counter(outcome.result for outcome in outcomes)
    summary = ", ".join(f"{counts[kind]} {kind}" for kind in ("identical", "differs", "refused"))
    lines = [f"{summary} of {len(outcomes)}", "",
             "| script | outcome | rows, or the line said | corpora validate |", "|---|---|---|---|"]
    for outcome in outcomes:
        said, validated = (text.replace("|", "\\|") for text in (outcome.said, outcome.validated))
        lines.append(f"| {outcome.name} | {outcome.result} | {said} | {validated} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="a folder of script folders, NAME/NAME.py each")
    chosen = parser.add_mutually_exclusive_group()
    chosen.add_argument("--reference", default="2.21")
    chosen.add_argument("--reference-python")
    parser.add_argument("--reference-package", action="append", default=[], dest="packages",
                        help="a package the reference venv gets too, for the scripts that import it (repeatable)")
    parser.add_argument("--jobs", type=int, default=1, help="scripts converted side by side")
    parser.add_argument("--only", action="append", help="this folder's name alone (repeatable)")
    args = parser.parse_args(argv)
    if args.reference_python is None and args.packages:
        from corpora.convert.reference import reference_python

        args.reference_python = str(reference_python(args.reference, tuple(args.packages)))
    reference = (["--reference-python", args.reference_python] if args.reference_python
                 else ["--reference", args.reference])
    folders = sorted(p for p in args.folder.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))
    folders = [folder for folder in folders if not args.only or folder.name in args.only]
    with tempfile.TemporaryDirectory(prefix="corpora-conformance-") as out:
        with ThreadPoolExecutor(args.jobs) as pool:
            outcomes = list(pool.map(lambda folder: _announced(convert(folder, Path(out), reference)), folders))
    print(table(outcomes))
    return 0 if all(outcome.result != "differs" for outcome in outcomes) else 1


def _announced(outcome: Outcome) -> Outcome:
    print(f"{outcome.name}: {outcome.result}: {outcome.said}", file=sys.stderr, flush=True)
    return outcome


if __name__ == "__main__":
    sys.exit(main())
