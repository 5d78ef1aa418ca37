"""A legacy-style loading script written for the tests: data the user downloads by hand, read
from dl_manager.manual_dir (load_dataset's data_dir; --data-dir)."""

import os

import datasets

_DESCRIPTION = "Records that must be downloaded by hand."


class Manual(datasets.GeneratorBasedBuilder):
    VERSION = datasets.Version("1.0.0")

    @property
    def manual_download_instructions(self):
        return "Download records.tsv from https://example.org/records (after signing in) into a folder."

    def _info(self):
        return datasets.DatasetInfo(
            description=_DESCRIPTION,
            features=datasets.Features({"name": datasets.Value("string"), "count": datasets.Value("int64")}),
        )

    def _split_generators(self, dl_manager):
        path = os.path.join(os.path.abspath(os.path.expanduser(dl_manager.manual_dir)), "records.tsv")
        if not os.path.exists(path):
            raise FileNotFoundError(f"{path} does not exist. {self.manual_download_instructions}")
        return [datasets.SplitGenerator(name=datasets.Split.TRAIN, gen_kwargs={"path": path})]

    def _generate_examples(self, path):
        with open(path, encoding="utf-8") as f:
            for id_, line in enumerate(f):
                name, count = line.rstrip("\n").split("\t")
                yield id_, {"name": name, "count": int(count)}
