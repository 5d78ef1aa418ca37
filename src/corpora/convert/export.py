"""A legacy script's export through the shared pipeline (corpora.pipeline): its builder made per config,
run on its dummy data (--dummy), on the files given (--data-dir: its manual_dir) or on its downloads,
with the checks datasets dropped (convert.checks), and the converted card (convert.card)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import datasets

from corpora import datasets_adapter
from corpora import download
from corpora import errors
from corpora import parquet_files
from corpora import pipeline
from corpora.convert import card
from corpora.convert import checks
from corpora.convert import dummy
from corpora.convert import script
from corpora.errors import CorporaError
from corpora.errors import shorten


def convert(found: script.Script, builder_class, configs, out, *, dummy_data: bool = False,
            data_dir: Path | None = None, allow_modified_sources: bool = False, asked_tasks=(),
            num_proc: int | None = None, lock_timeout: float | None = None,
            repo_id: str | None = None) -> list[pipeline.SplitRows]:
    """OUT/NAME: the `configs` of the script (its builder class imported by `script.import_module`,
    inside `datasets_adapter.legacy_names()`, as this runs) exported by the shared pipeline: what
    `corpora convert` writes. The rows written of each config and split."""
    parts = ScriptParts(found, builder_class, dummy_data=dummy_data, data_dir=data_dir,
                        allow_modified_sources=allow_modified_sources, asked_tasks=asked_tasks)
    plan = pipeline.Export(found.name, tuple(configs), parts, known=tuple(script.config_names(builder_class)),
                           data_dir=data_dir, local_copy=data_dir or (found.folder if dummy_data else None),
                           num_proc=num_proc)
    return pipeline.run(plan, out, repo_id=repo_id, lock_timeout=lock_timeout)


class ScriptParts(pipeline.Parts):
    def __init__(self, found: script.Script, builder_class, *, dummy_data: bool, data_dir: Path | None,
                 allow_modified_sources: bool, asked_tasks=()):
        self.found, self.builder_class = found, builder_class
        self.dummy_data, self.data_dir, self.asked_tasks = dummy_data, data_dir, list(asked_tasks)
        self.checks = checks.Checks.of(found.name, found.folder, dummy_data, allow_modified_sources)
        self.downloads: dict[str, Path] = {}  # every config's: url -> local path

    def find_sources(self):
        return pipeline.FoundSources("dummy" if self.dummy_data else "release")

    def make_builder(self, config: str, sources, cache_dir: Path) -> datasets.DatasetBuilder:
        self.work = Path(cache_dir)  # the export's workspace: the builder's cache, the unzipped dummy data, keys
        builder = script.make_builder(self.found, self.builder_class, config, self.work / "datasets", self.data_dir,
                                      storage_options=time_limited())
        if self.dummy_data:
            dummy.forget_release_sizes(builder)
        self.checks.attach(builder, config, self.work / "checks")
        return builder

    def generate(self, builder, config: str, sources, num_proc: int | None) -> dict[str, int]:
        manager = None
        if self.dummy_data:
            source = dummy.dummy_data(self.found.folder, config if self.builder_class.BUILDER_CONFIGS else None,
                                      builder.config.version)
            unzipped = self.work / "dummy" / config
            shutil.rmtree(unzipped, ignore_errors=True)
            manager = dummy.DummyDownloadManager(source, unzipped)
        elif self.data_dir is None and getattr(builder, "manual_download_instructions", None):
            instructions = " ".join(str(builder.manual_download_instructions).split())
            raise CorporaError(f"{self.found.name}: the script reads files downloaded by hand, from a folder given "
                               f"with --data-dir DIR; its instructions: {instructions}")
        try:
            with datasets_adapter.downloads_named(_failed_download):
                builder.download_and_prepare(dl_manager=manager, num_proc=num_proc,
                                             max_shard_size=parquet_files.MAX_SHARD_BYTES)
        except Exception as error:
            named = _unread_source(f"{self.found.name}/{config}", builder.dl_manager, error)
            if named is None:
                raise
            raise named from error
        self.downloads.update({str(url): Path(path) for url, path in
                               getattr(builder.dl_manager, "downloaded_paths", {}).items()})
        self.checks.check_sizes(config, builder.info)
        return {split: info.num_examples for split, info in builder.info.splits.items()}

    def stored(self, table):
        return checks.embed_media(table)  # Image and Audio files read into the export: it stands alone

    def write_card(self, folder, infos, report, sources, repo_id, export_path) -> None:
        found, builder_class = self.found, self.builder_class
        provenance = card.Provenance(
            name=found.name, source=card.source_of(found.source, found.name, found.revision),
            files=card.files_read(found.folder, found.name), datasets_version=datasets.__version__,
            downloads={url: checks.sha256_of(path) if path.is_file() else None
                       for url, path in sorted(self.downloads.items())},
            dummy=self.dummy_data)
        descriptions = {config.name: config.description for config in builder_class.BUILDER_CONFIGS}
        card.write(folder, found.name, infos, report, provenance, card.original_of(found.folder), descriptions,
                   getattr(builder_class, "DEFAULT_CONFIG_NAME", None), self.asked_tasks, repo_id, export_path)


def time_limited() -> dict:
    """The storage_options of a builder whose HTTP downloads (fsspec's aiohttp client, on datasets
    3.6, 4.x and 5.x alike) end after CORPORA_DOWNLOAD_TIMEOUT seconds of silence, as corpora's own
    downloads do: aiohttp's default waits 5 minutes for a server that never answers, a stall each time."""
    timeout = download.client_timeout(download.Settings.from_environment().timeout)
    return {protocol: {"client_kwargs": {"timeout": timeout}} for protocol in ("http", "https")}


_ANSWERED = errors.Kind(("aiohttp.ClientResponseError",), None, anywhere=True)  # an HTTP status of 400 or more


def _failed_download(url: str, error: Exception) -> CorporaError | None:
    """A download that failed, said in one line with its URL and why: fsspec, which datasets downloads
    with, says a read that stalled as an FSTimeoutError naming nothing, one cut short as aiohttp's
    ClientPayloadError, and an HTTP error status or a failed connection as a FileNotFoundError of the
    URL alone. None: the error says it as it is."""
    if errors.caused_by(error, errors.TIMEOUTS):
        seconds = download.Settings.from_environment().timeout
        return CorporaError(f"{url}: {errors.no_answer_within(seconds)} (CORPORA_DOWNLOAD_TIMEOUT)")
    if errors.caused_by(error, download.CUT_SHORT):
        return CorporaError(f"{url}: the connection closed before the file was whole")
    answered = errors.find(error, [_ANSWERED])
    if answered is not None:
        return CorporaError(f"{url}: {errors.server_answered(answered[0].status, answered[0].message)}")
    found = errors.find(error, errors.DOWNLOAD_FAILURES[:-1])
    return None if found is None else CorporaError(f"{url}: {found[1].says(found[0])}")


# A file the script could not open, read or list (a FileNotFoundError, IsADirectoryError...).
_FILE_ERROR = errors.Kind((OSError,), None, anywhere=True,
                          test=lambda error: error.errno is not None and isinstance(error.filename, str))


def _unread_source(where: str, manager, error: Exception) -> CorporaError | None:
    """A source file the script could not read (one its dummy data lacks, a folder where it wants
    a file) in one line naming the config and the file as the user knows it: inside the dummy data,
    or by the URL it was downloaded from (and its path in the archive extracted), not by its path in
    the export's workspace (OUT/.NAME.partial/...), gone after. None: no such file in `error`."""
    found = errors.find(errors.loader_error(error), [_FILE_ERROR])
    if found is None or manager is None:
        return None
    path = os.path.abspath(found[0].filename)
    known = manager.known_as(path) if isinstance(manager, dummy.DummyDownloadManager) else _downloaded_as(manager, path)
    return None if known is None else CorporaError(f"{where}: {known}: {os.strerror(found[0].errno)}")


def _downloaded_as(manager, path: str) -> str | None:
    """An absolute `path` inside a download or an archive the download manager extracted, as the
    user knows it: `URL`, or `URL, extracted: inner/path` (an archive of their own: its path);
    None: neither's."""
    urls = {str(local): str(url) for url, local in getattr(manager, "downloaded_paths", {}).items()}
    places = [(local, f"{urls.get(str(archive), archive)}, extracted")
              for archive, local in getattr(manager, "extracted_paths", {}).items()]
    for local, said in [*places, *((local, url) for local, url in urls.items())]:
        local = os.path.abspath(str(local))
        if local == path:
            return said
        if path.startswith(local + os.sep):
            return f"{said}: {path[len(local) + 1:]}"
    return None


def chosen_configs(found: script.Script, builder_class, asked: list[str] | None, dummy_data: bool,
                   say=print) -> list[str]:
    """The configs to convert: those asked (each must exist), else all; with --dummy and none asked,
    those the script has dummy data for (the others said in one line)."""
    known = script.config_names(builder_class)
    if asked:
        unknown = [config for config in asked if config not in known]
        if unknown:
            raise CorporaError(f"{found.path}: no config {unknown[0]!r}; its configs: {', '.join(known)}")
        return list(dict.fromkeys(asked))
    if not dummy_data:
        return known
    have = [config for config in known if dummy.dummy_data(
        found.folder, config if builder_class.BUILDER_CONFIGS else None, _version(builder_class, config)).exists()]
    if not have:
        where = "dummy/<config>/<version>/" if builder_class.BUILDER_CONFIGS else "dummy/<version>/"
        raise CorporaError(f"{found.path}: no dummy data for any config ({where}dummy_data.zip, or its dummy_data/ "
                           "folder); convert the release, without --dummy")
    if len(have) < len(known):
        left_out = [config for config in known if config not in have]
        say(f"{found.name}: {len(left_out)} of {len(known)} configs have no dummy data, left out: "
            f"{shorten(left_out, 5, ', ')}")
    return have


def _version(builder_class, config: str) -> str:
    """The version a config's dummy data is filed under: its own, else the builder's VERSION, else 0.0.0."""
    for builder_config in builder_class.BUILDER_CONFIGS:
        if builder_config.name == config:
            return str(builder_config.version)
    return str(getattr(builder_class, "VERSION", None) or "0.0.0")
