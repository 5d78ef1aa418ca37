"""A legacy-style loading script written for the tests: the files of a downloaded archive read
with dl_manager.iter_archive, in the archive's order."""

import datasets

_DESCRIPTION = "Letters, one file each, read from a zip archive."
_URL = "https://example.org/letters/letters.zip"


class Archive(datasets.GeneratorBasedBuilder):
    BUILDER_CONFIGS = [datasets.BuilderConfig(name="plain", version=datasets.Version("1.0.0"))]

    def _info(self):
        return datasets.DatasetInfo(
            description=_DESCRIPTION,
            features=datasets.Features({"path": datasets.Value("string"), "text": datasets.Value("string")}),
        )

    def _split_generators(self, dl_manager):
        archive = dl_manager.download(_URL)
        return [datasets.SplitGenerator(name=datasets.Split.TRAIN,
                                        gen_kwargs={"files": dl_manager.iter_archive(archive)})]

    def _generate_examples(self, files):
        for id_, (path, f) in enumerate(files):
            yield id_, {"path": path, "text": f.read().decode("utf-8")}
