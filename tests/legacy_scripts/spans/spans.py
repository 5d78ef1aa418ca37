"""A legacy-style loading script written for the tests: `Sequence` of a dict in its datasets
2.x/3.x meaning (a dict of lists), with sequences nested inside it, and a sequence of such a
sequence. The config `dicts` yields the list of dicts 2.x accepted for it, `lists` the dict of
lists; both give the same rows."""

import json

import datasets

_DESCRIPTION = "Sentences with labelled character spans."
_URL = "https://example.org/spans/annotations.jsonl"


class SpansConfig(datasets.BuilderConfig):
    def __init__(self, as_dicts, **kwargs):
        super().__init__(version=datasets.Version("1.0.0"), **kwargs)
        self.as_dicts = as_dicts


class Spans(datasets.GeneratorBasedBuilder):
    BUILDER_CONFIGS = [
        SpansConfig(name="dicts", as_dicts=True, description="examples as lists of dicts"),
        SpansConfig(name="lists", as_dicts=False, description="examples as dicts of lists"),
    ]

    def _info(self):
        return datasets.DatasetInfo(
            description=_DESCRIPTION,
            features=datasets.Features(
                {
                    "id": datasets.Value("string"),
                    # every sub-feature a sequence: 4.x would make it a list of dicts
                    "spans": datasets.Sequence({"offsets": datasets.Sequence(datasets.Value("int32"))}),
                    # a scalar beside a sequence
                    "entities": datasets.features.Sequence(
                        {
                            "label": datasets.ClassLabel(names=["PER", "LOC"]),
                            "offsets": datasets.Sequence(datasets.Value("int32")),
                        }
                    ),
                    "sentences": datasets.Sequence(datasets.Sequence({"word": datasets.Value("string")})),
                }
            ),
        )

    def _split_generators(self, dl_manager):
        path = dl_manager.download_and_extract(_URL)
        return [datasets.SplitGenerator(name=datasets.Split.TRAIN, gen_kwargs={"path": path})]

    def _generate_examples(self, path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                record = json.loads(line)
                spans = [{"offsets": offsets} for offsets in record["spans"]]
                entities = [{"label": label, "offsets": offsets} for label, offsets in record["entities"]]
                sentences = [[{"word": word} for word in sentence] for sentence in record["sentences"]]
                if not self.config.as_dicts:
                    spans = {"offsets": [span["offsets"] for span in spans]}
                    entities = {key: [entity[key] for entity in entities] for key in ("label", "offsets")}
                    sentences = [{"word": [w["word"] for w in sentence]} for sentence in sentences]
                yield record["id"], {"id": record["id"], "spans": spans, "entities": entities, "sentences": sentences}
