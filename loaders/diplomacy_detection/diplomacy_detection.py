"""Diplomacy deception dialogs: messages between pairs of players in 12 online games of
Diplomacy, labelled by their sender (truthful or deceptive?) and by their receiver (believed?).

Source: the three JSON Lines files of DenisPeskov/2020_acl_diplomacy, pinned to its last commit.
Every line is one dialog with 11 parallel per-message lists. Upstream stores numbers as strings
(a few as the JSON integer 0) and mixes booleans with "NOANNOTATION" in receiver labels; this
builder types them and stops on any value outside the documented domain.
"""

import json

import datasets
from datasets.utils.file_utils import xopen

from ._builder_base import SourceBuilder
from ._builder_base import SourceConfig
from ._loader_common import check_is_data
from ._loader_common import invalid
from ._loader_common import local_files
from ._loader_common import utf8
from ._strict_json import check_fields
from ._strict_json import loads

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
17,289 messages exchanged between pairs of players in 12 games of Diplomacy, each labelled by its
sender as truthful or deceptive (ACTUAL_LIE) and, where the receiver answered, by its receiver as
believed or suspected (SUSPECTED_LIE).
"""

_HOMEPAGE = "https://sites.google.com/view/qanta/projects/diplomacy"

# The upstream repository has no LICENSE file.
_LICENSE = "unknown"

_COMMIT = "b230a4d1c04c02cab4c0a41679806812be82cae0"
_URL_PREFIX = f"https://raw.githubusercontent.com/DenisPeskov/2020_acl_diplomacy/{_COMMIT}/"

# Paths relative to the upstream repository root: the layout a `data_dir` copy must mirror.
# Both configs read the same file per split. Sizes and sha256 of the pinned files are in
# checksums.tsv beside this file (`corpora build` checks them; this builder does not need them).
_SPLIT_PATHS = {
    "train": "data/train.jsonl",
    "validation": "data/validation.jsonl",
    "test": "data/test.jsonl",
}
_URLS = {path: _URL_PREFIX + path for path in _SPLIT_PATHS.values()}
_SPLIT_FILES = {split: [path] for split, path in _SPLIT_PATHS.items()}
_VERSION = datasets.Version("2.0.0")

# Official sizes: the paper, upstream README and the old Hugging Face dataset_infos.json. A dialog
# is one pair of players in one game (its key), a message has its index in the whole game.
_CONFIGS = [
    SourceConfig(
        name="conversations",
        version=_VERSION,
        description="One example per dialog (pair of players in one game), per-message fields as parallel lists.",
        files=_SPLIT_FILES,
        split_sizes={"train": 189, "validation": 21, "test": 42},
        key=("game_id", "players"),
    ),
    SourceConfig(
        name="messages",
        version=_VERSION,
        description="One example per message, with its dialog's game_id and players.",
        files=_SPLIT_FILES,
        split_sizes={"train": 13132, "validation": 1416, "test": 2741},
        key=("game_id", "absolute_message_index"),
    ),
]

_COUNTRIES = ["austria", "england", "france", "germany", "italy", "russia", "turkey"]
_SEASONS = ["Spring", "Fall", "Winter"]
# Documented domains (upstream README); the data stops at 1910 and a score of 17.
_YEARS = range(1901, 1919)
_SCORES = range(0, 19)
_SCORE_DELTAS = range(-18, 19)

# Upstream per-message keys (parallel lists) and their singular names in the `messages` config.
_MESSAGE_FIELDS = {
    "messages": "message",
    "sender_labels": "sender_label",
    "receiver_labels": "receiver_label",
    "speakers": "speaker",
    "receivers": "receiver",
    "absolute_message_index": "absolute_message_index",
    "relative_message_index": "relative_message_index",
    "seasons": "season",
    "years": "year",
    "game_score": "game_score",
    "game_score_delta": "game_score_delta",
}
_DIALOG_KEYS = list(_MESSAGE_FIELDS) + ["players", "game_id"]

# How errors name what a file and a value should be.
_CONTENT = "JSON Lines, one dialog per line"
_ONE_COUNTRY = "one of " + ", ".join(map(repr, _COUNTRIES))
_INDEX = "a JSON integer from 0 to 2**31 - 1"
_INVALID = object()  # what a value's check returns for a value outside its domain


def _message_features():
    return {
        "message": datasets.Value("string"),
        "sender_label": datasets.Value("bool"),
        "receiver_label": datasets.Value("bool"),
        "speaker": datasets.ClassLabel(names=_COUNTRIES),
        "receiver": datasets.ClassLabel(names=_COUNTRIES),
        "absolute_message_index": datasets.Value("int32"),
        "relative_message_index": datasets.Value("int32"),
        "season": datasets.ClassLabel(names=_SEASONS),
        "year": datasets.Value("int32"),
        "game_score": datasets.Value("int32"),
        "game_score_delta": datasets.Value("int32"),
    }


class DiplomacyDetection(SourceBuilder, datasets.GeneratorBasedBuilder):
    """Diplomacy dialogs with sender and receiver deception labels."""

    VERSION = _VERSION
    BUILDER_CONFIGS = _CONFIGS
    DEFAULT_CONFIG_NAME = "conversations"

    def _features(self):
        per_message = _message_features()
        dialog = {
            "players": [datasets.ClassLabel(names=_COUNTRIES)],
            "game_id": datasets.Value("int32"),
        }
        if self.config.name == "conversations":
            # Python lists, not datasets.Sequence: the same feature type and the same card YAML on
            # datasets 3.6 and 5.x.
            features = {plural: [per_message[one]] for plural, one in _MESSAGE_FIELDS.items()}
            features.update(dialog)
        else:
            features = dict(per_message, **dialog)
        return datasets.Features(features)

    def _split_generators(self, dl_manager):
        paths = {split: files[0] for split, files in self.config.files.items()}
        local = local_files(self.config.data_dir, dl_manager, list(paths.values()), _URLS)
        return [
            datasets.SplitGenerator(name=split, gen_kwargs={"filepath": local[path], "source": path})
            for split, path in paths.items()
        ]

    def _generate_examples(self, filepath, source):
        for line_number, dialog in _read_dialogs(filepath, source):
            if self.config.name == "conversations":
                yield str(line_number), dialog
                continue
            dialog_fields = {"players": dialog["players"], "game_id": dialog["game_id"]}
            for position in range(len(dialog["messages"])):
                example = {one: dialog[plural][position] for plural, one in _MESSAGE_FIELDS.items()}
                example.update(dialog_fields)
                yield f"{line_number}-{position}", example


def _count_source_records(config, split, local_paths):
    """Source records of a split, counted without the typing above: one dialog per non-empty
    line, and for `messages` the length of each dialog's `messages` list (json.loads alone)."""
    count = 0
    with xopen(local_paths[0], "rb") as f:
        for line in f:
            if line.strip():
                count += 1 if config == "conversations" else len(json.loads(line)["messages"])
    return count


def _read_dialogs(filepath, source):
    """Yield (line number, typed dialog) for every line of one split file."""
    # Binary lines, decoded here: xopen passes no text encoding through to HTTP streams.
    line_number = 0
    with xopen(filepath, "rb") as f:
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

    def check(key, convert, expected):
        values = []
        for position, value in enumerate(record[key]):
            typed = convert(value)
            if typed is _INVALID:
                raise invalid(where, (key, position), value, expected)
            values.append(typed)
        return values

    players = record["players"]
    valid = isinstance(players, list) and len(players) == 2 and players[0] != players[1]
    if not valid or any(p not in _COUNTRIES for p in players):
        raise invalid(where, "players", players, f"two different countries of {_COUNTRIES}")
    game_id = record["game_id"]
    if type(game_id) is not int or not 1 <= game_id <= 12:
        raise invalid(where, "game_id", game_id, "an integer from 1 to 12")
    return {
        "messages": check("messages", lambda v: v if isinstance(v, str) else _INVALID, "a string"),
        "sender_labels": check("sender_labels", lambda v: v if isinstance(v, bool) else _INVALID, "true or false"),
        # "NOANNOTATION": the receiver gave no answer.
        "receiver_labels": check(
            "receiver_labels",
            lambda v: None if v == "NOANNOTATION" else v if isinstance(v, bool) else _INVALID,
            "true, false or 'NOANNOTATION'",
        ),
        "speakers": check("speakers", lambda v: v if v in _COUNTRIES else _INVALID, _ONE_COUNTRY),
        "receivers": check("receivers", lambda v: v if v in _COUNTRIES else _INVALID, _ONE_COUNTRY),
        "absolute_message_index": check("absolute_message_index", _index, _INDEX),
        "relative_message_index": check("relative_message_index", _index, _INDEX),
        "seasons": check("seasons", lambda v: v if v in _SEASONS else _INVALID, " or ".join(map(repr, _SEASONS))),
        "years": check("years", lambda v: _integer(v, _YEARS), _range(_YEARS)),
        "game_score": check("game_score", lambda v: _integer(v, _SCORES), _range(_SCORES)),
        "game_score_delta": check("game_score_delta", lambda v: _integer(v, _SCORE_DELTAS), _range(_SCORE_DELTAS)),
        "players": players,
        "game_id": game_id,
    }


def _range(domain):
    """How an error names a domain of integers (written as decimal strings or JSON integers)."""
    return f"an integer from {domain.start} to {domain.stop - 1}"


def _index(value):
    """Message positions are JSON integers upstream; anything else is an error."""
    return value if type(value) is int and 0 <= value < 2**31 else _INVALID


def _integer(value, domain):
    """An int from a decimal string ("12", "-3") or a JSON integer (upstream has a few 0s)."""
    if type(value) is int:
        number = value
    elif isinstance(value, str):
        try:
            number = int(value)
        except ValueError:
            return _INVALID
        if str(number) != value:  # rejects " 3", "+3", "03"
            return _INVALID
    else:
        return _INVALID
    return number if number in domain else _INVALID
