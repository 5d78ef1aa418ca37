"""`corpora convert`: a legacy loading script run on the installed datasets and written as an export."""

from pathlib import Path

from corpora.commands import add_configs
from corpora.commands import add_out
from corpora.commands import at_least
from corpora.commands import print_table
from corpora.commands import quiet_hub_progress
from corpora.commands import quiet_progress

HELP = ("convert a legacy datasets loading script (NAME.py) into an export folder, as build writes one (exit 0 "
        "converted, and identical to --reference; 1 rows differ from the reference; 2 error)")
EXAMPLE = "corpora convert path/to/squad --dummy --out build"
ERROR_STATUS = 2  # 1 means "rows differ from the reference", as diff's 1 means "different"
SOURCE_HELP = ("the script: a folder NAME/ holding NAME.py (and the helper modules it imports), the path of NAME.py, "
               "or hf://datasets/OWNER/NAME[@REVISION]")


def add_arguments(parser) -> None:
    parser.add_argument("source", metavar="SOURCE", help=SOURCE_HELP)
    add_out(parser)
    add_configs(parser, "only this config of the script's BUILDER_CONFIGS (repeatable)")
    sources = parser.add_mutually_exclusive_group()
    sources.add_argument("--dummy", action="store_true", help="the script's own test data: "
                         "dummy/<config>/<version>/dummy_data.zip (dummy/<version>/ without BUILDER_CONFIGS), or the "
                         "dummy_data/ folder there")
    sources.add_argument("--data-dir", metavar="DIR", help="the files downloaded by hand, for a script that reads "
                         "them (its dl_manager.manual_dir)")
    parser.add_argument("--allow-modified-sources", action="store_true",
                        help="convert downloads whose sha256 or split sizes differ from those the script's "
                             "dataset_infos.json (or README.md) records")
    parser.add_argument("--num-proc", type=at_least(int, 1, "processes"), metavar="N",
                        help="processes for preparing the splits (where the script's splits are lists of files)")
    parser.add_argument("--trust-remote-code", action="store_true",
                        help="run a script read from the Hub (hf://): a script is code, run only once you trust it")
    parser.add_argument("--task-category", action="append", dest="task_categories", default=[], metavar="C",
                        help="a task category of the Hub's for the card, where neither the script nor its README "
                             "states one (repeatable)")
    parser.add_argument("--lock-timeout", type=at_least(float, 0, "seconds"), metavar="SECONDS",
                        help="while another command writes the same OUT/NAME, wait at most this long")
    reference = parser.add_mutually_exclusive_group()
    reference.add_argument("--reference", metavar="VERSION", help="then run the script on datasets VERSION (2.21 "
                           "or 3.6, in a venv made with uv and cached) and compare every row with the export: "
                           "exit status 1 when rows differ (2 is an error)")
    reference.add_argument("--reference-python", metavar="PYTHON",
                           help="as --reference, with an interpreter that has the datasets version to compare with")


LASTING_IMPORTS = ("corpora.pipeline",)


def run(args) -> int:
    from corpora import datasets_adapter
    from corpora.convert import export
    from corpora.convert import script

    quiet_progress()
    quiet_hub_progress()
    data_dir = Path(args.data_dir) if args.data_dir is not None else None
    with datasets_adapter.legacy_names():  # the stand-ins, while the script's code runs
        found = script.resolve(args.source, args.trust_remote_code, args.dummy)
        builder_class = script.builder_class(script.import_module(found))
        configs = export.chosen_configs(found, builder_class, args.configs, args.dummy)
        rows = export.convert(found, builder_class, configs, args.out, dummy_data=args.dummy, data_dir=data_dir,
                              allow_modified_sources=args.allow_modified_sources, asked_tasks=args.task_categories,
                              num_proc=args.num_proc, lock_timeout=args.lock_timeout)
    print(f"exported to {args.out}/:")
    print_table(["script", "config", "split", "examples generated", "rows written"],
                [[r.corpus, r.config, r.split, r.read, r.rows] for r in rows])
    if args.reference is None and args.reference_python is None:
        return 0
    from corpora.convert import reference

    return reference.prove(Path(args.out) / found.name, found.path, configs, version=args.reference,
                           python=args.reference_python, dummy=args.dummy, data_dir=data_dir)
