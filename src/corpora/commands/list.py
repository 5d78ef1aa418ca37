"""`corpora list`."""

from corpora.commands import print_table

HELP = "corpora, configs, splits and official sizes"
EXAMPLE = "corpora list"


def add_arguments(parser) -> None:
    pass


def run(args) -> int:
    from corpora import registry

    rows = []
    for corpus in registry.all_corpora():
        for config, splits in corpus.split_sizes.items():
            default = " (default)" if config == corpus.default_config else ""
            for split, size in splits.items():
                rows.append([corpus.name, config + default, split, size])
    print_table(["corpus", "config", "split", "official rows"], rows)
    return 0
