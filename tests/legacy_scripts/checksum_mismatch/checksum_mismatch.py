"""A legacy-style script that downloads one file; the tests record its sha256 in a
dataset_infos.json of their own, for the URL of their server (127.0.0.1 and a port of their run,
written here in place of `127.0.0.1:0`)."""

import datasets

_URL = "http://127.0.0.1:0/words.txt"


class ChecksumMismatch(datasets.GeneratorBasedBuilder):
    VERSION = datasets.Version("1.0.0")

    def _info(self):
        return datasets.DatasetInfo(
            description="Words, one per line.",
            features=datasets.Features({"word": datasets.Value("string")}),
        )

    def _split_generators(self, dl_manager):
        path = dl_manager.download(_URL)
        return [datasets.SplitGenerator(name=datasets.Split.TRAIN, gen_kwargs={"path": path})]

    def _generate_examples(self, path):
        with open(path, encoding="utf-8") as f:
            for index, line in enumerate(f):
                yield index, {"word": line.strip()}
