"""SAF micro job (German): German short answers of appJobber crowd workers to 8 training questions of
a micro job, each with a reference answer, an expert's feedback, a score and a verification label.
Two configs: `default` reads the published Parquet files of the Hub dataset, `upstream_xml` the original
XML release (GitHub SebOchs/SAF); both formats and their quirks are in FORMAT.md beside this file.
"""

import dataclasses
import os
import re
import xml.etree.ElementTree as ET

import datasets
import pyarrow
import pyarrow.parquet
from datasets.utils.file_utils import xopen

from corpora.loader_shared.builder_base import SourceBuilder
from corpora.loader_shared.builder_base import SourceConfig
from corpora.loader_shared.fields import Field
from corpora.loader_shared.fields import features
from corpora.loader_shared.fields import label
from corpora.loader_shared.fields import matching
from corpora.loader_shared.fields import number
from corpora.loader_shared.fields import reader
from corpora.loader_shared.fields import string
from corpora.loader_shared.loader_common import check_is_data
from corpora.loader_shared.loader_common import invalid
from corpora.loader_shared.loader_common import local_files
from corpora.loader_shared.loader_common import no_records
from corpora.loader_shared.loader_common import utf8

_CITATION = """\
@inproceedings{filighera-etal-2022-answer,
    title = "Your Answer is Incorrect... Would you like to know why?
      Introducing a Bilingual Short Answer Feedback Dataset",
    author = "Filighera, Anna  and
      Parihar, Siddharth  and
      Steuer, Tim  and
      Meuser, Tobias  and
      Ochs, Sebastian",
    booktitle = "Proceedings of the 60th Annual Meeting of the Association for Computational Linguistics
      (Volume 1: Long Papers)",
    month = may,
    year = "2022",
    address = "Dublin, Ireland",
    publisher = "Association for Computational Linguistics",
    url = "https://aclanthology.org/2022.acl-long.587",
    doi = "10.18653/v1/2022.acl-long.587",
    pages = "8577--8591",
}
"""

_DESCRIPTION = """\
German short answers written by crowd workers of the appJobber platform to the questions of a micro-
job training, each with the question, a reference answer, an expert's textual feedback, a score
between zero and one and a verification label (Correct, Partially correct, Incorrect).
"""

_HOMEPAGE = "https://huggingface.co/datasets/Short-Answer-Feedback/saf_micro_job_german"

# The Hub dataset's licence (config `default`); the XML release is MIT, the license of `upstream_xml` (FORMAT.md).
_LICENSE = "cc-by-4.0"

_REVISION = "30db3effcfc07b638291cfcff248b84dbd8013db"
_HUB_PREFIX = f"https://huggingface.co/datasets/Short-Answer-Feedback/saf_micro_job_german/resolve/{_REVISION}/"
_COMMIT = "09949e912d266777a752ac7d51cfcddb4b3f6978"
_GITHUB_PREFIX = f"https://raw.githubusercontent.com/SebOchs/SAF/{_COMMIT}/"

# Paths relative to the root of the repository each file comes from: the layout a `data_dir` copy mirrors.
_PARQUET = {
    "train": "data/train-00000-of-00001-d7d79904ef6ab584.parquet",
    "validation": "data/validation-00000-of-00001-0da65f8dcc3502f2.parquet",
    "test_unseen_answers": "data/test_unseen_answers-00000-of-00001-1eac04e462a6f413.parquet",
    "test_unseen_questions": "data/test_unseen_questions-00000-of-00001-3c502ac25141f64c.parquet",
}
_XML = {
    "train": [f"data/training/german/{q}.xml" for q in (1, 3, 4, 6, 7, 8)],  # quirk 2, unrecorded-validation
    "test_unseen_answers": [f"data/unseen_answers/german/{q}.xml" for q in (1, 3, 4, 6, 7, 8)],
    "test_unseen_questions": [f"data/unseen_questions/german/{q}.xml" for q in (2, 5)],
}

# --- the fields: each declared once; the features, the Parquet columns and the checks derive from them

_LABELS = ["Correct", "Partially correct", "Incorrect"]
_HUB_ID = re.compile(r"[0-9a-f]{32}")
_QUESTION_ID = re.compile(r"[1-9][0-9]*")


def _question_id(value, where, path, stem):
    """The question's id, the number in its file's name (`stem`)."""
    if not _QUESTION_ID.fullmatch(value) or value != stem:
        raise invalid(where, path, value, f"{stem!r}, the number in the file name")
    return int(value)


def _reference_id(value, where, path, stem):
    """The reference answer's id: `<question id>.a1` (the question id is its file's number)."""
    if value != f"{stem}.a1":
        raise invalid(where, path, value, repr(f"{stem}.a1"))
    return value


_LABEL = "verification_feedback"
_STRING = datasets.Value("string")
_TEXT = string(blank=False)  # kept exactly: quirk 4, line-breaks; quirk 5, edge-spaces
# The published Parquet files' columns (the published card's schema), in their order.
_FIELDS = {
    "id": matching(_HUB_ID, "32 lower-case hex digits (a UUID4 in hex)"),
    "question": _TEXT,
    "reference_answer": _TEXT,
    "provided_answer": _TEXT,
    "answer_feedback": _TEXT,
    _LABEL: label(_LABELS, feature=_STRING),  # a string as published, the one the score implies (_check_label)
    "score": number(0.0, 1.0),
}
# The XML release: the same fields, from the elements and attributes their keys name, and two ids more.
_XML_FIELDS = {
    "id": Field(_STRING),  # quirk 1, no-xml-ids: made from the fold, the question and the position
    "question": string(blank=False, key="questionText"),
    "reference_answer": string(blank=False, key="referenceAnswer"),
    "provided_answer": string(blank=False, key="response"),
    "answer_feedback": string(blank=False, key="response_feedback"),
    _LABEL: _FIELDS[_LABEL],
    "score": number(0.0, 1.0, text=True),  # quirk 3, scores-as-text
    "question_id": Field(datasets.Value("int32"), parse=_question_id, key="question/@id"),
    "reference_answer_id": Field(_STRING, parse=_reference_id, key="referenceAnswer/@id"),
}
# What a file says once (its question and reference answer) and what each answer says, in XML order.
_QUESTION_PART = ("question_id", "question", "reference_answer_id", "reference_answer")
_ANSWER_PART = ("provided_answer", "answer_feedback", "score", _LABEL)
_read_question = reader({name: _XML_FIELDS[name] for name in _QUESTION_PART})
_read_answer = reader({name: _XML_FIELDS[name] for name in _ANSWER_PART})
_ANSWER_ELEMENTS = [_XML_FIELDS[name].source(name) for name in _ANSWER_PART]
# A Parquet row's fields but its id, which is checked first (it names the row in errors).
_read_hub_row = reader({name: field for name, field in _FIELDS.items() if name != "id"})


def _expected_label(score):
    if score == 1.0:
        return "Correct"
    if score == 0.0:
        return "Incorrect"
    return "Partially correct"


def _check_label(example, where):
    """The label is the one the score implies."""
    value, score = example[_LABEL], example["score"]
    expected = _expected_label(score)
    if value != expected:
        raise invalid(where, _LABEL, value, f"{expected!r} for score {score!r}")
    return example


# --- the readers ---------------------------------------------------------------------------------

_BATCH_ROWS = 1024

_PARQUET_MAGIC = b"PAR1"
_XML_DECLARATION = re.compile(rb"<\?xml[^>]*?encoding\s*=\s*[\"']([A-Za-z0-9._-]+)[\"']")
_FORBIDDEN_DECLARATIONS = (b"<!DOCTYPE", b"<!ENTITY")


# --- Parquet (config `default`)


def _count_parquet_rows(config, split, local_paths):
    """Rows of a split, read from the Parquet files' footers."""
    total = 0
    for path, source in zip(local_paths, config.files[split], strict=True):
        with xopen(path, "rb") as f:
            total += _parquet_file(f, source).metadata.num_rows
    return total


def _parquet_file(f, source):
    """The ParquetFile of an open source file, after the checks of its first bytes."""
    head = f.read(512)
    f.seek(0)
    check_is_data(head, source, "a Parquet file")
    if not head.startswith(_PARQUET_MAGIC):
        raise ValueError(f"{source}: not a Parquet file (it starts with {head[:8]!r}, not {_PARQUET_MAGIC!r})")
    try:
        return pyarrow.parquet.ParquetFile(f)
    except (pyarrow.ArrowException, OSError) as error:
        raise _unreadable(source, error) from None


def _unreadable(source, error):
    return ValueError(f"{source}: not a readable Parquet file ({' '.join(str(error).split())})")


def _check_schema(schema, source):
    found = {field.name: field.type for field in schema}
    missing = [name for name in _FIELDS if name not in found]
    extra = [name for name in found if name not in _FIELDS]
    if missing or extra:
        raise ValueError(
            f"{source}: columns {list(found)}; expected {list(_FIELDS)} "
            f"(missing {missing}, unexpected {extra})"
        )
    for name, field in _FIELDS.items():
        actual, expected = found[name], field.feature.pa_type  # string or double
        if actual != expected and not (pyarrow.types.is_string(expected) and pyarrow.types.is_large_string(actual)):
            raise ValueError(f"{source}: column {name!r} has type {actual}; expected {expected}")


def _read_parquet(filepath, source):
    """Yield the typed rows of one published Parquet file, in file order, batch by batch."""
    with xopen(filepath, "rb") as f:
        parquet = _parquet_file(f, source)
        _check_schema(parquet.schema_arrow, source)
        if parquet.metadata.num_rows == 0:  # datasets cannot load an empty split
            raise no_records(source, "rows")
        seen = {}
        index = 0
        batches = parquet.iter_batches(batch_size=_BATCH_ROWS, columns=list(_FIELDS))
        while True:
            try:
                batch = next(batches, None)
            except (pyarrow.ArrowException, OSError) as error:
                raise _unreadable(source, error) from None
            if batch is None:
                break
            for row in batch.to_pylist():
                where = f"{source}, row {index}"
                row_id = _FIELDS["id"].value(row["id"], where, "id")
                if row_id in seen:
                    raise invalid(where, "id", row_id, f"a unique id; row {seen[row_id]} has it too")
                seen[row_id] = index
                where = f"{source}, row {index} (id {row_id})"
                yield _check_label({"id": row_id, **_read_hub_row(row, where)}, where)
                index += 1


# --- XML (config `upstream_xml`)


def _count_xml_answers(config, split, local_paths):
    """Answers of a split, counted as the XML files' `studentAnswer` elements, without typing."""
    total = 0
    for path, source in zip(local_paths, config.files[split], strict=True):
        with xopen(path, "rb") as f:
            root = _parse_xml(f.read(), source)
        total += sum(1 for _ in root.iter("studentAnswer"))
    return total


def _parse_xml(data, source):
    """The root element of one XML file; document type and entity declarations are refused (no entity expansion)."""
    check_is_data(data[:512], source, "an XML file")
    utf8(data, source)
    declared = _XML_DECLARATION.match(data)
    if declared and declared.group(1).lower() not in (b"utf-8", b"utf8"):
        raise ValueError(f"{source}: declares encoding {declared.group(1).decode()!r}; expected 'utf-8'")
    for forbidden in _FORBIDDEN_DECLARATIONS:
        position = data.find(forbidden)
        if position != -1:
            raise ValueError(
                f"{source}: has a {forbidden[2:].decode()} declaration at byte {position}; document types and "
                "entity declarations are refused (only the predefined XML entities are allowed)"
            )
    parser = ET.XMLParser(target=ET.TreeBuilder())
    try:
        parser.feed(data)
        return parser.close()
    except ET.ParseError as error:
        raise ValueError(f"{source}: malformed XML ({error})") from None


def _children(element, names, where):
    """The child elements of `element`, which must be exactly `names` in this order."""
    found = [child.tag for child in element]
    if found != names:
        raise ValueError(f"{where}: <{element.tag}> has children {found}; expected {names}")
    return list(element)


def _no_text(element, where):
    """Container elements hold only indentation, no text."""
    for child in element:
        if child.tail is not None and child.tail.strip():
            raise invalid(where, f"{element.tag} text", child.tail, "only whitespace between elements")
    if element.text is not None and element.text.strip():
        raise invalid(where, f"{element.tag} text", element.text, "only whitespace between elements")


def _attributes(element, names, where):
    if sorted(element.attrib) != sorted(names):
        raise ValueError(f"{where}: <{element.tag}> has attributes {sorted(element.attrib)}; expected {names}")


def _read_xml(filepath, source):
    """Yield the typed answers of one XML file (one question of one fold), in file order."""
    with xopen(filepath, "rb") as f:
        data = f.read()
    root = _parse_xml(data, source)
    del data
    parts = source.split("/")  # data/<fold>/german/<question>.xml
    fold, stem = parts[1], os.path.splitext(parts[-1])[0]
    if root.tag != "question":
        raise ValueError(f"{source}: root element is <{root.tag}>; expected <question>")
    _attributes(root, ["id"], source)
    question_text, references, answers = _children(root, ["questionText", "referenceAnswers", "studentAnswers"], source)
    _no_text(root, source)
    (reference,) = _children(references, ["referenceAnswer"], source)
    _no_text(references, source)
    _attributes(reference, ["id"], source)
    question = _read_question({
        "question/@id": root.get("id"),
        "questionText": _leaf_raw(question_text, source),
        "referenceAnswer/@id": reference.get("id"),
        "referenceAnswer": _leaf_raw(reference, source, attributes=["id"]),
    }, source, stem)
    _attributes(answers, [], source)
    _no_text(answers, source)
    if not len(answers):
        raise no_records(source, "answers (<studentAnswers> is empty)")
    for index, answer in enumerate(answers):
        answer_id = f"{fold}-{question['question_id']}-{index:03d}"  # quirk 1, no-xml-ids
        where = f"{source}, studentAnswer {index} (id {answer_id})"
        if answer.tag != "studentAnswer":
            raise ValueError(f"{where}: <studentAnswers> has a child <{answer.tag}>; expected <studentAnswer>")
        _attributes(answer, [], where)
        elements = _children(answer, _ANSWER_ELEMENTS, where)
        _no_text(answer, where)
        raw = {element.tag: _leaf_raw(element, where) for element in elements}
        yield _check_label({"id": answer_id, **question, **_read_answer(raw, where)}, where)


def _leaf_raw(element, where, attributes=()):
    """The text of a text-only element as it is (`""` if empty); the caller checks the value."""
    _attributes(element, list(attributes), where)
    if len(element):
        raise ValueError(f"{where}: <{element.tag}> has child elements {[c.tag for c in element]}; expected text")
    return element.text or ""


# --- the configs and the builder: official sizes from the Hub card (default) and the XML files' answers (upstream_xml)
@dataclasses.dataclass
class SafConfig(SourceConfig):
    """A config; `read(filepath, source)` yields the typed examples of one of its files."""

    read: object = dataclasses.field(default=None, repr=False)


_VERSION = datasets.Version("1.0.0")
_CONFIGS = [
    SafConfig(
        name="default",
        version=_VERSION,
        description="The published Hub dataset: four Parquet files, one example per answer.",
        features=datasets.Features(features(_FIELDS)),
        files={split: [path] for split, path in _PARQUET.items()},
        url_prefix=_HUB_PREFIX,
        split_sizes={"train": 1226, "validation": 308, "test_unseen_answers": 271, "test_unseen_questions": 602},
        key=("id",),
        license=_LICENSE,
        counter=_count_parquet_rows,
        read=_read_parquet,
    ),
    SafConfig(
        name="upstream_xml",
        version=_VERSION,
        description="The original XML release (GitHub SebOchs/SAF), one example per student answer.",
        features=datasets.Features(features(_XML_FIELDS)),
        files={split: list(paths) for split, paths in _XML.items()},
        url_prefix=_GITHUB_PREFIX,
        split_sizes={"train": 1534, "test_unseen_answers": 271, "test_unseen_questions": 602},
        key=("id",),
        license="mit",  # the LICENSE of SebOchs/SAF
        counter=_count_xml_answers,
        read=_read_xml,
    ),
]


class SafMicroJobGerman(SourceBuilder, datasets.GeneratorBasedBuilder):
    """SAF micro job (German): short answers with reference answers, feedback and scores."""

    VERSION = _VERSION
    RELEASE_NOTES = {"1.0.0": "Initial release."}
    BUILDER_CONFIG_CLASS = SafConfig
    BUILDER_CONFIGS = _CONFIGS
    DEFAULT_CONFIG_NAME = "default"

    def _info(self):
        return datasets.DatasetInfo(
            description=_DESCRIPTION,
            features=self.config.features.copy(),
            homepage=_HOMEPAGE,
            license=self.config.license,
            citation=_CITATION,
        )

    def _split_generators(self, dl_manager):
        local = local_files(self.config.data_dir, dl_manager, self.config.paths, self.config.urls)
        return [
            datasets.SplitGenerator(split, gen_kwargs={"filepaths": [local[p] for p in paths], "sources": list(paths)})
            for split, paths in self.config.files.items()
        ]

    def _generate_examples(self, filepaths, sources):
        for filepath, source in zip(filepaths, sources, strict=True):
            for example in self.config.read(filepath, source):
                yield example["id"], example
