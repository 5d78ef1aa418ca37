"""saf_micro_job_german's bad input, for both configs: what `corpora build saf_micro_job_german`
prints for each malformed file (helpers.BadInput rows; tests/test_bad_input.py runs them and
writes docs/bad_input.md). Its own file beside tests/test_saf_micro_job_german.py, which declares it."""

import math
import sys
import xml.etree.ElementTree as ET

import pyarrow
import pyarrow.parquet

from corpora import registry
from helpers import BadInput

DUMMY = registry.get("saf_micro_job_german").dummy_dir
TRAIN_PARQUET = "data/train-00000-of-00001-d7d79904ef6ab584.parquet"
TRAIN_1 = "data/training/german/1.xml"

sys.path.insert(0, str(DUMMY))
import make_dummy_parquet  # noqa: E402

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


CSV = b"id,question,score\n1,Frage 1,1.0\n"
W = f"{TRAIN_1}, studentAnswer 1 (id training-1-001)"
P = f"{TRAIN_PARQUET}, row 2 (id 9b195c3e3efd421c9f50ce60dd4dce0b)"
EXPECTED_COLUMNS = "['id', 'question', 'reference_answer', 'provided_answer', 'answer_feedback', 'verification_feedback', 'score']"
BINARY_ANSWERS = make_dummy_parquet.SCHEMA.set(3, pyarrow.field("provided_answer", pyarrow.binary()))


def without_answers(raw):
    root = ET.fromstring(raw)
    root.find("studentAnswers").clear()
    return ET.tostring(root, encoding="utf-8", xml_declaration=True)


LARGE_STRINGS = pyarrow.schema([
    pyarrow.field(f.name, pyarrow.large_string() if f.type == pyarrow.string() else f.type) for f in make_dummy_parquet.SCHEMA
])


def xml(case, variant, message):
    return BadInput(TRAIN_1, f"upstream_xml: {case}", variant, message, config="upstream_xml")


def hub(case, variant, message):
    return BadInput(TRAIN_PARQUET, f"default: {case}", variant, message, config="default")


BAD_INPUT = [
    xml("truncated file", lambda raw: raw[:700], f"{TRAIN_1}: malformed XML (no element found: line 16, column 2)"),
    xml("wrong encoding (Latin-1)", lambda raw: raw.decode().encode("latin-1"),
     f"{TRAIN_1}, line 5: not UTF-8 (byte 0xe4 at offset 66 of the line: invalid continuation byte)"),
    xml("wrong format (CSV instead of XML)", lambda raw: CSV, f"{TRAIN_1}: malformed XML (syntax error: line 1, column 0)"),
    xml("missing field (no <score>)", xml_answer_1("<score>0.5</score>", ""),
     f"{W}: <studentAnswer> has children ['response', 'response_feedback', 'verification_feedback']; "
     "expected ['response', 'response_feedback', 'score', 'verification_feedback']"),
    xml("extra field", xml_answer_1("<score>0.5</score>", "<score>0.5</score><grader>A</grader>"),
     f"{W}: <studentAnswer> has children ['response', 'response_feedback', 'score', 'grader', "
     "'verification_feedback']; expected ['response', 'response_feedback', 'score', 'verification_feedback']"),
    xml("empty file", lambda raw: b"", f"{TRAIN_1}: is empty (expected an XML file)"),
    xml("unknown label", xml_answer_1("<verification_feedback>Partially correct<", "<verification_feedback>Teilweise richtig<"),
     f"{W}: field 'verification_feedback': invalid value 'Teilweise richtig' (expected 'Correct' or 'Partially correct' or 'Incorrect')"),
    xml("out-of-range number (score 1.5)", xml_answer_1("<score>0.5<", "<score>1.5<"),
     f"{W}: field 'score': invalid value '1.5' (expected a decimal number from 0 to 1)"),
    xml("score not a number", xml_answer_1("<score>0.5<", "<score>halb<"),
     f"{W}: field 'score': invalid value 'halb' (expected a decimal number from 0 to 1)"),
    xml("score and label disagree", xml_answer_1("<score>0.5<", "<score>0.0<"),
     f"{W}: field 'verification_feedback': invalid value 'Partially correct' (expected 'Incorrect' for score 0.0)"),
    xml("answer without a response", xml_answer_1("<response>Jobbeschreibung lesen</response>", ""),
     f"{W}: <studentAnswer> has children ['response_feedback', 'score', 'verification_feedback']; "
     "expected ['response', 'response_feedback', 'score', 'verification_feedback']"),
    xml("malformed XML (mismatched tag)", xml_answer_1("</response>", "</respons>"), f"{TRAIN_1}: malformed XML (mismatched tag: line 9, column 82)"),
    xml("billion laughs", lambda raw: BILLION_LAUGHS.encode(),
     f"{TRAIN_1}: has a DOCTYPE declaration at byte 22; document types and entity declarations are refused "
     "(only the predefined XML entities are allowed)"),
    xml("external entity", lambda raw: EXTERNAL_ENTITY.encode(),
     f"{TRAIN_1}: has a DOCTYPE declaration at byte 39; document types and entity declarations are refused "
     "(only the predefined XML entities are allowed)"),
    hub("truncated file", lambda raw: raw[: len(raw) // 2],
     f"{TRAIN_PARQUET}: not a readable Parquet file (Parquet magic bytes not found in footer. Either the file is corrupted or this is not a parquet file.)"),
    hub("wrong encoding (cp1252 bytes, not UTF-8 strings)", parquet_rows(lambda rows: [r.update(provided_answer=r["provided_answer"].encode("cp1252")) for r in rows], BINARY_ANSWERS),
     f"{TRAIN_PARQUET}: column 'provided_answer' has type binary; expected string"),
    hub("wrong format (CSV instead of Parquet)", lambda raw: CSV, f"{TRAIN_PARQUET}: not a Parquet file (it starts with b'id,quest', not b'PAR1')"),
    hub("missing column", parquet_rows(lambda rows: [r.pop("score") for r in rows], None),
     f"{TRAIN_PARQUET}: columns ['id', 'question', 'reference_answer', 'provided_answer', 'answer_feedback', "
     f"'verification_feedback']; expected {EXPECTED_COLUMNS} (missing ['score'], unexpected [])"),
    hub("extra column", parquet_rows(lambda rows: [r.update(grader="A") for r in rows], None),
     f"{TRAIN_PARQUET}: columns {EXPECTED_COLUMNS[:-1]}, 'grader']; expected {EXPECTED_COLUMNS} (missing [], unexpected ['grader'])"),
    hub("column of another type (score as text)", parquet_rows(lambda rows: [r.update(score=str(r["score"])) for r in rows], None),
     f"{TRAIN_PARQUET}: column 'score' has type string; expected double"),
    hub("empty file", lambda raw: b"", f"{TRAIN_PARQUET}: is empty (expected a Parquet file)"),
    hub("no rows", parquet_rows(lambda rows: rows.clear()), f"{TRAIN_PARQUET}: has no rows"),
    hub("unknown label", parquet_rows(lambda rows: rows[2].update(verification_feedback="Falsch")),
     f"{P}: field 'verification_feedback': invalid value 'Falsch' (expected 'Correct' or 'Partially correct' or 'Incorrect')"),
    hub("out-of-range number (score 1.5)", parquet_rows(lambda rows: rows[2].update(score=1.5)),
     f"{P}: field 'score': invalid value 1.5 (expected a number from 0 to 1)"),
    hub("score not a number (NaN)", parquet_rows(lambda rows: rows[2].update(score=math.nan)),
     f"{P}: field 'score': invalid value nan (expected a number from 0 to 1)"),
    hub("score and label disagree", parquet_rows(lambda rows: rows[2].update(score=1.0)),
     f"{P}: field 'verification_feedback': invalid value 'Incorrect' (expected 'Correct' for score 1.0)"),
    hub("answer missing (null)", parquet_rows(lambda rows: rows[2].update(provided_answer=None)),
     f"{P}: field 'provided_answer': invalid value None (expected a non-empty string)"),
    hub("id not a UUID4 hex", parquet_rows(lambda rows: rows[2].update(id="1")),
     f"{TRAIN_PARQUET}, row 2: field 'id': invalid value '1' (expected 32 lower-case hex digits (a UUID4 in hex))"),
    xml("mismatched closing tag of a score", xml_answer_1('<score>0.5</score>', '<score>0.5</scor>'),
     f"{TRAIN_1}: malformed XML (mismatched tag: line 17, column 18)"),
    xml("entity declaration without a DOCTYPE", xml_answer_1('<question id', '<!ENTITY x "y">\n<question id'),
     f"{TRAIN_1}: has a ENTITY declaration at byte 39; document types and entity declarations are refused "
     "(only the predefined XML entities are allowed)"),
    xml("undefined entity", xml_answer_1('Fotos &amp; Kassenbon', 'Fotos&nbsp;Kassenbon'),
     f"{TRAIN_1}: malformed XML (undefined entity: line 21, column 21)"),
    *[xml(f"score {value!r}", xml_answer_1('<score>0.5</score>', f'<score>{value}</score>'),
      f"{W}: field 'score': invalid value {value!r} (expected a decimal number from 0 to 1)")
      for value in ["gut", "-0.25", "nan", " 0.5", "", "0,5"]],
    xml("label in lower case", xml_answer_1('<verification_feedback>Partially correct<', '<verification_feedback>partially correct<'),
     f"{W}: field 'verification_feedback': invalid value 'partially correct' (expected 'Correct' or 'Partially correct' or 'Incorrect')"),
    xml("score 1.0 with its label Partially correct", xml_answer_1('<score>0.5</score>', '<score>1.0</score>'),
     f"{W}: field 'verification_feedback': invalid value 'Partially correct' (expected 'Correct' for score 1.0)"),
    xml("empty response '<response></response>'", xml_answer_1('<response>Jobbeschreibung lesen</response>', '<response></response>'),
     f"{W}: field 'response': invalid value '' (expected a non-empty string)"),
    xml("empty response '<response/>'", xml_answer_1('<response>Jobbeschreibung lesen</response>', '<response/>'),
     f"{W}: field 'response': invalid value '' (expected a non-empty string)"),
    xml("empty response '<response>  \n </response>'", xml_answer_1('<response>Jobbeschreibung lesen</response>', '<response>  \n </response>'),
     f"{W}: field 'response': invalid value ' \\n ' (expected a non-empty string)"),  # runs of spaces: one
    xml("attribute on a student answer", xml_answer_1('<studentAnswer>', '<studentAnswer id="1.1">'),
     f"{TRAIN_1}, studentAnswer 0 (id training-1-000): <studentAnswer> has attributes ['id']; expected []"),
    xml("question id not the file's number", xml_answer_1('<question id="1">', '<question id="2">'),
     f"{TRAIN_1}: field 'question/@id': invalid value '2' (expected '1', the number in the file name)"),
    xml("two reference answers", xml_answer_1('</referenceAnswers>', '<referenceAnswer id="1.a2">Noch eine.</referenceAnswer></referenceAnswers>'),
     f"{TRAIN_1}: <referenceAnswers> has children ['referenceAnswer', 'referenceAnswer']; expected ['referenceAnswer']"),
    xml("another encoding declared", xml_answer_1("encoding='utf-8'", "encoding='iso-8859-1'"),
     f"{TRAIN_1}: declares encoding 'iso-8859-1'; expected 'utf-8'"),
    xml("no student answers", without_answers, f"{TRAIN_1}: has no answers (<studentAnswers> is empty)"),
    hub("CSV with semicolons instead of Parquet", lambda raw: b"id;question;score\n1;Frage 1;1.0\n",
     f"{TRAIN_PARQUET}: not a Parquet file (it starts with b'id;quest', not b'PAR1')"),
    hub("no answer_feedback column", parquet_rows(lambda rows: [r.pop("answer_feedback") for r in rows], None),
     f"{TRAIN_PARQUET}: columns ['id', 'question', 'reference_answer', 'provided_answer', 'verification_feedback', "
     f"'score']; expected {EXPECTED_COLUMNS} (missing ['answer_feedback'], unexpected [])"),
    hub("an integer column more", parquet_rows(lambda rows: [r.update(question_id=1) for r in rows], None),
     f"{TRAIN_PARQUET}: columns {EXPECTED_COLUMNS[:-1]}, 'question_id']; expected {EXPECTED_COLUMNS} (missing [], unexpected ['question_id'])"),
    *[hub(f"score {score!r}", parquet_rows(lambda rows, score=score: rows[2].update(score=score)),
      f"{P}: field 'score': invalid value {score!r} (expected a number from 0 to 1)")
      for score in [-0.25, math.inf, None]],
    hub("label in German", parquet_rows(lambda rows: rows[2].update(verification_feedback="Korrekt")),
     f"{P}: field 'verification_feedback': invalid value 'Korrekt' (expected 'Correct' or 'Partially correct' or 'Incorrect')"),
    hub("score 0.5 with its label Incorrect", parquet_rows(lambda rows: rows[2].update(score=0.5)),
     f"{P}: field 'verification_feedback': invalid value 'Incorrect' (expected 'Partially correct' for score 0.5)"),
    *[hub(f"answer {value!r}", parquet_rows(lambda rows, value=value: rows[2].update(provided_answer=value)),
      f"{P}: field 'provided_answer': invalid value {value!r} (expected a non-empty string)")
      for value in ["", " \n"]],
    *[hub(f"id {value!r}", parquet_rows(lambda rows, value=value: rows[2].update(id=value)),
      f"{TRAIN_PARQUET}, row 2: field 'id': invalid value {value!r} (expected 32 lower-case hex digits (a UUID4 in hex))")
      for value in ["0CCABF3FEA8D4AE8BD990C8EAD51679A", "0ccabf3f-ea8d-4ae8-bd99-0c8ead51679a", None]],
    hub("repeated id", parquet_rows(lambda rows: rows[5].update(id=rows[1]["id"]), None),
     f"{TRAIN_PARQUET}, row 5: field 'id': invalid value '2ba7661dbe534e2383506fecae86e5ba' (expected a unique id; row 1 has it too)"),
    hub("large_string columns", parquet_rows(lambda rows: None, LARGE_STRINGS), None),
]
