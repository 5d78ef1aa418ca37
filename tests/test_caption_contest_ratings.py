"""caption_contest_ratings: every quirk of loaders/caption_contest_ratings/FORMAT.md, as
declarations that tests/test_declared.py and tests/test_bad_input.py run, and the checks no row
can hold. Its readers on their own: tests/test_caption_contest_ratings_parsers.py; the
`contests` parameter and the distributed path: tests/test_caption_contest_ratings_distributed.py."""

import io
import math
import re
import zipfile
from datetime import datetime

import datasets
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

NAME = "caption_contest_ratings"
corpus = registry.get(NAME)
loader = corpus.module
SUMMARIES = "contests/summaries/"
RESPONSES = "contests/responses/"
ARCHIVE = RESPONSES + "577-responses.csv.zip"
S, C, K = ("summaries", "train"), ("cardinal_responses", "train"), ("cartoons", "train")
COMMIT = "9e38b2b73a4541dd26111e05b90bcca6bdcae008"
DOWNLOADS = Downloads(  # the archives from GitHub's LFS host, the rest from its raw files
    (f"https://raw.githubusercontent.com/nextml/caption-contest-data-api/{COMMIT}/",
     f"https://media.githubusercontent.com/media/nextml/caption-contest-data-api/{COMMIT}/"),
    ("summaries", "cardinal_responses", "dueling_responses", "cartoons"),
)
SUMMARY = SUMMARIES + "510_summary_LilUCB.csv"
# No FULL_SIZE: cardinal_responses and dueling_responses have no official size (None), and the
# summaries' 1,081,771 rows are built at that size by bench/toolkit_overhead.py instead.


def in_member(change):
    """A response archive's bytes with its one CSV member changed by `change`."""
    def variant(raw):
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            [member] = archive.namelist()
            data = archive.read(member)
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            archive.writestr(member, change(data))
        return out.getvalue()

    return variant


any_bytes = st.binary(max_size=200).map(lambda data: lambda raw: data)
cells = st.one_of(
    st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters=CSV_UNSAFE), max_size=12),
    st.integers(-(2**40), 2**40).map(str), st.floats(allow_nan=True).map(repr),
    st.sampled_from(["", " ", "0", "1", "3", "inf", "1e3", "4181.0", "2017-07-28 17:05:39", "KLUCB"]),
)
any_cell = st.builds(set_cell, st.integers(1, 10), st.integers(0, 9), cells)
# Any file, or any cell of one: the typed rows or one line naming the file. The readers' own
# properties (a cell's value, pandas' reading) stay functions in tests/test_caption_contest_ratings_parsers.py
# and _pandas.py: a Fuzz row states only "the rows or one clear line", not which value a cell gives.
# Each builds the fuzzed file's contest alone (`contests`): its files are read as in the whole build.
FUZZ = [
    Fuzz(SUMMARY, "summaries", any_bytes, re.escape(SUMMARY), 25, config_kwargs={"contests": [510]}),
    Fuzz(SUMMARY, "summaries", any_cell, re.escape(SUMMARY), 60, config_kwargs={"contests": [510]}),
    Fuzz(ARCHIVE, "cardinal_responses", any_bytes, re.escape(ARCHIVE), 25, config_kwargs={"contests": [577]}),
    Fuzz(ARCHIVE, "cardinal_responses", any_cell.map(in_member), re.escape(ARCHIVE), 60,
         found=(in_member(set_cell(2, 0, "-9007199254740992.0")),),  # -2**53 in the index column (423f5e5)
         config_kwargs={"contests": [577]}),
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


def rows_of(dataset, source_file):
    return [row for row in dataset if row["source_file"] == source_file]


# --- what no row can hold -----------------------------------------------------------------


@pytest.fixture(scope="module")
def summaries(dummy_build):
    return dummy_build(NAME, "summaries")["train"]


def test_file_wide_quirks(summaries):
    others = [row for row in summaries if row["source_file"] != "688_summary_KLUCB.csv"]
    assert all(row["contest"] == row["contest_field"] for row in others)  # 4: only the 688 file says another contest
    assert all(math.isinf(r["precision"]) == (r["count"] == 1) for r in summaries)  # 9
    assert len(rows_of(summaries, "523_summary_LilUCB.csv")) == 2  # 6


def test_every_summary_file_and_header(summaries):
    assert len(corpus.config("summaries").files["train"]) == 199
    files = sorted(set(summaries["source_file"]))
    assert len(files) == 199
    headers = {name: (corpus.dummy_dir / SUMMARIES / name).read_bytes().split(b"\n", 1)[0].decode() for name in files}
    assert sum(header == ",".join(SUMMARY_A) for header in headers.values()) == 110
    assert sum(header == ",".join(SUMMARY_B) for header in headers.values()) == 89
    assert summaries.num_rows == 400


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
    image = {row["contest"]: row["image"]["bytes"] for row in cartoons}  # its other values: QUIRKS
    assert (image[571][:8], image[508][:3]) == (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff")  # a PNG in a .jpg, and a JPEG
    assert [image[c] == (corpus.dummy_dir / f"contests/info/{c}/{c}.jpg").read_bytes() for c in (571, 508)] == [True, True]


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


def test_cartoon_images_decode_with_pillow(dummy_build):
    pytest.importorskip("PIL")
    cartoons = dummy_build(NAME, "cartoons")["train"].cast_column("image", datasets.Image())
    assert cartoons[0]["image"].size == (2, 2)


def test_checksums_record_every_url_from_the_format_file():
    lines = (corpus.loader_dir / "checksums.tsv").read_text().splitlines()
    entries = [line.split("\t") for line in lines]
    assert lines == sorted(lines) and all(len(entry) == 3 for entry in entries)
    assert {entry[0] for entry in entries} == set(corpus.urls.values())
    # every file of the appendices is measured; the four metadata files have no published digest
    unmeasured = {entry[0] for entry in entries if entry[1:] == ["-", "-"]}
    assert unmeasured == {corpus.urls[path] for path in corpus.config("cartoons").metadata}
    measured = [entry for entry in entries if entry[0] not in unmeasured]
    assert len(measured) == 199 + 87 + 186
    media = corpus.config("cardinal_responses").url_prefix  # Git LFS: the response archives
    assert all(url.startswith(media) == url.endswith(".zip") for url, _, _ in measured)
    by_url = {url: (int(size), sha) for url, size, sha in measured}
    assert by_url[corpus.urls[RESPONSES + "497-responses.csv.zip"]] == (
        810721, "b2518fdb42ce7a9748e0556a86cde214fcd89574d621ee2407292d6865bf0ed2")
    assert by_url[corpus.urls["contests/info/691/691.jpg"]] == (
        347057, "fd31df5c26f84420c988dd2d7d2d2a563b70177c1fba3c7203289d9fa2c63ab3")


def test_with_contests_the_loader_lists_the_missing_files_it_needs(dummy_copy):
    # A config parameter skips the toolkit's check of every file (tests/test_generic.py has it).
    data_dir = dummy_copy(NAME)
    (data_dir / SUMMARIES / "512_summary_LilUCB.csv").unlink()
    (data_dir / ARCHIVE).unlink()
    with pytest.raises(FileNotFoundError) as caught:
        load(NAME, "summaries", data_dir=data_dir, contests=[512, 513], allow_modified_sources=True)
    assert str(caught.value) == (
        f"1 source file(s) missing in {data_dir}: {SUMMARIES}512_summary_LilUCB.csv")


def test_an_export_lists_the_tasks_of_its_configs(partial_export):
    for configs, categories, ids in [
        (["summaries"], ["text-classification", "text-ranking"], ["text-scoring"]),
        (["cartoons"], ["image-to-text"], []),
        (["summaries", "cartoons"], ["text-classification", "text-ranking", "image-to-text"], ["text-scoring"]),
    ]:
        metadata = cards.read_metadata(partial_export(NAME, configs) / "README.md")
        assert (metadata["task_categories"], metadata.get("task_ids", [])) == (categories, ids), configs


def test_the_card_says_what_the_counts_mean_in_original_rows(dummy_build):  # quirk 23, originality-counts
    # In `560 ... original` rows the three counts, and so score, are originality ratings: the field
    # descriptions say so where they are described, and `variant` (summaries) or `source_file`
    # (cardinal responses) says which rows they are.
    summaries = dict((name, description) for name, _, _, description in cards.field_tables(corpus)["summaries"])
    assert "In rows whose `variant` is `original`, the number of the top originality rating" in summaries["funny"]
    assert "in `original` rows, of \"somewhat original\" ratings" in summaries["somewhat_funny"]
    assert "in `original` rows, of \"unoriginal\" ratings" in summaries["unfunny"]
    assert "in `original` rows a mean originality, not funniness" in summaries["score"]
    assert "leave these rows out when studying funniness" in summaries["variant"]
    cardinal = dict((name, description) for name, _, _, description in cards.field_tables(corpus)["cardinal_responses"])
    assert "In the rows of `560-original-responses.csv.zip` (`source_file`) it rates originality" in cardinal["rating"]
    card = corpus.card_path.read_text(encoding="utf-8")
    for description in (summaries[name] for name in ("funny", "somewhat_funny", "unfunny", "score", "variant")):
        assert description in card
    variants = {(row["source_file"], row["variant"]) for row in dummy_build(NAME, "summaries")["train"]}
    assert {variant for _, variant in variants} == {None, "funny", "original"}
    assert {file for file, variant in variants if variant == "original"} == {"560_summary_KLUCB_original.csv"}


# Each documented range at both edges (FORMAT.md and the fields' declared types): the last valid value
# is read as that number, the first invalid one refused with the line of BAD_INPUT's table. Line 2 of
# the file (record 1) is changed; in an archive, that of its member.
RANGES = [  # (file, config, column, field, values read, values refused, the refusal's expected part)
    (SUMMARY, "summaries", "rank", "rank", [1, 2**31 - 1], [0], "an integer >= 1"),
    (SUMMARY, "summaries", "score", "score", [1.0, 3.0], [math.nextafter(1.0, 0.0), math.nextafter(3.0, 4.0)], "a number from 1 to 3"),
    (SUMMARY, "summaries", "precision", "precision", [5e-324, math.inf], [0.0], "a number > 0 or inf"),
    (ARCHIVE, "cardinal_responses", "target_reward", "rating", [1, 3], [0, 4], "1 (unfunny), 2 (somewhat funny) or 3 (funny)"),
    (ARCHIVE, "cardinal_responses", "target_id", "target_id", [0], [-1], "an integer >= 0"),
    (ARCHIVE, "cardinal_responses", "", "row_index", [0, float(2**53 - 1)], [float(2**53)], "an integer"),  # a float: 2**53 - 1
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
