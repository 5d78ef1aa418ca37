"""What the tests of `corpora convert --reference` share: the reference interpreter (the minimum
venv's datasets 3.6, made by the Makefile before the main leg), the sources of
tests/legacy_scripts/reference_rows, and an export of that script made on this leg's datasets."""

from __future__ import annotations

import importlib.util
import io
import json
import sys
import uuid
import zipfile
from pathlib import Path

import datasets
import pyarrow.parquet

ROOT = Path(__file__).resolve().parents[2]
REFERENCE_PYTHON = ROOT / ".venv-minimum" / "bin" / "python"
SCRIPTS = ROOT / "tests" / "legacy_scripts"

TRAIN = [
    {"text": "a fine day", "label": 1, "spans": [[0, 1], [2, 6]]},
    {"text": "rain again", "label": 0, "spans": []},
    {"text": "sun", "label": 1, "spans": [[0, 3]]},
]
TEST = [{"text": "fog", "label": 0, "spans": [[0, 3]]}]

# A script whose rows name the datasets major version that ran it: they differ from the reference's.
VERSIONED = '''import datasets


class Versioned(datasets.GeneratorBasedBuilder):
    """Gives other rows on another datasets: a converter-side change, as the reference sees it."""

    def _info(self):
        return datasets.DatasetInfo(features=datasets.Features({"n": datasets.Value("int64"), "major": datasets.Value("string")}))

    def _split_generators(self, dl_manager):
        return [datasets.SplitGenerator(name=datasets.Split.TRAIN)]

    def _generate_examples(self):
        for n in range(3):
            yield n, {"n": n, "major": datasets.__version__.split(".")[0] if n == 1 else "same"}
'''


def png(shade: int) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (2, 2), (shade, 0, 0)).save(buffer, format="PNG")
    return buffer.getvalue()


def write_sources(folder: Path) -> Path:
    """The --data-dir of reference_rows: lines.zip (train.jsonl, test.jsonl) and images/."""
    folder.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(folder / "lines.zip", "w") as archive:
        for name, records in (("train.jsonl", TRAIN), ("test.jsonl", TEST)):
            archive.writestr(name, "".join(json.dumps(record) + "\n" for record in records))
    (folder / "images").mkdir(exist_ok=True)
    for name, shade in (("b.png", 200), ("a.png", 100)):
        (folder / "images" / name).write_bytes(png(shade))
    return folder


def export_here(name: str, out: Path, data_dir: Path, cache: Path) -> Path:
    """OUT/NAME/<config>/<split>-00000-of-00001.parquet: the script's builder class run on this
    leg's datasets (imported as a module, no script loader), each split's rows as it stores them,
    media embedded: what an export holds, made without the converter."""
    script = SCRIPTS / name / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"reference_test_{uuid.uuid4().hex}", script)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # datasets imports a builder's module again by its name
    spec.loader.exec_module(module)
    builder_class = next(value for value in vars(module).values() if isinstance(value, type)
                         and issubclass(value, datasets.GeneratorBasedBuilder) and value.__module__ == module.__name__)
    folder = out / name
    for config in builder_class.BUILDER_CONFIGS:
        builder = builder_class(config_name=config.name, data_dir=str(data_dir), cache_dir=str(cache / config.name))
        builder.download_and_prepare()
        for split, dataset in builder.as_dataset().items():
            (folder / config.name).mkdir(parents=True, exist_ok=True)
            table = datasets.table.embed_table_storage(dataset.data.table)
            pyarrow.parquet.write_table(table, folder / config.name / f"{split}-00000-of-00001.parquet")
    return folder
