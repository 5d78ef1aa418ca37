"""A legacy-style loading script written for the tests: relative URLs (files of the script's own
repository) and a helper module beside the script, imported relatively."""

import datasets

from .parsing import parse_line

_DESCRIPTION = "Numbered lines kept in the script's repository."
_URLS = ["data/part-a.txt", "data/part-b.txt"]


class Relative(datasets.GeneratorBasedBuilder):
    BUILDER_CONFIGS = [datasets.BuilderConfig(name="lines", version=datasets.Version("1.0.0"))]

    def _info(self):
        return datasets.DatasetInfo(
            description=_DESCRIPTION,
            features=datasets.Features({"number": datasets.Value("int32"), "line": datasets.Value("string")}),
        )

    def _split_generators(self, dl_manager):
        paths = dl_manager.download_and_extract(_URLS)
        return [datasets.SplitGenerator(name=datasets.Split.TRAIN, gen_kwargs={"paths": paths})]

    def _generate_examples(self, paths):
        for path in paths:
            with open(path, encoding="utf-8") as f:
                for line in f:
                    number, text = parse_line(line)
                    yield number, {"number": number, "line": text}
