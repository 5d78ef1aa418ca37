"""Curiosity: English dialogs in which a crowd worker playing a curious user asks another, playing
an assistant shown Wikipedia facts, about a geographic topic; with dialog acts, likes and ratings.
Source: the four split files of facebookresearch/curiosity at a pinned commit; their format and
quirks are in FORMAT.md beside this file.
"""

import itertools
import json
import re

import datasets
import pyarrow as pa
from datasets.utils.file_utils import xopen

from corpora.loader_shared.builder_base import SourceBuilder
from corpora.loader_shared.builder_base import SourceConfig
from corpora.loader_shared.fields import INT32
from corpora.loader_shared.fields import INT64
from corpora.loader_shared.fields import NULL
from corpora.loader_shared.fields import Field
from corpora.loader_shared.fields import boolean
from corpora.loader_shared.fields import features
from corpora.loader_shared.fields import integer
from corpora.loader_shared.fields import keys
from corpora.loader_shared.fields import label
from corpora.loader_shared.fields import matching
from corpora.loader_shared.fields import reader
from corpora.loader_shared.fields import string
from corpora.loader_shared.loader_common import check_is_data
from corpora.loader_shared.loader_common import invalid
from corpora.loader_shared.loader_common import local_files
from corpora.loader_shared.loader_common import no_records
from corpora.loader_shared.loader_common import utf8
from corpora.loader_shared.strict_json import check_fields
from corpora.loader_shared.strict_json import loads

_CITATION = """\
@inproceedings{rodriguez2020curiosity,
    title = {Information Seeking in the Spirit of Learning: a Dataset for Conversational Curiosity},
    author = {Pedro Rodriguez and Paul Crook and Seungwhan Moon and Zhiguang Wang},
    year = 2020,
    booktitle = {Empirical Methods in Natural Language Processing}
}
"""

_DESCRIPTION = """\
English dialogs in which a crowd worker playing a curious user asks an assistant about a geographic
topic. The assistant sees Wikipedia facts about the topic and marks the one it used; messages carry
dialog acts and the user's likes; each dialog records what the user already knew and the workers'
ratings of the conversation.
"""

_HOMEPAGE = "https://www.pedro.ai/curiosity"

_LICENSE = "cc-by-nc-4.0"  # the repository's LICENSE: "Attribution-NonCommercial 4.0 International"

_COMMIT = "7201d252ec7f453df3ce4d8af86a9bffb1744f41"
# Git LFS media URLs: the raw ones serve LFS pointers (FORMAT.md, section 1).
_URL_PREFIX = f"https://media.githubusercontent.com/media/facebookresearch/curiosity/{_COMMIT}/"

# Paths relative to the upstream repository root: the layout a `data_dir` copy must mirror.
_SPLIT_PATHS = {
    "train": "dialog_data/curiosity_dialogs.train.json",
    "validation": "dialog_data/curiosity_dialogs.val.json",  # quirk 1, val-split
    "test": "dialog_data/curiosity_dialogs.test.json",
    "test_zero": "dialog_data/curiosity_dialogs.test_zero.json",
}

# --- the fields, in upstream key order: the features, each record's keys and the checks derive from them
# Lists are Python lists, not datasets.Sequence: the same feature types and card YAML on datasets 3.6 and 5.x.

_SENDERS = ["user", "assistant"]
_FACT_SOURCES = ["section", "known", "random"]
_RATINGS = range(1, 6)
_DIGITS = re.compile(r"[0-9]+")


def _strings(value, where, field, context=None):
    if not isinstance(value, list):
        raise invalid(where, field, value, "a list of strings")
    for index, item in enumerate(value):
        if not isinstance(item, str):
            raise invalid(where, (field, index), item, "a string")
    return value


def _dialog_acts(value, where, field, context=None):
    """[] for null, as upstream's reader takes it (quirk 5, empty-dialog-acts)."""
    return [] if value is None else _strings(value, where, field)


def _record(fields):
    """Reads a dialog, message or fact: exactly the keys of `fields`, in order (the first bad one is named)."""
    names, read = keys(fields), reader(fields)

    def typed(record, where):
        check_fields(record, names, where)
        return read(record, where)

    return typed


def _list_of(item, fields):
    """A list of JSON objects, each with the fields `fields`; errors name the item's index."""
    typed = _record(fields)

    def parse(value, where, field, context=None):
        if not isinstance(value, list):
            raise invalid(where, field, value, f"a list of {item}s")
        return [typed(element, f"{where}, {item} {index}") for index, element in enumerate(value)]

    return Field([features(fields)], parse=parse)


_STRING = datasets.Value("string")
_TEXT = string()
_TEXTS = Field([_STRING], parse=_strings)
_BOOLEAN = boolean()
_RATING = integer(_RATINGS)
_ID = integer(INT32)
_WORKER_ID = integer(range(2**31), text="only")  # quirk 2, worker-ids-as-strings

_FACT_FIELDS = {
    "fid": _ID,
    "used": _BOOLEAN,
    "source": label(_FACT_SOURCES, index=True),
}
_MESSAGE_FIELDS = {
    "message": _TEXT,  # quirk 4, empty-messages
    "liked": _BOOLEAN,
    "sender": label(_SENDERS, index=True),
    "facts": _list_of("fact", _FACT_FIELDS),  # quirk 6, facts-per-sender
    "message_id": matching(_DIGITS, "a string of decimal digits"),  # quirk 12, message-id-strings
    "dialog_acts": Field([_STRING], parse=_dialog_acts),
}
_DIALOG_FIELDS = {
    "messages": _list_of("message", _MESSAGE_FIELDS),  # quirk 8, dialogs-without-messages: kept
    "known_entities": _TEXTS,
    "focus_entity": _TEXT,
    "dialog_id": _ID,
    "inferred_steps": _BOOLEAN,
    "created_time": integer(INT64),  # Unix seconds
    "aspects": _TEXTS,
    "first_aspect": string(nulls=NULL),  # quirk 3, null-aspects
    "second_aspect": string(nulls=NULL),
    "shuffle_facts": _BOOLEAN,
    "related_entities": _TEXTS,
    "tag": _TEXT,
    "user_id": _WORKER_ID,
    "assistant_id": _WORKER_ID,
    "is_annotated": _BOOLEAN,
    "user_dialog_rating": _RATING,
    "user_other_agent_rating": _RATING,
    "assistant_dialog_rating": _RATING,
    "assistant_other_agent_rating": _RATING,
    "reported": _BOOLEAN,
    "annotated": _BOOLEAN,
}

# The file's top-level keys: only `dialogs` is required and read; any other key means another format.
_HEADER_KEYS = [
    "dialogs",
    "fold",
    "source_checksum",
    "db_checksum",
    "unfolded_checksum",
    "unfolded_generated_time",
    "generated_time",
]


# --- the readers ---------------------------------------------------------------------------------

def _count_dialogs(config, split, local_paths):
    """Source records of a split, counted with json.load alone: the length of the `dialogs` list."""
    with xopen(local_paths[0], "rb") as f:
        return len(json.load(f)["dialogs"])


def _read_dialogs(filepath, source):
    """Yield (position in the `dialogs` list, typed dialog) for one split file (quirk 9, one-line-document)."""
    # Each copy (bytes, text, document, raw dialog) is dropped once the next is made: train is 67 MB.
    with xopen(filepath, "rb") as f:
        data = f.read()
    # An empty file too: datasets cannot load an empty split, and every release file has dialogs.
    check_is_data(data[:512], source, "a JSON object with a 'dialogs' list")
    text = utf8(data, source)
    del data
    document = loads(text, source, records=("dialogs", "dialog"))  # errors name the dialog: "<file>, dialog 3: ..."
    del text
    dialogs = _dialog_list(document, source)
    del document
    for index in range(len(dialogs)):
        record = dialogs[index]
        dialogs[index] = None
        yield index, _typed_dialog(record, f"{source}, dialog {index}")


def _dialog_list(document, source):
    if not isinstance(document, dict):
        raise ValueError(f"{source}: expected a JSON object with a 'dialogs' list, got {type(document).__name__}")
    unknown = [key for key in document if key not in _HEADER_KEYS]
    if unknown:
        raise ValueError(f"{source}: unknown top-level field(s) {unknown}; expected {_HEADER_KEYS}")
    if "dialogs" not in document:
        raise ValueError(f"{source}: top-level field 'dialogs' is missing")
    dialogs = document["dialogs"]
    if not isinstance(dialogs, list):
        raise invalid(source, "dialogs", dialogs, "a list")
    if not dialogs:  # every release file has dialogs, and datasets cannot load an empty split
        raise no_records(source, "dialogs (its 'dialogs' list is empty)")
    return dialogs


_typed_dialog = _record(_DIALOG_FIELDS)  # (record, where) -> the typed dialog


# --- the config and the builder: official sizes in dialogs (the old HF dataset_infos.json, card and the authors agree)
_VERSION = datasets.Version("2.0.0")
_CONFIGS = [
    SourceConfig(
        name="dialogs",
        version=_VERSION,
        description="One example per dialog, with its messages (and each message's facts) as lists of structs.",
        features=datasets.Features(features(_DIALOG_FIELDS)),
        files={split: [path] for split, path in _SPLIT_PATHS.items()},
        url_prefix=_URL_PREFIX,
        split_sizes={"train": 10287, "validation": 1287, "test": 1287, "test_zero": 1187},
        key=("dialog_id",),
        license=_LICENSE,
        counter=_count_dialogs,
    ),
]


_DIALOGS_PER_TABLE = 1000  # datasets' batch of examples


class CuriosityDialogs(SourceBuilder, datasets.ArrowBasedBuilder):
    """Curiosity dialogs: user/assistant conversations about geography, with facts and dialog acts."""

    VERSION = _VERSION
    RELEASE_NOTES = {  # version -> what changed for users
        "2.0.0": (
            "Initial release of this loader, numbered above the earlier Hugging Face loader (1.1.0), "
            "whose data it changes: the split val is validation, its \"False\"/\"True\" class labels "
            "are booleans, messages and facts are lists of structs (see the card's Errata)."
        ),
    }
    BUILDER_CONFIGS = _CONFIGS
    DEFAULT_CONFIG_NAME = "dialogs"

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
            datasets.SplitGenerator(name=split, gen_kwargs={"filepath": local[path], "source": path})
            for split, (path,) in self.config.files.items()  # one file per split
        ]

    def _generate_tables(self, filepath, source):
        dialogs, schema = _read_dialogs(filepath, source), self.info.features.arrow_schema
        # Tables of typed dialogs, built by pyarrow: datasets' encoding of each nested value was half the build.
        while batch := list(itertools.islice(dialogs, _DIALOGS_PER_TABLE)):
            yield batch[0][0], pa.Table.from_pylist([dialog for _, dialog in batch], schema=schema)
