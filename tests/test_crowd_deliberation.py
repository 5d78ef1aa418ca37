"""crowd_deliberation: every quirk of loaders/crowd_deliberation/FORMAT.md, as declarations that
tests/test_declared.py and tests/test_bad_input.py run, and the checks no row can hold."""

import csv
import json
import logging
import random
import re

import pytest
from hypothesis import strategies as st

from corpora import load
from corpora import registry
from corpora.cards import export_source
from corpora.cards import field_rows
from helpers import CSV_UNSAFE
from helpers import Downloads
from helpers import FullSize
from helpers import Fuzz
from helpers import builder_rows
from helpers import json_values
from helpers import read_rows
from helpers import set_cell
from synthetic_crowd_deliberation import write_full_size

NAME = "crowd_deliberation"
corpus = registry.get(NAME)
DATA, LABELS, DELIBERATIONS = "data.csv", "labels.csv", "deliberations.csv"
AGREE, HALF, DISAGREE = (f"I expect {who} to {what} with me." for who, what in (
    ("most people", "agree"), ("only about half of the people", "agree"), ("most people", "disagree")))
Q = "question_"
DOUBT = "did_somebody_make_you_doubt_your_original_answer_why_or_why_not"
CHANGE = "did_somebody_make_you_change_your_original_answer_why_or_why_not"
CONVINCE = "did_you_manage_to_convince_someone_to_change_their_answer_or_confidence_level_why_do_you_think_you_were_ableunable_to_convince_them"
WHY = "why_do_you_think_other_people_might_choose_a_different_answer"
EXPECTATION = "do_you_think_other_people_might_choose_a_different_answer_than_you_did"
ELABORATE = "please_elaborate_on_your_answer_to_the_previous_question_explaining_why_you_think_other_people_might_choose_a_different_answer"
GROUP_HELPS = "if_there_were_other_people_who_chose_a_different_answer_than_you_did_do_you_think_a_group_discussion_would_help_to_resolve_the_case"
BASED_ON = "based_on_your_deliberation_why_do_you_think_the_other_people_in_the_group_chose_a_different_answer"
RESOLVED, UNRESOLVED = "why_do_you_think_this_case_could_be_resolved", "why_do_you_think_this_case_could_not_be_fully_resolved"
STATISTICS = ["char_count", "syllable_count", "lexicon_count", "sentence_count", "flesch_reading_ease", "smog_index", "flesch_kincaid_grade",
              "coleman_liau_index", "automated_readability_index", "dale_chall_readability_score", "difficult_words", "linsear_write_formula",
              "gunning_fog"]
TEXT = ('Product: Holy Bible: Stock Car Racing (Paperback)Review Title: "Gave as a gift"Review: I gave one to my '
        "church\u2019s youth group. The kids loved the \u201cracing\u201d pictures. I gave one to my church and now they "
        "will not pickup a bible without a checkered flag on it. -- Chris Cline, Overland Park, KS")
EVIDENCE_6779 = [{"start": 87, "end": 125, "quote": "I gave one to my church\u2019s youth group.", "comment": None}, {
    "start": 126, "end": 163, "quote": "The kids loved the \u201cracing\u201d pictures.", "comment": "They \"loved\" it, so it's sincere"}]
NO_STATISTICS = {"messages_discuss": None, "messages_reconsider": None, "messages": None}
D, L, T = ("deliberations", "train"), ("labels", "train"), ("texts", "train")

# (config, split, key, field, expected): the dummy build's values, class labels by name.
QUIRKS = [
    (*L, 7002, "original_label", "relation_not_expressed"), (*D, 438, "members.*.reconsidered_label", ["irresolvable", "sarcastic", None]),
    (*T, 19296, "ground_truth_label", "relation_not_expressed"),
    (*T, 19179, "ground_truth_label", None), (*T, 19181, "ground_truth_label", None),  # empty cells
    (*T, 19295, "ground_truth_label", "relation_expressed"), (*T, 19305, "ground_truth_label", None),
    (*T, 19179, "study_part", "breadth"), (*T, 19181, "study_part", "breadth and depth"),
    (*T, 19179, "text", TEXT),  # non-ASCII, doubled quotes
    (*L, 3857, "data_id", 19177),  # a label whose text is missing: kept,
    (*L, 3857, "evidence", [{"start": 10, "end": 30, "quote": "a plain honest revie", "comment": "Seems honest"}]), (*L, 5235, "evidence", []),
    (*L, 6779, "evidence", EVIDENCE_6779),  # \u escapes and doubled quotes in the cell, an empty comment
    (*L, 6536, Q + EXPECTATION, HALF),
    (*L, 6536, Q + WHY, ["The text contains some features that indicate target category A and some features that indicate target category B."]),
    (*L, 6536, Q + GROUP_HELPS, False),
    (*L, 6536, Q + ELABORATE, " Because some of it isn't sarcastic."),  # leading space kept
    (*L, 6781, Q + WHY, ["MISTAKE", "Other people may have different definitions of the target categories in mind."]),
    (*L, 6781, Q + GROUP_HELPS, True), (*L, 5235, Q + EXPECTATION, AGREE), (*L, 5235, Q + WHY, None), (*L, 5235, Q + GROUP_HELPS, None),
    (*L, 5235, "deliberation_id", None),
    (*L, 8146, Q + EXPECTATION, None),  # empty in 4 real rows
    (*D, 438, "members.*.original_confidence", [1.0, 0.5, 0.0]), (*D, 438, "members.*.reconsidered_confidence", [0.5, 1.0, None]),
    (*D, 438, "data_id", 19179), (*D, 438, "study_part", "breadth"), (*D, 438, "was_resolved", False),
    (*D, 438, "num_dissenting_opinions_discussed", 2), (*D, 438, "num_dissenting_opinions_reconsidered", 0),
    (*D, 438, "num_dissenting_opinions_discussed_and_reconsidered", 0), (*D, 438, "num_dissenting_opinions_discussed_reconsidered_and_concluded", 0),
    (*D, 438, "members.*.user_id", [389, 8451, 8455]), (*D, 438, "members.*.name", ["Marvelous Murdock", "Gentle Gertrude", "Authentic Austin"]),
    (*D, 438, "members.*.label_id", [6779, 6536, 6781]),
    (*D, 438, "members.*.did_discuss", [True, True, False]), (*D, 438, "members.*.discuss_order", [1, 2, None]),
    (*D, 438, "members.*.did_reconsider", [True, True, False]), (*D, 438, "members.*.reconsider_order", [1, 2, None]),
    (*D, 438, "members.*.did_conclude", [True, True, False]), (*D, 438, "members.2.statistics", NO_STATISTICS),
    (*D, 438, "members.0." + Q + BASED_ON, [
        "Other people may have different definitions of the target categories in mind.",
        "This is a case where a person's answer would depend heavily on their personal preferences and taste."]),
    (*D, 438, "members.1." + Q + BASED_ON, ["GROUP ALREADY AGREES"]),
    # yes/no answers with and without text: "No ", "Yes", "No"
    (*D, 438, "members.0." + Q + DOUBT, {"answer": True, "explanation": "they made good points about the flag"}),
    (*D, 438, "members.0." + Q + CHANGE, {"answer": False, "explanation": None}),
    (*D, 438, "members.0." + Q + CONVINCE, {"answer": False, "explanation": "I did not try to."}),
    (*D, 438, "members.1." + Q + DOUBT, {"answer": True, "explanation": None}),
    (*D, 438, "members.1." + Q + CHANGE, {"answer": False, "explanation": None}),
    (*D, 438, "members.*." + Q + RESOLVED, [None, " Because we talked it through.", None]),  # exactly one of two
    (*D, 438, "members.*." + Q + UNRESOLVED, [" We read the same words differently.", None, None]),
    (*D, 438, "messages_discuss.1", {"user_id": 8451, "user_pseudonym": "Gentle Gertrude",
                                     "content": 'I think it is a "joke"\nreally. Nobody buys that bible!'}),
    (*D, 438, "messages.5.content", "Thanks all, bye!"),  # MESSAGES: both sessions and one more message
    (*D, 248, "messages_discuss", []), (*D, 248, "messages_reconsider", []), (*D, 248, "messages", []),
    (*D, 248, "statistics", NO_STATISTICS), (*D, 248, "members.*.statistics", [NO_STATISTICS] * 3),
    (*D, 361, "messages_reconsider", []), (*D, 361, "statistics.messages_reconsider", None),
    (*D, 361, "statistics.messages_discuss.char_count.value", 101),
    # a member with messages but empty statistics cells (10 such slots in the real MESSAGES columns)
    (*D, 361, "members.2.statistics.messages", None), (*D, 361, "members.2.statistics.messages_discuss.char_count", 50),
    (*D, 438, "statistics.messages.char_count", {"value": 161, "min": 10, "max": 45, "median": 28.5, "mean": 26.83333333}),
    (*D, 438, "statistics.messages_discuss.coleman_liau_index", {"value": 0.94, "min": -16.0, "max": 2.87, "median": 2.52, "mean": -3.536666667}),
    (*D, 438, "members.0.statistics.messages_discuss.syllable_count", 13.5), (*D, 438, "members.0.statistics.messages.char_count", 73),
]
DOWNLOADS = Downloads(
    "https://raw.githubusercontent.com/crowd-deliberation/data/d36857821c0b2694aa0fe3da3aa514d5b15e7cf6/",
    ("texts", "deliberations", "labels"),
)
FULL_SIZE = FullSize(write_full_size)  # 80 / 4,165 / 418 records


# Any value in any cell: no lone CR (the release has none, and a writer like upstream's,
# lineterminator="\n", leaves it unquoted).
cell_values = st.one_of(
    st.text(st.characters(blacklist_characters="\r" + CSV_UNSAFE, blacklist_categories=("Cs",)), max_size=12),
    json_values.map(json.dumps), st.integers(-(10**12), 10**12).map(str),
    st.sampled_from(["", "True", "False", "0", "0.5", "1", "Yes", "No ", "[]", "7001", "389", "irresolvable"]),
    # 4,000 to 5,000 random digits, around the 4,300 int() takes: from a seeded Random (two draws),
    # not digit by digit (a hypothesis draw each, half of this file's fuzzing time).
    st.builds(lambda seed, n: "".join(random.Random(seed).choices("0123456789", k=n)),
              st.integers(0, 2**32 - 1), st.integers(4000, 5000)),
)


def fuzz_cells(path, config, lines, examples, id_column, id_of_line_3):
    columns = read_rows(corpus.dummy_dir / path)[0]
    variants = st.builds(set_cell, st.integers(*lines), st.sampled_from(columns), cell_values)
    found = (
        set_cell(2, id_column, id_of_line_3),  # 763057e: refused on line 3, not on the line changed
        set_cell(2, id_column, "9" * 5000),  # 50e930c: more digits than int() takes
    )
    return Fuzz(path, config, variants, re.escape(path) + r", line \d+: field '", examples, found)


any_bytes = st.one_of(st.binary(max_size=200),
                      st.text(st.characters(blacklist_categories=("Cs",)), max_size=200).map(lambda t: t.encode("utf-8")))
FUZZ = [
    fuzz_cells(DELIBERATIONS, "deliberations", (2, 4), 300, "DELIBERATION_ID", "361"),
    fuzz_cells(LABELS, "labels", (2, 13), 300, "LABEL_ID", "5235"),
    fuzz_cells(DATA, "texts", (2, 6), 200, "DATA_ID", "19181"),
    Fuzz(DATA, "texts", any_bytes.map(lambda raw: lambda _: raw), r"data\.csv", 200),
]


# --- what no row can hold ---------------------------------------------------------------------


def by_id(dataset, field):
    return {row[field]: row for row in dataset}


def test_headers_are_the_real_ones():
    data, labels, deliberations = (read_rows(corpus.dummy_dir / path)[0] for path in (DATA, LABELS, DELIBERATIONS))
    assert (len(data), len(labels), len(deliberations)) == (5, 14, 386)
    assert sum(column.startswith("MEMBER_1_") for column in deliberations) == 60  # not 59
    assert deliberations[8] == "MEMBER_1_USER_ID" and deliberations[67] == "MEMBER_1_MESSAGES_GUNNING_FOG"
    assert deliberations[188:190] == ["MESSAGES_DISCUSS", "MESSAGES_DISCUSS_CHAR_COUNT"]
    assert deliberations[320] == "MESSAGES" and deliberations[-1] == "MESSAGES_GUNNING_FOG_MEAN"


def test_class_labels_types_and_order(dummy_build):
    members = corpus.features("deliberations")["members"]
    features = members[0] if isinstance(members, list) else members.feature  # datasets 3.6 / 5.x
    assert features["original_label"].names == ["sarcastic", "not_sarcastic", "relation_expressed", "relation_not_expressed"]
    assert features["reconsidered_label"].names == features["original_label"].names + ["irresolvable"]
    assert corpus.features("texts")["study_part"].names == ["breadth", "breadth and depth"]
    labels = dummy_build(NAME, "labels")["train"]
    assert labels.features[Q + EXPECTATION].names == [AGREE, HALF, DISAGREE]
    assert labels.features["original_confidence"].dtype == "float32"
    assert sorted(set(labels["original_confidence"])) == [0.0, 0.5, 1.0]
    statistics = corpus.features("deliberations")["statistics"]["messages"]
    assert {k: v.dtype for k, v in statistics["char_count"].items()} == {
        "value": "int32", "min": "int32", "max": "int32", "median": "float64", "mean": "float64"}
    assert statistics["smog_index"]["min"].dtype == "float64" and list(statistics) == STATISTICS
    member = dummy_build(NAME, "deliberations")["train"][0]["members"][0]["statistics"]
    assert list(member) == ["messages_discuss", "messages_reconsider", "messages"] and list(member["messages"]) == STATISTICS
    assert len(corpus.features("deliberations")) == 8 + 1 + 3 + 1  # 8 group fields, members, 3 chats, statistics
    assert dummy_build(NAME, "deliberations")["train"]["deliberation_id"] == [438, 361, 248]  # file order, not sorted
    assert dummy_build(NAME, "texts")["train"]["data_id"] == [19179, 19181, 19295, 19296, 19305]
    assert dummy_build(NAME, "texts")["train"]["study_part"] == [0, 1, 0, 1, 0]


def test_labels_whose_text_is_missing_are_kept_and_counted(dummy_build, tmp_path, caplog):
    texts = set(dummy_build(NAME, "texts")["train"]["data_id"])
    orphans = [row for row in dummy_build(NAME, "labels")["train"] if row["data_id"] not in texts]
    assert [(row["data_id"], row["label_id"]) for row in orphans] == [(19177, 3857)]  # its evidence unchecked
    with caplog.at_level(logging.INFO):  # every logger: the loader imported again (registry.forget) has another name
        load(NAME, "labels", dummy=True, cache_dir=tmp_path)
    assert [r.getMessage() for r in caplog.records if r.getMessage().startswith("labels.csv")] == [
        "labels.csv: 1 labels on 1 DATA_IDs that have no text in data.csv (kept): [19177]"]


def test_evidence_cells_are_json_in_csv_and_index_the_text(dummy_build):
    raw = (corpus.dummy_dir / LABELS).read_text()  # JSON with \u escapes in a cell with doubled quotes
    assert (raw.count('""quote"": ""I gave one to my church\\u2019s youth group.""'), raw.count('""They \\""loved\\"" it')) == (1, 1)
    texts = by_id(dummy_build(NAME, "texts")["train"], "data_id")
    quotes = [(texts[label["data_id"]]["text"][item["start"]:item["end"]], item["quote"])
              for label in dummy_build(NAME, "labels")["train"] if label["data_id"] in texts for item in label["evidence"]]
    assert len(quotes) == 13 and [text for text, _ in quotes] == [quote for _, quote in quotes]


def test_members_join_their_labels_and_chats(dummy_build):
    deliberations = dummy_build(NAME, "deliberations")["train"]
    labels = by_id(dummy_build(NAME, "labels")["train"], "label_id")
    for deliberation in deliberations:
        for member in deliberation["members"]:
            assert labels[member["label_id"]]["deliberation_id"] == deliberation["deliberation_id"]
            assert labels[member["label_id"]]["annotator_id"] == member["user_id"]
    first = deliberations[0]
    assert first["messages"][:5] == first["messages_discuss"] + first["messages_reconsider"]
    assert {key: value for key, value in first["members"][2].items() if key.startswith(Q)} == {  # absent
        key: None for key in first["members"][2] if key.startswith(Q)}
    # the third member of 361 wrote in its chat (its statistics cells empty: QUIRKS)
    assert {row["deliberation_id"]: ([m["user_id"] for m in row["members"]], [m["user_id"] for m in row["messages"]])
            for row in deliberations} == {438: ([389, 8451, 8455], [389, 8451] * 3), 361: ([26, 8504, 1200], [26, 8504, 1200, 26]),
                                          248: ([8504, 1200, 77], [])}


def test_every_statistics_cell_is_in_the_rows(dummy_build):
    # Nothing dropped: each of the 3 x 39 member and 195 group statistics cells is a value here.
    aggregates = {"": "value", "_MIN": "min", "_MAX": "max", "_MEDIAN": "median", "_MEAN": "mean"}
    with open(corpus.dummy_dir / DELIBERATIONS, encoding="utf-8", newline="") as f:
        records = list(csv.DictReader(f))
    for record, row in zip(records, dummy_build(NAME, "deliberations")["train"], strict=True):
        for phase in ("MESSAGES_DISCUSS", "MESSAGES_RECONSIDER", "MESSAGES"):
            for statistic in STATISTICS:
                for suffix, name in aggregates.items():
                    cell, group = record[f"{phase}_{statistic.upper()}{suffix}"], row["statistics"][phase.lower()]
                    assert (group is None and cell == "") or float(cell) == group[statistic][name]
                for number, member in enumerate(row["members"], start=1):
                    cell, stats = record[f"MEMBER_{number}_{phase}_{statistic.upper()}"], member["statistics"][phase.lower()]
                    assert (stats is None and cell == "") or float(cell) == stats[statistic]


@pytest.mark.parametrize("added,length", [("\nSecond paragraph.", None), (" x" * 500_000, 1_000_000)])
def test_a_quoted_newline_or_a_cell_over_the_csv_modules_limit_is_read(dummy_copy, tmp_path, added, length):
    # A newline in a quoted cell (none in the release; the dialect allows it) is one record, and a
    # cell over csv's default 128 KiB is read: limited only by memory.
    data_dir = dummy_copy(NAME)
    (data_dir / DATA).write_bytes(set_cell(2, "TEXT", TEXT + added)((data_dir / DATA).read_bytes()))
    texts = load(NAME, "texts", data_dir=data_dir, cache_dir=tmp_path, allow_modified_sources=True)["train"]
    assert texts[0]["text"] == TEXT + added and len(texts[0]["text"]) == len(TEXT) + len(added)
    assert corpus.count_source_records("texts", "train", [str(data_dir / DATA)]) == 5


def test_pinned_files_and_checksums():
    # Each config reads the files it joins (each file's records counted on their own, a missing one listed: test_generic.py).
    assert {c: corpus.config(c).files for c in corpus.configs} == {
        "deliberations": {"train": [DELIBERATIONS, LABELS]}, "labels": {"train": [LABELS, DATA]}, "texts": {"train": [DATA]}}
    pinned = DOWNLOADS.pinned
    assert (corpus.loader_dir / "checksums.tsv").read_text().splitlines() == [
        f"{pinned}data.csv\t86614\tfcee2f0bcae17cbba01bca2f710b5a7faf6cde034ad5e8c1115bd5397141cd3a",
        f"{pinned}deliberations.csv\t1753300\t0e81a100a40dfeb74ea54a71774d3bb721f177f366a62077f4d68044b1c24b65",
        f"{pinned}labels.csv\t1491601\t626b5004465eb9b82a707a1a3b53869b31ae1a0f333c4890b144e1ae3a77f537",
    ]


def test_the_why_list_is_none_exactly_when_the_card_says(dummy_build):
    # The card: `None` exactly when the expected disagreement is "agree" or left empty (quirk empty-expectation).
    rows = dummy_build(NAME, "labels")["train"]
    names, seen = rows.features[Q + EXPECTATION].names, {}
    for row in rows:
        seen.setdefault(None if row[Q + EXPECTATION] is None else names[row[Q + EXPECTATION]], set()).add(row[Q + WHY] is None)
    # Every case occurs in the dummy data, the empty expectation among them, and only these are None.
    assert seen == {None: {True}, AGREE: {True}, HALF: {False}, DISAGREE: {False}}


# Each documented range at both edges: the last valid value is read as that number, the first invalid
# one refused with the line of BAD_INPUT's table (identifiers and orders: FORMAT.md; statistics: int32).
RANGES = [  # (file, config, line, column, the field it is read into, first and last valid value, the refusal's expected part)
    (DATA, "texts", 4, "DATA_ID", "data_id", 0, 2**31 - 1, "a non-negative integer below 2**31"),
    (LABELS, "labels", 2, "ORDER", "order", 0, 2**31 - 1, "a non-negative integer below 2**31"),
    (DELIBERATIONS, "deliberations", 2, "MEMBER_1_DISCUSS_ORDER", "members.0.discuss_order", 1, 3, "1 or 2 or 3 or empty"),
    (DELIBERATIONS, "deliberations", 2, "MEMBER_1_MESSAGES_CHAR_COUNT", "members.0.statistics.messages.char_count", -(2**31), 2**31 - 1,
     "an int32 integer"),
]
EDGES = [(path, config, line, column, str(value), field, refused) for path, config, line, column, field, low, high, expected in RANGES
         for value, refused in [(low, None), (high, None), (low - 1, expected), (high + 1, expected)]]


def test_the_card_describes_the_statistics_by_pattern():
    source = export_source(corpus, corpus.configs)
    names = [name for name, _ in field_rows(corpus.features("deliberations"))]
    patterned = [name for name in names if name not in source["config_fields"]["deliberations"]]
    # 13 statistics x 3 phases: the group's structs and their 5 values, and each member's value
    assert len(patterned) == 13 * 3 * (1 + 5) + 13 * 3 == 273
    assert len(source["config_patterns"]["deliberations"]) == 13 + 5
    assert source["config_patterns"]["labels"] == source["config_patterns"]["texts"] == {}


@pytest.mark.parametrize("path,config,line,column,value,field,refused", EDGES, ids=[f"{e[3]}={e[4]}" for e in EDGES])
def test_each_range_at_both_edges(path, config, line, column, value, field, refused, dummy_copy):
    data_dir = dummy_copy(NAME, changed=path)
    (data_dir / path).write_bytes(set_cell(line, column, value)((data_dir / path).read_bytes()))
    if refused is None:
        read = builder_rows(corpus, config, str(data_dir))["train"][line - 2]
        for part in field.split("."):
            read = read[int(part)] if isinstance(read, list) else read[part]
        assert read == int(value)
    else:
        with pytest.raises(ValueError) as caught:
            builder_rows(corpus, config, str(data_dir))
        assert str(caught.value) == f"{path}, line {line}: field {column!r}: invalid value {value!r} (expected {refused})"
