"""The shared export pipeline (corpora.pipeline) with a builder that is none of the corpora: a plain
GeneratorBasedBuilder defined here, with no registry entry, and a card writer of a few lines."""

import json
import os

import datasets
import pyarrow.parquet
import pytest

from corpora import __version__
from corpora import exports
from corpora import pipeline
from helpers.exports import files_of

pytestmark = pytest.mark.both_legs  # reads the export back through load_dataset

LETTERS = {"train": [(0, "a", "no"), (1, "Über", "yes"), (2, None, "yes")], "test": [(3, "d", "no")]}
NUMBERS = {"train": [(10, "ten", "yes")], "validation": [(11, "eleven", "no"), (12, "twelve", "no")]}
FEATURES = datasets.Features({"id": datasets.Value("int32"), "text": datasets.Value("string"),
                              "label": datasets.ClassLabel(names=["no", "yes"])})


class PlainConfig(datasets.BuilderConfig):
    def __init__(self, *, rows, **kwargs):
        super().__init__(version=datasets.Version("1.0.0"), **kwargs)
        self.rows = rows  # split -> (id, text, label name) of each example


class Plain(datasets.GeneratorBasedBuilder):
    BUILDER_CONFIGS = [PlainConfig(name="letters", rows=LETTERS), PlainConfig(name="numbers", rows=NUMBERS),
                       PlainConfig(name="late", rows={"train": [], "test": [(20, "x", "no")]})]
    fail_in = None  # the config whose generation fails at its first example (a test sets it)

    def _info(self):
        return datasets.DatasetInfo(description="Two configs of a few examples.", features=FEATURES)

    def _split_generators(self, dl_manager):
        return [datasets.SplitGenerator(name=split, gen_kwargs={"rows": rows}) for split, rows in self.config.rows.items()]

    def _generate_examples(self, rows):
        if self.config.name == Plain.fail_in:
            raise ValueError(f"planted failure in {self.config.name}")
        for id_, text, label in rows:
            yield id_, {"id": id_, "text": text, "label": label}


class PlainParts(pipeline.Parts):
    """The least an export needs: no sources to check, and a card that says where each split's files are."""

    card_fails = False

    def find_sources(self):
        return pipeline.FoundSources("dummy")

    def make_builder(self, config, sources, cache_dir):
        return Plain(config_name=config, cache_dir=str(cache_dir))

    def write_card(self, folder, infos, report, sources, repo_id, export_path):
        configs = [{"config_name": config, "data_files": [{"split": split, "path": f"{config}/{split}-*"}
                                                          for split in info.splits]}
                   for config, info in infos.items()]
        (folder / "README.md").write_text(f"---\n{json.dumps({'configs': configs})}\n---\n# plain\n")
        self.examples = {config: r.example for config, r in report.items()}
        if self.card_fails:
            raise OSError("planted failure of the card writer")


def plan() -> pipeline.Export:
    return pipeline.Export("plain", ("letters", "numbers"), PlainParts())


def stored(rows) -> list[dict]:
    """The examples as Parquet stores them: class labels as their index."""
    return [{"id": id_, "text": text, "label": ["no", "yes"].index(label)} for id_, text, label in rows]


def test_a_plain_builder_is_exported_with_its_rows_its_mark_and_read_back_by_load_dataset(tmp_path):
    out = tmp_path / "out"
    rows = pipeline.run(plan(), out)
    assert rows == [
        pipeline.SplitRows("plain", "letters", "train", 3, 3, None),
        pipeline.SplitRows("plain", "letters", "test", 1, 1, None),
        pipeline.SplitRows("plain", "numbers", "train", 1, 1, None),
        pipeline.SplitRows("plain", "numbers", "validation", 2, 2, None),
    ]
    folder = out / "plain"
    parquet = ["letters/test-00000-of-00001.parquet", "letters/train-00000-of-00001.parquet",
               "numbers/train-00000-of-00001.parquet", "numbers/validation-00000-of-00001.parquet"]
    assert sorted(files_of(folder)) == [".corpora-export.json", "README.md", *parquet]
    assert sorted(os.listdir(out)) == [".plain.lock", "plain"]
    expected = {"letters": LETTERS, "numbers": NUMBERS}
    for path in parquet:
        config, split = path.split("/")[0], path.split("/")[1].split("-")[0]
        table = pyarrow.parquet.read_table(folder / path)
        assert table.to_pylist() == stored(expected[config][split])
        assert datasets.Features.from_arrow_schema(table.schema) == FEATURES
    assert exports.read_mark(folder) == exports.Mark("plain", ("letters", "numbers"), "dummy", (),
                                                     ("README.md", *parquet), __version__)
    for config, splits in expected.items():
        loaded = datasets.load_dataset(str(folder), config, cache_dir=str(tmp_path / "reload"))
        assert {split: loaded[split].to_list() for split in loaded} == {
            split: stored(split_rows) for split, split_rows in splits.items()}
        assert loaded["train"].features == FEATURES


@pytest.mark.parametrize("where", ["builder", "card"])
def test_a_failure_in_the_middle_leaves_the_previous_export_byte_identical(tmp_path, monkeypatch, where):
    out = tmp_path / "out"
    pipeline.run(plan(), out)
    before = files_of(out / "plain")
    failing = plan()
    if where == "builder":  # the first config is written, the second fails
        monkeypatch.setattr(Plain, "fail_in", "numbers")
    else:  # every Parquet file is written, the card writer fails
        monkeypatch.setattr(PlainParts, "card_fails", True)
    with pytest.raises(Exception) as raised:
        pipeline.run(failing, out)
    error = raised.value if where == "card" else raised.value.__cause__ or raised.value.__context__
    assert (type(error), str(error)) == ((ValueError, "planted failure in numbers") if where == "builder"
                                         else (OSError, "planted failure of the card writer"))
    assert files_of(out / "plain") == before
    assert sorted(os.listdir(out)) == [".plain.lock", "plain"]


def test_each_split_is_read_from_the_cache_as_batches_never_memory_mapped(tmp_path, monkeypatch):
    # Memory bounded whatever a split's size: the pages of a memory-mapped cache file stay resident once read
    # (datasets' as_dataset maps it), where a batch read is freed once the statistics and the Parquet have it.
    mapped, real_map = [], pyarrow.memory_map
    monkeypatch.setattr(pyarrow, "memory_map", lambda path, *args, **kw: mapped.append(path) or real_map(path, *args, **kw))
    monkeypatch.setattr(Plain, "DEFAULT_WRITER_BATCH_SIZE", 2)  # letters/train's 3 rows: 2 batches in the cache
    pipeline.run(plan(), tmp_path / "out")
    assert [path for path in mapped if str(path).endswith(".arrow")] == []
    assert [row for path in sorted((tmp_path / "out" / "plain").rglob("*.parquet"))
            for row in pyarrow.parquet.read_table(path).to_pylist()] == [
        *stored(LETTERS["test"]), *stored(LETTERS["train"]), *stored(NUMBERS["train"]), *stored(NUMBERS["validation"])]


def test_the_example_of_a_config_whose_first_split_is_empty_is_the_first_row_of_the_next(tmp_path):
    export = pipeline.Export("plain", ("late",), PlainParts())
    rows = pipeline.run(export, tmp_path / "out")
    assert [(r.split, r.rows) for r in rows] == [("train", 0), ("test", 1)]
    assert export.parts.examples == {"late": {"id": 20, "text": "x", "label": 0}}
