"""caption_contest_ratings: every quirk of loaders/caption_contest_ratings/FORMAT.md, as declarations that
tests/test_declared.py and tests/test_bad_input.py run (bad inputs: _bad_input.py; how a file is read: _io.py),
the checks no row can hold, the `contests` parameter and the distributed path (SCALE.md)."""

import math
import re
from datetime import datetime

import pytest
from hypothesis import strategies as st

from corpora import cards
from corpora import load
from corpora import registry
from corpora.errors import CorporaError
from helpers import CSV_UNSAFE
from helpers import Downloads
from helpers import Fuzz
from helpers import builder_rows
from helpers import set_cell
from synthetic_caption_contest_ratings import SUMMARY_A
from synthetic_caption_contest_ratings import SUMMARY_B
from synthetic_caption_contest_ratings import in_member

NAME = "caption_contest_ratings"
corpus = registry.get(NAME)
SUMMARIES, RESPONSES, CONTEXTS = "contests/summaries/", "contests/responses/", "contests/metadata/contexts.yaml"
SUMMARY, ARCHIVE = SUMMARIES + "510_summary_LilUCB.csv", RESPONSES + "577-responses.csv.zip"
S, C, K = ("summaries", "train"), ("cardinal_responses", "train"), ("cartoons", "train")
COMMIT = "9e38b2b73a4541dd26111e05b90bcca6bdcae008"
DOWNLOADS = Downloads(  # the archives from GitHub's LFS host, the rest from its raw files
    (f"https://raw.githubusercontent.com/nextml/caption-contest-data-api/{COMMIT}/",
     f"https://media.githubusercontent.com/media/nextml/caption-contest-data-api/{COMMIT}/"),
    ("summaries", "cardinal_responses", "dueling_responses", "cartoons"),
)
# No FULL_SIZE: cardinal_responses and dueling_responses have no official size (None), and the
# summaries' 1,081,771 rows are built at that size by bench/toolkit_overhead.py instead.

any_bytes = st.binary(max_size=200).map(lambda data: lambda raw: data)
cells = st.one_of(
    st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters=CSV_UNSAFE), max_size=12),
    st.integers(-(2**40), 2**40).map(str), st.floats(allow_nan=True).map(repr),
    st.sampled_from(["", " ", "0", "1", "3", "inf", "1e3", "4181.0", "2017-07-28 17:05:39", "KLUCB"]),
)
any_cell = st.builds(set_cell, st.integers(1, 10), st.integers(0, 9), cells)
# Any file, or any cell of one: the typed rows or one line naming the file (which value a cell gives: the
# pandas oracle of tests/test_caption_contest_ratings_io.py, and RANGES below). Each builds the fuzzed file's
# contest alone (`contests`): its files are read as in the whole build.
FUZZ = [
    Fuzz(SUMMARY, "summaries", any_bytes, re.escape(SUMMARY), 25, config_kwargs={"contests": [510]}),
    Fuzz(SUMMARY, "summaries", any_cell, re.escape(SUMMARY), 60, config_kwargs={"contests": [510]}),
    Fuzz(ARCHIVE, "cardinal_responses", any_bytes, re.escape(ARCHIVE), 25, config_kwargs={"contests": [577]}),
    Fuzz(ARCHIVE, "cardinal_responses", any_cell.map(in_member), re.escape(ARCHIVE), 60,
         found=(in_member(set_cell(2, 0, "-9007199254740992.0")),),  # -2**53 in the index column (423f5e5)
         config_kwargs={"contests": [577]}),
    Fuzz(CONTEXTS, "cartoons", st.text(max_size=80).map(lambda text: lambda raw: text.encode()), re.escape(CONTEXTS), 40,
         config_kwargs={"contests": [508]}),
]

def file(name, **more):
    """The summary rows of one file (and of `more` values), in order."""
    return {"source_file": name, **more}


# (config, split, key, field, expected): the dummy build's values, class labels by name; a dict
# key selects rows, and `expected` lists the field over them. Quirk numbers: FORMAT.md.
QUIRKS = [
    (*S, file("508-round1_summary_LilUCB.csv"), "target_id", [2, 0, 1]),  # 1: target_id only in header A
    (*S, file("510_summary_LilUCB.csv"), "target_id", [None, None]),
    (*S, file("510_summary_LilUCB.csv", rank=1), "", [{
        "source_file": "510_summary_LilUCB.csv", "contest": 510, "round": None, "algorithm": "LilUCB", "variant": None,
        "target_id": None, "rank": 1, "funny": 18, "somewhat_funny": 27, "unfunny": 24, "count": 69,
        "score": 1.9130434782608696, "precision": 0.09402238590614731, "contest_field": 510,
        "caption": "I'm a congressman--obstruction is my job.",
    }]),
    (*S, file("559_summary_RandomSamping.csv"), "algorithm", ["RandomSampling"] * 2),  # 2: the typo normalised
    (*S, file("540_summary_Random.csv"), "algorithm", ["Random"]),
    (*S, {"contest": 560}, "source_file", ["560_summary_KLUCB_funny.csv", "560_summary_KLUCB_original.csv"]),  # 3
    (*S, {"contest": 560}, "variant", ["funny", "original"]), (*S, {"contest": 560}, "caption", ["How funny?"] * 2),
    (*S, {"contest": 508}, "source_file", ["508-round1_summary_LilUCB.csv"] * 3 + ["508-round1_summary_RoundRobin.csv"] * 2
     + ["508-round2_summary_RoundRobin.csv"] * 2),
    (*S, {"contest": 508}, "round", [1, 1, 1, 1, 1, 2, 2]), (*S, {"contest": 508}, "algorithm", ["LilUCB"] * 3 + ["RoundRobin"] * 4),
    (*S, file("688_summary_KLUCB.csv"), "contest", [688, 688]), (*S, file("688_summary_KLUCB.csv"), "contest_field", [689, 689]),  # 4
    (*S, file("691_summary_KLUCB.csv"), "caption", [  # 5: line feeds; 11, 12: non-ASCII and white space kept
        "Should I check, \u201cexceeded expectations?\u201d", "Let\u2019s just give him the damn cheese.",
        "This confirms our theory ....\nHe\u2019s getting way more funding than we are\u201d!", 'He said "no" and\tleft.',
        "zero\u200bwidth and no\u00a0break "]),
    (*S, file("559_summary_RandomSamping.csv"), "caption", ["Ends with a line feed.\n", "So does this one.\n"]),
    (*S, file("523_summary_LilUCB.csv"), "caption", [  # 6: rows swallowed into a caption stay one caption
        "So....what type of business did you say you were in?\n65,25,11,Well at least they're not on our backs any more.\n"
        '3,4,5,"Quoted"', "A normal one."]),
    (*S, file("529_summary_LilUCB.csv", rank=1866), "count", [50]),  # 7: a caption that is a single space
    (*S, file("529_summary_LilUCB.csv", rank=1866), "score", [1.28]), (*S, file("529_summary_LilUCB.csv", rank=1866), "caption", [" "]),
    (*S, file("557_summary_LilUCB.csv", caption="Well, I'll be damned..."), "rank", [1, 4]),  # 8: duplicate captions
    (*S, file("557_summary_LilUCB.csv", caption="Well, I'll be damned..."), "count", [10, 3]),
    (*S, file("512_summary_LilUCB.csv", rank=1791), "count", [1]),  # 9: precision inf where count is 1
    (*S, file("512_summary_LilUCB.csv", rank=1791), "caption", ["I have a rug, can I join women's yoga now?"]),
    (*S, file("512_summary_LilUCB.csv", rank=1791), "precision", [math.inf]),
    (*S, file("508-round1_summary_LilUCB.csv"), "rank", [1, 1, 3]),  # 10: tied ranks with gaps
    (*S, file("531_summary_LilUCB.csv"), "caption", [  # 11: mojibake kept
        "The Viagra isn\u00e2\u20ac\u2122t working, all I have is a stiff neck.\u00e2\u20ac\u009d"]),
    (*C, ("577-responses.csv.zip", 0), "", {
        "contest": 577, "source_file": "577-responses.csv.zip", "row_index": 0, "alg_label": "KLUCB",
        "participant_uid": "eea58658d9d40ceaf97f0bccbfa324_BuIKwH3xGWWASxp", "response_time": 28.324,
        "network_delay": 0.670163, "timestamp_query_generated": datetime(2017, 7, 28, 17, 5, 39, 90118),
        "target_id": 4181, "target": "Should I check, \u201cexceeded expectations?\u201d", "rating": 3, "rating_label": "funny",
    }),
    (*C, ("577-responses.csv.zip", 1), "network_delay", None), (*C, ("577-responses.csv.zip", 1), "target", 'Two\nlines, and "quotes"'),
    (*C, ("577-responses.csv.zip", 1), "rating", 1), (*C, ("577-responses.csv.zip", 1), "rating_label", "unfunny"),
    (*C, ("577-responses.csv.zip", 2), "target", " "), (*C, ("577-responses.csv.zip", 2), "rating_label", "somewhat_funny"),
    (*C, ("577-responses.csv.zip", 2), "timestamp_query_generated", datetime(2017, 7, 29, 0, 0, 0, 1)),
    (*K, 571, "image.path", "contests/info/571/571.jpg"), (*K, 571, "artist", "Artist, With Comma"),  # 16
    (*K, 571, "description", "A quoted description, with a comma."),
    (*K, 571, "contexts", ["desert", "island", "palm tree"]), (*K, 571, "anomalies", ["doorbell", "sand"]),
    (*K, 508, "artist", "Some Artist"), (*K, 508, "description", None), (*K, 510, "contexts", []), (*K, 510, "anomalies", []),
]


@pytest.fixture(scope="module")
def summaries(dummy_build):
    return dummy_build(NAME, "summaries")["train"]


# --- what no row can hold -----------------------------------------------------------------


def test_every_summary_file_has_one_of_the_two_headers(summaries):  # quirk 1
    paths = corpus.config("summaries").files["train"]
    headers = [(corpus.dummy_dir / path).read_bytes().split(b"\n", 1)[0].decode().split(",") for path in paths]
    assert (len(paths), sorted(set(summaries["source_file"])), summaries.num_rows) == (199, [path.rsplit("/", 1)[1] for path in paths], 400)
    assert (headers.count(SUMMARY_A), headers.count(SUMMARY_B)) == (110, 89)  # as many as upstream's


def test_response_coverage():  # quirks 14 (no archive of 525 or 554), 15 (three dueling archives); their counts: n_shards below
    cardinal, dueling = (corpus.config(config).files["train"] for config in ("cardinal_responses", "dueling_responses"))
    assert [path for path in cardinal + dueling if "/554" in path or "/525" in path] == []
    assert dueling == [RESPONSES + name for name in ("497-responses.csv.zip", "508-round2-dueling-responses.csv.zip", "509-round2-dueling-responses.csv.zip")]


def test_cartoons_png_and_metadata(dummy_build):  # quirk 16; their other values: QUIRKS
    images = {row["contest"]: row["image"] for row in dummy_build(NAME, "cartoons")["train"]}
    assert (len(images), images[571]["bytes"][:8], images[508]["bytes"][:3]) == (186, b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff")  # a PNG in a .jpg
    path = "contests/info/{0}/{0}.jpg".format
    assert [c for c, image in images.items() if image != {"bytes": (corpus.dummy_dir / path(c)).read_bytes(), "path": path(c)}] == []


@pytest.mark.both_legs
def test_streaming_cartoons_reads_each_file_once(monkeypatch):
    # Streaming calls the generator once per image: the metadata files are read at the first, once.
    module = registry.get(NAME).module  # the module the builder is built from now
    reads, read_data = [], module._read_data
    monkeypatch.setattr(module, "_read_data", lambda file, source, what: reads.append(source) or read_data(file, source, what))
    streamed = load(NAME, "cartoons", streaming=True, data_dir=str(corpus.dummy_dir), allow_modified_sources=True)
    assert sum(1 for _ in streamed["train"]) == 186
    assert sorted(reads) == sorted(corpus.config("cartoons").paths)  # the images and the metadata files


@pytest.mark.both_legs
def test_a_metadata_file_that_stalls_while_streaming_cartoons_is_one_line(monkeypatch, online):
    from fault_server import FaultServer

    for variable, value in {"TIMEOUT": "1", "RETRIES": "1", "BACKOFF": "0.01"}.items():
        monkeypatch.setenv(f"CORPORA_DOWNLOAD_{variable}", value)
    server = FaultServer(corpus.dummy_dir, {"contests/artists.csv": ["stall"] * 10})
    for config in registry.get(NAME).builder_class.BUILDER_CONFIGS:  # the configs the builder is built from now
        monkeypatch.setattr(config, "url_prefix", server.base)
    try:
        with pytest.raises(CorporaError) as caught:
            list(load(NAME, "cartoons", split="train", streaming=True))
    finally:
        server.close()
    # read in the generator, where the stream's failures are one line (not in _split_generators)
    assert str(caught.value) == (
        f"{NAME}/cartoons: cannot stream {server.base}contests/artists.csv: nothing came for 1 s (2 tries). To stream "
        "a local copy of the upstream files instead, pass data_dir=DIR with this file at DIR/contests/artists.csv")


def test_checksums_record_every_url_from_the_format_file():
    lines = (corpus.loader_dir / "checksums.tsv").read_text().splitlines()
    entries = {url: (size, sha) for url, size, sha in (line.split("\t") for line in lines)}
    assert (lines == sorted(lines), set(entries)) == (True, set(corpus.urls.values()))
    # every file of the appendices is measured; the four metadata files have no published digest
    assert sorted(url for url, entry in entries.items() if entry == ("-", "-")) == sorted(
        corpus.urls[path] for path in corpus.config("cartoons").metadata)
    measured = {url: entry for url, entry in entries.items() if entry != ("-", "-")}
    media = corpus.config("cardinal_responses").url_prefix  # Git LFS: the response archives
    assert (len(measured), [url for url in measured if url.startswith(media) != url.endswith(".zip")]) == (199 + 87 + 186, [])
    assert (measured[corpus.urls[RESPONSES + "497-responses.csv.zip"]], measured[corpus.urls["contests/info/691/691.jpg"]]) == (
        ("810721", "b2518fdb42ce7a9748e0556a86cde214fcd89574d621ee2407292d6865bf0ed2"),
        ("347057", "fd31df5c26f84420c988dd2d7d2d2a563b70177c1fba3c7203289d9fa2c63ab3"))


def test_an_export_lists_the_tasks_of_its_configs(partial_export):
    for configs, categories, ids in [
        (["summaries"], ["text-classification", "text-ranking"], ["text-scoring"]),
        (["cartoons"], ["image-to-text"], []),
        (["summaries", "cartoons"], ["text-classification", "text-ranking", "image-to-text"], ["text-scoring"]),
    ]:
        metadata = cards.read_metadata(partial_export(NAME, configs) / "README.md")
        assert (metadata["task_categories"], metadata.get("task_ids", [])) == (categories, ids), configs


def test_the_card_says_what_the_counts_mean_in_original_rows():  # quirk 23, originality-counts
    # In `560 ... original` rows the three counts, and so score, are originality ratings: the fields say so (the sentence
    # that says it: the rest of a description changes with its citations), and `variant` (summaries) or `source_file`
    # (cardinal responses) says which rows they are (their values: QUIRKS).
    tables = cards.field_tables(corpus)
    said = {name: description for config in ("summaries", "cardinal_responses") for name, _, _, description in tables[config]}
    assert [sentence for name, sentence in [
        ("funny", "In rows whose `variant` is `original`, the number of the top originality rating"),
        ("somewhat_funny", 'in `original` rows, of "somewhat original" ratings'), ("unfunny", 'in `original` rows, of "unoriginal" ratings'),
        ("score", "in `original` rows a mean originality, not funniness"), ("variant", "leave these rows out when studying funniness"),
        ("rating", "In the rows of `560-original-responses.csv.zip` (`source_file`) it rates originality instead"),
    ] if sentence not in said[name]] == []


# Each documented range at both edges (FORMAT.md and the fields' declared types): the last valid value is read as that
# number, the first invalid one refused with the line of BAD_INPUT's table. Line 2 of the file (record 1) is changed; in
# an archive, that of its member. An integer beyond 2**53 written as one is read exactly.
RANGES = [  # (file, config, column, field, values read, values refused, the refusal's expected part)
    (SUMMARY, "summaries", "rank", "rank", [1, 2**31 - 1], [0], "an integer >= 1"),
    (SUMMARY, "summaries", "score", "score", [1.0, 3.0], [math.nextafter(1.0, 0.0), math.nextafter(3.0, 4.0)], "a number from 1 to 3"),
    (SUMMARY, "summaries", "precision", "precision", [5e-324, math.inf], [0.0], "a number > 0 or inf"),
    (ARCHIVE, "cardinal_responses", "target_reward", "rating", [1, 3], [0, 4], "1 (unfunny), 2 (somewhat funny) or 3 (funny)"),
    (ARCHIVE, "cardinal_responses", "target_id", "target_id", [0], [-1], "an integer >= 0"),
    (ARCHIVE, "cardinal_responses", "", "row_index", [0, 2**53 + 1], [-1], "a row index >= 0"),
    (ARCHIVE, "cardinal_responses", "", "row_index", [float(2**53 - 1)], [float(2**53)], "an integer"),  # a float: 2**53 - 1
]
EDGES = [(path, config, column, field, value, refused) for path, config, column, field, read, refused_values, expected in RANGES
         for value, refused in [*[(v, None) for v in read], *[(v, expected) for v in refused_values]]]


@pytest.mark.parametrize("path,config,column,field,value,refused", EDGES, ids=[f"{e[3]}={e[4]!r}" for e in EDGES])
def test_each_range_at_both_edges(path, config, column, field, value, refused, dummy_copy):
    data_dir = dummy_copy(NAME, changed=path)
    change = set_cell(2, column, repr(value) if isinstance(value, float) else str(value))
    (data_dir / path).write_bytes((in_member(change) if path == ARCHIVE else change)((data_dir / path).read_bytes()))
    contest = int(path.rsplit("/", 1)[1][:3])
    if refused is None:
        assert builder_rows(corpus, config, str(data_dir), contests=[contest])["train"][0][field] == value
    else:
        with pytest.raises(ValueError) as caught:
            builder_rows(corpus, config, str(data_dir), contests=[contest])
        where = f"{path}!577-responses.csv" if path == ARCHIVE else path
        assert str(caught.value) == f"{where}, record 1: field {column!r}: invalid value {value!r} (expected {refused})"


# --- the `contests` parameter and the distributed path ----------------------------------------------


def builder_for(config, tmp_path, **kwargs):
    # through the registry: datasets 3.x would check the dummy build against the card's official sizes
    return corpus.builder(config, corpus.dummy_dir, tmp_path, **kwargs)


@pytest.mark.both_legs
def test_streaming_shards_are_the_files_and_contests_restrict_them(tmp_path):
    plain, some = builder_for("summaries", tmp_path), builder_for("summaries", tmp_path, contests=[691, 508])
    assert (some.config.name, some.config.contests, some.config_id != plain.config_id) == ("summaries", [691, 508], True)  # a cache of its own
    some.download_and_prepare()
    assert sorted(set(some.as_dataset()["train"]["source_file"])) == [
        "508-round1_summary_LilUCB.csv", "508-round1_summary_RoundRobin.csv", "508-round2_summary_RoundRobin.csv", "691_summary_KLUCB.csv"]
    cartoons = builder_for("cartoons", tmp_path, contests=[571])
    cartoons.download_and_prepare()
    assert cartoons.as_dataset()["train"]["contest"] == [571]
    shards = {config: [load(NAME, config, dummy=True, streaming=True)["train"].n_shards,
                       builder_for(config, tmp_path, contests=[contest]).as_streaming_dataset()["train"].n_shards]
              for config, contest in [("summaries", 508), ("cardinal_responses", 577), ("cartoons", 571)]}
    assert shards == {"summaries": [199, 3], "cardinal_responses": [84, 1], "cartoons": [186, 1]}


@pytest.mark.parametrize("contests,message", [
    ([123], "summaries: no source file for contests [123]"),
    ("508", "contests: expected a list of contest numbers (ints), got '508'"),
    ([508.0], "contests: expected a list of contest numbers (ints), got [508.0]"),
    # A config parameter skips the toolkit's check of every file (tests/test_generic.py has it): the loader lists them.
    ([512, 513], "1 source file(s) missing in {data_dir}: contests/summaries/512_summary_LilUCB.csv"),
])
def test_bad_contests(dummy_copy, contests, message):
    data_dir = dummy_copy(NAME, changed=SUMMARIES + "512_summary_LilUCB.csv")
    (data_dir / SUMMARIES / "512_summary_LilUCB.csv").unlink()
    with pytest.raises((ValueError, FileNotFoundError)) as caught:
        load(NAME, "summaries", data_dir=data_dir, contests=contests, allow_modified_sources=True)
    assert str(caught.value) == message.format(data_dir=data_dir)


@pytest.mark.both_legs
@pytest.mark.parametrize("contests,world_size,files", [
    # 199 files over 2 or 3 nodes: datasets reads every file on every node and keeps every n-th example
    (None, 2, None), (None, 3, None),
    ([508, 691], 2, [["508-round1_summary_LilUCB.csv", "508-round2_summary_RoundRobin.csv"],  # 4 files: each node its own 2
                     ["508-round1_summary_RoundRobin.csv", "691_summary_KLUCB.csv"]]),
])
def test_split_dataset_by_node_is_disjoint_and_complete(tmp_path, summaries, contests, world_size, files):
    from datasets.distributed import split_dataset_by_node

    streamed = builder_for("summaries", tmp_path, contests=contests).as_streaming_dataset()["train"]
    parts = [[(row["source_file"], row["rank"], row["caption"], row["count"]) for row in split_dataset_by_node(streamed, rank, world_size)]
             for rank in range(world_size)]
    expected = [(row["source_file"], row["rank"], row["caption"], row["count"]) for row in summaries if contests is None or row["contest"] in contests]
    assert sorted(key for part in parts for key in part) == sorted(expected)
    assert [set(a) & set(b) for i, a in enumerate(parts) for b in parts[i + 1:]] == [set()] * (world_size * (world_size - 1) // 2)
    assert files is None or [sorted({key[0] for key in part}) for part in parts] == files


def test_the_parquet_export_reads_as_is_with_duckdb_and_polars(dummy_export):
    duckdb = pytest.importorskip("duckdb")
    import polars as pl

    summaries, cardinal, cartoons = (f"{dummy_export(NAME)}/{config}/*.parquet" for config in ("summaries", "cardinal_responses", "cartoons"))
    sql = duckdb.connect().sql
    by_duckdb = [
        sql(f"select count(*), count(target_id), max(precision) from '{summaries}'").fetchall()[0],
        sql(f"select caption from '{summaries}' where source_file = '529_summary_LilUCB.csv' and rank = 1866").fetchall()[0][0],
        sql(f"select timestamp_query_generated, network_delay from '{cardinal}' where source_file = '577-responses.csv.zip' order by row_index").fetchall()[:2],
        sql(f"select image from '{cartoons}' where contest = 571").fetchall()[0][0],
    ]
    frame = pl.read_parquet(summaries)
    responses = pl.read_parquet(cardinal).filter(pl.col("source_file") == "577-responses.csv.zip").sort("row_index")
    by_polars = [
        frame.select(pl.len(), pl.col("target_id").count(), pl.col("precision").max()).row(0),
        frame.filter((pl.col("source_file") == "529_summary_LilUCB.csv") & (pl.col("rank") == 1866))["caption"].item(),
        responses.select("timestamp_query_generated", "network_delay").rows()[:2],
        pl.read_parquet(cartoons).filter(pl.col("contest") == 571)["image"][0],
    ]
    image = {"bytes": (corpus.dummy_dir / "contests/info/571/571.jpg").read_bytes(), "path": "contests/info/571/571.jpg"}
    # target_id: 110 header-A files, 2 rows each but 508 (3) and 691 (5); the image's 79 bytes whole
    expected = [(400, 224, math.inf), " ", [(datetime(2017, 7, 28, 17, 5, 39, 90118), 0.670163), (datetime(2017, 7, 28, 17, 5, 40), None)], image]
    assert by_duckdb == by_polars == expected
