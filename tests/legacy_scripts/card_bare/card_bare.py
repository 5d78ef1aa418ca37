"""A loading script in the style of datasets 2.x with no configs, no licence, no README and no task stated
anywhere, written for corpora's tests of a converted export's card."""

import csv

import datasets

_DESCRIPTION = "Pairs of words, written for tests."

_CITATION = """@misc{card_bare, title = {Card Bare}, year = {2019}}"""

_URL = "data/pairs.csv"


class CardBare(datasets.GeneratorBasedBuilder):
    VERSION = datasets.Version("0.2.0")

    def _info(self):
        return datasets.DatasetInfo(
            description=_DESCRIPTION,
            features=datasets.Features({"left": datasets.Value("string"), "right": datasets.Value("string")}),
            citation=_CITATION,
        )

    def _split_generators(self, dl_manager):
        path = dl_manager.download(_URL)
        return [datasets.SplitGenerator(name=datasets.Split.TRAIN, gen_kwargs={"path": path})]

    def _generate_examples(self, path):
        with open(path, encoding="utf-8", newline="") as rows:
            yield from enumerate(csv.DictReader(rows))
