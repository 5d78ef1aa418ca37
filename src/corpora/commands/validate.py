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
        checks = export_checks(Path(name)) if folder else validate.validate(resolve(name))
        for check, problem in checks:
            warned = isinstance(problem, validate.Warned)  # passes, with something to say
            print(f"{name}: {check}: {'ok' if problem is None else ('warning: ' if warned else 'FAILED: ') + problem}")
            failures += problem is not None and not warned
    return 1 if failures else 0


def export_checks(folder: Path):
    """The checks of an export folder: a converted script's (`corpora convert`), or a corpus's."""
    from corpora import exports
    from corpora import validate

    mark = exports.read_mark(folder) if folder.is_dir() else None
    if mark is not None and validate.converted_card(folder):  # no corpus of this collection
        from corpora.convert import export_checks

        return export_checks.checks(folder, mark)
    return validate.validate_export(folder)
