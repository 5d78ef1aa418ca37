"""New Yorker Cartoon Caption Contest ratings, collected by NEXT to contest 586, then by upstream's own system.

From nextml/caption-contest-data-api at its last commit: per-caption summaries, zipped individual
responses and the cartoons. The files and their quirks: FORMAT.md; how they are read fast: SCALE.md.
"""

import csv
import dataclasses
import io
import os
import re

import datasets
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from datasets.utils.file_utils import xopen

from corpora.loader_shared.builder_base import SourceBuilder
from corpora.loader_shared.builder_base import SourceConfig
from corpora.loader_shared.fields import EMPTY
from corpora.loader_shared.fields import Field
from corpora.loader_shared.fields import features
from corpora.loader_shared.fields import keys
from corpora.loader_shared.loader_common import check_is_data
from corpora.loader_shared.loader_common import invalid
from corpora.loader_shared.loader_common import local_files
from corpora.loader_shared.loader_common import show
from corpora.loader_shared.loader_common import utf8

from ._reader import check_rows
from ._reader import count_records
from ._reader import csv_batches
from ._reader import header
from ._reader import read_archive

_CITATION = """\
@inproceedings{jamieson2015next,
    title = {{NEXT}: A System for Real-World Development, Evaluation, and Application of Active Learning},
    author = {Kevin G. Jamieson and Lalit Jain and Chris Fernandez and Nicholas J. Glattard and Robert Nowak},
    booktitle = {Advances in Neural Information Processing Systems 28},
    year = {2015}
}
"""

# The description (the card's summary) in parts: the card of an export shows the parts about its configs.
_DESCRIPTION_PARTS = [
    {"only": ["summaries", "cardinal_responses", "dueling_responses"], "text": "Crowd ratings of New Yorker Cartoon "
     "Caption Contest entries, collected by the NEXT active-learning system up to contest 586 and by a system of "
     "upstream's own on Amazon AWS from contest 587 on (FORMAT.md quirk `two-collection-systems`)."},
    {"only": ["summaries"], "text": "Per-caption summaries (funny / somewhat funny / unfunny counts, mean score, "
     "precision) per contest and sampling algorithm."},
    {"only": ["cardinal_responses"], "text": "The individual cardinal ratings (unfunny / somewhat funny / funny) of "
     "one caption each."},
    {"only": ["dueling_responses"], "text": "The pairwise (dueling) votes between two captions."},
    {"only": ["cartoons"], "text": "The New Yorker Cartoon Caption Contest's cartoons, with their metadata."},
    "How many of each an export holds is in its card's Data Splits and Statistics.",
]
_DESCRIPTION = " ".join(part if isinstance(part, str) else part["text"] for part in _DESCRIPTION_PARTS)

_HOMEPAGE = "https://github.com/nextml/caption-contest-data-api"

_LICENSE = "cc-by-4.0"

_COMMIT = "9e38b2b73a4541dd26111e05b90bcca6bdcae008"
_RAW_PREFIX = f"https://raw.githubusercontent.com/nextml/caption-contest-data-api/{_COMMIT}/"
# quirk 13, lfs-pointers
_MEDIA_PREFIX = f"https://media.githubusercontent.com/media/nextml/caption-contest-data-api/{_COMMIT}/"

_ARTISTS = "contests/artists.csv"
_DESCRIPTIONS = "contests/metadata/descriptions.txt"
_CONTEXTS = "contests/metadata/contexts.yaml"
_ANOMALIES = "contests/metadata/anomalies.yaml"
_METADATA = [_ARTISTS, _DESCRIPTIONS, _CONTEXTS, _ANOMALIES]


def _summary_names():
    kinds = ("round1_summary_LilUCB", "round1_summary_RoundRobin", "round2_summary_RoundRobin")
    names = [f"{contest}-{kind}.csv" for contest in (508, 509) for kind in kinds]
    names += [f"{contest}_summary_{alg}.csv" for contest in range(510, 520) for alg in ("LilUCB", "RoundRobin")]
    names += [f"{contest}_summary_LilUCB.csv" for contest in range(520, 559) if contest not in (525, 540)]
    names += ["540_summary_Random.csv", "559_summary_KLUCB.csv", "559_summary_LilUCB.csv"]
    names += ["559_summary_RandomSamping.csv", "560_summary_KLUCB_funny.csv", "560_summary_KLUCB_original.csv"]
    names += [f"{contest}_summary_KLUCB.csv" for contest in range(561, 692) if contest != 664]
    return sorted(names)


def _response_names():
    names = [f"{contest}-responses.csv.zip" for contest in (497, 499, 505, 507)]
    for kind in ("round1-cardinal", "round2-cardinal", "round2-dueling"):
        names += [f"{contest}-{kind}-responses.csv.zip" for contest in (508, 509)]
    names += [f"{contest}-responses.csv.zip" for contest in range(510, 559) if contest not in (525, 554)]
    names += ["559-active-responses.csv.zip", "559-passive-responses.csv.zip"]
    names += ["560-funny-responses.csv.zip", "560-original-responses.csv.zip"]
    names += [f"{contest}-responses.csv.zip" for contest in range(561, 587)]
    return sorted(names)


_DUELING_ARCHIVES = ["497-responses.csv.zip"] + [f"{c}-round2-dueling-responses.csv.zip" for c in (508, 509)]
_CARTOON_CONTESTS = [497, 499, 505, 507] + [contest for contest in range(508, 692) if contest not in (525, 664)]

# Paths relative to the upstream repository root: the layout a `data_dir` copy mirrors.
_SUMMARIES = ["contests/summaries/" + name for name in _summary_names()]
_CARDINAL = ["contests/responses/" + name for name in _response_names() if name not in _DUELING_ARCHIVES]
_DUELING = ["contests/responses/" + name for name in _response_names() if name in _DUELING_ARCHIVES]
_CARTOONS = [f"contests/info/{contest}/{contest}.jpg" for contest in _CARTOON_CONTESTS]


# --- the fields ----------------------------------------------------------------------------------
# Features, CSV columns, their Arrow types and checks derive from these tables. A `column` check marks
# the values that are not `expected` (an empty cell is null: an error unless the field has `nulls`).
_ALGORITHMS = ["KLUCB", "LilUCB", "Random", "RandomSampling", "RoundRobin"]
# quirk 2, algorithm-typo
_ALGORITHM_OF_NAME = {{"RandomSampling": "RandomSamping"}.get(name, name): name for name in _ALGORITHMS}
_RATINGS = ["unfunny", "somewhat_funny", "funny"]  # target_reward 1, 2, 3


def _value(type_, **more):
    return Field(datasets.Value(type_), **more)


def _below(low):
    return lambda values, context: pc.less(values, low)


def _outside(low, high):
    return lambda values, context: pc.invert(pc.and_(pc.greater_equal(values, low), pc.less_equal(values, high)))


def _not_the_sum(values, context):
    column = context["column"]
    return pc.not_equal(values, pc.add(pc.add(column("funny"), column("somewhat_funny")), column("unfunny")))


_TALLY = _value("int32", column=_below(0), expected="an integer >= 0")
_SECONDS = _value("float64", column=lambda values, context: pc.invert(pc.is_finite(values)),
                  expected="a finite number of seconds or an empty cell", nulls=EMPTY)

# A summary row: what its file name says, then its columns in header order (quirk 1, two-headers).
_SUMMARY_NAME_FIELDS = {
    "source_file": _value("string"),
    "contest": _value("int32"),
    "round": _value("int32"),
    "algorithm": Field(datasets.ClassLabel(names=_ALGORITHMS)),
    "variant": _value("string"),
}
_SUMMARY_FIELDS = {
    "target_id": _TALLY,
    "rank": _value("int32", column=_below(1), expected="an integer >= 1"),
    "funny": _TALLY,
    "somewhat_funny": _TALLY,
    "unfunny": _TALLY,
    "count": _value("int32", column=(_not_the_sum, _below(1)),
                    expected=("funny + somewhat_funny + unfunny, >= 1", "an integer >= 1")),
    "score": _value("float64", column=_outside(1.0, 3.0), expected="a number from 1 to 3"),
    "precision": _value("float64", column=lambda values, context: pc.invert(pc.greater(values, 0.0)),
                        expected="a number > 0 or inf"),
    # quirk 4, wrong-contest-column
    "contest_field": _value("int32", column=lambda values, context: pc.not_equal(values, context["contest"]),
                            expected="the file's contest {contest}", key="contest"),
    "caption": _value("string", column=lambda values, context: pc.equal(pc.utf8_length(values), 0),
                      expected="a non-empty caption"),
}
_SUMMARY_HEADER = keys(_SUMMARY_FIELDS)
_CONTEST_FIELD_EXCEPTIONS = {"688_summary_KLUCB.csv": 689}  # quirk 4, wrong-contest-column

# A response: its archive's contest and name, its pandas index or position, then the archive's
# columns (quirk 19, columns-in-any-order); `rating_label` is `rating` - 1.
_RESPONSE_NAME_FIELDS = {
    "contest": _value("int32"),
    "source_file": _value("string"),
    "row_index": _value("int64", column=_below(0), expected="a row index >= 0"),
}
_ROW_INDEX = _RESPONSE_NAME_FIELDS["row_index"]  # read from the index column where there is one
_RESPONSE_FIELDS = {
    "alg_label": _value("string"),
    "participant_uid": _value("string"),
    "response_time": _SECONDS,
    "network_delay": _SECONDS,
    "timestamp_query_generated": Field(datasets.Value("timestamp[us]")),
}
_CARDINAL_FIELDS = {
    **_RESPONSE_FIELDS,
    "target_id": _value("int32", column=_below(0), expected="an integer >= 0", nulls=EMPTY),
    "target": _value("string", nulls=EMPTY),
    "rating": _value("int32", column=_outside(1, 3), expected="1 (unfunny), 2 (somewhat funny) or 3 (funny)",
                     key="target_reward"),
}
_DUELING_FIELDS = {
    **_RESPONSE_FIELDS,
    "participant_id": _value("string"),
    **{field: _TALLY if field.endswith("_id") else _value("string", nulls=EMPTY)
       for side in ("left", "right", "winner") for field in (f"{side}_target_id", f"{side}_target")},
}
_RATING_LABEL = {"rating_label": Field(datasets.ClassLabel(names=_RATINGS))}
_INDEX_COLUMNS = ("", "Unnamed: 0")  # quirk 20, optional-index-column

_CARTOON_FIELDS = {
    "contest": _value("int32"),
    "image": Field(datasets.Image(decode=False)),  # bytes + path; decode with cast_column("image", Image())
    "artist": _value("string"),
    "description": _value("string"),
    "contexts": Field([datasets.Value("string")]),
    "anomalies": Field([datasets.Value("string")]),
}


# --- the readers ---------------------------------------------------------------------------------
_SUMMARY_NAME = re.compile(
    r"(?P<contest>[0-9]{3})(?:-round(?P<round>[12]))?_summary_"
    rf"(?P<algorithm>{'|'.join(map(re.escape, _ALGORITHM_OF_NAME))})(?:_(?P<variant>funny|original))?\.csv"
)
_ARCHIVE_NAME = re.compile(
    r"[0-9]{3}(?:-(?:round[12]-cardinal|round2-dueling|active|passive|funny|original))?-responses\.csv\.zip"
)
_WORD_LIST = re.compile(r"(?P<contest>[0-9]+): \[(?P<items>[^\[\]]*)\]")
_WORD = re.compile(r"[a-z][a-z0-9' -]*")
_JPEG_OR_PNG = (b"\xff\xd8\xff", b"\x89PNG\r\n\x1a\n")


def _count_csv_records(config, split, local_paths):
    """CSV records, counted without typing: pyarrow converts only a CSV's last column."""
    return sum(count_records(*config.read(path, os.path.basename(path))) for path in local_paths)


def _count_images(config, split, local_paths):
    """Images: downloaded files have no extension in the cache, so they are told apart by their bytes."""
    count = 0
    for path in local_paths:
        with xopen(path, "rb") as f:
            count += f.read(8).startswith(_JPEG_OR_PNG)
    return count


def _path_contest(path):
    """The contest of a source path (of every file but the metadata): its name's first 3 digits."""
    return int(path.rsplit("/", 1)[-1][:3])


def _parse_summary_name(source):
    """The fields a summary file's name gives (the algorithm as its class label)."""
    name = source.rsplit("/", 1)[-1]
    match = _SUMMARY_NAME.fullmatch(name)
    if match is None:
        raise ValueError(f"{source}: not a summary file name (<contest>[-round<r>]_summary_<alg>[_<variant>].csv)")
    return {
        "source_file": name,
        "contest": int(match["contest"]),
        "round": int(match["round"]) if match["round"] else None,
        "algorithm": _ALGORITHMS.index(_ALGORITHM_OF_NAME[match["algorithm"]]),
        "variant": match["variant"],
    }


def _parse_archive_name(source):
    """The fields a response archive's name gives."""
    name = source.rsplit("/", 1)[-1]
    if _ARCHIVE_NAME.fullmatch(name) is None:
        raise ValueError(f"{source}: not a response archive name (<contest>[-<qualifier>]-responses.csv.zip)")
    return {"contest": _path_contest(name), "source_file": name}


def _header(config, where, data):
    """The columns of a CSV file, in order, once its header is one that `config` allows."""
    names, crlf = header(data, where)
    if config.headers:  # exactly one of them, with LF line ends
        if crlf:
            raise ValueError(f"{where}: line 1 ends with CR LF; the release files use LF only")
        if names not in config.headers:
            shown = " or ".join(repr(",".join(expected)) for expected in config.headers)
            raise ValueError(f"{where}: unexpected header: expected columns {shown}; found {','.join(names)!r}")
        return names
    # The columns in any order, after an optional index column; LF or CR LF.
    columns = sorted(keys(config.columns))
    named = names[1:] if names[0] in _INDEX_COLUMNS else names
    problems = {
        "unknown": [name for name in named if name not in columns],
        "missing": [name for name in columns if name not in named],
        "repeated": sorted({name for name in named if named.count(name) > 1} & set(columns)),
    }
    said = [f"{what} column(s) {', '.join(map(repr, found))}" for what, found in problems.items() if found]
    if said:
        raise ValueError(
            f"{where}: unexpected header: {'; '.join(said)}; expected the columns {','.join(columns)!r} in any "
            f"order, after an optional pandas index column named {' or '.join(map(repr, _INDEX_COLUMNS))}"
        )
    return names


def _file_tables(config, file, source, schema=None):
    """The tables of one CSV file of `config`: the fields its name gives, then its columns, typed and
    checked in the order of `columns`; a response's `row_index` (its pandas index, or its position)."""
    where, data = config.read(file, source)
    given = config.parse_name(source)
    context = {"contest": _CONTEST_FIELD_EXCEPTIONS.get(given["source_file"], given["contest"])}
    schema, names = schema or config.features.arrow_schema, _header(config, where, data)
    index = names[0] if names[0] in _INDEX_COLUMNS else None
    fields = {"row_index": _ROW_INDEX._replace(key=index)} if index is not None else {}
    fields.update(config.columns)
    types = {field.source(name): field.feature.pa_type for name, field in fields.items()}
    for offset, batch in csv_batches(where, data, {name: types[name] for name in names}, config.what,
                                     config.pandas_written):
        n, context["column"] = batch.num_rows, batch.column
        made = {name: pa.repeat(pa.scalar(value, schema.field(name).type), n) for name, value in given.items()}
        if "row_index" in schema.names:  # the record's position, unless an index column gives it
            made["row_index"] = pa.array(np.arange(offset, offset + n, dtype=np.int64))
        for name, field in fields.items():
            column = field.source(name)
            if column not in names:  # a summary of header B has no target_id
                made[name] = pa.nulls(n, schema.field(name).type)
                continue
            made[name] = batch.column(column)
            if not field.nulls and made[name].null_count:
                check_rows(where, offset, batch, column, pc.is_null(made[name]), "a value (the cell is empty)")
            for bad, expected in field.column_checks():  # a null (an empty cell a field allows) is not bad
                bad_rows = pc.fill_null(bad(made[name], context), False)
                check_rows(where, offset, batch, column, bad_rows, expected.format_map(context))
        if "rating_label" in schema.names:
            made["rating_label"] = pc.cast(pc.subtract(made["rating"], 1), pa.int64())
        yield pa.Table.from_arrays([made[name] for name in schema.names], schema=schema)


def _read_metadata(files):
    """contest -> artist, description, contexts and anomalies: four mappings."""
    return (_read_pairs(files[_ARTISTS], _ARTISTS, ["contest", "artist"]),
            _read_pairs(files[_DESCRIPTIONS], _DESCRIPTIONS, ["contest", "description"]),
            *(_read_word_lists(files[path], path) for path in (_CONTEXTS, _ANOMALIES)))


def _cartoon_tables(files, sources, schema, artists, descriptions, contexts, anomalies):
    for file, source in zip(files, sources, strict=True):
        contest = _path_contest(source)
        data = _read_data(file, source, "a JPEG or PNG image")
        if not data.startswith(_JPEG_OR_PNG):  # quirk 16, png-cartoon
            raise ValueError(f"{source}: not a JPEG or PNG image (starts with {show(data[:8])})")
        row = {"contest": contest, "image": {"bytes": data, "path": source}, "artist": artists.get(contest),
               "description": descriptions.get(contest), "contexts": contexts.get(contest, []),
               "anomalies": anomalies.get(contest, [])}
        yield f"{contest}", pa.Table.from_pylist([row], schema=schema)


def _read_data(file, source, what):
    """The bytes of a file, once it is shown to be data (not an error page or an LFS pointer)."""
    with xopen(file, "rb") as f:  # datasets' xopen opens local paths and URLs alike (a streaming build's)
        data = f.read()
    check_is_data(data[:4096], source, what)
    return data


def _read_summary(file, source):
    """(where, bytes) of a summary file."""
    return source, _read_data(file, source, "a CSV file")


def _read_pairs(file, source, header):
    """contest -> text from a two-column CSV (artists.csv, descriptions.txt)."""
    rows = list(csv.reader(io.StringIO(utf8(_read_data(file, source, "a metadata file"), source), newline="")))
    if not rows or rows[0] != header:
        found = ",".join(rows[0]) if rows else ""
        raise ValueError(f"{source}: unexpected header: expected columns {','.join(header)!r}; found {found!r}")
    pairs = {}
    for number, row in enumerate(rows[1:], start=1):
        where = f"{source}, record {number}"
        if len(row) != 2:
            raise ValueError(f"{where}: expected 2 fields, found {len(row)}: {show(row)}")
        if not re.fullmatch(r"[0-9]{3}", row[0]):
            raise invalid(where, "contest", row[0], "a contest number")
        if not row[1].strip():
            raise invalid(where, header[1], row[1], "a text")
        contest = int(row[0])
        if contest in pairs:
            raise ValueError(f"{where}: contest {contest} appears twice")
        pairs[contest] = row[1]
    return pairs


def _read_word_lists(file, source):
    """contest -> list of words from the one-flow-list-per-line YAML files (`508: [a, b, c]`)."""
    lists = {}
    for number, line in enumerate(utf8(_read_data(file, source, "a metadata file"), source).split("\n"), start=1):
        if not line:
            continue
        where = f"{source}, line {number}"
        match = _WORD_LIST.fullmatch(line)
        if match is None:
            raise ValueError(f"{where}: expected `<contest>: [word, word, ...]`, found {show(line)}")
        words = match["items"].split(", ")
        if not all(_WORD.fullmatch(word) for word in words):
            raise ValueError(f"{where}: expected lower-case words, found {show(match['items'])}")
        contest = int(match["contest"])
        if contest in lists:
            raise ValueError(f"{where}: contest {contest} appears twice")
        lists[contest] = words
    return lists


# --- the configs and the builder -----------------------------------------------------------------
@dataclasses.dataclass
class CaptionContestConfig(SourceConfig):
    """A config. A CSV config's files are read by `read(file, source)` -> (where, CSV bytes); each
    row has the fields `parse_name(source)` gives, then its `columns` ({field: Field}). Its files have
    one of `headers`, or else the columns in any order after an optional index column; `what` their
    records are; `pandas_written`: quirks 21, nan-as-empty-cell, and 22, integers-as-floats. With
    `metadata` (some of its paths), its other files are images joined with them. `contests`: some only."""

    read: object = dataclasses.field(default=None, repr=False)
    parse_name: object = dataclasses.field(default=None, repr=False)
    columns: dict = dataclasses.field(default=None, repr=False)
    headers: list = dataclasses.field(default=None, repr=False)
    what: str = "records"
    pandas_written: bool = False
    metadata: list = dataclasses.field(default_factory=list, repr=False)
    contests: list = None


def _response_config(name, description, fields, files, what):
    return CaptionContestConfig(
        name=name, version=_VERSION, key=("source_file", "row_index"), description=description,
        features=datasets.Features(features({**_RESPONSE_NAME_FIELDS, **fields})),
        read=read_archive, parse_name=_parse_archive_name, counter=_count_csv_records,
        columns={name: field for name, field in fields.items() if name not in _RATING_LABEL},
        what=what, pandas_written=True,
        files={"train": files}, url_prefix=_MEDIA_PREFIX, split_sizes={"train": None}, license=_LICENSE,
    )


_VERSION = datasets.Version("1.0.0")
# Alphabetical, the order of the card's `configs:`. Summaries have no natural key (quirks
# 1, two-headers; 10, tied-ranks; 8, repeated-captions): their rows are matched by position.
_CONFIGS = [
    _response_config("cardinal_responses", "One example per rating of one caption (unfunny / somewhat funny / funny).",
                     {**_CARDINAL_FIELDS, **_RATING_LABEL}, _CARDINAL, "ratings"),
    CaptionContestConfig(
        name="cartoons", version=_VERSION, key=("contest",),
        description="One example per contest: the cartoon image, its artist, description, contexts and anomalies.",
        features=datasets.Features(features(_CARTOON_FIELDS)), metadata=_METADATA, counter=_count_images,
        files={"train": _CARTOONS + _METADATA}, url_prefix=_RAW_PREFIX, split_sizes={"train": 186}, license=_LICENSE,
    ),
    _response_config("dueling_responses", "One example per pairwise vote between two captions (contests 497, 508, "
                     "509).", _DUELING_FIELDS, _DUELING, "votes"),
    CaptionContestConfig(
        name="summaries", version=_VERSION,
        description="One example per caption per summary file (contest x algorithm x round or variant).",
        features=datasets.Features(features({**_SUMMARY_NAME_FIELDS, **_SUMMARY_FIELDS})),
        read=_read_summary, parse_name=_parse_summary_name, counter=_count_csv_records,
        columns=_SUMMARY_FIELDS, headers=[_SUMMARY_HEADER, _SUMMARY_HEADER[1:]],
        files={"train": _SUMMARIES}, url_prefix=_RAW_PREFIX, split_sizes={"train": 1081771}, license=_LICENSE,
    ),
]


class CaptionContestRatings(SourceBuilder, datasets.ArrowBasedBuilder):
    """New Yorker caption contest ratings: summaries, cardinal and dueling responses, cartoons."""

    VERSION = _VERSION
    DESCRIPTION_PARTS = _DESCRIPTION_PARTS
    RELEASE_NOTES = {"1.0.0": "Initial release."}
    BUILDER_CONFIG_CLASS = CaptionContestConfig
    BUILDER_CONFIGS = _CONFIGS
    DEFAULT_CONFIG_NAME = "summaries"
    DEFAULT_WRITER_BATCH_SIZE = 100_000  # the tables' size: datasets' 1,000 would cut them into small writes

    def _info(self):
        return datasets.DatasetInfo(
            description=_DESCRIPTION,
            features=self.config.features.copy(),
            homepage=_HOMEPAGE,
            license=self.config.license,
            citation=_CITATION,
        )

    def _split_generators(self, dl_manager):
        metadata = self.config.metadata
        shards = [path for path in self.config.files["train"] if path not in metadata]
        contests = self.config.contests
        if contests is not None:
            if isinstance(contests, (str, bytes)) or not all(type(c) is int for c in contests):
                raise ValueError(f"contests: expected a list of contest numbers (ints), got {contests!r}")
            contests = sorted(set(contests))
            shards = [path for path in shards if _path_contest(path) in contests]
            if not shards:
                raise ValueError(f"{self.config.name}: no source file for contests {contests}")
        local = local_files(self.config.data_dir, dl_manager, shards + metadata, self.config.urls)
        gen_kwargs = {"files": [local[path] for path in shards], "sources": shards,
                      "metadata": {path: local[path] for path in metadata}}
        return [datasets.SplitGenerator(name=datasets.Split.TRAIN, gen_kwargs=gen_kwargs)]

    def _generate_tables(self, files, sources, metadata):
        schema = self.config.features.arrow_schema  # made once for all files: about 0.5 ms each time
        if not self.config.metadata:
            for file, source in zip(files, sources, strict=True):
                for number, table in enumerate(_file_tables(self.config, file, source, schema)):
                    yield f"{os.path.basename(source)}:{number}", table
            return
        # Images joined with the metadata; called once per image when streaming: the metadata is read once.
        if getattr(self, "_metadata", (None,))[0] != metadata:
            self._metadata = (metadata, _read_metadata(metadata))
        yield from _cartoon_tables(files, sources, schema, *self._metadata[1])
