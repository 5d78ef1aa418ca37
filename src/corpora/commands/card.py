"""`corpora card`."""

import sys
from pathlib import Path

from corpora.commands import add_names
from corpora.commands import names
from corpora.commands import quiet_progress
from corpora.commands import resolve
from corpora.errors import CorporaError

HELP = "(re)write loaders/NAME/README.md from dataset_cards/NAME.yaml"
EXAMPLE = "corpora card --all --check"


def add_arguments(parser) -> None:
    add_names(parser, "the corpora whose card to write or check")
    parser.add_argument("--check", action="store_true", help="only report differences; exit 1 if any")
    parser.add_argument("--sizes-from", metavar="OUT",
                        help="keep the byte sizes measured by `corpora build NAME --out OUT` from the release files")


def run(args) -> int:
    from corpora import prepare
    from corpora import registry
    from corpora.cards import readme

    quiet_progress(always=True)
    stale = 0
    if args.check and registry.unchecked_folder():  # a clone with corpora installed from it, not editable
        print("corpora card: checking the cards the installed package carries, not this folder's: "
              "`CORPORA_ROOT=. corpora card --check ...` checks this folder", file=sys.stderr)
    for name in names(args):
        if not args.check:  # refused before the dummy build, not after it
            registry.require_checkout(f"loaders/{name}/README.md")
        corpus = resolve(name)
        examples = prepare.dummy_examples(corpus)  # the card shows the first example of each config
        if args.check:
            diff = readme.check(corpus, examples)
            if diff:
                stale += 1
                print(diff)
                print(f"{corpus.card_path.name} of {name} is out of date: run `corpora card {name}`", file=sys.stderr)
            else:
                print(f"{name}: card up to date")
        elif args.sizes_from:
            export = Path(args.sizes_from) / name
            if not (export / "README.md").is_file():
                raise CorporaError(
                    f"no export of {name} in {args.sizes_from}: run `corpora build {name} --out {args.sizes_from}`"
                )
            recorded = readme.write_sizes_from_export(corpus, export, examples)
            if not recorded:
                raise CorporaError(f"{export} has no config with the official split sizes (not a build of the release)")
            print(f"wrote loaders/{name}/README.md: the byte sizes of {export} for {', '.join(recorded)}")
        else:
            card = corpus.card_path.relative_to(corpus.root)
            print(f"wrote {card}" if readme.write(corpus, examples) else f"{card}: unchanged")
    return 1 if stale else 0
