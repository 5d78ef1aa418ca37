"""Crowd Deliberation: 80 short English texts (40 product reviews to be labelled sarcastic or
not, 40 sentences asking whether a person "lived in" / "died in" a place), 4,165 crowd labels
with confidences, highlighted evidence and answers about expected disagreement, and 418 group
deliberations in which three workers who disagreed discussed, reconsidered and concluded a case.

Source: the three CSV files (data.csv, labels.csv, deliberations.csv) of crowd-deliberation/data,
pinned to its last commit. Every value is typed: ids, orders and counts become integers, labels,
datasets, study parts and the expectation answer ClassLabels, confidences the floats 0.0 / 0.5 /
1.0; JSON cells (EVIDENCE, the "why" answers, the chat logs) lists of structs or strings;
"Yes ..."/"No ..." answers a struct {answer, explanation}, the group-discussion answer a bool;
empty cells and empty evidence comments None (never ""). The 8 + 3 x 60 + 3 x 66 = 386 columns of
deliberations.csv become 8 group fields, three member structs, three chat lists and nested
readability statistics.

Integrity is checked, not assumed: exact headers, the label vocabulary of each dataset, the
conditional emptiness of the session fields, evidence quotes against the texts, chat authors
against the members, and every member LABEL_ID against labels.csv. Every value outside its
documented domain stops the build with a ValueError naming the file, the line, the field (the
column, and the path inside a JSON cell) and the value. Reading the CSV files and typing a
record's cells by a table of fields is `_csv_cells.py`, beside this file.
"""

import copy
import logging
import re

import datasets

from corpora.loader_shared.builder_base import SourceBuilder
from corpora.loader_shared.builder_base import SourceConfig
from corpora.loader_shared.fields import EMPTY
from corpora.loader_shared.fields import INT32
from corpora.loader_shared.fields import INVALID
from corpora.loader_shared.fields import Field
from corpora.loader_shared.fields import checked
from corpora.loader_shared.fields import features
from corpora.loader_shared.fields import integer
from corpora.loader_shared.fields import keys
from corpora.loader_shared.fields import label
from corpora.loader_shared.fields import mapping
from corpora.loader_shared.fields import number
from corpora.loader_shared.fields import reader
from corpora.loader_shared.fields import string
from corpora.loader_shared.loader_common import field_path
from corpora.loader_shared.loader_common import invalid
from corpora.loader_shared.loader_common import show
from corpora.loader_shared.strict_json import check_fields
from corpora.loader_shared.strict_json import loads

from ._csv_cells import records
from ._csv_cells import rows

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

# No upstream splits: one `train` split per config with every record (upstream README and paper).
# Each split reads the config's own file first: deliberations also reads labels.csv to check that
# every member LABEL_ID exists; labels reads data.csv to check evidence quotes against the texts
# and to count the labels whose text is not in data.csv.
_VERSION = datasets.Version("1.0.0")
_CONFIGS = [
    SourceConfig(
        name="deliberations",
        version=_VERSION,
        description=(
            "One example per group deliberation: three member structs, three chat logs, readability statistics."
        ),
        files={"train": [_DELIBERATIONS, _LABELS]},
        split_sizes={"train": 418},
        key=("deliberation_id",),
    ),
    SourceConfig(
        name="labels",
        version=_VERSION,
        description="One example per crowd label, with its evidence and the worker's expected disagreement.",
        files={"train": [_LABELS, _DATA]},
        split_sizes={"train": 4165},
        key=("label_id",),
    ),
    SourceConfig(
        name="texts",
        version=_VERSION,
        description="One example per text shown to the workers, with the ground truth where known.",
        files={"train": [_DATA]},
        split_sizes={"train": 80},
        key=("data_id",),
    ),
]
class CrowdDeliberation(SourceBuilder, datasets.GeneratorBasedBuilder):
    """Crowd labels on sarcasm and relation texts, and group deliberations on disagreements."""

    VERSION = _VERSION
    BUILDER_CONFIGS = _CONFIGS
    DEFAULT_CONFIG_NAME = "deliberations"
    READ_SPLIT_FILES_TOGETHER = True  # a split reads its config's file with the file it is checked against

    def _features(self):
        return _config_features(self.config.name)


    def _generate_examples(self, filepaths, sources):
        if self.config.name == "texts":
            for text in _read_texts(filepaths[0], sources[0]):
                yield str(text["data_id"]), text
        elif self.config.name == "labels":
            texts = {text["data_id"]: text for text in _read_texts(filepaths[1], sources[1])}
            without_text = {}  # DATA_ID -> labels
            for label in _read_labels(filepaths[0], sources[0], texts):
                if label["data_id"] not in texts:
                    without_text[label["data_id"]] = without_text.get(label["data_id"], 0) + 1
                yield str(label["label_id"]), label
            # Upstream's README says labels.csv covers the texts of data.csv; it also labels others
            # (192 labels on 60 DATA_IDs in the release). They are kept, and counted here.
            if without_text:
                logger.info(
                    "%s: %d labels on %d DATA_IDs that have no text in %s (kept): %s",
                    sources[0], sum(without_text.values()), len(without_text), sources[1], sorted(without_text),
                )
        else:
            label_ids = {label["label_id"] for label in _read_labels(filepaths[1], sources[1], None)}
            for deliberation in _read_deliberations(filepaths[0], sources[0], label_ids):
                yield str(deliberation["deliberation_id"]), deliberation


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
_DISSENTING_COUNTS = (0, 2, 3)
_MEMBER_ORDERS = (1, 2, 3)
_MEMBERS = 3

# The 13 readability statistics, in column order; True = written as an integer.
_STATISTICS = {
    "CHAR_COUNT": True, "SYLLABLE_COUNT": False, "LEXICON_COUNT": True, "SENTENCE_COUNT": True,
    "FLESCH_READING_EASE": False, "SMOG_INDEX": False, "FLESCH_KINCAID_GRADE": False, "COLEMAN_LIAU_INDEX": False,
    "AUTOMATED_READABILITY_INDEX": False, "DALE_CHALL_READABILITY_SCORE": False, "DIFFICULT_WORDS": True,
    "LINSEAR_WRITE_FORMULA": False, "GUNNING_FOG": False,
}
# Message phases (column prefixes) in column order: session 1, session 2, all messages.
_PHASES = ["MESSAGES_DISCUSS", "MESSAGES_RECONSIDER", "MESSAGES"]
# Group statistics columns B_S, B_S_MIN, ...: the empty suffix becomes `value`.
_AGGREGATES = {"": "value", "_MIN": "min", "_MAX": "max", "_MEDIAN": "median", "_MEAN": "mean"}

# The columns that the checks across cells name.
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
# The follow-up questions of labels.csv, asked exactly when the worker expected disagreement.
_FOLLOW_UPS = (_WHY_QUESTION, _ELABORATE_QUESTION, _GROUP_QUESTION)
_RESOLVED_QUESTION = "QUESTION_WHY_DO_YOU_THINK_THIS_CASE_COULD_BE_RESOLVED"
_UNRESOLVED_QUESTION = "QUESTION_WHY_DO_YOU_THINK_THIS_CASE_COULD_NOT_BE_FULLY_RESOLVED"


# --- the fields: the columns of each file ---------------------------------------------------
# Each column is declared once, with its Field: the headers, the features and the checks all come
# from these tables. A field is named by its column in lower case (`_columns`; statistics groups
# name theirs), and read from the column, its `key`.

_YES_NO = re.compile(r"(Yes|No)(?: (.*))?", re.DOTALL)
_ID = integer(range(2**31), text=True)  # an id, an order, a count: a non-negative int32
_TEXT = string(nonempty=True)
_BOOLEAN = mapping({"True": True, "False": False}, datasets.Value("bool"))
# 0 = not sure, 0.5 = sure, 1 = very sure (upstream README).
_CONFIDENCES = {"0": 0.0, "0.5": 0.5, "1": 1.0}


def _confidence(nulls=()):
    return mapping(_CONFIDENCES, datasets.Value("float32"), nulls=nulls)


def _label(nulls=()):
    """A label of the record's dataset; the feature has the labels of both."""
    of_dataset = {dataset: label(names, nulls=nulls) for dataset, names in _LABELS_OF.items()}

    def parse(value, where, column, context):
        return of_dataset[context["dataset"]].value(value, where, column)

    return Field(datasets.ClassLabel(names=_LABEL_NAMES), parse=parse, nulls=tuple(nulls))


def _yes_no(value):
    """'Yes ...' / 'No ...' -> {answer, explanation}."""
    match = _YES_NO.fullmatch(value)
    if match is None:
        return INVALID
    return {"answer": match.group(1) == "Yes", "explanation": match.group(2) or None}


_YES_NO_ANSWER = checked(
    {"answer": datasets.Value("bool"), "explanation": datasets.Value("string")},
    _yes_no,
    "a text starting with 'Yes' or 'No'",
    nulls=EMPTY,
)


def _statistic(whole, column):
    """A readability statistic: an int32 if written as an integer, else a decimal number."""
    return integer(INT32, text=True, key=column) if whole else number(text=True, key=column)


# A member's answers in a session: filled exactly when the member's flag (DID_...) is True.
_FILLED_WHEN = {}


def _session(flag, fields):
    _FILLED_WHEN.update(dict.fromkeys(fields, flag))
    return fields


def _json(cell, where, column):
    """The cell decoded. A problem inside the JSON is located by its path below the column, such
    as field 'MESSAGES'[0]['user_id']; a cell that is not JSON at all is shown."""
    return loads(cell, where, field=column)


def _objects(fields, what):
    """The reader of a JSON cell that lists objects with the fields `fields`: (cell, where, column,
    context=None) -> each item's index and typed value, read as a JSON record is (exactly its keys,
    then each value in the table's order); one at a time, so that an item's own values are checked
    before the next item's keys. `context(item)` gives an item the context of its fields' parse."""
    names, read = keys(fields), reader(fields)

    def items(cell, where, column, context=None):
        values = _json(cell, where, column)
        if not isinstance(values, list):
            raise invalid(where, column, cell, f"a JSON list of {what}")
        for index, item in enumerate(values):
            check_fields(item, names, f"{where}: field {field_path((column, index))}")
            yield index, read(item, where, context and context(item), (column, index))

    return items


def _string_list(cell, where, column, context=None):
    """A JSON list of strings (the "why" answers)."""
    value = _json(cell, where, column)
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise invalid(where, column, cell, "a JSON list of strings")
    return value


def _member_id(value, where, path, context):
    names = context["names"]
    if type(value) is not int or value not in names:
        raise invalid(where, path, value, f"the USER_ID of a member: {sorted(names)}")
    return value


def _member_name(value, where, path, context):
    user_id = context["message"]["user_id"]  # checked before: the table's order
    if value != context["names"][user_id]:
        raise invalid(where, path, value, f"{context['names'][user_id]!r}, the NAME of member {user_id}")
    return value


# The objects inside the JSON cells: each key declared once, with its feature and its check, in
# the order of the struct's fields (that of release 1.0.0), the order they are checked in. A chat
# message's user is checked against the members (the context of `_messages`).
_OFFSET = integer(range(2**31))
_EVIDENCE_ITEM = {
    "start": _OFFSET,
    "end": _OFFSET,
    "quote": string(),
    "comment": string(nulls=EMPTY),  # "" -> None
}
_CHAT_MESSAGE = {
    "user_id": Field(datasets.Value("int32"), parse=_member_id),
    "user_pseudonym": Field(datasets.Value("string"), parse=_member_name),
    "content": string(),
}
_evidence_items = _objects(_EVIDENCE_ITEM, "objects")
_chat_items = _objects(_CHAT_MESSAGE, "messages")


# JSON cells: a list of strings (None for an empty cell), evidence, a chat.
_STRINGS = Field([datasets.Value("string")], parse=_string_list, nulls=EMPTY)
_EVIDENCE = Field(
    [features(_EVIDENCE_ITEM)],
    parse=lambda value, where, column, context: _evidence(value, where, column, context["text"]),
)
_CHAT = Field(
    [features(_CHAT_MESSAGE)],
    parse=lambda value, where, column, context: _messages(value, where, column, context["names"]),
)


def _columns(fields, prefix=""):
    """{name: Field} of a file's columns {column: Field}: each named by its column in lower case
    and read from the column (`prefix` + column: a member's MEMBER_<n>_<column>)."""
    return {column.lower(): field._replace(key=prefix + column) for column, field in fields.items()}


_DATA_FIELDS = _columns({
    "DATASET": label(_DATASETS),
    "DATA_ID": _ID,
    "STUDY_PART": label(_TEXT_STUDY_PARTS),
    "TEXT": _TEXT,
    "GROUND_TRUTH_LABEL": _label(nulls=EMPTY),
})
_LABEL_FIELDS = _columns({
    "DATA_ID": _ID,
    "DATASET": label(_DATASETS),
    "ANNOTATOR_ID": _ID,
    "STUDY_PART": label(_STUDY_PARTS),
    "ORDER": _ID,
    "LABEL_ID": _ID,
    "ORIGINAL_LABEL": _label(),
    "ORIGINAL_CONFIDENCE": _confidence(),
    "EVIDENCE": _EVIDENCE,
    _EXPECTATION_QUESTION: label(_EXPECTATIONS, nulls=EMPTY),
    _WHY_QUESTION: _STRINGS,
    _ELABORATE_QUESTION: string(nulls=EMPTY),
    _GROUP_QUESTION: mapping(_GROUP_HELPS, datasets.Value("bool"), nulls=EMPTY),
    "DELIBERATION_ID": integer(range(2**31), text=True, nulls=EMPTY),
})

# deliberations.csv: the group's columns, each member's (MEMBER_<n>_<column>), then for each phase
# its chat column and the group's statistics of that phase.
_GROUP_FIELDS = _columns({
    "DELIBERATION_ID": _ID,
    "DATA_ID": _ID,
    "STUDY_PART": label(_STUDY_PARTS),
    "WAS_RESOLVED": _BOOLEAN,
    "NUM_DISSENTING_OPINIONS_DISCUSSED": integer(_DISSENTING_COUNTS, text=True),
    "NUM_DISSENTING_OPINIONS_RECONSIDERED": integer(_DISSENTING_COUNTS, text=True),
    "NUM_DISSENTING_OPINIONS_DISCUSSED_AND_RECONSIDERED": integer(_DISSENTING_COUNTS, text=True),
    "NUM_DISSENTING_OPINIONS_DISCUSSED_RECONSIDERED_AND_CONCLUDED": integer(_DISSENTING_COUNTS, text=True),
})
_MEMBER_COLUMNS = {
    "USER_ID": _ID,
    "NAME": _TEXT,
    "LABEL_ID": _ID,
    "ORIGINAL_LABEL": label(_LABEL_NAMES),
    "ORIGINAL_CONFIDENCE": _confidence(),
    "DID_DISCUSS": _BOOLEAN,
    **_session("DID_DISCUSS", {"DISCUSS_ORDER": integer(_MEMBER_ORDERS, text=True, nulls=EMPTY)}),
    "DID_RECONSIDER": _BOOLEAN,
    **_session("DID_RECONSIDER", {
        "RECONSIDER_ORDER": integer(_MEMBER_ORDERS, text=True, nulls=EMPTY),
        "RECONSIDERED_LABEL": label(_RECONSIDERED_NAMES, nulls=EMPTY),
        "RECONSIDERED_CONFIDENCE": _confidence(nulls=EMPTY),
        "QUESTION_BASED_ON_YOUR_DELIBERATION_WHY_DO_YOU_THINK_THE_OTHER_PEOPLE_IN_THE_GROUP_CHOSE_A_DIFFERENT_ANSWER": (
            _STRINGS
        ),
        "QUESTION_PLEASE_ELABORATE_ON_YOUR_ANSWER_TO_THE_PREVIOUS_QUESTION_FOR_EXAMPLE_IF_YOU_CHANGED_YOUR_MIND_ABOUT"
        "_THE_SOURCE_OF_DISAGREEMENT_PLEASE_EXPLAIN_WHY": string(nulls=EMPTY),
    }),
    "DID_CONCLUDE": _BOOLEAN,
    _RESOLVED_QUESTION: string(nulls=EMPTY),
    _UNRESOLVED_QUESTION: string(nulls=EMPTY),
    **_session("DID_CONCLUDE", {
        "QUESTION_DID_SOMEBODY_MAKE_YOU_DOUBT_YOUR_ORIGINAL_ANSWER_WHY_OR_WHY_NOT": _YES_NO_ANSWER,
        "QUESTION_DID_SOMEBODY_MAKE_YOU_CHANGE_YOUR_ORIGINAL_ANSWER_WHY_OR_WHY_NOT": _YES_NO_ANSWER,
        "QUESTION_DID_YOU_MANAGE_TO_CONVINCE_SOMEONE_TO_CHANGE_THEIR_ANSWER_OR_CONFIDENCE_LEVEL_WHY_DO_YOU_THINK_YOU"
        "_WERE_ABLEUNABLE_TO_CONVINCE_THEM": _YES_NO_ANSWER,
        "QUESTION_DESCRIBE_HOW_YOU_FEEL_ABOUT_THE_DELIBERATION_PROCESS": string(nulls=EMPTY),
        "QUESTION_DESCRIBE_HOW_YOU_FEEL_ABOUT_THE_DELIBERATION_OUTCOME": string(nulls=EMPTY),
    }),
}
# Statistics are groups {field: Field, its column the Field's key}, None where all their cells are
# empty. A member's, per phase: MEMBER_<n>_<phase>_<statistic>.
_MEMBER_STATISTICS = {
    phase: {statistic.lower(): _statistic(whole, f"{phase}_{statistic}") for statistic, whole in _STATISTICS.items()}
    for phase in _PHASES
}
# Each member's fields and statistics, read from its columns (MEMBER_<n>_...).
_MEMBER_PREFIXES = [f"MEMBER_{member}_" for member in range(1, _MEMBERS + 1)]
_MEMBER_FIELDS = {prefix: _columns(_MEMBER_COLUMNS, prefix) for prefix in _MEMBER_PREFIXES}
_MEMBER_GROUPS = {
    prefix: {
        phase.lower(): {name: field._replace(key=prefix + field.key) for name, field in group.items()}
        for phase, group in _MEMBER_STATISTICS.items()
    }
    for prefix in _MEMBER_PREFIXES
}
# The group's, per phase and statistic: <phase>_<statistic><aggregate>, aggregated over the
# members. The median of integer statistics can end in .5 and the mean is a fraction.
_GROUP_STATISTICS = {
    phase: {
        statistic.lower(): {
            name: _statistic(whole and name not in ("median", "mean"), f"{phase}_{statistic}{suffix}")
            for suffix, name in _AGGREGATES.items()
        }
        for statistic, whole in _STATISTICS.items()
    }
    for phase in _PHASES
}
_CHAT_FIELDS = _columns({phase: _CHAT for phase in _PHASES})


def _statistics_columns(statistics):
    """The columns of statistics groups, in order."""
    return [field.key for group in statistics for field in group.values()]


_DATA_COLUMNS = keys(_DATA_FIELDS)
_LABEL_COLUMNS = keys(_LABEL_FIELDS)
_DELIBERATION_COLUMNS = (
    keys(_GROUP_FIELDS)
    + [
        column
        for prefix in _MEMBER_PREFIXES
        for column in keys(_MEMBER_FIELDS[prefix]) + _statistics_columns(_MEMBER_GROUPS[prefix].values())
    ]
    + [column for phase in _PHASES for column in [phase, *_statistics_columns(_GROUP_STATISTICS[phase].values())]]
)
_HEADERS = {_DATA: _DATA_COLUMNS, _LABELS: _LABEL_COLUMNS, _DELIBERATIONS: _DELIBERATION_COLUMNS}


# --- features -------------------------------------------------------------------------------


def _config_features(config_name):
    if config_name == "texts":
        table = features(_DATA_FIELDS)
    elif config_name == "labels":
        table = features(_LABEL_FIELDS)
    else:
        member = features(_MEMBER_FIELDS[_MEMBER_PREFIXES[0]])
        member["statistics"] = {phase.lower(): features(g) for phase, g in _MEMBER_STATISTICS.items()}
        table = features(_GROUP_FIELDS)
        # Python lists, not datasets.Sequence: the same feature types and card YAML on datasets 3.6 and 5.x.
        table["members"] = [member]
        table.update(features(_CHAT_FIELDS))
        table["statistics"] = {
            phase.lower(): {statistic: features(group) for statistic, group in statistics.items()}
            for phase, statistics in _GROUP_STATISTICS.items()
        }
    # A copy: the tables' feature objects are never shared with a builder's Features.
    return datasets.Features(copy.deepcopy(table))


def _count_source_records(config, split, local_paths):
    """CSV records of the config's own file (the first path), header excluded: read as the examples
    are (the file's checks, its header, each record's number of cells) but untyped, so that a record
    the typing lost or doubled would show."""
    source = config.files[split][0]
    return sum(1 for _ in records(local_paths[0], source, _HEADERS[source]))


# --- data.csv and labels.csv ----------------------------------------------------------------


def _read_texts(filepath, source):
    seen = {}
    for row in rows(filepath, source, _DATA_COLUMNS):
        text = row.typed(_DATA_FIELDS, {"dataset": row.value(_DATA_FIELDS["dataset"])})
        row.check_unique(seen, "DATA_ID", text["data_id"])
        yield text


def _read_labels(filepath, source, texts):
    """With `texts` ({data_id: text}), datasets and evidence quotes are checked against data.csv."""
    seen = {}
    for row in rows(filepath, source, _LABEL_COLUMNS):
        dataset = row.value(_LABEL_FIELDS["dataset"])
        data_id = row.value(_LABEL_FIELDS["data_id"])
        text = texts.get(data_id) if texts is not None else None
        if text is not None and text["dataset"] != dataset:
            raise row.invalid("DATASET", dataset, f"{text['dataset']!r}, the DATASET of DATA_ID {data_id} in data.csv")
        expectation = row.value(_LABEL_FIELDS[_EXPECTATION_QUESTION.lower()])
        label = row.typed(_LABEL_FIELDS, {"dataset": dataset, "text": text})
        asked = expectation is not None and expectation != _EXPECTATIONS[0]
        for column in _FOLLOW_UPS:
            if row.empty(column) == asked:
                state = f"{'filled' if asked else 'empty'}: {_EXPECTATION_QUESTION} is"
                raise row.invalid(column, row.cells[column], f"{state} {show(row.cells[_EXPECTATION_QUESTION])}")
        row.check_unique(seen, "LABEL_ID", label["label_id"])
        yield label


def _evidence(cell, where, column, text):
    evidence = []
    for index, value in _evidence_items(cell, where, column):
        start, end, quote = value["start"], value["end"], value["quote"]
        if end < start:
            raise _problem(where, (column, index), f"end {end} is before start {start}")
        if text is not None and text["text"][start:end] != quote:
            span = f"DATA_ID {text['data_id']} from {start} to {end} ({show(text['text'][start:end])})"
            raise _problem(where, (column, index), f"quote {show(quote)} is not the text of {span}")
        evidence.append(value)
    return evidence


# --- deliberations.csv ----------------------------------------------------------------------


def _read_deliberations(filepath, source, label_ids):
    seen = {}
    for row in rows(filepath, source, _DELIBERATION_COLUMNS):
        deliberation = row.typed(_GROUP_FIELDS)
        members = [_member(row, prefix, label_ids) for prefix in _MEMBER_PREFIXES]
        deliberation["members"] = members
        deliberation.update(row.typed(_CHAT_FIELDS, {"names": {m["user_id"]: m["name"] for m in members}}))
        deliberation["statistics"] = {
            phase.lower(): _group_statistics(row, phase, deliberation[phase.lower()]) for phase in _PHASES
        }
        row.check_unique(seen, "DELIBERATION_ID", deliberation["deliberation_id"])
        yield deliberation


def _member(row, prefix, label_ids):
    fields = _MEMBER_FIELDS[prefix]
    label_id = row.value(fields["label_id"])
    if label_id not in label_ids:
        raise row.invalid(prefix + "LABEL_ID", str(label_id), "a LABEL_ID of labels.csv")
    took_part = {flag: row.value(fields[flag.lower()]) for flag in dict.fromkeys(_FILLED_WHEN.values())}
    for column, flag in _FILLED_WHEN.items():
        if row.empty(prefix + column) == took_part[flag]:
            state = f"{'filled' if took_part[flag] else 'empty'}: {prefix}{flag} is {took_part[flag]}"
            raise row.invalid(prefix + column, row.cells[prefix + column], state)
    # A concluding member answered exactly one of the two "why (not) resolved" questions.
    did_conclude = took_part["DID_CONCLUDE"]
    answered = [not row.empty(prefix + column) for column in (_RESOLVED_QUESTION, _UNRESOLVED_QUESTION)]
    if sum(answered) != (1 if did_conclude else 0):
        one = f"exactly one of {_RESOLVED_QUESTION} and {_UNRESOLVED_QUESTION} filled"
        expected = f"{one if did_conclude else 'both empty'}: {prefix}DID_CONCLUDE is {did_conclude}"
        raise row.invalid(prefix + _RESOLVED_QUESTION, row.cells[prefix + _RESOLVED_QUESTION], expected)
    member = row.typed(fields)
    member["statistics"] = {phase: row.statistics(group) for phase, group in _MEMBER_GROUPS[prefix].items()}
    return member


def _messages(cell, where, column, names):
    # Each message's user_id and user_pseudonym are checked against the members (their parse).
    context = lambda message: {"names": names, "message": message}  # noqa: E731
    return [message for _, message in _chat_items(cell, where, column, context)]


def _group_statistics(row, phase, messages):
    statistics = {statistic: row.statistics(group) for statistic, group in _GROUP_STATISTICS[phase].items()}
    filled = [value is not None for value in statistics.values()]
    if any(filled) and not all(filled):
        empty = next(statistic for statistic, value in statistics.items() if value is None)
        raise row.invalid(f"{phase}_{empty.upper()}", "", "a number: the other statistics of this phase are filled")
    # Statistics are empty exactly when the phase has no messages.
    if all(filled) != bool(messages):
        state = "empty" if not messages else "filled"
        column = f"{phase}_CHAR_COUNT"
        raise row.invalid(column, row.cells[column], f"{state}: {phase} has {len(messages)} messages")
    return statistics if messages else None


def _problem(where, field, message):
    """The ValueError of a field whose problem is not one bad value."""
    return ValueError(f"{where}: field {field_path(field)}: {message}")
