"""New Yorker Cartoon Caption Contest ratings collected by the NEXT active-learning system.

Visitors of the contest site rated one caption at a time as unfunny / somewhat funny / funny
("cardinal" queries, rewards 1 / 2 / 3) or, in three early contests, picked the funnier of two
captions ("dueling" queries). Source: nextml/caption-contest-data-api pinned to its last commit:
199 summary CSVs (one row per caption per sampling algorithm), 87 zipped response CSVs (Git LFS,
read from GitHub's media URLs), and the cartoon images with their metadata.

Configs, each a single `train` split sharded by source file (so `num_proc` and streaming shards
scale with the files):
- `summaries` (default): one example per caption per summary file;
- `cardinal_responses`: one example per rating (84 archives);
- `dueling_responses`: one example per pairwise vote (3 archives);
- `cartoons`: one example per contest with its image and metadata.
A config parameter `contests` (a list of contest numbers) restricts any config to the source files
of those contests; datasets gives such a config its own cache id.

Each file is read into memory in chunks of about 16 MiB cut after line feeds (a response
archive's member inflated as it is read, its CRC-32 checked; archives are never extracted),
parsed with pyarrow.csv (values may contain newlines; a cut inside a quoted value is caught and
read across), typed and checked with Arrow compute; no per-row Python. How that is fast (ISA-L,
chunks, read-ahead threads) and why in Arrow's memory is `_fast_io.py`.
Deviations from the upstream schema, documented in the card:
- summaries: `contest`, `round`, `algorithm` and `variant` come from the file name (the typo
  `RandomSamping` becomes `RandomSampling`; the file name is kept in `source_file`); the file's own
  `contest` column is kept as `contest_field` (it differs from the file name in one file, 688);
  `target_id` is None in the files whose header has no `target_id` column;
- responses: the unnamed pandas index column is `row_index`; `target_reward` is `rating` (1..3)
  plus its class label `rating_label`; empty cells (pandas NaN) are None;
- cartoons: the image is an `Image` feature (bytes, and the upstream path relative to the repo).
The response archives' inner format is inferred from upstream code (not verified on the real
files): each archive's header is checked and any other header stops the build with the expected
and the found columns. Every value outside its documented domain stops the build with a
ValueError naming the file, the record, the field and the value.
"""

import contextlib
import csv
import functools
import io
import itertools
import operator
import os
import re
import zipfile

import datasets
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv
from datasets.utils.file_utils import xopen

from ._fast_io import ZIP_ERRORS
from ._fast_io import gathered
from ._fast_io import joined
from ._fast_io import member_pieces
from ._fast_io import read_ahead
from ._fast_io import read_member
from ._fast_io import record_chunks
from ._loader_common import local_files
from ._loader_common import not_the_data
from ._loader_common import show as _show
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
# The response archives are Git LFS objects: the raw URLs serve 131-byte pointers, the media URLs
# the archives themselves.
_MEDIA_PREFIX = f"https://media.githubusercontent.com/media/nextml/caption-contest-data-api/{_COMMIT}/"

_SUMMARY_DIR = "contests/summaries/"
_RESPONSE_DIR = "contests/responses/"
_ARTISTS = "contests/artists.csv"
_DESCRIPTIONS = "contests/metadata/descriptions.txt"
_CONTEXTS = "contests/metadata/contexts.yaml"
_ANOMALIES = "contests/metadata/anomalies.yaml"
_METADATA = [_ARTISTS, _DESCRIPTIONS, _CONTEXTS, _ANOMALIES]


def _summary_names():
    names = []
    for contest in (508, 509):
        names += [f"{contest}-round1_summary_LilUCB.csv", f"{contest}-round1_summary_RoundRobin.csv"]
        names += [f"{contest}-round2_summary_RoundRobin.csv"]
    for contest in range(510, 520):
        names += [f"{contest}_summary_LilUCB.csv", f"{contest}_summary_RoundRobin.csv"]
    names += [f"{contest}_summary_LilUCB.csv" for contest in range(520, 559) if contest not in (525, 540)]
    names += ["540_summary_Random.csv"]
    names += ["559_summary_KLUCB.csv", "559_summary_LilUCB.csv", "559_summary_RandomSamping.csv"]
    names += ["560_summary_KLUCB_funny.csv", "560_summary_KLUCB_original.csv"]
    names += [f"{contest}_summary_KLUCB.csv" for contest in range(561, 692) if contest != 664]
    return sorted(names)


def _response_names():
    names = [f"{contest}-responses.csv.zip" for contest in (497, 499, 505, 507)]
    for contest in (508, 509):
        names += [
            f"{contest}-{kind}-responses.csv.zip" for kind in ("round1-cardinal", "round2-cardinal", "round2-dueling")
        ]
    names += [f"{contest}-responses.csv.zip" for contest in range(510, 559) if contest not in (525, 554)]
    names += ["559-active-responses.csv.zip", "559-passive-responses.csv.zip"]
    names += ["560-funny-responses.csv.zip", "560-original-responses.csv.zip"]
    names += [f"{contest}-responses.csv.zip" for contest in range(561, 587)]
    return sorted(names)


_DUELING_ARCHIVES = [
    "497-responses.csv.zip",
    "508-round2-dueling-responses.csv.zip",
    "509-round2-dueling-responses.csv.zip",
]
_CARTOON_CONTESTS = [497, 499, 505, 507] + [contest for contest in range(508, 692) if contest not in (525, 664)]

_SUMMARIES = [_SUMMARY_DIR + name for name in _summary_names()]
_CARDINAL = [_RESPONSE_DIR + name for name in _response_names() if name not in _DUELING_ARCHIVES]
_DUELING = [_RESPONSE_DIR + name for name in _response_names() if name in _DUELING_ARCHIVES]
_CARTOONS = [f"contests/info/{contest}/{contest}.jpg" for contest in _CARTOON_CONTESTS]

# Paths relative to the upstream repository root: the layout a `data_dir` copy must mirror.
_FILES = {
    "summaries": {"train": _SUMMARIES},
    "cardinal_responses": {"train": _CARDINAL},
    "dueling_responses": {"train": _DUELING},
    "cartoons": {"train": _CARTOONS + _METADATA},
}
_URLS = {path: _RAW_PREFIX + path for path in _SUMMARIES + _CARTOONS + _METADATA}
_URLS.update({path: _MEDIA_PREFIX + path for path in _CARDINAL + _DUELING})

# Official sizes, measured on the real files (docs/formats/caption_contest_ratings.md). The response
# archives could not be fetched: their row counts are unknown (None).
_SPLIT_SIZES = {
    "summaries": {"train": 1081771},
    "cardinal_responses": {"train": None},
    "dueling_responses": {"train": None},
    "cartoons": {"train": 186},
}

# Natural key of each config's rows (`corpora diff` matches old and new rows by it). Summaries
# have none (target_id is missing from 89 files, ranks tie, captions repeat within a file):
# their rows are matched by position.
_KEYS = {
    "cardinal_responses": ["source_file", "row_index"],
    "dueling_responses": ["source_file", "row_index"],
    "cartoons": ["contest"],
}

_ALGORITHMS = ["KLUCB", "LilUCB", "Random", "RandomSampling", "RoundRobin"]
_RATINGS = ["unfunny", "somewhat_funny", "funny"]  # target_reward 1, 2, 3

_HEADER_A = [
    "target_id",
    "rank",
    "funny",
    "somewhat_funny",
    "unfunny",
    "count",
    "score",
    "precision",
    "contest",
    "caption",
]
_HEADER_B = _HEADER_A[1:]
_CARDINAL_HEADER = [
    "",
    "alg_label",
    "network_delay",
    "participant_uid",
    "response_time",
    "target",
    "target_id",
    "target_reward",
    "timestamp_query_generated",
]
_DUELING_HEADER = [
    "",
    "alg_label",
    "left_target",
    "left_target_id",
    "network_delay",
    "participant_id",
    "participant_uid",
    "response_time",
    "right_target",
    "right_target_id",
    "timestamp_query_generated",
    "winner_target",
    "winner_target_id",
]

_SUMMARY_TYPES = {
    "target_id": pa.int32(),
    "rank": pa.int32(),
    "funny": pa.int32(),
    "somewhat_funny": pa.int32(),
    "unfunny": pa.int32(),
    "count": pa.int32(),
    "score": pa.float64(),
    "precision": pa.float64(),
    "contest": pa.int32(),
    "caption": pa.string(),
}
_RESPONSE_TYPES = {
    "": pa.int64(),
    "alg_label": pa.string(),
    "network_delay": pa.float64(),
    "participant_uid": pa.string(),
    "participant_id": pa.string(),
    "response_time": pa.float64(),
    "target": pa.string(),
    "target_id": pa.int32(),
    "target_reward": pa.int32(),
    "timestamp_query_generated": pa.timestamp("us"),
    "left_target": pa.string(),
    "left_target_id": pa.int32(),
    "right_target": pa.string(),
    "right_target_id": pa.int32(),
    "winner_target": pa.string(),
    "winner_target_id": pa.int32(),
}

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

_BLOCK_SIZE = 16 << 20  # bytes of CSV per Arrow batch
_MIN_ROWS_PER_TABLE = 100_000  # small files are yielded together, up to about this many rows
_WORD_LIST = re.compile(r"(?P<contest>[0-9]+): \[(?P<items>[^\[\]]*)\]")
_WORD = re.compile(r"[a-z][a-z0-9' -]*")


def _summary_features():
    return datasets.Features(
        {
            "source_file": datasets.Value("string"),
            "contest": datasets.Value("int32"),
            "round": datasets.Value("int32"),
            "algorithm": datasets.ClassLabel(names=_ALGORITHMS),
            "variant": datasets.Value("string"),
            "target_id": datasets.Value("int32"),
            "rank": datasets.Value("int32"),
            "funny": datasets.Value("int32"),
            "somewhat_funny": datasets.Value("int32"),
            "unfunny": datasets.Value("int32"),
            "count": datasets.Value("int32"),
            "score": datasets.Value("float64"),
            "precision": datasets.Value("float64"),
            "contest_field": datasets.Value("int32"),
            "caption": datasets.Value("string"),
        }
    )


def _response_common():
    return {
        "contest": datasets.Value("int32"),
        "source_file": datasets.Value("string"),
        "row_index": datasets.Value("int64"),
        "alg_label": datasets.Value("string"),
        "participant_uid": datasets.Value("string"),
        "response_time": datasets.Value("float64"),
        "network_delay": datasets.Value("float64"),
        "timestamp_query_generated": datasets.Value("timestamp[us]"),
    }


def _cardinal_features():
    return datasets.Features(
        {
            **_response_common(),
            "target_id": datasets.Value("int32"),
            "target": datasets.Value("string"),
            "rating": datasets.Value("int32"),
            "rating_label": datasets.ClassLabel(names=_RATINGS),
        }
    )


def _dueling_features():
    return datasets.Features(
        {
            **_response_common(),
            "participant_id": datasets.Value("string"),
            "left_target_id": datasets.Value("int32"),
            "left_target": datasets.Value("string"),
            "right_target_id": datasets.Value("int32"),
            "right_target": datasets.Value("string"),
            "winner_target_id": datasets.Value("int32"),
            "winner_target": datasets.Value("string"),
        }
    )


def _cartoon_features():
    return datasets.Features(
        {
            "contest": datasets.Value("int32"),
            "image": datasets.Image(decode=False),  # bytes + path; decode with cast_column("image", Image())
            "artist": datasets.Value("string"),
            "description": datasets.Value("string"),
            "contexts": [datasets.Value("string")],
            "anomalies": [datasets.Value("string")],
        }
    )


_FEATURES = {
    "summaries": _summary_features,
    "cardinal_responses": _cardinal_features,
    "dueling_responses": _dueling_features,
    "cartoons": _cartoon_features,
}


class CaptionContestConfig(datasets.BuilderConfig):
    """A config; `contests` (a list of contest numbers) restricts it to those contests' files.

    datasets sets config keyword arguments as attributes of a copy of the config (and gives the
    result its own cache id), so the value is checked when the splits are made, not here.
    """

    def __init__(self, contests=None, **kwargs):
        super().__init__(**kwargs)
        self.contests = contests


def _selected_contests(contests):
    """The sorted contest numbers of the `contests` parameter, or None for every contest."""
    if contests is None:
        return None
    if isinstance(contests, (str, bytes)) or not all(type(c) is int for c in contests):
        raise ValueError(f"contests: expected a list of contest numbers (ints), got {contests!r}")
    return sorted(set(contests))


class CaptionContestRatings(datasets.ArrowBasedBuilder):
    """New Yorker caption contest ratings (NEXT): summaries, cardinal and dueling responses, cartoons."""

    VERSION = datasets.Version("1.0.0")
    BUILDER_CONFIG_CLASS = CaptionContestConfig
    # Alphabetical, the order datasets writes the card's `configs:` in; the default is `summaries`.
    BUILDER_CONFIGS = [
        CaptionContestConfig(
            name="cardinal_responses",
            version=VERSION,
            description="One example per rating of one caption (unfunny / somewhat funny / funny).",
        ),
        CaptionContestConfig(
            name="cartoons",
            version=VERSION,
            description="One example per contest: the cartoon image, its artist, description, contexts and anomalies.",
        ),
        CaptionContestConfig(
            name="dueling_responses",
            version=VERSION,
            description="One example per pairwise vote between two captions (contests 497, 508, 509).",
        ),
        CaptionContestConfig(
            name="summaries",
            version=VERSION,
            description="One example per caption per summary file (contest x algorithm x round or variant).",
        ),
    ]
    DEFAULT_CONFIG_NAME = "summaries"
    # Rows per record batch of the Arrow cache (datasets' default is 1,000). The tables yielded
    # hold up to about 100,000 rows; written in 1,000-row batches they cost a quarter more CPU
    # (hundreds of thousands of small writes through Python for the responses). The 186 cartoons
    # make a single batch of their images.
    DEFAULT_WRITER_BATCH_SIZE = 100_000

    def _info(self):
        return datasets.DatasetInfo(
            description=_DESCRIPTION,
            features=_FEATURES[self.config.name](),
            homepage=_HOMEPAGE,
            license=_LICENSE,
            citation=_CITATION,
        )

    def _split_generators(self, dl_manager):
        name = self.config.name
        paths = _FILES[name]["train"]
        metadata = [path for path in paths if path in _METADATA]
        shards = [path for path in paths if path not in _METADATA]
        contests = _selected_contests(getattr(self.config, "contests", None))
        if contests is not None:
            shards = [path for path in shards if _path_contest(path) in contests]
            if not shards:
                raise ValueError(f"{name}: no source file for contests {contests}")
        needed = shards + metadata
        local = local_files(self.config.data_dir, dl_manager, needed, _URLS)
        gen_kwargs = {"files": [local[path] for path in shards], "sources": [path for path in shards]}
        if name == "cartoons":
            gen_kwargs["metadata"] = {path: local[path] for path in metadata}
        return [datasets.SplitGenerator(name=datasets.Split.TRAIN, gen_kwargs=gen_kwargs)]

    def _generate_tables(self, files, sources, metadata=None):
        name = self.config.name
        if name == "cartoons":
            yield from _cartoon_tables(files, sources, metadata)
            return
        read, tables_of = {
            "summaries": (_read_csv_file, _summary_tables),
            "cardinal_responses": (_read_archive, _cardinal_tables),
            "dueling_responses": (_read_archive, _dueling_tables),
        }[name]
        # Three steps at once, each in a thread of its own: reading (inflating) the next files,
        # parsing and checking the next tables, and datasets writing this one.
        tables = _tables_of_files(read, tables_of, files, sources)
        yield from read_ahead(gathered(tables, _MIN_ROWS_PER_TABLE))


def _chunks_of_files(read, files, sources):
    """(file index, where, chunk) for the chunks of every file (`read(file, source)` gives
    (where, chunk) pairs), read (inflated) in a worker thread up to two chunks ahead."""
    chunks = (
        (index, where, chunk)
        for index, (file, source) in enumerate(zip(files, sources, strict=True))
        for where, chunk in read(file, source)
    )
    return read_ahead(chunks, depth=2)


def _tables_of_files(read, tables_of, files, sources):
    """(key, table) for the tables of each file, parsed while the next chunks are read. An error
    closes that reader at once (`closing`), so no thread waits for the garbage collector."""
    chunks = _chunks_of_files(read, files, sources)
    with contextlib.closing(chunks):
        for index, items in itertools.groupby(chunks, key=operator.itemgetter(0)):
            file, source = files[index], sources[index]
            for number, table in enumerate(tables_of(((where, chunk) for _, where, chunk in items), file, source)):
                yield f"{os.path.basename(source)}:{number}", table


def _count_source_records(config_name, split_name, local_paths):
    """CSV records (summaries, responses) or images (cartoons), counted without typing: pyarrow
    parses every record but converts only the last column, kept as raw bytes."""
    if config_name == "cartoons":
        # Downloaded files have no extension in the cache: images are told apart by their bytes.
        return sum(1 for path in local_paths if _image_magic(path))
    read = _read_csv_file if config_name == "summaries" else _read_archive
    names = [os.path.basename(path) for path in local_paths]
    total = 0
    with contextlib.closing(_chunks_of_files(read, local_paths, names)) as chunks:
        for index, items in itertools.groupby(chunks, key=operator.itemgetter(0)):
            whole = None
            if config_name != "summaries":
                whole = functools.partial(_whole_archive_member, local_paths[index], names[index])
            total += _count_records((chunk for _, _, chunk in items), whole)
    return total


def _image_magic(path):
    with xopen(path, "rb") as f:
        return f.read(8).startswith((b"\xff\xd8\xff", b"\x89PNG\r\n\x1a\n"))


def _count_records(chunks, whole=None):
    """The records of a CSV file given as chunks cut after line feeds, read as `_csv_batches`
    reads them (`_chunk_batches`), converting only the last column; where the chunks do not read,
    the whole file is counted (`whole()`), which raises what reading it whole raises. Without
    `whole`, `chunks` is the whole file."""
    chunks = iter(chunks)
    first = next(chunks)
    line = first[: 1 << 16].to_pybytes().split(b"\n", 1)[0].rstrip(b"\r")
    names = [name.decode("utf-8", "replace") for name in line.split(b",")]
    if whole is None:
        return sum(batch.num_rows for batch in _last_column(first, names, True, False))
    total = 0
    parse = functools.partial(_last_column, names=names, one_batch=True)
    for chunk, batches in _chunk_batches(itertools.chain([first], chunks), parse):
        if chunk is None:
            return sum(batch.num_rows for batch in _last_column(whole(), names, True, False))
        total += sum(batch.num_rows for batch in batches)
    return total


def _last_column(chunk, names, with_header, one_batch):
    """The record batches of a chunk of CSV with only its last column, as raw bytes."""
    reader = pa_csv.open_csv(
        pa.BufferReader(chunk),
        read_options=_read_options(chunk, names, with_header, one_batch),
        parse_options=pa_csv.ParseOptions(newlines_in_values=True),
        convert_options=pa_csv.ConvertOptions(include_columns=names[-1:], column_types={names[-1]: pa.binary()}),
    )
    with reader:
        return list(reader)


# ---------------------------------------------------------------------------------------------
# file names and file checks


def _path_contest(path):
    name = path.rsplit("/", 1)[-1]
    if path.startswith("contests/info/"):
        return int(name.split(".", 1)[0])
    return int(name[:3])


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


def _not_data(head, source, what):
    """The error for bytes that are not the data at all (empty, an LFS pointer, a BOM, an HTML page), or None."""
    if not head:
        return ValueError(f"{source}: is empty, expected the {what}")
    return not_the_data(head, source)


def _header(head, source, expected):
    """Check the first line of a CSV (its header; header names never contain newlines)."""
    error = _not_data(head, source, "CSV file")
    if error is not None:
        raise error
    line, newline, _ = head.partition(b"\n")
    if not newline and len(head) >= 1 << 16:
        raise ValueError(f"{source}: no line break in the first 64 KiB; not a CSV file")
    text = utf8(line, source, 1)
    found = text.rstrip("\r").split(",")
    if text.endswith("\r"):
        raise ValueError(f"{source}: line 1 ends with CR LF; the release files use LF only")
    if found not in expected:
        shown = " or ".join(repr(",".join(names)) for names in expected)
        raise ValueError(f"{source}: unexpected header: expected columns {shown}; found {','.join(found)!r}")
    return found


def _csv_batches(chunks, source, expected_headers, types, strings_can_be_null, what, whole=None):
    """(header, record offset, batch) for every block of a CSV file given as `chunks`, Arrow
    buffers cut after line feeds (the first holds the header), typed by `types`.

    Without `whole`, `chunks` is the whole file in one buffer. With it, the chunks are read by
    `_chunk_batches`, and where they do not read, `whole()` returns the whole file, read in one
    piece: its records and errors are then exactly those of the file (the records already given
    are skipped). A conversion error is located by re-reading the file untyped (`_locate`), only
    on that path."""
    chunks = iter(chunks)
    first = next(chunks)
    header = _header(first[: 1 << 16].to_pybytes(), source, expected_headers)
    if whole is None:
        try:
            read = [(first, _parse_chunk(first, header, types, strings_can_be_null, True, False))]
        except pa.ArrowInvalid as error:
            raise _locate(first, source, header, types, error) from None
    else:
        parse = functools.partial(
            _parse_chunk, header=header, types=types, strings_can_be_null=strings_can_be_null, one_batch=True
        )
        read = _chunk_batches(itertools.chain([first], chunks), parse)
    offset, last = 0, first
    for chunk, batches in read:
        if chunk is None:
            again = _csv_batches([whole()], source, expected_headers, types, strings_can_be_null, what)
            yield from _skipped(again, offset)
            return
        for batch in batches:
            yield header, offset, batch
            offset += batch.num_rows
        last = chunk
    if offset == 0:
        raise ValueError(f"{source}: has a header but no {what}")
    if last[last.size - 1 :].to_pybytes() != b"\n":
        raise ValueError(f"{source}: does not end with a line feed after record {offset}; the file is truncated")


def _chunk_batches(chunks, parse):
    """(chunk, its record batches) for the chunks of a file, Arrow buffers cut after line feeds,
    the first holding the header; `parse(chunk, with_header=...)` gives a chunk's batches.

    A cut may be inside a quoted value. A chunk that does not parse, or whose last record may end
    inside a quoted value (`_may_end_inside_quotes`), is parsed again joined with the next chunk.
    Where that fails too, or the last chunk fails, the last item is (None, None): the caller reads
    the file whole."""
    carried, with_header = None, True
    for chunk in chunks:
        merged = carried is not None
        if merged:
            chunk, carried = joined([carried, chunk]), None
        try:
            batches = parse(chunk, with_header=with_header)
            unsure = _may_end_inside_quotes(batches)
        except pa.ArrowInvalid:
            unsure = True
        if unsure and merged:  # two chunks in a row that do not read: an error, or a second bad cut
            yield None, None
            return
        if unsure:
            carried = chunk
            continue
        with_header = False
        yield chunk, batches
    if carried is not None:
        yield None, None


def _read_options(chunk, names, with_header, one_batch):
    """A chunk's read options: the first chunk holds the header, the others are named by it; read
    in blocks of `_BLOCK_SIZE`, or as one batch (a chunk of records is about that size)."""
    block_size = min(max(_BLOCK_SIZE, chunk.size + 1), 1 << 30) if one_batch else _BLOCK_SIZE
    return pa_csv.ReadOptions(block_size=block_size, use_threads=False, column_names=None if with_header else names)


def _parse_chunk(chunk, header, types, strings_can_be_null, with_header, one_batch):
    """The record batches of a chunk of CSV, typed by `types`."""
    reader = pa_csv.open_csv(
        pa.BufferReader(chunk),
        read_options=_read_options(chunk, header, with_header, one_batch),
        parse_options=pa_csv.ParseOptions(newlines_in_values=True, ignore_empty_lines=False),
        convert_options=pa_csv.ConvertOptions(
            column_types={name: types[name] for name in header},
            null_values=[""] if strings_can_be_null else [],
            strings_can_be_null=strings_can_be_null,
            quoted_strings_can_be_null=False,
        ),
    )
    with reader:
        return list(reader)


def _may_end_inside_quotes(batches):
    """Whether a chunk cut inside a quoted value could have parsed: its last record would then end
    in the value of its last column, cut after a line feed (in any other field the record is short
    of fields, and a value of a type other than text or bytes does not convert)."""
    batches = [batch for batch in batches if batch.num_rows]
    if not batches:
        return False
    value = batches[-1].column(batches[-1].num_columns - 1)[-1].as_py()
    if isinstance(value, str):
        return value.endswith("\n")
    return isinstance(value, bytes) and value.endswith(b"\n")


def _skipped(batches, records):
    """The (header, offset, batch) of `batches` from record `records` on."""
    for header, offset, batch in batches:
        if offset + batch.num_rows <= records:
            continue
        if offset < records:
            batch, offset = batch.slice(records - offset), records
        yield header, offset, batch


def _locate(data, source, header, types, error):
    """The ValueError for an Arrow error: the first record and field whose value does not convert."""
    message = str(error).split("\n")[0]
    if "CSV conversion error" not in message:
        return ValueError(f"{source}: invalid CSV ({message})")
    offset = 0
    reader = pa_csv.open_csv(
        pa.BufferReader(data),
        read_options=pa_csv.ReadOptions(block_size=_BLOCK_SIZE, use_threads=False),
        parse_options=pa_csv.ParseOptions(newlines_in_values=True, ignore_empty_lines=False),
        convert_options=pa_csv.ConvertOptions(column_types={name: pa.binary() for name in header}),
    )
    for batch in reader:
        for name in header:
            column = batch.column(name)
            target = types[name]
            try:
                _cast(column, target)
                continue
            except (pa.ArrowInvalid, UnicodeDecodeError):
                pass
            lo, hi = 0, len(column)  # the first bad value is in [lo, hi)
            while hi - lo > 1:
                mid = (lo + hi) // 2
                try:
                    _cast(column.slice(lo, mid - lo), target)
                    lo = mid
                except (pa.ArrowInvalid, UnicodeDecodeError):
                    hi = mid
            value = column[lo].as_py()
            try:
                value = value.decode("utf-8")
                expected = _EXPECTED_TYPE.get(str(target), str(target))
                problem = f"invalid value {_show(value)} (expected {expected})"
            except UnicodeDecodeError as decode_error:
                problem = f"not UTF-8 (byte 0x{value[decode_error.start]:02x} in {_show(value)})"
            return ValueError(f"{source}: record {offset + lo + 1}: field {name!r}: {problem}")
        offset += batch.num_rows
    return ValueError(f"{source}: invalid CSV ({message})")


_EXPECTED_TYPE = {
    "int32": "an integer",
    "int64": "an integer",
    "double": "a number",
    "timestamp[us]": "a timestamp YYYY-MM-DD HH:MM:SS[.ffffff]",
    "string": "UTF-8 text",
}


def _cast(column, target):
    strings = column.cast(pa.string())  # validates UTF-8
    if pa.types.is_string(target):
        return strings
    if len(strings) and pc.any(pc.equal(strings, "")).as_py():
        raise pa.ArrowInvalid("empty value")
    return strings.cast(target)


def _check(source, offset, batch, field, bad, expected):
    """Raise for the first row of `batch` where the boolean array `bad` is true (or null)."""
    bad = pc.fill_null(bad, True)
    if not pc.any(bad).as_py():
        return
    index = pc.index(bad, True).as_py()
    value = batch.column(field)[index].as_py()
    raise ValueError(
        f"{source}: record {offset + index + 1}: field {field!r}: invalid value {_show(value)} (expected {expected})"
    )


def _constant(value, type_, length):
    if value is None:
        return pa.nulls(length, type_)
    return pa.repeat(pa.scalar(value, type_), length)


# ---------------------------------------------------------------------------------------------
# summaries


def _whole_csv_file(file, source):
    """The bytes of a CSV file, in Arrow's memory (why: `_fast_io.joined`)."""
    with xopen(file, "rb") as f:
        return joined([f.read()])


def _read_csv_file(file, source):
    """(where, chunk) for a summary file: one chunk, the whole file (a few hundred KB)."""
    yield source, _whole_csv_file(file, source)


def _summary_tables(chunks, file, source):
    meta = _parse_summary_name(source)
    contest_field = _CONTEST_FIELD_EXCEPTIONS.get(meta["source_file"], meta["contest"])
    data = (chunk for _, chunk in chunks)
    for header, offset, batch in _csv_batches(data, source, [_HEADER_A, _HEADER_B], _SUMMARY_TYPES, False, "records"):
        yield _summary_table(batch, header, offset, source, meta, contest_field)


def _summary_table(batch, header, offset, source, meta, contest_field):
    n = batch.num_rows
    col = batch.column
    if "target_id" in header:
        _check(source, offset, batch, "target_id", pc.less(col("target_id"), 0), "an integer >= 0")
    _check(source, offset, batch, "rank", pc.less(col("rank"), 1), "an integer >= 1")
    for field in ("funny", "somewhat_funny", "unfunny"):
        _check(source, offset, batch, field, pc.less(col(field), 0), "an integer >= 0")
    total = pc.add(pc.add(col("funny"), col("somewhat_funny")), col("unfunny"))
    _check(source, offset, batch, "count", pc.not_equal(col("count"), total), "funny + somewhat_funny + unfunny, >= 1")
    _check(source, offset, batch, "count", pc.less(col("count"), 1), "an integer >= 1")
    score = col("score")
    _check(
        source,
        offset,
        batch,
        "score",
        pc.invert(pc.and_(pc.greater_equal(score, 1.0), pc.less_equal(score, 3.0))),
        "a number from 1 to 3",
    )
    precision = col("precision")
    _check(source, offset, batch, "precision", pc.invert(pc.greater(precision, 0.0)), "a number > 0 or inf")
    _check(
        source,
        offset,
        batch,
        "contest",
        pc.not_equal(col("contest"), contest_field),
        f"the file's contest {contest_field}",
    )
    _check(source, offset, batch, "caption", pc.equal(pc.utf8_length(col("caption")), 0), "a non-empty caption")
    columns = [
        _constant(meta["source_file"], pa.string(), n),
        _constant(meta["contest"], pa.int32(), n),
        _constant(meta["round"], pa.int32(), n),
        _constant(_ALGORITHMS.index(meta["algorithm"]), pa.int64(), n),
        _constant(meta["variant"], pa.string(), n),
        col("target_id") if "target_id" in header else pa.nulls(n, pa.int32()),
        col("rank"),
        col("funny"),
        col("somewhat_funny"),
        col("unfunny"),
        col("count"),
        score,
        precision,
        col("contest"),
        col("caption"),
    ]
    return pa.Table.from_arrays(columns, schema=_SUMMARY_SCHEMA)


_SUMMARY_SCHEMA = _summary_features().arrow_schema


# ---------------------------------------------------------------------------------------------
# responses


def _archive_member(archive, source):
    """The one CSV of a response archive; `__MACOSX/` entries or a second CSV are errors."""
    names = [info.filename for info in archive.infolist() if not info.is_dir()]
    mac = [
        name
        for name in names
        if name.startswith("__MACOSX/") or "/__MACOSX/" in name or name.split("/")[-1].startswith("._")
    ]
    if mac:
        raise ValueError(f"{source}: has macOS resource entries ({', '.join(mac[:3])}); expected exactly one CSV file")
    if len(names) != 1:
        raise ValueError(f"{source}: expected exactly one CSV file in the archive, found {len(names)}: {names[:5]}")
    return names[0]


@contextlib.contextmanager
def _open_archive(file, source):
    """(raw file, zipfile.ZipFile, member) of a response archive and its one CSV."""
    with xopen(file, "rb") as raw:
        head = raw.read(1 << 12)
        raw.seek(0)
        if not head.startswith(b"PK\x03\x04"):
            error = _not_data(head, source, "zip archive")
            raise error or ValueError(
                f"{source}: not a zip archive (starts with {_show(head[:16])}); the download is corrupt"
            )
        try:
            archive = zipfile.ZipFile(raw)
        except (zipfile.BadZipFile, EOFError, OSError) as error:
            raise ValueError(f"{source}: corrupt zip archive ({error})") from None
        with archive:
            yield raw, archive, _archive_member(archive, source)


def _read_archive(file, source):
    """(where, chunk) for the CSV of a response archive: its member inflated as it is read, in
    chunks of records in Arrow's memory (`_fast_io.record_chunks`), never extracted; `where`
    names the member for messages (`<archive>!<member>`)."""
    with _open_archive(file, source) as (raw, archive, member):
        chunks = record_chunks(member_pieces(raw, archive, member), _BLOCK_SIZE)
        while True:
            # Only the read is in the `try`: a generator left open is closed at exit, when the
            # module's names may already be gone.
            try:
                chunk = next(chunks, None)
            except ZIP_ERRORS as error:
                raise ValueError(f"{source}: corrupt zip archive ({error})") from None
            if chunk is None:
                return
            yield f"{source}!{member}", chunk


def _whole_archive_member(file, source):
    """The CSV of a response archive, inflated whole, in Arrow's memory."""
    with _open_archive(file, source) as (raw, archive, member):
        try:
            return read_member(raw, archive, member)
        except ZIP_ERRORS as error:
            raise ValueError(f"{source}: corrupt zip archive ({error})") from None


def _archive_batches(chunks, file, source, expected_header, what):
    chunks = iter(chunks)
    where, first = next(chunks)
    data = itertools.chain([first], (chunk for _, chunk in chunks))

    whole = functools.partial(_whole_archive_member, file, source)
    for _, offset, batch in _csv_batches(data, where, [expected_header], _RESPONSE_TYPES, True, what, whole):
        yield where, offset, batch


def _response_columns(batch, source, offset, contest, name):
    n = batch.num_rows
    col = batch.column
    for field in ("", "alg_label", "participant_uid", "timestamp_query_generated"):
        _check(source, offset, batch, field, pc.is_null(col(field)), "a value (the cell is empty)")
    _check(source, offset, batch, "", pc.less(col(""), 0), "a row index >= 0")
    for field in ("response_time", "network_delay"):
        values = col(field)
        _check(
            source,
            offset,
            batch,
            field,
            pc.and_kleene(pc.is_valid(values), pc.invert(pc.is_finite(values))),
            "a finite number of seconds or an empty cell",
        )
    return [
        _constant(contest, pa.int32(), n),
        _constant(name, pa.string(), n),
        col(""),
        col("alg_label"),
        col("participant_uid"),
        col("response_time"),
        col("network_delay"),
        col("timestamp_query_generated"),
    ]


def _cardinal_tables(chunks, file, source):
    name, contest = _parse_archive_name(source)
    for where, offset, batch in _archive_batches(chunks, file, source, _CARDINAL_HEADER, "ratings"):
        col = batch.column
        _check(where, offset, batch, "target_id", pc.invert(pc.greater_equal(col("target_id"), 0)), "an integer >= 0")
        reward = col("target_reward")
        _check(
            where,
            offset,
            batch,
            "target_reward",
            pc.invert(pc.and_(pc.greater_equal(reward, 1), pc.less_equal(reward, 3))),
            "1 (unfunny), 2 (somewhat funny) or 3 (funny)",
        )
        columns = _response_columns(batch, where, offset, contest, name) + [
            col("target_id"),
            col("target"),
            reward,
            pc.cast(pc.subtract(reward, 1), pa.int64()),
        ]
        yield pa.Table.from_arrays(columns, schema=_CARDINAL_SCHEMA)


def _dueling_tables(chunks, file, source):
    name, contest = _parse_archive_name(source)
    for where, offset, batch in _archive_batches(chunks, file, source, _DUELING_HEADER, "votes"):
        col = batch.column
        for field in ("left_target_id", "right_target_id", "winner_target_id"):
            _check(where, offset, batch, field, pc.invert(pc.greater_equal(col(field), 0)), "an integer >= 0")
        columns = _response_columns(batch, where, offset, contest, name) + [
            col("participant_id"),
            col("left_target_id"),
            col("left_target"),
            col("right_target_id"),
            col("right_target"),
            col("winner_target_id"),
            col("winner_target"),
        ]
        yield pa.Table.from_arrays(columns, schema=_DUELING_SCHEMA)


_CARDINAL_SCHEMA = _cardinal_features().arrow_schema
_DUELING_SCHEMA = _dueling_features().arrow_schema


# ---------------------------------------------------------------------------------------------
# cartoons


def _cartoon_tables(files, sources, metadata):
    artists = _read_pairs(metadata[_ARTISTS], _ARTISTS, ["contest", "artist"])
    descriptions = _read_pairs(metadata[_DESCRIPTIONS], _DESCRIPTIONS, ["contest", "description"])
    contexts = _read_word_lists(metadata[_CONTEXTS], _CONTEXTS)
    anomalies = _read_word_lists(metadata[_ANOMALIES], _ANOMALIES)
    for file, source in zip(files, sources, strict=True):
        contest = _path_contest(source)
        with xopen(file, "rb") as f:
            data = f.read()
        error = _not_data(data[:4096], source, "image")
        if error is not None:
            raise error
        if not (data.startswith(b"\xff\xd8\xff") or data.startswith(b"\x89PNG\r\n\x1a\n")):
            raise ValueError(f"{source}: not a JPEG or PNG image (starts with {_show(data[:8])})")
        row = {
            "contest": contest,
            "image": {"bytes": data, "path": source},
            "artist": artists.get(contest),
            "description": descriptions.get(contest),
            "contexts": contexts.get(contest, []),
            "anomalies": anomalies.get(contest, []),
        }
        yield f"{contest}", pa.Table.from_pylist([row], schema=_CARTOON_SCHEMA)


_CARTOON_SCHEMA = _cartoon_features().arrow_schema


def _read_text(file, source):
    with xopen(file, "rb") as f:
        data = f.read()
    error = _not_data(data[:4096], source, "metadata file")
    if error is not None:
        raise error
    return utf8(data, source)


def _read_pairs(file, source, header):
    """contest -> text from a two-column CSV (artists.csv, descriptions.txt)."""
    rows = list(csv.reader(io.StringIO(_read_text(file, source), newline="")))
    if not rows or rows[0] != header:
        raise ValueError(
            f"{source}: unexpected header: expected columns {','.join(header)!r}; "
            f"found {','.join(rows[0]) if rows else ''!r}"
        )
    pairs = {}
    for number, row in enumerate(rows[1:], start=1):
        if len(row) != 2:
            raise ValueError(f"{source}: record {number}: expected 2 fields, found {len(row)}: {_show(row)}")
        if not re.fullmatch(r"[0-9]{3}", row[0]):
            raise ValueError(
                f"{source}: record {number}: field 'contest': invalid value {_show(row[0])} (expected a contest number)"
            )
        if not row[1].strip():
            raise ValueError(
                f"{source}: record {number}: field {header[1]!r}: invalid value {_show(row[1])} (expected a text)"
            )
        contest = int(row[0])
        if contest in pairs:
            raise ValueError(f"{source}: record {number}: contest {contest} appears twice")
        pairs[contest] = row[1]
    return pairs


def _read_word_lists(file, source):
    """contest -> list of words from the one-flow-list-per-line YAML files (`508: [a, b, c]`)."""
    lists = {}
    for number, line in enumerate(_read_text(file, source).split("\n"), start=1):
        if not line:
            continue
        match = _WORD_LIST.fullmatch(line)
        if match is None:
            raise ValueError(f"{source}: line {number}: expected `<contest>: [word, word, ...]`, found {_show(line)}")
        words = match["items"].split(", ")
        if not all(_WORD.fullmatch(word) for word in words):
            raise ValueError(f"{source}: line {number}: expected lower-case words, found {_show(match['items'])}")
        contest = int(match["contest"])
        if contest in lists:
            raise ValueError(f"{source}: line {number}: contest {contest} appears twice")
        lists[contest] = words
    return lists
