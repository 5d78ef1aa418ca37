"""Curiosity: English dialogs in which a crowd worker playing a curious "user" asks another
worker playing an "assistant" about a geographic topic. The assistant is shown 9 Wikipedia facts
per turn and marks the one it used; the user can like assistant messages; every message has
dialog-act labels.

Source: the four split files in `dialog_data/` of facebookresearch/curiosity, pinned to its last
commit and read through GitHub's Git LFS media URLs (the raw URLs serve LFS pointers). Each file
is one JSON object on one line: a `dialogs` list plus a header (fold name, MD5 checksums,
generation times) that no dialog carries and this builder does not emit.

Deviations from the upstream schema, all documented in the card:
- the split of `curiosity_dialogs.val.json` is `validation`;
- `user_id` / `assistant_id` are strings of decimal digits upstream; they become int32 here
  (any other string, e.g. the 64-hex hashes of the pre-release sample, is an error);
- `dialog_acts: null` (never seen, but upstream's own reader treats it like `[]`) becomes `[]`;
- the header keys `fold`, `source_checksum`, `db_checksum`, `unfolded_checksum`,
  `unfolded_generated_time`, `generated_time` are checked by name only; `fold` never decides the
  split (the old Hugging Face dummy files carried the wrong folds).
A dialog without messages (upstream's reader skips such dialogs; none is known) is kept, and a
JSON object with a repeated key is an error (json would keep only the last value).
Everything else keeps its upstream name, order and meaning; every value outside its documented
domain stops the build with a ValueError naming the file, the dialog, the field and the value.
"""

import json
import re

import datasets
from datasets.utils.file_utils import xopen

from ._builder_base import SourceBuilder
from ._builder_base import SourceConfig
from ._loader_common import check_is_data
from ._loader_common import invalid
from ._loader_common import local_files
from ._loader_common import no_records
from ._loader_common import utf8
from ._strict_json import check_fields
from ._strict_json import loads

_CITATION = """\
@inproceedings{rodriguez2020curiosity,
    title = {Information Seeking in the Spirit of Learning: a Dataset for Conversational Curiosity},
    author = {Pedro Rodriguez and Paul Crook and Seungwhan Moon and Zhiguang Wang},
    year = 2020,
    booktitle = {Empirical Methods in Natural Language Processing}
}
"""

_DESCRIPTION = """\
14,048 English dialogs (181K messages) in which a crowd worker playing a curious user asks an
assistant about a geographic topic. The assistant sees Wikipedia facts about the topic and marks
the one it used; messages carry dialog acts and the user's likes; each dialog records what the
user already knew and the workers' ratings of the conversation.
"""

_HOMEPAGE = "https://www.pedro.ai/curiosity"

# LICENSE of the upstream repository: "Attribution-NonCommercial 4.0 International".
_LICENSE = "cc-by-nc-4.0"

_COMMIT = "7201d252ec7f453df3ce4d8af86a9bffb1744f41"
# Every file in dialog_data/ is stored with Git LFS: the media URLs serve the objects themselves.
_URL_PREFIX = f"https://media.githubusercontent.com/media/facebookresearch/curiosity/{_COMMIT}/"

# Paths relative to the upstream repository root: the layout a `data_dir` copy must mirror.
# Sizes and sha256 of the pinned files (from the Git LFS pointers at _COMMIT; identical to the
# download_checksums of the old Hugging Face dataset_infos.json) are in checksums.tsv beside
# this file: `corpora build` checks them; this builder does not need them.
_SPLIT_PATHS = {
    "train": "dialog_data/curiosity_dialogs.train.json",
    "validation": "dialog_data/curiosity_dialogs.val.json",
    "test": "dialog_data/curiosity_dialogs.test.json",
    "test_zero": "dialog_data/curiosity_dialogs.test_zero.json",
}
_URLS = {path: _URL_PREFIX + path for path in _SPLIT_PATHS.values()}

# Official sizes in dialogs (old Hugging Face dataset_infos.json, the old card and the authors'
# statistics agree); a dialog is identified by its `dialog_id`.
_VERSION = datasets.Version("2.0.0")
_CONFIGS = [
    SourceConfig(
        name="dialogs",
        version=_VERSION,
        description="One example per dialog, with its messages (and each message's facts) as lists of structs.",
        files={split: [path] for split, path in _SPLIT_PATHS.items()},
        split_sizes={"train": 10287, "validation": 1287, "test": 1287, "test_zero": 1187},
        key=("dialog_id",),
    ),
]

_SENDERS = ["user", "assistant"]
_FACT_SOURCES = ["section", "known", "random"]
_RATINGS = range(1, 6)
_INT32 = range(-(2**31), 2**31)
_INT64 = range(-(2**63), 2**63)

# Keys of the file header. Only `dialogs` is required: the others are not carried into rows and
# the full files' headers are not verified; any other key means a different file format.
_HEADER_KEYS = [
    "dialogs",
    "fold",
    "source_checksum",
    "db_checksum",
    "unfolded_checksum",
    "unfolded_generated_time",
    "generated_time",
]

_DIGITS = re.compile(r"[0-9]+")

# The fields of a dialog, a message and a fact, in upstream order.
_DIALOG_KEYS = [
    "messages",
    "known_entities",
    "focus_entity",
    "dialog_id",
    "inferred_steps",
    "created_time",
    "aspects",
    "first_aspect",
    "second_aspect",
    "shuffle_facts",
    "related_entities",
    "tag",
    "user_id",
    "assistant_id",
    "is_annotated",
    "user_dialog_rating",
    "user_other_agent_rating",
    "assistant_dialog_rating",
    "assistant_other_agent_rating",
    "reported",
    "annotated",
]
_MESSAGE_KEYS = ["message", "liked", "sender", "facts", "message_id", "dialog_acts"]
_FACT_KEYS = ["fid", "used", "source"]


def _dialog_features():
    # Struct field order = upstream key order. Lists are Python lists, not datasets.Sequence: the
    # same feature types and the same card YAML on datasets 3.6 and 5.x.
    fact = {
        "fid": datasets.Value("int32"),
        "used": datasets.Value("bool"),
        "source": datasets.ClassLabel(names=_FACT_SOURCES),
    }
    message = {
        "message": datasets.Value("string"),
        "liked": datasets.Value("bool"),
        "sender": datasets.ClassLabel(names=_SENDERS),
        "facts": [fact],
        "message_id": datasets.Value("string"),
        "dialog_acts": [datasets.Value("string")],
    }
    return datasets.Features(
        {
            "messages": [message],
            "known_entities": [datasets.Value("string")],
            "focus_entity": datasets.Value("string"),
            "dialog_id": datasets.Value("int32"),
            "inferred_steps": datasets.Value("bool"),
            "created_time": datasets.Value("int64"),
            "aspects": [datasets.Value("string")],
            "first_aspect": datasets.Value("string"),
            "second_aspect": datasets.Value("string"),
            "shuffle_facts": datasets.Value("bool"),
            "related_entities": [datasets.Value("string")],
            "tag": datasets.Value("string"),
            "user_id": datasets.Value("int32"),
            "assistant_id": datasets.Value("int32"),
            "is_annotated": datasets.Value("bool"),
            "user_dialog_rating": datasets.Value("int32"),
            "user_other_agent_rating": datasets.Value("int32"),
            "assistant_dialog_rating": datasets.Value("int32"),
            "assistant_other_agent_rating": datasets.Value("int32"),
            "reported": datasets.Value("bool"),
            "annotated": datasets.Value("bool"),
        }
    )


class CuriosityDialogs(SourceBuilder, datasets.GeneratorBasedBuilder):
    """Curiosity dialogs: user/assistant conversations about geography, with facts and dialog acts."""

    VERSION = _VERSION
    BUILDER_CONFIGS = _CONFIGS
    DEFAULT_CONFIG_NAME = "dialogs"

    def _features(self):
        return _dialog_features()

    def _split_generators(self, dl_manager):
        paths = {split: files[0] for split, files in self.config.files.items()}
        local = local_files(self.config.data_dir, dl_manager, list(paths.values()), _URLS)
        return [
            datasets.SplitGenerator(name=split, gen_kwargs={"filepath": local[path], "source": path})
            for split, path in paths.items()
        ]

    def _generate_examples(self, filepath, source):
        for index, dialog in _read_dialogs(filepath, source):
            yield str(index), dialog


def _count_source_records(config, split, local_paths):
    """Source records of a split, counted without the typing above: the length of the `dialogs`
    list, read with json.loads alone."""
    with xopen(local_paths[0], "rb") as f:
        return len(json.load(f)["dialogs"])


def _read_dialogs(filepath, source):
    """Yield (position in the `dialogs` list, typed dialog) for one split file.

    The file is one JSON document, so it is parsed whole; the raw bytes are dropped before the
    first dialog is yielded, and each raw dialog is dropped as soon as its typed copy is made.
    """
    with xopen(filepath, "rb") as f:
        data = f.read()
    # An empty file too: datasets cannot load an empty split, and every release file has dialogs.
    check_is_data(data[:512], source, "a JSON object with a 'dialogs' list")
    text = utf8(data, source)
    del data
    # Errors inside a dialog name it: `<file>, dialog 3: field 'messages'[0]['message']: ...`.
    document = loads(text, source, records=("dialogs", "dialog"))
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


def _string(record, field, where, nullable=False):
    value = record[field]
    if isinstance(value, str) or (nullable and value is None):
        return value
    raise invalid(where, field, value, "a string or null" if nullable else "a string")


def _boolean(record, field, where):
    value = record[field]
    if value is True or value is False:
        return value
    raise invalid(where, field, value, "true or false")


def _integer(record, field, where, domain, expected):
    value = record[field]
    if type(value) is int and value in domain:  # bool is not an int here
        return value
    raise invalid(where, field, value, expected)


def _strings(record, field, where):
    value = record[field]
    if not isinstance(value, list):
        raise invalid(where, field, value, "a list of strings")
    for index, item in enumerate(value):
        if not isinstance(item, str):
            raise invalid(where, (field, index), item, "a string")
    return value


def _label(record, field, where, names):
    value = record[field]
    if isinstance(value, str) and value in names:
        return value
    raise invalid(where, field, value, " or ".join(repr(name) for name in names))


def _worker_id(record, field, where):
    """Worker ids are strings of decimal digits upstream ("314"); they become int32."""
    value = record[field]
    if isinstance(value, str) and _DIGITS.fullmatch(value) and str(int(value)) == value and int(value) < 2**31:
        return int(value)
    raise invalid(where, field, value, "a string of decimal digits without leading zeros, below 2**31")


def _typed_dialog(record, where):
    check_fields(record, _DIALOG_KEYS, where)
    rating = "an integer from 1 to 5"
    # Checked in upstream key order, so the first bad field is the one reported. A dialog without
    # messages (upstream's reader skips them; none is known) would be kept, with `messages: []`.
    return {
        "messages": _list_of(record, "messages", where, "message", _typed_message),
        "known_entities": _strings(record, "known_entities", where),
        "focus_entity": _string(record, "focus_entity", where),
        "dialog_id": _integer(record, "dialog_id", where, _INT32, "an int32 integer"),
        "inferred_steps": _boolean(record, "inferred_steps", where),
        "created_time": _integer(record, "created_time", where, _INT64, "an int64 integer (Unix seconds)"),
        "aspects": _strings(record, "aspects", where),
        "first_aspect": _string(record, "first_aspect", where, nullable=True),
        "second_aspect": _string(record, "second_aspect", where, nullable=True),
        "shuffle_facts": _boolean(record, "shuffle_facts", where),
        "related_entities": _strings(record, "related_entities", where),
        "tag": _string(record, "tag", where),
        "user_id": _worker_id(record, "user_id", where),
        "assistant_id": _worker_id(record, "assistant_id", where),
        "is_annotated": _boolean(record, "is_annotated", where),
        "user_dialog_rating": _integer(record, "user_dialog_rating", where, _RATINGS, rating),
        "user_other_agent_rating": _integer(record, "user_other_agent_rating", where, _RATINGS, rating),
        "assistant_dialog_rating": _integer(record, "assistant_dialog_rating", where, _RATINGS, rating),
        "assistant_other_agent_rating": _integer(record, "assistant_other_agent_rating", where, _RATINGS, rating),
        "reported": _boolean(record, "reported", where),
        "annotated": _boolean(record, "annotated", where),
    }


def _typed_message(record, where):
    check_fields(record, _MESSAGE_KEYS, where)
    return {
        "message": _string(record, "message", where),  # may be ""
        "liked": _boolean(record, "liked", where),
        "sender": _label(record, "sender", where, _SENDERS),
        "facts": _list_of(record, "facts", where, "fact", _typed_fact),  # [] for user messages
        "message_id": _digit_string(record, "message_id", where),
        # Upstream's reader treats `dialog_acts: null` as no acts (never seen in the data): [] here.
        "dialog_acts": [] if record["dialog_acts"] is None else _strings(record, "dialog_acts", where),
    }


def _typed_fact(record, where):
    check_fields(record, _FACT_KEYS, where)
    return {
        "fid": _integer(record, "fid", where, _INT32, "an int32 integer"),
        "used": _boolean(record, "used", where),
        "source": _label(record, "source", where, _FACT_SOURCES),
    }


def _list_of(record, field, where, item, typed):
    """A list of JSON objects, each typed by `typed`; errors name the item's index."""
    value = record[field]
    if not isinstance(value, list):
        raise invalid(where, field, value, f"a list of {item}s")
    return [typed(element, f"{where}, {item} {index}") for index, element in enumerate(value)]


def _digit_string(record, field, where):
    """Message ids are strings of decimal digits; they stay strings (leading zeros kept)."""
    value = record[field]
    if isinstance(value, str) and _DIGITS.fullmatch(value):
        return value
    raise invalid(where, field, value, "a string of decimal digits")
