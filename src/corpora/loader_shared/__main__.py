"""Write the generated copies of the shared modules into the loader folders of the collection, or
with --check list those that differ: `python -m corpora.loader_shared [--check] (NAME... | --all)`
(`make shared-modules`, part of `make cards`). Code, not a card: `corpora card` only checks them."""

from __future__ import annotations

import argparse
import sys

from corpora import loader_shared
from corpora import registry


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m corpora.loader_shared", description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", metavar="NAME", help="the loader folders (loaders/NAME/) to write")
    parser.add_argument("--all", action="store_true", help="every loader folder of the collection")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a copy is not as generated")
    args = parser.parse_args(argv)
    if args.all == bool(args.names):
        parser.error("give loader names or --all")
    stale = 0
    for name in registry.names() if args.all else args.names:
        folder = registry.repo_root() / "loaders" / name
        if not (folder / f"{name}.py").is_file():
            parser.error(f"no loader loaders/{name}/{name}.py")
        if args.check:
            outdated = loader_shared.stale_copies(folder, folder / f"{name}.py")
            stale += bool(outdated)
            for module in outdated:
                print(f"loaders/{name}/{module}: not as generated from src/corpora/loader_shared/", file=sys.stderr)
            continue
        registry.require_checkout(f"loaders/{name}/")
        for module in loader_shared.write_copies(folder, folder / f"{name}.py"):
            print(f"{'wrote' if (folder / module).exists() else 'removed'} loaders/{name}/{module}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
