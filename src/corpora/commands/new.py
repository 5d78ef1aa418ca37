"""`corpora new`."""

from corpora.commands import quiet_progress

HELP = "write a new corpus's folders as a working skeleton (like `tfds new`)"
EXAMPLE = "corpora new NAME"


def add_arguments(parser) -> None:
    parser.add_argument("name", metavar="NAME", help="the new corpus's name: lower-case words joined by _")


def run(args) -> int:
    from corpora import registry
    from corpora import scaffold

    quiet_progress(always=True)
    written = scaffold.new(args.name)
    root = registry.repo_root()
    for path in written:
        print(f"wrote {path.relative_to(root)}")
    print(f"""
{args.name} builds from its dummy data. Next, in this order:
  1. loaders/{args.name}/{args.name}.py: the pinned URLs (_URL_PREFIX, each config's files), the
     official sizes (split_sizes), the features and the typing of the records, for the real files;
  2. dummy_data/{args.name}/: a few records per split in the real format, every quirk of it, and
     their counts in expected_counts.json;
  3. dataset_cards/{args.name}.yaml: the card's text; tests/test_{args.name}.py: the quirks and the
     bad inputs (at least ten);
  4. `corpora checksums {args.name} --update` once the URLs are real, then `make cards`
     (the card, docs/bad_input.md) and `make test-one NAME={args.name}`.""")
    return 0
