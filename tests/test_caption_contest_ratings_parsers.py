"""caption_contest_ratings's readers on their own (the loader's summary, archive and word-list
readers and _reader): what no build of the dummy data can reach (another file name, small read
blocks, a damaged archive), and their properties, fuzzed."""

import csv
import importlib
import io
import re
import zipfile

import pyarrow as pa
import pytest
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from corpora import registry
from helpers import CSV_UNSAFE
from synthetic_caption_contest_ratings import CARDINAL_HEADER
from synthetic_caption_contest_ratings import GOOD_B
from synthetic_caption_contest_ratings import ROW
from synthetic_caption_contest_ratings import SUMMARY_A
from synthetic_caption_contest_ratings import SUMMARY_B
from synthetic_caption_contest_ratings import cardinal_csv
from synthetic_caption_contest_ratings import write_archive

NAME = "caption_contest_ratings"
corpus = registry.get(NAME)
loader = corpus.module
reader = importlib.import_module(f"{loader.__package__}._reader")
SUMMARIES = "contests/summaries/"
RESPONSES = "contests/responses/"
SUMMARY = SUMMARIES + "510_summary_LilUCB.csv"
ARCHIVE = RESPONSES + "577-responses.csv.zip"
SUMMARY_CONFIG, CARDINAL = corpus.config("summaries"), corpus.config("cardinal_responses")


def summary_error(tmp_path, data, source=SUMMARY):
    path = tmp_path / "file.csv"
    path.write_bytes(data)
    with pytest.raises(ValueError) as caught:
        list(loader._file_tables(SUMMARY_CONFIG, str(path), source))
    return str(caught.value)


def cardinal_error(tmp_path, path, source=ARCHIVE):
    with pytest.raises(ValueError) as caught:
        list(loader._file_tables(CARDINAL, str(path), source))
    return str(caught.value)


def cardinal_zip(tmp_path, rows, header=CARDINAL_HEADER, **kwargs):
    return write_archive(tmp_path / "577-responses.csv.zip", header, rows, **kwargs)


def test_unknown_summary_file_name(tmp_path):
    assert summary_error(tmp_path, GOOD_B, SUMMARIES + "510_summary_Thompson.csv") == (
        f"{SUMMARIES}510_summary_Thompson.csv: not a summary file name (<contest>[-round<r>]_summary_<alg>[_<variant>].csv)")


@pytest.mark.other_dependencies  # a value that does not convert is found from pyarrow's error (its column and row)
def test_bad_value_in_a_later_batch_names_the_record(tmp_path, monkeypatch):
    monkeypatch.setattr(reader, "BLOCK_SIZE", 1 << 10)  # many batches
    body = b"".join(b"%d,1,0,0,1,3.0,inf,510,caption %d\n" % (i, i) for i in range(1, 400))
    data = GOOD_B.split(b"\n")[0] + b"\n" + body.replace(b"\n300,1,0,0,1,", b"\n300,1,0,0,x,")
    assert summary_error(tmp_path, data) == f"{SUMMARY}, record 300: field 'count': invalid value 'x' (expected an integer)"


def test_an_integer_beyond_2_53_written_as_an_integer_is_exact(tmp_path):
    # Written as a float it is refused (BAD_INPUT, "index 2**53 + 1 as a float"); as an integer it is kept exactly.
    path = cardinal_zip(tmp_path, [ROW, ["9007199254740993"] + ROW[1:]])
    tables = loader._file_tables(CARDINAL, str(path), ARCHIVE)
    assert [row for table in tables for row in table.column("row_index").to_pylist()] == [0, 9007199254740993]


CARDINAL_EXPECTED = ("expected the columns 'alg_label,network_delay,participant_uid,response_time,target,target_id,"
                     "target_reward,timestamp_query_generated' in any order, after an optional pandas index column "
                     "named '' or 'Unnamed: 0'")


def test_a_dueling_archive_is_not_a_cardinal_one(tmp_path):  # quirk 15
    path = corpus.dummy_dir / RESPONSES / "497-responses.csv.zip"
    assert cardinal_error(tmp_path, path, RESPONSES + "497-responses.csv.zip") == (
        f"{RESPONSES}497-responses.csv.zip!497-responses.csv: unexpected header: unknown column(s) 'left_target', "
        "'left_target_id', 'participant_id', 'right_target', 'right_target_id', 'winner_target', 'winner_target_id'; "
        f"missing column(s) 'target', 'target_id', 'target_reward'; {CARDINAL_EXPECTED}")


def stored_with_a_changed_byte():
    """A stored (not compressed) member with a byte changed: only the CRC-32 of the central directory tells."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("577-responses.csv", cardinal_csv(3000))
    data = bytearray(buffer.getvalue())
    data[data.index(b"caption 17,") + 8] = ord("8")
    return bytes(data)


def compressed_data_cut_short():
    """The compressed data ends early while the central directory is intact."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("577-responses.csv", cardinal_csv(3000))
        info = archive.getinfo("577-responses.csv")
    data, start = buffer.getvalue(), info.header_offset + 30 + len(info.filename)
    return data[:start + info.compress_size // 2] + data[start + info.compress_size:]


CORRUPT = [  # (case, the archive's bytes from a good archive of 50 ratings, the cause the line names)
    ("truncated", lambda good: good[: len(good) // 2], "File is not a zip file"),
    ("stored member changed", lambda good: stored_with_a_changed_byte(), "Bad CRC-32 for file '577-responses.csv'"),
    ("deflate stream damaged", lambda good: good[:60] + b"\x00" * 10 + good[70:],  # zlib or the CRC-32 stops it
     "Error -3 while decompressing data: invalid code -- missing end-of-block"),
    ("compressed data cut short", lambda good: compressed_data_cut_short(), "Bad magic number for file header"),
]


@pytest.mark.parametrize("case,corrupt,cause", CORRUPT, ids=[case for case, _, _ in CORRUPT])
def test_corrupt_zip(tmp_path, case, corrupt, cause):
    path = tmp_path / "corrupt.zip"
    path.write_bytes(corrupt(cardinal_zip(tmp_path, [ROW] * 50).read_bytes()))
    assert cardinal_error(tmp_path, path) == f"{ARCHIVE}: corrupt zip archive ({cause})"


# --- properties of the parsers ---------------------------------------------------------------------
# Functions, not FUZZ rows (tests/test_caption_contest_ratings.py has those): each states what a
# reader gives for its input (the cell's value, the parsed name), beyond "the rows or one clear line".

def one_row(column, text):
    """A summary file of one record, `text` in `column` (written as csv writes it)."""
    out = io.StringIO(newline="")
    record = dict(zip(SUMMARY_B, ["1", 1, 0, 0, 1, "3.0", "inf", 510, "c"], strict=True), **{column: text})
    csv.writer(out, lineterminator="\n").writerows([SUMMARY_B, list(record.values())])
    return out.getvalue().encode("utf-8")


any_text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters=CSV_UNSAFE), max_size=12)
# (column, the cells tried, whether a text is read, as what)
CELLS = [
    ("rank", st.one_of(any_text, st.integers(-(2**40), 2**40).map(str)),
     lambda text: re.fullmatch(r"[+-]?[0-9]+", text.strip()) and 1 <= int(text) < 2**31, int),
    ("score", st.one_of(any_text, st.floats(allow_nan=True).map(repr)), None, float),
]


@pytest.mark.parametrize("column,cells,taken,value", CELLS, ids=[cell[0] for cell in CELLS])
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_cell_gives_its_value_or_a_clear_error(tmp_path, column, cells, taken, value, data):
    text = data.draw(cells)
    path = tmp_path / "one.csv"
    path.write_bytes(one_row(column, text))
    try:
        table = pa.concat_tables(loader._file_tables(SUMMARY_CONFIG, str(path), SUMMARY))
    except ValueError as error:
        assert str(error).startswith((f"{SUMMARY}: ", f"{SUMMARY}, record "))
        return
    read = table.column(column)[0].as_py()
    assert read == value(text) and (taken(text) if taken else 1.0 <= read <= 3.0)


@given(st.text(max_size=60))
def test_summary_file_names_parse_or_fail_clearly(name):
    try:
        meta = loader._parse_summary_name(SUMMARIES + name)
    except ValueError as error:
        assert str(error) == f"{SUMMARIES}{name}: not a summary file name (<contest>[-round<r>]_summary_<alg>[_<variant>].csv)"
        return
    assert meta["source_file"] == name and name.endswith(".csv") and meta["contest"] == int(name[:3])


@given(st.sampled_from(range(508, 692)), st.sampled_from([None, 1, 2]),
       st.sampled_from(["LilUCB", "RoundRobin", "KLUCB", "Random", "RandomSamping"]), st.sampled_from([None, "funny", "original"]))
def test_summary_file_names_round_trip(contest, round_, alg, variant):
    name = f"{contest}{'' if round_ is None else f'-round{round_}'}_summary_{alg}{'' if variant is None else '_' + variant}.csv"
    algorithm = "RandomSampling" if alg == "RandomSamping" else alg  # quirk 2, its class label
    assert loader._parse_summary_name(name) == {
        "source_file": name, "contest": contest, "round": round_,
        "algorithm": corpus.features("summaries")["algorithm"].names.index(algorithm), "variant": variant}


@settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=80))
def test_word_lists_parse_or_fail_clearly(tmp_path, text):
    path = tmp_path / "list.yaml"
    path.write_bytes(text.encode("utf-8"))
    try:
        lists = loader._read_word_lists(str(path), loader._CONTEXTS)
    except ValueError as error:
        assert str(error).startswith((f"{loader._CONTEXTS}: ", f"{loader._CONTEXTS}, line "))
        return
    assert all(isinstance(k, int) and all(loader._WORD.fullmatch(w) for w in v) for k, v in lists.items())


@settings(deadline=None)
@given(st.binary(max_size=200))
def test_any_header_bytes_give_a_header_or_a_clear_error(head):
    try:
        found = loader._header(SUMMARY_CONFIG, SUMMARY, head)
    except ValueError as error:
        assert str(error).startswith((f"{SUMMARY}: ", f"{SUMMARY}, line 1: "))
        return
    assert found in (SUMMARY_A, SUMMARY_B)
