"""A legacy-style loading script written for the tests: it imports datasets.tasks and states a
task template (both removed in datasets 3.0), has a ClassLabel, and no BUILDER_CONFIGS (its
dummy data is under dummy/<version>/)."""

import csv

import datasets
from datasets.tasks import TextClassification

_CITATION = """@misc{reviews,
  title={Tiny reviews}
}"""
_DESCRIPTION = "Short product reviews, each labelled negative or positive."
_HOMEPAGE = "https://example.org/reviews"
_LICENSE = "CC BY 4.0"
_URLS = {"train": "https://example.org/reviews/train.csv", "test": "https://example.org/reviews/test.csv?version=2"}


class TasksClasslabel(datasets.GeneratorBasedBuilder):
    VERSION = datasets.Version("1.2.0")

    def _info(self):
        return datasets.DatasetInfo(
            description=_DESCRIPTION,
            features=datasets.Features(
                {"text": datasets.Value("string"), "label": datasets.ClassLabel(names=["negative", "positive"])}
            ),
            supervised_keys=("text", "label"),
            homepage=_HOMEPAGE,
            license=_LICENSE,
            citation=_CITATION,
            task_templates=[TextClassification(text_column="text", label_column="label")],
        )

    def _split_generators(self, dl_manager):
        files = dl_manager.download_and_extract(_URLS)
        return [
            datasets.SplitGenerator(name=datasets.Split.TRAIN, gen_kwargs={"filepath": files["train"]}),
            datasets.SplitGenerator(name=datasets.Split.TEST, gen_kwargs={"filepath": files["test"]}),
        ]

    def _generate_examples(self, filepath):
        with open(filepath, encoding="utf-8") as f:
            for id_, row in enumerate(csv.DictReader(f)):
                # the label as its name in the file, as a number in the other: ClassLabel takes both
                label = int(row["label"]) if row["label"].isdigit() else row["label"]
                yield id_, {"text": row["text"], "label": label}
