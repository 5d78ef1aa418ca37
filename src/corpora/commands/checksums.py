"""`corpora checksums`."""

from corpora.commands import add_configs
from corpora.commands import add_data_dir
from corpora.commands import add_names
from corpora.commands import names
from corpora.commands import print_table
from corpora.commands import resolve

HELP = "measure the source files against loaders/NAME/checksums.tsv; --update records them"
EXAMPLE = "corpora checksums NAME --data-dir DIR"


def add_arguments(parser) -> None:
    add_names(parser, "the corpora whose source files to measure")
    add_configs(parser, "only the files of this config (repeatable)")
    add_data_dir(parser)
    parser.add_argument("--update", action="store_true", help="write the measured size and sha256")


def run(args) -> int:
    from corpora import registry
    from corpora import sources

    differing = 0
    for name in names(args):
        corpus = resolve(name)
        for config in args.configs or []:
            corpus.config(config)  # one that is not the loader's is said here
        if args.update:
            registry.require_checkout(f"loaders/{name}/checksums.tsv")
        # Every file, whatever it holds: measuring it is the point.
        given = sources.find(corpus, args.configs, args.data_dir, allow_modified_sources=True)
        files = given.files
        sources.check_not_lfs_pointers(corpus.name, files, given.folder if given.local else None)  # never the release
        records, pinned = sources.read_records(corpus), corpus.urls
        rows = []
        for path, file in files.items():
            url = pinned[path]
            measured = sources.measure(file)
            recorded = records.get(url)  # None: a path whose record is "-" (never measured)
            status = ("new" if url not in records else "not measured" if recorded is None
                      else "ok" if recorded == measured else "differs")
            differing += status != "ok"
            rows.append([path, measured.size, measured.sha256, status])
            records[url] = measured
        print_table(["path", "bytes", "sha256", "record"], rows)
        if args.update:
            sources.write_records(corpus, records)
            print(f"wrote loaders/{name}/checksums.tsv")
    return 1 if differing and not args.update else 0
