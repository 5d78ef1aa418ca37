"""The collection under test, the example corpus made for the toolkit's tests, and the small
functions several test files use on them."""

import contextlib
import http.server
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import datasets
import pytest
import yaml

from corpora import registry

# This checkout (src/, tests/), and the collection under test: the folder holding
# loaders/, dataset_cards/ and dummy_data/, $CORPORA_ROOT if set (tests/test_add_a_corpus.py points
# it at a copy with one more corpus), else this checkout. Generic tests find corpora there.
TESTS = Path(__file__).resolve().parents[1]
REPO = TESTS.parent
COLLECTION = registry.repo_root()

# The toolkit's own tests (CLI, errors, cards, exports, pushes, diffs) run on a corpus made for
# them, not on a corpus of the collection (tests/example_collection/README.md): adding, changing
# or removing a real corpus touches no shared test, and their exact figures can be read off
# its files.
EXAMPLE_COLLECTION = TESTS / "example_collection"
EXAMPLE = "example_ratings"
EXAMPLE_RELEASE = EXAMPLE_COLLECTION / "release" / EXAMPLE
EXAMPLE_URL = "https://example.org/corpora-example/ratings/v1/"  # its loader's URLs start so
# Its figures as the CLI prints them, split into cells: `corpora list` (official sizes), and the
# table of a build of the dummy data (records read, rows written, dummy_data's expected_counts.json).
EXAMPLE_LISTED = [
    [EXAMPLE, "sentences", "(default)", "train", "12"],
    [EXAMPLE, "sentences", "(default)", "validation", "3"],
    [EXAMPLE, "sentences", "(default)", "test", "4"],
    [EXAMPLE, "ratings", "train", "30"],
    [EXAMPLE, "ratings", "validation", "7"],
    [EXAMPLE, "ratings", "test", "10"],
    [EXAMPLE, "raters", "train", "unknown"],
]
EXAMPLE_DUMMY_TABLE = [
    [EXAMPLE, "sentences", "train", "4", "4", "4"],
    [EXAMPLE, "sentences", "validation", "2", "2", "2"],
    [EXAMPLE, "sentences", "test", "2", "2", "2"],
    [EXAMPLE, "ratings", "train", "10", "10", "10"],
    [EXAMPLE, "ratings", "validation", "5", "5", "5"],
    [EXAMPLE, "ratings", "test", "6", "6", "6"],
    [EXAMPLE, "raters", "train", "3", "3", "3"],
]

DATASETS_MAJOR = int(datasets.__version__.split(".")[0])
# Python 3.10's csv module can neither write nor read a NUL character (3.11 can): text a test
# passes through it leaves NUL out there.
CSV_UNSAFE = "\x00" if sys.version_info < (3, 11) else ""
CASES = [(corpus.name, config) for corpus in registry.all_corpora() for config in corpus.configs]

# The leg this run is (Makefile): "" for the main one (datasets 5.x, every test), "minimum" (every
# lower bound of pyproject.toml: datasets 3.6, whose loading scripts it also runs), "datasets4".
LEG = os.environ.get("CORPORA_TEST_LEG", "")


def quickest_corpus() -> str:
    """The corpus of the collection with the least dummy data: the quickest to build and check."""
    return min(registry.names(), key=lambda name: sum(
        path.stat().st_size for path in registry.get(name).dummy_dir.rglob("*") if path.is_file()))


def own_test_file(name: str, filename: str) -> bool:
    """Whether the file tests/<filename> belongs to corpus `name` (README, "Add a corpus"):
    test_<name>.py, test_<name>_*.py, synthetic_<name>.py or synthetic_<name>_*.py. Every other test
    file is shared."""
    return filename in (f"test_{name}.py", f"synthetic_{name}.py") or filename.startswith((f"test_{name}_", f"synthetic_{name}_"))


def table_lines(out):
    """The rows of the table `corpora build` prints after its "exported to" line, split into
    cells (the table's header left out)."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("exported to"))
    return [line.split() for line in lines[start + 2:]]


def add_renamed_copy(source: Path, root: Path, original: str, copy: str, classes: tuple[str, str]) -> None:
    """Add to the collection at `root` corpus `original` of the collection at `source` as `copy`:
    its three folders (README, "Add a corpus"), with the corpus name and the builder class name
    (`classes`: old, new) replaced in file names and text files. Its card is left for `corpora
    card` to write."""

    def renamed(text):
        return text.replace(original, copy).replace(*classes)

    def copy_renamed(path, target):
        if path.is_dir():
            for child in path.iterdir():
                copy_renamed(child, target / renamed(child.name))
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            target.write_text(renamed(path.read_text(encoding="utf-8")), encoding="utf-8")
        except UnicodeDecodeError:
            shutil.copyfile(path, target)

    for folder, suffix in (("loaders", ""), ("dataset_cards", ".yaml"), ("dummy_data", "")):
        copy_renamed(source / folder / f"{original}{suffix}", root / folder / f"{copy}{suffix}")
    (root / "loaders" / copy / "README.md").unlink()


def namespace_with_tmpfs(mount: Path, options: str) -> list[str]:
    """A prefix that runs a command in a new user and mount namespace with a tmpfs on `mount`
    (no effect outside it); pytest.skip with the reason where the system does not allow it."""
    mount.mkdir(exist_ok=True)
    script = f'mount -t tmpfs -o {options} tmpfs "{mount}" && exec "$@"'
    prefix = ["unshare", "-rm", "sh", "-c", script, "sh"] if os.geteuid() else ["unshare", "-m", "sh", "-c", script, "sh"]
    if shutil.which("unshare") is None:
        pytest.skip("no `unshare` to mount a small tmpfs")
    probe = subprocess.run([*prefix, "true"], capture_output=True, text=True, check=False)
    if probe.returncode:
        pytest.skip(f"cannot mount a tmpfs here: {probe.stderr.strip()}")
    return prefix


def rename_config(export: Path, config: str, renamed: str) -> None:
    """Make `export` (OUT/NAME) an export of an older loader whose config `config` was then named
    `renamed`: its folder, the card's `configs:` and `dataset_info`, croissant.json's paths and the
    mark say `renamed`, and stay consistent with each other."""
    (export / config).rename(export / renamed)
    card = export / "README.md"
    card.write_text(card.read_text().replace(f"config_name: {config}\n", f"config_name: {renamed}\n")
                    .replace(f"path: {config}/", f"path: {renamed}/"))
    croissant = export / "croissant.json"
    croissant.write_text(croissant.read_text().replace(f'"{config}/', f'"{renamed}/'))
    mark = json.loads((export / ".corpora-export.json").read_text())
    mark["configs"] = [renamed if name == config else name for name in mark["configs"]]
    mark["files"] = sorted(renamed + path[len(config):] if path.startswith(f"{config}/") else path
                           for path in mark["files"])
    (export / ".corpora-export.json").write_text(json.dumps(mark, indent=2) + "\n")


def class_labels_snippet():
    """The Python snippet of docs/class_labels.md ("Class labels outside `datasets`")."""
    page = (REPO / "docs" / "class_labels.md").read_text()
    section = page.split("# Class labels outside `datasets`", 1)[1]
    return section.split("```python\n", 1)[1].split("\n```", 1)[0]


@contextlib.contextmanager
def using_example():
    """The registry (and any subprocess) reads tests/example_collection, through CORPORA_ROOT,
    inside the block: for a fixture of wider scope than one test."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CORPORA_ROOT", str(EXAMPLE_COLLECTION))
        yield EXAMPLE_COLLECTION

BAD_INPUT_DOCS = REPO / "docs" / "bad_input.md"


def docs_table_rows(start: str, end: str) -> list[str]:
    """The rows (below the header) of the table of docs/bad_input.md between the markers."""
    text = BAD_INPUT_DOCS.read_text()
    return text[text.index(start) + len(start) : text.index(end)].strip().splitlines()[2:]


def write_docs_table(start: str, end: str, header: list[str], rows: list[str]) -> None:
    """Rewrite the table of docs/bad_input.md between the markers: `header` (column names), `rows`."""
    head, rest = BAD_INPUT_DOCS.read_text().split(start)
    _, tail = rest.split(end)
    table = "\n".join(["| " + " | ".join(header) + " |", "|" + "---|" * len(header), *rows])
    BAD_INPUT_DOCS.write_text(f"{head}{start}\n\n{table}\n\n{end}{tail}")
    print(f"wrote {BAD_INPUT_DOCS.relative_to(BAD_INPUT_DOCS.parents[1])}")


def official_sizes_of_the_dummy_data(monkeypatch, corpus) -> None:
    """Make the dummy data's counts the official sizes of every config (for the test's duration)."""
    for config, sizes in corpus.expected_dummy_counts().items():
        monkeypatch.setattr(corpus.config(config), "split_sizes", sizes)



def edit_source(root, change):
    """Apply `change` to the example corpus's card source (dataset_cards/example_ratings.yaml) under `root`."""
    path = root / "dataset_cards" / f"{EXAMPLE}.yaml"
    source = yaml.safe_load(path.read_text())
    change(source)
    path.write_text(yaml.safe_dump(source, sort_keys=False, allow_unicode=True))


def figure_rows(card: str) -> dict[tuple[str, str, str], str]:
    """(config, figure, split) -> value, from the figure tables of an export's card."""
    found, config, table = {}, None, False
    for line in card.splitlines():
        if line.startswith("#### `"):
            config = line.strip("#` ")
        table = line.startswith("| figure (declared by the card) |") or (table and line.startswith("|"))
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if table and cells[0] not in ("figure (declared by the card)", "---"):
            found[config, cells[0], cells[1]] = cells[2]
    return found


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """A test's file server on 127.0.0.1, which logs no request on stderr (where a command's own lines are compared)."""

    def log_message(self, *args):
        pass


def cut_last_line(path):
    """The file without its last line (a copy cut short)."""
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:-1]))


def lines_with(text: str, part: str) -> list[str]:
    """The whole lines of `text` that hold `part`: a test compares them with the exact lines it expects,
    where `part in text` would pass for any line."""
    return [line for line in text.splitlines() if part in line]


def lines_from(text: str, first: str, count: int) -> list[str]:
    """`count` lines of `text` from the line that is exactly `first` on ([] when there is none)."""
    lines = text.splitlines()
    return lines[lines.index(first):][:count] if first in lines else []
