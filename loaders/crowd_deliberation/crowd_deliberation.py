"""Crowd Deliberation: crowd labels with confidence, evidence and expected disagreement on 80 short
English texts (sarcasm, person-place relations), and the group deliberations of workers who disagreed.

From the three CSV files of crowd-deliberation/data at its last commit; their format and quirks: FORMAT.md.
"""

import dataclasses
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
from corpora.loader_shared.loader_common import local_files
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

# The description (the card's summary) in parts: the card of an export shows the parts about its configs.
_DESCRIPTION_PARTS = [
    "Short English texts labelled by crowd workers: product reviews (sarcastic or not) and sentences asking "
    "whether a person-place relation is expressed.",
    {"only": ["texts"], "text": "The texts, with the ground truth where known."},
    {"only": ["labels"], "text": "The workers' labels, with confidence, highlighted evidence and the worker's "
     "expected disagreement."},
    {
        "only": ["deliberations"],
        "text": "Deliberations in which three workers who disagreed discussed the case in a chat, reconsidered "
        "their labels and explained why the case could or could not be resolved.",
    },
]
_DESCRIPTION = " ".join(part if isinstance(part, str) else part["text"] for part in _DESCRIPTION_PARTS)

_HOMEPAGE = "https://github.com/crowd-deliberation/data"

_LICENSE = "mit"

_COMMIT = "d36857821c0b2694aa0fe3da3aa514d5b15e7cf6"
_URL_PREFIX = f"https://raw.githubusercontent.com/crowd-deliberation/data/{_COMMIT}/"

# Paths relative to the upstream repository root (the layout a `data_dir` copy mirrors).
_DATA = "data.csv"
_LABELS = "labels.csv"
_DELIBERATIONS = "deliberations.csv"



# --- the fields ------------------------------------------------------------------------------
# Headers, features and checks derive from these tables: a field is named by its column in lower
# case and read from the column, its `key`.
_LABELS_OF = {  # each dataset's labels (quirk 1, relation-not-expressed)
    "deliberation-sarcasm": ["sarcastic", "not_sarcastic"],
    "deliberation-relation-person-place": ["relation_expressed", "relation_not_expressed"],
}
_DATASETS = list(_LABELS_OF)
_LABEL_NAMES = [name for names in _LABELS_OF.values() for name in names]
_RECONSIDERED_NAMES = _LABEL_NAMES + ["irresolvable"]  # quirk 2, irresolvable-label
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
_DISSENTING = integer((0, 2, 3), text=True)  # a number of dissenting opinions
_MEMBER_ORDER = integer((1, 2, 3), text=True, nulls=EMPTY)

# The 13 readability statistics, in column order; True = written as an integer.
_STATISTICS = {
    "CHAR_COUNT": True, "SYLLABLE_COUNT": False, "LEXICON_COUNT": True, "SENTENCE_COUNT": True,
    "FLESCH_READING_EASE": False, "SMOG_INDEX": False, "FLESCH_KINCAID_GRADE": False, "COLEMAN_LIAU_INDEX": False,
    "AUTOMATED_READABILITY_INDEX": False, "DALE_CHALL_READABILITY_SCORE": False, "DIFFICULT_WORDS": True,
    "LINSEAR_WRITE_FORMULA": False, "GUNNING_FOG": False,
}
_PHASES = ["MESSAGES_DISCUSS", "MESSAGES_RECONSIDER", "MESSAGES"]  # the chats: session 1, session 2, all
_AGGREGATES = {"": "value", "_MIN": "min", "_MAX": "max", "_MEDIAN": "median", "_MEAN": "mean"}  # of a phase

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
_FOLLOW_UPS = (_WHY_QUESTION, _ELABORATE_QUESTION, _GROUP_QUESTION)  # asked exactly when disagreement is expected
_RESOLVED_QUESTION = "QUESTION_WHY_DO_YOU_THINK_THIS_CASE_COULD_BE_RESOLVED"
_UNRESOLVED_QUESTION = "QUESTION_WHY_DO_YOU_THINK_THIS_CASE_COULD_NOT_BE_FULLY_RESOLVED"

_YES_NO = re.compile(r"(Yes|No)(?: (.*))?", re.DOTALL)
_ID = integer(range(2**31), text=True)  # an id, an order, a count: a non-negative int32
_TEXT = string(nonempty=True)
_BOOLEAN = mapping({"True": True, "False": False}, datasets.Value("bool"))  # quirk 14, text-booleans
_CONFIDENCES = {"0": 0.0, "0.5": 0.5, "1": 1.0}  # not sure, sure, very sure (upstream README)


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


_YES_NO_ANSWER = checked({"answer": datasets.Value("bool"), "explanation": datasets.Value("string")}, _yes_no,
                         "a text starting with 'Yes' or 'No'", nulls=EMPTY)


def _statistic(whole, column):
    """A readability statistic: an int32 if written as an integer, else a decimal number."""
    return integer(INT32, text=True, key=column) if whole else number(text=True, key=column)


_FILLED_WHEN = {}  # a member's answer column -> its flag (DID_...): filled exactly when the flag is True


def _session(flag, fields):
    _FILLED_WHEN.update(dict.fromkeys(fields, flag))
    return fields


def _objects(fields, what):
    """The reader of a JSON list of objects with the fields `fields`: (index, typed value) of each item."""
    names, read = keys(fields), reader(fields)

    def items(cell, where, column, context=None):
        values = loads(cell, where, field=column)  # quirk 7, json-in-cells
        if not isinstance(values, list):
            raise invalid(where, column, cell, f"a JSON list of {what}")
        for index, item in enumerate(values):
            check_fields(item, names, f"{where}: field {field_path((column, index))}")
            yield index, read(item, where, context and context(item), (column, index))

    return items


def _string_list(cell, where, column, context=None):
    """A JSON list of strings (the "why" answers)."""
    value = loads(cell, where, field=column)
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


# The objects inside the JSON cells, in the order of the struct's fields (that of release 1.0.0).
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

_STRINGS = Field([datasets.Value("string")], parse=_string_list, nulls=EMPTY)


def _evidence(cell, where, column, context):
    text, evidence = context["text"], []
    for index, value in _evidence_items(cell, where, column):
        start, end, quote = value["start"], value["end"], value["quote"]
        if end < start:
            raise _problem(where, (column, index), f"end {end} is before start {start}")
        if text is not None and text["text"][start:end] != quote:
            span = f"DATA_ID {text['data_id']} from {start} to {end} ({show(text['text'][start:end])})"
            raise _problem(where, (column, index), f"quote {show(quote)} is not the text of {span}")
        evidence.append(value)
    return evidence


def _messages(cell, where, column, context):
    names = context["names"]  # each message's user is checked against the members
    items = _chat_items(cell, where, column, lambda message: {"names": names, "message": message})
    return [message for _, message in items]


_EVIDENCE = Field([features(_EVIDENCE_ITEM)], parse=_evidence)
_CHAT = Field([features(_CHAT_MESSAGE)], parse=_messages)


def _columns(fields, prefix=""):
    """{name: Field} of a file's columns {column: Field}, each read from `prefix` + column."""
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

_GROUP_FIELDS = _columns({
    "DELIBERATION_ID": _ID,
    "DATA_ID": _ID,
    "STUDY_PART": label(_STUDY_PARTS),
    "WAS_RESOLVED": _BOOLEAN,
    "NUM_DISSENTING_OPINIONS_DISCUSSED": _DISSENTING,
    "NUM_DISSENTING_OPINIONS_RECONSIDERED": _DISSENTING,
    "NUM_DISSENTING_OPINIONS_DISCUSSED_AND_RECONSIDERED": _DISSENTING,
    "NUM_DISSENTING_OPINIONS_DISCUSSED_RECONSIDERED_AND_CONCLUDED": _DISSENTING,
})
_MEMBER_COLUMNS = {
    "USER_ID": _ID,
    "NAME": _TEXT,
    "LABEL_ID": _ID,
    "ORIGINAL_LABEL": label(_LABEL_NAMES),
    "ORIGINAL_CONFIDENCE": _confidence(),
    "DID_DISCUSS": _BOOLEAN,
    **_session("DID_DISCUSS", {"DISCUSS_ORDER": _MEMBER_ORDER}),
    "DID_RECONSIDER": _BOOLEAN,
    **_session("DID_RECONSIDER", {
        "RECONSIDER_ORDER": _MEMBER_ORDER,
        "RECONSIDERED_LABEL": label(_RECONSIDERED_NAMES, nulls=EMPTY),
        "RECONSIDERED_CONFIDENCE": _confidence(nulls=EMPTY),
        "QUESTION_BASED_ON_YOUR_DELIBERATION_WHY_DO_YOU_THINK_THE_OTHER_PEOPLE_IN_THE_GROUP_CHOSE_A_DIFFERENT"
        "_ANSWER": _STRINGS,
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
_MEMBER_PREFIXES = [f"MEMBER_{member}_" for member in (1, 2, 3)]
_MEMBER_FIELDS = {prefix: _columns(_MEMBER_COLUMNS, prefix) for prefix in _MEMBER_PREFIXES}
# Statistics groups {field: Field}, None where all their cells are empty: a member's, per phase;
_MEMBER_GROUPS = {
    prefix: {phase.lower(): {s.lower(): _statistic(whole, f"{prefix}{phase}_{s}") for s, whole in _STATISTICS.items()}
             for phase in _PHASES}
    for prefix in _MEMBER_PREFIXES
}
# the group's, per phase and statistic, aggregated over the members (a median may end in .5).
_GROUP_STATISTICS = {
    phase: {
        statistic.lower(): {name: _statistic(whole and name not in ("median", "mean"), f"{phase}_{statistic}{suffix}")
                            for suffix, name in _AGGREGATES.items()}
        for statistic, whole in _STATISTICS.items()
    }
    for phase in _PHASES
}
_CHAT_FIELDS = _columns({phase: _CHAT for phase in _PHASES})

_DATA_COLUMNS = keys(_DATA_FIELDS)
_LABEL_COLUMNS = keys(_LABEL_FIELDS)
# deliberations.csv: the group's columns, each member's (MEMBER_<n>_...), then per phase its chat and statistics.
_DELIBERATION_TABLES = [
    _GROUP_FIELDS,
    *(table for prefix in _MEMBER_PREFIXES for table in [_MEMBER_FIELDS[prefix], *_MEMBER_GROUPS[prefix].values()]),
    *(table for phase in _PHASES for table in [{phase: _CHAT}, *_GROUP_STATISTICS[phase].values()]),
]
_DELIBERATION_COLUMNS = [column for table in _DELIBERATION_TABLES for column in keys(table)]
_HEADERS = {_DATA: _DATA_COLUMNS, _LABELS: _LABEL_COLUMNS, _DELIBERATIONS: _DELIBERATION_COLUMNS}


def _deliberation_features():
    member = features(_MEMBER_FIELDS[_MEMBER_PREFIXES[0]])
    member["statistics"] = {phase: features(group) for phase, group in _MEMBER_GROUPS[_MEMBER_PREFIXES[0]].items()}
    table = features(_GROUP_FIELDS)
    table["members"] = [member]  # a list, not datasets.Sequence: the same types and card on datasets 3.6 and 5.x
    table.update(features(_CHAT_FIELDS))
    table["statistics"] = {
        phase.lower(): {statistic: features(group) for statistic, group in statistics.items()}
        for phase, statistics in _GROUP_STATISTICS.items()
    }
    return datasets.Features(table)


# --- the readers -----------------------------------------------------------------------------
def _count_records(config, split, local_paths):
    """Records of the config's own file, read untyped: a record the typing lost or doubled would show."""
    source = config.files[split][0]
    return sum(1 for _ in records(local_paths[0], source, _HEADERS[source]))


def _texts(filepaths, sources):
    """data.csv's texts."""
    return _read_texts(filepaths[0], sources[0])


def _labels(filepaths, sources):
    """labels.csv's labels, checked against data.csv's texts."""
    texts = {text["data_id"]: text for text in _read_texts(filepaths[1], sources[1])}
    return _read_labels(filepaths[0], sources[0], texts)


def _deliberations(filepaths, sources):
    """deliberations.csv's deliberations, their members' labels checked against labels.csv."""
    label_ids = {label["label_id"] for label in _read_labels(filepaths[1], sources[1], None)}
    return _read_deliberations(filepaths[0], sources[0], label_ids)


def _read_texts(filepath, source):
    seen = {}
    for row in rows(filepath, source, _DATA_COLUMNS):
        text = row.typed(_DATA_FIELDS, {"dataset": row.value(_DATA_FIELDS["dataset"])})
        row.check_unique(seen, "DATA_ID", text["data_id"])
        yield text


def _read_labels(filepath, source, texts):
    """With `texts` ({data_id: text}), datasets and evidence quotes are checked against data.csv."""
    seen, without_text = {}, {}  # LABEL_ID -> line, DATA_ID -> labels
    for row in rows(filepath, source, _LABEL_COLUMNS):
        dataset = row.value(_LABEL_FIELDS["dataset"])
        data_id = row.value(_LABEL_FIELDS["data_id"])
        text = texts.get(data_id) if texts is not None else None
        if texts is not None and text is None:
            without_text[data_id] = without_text.get(data_id, 0) + 1
        if text is not None and text["dataset"] != dataset:
            raise row.invalid("DATASET", dataset, f"{text['dataset']!r}, the DATASET of DATA_ID {data_id} in data.csv")
        expectation = row.value(_LABEL_FIELDS[_EXPECTATION_QUESTION.lower()])
        label = row.typed(_LABEL_FIELDS, {"dataset": dataset, "text": text})
        asked = expectation is not None and expectation != _EXPECTATIONS[0]
        for column in _FOLLOW_UPS:
            row.check_filled(column, asked, f"{_EXPECTATION_QUESTION} is {show(row.cells[_EXPECTATION_QUESTION])}")
        row.check_unique(seen, "LABEL_ID", label["label_id"])
        yield label
    if without_text:  # kept, and counted: quirk 3, labels-without-text
        logger.info("%s: %d labels on %d DATA_IDs that have no text in %s (kept): %s", source,
                    sum(without_text.values()), len(without_text), _DATA, sorted(without_text))


def _read_deliberations(filepath, source, label_ids):
    seen = {}
    for row in rows(filepath, source, _DELIBERATION_COLUMNS):
        deliberation = row.typed(_GROUP_FIELDS)
        deliberation["members"] = members = [_member(row, prefix, label_ids) for prefix in _MEMBER_PREFIXES]
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
        row.check_filled(prefix + column, took_part[flag], f"{prefix}{flag} is {took_part[flag]}")
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


def _group_statistics(row, phase, messages):
    statistics = {statistic: row.statistics(group) for statistic, group in _GROUP_STATISTICS[phase].items()}
    filled = [value is not None for value in statistics.values()]
    if any(filled) and not all(filled):
        empty = next(statistic for statistic, value in statistics.items() if value is None)
        raise row.invalid(f"{phase}_{empty.upper()}", "", "a number: the other statistics of this phase are filled")
    # quirk 12, empty-chats
    row.check_filled(f"{phase}_CHAR_COUNT", bool(messages), f"{phase} has {len(messages)} messages")
    return statistics if messages else None


def _problem(where, field, message):
    """The ValueError of a field whose problem is not one bad value."""
    return ValueError(f"{where}: field {field_path(field)}: {message}")


# --- the configs and the builder -------------------------------------------------------------
# No upstream splits: one `train` split. It reads its config's file, then the one it is checked against.
@dataclasses.dataclass
class CrowdConfig(SourceConfig):
    """A config; `read(filepaths, sources)` yields its typed examples from its split's files, read together."""

    read: object = dataclasses.field(default=None, repr=False)


_VERSION = datasets.Version("1.0.0")
_CONFIGS = [
    CrowdConfig(
        name="deliberations", version=_VERSION, key=("deliberation_id",),
        description="One example per group deliberation: three member structs, three chat logs, "
        "readability statistics.",
        features=_deliberation_features(), read=_deliberations, counter=_count_records,
        files={"train": [_DELIBERATIONS, _LABELS]}, url_prefix=_URL_PREFIX, split_sizes={"train": 418},
        license=_LICENSE,
    ),
    CrowdConfig(
        name="labels", version=_VERSION, key=("label_id",),
        description="One example per crowd label, with its evidence and the worker's expected disagreement.",
        features=datasets.Features(features(_LABEL_FIELDS)), read=_labels, counter=_count_records,
        files={"train": [_LABELS, _DATA]}, url_prefix=_URL_PREFIX, split_sizes={"train": 4165},
        license=_LICENSE,
    ),
    CrowdConfig(
        name="texts", version=_VERSION, key=("data_id",),
        description="One example per text shown to the workers, with the ground truth where known.",
        features=datasets.Features(features(_DATA_FIELDS)), read=_texts, counter=_count_records,
        files={"train": [_DATA]}, url_prefix=_URL_PREFIX, split_sizes={"train": 80},
        license=_LICENSE,
    ),
]


class CrowdDeliberation(SourceBuilder, datasets.GeneratorBasedBuilder):
    """Crowd labels on sarcasm and relation texts, and group deliberations on disagreements."""

    VERSION = _VERSION
    DESCRIPTION_PARTS = _DESCRIPTION_PARTS
    RELEASE_NOTES = {"1.0.0": "Initial release."}
    BUILDER_CONFIG_CLASS = CrowdConfig
    BUILDER_CONFIGS = _CONFIGS
    DEFAULT_CONFIG_NAME = "deliberations"

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
        # Tuples: a split's files are read together, each with its part; datasets shards lists, never tuples.
        return [
            datasets.SplitGenerator(
                name=split, gen_kwargs={"filepaths": tuple(local[p] for p in paths), "sources": tuple(paths)}
            )
            for split, paths in self.config.files.items()
        ]

    def _generate_examples(self, filepaths, sources):
        for example in self.config.read(filepaths, sources):
            yield str(example[self.config.key[0]]), example
