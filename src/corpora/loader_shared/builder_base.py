"""The config class and builder base of every loader of this collection: each config carries the
facts of its own sources (as glue's `GlueConfig` and TFDS's `BuilderConfig` subclasses do), and
the builder's own `_info`, `_split_generators` and `_generate_examples` use them.

datasets and the standard library only; a loader imports it as
`from corpora.loader_shared.builder_base import x`.
"""

import dataclasses
import hashlib
from pathlib import Path

import datasets


@dataclasses.dataclass
class SourceConfig(datasets.BuilderConfig):
    """A config and its sources.

    - `features`: the features of its examples;
    - `files`: split -> the source paths it reads, relative to the upstream repository root (the
      layout a `data_dir` copy mirrors);
    - `url_prefix`: the pinned URL of the upstream root: a path's URL is the prefix and the path;
    - `split_sizes`: split -> the official number of examples, None where it is not known;
    - `key`: the columns that identify a row (`corpora diff` matches old and new rows by them),
      empty where rows have none and are matched by position;
    - `license`: the license of its source, as the Hub names it ("mit", "cc-by-4.0", "unknown");
    - `counter`: `counter(config, split, local_paths)`, the records of a split's source files counted
      apart from the builder's typing (rows in, checked against the examples out).
    """

    features: datasets.Features = dataclasses.field(default=None, repr=False)
    files: dict = dataclasses.field(default_factory=dict, repr=False)
    url_prefix: str = dataclasses.field(default=None, repr=False)
    split_sizes: dict = dataclasses.field(default_factory=dict, repr=False)
    key: tuple = ()
    license: str = None
    counter: object = dataclasses.field(default=None, repr=False)

    def __post_init__(self):
        super().__post_init__()
        wrong = []
        if not self.files or not all(isinstance(paths, list) and paths for paths in self.files.values()):
            wrong.append("files must map each split to a non-empty list of paths")
        if list(self.split_sizes) != list(self.files):
            wrong.append(f"split_sizes must have the splits of files, {list(self.files)}")
        elif not all(n is None or (type(n) is int and n >= 0) for n in self.split_sizes.values()):
            wrong.append("split_sizes must give a count (or None if unknown) per split")
        if wrong:
            raise ValueError(f"config {self.name!r}: " + "; ".join(wrong))
        self.key = tuple(self.key)

    @property
    def paths(self):
        """Every source path of the config, once, in the order of its splits."""
        return list(dict.fromkeys(path for paths in self.files.values() for path in paths))

    @property
    def urls(self):
        """Each source path of the config -> its pinned URL."""
        return {path: self.url_prefix + path for path in self.paths}

    def count_source_records(self, split, local_paths):
        """The records of the split's source files (`local_paths`, in the order of `files[split]`)."""
        return self.counter(self, split, local_paths)


def _shared_code_hash():
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).resolve().parent.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


SHARED_CODE_HASH = _shared_code_hash()


class SourceBuilder:
    """Mixed in before datasets' builder class: a cache folder named by the shared code too."""

    def __init__(self, *args, hash=None, **kwargs):
        # datasets names a build's cache folder by the hash of the loader's own files; with the shared
        # code's added, no cache made before a change of it is served (tests/test_shared_code_cache.py).
        super().__init__(*args, hash=f"{hash}-{SHARED_CODE_HASH}" if hash else SHARED_CODE_HASH, **kwargs)
