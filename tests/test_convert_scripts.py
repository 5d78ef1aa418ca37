"""Legacy loading scripts run unchanged on the installed datasets (corpora/convert/script.py and
the stand-ins of datasets_adapter.legacy_names): the rows and Arrow layout each legacy-style
script of tests/legacy_scripts/ gave on datasets 2.x, on every leg."""

import importlib
import sys

import datasets
import pyarrow as pa
import pytest

from corpora import datasets_adapter
from corpora.convert import script
from corpora.errors import CorporaError
from helpers.legacy import LEGACY_SCRIPTS
from helpers.legacy import dummy_rows
from helpers.legacy import legacy_script

pytestmark = pytest.mark.both_legs

SPANS_ROWS = [
    {"id": "s1", "spans": {"offsets": [[0, 4], [10, 15, 20]]},
     "entities": {"label": [0, 1], "offsets": [[0, 4], [10, 15]]},
     "sentences": [{"word": ["Anna", "sings"]}, {"word": ["Oslo"]}]},
    {"id": "s2", "spans": {"offsets": []}, "entities": {"label": [], "offsets": []}, "sentences": []},
    {"id": "s3", "spans": {"offsets": [[]]}, "entities": {"label": [1], "offsets": [[]]}, "sentences": [{"word": []}]},
]
# datasets 2.x and 3.x's layout of a Sequence of a dict: a struct of lists, where 4.x and 5.x
# would make `spans` a list of structs.
SPANS_SCHEMA = pa.schema([
    ("id", pa.string()),
    ("spans", pa.struct([("offsets", pa.list_(pa.list_(pa.int32())))])),
    ("entities", pa.struct([("label", pa.list_(pa.int64())), ("offsets", pa.list_(pa.list_(pa.int32())))])),
    ("sentences", pa.list_(pa.struct([("word", pa.list_(pa.string()))]))),
])


def test_a_sequence_of_a_dict_keeps_its_layout_and_takes_lists_of_dicts(tmp_path):
    rows, schemas = dummy_rows(legacy_script("spans", tmp_path), tmp_path / "cache")
    assert rows == {"dicts": {"train": SPANS_ROWS}, "lists": {"train": SPANS_ROWS}}
    assert schemas == {"dicts": {"train": SPANS_SCHEMA}, "lists": {"train": SPANS_SCHEMA}}


def test_a_script_importing_datasets_tasks_without_configs_and_with_a_classlabel(tmp_path):
    folder = legacy_script("tasks_classlabel", tmp_path)
    rows, schemas = dummy_rows(folder, tmp_path / "cache")  # dummy/1.2.0/dummy_data/: no config folder
    assert rows == {"default": {
        "train": [{"text": "Great kettle", "label": 1}, {"text": "Broke in a week", "label": 0},
                  {"text": "Fine, I guess", "label": 1}],
        "test": [{"text": "Never again", "label": 0}],
    }}
    assert schemas["default"]["train"] == pa.schema([("text", pa.string()), ("label", pa.int64())])
    with datasets_adapter.legacy_names():
        builder_class = script.builder_class(script.import_module(script.resolve(str(folder))))
        info = script.make_builder(script.resolve(str(folder)), builder_class, "default", tmp_path / "info").info
        template = info.task_templates[0]
    assert (type(template).__name__, template.task, template.text_column, template.label_column) == (
        "TextClassification", "text-classification", "text", "label")
    assert info.features["label"].names == ["negative", "positive"]
    assert (info.license, info.homepage, info.supervised_keys.input) == ("CC BY 4.0", "https://example.org/reviews",
                                                                         "text")


def test_iter_archive_gives_the_files_in_the_zips_order(tmp_path):
    rows, _ = dummy_rows(legacy_script("archive", tmp_path, zipped=True), tmp_path / "cache")
    # zip order b.txt, sub/c.txt, .hidden.txt, __notes.txt, a.txt: names starting with . or __ skipped
    assert rows == {"plain": {"train": [{"path": "b.txt", "text": "Dear Bo,\n"},
                                        {"path": "sub/c.txt", "text": "Dear Cy,\n"},
                                        {"path": "a.txt", "text": "Dear Al,\n"}]}}
    # the same dummy data unzipped (a dummy_data/ folder): its files in sorted order, subfolders after
    rows, _ = dummy_rows(legacy_script("archive", tmp_path / "unzipped"), tmp_path / "cache-unzipped")
    assert rows == {"plain": {"train": [{"path": "a.txt", "text": "Dear Al,\n"},
                                        {"path": "b.txt", "text": "Dear Bo,\n"},
                                        {"path": "sub/c.txt", "text": "Dear Cy,\n"}]}}


def test_relative_urls_and_a_helper_module(tmp_path):
    folder = legacy_script("relative", tmp_path)
    real, _ = dummy_rows(folder, tmp_path / "real", dummy_data=False)  # data/part-a.txt beside the script
    assert real == {"lines": {"train": [{"number": 1, "line": "one"}, {"number": 2, "line": "two"},
                                        {"number": 3, "line": "three"}]}}
    dummy, _ = dummy_rows(folder, tmp_path / "dummy")  # each URL's last part inside dummy_data/
    assert dummy == {"lines": {"train": [{"number": 7, "line": "seven (dummy)"},
                                         {"number": 8, "line": "eight (dummy)"}]}}
    assert sorted(path.name for path in folder.rglob("__pycache__")) == []  # nothing written beside the script


def test_the_manual_dir_is_the_data_dir_or_the_dummy_data(tmp_path):
    folder = legacy_script("manual", tmp_path)
    given = tmp_path / "downloaded"
    given.mkdir()
    (given / "records.tsv").write_text("cy\t1\n", encoding="utf-8")
    rows, _ = dummy_rows(folder, tmp_path / "given", data_dir=given, dummy_data=False)
    assert rows == {"default": {"train": [{"name": "cy", "count": 1}]}}
    rows, _ = dummy_rows(folder, tmp_path / "dummy")
    assert rows == {"default": {"train": [{"name": "ada", "count": 3}, {"name": "bob", "count": 5}]}}


def test_a_missing_package_is_one_line(tmp_path):
    folder = LEGACY_SCRIPTS / "needs_package"
    with datasets_adapter.legacy_names(), pytest.raises(CorporaError) as raised:
        script.import_module(script.resolve(str(folder)))
    assert str(raised.value) == (f"{folder}/needs_package.py: needs the Python module 'corpora_test_not_installed', "
                                 "which is not installed: install the package that provides it, then convert again")


def test_a_missing_helper_module_is_one_line(tmp_path):
    folder = legacy_script("relative", tmp_path)
    (folder / "parsing.py").unlink()
    with datasets_adapter.legacy_names(), pytest.raises(CorporaError) as raised:
        script.import_module(script.resolve(str(folder / "relative.py")))
    assert str(raised.value) == f"{folder}/relative.py: imports its helper module parsing.py, which is not beside it in {folder}"


def test_the_stand_ins_are_there_only_while_convert_runs():
    before = {"DatasetInfo": datasets.DatasetInfo, "Sequence": datasets.Sequence,
              "DownloadConfig": datasets.DownloadConfig, "features.Sequence": datasets.features.Sequence,
              "info.DatasetInfo": datasets.info.DatasetInfo, "download.DownloadConfig": datasets.download.DownloadConfig}
    with pytest.raises(KeyError), datasets_adapter.legacy_names():  # taken out after an error too
        from datasets.tasks import QuestionAnsweringExtractive

        assert QuestionAnsweringExtractive(context_column="passage").context_column == "passage"
        assert datasets.DownloadConfig(use_auth_token="hf_x").token == "hf_x"
        assert datasets.DatasetInfo(task_templates=[datasets.TextClassification()]).task_templates[0].task == (
            "text-classification")
        with pytest.raises(CorporaError) as raised:
            datasets.inspect_dataset("wmt18", "here")
        assert str(raised.value) == ("the script calls datasets.inspect_dataset, which datasets 3.0 removed; the "
                                     "converter has no stand-in for it")
        raise KeyError("stop")
    after = {"DatasetInfo": datasets.DatasetInfo, "Sequence": datasets.Sequence,
             "DownloadConfig": datasets.DownloadConfig, "features.Sequence": datasets.features.Sequence,
             "info.DatasetInfo": datasets.info.DatasetInfo, "download.DownloadConfig": datasets.download.DownloadConfig}
    assert after == before
    assert "datasets.tasks" not in sys.modules
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("datasets.tasks")
    removed = ("tasks", "TextClassification", "TaskTemplate", "inspect_dataset", "load_metric")
    assert [name for name in removed if hasattr(datasets, name)] == []
    assert hasattr(datasets.DatasetBuilder, "use_auth_token") is False
    with pytest.raises(TypeError):
        datasets.DatasetInfo(task_templates=[])


def test_an_hf_source_runs_only_with_trust_remote_code():
    with pytest.raises(CorporaError) as raised:
        script.resolve("hf://datasets/someone/reviews@v1")
    assert str(raised.value) == ("hf://datasets/someone/reviews@v1: a loading script is code, and converting runs "
                                 "it: give --trust-remote-code to run this one from the Hub, once you have read it "
                                 "and trust it")


@pytest.mark.parametrize(("source", "said"), [
    ("nowhere", "nowhere: no such folder (expected a folder NAME/ holding NAME.py, the path of NAME.py, or "
                "hf://datasets/OWNER/NAME[@REVISION])"),
    ("nowhere.py", "nowhere.py: no such file"),
    ("hf://datasets/reviews", "hf://datasets/reviews: expected hf://datasets/OWNER/NAME or "
                              "hf://datasets/OWNER/NAME@REVISION"),
])
def test_a_source_that_is_no_script_is_one_line(source, said, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(CorporaError) as raised:
        script.resolve(source, trust_remote_code=True)
    assert str(raised.value) == said


def test_a_folder_without_its_script_is_one_line(tmp_path):
    (tmp_path / "reviews").mkdir()
    (tmp_path / "reviews" / "other.py").write_text("", encoding="utf-8")
    with pytest.raises(CorporaError) as raised:
        script.resolve(str(tmp_path / "reviews"))
    assert str(raised.value) == f"{tmp_path}/reviews: no reviews.py in it (a loading script is named after its folder)"


def test_a_dict_of_lists_takes_what_datasets_2_took(tmp_path):
    """A text where the dict of lists wants a list gives its characters, a key a dict lacks None,
    an item of a list of dicts lacking a key None: the rows 2.x gave."""
    examples = [{"context": {"labels": "yes", "ids": [[1], []]}},
                {"context": [{"labels": "a"}, {"ids": [2]}]},
                {"context": {"ids": [[3]]}}]

    with datasets_adapter.legacy_names():
        class Contexts(datasets.GeneratorBasedBuilder):
            def _info(self):
                return datasets.DatasetInfo(features=datasets.Features({"context": datasets.Sequence(
                    {"labels": datasets.Value("string"), "ids": datasets.Sequence(datasets.Value("int32"))})}))

            def _split_generators(self, dl_manager):
                return [datasets.SplitGenerator(name="train")]

            def _generate_examples(self):
                yield from enumerate(examples)

        builder = Contexts(cache_dir=str(tmp_path))
        datasets_adapter.legacy_builder(builder)
        builder.download_and_prepare()
    assert builder.as_dataset("train").to_list() == [
        {"context": {"labels": ["y", "e", "s"], "ids": [[1], []]}},
        {"context": {"labels": ["a", None], "ids": [None, [2]]}},
        {"context": {"labels": None, "ids": [[3]]}},
    ]
