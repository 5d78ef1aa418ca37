"""saf_micro_job_german: every quirk of loaders/saf_micro_job_german/FORMAT.md, and bad input, for both
configs (`default`: the Hub's Parquet files, `upstream_xml`: the GitHub XML files)."""

import math
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import datasets
import pyarrow
import pyarrow.parquet
import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from conftest import BadInput
from conftest import build_error as shared_build_error
from conftest import official_sizes_of_the_dummy_data
from conftest import table_lines
from corpora import load
from corpora import registry
from corpora.cli import main

NAME = "saf_micro_job_german"
corpus = registry.get(NAME)
loader = corpus.module
DUMMY = corpus.dummy_dir
TRAIN_PARQUET = "data/train-00000-of-00001-d7d79904ef6ab584.parquet"
VALIDATION_PARQUET = "data/validation-00000-of-00001-0da65f8dcc3502f2.parquet"
TRAIN_1 = "data/training/german/1.xml"
TRAIN_3 = "data/training/german/3.xml"
LABELS = ["Correct", "Partially correct", "Incorrect"]

sys.path.insert(0, str(DUMMY))
import make_dummy_parquet  # noqa: E402


def test_constants_follow_the_source_file_convention():
    assert set({c: corpus.config(c).files for c in corpus.configs}) == set(corpus.configs) == {"default", "upstream_xml"}
    for config, splits in {c: corpus.config(c).files for c in corpus.configs}.items():
        assert list(splits) == list(corpus.config(config).split_sizes)
        for paths in splits.values():
            assert all(path in loader._URLS for path in paths)
    assert corpus.config("default").files["train"] == [TRAIN_PARQUET]
    assert loader._URLS[TRAIN_PARQUET] == (
        "https://huggingface.co/datasets/Short-Answer-Feedback/saf_micro_job_german/resolve/"
        "30db3effcfc07b638291cfcff248b84dbd8013db/" + TRAIN_PARQUET
    )
    assert loader._URLS[TRAIN_1] == (
        "https://raw.githubusercontent.com/SebOchs/SAF/09949e912d266777a752ac7d51cfcddb4b3f6978/" + TRAIN_1
    )
    assert corpus.config("upstream_xml").files["test_unseen_questions"] == [
        "data/unseen_questions/german/2.xml", "data/unseen_questions/german/5.xml"]
    assert len(loader._URLS) == 4 + 14
    assert corpus.split_sizes == {
        "default": {"train": 1226, "validation": 308, "test_unseen_answers": 271, "test_unseen_questions": 602},
        "upstream_xml": {"train": 1534, "test_unseen_answers": 271, "test_unseen_questions": 602},
    }


def test_checksums_measure_the_xml_files_and_list_the_parquet_files_as_unmeasured():
    lines = (corpus.loader_dir / "checksums.tsv").read_text().splitlines()
    entries = [line.split("\t") for line in lines]
    assert [url for url, _, _ in entries] == sorted(loader._URLS.values())
    unmeasured = [url for url, size, sha256 in entries if (size, sha256) == ("-", "-")]
    assert unmeasured == sorted(loader._URLS[path] for paths in corpus.config("default").files.values() for path in paths)
    xml = [entry for entry in entries if entry[0].endswith(".xml")]
    assert len(xml) == 14
    assert xml[0][1:] == ["124262", "136d160487399e5e265ca69a5ffb67534527d759637bddce4f77bac42ea4a419"]
    assert sum(int(size) for _, size, _ in xml) == 987_921


def test_card_lists_the_splits_of_both_configs():
    # The two configs have different splits: the card's split table has a column for each.
    card = corpus.card_path.read_text(encoding="utf-8")
    assert "| config | train | validation | test_unseen_answers | test_unseen_questions |\n" in card
    assert "| `default` | 1,226 | 308 | 271 | 602 |\n| `upstream_xml` | 1,534 | - | 271 | 602 |\n" in card


# --- the quirks, on the dummy data ---------------------------------------------------------


def test_default_has_the_published_schema_and_splits(dummy_build):
    dataset = dummy_build(NAME, "default")
    assert list(dataset) == ["train", "validation", "test_unseen_answers", "test_unseen_questions"]
    assert {name: feature.dtype for name, feature in dataset["train"].features.items()} == {
        "id": "string", "question": "string", "reference_answer": "string", "provided_answer": "string",
        "answer_feedback": "string", "verification_feedback": "string", "score": "float64",
    }
    assert dataset["train"][0] == {
        "id": "0ccabf3fea8d4ae8bd990c8ead51679a",
        "question": "Frage 1: Was musst du tun, bevor du den Laden betrittst?",
        "reference_answer": "Du liest die Jobbeschreibung vollständig (0.5 P) und prüfst, ob der Laden geöffnet ist (0.5 P).",
        "provided_answer": "Ich lese die Jobbeschreibung und schaue nach den Öffnungszeiten.",
        "answer_feedback": "Korrekt!",
        "verification_feedback": "Correct",
        "score": 1.0,
    }


def test_upstream_xml_ids_come_from_fold_question_and_position(dummy_build):
    dataset = dummy_build(NAME, "upstream_xml")
    assert list(dataset["test_unseen_questions"]["id"]) == [
        "unseen_questions-2-000", "unseen_questions-2-001", "unseen_questions-2-002",
        "unseen_questions-5-000", "unseen_questions-5-001", "unseen_questions-5-002",
    ]
    assert list(dataset["train"]["id"])[:4] == ["training-1-000", "training-1-001", "training-1-002", "training-3-000"]
    assert dataset["train"][6]["question_id"] == 3 and dataset["train"][6]["reference_answer_id"] == "3.a1"
    assert dataset["train"].features["question_id"].dtype == "int32"


def test_hub_ids_are_uuid4_hex(dummy_build):
    for split, rows in dummy_build(NAME, "default").items():
        for row_id in list(rows["id"]):
            assert len(row_id) == 32 and row_id == row_id.lower() and int(row_id, 16) >= 0, split


def test_training_folder_is_train_plus_validation(dummy_build):
    # Quirk 2: the Hub's partition is not in the XML; upstream_xml's train is the whole folder.
    hub = dummy_build(NAME, "default")
    xml = dummy_build(NAME, "upstream_xml")
    assert hub["train"].num_rows + hub["validation"].num_rows == xml["train"].num_rows == 16
    answers = sorted(list(hub["train"]["provided_answer"]) + list(hub["validation"]["provided_answer"]))
    assert answers == sorted(list(xml["train"]["provided_answer"]))


def test_hub_rows_equal_the_xml_rows_they_were_converted_from(dummy_build):
    hub = dummy_build(NAME, "default")
    xml = dummy_build(NAME, "upstream_xml")
    fields = ["question", "reference_answer", "provided_answer", "answer_feedback", "verification_feedback", "score"]

    def strip(rows):
        return [{field: row[field] for field in fields} for row in rows]

    for split in ["test_unseen_answers", "test_unseen_questions"]:
        assert strip(hub[split]) == strip(xml[split]), split


def test_every_score_value_and_its_label(dummy_build):
    # Quirk 3: decimal strings in the XML, float64 here; the label follows the score.
    for config in corpus.configs:
        train = dummy_build(NAME, config)["train"] if config == "upstream_xml" else datasets.concatenate_datasets(
            [dummy_build(NAME, config)["train"], dummy_build(NAME, config)["validation"]])
        assert sorted(set(list(train["score"]))) == [0.0, 0.25, 0.5, 0.75, 1.0]
        for row in train:
            expected = {1.0: "Correct", 0.0: "Incorrect"}.get(row["score"], "Partially correct")
            assert row["verification_feedback"] == expected
    text = (DUMMY / TRAIN_3).read_text()
    assert "<score>0.25</score>" in text and "<score>1.0</score>" in text


def test_newlines_inside_a_response_are_kept(dummy_build):
    # Quirk 4.
    assert "Freundlich bleiben\nnicht als Tester\nzu erkennen geben" in list(dummy_build(NAME, "upstream_xml")["train"][
        "provided_answer"])
    assert "Ich lese die Beschreibung und prüfe,\nob offen ist." in list(dummy_build(NAME, "default")[
        "test_unseen_answers"]["provided_answer"])


def test_leading_and_trailing_spaces_are_kept(dummy_build):
    # Quirk 5: feedback with a leading or a trailing space, reference answer 7 with a trailing one.
    for config in corpus.configs:
        dataset = dummy_build(NAME, config)
        feedback = [text for split in dataset for text in list(dataset[split]["answer_feedback"])]
        assert " Solltest du dir unsicher sein, lies die Jobbeschreibung. Es gibt keine zeitliche Einschränkung." in feedback
        assert "Nur bis 5 € wird erstattet. Den Rest musst du selbst tragen, bevor du den Job abschließen kannst. " in feedback
        sevens = {row["reference_answer"] for split in dataset for row in dataset[split] if row["question"].startswith("Frage 7: ")}
        assert sevens == {"Der Kaufpreis wird bis 5 € erstattet (0.75 P), höhere Beträge musst du jedoch selbst tragen (0.25 P). "}
    assert "tragen (0.25 P). </referenceAnswer>" in (DUMMY / "data/unseen_answers/german/7.xml").read_text()


def test_amp_entities_are_decoded(dummy_build):
    # Quirk 6.
    assert "Fotos &amp; Kassenbon bereitlegen" in (DUMMY / TRAIN_1).read_text()
    xml = dummy_build(NAME, "upstream_xml")
    assert xml["train"][2]["provided_answer"] == "Fotos & Kassenbon bereitlegen"
    assert xml["train"][3]["reference_answer"].startswith("Datum & Uhrzeit (0.5 P)")
    assert "Name des Ladens & Datum" in list(xml["test_unseen_answers"]["provided_answer"])


def test_duplicate_answers_are_kept(dummy_build):
    # Quirk 7: the same (question, response) twice in a fold, and once in training and unseen_answers.
    xml = dummy_build(NAME, "upstream_xml")
    third = [row for row in xml["train"] if row["question_id"] == 3]
    assert [row["provided_answer"] for row in third].count("Datum und Uhrzeit") == 2
    assert [row["id"] for row in third if row["provided_answer"] == "Datum und Uhrzeit"] == ["training-3-002", "training-3-003"]
    pairs = {(row["question_id"], row["provided_answer"]) for row in xml["train"]}
    shared = [row["id"] for row in xml["test_unseen_answers"] if (row["question_id"], row["provided_answer"]) in pairs]
    assert shared == ["unseen_answers-8-000"]
    questions = xml["test_unseen_questions"]
    assert list(questions["provided_answer"]).count("Regal, Produkt") == 2


def test_question_texts_start_with_frage_n(dummy_build):
    # Quirk 8.
    for config in corpus.configs:
        for split, rows in dummy_build(NAME, config).items():
            for row in rows:
                number = row["question"].split(":")[0].removeprefix("Frage ")
                assert row["question"].startswith(f"Frage {number}: ") and number in "12345678", split
    assert {row["question_id"] for row in dummy_build(NAME, "upstream_xml")["test_unseen_questions"]} == {2, 5}


def test_xml_files_are_in_the_release_layout():
    for paths in corpus.config("upstream_xml").files.values():
        for path in paths:
            data = (DUMMY / path).read_bytes()
            assert data.startswith(b"<?xml version='1.0' encoding='utf-8'?>\n<question id=")
            assert data.endswith(b"</question>\n") and b"\r" not in data
            assert b"\n  <questionText>" in data and b"\n      <response>" in data


def test_source_records_are_counted_without_the_generator():
    for config, splits in {c: corpus.config(c).files for c in corpus.configs}.items():
        expected = corpus.expected_dummy_counts()[config]
        for split, paths in splits.items():
            assert loader._count_source_records(config, split, [DUMMY / p for p in paths]) == expected[split]


def test_parquet_is_read_in_record_batches(monkeypatch):
    rows = list(loader._read_parquet(DUMMY / TRAIN_PARQUET, TRAIN_PARQUET))
    monkeypatch.setattr(loader, "_BATCH_ROWS", 5)
    batches = []
    real = pyarrow.parquet.ParquetFile.iter_batches

    def spy(self, *args, **kwargs):
        for batch in real(self, *args, **kwargs):
            batches.append(batch.num_rows)
            yield batch

    monkeypatch.setattr(pyarrow.parquet.ParquetFile, "iter_batches", spy)
    assert list(loader._read_parquet(DUMMY / TRAIN_PARQUET, TRAIN_PARQUET)) == rows
    assert batches == [5, 5, 2]


# --- the dummy Parquet files are what the script writes --------------------------------------


def test_committed_dummy_parquet_equals_the_script_output(tmp_path):
    result = subprocess.run(
        [sys.executable, str(DUMMY / "make_dummy_parquet.py"), "--out", str(tmp_path)],
        capture_output=True, text=True, check=False,
    )
    assert result.returncode == 0, result.stderr
    for split, path in make_dummy_parquet.PARQUET.items():
        assert path == corpus.config("default").files[split][0]
        written = pyarrow.parquet.read_table(tmp_path / path)
        committed = pyarrow.parquet.read_table(DUMMY / path)
        assert committed.schema.equals(written.schema, check_metadata=True), split
        assert committed.to_pylist() == written.to_pylist(), split


# --- bad input ---------------------------------------------------------------------------------


def build_error(data_dir, config, tmp_path=None):
    return shared_build_error(NAME, config, data_dir, tmp_path)


def xml_error(data_dir, path=TRAIN_1):
    """The loader's ValueError for one XML file (the same message a build shows)."""
    with pytest.raises(ValueError) as caught:
        list(loader._read_xml(data_dir / path, path))
    return str(caught.value)


def parquet_error(data_dir, path=TRAIN_PARQUET):
    with pytest.raises(ValueError) as caught:
        list(loader._read_parquet(data_dir / path, path))
    return str(caught.value)


def edit_xml(data_dir, old, new, path=TRAIN_1, count=1):
    file = data_dir / path
    text = file.read_text(encoding="utf-8")
    assert old in text
    file.write_text(text.replace(old, new, count), encoding="utf-8")


def edit_parquet(data_dir, change, path=TRAIN_PARQUET, schema=None):
    """Rewrite a dummy Parquet file after `change(rows)` edits its rows (a list of dicts)."""
    file = data_dir / path
    rows = pyarrow.parquet.read_table(file).to_pylist()
    change(rows)
    table = pyarrow.Table.from_pylist(rows, schema=schema) if schema else pyarrow.Table.from_pylist(rows)
    pyarrow.parquet.write_table(table, file)


WHERE_1_1 = f"{TRAIN_1}, studentAnswer 1 (id training-1-001)"


def test_malformed_xml(dummy_copy, tmp_path):
    data_dir = dummy_copy(NAME)
    edit_xml(data_dir, "<score>0.5</score>", "<score>0.5</scor>")
    assert build_error(data_dir, "upstream_xml", tmp_path) == (
        f"{TRAIN_1}: malformed XML (mismatched tag: line 17, column 18)")


def test_truncated_xml_file(dummy_copy):
    data_dir = dummy_copy(NAME)
    (data_dir / TRAIN_1).write_bytes((data_dir / TRAIN_1).read_bytes()[:700])
    assert xml_error(data_dir).startswith(f"{TRAIN_1}: malformed XML (")


BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
<question id="1"><questionText>&lol3;</questionText></question>
"""
EXTERNAL_ENTITY = """<?xml version='1.0' encoding='utf-8'?>
<!DOCTYPE question [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<question id="1"><questionText>&secret;</questionText></question>
"""


@pytest.mark.parametrize("text,position", [(BILLION_LAUGHS, 22), (EXTERNAL_ENTITY, 39)])
def test_entity_declarations_are_refused_before_parsing(dummy_copy, tmp_path, text, position):
    data_dir = dummy_copy(NAME)
    (data_dir / TRAIN_1).write_text(text, encoding="utf-8")
    assert build_error(data_dir, "upstream_xml", tmp_path) == (
        f"{TRAIN_1}: has a DOCTYPE declaration at byte {position}; document types and entity declarations "
        "are refused (only the predefined XML entities are allowed)"
    )


def test_entity_declaration_without_doctype_is_refused(dummy_copy):
    data_dir = dummy_copy(NAME)
    edit_xml(data_dir, "<question id", '<!ENTITY x "y">\n<question id')
    assert xml_error(data_dir).startswith(f"{TRAIN_1}: has a ENTITY declaration at byte 39; ")


def test_undefined_entity(dummy_copy):
    data_dir = dummy_copy(NAME)
    edit_xml(data_dir, "Fotos &amp; Kassenbon", "Fotos&nbsp;Kassenbon")
    assert xml_error(data_dir) == f"{TRAIN_1}: malformed XML (undefined entity: line 21, column 21)"


@pytest.mark.parametrize(
    "score,expected",
    [
        ("gut", "'gut'"),
        ("1.5", "'1.5'"),
        ("-0.25", "'-0.25'"),
        ("nan", "'nan'"),
        (" 0.5", "' 0.5'"),
        ("", "''"),
    ],
)
def test_xml_score_that_is_not_a_number_from_0_to_1(dummy_copy, score, expected):
    data_dir = dummy_copy(NAME)
    edit_xml(data_dir, "<score>0.5</score>", f"<score>{score}</score>")
    assert xml_error(data_dir) == (
        f"{WHERE_1_1}: field 'score': invalid value {expected} (expected a decimal number from 0 to 1, such as '0.75')")


def test_unknown_verification_feedback(dummy_copy, tmp_path):
    data_dir = dummy_copy(NAME)
    edit_xml(data_dir, "<verification_feedback>Partially correct<", "<verification_feedback>partially correct<")
    assert build_error(data_dir, "upstream_xml", tmp_path) == (
        f"{WHERE_1_1}: field 'verification_feedback': invalid value 'partially correct' "
        "(expected 'Correct' or 'Partially correct' or 'Incorrect')"
    )


def test_score_and_verification_feedback_disagree(dummy_copy):
    data_dir = dummy_copy(NAME)
    edit_xml(data_dir, "<score>0.5</score>", "<score>1.0</score>")
    assert xml_error(data_dir) == (
        f"{WHERE_1_1}: field 'verification_feedback': invalid value 'Partially correct' (expected 'Correct' for score 1.0)")


def test_student_answer_without_a_response(dummy_copy):
    data_dir = dummy_copy(NAME)
    edit_xml(data_dir, "<response>Jobbeschreibung lesen</response>", "")
    assert xml_error(data_dir) == (
        f"{WHERE_1_1}: <studentAnswer> has children ['response_feedback', 'score', 'verification_feedback']; "
        "expected ['response', 'response_feedback', 'score', 'verification_feedback']"
    )


@pytest.mark.parametrize("empty", ["<response></response>", "<response/>", "<response>  \n </response>"])
def test_student_answer_with_an_empty_response(dummy_copy, empty):
    data_dir = dummy_copy(NAME)
    edit_xml(data_dir, "<response>Jobbeschreibung lesen</response>", empty)
    value = "'  \\n '" if "\n" in empty else "''"
    assert xml_error(data_dir) == f"{WHERE_1_1}: field 'response': invalid value {value} (expected a non-empty string)"


def test_extra_element_in_a_student_answer(dummy_copy):
    data_dir = dummy_copy(NAME)
    edit_xml(data_dir, "<score>0.5</score>", "<score>0.5</score><grader>A</grader>")
    assert xml_error(data_dir).startswith(
        f"{WHERE_1_1}: <studentAnswer> has children ['response', 'response_feedback', 'score', 'grader', ")


def test_extra_attribute(dummy_copy):
    data_dir = dummy_copy(NAME)
    edit_xml(data_dir, "<studentAnswer>", '<studentAnswer id="1.1">')
    assert xml_error(data_dir) == (
        f"{TRAIN_1}, studentAnswer 0 (id training-1-000): <studentAnswer> has attributes ['id']; expected []")


def test_question_id_must_be_the_file_number(dummy_copy):
    data_dir = dummy_copy(NAME)
    edit_xml(data_dir, '<question id="1">', '<question id="2">')
    assert xml_error(data_dir) == (
        f"{TRAIN_1}: field 'question/@id': invalid value '2' (expected '1', the number in the file name)")


def test_two_reference_answers(dummy_copy):
    data_dir = dummy_copy(NAME)
    edit_xml(data_dir, "</referenceAnswers>", '<referenceAnswer id="1.a2">Noch eine.</referenceAnswer></referenceAnswers>')
    assert xml_error(data_dir) == (
        f"{TRAIN_1}: <referenceAnswers> has children ['referenceAnswer', 'referenceAnswer']; expected ['referenceAnswer']")


def test_xml_not_utf8(dummy_copy):
    data_dir = dummy_copy(NAME)
    file = data_dir / TRAIN_1
    file.write_bytes(file.read_text(encoding="utf-8").encode("latin-1"))
    assert xml_error(data_dir) == (
        f"{TRAIN_1}, line 5: not UTF-8 (byte 0xe4 at offset 66 of the line: invalid continuation byte)")


def test_xml_declaring_another_encoding(dummy_copy):
    data_dir = dummy_copy(NAME)
    edit_xml(data_dir, "encoding='utf-8'", "encoding='iso-8859-1'")
    assert xml_error(data_dir) == f"{TRAIN_1}: declares encoding 'iso-8859-1'; expected 'utf-8'"


def test_xml_with_a_utf8_bom_is_refused(dummy_copy, tmp_path):
    # XML allows a byte order mark, but no release file has one: one rule for every loader.
    data_dir = dummy_copy(NAME)
    (data_dir / TRAIN_1).write_bytes(b"\xef\xbb\xbf" + (data_dir / TRAIN_1).read_bytes())
    assert xml_error(data_dir) == f"{TRAIN_1}: starts with a UTF-8 byte order mark; the release files have none"


def test_empty_xml_file(dummy_copy):
    data_dir = dummy_copy(NAME)
    (data_dir / TRAIN_1).write_bytes(b"")
    assert xml_error(data_dir) == f"{TRAIN_1}: is empty (expected an XML file)"


def test_xml_without_student_answers(dummy_copy):
    data_dir = dummy_copy(NAME)
    file = data_dir / TRAIN_1
    root = ET.parse(file).getroot()
    root.find("studentAnswers").clear()
    file.write_bytes(ET.tostring(root, encoding="utf-8", xml_declaration=True))
    assert xml_error(data_dir) == f"{TRAIN_1}: has no answers (<studentAnswers> is empty)"


LFS_POINTER = (
    "version https://git-lfs.github.com/spec/v1\n"
    "oid sha256:136d160487399e5e265ca69a5ffb67534527d759637bddce4f77bac42ea4a419\nsize 124262\n"
)
HTML_PAGE = "<!DOCTYPE html>\n<html><head><title>Rate limit</title></head><body>Too many requests</body></html>\n"


@pytest.mark.parametrize("path", [TRAIN_1, TRAIN_PARQUET])
def test_git_lfs_pointer_in_place_of_the_file(dummy_copy, tmp_path, path):
    data_dir = dummy_copy(NAME)
    (data_dir / path).write_text(LFS_POINTER)
    config = "upstream_xml" if path.endswith(".xml") else "default"
    assert build_error(data_dir, config, tmp_path) == (
        f"{path}: is a Git LFS pointer, not the data; fetch the real file "
        "(git lfs pull)"
    )


@pytest.mark.parametrize("path", [TRAIN_1, TRAIN_PARQUET])
def test_html_page_in_place_of_the_file(dummy_copy, path):
    data_dir = dummy_copy(NAME)
    (data_dir / path).write_text(HTML_PAGE)
    read = loader._read_xml if path.endswith(".xml") else loader._read_parquet
    with pytest.raises(ValueError) as caught:
        list(read(data_dir / path, path))
    assert str(caught.value) == f"{path}: is an HTML page, not the data (an error page saved in its place?)"


@pytest.mark.parametrize("config", ["default", "upstream_xml"])
def test_missing_split_files_are_all_listed(dummy_copy, tmp_path, config):
    data_dir = dummy_copy(NAME)
    gone = [corpus.config(config).files["test_unseen_questions"][-1], corpus.config(config).files["train"][0]]
    for path in gone:
        (data_dir / path).unlink()
    builder = corpus.builder_class(config_name=config, data_dir=str(data_dir), cache_dir=str(tmp_path), hash="test")
    with pytest.raises(FileNotFoundError) as caught:
        builder.download_and_prepare()
    assert str(caught.value) == f"2 source file(s) missing in {data_dir}: {gone[1]}, {gone[0]}"
    # The toolkit checks the whole copy first, with the same paths.
    with pytest.raises(FileNotFoundError) as caught:
        load(NAME, config, data_dir=data_dir, cache_dir=tmp_path, allow_modified_sources=True)
    assert all(str(data_dir / path) in str(caught.value) for path in gone)


def test_cli_shows_one_line(dummy_copy, tmp_path, capsys):
    data_dir = dummy_copy(NAME)
    edit_xml(data_dir, "<score>0.5</score>", "<score>0,5</score>")
    argv = ["build", NAME, "--config", "upstream_xml", "--data-dir", str(data_dir), "--out", str(tmp_path / "out"),
            "--allow-modified-sources"]
    assert main(argv) == 1
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"corpora build: error: {WHERE_1_1}: field 'score': invalid value '0,5' "
        "(expected a decimal number from 0 to 1, such as '0.75')"
    )


# Parquet ----------------------------------------------------------------------------------------

ROW_2 = f"{TRAIN_PARQUET}, row 2 (id "


def row_2_id(data_dir):
    return pyarrow.parquet.read_table(data_dir / TRAIN_PARQUET).column("id")[2].as_py()


def test_truncated_parquet_file(dummy_copy):
    data_dir = dummy_copy(NAME)
    data = (data_dir / TRAIN_PARQUET).read_bytes()
    (data_dir / TRAIN_PARQUET).write_bytes(data[: len(data) // 2])
    assert parquet_error(data_dir) == (
        f"{TRAIN_PARQUET}: not a readable Parquet file (Parquet magic bytes not found in footer. "
        "Either the file is corrupted or this is not a parquet file.)"
    )


def test_empty_parquet_file(dummy_copy):
    data_dir = dummy_copy(NAME)
    (data_dir / TRAIN_PARQUET).write_bytes(b"")
    assert parquet_error(data_dir) == f"{TRAIN_PARQUET}: is empty (expected a Parquet file)"


def test_parquet_file_with_a_bom(dummy_copy):
    data_dir = dummy_copy(NAME)
    (data_dir / TRAIN_PARQUET).write_bytes(b"\xef\xbb\xbf" + (data_dir / TRAIN_PARQUET).read_bytes())
    assert parquet_error(data_dir) == f"{TRAIN_PARQUET}: starts with a UTF-8 byte order mark; the release files have none"


def test_csv_in_place_of_parquet(dummy_copy):
    data_dir = dummy_copy(NAME)
    (data_dir / TRAIN_PARQUET).write_text("id;question;score\n1;Frage 1;1.0\n")
    assert parquet_error(data_dir) == f"{TRAIN_PARQUET}: not a Parquet file (it starts with b'id;quest', not b'PAR1')"


def test_parquet_text_column_not_utf8_strings(dummy_copy):
    # Arrow strings are UTF-8 by definition; other encodings can only arrive as binary columns.
    data_dir = dummy_copy(NAME)
    schema = make_dummy_parquet.SCHEMA.set(3, pyarrow.field("provided_answer", pyarrow.binary()))

    def latin1(rows):
        for row in rows:
            row["provided_answer"] = row["provided_answer"].encode("cp1252")

    edit_parquet(data_dir, latin1, schema=schema)
    assert parquet_error(data_dir) == f"{TRAIN_PARQUET}: column 'provided_answer' has type binary; expected string"


def test_parquet_missing_column(dummy_copy, tmp_path):
    data_dir = dummy_copy(NAME)
    edit_parquet(data_dir, lambda rows: [row.pop("answer_feedback") for row in rows])
    assert build_error(data_dir, "default", tmp_path) == (
        f"{TRAIN_PARQUET}: columns ['id', 'question', 'reference_answer', 'provided_answer', 'verification_feedback', "
        "'score']; expected ['id', 'question', 'reference_answer', 'provided_answer', 'answer_feedback', "
        "'verification_feedback', 'score'] (missing ['answer_feedback'], unexpected [])"
    )


def test_parquet_extra_column(dummy_copy):
    data_dir = dummy_copy(NAME)
    edit_parquet(data_dir, lambda rows: [row.update(question_id=1) for row in rows])
    assert parquet_error(data_dir).endswith("(missing [], unexpected ['question_id'])")


def test_parquet_score_of_another_type(dummy_copy):
    data_dir = dummy_copy(NAME)
    edit_parquet(data_dir, lambda rows: [row.update(score=str(row["score"])) for row in rows])
    assert parquet_error(data_dir) == f"{TRAIN_PARQUET}: column 'score' has type string; expected double"


@pytest.mark.parametrize("score", [1.5, -0.25, math.nan, math.inf, None])
def test_parquet_score_outside_0_to_1(dummy_copy, score):
    data_dir = dummy_copy(NAME)
    edit_parquet(data_dir, lambda rows: rows[2].update(score=score), schema=make_dummy_parquet.SCHEMA)
    assert parquet_error(data_dir) == (
        f"{ROW_2}{row_2_id(data_dir)}): field 'score': invalid value {score!r} (expected a number from 0 to 1)")


def test_parquet_unknown_verification_feedback(dummy_copy):
    data_dir = dummy_copy(NAME)
    edit_parquet(data_dir, lambda rows: rows[2].update(verification_feedback="Korrekt"))
    assert parquet_error(data_dir) == (
        f"{ROW_2}{row_2_id(data_dir)}): field 'verification_feedback': invalid value 'Korrekt' "
        "(expected 'Correct' or 'Partially correct' or 'Incorrect')"
    )


def test_parquet_score_and_verification_feedback_disagree(dummy_copy, tmp_path):
    data_dir = dummy_copy(NAME)
    edit_parquet(data_dir, lambda rows: rows[2].update(score=0.5), schema=make_dummy_parquet.SCHEMA)
    row = pyarrow.parquet.read_table(data_dir / TRAIN_PARQUET).to_pylist()[2]
    assert row["verification_feedback"] == "Incorrect"
    assert build_error(data_dir, "default", tmp_path) == (
        f"{ROW_2}{row['id']}): field 'verification_feedback': invalid value 'Incorrect' "
        "(expected 'Partially correct' for score 0.5)"
    )


@pytest.mark.parametrize("value", [None, "", " \n"])
def test_parquet_answer_null_or_empty(dummy_copy, value):
    data_dir = dummy_copy(NAME)
    edit_parquet(data_dir, lambda rows: rows[2].update(provided_answer=value), schema=make_dummy_parquet.SCHEMA)
    assert parquet_error(data_dir) == (
        f"{ROW_2}{row_2_id(data_dir)}): field 'provided_answer': invalid value {value!r} (expected a non-empty string)")


@pytest.mark.parametrize("value", ["1", "0CCABF3FEA8D4AE8BD990C8EAD51679A", "0ccabf3f-ea8d-4ae8-bd99-0c8ead51679a", None])
def test_parquet_id_not_uuid_hex(dummy_copy, value):
    data_dir = dummy_copy(NAME)
    edit_parquet(data_dir, lambda rows: rows[2].update(id=value), schema=make_dummy_parquet.SCHEMA)
    assert parquet_error(data_dir) == (
        f"{TRAIN_PARQUET}, row 2: field 'id': invalid value {value!r} (expected 32 lower-case hex digits (a UUID4 in hex))")


def test_parquet_duplicate_id(dummy_copy):
    data_dir = dummy_copy(NAME)
    edit_parquet(data_dir, lambda rows: rows[5].update(id=rows[1]["id"]))
    first = pyarrow.parquet.read_table(data_dir / TRAIN_PARQUET).column("id")[1].as_py()
    assert parquet_error(data_dir) == (
        f"{TRAIN_PARQUET}, row 5: field 'id': invalid value {first!r} (expected a unique id; row 1 has it too)")


def test_parquet_without_rows(dummy_copy):
    data_dir = dummy_copy(NAME)
    edit_parquet(data_dir, lambda rows: rows.clear(), schema=make_dummy_parquet.SCHEMA)
    assert parquet_error(data_dir) == f"{TRAIN_PARQUET}: has no rows"


def test_large_string_columns_are_accepted(dummy_copy):
    data_dir = dummy_copy(NAME)
    expected = list(loader._read_parquet(data_dir / TRAIN_PARQUET, TRAIN_PARQUET))
    schema = pyarrow.schema([
        pyarrow.field(f.name, pyarrow.large_string() if f.type == pyarrow.string() else f.type)
        for f in make_dummy_parquet.SCHEMA
    ])
    edit_parquet(data_dir, lambda rows: None, schema=schema)
    assert list(loader._read_parquet(data_dir / TRAIN_PARQUET, TRAIN_PARQUET)) == expected


# --- full-size copies of both upstream layouts (--data-dir) -----------------------------------

# Answers per XML file in the release (loaders/saf_micro_job_german/FORMAT.md, section 6).
RELEASE_ANSWERS = {
    "training": {1: 257, 3: 247, 4: 260, 6: 249, 7: 259, 8: 262},
    "unseen_answers": {1: 44, 3: 54, 4: 41, 6: 52, 7: 41, 8: 39},
    "unseen_questions": {2: 301, 5: 301},
}


def write_full_size_copy(target):
    """Both layouts at the release's sizes: each dummy XML file with its answers repeated up to the
    real count, and Parquet files converted from them (train = the first 1,226 training answers)."""
    for fold, questions in RELEASE_ANSWERS.items():
        for question, count in questions.items():
            path = f"data/{fold}/german/{question}.xml"
            root = ET.parse(DUMMY / path).getroot()
            answers = root.find("studentAnswers")
            originals = list(answers)
            for index in range(len(originals), count):
                answers.append(originals[index % len(originals)])
            ET.indent(root, space="  ")
            (target / path).parent.mkdir(parents=True, exist_ok=True)
            (target / path).write_bytes(ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n")
    training = make_dummy_parquet.rows(target, "training")
    splits = {
        "train": training[:1226],
        "validation": training[1226:],
        "test_unseen_answers": make_dummy_parquet.rows(target, "unseen_answers"),
        "test_unseen_questions": make_dummy_parquet.rows(target, "unseen_questions"),
    }
    for split, rows in splits.items():
        table = pyarrow.Table.from_pylist(rows, schema=make_dummy_parquet.SCHEMA)
        pyarrow.parquet.write_table(table, target / make_dummy_parquet.PARQUET[split])


def test_full_size_copies_build_export_and_reload_with_every_answer(tmp_path, capsys, record_release):
    upstream = tmp_path / "upstream"
    write_full_size_copy(upstream)
    record_release(NAME, upstream)  # as if these were the recorded release files
    argv = ["build", NAME, "--data-dir", str(upstream), "--out", str(tmp_path / "out")]
    assert main(argv) == 0
    assert table_lines(capsys.readouterr().out) == [
        [NAME, "default", "train", "1,226", "1,226", "1,226"],
        [NAME, "default", "validation", "308", "308", "308"],
        [NAME, "default", "test_unseen_answers", "271", "271", "271"],
        [NAME, "default", "test_unseen_questions", "602", "602", "602"],
        [NAME, "upstream_xml", "train", "1,534", "1,534", "1,534"],
        [NAME, "upstream_xml", "test_unseen_answers", "271", "271", "271"],
        [NAME, "upstream_xml", "test_unseen_questions", "602", "602", "602"],
    ]
    for config, splits in {c: corpus.config(c).files for c in corpus.configs}.items():
        for split, paths in splits.items():
            counted = loader._count_source_records(config, split, [upstream / path for path in paths])
            assert counted == corpus.config(config).split_sizes[split]
    reloaded = datasets.load_dataset(str(tmp_path / "out" / NAME), "upstream_xml", cache_dir=str(tmp_path / "c"))
    assert reloaded["test_unseen_questions"][301]["id"] == "unseen_questions-5-000"
    assert reloaded["train"][256]["id"] == "training-1-256"


def test_parquet_files_have_no_recorded_checksum(dummy_copy, tmp_path, capsys):
    # The Hub's Parquet files have no measured size or sha256 (loaders/saf_micro_job_german/FORMAT.md), so
    # checksums.tsv has no line for them and a real build of `default` stops until they are recorded.
    data_dir = dummy_copy(NAME)
    argv = ["build", NAME, "--config", "default", "--data-dir", str(data_dir), "--out", str(tmp_path / "out")]
    assert main(argv) == 1
    err = capsys.readouterr().err.splitlines()[-1]
    assert err.startswith(f"corpora build: error: {NAME}: 4 source file(s) differ from the recorded release: "
                          f"{loader._URLS[TRAIN_PARQUET]} (listed as not yet measured); ")


def test_xml_copy_that_is_not_the_release_is_refused(dummy_copy, tmp_path, capsys):
    data_dir = dummy_copy(NAME)
    argv = ["build", NAME, "--config", "upstream_xml", "--data-dir", str(data_dir), "--out", str(tmp_path / "out")]
    assert main(argv) == 1
    err = capsys.readouterr().err.splitlines()[-1]
    assert err.startswith(f"corpora build: error: {NAME}: 14 source file(s) differ from the recorded release: "
                          f"{loader._URLS[TRAIN_1]} (")


def test_streaming_from_a_data_dir_copy(dummy_copy, dummy_build):
    data_dir = dummy_copy(NAME)
    for config in corpus.configs:
        streamed = load(NAME, config, data_dir=data_dir, streaming=True, allow_modified_sources=True)
        for split, prepared in dummy_build(NAME, config).items():
            assert list(streamed[split]) == prepared.to_list(), (config, split)


# --- downloads over real HTTP (127.0.0.1), as from the pinned URLs -----------------------------


def test_download_from_urls_prepared_and_streaming(mirror, tmp_path, dummy_build):
    # Parquet over HTTP: pyarrow reads the footer and the record batches through xopen's
    # seekable HTTP file when streaming.
    for config in corpus.configs:
        prepared = load(NAME, config, cache_dir=tmp_path / config, allow_modified_sources=True)
        streamed = load(NAME, config, streaming=True)
        for split, expected in dummy_build(NAME, config).items():
            assert prepared[split].to_list() == expected.to_list(), (config, split)
            assert list(streamed[split]) == expected.to_list(), (config, split)


def test_build_from_the_urls_checks_the_release_and_exports(mirror, tmp_path, monkeypatch, record_release):
    from corpora import build
    from corpora import prepare

    module = registry.get(NAME).module
    record_release(NAME, DUMMY, urls=module._URLS)
    official_sizes_of_the_dummy_data(monkeypatch, registry.get(NAME))
    rows = build.export(prepare.Request(NAME), tmp_path / "out")
    assert [(r.config, r.split, r.read, r.rows, r.official) for r in rows] == [
        ("default", "train", 12, 12, 12), ("default", "validation", 4, 4, 4),
        ("default", "test_unseen_answers", 8, 8, 8), ("default", "test_unseen_questions", 6, 6, 6),
        ("upstream_xml", "train", 16, 16, 16), ("upstream_xml", "test_unseen_answers", 8, 8, 8),
        ("upstream_xml", "test_unseen_questions", 6, 6, 6),
    ]


def test_without_a_data_dir_the_pinned_urls_are_downloaded(tmp_path):
    # ...which tests may not reach: offline mode (and the socket guard) stop the download.
    with pytest.raises(Exception) as caught:
        load(NAME, "upstream_xml", cache_dir=tmp_path)
    assert "https://raw.githubusercontent.com/SebOchs/SAF/09949e912d266777a752ac7d51cfcddb4b3f6978/data/" in str(
        caught.value)


# --- the parsers, fuzzed -----------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=8), st.from_regex(r"[0-9]{1,2}(\.[0-9]{1,4})?", fullmatch=True)))
def test_score_text_is_a_number_from_0_to_1_or_a_clear_error(text):
    try:
        value = loader._score_text(text, "f")
    except ValueError as error:
        assert str(error).startswith("f: field 'score': invalid value ")
        assert not (re.fullmatch(r"[0-9]+(\.[0-9]+)?", text) and 0 <= float(text) <= 1)
    else:
        assert value == float(text) and 0 <= value <= 1


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.floats(), st.integers(), st.text(max_size=4), st.none()), st.sampled_from(LABELS + ["correct", ""]))
def test_score_and_label_are_checked_together(score, label):
    try:
        value = loader._score(score, "f")
        checked = loader._verification(label, value, "f")
    except ValueError as error:
        assert str(error).startswith("f: field ")
        ok = isinstance(score, float) and 0 <= score <= 1
        assert not ok or label != {1.0: "Correct", 0.0: "Incorrect"}.get(score, "Partially correct")
    else:
        assert value == score and checked == label
        assert label == {1.0: "Correct", 0.0: "Incorrect"}.get(score, "Partially correct")


# Characters XML 1.0 can hold in text (a carriage return would be normalised to a newline).
xml_text = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\ufffe\uffff")
    .filter(lambda c: c in "\t\n" or ord(c) >= 0x20),
    min_size=1, max_size=40,
).filter(lambda text: text.strip())


@settings(max_examples=150, deadline=None)
@given(xml_text, xml_text, xml_text, st.sampled_from(["0.0", "0.25", "0.5", "0.75", "1.0"]))
def test_any_answer_text_survives_the_xml_exactly(tmp_path_factory, response, feedback, question, score):
    root = ET.Element("question", id="1")
    ET.SubElement(root, "questionText").text = question
    ET.SubElement(ET.SubElement(root, "referenceAnswers"), "referenceAnswer", id="1.a1").text = "R (1 P)"
    answer = ET.SubElement(ET.SubElement(root, "studentAnswers"), "studentAnswer")
    label = {"1.0": "Correct", "0.0": "Incorrect"}.get(score, "Partially correct")
    for tag, text in [("response", response), ("response_feedback", feedback), ("score", score),
                      ("verification_feedback", label)]:
        ET.SubElement(answer, tag).text = text
    ET.indent(root, space="  ")
    path = tmp_path_factory.mktemp("xml") / "1.xml"
    data = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    path.write_bytes(data)
    try:
        (row,) = loader._read_xml(path, TRAIN_1)
    except ValueError as error:  # only a text that looks like a declaration is refused
        assert "<!DOCTYPE" in data.decode() or "<!ENTITY" in data.decode(), error
        return
    assert (row["provided_answer"], row["answer_feedback"], row["question"]) == (response, feedback, question)
    assert row["score"] == float(score) and row["verification_feedback"] == label


hub_row = st.fixed_dictionaries({
    "id": st.one_of(st.uuids().map(lambda u: u.hex), st.text(max_size=34)),
    "question": st.one_of(st.text(max_size=20), st.none()),
    "reference_answer": st.text(min_size=1, max_size=20),
    "provided_answer": st.one_of(st.text(max_size=20), st.none()),
    "answer_feedback": st.text(min_size=1, max_size=20),
    "verification_feedback": st.sampled_from(LABELS + ["Falsch"]),
    "score": st.one_of(st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]), st.floats()),
})


@settings(max_examples=200, deadline=None)
@given(hub_row)
def test_hub_row_typing_keeps_every_value_or_names_the_field(row):
    try:
        typed = loader._typed_hub_row(dict(row), "f, row 0")
    except ValueError as error:
        assert str(error).startswith("f, row 0: field '")
    else:
        assert typed == row
        corpus.features("default").encode_example(typed)


# --- the bad-input matrix: the one line the user sees (`corpora build` prints it) ---------------


def xml_answer_1(old, new):
    return lambda raw: raw.replace(old.encode(), new.encode(), 1)


def parquet_rows(change, schema=make_dummy_parquet.SCHEMA):
    def variant(raw):
        rows = pyarrow.parquet.read_table(pyarrow.BufferReader(raw)).to_pylist()
        change(rows)
        sink = pyarrow.BufferOutputStream()
        pyarrow.parquet.write_table(pyarrow.Table.from_pylist(rows, schema=schema), sink)
        return sink.getvalue().to_pybytes()

    return variant


def cp1252_answers(rows):
    for row in rows:
        row["provided_answer"] = row["provided_answer"].encode("cp1252")


CSV = b"id,question,score\n1,Frage 1,1.0\n"
HTML = HTML_PAGE.encode()
LFS = LFS_POINTER.encode()
W = f"{TRAIN_1}, studentAnswer 1 (id training-1-001)"
P = f"{TRAIN_PARQUET}, row 2 (id 9b195c3e3efd421c9f50ce60dd4dce0b)"
EXPECTED_COLUMNS = ("['id', 'question', 'reference_answer', 'provided_answer', 'answer_feedback', "
                    "'verification_feedback', 'score']")
BINARY_ANSWERS = make_dummy_parquet.SCHEMA.set(3, pyarrow.field("provided_answer", pyarrow.binary()))

BAD_INPUT = [
    BadInput(TRAIN_1, "upstream_xml: truncated file", lambda raw: raw[:700],
     f"{TRAIN_1}: malformed XML (no element found: line 16, column 2)", config="upstream_xml"),
    BadInput(TRAIN_1, "upstream_xml: wrong encoding (Latin-1)", lambda raw: raw.decode().encode("latin-1"),
     f"{TRAIN_1}, line 5: not UTF-8 (byte 0xe4 at offset 66 of the line: invalid continuation byte)",
     config="upstream_xml"),
    BadInput(TRAIN_1, "upstream_xml: UTF-8 BOM", lambda raw: b"\xef\xbb\xbf" + raw,
     f"{TRAIN_1}: starts with a UTF-8 byte order mark; the release files have none", config="upstream_xml"),
    BadInput(TRAIN_1, "upstream_xml: wrong format (CSV instead of XML)", lambda raw: CSV,
     f"{TRAIN_1}: malformed XML (syntax error: line 1, column 0)", config="upstream_xml"),
    BadInput(TRAIN_1, "upstream_xml: missing field (no <score>)", xml_answer_1("<score>0.5</score>", ""),
     f"{W}: <studentAnswer> has children ['response', 'response_feedback', 'verification_feedback']; "
     "expected ['response', 'response_feedback', 'score', 'verification_feedback']", config="upstream_xml"),
    BadInput(TRAIN_1, "upstream_xml: extra field", xml_answer_1("<score>0.5</score>", "<score>0.5</score><grader>A</grader>"),
     f"{W}: <studentAnswer> has children ['response', 'response_feedback', 'score', 'grader', "
     "'verification_feedback']; expected ['response', 'response_feedback', 'score', 'verification_feedback']", config="upstream_xml"),
    BadInput(TRAIN_1, "upstream_xml: empty file", lambda raw: b"", f"{TRAIN_1}: is empty (expected an XML file)", config="upstream_xml"),
    BadInput(TRAIN_1, "upstream_xml: unknown label",
     xml_answer_1("<verification_feedback>Partially correct<", "<verification_feedback>Teilweise richtig<"),
     f"{W}: field 'verification_feedback': invalid value 'Teilweise richtig' "
     "(expected 'Correct' or 'Partially correct' or 'Incorrect')", config="upstream_xml"),
    BadInput(TRAIN_1, "upstream_xml: out-of-range number (score 1.5)", xml_answer_1("<score>0.5<", "<score>1.5<"),
     f"{W}: field 'score': invalid value '1.5' (expected a decimal number from 0 to 1, such as '0.75')", config="upstream_xml"),
    BadInput(TRAIN_1, "upstream_xml: score not a number", xml_answer_1("<score>0.5<", "<score>halb<"),
     f"{W}: field 'score': invalid value 'halb' (expected a decimal number from 0 to 1, such as '0.75')", config="upstream_xml"),
    BadInput(TRAIN_1, "upstream_xml: score and label disagree", xml_answer_1("<score>0.5<", "<score>0.0<"),
     f"{W}: field 'verification_feedback': invalid value 'Partially correct' (expected 'Incorrect' for score 0.0)", config="upstream_xml"),
    BadInput(TRAIN_1, "upstream_xml: answer without a response", xml_answer_1("<response>Jobbeschreibung lesen</response>", ""),
     f"{W}: <studentAnswer> has children ['response_feedback', 'score', 'verification_feedback']; "
     "expected ['response', 'response_feedback', 'score', 'verification_feedback']", config="upstream_xml"),
    BadInput(TRAIN_1, "upstream_xml: malformed XML (mismatched tag)", xml_answer_1("</response>", "</respons>"),
     f"{TRAIN_1}: malformed XML (mismatched tag: line 9, column 82)", config="upstream_xml"),
    BadInput(TRAIN_1, "upstream_xml: billion laughs", lambda raw: BILLION_LAUGHS.encode(),
     f"{TRAIN_1}: has a DOCTYPE declaration at byte 22; document types and entity declarations are refused "
     "(only the predefined XML entities are allowed)", config="upstream_xml"),
    BadInput(TRAIN_1, "upstream_xml: external entity", lambda raw: EXTERNAL_ENTITY.encode(),
     f"{TRAIN_1}: has a DOCTYPE declaration at byte 39; document types and entity declarations are refused "
     "(only the predefined XML entities are allowed)", config="upstream_xml"),
    BadInput(TRAIN_1, "upstream_xml: Git LFS pointer", lambda raw: LFS,
     f"{TRAIN_1}: is a Git LFS pointer, not the data; fetch the real file "
     "(git lfs pull)", config="upstream_xml"),
    BadInput(TRAIN_1, "upstream_xml: HTML error page", lambda raw: HTML,
     f"{TRAIN_1}: is an HTML page, not the data (an error page saved in its place?)", config="upstream_xml"),
    BadInput(TRAIN_PARQUET, "default: truncated file", lambda raw: raw[: len(raw) // 2],
     f"{TRAIN_PARQUET}: not a readable Parquet file (Parquet magic bytes not found in footer. "
     "Either the file is corrupted or this is not a parquet file.)", config="default"),
    BadInput(TRAIN_PARQUET, "default: wrong encoding (cp1252 bytes, not UTF-8 strings)", parquet_rows(cp1252_answers, BINARY_ANSWERS),
     f"{TRAIN_PARQUET}: column 'provided_answer' has type binary; expected string", config="default"),
    BadInput(TRAIN_PARQUET, "default: UTF-8 BOM", lambda raw: b"\xef\xbb\xbf" + raw,
     f"{TRAIN_PARQUET}: starts with a UTF-8 byte order mark; the release files have none", config="default"),
    BadInput(TRAIN_PARQUET, "default: wrong format (CSV instead of Parquet)", lambda raw: CSV,
     f"{TRAIN_PARQUET}: not a Parquet file (it starts with b'id,quest', not b'PAR1')", config="default"),
    BadInput(TRAIN_PARQUET, "default: missing column", parquet_rows(lambda rows: [r.pop("score") for r in rows], None),
     f"{TRAIN_PARQUET}: columns ['id', 'question', 'reference_answer', 'provided_answer', 'answer_feedback', "
     f"'verification_feedback']; expected {EXPECTED_COLUMNS} (missing ['score'], unexpected [])", config="default"),
    BadInput(TRAIN_PARQUET, "default: extra column", parquet_rows(lambda rows: [r.update(grader="A") for r in rows], None),
     f"{TRAIN_PARQUET}: columns {EXPECTED_COLUMNS[:-1]}, 'grader']; expected {EXPECTED_COLUMNS} "
     "(missing [], unexpected ['grader'])", config="default"),
    BadInput(TRAIN_PARQUET, "default: column of another type (score as text)",
     parquet_rows(lambda rows: [r.update(score=str(r["score"])) for r in rows], None),
     f"{TRAIN_PARQUET}: column 'score' has type string; expected double", config="default"),
    BadInput(TRAIN_PARQUET, "default: empty file", lambda raw: b"", f"{TRAIN_PARQUET}: is empty (expected a Parquet file)", config="default"),
    BadInput(TRAIN_PARQUET, "default: no rows", parquet_rows(lambda rows: rows.clear()), f"{TRAIN_PARQUET}: has no rows", config="default"),
    BadInput(TRAIN_PARQUET, "default: unknown label", parquet_rows(lambda rows: rows[2].update(verification_feedback="Falsch")),
     f"{P}: field 'verification_feedback': invalid value 'Falsch' (expected 'Correct' or 'Partially correct' or 'Incorrect')", config="default"),
    BadInput(TRAIN_PARQUET, "default: out-of-range number (score 1.5)", parquet_rows(lambda rows: rows[2].update(score=1.5)),
     f"{P}: field 'score': invalid value 1.5 (expected a number from 0 to 1)", config="default"),
    BadInput(TRAIN_PARQUET, "default: score not a number (NaN)", parquet_rows(lambda rows: rows[2].update(score=math.nan)),
     f"{P}: field 'score': invalid value nan (expected a number from 0 to 1)", config="default"),
    BadInput(TRAIN_PARQUET, "default: score and label disagree", parquet_rows(lambda rows: rows[2].update(score=1.0)),
     f"{P}: field 'verification_feedback': invalid value 'Incorrect' (expected 'Correct' for score 1.0)", config="default"),
    BadInput(TRAIN_PARQUET, "default: answer missing (null)", parquet_rows(lambda rows: rows[2].update(provided_answer=None)),
     f"{P}: field 'provided_answer': invalid value None (expected a non-empty string)", config="default"),
    BadInput(TRAIN_PARQUET, "default: id not a UUID4 hex", parquet_rows(lambda rows: rows[2].update(id="1")),
     f"{TRAIN_PARQUET}, row 2: field 'id': invalid value '1' (expected 32 lower-case hex digits (a UUID4 in hex))", config="default"),
    BadInput(TRAIN_PARQUET, "default: Git LFS pointer", lambda raw: LFS,
     f"{TRAIN_PARQUET}: is a Git LFS pointer, not the data; fetch the real file "
     "(git lfs pull)", config="default"),
    BadInput(TRAIN_PARQUET, "default: HTML error page", lambda raw: HTML,
     f"{TRAIN_PARQUET}: is an HTML page, not the data (an error page saved in its place?)", config="default"),
]
