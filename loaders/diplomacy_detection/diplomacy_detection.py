"""Diplomacy deception dialogs: the messages between pairs of players in 12 online games of
Diplomacy, each labelled by its sender (truthful or deceptive?) and its receiver (believed?).
Source: the JSON Lines files of DenisPeskov/2020_acl_diplomacy at a pinned commit; their format
and quirks are in FORMAT.md beside this file.
"""

import dataclasses
import json

import datasets
from datasets.utils.file_utils import xopen

from corpora.loader_shared.builder_base import SourceBuilder
from corpora.loader_shared.builder_base import SourceConfig
from corpora.loader_shared.fields import INVALID
from corpora.loader_shared.fields import boolean
from corpora.loader_shared.fields import checked
from corpora.loader_shared.fields import features
from corpora.loader_shared.fields import integer
from corpora.loader_shared.fields import label
from corpora.loader_shared.fields import string
from corpora.loader_shared.fields import typed
from corpora.loader_shared.loader_common import check_is_data
from corpora.loader_shared.loader_common import invalid
from corpora.loader_shared.loader_common import local_files
from corpora.loader_shared.loader_common import utf8
from corpora.loader_shared.strict_json import check_fields
from corpora.loader_shared.strict_json import loads

_CITATION = """\
@inproceedings{Peskov:Cheng:Elgohary:Barrow:Danescu-Niculescu-Mizil:Boyd-Graber-2020,
    title = {It Takes Two to Lie: One to Lie and One to Listen},
    author = {Denis Peskov and Benny Cheng and Ahmed Elgohary and Joe Barrow and
      Cristian Danescu-Niculescu-Mizil and Jordan Boyd-Graber},
    booktitle = {Association for Computational Linguistics},
    year = {2020},
    location = {Seattle},
}
"""

_DESCRIPTION = """\
Messages exchanged between pairs of players in games of Diplomacy, each labelled by its sender as
truthful or deceptive (ACTUAL_LIE) and, where the receiver answered, by its receiver as believed or
suspected (SUSPECTED_LIE).
"""

_HOMEPAGE = "https://sites.google.com/view/qanta/projects/diplomacy"

_LICENSE = "unknown"  # the repository has no LICENSE file

_COMMIT = "b230a4d1c04c02cab4c0a41679806812be82cae0"
_URL_PREFIX = f"https://raw.githubusercontent.com/DenisPeskov/2020_acl_diplomacy/{_COMMIT}/"

# Paths relative to the upstream repository root: the layout a `data_dir` copy must mirror.
_SPLIT_PATHS = {
    "train": "data/train.jsonl",
    "validation": "data/validation.jsonl",
    "test": "data/test.jsonl",
}
_SPLIT_FILES = {split: [path] for split, path in _SPLIT_PATHS.items()}
_VERSION = datasets.Version("2.0.0")

# --- the fields: each declared once; the features, a dialog's keys and the checks derive from them

_COUNTRIES = ["austria", "england", "france", "germany", "italy", "russia", "turkey"]
_SEASONS = ["Spring", "Fall", "Winter"]
_YEARS = range(1901, 1919)  # quirk 5, documented-ranges
_SCORES = range(0, 19)
_SCORE_DELTAS = range(-18, 19)


def _players(value):
    valid = isinstance(value, list) and len(value) == 2 and value[0] != value[1]
    return value if valid and all(p in _COUNTRIES for p in value) else INVALID


_INDEX = integer(range(2**31))
# A message's fields as named in `messages`; `key` is its upstream list, named so in `conversations`.
_PER_MESSAGE = {
    "message": string(key="messages"),
    "sender_label": boolean(key="sender_labels"),
    "receiver_label": boolean(nulls=("NOANNOTATION",), key="receiver_labels"),  # quirk 1, noannotation
    "speaker": label(_COUNTRIES, key="speakers"),
    "receiver": label(_COUNTRIES, key="receivers"),
    "absolute_message_index": _INDEX,
    "relative_message_index": _INDEX,
    "season": label(_SEASONS, key="seasons"),
    "year": integer(_YEARS, text=True, key="years"),
    "game_score": integer(_SCORES, text=True),  # quirk 2, numbers-as-strings
    "game_score_delta": integer(_SCORE_DELTAS, text=True),
}
_PER_DIALOG = {
    "players": checked([label(_COUNTRIES).feature], _players, f"two different countries of {_COUNTRIES}"),
    "game_id": integer(range(1, 13)),
}
_MESSAGE_FIELDS = {field.source(name): name for name, field in _PER_MESSAGE.items()}
_DIALOG_KEYS = list(_MESSAGE_FIELDS) + list(_PER_DIALOG)

_CONTENT = "JSON Lines, one dialog per line"


# --- the readers ---------------------------------------------------------------------------------

def _count_records(config, split, local_paths):
    """Source records of a split, counted with json.loads alone: dialogs, or their messages."""
    count = 0
    with xopen(local_paths[0], "rb") as f:
        for line in f:
            if line.strip():
                count += len(json.loads(line)["messages"]) if config.per_message else 1
    return count


def _read_dialogs(filepath, source):
    """Yield (line number, typed dialog) for every line of one split file."""
    line_number = 0
    with xopen(filepath, "rb") as f:  # bytes: xopen passes no text encoding through to HTTP streams
        for line_number, raw in enumerate(f, start=1):
            where = f"{source}, line {line_number}"
            if line_number == 1:
                check_is_data(raw, source, _CONTENT)
            record = loads(utf8(raw, source, line_number), where)
            yield line_number, _typed_dialog(record, where)
    if line_number == 0:  # every release file has dialogs, and datasets cannot load an empty split
        check_is_data(b"", source, _CONTENT)


def _typed_dialog(record, where):
    check_fields(record, _DIALOG_KEYS, where)
    length = None
    for key in _MESSAGE_FIELDS:
        if not isinstance(record[key], list):
            raise invalid(where, key, record[key], "a list")
        if length is None:
            length = len(record[key])
        elif len(record[key]) != length:
            raise ValueError(
                f"{where}: field {key!r} has {len(record[key])} items but 'messages' has {length}"
            )
    dialog_fields = typed(_PER_DIALOG, record, where)
    dialog = {}
    for key, name in _MESSAGE_FIELDS.items():
        dialog[key] = _PER_MESSAGE[name].values(record[key], where, key)
    dialog.update(dialog_fields)
    return dialog


# --- the configs and the builder: official sizes from the paper, the upstream README and the old HF dataset_infos.json
@dataclasses.dataclass
class DiplomacyConfig(SourceConfig):
    """A config; `per_message`: one example per message, rather than per dialog."""

    per_message: bool = False


_CONFIGS = [
    DiplomacyConfig(
        name="conversations",
        version=_VERSION,
        description="One example per dialog (pair of players in one game), per-message fields as parallel lists.",
        # Python lists, not datasets.Sequence: the same feature type and card YAML on datasets 3.6 and 5.x.
        features=datasets.Features({
            **{key: [_PER_MESSAGE[name].feature] for key, name in _MESSAGE_FIELDS.items()},
            **features(_PER_DIALOG),
        }),
        files=_SPLIT_FILES,
        url_prefix=_URL_PREFIX,
        split_sizes={"train": 189, "validation": 21, "test": 42},
        key=("game_id", "players"),
        license=_LICENSE,
        counter=_count_records,
    ),
    DiplomacyConfig(
        name="messages",
        version=_VERSION,
        description="One example per message, with its dialog's game_id and players.",
        features=datasets.Features({**features(_PER_MESSAGE), **features(_PER_DIALOG)}),
        files=_SPLIT_FILES,
        url_prefix=_URL_PREFIX,
        split_sizes={"train": 13132, "validation": 1416, "test": 2741},
        key=("game_id", "absolute_message_index"),
        license=_LICENSE,
        counter=_count_records,
        per_message=True,
    ),
]


class DiplomacyDetection(SourceBuilder, datasets.GeneratorBasedBuilder):
    """Diplomacy dialogs with sender and receiver deception labels."""

    VERSION = _VERSION
    RELEASE_NOTES = {  # version -> what changed for users; a part about some configs: {"only": [...], "text": ...}
        "2.0.0": [
            "Initial release of this loader, numbered above the earlier Hugging Face loader (1.1.0), whose data it "
            "changes: new class label ids, booleans and integers for its class labels (see the card's Migrating from "
            "the Earlier Hub Loader).",
            {"only": ["messages"], "text": "A new config, messages, one example per message."},
        ],
    }
    BUILDER_CONFIG_CLASS = DiplomacyConfig
    BUILDER_CONFIGS = _CONFIGS
    DEFAULT_CONFIG_NAME = "conversations"

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

    def _generate_examples(self, filepath, source):
        for line_number, dialog in _read_dialogs(filepath, source):
            if not self.config.per_message:
                yield str(line_number), dialog
                continue
            dialog_fields = {name: dialog[name] for name in _PER_DIALOG}
            for position in range(len(dialog["messages"])):
                example = {one: dialog[plural][position] for plural, one in _MESSAGE_FIELDS.items()}
                example.update(dialog_fields)
                yield f"{line_number}-{position}", example
