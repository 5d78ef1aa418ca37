"""A legacy-style script that yields images as paths of files in the manual folder (--data-dir),
as many scripts did: the export must hold their bytes."""

import os

import datasets


class ImageBytes(datasets.GeneratorBasedBuilder):
    VERSION = datasets.Version("1.0.0")

    def _info(self):
        return datasets.DatasetInfo(
            description="Images and their names.",
            features=datasets.Features({"name": datasets.Value("string"), "image": datasets.Image()}),
        )

    def _split_generators(self, dl_manager):
        return [datasets.SplitGenerator(name=datasets.Split.TRAIN, gen_kwargs={"folder": dl_manager.manual_dir})]

    def _generate_examples(self, folder):
        for index, name in enumerate(sorted(os.listdir(folder))):
            yield index, {"name": name, "image": os.path.join(folder, name)}
