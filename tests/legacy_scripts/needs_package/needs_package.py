"""A legacy-style loading script written for the tests: it needs a package that is not installed."""

import corpora_test_not_installed  # noqa: F401
import datasets


class NeedsPackage(datasets.GeneratorBasedBuilder):
    def _info(self):
        return datasets.DatasetInfo(features=datasets.Features({"text": datasets.Value("string")}))

    def _split_generators(self, dl_manager):
        return []

    def _generate_examples(self):
        yield from ()
