"""The names legacy loading scripts use that datasets has removed since (`corpora convert`).

Each is patched in by `legacy_names()` while a conversion runs, and taken out after it;
docs/converting.md lists them with the datasets version that removed each.
"""

from __future__ import annotations

import contextlib
import dataclasses
import sys
import types

import datasets
import datasets.info

from corpora.datasets_adapter import DatasetsChanged
from corpora.errors import CorporaError

_TASKS = {  # datasets.tasks (removed in 3.0): each template's task and columns, in their order
    "AudioClassification": ("audio-classification", ("audio_column", "audio"), ("label_column", "labels")),
    "AutomaticSpeechRecognition": ("automatic-speech-recognition", ("audio_column", "audio"),
                                   ("transcription_column", "transcription")),
    "ImageClassification": ("image-classification", ("image_column", "image"), ("label_column", "labels")),
    "LanguageModeling": ("language-modeling", ("text_column", "text")),
    "QuestionAnsweringExtractive": ("question-answering-extractive", ("question_column", "question"),
                                    ("context_column", "context"), ("answers_column", "answers")),
    "Summarization": ("summarization", ("text_column", "text"), ("summary_column", "summary")),
    "TextClassification": ("text-classification", ("text_column", "text"), ("label_column", "labels")),
}


@dataclasses.dataclass(frozen=True)
class TaskTemplate:
    """A stand-in for datasets 2.x's task templates: what a script states of its task, kept (the
    card may read `task`), with no effect on the rows (2.x's had none either)."""

    task: str


def _task_module():
    module = types.ModuleType("datasets.tasks", "Stand-ins for datasets.tasks (removed in datasets 3.0).")
    module.TaskTemplate = TaskTemplate
    for name, (task, *columns) in _TASKS.items():
        fields = [("task", str, dataclasses.field(default=task))]
        fields += [(column, str, dataclasses.field(default=default)) for column, default in columns]
        setattr(module, name, dataclasses.make_dataclass(name, fields, bases=(TaskTemplate,), frozen=True,
                                                         namespace={"__module__": "datasets.tasks"}))
    module.__all__ = ["TaskTemplate", *_TASKS]
    return module


@dataclasses.dataclass
class LegacyDatasetInfo(datasets.DatasetInfo):
    """DatasetInfo that still takes `task_templates=` (removed in datasets 3.0): kept as given."""

    task_templates: list | None = None

    def __post_init__(self):
        super().__post_init__()
        if isinstance(self.task_templates, TaskTemplate):
            self.task_templates = [self.task_templates]


@dataclasses.dataclass
class LegacyDownloadConfig(datasets.DownloadConfig):
    """DownloadConfig that still takes `use_auth_token=` (removed in datasets 3.0) as `token`."""

    use_auth_token: dataclasses.InitVar[str | bool | None] = "deprecated"

    def __post_init__(self, use_auth_token):
        if hasattr(super(), "__post_init__"):  # 5.x's
            super().__post_init__()
        if use_auth_token != "deprecated":
            self.token = use_auth_token


class LegacyFeatureDict(dict):
    """A `Sequence` of a dict as 2.x and 3.x laid it out, a dict of lists; marked until `Features`
    copies it, so that an outer `Sequence` of it is a list of it, not a dict of lists of lists."""


class LegacySequence:
    """`Sequence` as datasets 2.x and 3.x meant it, in the feature types of 4.x and 5.x."""

    def __new__(cls, feature=None, length=-1, id=None):
        if isinstance(feature, dict) and not isinstance(feature, LegacyFeatureDict):
            return LegacyFeatureDict({key: datasets.List(value, length=length) for key, value in feature.items()})
        return datasets.List(feature, length=length, id=id)


def _removed(name: str, version: str):
    def call(*args, **kwargs):
        raise CorporaError(f"the script calls datasets.{name}, which datasets {version} removed; the converter "
                           "has no stand-in for it")

    call.__name__ = name
    return call


def _patches() -> list[tuple[object, str, object]]:
    """(owner, attribute, stand-in) for each removed name the installed datasets lacks."""
    tasks = _task_module()
    patches = [(sys.modules, "datasets.tasks", tasks), (datasets, "tasks", tasks)]
    patches += [(datasets, name, getattr(tasks, name)) for name in tasks.__all__]
    patches += [(datasets, "DatasetInfo", LegacyDatasetInfo), (datasets.info, "DatasetInfo", LegacyDatasetInfo)]
    patches += [(owner, "DownloadConfig", LegacyDownloadConfig) for owner in (datasets, datasets.download)]
    patches += [(datasets.DatasetBuilder, "use_auth_token", property(lambda builder: builder.token))]
    patches += [(datasets, name, _removed(name, "3.0")) for name in ("inspect_dataset", "load_metric")]
    if hasattr(datasets, "List"):  # datasets 4.0 made Sequence of a dict a list of dicts
        patches += [(owner, "Sequence", LegacySequence) for owner in (datasets, datasets.features)]
    replaced = ("DatasetInfo", "DownloadConfig", "Sequence")  # the others are added where missing
    return [(owner, name, value) for owner, name, value in patches if name in replaced
            or ((name not in owner) if isinstance(owner, dict) else not hasattr(owner, name))]


_ABSENT = object()
_active = []  # the patches in place (one conversion at a time in a process)


@contextlib.contextmanager
def legacy_names():
    """The stand-ins for removed names in place while the block runs (a conversion); the
    installed datasets as it was after."""
    if _active:
        raise RuntimeError("legacy_names() is already active")
    for owner, name, value in _patches():
        before = owner.get(name, _ABSENT) if isinstance(owner, dict) else getattr(owner, name, _ABSENT)
        _active.append((owner, name, before))
        if isinstance(owner, dict):
            owner[name] = value
        else:
            setattr(owner, name, value)
    try:
        yield
    finally:
        for owner, name, before in reversed(_active):
            if isinstance(owner, dict):
                owner.pop(name, None) if before is _ABSENT else owner.__setitem__(name, before)
            elif before is _ABSENT:
                delattr(owner, name)
            else:
                setattr(owner, name, before)
        _active.clear()


def legacy_builder(builder: datasets.DatasetBuilder) -> None:
    """A legacy script's builder made to run as on datasets 2.x. Its info keeps its task templates
    when copied (datasets 3.x makes the info of the recorded infos, then adds the script's to it).
    On 3.x, a `Sequence` of a dict in its features is spelled as the dict of lists it is (the same
    Arrow type), as 4.x and 5.x spell it: what reads features (cards, statistics) sees one form.
    It accepts what a script yields for such a dict of lists as 2.x did: a list of dicts, which 2.x
    turned into the dict of lists (a key an item lacks: None). A list where a dict of lists is
    expected is refused by datasets, so nothing it accepts changes."""
    if "task_templates" in vars(builder.info) and not isinstance(builder.info, LegacyDatasetInfo):
        builder.info.__class__ = LegacyDatasetInfo  # the same fields, and one more
    if builder.info.features is None:
        return
    if not hasattr(datasets, "List"):
        builder.info.features = _spelled_as_dict_of_lists(builder.info.features)
    convert = _converter(builder.info.features)
    if convert is None or isinstance(builder, datasets.ArrowBasedBuilder):
        return
    if not callable(getattr(builder, "_generate_examples", None)):
        raise DatasetsChanged(f"{type(builder).__name__}._generate_examples", "no such method")
    generate = builder._generate_examples

    def converted(**gen_kwargs):
        for key, example in generate(**gen_kwargs):
            yield key, convert(example)

    builder._generate_examples = converted


def _spelled_as_dict_of_lists(feature):
    """datasets 3.x's `Sequence` of a dict as the dict of `Sequence`s it stands for, a sequence of
    such a dict as a list of it: the same Arrow types, in the form 4.x and 5.x give."""
    if isinstance(feature, dict):
        return type(feature)({key: _spelled_as_dict_of_lists(value) for key, value in feature.items()})
    if isinstance(feature, list):
        return [_spelled_as_dict_of_lists(feature[0])]
    if type(feature).__name__ == "LargeList":
        return type(feature)(_spelled_as_dict_of_lists(feature.feature))
    if isinstance(feature, datasets.Sequence):
        if isinstance(feature.feature, dict):
            return {key: _list_of(_spelled_as_dict_of_lists(value), feature.length)
                    for key, value in feature.feature.items()}
        return _list_of(_spelled_as_dict_of_lists(feature.feature), feature.length)
    return feature


def _list_of(item, length: int):
    if isinstance(item, dict) and length == -1:  # a Sequence of it would be a dict of lists again
        return [item]
    return datasets.Sequence(item, length=length)


def _converter(schema, top: bool = True):
    """A function that puts a value of `schema` in the layout datasets encodes, or None where no
    part of `schema` is a dict of lists (the value passes as it is). A dict of lists (below the
    top, where a Sequence of a dict may be) takes its value as 2.x did: a list of dicts, or a dict
    whose values are iterated (a text yields its characters, as 2.x gave them)."""
    from corpora.feature_spelling import list_item

    item_feature = list_item(schema)
    if item_feature is not None:
        item = _converter(item_feature, top=False)
        return None if item is None else (lambda value: value if value is None else [item(one) for one in value])
    if not isinstance(schema, dict):
        return None
    inside = {key: _converter(sub, top=False) for key, sub in schema.items()}
    inside = {key: convert for key, convert in inside.items() if convert is not None}
    of_lists = not top and bool(schema) and all(list_item(sub) is not None for sub in schema.values())
    if not of_lists and not inside:
        return None
    items = {key: _converter(list_item(sub), top=False) or _same for key, sub in schema.items()} if of_lists else {}

    def convert(value):
        if of_lists and isinstance(value, (list, tuple)):  # a list of dicts
            return {key: [item(one.get(key)) for one in value] for key, item in items.items()}
        if of_lists and isinstance(value, dict):
            return {key: None if value.get(key) is None else [item(one) for one in value[key]]
                    for key, item in items.items()}
        if inside and isinstance(value, dict):
            return {**value, **{key: convert(value.get(key)) for key, convert in inside.items()}}
        return value

    return convert


def _same(value):
    return value
