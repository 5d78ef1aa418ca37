"""Write the generated copies of the shared modules into loader folders, or with --check list
those that differ: `python -m corpora.loader_shared [--check] loaders/NAME...` (`make
shared-modules`, part of `make cards`, does every folder). This is code generation: `corpora card`
only refuses a folder whose copies are not as generated."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from corpora import loader_shared


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m corpora.loader_shared", description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", metavar="FOLDER", help="loader folders, loaders/NAME/ (with NAME.py)")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a copy is not as generated")
    args = parser.parse_args(argv)
    stale = 0
    for folder in map(Path, args.folders):
        script = folder / f"{folder.name}.py"
        if not script.is_file():
            parser.error(f"{folder}: not a loader folder (no {script.name} in it)")
        if args.check:
            outdated = loader_shared.stale_copies(folder, script)
            stale += bool(outdated)
            for module in outdated:
                print(f"{folder / module}: not as generated from src/corpora/loader_shared/", file=sys.stderr)
            continue
        for module in loader_shared.write_copies(folder, script):
            print(f"{'wrote' if (folder / module).exists() else 'removed'} {folder / module}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
