"""The `corpora` command line, as a user runs it."""

import os
import subprocess
import sys
from pathlib import Path

import datasets
import pytest

from corpora import cards
from corpora import registry
from corpora import sources
from corpora.cli import main
from synthetic import write_diplomacy

NAME = "diplomacy_detection"


def run(capsys, *argv):
    """Exit code, stdout, and the last line of stderr (progress bars come before it)."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err.rstrip("\n").split("\n")[-1].split("\r")[-1] + "\n" if err else ""


def table_lines(out):
    """The table rows that follow the 'exported to' line, split into cells."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("exported to"))
    return [line.split() for line in lines[start + 2:]]


def test_list_shows_every_corpus_config_split_and_official_size(capsys):
    code, out, _ = run(capsys, "list")
    assert code == 0
    rows = [line.split() for line in out.splitlines()[1:]]
    assert ["diplomacy_detection", "conversations", "(default)", "train", "189"] in rows
    assert ["diplomacy_detection", "messages", "test", "2,741"] in rows
    expected = sum(len(s) for c in registry.all_corpora() for s in c.split_sizes.values())
    assert len(rows) == expected


def test_build_dummy_writes_the_export_and_reports_reloaded_rows(capsys, tmp_path):
    code, out, err = run(capsys, "build", NAME, "--dummy", "--out", str(tmp_path))
    assert code == 0, err
    assert table_lines(out) == [
        [NAME, "conversations", "train", "4", "4", "4"],
        [NAME, "conversations", "validation", "2", "2", "2"],
        [NAME, "conversations", "test", "2", "2", "2"],
        [NAME, "messages", "train", "10", "10", "10"],
        [NAME, "messages", "validation", "3", "3", "3"],
        [NAME, "messages", "test", "5", "5", "5"],
    ]
    folder = tmp_path / NAME
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()) == [
        "README.md",
        "conversations/test-00000-of-00001.parquet",
        "conversations/train-00000-of-00001.parquet",
        "conversations/validation-00000-of-00001.parquet",
        "croissant.json",
        "messages/test-00000-of-00001.parquet",
        "messages/train-00000-of-00001.parquet",
        "messages/validation-00000-of-00001.parquet",
    ]
    metadata = cards.read_metadata(folder / "README.md")
    messages_info = next(i for i in metadata["dataset_info"] if i["config_name"] == "messages")
    assert {s["name"]: s["num_examples"] for s in messages_info["splits"]} == {"train": 10, "validation": 3, "test": 5}
    assert metadata["configs"][0] == {
        "config_name": "conversations",
        "data_files": [
            {"split": "train", "path": "conversations/train-*"},
            {"split": "validation", "path": "conversations/validation-*"},
            {"split": "test", "path": "conversations/test-*"},
        ],
        "default": True,
    }


def test_build_one_config(capsys, tmp_path):
    code, out, _ = run(capsys, "build", NAME, "--dummy", "--config", "messages", "--out", str(tmp_path))
    assert code == 0
    assert [row[1] for row in table_lines(out)] == ["messages"] * 3
    assert sorted(p.name for p in (tmp_path / NAME).iterdir()) == ["README.md", "croissant.json", "messages"]


def test_build_from_a_full_size_copy_gives_the_official_sizes(capsys, tmp_path):
    copy = write_diplomacy(tmp_path / "upstream")
    code, out, err = run(capsys, "build", NAME, "--data-dir", str(copy), "--out", str(tmp_path / "out"),
                         "--allow-modified-sources")  # synthetic files: not the release's bytes
    assert code == 0, err
    assert table_lines(out) == [
        [NAME, "conversations", "train", "189", "189", "189"],
        [NAME, "conversations", "validation", "21", "21", "21"],
        [NAME, "conversations", "test", "42", "42", "42"],
        [NAME, "messages", "train", "13,132", "13,132", "13,132"],
        [NAME, "messages", "validation", "1,416", "1,416", "1,416"],
        [NAME, "messages", "test", "2,741", "2,741", "2,741"],
    ]


def test_build_from_files_that_are_not_the_recorded_release_is_refused(capsys, tmp_path):
    copy = write_diplomacy(tmp_path / "upstream")
    code, out, err = run(capsys, "build", NAME, "--data-dir", str(copy), "--out", str(tmp_path))
    assert code == 1
    corpus = registry.get(NAME)
    records = sources.read_records(corpus)
    described = []
    for path in corpus.source_files():
        url = corpus.module._URLS[path]
        found = sources.measure(copy / path)
        described.append(
            f"{url}: expected size {records[url].size}, sha256 {records[url].sha256}; "
            f"found size {found.size}, sha256 {found.sha256}"
        )
    assert err == (
        "corpora build: error: diplomacy_detection: 3 source file(s) differ from the recorded release: "
        + "; ".join(described)
        + ". If the new files are right, record them with `corpora checksums diplomacy_detection --update`; "
        "to build them once without recording, use --allow-modified-sources.\n"
    )
    assert not (tmp_path / NAME).exists()


def test_files_with_the_recorded_checksums_build_without_the_flag(capsys, tmp_path, record_release):
    copy = write_diplomacy(tmp_path / "upstream")
    record_release(NAME, copy)
    code, out, err = run(capsys, "build", NAME, "--data-dir", str(copy), "--out", str(tmp_path / "out"))
    assert code == 0, err
    assert table_lines(out) == [
        [NAME, "conversations", "train", "189", "189", "189"],
        [NAME, "conversations", "validation", "21", "21", "21"],
        [NAME, "conversations", "test", "42", "42", "42"],
        [NAME, "messages", "train", "13,132", "13,132", "13,132"],
        [NAME, "messages", "validation", "1,416", "1,416", "1,416"],
        [NAME, "messages", "test", "2,741", "2,741", "2,741"],
    ]


def test_checksums_measures_a_copy_and_update_records_it(capsys, tmp_path, record_release):
    corpus = registry.get(NAME)
    record_release(NAME, corpus.dummy_dir)  # a temporary checksums.tsv, so the real one is untouched
    copy = write_diplomacy(tmp_path / "upstream")
    code, out, err = run(capsys, "checksums", NAME, "--data-dir", str(copy))
    assert code == 1  # differs from the record: reported, not written
    rows = [line.split() for line in out.splitlines()[1:]]
    assert [(row[0], int(row[1].replace(",", "")), row[2], row[3]) for row in rows] == [
        (path, (copy / path).stat().st_size, sources.measure(copy / path).sha256, "differs")
        for path in corpus.source_files()
    ]
    code, out, err = run(capsys, "checksums", NAME, "--data-dir", str(copy), "--update")
    assert code == 0
    assert sources.read_records(corpus) == {
        corpus.module._URLS[path]: sources.measure(copy / path) for path in corpus.source_files()
    }
    code, out, err = run(capsys, "checksums", NAME, "--data-dir", str(copy))
    assert code == 0
    assert [line.split()[-1] for line in out.splitlines()[1:]] == ["ok", "ok", "ok"]


def test_a_copy_with_other_split_sizes_is_refused_without_the_flag(capsys, tmp_path, record_release):
    dummy = registry.get(NAME).dummy_dir
    record_release(NAME, dummy)  # the release checksums pass: only the sizes differ
    code, out, err = run(capsys, "build", NAME, "--data-dir", str(dummy), "--out", str(tmp_path / "out"))
    assert code == 1
    assert err == (
        "corpora build: error: diplomacy_detection: split sizes differ from the official ones: "
        "conversations/train: 4 rows (official 189); conversations/validation: 2 rows (official 21); "
        "conversations/test: 2 rows (official 42); messages/train: 10 rows (official 13,132); "
        "messages/validation: 3 rows (official 1,416); messages/test: 5 rows (official 2,741). To build a fixed, extended or cut copy anyway, "
        "use --allow-modified-sources (allow_modified_sources=True in Python)\n"
    )
    # nothing half-written is left behind; the lock file stays (removing it would race a waiting build)
    assert [p.name for p in (tmp_path / "out").iterdir()] == [".diplomacy_detection.lock"]


def test_allow_modified_sources_builds_a_cut_copy_and_shows_the_official_sizes(capsys, tmp_path):
    dummy = registry.get(NAME).dummy_dir
    code, out, err = run(capsys, "build", NAME, "--data-dir", str(dummy), "--out", str(tmp_path),
                         "--allow-modified-sources")
    assert code == 0, err
    assert table_lines(out) == [
        [NAME, "conversations", "train", "4", "4", "189", "(differs)"],
        [NAME, "conversations", "validation", "2", "2", "21", "(differs)"],
        [NAME, "conversations", "test", "2", "2", "42", "(differs)"],
        [NAME, "messages", "train", "10", "10", "13,132", "(differs)"],
        [NAME, "messages", "validation", "3", "3", "1,416", "(differs)"],
        [NAME, "messages", "test", "5", "5", "2,741", "(differs)"],
    ]
    card = (tmp_path / NAME / "README.md").read_text()
    assert (
        "Built from files that may differ from the release, read from a local copy (built with "
        "--allow-modified-sources; see Source files); split sizes that differ from the official ones: "
        "conversations/train: 4 rows (official 189), conversations/validation: 2 rows (official 21), "
        "conversations/test: 2 rows (official 42), messages/train: 10 rows (official 13,132), "
        "messages/validation: 3 rows (official 1,416), messages/test: 5 rows (official 2,741)."
    ) in " ".join(card.split())


def test_errors_are_one_line_without_traceback(capsys, tmp_path):
    code, _, err = run(capsys, "build", "nope", "--dummy", "--out", str(tmp_path))
    assert code == 1
    assert err == f"corpora build: error: unknown corpus 'nope'; known: {', '.join(registry.names())}\n"

    code, _, err = run(capsys, "build", NAME, "--data-dir", str(tmp_path / "empty"), "--out", str(tmp_path))
    assert code == 1
    missing = ", ".join(str(tmp_path / "empty" / "data" / f) for f in ["train.jsonl", "validation.jsonl", "test.jsonl"])
    assert err == f"corpora build: error: diplomacy_detection: 3 source file(s) missing: {missing}\n"


def test_a_bad_record_is_named_on_one_line(capsys, tmp_path, dummy_copy):
    data_dir = dummy_copy(NAME)
    path = data_dir / "data" / "test.jsonl"
    path.write_text(path.read_text().replace('"Autumn"', "").replace('"Fall"', '"Autumn"'))
    code, _, err = run(capsys, "build", NAME, "--data-dir", str(data_dir), "--out", str(tmp_path),
                       "--allow-modified-sources")
    assert code == 1
    assert err == "corpora build: error: data/test.jsonl, line 2: field 'seasons'[2]: invalid value 'Autumn'\n"


def test_debug_shows_the_traceback(capsys, tmp_path):
    with pytest.raises(Exception, match="unknown corpus 'nope'"):
        main(["--debug", "build", "nope", "--dummy", "--out", str(tmp_path)])


def test_names_or_all(capsys):
    assert run(capsys, "card", "--check")[2] == "corpora card: error: give at least one corpus name, or --all\n"
    assert run(capsys, "card", NAME, "--all")[2] == "corpora card: error: give corpus names or --all, not both\n"


def test_card_check_is_clean(capsys):
    code, out, _ = run(capsys, "card", "--all", "--check")
    assert code == 0
    assert out.splitlines() == [f"{name}: card up to date" for name in registry.names()]


def test_validate_passes_on_the_committed_tree(capsys):
    code, out, _ = run(capsys, "validate", NAME)
    assert code == 0
    assert out.splitlines() == [
        f"{NAME}: dummy build conversations: ok",
        f"{NAME}: dummy build messages: ok",
        f"{NAME}: card: ok",
        f"{NAME}: export round trip: ok",
    ]


def test_console_script_runs(tmp_path):
    script = Path(sys.executable).with_name("corpora")
    result = subprocess.run(
        [str(script), "build", NAME, "--dummy", "--config", "messages", "--out", str(tmp_path)],
        capture_output=True, text=True, env=os.environ.copy(), check=False,
    )
    assert result.returncode == 0, result.stderr
    assert [NAME, "messages", "validation", "3", "3", "3"] in table_lines(result.stdout)


def test_build_with_worker_processes_gives_the_rows_of_one_process(tmp_path):
    # In a subprocess with a timeout, so a hang (see the test above) fails instead of waiting.
    script = Path(sys.executable).with_name("corpora")
    name = "caption_contest_ratings"
    for num_proc in ("1", "2"):
        result = subprocess.run(
            [str(script), "build", name, "--dummy", "--config", "summaries", "--num-proc", num_proc,
             "--out", str(tmp_path / num_proc)],
            capture_output=True, text=True, env=os.environ.copy(), check=False, timeout=120,
        )
        assert result.returncode == 0, result.stderr
        assert table_lines(result.stdout) == [[name, "summaries", "train", "400", "400", "400"]]
    one = sorted(p.name for p in (tmp_path / "1" / name / "summaries").iterdir())
    two = sorted(p.name for p in (tmp_path / "2" / name / "summaries").iterdir())
    assert (one, two) == (["train-00000-of-00001.parquet"], ["train-00000-of-00002.parquet", "train-00001-of-00002.parquet"])
    rows = {n: datasets.load_dataset(str(tmp_path / n / name), "summaries", split="train", cache_dir=str(tmp_path / "c"))
            for n in ("1", "2")}

    def key(row):
        return (row["source_file"], row["rank"], row["caption"])

    assert sorted(rows["1"].to_list(), key=key) == sorted(rows["2"].to_list(), key=key)


def test_a_forked_worker_dies_of_the_sigterm_its_pool_sends(tmp_path):
    # The pool ends its idle workers with SIGTERM. A worker that kept the command's handler only
    # set a flag when another of its threads took the signal, and the build waited forever.
    import multiprocessing
    import signal

    from corpora import cli

    previous = signal.signal(signal.SIGTERM, cli._terminate)
    try:
        with multiprocessing.get_context("fork").Pool(1) as pool:
            in_worker = pool.apply(signal.getsignal, (signal.SIGTERM,))
        in_parent = signal.getsignal(signal.SIGTERM)
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert (in_worker, in_parent) == (signal.SIG_DFL, cli._terminate)


def test_a_reader_that_stops_early_ends_the_command_quietly(tmp_path):
    # `corpora list | head -1`: the pipe is closed before the table is written.
    script = Path(sys.executable).with_name("corpora")
    process = subprocess.Popen([script, "list"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    process.stdout.close()
    assert process.wait(timeout=120) == 141  # 128 + SIGPIPE, as a shell reports a command a pipe ended
    assert process.stderr.read() == b""


def test_diff_reports_trouble_with_status_two(capsys, tmp_path):
    assert run(capsys, "diff", str(tmp_path / "old"), str(tmp_path / "new"))[0] == 2
