"""Safe exports, with real `corpora build` processes where the process is what is tested (signals,
workers, two builds at once, its file system) and in this process elsewhere: one writer per OUT/NAME,
every check before an atomic swap, leftovers of killed builds cleaned by the next build, sources never
touched, and every failure one line. A build started with `pause=<phase>` runs with a test's hooks (tests/hooked_corpora.py,
corpora.exports.Hooks) and stops at that phase so it can be killed there. The builds are of the example
corpus's dummy data (tests/example_collection); each subprocess gets the environment of the moment,
CORPORA_ROOT included. Stops with worker processes and at a build's start: tests/test_export_stops.py;
how a build process starts: tests/helpers/builds.py."""

import errno
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import datasets
import pytest

from corpora import datasets_adapter
from corpora import export_folder
from corpora import exports
from corpora import prepare
from corpora import registry
from corpora.cli import main
from helpers import EXAMPLE
from helpers import namespace_with_tmpfs
from helpers import run_process
from helpers.builds import QUIET
from helpers.builds import command
from helpers.builds import environment
from helpers.builds import no_build_outlives_its_test  # noqa: F401  (autouse: kills what a test started)
from helpers.builds import popen
from helpers.builds import wait_for_line
from helpers.exports import DUMMY_COUNTS
from helpers.exports import build_here
from helpers.exports import card_counts
from helpers.exports import check_export
from helpers.exports import files_of
from helpers.exports import only_the_export

NAME = EXAMPLE
pytestmark = pytest.mark.usefixtures("example_collection")
WAITING = re.compile(rf"corpora: (\S+): waiting for another build \(pid (\d+) on {re.escape(socket.gethostname())}, "
                     r"started \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\)\n")


def start(out, *extra, pause=None, source=("--dummy",)):
    return popen(command(out, *extra, source=source, pause=pause), env=environment())


RATINGS_ONLY = ("--dummy", "--config", "ratings")  # a build whose export differs from the full one


@pytest.mark.both_legs  # datasets resolves (and here reloads) the export
@pytest.mark.parametrize("offset", [0.0, 0.5, 2.0])
def test_two_concurrent_builds_both_end_with_a_whole_export(tmp_path, offset):
    out = tmp_path / "out"
    first = start(out)
    time.sleep(offset)
    second = start(out)
    results = [(p.wait(timeout=300), p.stderr.read()) for p in (first, second)]
    assert [code for code, _ in results] == [0, 0], results
    for _, err in results:  # at most a line saying it waited for the other build
        assert err == "" or WAITING.fullmatch(err), err
    assert check_export(out / NAME, tmp_path / "cache") == DUMMY_COUNTS
    only_the_export(out)


def test_a_second_build_waits_for_the_first_and_gives_up_after_its_timeout(tmp_path):
    out = tmp_path / "out"
    first = start(out, pause="writing")
    wait_for_line(first, "corpora: paused at writing")
    result = run_process(command(out, "--lock-timeout", "0.5"), env=QUIET, timeout=300)
    waiting, error = result.stderr.splitlines(keepends=True)
    assert WAITING.fullmatch(waiting)[1] == str(out / NAME)
    assert WAITING.fullmatch(waiting)[2] == str(first.pid)
    assert re.fullmatch(
        rf"corpora build: error: {re.escape(str(out / NAME))}: another build is writing it \(pid {first.pid} on "
        r".+, started .+ UTC\); gave up after 0.5 s\n", error)
    assert result.returncode == 1
    # Without a timeout it waits; the first ends (SIGTERM: cleaned up), then the second exports.
    second = start(out)
    wait_for_line(second, WAITING.pattern.rstrip("\\n"))
    first.send_signal(signal.SIGTERM)
    assert first.wait(timeout=60) == 128 + signal.SIGTERM
    assert first.stderr.read() == "corpora build: terminated\n"
    assert second.wait(timeout=300) == 0
    assert check_export(out / NAME, tmp_path / "cache") == DUMMY_COUNTS
    only_the_export(out)


@pytest.mark.both_legs  # datasets resolves (and here reloads) the export
@pytest.mark.parametrize("phase", ["generating", "writing"])
def test_a_build_killed_at_any_phase_leaves_the_previous_export_and_the_next_build_cleans_up(tmp_path, phase):
    out = tmp_path / "out"
    export_folder.export(prepare.Request(registry.get(NAME), dummy=True), out)
    before = files_of(out / NAME)
    killed = start(out, pause=phase, source=RATINGS_ONLY[:1])
    wait_for_line(killed, f"corpora: paused at {phase}")
    killed.kill()
    killed.wait()
    assert files_of(out / NAME) == before
    leftovers = {name.split("-")[0] for name in set(os.listdir(out)) - {f".{NAME}.lock", f".{NAME}.lock.info", NAME}}
    assert leftovers == {f".{NAME}.partial"}
    if phase == "writing":  # the killed build's datasets cache is inside its partial folder
        assert len(list(out.glob(f".{NAME}.partial-*/cache/{NAME}"))) == 1
    result = run_process(command(out), env=QUIET, timeout=300)
    assert (result.returncode, result.stderr) == (0, "")
    assert check_export(out / NAME, tmp_path / "cache") == DUMMY_COUNTS
    only_the_export(out)


def test_a_swap_without_an_atomic_exchange_killed_between_its_renames_is_put_back(tmp_path):
    out = tmp_path / "out"
    export_folder.export(prepare.Request(registry.get(NAME), dummy=True), out)
    before = files_of(out / NAME)
    killed = popen(command(out, pause="renaming", exchange=False), env=environment())
    wait_for_line(killed, "corpora: paused at renaming")
    killed.kill()
    killed.wait()
    assert not (out / NAME).exists()  # moved aside, under the journal
    assert (out / f".{NAME}.swap").exists()
    # The next build puts it back first, so even a build that then fails leaves it.
    (tmp_path / "empty").mkdir()
    result = run_process(command(out, source=("--data-dir", str(tmp_path / "empty"))), env=QUIET, timeout=300)
    assert result.returncode == 1
    assert result.stderr.startswith(f"corpora build: error: {NAME}: 6 source file(s) missing: ")
    assert files_of(out / NAME) == before
    assert sorted(os.listdir(out)) == [f".{NAME}.lock", NAME]


def test_a_swap_without_an_atomic_exchange_replaces_the_export(tmp_path):
    out = tmp_path / "out"
    export_folder.export(prepare.Request(registry.get(NAME), configs=["ratings"], dummy=True), out)
    result = run_process(command(out, exchange=False), env=QUIET, timeout=300)
    assert (result.returncode, result.stderr) == (0, "")
    assert check_export(out / NAME, tmp_path / "cache") == DUMMY_COUNTS
    only_the_export(out)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the atomic exchange is Linux's renameat2")
def test_the_swap_has_no_moment_without_the_export(tmp_path):
    # Two renames would leave a moment without OUT/NAME, where a build paused at `renaming` waits;
    # the exchange has no such moment, so the build never pauses and ends.
    out = tmp_path / "out"
    export_folder.export(prepare.Request(registry.get(NAME), dummy=True), out)
    process = start(out, *RATINGS_ONLY[1:], "--drop-other-configs", pause="renaming")
    _, err = process.communicate(timeout=60)
    assert (process.returncode, err) == (0, "")
    only_the_export(out)
    assert exports.read_mark(out / NAME).configs == ("ratings",)


@pytest.mark.parametrize("signum, code, line", [(signal.SIGTERM, 143, "terminated"), (signal.SIGINT, 130, "interrupted"),
                                                 (signal.SIGHUP, 129, "hung up")])
def test_a_signal_at_the_swap_leaves_the_previous_export_and_nothing_else(tmp_path, signum, code, line):
    out = tmp_path / "out"
    export_folder.export(prepare.Request(registry.get(NAME), dummy=True), out)
    before = files_of(out / NAME)
    process = start(out, pause="swapping")
    wait_for_line(process, "corpora: paused at swapping")
    process.send_signal(signum)
    assert process.wait(timeout=60) == code
    assert process.stderr.read() == f"corpora build: {line}\n"
    assert files_of(out / NAME) == before
    only_the_export(out)


def test_a_stop_while_the_workspace_is_removed_waits_for_it(tmp_path):
    # After the swap: the new export is in place, and Ctrl-C comes as its workspace (cache, locks) is removed.
    out = tmp_path / "out"
    result = run_process(command(out, interrupt="removing"), env=QUIET, timeout=120)
    assert (result.returncode, result.stderr) == (130, "corpora build: interrupted\n")
    only_the_export(out)
    assert card_counts((out / NAME / "README.md").read_text()) == DUMMY_COUNTS


@pytest.mark.parametrize("signum, code, line", [(signal.SIGTERM, 143, "terminated"), (signal.SIGINT, 130, "interrupted"),
                                                 (signal.SIGHUP, 129, "hung up")])
def test_sigterm_and_ctrl_c_leave_no_partial_folder_and_no_cache(tmp_path, signum, code, line):
    out = tmp_path / "out"
    process = start(out, pause="writing")
    wait_for_line(process, "corpora: paused at writing")
    assert len(list(out.glob(f".{NAME}.partial-*/cache/{NAME}"))) == 1
    process.send_signal(signum)
    assert process.wait(timeout=60) == code
    assert process.stderr.read() == f"corpora build: {line}\n"
    assert os.listdir(out) == [f".{NAME}.lock"]


@pytest.mark.parametrize("where", ["equal", "inside", "containing"])
def test_an_export_folder_overlapping_the_sources_is_refused_before_any_work(tmp_path, where):
    dummy = registry.get(NAME).dummy_dir
    if where == "equal":  # OUT/NAME is the data folder
        data_dir, out = tmp_path / NAME, tmp_path
    elif where == "inside":  # OUT/NAME is inside the data folder
        data_dir, out = tmp_path / "data_dir", tmp_path / "data_dir"
    else:  # OUT/NAME contains the data folder
        data_dir, out = tmp_path / NAME / "copy", tmp_path
    shutil.copytree(dummy, data_dir)
    listing = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    # Through a symlink too: real paths are compared.
    (tmp_path / "link").symlink_to(out)
    result = build_here(tmp_path / "link", "--allow-modified-sources", source=("--data-dir", str(data_dir)))
    assert (result.returncode, result.stderr) == (
        1, f"corpora build: error: {tmp_path / 'link' / NAME}: the export folder overlaps the sources in {data_dir}; "
           "choose another --out\n")
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.name != "link") == listing


def test_an_out_folder_that_holds_the_sources_beside_the_export_is_fine(tmp_path):
    # Only OUT/NAME and OUT/.NAME.* are ever replaced or removed: OUT/src is left alone.
    data_dir = tmp_path / "out" / "src"
    shutil.copytree(registry.get(NAME).dummy_dir, data_dir)
    before = files_of(data_dir)
    result = build_here(tmp_path / "out", "--allow-modified-sources", source=("--data-dir", str(data_dir)))
    assert (result.returncode, result.stderr) == (0, "")
    assert check_export(tmp_path / "out" / NAME, tmp_path / "cache") == DUMMY_COUNTS
    assert files_of(data_dir) == before
    assert sorted(os.listdir(tmp_path / "out")) == sorted([f".{NAME}.lock", NAME, "src"])


def test_the_dummy_data_cannot_be_the_export(tmp_path):
    dummy = registry.get(NAME).dummy_dir
    result = build_here(dummy.parent)
    assert (result.returncode, result.stderr) == (
        1, f"corpora build: error: {dummy}: the export folder overlaps the sources in {dummy}; choose another --out\n")


def test_out_a_regular_file(tmp_path):
    (tmp_path / "file").write_text("not a folder")
    for out in (tmp_path / "file", tmp_path / "file" / "sub"):
        result = build_here(out)
        assert (result.returncode, result.stderr) == (1, f"corpora build: error: {out}: Not a directory\n")


def test_out_a_dangling_symbolic_link(tmp_path):
    (tmp_path / "out").symlink_to(tmp_path / "nowhere")
    result = build_here(tmp_path / "out")
    assert (result.returncode, result.stderr) == (1, (
        f"corpora build: error: {tmp_path / 'out'}: a symbolic link to {tmp_path / 'nowhere'}, which does not exist; "
        "make that folder, or choose another --out\n"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_out_inside_an_export_is_refused_and_nothing_is_written(tmp_path):
    export_folder.export(prepare.Request(registry.get(NAME), dummy=True), tmp_path / "out")
    before = files_of(tmp_path / "out")
    for out in (tmp_path / "out" / NAME, tmp_path / "out" / NAME / "sub"):
        result = build_here(out)
        assert (result.returncode, result.stderr) == (1, (
            f"corpora build: error: {out}: inside the export {tmp_path / 'out' / NAME} (of corpus {NAME}); pass the "
            f"folder that holds exports, such as {tmp_path / 'out'}, as --out\n"))
    assert files_of(tmp_path / "out") == before


def test_a_full_file_system_is_one_line_and_leaves_nothing(tmp_path):
    mount = tmp_path / "small"
    prefix = namespace_with_tmpfs(mount, "size=32k")  # the dummy export takes 56 kB, about 88 kB while built
    # The listing is taken inside the namespace, before its tmpfs is gone.
    script = f'{shlex.join(command(mount))}; code=$?; ls -A "{mount}"; exit $code'
    result = run_process([*prefix, "sh", "-c", script], env=QUIET, timeout=300)
    assert (result.returncode, result.stderr) == (1, f"corpora build: error: {mount / NAME}: No space left on device\n")
    assert result.stdout == f".{NAME}.lock\n"


def test_a_read_only_file_system_is_one_line(tmp_path):
    mount = tmp_path / "ro"
    prefix = namespace_with_tmpfs(mount, "ro")
    result = run_process([*prefix, *command(mount / "out")], env=QUIET, timeout=300)
    assert (result.returncode, result.stderr) == (1, f"corpora build: error: {mount / 'out'}: Read-only file system\n")


@pytest.fixture
def unprivileged():
    """(a folder the build's user can write, a command prefix): as root, whom modes do not stop,
    the build runs as `nobody` (setpriv), in a folder outside root's private pytest folder."""
    if os.geteuid():
        folder = Path(tempfile.mkdtemp(prefix="corpora-test-"))
        yield folder, []
    else:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root, and no `setpriv` to run the build as another user")
        folder = Path(tempfile.mkdtemp(prefix="corpora-test-"))
        folder.chmod(0o777)
        home = f"HOME={folder} HF_HOME={folder / 'hf'}"
        prefix = ["env", *home.split(), "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        # In a clone under a private folder (0700: root's home, a mktemp -d) `nobody` cannot reach
        # the package or the example corpus: there is then nothing to test as `nobody`.
        probe = subprocess.run([*prefix, sys.executable, "-c", "import corpora.cli, os; os.listdir(os.environ['CORPORA_ROOT'])"],
                               capture_output=True, text=True, env=environment(), check=False)
        if probe.returncode:
            shutil.rmtree(folder, ignore_errors=True)
            last = (probe.stderr.strip().splitlines() or ["no output"])[-1]
            pytest.skip(f"`nobody` cannot run this checkout's package (a private folder above it?): {last}")
        yield folder, prefix
    shutil.rmtree(folder, ignore_errors=True)


def test_a_folder_without_write_permission_is_one_line(unprivileged):
    folder, prefix = unprivileged
    out = folder / "out"
    out.mkdir()
    out.chmod(0o555)
    result = run_process([*prefix, *command(out)], env=QUIET, timeout=300)
    assert (result.returncode, result.stderr) == (1, f"corpora build: error: {out / f'.{NAME}.lock'}: Permission denied\n")


def test_a_folder_made_read_only_after_a_build_names_the_lock_info(unprivileged):
    folder, prefix = unprivileged
    out = folder / "out"
    assert run_process([*prefix, *command(out)], env=QUIET, timeout=300).returncode == 0  # leaves OUT/.NAME.lock, which the build's user can open
    out.chmod(0o555)
    try:
        result = run_process([*prefix, *command(out)], env=QUIET, timeout=300)
    finally:
        out.chmod(0o755)  # for the fixture to remove it
    assert (result.returncode, result.stderr) == (
        1, f"corpora build: error: {out / f'.{NAME}.lock.info'}: Permission denied\n")


def test_an_unreadable_source_file_is_one_line(unprivileged):
    folder, prefix = unprivileged
    if prefix and int(datasets.__version__.split(".")[0]) < 4:
        pytest.skip("datasets 3.x locks loaders.lock beside the loaders folder, which `nobody` may not write")
    data_dir = folder / "data_dir"
    shutil.copytree(registry.get(NAME).dummy_dir, data_dir)
    (data_dir / "data" / "validation.jsonl").chmod(0)
    result = run_process([*prefix, *command(folder / "out", "--allow-modified-sources", source=("--data-dir", str(data_dir)))],
                         env=QUIET, timeout=300)
    assert (result.returncode, result.stderr) == (
        1, f"corpora build: error: {data_dir / 'data' / 'validation.jsonl'}: Permission denied\n")


def test_debug_shows_the_traceback_wherever_it_is_given(capsys, tmp_path):
    for argv in (["--debug", "build", "nope"], ["build", "--debug", "nope"], ["build", "nope", "--debug"]):
        with pytest.raises(Exception, match="unknown corpus 'nope'"):
            main([*argv, "--dummy", "--out", str(tmp_path)])
    assert main(["build", "nope", "--dummy", "--out", str(tmp_path)]) == 1
    assert capsys.readouterr().err.startswith("corpora build: error: unknown corpus 'nope'; known: ")


@pytest.mark.both_legs  # datasets' private parts differ between versions
def test_datasets_private_parts_are_where_the_adapter_expects_them(tmp_path):
    corpus = registry.get(NAME)
    builder = corpus.builder("ratings", corpus.dummy_dir, tmp_path / "cache")
    assert datasets_adapter.declared_info(corpus.builder_class, "ratings").features == builder.info.features


def test_the_adapter_names_the_private_part_that_changed():
    changed = type("Changed", (), {"BUILDER_CONFIGS": []})  # a builder class without `_info`
    with pytest.raises(datasets_adapter.DatasetsChanged) as error:
        datasets_adapter.declared_info(changed, "ratings")
    assert str(error.value) == (
        f"datasets {datasets.__version__} changed Changed._info: no such method; update corpora/datasets_adapter/"
    )


@pytest.mark.both_legs  # datasets resolves (and here reloads) the export
def test_the_export_is_a_plain_folder_that_copies_whole(tmp_path):
    export_folder.export(prepare.Request(registry.get(NAME), dummy=True), tmp_path / "out")
    folder = tmp_path / "out" / NAME
    assert not any(p.is_symlink() for p in [folder, *folder.rglob("*")])
    copies = {"cp": tmp_path / "cp" / NAME, "tar": tmp_path / "tar" / NAME}
    for copy in copies.values():
        copy.parent.mkdir()
    subprocess.run(["cp", "-r", str(folder), str(copies["cp"].parent)], check=True)
    tar = f"tar -C {shlex.quote(str(folder.parent))} -cf - {NAME} | tar -C {shlex.quote(str(copies['tar'].parent))} -xf -"
    subprocess.run(tar, shell=True, check=True)
    for copy in copies.values():
        assert files_of(copy) == files_of(folder)
        for config, counts in DUMMY_COUNTS.items():
            loaded = datasets.load_dataset(str(copy), config, cache_dir=str(tmp_path / "cache"))
            assert {split: loaded[split].num_rows for split in loaded} == counts


def test_a_full_disk_while_the_mark_is_written_names_the_export(tmp_path, monkeypatch):
    # The mark is written after the body of the transaction: a full disk there (reported at close,
    # without a file) is said about OUT/NAME as for the export's other files.
    def full(*args):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(exports, "_write_mark", full)
    with pytest.raises(OSError) as caught:
        export_folder.export(prepare.Request(registry.get(NAME), dummy=True), tmp_path / "out")
    assert (caught.value.errno, caught.value.filename) == (errno.ENOSPC, str(tmp_path / "out" / NAME))
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [f".{NAME}.lock"]


def test_a_full_disk_that_names_a_file_of_the_workspace_names_the_export(tmp_path, monkeypatch):
    # write_text names the file it could not write: the mark in the partial folder, which goes.
    def full(path, text, encoding="utf-8"):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr(exports, "write_text", full)
    with pytest.raises(OSError) as caught:
        export_folder.export(prepare.Request(registry.get(NAME), dummy=True), tmp_path / "out")
    assert (caught.value.errno, caught.value.filename) == (errno.ENOSPC, str(tmp_path / "out" / NAME))
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [f".{NAME}.lock"]


@pytest.mark.parametrize("option", ["--out", "--data-dir"])
def test_a_path_that_is_not_utf8_is_named(tmp_path, option):
    folder = Path(os.fsdecode(os.fsencode(tmp_path) + b"/bad\xffname"))
    shutil.copytree(registry.get(NAME).dummy_dir, folder)
    argv = command(folder / "out") if option == "--out" else command(tmp_path / "out", source=("--data-dir", str(folder)))
    result = run_process(argv, env=QUIET, timeout=300, errors="surrogateescape")
    shown = f"{tmp_path}/bad\\xffname" + ("/out" if option == "--out" else "")
    assert (result.returncode, result.stderr) == (
        1, f"corpora build: error: {shown}: the {option} folder is not valid UTF-8, which datasets and pyarrow need; "
           "rename it or choose another\n")

