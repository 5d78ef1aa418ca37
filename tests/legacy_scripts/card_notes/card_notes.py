"""A loading script in the style of datasets 2.x, written for corpora's tests of a converted export's card:
two configs, a class label, a fixed-length sequence, a struct holding a list; its licence and task are
stated only in its README.md."""

import json

import datasets

from .card_notes_fields import label_names

_DESCRIPTION = "Short notes, each with a label, its tokens and two offsets, written for tests."

_CITATION = """@misc{card_notes,
  title = {Card Notes},
  author = {Tester, Ann},
  year = {2020}
}"""

_HOMEPAGE = "https://example.org/card_notes"

_URLS = {"train": "data/train.jsonl", "test": "data/test.jsonl"}


class CardNotes(datasets.GeneratorBasedBuilder):
    VERSION = datasets.Version("1.1.0")
    BUILDER_CONFIGS = [
        datasets.BuilderConfig(name="plain", version=VERSION, description="The notes and their labels."),
        datasets.BuilderConfig(name="detailed", version=VERSION, description="The notes with tokens and offsets."),
    ]
    DEFAULT_CONFIG_NAME = "plain"

    def _info(self):
        features = {"text": datasets.Value("string"), "label": datasets.ClassLabel(names=label_names())}
        if self.config.name == "detailed":
            features["tokens"] = datasets.Sequence(datasets.Value("string"))
            features["offsets"] = datasets.Sequence(datasets.Value("int32"), length=2)
            features["meta"] = {"source": datasets.Value("string"), "scores": datasets.Sequence(datasets.Value("float32"))}
        return datasets.DatasetInfo(
            description=_DESCRIPTION,
            features=datasets.Features(features),
            homepage=_HOMEPAGE,
            citation=_CITATION,
        )

    def _split_generators(self, dl_manager):
        paths = dl_manager.download(_URLS)
        return [
            datasets.SplitGenerator(name=datasets.Split.TRAIN, gen_kwargs={"path": paths["train"]}),
            datasets.SplitGenerator(name=datasets.Split.TEST, gen_kwargs={"path": paths["test"]}),
        ]

    def _generate_examples(self, path):
        with open(path, encoding="utf-8") as lines:
            for key, line in enumerate(lines):
                note = json.loads(line)
                example = {"text": note["text"], "label": note["label"]}
                if self.config.name == "detailed":
                    example.update(tokens=note["text"].split(), offsets=note["offsets"], meta=note["meta"])
                yield key, example
