"""New Yorker Cartoon Caption Contest ratings collected by the NEXT active-learning system.

Source: nextml/caption-contest-data-api at its last commit (loaders/caption_contest_ratings/FORMAT.md):
199 summary CSVs, 87 zipped response CSVs (Git LFS, read from GitHub's media URLs), the cartoons
and their metadata. Each config has one `train` split sharded by source file, so `num_proc` and
streaming shards scale with the files; a config parameter `contests` (a list of contest numbers)
restricts it to those contests' files.

`_fast_io.py` reads the CSV files; here they are typed and checked with Arrow compute, with no
per-row Python. Every value outside its documented domain stops the build with a ValueError
naming the file, the record, the field and the value.

Deviations from the upstream schema (listed in the card): a summary row takes `contest`, `round`,
`algorithm` (`RandomSamping` as `RandomSampling`) and `variant` from its file name and keeps the
file's `contest` column as `contest_field`; a response's pandas index (or, in an archive written
without it, the record's position) is `row_index`, its `target_reward` is `rating` plus the class
label `rating_label`; empty cells are None. The response archives are read by column name, as
upstream's `pandas.read_csv` reads them (their shapes vary: `columns_by_name`, `CsvFormat`).
"""

import csv
import dataclasses
import functools
import io
import re

import datasets
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from datasets.utils.file_utils import xopen

from ._builder_base import SourceBuilder
from ._builder_base import SourceConfig
from ._fast_io import CsvFormat
from ._fast_io import archive_chunks
from ._fast_io import archive_whole
from ._fast_io import check_rows
from ._fast_io import columns_by_name
from ._fast_io import count_records_of_files
from ._fast_io import exact_headers
from ._fast_io import file_batches
from ._fast_io import file_chunks
from ._fast_io import tables_of_files
from ._loader_common import check_is_data
from ._loader_common import invalid
from ._loader_common import local_files
from ._loader_common import show
from ._loader_common import utf8

_CITATION = """\
@inproceedings{jamieson2015next,
    title = {{NEXT}: A System for Real-World Development, Evaluation, and Application of Active Learning},
    author = {Kevin G. Jamieson and Lalit Jain and Chris Fernandez and Nicholas J. Glattard and Robert Nowak},
    booktitle = {Advances in Neural Information Processing Systems 28},
    year = {2015}
}
"""

_DESCRIPTION = """\
Crowd ratings of New Yorker Cartoon Caption Contest entries collected by the NEXT active-learning
system: 1.08 million per-caption summaries (funny / somewhat funny / unfunny counts, mean score,
precision) from 199 summary files of contests 508-691, the individual cardinal ratings and
pairwise (dueling) votes of contests 497-586 (roughly 25 to 30 million by the archive sizes; the
upstream README's 89 million counts contests up to 652), and the 186 cartoons with their metadata.
"""

_HOMEPAGE = "https://github.com/nextml/caption-contest-data-api"

# LICENSE.txt of the upstream repository: the data are CC BY 4.0 (the software package is BSD).
_LICENSE = "cc-by-4.0"

_COMMIT = "9e38b2b73a4541dd26111e05b90bcca6bdcae008"
_RAW_PREFIX = f"https://raw.githubusercontent.com/nextml/caption-contest-data-api/{_COMMIT}/"
# The response archives are Git LFS objects: the raw URLs serve pointers, the media URLs the archives.
_MEDIA_PREFIX = f"https://media.githubusercontent.com/media/nextml/caption-contest-data-api/{_COMMIT}/"

_SUMMARY_DIR = "contests/summaries/"
_RESPONSE_DIR = "contests/responses/"
_ARTISTS = "contests/artists.csv"
_DESCRIPTIONS = "contests/metadata/descriptions.txt"
_CONTEXTS = "contests/metadata/contexts.yaml"
_ANOMALIES = "contests/metadata/anomalies.yaml"
_METADATA = [_ARTISTS, _DESCRIPTIONS, _CONTEXTS, _ANOMALIES]


def _summary_names():
    names = [f"{c}-{kind}.csv" for c in (508, 509) for kind in ("round1_summary_LilUCB", "round1_summary_RoundRobin")]
    names += [f"{contest}-round2_summary_RoundRobin.csv" for contest in (508, 509)]
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

_SUMMARIES = [_SUMMARY_DIR + name for name in _summary_names()]
_CARDINAL = [_RESPONSE_DIR + name for name in _response_names() if name not in _DUELING_ARCHIVES]
_DUELING = [_RESPONSE_DIR + name for name in _response_names() if name in _DUELING_ARCHIVES]
_CARTOONS = [f"contests/info/{contest}/{contest}.jpg" for contest in _CARTOON_CONTESTS]

_URLS = {path: _RAW_PREFIX + path for path in _SUMMARIES + _CARTOONS + _METADATA}
_URLS.update({path: _MEDIA_PREFIX + path for path in _CARDINAL + _DUELING})

_ALGORITHMS = ["KLUCB", "LilUCB", "Random", "RandomSampling", "RoundRobin"]
_RATINGS = ["unfunny", "somewhat_funny", "funny"]  # target_reward 1, 2, 3

# The two headers of the summary files: with `target_id` (110 files), and without it (89, contests 510-586).
_SUMMARY_HEADER = "target_id,rank,funny,somewhat_funny,unfunny,count,score,precision,contest,caption".split(",")
_SUMMARY_HEADER_WITHOUT_ID = _SUMMARY_HEADER[1:]
# The response archives were written by pandas at different times, their columns in different
# orders, with or without the index column first (loaders/caption_contest_ratings/FORMAT.md, section
# "Responses"): read by name. The columns of each config, in alphabetical order:
_CARDINAL_COLUMNS = [
    "alg_label", "network_delay", "participant_uid", "response_time", "target", "target_id", "target_reward",
    "timestamp_query_generated",
]  # fmt: skip
_DUELING_COLUMNS = [
    "alg_label", "left_target", "left_target_id", "network_delay", "participant_id", "participant_uid",
    "response_time", "right_target", "right_target_id", "timestamp_query_generated", "winner_target",
    "winner_target_id",
]  # fmt: skip
# The pandas index: an empty name as `to_csv` writes it, `Unnamed: 0` from a frame read back and
# written without its own index.
_INDEX_COLUMNS = ("", "Unnamed: 0")
# Response fields that may be empty (null), each for the reason the format doc gives; an empty
# cell in any other is an error.
_NULLABLE = {"network_delay", "response_time", "target", "target_id", "left_target", "right_target", "winner_target"}

_SUMMARY_NAME = re.compile(
    r"(?P<contest>[0-9]{3})(?:-round(?P<round>[12]))?_summary_"
    r"(?P<algorithm>LilUCB|RoundRobin|KLUCB|Random|RandomSamping)(?:_(?P<variant>funny|original))?\.csv"
)
_ARCHIVE_NAME = re.compile(
    r"(?P<contest>[0-9]{3})(?:-(?:round1-cardinal|round2-cardinal|round2-dueling|active|passive|funny|original))?"
    r"-responses\.csv\.zip"
)
# The one summary file whose `contest` column is not its file's contest (quirk 4 of the format doc).
_CONTEST_FIELD_EXCEPTIONS = {"688_summary_KLUCB.csv": 689}

_MIN_ROWS_PER_TABLE = 100_000  # small files are yielded together, up to about this many rows
_WORD_LIST = re.compile(r"(?P<contest>[0-9]+): \[(?P<items>[^\[\]]*)\]")
_WORD = re.compile(r"[a-z][a-z0-9' -]*")
_JPEG_OR_PNG = (b"\xff\xd8\xff", b"\x89PNG\r\n\x1a\n")

# --- configs and features ------------------------------------------------------------------------
_VERSION = datasets.Version("1.0.0")


@dataclasses.dataclass
class CaptionContestConfig(SourceConfig):
    """A config; `contests` (a list of contest numbers) restricts it to those contests' files.
    datasets sets it on a copy of the config (with a cache id of its own): it is checked when the
    splits are made, not here."""

    contests: list = None


# Paths relative to the upstream repository root: the layout a `data_dir` copy must mirror. Official
# sizes were measured on the real files (loaders/caption_contest_ratings/FORMAT.md); the response
# archives could not be fetched, so their row counts are unknown (None). Summaries have no natural
# key (no target_id in 89 files, ranks tie, captions repeat): their rows are matched by position.
# Alphabetical, the order datasets writes the card's `configs:` in; the default is `summaries`.
_CONFIGS = [
    CaptionContestConfig(
        name="cardinal_responses",
        version=_VERSION,
        description="One example per rating of one caption (unfunny / somewhat funny / funny).",
        files={"train": _CARDINAL},
        split_sizes={"train": None},
        key=("source_file", "row_index"),
    ),
    CaptionContestConfig(
        name="cartoons",
        version=_VERSION,
        description="One example per contest: the cartoon image, its artist, description, contexts and anomalies.",
        files={"train": _CARTOONS + _METADATA},
        split_sizes={"train": 186},
        key=("contest",),
    ),
    CaptionContestConfig(
        name="dueling_responses",
        version=_VERSION,
        description="One example per pairwise vote between two captions (contests 497, 508, 509).",
        files={"train": _DUELING},
        split_sizes={"train": None},
        key=("source_file", "row_index"),
    ),
    CaptionContestConfig(
        name="summaries",
        version=_VERSION,
        description="One example per caption per summary file (contest x algorithm x round or variant).",
        files={"train": _SUMMARIES},
        split_sizes={"train": 1081771},
    ),
]


def _values(**types):
    return {name: datasets.Value(type_) for name, type_ in types.items()}


_RESPONSE_COMMON = {
    **_values(contest="int32", source_file="string", row_index="int64", alg_label="string"),
    **_values(participant_uid="string", response_time="float64", network_delay="float64"),
    "timestamp_query_generated": datasets.Value("timestamp[us]"),
}
_FEATURES = {
    "summaries": datasets.Features(
        {
            **_values(source_file="string", contest="int32", round="int32"),
            "algorithm": datasets.ClassLabel(names=_ALGORITHMS),
            **_values(variant="string", target_id="int32", rank="int32"),
            **_values(funny="int32", somewhat_funny="int32", unfunny="int32", count="int32"),
            **_values(score="float64", precision="float64", contest_field="int32", caption="string"),
        }
    ),
    "cardinal_responses": datasets.Features(
        {
            **_RESPONSE_COMMON,
            **_values(target_id="int32", target="string", rating="int32"),
            "rating_label": datasets.ClassLabel(names=_RATINGS),
        }
    ),
    "dueling_responses": datasets.Features(
        {
            **_RESPONSE_COMMON,
            **_values(participant_id="string", left_target_id="int32", left_target="string"),
            **_values(right_target_id="int32", right_target="string", winner_target_id="int32", winner_target="string"),
        }
    ),
    "cartoons": datasets.Features(
        {
            "contest": datasets.Value("int32"),
            "image": datasets.Image(decode=False),  # bytes + path; decode with cast_column("image", Image())
            **_values(artist="string", description="string"),
            "contexts": [datasets.Value("string")],
            "anomalies": [datasets.Value("string")],
        }
    ),
}
_SCHEMAS = {name: features.arrow_schema for name, features in _FEATURES.items()}


def _column_types(config, header, renamed):
    """The Arrow type of each CSV column: that of the feature it becomes (`renamed`: column -> feature)."""
    return {column: _SCHEMAS[config].field(renamed.get(column, column)).type for column in header}


_SUMMARY_FORMAT = CsvFormat(
    exact_headers([_SUMMARY_HEADER, _SUMMARY_HEADER_WITHOUT_ID]),
    _column_types("summaries", _SUMMARY_HEADER, {"contest": "contest_field"}),
    "records",
)
_INDEX_TYPES = {name: pa.int64() for name in _INDEX_COLUMNS}  # row_index
_CARDINAL_FORMAT = CsvFormat(
    columns_by_name(_CARDINAL_COLUMNS, _INDEX_COLUMNS),
    {**_INDEX_TYPES, **_column_types("cardinal_responses", _CARDINAL_COLUMNS, {"target_reward": "rating"})},
    "ratings",
    pandas_written=True,
)
_DUELING_FORMAT = CsvFormat(
    columns_by_name(_DUELING_COLUMNS, _INDEX_COLUMNS),
    {**_INDEX_TYPES, **_column_types("dueling_responses", _DUELING_COLUMNS, {})},
    "votes",
    pandas_written=True,
)


class CaptionContestRatings(SourceBuilder, datasets.ArrowBasedBuilder):
    """New Yorker caption contest ratings (NEXT): summaries, cardinal and dueling responses, cartoons."""

    VERSION = _VERSION
    BUILDER_CONFIG_CLASS = CaptionContestConfig
    BUILDER_CONFIGS = _CONFIGS
    DEFAULT_CONFIG_NAME = "summaries"
    # Rows per record batch of the Arrow cache: the tables yielded hold up to about 100,000 rows,
    # which datasets' default of 1,000 would cut into many small writes. The cartoons make one batch.
    DEFAULT_WRITER_BATCH_SIZE = 100_000

    def _features(self):
        return _FEATURES[self.config.name].copy()

    def _split_generators(self, dl_manager):
        name = self.config.name
        paths = self.config.files["train"]
        metadata = [path for path in paths if path in _METADATA]
        shards = [path for path in paths if path not in _METADATA]
        contests = self.config.contests
        if contests is not None:
            if isinstance(contests, (str, bytes)) or not all(type(c) is int for c in contests):
                raise ValueError(f"contests: expected a list of contest numbers (ints), got {contests!r}")
            contests = sorted(set(contests))
            shards = [path for path in shards if _path_contest(path) in contests]
            if not shards:
                raise ValueError(f"{name}: no source file for contests {contests}")
        local = local_files(self.config.data_dir, dl_manager, shards + metadata, _URLS)
        gen_kwargs = {"files": [local[path] for path in shards], "sources": shards}
        if name == "cartoons":
            gen_kwargs["metadata"] = {path: local[path] for path in metadata}
        return [datasets.SplitGenerator(name=datasets.Split.TRAIN, gen_kwargs=gen_kwargs)]

    def _generate_tables(self, files, sources, metadata=None):
        name = self.config.name
        if name == "cartoons":
            yield from _cartoon_tables(files, sources, metadata)
            return
        read, tables_of = {
            "summaries": (_read_summary_file, _summary_tables),
            "cardinal_responses": (_read_archive, _cardinal_tables),
            "dueling_responses": (_read_archive, _dueling_tables),
        }[name]
        # Reading (inflating) the next files, parsing and checking the next tables, and datasets
        # writing this one run at once, each in a thread of its own.
        yield from tables_of_files(read, tables_of, files, sources, _MIN_ROWS_PER_TABLE)


# datasets' xopen opens local paths and URLs alike (a streaming build reads the files from their URLs).
_read_summary_file = functools.partial(file_chunks, xopen)  # a summary file is a few hundred KB: one chunk
_read_archive = functools.partial(archive_chunks, xopen)
_read_archive_whole = functools.partial(archive_whole, xopen)


def _count_source_records(config_name, split_name, local_paths):
    """CSV records or images, counted without typing: pyarrow converts only a CSV's last column."""
    if config_name == "cartoons":  # downloaded files have no extension in the cache: told apart by their bytes
        return sum(1 for path in local_paths if _is_image(path))
    if config_name == "summaries":
        return count_records_of_files(_read_summary_file, None, local_paths)
    return count_records_of_files(_read_archive, _read_archive_whole, local_paths)


def _is_image(path):
    with xopen(path, "rb") as f:
        return f.read(8).startswith(_JPEG_OR_PNG)


# --- file names ----------------------------------------------------------------------------------
def _path_contest(path):
    """The contest of a source path: every file name of the configs' files but the metadata starts with its 3 digits."""
    return int(path.rsplit("/", 1)[-1][:3])


def _parse_summary_name(source):
    name = source.rsplit("/", 1)[-1]
    match = _SUMMARY_NAME.fullmatch(name)
    if match is None:
        raise ValueError(f"{source}: not a summary file name (<contest>[-round<r>]_summary_<alg>[_<variant>].csv)")
    algorithm = match["algorithm"]
    return {
        "source_file": name,
        "contest": int(match["contest"]),
        "round": int(match["round"]) if match["round"] else None,
        "algorithm": "RandomSampling" if algorithm == "RandomSamping" else algorithm,
        "variant": match["variant"],
    }


def _parse_archive_name(source):
    name = source.rsplit("/", 1)[-1]
    match = _ARCHIVE_NAME.fullmatch(name)
    if match is None:
        raise ValueError(f"{source}: not a response archive name (<contest>[-<qualifier>]-responses.csv.zip)")
    return name, int(match["contest"])


# --- columns ---------------------------------------------------------------------------------------
def _between(values, low, high):
    return pc.and_(pc.greater_equal(values, low), pc.less_equal(values, high))


def _constant_column(value, type_, length):
    return pa.nulls(length, type_) if value is None else pa.repeat(pa.scalar(value, type_), length)


# --- summaries -----------------------------------------------------------------------------------
def _summary_tables(chunks, file, source):
    meta = _parse_summary_name(source)
    contest_field = _CONTEST_FIELD_EXCEPTIONS.get(meta["source_file"], meta["contest"])
    for where, header, offset, batch in file_batches(chunks, _SUMMARY_FORMAT):
        n, col = batch.num_rows, batch.column
        check = functools.partial(check_rows, where, offset, batch)
        if "target_id" in header:
            check("target_id", pc.less(col("target_id"), 0), "an integer >= 0")
        check("rank", pc.less(col("rank"), 1), "an integer >= 1")
        for field in ("funny", "somewhat_funny", "unfunny"):
            check(field, pc.less(col(field), 0), "an integer >= 0")
        total = pc.add(pc.add(col("funny"), col("somewhat_funny")), col("unfunny"))
        check("count", pc.not_equal(col("count"), total), "funny + somewhat_funny + unfunny, >= 1")
        check("count", pc.less(col("count"), 1), "an integer >= 1")
        check("score", pc.invert(_between(col("score"), 1.0, 3.0)), "a number from 1 to 3")
        check("precision", pc.invert(pc.greater(col("precision"), 0.0)), "a number > 0 or inf")
        check("contest", pc.not_equal(col("contest"), contest_field), f"the file's contest {contest_field}")
        check("caption", pc.equal(pc.utf8_length(col("caption")), 0), "a non-empty caption")
        columns = [
            _constant_column(meta["source_file"], pa.string(), n),
            _constant_column(meta["contest"], pa.int32(), n),
            _constant_column(meta["round"], pa.int32(), n),
            _constant_column(_ALGORITHMS.index(meta["algorithm"]), pa.int64(), n),
            _constant_column(meta["variant"], pa.string(), n),
            col("target_id") if "target_id" in header else pa.nulls(n, pa.int32()),
            *map(col, _SUMMARY_HEADER_WITHOUT_ID),  # rank to caption, the file's `contest` as `contest_field`
        ]
        yield pa.Table.from_arrays(columns, schema=_SCHEMAS["summaries"])


# --- responses -----------------------------------------------------------------------------------
def _response_tables(config, csv_format, chunks, file, source):
    """The tables of a response archive of `config`, read as `csv_format` says."""
    name, contest = _parse_archive_name(source)
    whole = functools.partial(_read_archive_whole, file, source)
    for where, header, offset, batch in file_batches(chunks, csv_format, whole):
        n, col = batch.num_rows, batch.column
        check = functools.partial(check_rows, where, offset, batch)
        index = header[0] if header[0] in _INDEX_COLUMNS else None
        for field in header:
            if field not in _NULLABLE and col(field).null_count:
                check(field, pc.is_null(col(field)), "a value (the cell is empty)")
        for field in [field for field in header if field.endswith("target_id")]:
            check(field, pc.fill_null(pc.less(col(field), 0), False), "an integer >= 0")
        cardinal = config == "cardinal_responses"
        if cardinal:
            ratings = "1 (unfunny), 2 (somewhat funny) or 3 (funny)"
            check("target_reward", pc.invert(_between(col("target_reward"), 1, 3)), ratings)
        if index is not None:
            check(index, pc.less(col(index), 0), "a row index >= 0")
        for field in ("response_time", "network_delay"):
            not_finite = pc.and_kleene(pc.is_valid(col(field)), pc.invert(pc.is_finite(col(field))))
            check(field, not_finite, "a finite number of seconds or an empty cell")
        columns = {
            "contest": _constant_column(contest, pa.int32(), n),
            "source_file": _constant_column(name, pa.string(), n),
            # pandas' index where the file has it, else the record's position, as pandas numbers it
            "row_index": col(index) if index is not None else pa.array(np.arange(offset, offset + n, dtype=np.int64)),
        }
        if cardinal:
            columns["rating"] = col("target_reward")
            columns["rating_label"] = pc.cast(pc.subtract(col("target_reward"), 1), pa.int64())
        schema = _SCHEMAS[config]
        # Every other feature is the CSV column of its name.
        yield pa.Table.from_arrays([columns[f] if f in columns else col(f) for f in schema.names], schema=schema)


_cardinal_tables = functools.partial(_response_tables, "cardinal_responses", _CARDINAL_FORMAT)
_dueling_tables = functools.partial(_response_tables, "dueling_responses", _DUELING_FORMAT)


# --- cartoons ------------------------------------------------------------------------------------
def _cartoon_tables(files, sources, metadata):
    artists = _read_pairs(metadata[_ARTISTS], _ARTISTS, ["contest", "artist"])
    descriptions = _read_pairs(metadata[_DESCRIPTIONS], _DESCRIPTIONS, ["contest", "description"])
    contexts = _read_word_lists(metadata[_CONTEXTS], _CONTEXTS)
    anomalies = _read_word_lists(metadata[_ANOMALIES], _ANOMALIES)
    for file, source in zip(files, sources, strict=True):
        contest = _path_contest(source)
        with xopen(file, "rb") as f:
            data = f.read()
        check_is_data(data[:4096], source, "a JPEG or PNG image")
        if not data.startswith(_JPEG_OR_PNG):
            raise ValueError(f"{source}: not a JPEG or PNG image (starts with {show(data[:8])})")
        row = {
            "contest": contest,
            "image": {"bytes": data, "path": source},
            "artist": artists.get(contest),
            "description": descriptions.get(contest),
            "contexts": contexts.get(contest, []),
            "anomalies": anomalies.get(contest, []),
        }
        yield f"{contest}", pa.Table.from_pylist([row], schema=_SCHEMAS["cartoons"])


def _read_text(file, source):
    with xopen(file, "rb") as f:
        data = f.read()
    check_is_data(data[:4096], source, "a metadata file")
    return utf8(data, source)


def _read_pairs(file, source, header):
    """contest -> text from a two-column CSV (artists.csv, descriptions.txt)."""
    rows = list(csv.reader(io.StringIO(_read_text(file, source), newline="")))
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
    for number, line in enumerate(_read_text(file, source).split("\n"), start=1):
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
