"""Stops of a real `corpora build` process of the example corpus: with worker processes (--num-proc)
as with one process, at any moment of its start, and a stop Python swallowed. The split of
tests/test_export_safety.py by this section; the builds start as there (tests/helpers/builds.py)."""

import os
import re
import shutil
import signal
import sys
import time
from pathlib import Path

import pytest

from corpora import export_folder
from corpora import exports
from corpora import prepare
from corpora import registry
from corpora import signals
from helpers import EXAMPLE
from helpers import run_process
from helpers.builds import QUIET
from helpers.builds import command
from helpers.builds import environment
from helpers.builds import no_build_outlives_its_test  # noqa: F401  (autouse: kills what a test started)
from helpers.builds import popen
from helpers.builds import wait_for_line
from helpers.exports import files_of
from helpers.exports import only_the_export

NAME = EXAMPLE
pytestmark = pytest.mark.usefixtures("example_collection")


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


# A stop that comes inside a weakref callback (as importlib's module locks have, when Ctrl-C comes
# during an import): Python drops the raise and prints it; the command prints nothing of it.
STOP_IN_A_WEAKREF_CALLBACK = """
import signal, sys, weakref
from corpora import signals
signals.handle_stops()
class Thing: pass
thing = Thing()
ref = weakref.ref(thing, lambda ref: signals.stop(signal.SIGINT, None))
del thing
print([int(s) for s in signals.STOP_SIGNALS], flush=True)
def other(ref):
    raise ValueError("kept")
other_thing = Thing()
other_ref = weakref.ref(other_thing, other)
del other_thing
"""


def test_a_stop_python_drops_prints_nothing():
    result = run_process([sys.executable, "-c", STOP_IN_A_WEAKREF_CALLBACK], env=environment())
    assert result.stdout == "[2]\n"  # recorded, to be raised at the next phase
    # any other exception Python drops is printed as before
    assert re.fullmatch(r"Exception ignored in: <function other at 0x[0-9a-f]+>\nTraceback \(most recent call last\):\n"
                        r'  File "<string>", line 11, in other\nValueError: kept\n', result.stderr), result.stderr


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



# A child that its parent terminates as soon as it is forked (a pool's terminate() just after it started
# its workers, as datasets' --num-proc downloads do): without the stops blocked until the child has its
# own handlers, the SIGTERM reached the parent's handler, or was dropped, and the pool waited forever.
FORK_AND_TERMINATE = """
import os, signal, time
from corpora import signals
signals.handle_stops()
ends = {}
for _ in range(20):
    pid = os.fork()
    if pid == 0:
        time.sleep(1)
        os._exit(0)
    os.kill(pid, signal.SIGTERM)
    status = os.waitpid(pid, 0)[1]
    end = f"killed by signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else f"exit {os.WEXITSTATUS(status)}"
    ends[end] = ends.get(end, 0) + 1
print(ends)
"""


def test_a_worker_terminated_as_it_starts_dies():
    result = run_process([sys.executable, "-c", FORK_AND_TERMINATE], timeout=60)
    assert (result.returncode, result.stdout, result.stderr) == (0, "{'killed by signal 15': 20}\n", "")
