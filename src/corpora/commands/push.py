"""`corpora push`."""

import contextlib
import logging
import warnings
from pathlib import Path

from corpora.commands import add_allow_modified_sources
from corpora.commands import add_configs
from corpora.commands import add_data_dir
from corpora.commands import add_out
from corpora.commands import quiet_hub_progress
from corpora.commands import quiet_progress
from corpora.commands import resolve

HELP = "build and upload a corpus to the Hugging Face Hub, or upload a converted export (OUT/NAME)"
EXAMPLE = "corpora push NAME --repo-id your-org/NAME --dry-run"


def add_arguments(parser) -> None:
    parser.add_argument("name", metavar="NAME|PATH", help="the corpus to build and upload, or the folder of an "
                        "export `corpora convert` wrote (OUT/NAME), uploaded as it is")
    parser.add_argument("--repo-id", required=True, metavar="ID", help="the Hub dataset repository, e.g. your-org/NAME")
    parser.add_argument("--private", action="store_true", help="create the Hub repository as private")
    parser.add_argument("--dry-run", action="store_true",
                        help="build and show what would be uploaded and deleted (no token needed)")
    add_configs(parser, "build and upload only this config (repeatable; default: every config)")
    add_data_dir(parser)
    add_out(parser)
    add_allow_modified_sources(parser)
    parser.add_argument("--revision", metavar="BRANCH",
                        help="commit to this branch, created from main if needed (default: main)")
    parser.add_argument("--create-pr", action="store_true",
                        help="open a pull request with the commit instead of committing to the branch")
    parser.add_argument("--take-over", action="store_true",
                        help="push into a repository whose card corpora did not write for NAME: replaces its "
                             "README.md and croissant.json and deletes the Parquet files under CONFIG/ of each config "
                             "pushed that the export does not have; keeps every other file")
    parser.add_argument("--replace-script", action="store_true",
                        help="for a converted export pushed to the repository its script came from: the same commit "
                             "deletes the script, its helper modules and dataset_infos.json (kept on a branch "
                             "`script` made first, and in the history); nothing else is deleted")


# A converted export is uploaded as it is: the options of a build are not its.
BUILD_OPTIONS = {"configs": "--config", "data_dir": "--data-dir", "allow_modified_sources": "--allow-modified-sources"}


def run(args) -> int:
    from corpora import push
    from corpora import registry
    from corpora.errors import CorporaError

    quiet_progress()
    quiet_hub_progress()  # the upload's bars too: none in logs
    if "/" in args.name or (Path(args.name).is_dir() and args.name not in registry.names()):
        given = [option for key, option in BUILD_OPTIONS.items() if getattr(args, key)]
        given += ["--out"] if args.out != "build" else []
        if given:
            raise CorporaError(f"push {args.name}: {', '.join(given)}: an export folder is uploaded as it is, "
                               "not built; convert it again with these options instead")
        from corpora.convert import publish

        with hub_said_by_corpora():
            publish.push_converted(args.name, args.repo_id, private=args.private, dry_run=args.dry_run,
                                   revision=args.revision, create_pr=args.create_pr, take_over=args.take_over,
                                   replace_script=args.replace_script)
        return 0
    if args.replace_script:
        raise CorporaError(f"push {args.name}: --replace-script is for an export `corpora convert` wrote (OUT/NAME)")
    with hub_said_by_corpora():
        push.push(
            resolve(args.name), args.repo_id, private=args.private, dry_run=args.dry_run, data_dir=args.data_dir,
            out=args.out, allow_modified_sources=args.allow_modified_sources, configs=args.configs,
            revision=args.revision, create_pr=args.create_pr, take_over=args.take_over,
        )
    return 0


@contextlib.contextmanager
def hub_said_by_corpora():
    """huggingface_hub's own warnings and log lines (its retries, "No files have been modified...") kept
    off the terminal: push says what happened, in its own words."""
    hub_logger = logging.getLogger("huggingface_hub")
    level = hub_logger.level
    hub_logger.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", module=r"huggingface_hub(\.|$)")
            yield
    finally:
        hub_logger.setLevel(level)
