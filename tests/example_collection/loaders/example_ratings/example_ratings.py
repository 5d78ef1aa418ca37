"""Example ratings: short sentences, each rated from 1 to 5 by a few raters, and the raters.
Not a real corpus: the one the toolkit's tests run on (tests/example_collection/README.md), written
like the real loaders. Its release is tests/example_collection/release/example_ratings; its URLs are
on example.org (never reached).
"""

import csv
import dataclasses
import io
import json
import os
import time

import datasets
from datasets.utils.file_utils import xopen

from corpora.loader_shared.builder_base import SourceBuilder
from corpora.loader_shared.builder_base import SourceConfig
from corpora.loader_shared.fields import INVALID
from corpora.loader_shared.fields import NULL
from corpora.loader_shared.fields import Field
from corpora.loader_shared.fields import boolean
from corpora.loader_shared.fields import checked
from corpora.loader_shared.fields import features
from corpora.loader_shared.fields import integer
from corpora.loader_shared.fields import keys
from corpora.loader_shared.fields import label
from corpora.loader_shared.fields import string
from corpora.loader_shared.fields import typed
from corpora.loader_shared.loader_common import check_is_data
from corpora.loader_shared.loader_common import invalid
from corpora.loader_shared.loader_common import local_files
from corpora.loader_shared.loader_common import show
from corpora.loader_shared.loader_common import utf8
from corpora.loader_shared.strict_json import check_fields
from corpora.loader_shared.strict_json import loads

_CITATION = """\
@misc{corpora-example-ratings,
    title = {Example Ratings: the corpus of the corpora toolkit's tests},
    year = {2026},
}
"""

_DESCRIPTION = """\
Short English and German sentences, each rated on a five-point scale from unclear to clear by two or
three raters, and the raters themselves: the corpus the corpora toolkit's tests run on.
"""

_HOMEPAGE = "https://example.org/corpora-example/ratings"

_LICENSE = "cc-by-4.0"

_URL_PREFIX = "https://example.org/corpora-example/ratings/v1/"

# Paths relative to the upstream root; train has several files, so a build has shards for workers.
_SENTENCE_FILES = {
    "train": ["data/train-1.jsonl", "data/train-2.jsonl", "data/train-3.jsonl"],
    "validation": ["data/validation.jsonl"],
    "test": ["data/test.jsonl"],
}

# Test data only: this file in data_dir pauses every worker's build (tests/test_export_stops.py).
_PAUSE_AT_EXAMPLES = "PAUSE_AT_EXAMPLES"

# --- the fields: each declared once; the features, the keys, the CSV header and the checks derive from them

_LANGUAGES = ["de", "en"]
_SCORE = integer(range(1, 6))


def _names(value):
    valid = isinstance(value, list) and value and all(isinstance(r, str) and r for r in value)
    return value if valid else INVALID


def _scores(value, where, field, sentence):
    """One score per rater, each a `_SCORE`."""
    if not (isinstance(value, list) and len(value) == len(sentence["raters"])):
        raise invalid(where, field, value, f"one score per rater ({len(sentence['raters'])})")
    return _SCORE.values(value, where, field)


_LANGUAGE = label(_LANGUAGES)
_TEXT = string(nonempty=True)
_SENTENCE_FIELDS = {  # a JSON object with exactly these fields
    "sentence_id": _TEXT,
    "text": _TEXT,
    "language": _LANGUAGE,
    "flagged": boolean(nulls=NULL),  # null: nobody looked at the sentence for problems
    "raters": checked([datasets.Value("string")], _names, "a non-empty list of names"),
    "scores": Field([datasets.Value("int32")], parse=_scores),
}
_RATER_FIELDS = {  # a record of the CSV file, its columns in this order
    "rater": _TEXT,
    "native_language": _LANGUAGE,
    "years_rating": integer(range(2**31), text=True),
}
_RATING_FIELDS = {  # one of a sentence's scores, with its rater
    "sentence_id": _TEXT,
    "language": _LANGUAGE,
    "rater": _RATER_FIELDS["rater"],
    "score": Field(datasets.Value("int32")),
}
_SENTENCE_KEYS = keys(_SENTENCE_FIELDS)
_RATER_HEADER = keys(_RATER_FIELDS)


# --- the readers ---------------------------------------------------------------------------------

def _count_lines(config, split, local_paths):
    """Sentences of a split, counted without the typing: one per non-empty line."""
    return sum(len(_lines(path)) for path in local_paths)


def _count_scores(config, split, local_paths):
    """Ratings of a split, counted without the typing: the scores of each sentence's line."""
    return sum(len(json.loads(line)["scores"]) for path in local_paths for line in _lines(path))


def _count_csv_records(config, split, local_paths):
    """Raters of a split, counted without the typing: the CSV lines after the header."""
    return sum(len(_lines(path)) - 1 for path in local_paths)


def _lines(path):
    with xopen(path, "rb") as f:
        return [line for line in f if line.strip()]


def _sentences(file, source):
    for line_number, sentence in _read_sentences(file, source):
        yield f"{source}:{line_number}", sentence


def _ratings(file, source):
    for line_number, sentence in _read_sentences(file, source):
        for rater, score in zip(sentence["raters"], sentence["scores"], strict=True):
            rating = {"sentence_id": sentence["sentence_id"], "language": sentence["language"]}
            yield f"{source}:{line_number}:{rater}", dict(rating, rater=rater, score=score)


def _raters(file, source):
    for line_number, rater in _read_raters(file, source):
        yield f"{source}:{line_number}", rater


def _read_sentences(file, source):
    """(line number, typed sentence) for every line of one JSON Lines file."""
    line_number = 0
    with xopen(file, "rb") as f:
        for line_number, raw in enumerate(f, start=1):
            if line_number == 1:
                check_is_data(raw, source, "JSON Lines, one sentence per line")
            where = f"{source}, line {line_number}"
            yield line_number, _typed_sentence(loads(utf8(raw, source, line_number), where), where)
    if line_number == 0:
        check_is_data(b"", source, "JSON Lines, one sentence per line")


def _typed_sentence(record, where):
    check_fields(record, _SENTENCE_KEYS, where)
    return typed(_SENTENCE_FIELDS, record, where, context=record)


def _read_raters(file, source):
    """(line number, typed rater) for every record of the raters' CSV file."""
    with xopen(file, "rb") as f:
        data = f.read()
    check_is_data(data, source, "a CSV file with the header " + ",".join(_RATER_HEADER))
    rows = csv.reader(io.StringIO(utf8(data, source), newline=""), strict=True)
    header = next(rows, None)
    if header != _RATER_HEADER:
        raise ValueError(f"{source}, line 1: expected the header {','.join(_RATER_HEADER)}, got {show(header)}")
    for row in rows:
        where = f"{source}, line {rows.line_num}"
        if len(row) != len(_RATER_HEADER):
            raise ValueError(f"{where}: expected {len(_RATER_HEADER)} fields, got {len(row)}: {show(row)}")
        yield rows.line_num, typed(_RATER_FIELDS, dict(zip(_RATER_HEADER, row, strict=True)), where)


# --- the configs and the builder: official sizes of the release (the raters' unpublished: None), natural keys
@dataclasses.dataclass
class ExampleConfig(SourceConfig):
    """A config; `read(file, source)` yields the (key, example) pairs of one of its files."""

    read: object = dataclasses.field(default=None, repr=False)


_VERSION = datasets.Version("1.0.0")
_CONFIGS = [
    ExampleConfig(
        name="sentences",
        version=_VERSION,
        description="One example per sentence, its ratings as parallel lists.",
        features=datasets.Features(features(_SENTENCE_FIELDS)),
        files=_SENTENCE_FILES,
        url_prefix=_URL_PREFIX,
        split_sizes={"train": 12, "validation": 3, "test": 4},
        key=("sentence_id",),
        license=_LICENSE,
        counter=_count_lines,
        read=_sentences,
    ),
    ExampleConfig(
        name="ratings",
        version=_VERSION,
        description="One example per rating of a sentence.",
        features=datasets.Features(features(_RATING_FIELDS)),
        files=_SENTENCE_FILES,
        url_prefix=_URL_PREFIX,
        split_sizes={"train": 30, "validation": 7, "test": 10},
        key=("sentence_id", "rater"),
        license=_LICENSE,
        counter=_count_scores,
        read=_ratings,
    ),
    ExampleConfig(
        name="raters",
        version=_VERSION,
        description="One example per rater.",
        features=datasets.Features(features(_RATER_FIELDS)),
        files={"train": ["raters.csv"]},
        url_prefix=_URL_PREFIX,
        split_sizes={"train": None},
        key=("rater",),
        license=_LICENSE,
        counter=_count_csv_records,
        read=_raters,
    ),
]


class ExampleRatings(SourceBuilder, datasets.GeneratorBasedBuilder):
    """Sentences rated for clarity, one rating per rater, and the raters."""

    VERSION = _VERSION
    RELEASE_NOTES = {"1.0.0": "Initial release."}
    BUILDER_CONFIG_CLASS = ExampleConfig
    BUILDER_CONFIGS = _CONFIGS
    DEFAULT_CONFIG_NAME = "sentences"

    def _info(self):
        return datasets.DatasetInfo(
            description=_DESCRIPTION,
            features=self.config.features.copy(),
            homepage=_HOMEPAGE,
            license=self.config.license,
            citation=_CITATION,
        )

    def _split_generators(self, dl_manager):
        local = local_files(self.config.data_dir, dl_manager, self.config.paths, self.config.urls)
        return [
            datasets.SplitGenerator(split, gen_kwargs={"filepaths": [local[p] for p in paths], "sources": list(paths)})
            for split, paths in self.config.files.items()
        ]

    def _generate_examples(self, filepaths, sources):
        if self.config.data_dir and os.path.isfile(os.path.join(self.config.data_dir, _PAUSE_AT_EXAMPLES)):
            os.write(2, f"corpora: paused at examples in {os.getpid()}\n".encode())  # one write: never interleaved
            time.sleep(3600)
        for file, source in zip(filepaths, sources, strict=True):
            yield from self.config.read(file, source)
