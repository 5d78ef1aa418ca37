"""saf_micro_job_german: every quirk of loaders/saf_micro_job_german/FORMAT.md, for both configs
(`default`: the Hub's Parquet files, `upstream_xml`: the GitHub XML files), as declarations that
tests/test_declared.py and tests/test_bad_input.py run, and the checks no row can hold."""

import json
import re
import sys

import datasets
import pyarrow
import pyarrow.parquet
import pytest

from corpora import cards
from corpora import load
from corpora import registry
from corpora import validate
from helpers import Downloads
from helpers import FullSize
from helpers import corpora_here
from helpers import figure_rows
from helpers import lines_from
from helpers import lines_with
from helpers import run_process
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

X, H, HA, XA, XQ = ("upstream_xml", "train"), ("default", "train"), ("default", "test_unseen_answers"), ("upstream_xml", "test_unseen_answers"), ("upstream_xml", "test_unseen_questions")
R7 = "Der Kaufpreis wird bis 5 € erstattet (0.75 P), höhere Beträge musst du jedoch selbst tragen (0.25 P). "
Q7 = "Frage 7: Wer trägt die Kosten für den Testkauf?"
LEADING = " Solltest du dir unsicher sein, lies die Jobbeschreibung. Es gibt keine zeitliche Einschränkung."
TRAILING = "Nur bis 5 € wird erstattet. Den Rest musst du selbst tragen, bevor du den Job abschließen kannst. "
# (config, split, key, field, expected): the dummy build's values; quirk numbers: FORMAT.md.
QUIRKS = [
    ("default", "train", "0ccabf3fea8d4ae8bd990c8ead51679a", "", {
        "id": "0ccabf3fea8d4ae8bd990c8ead51679a",
        "question": "Frage 1: Was musst du tun, bevor du den Laden betrittst?",
        "reference_answer": "Du liest die Jobbeschreibung vollständig (0.5 P) und prüfst, ob der Laden geöffnet ist (0.5 P).",
        "provided_answer": "Ich lese die Jobbeschreibung und schaue nach den Öffnungszeiten.",
        "answer_feedback": "Korrekt!", "verification_feedback": "Correct", "score": 1.0,
    }),
    (*X, "training-3-003", "question_id", 3), (*X, "training-3-003", "reference_answer_id", "3.a1"),
    (*X, "training-4-000", "provided_answer", "Freundlich bleiben\nnicht als Tester\nzu erkennen geben"),  # 4: newlines kept
    (*HA, "af97d93b1d0f43c4acfe7f981db963fd", "provided_answer", "Ich lese die Beschreibung und prüfe,\nob offen ist."),
    (*X, "training-6-001", "answer_feedback", LEADING), (*H, "7957a7c9e1064bf8bd0f4c5de88df81f", "answer_feedback", LEADING),  # 5
    (*X, "training-7-001", "answer_feedback", TRAILING), (*H, "fc530a1144d2410da8d684dd8015b4e9", "answer_feedback", TRAILING),
    (*X, {"question_id": 7}, "reference_answer", [R7] * 2), (*XA, {"question_id": 7}, "reference_answer", [R7] * 2),
    (*H, {"question": Q7}, "reference_answer", [R7] * 2), (*HA, {"question": Q7}, "reference_answer", [R7] * 2),
    (*X, "training-1-002", "provided_answer", "Fotos & Kassenbon bereitlegen"),  # 6: &amp; decoded
    (*X, "training-3-000", "reference_answer", "Datum & Uhrzeit (0.5 P) sowie der Name des Ladens (0.5 P) müssen lesbar sein."),
    (*XA, "unseen_answers-3-000", "provided_answer", "Name des Ladens & Datum"),
    (*X, {"question_id": 3, "provided_answer": "Datum und Uhrzeit"}, "id", ["training-3-002", "training-3-003"]),  # 7: twice
    (*XQ, {"provided_answer": "Regal, Produkt"}, "id", ["unseen_questions-2-001", "unseen_questions-2-002"]),
    (*X, {"provided_answer": "Ich schicke den Job ab."}, "id", ["training-8-001"]),  # and in two folds
    (*XA, {"provided_answer": "Ich schicke den Job ab."}, "id", ["unseen_answers-8-000"]),
]
DOWNLOADS = Downloads((GITHUB, HUB), ("upstream_xml", "default"))  # Parquet over HTTP: read through a seekable file
FULL_SIZE = FullSize(write_full_size_copy, rows=(
    ("upstream_xml", "test_unseen_questions", 301, "id", "unseen_questions-5-000"),
    ("upstream_xml", "train", 256, "id", "training-1-256"),
))


def test_constants_follow_the_source_file_convention():
    files = {c: corpus.config(c).files for c in corpus.configs}
    assert {c: list(splits) for c, splits in files.items()} == {c: list(corpus.config(c).split_sizes) for c in corpus.configs}
    assert sorted(path for splits in files.values() for paths in splits.values() for path in paths) == sorted(corpus.urls)
    assert files["default"]["train"] == [TRAIN_PARQUET]
    assert (corpus.urls[TRAIN_PARQUET], corpus.urls[TRAIN_1]) == (HUB + TRAIN_PARQUET, GITHUB + TRAIN_1)
    assert files["upstream_xml"]["test_unseen_questions"] == ["data/unseen_questions/german/2.xml", "data/unseen_questions/german/5.xml"]
    assert len(corpus.urls) == 4 + 14
    assert corpus.split_sizes == {
        "default": {"train": 1226, "validation": 308, "test_unseen_answers": 271, "test_unseen_questions": 602},
        "upstream_xml": {"train": 1534, "test_unseen_answers": 271, "test_unseen_questions": 602},
    }


def test_checksums_measure_the_xml_files_and_list_the_parquet_files_as_unmeasured():
    entries = [line.split("\t") for line in (corpus.loader_dir / "checksums.tsv").read_text().splitlines()]
    assert [url for url, _, _ in entries] == sorted(corpus.urls.values())
    unmeasured = [url for url, size, sha256 in entries if (size, sha256) == ("-", "-")]
    assert unmeasured == sorted(corpus.urls[path] for paths in corpus.config("default").files.values() for path in paths)
    xml = [entry for entry in entries if entry[0].endswith(".xml")]
    assert len(xml) == 14
    assert xml[0][1:] == ["124262", "136d160487399e5e265ca69a5ffb67534527d759637bddce4f77bac42ea4a419"]
    assert sum(int(size) for _, size, _ in xml) == 987_921


def test_card_lists_the_splits_of_both_configs():
    # The two configs have different splits: the card's split table has a column for each.
    header = "| config | train | validation | test_unseen_answers | test_unseen_questions |"
    assert lines_from(corpus.card_path.read_text(encoding="utf-8"), header, 4) == [
        header, "|---|---:|---:|---:|---:|", "| `default` | 1,226 | 308 | 271 | 602 |", "| `upstream_xml` | 1,534 | - | 271 | 602 |"]


# --- what no row can hold -----------------------------------------------------------------


def test_default_has_the_published_schema_and_splits(dummy_build):
    dataset = dummy_build(NAME, "default")
    assert list(dataset) == ["train", "validation", "test_unseen_answers", "test_unseen_questions"]
    assert {name: feature.dtype for name, feature in dataset["train"].features.items()} == {
        "id": "string", "question": "string", "reference_answer": "string", "provided_answer": "string",
        "answer_feedback": "string", "verification_feedback": "string", "score": "float64",
    }
    assert dataset["train"][0]["id"] == "0ccabf3fea8d4ae8bd990c8ead51679a"  # its values: QUIRKS
    ids = [row_id for rows in dataset.values() for row_id in rows["id"]]
    assert [row_id for row_id in ids if not re.fullmatch("[0-9a-f]{32}", row_id)] == [] and len(ids) == 30  # UUID4 hex


def test_upstream_xml_ids_come_from_fold_question_and_position(dummy_build):
    dataset = dummy_build(NAME, "upstream_xml")
    assert list(dataset["test_unseen_questions"]["id"]) == [
        "unseen_questions-2-000", "unseen_questions-2-001", "unseen_questions-2-002",
        "unseen_questions-5-000", "unseen_questions-5-001", "unseen_questions-5-002",
    ]
    assert list(dataset["train"]["id"])[:4] == ["training-1-000", "training-1-001", "training-1-002", "training-3-000"]
    assert dataset["train"][6]["id"] == "training-3-003"  # its values: QUIRKS
    assert dataset["train"].features["question_id"].dtype == "int32"


def test_training_folder_is_train_plus_validation_and_the_hub_rows_are_the_xml_rows(dummy_build):
    # Quirk 2: the Hub's partition is not in the XML; upstream_xml's train is the whole folder.
    hub, xml = dummy_build(NAME, "default"), dummy_build(NAME, "upstream_xml")
    assert hub["train"].num_rows + hub["validation"].num_rows == xml["train"].num_rows == 16
    answers = sorted(list(hub["train"]["provided_answer"]) + list(hub["validation"]["provided_answer"]))
    assert answers == sorted(list(xml["train"]["provided_answer"]))
    fields = ["question", "reference_answer", "provided_answer", "answer_feedback", "verification_feedback", "score"]
    for split in ["test_unseen_answers", "test_unseen_questions"]:
        assert [{f: row[f] for f in fields} for row in hub[split]] == [{f: row[f] for f in fields} for row in xml[split]], split


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
    assert (text.count("<score>0.25</score>"), text.count("<score>1.0</score>")) == (1, 1)


def test_the_dummy_files_hold_the_quirks_as_written():
    # Quirks 5 and 6 as the XML writes them (their values after reading: QUIRKS).
    assert lines_with((DUMMY / "data/unseen_answers/german/7.xml").read_text(), "</referenceAnswer>") == [
        f'    <referenceAnswer id="7.a1">{R7}</referenceAnswer>']
    assert lines_with((DUMMY / TRAIN_1).read_text(), "&amp;") == ["      <response>Fotos &amp; Kassenbon bereitlegen</response>"]


def test_question_texts_start_with_frage_n(dummy_build):
    # Quirk 8: the number after "Frage " is the question's (upstream_xml: its question_id).
    numbers = {config: {split: sorted({int(re.match(r"Frage ([1-8]): ", row["question"])[1]) for row in rows})
                        for split, rows in dummy_build(NAME, config).items()} for config in corpus.configs}
    seen = [1, 3, 4, 6, 7, 8]
    assert numbers == {"default": {"train": seen, "validation": [3, 4, 6, 8], "test_unseen_answers": seen, "test_unseen_questions": [2, 5]},
                       "upstream_xml": {"train": seen, "test_unseen_answers": seen, "test_unseen_questions": [2, 5]}}
    assert [row["question"].startswith(f"Frage {row['question_id']}: ") for split, rows in dummy_build(NAME, "upstream_xml").items()
            for row in rows] == [True] * 30


def test_xml_files_are_in_the_release_layout():
    tags = re.compile(rb" *<[a-zA-Z_]+")
    for paths in corpus.config("upstream_xml").files.values():
        for path in paths:
            data = (DUMMY / path).read_bytes()
            lines = data.split(b"\n")
            assert lines[0] == b"<?xml version='1.0' encoding='utf-8'?>" and re.fullmatch(rb'<question id="[1-8]">', lines[1])
            assert lines[-2:] == [b"</question>", b""] and data.count(b"\r") == 0, path
            assert sorted({tags.match(line)[0] for line in lines[1:] if tags.match(line)}) == [
                b"      <response", b"      <response_feedback", b"      <score", b"      <verification_feedback",
                b"    <referenceAnswer", b"    <studentAnswer", b"  <questionText", b"  <referenceAnswers", b"  <studentAnswers",
                b"<question"], path


def test_parquet_is_read_in_record_batches(monkeypatch):
    rows = list(loader._read_parquet(DUMMY / TRAIN_PARQUET, TRAIN_PARQUET))
    monkeypatch.setattr(loader, "_BATCH_ROWS", 5)
    batches, real = [], pyarrow.parquet.ParquetFile.iter_batches
    monkeypatch.setattr(pyarrow.parquet.ParquetFile, "iter_batches", lambda self, *args, **kwargs: (
        batches.append(batch.num_rows) or batch for batch in real(self, *args, **kwargs)))
    assert list(loader._read_parquet(DUMMY / TRAIN_PARQUET, TRAIN_PARQUET)) == rows
    assert batches == [5, 5, 2]


def test_committed_dummy_parquet_equals_the_script_output(tmp_path):
    result = run_process([sys.executable, DUMMY / "make_dummy_parquet.py", "--out", tmp_path])
    assert (result.returncode, result.stdout, result.stderr) == (
        0, "".join(f"{tmp_path / path}\n" for path in make_dummy_parquet.PARQUET.values()), "")
    for split, path in make_dummy_parquet.PARQUET.items():
        assert path == corpus.config("default").files[split][0]
        written = pyarrow.parquet.read_table(tmp_path / path)
        committed = pyarrow.parquet.read_table(DUMMY / path)
        assert committed.schema.equals(written.schema, check_metadata=True), split
        assert committed.to_pylist() == written.to_pylist(), split


UPDATE = (f"If the new files are right, record them with `corpora checksums {NAME} --update`; to build them once "
          "without recording, use --allow-modified-sources.")


def test_a_copy_that_is_not_the_recorded_release_is_refused(dummy_copy, tmp_path):
    # The Hub's Parquet files have no measured size or sha256 (loaders/saf_micro_job_german/FORMAT.md), so
    # checksums.tsv has no line for them and a real build of `default` stops until they are recorded.
    data_dir = dummy_copy(NAME)
    parquet = "; ".join(f"{corpus.urls[paths[0]]} (listed as not yet measured)" for paths in corpus.config("default").files.values())
    xml = "; ".join(f"{corpus.urls[path]} ({size} bytes, recorded {recorded})" for path, size, recorded in [
        (TRAIN_1, "1,250", "124,262"), (TRAIN_3, "1,378", "119,787"), ("data/training/german/4.xml", "929", "82,141")])
    for config, line in [("default", f"4 source file(s) differ from the recorded release: {parquet}. {UPDATE}"),
                         ("upstream_xml", f"14 source file(s) differ from the recorded release: {xml}; and 11 more. {UPDATE}")]:
        result = corpora_here("build", NAME, "--config", config, "--data-dir", data_dir, "--out", tmp_path / "out")
        assert (result.returncode, result.stdout, result.stderr) == (1, "", f"corpora build: error: {NAME}: {line}\n")


@pytest.mark.both_legs
def test_streaming_from_a_data_dir_copy(dummy_copy, dummy_build):
    data_dir = dummy_copy(NAME)
    for config in corpus.configs:
        streamed = load(NAME, config, data_dir=data_dir, streaming=True, allow_modified_sources=True)
        for split, prepared in dummy_build(NAME, config).items():
            assert list(streamed[split]) == prepared.to_list(), (config, split)


def test_each_config_carries_the_license_of_its_source(dummy_export, partial_export):
    # default: the Hub's Parquet files, CC BY 4.0 (its card); upstream_xml: the XML release, MIT (its LICENSE).
    assert {config: corpus.license_of(config) for config in corpus.configs} == {"default": "cc-by-4.0", "upstream_xml": "mit"}

    def told(card):  # the licenses and releases a card states: its header's, and its lines that name them
        text = card.read_text(encoding="utf-8")
        return (cards.read_metadata(card)["license"], lines_with(text, "- **License:**"), lines_with(text, "- **Release:**"),
                lines_from(text, "Each config is under the license of the source it is built from:", 4))

    xml_release = ("- **Release:** 2023-01-25, the pinned commit `09949e9` of `SebOchs/SAF` (the XML release, its last commit; "
                   "the German files never changed after they were added: FORMAT.md, *Where the files are*)")
    both = f"{xml_release}; the pinned revision `30db3ef` of the Hub dataset (its date is not known; the data were uploaded in November 2022)"
    whole = dummy_export(NAME)
    for card in (corpus.card_path, whole / "README.md"):
        assert told(card) == (["cc-by-4.0", "mit"], ["- **License:** `cc-by-4.0` (`default`), `mit` (`upstream_xml`)"], [both], [
            "Each config is under the license of the source it is built from:", "", "- `default`: `cc-by-4.0`",
            "- `upstream_xml`: `mit`"]), card
    licenses = ["https://creativecommons.org/licenses/by/4.0/", "https://opensource.org/license/mit"]
    assert json.loads((whole / "croissant.json").read_text())["license"] == licenses
    xml, hub = partial_export(NAME, ["upstream_xml"]), partial_export(NAME, ["default"])
    assert told(xml / "README.md") == ("mit", ["- **License:** `mit`"], [xml_release], [])
    assert (xml / "README.md").read_text(encoding="utf-8").count("cc-by-4.0") == 0
    assert json.loads((xml / "croissant.json").read_text())["license"] == "https://opensource.org/license/mit"
    assert told(hub / "README.md") == ("cc-by-4.0", ["- **License:** `cc-by-4.0`"], [
        "- **Release:** date unknown, the pinned revision `30db3ef` of the Hub dataset (its date is not known; the data "
        "were uploaded in November 2022)"], [])
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


def test_the_export_card_computes_the_figures_of_its_card(partial_export):
    rows = figure_rows((partial_export(NAME, ["upstream_xml"]) / "README.md").read_text())
    # Read off dummy_data's XML: unseen_questions holds questions 2 and 5, six answers, `Regal, Produkt` twice
    # (to question 2); `Ich schicke den Job ab.` (question 8) is both in training/ and in unseen_answers/.
    assert {key: value for key, value in rows.items() if key[2] == "test_unseen_questions" or " & " in key[2]} == {
        ("upstream_xml", figure, split): value for figure, split, value in [
            *[(figure, "test_unseen_questions", value) for figure, value in [
                ("distinct `question` texts", "2"), ("answers per score", "0: 1, 0.25: 1, 0.5: 2, 1: 2"),
                ("distinct `answer_feedback` texts", "4"), ("feedbacks that start or end with a space", "0"),
                ("answers that start or end with a space", "0"), ("rows whose reference answer starts or ends with a space", "0"),
                ("answers with a line break", "0"), ("question numbers", "2 and 5"),  # not "2 to 5": 3 and 4 are not there
                ("(question, answer) pairs that occur more than once in a split", "groups: 1; surplus rows: 1")]],
            ("(question, answer) pairs found in both splits", "train & test_unseen_answers", "1"),
            ("(question, answer) pairs found in both splits", "train & test_unseen_questions", "0"),
            ("(question, answer) pairs found in both splits", "test_unseen_answers & test_unseen_questions", "0")]}
