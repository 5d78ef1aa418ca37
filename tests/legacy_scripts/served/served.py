"""A legacy-style loading script that datasets 3.6 runs unchanged, for `corpora convert --reference`
on the same downloads (neither --dummy nor --data-dir): it downloads a zip and an image from the
tests' server (127.0.0.1 and a port of their run, written here in place of `127.0.0.1:0`), and its
rows hold a path inside the zip extracted, a class label and the image."""

import json
import os

import datasets

_BASE = "http://127.0.0.1:0/"


class Served(datasets.GeneratorBasedBuilder):
    VERSION = datasets.Version("1.0.0")

    def _info(self):
        return datasets.DatasetInfo(
            description="Rows downloaded from the tests' server.",
            features=datasets.Features({
                "text": datasets.Value("string"),
                "label": datasets.ClassLabel(names=["negative", "positive"]),
                "file": datasets.Value("string"),
                "image": datasets.Image(),
            }),
        )

    def _split_generators(self, dl_manager):
        unpacked = dl_manager.download_and_extract(_BASE + "lines.zip")
        image = dl_manager.download(_BASE + "images/a.png")
        return [
            datasets.SplitGenerator(name=split, gen_kwargs={"path": os.path.join(unpacked, f"{split}.jsonl"),
                                                            "image": image})
            for split in (datasets.Split.TRAIN, datasets.Split.TEST)
        ]

    def _generate_examples(self, path, image):
        with open(path, encoding="utf-8") as lines:
            for index, line in enumerate(lines):
                record = json.loads(line)
                yield index, {"text": record["text"], "label": record["label"], "file": path, "image": image}
