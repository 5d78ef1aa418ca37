"""The Parquet files `corpora build` writes beside the builder, in a thread of its own, as an Arrow-based
builder generates its tables (pipeline.ParquetBeside): the same files as those written from the cache, and
on one core none (the build writes from the cache). A full disk, an error of the thread and Ctrl-C, on a
corpus's data: tests/test_caption_contest_ratings_threads.py."""

import os
import sys

import datasets
import pytest

from corpora import pipeline
from corpora import prepare
from corpora import registry
from helpers import run_process

# Every config of the corpora whose builders generate Arrow tables: their files are written as they come.
ARROW_CONFIGS = [(name, config) for name in registry.names() if issubclass(registry.get(name).builder_class, datasets.ArrowBasedBuilder)
                 for config in registry.get(name).configs]


@pytest.mark.both_legs  # datasets' private _prepare_split and _generate_tables (datasets_adapter)
@pytest.mark.parametrize("name,config", ARROW_CONFIGS)
def test_the_files_written_beside_the_builder_are_those_of_its_cache(tmp_path, name, config):
    request = prepare.Request(registry.get(name), (config,), dummy=True)
    beside = pipeline.ParquetBeside(tmp_path / "beside", registry.get(request.name).features(config).arrow_schema)
    sources = prepare.find_sources(request)
    builder = request.corpus.builder(config, sources.folder, tmp_path / "cache")
    beside.attach(builder)
    prepare.generate(request, config, builder, sources)
    written = beside.finish()
    beside.abort()
    dataset = builder.as_dataset()
    assert sorted(written) == sorted(dataset) and len(dataset) >= 1
    for split in dataset:
        from_cache = pipeline.write_parquet(builder, split, tmp_path / "cache-files")  # read without as_dataset
        assert written[split].rows == from_cache.rows == dataset[split].num_rows > 0
        assert [p.name for p in written[split].paths] == [p.name for p in from_cache.paths]
        assert [p.read_bytes() for p in written[split].paths] == [p.read_bytes() for p in from_cache.paths]


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="no CPU affinity to set on this system")
@pytest.mark.both_legs
def test_on_one_core_the_files_are_written_after_the_builder(tmp_path):
    # Where the two threads would only take turns, the build writes from the cache (worth_it).
    script = (
        "import os; from corpora.pipeline import ParquetBeside; "
        "print(ParquetBeside.worth_it(None), ParquetBeside.worth_it(2)); "
        "os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); print(ParquetBeside.worth_it(None))"
    )
    result = run_process([sys.executable, "-c", script], timeout=120)
    cores = len(os.sched_getaffinity(0))
    assert (result.returncode, result.stdout, result.stderr) == (0, f"{cores > 1} False\nFalse\n", "")
