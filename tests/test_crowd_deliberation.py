"""crowd_deliberation: every quirk of loaders/crowd_deliberation/FORMAT.md, and bad input."""

import csv
import importlib
import io
import json
import logging
import re

import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from conftest import CSV_UNSAFE
from conftest import HTML
from conftest import LFS
from conftest import BadInput
from conftest import build_error as shared_build_error
from conftest import official_sizes_of_the_dummy_data
from conftest import table_lines
from corpora import load
from corpora import registry
from corpora.cli import main
from corpora.sources import MissingSourceFiles

NAME = "crowd_deliberation"
corpus = registry.get(NAME)
loader = corpus.module  # for its pure functions and constants
csv_cells = importlib.import_module(f"{loader.__package__}._csv_cells")  # the CSV reading and the cell parsers
DATA, LABELS, DELIBERATIONS = "data.csv", "labels.csv", "deliberations.csv"
AGREE, HALF, DISAGREE = loader._EXPECTATIONS
DOUBT = "question_did_somebody_make_you_doubt_your_original_answer_why_or_why_not"
CHANGE = "question_did_somebody_make_you_change_your_original_answer_why_or_why_not"
CONVINCE = (
    "question_did_you_manage_to_convince_someone_to_change_their_answer_or_confidence_level_why_do_you_think_you"
    "_were_ableunable_to_convince_them"
)
WHY = "question_why_do_you_think_other_people_might_choose_a_different_answer"
EXPECTATION = "question_do_you_think_other_people_might_choose_a_different_answer_than_you_did"
GROUP_HELPS = (
    "question_if_there_were_other_people_who_chose_a_different_answer_than_you_did_do_you_think_a_group_discussion"
    "_would_help_to_resolve_the_case"
)
BASED_ON = "question_based_on_your_deliberation_why_do_you_think_the_other_people_in_the_group_chose_a_different_answer"
PROCESS = "question_describe_how_you_feel_about_the_deliberation_process"


def label_name(index, names=loader._RECONSIDERED_NAMES):
    return None if index is None else names[index]


def by_id(dataset, field):
    return {row[field]: row for row in dataset}


# --- the quirks, on the dummy data ---------------------------------------------------------


def test_headers_are_the_real_ones():
    for path, columns in loader._HEADERS.items():
        with open(corpus.dummy_dir / path, encoding="utf-8", newline="") as f:
            assert next(csv.reader(f)) == columns
    assert (len(loader._DATA_COLUMNS), len(loader._LABEL_COLUMNS), len(loader._DELIBERATION_COLUMNS)) == (5, 14, 386)
    assert len(loader._MEMBER_SUFFIXES) == 60  # not 59
    columns = loader._DELIBERATION_COLUMNS
    assert columns[8] == "MEMBER_1_USER_ID" and columns[67] == "MEMBER_1_MESSAGES_GUNNING_FOG"
    assert columns[188:190] == ["MESSAGES_DISCUSS", "MESSAGES_DISCUSS_CHAR_COUNT"]
    assert columns[320] == "MESSAGES" and columns[-1] == "MESSAGES_GUNNING_FOG_MEAN"


def test_relation_not_expressed_and_irresolvable_are_labels(dummy_build):
    labels = by_id(dummy_build(NAME, "labels")["train"], "label_id")
    assert label_name(labels[7002]["original_label"]) == "relation_not_expressed"
    deliberations = by_id(dummy_build(NAME, "deliberations")["train"], "deliberation_id")
    reconsidered = [label_name(m["reconsidered_label"]) for m in deliberations[438]["members"]]
    assert reconsidered == ["irresolvable", "sarcastic", None]
    texts = by_id(dummy_build(NAME, "texts")["train"], "data_id")
    assert label_name(texts[19296]["ground_truth_label"]) == "relation_not_expressed"
    members = corpus.features("deliberations")["members"]
    features = members[0] if isinstance(members, list) else members.feature  # datasets 3.6 / 5.x
    assert features["original_label"].names == ["sarcastic", "not_sarcastic", "relation_expressed", "relation_not_expressed"]
    assert features["reconsidered_label"].names[-1] == "irresolvable"


def test_labels_whose_text_is_missing_are_kept_and_counted(dummy_build, tmp_path, caplog):
    labels = dummy_build(NAME, "labels")["train"]
    texts = set(dummy_build(NAME, "texts")["train"]["data_id"])
    orphans = [row for row in labels if row["data_id"] not in texts]
    assert [(row["data_id"], row["label_id"]) for row in orphans] == [(19177, 3857)]
    # ...and its evidence is kept unchecked (there is no text to check it against)
    assert orphans[0]["evidence"] == [{"start": 10, "end": 30, "quote": "a plain honest revie", "comment": "Seems honest"}]
    with caplog.at_level(logging.INFO, logger=loader.logger.name):
        load(NAME, "labels", dummy=True, cache_dir=tmp_path)
    assert "labels.csv: 1 labels on 1 DATA_IDs that have no text in data.csv (kept): [19177]" in caplog.text


def test_ground_truth_is_none_where_empty(dummy_build):
    texts = dummy_build(NAME, "texts")["train"]
    assert [(t["data_id"], label_name(t["ground_truth_label"])) for t in texts] == [
        (19179, None), (19181, None), (19295, "relation_expressed"), (19296, "relation_not_expressed"), (19305, None),
    ]
    assert texts.features["study_part"].names == ["breadth", "breadth and depth"]
    assert texts["study_part"] == [0, 1, 0, 1, 0]


def test_non_ascii_and_doubled_quotes_in_texts(dummy_build):
    text = dummy_build(NAME, "texts")["train"][0]["text"]
    assert 'Review Title: "Gave as a gift"' in text
    assert "church\u2019s" in text and "\u201cracing\u201d" in text


def test_empty_evidence_list(dummy_build):
    labels = by_id(dummy_build(NAME, "labels")["train"], "label_id")
    assert labels[5235]["evidence"] == []


def test_evidence_json_with_escapes_and_empty_comment(dummy_build):
    labels = by_id(dummy_build(NAME, "labels")["train"], "label_id")
    assert labels[6779]["evidence"] == [
        {"start": 87, "end": 125, "quote": "I gave one to my church\u2019s youth group.", "comment": None},
        {"start": 126, "end": 163, "quote": "The kids loved the \u201cracing\u201d pictures.",
         "comment": "They \"loved\" it, so it's sincere"},
    ]
    # the source cell: JSON with \u escapes inside a CSV cell with doubled quotes
    raw = (corpus.dummy_dir / LABELS).read_text()
    assert '""quote"": ""I gave one to my church\\u2019s youth group.""' in raw
    assert '""They \\""loved\\"" it' in raw


def test_evidence_offsets_index_the_text(dummy_build):
    texts = by_id(dummy_build(NAME, "texts")["train"], "data_id")
    checked = 0
    for label in dummy_build(NAME, "labels")["train"]:
        for item in label["evidence"]:
            if label["data_id"] in texts:
                assert texts[label["data_id"]]["text"][item["start"]:item["end"]] == item["quote"]
                checked += 1
    assert checked == 13


def test_expectation_questions(dummy_build):
    labels = by_id(dummy_build(NAME, "labels")["train"], "label_id")
    features = dummy_build(NAME, "labels")["train"].features
    assert features[EXPECTATION].names == [AGREE, HALF, DISAGREE]
    half = labels[6536]
    assert features[EXPECTATION].int2str(half[EXPECTATION]) == HALF
    assert half[WHY] == [
        "The text contains some features that indicate target category A and some features that indicate target category B."
    ]
    assert half[GROUP_HELPS] is False
    assert labels[6781][WHY] == ["MISTAKE", "Other people may have different definitions of the target categories in mind."]
    assert labels[6781][GROUP_HELPS] is True
    assert labels[6536][
        "question_please_elaborate_on_your_answer_to_the_previous_question_explaining_why_you_think_other_people_might"
        "_choose_a_different_answer"
    ] == " Because some of it isn't sarcastic."  # leading space kept
    agree = labels[5235]
    assert (agree[EXPECTATION], agree[WHY], agree[GROUP_HELPS], agree["deliberation_id"]) == (0, None, None, None)
    assert labels[8146][EXPECTATION] is None  # empty in 4 real rows


def test_confidences_keep_their_meaning(dummy_build):
    labels = dummy_build(NAME, "labels")["train"]
    assert labels.features["original_confidence"].dtype == "float32"
    assert sorted(set(labels["original_confidence"])) == [0.0, 0.5, 1.0]
    members = dummy_build(NAME, "deliberations")["train"][0]["members"]
    assert [(m["original_confidence"], m["reconsidered_confidence"]) for m in members] == [(1.0, 0.5), (0.5, 1.0), (0.0, None)]


def test_deliberations_keep_file_order_and_ids(dummy_build):
    deliberations = dummy_build(NAME, "deliberations")["train"]
    assert deliberations["deliberation_id"] == [438, 361, 248]  # not sorted, as in the file
    first = deliberations[0]
    assert (first["data_id"], first["study_part"], first["was_resolved"]) == (19179, 0, False)
    assert [first[f"num_dissenting_opinions_{k}"] for k in (
        "discussed", "reconsidered", "discussed_and_reconsidered", "discussed_reconsidered_and_concluded")] == [2, 0, 0, 0]
    labels = by_id(dummy_build(NAME, "labels")["train"], "label_id")
    for deliberation in deliberations:
        for member in deliberation["members"]:
            label = labels[member["label_id"]]
            assert label["deliberation_id"] == deliberation["deliberation_id"]
            assert label["annotator_id"] == member["user_id"]


def test_members_and_empty_order_fields(dummy_build):
    members = dummy_build(NAME, "deliberations")["train"][0]["members"]
    assert [(m["user_id"], m["name"], m["label_id"]) for m in members] == [
        (389, "Marvelous Murdock", 6779), (8451, "Gentle Gertrude", 6536), (8455, "Authentic Austin", 6781)]
    assert [(m["did_discuss"], m["discuss_order"], m["did_reconsider"], m["reconsider_order"], m["did_conclude"])
            for m in members] == [(True, 1, True, 1, True), (True, 2, True, 2, True), (False, None, False, None, False)]
    absent = members[2]
    assert all(absent[key] is None for key in absent if key.startswith("question_"))
    assert absent["statistics"] == {"messages_discuss": None, "messages_reconsider": None, "messages": None}
    assert members[0][BASED_ON] == [
        "Other people may have different definitions of the target categories in mind.",
        "This is a case where a person's answer would depend heavily on their personal preferences and taste.",
    ]
    assert members[1][BASED_ON] == ["GROUP ALREADY AGREES"]


def test_yes_no_answers_with_and_without_text(dummy_build):
    members = dummy_build(NAME, "deliberations")["train"][0]["members"]
    assert members[0][DOUBT] == {"answer": True, "explanation": "they made good points about the flag"}
    assert members[0][CHANGE] == {"answer": False, "explanation": None}  # "No "
    assert members[0][CONVINCE] == {"answer": False, "explanation": "I did not try to."}
    assert members[1][DOUBT] == {"answer": True, "explanation": None}  # "Yes"
    assert members[1][CHANGE] == {"answer": False, "explanation": None}  # "No"


def test_exactly_one_resolution_answer(dummy_build):
    members = dummy_build(NAME, "deliberations")["train"][0]["members"]
    resolved = "question_why_do_you_think_this_case_could_be_resolved"
    unresolved = "question_why_do_you_think_this_case_could_not_be_fully_resolved"
    assert [(m[resolved], m[unresolved]) for m in members] == [
        (None, " We read the same words differently."), (" Because we talked it through.", None), (None, None)]


def test_chats_with_quotes_newlines_and_extra_messages(dummy_build):
    first = dummy_build(NAME, "deliberations")["train"][0]
    assert first["messages_discuss"][1] == {
        "user_id": 8451, "user_pseudonym": "Gentle Gertrude", "content": 'I think it is a "joke"\nreally. Nobody buys that bible!'}
    # MESSAGES holds the two sessions and one more message
    assert first["messages"][:5] == first["messages_discuss"] + first["messages_reconsider"]
    assert first["messages"][5]["content"] == "Thanks all, bye!"


def test_empty_chat_lists_and_their_statistics(dummy_build):
    deliberations = by_id(dummy_build(NAME, "deliberations")["train"], "deliberation_id")
    silent = deliberations[248]
    assert (silent["messages_discuss"], silent["messages_reconsider"], silent["messages"]) == ([], [], [])
    assert silent["statistics"] == {"messages_discuss": None, "messages_reconsider": None, "messages": None}
    assert all(m["statistics"] == silent["statistics"] for m in silent["members"])
    no_reconsider = deliberations[361]
    assert no_reconsider["messages_reconsider"] == [] and no_reconsider["statistics"]["messages_reconsider"] is None
    assert no_reconsider["statistics"]["messages_discuss"]["char_count"]["value"] == 101
    # a member with messages but empty statistics cells (10 such slots in the real MESSAGES columns)
    third = no_reconsider["members"][2]
    assert any(m["user_id"] == third["user_id"] for m in no_reconsider["messages"])
    assert third["statistics"]["messages"] is None and third["statistics"]["messages_discuss"]["char_count"] == 50


def test_statistics_are_nested_and_typed(dummy_build):
    first = dummy_build(NAME, "deliberations")["train"][0]
    features = dummy_build(NAME, "deliberations")["train"].features
    char_count = features["statistics"]["messages"]["char_count"]
    assert {k: v.dtype for k, v in char_count.items()} == {
        "value": "int32", "min": "int32", "max": "int32", "median": "float64", "mean": "float64"}
    assert features["statistics"]["messages"]["smog_index"]["min"].dtype == "float64"
    assert first["statistics"]["messages"]["char_count"] == {"value": 161, "min": 10, "max": 45, "median": 28.5, "mean": 26.83333333}
    assert first["statistics"]["messages_discuss"]["coleman_liau_index"] == {
        "value": 0.94, "min": -16.0, "max": 2.87, "median": 2.52, "mean": -3.536666667}
    member = first["members"][0]["statistics"]
    assert list(member) == ["messages_discuss", "messages_reconsider", "messages"]
    assert list(member["messages"]) == [name.lower() for name in loader._STATISTICS]
    assert member["messages_discuss"]["syllable_count"] == 13.5 and member["messages"]["char_count"] == 73
    # 8 group fields, 3 members, 3 chats, statistics: 386 columns in all
    assert len(features) == 8 + 1 + 3 + 1


def test_every_statistics_cell_is_in_the_rows(dummy_build):
    # Nothing dropped: each of the 3 x 39 member and 195 group statistics cells is a value here.
    rows = dummy_build(NAME, "deliberations")["train"]
    with open(corpus.dummy_dir / DELIBERATIONS, encoding="utf-8", newline="") as f:
        records = list(csv.DictReader(f))
    for record, row in zip(records, rows, strict=True):
        for phase in loader._PHASES:
            for statistic in loader._STATISTICS:
                for suffix, name in loader._AGGREGATES.items():
                    cell = record[f"{phase}_{statistic}{suffix}"]
                    group = row["statistics"][phase.lower()]
                    assert (group is None and cell == "") or float(cell) == group[statistic.lower()][name]
                for number, member in enumerate(row["members"], start=1):
                    cell = record[f"MEMBER_{number}_{phase}_{statistic}"]
                    stats = member["statistics"][phase.lower()]
                    assert (stats is None and cell == "") or float(cell) == stats[statistic.lower()]


def test_source_records_are_counted_without_typing():
    for config, splits in {c: corpus.config(c).files for c in corpus.configs}.items():
        paths = [str(corpus.dummy_dir / path) for path in splits["train"]]
        assert loader._count_source_records(config, "train", paths) == corpus.expected_dummy_counts()[config]["train"]
    assert {c: corpus.config(c).files for c in corpus.configs} == {
        "deliberations": {"train": [DELIBERATIONS, LABELS]},
        "labels": {"train": [LABELS, DATA]},
        "texts": {"train": [DATA]},
    }


def test_a_quoted_newline_inside_a_cell_is_one_record(dummy_copy, tmp_path):
    # None in the release, but the CSV dialect allows it: records, not lines, are counted.
    data_dir = dummy_copy(NAME)
    rewrite(data_dir, DATA, lambda rows: rows[1].__setitem__(3, rows[1][3] + "\nSecond paragraph."))
    texts = load(NAME, "texts", data_dir=data_dir, cache_dir=tmp_path, allow_modified_sources=True)["train"]
    assert texts[0]["text"].endswith("KS\nSecond paragraph.")
    assert loader._count_source_records("texts", "train", [str(data_dir / DATA)]) == 5


# --- bad input ---------------------------------------------------------------------------------


def build_error(data_dir, config):
    return shared_build_error(NAME, config, data_dir)


def read_rows(path):
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.reader(f))


def rewrite(data_dir, path, change):
    rows = read_rows(data_dir / path)
    change(rows)
    with open(data_dir / path, "w", encoding="utf-8", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)


def set_cell(data_dir, path, line, column, value):
    def change(rows):
        rows[line - 1][rows[0].index(column)] = value

    rewrite(data_dir, path, change)


def test_truncated_file(dummy_copy):
    data_dir = dummy_copy(NAME)
    raw = (data_dir / DELIBERATIONS).read_bytes()
    (data_dir / DELIBERATIONS).write_bytes(raw[: len(raw) - 400])  # the last record loses its last 400 bytes
    assert build_error(data_dir, "deliberations") == f"{DELIBERATIONS}, line 4: 133 cells, expected 386 (the header's columns)"
    # cut inside a quoted JSON cell of labels.csv
    raw = (data_dir / LABELS).read_bytes()
    (data_dir / LABELS).write_bytes(raw[: raw.index(b'""quote""')])
    assert build_error(data_dir, "labels") == f"{LABELS}, line 2: malformed CSV (unexpected end of data)"


def test_truncated_after_a_complete_cell(dummy_copy):
    data_dir = dummy_copy(NAME)
    raw = (data_dir / DATA).read_bytes()
    (data_dir / DATA).write_bytes(raw[: raw.rindex(b",")])
    assert build_error(data_dir, "texts") == f"{DATA}, line 6: 4 cells, expected 5 (the header's columns)"


def test_wrong_encoding(dummy_copy):
    data_dir = dummy_copy(NAME)
    (data_dir / DATA).write_bytes((data_dir / DATA).read_text(encoding="utf-8").encode("cp1252"))
    assert build_error(data_dir, "texts") == (
        f"{DATA}, line 2: not UTF-8 (byte 0x92 at offset 148 of the line: invalid start byte)")


def test_utf8_bom(dummy_copy):
    data_dir = dummy_copy(NAME)
    (data_dir / LABELS).write_bytes(b"\xef\xbb\xbf" + (data_dir / LABELS).read_bytes())
    assert build_error(data_dir, "labels") == f"{LABELS}: starts with a UTF-8 byte order mark; the release files have none"


def test_wrong_delimiter(dummy_copy):
    data_dir = dummy_copy(NAME)
    rows = read_rows(data_dir / DATA)
    with open(data_dir / DATA, "w", encoding="utf-8", newline="") as f:
        csv.writer(f, delimiter=";", lineterminator="\n").writerows(rows)
    assert build_error(data_dir, "texts") == (
        f"{DATA}: unexpected header (not comma-separated?): 1 columns, expected 5; missing ['DATASET', 'DATA_ID', "
        "'STUDY_PART', 'TEXT', 'GROUND_TRUTH_LABEL'], unexpected ['DATASET;DATA_ID;STUDY_PART;TEXT;GROUND_TRUTH_LABEL']"
    )


def test_missing_column(dummy_copy):
    data_dir = dummy_copy(NAME)
    rewrite(data_dir, LABELS, lambda rows: [row.pop(4) for row in rows])
    assert build_error(data_dir, "labels") == (
        f"{LABELS}: unexpected header: 13 columns, expected 14; missing ['ORDER'], unexpected []")


def test_extra_column(dummy_copy):
    data_dir = dummy_copy(NAME)
    rewrite(data_dir, DELIBERATIONS, lambda rows: [row.append("x") for row in rows])
    assert build_error(data_dir, "deliberations") == (
        f"{DELIBERATIONS}: unexpected header: 387 columns, expected 386; missing [], unexpected ['x']")


def test_renamed_and_reordered_columns(dummy_copy):
    data_dir = dummy_copy(NAME)
    set_cell(data_dir, DELIBERATIONS, 1, "MEMBER_2_NAME", "MEMBER_2_PSEUDONYM")
    assert build_error(data_dir, "deliberations") == (
        f"{DELIBERATIONS}: unexpected header: 386 columns, expected 386; missing ['MEMBER_2_NAME'], "
        "unexpected ['MEMBER_2_PSEUDONYM']")


def test_columns_out_of_order(dummy_copy):
    data_dir = dummy_copy(NAME)

    def swap(rows):
        for row in rows:
            row[3], row[4] = row[4], row[3]

    rewrite(data_dir, DATA, swap)
    assert build_error(data_dir, "texts") == (
        f"{DATA}: unexpected header: column 4 is 'GROUND_TRUTH_LABEL', expected 'TEXT' (columns out of order or repeated)")
    rewrite(data_dir, DATA, lambda rows: [row.append(row[3]) for row in rows])  # a repeated column
    assert build_error(data_dir, "texts") == (
        f"{DATA}: unexpected header: column 4 is 'GROUND_TRUTH_LABEL', expected 'TEXT' (columns out of order or repeated)")
    rewrite(data_dir, DATA, swap)
    assert build_error(data_dir, "texts") == (
        f"{DATA}: unexpected header: column 6 is 'GROUND_TRUTH_LABEL', expected no further column (columns out of order or repeated)")


def test_empty_file(dummy_copy):
    data_dir = dummy_copy(NAME)
    (data_dir / DATA).write_bytes(b"")
    assert build_error(data_dir, "texts") == f"{DATA}: is empty (expected a CSV header and records)"
    (data_dir / DATA).write_text(",".join(loader._DATA_COLUMNS) + "\n")
    assert build_error(data_dir, "texts") == f"{DATA}: has no records after the header"


@pytest.mark.parametrize(
    "path,config,line,column,value,message",
    [
        (LABELS, "labels", 8, "ORIGINAL_LABEL", "not_expressed",
         "field 'ORIGINAL_LABEL': invalid value 'not_expressed' (expected 'relation_expressed' or 'relation_not_expressed')"),
        (LABELS, "labels", 3, "ORIGINAL_LABEL", "relation_expressed",
         "field 'ORIGINAL_LABEL': invalid value 'relation_expressed' (expected 'sarcastic' or 'not_sarcastic')"),
        (DATA, "texts", 2, "DATASET", "deliberation-relation",
         "field 'DATASET': invalid value 'deliberation-relation' (expected 'deliberation-sarcasm' or "
         "'deliberation-relation-person-place')"),
        (DATA, "texts", 4, "GROUND_TRUTH_LABEL", "sarcastic",
         "field 'GROUND_TRUTH_LABEL': invalid value 'sarcastic' (expected 'relation_expressed' or "
         "'relation_not_expressed' or empty)"),
        (DATA, "texts", 3, "STUDY_PART", "depth",
         "field 'STUDY_PART': invalid value 'depth' (expected 'breadth' or 'breadth and depth')"),
        (DELIBERATIONS, "deliberations", 2, "MEMBER_1_RECONSIDERED_LABEL", "unsure",
         "field 'MEMBER_1_RECONSIDERED_LABEL': invalid value 'unsure' (expected 'sarcastic' or 'not_sarcastic' or "
         "'relation_expressed' or 'relation_not_expressed' or 'irresolvable' or empty)"),
        (LABELS, "labels", 4, EXPECTATION.upper(), "I expect everybody to agree with me.",
         f"field '{EXPECTATION.upper()}': invalid value 'I expect everybody to agree with me.' (expected "
         f"'{AGREE}' or '{HALF}' or '{DISAGREE}' or empty)"),
        (DELIBERATIONS, "deliberations", 3, "WAS_RESOLVED", "true",
         "field 'WAS_RESOLVED': invalid value 'true' (expected 'True' or 'False')"),
        (DELIBERATIONS, "deliberations", 2, "MEMBER_2_" + DOUBT.upper(), "Maybe, I am not sure",
         f"field 'MEMBER_2_{DOUBT.upper()}': invalid value 'Maybe, I am not sure' (expected a text starting with "
         "'Yes' or 'No')"),
    ],
)
def test_unknown_label(dummy_copy, path, config, line, column, value, message):
    data_dir = dummy_copy(NAME)
    set_cell(data_dir, path, line, column, value)
    assert build_error(data_dir, config) == f"{path}, line {line}: {message}"


@pytest.mark.parametrize("value", ["0.75", "1.0", "2", "", "-0.5"])
def test_confidence_outside_the_three_values(dummy_copy, value):
    data_dir = dummy_copy(NAME)
    set_cell(data_dir, LABELS, 5, "ORIGINAL_CONFIDENCE", value)
    assert build_error(data_dir, "labels") == (
        f"{LABELS}, line 5: field 'ORIGINAL_CONFIDENCE': invalid value {value!r} (expected '0', '0.5' or '1')")


def test_reconsidered_confidence_outside_the_three_values(dummy_copy):
    data_dir = dummy_copy(NAME)
    set_cell(data_dir, DELIBERATIONS, 3, "MEMBER_3_RECONSIDERED_CONFIDENCE", "0.25")
    assert build_error(data_dir, "deliberations") == (
        f"{DELIBERATIONS}, line 3: field 'MEMBER_3_RECONSIDERED_CONFIDENCE': invalid value '0.25' "
        "(expected '0', '0.5' or '1' or empty)")


@pytest.mark.parametrize(
    "path,config,line,column,value,expected",
    [
        (DELIBERATIONS, "deliberations", 2, "NUM_DISSENTING_OPINIONS_DISCUSSED", "1", "one of 0, 2, 3"),
        (DELIBERATIONS, "deliberations", 3, "MEMBER_1_DISCUSS_ORDER", "4", "one of 1, 2, 3 or empty"),
        (LABELS, "labels", 2, "ORDER", "-1", "a non-negative integer below 2**31"),
        (LABELS, "labels", 2, "LABEL_ID", "3857.0", "a non-negative integer below 2**31"),
        (DATA, "texts", 4, "DATA_ID", "2147483648", "a non-negative integer below 2**31"),
        (DATA, "texts", 4, "DATA_ID", "019295", "a non-negative integer below 2**31"),
        (DELIBERATIONS, "deliberations", 2, "MEMBER_1_MESSAGES_CHAR_COUNT", "73.5", "an int32 integer"),
        (DELIBERATIONS, "deliberations", 2, "MESSAGES_FLESCH_READING_EASE_MEAN", "1e3", "a decimal number"),
        (DELIBERATIONS, "deliberations", 2, "MESSAGES_GUNNING_FOG", "nan", "a decimal number"),
    ],
)
def test_out_of_range_number(dummy_copy, path, config, line, column, value, expected):
    data_dir = dummy_copy(NAME)
    set_cell(data_dir, path, line, column, value)
    assert build_error(data_dir, config) == f"{path}, line {line}: field {column!r}: invalid value {value!r} (expected {expected})"


def test_git_lfs_pointer(dummy_copy):
    data_dir = dummy_copy(NAME)
    (data_dir / DELIBERATIONS).write_text(
        "version https://git-lfs.github.com/spec/v1\n"
        "oid sha256:0e81a100a40dfeb74ea54a71774d3bb721f177f366a62077f4d68044b1c24b65\nsize 1753300\n")
    assert build_error(data_dir, "deliberations") == (
        f"{DELIBERATIONS}: is a Git LFS pointer, not the data; fetch the real file (git lfs pull)")


def test_html_error_page(dummy_copy):
    data_dir = dummy_copy(NAME)
    (data_dir / LABELS).write_text("<!DOCTYPE html>\n<html><head><title>Rate limit</title></head><body>429</body></html>\n")
    # labels.csv is read by the deliberations config too (for the join)
    assert build_error(data_dir, "deliberations") == (
        f"{LABELS}: is an HTML page, not the data (an error page saved in its place?)")


def test_missing_file(dummy_copy):
    data_dir = dummy_copy(NAME)
    (data_dir / LABELS).unlink()
    with pytest.raises(MissingSourceFiles, match=f"1 source file\\(s\\) missing: {data_dir / LABELS}"):
        load(NAME, "labels", data_dir=data_dir, allow_modified_sources=True)  # every file the config reads is checked first
    import datasets

    builder = corpus.builder_class(config_name="labels", data_dir=str(data_dir), cache_dir=str(data_dir / "cache"))
    with pytest.raises(FileNotFoundError, match=f"^1 source file\\(s\\) missing in {data_dir}: labels.csv$"):
        builder._split_generators(datasets.DownloadManager())


@pytest.mark.parametrize(
    "path,config,line,column,value,message",
    [
        (LABELS, "labels", 2, "EVIDENCE", '[{"comment": "x", "start": 1, "end": 2, "quote": "y"}',
         "field 'EVIDENCE': invalid JSON (Expecting ',' delimiter: line 1 column 54 (char 53))"),
        (LABELS, "labels", 5, loader._WHY_QUESTION, '["MISTAKE", NaN]',
         f"field '{loader._WHY_QUESTION}'[1]: invalid value NaN (expected a number JSON has; NaN and Infinity are not JSON)"),
        (DELIBERATIONS, "deliberations", 2, "MESSAGES", '[{"content": "a", "content": "b"}]',
         "field 'MESSAGES'[0]['content']: repeated key in one JSON object (values 'a' and 'b')"),
        (DELIBERATIONS, "deliberations", 2, "MESSAGES_DISCUSS", "",
         "field 'MESSAGES_DISCUSS': invalid JSON (Expecting value: line 1 column 1 (char 0))"),
    ],
)
def test_malformed_json_in_a_cell(dummy_copy, path, config, line, column, value, message):
    data_dir = dummy_copy(NAME)
    set_cell(data_dir, path, line, column, value)
    assert build_error(data_dir, config).startswith(f"{path}, line {line}: {message}")


@pytest.mark.parametrize(
    "value,message",
    [
        ('{"start": 1}', "field 'EVIDENCE': invalid value '{\"start\": 1}' (expected a JSON list of objects)"),
        ('[{"start": 1, "end": 2, "quote": "x"}]',
         "field 'EVIDENCE'[0]: invalid value {'start': 1, 'end': 2, 'quote': 'x'} "
         "(expected an object with the keys ['comment', 'start', 'end', 'quote'])"),
        ('[{"comment": "", "start": "87", "end": 125, "quote": "x"}]',
         "field 'EVIDENCE'[0]['start']: invalid value '87' (expected a non-negative integer)"),
        ('[{"comment": "", "start": 125, "end": 87, "quote": "x"}]', "field 'EVIDENCE'[0]: end 87 is before start 125"),
        ('[{"comment": null, "start": 87, "end": 88, "quote": "I"}]',
         "field 'EVIDENCE'[0]['comment']: invalid value None (expected a string)"),
        ('[{"comment": "", "start": 88, "end": 92, "quote": "gave"}]',
         "field 'EVIDENCE'[0]: quote 'gave' is not the text of DATA_ID 19179 from 88 to 92 (' gav')"),
    ],
)
def test_evidence_outside_its_shape(dummy_copy, value, message):
    data_dir = dummy_copy(NAME)
    set_cell(data_dir, LABELS, 4, "EVIDENCE", value)
    assert build_error(data_dir, "labels") == f"{LABELS}, line 4: {message}"


def test_evidence_of_a_label_whose_dataset_differs_from_its_text(dummy_copy):
    data_dir = dummy_copy(NAME)
    set_cell(data_dir, LABELS, 3, "DATASET", "deliberation-relation-person-place")
    assert build_error(data_dir, "labels") == (
        f"{LABELS}, line 3: field 'DATASET': invalid value 'deliberation-relation-person-place' "
        "(expected 'deliberation-sarcasm', the DATASET of DATA_ID 19179 in data.csv)")


def test_member_label_id_that_does_not_join(dummy_copy):
    data_dir = dummy_copy(NAME)
    set_cell(data_dir, DELIBERATIONS, 3, "MEMBER_2_LABEL_ID", "7004")
    assert build_error(data_dir, "deliberations") == (
        f"{DELIBERATIONS}, line 3: field 'MEMBER_2_LABEL_ID': invalid value '7004' (expected a LABEL_ID of labels.csv)")


def test_chat_author_who_is_not_a_member(dummy_copy):
    data_dir = dummy_copy(NAME)
    messages = [{"content": "hi", "user_pseudonym": "Marvelous Murdock", "user_id": 390}]
    set_cell(data_dir, DELIBERATIONS, 2, "MESSAGES", json.dumps(messages))
    assert build_error(data_dir, "deliberations") == (
        f"{DELIBERATIONS}, line 2: field 'MESSAGES'[0]['user_id']: invalid value 390 "
        "(expected the USER_ID of a member: [389, 8451, 8455])")
    messages[0].update(user_id=389, user_pseudonym="Marvellous Murdock")
    set_cell(data_dir, DELIBERATIONS, 2, "MESSAGES", json.dumps(messages))
    assert build_error(data_dir, "deliberations") == (
        f"{DELIBERATIONS}, line 2: field 'MESSAGES'[0]['user_pseudonym']: invalid value "
        "'Marvellous Murdock' (expected 'Marvelous Murdock', the NAME of member 389)")
    set_cell(data_dir, DELIBERATIONS, 2, "MESSAGES", '[{"content": "hi", "user_id": 389}]')
    assert build_error(data_dir, "deliberations") == (
        f"{DELIBERATIONS}, line 2: field 'MESSAGES'[0]: invalid value {{'content': 'hi', 'user_id': 389}} "
        "(expected an object with the keys ['content', 'user_pseudonym', 'user_id'])")


@pytest.mark.parametrize(
    "line,column,value,expected",
    [
        (2, "MEMBER_3_DISCUSS_ORDER", "3", "empty: MEMBER_3_DID_DISCUSS is False"),
        (2, "MEMBER_1_RECONSIDER_ORDER", "", "filled: MEMBER_1_DID_RECONSIDER is True"),
        (2, "MEMBER_3_" + PROCESS.upper(), " Nice.", "empty: MEMBER_3_DID_CONCLUDE is False"),
    ],
)
def test_session_answers_must_match_participation(dummy_copy, line, column, value, expected):
    data_dir = dummy_copy(NAME)
    set_cell(data_dir, DELIBERATIONS, line, column, value)
    assert build_error(data_dir, "deliberations") == (
        f"{DELIBERATIONS}, line {line}: field {column!r}: invalid value {value!r} (expected {expected})")


def test_both_resolution_answers_filled(dummy_copy):
    data_dir = dummy_copy(NAME)
    set_cell(data_dir, DELIBERATIONS, 2, "MEMBER_1_" + loader._RESOLVED_QUESTION, " Both.")
    assert build_error(data_dir, "deliberations") == (
        f"{DELIBERATIONS}, line 2: field 'MEMBER_1_{loader._RESOLVED_QUESTION}': invalid value ' Both.' (expected "
        f"exactly one of {loader._RESOLVED_QUESTION} and {loader._UNRESOLVED_QUESTION} filled: MEMBER_1_DID_CONCLUDE is True)")


def test_follow_up_questions_must_match_the_expectation(dummy_copy):
    data_dir = dummy_copy(NAME)
    set_cell(data_dir, LABELS, 5, EXPECTATION.upper(), AGREE)
    assert build_error(data_dir, "labels") == (
        f"{LABELS}, line 5: field '{loader._WHY_QUESTION}': invalid value '[\"The text contains some features that "
        f"indicate target category A and some f... (118 characters) (expected empty: {EXPECTATION.upper()} is '{AGREE}')")


def test_statistics_partly_empty(dummy_copy):
    data_dir = dummy_copy(NAME)
    set_cell(data_dir, DELIBERATIONS, 2, "MEMBER_1_MESSAGES_SMOG_INDEX", "")
    assert build_error(data_dir, "deliberations") == (
        f"{DELIBERATIONS}, line 2: field 'MEMBER_1_MESSAGES_SMOG_INDEX': invalid value '' (expected a number: the "
        "other statistics of this group are filled)")


def test_group_statistics_of_an_empty_chat(dummy_copy):
    data_dir = dummy_copy(NAME)
    set_cell(data_dir, DELIBERATIONS, 4, "MESSAGES", '[{"content": "hi", "user_pseudonym": "Lucky Lucia", "user_id": 1200}]')
    assert build_error(data_dir, "deliberations") == (
        f"{DELIBERATIONS}, line 4: field 'MESSAGES_CHAR_COUNT': invalid value '' (expected filled: MESSAGES has 1 messages)")


def test_duplicate_ids(dummy_copy):
    data_dir = dummy_copy(NAME)
    set_cell(data_dir, DELIBERATIONS, 4, "DELIBERATION_ID", "438")
    assert build_error(data_dir, "deliberations") == (
        f"{DELIBERATIONS}, line 4: field 'DELIBERATION_ID': invalid value '438' (expected a unique DELIBERATION_ID; "
        "already on line 2)")


# --- files in the real format and at the official sizes ----------------------------------------


def write_full_size(folder):
    """The dummy records repeated, with fresh ids, to the official 80 / 4,165 / 418 records."""
    folder.mkdir()
    dummy = corpus.dummy_dir
    texts, labels, deliberations = (read_rows(dummy / path) for path in (DATA, LABELS, DELIBERATIONS))
    # 80 texts: copies of the dummy texts, so the evidence offsets still hold
    text_rows, copies = [texts[0]], {}
    for index in range(80):
        row = list(texts[1 + index % 5])
        copies.setdefault(row[1], []).append(str(20000 + index))
        row[1] = str(20000 + index)
        text_rows.append(row)
    label_header = labels[0]
    column = {name: i for i, name in enumerate(label_header)}
    template = {row[column["LABEL_ID"]]: row for row in labels[1:]}
    label_rows, deliberation_rows, next_label = [label_header], [deliberations[0]], 100000
    member_label = [deliberations[0].index(f"MEMBER_{n}_LABEL_ID") for n in (1, 2, 3)]
    for index in range(418):
        row = list(deliberations[1 + index % 3])
        row[0] = str(1000 + index)
        row[1] = copies[row[1]][index % len(copies[row[1]])]
        for position in member_label:
            label = list(template[row[position]])
            label[column["LABEL_ID"]] = row[position] = str(next_label)
            label[column["DATA_ID"]], label[column["DELIBERATION_ID"]] = row[1], row[0]
            label_rows.append(label)
            next_label += 1
        deliberation_rows.append(row)
    undiscussed = [row for row in labels[1:] if row[column["DELIBERATION_ID"]] == ""]
    while len(label_rows) < 4166:
        label = list(undiscussed[len(label_rows) % len(undiscussed)])
        label[column["LABEL_ID"]] = str(next_label)
        if label[column["DATA_ID"]] in copies:
            label[column["DATA_ID"]] = copies[label[column["DATA_ID"]]][0]
        label_rows.append(label)
        next_label += 1
    for path, rows in ((DATA, text_rows), (LABELS, label_rows), (DELIBERATIONS, deliberation_rows)):
        with open(folder / path, "w", encoding="utf-8", newline="") as f:
            csv.writer(f, lineterminator="\n").writerows(rows)
    return folder


def test_full_size_files_build_with_every_record_accounted_for(tmp_path, capsys):
    upstream = write_full_size(tmp_path / "upstream")
    argv = ["build", NAME, "--data-dir", str(upstream), "--out", str(tmp_path / "out"), "--allow-modified-sources"]
    assert main(argv) == 0
    assert table_lines(capsys.readouterr().out) == [
        [NAME, "deliberations", "train", "418", "418", "418"],
        [NAME, "labels", "train", "4,165", "4,165", "4,165"],
        [NAME, "texts", "train", "80", "80", "80"],
    ]


# --- the cell parsers, fuzzed ------------------------------------------------------------------


def row_with(column, value):
    return csv_cells.Row("fuzz.csv", 2, {column: value})


def expect_error(call, column, value):
    with pytest.raises(ValueError) as caught:
        call()
    assert str(caught.value).startswith(f"fuzz.csv, line 2: field {column!r}: ")
    assert "invalid" in str(caught.value)


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.integers(-10, 2**32).map(str), st.text(max_size=12)))
def test_integer_cells(value):
    row = row_with("ORDER", value)
    if value.isascii() and value.isdigit() and str(int(value)) == value and int(value) < 2**31:
        assert row.integer("ORDER") == int(value)
    else:
        expect_error(lambda: row.integer("ORDER"), "ORDER", value)
    if value == "":
        assert row.integer("ORDER", nullable=True) is None


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.sampled_from(["0", "0.5", "1", "", "1.0", ".5", "0.50"]), st.text(max_size=5)))
def test_confidence_cells(value):
    row = row_with("C", value)
    if value in ("0", "0.5", "1"):
        assert row.confidence("C") == float(value)
    else:
        expect_error(lambda: row.confidence("C"), "C", value)


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.sampled_from(["True", "False", "true", "1", ""]), st.text(max_size=6)))
def test_boolean_cells(value):
    row = row_with("B", value)
    if value in ("True", "False"):
        assert row.boolean("B") is (value == "True")
    else:
        expect_error(lambda: row.boolean("B"), "B", value)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.tuples(st.sampled_from(["Yes", "No", "yes", "Yeah", "Nope", ""]), st.sampled_from(["", " "]),
                           st.text(max_size=20)).map("".join), st.text(max_size=20)))
def test_yes_no_cells(value):
    row = row_with("Q", value)
    if value == "":
        assert row.yes_no("Q") is None
    elif value in ("Yes", "No") or value.startswith(("Yes ", "No ")):
        answer, _, rest = value.partition(" ")
        assert row.yes_no("Q") == {"answer": answer == "Yes", "explanation": rest or None}
    else:
        expect_error(lambda: row.yes_no("Q"), "Q", value)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.integers(-(2**40), 2**40).map(str), st.floats(allow_nan=True, allow_infinity=True).map(repr),
                 st.decimals(places=4, allow_nan=False, allow_infinity=False).map(str), st.text(max_size=8)))
def test_number_cells(value):
    for integer in (True, False):
        row = row_with("N", value)
        try:
            number = row.number("N", integer)
        except ValueError as error:
            assert str(error).startswith("fuzz.csv, line 2: field 'N': invalid value")
            continue
        assert "e" not in value.lower() and "n" not in value.lower() and not value.startswith("+")
        assert number == (int(value) if integer else float(value))
        assert isinstance(number, int if integer else float)
        if integer:
            assert abs(number) < 2**31


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.lists(st.text(max_size=10), max_size=4).map(json.dumps),
                 st.lists(st.one_of(st.integers(), st.none()), min_size=1, max_size=3).map(json.dumps),
                 st.text(max_size=10)))
def test_string_list_cells(value):
    row = row_with("W", value)
    try:
        parsed = json.loads(value)
    except ValueError:
        parsed = None
    if value == "":
        assert loader._strings(row, "W") is None
    elif isinstance(parsed, list) and all(isinstance(item, str) for item in parsed):
        assert loader._strings(row, "W") == parsed
    else:
        with pytest.raises(ValueError, match=r"^fuzz\.csv, line 2: field 'W'[:\[]"):
            loader._strings(row, "W")


# Upstream writes with lineterminator="\n", so a lone CR would not be quoted: the release has none.
cell = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r" + CSV_UNSAFE), max_size=30)


@settings(max_examples=100, deadline=None)
@given(rows=st.lists(st.lists(cell, min_size=5, max_size=5), min_size=1, max_size=5))
def test_csv_records_round_trip(rows, tmp_path_factory):
    # Any cells (quotes, commas, newlines) written the way upstream writes them come back as
    # the same records, with the line each starts on.
    folder = tmp_path_factory.mktemp("csv")
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows([loader._DATA_COLUMNS] + rows)
    (folder / DATA).write_text(buffer.getvalue(), encoding="utf-8", newline="")
    records = list(csv_cells.records(str(folder / DATA), DATA, loader._DATA_COLUMNS))
    assert [list(record.values()) for _, record in records] == rows
    assert records[0][0] == 2


# --- downloads over real HTTP (127.0.0.1), as from the pinned URLs -----------------------------

PINNED = "https://raw.githubusercontent.com/crowd-deliberation/data/d36857821c0b2694aa0fe3da3aa514d5b15e7cf6/"


def test_pinned_urls_and_checksums():
    assert loader._URLS == {path: PINNED + path for path in (DATA, LABELS, DELIBERATIONS)}
    records = (corpus.loader_dir / "checksums.tsv").read_text().splitlines()
    assert records == [
        f"{PINNED}data.csv\t86614\tfcee2f0bcae17cbba01bca2f710b5a7faf6cde034ad5e8c1115bd5397141cd3a",
        f"{PINNED}deliberations.csv\t1753300\t0e81a100a40dfeb74ea54a71774d3bb721f177f366a62077f4d68044b1c24b65",
        f"{PINNED}labels.csv\t1491601\t626b5004465eb9b82a707a1a3b53869b31ae1a0f333c4890b144e1ae3a77f537",
    ]


def test_download_from_urls_prepared_and_streaming(mirror, tmp_path, dummy_build):
    for config in ("deliberations", "labels"):  # each reads two files
        prepared = load(NAME, config, cache_dir=tmp_path / config, allow_modified_sources=True)
        assert prepared["train"].to_list() == dummy_build(NAME, config)["train"].to_list()
        streamed = load(NAME, config, streaming=True)
        assert list(streamed["train"]) == dummy_build(NAME, config)["train"].to_list()


def test_build_from_the_urls_checks_the_release_and_exports(mirror, tmp_path, monkeypatch, record_release):
    from corpora import build
    from corpora import prepare

    module = registry.get(NAME).module
    record_release(NAME, corpus.dummy_dir, urls=module._URLS)
    official_sizes_of_the_dummy_data(monkeypatch, registry.get(NAME))
    rows = build.export(prepare.Request(NAME), tmp_path / "out")
    assert [(r.config, r.split, r.read, r.rows, r.official) for r in rows] == [
        ("deliberations", "train", 3, 3, 3), ("labels", "train", 12, 12, 12), ("texts", "train", 5, 5, 5)]


def test_without_a_data_dir_the_pinned_urls_are_downloaded(tmp_path):
    # ...which tests may not reach: offline mode (and the socket guard) stop the download.
    with pytest.raises(Exception) as caught:
        load(NAME, "texts", cache_dir=tmp_path)
    assert PINNED + "data.csv" in str(caught.value)


# --- the bad-input matrix: what `corpora build crowd_deliberation` prints (docs/bad_input.md) ----

def csv_variant(change, delimiter=","):
    def variant(raw):
        rows = list(csv.reader(io.StringIO(raw.decode("utf-8"), newline="")))
        change(rows)
        out = io.StringIO()
        csv.writer(out, delimiter=delimiter, lineterminator="\n").writerows(rows)
        return out.getvalue().encode("utf-8")

    return variant


def cell(line, column, value):
    def change(rows):
        rows[line - 1][rows[0].index(column)] = value

    return change


CHAT = '[{"content": "hi", "user_pseudonym": "Marvelous Murdock", "user_id": 389}'
# Variants of deliberations.csv, read by the default config.
BAD_INPUT = [
    BadInput(DELIBERATIONS, "truncated file", lambda raw: raw[: len(raw) - 400],
             "deliberations.csv, line 4: 133 cells, expected 386 (the header's columns)"),
    BadInput(DELIBERATIONS, "wrong encoding (Latin-1)",
             lambda raw: raw.replace(b"Authentic Austin", "Authentic Aust\u00edn".encode("latin-1")),
             "deliberations.csv, line 2: not UTF-8 (byte 0xed at offset 1038 of the line: invalid continuation byte)"),
    BadInput(DELIBERATIONS, "UTF-8 BOM", lambda raw: b"\xef\xbb\xbf" + raw,
             "deliberations.csv: starts with a UTF-8 byte order mark; the release files have none"),
    BadInput(DELIBERATIONS, "wrong delimiter (semicolons)", csv_variant(lambda rows: None, delimiter=";"),
             "deliberations.csv: unexpected header (not comma-separated?): 1 columns, expected 386; missing "
             "['DELIBERATION_ID', 'DATA_ID', 'STUDY_PART', 'WAS_RESOLVED', 'NUM_DISSENTING_OPINIONS_DISCUSSED', ... "
             "(386 in all)], unexpected ['DELIBERATION_ID;DATA_ID;STUDY_PART;WAS_RESOLVED;NUM_DISSENTING_OPINIONS_DISC... (15944 characters)]"),
    BadInput(DELIBERATIONS, "missing column", csv_variant(lambda rows: [row.pop(3) for row in rows]),
             "deliberations.csv: unexpected header: 385 columns, expected 386; missing ['WAS_RESOLVED'], unexpected []"),
    BadInput(DELIBERATIONS, "extra column",
             csv_variant(lambda rows: [row.append("DATASET" if i == 0 else "x") for i, row in enumerate(rows)]),
             "deliberations.csv: unexpected header: 387 columns, expected 386; missing [], unexpected ['DATASET']"),
    BadInput(DELIBERATIONS, "empty file", lambda raw: b"",
             "deliberations.csv: is empty (expected a CSV header and records)"),
    BadInput(DELIBERATIONS, "unknown label", csv_variant(cell(3, "MEMBER_2_ORIGINAL_LABEL", "not_expressed")),
             "deliberations.csv, line 3: field 'MEMBER_2_ORIGINAL_LABEL': invalid value 'not_expressed' (expected "
             "'sarcastic' or 'not_sarcastic' or 'relation_expressed' or 'relation_not_expressed')"),
    BadInput(DELIBERATIONS, "out-of-range number", csv_variant(cell(2, "MEMBER_1_RECONSIDER_ORDER", "4")),
             "deliberations.csv, line 2: field 'MEMBER_1_RECONSIDER_ORDER': invalid value '4' (expected one of 1, 2, 3 "
             "or empty)"),
    BadInput(DELIBERATIONS, "Git LFS pointer", lambda raw: LFS,
             "deliberations.csv: is a Git LFS pointer, not the data; fetch the real file (git lfs pull)"),
    BadInput(DELIBERATIONS, "HTML error page", lambda raw: HTML,
             "deliberations.csv: is an HTML page, not the data (an error page saved in its place?)"),
    BadInput(DELIBERATIONS, "malformed JSON in a cell", csv_variant(cell(2, "MESSAGES", CHAT)),
             "deliberations.csv, line 2: field 'MESSAGES': invalid JSON (Expecting ',' delimiter: line 1 column 74 "
             "(char 73)): '[{\"content\": \"hi\", \"user_pseudonym\": \"Marvelous Murdock\", \"user_id\": 389}'"),
    BadInput(DELIBERATIONS, "confidence outside {0, 0.5, 1}", csv_variant(cell(2, "MEMBER_1_ORIGINAL_CONFIDENCE", "0.75")),
             "deliberations.csv, line 2: field 'MEMBER_1_ORIGINAL_CONFIDENCE': invalid value '0.75' (expected '0', "
             "'0.5' or '1')"),
    BadInput(DELIBERATIONS, "member LABEL_ID not in labels.csv", csv_variant(cell(4, "MEMBER_3_LABEL_ID", "9999")),
             "deliberations.csv, line 4: field 'MEMBER_3_LABEL_ID': invalid value '9999' (expected a LABEL_ID of labels.csv)"),
    BadInput(DELIBERATIONS, "repeated key in a JSON cell",
             csv_variant(cell(2, "MESSAGES", CHAT[:-1] + ', "user_id": 390}]')),
             "deliberations.csv, line 2: field 'MESSAGES'[0]['user_id']: repeated key in one JSON object "
             "(values 389 and 390)"),
    BadInput(DELIBERATIONS, "lone surrogate escape in a JSON cell",
             csv_variant(cell(2, "MESSAGES", CHAT.replace('"hi"', '"hi \\ud83d"') + "]")),
             "deliberations.csv, line 2: field 'MESSAGES'[0]['content']: invalid value 'hi \\ud83d' "
             "(expected text; a lone UTF-16 surrogate escape is not text)"),
    BadInput(DELIBERATIONS, "5000-digit integer in a JSON cell",
             csv_variant(cell(2, "MESSAGES", CHAT.replace("389", "9" * 5000) + "]")),
             "deliberations.csv, line 2: field 'MESSAGES'[0]['user_id']: invalid value " + "9" * 77
             + "... (expected an integer of at most 4300 digits; this one has 5000)"),
    BadInput(DELIBERATIONS, "JSON cell nested 100,000 deep",
             csv_variant(cell(2, "MESSAGES", "[" * 100_000 + "]" * 100_000)),
             "deliberations.csv, line 2: field 'MESSAGES': invalid JSON (nested too deeply for Python's JSON reader): "
             "'" + "[" * 76 + "... (200000 characters)"),
    BadInput(DELIBERATIONS, "invalid UTF-8 in a JSON cell",
             lambda raw: raw.replace(b'""Marvelous Murdock""', b'""Marvelous Murd\xf6ck""', 1),
             "deliberations.csv, line 2: not UTF-8 (byte 0xf6 at offset 1228 of the line: invalid start byte)"),
]


def test_a_cell_over_the_csv_modules_default_limit_is_read(dummy_copy, tmp_path):
    # csv refuses cells over 128 KiB unless told otherwise; here a cell is limited only by memory.
    data_dir = dummy_copy(NAME)
    rewrite(data_dir, DATA, lambda rows: rows[1].__setitem__(3, rows[1][3] + " x" * 500_000))
    texts = load(NAME, "texts", data_dir=data_dir, cache_dir=tmp_path, allow_modified_sources=True)["train"]
    assert len(texts[0]["text"]) == len(read_rows(corpus.dummy_dir / DATA)[1][3]) + 1_000_000


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
# No lone CR: the release has none, and a writer like upstream's (lineterminator="\n") leaves it unquoted.
cell_values = st.one_of(
    st.text(st.characters(blacklist_characters="\r" + CSV_UNSAFE, blacklist_categories=("Cs",)), max_size=12), json_values.map(json.dumps), st.integers(-(10**12), 10**12).map(str),
    st.sampled_from(["", "True", "False", "0", "0.5", "1", "Yes", "No ", "[]", "7001", "389", "irresolvable"]),
    st.text("0123456789", min_size=4000, max_size=5000),
)


def fuzz_file(folder, path, line, column, value):
    rows = read_rows(corpus.dummy_dir / path)
    rows[line - 1][rows[0].index(column)] = value
    with open(folder / path, "w", encoding="utf-8", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)
    return str(folder / path)


@settings(max_examples=300, deadline=None)
@given(line=st.integers(2, 4), column=st.sampled_from(loader._DELIBERATION_COLUMNS), value=cell_values)
def test_fuzzed_deliberation_cells(tmp_path_factory, line, column, value):
    # Any value in any cell: the typed record, or a ValueError naming the file, line and field.
    path = fuzz_file(tmp_path_factory.mktemp("fuzz"), DELIBERATIONS, line, column, value)
    label_ids = {label["label_id"] for label in loader._read_labels(str(corpus.dummy_dir / LABELS), LABELS, None)}
    try:
        rows = list(loader._read_deliberations(path, DELIBERATIONS, label_ids))
    except ValueError as error:
        assert re.match(re.escape(DELIBERATIONS) + r", line \d+: field '", str(error))  # a repeated id names its second line
        return
    assert len(rows) == 3
    corpus.features("deliberations").encode_example(rows[line - 2])  # fits the declared features


@settings(max_examples=300, deadline=None)
@given(line=st.integers(2, 13), column=st.sampled_from(loader._LABEL_COLUMNS), value=cell_values)
def test_fuzzed_label_cells(tmp_path_factory, line, column, value):
    path = fuzz_file(tmp_path_factory.mktemp("fuzz"), LABELS, line, column, value)
    texts = {text["data_id"]: text for text in loader._read_texts(str(corpus.dummy_dir / DATA), DATA)}
    try:
        rows = list(loader._read_labels(path, LABELS, texts))
    except ValueError as error:
        assert re.match(re.escape(LABELS) + r", line \d+: field '", str(error))  # a repeated id names its second line
        return
    assert len(rows) == 12
    corpus.features("labels").encode_example(rows[line - 2])


@settings(max_examples=200, deadline=None)
@given(line=st.integers(2, 6), column=st.sampled_from(loader._DATA_COLUMNS), value=cell_values)
def test_fuzzed_text_cells(tmp_path_factory, line, column, value):
    path = fuzz_file(tmp_path_factory.mktemp("fuzz"), DATA, line, column, value)
    try:
        rows = list(loader._read_texts(path, DATA))
    except ValueError as error:
        assert re.match(re.escape(DATA) + r", line \d+: field '", str(error))  # a repeated id names its second line
        return
    assert len(rows) == 5
    corpus.features("texts").encode_example(rows[line - 2])


@settings(max_examples=200, deadline=None)
@given(raw=st.one_of(st.binary(max_size=200), st.text(st.characters(blacklist_categories=("Cs",)), max_size=200).map(lambda t: t.encode("utf-8"))))
def test_fuzzed_files(tmp_path_factory, raw):
    # Any bytes at all: records, or a ValueError that starts with the file's name.
    path = tmp_path_factory.mktemp("fuzz") / DATA
    path.write_bytes(raw)
    try:
        list(loader._read_texts(str(path), DATA))
    except ValueError as error:
        assert str(error).startswith(DATA)
