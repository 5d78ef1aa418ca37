"""saf_micro_job_german's parsers (the score, its label, an XML file, a Hub row), fuzzed: each
keeps every value it accepts. Whole files are fuzzed through the builder by the FUZZ
declarations of tests/test_saf_micro_job_german.py."""

import re
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from corpora import registry

corpus = registry.get("saf_micro_job_german")
loader = corpus.module
TRAIN_1 = "data/training/german/1.xml"
LABELS = ["Correct", "Partially correct", "Incorrect"]


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=8), st.from_regex(r"[0-9]{1,2}(\.[0-9]{1,4})?", fullmatch=True)))
def test_score_text_is_a_number_from_0_to_1_or_a_clear_error(text):
    try:
        value = loader._XML_FIELDS["score"].value(text, "f", "score")
    except ValueError as error:
        assert str(error) == f"f: field 'score': invalid value {text!r} (expected a decimal number from 0 to 1)"
        assert not (re.fullmatch(r"(0|[1-9][0-9]*)(\.[0-9]+)?", text) and 0 <= float(text) <= 1)
    else:
        assert value == float(text) and 0 <= value <= 1


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.floats(), st.integers(), st.text(max_size=4), st.none()), st.sampled_from(LABELS + ["correct", ""]))
def test_score_and_label_are_checked_together(score, label):
    try:
        value = loader._FIELDS["score"].value(score, "f", "score")
        checked = loader._FIELDS["verification_feedback"].value(label, "f", "verification_feedback")
        loader._check_label({"verification_feedback": checked, "score": value}, "f")
    except ValueError as error:
        implied = {1.0: "Correct", 0.0: "Incorrect"}.get(score, "Partially correct")
        if not (type(score) in (float, int) and 0 <= score <= 1):
            refused = "score", score, "a number from 0 to 1"
        elif label not in LABELS:
            refused = "verification_feedback", label, "'Correct' or 'Partially correct' or 'Incorrect'"
        else:
            refused = "verification_feedback", label, f"{implied!r} for score {float(score)!r}"
        assert str(error) == "f: field {!r}: invalid value {!r} (expected {})".format(*refused)
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
        # As the reader does: the id first (it names the row), then the others and the label.
        loader._FIELDS["id"].value(row["id"], "f, row 0", "id")
        typed = loader._check_label({"id": row["id"], **loader._read_hub_row(row, "f, row 0")}, "f, row 0")
    except ValueError as error:
        assert str(error).startswith("f, row 0: field '")
    else:
        assert typed == row
        corpus.features("default").encode_example(typed)


def test_the_loaders_own_message_keeps_the_value_exactly(tmp_path):
    # The build's line puts one space for each run of white space (tests/test_saf_micro_job_german_bad_input.py).
    path = tmp_path / "1.xml"
    text = (corpus.dummy_dir / TRAIN_1).read_text(encoding="utf-8")
    path.write_text(text.replace("<response>Jobbeschreibung lesen</response>", "<response>  \n </response>", 1), encoding="utf-8")
    with pytest.raises(ValueError) as caught:
        list(loader._read_xml(path, TRAIN_1))
    assert str(caught.value) == (f"{TRAIN_1}, studentAnswer 1 (id training-1-001): field 'response': invalid value "
                                 "'  \\n ' (expected a non-empty string)")
