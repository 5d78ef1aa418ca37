"""Where a build reads its source files: the pinned public URLs, a local copy (`--data-dir`),
or the corpus's dummy data (`--dummy`).

A local copy mirrors the upstream repository layout: the file behind
`<url prefix>/<path>` is read from `<data_dir>/<path>`. Loaders do this mapping themselves when
they get a `data_dir` (so a loader file works alone with `load_dataset(..., data_dir=...)`);
this module resolves `--dummy` and checks the whole copy first, so a missing file is reported
together with every other missing one, before any work starts.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import datasets

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
    """Each source path and the pinned URL it is downloaded from (`_FILES` and `_URLS` share keys)."""
    module = corpus.module
    if all(isinstance(value, str) for value in module._FILES.values()):  # flat: {split: path}
        return {module._FILES[key]: module._URLS[key] for key in module._FILES}
    return {path: module._URLS[path] for path in corpus.source_files}


def local_files(corpus: Corpus, data_dir: Path | None, download_config=None) -> dict[str, Path]:
    """Each source path and the local file holding it: in data_dir, or downloaded from the pinned
    URL into the datasets download cache (where the builder then finds it again)."""
    if data_dir is not None:
        return {path: data_dir / path for path in corpus.source_files}
    manager = datasets.DownloadManager(dataset_name=corpus.name, download_config=download_config)
    downloaded = manager.download(urls(corpus))
    return {path: Path(local) for path, local in downloaded.items()}


def release_differences(corpus: Corpus, files: dict[str, Path]) -> list[str]:
    """The source files whose sha256 is not the one the loader pins (`_SHA256`, per split)."""
    differences = []
    for split, pinned in getattr(corpus.module, "_SHA256", {}).items():
        path = corpus.module._FILES[split]
        digest = hashlib.sha256()
        with open(files[path], "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
        if digest.hexdigest() != pinned:
            differences.append(f"{path} (sha256 {digest.hexdigest()[:16]}..., pinned {pinned[:16]}...)")
    return differences
