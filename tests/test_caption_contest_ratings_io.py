"""caption_contest_ratings read as upstream reads it: the builder's rows of a response archive are what
`pandas.read_csv` (upstream's reader) reads from the same bytes, in every shape FORMAT.md ("Responses") allows,
whatever the zip method and wherever pyarrow's blocks end; and an error in a late block is that of the
whole file."""

import datetime
import importlib
import io
import zipfile

import pandas
import pytest
from hypothesis import example
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from corpora import registry
from helpers import builder_rows
from synthetic_caption_contest_ratings import archive_bytes
from synthetic_caption_contest_ratings import cardinal_csv

NAME = "caption_contest_ratings"
corpus = registry.get(NAME)
# An archive of each config that is its contest's only file: a folder of it alone builds with `contests`.
ARCHIVES = {"cardinal_responses": "contests/responses/556-responses.csv.zip",
            "dueling_responses": "contests/responses/497-responses.csv.zip"}


def blocks_of(patch, size):
    """pyarrow parses the CSV in blocks of `size` bytes (the reader's BLOCK_SIZE): many batches."""
    patch.setattr(importlib.import_module(f"{registry.get(NAME).module.__package__}._reader"), "BLOCK_SIZE", size)


def built_rows(config, source, data, folder):
    """The builder's rows of a folder holding `data` at `source`, its contest alone."""
    (folder / source).parent.mkdir(parents=True, exist_ok=True)
    (folder / source).write_bytes(data)
    return builder_rows(corpus, config, str(folder), contests=[int(source.rsplit("/", 1)[1][:3])])["train"]


def member(data):
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        (name,) = archive.namelist()
        return archive.read(name)


def pandas_rows(config, data, source):
    """The rows upstream's reader gives for the CSV `data`, typed as the config's features are."""
    fields = {field.source(name): name for name, field in corpus.config(config).columns.items()}
    name, features = source.rsplit("/", 1)[-1], corpus.features(config)
    rows = []
    for position, record in enumerate(pandas.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False).to_dict("records")):
        index = record.pop("Unnamed: 0", None)  # pandas' name for an index column named '' or 'Unnamed: 0'
        row = {"contest": int(name[:3]), "source_file": name, "row_index": position if index is None else int(index)}
        row.update({fields[column]: typed(features[fields[column]].dtype, text) for column, text in record.items()})
        if config == "cardinal_responses":
            row["rating_label"] = row["rating"] - 1
        rows.append({field: row[field] for field in features})
    return rows


def typed(dtype, text):
    if text == "":
        return None
    if dtype.startswith("int"):
        assert float(text) == int(float(text)), text
        return int(float(text))
    return {"float64": float, "timestamp[us]": datetime.datetime.fromisoformat}.get(dtype, str)(text)


# --- the shapes -----------------------------------------------------------------------------------

captions = st.text(alphabet=st.sampled_from(list('ab ,"\n\r\'é’\t')), min_size=1, max_size=20)  # the *target columns
DRAWN = {"int32": st.integers(0, 10_024), "float64": st.floats(0, 1e5), "string": st.text("abcXYZ019_", min_size=1, max_size=12),
         "timestamp[us]": st.datetimes(datetime.datetime(2015, 1, 1), datetime.datetime(2019, 12, 31))}


def written(value, as_float, with_microseconds):
    """`value` as pandas writes it: integers of a float column as `3.0`, floats by repr, datetimes with
    microseconds where any has them, None (NaN) as an empty cell."""
    if isinstance(value, datetime.datetime):
        return value.isoformat(sep=" ", timespec="microseconds" if with_microseconds else "seconds")
    if isinstance(value, float) or (isinstance(value, int) and as_float):
        return repr(float(value))
    return value


@st.composite
def archives(draw):
    config = draw(st.sampled_from(sorted(ARCHIVES)))
    fields = {field.source(name): (name, field) for name, field in corpus.config(config).columns.items()}
    columns = draw(st.permutations(sorted(fields)))
    index = draw(st.sampled_from(["", "Unnamed: 0", None]))
    count = draw(st.integers(1, 25))
    values = {column: st.integers(1, 3) if name == "rating" else captions if column.endswith("target") else DRAWN[field.feature.dtype]
              for column, (name, field) in fields.items()}
    values = {column: st.one_of(st.none(), values[column]) if fields[column][1].nulls else values[column] for column in columns}
    records = [{column: draw(values[column]) for column in columns} for _ in range(count)]
    # pandas writes an integer column with an empty cell (NaN) as floats, and may write any as floats
    as_floats = {column: draw(st.booleans()) or any(r[column] is None for r in records) for column in columns}
    with_microseconds = draw(st.booleans())
    indexes = sorted(draw(st.sets(st.integers(0, 10**7), min_size=count, max_size=count)))
    rows = [([] if index is None else [position if draw(st.booleans()) else indexes[position]])
            + [written(record[c], as_floats[c], with_microseconds) for c in columns] for position, record in enumerate(records)]
    for at in sorted(draw(st.lists(st.integers(0, count), max_size=2)), reverse=True):
        rows.insert(at, [])  # a blank line before record `at` (at the end: after the last)
    header = ([] if index is None else [index]) + list(columns)
    method = draw(st.sampled_from([zipfile.ZIP_DEFLATED, zipfile.ZIP_STORED, zipfile.ZIP_BZIP2]))
    return config, header, rows, draw(st.sampled_from(["\n", "\r\n"])), method


def cardinal_row(caption):
    return ["KLUCB", "0.5", "u", "1.0", "1", "3", "2017-07-28 17:05:39", caption]


# Found (58eea86): a last caption ending in a line feed has the file read whole, where the CR LF of
# the first caption straddles two of pyarrow's 512-byte blocks.
CR_LF_ACROSS_BLOCKS = ("cardinal_responses", ["alg_label", "network_delay", "participant_uid", "response_time", "target_id",
                                              "target_reward", "timestamp_query_generated", "target"],
                       [cardinal_row("x" * 359 + "\r\nb"), cardinal_row("end\n")], "\n", zipfile.ZIP_DEFLATED)
# An archive ending with a blank line (a file appended to, an editor's last line): pandas skips it.
ENDS_WITH_A_BLANK_LINE = ("cardinal_responses", CR_LF_ACROSS_BLOCKS[1], [cardinal_row("end"), []], "\r\n", zipfile.ZIP_STORED)


@settings(max_examples=100, deadline=None)
@given(archives(), st.sampled_from([None, 512, 1024]))  # the reader's blocks, or small ones (a block holds the header)
@example(CR_LF_ACROSS_BLOCKS, 512)
@example(ENDS_WITH_A_BLANK_LINE, None)
def test_the_builder_reads_what_pandas_reads(tmp_path_factory, shape, block_size):
    config, header, rows, newline, method = shape
    source, folder = ARCHIVES[config], tmp_path_factory.mktemp("archive")
    data = archive_bytes(source.rsplit("/", 1)[1][: -len(".zip")], header, rows, newline, method)
    with pytest.MonkeyPatch.context() as patch:
        if block_size:
            blocks_of(patch, block_size)
        assert built_rows(config, source, data, folder) == pandas_rows(config, member(data), source)
        # The count of source records reads the blocks in the same way.
        assert corpus.count_source_records(config, "train", [str(folder / source)]) == len([row for row in rows if row])


def test_the_dummy_archives_show_upstreams_shapes():  # the index column named '', 'Unnamed: 0' or absent; any order
    first = {name: member((corpus.dummy_dir / "contests/responses" / name).read_bytes()).split(b"\n", 1)[0].decode() for name in (
        "499-responses.csv.zip", "540-responses.csv.zip", "556-responses.csv.zip", "561-responses.csv.zip",
        "508-round2-dueling-responses.csv.zip", "509-round2-dueling-responses.csv.zip")}
    assert first == {
        "499-responses.csv.zip": ",alg_label,network_delay,participant_uid,response_time,target,target_id,target_reward,timestamp_query_generated",
        "540-responses.csv.zip": "Unnamed: 0,alg_label,network_delay,participant_uid,response_time,target,target_id,target_reward,timestamp_query_generated",
        "556-responses.csv.zip": "participant_uid,response_time,network_delay,timestamp_query_generated,target_reward,alg_label,target,target_id",
        "561-responses.csv.zip": ",target_id,participant_uid,response_time,network_delay,timestamp_query_generated,target_reward,alg_label,target",
        "508-round2-dueling-responses.csv.zip": ",participant_id,timestamp_query_generated,left_target_id,right_target_id,winner_target_id,left_target,right_target,winner_target,participant_uid,response_time,network_delay,alg_label",
        "509-round2-dueling-responses.csv.zip": "participant_id,timestamp_query_generated,left_target_id,right_target_id,winner_target_id,left_target,right_target,winner_target,participant_uid,response_time,network_delay,alg_label",
    }


# --- an error in a late block -----------------------------------------------------------------------

def changed_line(data, number, change):
    lines = data.split(b"\n")
    return b"\n".join(lines[:number] + [change(lines[number])] + lines[number + 1:])


def zipped(data):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("556-responses.csv", data)
    return buffer.getvalue()


SUMMARY, CARDINAL = "contests/summaries/520_summary_LilUCB.csv", ARCHIVES["cardinal_responses"]
CAPTIONS = b"rank,funny,somewhat_funny,unfunny,count,score,precision,contest,caption\n" + b"".join(
    b"%d,1,0,0,1,3.0,inf,520,caption %d\n" % (i, i) for i in range(1, 401))
RATINGS = cardinal_csv(3000)
LATE = [  # (case, config, the file, its line): record 300 of 400, or 2,001 of 3,000
    ("value not converted", "summaries", changed_line(CAPTIONS, 300, lambda line: line.replace(b",1,0,0,1,", b",1,0,0,x,")),
     f"{SUMMARY}, record 300: field 'count': invalid value 'x' (expected an integer)"),
    ("value refused", "cardinal_responses", zipped(changed_line(RATINGS, 2001, lambda line: line.replace(b",3,2017", b",7,2017"))),
     f"{CARDINAL}!556-responses.csv, record 2001: field 'target_reward': invalid value 7 (expected 1 (unfunny), 2 (somewhat funny) or 3 (funny))"),
    ("extra cell", "cardinal_responses", zipped(changed_line(RATINGS, 2001, lambda line: line + b",x")),
     f"{CARDINAL}!556-responses.csv: invalid CSV (CSV parse error: Row #2002: Expected 9 columns, got 10: "
     + RATINGS.split(b"\n")[2001].decode() + ",x)"),
]


@pytest.mark.other_dependencies  # a value that does not convert is found from pyarrow's error (its column and row)
@pytest.mark.parametrize("case,config,data,line", LATE, ids=[case[0] for case in LATE])
def test_an_error_in_a_late_block_is_that_of_the_whole_file(tmp_path, monkeypatch, case, config, data, line):
    errors = []
    for size in (None, 1 << 10):  # the reader's blocks (one), and blocks of 1 KiB
        if size:
            blocks_of(monkeypatch, size)
        with pytest.raises(ValueError) as caught:
            built_rows(config, SUMMARY if config == "summaries" else CARDINAL, data, tmp_path)
        errors.append(str(caught.value))
    assert errors == [line, line]
