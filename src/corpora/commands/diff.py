"""`corpora diff`: its exit status is diff(1)'s, 0 identical, 1 different, 2 trouble."""

from corpora.commands import add_configs
from corpora.commands import quiet_hub_progress
from corpora.errors import CorporaError

HELP = "what changed in the rows between two exports (exit 0 identical, 1 different, 2 error)"
EXAMPLE = "corpora diff build-old/NAME build/NAME --format markdown"
ERROR_STATUS = 2  # 1 means "different"


def add_arguments(parser) -> None:
    parser.add_argument("old", metavar="OLD", help="an export folder, OUT/NAME, or a published one, "
                        "hf://datasets/ORG/NAME@REVISION (e.g. @v1.0.0; downloaded into huggingface_hub's cache)")
    parser.add_argument("new", metavar="NEW", help="an export folder, OUT/NAME, or hf://datasets/ORG/NAME@REVISION")
    parser.add_argument("--format", choices=["text", "markdown", "json"], default="text", dest="style",
                        help="the report's form (default: text)")
    add_configs(parser)
    parser.add_argument("--key", action="append", dest="keys", metavar="CONFIG=COL[,COL]", default=[],
                        help="match CONFIG's rows by these columns instead of the loader's key "
                             "(CONFIG= alone: by position; repeatable)")


def run(args) -> int:
    from corpora import diff

    quiet_hub_progress()  # a published side's download: no bars in logs
    keys = {}
    for option in args.keys:
        config, equals, columns = option.partition("=")
        if not equals or not config:
            raise CorporaError(f"--key {option}: expected CONFIG=COL[,COL] (or CONFIG= for position)")
        keys[config] = [c for c in columns.split(",") if c]
    report = diff.compare(args.old, args.new, configs=args.configs, keys=keys)
    print(diff.render(report, args.style))
    return 0 if report.identical else 1
