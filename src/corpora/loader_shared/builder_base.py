"""The config class and builder base of every loader of this collection: each config carries the
facts of its own sources (as glue's `GlueConfig` and TFDS's `BuilderConfig` subclasses do), and
the base gives what every builder does alike.

datasets, the standard library and `loader_common` only; a loader imports it as
`from corpora.loader_shared.builder_base import x`.
"""

import dataclasses
import hashlib
import sys
from pathlib import Path

import datasets

from corpora.loader_shared.loader_common import local_files


@dataclasses.dataclass
class SourceConfig(datasets.BuilderConfig):
    """A config and its sources.

    - `files`: split -> the source paths it reads, relative to the upstream repository root (the
      layout a `data_dir` copy mirrors), each in the loader's `_URLS`;
    - `split_sizes`: split -> the official number of examples, None where it is not known;
    - `key`: the columns that identify a row (`corpora diff` matches old and new rows by them),
      empty where rows have none and are matched by position;
    - `license`: the config's license where its source's differs from the loader's `_LICENSE`.
    """

    files: dict = dataclasses.field(default_factory=dict, repr=False)
    split_sizes: dict = dataclasses.field(default_factory=dict, repr=False)
    key: tuple = ()
    license: str | None = None

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


def _shared_code_hash():
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).resolve().parent.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


SHARED_CODE_HASH = _shared_code_hash()


class SourceBuilder:
    """What every builder of this collection does alike, mixed in before datasets' builder class:
    a cache folder named by the shared code too; `_info` from the loader module's `_DESCRIPTION`,
    `_HOMEPAGE`, `_LICENSE` and `_CITATION` and the builder's `_features()` for its config;
    `_split_generators`, one split per split of the config's `files`, given to
    `_generate_examples(filepaths, sources)` as the local files and their source paths (data_dir's,
    or downloaded from the module's `_URLS`)."""

    # False: a split's files are shards, which datasets may share out over `num_proc` processes
    # (lists). True: they are read together, each with its part (tuples, which datasets never shards).
    READ_SPLIT_FILES_TOGETHER = False

    def __init__(self, *args, hash=None, **kwargs):
        # datasets names a build's cache folder by the hash of the loader's own files; with the shared
        # code's added, no cache made before a change of it is served (tests/test_shared_code_cache.py).
        super().__init__(*args, hash=f"{hash}-{SHARED_CODE_HASH}" if hash else SHARED_CODE_HASH, **kwargs)

    def _features(self):
        raise NotImplementedError

    def _info(self):
        module = sys.modules[type(self).__module__]
        return datasets.DatasetInfo(
            description=module._DESCRIPTION,
            features=self._features(),
            homepage=module._HOMEPAGE,
            license=self.config.license or module._LICENSE,
            citation=module._CITATION,
        )

    def _split_generators(self, dl_manager):
        module = sys.modules[type(self).__module__]
        local = local_files(self.config.data_dir, dl_manager, self.config.paths, module._URLS)
        kind = tuple if self.READ_SPLIT_FILES_TOGETHER else list
        return [
            datasets.SplitGenerator(
                name=split,
                gen_kwargs={"filepaths": kind(local[path] for path in paths), "sources": kind(paths)},
            )
            for split, paths in self.config.files.items()
        ]
