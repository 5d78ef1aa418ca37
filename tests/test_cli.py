"""The `corpora` command line, as a user runs it, on the example corpus (tests/example_collection):
its release, dummy data and official sizes are small enough that every figure below can be read
off its files."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import datasets
import pytest

from corpora import cards
from corpora import registry
from corpora import sources
from corpora.cli import main
from helpers import CORPORA
from helpers import EXAMPLE
from helpers import EXAMPLE_COLLECTION
from helpers import EXAMPLE_DUMMY_TABLE
from helpers import EXAMPLE_LISTED
from helpers import EXAMPLE_RELEASE
from helpers import EXAMPLE_URL
from helpers import add_renamed_copy
from helpers import corpora_here
from helpers import cut_last_line
from helpers import run_process
from helpers import table_lines
from helpers.exports import files_of

pytestmark = pytest.mark.usefixtures("example_collection")

NAME = EXAMPLE
URL = EXAMPLE_URL
# The release files (tests/example_collection/release/example_ratings): size and sha256 of each,
# as loaders/example_ratings/checksums.tsv records them, in the loader's order.
RELEASE = {
    "data/train-1.jsonl": (759, "13dfee158a49d088a1c425a72d6aa3f718f51a0520347bc98ae3e97e87126085"),
    "data/train-2.jsonl": (601, "5655e3c6c0be2823ca82001c927ccb6dc2bc968e3882c28fdde1e296c8c702f4"),
    "data/train-3.jsonl": (433, "6d52f61807c706462afb2c79e12610634beb565cef9a15e0969e29c0eb937203"),
    "data/validation.jsonl": (439, "9bca6312f96918edcfe6f7e6b446edf2071ab534ba5c71f487ece76b3bde4438"),
    "data/test.jsonl": (589, "7e02eea2e1d6db34ce2c123032fa1ed64e77feb5eb9d7770c7d4bbcc8b1e14e0"),
    "raters.csv": (84, "c78941299e92db4d1d9fca9b1d69b54b927a802985b96d16d4ab8ba4c7018db9"),
}
# The table of a build of the release: source records, rows written, official rows.
RELEASE_TABLE = [
    [NAME, "sentences", "train", "12", "12", "12"],
    [NAME, "sentences", "validation", "3", "3", "3"],
    [NAME, "sentences", "test", "4", "4", "4"],
    [NAME, "ratings", "train", "30", "30", "30"],
    [NAME, "ratings", "validation", "7", "7", "7"],
    [NAME, "ratings", "test", "10", "10", "10"],
    [NAME, "raters", "train", "5", "5", "unknown"],  # no official size
]


def test_list_shows_every_corpus_config_split_and_official_size(capsys):
    code, out, _ = corpora_here("list")
    assert code == 0
    assert out.splitlines()[0].split() == ["corpus", "config", "split", "official", "rows"]
    assert [line.split() for line in out.splitlines()[1:]] == EXAMPLE_LISTED


def test_build_dummy_writes_the_export_and_reports_reloaded_rows(capsys, tmp_path):
    code, out, err = corpora_here("build", NAME, "--dummy", "--out", str(tmp_path))
    assert code == 0, err
    assert table_lines(out) == EXAMPLE_DUMMY_TABLE
    folder = tmp_path / NAME
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()) == [
        ".corpora-export.json",
        "README.md",
        "croissant.json",
        "raters/train-00000-of-00001.parquet",
        "ratings/test-00000-of-00001.parquet",
        "ratings/train-00000-of-00001.parquet",
        "ratings/validation-00000-of-00001.parquet",
        "sentences/test-00000-of-00001.parquet",
        "sentences/train-00000-of-00001.parquet",
        "sentences/validation-00000-of-00001.parquet",
    ]
    metadata = cards.read_metadata(folder / "README.md")
    ratings_info = next(i for i in metadata["dataset_info"] if i["config_name"] == "ratings")
    assert {s["name"]: s["num_examples"] for s in ratings_info["splits"]} == {"train": 10, "validation": 5, "test": 6}
    assert metadata["configs"] == [  # by name; the default one says so
        {"config_name": "raters", "data_files": [{"split": "train", "path": "raters/train-*"}]},
        {
            "config_name": "ratings",
            "data_files": [
                {"split": "train", "path": "ratings/train-*"},
                {"split": "validation", "path": "ratings/validation-*"},
                {"split": "test", "path": "ratings/test-*"},
            ],
        },
        {
            "config_name": "sentences",
            "data_files": [
                {"split": "train", "path": "sentences/train-*"},
                {"split": "validation", "path": "sentences/validation-*"},
                {"split": "test", "path": "sentences/test-*"},
            ],
            "default": True,
        },
    ]


def test_build_one_config(capsys, tmp_path):
    code, out, _ = corpora_here("build", NAME, "--dummy", "--config", "ratings", "--out", str(tmp_path))
    assert code == 0
    assert [row[1] for row in table_lines(out)] == ["ratings"] * 3
    assert sorted(p.name for p in (tmp_path / NAME).iterdir()) == [".corpora-export.json", "README.md", "croissant.json",
                                                                   "ratings"]


def test_build_from_a_full_size_copy_gives_the_official_sizes(capsys, tmp_path):
    # The release is what checksums.tsv records: no flag needed.
    code, out, err = corpora_here("build", NAME, "--data-dir", str(EXAMPLE_RELEASE), "--out", str(tmp_path / "out"))
    assert code == 0, err
    assert table_lines(out) == RELEASE_TABLE


def test_build_from_files_that_are_not_the_recorded_release_is_refused(capsys, tmp_path, example_release):
    cut_last_line(example_release / "data" / "test.jsonl")  # 3 of 4 sentences
    cut_last_line(example_release / "raters.csv")  # 4 of 5 raters
    code, out, err = corpora_here("build", NAME, "--data-dir", str(example_release), "--out", str(tmp_path))
    assert code == 1
    assert err == (
        "corpora build: error: example_ratings: 2 source file(s) differ from the recorded release: "
        f"{URL}data/test.jsonl (443 bytes, recorded 589); {URL}raters.csv (74 bytes, recorded 84)"
        ". If the new files are right, record them with `corpora checksums example_ratings --update`; "
        "to build them once without recording, use --allow-modified-sources.\n"
    )
    assert not (tmp_path / NAME).exists()


def test_a_copy_with_the_recorded_size_and_another_sha256_is_refused(tmp_path, example_release):
    # One character of a sentence changed: the file keeps its recorded size, only its sha256 tells.
    path = example_release / "data" / "test.jsonl"
    path.write_bytes(path.read_bytes().replace(b"Wir sehen uns am Montag.", b"Wir sehen uns am Freitag"))
    assert path.stat().st_size == RELEASE["data/test.jsonl"][0]
    assert corpora_here("build", NAME, "--data-dir", example_release, "--out", tmp_path / "out") == (1, "", (
        "corpora build: error: example_ratings: 1 source file(s) differ from the recorded release: "
        f"{URL}data/test.jsonl (the recorded size, another sha256). If the new files are right, record them with "
        "`corpora checksums example_ratings --update`; to build them once without recording, use "
        "--allow-modified-sources.\n"))
    assert not (tmp_path / "out" / NAME).exists()


def test_files_with_the_recorded_checksums_build_without_the_flag(capsys, tmp_path, example_release, record_release):
    # A corrected release: one sentence's text changes, no count does; then recorded as the release.
    path = example_release / "data" / "train-2.jsonl"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('"Add salt, then wait."', '"Add salt, then stir."'), encoding="utf-8")
    assert path.read_text(encoding="utf-8") != text  # no longer the committed release
    record_release(NAME, example_release)
    code, out, err = corpora_here("build", NAME, "--data-dir", str(example_release), "--out", str(tmp_path / "out"))
    assert code == 0, err
    assert table_lines(out) == RELEASE_TABLE


def test_checksums_measures_a_copy_and_update_records_it(capsys, example_release, record_release):
    corpus = registry.get(NAME)
    record_release(NAME, corpus.dummy_dir)  # a temporary checksums.tsv, so the real one is untouched
    code, out, err = corpora_here("checksums", NAME, "--data-dir", str(example_release))
    assert code == 1  # differs from the record: reported, not written
    assert [line.split() for line in out.splitlines()[1:]] == [
        [path, str(size), sha256, "differs"] for path, (size, sha256) in RELEASE.items()
    ]
    code, out, err = corpora_here("checksums", NAME, "--data-dir", str(example_release), "--update")
    assert code == 0
    assert sources.read_records(corpus) == {
        URL + path: sources.Record(size, sha256) for path, (size, sha256) in RELEASE.items()
    }
    code, out, err = corpora_here("checksums", NAME, "--data-dir", str(example_release))
    assert code == 0
    assert [line.split()[-1] for line in out.splitlines()[1:]] == ["ok"] * 6


@pytest.mark.parametrize(
    ("option", "value", "expected"),
    [("--lock-timeout", value, "a number of seconds, 0 or more") for value in ("-1", "nan", "inf", "soon")]
    + [("--num-proc", value, "a number of processes, 1 or more") for value in ("0", "-2", "1.5", "two")],
)
def test_a_number_option_out_of_its_range_is_refused(capsys, option, value, expected):
    with pytest.raises(SystemExit) as ended:
        main(["build", NAME, "--dummy", option, value])
    assert ended.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"corpora build: error: argument {option}: expected {expected}; got {value!r}"
    )


def test_checksums_says_a_file_recorded_as_never_measured_so(capsys, example_release, record_release):
    corpus = registry.get(NAME)
    first = next(iter(RELEASE))
    record_release(NAME, example_release)
    records = sources.read_records(corpus)
    records[URL + first] = None  # recorded as "- -", as `corpora new` writes every URL
    sources.write_records(corpus, records)
    code, out, err = corpora_here("checksums", NAME, "--data-dir", str(example_release))
    assert code == 1  # not the record: reported, not written
    # Whole rows: the cells are two or more spaces apart ("not measured" is one cell).
    assert [re.split(r" {2,}", line) for line in out.splitlines()] == [
        ["path", "bytes", "sha256", "record"],
        *([path, str(size), sha256, "not measured" if path == first else "ok"]
          for path, (size, sha256) in RELEASE.items()),
    ]


def test_a_copy_with_other_split_sizes_is_refused_without_the_flag(capsys, tmp_path, record_release):
    dummy = registry.get(NAME).dummy_dir
    record_release(NAME, dummy)  # the release checksums pass: only the sizes differ
    code, out, err = corpora_here("build", NAME, "--data-dir", str(dummy), "--out", str(tmp_path / "out"))
    assert code == 1
    # The first config built stops the build: the others are not built for nothing.
    assert err == (
        "corpora build: error: example_ratings: split sizes differ from the official ones: "
        "sentences/train: 4 rows (official 12); sentences/validation: 2 rows (official 3); "
        "sentences/test: 2 rows (official 4). To build a fixed, extended or cut copy anyway, "
        "use --allow-modified-sources (allow_modified_sources=True in Python)\n"
    )
    # nothing half-written is left behind; the lock file stays (removing it would race a waiting build)
    assert [p.name for p in (tmp_path / "out").iterdir()] == [".example_ratings.lock"]


def test_allow_modified_sources_builds_a_cut_copy_and_shows_the_official_sizes(capsys, tmp_path):
    dummy = registry.get(NAME).dummy_dir
    code, out, err = corpora_here("build", NAME, "--data-dir", str(dummy), "--out", str(tmp_path),
                         "--allow-modified-sources")
    assert code == 0, err
    assert table_lines(out) == [
        [NAME, "sentences", "train", "4", "4", "12", "(differs)"],
        [NAME, "sentences", "validation", "2", "2", "3", "(differs)"],
        [NAME, "sentences", "test", "2", "2", "4", "(differs)"],
        [NAME, "ratings", "train", "10", "10", "30", "(differs)"],
        [NAME, "ratings", "validation", "5", "5", "7", "(differs)"],
        [NAME, "ratings", "test", "6", "6", "10", "(differs)"],
        [NAME, "raters", "train", "3", "3", "unknown"],
    ]
    card = (tmp_path / NAME / "README.md").read_text()
    assert (
        "Built from files that may differ from the release, read from a local copy (built with "
        "--allow-modified-sources; see Source files); split sizes that differ from the official ones: "
        "sentences/train: 4 rows (official 12), sentences/validation: 2 rows (official 3), "
        "sentences/test: 2 rows (official 4), ratings/train: 10 rows (official 30), "
        "ratings/validation: 5 rows (official 7), ratings/test: 6 rows (official 10)."
    ) in " ".join(card.split())


@pytest.mark.parametrize("command", ["build", "push"])
def test_the_help_of_allow_modified_sources_says_what_it_lifts_and_what_stays(command, capsys):
    # What the two tests above and test_a_bad_record_is_named_on_one_line show: the official sizes
    # are not enforced; the records and rows in = rows out still are.
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    said = text.split("--allow-modified-sources ", 1)[1].split(" --", 1)[0]  # its help, after the usage line
    assert "sizes are still checked" not in text
    assert said == ("build source files that differ from the recorded release (checksums.tsv), into splits of any size "
                    "(one that differs from the official size is shown, not refused); every record is still checked, "
                    "and every split still holds one row per source record")


def test_errors_are_one_line_without_traceback(capsys, tmp_path):
    code, _, err = corpora_here("build", "nope", "--dummy", "--out", str(tmp_path))
    assert code == 1
    assert err == "corpora build: error: unknown corpus 'nope'; known: example_ratings\n"

    code, _, err = corpora_here("build", NAME, "--data-dir", str(tmp_path / "nowhere"), "--out", str(tmp_path))
    assert code == 1
    assert err == (
        f"corpora build: error: example_ratings: {tmp_path / 'nowhere'}: no such folder (the local copy of the "
        "sources to read)\n"
    )
    (tmp_path / "empty").mkdir()
    code, _, err = corpora_here("build", NAME, "--data-dir", str(tmp_path / "empty"), "--out", str(tmp_path))
    assert code == 1
    missing = ", ".join(
        str(tmp_path / "empty" / f)
        for f in ["data/train-1.jsonl", "data/train-2.jsonl", "data/train-3.jsonl", "data/validation.jsonl",
                  "data/test.jsonl", "raters.csv"]
    )
    assert err == f"corpora build: error: example_ratings: 6 source file(s) missing: {missing}\n"


def test_a_bad_record_is_named_on_one_line(capsys, tmp_path, dummy_copy):
    data_dir = dummy_copy(NAME)
    path = data_dir / "data" / "test.jsonl"
    # line 2 (s18) is rated [2, 4, 1]; a score of 6 is out of the scale
    path.write_text(path.read_text(encoding="utf-8").replace('"scores": [2, 4, 1]', '"scores": [2, 4, 6]'),
                    encoding="utf-8")
    code, _, err = corpora_here("build", NAME, "--data-dir", str(data_dir), "--out", str(tmp_path),
                       "--allow-modified-sources")
    assert code == 1
    assert err == (
        "corpora build: error: data/test.jsonl, line 2: field 'scores'[2]: invalid value 6 (expected an integer from 1 to 5)\n"
    )


def test_debug_shows_the_traceback(capsys, tmp_path):
    with pytest.raises(Exception, match="unknown corpus 'nope'"):
        main(["--debug", "build", "nope", "--dummy", "--out", str(tmp_path)])


@pytest.mark.parametrize("command", ["build", "card", "checksums", "validate"])
def test_names_or_all(capsys, command):
    assert corpora_here(command)[2] == f"corpora {command}: error: give at least one corpus name, or --all\n"
    assert corpora_here(command, NAME, "--all")[2] == f"corpora {command}: error: give corpus names or --all, not both\n"


def test_card_check_is_clean(capsys):
    code, out, _ = corpora_here("card", "--all", "--check")
    assert code == 0
    assert out.splitlines() == ["example_ratings: card up to date"]


def test_validate_passes_on_the_committed_tree(capsys):
    code, out, _ = corpora_here("validate", "--all")  # the example collection holds NAME alone
    assert code == 0
    assert out.splitlines() == [
        f"{NAME}: dummy build sentences: ok",
        f"{NAME}: dummy build ratings: ok",
        f"{NAME}: dummy build raters: ok",
        f"{NAME}: card: ok",
        f"{NAME}: export round trip: ok",
    ]


@pytest.mark.both_legs
def test_build_with_worker_processes_gives_the_rows_of_one_process(tmp_path):
    # In a subprocess with a timeout, so a hang (see the test below) fails instead of waiting; the
    # console script of this environment (CORPORA_ROOT included), whose whole table is checked here.
    # The dummy train split is three files: two processes prepare a shard each, which the export
    # writes as one Parquet file, the same bytes as one process writes.
    for num_proc in ("1", "2"):
        result = run_process([CORPORA, "build", NAME, "--dummy", "--config", "ratings", "--num-proc", num_proc,
                              "--out", tmp_path / num_proc], timeout=120)
        assert result.returncode == 0, result.stderr
        assert table_lines(result.stdout) == [
            [NAME, "ratings", "train", "10", "10", "10"],
            [NAME, "ratings", "validation", "5", "5", "5"],
            [NAME, "ratings", "test", "6", "6", "6"],
        ]
        # validation and test are one file each: said once, in the command's words (datasets says
        # "Setting num_proc from 2 back to 1 ..." once per split).
        said = [line for line in result.stderr.splitlines() if "num_proc" in line or "num-proc" in line]
        assert said == ([] if num_proc == "1" else [
            "corpora build: --num-proc 2: 2 of 3 splits were prepared by fewer processes: a process takes whole "
            "source files, and these splits have too few"])
    one = sorted(p.name for p in (tmp_path / "1" / NAME / "ratings").iterdir())
    two = sorted(p.name for p in (tmp_path / "2" / NAME / "ratings").iterdir())
    assert one == ["test-00000-of-00001.parquet", "train-00000-of-00001.parquet", "validation-00000-of-00001.parquet"]
    assert two == one
    assert [(tmp_path / "2" / NAME / "ratings" / f).read_bytes() == (tmp_path / "1" / NAME / "ratings" / f).read_bytes()
            for f in one] == [True, True, True]
    rows = {n: datasets.load_dataset(str(tmp_path / n / NAME), "ratings", split="train", cache_dir=str(tmp_path / "c"))
            for n in ("1", "2")}

    def key(row):
        return (row["sentence_id"], row["rater"])

    assert len(rows["2"]) == 10
    assert sorted(rows["1"].to_list(), key=key) == sorted(rows["2"].to_list(), key=key)


def test_a_forked_worker_dies_of_the_sigterm_its_pool_sends_and_leaves_ctrl_c_to_its_parent(tmp_path):
    # The pool ends its idle workers with SIGTERM. A worker that kept the command's handler only
    # set a flag when another of its threads took the signal, and the build waited forever.
    import multiprocessing
    import signal

    from corpora import signals

    previous = {signum: signal.signal(signum, signals.stop) for signum in (signal.SIGTERM, signal.SIGINT)}
    try:
        with multiprocessing.get_context("fork").Pool(1) as pool:
            in_worker = pool.apply(_handlers)
        in_parent = _handlers()
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    assert in_worker == (signal.SIG_DFL, signal.SIG_IGN)
    assert in_parent == (signals.stop, signals.stop)


def _handlers():
    import signal

    return signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)


def test_the_commands_lasting_imports_are_frozen_out_of_the_collectors_way_and_a_library_callers_are_not():
    import gc

    from corpora import signals

    frozen = gc.get_freeze_count()
    signals.import_lasting(["json"])
    assert gc.isenabled() and gc.get_freeze_count() == frozen
    as_command = (
        "import gc, sys; sys.argv = ['corpora']; from corpora import signals\n"
        "signals.import_lasting(['json']); assert gc.isenabled() and gc.get_freeze_count() > 0"
    )
    subprocess.run([sys.executable, "-c", as_command], check=True, timeout=120)


def test_a_reader_that_stops_early_ends_the_command_quietly(tmp_path):
    # `corpora list | head -1`: the pipe is closed before the table is written.
    script = Path(sys.executable).with_name("corpora")
    process = subprocess.Popen([script, "list"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    process.stdout.close()
    assert process.wait(timeout=120) == 141  # 128 + SIGPIPE, as a shell reports a command a pipe ended
    assert process.stderr.read() == b""


@pytest.mark.parametrize("stdout", ["closed", "a pipe closed"])
def test_a_build_whose_output_cannot_be_written_keeps_its_export_and_says_so_in_one_line(tmp_path, stdout):
    # `corpora build ... >&-`: its table goes nowhere, said on one line; `| head -0`: the reader went away, as above.
    build = [CORPORA, "build", NAME, "--dummy", "--config", "ratings"]
    shell = '"$@" >&-' if stdout == "closed" else '"$@" | head -c 0; exit ${PIPESTATUS[0]}'
    result = run_process(["bash", "-c", shell, "bash", *build, "--out", tmp_path / "out"], timeout=120)
    said = (1, "corpora build: error: standard output is closed: 5 line(s) of output not written\n")
    assert (result.returncode, result.stderr) == (said if stdout == "closed" else (141, ""))
    whole = corpora_here(*build[1:], "--out", tmp_path / "whole")  # the same build, its output written
    ratings = [row for row in EXAMPLE_DUMMY_TABLE if row[1] == "ratings"]
    assert (whole.returncode, len(whole.stdout.splitlines()), table_lines(whole.stdout)) == (0, 5, ratings)
    written, expected = files_of(tmp_path / "out" / NAME), files_of(tmp_path / "whole" / NAME)
    for export in (written, expected):
        export.pop(".corpora-export.json")  # the mark records its folder
    assert written == expected


def test_diff_reports_trouble_with_status_two(capsys, tmp_path):
    assert corpora_here("diff", str(tmp_path / "old"), str(tmp_path / "new"))[0] == 2


# --- a collection of two corpora: --all and the lists of names ---------------------------------

TWIN = "example_twin"


@pytest.fixture
def two_corpora(tmp_path, monkeypatch):
    """The example collection plus a renamed copy of its corpus, `example_twin` (its three
    folders, as README's "Add a corpus" lays them out); the registry reads it."""
    root = tmp_path / "collection"
    for folder in ("loaders", "dataset_cards", "dummy_data"):
        shutil.copytree(EXAMPLE_COLLECTION / folder, root / folder, ignore=shutil.ignore_patterns("__pycache__"))
    add_renamed_copy(EXAMPLE_COLLECTION, root, NAME, TWIN, ("ExampleRatings", "ExampleTwin"))
    monkeypatch.setenv("CORPORA_ROOT", str(root))
    return root


def test_every_command_with_all_takes_every_corpus_in_name_order(two_corpora, tmp_path, capsys):
    code, out, _ = corpora_here("list")
    assert code == 0
    twin = [[TWIN, *cells[1:]] for cells in EXAMPLE_LISTED]
    assert [line.split() for line in out.splitlines()[1:]] == EXAMPLE_LISTED + twin
    assert corpora_here("card", TWIN) == (0, f"wrote loaders/{TWIN}/README.md\n", "")
    assert corpora_here("card", TWIN) == (0, f"loaders/{TWIN}/README.md: unchanged\n", "")
    code, out, _ = corpora_here("card", "--all", "--check")
    assert (code, out) == (0, f"{NAME}: card up to date\n{TWIN}: card up to date\n")
    code, out, _ = corpora_here("build", "--all", "--dummy", "--out", str(tmp_path / "out"))
    assert code == 0
    assert table_lines(out) == EXAMPLE_DUMMY_TABLE + [[TWIN, *cells[1:]] for cells in EXAMPLE_DUMMY_TABLE]
    assert sorted(p.name for p in (tmp_path / "out").iterdir() if not p.name.startswith(".")) == [NAME, TWIN]
    code, _, err = corpora_here("build", "example", "--dummy", "--out", str(tmp_path / "out"))
    assert (code, err) == (1, f"corpora build: error: unknown corpus 'example'; known: {NAME}, {TWIN}\n")


def test_a_build_of_several_corpora_that_stops_says_what_it_exported_first(two_corpora, tmp_path, capsys):
    (tmp_path / "out" / TWIN).mkdir(parents=True)  # someone's own folder: refused, kept
    code, out, err = corpora_here("build", "--all", "--dummy", "--out", str(tmp_path / "out"))
    assert code == 1
    assert out.splitlines()[0] == f"exported to {tmp_path / 'out'}/ before {TWIN} stopped:"
    assert [line.split() for line in out.splitlines()[2:]] == EXAMPLE_DUMMY_TABLE
    assert err.startswith(f"corpora build: error: {tmp_path / 'out' / TWIN} is not an export of corpora")
    assert list((tmp_path / "out" / TWIN).iterdir()) == []


def test_every_option_and_positional_has_help_and_every_subcommand_an_example():
    import argparse

    from corpora import cli

    parser = cli.make_parser()
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    missing = [f"{name} {action.dest}" for name, sub in subparsers.choices.items() for action in sub._actions
               if not action.help]
    assert missing == []
    assert all(sub.epilog.startswith("example: corpora " + name) for name, sub in subparsers.choices.items())
