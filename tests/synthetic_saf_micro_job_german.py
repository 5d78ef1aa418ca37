"""A copy of both saf_micro_job_german layouts at the release's sizes, from the dummy data
(tests/test_saf_micro_job_german.py declares it as FULL_SIZE)."""

import sys
import xml.etree.ElementTree as ET

import pyarrow
import pyarrow.parquet

from corpora import registry

DUMMY = registry.get("saf_micro_job_german").dummy_dir
sys.path.insert(0, str(DUMMY))
import make_dummy_parquet  # noqa: E402

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
