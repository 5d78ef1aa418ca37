"""saf_micro_job_german: every quirk of loaders/saf_micro_job_german/FORMAT.md, for both configs
(`default`: the Hub's Parquet files, `upstream_xml`: the GitHub XML files), as declarations that
tests/test_declared.py and tests/test_bad_input.py run, and the checks no row can hold."""

import json
import subprocess
import sys

import datasets
import pyarrow
import pyarrow.parquet
import pytest

from corpora import cards
from corpora import load
from corpora import registry
from corpora import validate
from corpora.cli import main
from helpers import Downloads
from helpers import FullSize
from helpers import figure_rows
from synthetic_saf_micro_job_german import write_full_size_copy

NAME = "saf_micro_job_german"
corpus = registry.get(NAME)
loader = corpus.module
DUMMY = corpus.dummy_dir
TRAIN_PARQUET = "data/train-00000-of-00001-d7d79904ef6ab584.parquet"
TRAIN_1 = "data/training/german/1.xml"
TRAIN_3 = "data/training/german/3.xml"
HUB = "https://huggingface.co/datasets/Short-Answer-Feedback/saf_micro_job_german/resolve/30db3effcfc07b638291cfcff248b84dbd8013db/"
GITHUB = "https://raw.githubusercontent.com/SebOchs/SAF/09949e912d266777a752ac7d51cfcddb4b3f6978/"

sys.path.insert(0, str(DUMMY))
import make_dummy_parquet  # noqa: E402

X = ("upstream_xml", "train")
# (config, split, key, field, expected): the dummy build's values.
QUIRKS = [
    ("default", "train", "0ccabf3fea8d4ae8bd990c8ead51679a", "", {
        "id": "0ccabf3fea8d4ae8bd990c8ead51679a",
        "question": "Frage 1: Was musst du tun, bevor du den Laden betrittst?",
        "reference_answer": "Du liest die Jobbeschreibung vollständig (0.5 P) und prüfst, ob der Laden geöffnet ist (0.5 P).",
        "provided_answer": "Ich lese die Jobbeschreibung und schaue nach den Öffnungszeiten.",
        "answer_feedback": "Korrekt!", "verification_feedback": "Correct", "score": 1.0,
    }),
    (*X, "training-3-003", "question_id", 3), (*X, "training-3-003", "reference_answer_id", "3.a1"),
    (*X, "training-1-002", "provided_answer", "Fotos & Kassenbon bereitlegen"),  # quirk 6: &amp; decoded
    (*X, "training-3-000", "reference_answer", "Datum & Uhrzeit (0.5 P) sowie der Name des Ladens (0.5 P) müssen lesbar sein."),
    (*X, "training-3-002", "provided_answer", "Datum und Uhrzeit"),  # quirk 7: the same answer twice
    (*X, "training-3-003", "provided_answer", "Datum und Uhrzeit"),
]
DOWNLOADS = Downloads((GITHUB, HUB), ("upstream_xml", "default"))  # Parquet over HTTP: read through a seekable file
FULL_SIZE = FullSize(write_full_size_copy, rows=(
    ("upstream_xml", "test_unseen_questions", 301, "id", "unseen_questions-5-000"),
    ("upstream_xml", "train", 256, "id", "training-1-256"),
))


def test_constants_follow_the_source_file_convention():
    assert set({c: corpus.config(c).files for c in corpus.configs}) == set(corpus.configs) == {"default", "upstream_xml"}
    for config, splits in {c: corpus.config(c).files for c in corpus.configs}.items():
        assert list(splits) == list(corpus.config(config).split_sizes)
        for paths in splits.values():
            assert all(path in corpus.urls for path in paths)
    assert corpus.config("default").files["train"] == [TRAIN_PARQUET]
    assert (corpus.urls[TRAIN_PARQUET], corpus.urls[TRAIN_1]) == (HUB + TRAIN_PARQUET, GITHUB + TRAIN_1)
    assert corpus.config("upstream_xml").files["test_unseen_questions"] == [
        "data/unseen_questions/german/2.xml", "data/unseen_questions/german/5.xml"]
    assert len(corpus.urls) == 4 + 14
    assert corpus.split_sizes == {
        "default": {"train": 1226, "validation": 308, "test_unseen_answers": 271, "test_unseen_questions": 602},
        "upstream_xml": {"train": 1534, "test_unseen_answers": 271, "test_unseen_questions": 602},
    }


def test_checksums_measure_the_xml_files_and_list_the_parquet_files_as_unmeasured():
    lines = (corpus.loader_dir / "checksums.tsv").read_text().splitlines()
    entries = [line.split("\t") for line in lines]
    assert [url for url, _, _ in entries] == sorted(corpus.urls.values())
    unmeasured = [url for url, size, sha256 in entries if (size, sha256) == ("-", "-")]
    assert unmeasured == sorted(corpus.urls[path] for paths in corpus.config("default").files.values() for path in paths)
    xml = [entry for entry in entries if entry[0].endswith(".xml")]
    assert len(xml) == 14
    assert xml[0][1:] == ["124262", "136d160487399e5e265ca69a5ffb67534527d759637bddce4f77bac42ea4a419"]
    assert sum(int(size) for _, size, _ in xml) == 987_921


def test_card_lists_the_splits_of_both_configs():
    # The two configs have different splits: the card's split table has a column for each.
    card = corpus.card_path.read_text(encoding="utf-8")
    assert "| config | train | validation | test_unseen_answers | test_unseen_questions |\n" in card
    assert "| `default` | 1,226 | 308 | 271 | 602 |\n| `upstream_xml` | 1,534 | - | 271 | 602 |\n" in card


# --- what no row can hold -----------------------------------------------------------------


def test_default_has_the_published_schema_and_splits(dummy_build):
    dataset = dummy_build(NAME, "default")
    assert list(dataset) == ["train", "validation", "test_unseen_answers", "test_unseen_questions"]
    assert {name: feature.dtype for name, feature in dataset["train"].features.items()} == {
        "id": "string", "question": "string", "reference_answer": "string", "provided_answer": "string",
        "answer_feedback": "string", "verification_feedback": "string", "score": "float64",
    }
    assert dataset["train"][0]["id"] == "0ccabf3fea8d4ae8bd990c8ead51679a"  # its values: QUIRKS


def test_upstream_xml_ids_come_from_fold_question_and_position(dummy_build):
    dataset = dummy_build(NAME, "upstream_xml")
    assert list(dataset["test_unseen_questions"]["id"]) == [
        "unseen_questions-2-000", "unseen_questions-2-001", "unseen_questions-2-002",
        "unseen_questions-5-000", "unseen_questions-5-001", "unseen_questions-5-002",
    ]
    assert list(dataset["train"]["id"])[:4] == ["training-1-000", "training-1-001", "training-1-002", "training-3-000"]
    assert dataset["train"][6]["id"] == "training-3-003"  # its values: QUIRKS
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
    xml = dummy_build(NAME, "upstream_xml")  # training-1-002 and training-3-000: QUIRKS
    assert [xml["train"][2]["id"], xml["train"][3]["id"]] == ["training-1-002", "training-3-000"]
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


def test_parquet_files_have_no_recorded_checksum(dummy_copy, tmp_path, capsys):
    # The Hub's Parquet files have no measured size or sha256 (loaders/saf_micro_job_german/FORMAT.md), so
    # checksums.tsv has no line for them and a real build of `default` stops until they are recorded.
    data_dir = dummy_copy(NAME)
    argv = ["build", NAME, "--config", "default", "--data-dir", str(data_dir), "--out", str(tmp_path / "out")]
    assert main(argv) == 1
    err = capsys.readouterr().err.splitlines()[-1]
    assert err.startswith(f"corpora build: error: {NAME}: 4 source file(s) differ from the recorded release: "
                          f"{corpus.urls[TRAIN_PARQUET]} (listed as not yet measured); ")


def test_xml_copy_that_is_not_the_release_is_refused(dummy_copy, tmp_path, capsys):
    data_dir = dummy_copy(NAME)
    argv = ["build", NAME, "--config", "upstream_xml", "--data-dir", str(data_dir), "--out", str(tmp_path / "out")]
    assert main(argv) == 1
    err = capsys.readouterr().err.splitlines()[-1]
    assert err.startswith(f"corpora build: error: {NAME}: 14 source file(s) differ from the recorded release: "
                          f"{corpus.urls[TRAIN_1]} (")


@pytest.mark.both_legs
def test_streaming_from_a_data_dir_copy(dummy_copy, dummy_build):
    data_dir = dummy_copy(NAME)
    for config in corpus.configs:
        streamed = load(NAME, config, data_dir=data_dir, streaming=True, allow_modified_sources=True)
        for split, prepared in dummy_build(NAME, config).items():
            assert list(streamed[split]) == prepared.to_list(), (config, split)


def test_each_config_carries_the_license_of_its_source(dummy_export, partial_export):
    # default: the Hub's Parquet files, CC BY 4.0 (its card); upstream_xml: the XML release, MIT (its LICENSE).
    assert {config: corpus.license_of(config) for config in corpus.configs} == {"default": "cc-by-4.0",
                                                                                "upstream_xml": "mit"}
    whole = dummy_export(NAME)
    for card in (corpus.card_path, whole / "README.md"):
        text = card.read_text(encoding="utf-8")
        assert "\nlicense:\n- cc-by-4.0\n- mit\n" in text
        assert "\n- **License:** `cc-by-4.0` (`default`), `mit` (`upstream_xml`)\n" in text
        assert ("\nEach config is under the license of the source it is built from:\n\n- `default`: `cc-by-4.0`\n"
                "- `upstream_xml`: `mit`\n") in text
    licenses = ["https://creativecommons.org/licenses/by/4.0/", "https://opensource.org/license/mit"]
    assert json.loads((whole / "croissant.json").read_text())["license"] == licenses
    xml = partial_export(NAME, ["upstream_xml"])
    text = (xml / "README.md").read_text(encoding="utf-8")
    assert "\nlicense: mit\n" in text and "\n- **License:** `mit`\n" in text and "cc-by-4.0" not in text
    assert "\n- **Release:** 2023-01-25, the pinned commit `09949e9` of `SebOchs/SAF` (the XML release; its German" in text
    assert json.loads((xml / "croissant.json").read_text())["license"] == "https://opensource.org/license/mit"
    hub = partial_export(NAME, ["default"])
    text = (hub / "README.md").read_text(encoding="utf-8")
    assert "\nlicense: cc-by-4.0\n" in text and "mit" not in cards.read_metadata(hub / "README.md")["license"]
    assert "\n- **Release:** date unknown, the pinned revision `30db3ef` of the Hub dataset" in text
    both = partial_export(NAME, ["upstream_xml", "default"])  # asked in another order: the licenses in the corpus's
    assert cards.read_metadata(both / "README.md")["license"] == ["cc-by-4.0", "mit"]
    assert validate.export_problems(corpus, both) == []


def test_an_export_card_with_the_other_config_s_license_is_refused(partial_export):
    folder = partial_export(NAME, ["upstream_xml"])
    card = folder / "README.md"
    text = card.read_text(encoding="utf-8")
    try:
        card.write_text(text.replace("\nlicense: mit\n", "\nlicense: cc-by-4.0\n", 1), encoding="utf-8")
        assert validate.export_problems(corpus, folder) == ["license 'cc-by-4.0', the loader says 'mit'"]
    finally:
        card.write_text(text, encoding="utf-8")
    assert validate.export_problems(corpus, folder) == []


def test_the_export_card_computes_the_figures_of_its_card(tmp_path):
    assert main(["build", NAME, "--config", "upstream_xml", "--dummy", "--out", str(tmp_path)]) == 0
    rows = figure_rows((tmp_path / NAME / "README.md").read_text())
    # Read off dummy_data's XML: unseen_questions holds questions 2 and 5, six answers, `Regal, Produkt` twice
    # (to question 2); `Ich schicke den Job ab.` (question 8) is both in training/ and in unseen_answers/.
    x = "upstream_xml"
    assert {key: value for key, value in rows.items() if key[2] == "test_unseen_questions"} == {
        (x, "distinct `question` texts", "test_unseen_questions"): "2",
        (x, "answers per score", "test_unseen_questions"): "0: 1, 0.25: 1, 0.5: 2, 1: 2",
        (x, "distinct `answer_feedback` texts", "test_unseen_questions"): "4",
        (x, "feedbacks that start or end with a space", "test_unseen_questions"): "0",
        (x, "answers that start or end with a space", "test_unseen_questions"): "0",
        (x, "rows whose reference answer starts or ends with a space", "test_unseen_questions"): "0",
        (x, "answers with a line break", "test_unseen_questions"): "0",
        (x, "question numbers", "test_unseen_questions"): "2 to 5",
        (x, "(question, answer) pairs that occur more than once in a split", "test_unseen_questions"):
            "groups: 1; surplus rows: 1",
    }
    assert rows[x, "(question, answer) pairs found in both splits", "train & test_unseen_answers"] == "1"
    assert rows[x, "(question, answer) pairs found in both splits", "test_unseen_answers & test_unseen_questions"] == "0"
