"""A normal install: the wheel (and the sdist) built from the repository carry the loaders, their
cards and checksums, and the dummy data, and the installed `corpora` runs from any folder.

The wheel is built offline with the setuptools of this environment, then installed (without its
dependencies) into a fresh virtual environment that finds them through a .pth file naming this
environment's site-packages: nothing is downloaded, and nothing of the checkout is on its path.
One leg is enough (the package is the same on every datasets version).

The installed package carries the repository's collection, checked over every corpus of it
(`registry.names()`); what builds or loads a corpus runs on the example corpus
(tests/example_collection), which the installed `corpora` reads through $CORPORA_ROOT."""

import json
import tarfile
import zipfile
from pathlib import Path

import pytest

from corpora import registry
from helpers import EXAMPLE
from helpers import EXAMPLE_COLLECTION
from helpers import EXAMPLE_DUMMY_TABLE
from helpers import EXAMPLE_LISTED
from helpers import quickest_corpus
from helpers import run_process
from helpers import table_lines
from helpers.installed import data_files
from helpers.installed import fresh

pytestmark = pytest.mark.datasets5

NAME = EXAMPLE
ON_EXAMPLE = {"CORPORA_ROOT": str(EXAMPLE_COLLECTION)}  # for fresh(): the installed corpora reads the example
def test_the_wheel_and_the_sdist_carry_the_data_folders(wheel, sdist):
    in_wheel = sorted(n.removeprefix("corpora/_data/") for n in zipfile.ZipFile(wheel).namelist()
                      if n.startswith("corpora/_data/"))
    assert in_wheel == data_files()
    names = registry.names()  # every corpus of the collection: its loader, checksums, card source, dummy data
    assert names
    for name in names:
        assert {f"loaders/{name}/{name}.py", f"loaders/{name}/checksums.tsv", f"loaders/{name}/README.md",
                f"dataset_cards/{name}.yaml", f"dummy_data/{name}/expected_counts.json"} <= set(in_wheel), name
    prefix = sdist.name.removesuffix(".tar.gz") + "/"
    with tarfile.open(sdist) as archive:
        in_sdist = {m.name.removeprefix(prefix) for m in archive.getmembers() if m.isfile()}
    assert [path for path in data_files() if path not in in_sdist] == []
    assert {"pyproject.toml", "src/corpora/cli.py", "src/corpora/templates/dataset_card.md.j2"} <= in_sdist


def test_the_installed_package_uses_its_own_copy(installed, tmp_path):
    script = "import corpora, corpora.registry as r; print(corpora.__file__); print(r.repo_root())"
    result = run_process([installed / "python", "-c", script], **fresh(tmp_path))
    assert result.returncode == 0, result.stderr
    module, root = result.stdout.splitlines()
    assert module.startswith(str(installed.parent))  # the installed copy
    assert root == str(Path(module).parent / "_data")


def test_list_from_another_folder(installed, tmp_path, capsys):
    from corpora.cli import main

    main(["list"])  # the checkout's answer
    expected = capsys.readouterr().out
    result = run_process([installed / "corpora", "list"], **fresh(tmp_path))
    assert result.returncode == 0, result.stderr
    assert result.stdout == expected
    # every corpus of the collection, from the package's own copy of it
    assert sorted({line.split()[0] for line in expected.splitlines()[1:]}) == registry.names()
    example = run_process([installed / "corpora", "list"], **fresh(tmp_path, **ON_EXAMPLE))  # and a collection of $CORPORA_ROOT
    assert example.returncode == 0, example.stderr
    assert [line.split() for line in example.stdout.splitlines()] == [
        ["corpus", "config", "split", "official", "rows"], *EXAMPLE_LISTED
    ]


def test_build_dummy_from_another_folder(installed, tmp_path):
    result = run_process([installed / "corpora", "build", NAME, "--dummy", "--out", "exports"], **fresh(tmp_path, **ON_EXAMPLE))
    assert result.returncode == 0, result.stderr
    assert table_lines(result.stdout) == EXAMPLE_DUMMY_TABLE
    assert sorted(p.name for p in (tmp_path / "exports" / NAME).iterdir()) == [
        ".corpora-export.json", "README.md", "croissant.json", "raters", "ratings", "sentences"
    ]


def test_corpora_load_from_another_folder(installed, tmp_path):
    script = (
        "import json, corpora\n"
        f"ds = corpora.load({NAME!r}, 'ratings', split='train[:3]+test', dummy=True)\n"
        "print(json.dumps(ds.to_list()))\n"
        f"print(sorted(corpora.load({NAME!r}, dummy=True)))\n"
    )
    result = run_process([installed / "python", "-c", script], **fresh(tmp_path, **ON_EXAMPLE))
    assert result.returncode == 0, result.stderr
    rows, splits = result.stdout.splitlines()
    # The dummy ratings: train-1.jsonl's first sentence (s01, three raters), then test.jsonl's two
    # sentences (s16, s18); language is a class label: de 0, en 1.
    assert json.loads(rows) == [
        {"sentence_id": sentence, "language": language, "rater": rater, "score": score}
        for sentence, language, rater, score in [
            ("s01", 1, "ana", 1), ("s01", 1, "ben", 3), ("s01", 1, "chen", 5),
            ("s16", 0, "ana", 1), ("s16", 0, "ben", 3), ("s16", 0, "chen", 5),
            ("s18", 1, "chen", 2), ("s18", 1, "dara", 4), ("s18", 1, "emil", 1),
        ]
    ]
    assert splits == "['test', 'train', 'validation']"  # the default config, sentences


def test_the_other_commands_from_another_folder(installed, tmp_path):
    check = run_process([installed / "corpora", "card", NAME, "--check"], **fresh(tmp_path, **ON_EXAMPLE))
    assert (check.returncode, check.stdout) == (0, f"{NAME}: card up to date\n"), check.stderr
    validate = run_process([installed / "corpora", "validate", NAME], **fresh(tmp_path, **ON_EXAMPLE))
    assert validate.returncode == 0, validate.stderr
    assert validate.stdout.splitlines() == [
        f"{NAME}: dummy build sentences: ok", f"{NAME}: dummy build ratings: ok", f"{NAME}: dummy build raters: ok",
        f"{NAME}: card: ok", f"{NAME}: export round trip: ok",
    ]
    # The package's own copy of the collection is not rewritten: any corpus of it will do.
    own = quickest_corpus()
    refused = run_process([installed / "corpora", "card", own], **fresh(tmp_path))
    assert refused.returncode == 1
    assert refused.stderr.startswith(f"corpora card: error: loaders/{own}/README.md belongs to the installed package (")
    assert refused.stderr.endswith(
        "/corpora/_data); run this in a clone of the repository (an editable install: pip install -e .), "
        "or point CORPORA_ROOT at one (`CORPORA_ROOT=. corpora ...` in its root)\n"
    )
    # In a clone, the installed copy's check says it is not the clone's (a stale card of the clone's passes it).
    clone = tmp_path / "clone"
    for folder in ("loaders", "dataset_cards"):
        (clone / folder).mkdir(parents=True)
    checked = run_process([installed / "corpora", "card", own, "--check"], **fresh(clone))
    assert (checked.returncode, checked.stdout) == (0, f"{own}: card up to date\n")
    assert checked.stderr == ("corpora card: checking the cards the installed package carries, not this folder's: "
                              "`CORPORA_ROOT=. corpora card --check ...` checks this folder\n")
    assert run_process([installed / "corpora", "card", own, "--check"], **fresh(tmp_path)).stderr == ""
    dummy = EXAMPLE_COLLECTION / "dummy_data" / NAME
    checksums = run_process([installed / "corpora", "checksums", NAME, "--data-dir", str(dummy)], **fresh(tmp_path, **ON_EXAMPLE))
    assert checksums.returncode == 1  # measured and compared: the dummy files are not the release
    assert [line.split()[-1] for line in checksums.stdout.splitlines()[1:]] == ["differs"] * 6
    url = "https://example.org/corpora-example/ratings/v1/raters.csv"
    offline = run_process([installed / "corpora", "build", NAME, "--config", "raters"], **fresh(tmp_path, **ON_EXAMPLE))
    assert (offline.returncode, offline.stderr) == (1, (
        f"corpora build: error: {NAME}: cannot download {url}: offline mode is on (HF_HUB_OFFLINE=1 or "
        "HF_DATASETS_OFFLINE=1). To build from a local copy of the upstream files instead, pass --data-dir DIR "
        "(data_dir= in Python) with this file at DIR/raters.csv\n"
    ))
    push = run_process([installed / "corpora", "push", NAME, "--repo-id", "a/b", "--data-dir", str(dummy),
               "--allow-modified-sources", "--dry-run"], **fresh(tmp_path, **ON_EXAMPLE))
    assert push.returncode == 0, push.stderr
    assert push.stdout.splitlines()[-11].startswith("would upload 9 files, ")
    assert push.stdout.splitlines()[-11].endswith(f" bytes, from build/{NAME} to https://huggingface.co/datasets/a/b (public):")
    assert push.stdout.splitlines()[-1] == ("cannot read a/b (offline mode is on (HF_HUB_OFFLINE=1 or HF_DATASETS_OFFLINE=1)): "
                                            "the files a push would delete there are not known")
