"""Crowd Deliberation: 80 short English texts (40 product reviews to be labelled sarcastic or
not, 40 sentences asking whether a person "lived in" / "died in" a place), 4,165 crowd labels
with confidences, highlighted evidence and answers about expected disagreement, and 418 group
deliberations in which three workers who disagreed discussed, reconsidered and concluded a case.

Source: the three CSV files (data.csv, labels.csv, deliberations.csv) of crowd-deliberation/data,
pinned to its last commit. Everything is text in the files; this builder types every value:
- ids, orders and counts become integers, `True`/`False` booleans, confidences the floats
  0.0 / 0.5 / 1.0, labels, datasets, study parts and the expectation answer ClassLabels;
- JSON cells (EVIDENCE, the "why" answers, the three chat logs) become lists of structs or
  strings; an empty evidence comment becomes None;
- "Yes ..."/"No ..." answers become a struct {answer: bool, explanation: str or None};
  the group-discussion answer of labels.csv a bool;
- the 8 + 3 x 60 + 3 x 66 = 386 columns of deliberations.csv become 8 group fields, a list of
  three member structs, three chat lists and nested readability statistics (per member and
  per message phase) instead of 312 flat statistics columns;
- empty cells become None (never "").
Integrity is checked, not assumed: exact headers, the label vocabulary of each dataset, the
conditional emptiness of the session fields, evidence quotes against the texts, chat authors
against the members, and every member LABEL_ID against labels.csv. Every value outside its
documented domain stops the build with a ValueError naming the file, the line, the column and
the value.
"""

import csv
import io
import logging
import re
import sys

import datasets
from datasets.utils.file_utils import xopen

from ._loader_common import check_start
from ._loader_common import loads
from ._loader_common import local_files
from ._loader_common import show
from ._loader_common import utf8

logger = logging.getLogger(__name__)

_CITATION = """\
@article{schaekermann2018resolvable,
    title = {Resolvable vs. Irresolvable Disagreement: A Study on Worker Deliberation in Crowd Work},
    author = {Mike Schaekermann and Joslin Goh and Kate Larson and Edith Law},
    journal = {Proceedings of the ACM on Human-Computer Interaction},
    volume = {2},
    number = {CSCW},
    articleno = {154},
    year = {2018},
    doi = {10.1145/3274423},
}
"""

_DESCRIPTION = """\
Crowd labels and group deliberations on 80 short English texts (40 product reviews labelled
sarcastic or not, 40 sentences asking whether a person-place relation is expressed): 4,165 labels
with confidence, highlighted evidence and the worker's expected disagreement, and 418 deliberations
in which three workers who disagreed discussed the case in a chat, reconsidered their labels and
explained why the case could or could not be resolved.
"""

_HOMEPAGE = "https://github.com/crowd-deliberation/data"

# LICENSE of the upstream repository: MIT, "Copyright (c) 2017 crowd-deliberation".
_LICENSE = "mit"

_COMMIT = "d36857821c0b2694aa0fe3da3aa514d5b15e7cf6"
_URL_PREFIX = f"https://raw.githubusercontent.com/crowd-deliberation/data/{_COMMIT}/"

_DATA = "data.csv"
_LABELS = "labels.csv"
_DELIBERATIONS = "deliberations.csv"

# Paths relative to the upstream repository root (the layout a `data_dir` copy mirrors).
_URLS = {path: _URL_PREFIX + path for path in (_DATA, _LABELS, _DELIBERATIONS)}

# The files each split reads; the config's own file first. deliberations reads labels.csv to check
# that every member LABEL_ID exists; labels reads data.csv to check evidence quotes against the
# texts and to count the labels whose text is not in data.csv.
_FILES = {
    "deliberations": {"train": [_DELIBERATIONS, _LABELS]},
    "labels": {"train": [_LABELS, _DATA]},
    "texts": {"train": [_DATA]},
}

# No upstream splits: one `train` split per config with every record (upstream README and paper).
_SPLIT_SIZES = {
    "deliberations": {"train": 418},
    "labels": {"train": 4165},
    "texts": {"train": 80},
}

# Natural key of each config's rows (`corpora diff` matches old and new rows by it).
_KEYS = {
    "deliberations": ["deliberation_id"],
    "labels": ["label_id"],
    "texts": ["data_id"],
}

_DATASETS = ["deliberation-sarcasm", "deliberation-relation-person-place"]
_SARCASM_LABELS = ["sarcastic", "not_sarcastic"]
_RELATION_LABELS = ["relation_expressed", "relation_not_expressed"]
_LABEL_NAMES = _SARCASM_LABELS + _RELATION_LABELS
_LABELS_OF = {"deliberation-sarcasm": _SARCASM_LABELS, "deliberation-relation-person-place": _RELATION_LABELS}
# A reconsidered label can also be `irresolvable` (undocumented upstream).
_RECONSIDERED_NAMES = _LABEL_NAMES + ["irresolvable"]
_TEXT_STUDY_PARTS = ["breadth", "breadth and depth"]
_STUDY_PARTS = ["breadth", "depth"]
_EXPECTATIONS = [
    "I expect most people to agree with me.",
    "I expect only about half of the people to agree with me.",
    "I expect most people to disagree with me.",
]
_GROUP_HELPS = {
    "Yes, a group discussion would help to resolve the case.": True,
    "No, a group discussion would not help to resolve the case.": False,
}
# 0 = not sure, 0.5 = sure, 1 = very sure (upstream README).
_CONFIDENCES = {"0": 0.0, "0.5": 0.5, "1": 1.0}
_BOOLEANS = {"True": True, "False": False}
_DISSENTING_COUNTS = (0, 2, 3)
_MEMBER_ORDERS = (1, 2, 3)

# --- headers --------------------------------------------------------------------------------

_DATA_COLUMNS = ["DATASET", "DATA_ID", "STUDY_PART", "TEXT", "GROUND_TRUTH_LABEL"]

_EXPECTATION_QUESTION = "QUESTION_DO_YOU_THINK_OTHER_PEOPLE_MIGHT_CHOOSE_A_DIFFERENT_ANSWER_THAN_YOU_DID"
_WHY_QUESTION = "QUESTION_WHY_DO_YOU_THINK_OTHER_PEOPLE_MIGHT_CHOOSE_A_DIFFERENT_ANSWER"
_ELABORATE_QUESTION = (
    "QUESTION_PLEASE_ELABORATE_ON_YOUR_ANSWER_TO_THE_PREVIOUS_QUESTION_EXPLAINING_WHY_YOU_THINK_OTHER_PEOPLE_MIGHT"
    "_CHOOSE_A_DIFFERENT_ANSWER"
)
_GROUP_QUESTION = (
    "QUESTION_IF_THERE_WERE_OTHER_PEOPLE_WHO_CHOSE_A_DIFFERENT_ANSWER_THAN_YOU_DID_DO_YOU_THINK_A_GROUP_DISCUSSION"
    "_WOULD_HELP_TO_RESOLVE_THE_CASE"
)
_LABEL_COLUMNS = [
    "DATA_ID",
    "DATASET",
    "ANNOTATOR_ID",
    "STUDY_PART",
    "ORDER",
    "LABEL_ID",
    "ORIGINAL_LABEL",
    "ORIGINAL_CONFIDENCE",
    "EVIDENCE",
    _EXPECTATION_QUESTION,
    _WHY_QUESTION,
    _ELABORATE_QUESTION,
    _GROUP_QUESTION,
    "DELIBERATION_ID",
]

_GROUP_COLUMNS = [
    "DELIBERATION_ID",
    "DATA_ID",
    "STUDY_PART",
    "WAS_RESOLVED",
    "NUM_DISSENTING_OPINIONS_DISCUSSED",
    "NUM_DISSENTING_OPINIONS_RECONSIDERED",
    "NUM_DISSENTING_OPINIONS_DISCUSSED_AND_RECONSIDERED",
    "NUM_DISSENTING_OPINIONS_DISCUSSED_RECONSIDERED_AND_CONCLUDED",
]
# The 13 readability statistics, in column order; True = written as an integer.
_STATISTICS = {
    "CHAR_COUNT": True,
    "SYLLABLE_COUNT": False,
    "LEXICON_COUNT": True,
    "SENTENCE_COUNT": True,
    "FLESCH_READING_EASE": False,
    "SMOG_INDEX": False,
    "FLESCH_KINCAID_GRADE": False,
    "COLEMAN_LIAU_INDEX": False,
    "AUTOMATED_READABILITY_INDEX": False,
    "DALE_CHALL_READABILITY_SCORE": False,
    "DIFFICULT_WORDS": True,
    "LINSEAR_WRITE_FORMULA": False,
    "GUNNING_FOG": False,
}
# Message phases (column prefixes) in column order: session 1, session 2, all messages.
_PHASES = ["MESSAGES_DISCUSS", "MESSAGES_RECONSIDER", "MESSAGES"]
# Group statistics columns B_S, B_S_MIN, ...: the empty suffix becomes `value`.
_AGGREGATES = {"": "value", "_MIN": "min", "_MAX": "max", "_MEDIAN": "median", "_MEAN": "mean"}

_DOUBT_QUESTION = "QUESTION_DID_SOMEBODY_MAKE_YOU_DOUBT_YOUR_ORIGINAL_ANSWER_WHY_OR_WHY_NOT"
_CHANGE_QUESTION = "QUESTION_DID_SOMEBODY_MAKE_YOU_CHANGE_YOUR_ORIGINAL_ANSWER_WHY_OR_WHY_NOT"
_CONVINCE_QUESTION = (
    "QUESTION_DID_YOU_MANAGE_TO_CONVINCE_SOMEONE_TO_CHANGE_THEIR_ANSWER_OR_CONFIDENCE_LEVEL_WHY_DO_YOU_THINK_YOU"
    "_WERE_ABLEUNABLE_TO_CONVINCE_THEM"
)
_BASED_ON_QUESTION = (
    "QUESTION_BASED_ON_YOUR_DELIBERATION_WHY_DO_YOU_THINK_THE_OTHER_PEOPLE_IN_THE_GROUP_CHOSE_A_DIFFERENT_ANSWER"
)
_REVISE_QUESTION = (
    "QUESTION_PLEASE_ELABORATE_ON_YOUR_ANSWER_TO_THE_PREVIOUS_QUESTION_FOR_EXAMPLE_IF_YOU_CHANGED_YOUR_MIND_ABOUT"
    "_THE_SOURCE_OF_DISAGREEMENT_PLEASE_EXPLAIN_WHY"
)
_RESOLVED_QUESTION = "QUESTION_WHY_DO_YOU_THINK_THIS_CASE_COULD_BE_RESOLVED"
_UNRESOLVED_QUESTION = "QUESTION_WHY_DO_YOU_THINK_THIS_CASE_COULD_NOT_BE_FULLY_RESOLVED"
_PROCESS_QUESTION = "QUESTION_DESCRIBE_HOW_YOU_FEEL_ABOUT_THE_DELIBERATION_PROCESS"
_OUTCOME_QUESTION = "QUESTION_DESCRIBE_HOW_YOU_FEEL_ABOUT_THE_DELIBERATION_OUTCOME"
_MEMBER_SUFFIXES = [
    "USER_ID",
    "NAME",
    "LABEL_ID",
    "ORIGINAL_LABEL",
    "ORIGINAL_CONFIDENCE",
    "DID_DISCUSS",
    "DISCUSS_ORDER",
    "DID_RECONSIDER",
    "RECONSIDER_ORDER",
    "RECONSIDERED_LABEL",
    "RECONSIDERED_CONFIDENCE",
    _BASED_ON_QUESTION,
    _REVISE_QUESTION,
    "DID_CONCLUDE",
    _RESOLVED_QUESTION,
    _UNRESOLVED_QUESTION,
    _DOUBT_QUESTION,
    _CHANGE_QUESTION,
    _CONVINCE_QUESTION,
    _PROCESS_QUESTION,
    _OUTCOME_QUESTION,
] + [f"{phase}_{statistic}" for phase in _PHASES for statistic in _STATISTICS]
_MEMBERS = 3
_DELIBERATION_COLUMNS = (
    _GROUP_COLUMNS
    + [f"MEMBER_{member}_{suffix}" for member in range(1, _MEMBERS + 1) for suffix in _MEMBER_SUFFIXES]
    + [
        column
        for phase in _PHASES
        for column in [phase]
        + [f"{phase}_{statistic}{suffix}" for statistic in _STATISTICS for suffix in _AGGREGATES]
    ]
)
_HEADERS = {_DATA: _DATA_COLUMNS, _LABELS: _LABEL_COLUMNS, _DELIBERATIONS: _DELIBERATION_COLUMNS}

_EVIDENCE_KEYS = ["comment", "start", "end", "quote"]
_MESSAGE_KEYS = ["content", "user_pseudonym", "user_id"]

_ID = re.compile(r"0|[1-9][0-9]*")
_INTEGER = re.compile(r"-?(0|[1-9][0-9]*)")
_DECIMAL = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?")
_YES_NO = re.compile(r"(Yes|No)(?: (.*))?", re.DOTALL)
_INT32_MAX = 2**31 - 1


# --- features -------------------------------------------------------------------------------


def _name(column):
    return column.lower()


def _label_features():
    return datasets.ClassLabel(names=_LABEL_NAMES)


def _statistic_value(integer):
    return datasets.Value("int32" if integer else "float64")


def _member_statistics_features():
    return {
        _name(phase): {_name(statistic): _statistic_value(integer) for statistic, integer in _STATISTICS.items()}
        for phase in _PHASES
    }


def _group_statistics_features():
    def aggregates(integer):
        # The median of integer statistics can end in .5 and the mean is a fraction.
        return {
            name: _statistic_value(integer and name not in ("median", "mean")) for name in _AGGREGATES.values()
        }

    return {
        _name(phase): {_name(statistic): aggregates(integer) for statistic, integer in _STATISTICS.items()}
        for phase in _PHASES
    }


def _yes_no_features():
    return {"answer": datasets.Value("bool"), "explanation": datasets.Value("string")}


def _message_features():
    return {
        "user_id": datasets.Value("int32"),
        "user_pseudonym": datasets.Value("string"),
        "content": datasets.Value("string"),
    }


def _features(config_name):
    # Python lists, not datasets.Sequence: the same feature types and card YAML on datasets 3.6 and 5.x.
    if config_name == "texts":
        return datasets.Features(
            {
                "dataset": datasets.ClassLabel(names=_DATASETS),
                "data_id": datasets.Value("int32"),
                "study_part": datasets.ClassLabel(names=_TEXT_STUDY_PARTS),
                "text": datasets.Value("string"),
                "ground_truth_label": _label_features(),
            }
        )
    if config_name == "labels":
        return datasets.Features(
            {
                "data_id": datasets.Value("int32"),
                "dataset": datasets.ClassLabel(names=_DATASETS),
                "annotator_id": datasets.Value("int32"),
                "study_part": datasets.ClassLabel(names=_STUDY_PARTS),
                "order": datasets.Value("int32"),
                "label_id": datasets.Value("int32"),
                "original_label": _label_features(),
                "original_confidence": datasets.Value("float32"),
                "evidence": [
                    {
                        "start": datasets.Value("int32"),
                        "end": datasets.Value("int32"),
                        "quote": datasets.Value("string"),
                        "comment": datasets.Value("string"),
                    }
                ],
                _name(_EXPECTATION_QUESTION): datasets.ClassLabel(names=_EXPECTATIONS),
                _name(_WHY_QUESTION): [datasets.Value("string")],
                _name(_ELABORATE_QUESTION): datasets.Value("string"),
                _name(_GROUP_QUESTION): datasets.Value("bool"),
                "deliberation_id": datasets.Value("int32"),
            }
        )
    member = {
        "user_id": datasets.Value("int32"),
        "name": datasets.Value("string"),
        "label_id": datasets.Value("int32"),
        "original_label": _label_features(),
        "original_confidence": datasets.Value("float32"),
        "did_discuss": datasets.Value("bool"),
        "discuss_order": datasets.Value("int32"),
        "did_reconsider": datasets.Value("bool"),
        "reconsider_order": datasets.Value("int32"),
        "reconsidered_label": datasets.ClassLabel(names=_RECONSIDERED_NAMES),
        "reconsidered_confidence": datasets.Value("float32"),
        _name(_BASED_ON_QUESTION): [datasets.Value("string")],
        _name(_REVISE_QUESTION): datasets.Value("string"),
        "did_conclude": datasets.Value("bool"),
        _name(_RESOLVED_QUESTION): datasets.Value("string"),
        _name(_UNRESOLVED_QUESTION): datasets.Value("string"),
        _name(_DOUBT_QUESTION): _yes_no_features(),
        _name(_CHANGE_QUESTION): _yes_no_features(),
        _name(_CONVINCE_QUESTION): _yes_no_features(),
        _name(_PROCESS_QUESTION): datasets.Value("string"),
        _name(_OUTCOME_QUESTION): datasets.Value("string"),
        "statistics": _member_statistics_features(),
    }
    features = {
        "deliberation_id": datasets.Value("int32"),
        "data_id": datasets.Value("int32"),
        "study_part": datasets.ClassLabel(names=_STUDY_PARTS),
        "was_resolved": datasets.Value("bool"),
    }
    features.update({_name(column): datasets.Value("int32") for column in _GROUP_COLUMNS[4:]})
    features["members"] = [member]
    features.update({_name(phase): [_message_features()] for phase in _PHASES})
    features["statistics"] = _group_statistics_features()
    return datasets.Features(features)


# --- builder --------------------------------------------------------------------------------


class CrowdDeliberation(datasets.GeneratorBasedBuilder):
    """Crowd labels on sarcasm and relation texts, and group deliberations on disagreements."""

    VERSION = datasets.Version("1.0.0")
    BUILDER_CONFIGS = [
        datasets.BuilderConfig(
            name="deliberations",
            version=VERSION,
            description=(
                "One example per group deliberation: three member structs, three chat logs, readability statistics."
            ),
        ),
        datasets.BuilderConfig(
            name="labels",
            version=VERSION,
            description="One example per crowd label, with its evidence and the worker's expected disagreement.",
        ),
        datasets.BuilderConfig(
            name="texts",
            version=VERSION,
            description="One example per text shown to the workers, with the ground truth where known.",
        ),
    ]
    DEFAULT_CONFIG_NAME = "deliberations"

    def _info(self):
        return datasets.DatasetInfo(
            description=_DESCRIPTION,
            features=_features(self.config.name),
            homepage=_HOMEPAGE,
            license=_LICENSE,
            citation=_CITATION,
        )

    def _split_generators(self, dl_manager):
        splits = _FILES[self.config.name]
        paths = list(dict.fromkeys(path for files in splits.values() for path in files))
        local = local_files(self.config.data_dir, dl_manager, paths, _URLS)
        return [
            datasets.SplitGenerator(
                name=split,
                # Tuples, not lists: datasets would take lists for shards of one split.
                gen_kwargs={"filepaths": tuple(local[path] for path in files), "sources": tuple(files)},
            )
            for split, files in splits.items()
        ]

    def _generate_examples(self, filepaths, sources):
        if self.config.name == "texts":
            for _, text in _read_texts(filepaths[0], sources[0]):
                yield str(text["data_id"]), text
        elif self.config.name == "labels":
            texts = {text["data_id"]: text for _, text in _read_texts(filepaths[1], sources[1])}
            without_text = {}  # DATA_ID -> labels
            for _, label in _read_labels(filepaths[0], sources[0], texts):
                if label["data_id"] not in texts:
                    without_text[label["data_id"]] = without_text.get(label["data_id"], 0) + 1
                yield str(label["label_id"]), label
            # Upstream's README says labels.csv covers the texts of data.csv; it also labels others
            # (192 labels on 60 DATA_IDs in the release). They are kept, and counted here.
            if without_text:
                logger.info(
                    "%s: %d labels on %d DATA_IDs that have no text in %s (kept): %s",
                    sources[0],
                    sum(without_text.values()),
                    len(without_text),
                    sources[1],
                    sorted(without_text),
                )
        else:
            label_ids = {label["label_id"] for _, label in _read_labels(filepaths[1], sources[1], None)}
            for _, deliberation in _read_deliberations(filepaths[0], sources[0], label_ids):
                yield str(deliberation["deliberation_id"]), deliberation


def _count_source_records(config_name, split_name, local_paths):
    """CSV records of the config's own file (the first path), header excluded. Counted by the same
    CSV reader as the examples (`_records`: the checks of the file's start, its header and each
    record's number of cells) but without typing a single cell: a record that the typing lost
    or doubled would show."""
    source = _FILES[config_name][split_name][0]
    return sum(1 for _ in _records(local_paths[0], source))


# --- reading --------------------------------------------------------------------------------


def _read_text(filepath, source):
    """The whole file (at most 1.8 MB) as text, after the checks that name what it really is."""
    with xopen(filepath, "rb") as f:
        data = f.read()
    if not data:
        raise ValueError(f"{source}: empty file (expected a CSV header and records)")
    check_start(data, source)
    return utf8(data, source)


def _records(filepath, source):
    """Yield (line, {column: cell}) for every CSV record after checking the header exactly.

    `line` is the physical line the record starts on. csv handles quoted cells with doubled
    quotes and newlines; strict mode makes malformed quoting an error.
    """
    expected = _HEADERS[source]
    csv.field_size_limit(_FIELD_SIZE_LIMIT)
    reader = csv.reader(io.StringIO(_read_text(filepath, source), newline=""), strict=True)
    line = 1
    try:
        header = next(reader)
        _check_header(header, expected, source)
        for row in reader:
            start, line = line + 1, reader.line_num
            if len(row) != len(expected):
                raise ValueError(
                    f"{source}, line {start}: {len(row)} cells, expected {len(expected)} (the header's columns)"
                )
            yield start, dict(zip(expected, row, strict=True))
    except csv.Error as error:
        raise ValueError(f"{source}, line {reader.line_num}: malformed CSV ({error})") from None


def _largest_field_size_limit():
    """The csv module refuses cells over 128 KiB by default; here a cell is limited only by memory
    (the largest limit the platform's C long takes: sys.maxsize, or less where a long is 32 bits)."""
    limit = sys.maxsize
    while True:
        try:
            csv.field_size_limit(limit)
            return limit
        except OverflowError:
            limit //= 2


_FIELD_SIZE_LIMIT = _largest_field_size_limit()


def _check_header(header, expected, source):
    if header == expected:
        return
    missing = [column for column in expected if column not in header]
    unexpected = [column for column in header if column not in expected]
    if len(header) == 1 and (";" in header[0] or "\t" in header[0]):
        hint = " (not comma-separated?)"
    else:
        hint = ""
    if missing or unexpected:
        raise ValueError(
            f"{source}: unexpected header{hint}: {len(header)} columns, expected {len(expected)}; "
            f"missing {_show_columns(missing)}, unexpected {_show_columns(unexpected)}"
        )
    # Same names, other order or a repeated column: name the first position that differs.
    position = next(
        (i for i, (a, b) in enumerate(zip(header, expected, strict=False)) if a != b), len(expected)
    )
    wanted = repr(expected[position]) if position < len(expected) else "no further column"
    raise ValueError(
        f"{source}: unexpected header: column {position + 1} is {header[position]!r}, expected "
        f"{wanted} (columns out of order or repeated)"
    )


def _show_columns(columns):
    """At most 5 column names, each cut to a readable length."""
    shown = ", ".join(show(column) for column in columns[:5])
    return "[" + shown + (f", ... ({len(columns)} in all)]" if len(columns) > 5 else "]")


class _Row:
    """One record's cells, with parsers whose errors name the file, line, column and value."""

    def __init__(self, source, line, cells):
        self.where = f"{source}, line {line}"
        self.cells = cells

    def invalid(self, column, value, expected):
        return ValueError(f"{self.where}, column {column}: invalid value {show(value)} (expected {expected})")

    def empty(self, column):
        return self.cells[column] == ""

    def string(self, column, nullable=False):
        value = self.cells[column]
        if value == "":
            if nullable:
                return None
            raise self.invalid(column, value, "a non-empty text")
        return value

    def integer(self, column, domain=None, nullable=False):
        """A non-negative int32 from its decimal digits (an id, an order, a count)."""
        value = self.cells[column]
        if value == "" and nullable:
            return None
        if _ID.fullmatch(value) and len(value) <= 10 and int(value) <= _INT32_MAX:
            number = int(value)
            if domain is None or number in domain:
                return number
        if domain is None:
            expected = "a non-negative integer below 2**31"
        else:
            expected = "one of " + ", ".join(str(n) for n in domain)
        raise self.invalid(column, value, expected + (" or empty" if nullable else ""))

    def choice(self, column, names, nullable=False):
        value = self.cells[column]
        if value == "" and nullable:
            return None
        if value in names:
            return value
        raise self.invalid(column, value, " or ".join(repr(n) for n in names) + (" or empty" if nullable else ""))

    def boolean(self, column):
        value = self.cells[column]
        if value in _BOOLEANS:
            return _BOOLEANS[value]
        raise self.invalid(column, value, "'True' or 'False'")

    def confidence(self, column, nullable=False):
        value = self.cells[column]
        if value == "" and nullable:
            return None
        if value in _CONFIDENCES:
            return _CONFIDENCES[value]
        raise self.invalid(column, value, "'0', '0.5' or '1'" + (" or empty" if nullable else ""))

    def json(self, column):
        value = self.cells[column]
        try:
            return loads(value, f"{self.where}, column {column}")
        except ValueError as error:  # the cell's value follows a JSON syntax error
            if str(error).startswith(f"{self.where}, column {column}: invalid JSON ("):
                raise ValueError(f"{error}: {show(value)}") from None
            raise

    def strings(self, column, nullable=False):
        """A JSON list of strings (the "why" answers); None for an empty cell."""
        if self.cells[column] == "" and nullable:
            return None
        value = self.json(column)
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise self.invalid(column, self.cells[column], "a JSON list of strings")
        return value

    def yes_no(self, column):
        """'Yes ...' / 'No ...' -> {answer, explanation}; an empty cell -> None."""
        value = self.cells[column]
        if value == "":
            return None
        match = _YES_NO.fullmatch(value)
        if match is None:
            raise self.invalid(column, value, "a text starting with 'Yes' or 'No'")
        return {"answer": match.group(1) == "Yes", "explanation": match.group(2) or None}

    def number(self, column, integer):
        value = self.cells[column]
        if integer and _INTEGER.fullmatch(value) and len(value) <= 11 and -_INT32_MAX <= int(value) <= _INT32_MAX:
            return int(value)
        if not integer and _DECIMAL.fullmatch(value):
            return float(value)
        raise self.invalid(column, value, "an int32 integer" if integer else "a decimal number")

    def statistics(self, columns):
        """{name: column} -> {name: number}, or None if every cell is empty (nothing written)."""
        empty = [self.empty(column) for column, _ in columns.values()]
        if all(empty):
            return None
        if any(empty):
            first = next(column for (column, _), is_empty in zip(columns.values(), empty, strict=True) if is_empty)
            raise self.invalid(first, "", "a number: the other statistics of this group are filled")
        return {name: self.number(column, integer) for name, (column, integer) in columns.items()}


def _unique(seen, value, row, column):
    if value in seen:
        raise row.invalid(column, str(value), f"a unique {column}; already on line {seen[value]}")
    seen[value] = row.where.rsplit(" ", 1)[1]


# --- data.csv -------------------------------------------------------------------------------


def _read_texts(filepath, source):
    seen = {}
    count = 0
    for line, cells in _records(filepath, source):
        row = _Row(source, line, cells)
        dataset = row.choice("DATASET", _DATASETS)
        text = {
            "dataset": dataset,
            "data_id": row.integer("DATA_ID"),
            "study_part": row.choice("STUDY_PART", _TEXT_STUDY_PARTS),
            "text": row.string("TEXT"),
            "ground_truth_label": row.choice("GROUND_TRUTH_LABEL", _LABELS_OF[dataset], nullable=True),
        }
        _unique(seen, text["data_id"], row, "DATA_ID")
        count += 1
        yield line, text
    if count == 0:  # datasets cannot load an empty split
        raise ValueError(f"{source}: no records after the header")


# --- labels.csv -----------------------------------------------------------------------------


def _read_labels(filepath, source, texts):
    """Typed labels. With `texts` ({data_id: text}), evidence quotes and datasets are checked
    against data.csv for the labels whose text is there."""
    seen = {}
    count = 0
    for line, cells in _records(filepath, source):
        row = _Row(source, line, cells)
        dataset = row.choice("DATASET", _DATASETS)
        data_id = row.integer("DATA_ID")
        text = texts.get(data_id) if texts is not None else None
        if text is not None and text["dataset"] != dataset:
            raise row.invalid("DATASET", dataset, f"{text['dataset']!r}, the DATASET of DATA_ID {data_id} in data.csv")
        expectation = row.choice(_EXPECTATION_QUESTION, _EXPECTATIONS, nullable=True)
        label = {
            "data_id": data_id,
            "dataset": dataset,
            "annotator_id": row.integer("ANNOTATOR_ID"),
            "study_part": row.choice("STUDY_PART", _STUDY_PARTS),
            "order": row.integer("ORDER"),
            "label_id": row.integer("LABEL_ID"),
            "original_label": row.choice("ORIGINAL_LABEL", _LABELS_OF[dataset]),
            "original_confidence": row.confidence("ORIGINAL_CONFIDENCE"),
            "evidence": _evidence(row, text),
            _name(_EXPECTATION_QUESTION): expectation,
            _name(_WHY_QUESTION): row.strings(_WHY_QUESTION, nullable=True),
            _name(_ELABORATE_QUESTION): row.string(_ELABORATE_QUESTION, nullable=True),
            _name(_GROUP_QUESTION): _group_helps(row),
            "deliberation_id": row.integer("DELIBERATION_ID", nullable=True),
        }
        # The follow-up questions were asked exactly when the worker expected disagreement.
        asked = expectation is not None and expectation != _EXPECTATIONS[0]
        for column in (_WHY_QUESTION, _ELABORATE_QUESTION, _GROUP_QUESTION):
            if row.empty(column) == asked:
                state = "filled" if asked else "empty"
                raise row.invalid(
                    column, cells[column], f"{state}: {_EXPECTATION_QUESTION} is {show(cells[_EXPECTATION_QUESTION])}"
                )
        _unique(seen, label["label_id"], row, "LABEL_ID")
        count += 1
        yield line, label
    if count == 0:
        raise ValueError(f"{source}: no records after the header")


def _group_helps(row):
    value = row.cells[_GROUP_QUESTION]
    if value == "":
        return None
    if value in _GROUP_HELPS:
        return _GROUP_HELPS[value]
    raise row.invalid(_GROUP_QUESTION, value, " or ".join(repr(answer) for answer in _GROUP_HELPS) + " or empty")


def _evidence(row, text):
    items = row.json("EVIDENCE")
    if not isinstance(items, list):
        raise row.invalid("EVIDENCE", row.cells["EVIDENCE"], "a JSON list of objects")
    evidence = []
    for index, item in enumerate(items):
        where = f"{row.where}, column EVIDENCE, item {index}"
        if not isinstance(item, dict) or sorted(item) != sorted(_EVIDENCE_KEYS):
            raise ValueError(f"{where}: expected an object with the keys {_EVIDENCE_KEYS}, got {show(item)}")
        start, end, quote, comment = item["start"], item["end"], item["quote"], item["comment"]
        for key, value in (("start", start), ("end", end)):
            if type(value) is not int or not 0 <= value <= _INT32_MAX:
                raise ValueError(
                    f"{where}: key {key!r}: invalid value {show(value)} (expected a non-negative integer)"
                )
        if end < start:
            raise ValueError(f"{where}: end {end} is before start {start}")
        for key, value in (("quote", quote), ("comment", comment)):
            if not isinstance(value, str):
                raise ValueError(f"{where}: key {key!r}: invalid value {show(value)} (expected a string)")
        if text is not None and text["text"][start:end] != quote:
            raise ValueError(
                f"{where}: quote {show(quote)} is not the text of DATA_ID {text['data_id']} from {start} to {end} "
                f"({show(text['text'][start:end])})"
            )
        evidence.append({"start": start, "end": end, "quote": quote, "comment": comment or None})
    return evidence


# --- deliberations.csv ----------------------------------------------------------------------


def _read_deliberations(filepath, source, label_ids):
    seen = {}
    count = 0
    for line, cells in _records(filepath, source):
        row = _Row(source, line, cells)
        deliberation = {
            "deliberation_id": row.integer("DELIBERATION_ID"),
            "data_id": row.integer("DATA_ID"),
            "study_part": row.choice("STUDY_PART", _STUDY_PARTS),
            "was_resolved": row.boolean("WAS_RESOLVED"),
        }
        for column in _GROUP_COLUMNS[4:]:
            deliberation[_name(column)] = row.integer(column, _DISSENTING_COUNTS)
        members = [_member(row, f"MEMBER_{number}_", label_ids) for number in range(1, _MEMBERS + 1)]
        deliberation["members"] = members
        names = {member["user_id"]: member["name"] for member in members}
        for phase in _PHASES:
            deliberation[_name(phase)] = _messages(row, phase, names)
        deliberation["statistics"] = {
            _name(phase): _group_statistics(row, phase, deliberation[_name(phase)]) for phase in _PHASES
        }
        _unique(seen, deliberation["deliberation_id"], row, "DELIBERATION_ID")
        count += 1
        yield line, deliberation
    if count == 0:
        raise ValueError(f"{source}: no records after the header")


def _member(row, prefix, label_ids):
    def column(suffix):
        return prefix + suffix

    label_id = row.integer(column("LABEL_ID"))
    if label_id not in label_ids:
        raise row.invalid(column("LABEL_ID"), str(label_id), "a LABEL_ID of labels.csv")
    did_discuss = row.boolean(column("DID_DISCUSS"))
    did_reconsider = row.boolean(column("DID_RECONSIDER"))
    did_conclude = row.boolean(column("DID_CONCLUDE"))
    # Each session's answers are filled exactly when the member took part in that session.
    sessions = {
        "DID_DISCUSS": (did_discuss, ["DISCUSS_ORDER"]),
        "DID_RECONSIDER": (
            did_reconsider,
            ["RECONSIDER_ORDER", "RECONSIDERED_LABEL", "RECONSIDERED_CONFIDENCE", _BASED_ON_QUESTION, _REVISE_QUESTION],
        ),
        "DID_CONCLUDE": (
            did_conclude,
            [_DOUBT_QUESTION, _CHANGE_QUESTION, _CONVINCE_QUESTION, _PROCESS_QUESTION, _OUTCOME_QUESTION],
        ),
    }
    for flag, (took_part, suffixes) in sessions.items():
        for suffix in suffixes:
            if row.empty(column(suffix)) == took_part:
                state = "filled" if took_part else "empty"
                raise row.invalid(column(suffix), row.cells[column(suffix)], f"{state}: {column(flag)} is {took_part}")
    # A concluding member answered exactly one of the two "why (not) resolved" questions.
    answered = [not row.empty(column(suffix)) for suffix in (_RESOLVED_QUESTION, _UNRESOLVED_QUESTION)]
    if sum(answered) != (1 if did_conclude else 0):
        raise row.invalid(
            column(_RESOLVED_QUESTION),
            row.cells[column(_RESOLVED_QUESTION)],
            (
                f"exactly one of {_RESOLVED_QUESTION} and {_UNRESOLVED_QUESTION} filled"
                if did_conclude
                else "both empty"
            )
            + f": {column('DID_CONCLUDE')} is {did_conclude}",
        )
    return {
        "user_id": row.integer(column("USER_ID")),
        "name": row.string(column("NAME")),
        "label_id": label_id,
        "original_label": row.choice(column("ORIGINAL_LABEL"), _LABEL_NAMES),
        "original_confidence": row.confidence(column("ORIGINAL_CONFIDENCE")),
        "did_discuss": did_discuss,
        "discuss_order": row.integer(column("DISCUSS_ORDER"), _MEMBER_ORDERS, nullable=True),
        "did_reconsider": did_reconsider,
        "reconsider_order": row.integer(column("RECONSIDER_ORDER"), _MEMBER_ORDERS, nullable=True),
        "reconsidered_label": row.choice(column("RECONSIDERED_LABEL"), _RECONSIDERED_NAMES, nullable=True),
        "reconsidered_confidence": row.confidence(column("RECONSIDERED_CONFIDENCE"), nullable=True),
        _name(_BASED_ON_QUESTION): row.strings(column(_BASED_ON_QUESTION), nullable=True),
        _name(_REVISE_QUESTION): row.string(column(_REVISE_QUESTION), nullable=True),
        "did_conclude": did_conclude,
        _name(_RESOLVED_QUESTION): row.string(column(_RESOLVED_QUESTION), nullable=True),
        _name(_UNRESOLVED_QUESTION): row.string(column(_UNRESOLVED_QUESTION), nullable=True),
        _name(_DOUBT_QUESTION): row.yes_no(column(_DOUBT_QUESTION)),
        _name(_CHANGE_QUESTION): row.yes_no(column(_CHANGE_QUESTION)),
        _name(_CONVINCE_QUESTION): row.yes_no(column(_CONVINCE_QUESTION)),
        _name(_PROCESS_QUESTION): row.string(column(_PROCESS_QUESTION), nullable=True),
        _name(_OUTCOME_QUESTION): row.string(column(_OUTCOME_QUESTION), nullable=True),
        "statistics": {
            _name(phase): row.statistics(
                {
                    _name(statistic): (f"{prefix}{phase}_{statistic}", integer)
                    for statistic, integer in _STATISTICS.items()
                }
            )
            for phase in _PHASES
        },
    }


def _messages(row, phase, names):
    items = row.json(phase)
    if not isinstance(items, list):
        raise row.invalid(phase, row.cells[phase], "a JSON list of messages")
    messages = []
    for index, item in enumerate(items):
        where = f"{row.where}, column {phase}, message {index}"
        if not isinstance(item, dict) or sorted(item) != sorted(_MESSAGE_KEYS):
            raise ValueError(f"{where}: expected an object with the keys {_MESSAGE_KEYS}, got {show(item)}")
        user_id, pseudonym, content = item["user_id"], item["user_pseudonym"], item["content"]
        if type(user_id) is not int or user_id not in names:
            raise ValueError(
                f"{where}: key 'user_id': invalid value {show(user_id)} (expected the USER_ID of a member: "
                f"{sorted(names)})"
            )
        if pseudonym != names[user_id]:
            raise ValueError(
                f"{where}: key 'user_pseudonym': invalid value {show(pseudonym)} (expected {names[user_id]!r}, "
                f"the NAME of member {user_id})"
            )
        if not isinstance(content, str):
            raise ValueError(f"{where}: key 'content': invalid value {show(content)} (expected a string)")
        messages.append({"user_id": user_id, "user_pseudonym": pseudonym, "content": content})
    return messages


def _group_statistics(row, phase, messages):
    statistics = {}
    for statistic, integer in _STATISTICS.items():
        columns = {
            name: (f"{phase}_{statistic}{suffix}", integer and name not in ("median", "mean"))
            for suffix, name in _AGGREGATES.items()
        }
        statistics[_name(statistic)] = row.statistics(columns)
    filled = [value is not None for value in statistics.values()]
    if any(filled) and not all(filled):
        empty = next(s for s, value in statistics.items() if value is None)
        raise row.invalid(f"{phase}_{empty.upper()}", "", "a number: the other statistics of this phase are filled")
    # Statistics are empty exactly when the phase has no messages.
    if all(filled) != bool(messages):
        state = "empty" if not messages else "filled"
        raise row.invalid(
            f"{phase}_CHAR_COUNT", row.cells[f"{phase}_CHAR_COUNT"], f"{state}: {phase} has {len(messages)} messages"
        )
    return statistics if messages else None
