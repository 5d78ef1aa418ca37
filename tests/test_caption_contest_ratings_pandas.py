"""caption_contest_ratings' response archives read as upstream reads them: the loader's rows equal
what `pandas.read_csv` (upstream's reader, caption_contest_data/_api.py) reads from the same bytes,
row by row and field by field, for archives in every shape upstream's material allows
(loaders/caption_contest_ratings/FORMAT.md, "Responses"): any column order, with or without the
index column, empty cells, integers written as floats, quoted captions with commas, quotes and
line feeds, LF or CR LF line ends, blank lines (at the end too), and chunks cut anywhere.

pandas reads every cell as text, with its NA guessing off; the text is then taken as the field's
type says (an empty cell is null, an integral float an integer), so that text is compared as text
and no pandas inference stands between the two readers."""

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
from synthetic_caption_contest_ratings import archive_bytes

corpus = registry.get("caption_contest_ratings")
loader = corpus.module
reader = importlib.import_module(f"{loader.__package__}._reader")
RESPONSES = "contests/responses/"
# Each config's columns: the fields read from an archive, by the column they are read from.
CONFIGS = {name: [field.source(field_name) for field_name, field in corpus.config(name).columns.items()]
           for name in ("cardinal_responses", "dueling_responses")}


def loader_rows(config, path, source):
    tables = loader._file_tables(corpus.config(config), str(path), source)
    return [row for table in tables for row in table.to_pylist()]


def pandas_rows(config, data, source):
    """The rows upstream's reader gives for the CSV `data`, typed as the loader's features are."""
    frame = pandas.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False)
    name = source.rsplit("/", 1)[-1]
    features = corpus.features(config)
    rows = []
    for position, record in enumerate(frame.to_dict("records")):
        index = record.pop("Unnamed: 0", None)  # pandas' name for an index column named '' or 'Unnamed: 0'
        row = {"contest": int(name[:3]), "source_file": name, "row_index": position if index is None else int(index)}
        for column, text in record.items():
            field = "rating" if column == "target_reward" else column
            row[field] = typed(features[field].dtype, text)
        if config == "cardinal_responses":
            row["rating_label"] = row["rating"] - 1
        rows.append({field: row[field] for field in features})
    return rows


def typed(dtype, text):
    if text == "":
        return None
    if dtype.startswith("int"):
        number = float(text)
        assert number == int(number), text
        return int(number)
    if dtype == "float64":
        return float(text)
    if dtype.startswith("timestamp"):
        return datetime.datetime.fromisoformat(text)
    return text


# --- the shapes ---------------------------------------------------------------------------------

captions = st.text(alphabet=st.sampled_from(list('ab ,"\n\r\'é’\t')), min_size=1, max_size=20)
words = st.text(alphabet=st.sampled_from(list("abcXYZ019_")), min_size=1, max_size=12)
stamps = st.datetimes(datetime.datetime(2015, 1, 1), datetime.datetime(2019, 12, 31))
seconds = st.floats(min_value=0, max_value=1e5, allow_nan=False, allow_infinity=False)


def integers(low, high, nullable=False):
    return st.one_of(st.none(), st.integers(low, high)) if nullable else st.integers(low, high)


# The values of each column (None: an empty cell), as upstream's evidence allows them.
VALUES = {
    "alg_label": st.sampled_from(["LilUCB", "KLUCB", "RoundRobin", "RandomSampling", "Random"]),
    "network_delay": st.one_of(st.none(), seconds),
    "response_time": st.one_of(st.none(), seconds),
    "participant_uid": words,
    "participant_id": words,
    "timestamp_query_generated": stamps,
    "target": st.one_of(st.none(), captions),
    "target_id": integers(0, 10_024, nullable=True),
    "target_reward": integers(1, 3),
    "left_target": st.one_of(st.none(), captions),
    "right_target": st.one_of(st.none(), captions),
    "winner_target": st.one_of(st.none(), captions),
    "left_target_id": integers(0, 10_024),
    "right_target_id": integers(0, 10_024),
    "winner_target_id": integers(0, 10_024),
}


def written(column, value, as_floats, with_microseconds):
    """`value` as pandas writes it: integers of a float column as `3.0`, floats by repr, datetimes
    with microseconds where any has them."""
    if value is None:
        return None
    if isinstance(value, datetime.datetime):
        return value.isoformat(sep=" ", timespec="microseconds" if with_microseconds else "seconds")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    if isinstance(value, int) and not as_floats:
        return str(value)
    return repr(float(value))


@st.composite
def archives(draw):
    config = draw(st.sampled_from(sorted(CONFIGS)))
    columns = draw(st.permutations(CONFIGS[config]))
    index = draw(st.sampled_from(["", "Unnamed: 0", None]))
    count = draw(st.integers(1, 25))
    records = [{column: draw(VALUES[column]) for column in columns} for _ in range(count)]
    # pandas writes an integer column with an empty cell (NaN) as floats, and may write any as floats
    as_floats = {column: draw(st.booleans()) or any(r[column] is None for r in records) for column in columns}
    with_microseconds = draw(st.booleans())
    indexes = sorted(draw(st.sets(st.integers(0, 10**7), min_size=count, max_size=count)))
    rows = [
        ([] if index is None else [position if draw(st.booleans()) else indexes[position]])
        + [written(c, record[c], as_floats[c], with_microseconds) for c in columns]
        for position, record in enumerate(records)
    ]
    for at in sorted(draw(st.lists(st.integers(0, count), max_size=2)), reverse=True):
        rows.insert(at, [])  # a blank line before record `at` (at the end: after the last)
    header = ([] if index is None else [index]) + list(columns)
    return config, header, rows, draw(st.sampled_from(["\n", "\r\n"]))


def cardinal_row(caption):
    return ["KLUCB", "0.5", "u", "1.0", "1", "3", "2017-07-28 17:05:39", caption]


# Found (58eea86): a last caption ending in a line feed has the file read whole, where the CR LF of
# the first caption straddles two of pyarrow's 512-byte blocks.
CR_LF_ACROSS_BLOCKS = ("cardinal_responses", ["alg_label", "network_delay", "participant_uid", "response_time", "target_id",
                                              "target_reward", "timestamp_query_generated", "target"],
                       [cardinal_row("x" * 359 + "\r\nb"), cardinal_row("end\n")], "\n")

# An archive ending with a blank line (a file appended to, an editor's last line): pandas skips it.
ENDS_WITH_A_BLANK_LINE = ("cardinal_responses", CR_LF_ACROSS_BLOCKS[1], [cardinal_row("end"), []], "\r\n")


# Not a FUZZ row: its oracle is pandas' reading of the same bytes, value by value, which a Fuzz row cannot state.
@settings(max_examples=150, deadline=None)
@given(archives(), st.sampled_from([reader.BLOCK_SIZE, 512, 1024]))  # a block holds the header
@example(CR_LF_ACROSS_BLOCKS, 512)
@example(ENDS_WITH_A_BLANK_LINE, reader.BLOCK_SIZE)
def test_the_loader_reads_what_pandas_reads(tmp_path_factory, shape, block_size):
    config, header, rows, newline = shape
    source = RESPONSES + "556-responses.csv.zip"
    data = archive_bytes("556-responses.csv", header, rows, newline)
    path = tmp_path_factory.mktemp("archive") / "556-responses.csv.zip"
    path.write_bytes(data)
    with zipfile.ZipFile(path) as archive:
        csv_data = archive.read("556-responses.csv")
    with pytest.MonkeyPatch.context() as patch:
        # small blocks: block ends inside quoted captions, many batches
        patch.setattr(reader, "BLOCK_SIZE", block_size)
        assert loader_rows(config, path, source) == pandas_rows(config, csv_data, source)
        assert corpus.count_source_records(config, "train", [str(path)]) == len([row for row in rows if row])


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_every_dummy_archive_reads_as_pandas_reads_it(config):
    sources = corpus.config(config).files["train"]
    for source in sources:
        path = corpus.dummy_dir / source
        with zipfile.ZipFile(path) as archive:
            (member,) = archive.namelist()
            csv_data = archive.read(member)
        assert loader_rows(config, path, source) == pandas_rows(config, csv_data, source), source
    assert len(sources) == {"cardinal_responses": 84, "dueling_responses": 3}[config]


def test_the_dummy_archives_show_upstreams_shapes():
    def header(name):
        with zipfile.ZipFile(corpus.dummy_dir / RESPONSES / name) as archive:
            return archive.read(archive.namelist()[0]).split(b"\n", 1)[0].decode()

    assert header("499-responses.csv.zip") == ",alg_label,network_delay,participant_uid,response_time,target,target_id,target_reward,timestamp_query_generated"
    assert header("540-responses.csv.zip") == "Unnamed: 0,alg_label,network_delay,participant_uid,response_time,target,target_id,target_reward,timestamp_query_generated"
    assert header("556-responses.csv.zip") == "participant_uid,response_time,network_delay,timestamp_query_generated,target_reward,alg_label,target,target_id"
    assert header("561-responses.csv.zip") == ",target_id,participant_uid,response_time,network_delay,timestamp_query_generated,target_reward,alg_label,target"
    assert header("508-round2-dueling-responses.csv.zip") == ",participant_id,timestamp_query_generated,left_target_id,right_target_id,winner_target_id,left_target,right_target,winner_target,participant_uid,response_time,network_delay,alg_label"
    assert header("509-round2-dueling-responses.csv.zip") == "participant_id,timestamp_query_generated,left_target_id,right_target_id,winner_target_id,left_target,right_target,winner_target,participant_uid,response_time,network_delay,alg_label"
    # What the loader makes of them: floats as integers, empty target ids null, positions as row_index.
    shown = ["row_index", "target_id", "rating", "rating_label"]
    rows = {name: [{k: row[k] for k in shown} for row in loader_rows("cardinal_responses", corpus.dummy_dir / RESPONSES / name, RESPONSES + name)]
            for name in ("540-responses.csv.zip", "556-responses.csv.zip")}
    assert rows == {
        "540-responses.csv.zip": [{"row_index": 0, "target_id": 6350, "rating": 3, "rating_label": 2},
                                  {"row_index": 1, "target_id": None, "rating": 3, "rating_label": 2}],
        "556-responses.csv.zip": [{"row_index": 0, "target_id": None, "rating": 3, "rating_label": 2},
                                  {"row_index": 1, "target_id": 3893, "rating": 2, "rating_label": 1}],
    }


SUMMARY = "contests/summaries/510_summary_LilUCB.csv"
SUMMARY_HEADER = b"rank,funny,somewhat_funny,unfunny,count,score,precision,contest,caption\n"
SUMMARY_ROWS = [b'1,18,27,24,69,1.9130434782608696,0.09402238590614731,510,"A, b"\n', b'2,1,0,0,1,3.0,inf,510,"c\n\nd"\n']


@pytest.mark.parametrize("blank", ["at the end", "between records", "two at the end"])
def test_a_summary_with_blank_lines_reads_as_pandas_reads_it(tmp_path, blank):
    # pandas skips a blank line (skip_blank_lines); one in a quoted caption is the caption's.
    rows = {"at the end": SUMMARY_ROWS + [b"\n"], "between records": SUMMARY_ROWS[:1] + [b"\n"] + SUMMARY_ROWS[1:],
            "two at the end": SUMMARY_ROWS + [b"\n\n"]}[blank]
    data = SUMMARY_HEADER + b"".join(rows)
    path = tmp_path / "510_summary_LilUCB.csv"
    path.write_bytes(data)
    columns = SUMMARY_HEADER.decode().strip().split(",")
    read = [{column: row[column] for column in columns if column != "contest"}
            for table in loader._file_tables(corpus.config("summaries"), str(path), SUMMARY) for row in table.to_pylist()]
    frame = pandas.read_csv(io.BytesIO(data), keep_default_na=False).drop(columns="contest")
    assert read == frame.to_dict("records") == [
        {"rank": 1, "funny": 18, "somewhat_funny": 27, "unfunny": 24, "count": 69, "score": 1.9130434782608696,
         "precision": 0.09402238590614731, "caption": "A, b"},
        {"rank": 2, "funny": 1, "somewhat_funny": 0, "unfunny": 0, "count": 1, "score": 3.0, "precision": float("inf"),
         "caption": "c\n\nd"},
    ]
    assert corpus.count_source_records("summaries", "train", [str(path)]) == 2
