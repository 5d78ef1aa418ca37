"""A legacy-style script whose dataset_infos.json records more train examples than its sources
hold: one sentence per line of `train.txt` and `test.txt` in the manual folder (--data-dir)."""

import os

import datasets

_DESCRIPTION = "Sentences, one per line."


class SizeMismatch(datasets.GeneratorBasedBuilder):
    VERSION = datasets.Version("1.0.0")

    def _info(self):
        return datasets.DatasetInfo(
            description=_DESCRIPTION,
            features=datasets.Features({"sentence": datasets.Value("string")}),
        )

    def _split_generators(self, dl_manager):
        folder = dl_manager.manual_dir
        return [
            datasets.SplitGenerator(name=datasets.Split.TRAIN, gen_kwargs={"path": os.path.join(folder, "train.txt")}),
            datasets.SplitGenerator(name=datasets.Split.TEST, gen_kwargs={"path": os.path.join(folder, "test.txt")}),
        ]

    def _generate_examples(self, path):
        with open(path, encoding="utf-8") as f:
            for index, line in enumerate(f):
                yield index, {"sentence": line.rstrip("\n")}
