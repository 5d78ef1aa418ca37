"""A legacy-style script that yields a record's `id` field as its key, from the `*.jsonl` files of
the manual folder (--data-dir) in name order: a list of files, which worker processes share out
(--num-proc). The tests give it records two of which share an id."""

import glob
import json
import os

import datasets


class DuplicateKey(datasets.GeneratorBasedBuilder):
    VERSION = datasets.Version("1.0.0")

    def _info(self):
        return datasets.DatasetInfo(
            description="Records keyed by their id.",
            features=datasets.Features({"id": datasets.Value("string"), "text": datasets.Value("string")}),
        )

    def _split_generators(self, dl_manager):
        paths = sorted(glob.glob(os.path.join(dl_manager.manual_dir, "*.jsonl")))
        return [datasets.SplitGenerator(name=datasets.Split.TRAIN, gen_kwargs={"paths": paths})]

    def _generate_examples(self, paths):
        for path in paths:
            with open(path, encoding="utf-8") as f:
                for line in f:
                    record = json.loads(line)
                    yield record["id"], record
