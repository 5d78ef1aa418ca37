"""`corpora validate`."""

from pathlib import Path

from corpora.commands import add_names
from corpora.commands import names
from corpora.commands import quiet_progress
from corpora.commands import resolve

HELP = "cards, dummy builds and export round trips; or an export folder"
EXAMPLE = "corpora validate NAME, or corpora validate build/NAME"


def add_arguments(parser) -> None:
    add_names(parser, "corpora, or export folders on disk (OUT/NAME) to check before an upload: the card against the "
                      "files, files that are not the export's, croissant.json's sha256s, the reload", "NAME|PATH")


def run(args) -> int:
    from corpora import registry
    from corpora import validate

    quiet_progress(always=True)
    failures = 0
    for name in names(args):
        # A path (it has a slash, or is a folder here and no corpus) is an export folder on disk.
        folder = "/" in name or (Path(name).is_dir() and name not in registry.names())
        checks = validate.validate_export(Path(name)) if folder else validate.validate(resolve(name))
        for check, problem in checks:
            warned = isinstance(problem, validate.Warned)  # passes, with something to say
            print(f"{name}: {check}: {'ok' if problem is None else ('warning: ' if warned else 'FAILED: ') + problem}")
            failures += problem is not None and not warned
    return 1 if failures else 0
