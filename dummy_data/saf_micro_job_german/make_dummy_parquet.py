"""Writes the dummy Parquet files of saf_micro_job_german (config `default`) from the dummy XML
files beside them, the way the Hub's files were made from the XML release: one row per student
answer with the published schema (7 columns, every text a string, score float64), `training/`
split into `train` and `validation`, ids that look like UUID4 hex strings.

Unlike upstream (random UUID4s, an unrecorded partition) everything here is deterministic, so
the committed files can be checked against this script: every 4th training answer goes to
`validation`, and each id is a UUID4-shaped hash of the answer's file and position.

    python dummy_data/saf_micro_job_german/make_dummy_parquet.py [--out DIR]

DIR defaults to this folder; the files are written under DIR/data/ with the Hub's file names.
"""

import argparse
import hashlib
import json
import uuid
import xml.etree.ElementTree as ET
from pathlib import Path

import pyarrow
import pyarrow.parquet

HERE = Path(__file__).resolve().parent

# The Hub's file names, with their real hash suffixes.
PARQUET = {
    "train": "data/train-00000-of-00001-d7d79904ef6ab584.parquet",
    "validation": "data/validation-00000-of-00001-0da65f8dcc3502f2.parquet",
    "test_unseen_answers": "data/test_unseen_answers-00000-of-00001-1eac04e462a6f413.parquet",
    "test_unseen_questions": "data/test_unseen_questions-00000-of-00001-3c502ac25141f64c.parquet",
}
FOLDS = {
    "training": [1, 3, 4, 6, 7, 8],
    "unseen_answers": [1, 3, 4, 6, 7, 8],
    "unseen_questions": [2, 5],
}
SCHEMA = pyarrow.schema(
    [
        ("id", pyarrow.string()),
        ("question", pyarrow.string()),
        ("reference_answer", pyarrow.string()),
        ("provided_answer", pyarrow.string()),
        ("answer_feedback", pyarrow.string()),
        ("verification_feedback", pyarrow.string()),
        ("score", pyarrow.float64()),
    ]
)
# What `datasets` stores in the files it pushes (the features of the published card).
HF_METADATA = {
    "info": {
        "features": {
            name: {"dtype": "float64" if name == "score" else "string", "_type": "Value"} for name in SCHEMA.names
        }
    }
}


def rows(data_dir: Path, fold: str) -> list[dict]:
    found = []
    for question in FOLDS[fold]:
        path = f"data/{fold}/german/{question}.xml"
        root = ET.parse(data_dir / path).getroot()
        text = root.find("questionText").text
        reference = root.find("referenceAnswers/referenceAnswer").text
        for index, answer in enumerate(root.find("studentAnswers")):
            digest = hashlib.sha256(f"{path}#{index}".encode()).digest()[:16]
            found.append(
                {
                    "id": uuid.UUID(bytes=digest, version=4).hex,
                    "question": text,
                    "reference_answer": reference,
                    "provided_answer": answer.find("response").text,
                    "answer_feedback": answer.find("response_feedback").text,
                    "verification_feedback": answer.find("verification_feedback").text,
                    "score": float(answer.find("score").text),
                }
            )
    return found


def tables(data_dir: Path = HERE) -> dict[str, pyarrow.Table]:
    """Split name -> the table its dummy Parquet file holds."""
    training = rows(data_dir, "training")
    splits = {
        "train": [row for index, row in enumerate(training) if index % 4 != 3],
        "validation": [row for index, row in enumerate(training) if index % 4 == 3],
        "test_unseen_answers": rows(data_dir, "unseen_answers"),
        "test_unseen_questions": rows(data_dir, "unseen_questions"),
    }
    schema = SCHEMA.with_metadata({"huggingface": json.dumps(HF_METADATA)})
    return {split: pyarrow.Table.from_pylist(split_rows, schema=schema) for split, split_rows in splits.items()}


def write(out: Path = HERE, data_dir: Path = HERE) -> list[Path]:
    written = []
    for split, table in tables(data_dir).items():
        path = out / PARQUET[split]
        path.parent.mkdir(parents=True, exist_ok=True)
        pyarrow.parquet.write_table(table, path)
        written.append(path)
    return written


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE, help="folder to write data/*.parquet into")
    arguments = parser.parse_args()
    for path in write(arguments.out):
        print(path)
