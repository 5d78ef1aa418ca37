"""The one place that touches private parts of `datasets` (on 3.6 and 5.x alike); legacy.py holds
the stand-ins `corpora convert` patches in for names that datasets has removed since.

Everything else uses datasets' public API. If a datasets release changes one of these parts,
the functions here raise `DatasetsChanged` naming it, and tests/test_export_safety.py fails on it.
"""

from __future__ import annotations

import contextlib
import copyreg

import datasets
import datasets.info
import datasets.naming
import pyarrow
import pyarrow.ipc
from datasets.exceptions import DatasetGenerationError


class DatasetsChanged(RuntimeError):
    """A private part of datasets this package relies on is gone or changed."""

    def __init__(self, part: str, detail: str):
        version = datasets.__version__
        super().__init__(f"datasets {version} changed {part}: {detail}; update corpora/datasets_adapter/")


def declared_info(builder_class: type[datasets.DatasetBuilder], config_name: str) -> datasets.DatasetInfo:
    """The info (texts, license, features) a builder declares for a config, without instantiating it
    (which would create cache folders and, on datasets 3.6, read the generated card): `_info()` on a
    bare instance."""
    if not callable(getattr(builder_class, "_info", None)):
        raise DatasetsChanged(f"{builder_class.__name__}._info", "no such method")
    builder = builder_class.__new__(builder_class)
    builder.config = next(c for c in builder_class.BUILDER_CONFIGS if c.name == config_name)
    return builder._info()


def observe_tables(builder: datasets.DatasetBuilder, observe) -> bool:
    """Have `observe(split, table)` called with each Arrow table an Arrow-based builder generates,
    in order, as datasets takes it to write its cache; in this process only (not with num_proc:
    worker processes run copies of the builder). False, and nothing done, for a builder of
    examples (they become tables inside datasets' writer)."""
    if not isinstance(builder, datasets.ArrowBasedBuilder):
        return False
    for part in ("_prepare_split", "_generate_tables"):
        if not callable(getattr(builder, part, None)):
            raise DatasetsChanged(f"ArrowBasedBuilder.{part}", "no such method")
    prepare_split, generate_tables = builder._prepare_split, builder._generate_tables
    current = []  # the split being prepared: datasets passes its SplitGenerator to _prepare_split only

    def prepare_one_split(split_generator, *args, **kwargs):
        current[:] = [split_generator.name]
        try:
            return prepare_split(split_generator, *args, **kwargs)
        finally:
            current.clear()

    def observed_tables(**gen_kwargs):
        if not current:
            raise DatasetsChanged("ArrowBasedBuilder._prepare_split", "tables were generated outside it")
        for key, table in generate_tables(**gen_kwargs):
            observe(current[0], table)
            yield key, table

    # needed: tests/test_parquet_beside.py::test_the_files_written_beside_the_builder_are_those_of_its_cache
    builder._prepare_split, builder._generate_tables = prepare_one_split, observed_tables
    return True


def guard_generation(builder: datasets.DatasetBuilder, guard) -> None:
    """Run each step of the builder's generator of examples (or of Arrow tables) inside `guard()`,
    a context manager: for a stream, where the builder's errors reach the user as they iterate."""
    part = "_generate_tables" if isinstance(builder, datasets.ArrowBasedBuilder) else "_generate_examples"
    if not callable(getattr(builder, part, None)):
        raise DatasetsChanged(f"{type(builder).__name__}.{part}", "no such method")
    generate = getattr(builder, part)

    def guarded(**gen_kwargs):
        items = generate(**gen_kwargs)
        while True:
            with guard():
                item = next(items, _END)
            if item is _END:
                return
            yield item

    setattr(builder, part, guarded)


_END = object()


def own_checks_off(builder: datasets.DatasetBuilder) -> None:
    """datasets' own checks (split sizes, keys within a writer batch, checksums) off for this
    builder: datasets 3.6 reads the sizes recorded beside a script and raises its own errors, in
    its own words, where `corpora convert` runs its checks, the same on every version (convert.checks)."""
    if not callable(getattr(builder, "_download_and_prepare", None)):
        raise DatasetsChanged(f"{type(builder).__name__}._download_and_prepare", "no such method")
    download_and_prepare = builder._download_and_prepare

    def without_checks(dl_manager, verification_mode, **kwargs):
        return download_and_prepare(dl_manager, datasets.VerificationMode.NO_CHECKS, **kwargs)

    builder._download_and_prepare = without_checks


def after_downloads(builder: datasets.DatasetBuilder, check) -> None:
    """`check({url: local path})` called with what the builder's `_split_generators` downloaded,
    once it returns: before any example is generated (where datasets verified checksums)."""
    if not callable(getattr(builder, "_split_generators", None)):
        raise DatasetsChanged(f"{type(builder).__name__}._split_generators", "no such method")
    split_generators = builder._split_generators

    def checked_split_generators(dl_manager, *args, **kwargs):
        generators = split_generators(dl_manager, *args, **kwargs)
        check(dict(getattr(dl_manager, "downloaded_paths", {})))
        return generators

    builder._split_generators = checked_split_generators


@contextlib.contextmanager
def downloads_named(instead):
    """While the block runs, a failed download of a remote URL by datasets (its `get_from_cache`,
    in threads or worker processes too) raises `instead(url, error)` in place of `error`, or
    `error` itself where that gives None: fsspec's FSTimeoutError of a read that stalled names
    no URL, and a download manager fetches several at once."""
    import datasets.utils.file_utils as file_utils

    if not callable(getattr(file_utils, "get_from_cache", None)):
        raise DatasetsChanged("datasets.utils.file_utils.get_from_cache", "no such function")
    get_from_cache = file_utils.get_from_cache

    def named(url, *args, **kwargs):
        try:
            return get_from_cache(url, *args, **kwargs)
        except Exception as error:
            replaced = instead(str(url), error)
            if replaced is None:
                raise
            raise replaced from error

    file_utils.get_from_cache = named
    try:
        yield
    finally:
        file_utils.get_from_cache = get_from_cache


def observe_keys(builder: datasets.GeneratorBasedBuilder, ledger) -> None:
    """Each key the builder's `_generate_examples` yields given to `ledger.writer(split, job)`
    (closed after the job), and `ledger.check(split)` called once the split is generated; in
    worker processes too (num_proc: the ledger travels pickled with the builder, and writes files)."""
    for part in ("_prepare_split", "_prepare_split_single", "_generate_examples"):
        if not callable(getattr(builder, part, None)):
            raise DatasetsChanged(f"GeneratorBasedBuilder.{part}", "no such method")
    prepare_split, prepare_single = builder._prepare_split, builder._prepare_split_single
    generate = builder._generate_examples

    def prepare_one_split(split_generator, *args, **kwargs):
        result = prepare_split(split_generator, *args, **kwargs)
        ledger.check(str(split_generator.name))
        return result

    def prepare_one_job(*, gen_kwargs, split_info, job_id, **kwargs):
        write = ledger.writer(str(split_info.name), job_id)

        def observed(**job_kwargs):
            for key, example in generate(**job_kwargs):
                write(key)
                yield key, example

        builder._generate_examples = observed  # this job's, in this process (a worker runs one job at a time)
        try:
            yield from prepare_single(gen_kwargs=gen_kwargs, split_info=split_info, job_id=job_id, **kwargs)
        finally:
            builder._generate_examples = generate
        write.close()  # after the job's examples were all written: not after an error

    builder._prepare_split, builder._prepare_split_single = prepare_one_split, prepare_one_job


def _reduce_generation_error(error: DatasetGenerationError):
    # A worker sends its error to the parent pickled, and pickling drops __cause__, where datasets
    # keeps the loader's error; multiprocess then puts the worker's traceback text there. So the
    # cause travels as an argument, and comes back as `loader_error` (read by errors.loader_error).
    cause = error.__cause__
    if type(cause).__module__ != "builtins":  # only Python's own errors (a loader's ValueError) are sure to travel
        cause = None
    return _rebuild_generation_error, (error.args, cause)


def _rebuild_generation_error(args, cause):
    error = DatasetGenerationError(*args)
    error.loader_error = cause
    error.__cause__ = cause
    return error


# needed: tests/test_export_stops.py::test_a_bad_record_with_worker_processes_is_the_same_one_line
copyreg.pickle(DatasetGenerationError, _reduce_generation_error)


def cached_tables(builder: datasets.DatasetBuilder, split: str):
    """A prepared split's rows in datasets' cache files (Arrow streams), a record batch at a time, read
    rather than memory-mapped: a batch is freed once used, where a mapped file's pages stay resident."""
    shards = builder.info.splits[split].shard_lengths  # the files as datasets names them (as_dataset reads them so)
    for path in datasets.naming.filenames_for_dataset_split(builder.cache_dir, builder.dataset_name, split, "arrow",
                                                           shards):
        with pyarrow.OSFile(path) as source:
            for batch in pyarrow.ipc.open_stream(source):
                yield pyarrow.Table.from_batches([batch])


# The stand-ins for the names legacy loading scripts use (`corpora convert`): a module of their own.
from corpora.datasets_adapter.legacy import legacy_builder  # noqa: E402, F401
from corpora.datasets_adapter.legacy import legacy_names  # noqa: E402, F401
