"""The one place that touches private parts of `datasets` (on 3.6 and 5.x alike).

Everything else uses datasets' public API. If a datasets release changes one of these parts,
the functions here raise `DatasetsChanged` naming it, and tests/test_export_safety.py fails on it.
"""

from __future__ import annotations

import contextlib
import copyreg
import dataclasses
import sys
import types

import datasets
import datasets.info
from datasets.exceptions import DatasetGenerationError

from corpora.errors import CorporaError


class DatasetsChanged(RuntimeError):
    """A private part of datasets this package relies on is gone or changed."""

    def __init__(self, part: str, detail: str):
        version = datasets.__version__
        super().__init__(f"datasets {version} changed {part}: {detail}; update corpora/datasets_adapter.py")


def declared_info(builder_class: type[datasets.DatasetBuilder], config_name: str) -> datasets.DatasetInfo:
    """The info (texts, license, features) a builder declares for a config, without instantiating it
    (which would create cache folders and, on datasets 3.6, read the generated card): `_info()` on a
    bare instance."""
    if not callable(getattr(builder_class, "_info", None)):
        raise DatasetsChanged(f"{builder_class.__name__}._info", "no such method")
    builder = builder_class.__new__(builder_class)
    builder.config = next(c for c in builder_class.BUILDER_CONFIGS if c.name == config_name)
    return builder._info()


def observe_tables(builder: datasets.DatasetBuilder, observe) -> bool:
    """Have `observe(split, table)` called with each Arrow table an Arrow-based builder generates,
    in order, as datasets takes it to write its cache; in this process only (not with num_proc:
    worker processes run copies of the builder). False, and nothing done, for a builder of
    examples (they become tables inside datasets' writer)."""
    if not isinstance(builder, datasets.ArrowBasedBuilder):
        return False
    for part in ("_prepare_split", "_generate_tables"):
        if not callable(getattr(builder, part, None)):
            raise DatasetsChanged(f"ArrowBasedBuilder.{part}", "no such method")
    prepare_split, generate_tables = builder._prepare_split, builder._generate_tables
    current = []  # the split being prepared: datasets passes its SplitGenerator to _prepare_split only

    def prepare_one_split(split_generator, *args, **kwargs):
        current[:] = [split_generator.name]
        try:
            return prepare_split(split_generator, *args, **kwargs)
        finally:
            current.clear()

    def observed_tables(**gen_kwargs):
        if not current:
            raise DatasetsChanged("ArrowBasedBuilder._prepare_split", "tables were generated outside it")
        for key, table in generate_tables(**gen_kwargs):
            observe(current[0], table)
            yield key, table

    # needed: tests/test_parquet_beside.py::test_the_files_written_beside_the_builder_are_those_of_its_cache
    builder._prepare_split, builder._generate_tables = prepare_one_split, observed_tables
    return True


def guard_generation(builder: datasets.DatasetBuilder, guard) -> None:
    """Run each step of the builder's generator of examples (or of Arrow tables) inside `guard()`,
    a context manager: for a stream, where the builder's errors reach the user as they iterate."""
    part = "_generate_tables" if isinstance(builder, datasets.ArrowBasedBuilder) else "_generate_examples"
    if not callable(getattr(builder, part, None)):
        raise DatasetsChanged(f"{type(builder).__name__}.{part}", "no such method")
    generate = getattr(builder, part)

    def guarded(**gen_kwargs):
        items = generate(**gen_kwargs)
        while True:
            with guard():
                item = next(items, _END)
            if item is _END:
                return
            yield item

    setattr(builder, part, guarded)


_END = object()


def own_checks_off(builder: datasets.DatasetBuilder) -> None:
    """datasets' own checks (split sizes, keys within a writer batch, checksums) off for this
    builder: datasets 3.6 reads the sizes recorded beside a script and raises its own errors, in
    its own words, where `corpora convert` runs its checks, the same on every version (convert.checks)."""
    if not callable(getattr(builder, "_download_and_prepare", None)):
        raise DatasetsChanged(f"{type(builder).__name__}._download_and_prepare", "no such method")
    download_and_prepare = builder._download_and_prepare

    def without_checks(dl_manager, verification_mode, **kwargs):
        return download_and_prepare(dl_manager, datasets.VerificationMode.NO_CHECKS, **kwargs)

    builder._download_and_prepare = without_checks


def after_downloads(builder: datasets.DatasetBuilder, check) -> None:
    """`check({url: local path})` called with what the builder's `_split_generators` downloaded,
    once it returns: before any example is generated (where datasets verified checksums)."""
    if not callable(getattr(builder, "_split_generators", None)):
        raise DatasetsChanged(f"{type(builder).__name__}._split_generators", "no such method")
    split_generators = builder._split_generators

    def checked_split_generators(dl_manager, *args, **kwargs):
        generators = split_generators(dl_manager, *args, **kwargs)
        check(dict(getattr(dl_manager, "downloaded_paths", {})))
        return generators

    builder._split_generators = checked_split_generators


@contextlib.contextmanager
def downloads_named(instead):
    """While the block runs, a failed download of a remote URL by datasets (its `get_from_cache`,
    in threads or worker processes too) raises `instead(url, error)` in place of `error`, or
    `error` itself where that gives None: fsspec's FSTimeoutError of a read that stalled names
    no URL, and a download manager fetches several at once."""
    import datasets.utils.file_utils as file_utils

    if not callable(getattr(file_utils, "get_from_cache", None)):
        raise DatasetsChanged("datasets.utils.file_utils.get_from_cache", "no such function")
    get_from_cache = file_utils.get_from_cache

    def named(url, *args, **kwargs):
        try:
            return get_from_cache(url, *args, **kwargs)
        except Exception as error:
            replaced = instead(str(url), error)
            if replaced is None:
                raise
            raise replaced from error

    file_utils.get_from_cache = named
    try:
        yield
    finally:
        file_utils.get_from_cache = get_from_cache


def observe_keys(builder: datasets.GeneratorBasedBuilder, ledger) -> None:
    """Each key the builder's `_generate_examples` yields given to `ledger.writer(split, job)`
    (closed after the job), and `ledger.check(split)` called once the split is generated; in
    worker processes too (num_proc: the ledger travels pickled with the builder, and writes files)."""
    for part in ("_prepare_split", "_prepare_split_single", "_generate_examples"):
        if not callable(getattr(builder, part, None)):
            raise DatasetsChanged(f"GeneratorBasedBuilder.{part}", "no such method")
    prepare_split, prepare_single = builder._prepare_split, builder._prepare_split_single
    generate = builder._generate_examples

    def prepare_one_split(split_generator, *args, **kwargs):
        result = prepare_split(split_generator, *args, **kwargs)
        ledger.check(str(split_generator.name))
        return result

    def prepare_one_job(*, gen_kwargs, split_info, job_id, **kwargs):
        write = ledger.writer(str(split_info.name), job_id)

        def observed(**job_kwargs):
            for key, example in generate(**job_kwargs):
                write(key)
                yield key, example

        builder._generate_examples = observed  # this job's, in this process (a worker runs one job at a time)
        try:
            yield from prepare_single(gen_kwargs=gen_kwargs, split_info=split_info, job_id=job_id, **kwargs)
        finally:
            builder._generate_examples = generate
        write.close()  # after the job's examples were all written: not after an error

    builder._prepare_split, builder._prepare_split_single = prepare_one_split, prepare_one_job


def _reduce_generation_error(error: DatasetGenerationError):
    # A worker sends its error to the parent pickled, and pickling drops __cause__, where datasets
    # keeps the loader's error; multiprocess then puts the worker's traceback text there. So the
    # cause travels as an argument, and comes back as `loader_error` (read by errors.loader_error).
    cause = error.__cause__
    if type(cause).__module__ != "builtins":  # only Python's own errors (a loader's ValueError) are sure to travel
        cause = None
    return _rebuild_generation_error, (error.args, cause)


def _rebuild_generation_error(args, cause):
    error = DatasetGenerationError(*args)
    error.loader_error = cause
    error.__cause__ = cause
    return error


# needed: tests/test_export_stops.py::test_a_bad_record_with_worker_processes_is_the_same_one_line
copyreg.pickle(DatasetGenerationError, _reduce_generation_error)


# --- the names legacy loading scripts use that datasets has removed since (`corpora convert`) -----
# Each is patched in by `legacy_names()` while a conversion runs, and taken out after it;
# docs/converting.md lists them with the datasets version that removed each.

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
