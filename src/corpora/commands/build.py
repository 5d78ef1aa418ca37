"""`corpora build`."""

import logging
import sys

from corpora.commands import add_allow_modified_sources
from corpora.commands import add_configs
from corpora.commands import add_data_dir
from corpora.commands import add_names
from corpora.commands import add_out
from corpora.commands import at_least
from corpora.commands import names
from corpora.commands import print_table
from corpora.commands import quiet_progress
from corpora.commands import resolve

HELP = "build corpora and export them as Parquet folders"
EXAMPLE = "corpora build NAME --config CONFIG --out build"


def add_arguments(parser) -> None:
    add_names(parser, "the corpora to build (`corpora list` names them)")
    add_configs(parser)
    source = parser.add_mutually_exclusive_group()
    add_data_dir(parser, source)
    source.add_argument("--dummy", action="store_true", help="the dummy data in dummy_data/NAME/")
    add_out(parser)
    parser.add_argument("--num-proc", type=at_least(int, 1, "processes"), metavar="N",
                        help="processes for preparing the splits")
    add_allow_modified_sources(parser)
    parser.add_argument("--lock-timeout", type=at_least(float, 0, "seconds"), metavar="SECONDS",
                        help="while another build writes the same OUT/NAME, wait at most this long (default: until "
                             "it ends)")
    parser.add_argument("--drop-other-configs", action="store_true",
                        help="replace an OUT/NAME export that holds configs this build does not make (one the "
                             "loader has renamed or removed, or one left out with --config): they are removed")
    parser.add_argument("--compare-to", metavar="OLD",
                        help="before the swap, print what the build changes in the rows of OLD/NAME (OLD: an export "
                             "folder, e.g. the --out folder itself for the export being replaced)")


# What run imports that lives as long as the process (datasets, pyarrow, pandas): the command
# imports it first, without the cyclic collector (signals.import_lasting).
LASTING_IMPORTS = ("corpora.export_folder",)


class _FewerProcesses(logging.Filter):
    """datasets' "Setting num_proc from N ..." warning, logged per split with too few shards: counted, said once."""

    def __init__(self):
        super().__init__()
        self.splits = 0

    def filter(self, record) -> bool:
        if str(record.msg).startswith("Setting num_proc from "):
            self.splits += 1
            return False
        return True


def run(args) -> int:
    from corpora import export_folder
    from corpora import prepare

    quiet_progress()
    fewer = _FewerProcesses()
    # needed: tests/test_cli.py::test_build_with_worker_processes_gives_the_rows_of_one_process
    logging.getLogger("datasets.builder").addFilter(fewer)
    try:
        return _run(args, export_folder, prepare, fewer)
    finally:
        logging.getLogger("datasets.builder").removeFilter(fewer)


def _run(args, export_folder, prepare, fewer: _FewerProcesses) -> int:
    rows = []
    last = "dummy data expects" if args.dummy else "official"
    header = ["corpus", "config", "split", "source records", "rows written", last]
    for name in names(args):
        request = prepare.Request(resolve(name), args.configs, args.data_dir, args.dummy, args.allow_modified_sources,
                                   args.num_proc)
        try:
            rows_built = export_folder.export(request, args.out, lock_timeout=args.lock_timeout,
                                              compare_to=args.compare_to, drop_other_configs=args.drop_other_configs)
        except BaseException:
            if rows:  # the corpora exported before this one are whole: say so before the error
                print(f"exported to {args.out}/ before {name} stopped:")
                print_table(header, rows)
            raise
        expected = request.corpus.expected_dummy_counts() if args.dummy else None
        for r in rows_built:
            official = expected[r.config][r.split] if args.dummy else r.official
            if r.differs:  # a build with --allow-modified-sources: shown, not refused
                official = f"{r.official:,} (differs)"
            rows.append([r.corpus, r.config, r.split, r.read, r.rows, official])
    # The rows written are those load_dataset reads back through each exported card.
    print(f"exported to {args.out}/:")
    print_table(header, rows)
    if fewer.splits:
        print(f"corpora build: --num-proc {args.num_proc}: {fewer.splits} of {len(rows)} splits were prepared by fewer "
              "processes: a process takes whole source files, and these splits have too few", file=sys.stderr)
    return 0
