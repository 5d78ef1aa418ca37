"""caption_contest_ratings's `contests` parameter and the distributed path: streaming shards,
split_dataset_by_node, the Parquet export read by DuckDB and polars."""

import math
from datetime import datetime

import pytest

from corpora import load
from corpora import registry

NAME = "caption_contest_ratings"
corpus = registry.get(NAME)


@pytest.fixture(scope="module")
def summaries(dummy_build):
    return dummy_build(NAME, "summaries")["train"]


def builder_for(config, tmp_path, **kwargs):
    # through the registry: datasets 3.x would check the dummy build against the card's official sizes
    return corpus.builder(config, corpus.dummy_dir, tmp_path, **kwargs)


@pytest.mark.both_legs
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


@pytest.mark.both_legs
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
@pytest.mark.both_legs
def test_split_dataset_by_node_is_disjoint_and_complete(world_size, summaries):
    # 199 files is not a multiple of the world size: datasets then reads every file on every node
    # and keeps every world_size-th example, still disjoint and complete.
    streamed = load(NAME, "summaries", dummy=True, streaming=True)["train"]
    assert_disjoint_and_complete(split_by_node(streamed, world_size), [row_key(row) for row in summaries])


@pytest.mark.both_legs
def test_split_dataset_by_node_gives_whole_files_when_they_divide(tmp_path, summaries):
    # 4 files (508: three, 691: one) over 2 nodes: each node reads its own 2 files.
    streamed = builder_for("summaries", tmp_path, contests=[508, 691]).as_streaming_dataset()["train"]
    assert streamed.n_shards == 4
    parts = split_by_node(streamed, 2)
    expected = [row_key(row) for row in summaries if row["contest"] in (508, 691)]
    assert_disjoint_and_complete(parts, expected)
    assert [sorted({key[0] for key in part}) for part in parts] == [
        ["508-round1_summary_LilUCB.csv", "508-round2_summary_RoundRobin.csv"], ["508-round1_summary_RoundRobin.csv", "691_summary_KLUCB.csv"]]


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
    images = con.sql(f"select contest, octet_length(image.bytes), image.path from '{folder}/cartoons/*.parquet' where contest = 571").fetchall()
    assert images == [(571, 79, "contests/info/571/571.jpg")]  # the file's 79 bytes


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
    assert cartoon == {"bytes": (corpus.dummy_dir / "contests/info/571/571.jpg").read_bytes(), "path": "contests/info/571/571.jpg"}
