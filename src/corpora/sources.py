"""Where a build reads its source files: the pinned public URLs, a local copy (`--data-dir`),
or the corpus's dummy data (`--dummy`).

A local copy mirrors the upstream repository layout: the file behind
`<url prefix>/<path>` is read from `<data_dir>/<path>`. Loaders do this mapping themselves when
they get a `data_dir` (so a loader file works alone with `load_dataset(..., data_dir=...)`);
this module resolves `--dummy` and checks the whole copy first, so a missing file is reported
together with every other missing one, before any work starts.
"""

from __future__ import annotations

from pathlib import Path

from corpora.errors import CorporaError
from corpora.registry import Corpus


class MissingSourceFiles(CorporaError, FileNotFoundError):
    pass


def resolve_data_dir(corpus: Corpus, data_dir=None, dummy: bool = False) -> Path | None:
    """The local folder to read from, or None to download the pinned URLs."""
    if dummy and data_dir is not None:
        raise CorporaError("give either a data_dir or dummy=True, not both")
    if dummy:
        data_dir = corpus.dummy_dir
    if data_dir is None:
        return None
    data_dir = Path(data_dir)
    missing = [path for path in corpus.source_files if not (data_dir / path).is_file()]
    if missing:
        listing = ", ".join(str(data_dir / path) for path in missing)
        raise MissingSourceFiles(f"{corpus.name}: {len(missing)} source file(s) missing: {listing}")
    return data_dir


def urls(corpus: Corpus) -> dict[str, str]:
    """Each source path and the pinned URL it is downloaded from."""
    return {path: corpus.module._URL_PREFIX + path for path in corpus.source_files}
