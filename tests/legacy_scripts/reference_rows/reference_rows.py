"""A legacy-style loading script that datasets 3.6 runs unchanged, for `corpora convert --reference`:
its rows come from --data-dir (the manual folder) and from a zip there that the download manager
unpacks, and hold what a reference compares with care: a path inside the sources, an image, class
labels and a Sequence of a dict."""

import json
import os

import datasets

_DESCRIPTION = "Rows for the reference tests."


class ReferenceRows(datasets.GeneratorBasedBuilder):
    BUILDER_CONFIGS = [
        datasets.BuilderConfig(name="lines", version=datasets.Version("1.0.0"), description="lines of the zip"),
        datasets.BuilderConfig(name="media", version=datasets.Version("1.0.0"), description="images by path"),
    ]

    def _info(self):
        if self.config.name == "lines":
            features = datasets.Features({
                "text": datasets.Value("string"),
                "label": datasets.ClassLabel(names=["negative", "positive"]),
                "spans": datasets.Sequence({"start": datasets.Value("int32"), "end": datasets.Value("int32")}),
                "file": datasets.Value("string"),
            })
        else:
            features = datasets.Features({"name": datasets.Value("string"), "image": datasets.Image()})
        return datasets.DatasetInfo(description=_DESCRIPTION, features=features)

    def _split_generators(self, dl_manager):
        folder = dl_manager.manual_dir
        if self.config.name == "lines":
            unpacked = dl_manager.extract(os.path.join(folder, "lines.zip"))
            return [
                datasets.SplitGenerator(name=split, gen_kwargs={"path": os.path.join(unpacked, f"{split}.jsonl")})
                for split in (datasets.Split.TRAIN, datasets.Split.TEST)
            ]
        return [datasets.SplitGenerator(name=datasets.Split.TRAIN, gen_kwargs={"path": os.path.join(folder, "images")})]

    def _generate_examples(self, path):
        if self.config.name == "media":
            for name in sorted(os.listdir(path)):
                yield name, {"name": name, "image": os.path.join(path, name)}
            return
        with open(path, encoding="utf-8") as lines:
            for index, line in enumerate(lines):
                record = json.loads(line)
                spans = {"start": [s[0] for s in record["spans"]], "end": [s[1] for s in record["spans"]]}
                yield index, {"text": record["text"], "label": record["label"], "spans": spans, "file": path}
