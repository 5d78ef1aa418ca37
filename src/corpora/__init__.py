"""corpora: Hugging Face `datasets` builders for five corpora of human judgments, and the tools
that build, export, document, validate and publish them."""

__all__ = ["load"]
__version__ = "0.1.0"


def load(
    name: str,
    config: str | None = None,
    *,
    split: str | None = None,
    data_dir=None,
    dummy: bool = False,
    streaming: bool = False,
    num_proc: int | None = None,
    cache_dir=None,
    allow_modified_sources: bool = False,
    **config_kwargs,
):
    """`load_dataset` for a corpus, with the checks of `corpora build`: a DatasetDict, or the
    Dataset of `split` (a name, or datasets' split syntax: "train[:10%]", "train+validation");
    an IterableDatasetDict (IterableDataset) when streaming.

    Sources are the pinned URLs, a local copy (`data_dir`) or the dummy data (`dummy=True`).
    From real sources the files must be the recorded release (no Git LFS pointers; size and
    sha256 as in checksums.tsv) and the splits the official sizes; `allow_modified_sources=True`
    lifts both (a fixed, extended or cut copy). Every split holds as many examples as the
    loader's count of source records (not checked when streaming). Streaming from the pinned
    URLs downloads nothing ahead, so only a local copy's checksums are checked, and sizes are not
    known before reading; it is refused in offline mode, and a server silent for
    CORPORA_DOWNLOAD_TIMEOUT seconds ends it in one line (download.stream_failures).
    `config_kwargs` set parameters of the config (e.g. `contests=[508]`): the loader then reads
    a part of the files and checks itself that they are there; the official sizes do not apply.
    Works on datasets 3.6 and 5.x alike: the builder class is used directly, no script loading.
    """
    # Imported here: `import corpora` stays light.
    from corpora import prepare
    from corpora import registry
    from corpora.path_errors import check_utf8

    corpus = registry.get(name)
    if data_dir is not None:
        check_utf8(data_dir, "data_dir")
    config = corpus.config(config or corpus.default_config).name  # one that is not the loader's is said here
    request = prepare.Request(corpus, (config,), data_dir, dummy, allow_modified_sources, num_proc, config_kwargs)
    prepare.check_split(corpus, config, split, streaming)
    if streaming and data_dir is None and not dummy:  # read from the URLs as it goes: nothing to check ahead
        import functools

        from corpora import datasets_adapter
        from corpora import download

        download.check_streamable(corpus, config)
        download.stream_with_time_limit()
        builder = corpus.builder(config, None, cache_dir, **config_kwargs)
        datasets_adapter.guard_generation(builder, functools.partial(download.stream_failures, corpus, config))
        return builder.as_streaming_dataset(split=split)
    sources = prepare.find_sources(request)
    if streaming:
        return corpus.builder(config, sources.folder, cache_dir, **config_kwargs).as_streaming_dataset(split=split)
    return prepare.prepare_config(request, config, sources, cache_dir).builder.as_dataset(split=split)
