"""Safe exports, with real `corpora build` processes where the process is what is tested (signals,
workers, two builds at once, its file system) and in this process elsewhere: one writer per OUT/NAME,
every check before an atomic swap, leftovers of killed builds cleaned by the next build, sources never
touched, and every failure one line. A build started with `pause=<phase>` runs with a test's hooks (tests/hooked_corpora.py,
corpora.exports.Hooks) and stops at that phase so it can be killed there. The builds are of the example
corpus's dummy data (tests/example_collection); each subprocess gets the environment of the moment,
CORPORA_ROOT included."""

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
from corpora import signals
from corpora.cli import main
from helpers import EXAMPLE
from helpers import namespace_with_tmpfs
from helpers import run_process
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


HOOKED = Path(__file__).with_name("hooked_corpora.py")


def command(out, *extra, source=("--dummy",), pause=None, interrupt=None, exchange=True):
    """`corpora build` of the example corpus; with `pause`, `interrupt` or without `exchange`, with a test's hooks."""
    hooks = [*(["--pause-at", pause] if pause else []), *(["--interrupt-at", interrupt] if interrupt else []),
             *([] if exchange else ["--no-exchange"])]
    start = [str(HOOKED), *hooks] if hooks else ["-m", "corpora.cli"]
    return [sys.executable, *start, "build", NAME, *source, "--out", str(out), *extra]


# Added to the environment of the moment (CORPORA_ROOT: the example collection, set by its fixture).
QUIET = {"HF_DATASETS_DISABLE_PROGRESS_BARS": "1"}


def environment(**extra):
    """The environment of the moment, quiet, for a process started with popen."""
    return dict(os.environ, **QUIET, **extra)


STARTED = []  # every build a test starts, killed after the test whatever its outcome


@pytest.fixture(autouse=True)
def no_build_outlives_its_test():
    yield
    while STARTED:
        process = STARTED.pop()
        if process.poll() is None:
            process.kill()
            process.wait()


def popen(argv, **kwargs):
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs)
    STARTED.append(process)
    return process


def start(out, *extra, pause=None, source=("--dummy",)):
    return popen(command(out, *extra, source=source, pause=pause), env=environment())


def wait_for_line(process, expected: str) -> str:
    """Read stderr until a line matching `expected` (a regex); returns it."""
    seen = []
    while True:
        line = process.stderr.readline()
        assert line, f"the build ended before {expected!r}: {''.join(seen)}"
        if re.fullmatch(expected, line.rstrip("\n")):
            return line
        seen.append(line)


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
    assert datasets_adapter.declared_features(corpus.builder_class, "ratings") == builder.info.features


def test_the_adapter_names_the_private_part_that_changed():
    changed = type("Changed", (), {"BUILDER_CONFIGS": []})  # a builder class without `_info`
    with pytest.raises(datasets_adapter.DatasetsChanged) as error:
        datasets_adapter.declared_features(changed, "ratings")
    assert str(error.value) == (
        f"datasets {datasets.__version__} changed Changed._info: no such method; update corpora/datasets_adapter.py"
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


# --- worker processes (--num-proc) behave like one process -------------------------------------


def children_of(pid: int) -> list[int]:
    return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except FileNotFoundError:
        return False


def start_with_workers(out, release):
    """A build with 2 worker processes of a copy of the release, paused inside both: the example
    loader pauses in `_generate_examples` when its data_dir holds a file PAUSE_AT_EXAMPLES."""
    (release / "PAUSE_AT_EXAMPLES").touch()
    process = popen(command(out, "--num-proc", "2", source=("--data-dir", str(release))), env=environment(),
                    start_new_session=True)
    workers = {int(wait_for_line(process, r"corpora: paused at examples in \d+").split()[-1]) for _ in range(2)}
    assert len(workers) == 2 and workers < set(children_of(process.pid)), (workers, children_of(process.pid))
    return process


@pytest.mark.both_legs  # datasets' worker pool differs between versions
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs /proc to list a process's children")
@pytest.mark.parametrize("how, code, line", [("SIGINT", 130, "interrupted"), ("SIGTERM", 143, "terminated"),
                                             ("Ctrl-C", 130, "interrupted"), ("terminal closed", 129, "hung up"),
                                             ("SIGKILL", -9, "")])
def test_a_signal_with_worker_processes_ends_them_all_with_one_line(tmp_path, example_release, how, code, line):
    out = tmp_path / "out"
    export_folder.export(prepare.Request(registry.get(NAME), dummy=True), out)
    before = files_of(out / NAME)
    process = start_with_workers(out, example_release)
    children = children_of(process.pid)  # the two workers and datasets' queue manager
    if how == "Ctrl-C":  # a terminal sends SIGINT to the whole process group
        os.killpg(process.pid, signal.SIGINT)
    elif how == "terminal closed":  # and SIGHUP, when it closes
        os.killpg(process.pid, signal.SIGHUP)
    else:
        process.send_signal(getattr(signal, how))
    # communicate, not stderr.read(): a worker that outlived the build holds the pipe, which fails
    # the test (TimeoutExpired) instead of hanging it
    _, err = process.communicate(timeout=60)
    assert (process.returncode, err) == (code, f"corpora build: {line}\n" if line else "")
    deadline = time.monotonic() + 10
    while any(alive(child) for child in children) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [child for child in children if alive(child)] == []
    assert files_of(out / NAME) == before
    if how != "SIGKILL":
        only_the_export(out)


@pytest.mark.both_legs  # datasets' worker pool differs between versions
def test_a_bad_record_with_worker_processes_is_the_same_one_line(tmp_path):
    data_dir = tmp_path / "data_dir"
    shutil.copytree(registry.get(NAME).dummy_dir, data_dir)
    shard = data_dir / "data" / "train-2.jsonl"
    shard.write_text(shard.read_text().replace('"scores": [2, 4]', '"scores": [2, "x"]', 1))
    lines = {}
    for workers in ("1", "2"):
        result = run_process(command(tmp_path / f"out{workers}", "--num-proc", workers, "--allow-modified-sources",
                                     source=("--data-dir", str(data_dir))), env=QUIET, timeout=300)
        lines[workers] = (result.returncode, result.stderr)
    assert lines["1"] == lines["2"] == (
        1, "corpora build: error: data/train-2.jsonl, line 1: field 'scores'[1]: invalid value 'x' "
           "(expected an integer from 1 to 5)\n")


# A command that forks a worker, whose start is held (an at-fork hook registered before corpora's runs first)
# in the moment before it asks to die with its parent; it prints the worker's pid.
WORKER_HELD_AT_ITS_START = """
import os, sys, time
os.register_at_fork(after_in_child=lambda: time.sleep(1.5))
from corpora import signals
signals.handle_stops()
worker = os.fork()
if worker == 0:
    time.sleep(60)
    os._exit(0)
print(worker, flush=True)
time.sleep(60)
"""


def is_gone(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1].startswith(("Z", "X"))
    except FileNotFoundError:
        return True


def test_a_worker_whose_parent_died_before_it_asked_to_die_with_it_ends():
    parent = popen([sys.executable, "-c", WORKER_HELD_AT_ITS_START], env=environment())
    worker = int(parent.stdout.readline())
    parent.kill()  # SIGKILL, while the worker is still held: no death signal was asked for yet
    parent.wait(timeout=10)
    deadline = time.monotonic() + 10
    while not is_gone(worker) and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        assert is_gone(worker), "the worker outlived its parent"
    finally:
        if not is_gone(worker):
            os.kill(worker, signal.SIGKILL)


def catches_sigterm(pid: int) -> bool:
    """Whether the process has a handler for SIGTERM (/proc's SigCgt): Python has none of its own."""
    status = Path(f"/proc/{pid}/status").read_text()
    return bool(int(re.search(r"^SigCgt:\s*([0-9a-f]+)", status, re.M).group(1), 16) >> (signal.SIGTERM - 1) & 1)


@pytest.mark.parametrize("delay", [0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.6, 1.2])
def test_ctrl_c_at_any_moment_of_the_start_is_one_line(tmp_path, delay):
    # From the first line of corpora.cli on (its handlers, seen in /proc, so a busy machine's slow
    # start of Python is not mistaken for it); the imports of datasets and the loaders come after it.
    # The build pauses before its swap, so that however fast the machine it is still running.
    process = popen(command(tmp_path / "out", pause="swapping"), env=environment())
    deadline = time.monotonic() + 60
    while not catches_sigterm(process.pid):
        assert process.poll() is None and time.monotonic() < deadline, "corpora.cli never set its handlers"
        time.sleep(0.001)
    time.sleep(delay)
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=60) == 130
    assert process.stderr.read() in ("corpora build: interrupted\n",
                                     "corpora: paused at swapping\ncorpora build: interrupted\n")
    assert not any(tmp_path.glob("out/.*partial*"))


@pytest.mark.parametrize("phase", ["generating", "writing"])
def test_a_stop_python_swallowed_ends_the_build_at_its_next_phase(tmp_path, phase):
    # A KeyboardInterrupt raised in a weakref callback is printed ("Exception ignored in ...") and
    # dropped; the handler has recorded it (signals.STOP_SIGNALS), and the build ends at its next
    # phase instead of running on (once, a test's build ran on into its pause at the swap).
    export_folder.export(prepare.Request(registry.get(NAME), dummy=True), tmp_path / "out")
    before = {p.relative_to(tmp_path): p.read_bytes() for p in (tmp_path / "out").rglob("*") if p.is_file()}
    phases = []

    class Hooks(exports.Hooks):
        def reached(self, reached):
            phases.append(reached)
            if reached == phase:
                signals.STOP_SIGNALS.append(signal.SIGINT)  # as _stop leaves it when Python dropped its raise

    try:
        with pytest.raises(KeyboardInterrupt):
            export_folder.export(prepare.Request(registry.get(NAME), dummy=True), tmp_path / "out", hooks=Hooks())
    finally:
        signals.STOP_SIGNALS.clear()
    assert phases[-2:] == [phase, "removing"]  # no phase between: the workspace goes however the build ends
    # the previous export as it was, and no partial folder left
    assert {p.relative_to(tmp_path): p.read_bytes() for p in (tmp_path / "out").rglob("*") if p.is_file()} == before


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

