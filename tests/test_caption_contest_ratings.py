"""caption_contest_ratings: every quirk of loaders/caption_contest_ratings/FORMAT.md, bad input, the
`contests` parameter and the distributed path (streaming shards, split_dataset_by_node, Parquet
read by DuckDB)."""

import csv
import importlib
import io
import math
import re
import zipfile
from datetime import datetime

import datasets
import pyarrow as pa
import pytest
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from conftest import CSV_UNSAFE
from conftest import BadInput
from corpora import build
from corpora import load
from corpora import prepare
from corpora import registry
from synthetic_caption_contest_ratings import CARDINAL_HEADER
from synthetic_caption_contest_ratings import SUMMARY_A
from synthetic_caption_contest_ratings import SUMMARY_B
from synthetic_caption_contest_ratings import archive_bytes
from synthetic_caption_contest_ratings import cardinal_csv
from synthetic_caption_contest_ratings import write_archive

NAME = "caption_contest_ratings"
corpus = registry.get(NAME)
loader = corpus.module
fast_io = importlib.import_module(f"{loader.__package__}._fast_io")
SUMMARIES = "contests/summaries/"
RESPONSES = "contests/responses/"
LFS_POINTER = (
    b"version https://git-lfs.github.com/spec/v1\n"
    b"oid sha256:b2518fdb42ce7a9748e0556a86cde214fcd89574d621ee2407292d6865bf0ed2\nsize 810721\n"
)
HTML_PAGE = b"<!DOCTYPE html>\n<html><head><title>404: Not Found</title></head><body>404</body></html>\n"


def rows_of(dataset, source_file):
    return [row for row in dataset if row["source_file"] == source_file]


def algorithm(index):
    return loader._ALGORITHMS[index]


# --- quirks of the summaries, on the dummy build ------------------------------------------------


@pytest.fixture(scope="module")
def summaries(dummy_build):
    return dummy_build(NAME, "summaries")["train"]


def test_both_headers_target_id_only_in_header_a(summaries):  # quirk 1
    a = rows_of(summaries, "508-round1_summary_LilUCB.csv")
    assert [row["target_id"] for row in a] == [2, 0, 1]
    b = rows_of(summaries, "510_summary_LilUCB.csv")
    assert [row["target_id"] for row in b] == [None, None]
    assert b[0] == {
        "source_file": "510_summary_LilUCB.csv", "contest": 510, "round": None, "algorithm": 1, "variant": None,
        "target_id": None, "rank": 1, "funny": 18, "somewhat_funny": 27, "unfunny": 24, "count": 69,
        "score": 1.9130434782608696, "precision": 0.09402238590614731, "contest_field": 510,
        "caption": "I'm a congressman--obstruction is my job.",
    }


def test_algorithm_typo_is_normalised_and_the_file_name_kept(summaries):  # quirk 2
    typo = rows_of(summaries, "559_summary_RandomSamping.csv")
    assert {algorithm(row["algorithm"]) for row in typo} == {"RandomSampling"}
    short = rows_of(summaries, "540_summary_Random.csv")
    assert [algorithm(row["algorithm"]) for row in short] == ["Random"]


def test_several_summaries_per_contest_rounds_and_variants(summaries):  # quirk 3
    contest_560 = [row for row in summaries if row["contest"] == 560]
    assert [(row["source_file"], row["variant"], row["caption"]) for row in contest_560] == [
        ("560_summary_KLUCB_funny.csv", "funny", "How funny?"),
        ("560_summary_KLUCB_original.csv", "original", "How funny?"),
    ]
    files_508 = sorted({(row["source_file"], row["round"], algorithm(row["algorithm"])) for row in summaries if row["contest"] == 508})
    assert files_508 == [
        ("508-round1_summary_LilUCB.csv", 1, "LilUCB"),
        ("508-round1_summary_RoundRobin.csv", 1, "RoundRobin"),
        ("508-round2_summary_RoundRobin.csv", 2, "RoundRobin"),
    ]


def test_the_688_file_says_contest_689(summaries):  # quirk 4
    rows = rows_of(summaries, "688_summary_KLUCB.csv")
    assert [(row["contest"], row["contest_field"]) for row in rows] == [(688, 689), (688, 689)]
    others = [row for row in summaries if row["source_file"] != "688_summary_KLUCB.csv"]
    assert all(row["contest"] == row["contest_field"] for row in others)


def test_captions_keep_embedded_line_feeds(summaries):  # quirk 5
    rows = rows_of(summaries, "691_summary_KLUCB.csv")
    assert rows[2]["caption"] == "This confirms our theory ....\nHe\u2019s getting way more funding than we are\u201d!"
    assert [row["caption"] for row in rows_of(summaries, "559_summary_RandomSamping.csv")] == [
        "Ends with a line feed.\n", "So does this one.\n"]


def test_rows_swallowed_into_a_caption_stay_one_caption(summaries):  # quirk 6
    rows = rows_of(summaries, "523_summary_LilUCB.csv")
    assert len(rows) == 2
    assert rows[0]["caption"] == (
        "So....what type of business did you say you were in?\n"
        "65,25,11,Well at least they're not on our backs any more.\n3,4,5,\"Quoted\""
    )


def test_a_caption_that_is_a_single_space(summaries):  # quirk 7
    row = rows_of(summaries, "529_summary_LilUCB.csv")[1]
    assert (row["rank"], row["count"], row["score"], row["caption"]) == (1866, 50, 1.28, " ")


def test_duplicate_captions_are_separate_rows(summaries):  # quirk 8
    rows = rows_of(summaries, "557_summary_LilUCB.csv")
    twice = [(row["rank"], row["count"]) for row in rows if row["caption"] == "Well, I'll be damned..."]
    assert twice == [(1, 10), (4, 3)]


def test_precision_inf_when_count_is_one(summaries):  # quirk 9
    row = rows_of(summaries, "512_summary_LilUCB.csv")[1]
    assert (row["rank"], row["count"], row["caption"]) == (1791, 1, "I have a rug, can I join women's yoga now?")
    assert math.isinf(row["precision"]) and row["precision"] > 0
    assert all(math.isinf(r["precision"]) == (r["count"] == 1) for r in summaries)


def test_tied_ranks_with_gaps(summaries):  # quirk 10
    assert [row["rank"] for row in rows_of(summaries, "508-round1_summary_LilUCB.csv")] == [1, 1, 3]


def test_non_ascii_mojibake_and_whitespace_are_kept(summaries):  # quirks 11, 12
    assert rows_of(summaries, "531_summary_LilUCB.csv")[0]["caption"] == (
        "The Viagra isn\u00e2\u20ac\u2122t working, all I have is a stiff neck.\u00e2\u20ac\u009d")
    rows = rows_of(summaries, "691_summary_KLUCB.csv")
    assert rows[0]["caption"] == "Should I check, \u201cexceeded expectations?\u201d"
    assert rows[3]["caption"] == 'He said "no" and\tleft.'
    assert rows[4]["caption"] == "zero\u200bwidth and no\u00a0break "


def test_every_summary_file_and_header(summaries):
    assert len(corpus.config("summaries").files["train"]) == 199
    files = sorted(set(summaries["source_file"]))
    assert len(files) == 199
    headers = {name: (corpus.dummy_dir / SUMMARIES / name).read_bytes().split(b"\n", 1)[0].decode() for name in files}
    assert sum(header == ",".join(SUMMARY_A) for header in headers.values()) == 110
    assert sum(header == ",".join(SUMMARY_B) for header in headers.values()) == 89
    assert summaries.num_rows == 400


# --- responses and cartoons ---------------------------------------------------------------------


def test_cardinal_rows_keep_every_value(dummy_build):
    rows = rows_of(dummy_build(NAME, "cardinal_responses")["train"], "577-responses.csv.zip")
    assert rows[0] == {
        "contest": 577, "source_file": "577-responses.csv.zip", "row_index": 0, "alg_label": "KLUCB",
        "participant_uid": "eea58658d9d40ceaf97f0bccbfa324_BuIKwH3xGWWASxp", "response_time": 28.324,
        "network_delay": 0.670163, "timestamp_query_generated": datetime(2017, 7, 28, 17, 5, 39, 90118),
        "target_id": 4181, "target": "Should I check, \u201cexceeded expectations?\u201d", "rating": 3, "rating_label": 2,
    }
    assert (rows[1]["network_delay"], rows[1]["target"], rows[1]["rating"], rows[1]["rating_label"]) == (
        None, 'Two\nlines, and "quotes"', 1, 0)
    assert (rows[2]["target"], rows[2]["rating_label"], rows[2]["timestamp_query_generated"]) == (
        " ", 1, datetime(2017, 7, 29, 0, 0, 0, 1))


def test_response_coverage(dummy_build):  # quirk 14, 15
    cardinal = corpus.config("cardinal_responses").files["train"]
    dueling = corpus.config("dueling_responses").files["train"]
    assert (len(cardinal), len(dueling)) == (84, 3)
    assert [path.rsplit("/", 1)[1] for path in dueling] == [
        "497-responses.csv.zip", "508-round2-dueling-responses.csv.zip", "509-round2-dueling-responses.csv.zip"]
    assert not [path for path in cardinal + dueling if "/554" in path or "/525" in path]
    assert sorted({row["contest"] for row in dummy_build(NAME, "dueling_responses")["train"]}) == [497, 508, 509]
    rows = dummy_build(NAME, "dueling_responses")["train"]
    assert all(row["winner_target_id"] in (row["left_target_id"], row["right_target_id"]) for row in rows)


def test_cartoons_png_and_metadata(dummy_build):  # quirk 16
    cartoons = dummy_build(NAME, "cartoons")["train"]
    assert cartoons.num_rows == 186 and len(set(cartoons["contest"])) == 186
    by_contest = {row["contest"]: row for row in cartoons}
    png = by_contest[571]
    assert png["image"]["bytes"].startswith(b"\x89PNG\r\n\x1a\n")
    assert png["image"]["path"] == "contests/info/571/571.jpg"
    assert (png["artist"], png["description"], png["contexts"], png["anomalies"]) == (
        "Artist, With Comma", "A quoted description, with a comma.", ["desert", "island", "palm tree"], ["doorbell", "sand"])
    assert by_contest[508]["image"]["bytes"].startswith(b"\xff\xd8\xff")
    assert (by_contest[508]["artist"], by_contest[508]["description"]) == ("Some Artist", None)
    assert (by_contest[510]["contexts"], by_contest[510]["anomalies"]) == ([], [])


def test_cartoon_images_decode_with_pillow(dummy_build):
    pytest.importorskip("PIL")
    cartoons = dummy_build(NAME, "cartoons")["train"].cast_column("image", datasets.Image())
    assert cartoons[0]["image"].size == (2, 2)


def test_source_record_counts_equal_the_rows(dummy_build, tmp_path):
    for config in corpus.configs:
        paths = [str(corpus.dummy_dir / path) for path in corpus.config(config).files["train"]]
        assert loader._count_source_records(config, "train", paths) == dummy_build(NAME, config)["train"].num_rows
    # downloaded files are cached without their extension
    copies = []
    for index, path in enumerate(corpus.config("cartoons").files["train"]):
        copies.append(tmp_path / f"{index:04d}")
        copies[-1].write_bytes((corpus.dummy_dir / path).read_bytes())
    assert loader._count_source_records("cartoons", "train", [str(p) for p in copies]) == 186


def test_checksums_record_every_url_from_the_format_file():
    lines = (corpus.loader_dir / "checksums.tsv").read_text().splitlines()
    entries = [line.split("\t") for line in lines]
    assert lines == sorted(lines) and all(len(entry) == 3 for entry in entries)
    assert {entry[0] for entry in entries} == set(loader._URLS.values())
    # every file of the appendices is measured; the four metadata files have no published digest
    unmeasured = {entry[0] for entry in entries if entry[1:] == ["-", "-"]}
    assert unmeasured == {loader._URLS[path] for path in loader._METADATA}
    measured = [entry for entry in entries if entry[0] not in unmeasured]
    assert len(measured) == 199 + 87 + 186
    assert all(url.startswith(loader._MEDIA_PREFIX) == url.endswith(".zip") for url, _, _ in measured)
    by_url = {url: (int(size), sha) for url, size, sha in measured}
    assert by_url[loader._URLS[RESPONSES + "497-responses.csv.zip"]] == (
        810721, "b2518fdb42ce7a9748e0556a86cde214fcd89574d621ee2407292d6865bf0ed2")
    assert by_url[loader._URLS["contests/info/691/691.jpg"]] == (
        347057, "fd31df5c26f84420c988dd2d7d2d2a563b70177c1fba3c7203289d9fa2c63ab3")


# --- the contests parameter -----------------------------------------------------------------------


def builder_for(config, tmp_path, **kwargs):
    # through the registry: datasets 3.x would check the dummy build against the card's official sizes
    return corpus.builder(config, corpus.dummy_dir, tmp_path, **kwargs)


def test_contests_restrict_every_config_and_get_their_own_cache(tmp_path):
    plain = builder_for("summaries", tmp_path)
    some = builder_for("summaries", tmp_path, contests=[691, 508])
    assert some.config.contests == [691, 508]
    assert some.config.name == "summaries" and some.config_id != plain.config_id
    some.download_and_prepare()
    rows = some.as_dataset()["train"]
    assert sorted(set(rows["source_file"])) == [
        "508-round1_summary_LilUCB.csv", "508-round1_summary_RoundRobin.csv", "508-round2_summary_RoundRobin.csv",
        "691_summary_KLUCB.csv"]
    cartoons = builder_for("cartoons", tmp_path, contests=[571])
    cartoons.download_and_prepare()
    assert cartoons.as_dataset()["train"]["contest"] == [571]
    cardinal = builder_for("cardinal_responses", tmp_path, contests=[577])
    assert cardinal.as_streaming_dataset()["train"].n_shards == 1


@pytest.mark.parametrize("contests,message", [
    ([123], "summaries: no source file for contests [123]"),
    ("508", "contests: expected a list of contest numbers (ints), got '508'"),
    ([508.0], "contests: expected a list of contest numbers (ints), got [508.0]"),
])
def test_bad_contests(tmp_path, contests, message):
    with pytest.raises(ValueError) as caught:
        builder_for("summaries", tmp_path, contests=contests).download_and_prepare()
    assert str(caught.value) == message


# --- the distributed path -------------------------------------------------------------------------


def test_streaming_shards_are_the_files():
    streamed = load(NAME, "summaries", dummy=True, streaming=True)["train"]
    assert streamed.n_shards == 199
    assert load(NAME, "cardinal_responses", dummy=True, streaming=True)["train"].n_shards == 84
    assert load(NAME, "cartoons", dummy=True, streaming=True)["train"].n_shards == 186


def row_key(row):
    return (row["source_file"], row["rank"], row["caption"], row["count"])


def split_by_node(streamed, world_size):
    from datasets.distributed import split_dataset_by_node

    return [[row_key(row) for row in split_dataset_by_node(streamed, rank=rank, world_size=world_size)]
            for rank in range(world_size)]


def assert_disjoint_and_complete(parts, expected):
    assert sorted(k for part in parts for k in part) == sorted(expected)
    assert all(set(a).isdisjoint(b) for i, a in enumerate(parts) for b in parts[i + 1:])


@pytest.mark.parametrize("world_size", [2, 3])
def test_split_dataset_by_node_is_disjoint_and_complete(world_size, summaries):
    # 199 files is not a multiple of the world size: datasets then reads every file on every node
    # and keeps every world_size-th example, still disjoint and complete.
    streamed = load(NAME, "summaries", dummy=True, streaming=True)["train"]
    assert_disjoint_and_complete(split_by_node(streamed, world_size), [row_key(row) for row in summaries])


def test_split_dataset_by_node_gives_whole_files_when_they_divide(tmp_path, summaries):
    # 4 files (508: three, 691: one) over 2 nodes: each node reads its own 2 files.
    streamed = builder_for("summaries", tmp_path, contests=[508, 691]).as_streaming_dataset()["train"]
    assert streamed.n_shards == 4
    parts = split_by_node(streamed, 2)
    expected = [row_key(row) for row in summaries if row["contest"] in (508, 691)]
    assert_disjoint_and_complete(parts, expected)
    files = [{key[0] for key in part} for part in parts]
    assert [len(f) for f in files] == [2, 2] and files[0].isdisjoint(files[1])


def test_parquet_export_reads_as_is_with_duckdb(dummy_export):
    duckdb = pytest.importorskip("duckdb")
    folder = dummy_export(NAME)
    con = duckdb.connect()
    summaries = con.sql(
        f"select count(*), count(target_id), max(precision) from '{folder}/summaries/*.parquet'").fetchall()[0]
    assert summaries == (400, 224, math.inf)  # target_id: 110 header-A files, 2 rows each but 508 (3) and 691 (5)
    caption = con.sql(f"select caption from '{folder}/summaries/*.parquet' where source_file = '529_summary_LilUCB.csv' and rank = 1866").fetchall()[0]
    assert caption == (" ",)
    ts = con.sql(f"select timestamp_query_generated, network_delay from '{folder}/cardinal_responses/*.parquet' "
                 "where source_file = '577-responses.csv.zip' order by row_index").fetchall()
    assert ts[0] == (datetime(2017, 7, 28, 17, 5, 39, 90118), 0.670163) and ts[1][1] is None
    images = con.sql(f"select contest, octet_length(image.bytes), image.path from '{folder}/cartoons/*.parquet' where contest = 571").fetchall()[0]
    assert images[0] == 571 and images[1] > 0 and images[2] == "contests/info/571/571.jpg"


def test_parquet_export_reads_as_is_with_polars(dummy_export):
    import polars as pl

    folder = dummy_export(NAME)
    summaries = pl.scan_parquet(f"{folder}/summaries/*.parquet")
    counts = summaries.select(pl.len(), pl.col("target_id").count(), pl.col("precision").max()).collect().row(0)
    assert counts == (400, 224, math.inf)
    single_space = summaries.filter((pl.col("source_file") == "529_summary_LilUCB.csv") & (pl.col("rank") == 1866))
    assert single_space.select("caption").collect().item() == " "
    cardinal = pl.read_parquet(f"{folder}/cardinal_responses/*.parquet")
    assert cardinal.schema["timestamp_query_generated"] == pl.Datetime("us")
    rows = cardinal.filter(pl.col("source_file") == "577-responses.csv.zip").sort("row_index")
    assert rows["timestamp_query_generated"][0] == datetime(2017, 7, 28, 17, 5, 39, 90118)
    assert rows["network_delay"].to_list()[:2] == [0.670163, None]
    cartoon = pl.read_parquet(f"{folder}/cartoons/*.parquet").filter(pl.col("contest") == 571)["image"][0]
    assert cartoon["path"] == "contests/info/571/571.jpg" and cartoon["bytes"].startswith(b"\x89PNG")


# --- bad input ----------------------------------------------------------------------------------

SUMMARY = SUMMARIES + "510_summary_LilUCB.csv"
ARCHIVE = RESPONSES + "577-responses.csv.zip"
GOOD_B = b"rank,funny,somewhat_funny,unfunny,count,score,precision,contest,caption\n1,18,27,24,69,1.9130434782608696,0.09402238590614731,510,\"A, b\"\n"


def summary_error(tmp_path, data, source=SUMMARY):
    path = tmp_path / "file.csv"
    path.write_bytes(data)
    with pytest.raises(ValueError) as caught:
        list(loader._summary_tables(loader._read_summary_file(str(path), source), str(path), source))
    return str(caught.value)


def cardinal_error(tmp_path, path, source=ARCHIVE):
    with pytest.raises(ValueError) as caught:
        list(loader._cardinal_tables(loader._read_archive(str(path), source), str(path), source))
    return str(caught.value)


def cardinal_zip(tmp_path, rows, header=CARDINAL_HEADER, **kwargs):
    return write_archive(tmp_path / "577-responses.csv.zip", header, rows, **kwargs)


ROW = [0, "KLUCB", "0.67", "abc_def", "28.3", "A caption", 4181, 3, "2017-07-28 17:05:39.090118"]


# (case, bytes of a summary file, the start of the line the user sees); docs/bad_input.md lists them.
SUMMARY_CASES = list(zip(["truncated-line", "truncated-quote", "latin1", "bom", "semicolons", "missing-column", "extra-column",
        "extra-cell", "empty", "header-only", "non-numeric-count", "empty-count", "negative", "count-sum", "score-range",
        "nan", "contest", "empty-caption", "int32-overflow", "lfs-pointer", "html", "crlf"], [
    (GOOD_B[:-20], f"{SUMMARY}: invalid CSV (CSV parse error: Row #2: Expected 9 columns, got 7: 1,18,27,24,69,1.9130434782608696,0.094022385)"),
    (GOOD_B[:-5], f"{SUMMARY}: does not end with a line feed after record 1; the file is truncated"),
    (GOOD_B.replace(b"A, b", "caf\u00e9".encode("cp1252")), f"{SUMMARY}, record 1: field 'caption': not UTF-8 (byte 0xe9 in b'caf\\xe9')"),
    (b"\xef\xbb\xbf" + GOOD_B, f"{SUMMARY}: starts with a UTF-8 byte order mark; the release files have none"),
    (GOOD_B.replace(b",", b";"), f"{SUMMARY}: unexpected header: expected columns 'target_id,rank,funny,somewhat_funny,unfunny,count,score,precision,contest,caption' or 'rank,funny,somewhat_funny,unfunny,count,score,precision,contest,caption'; found 'rank;funny;"),
    (GOOD_B.replace(b",precision", b""), f"{SUMMARY}: unexpected header: expected columns "),
    (GOOD_B.replace(b"caption\n", b"caption,extra\n"), f"{SUMMARY}: unexpected header: expected columns "),
    (GOOD_B.replace(b'"A, b"', b'"A, b",x'), f"{SUMMARY}: invalid CSV (CSV parse error: Row #2: Expected 9 columns, got 10"),
    (b"", f"{SUMMARY}: is empty (expected a CSV file)"),
    (GOOD_B.split(b"\n")[0] + b"\n", f"{SUMMARY}: has no records after the header"),
    (GOOD_B.replace(b",69,", b",abc,"), f"{SUMMARY}, record 1: field 'count': invalid value 'abc' (expected an integer)"),
    (GOOD_B.replace(b",69,", b",,"), f"{SUMMARY}, record 1: field 'count': invalid value '' (expected an integer)"),
    (GOOD_B.replace(b"1,18,", b"1,-18,"), f"{SUMMARY}, record 1: field 'funny': invalid value -18 (expected an integer >= 0)"),
    (GOOD_B.replace(b",69,", b",70,"), f"{SUMMARY}, record 1: field 'count': invalid value 70 (expected funny + somewhat_funny + unfunny, >= 1)"),
    (GOOD_B.replace(b",1.9130434782608696,", b",3.5,"), f"{SUMMARY}, record 1: field 'score': invalid value 3.5 (expected a number from 1 to 3)"),
    (GOOD_B.replace(b",0.09402238590614731,", b",nan,"), f"{SUMMARY}, record 1: field 'precision': invalid value nan (expected a number > 0 or inf)"),
    (GOOD_B.replace(b",510,", b",511,"), f"{SUMMARY}, record 1: field 'contest': invalid value 511 (expected the file's contest 510)"),
    (GOOD_B.replace(b'"A, b"', b'""'), f"{SUMMARY}, record 1: field 'caption': invalid value '' (expected a non-empty caption)"),
    (GOOD_B.replace(b"\n1,", b"\n99999999999,"), f"{SUMMARY}, record 1: field 'rank': invalid value '99999999999' (expected an integer)"),
    (LFS_POINTER, f"{SUMMARY}: is a Git LFS pointer, not the data; fetch the real file (git lfs pull)"),
    (HTML_PAGE, f"{SUMMARY}: is an HTML page, not the data (an error page saved in its place?)"),
    (GOOD_B.replace(b"\n", b"\r\n"), f"{SUMMARY}: line 1 ends with CR LF; the release files use LF only"),
], strict=True))


@pytest.mark.parametrize("data,message", [case for _, case in SUMMARY_CASES], ids=[name for name, _ in SUMMARY_CASES])
def test_bad_summary_file(tmp_path, data, message):
    assert summary_error(tmp_path, data).startswith(message)


def test_unknown_summary_header_names_expected_and_found(tmp_path):
    data = b"caption,mean,precision,votes,not_funny,somewhat_funny,funny\nA,1.0,0.1,1,1,0,0\n"
    assert summary_error(tmp_path, data) == (
        f"{SUMMARY}: unexpected header: expected columns "
        "'target_id,rank,funny,somewhat_funny,unfunny,count,score,precision,contest,caption' or "
        "'rank,funny,somewhat_funny,unfunny,count,score,precision,contest,caption'; found "
        "'caption,mean,precision,votes,not_funny,somewhat_funny,funny'")


def test_unknown_summary_file_name(tmp_path):
    assert summary_error(tmp_path, GOOD_B, SUMMARIES + "510_summary_Thompson.csv") == (
        f"{SUMMARIES}510_summary_Thompson.csv: not a summary file name (<contest>[-round<r>]_summary_<alg>[_<variant>].csv)")


def test_bad_value_in_a_later_batch_names_the_record(tmp_path, monkeypatch):
    monkeypatch.setattr(fast_io, "BLOCK_SIZE", 1 << 10)  # many batches
    body = b"".join(b"%d,1,0,0,1,3.0,inf,510,caption %d\n" % (i, i) for i in range(1, 400))
    data = GOOD_B.split(b"\n")[0] + b"\n" + body.replace(b"\n300,1,0,0,1,", b"\n300,1,0,0,x,")
    assert summary_error(tmp_path, data) == f"{SUMMARY}, record 300: field 'count': invalid value 'x' (expected an integer)"


def test_bad_cardinal_values(tmp_path):
    where = f"{ARCHIVE}!577-responses.csv"
    assert cardinal_error(tmp_path, cardinal_zip(tmp_path, [ROW[:7] + [4] + ROW[8:]])) == (
        f"{where}, record 1: field 'target_reward': invalid value 4 (expected 1 (unfunny), 2 (somewhat funny) or 3 (funny))")
    assert cardinal_error(tmp_path, cardinal_zip(tmp_path, [ROW[:7] + ["funny"] + ROW[8:]])) == (
        f"{where}, record 1: field 'target_reward': invalid value 'funny' (expected an integer)")
    assert cardinal_error(tmp_path, cardinal_zip(tmp_path, [ROW[:8] + ["yesterday"]])) == (
        f"{where}, record 1: field 'timestamp_query_generated': invalid value 'yesterday' (expected a timestamp YYYY-MM-DD HH:MM:SS[.ffffff])")
    assert cardinal_error(tmp_path, cardinal_zip(tmp_path, [ROW, ROW[:6] + ["-1.0"] + ROW[7:]])) == (
        f"{where}, record 2: field 'target_id': invalid value -1 (expected an integer >= 0)")
    # Integers as pandas writes them in a column with an empty cell: an integral float is the
    # integer, any other number is not one.
    assert cardinal_error(tmp_path, cardinal_zip(tmp_path, [ROW, ROW[:7] + ["3.5"] + ROW[8:]])) == (
        f"{where}, record 2: field 'target_reward': invalid value 3.5 (expected an integer)")
    assert cardinal_error(tmp_path, cardinal_zip(tmp_path, [ROW[:6] + ["4181.25"] + ROW[7:]])) == (
        f"{where}, record 1: field 'target_id': invalid value 4181.25 (expected an integer)")
    assert cardinal_error(tmp_path, cardinal_zip(tmp_path, [ROW[:6] + ["3e9"] + ROW[7:]])) == (
        f"{where}, record 1: field 'target_id': invalid value 3000000000.0 (expected an integer)")
    assert cardinal_error(tmp_path, cardinal_zip(tmp_path, [ROW[:6] + ["nan"] + ROW[7:]])) == (
        f"{where}, record 1: field 'target_id': invalid value nan (expected an integer)")
    assert cardinal_error(tmp_path, cardinal_zip(tmp_path, [["1.5"] + ROW[1:]])) == (
        f"{where}, record 1: field '': invalid value 1.5 (expected an integer)")
    # Written as a float beyond 2**53, where a float no longer holds every integer: refused, not
    # rounded (9007199254740993.0 reads as ...992); written as an integer it is exact.
    assert cardinal_error(tmp_path, cardinal_zip(tmp_path, [ROW, ["9007199254740993.0"] + ROW[1:]])) == (
        f"{where}, record 2: field '': invalid value 9007199254740992.0 (expected an integer)")
    path = cardinal_zip(tmp_path, [ROW, ["9007199254740993"] + ROW[1:]])
    tables = loader._cardinal_tables(loader._read_archive(str(path), ARCHIVE), str(path), ARCHIVE)
    assert [row for table in tables for row in table.column("row_index").to_pylist()] == [0, 9007199254740993]
    # An empty rating is not one (upstream's reader casts every rating to int); an empty target_id is null.
    assert cardinal_error(tmp_path, cardinal_zip(tmp_path, [ROW[:6] + ["", ""] + ROW[8:]])) == (
        f"{where}, record 1: field 'target_reward': invalid value None (expected a value (the cell is empty))")
    assert cardinal_error(tmp_path, cardinal_zip(tmp_path, [ROW[:3] + [""] + ROW[4:]])) == (
        f"{where}, record 1: field 'participant_uid': invalid value None (expected a value (the cell is empty))")


CARDINAL_EXPECTED = ("expected the columns 'alg_label,network_delay,participant_uid,response_time,target,target_id,"
                     "target_reward,timestamp_query_generated' in any order, after an optional pandas index column "
                     "named '' or 'Unnamed: 0'")


def test_archive_header_names_expected_and_found_columns(tmp_path):
    readme_style = ["Partipipant ID", "Response Time (s)", "Network delay (s)", "Timestamp", "Alg label", "Target", "Rating"]
    message = cardinal_error(tmp_path, cardinal_zip(tmp_path, [["a", 1, 1, "t", "x", "y", 1]], header=readme_style))
    assert message == (
        f"{ARCHIVE}!577-responses.csv: unexpected header: unknown column(s) 'Partipipant ID', 'Response Time (s)', "
        "'Network delay (s)', 'Timestamp', 'Alg label', 'Target', 'Rating'; missing column(s) 'alg_label', "
        "'network_delay', 'participant_uid', 'response_time', 'target', 'target_id', 'target_reward', "
        f"'timestamp_query_generated'; {CARDINAL_EXPECTED}")


@pytest.mark.parametrize("header,problems", [
    (CARDINAL_HEADER + ["label"], "unknown column(s) 'label'"),
    ([name for name in CARDINAL_HEADER if name != "target_id"], "missing column(s) 'target_id'"),
    (["Unnamed: 0"] + CARDINAL_HEADER[1:-1] + ["target_reward"], "missing column(s) 'timestamp_query_generated'; "
                                                                  "repeated column(s) 'target_reward'"),
    # the index column is pandas' only as the first one
    (CARDINAL_HEADER[1:] + [""], "unknown column(s) ''"),
    (["index"] + CARDINAL_HEADER[1:], "unknown column(s) 'index'"),
], ids=["unknown", "missing", "repeated", "index-last", "index-named"])
def test_archive_columns_unknown_missing_or_repeated(tmp_path, header, problems):
    rows = [list(range(len(header)))]
    assert cardinal_error(tmp_path, cardinal_zip(tmp_path, rows, header=header)) == (
        f"{ARCHIVE}!577-responses.csv: unexpected header: {problems}; {CARDINAL_EXPECTED}")


def test_a_dueling_archive_is_not_a_cardinal_one(tmp_path):  # quirk 15
    path = corpus.dummy_dir / RESPONSES / "497-responses.csv.zip"
    assert cardinal_error(tmp_path, path, RESPONSES + "497-responses.csv.zip") == (
        f"{RESPONSES}497-responses.csv.zip!497-responses.csv: unexpected header: unknown column(s) 'left_target', "
        "'left_target_id', 'participant_id', 'right_target', 'right_target_id', 'winner_target', 'winner_target_id'; "
        f"missing column(s) 'target', 'target_id', 'target_reward'; {CARDINAL_EXPECTED}")


ARCHIVE_CASES = list(zip(["lfs-pointer", "html", "empty", "plain-csv"], [
    (lambda p: p.write_bytes(LFS_POINTER), f"{ARCHIVE}: is a Git LFS pointer, not the data; fetch the real file (git lfs pull)"),
    (lambda p: p.write_bytes(HTML_PAGE), f"{ARCHIVE}: is an HTML page, not the data (an error page saved in its place?)"),
    (lambda p: p.write_bytes(b""), f"{ARCHIVE}: is empty (expected a zip archive)"),
    (lambda p: p.write_bytes(b",alg_label\n0,KLUCB\n"), f"{ARCHIVE}: not a zip archive (starts with b',alg_label\\n0,KLU'); the download is corrupt"),
], strict=True))
EXPECTED_HEADERS = ("expected columns 'target_id,rank,funny,somewhat_funny,unfunny,count,score,precision,contest,caption' or "
                    "'rank,funny,somewhat_funny,unfunny,count,score,precision,contest,caption'")
# The whole line a build prints for each of the cases above (those check the start of the line on the reader alone).
WHOLE_LINES = {
    "semicolons": f"{SUMMARY}: unexpected header: {EXPECTED_HEADERS}; found "
                  "'rank;funny;somewhat_funny;unfunny;count;score;precision;contest;caption'",
    "missing-column": f"{SUMMARY}: unexpected header: {EXPECTED_HEADERS}; found "
                      "'rank,funny,somewhat_funny,unfunny,count,score,contest,caption'",
    "extra-column": f"{SUMMARY}: unexpected header: {EXPECTED_HEADERS}; found "
                    "'rank,funny,somewhat_funny,unfunny,count,score,precision,contest,caption,extra'",
    "extra-cell": f"{SUMMARY}: invalid CSV (CSV parse error: Row #2: Expected 9 columns, got 10: "
                  '1,18,27,24,69,1.9130434782608696,0.09402238590614731,510,"A, b",x)',
}


def _bytes_of(maker):
    """The bytes an ARCHIVE_CASES maker writes."""
    class File:
        def write_bytes(self, data):
            self.data = data

    file = File()
    maker(file)
    return file.data


BAD_INPUT = [
    BadInput(SUMMARY, f"summary file: {name}", lambda raw, data=data: data, WHOLE_LINES.get(name, message), "summaries")
    for name, (data, message) in SUMMARY_CASES
] + [
    BadInput(ARCHIVE, f"response archive: {name}", lambda raw, data=data: data, message, "cardinal_responses")
    for name, (make, message) in ARCHIVE_CASES
    for data in [_bytes_of(make)]
] + [
    BadInput(SUMMARY, "summary file: header not UTF-8", lambda raw: b"r\xe9nk" + raw[4:],
             f"{SUMMARY}, line 1: not UTF-8 (byte 0xe9 at offset 1 of the line: invalid continuation byte)", "summaries"),
    BadInput(SUMMARY, "summary file: XML", lambda raw: b"<?xml version='1.0'?>\n<summary/>\n",
             f"{SUMMARY}: unexpected header: {EXPECTED_HEADERS}; found \"<?xml version='1.0'?>\"", "summaries"),
] + [
    BadInput(ARCHIVE, f"response archive: {name}", lambda raw, header=header, row=row: archive_bytes("577-responses.csv", header, [row]), message,
             "cardinal_responses")
    for name, header, row, message in [
        ("unknown column", CARDINAL_HEADER + ["label"], ROW + ["funny"],
         f"{ARCHIVE}!577-responses.csv: unexpected header: unknown column(s) 'label'; {CARDINAL_EXPECTED}"),
        ("rating not an integer", CARDINAL_HEADER, ROW[:7] + ["2.5"] + ROW[8:],
         f"{ARCHIVE}!577-responses.csv, record 1: field 'target_reward': invalid value 2.5 (expected an integer)"),
        ("empty rating", CARDINAL_HEADER, ROW[:7] + [""] + ROW[8:],
         f"{ARCHIVE}!577-responses.csv, record 1: field 'target_reward': invalid value None "
         "(expected a value (the cell is empty))"),
    ]
]



@pytest.mark.parametrize("make,message", [case for _, case in ARCHIVE_CASES], ids=[name for name, _ in ARCHIVE_CASES])
def test_not_an_archive(tmp_path, make, message):
    path = tmp_path / "577-responses.csv.zip"
    make(path)
    assert cardinal_error(tmp_path, path) == message


# Both inflaters: ISA-L (a dependency) and zlib (the loader's fallback where isal is missing).
INFLATERS = pytest.mark.parametrize("inflater", ["isal", "zlib"], indirect=True)


@pytest.fixture
def inflater(request, monkeypatch):
    import zlib

    from isal import isal_zlib

    monkeypatch.setattr(fast_io, "deflate", {"isal": isal_zlib, "zlib": zlib}[request.param])
    return request.param


@INFLATERS
def test_corrupt_zip(tmp_path, inflater):
    good = cardinal_zip(tmp_path, [ROW] * 50).read_bytes()
    truncated = tmp_path / "truncated.zip"
    truncated.write_bytes(good[: len(good) // 2])
    assert cardinal_error(tmp_path, truncated) == (
        f"{ARCHIVE}: corrupt zip archive (File is not a zip file)")
    # A changed byte of a stored member: only the CRC-32 of the central directory tells.
    stored = tmp_path / "stored.zip"
    with zipfile.ZipFile(stored, "w") as archive:
        archive.writestr("577-responses.csv", cardinal_csv(3000))
    data = bytearray(stored.read_bytes())
    at = data.index(b"caption 17,")
    data[at + 8] = ord("8")
    stored.write_bytes(bytes(data))
    assert cardinal_error(tmp_path, stored) == (
        f"{ARCHIVE}: corrupt zip archive (Bad CRC-32 for file '577-responses.csv')")
    # Damage inside the deflate stream: the inflater or the CRC-32 stops it.
    damaged = bytearray(good)
    damaged[60:70] = b"\x00" * 10
    path = tmp_path / "damaged.zip"
    path.write_bytes(bytes(damaged))
    assert cardinal_error(tmp_path, path) == f"{ARCHIVE}: corrupt zip archive (" + {
        "isal": "Error -1 Invalid deflate block found)",
        "zlib": "Error -3 while decompressing data: invalid code -- missing end-of-block)",
    }[inflater]
    # The compressed data ends early while the central directory is intact.
    short = tmp_path / "short.zip"
    with zipfile.ZipFile(short, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("577-responses.csv", cardinal_csv(3000))
    with zipfile.ZipFile(short) as archive:
        info = archive.getinfo("577-responses.csv")
    data = bytearray(short.read_bytes())
    start = info.header_offset + 30 + len(info.filename)
    cut = start + info.compress_size // 2
    short.write_bytes(bytes(data[:cut] + data[start + info.compress_size:]))
    assert cardinal_error(tmp_path, short) == (
        f"{ARCHIVE}: corrupt zip archive (Bad magic number for file header of '577-responses.csv')")


def test_archive_with_two_csvs_or_macos_entries(tmp_path):
    two = cardinal_zip(tmp_path, [ROW], extra_members=[("other.csv", b"a\n1\n")])
    assert cardinal_error(tmp_path, two) == (
        f"{ARCHIVE}: expected exactly one CSV file in the archive, found 2: ['577-responses.csv', 'other.csv']")
    mac = cardinal_zip(tmp_path, [ROW], extra_members=[("__MACOSX/._577-responses.csv", b"\x00\x05\x16\x07")])
    assert cardinal_error(tmp_path, mac) == (
        f"{ARCHIVE}: has macOS resource entries (__MACOSX/._577-responses.csv); expected exactly one CSV file")
    empty = tmp_path / "empty.zip"
    zipfile.ZipFile(empty, "w").close()
    assert cardinal_error(tmp_path, empty).startswith(f"{ARCHIVE}: not a zip archive (starts with b'PK\\x05\\x06")


def test_archive_member_bom_and_encoding(tmp_path):
    bom = write_archive(tmp_path / "577-responses.csv.zip", ["\ufeff"], [])
    assert cardinal_error(tmp_path, bom) == f"{ARCHIVE}!577-responses.csv: starts with a UTF-8 byte order mark; the release files have none"
    path = tmp_path / "latin.zip"
    with zipfile.ZipFile(path, "w") as archive:
        text = ",".join(CARDINAL_HEADER) + "\n0,KLUCB,0.1,u,1.0,caf\u00e9,1,1,2017-07-28 17:05:39\n"
        archive.writestr("577-responses.csv", text.encode("cp1252"))
    assert cardinal_error(tmp_path, path) == f"{ARCHIVE}!577-responses.csv, record 1: field 'target': not UTF-8 (byte 0xe9 in b'caf\\xe9')"


def test_bad_cartoon_and_metadata(tmp_path):
    jpg = tmp_path / "571.jpg"
    jpg.write_bytes(LFS_POINTER)
    meta = {path: str(corpus.dummy_dir / path) for path in loader._METADATA}
    with pytest.raises(ValueError) as caught:
        list(loader._cartoon_tables([str(jpg)], ["contests/info/571/571.jpg"], meta))
    assert str(caught.value).startswith("contests/info/571/571.jpg: is a Git LFS pointer, not the data")
    jpg.write_bytes(b"GIF89a....")
    with pytest.raises(ValueError) as caught:
        list(loader._cartoon_tables([str(jpg)], ["contests/info/571/571.jpg"], meta))
    assert str(caught.value) == "contests/info/571/571.jpg: not a JPEG or PNG image (starts with b'GIF89a..')"
    bad = tmp_path / "contexts.yaml"
    bad.write_text("508: {office: 1}\n")
    with pytest.raises(ValueError) as caught:
        loader._read_word_lists(str(bad), loader._CONTEXTS)
    assert str(caught.value) == "contests/metadata/contexts.yaml, line 1: expected `<contest>: [word, word, ...]`, found '508: {office: 1}'"
    bad.write_text("contest,painter\n508,X\n")
    with pytest.raises(ValueError) as caught:
        loader._read_pairs(str(bad), loader._ARTISTS, ["contest", "artist"])
    assert str(caught.value) == "contests/artists.csv: unexpected header: expected columns 'contest,artist'; found 'contest,painter'"


def test_a_bad_file_stops_the_build_with_its_message(dummy_copy):
    data_dir = dummy_copy(NAME)
    (data_dir / SUMMARIES / "512_summary_LilUCB.csv").write_bytes(LFS_POINTER)
    with pytest.raises(Exception) as caught:
        load(NAME, data_dir=data_dir, allow_modified_sources=True)
    error = caught.value
    while not isinstance(error, ValueError) and error.__cause__ is not None:
        error = error.__cause__
    assert str(error).startswith(f"{SUMMARIES}512_summary_LilUCB.csv: is a Git LFS pointer, not the data")


def test_missing_files_are_listed(dummy_copy, tmp_path):
    data_dir = dummy_copy(NAME)
    (data_dir / SUMMARIES / "512_summary_LilUCB.csv").unlink()
    (data_dir / ARCHIVE).unlink()
    with pytest.raises(FileNotFoundError) as caught:
        build.export(prepare.Request(NAME, data_dir=data_dir), tmp_path / "out")
    assert "caption_contest_ratings: 2 source file(s) missing: " in str(caught.value)
    assert f"{SUMMARIES}512_summary_LilUCB.csv" in str(caught.value) and ARCHIVE in str(caught.value)
    # the loader alone (a config parameter skips the toolkit's check) lists what it needs
    with pytest.raises(FileNotFoundError) as caught:
        load(NAME, "summaries", data_dir=data_dir, contests=[512, 513], allow_modified_sources=True)
    assert str(caught.value) == (
        f"1 source file(s) missing in {data_dir}: {SUMMARIES}512_summary_LilUCB.csv")


# --- properties of the parsers ---------------------------------------------------------------------

INT_TEXT = re.compile(r"[+-]?[0-9]+")


def one_row(rank_text):
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(SUMMARY_B)
    writer.writerow([rank_text, 1, 0, 0, 1, "3.0", "inf", 510, "c"])
    return out.getvalue().encode("utf-8")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters=CSV_UNSAFE), max_size=12), st.integers(-(2**40), 2**40).map(str)))
def test_any_rank_cell_gives_its_value_or_a_clear_error(tmp_path, text):
    path = tmp_path / "one.csv"
    path.write_bytes(one_row(text))
    try:
        table = pa.concat_tables(loader._summary_tables(loader._read_summary_file(str(path), SUMMARY), str(path), SUMMARY))
    except ValueError as error:
        assert str(error).startswith((f"{SUMMARY}: ", f"{SUMMARY}, record "))
        return
    assert INT_TEXT.fullmatch(text.strip()) and 1 <= int(text) < 2**31
    assert table.column("rank").to_pylist() == [int(text)]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters=CSV_UNSAFE), max_size=12), st.floats(allow_nan=True).map(repr)))
def test_any_score_cell_gives_its_value_or_a_clear_error(tmp_path, text):
    path = tmp_path / "one.csv"
    data = one_row("1").replace(b",3.0,", b"," + _quoted(text) + b",")
    path.write_bytes(data)
    try:
        table = pa.concat_tables(loader._summary_tables(loader._read_summary_file(str(path), SUMMARY), str(path), SUMMARY))
    except ValueError as error:
        assert str(error).startswith((f"{SUMMARY}: ", f"{SUMMARY}, record "))
        return
    value = table.column("score")[0].as_py()
    assert 1.0 <= value <= 3.0 and value == float(text)


def _quoted(text):
    out = io.StringIO(newline="")
    csv.writer(out, lineterminator="").writerow([text])
    return out.getvalue().encode("utf-8")


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
    assert loader._parse_summary_name(name) == {
        "source_file": name, "contest": contest, "round": round_,
        "algorithm": "RandomSampling" if alg == "RandomSamping" else alg, "variant": variant}


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
        found = fast_io.check_header(head, SUMMARY, loader._SUMMARY_FORMAT)
    except ValueError as error:
        assert str(error).startswith((f"{SUMMARY}: ", f"{SUMMARY}, line 1: "))
        return
    assert found in (SUMMARY_A, SUMMARY_B)
