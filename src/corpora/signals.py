"""Ctrl-C, SIGTERM and SIGHUP end the `corpora` command with one line, after its cleanup, and its workers with it."""

from __future__ import annotations

import contextlib
import gc
import importlib
import os
import signal
import sys
import threading
import time

STOPPED = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated", signal.SIGHUP: "hung up"}  # the command's lines


class Terminated(BaseException):
    """SIGTERM or SIGHUP, raised like KeyboardInterrupt so that every `finally` cleans up."""

    def __init__(self, signum: int = signal.SIGTERM):
        super().__init__(signum)
        self.signum = signum


# Python drops an exception raised in a weakref or at-fork callback: the stop is raised again at the next phase.
# needed: tests/test_export_stops.py::test_a_stop_python_swallowed_ends_the_build_at_its_next_phase
STOP_SIGNALS: list[int] = []


def stop_if_asked() -> None:
    if STOP_SIGNALS:
        raise KeyboardInterrupt() if STOP_SIGNALS[0] == signal.SIGINT else Terminated(STOP_SIGNALS[0])


def _is_the_command() -> bool:  # `corpora ...` (pyproject's script), or `python -m corpora.cli ...`
    main_spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    return os.path.basename(sys.argv[0]) == "corpora" or getattr(main_spec, "name", None) == "corpora.cli"


AS_COMMAND = _is_the_command()


def end_at_once(prefix: str) -> None:
    """Until `handle_stops`: a stop before there is anything to clean up ends the process with its line."""
    _PREFIX[0] = prefix

    def stopped_early(signum, frame):
        os.write(2, f"{_PREFIX[0]}: {STOPPED[signum]}\n".encode())
        # needed: tests/test_export_stops.py::test_ctrl_c_at_any_moment_of_the_start_is_one_line
        os._exit(128 + signum)

    for signum in STOPPED:
        signal.signal(signum, stopped_early)


def handle_stops() -> dict:
    """Ctrl-C, SIGTERM and SIGHUP unwind the stack (`stop`); returns the handlers (and hook) they replace."""
    STOP_SIGNALS.clear()
    replaced = {signum: signal.signal(signum, stop) for signum in STOPPED}
    replaced["unraisablehook"], sys.unraisablehook = sys.unraisablehook, _unraisable(sys.unraisablehook)
    return replaced


def _unraisable(previous):
    """A stop Python dropped (raised in a weakref callback, e.g. importlib's module locks) is not printed:
    it is raised again at the next phase (STOP_SIGNALS). Anything else goes to the previous hook."""

    def hook(unraisable):
        # needed: tests/test_export_stops.py::test_a_stop_python_drops_prints_nothing
        if STOP_SIGNALS and isinstance(unraisable.exc_value, (KeyboardInterrupt, Terminated)):
            return
        previous(unraisable)

    return hook


def restore(handlers: dict) -> None:
    if not AS_COMMAND:  # a caller that imported the command (tests) gets its handlers back; the command keeps `stop`
        handlers = dict(handlers)
        sys.unraisablehook = handlers.pop("unraisablehook")
        for signum, handler in handlers.items():
            signal.signal(signum, handler)


_PREFIX = ["corpora"]  # the command's line prefix ("corpora build"), set by end_at_once
HARD_STOP_CLEANUPS: list = []  # what a hard stop runs before it exits (exports.abandon_all)
_STOPPING: list[int] = []  # the signal that is ending the build with its worker processes


_HELD: list[list[int]] = []  # inside held(): the stops that came, the first raised at its end


@contextlib.contextmanager
def held():
    """Ctrl-C, SIGTERM and SIGHUP come after the block, not inside it. Masked in this thread (for any
    handler), and deferred by `stop`, which runs in the main thread whichever thread received the signal."""
    _HELD.append([])
    mask = hasattr(signal, "pthread_sigmask")
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, set(STOPPED)) if mask else None
    try:
        yield
    finally:
        if mask:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)  # a masked signal reaches `stop` here, still held
        came = _HELD.pop()
        if came:
            stop(came[0], None)


def stop(signum, frame):
    # needed: tests/test_export_safety.py::test_sigterm_and_ctrl_c_leave_no_partial_folder_and_no_cache
    if _STOPPING:  # a second signal while the first one ends the build
        return
    if _HELD:
        _HELD[-1].append(signum)
        return
    workers = _worker_processes()
    if workers:
        # Hard stop: unwinding with a pool alive can hang on its task queue's lock or raise inside
        # its at-fork hooks ("Exception ignored in ..."): 1 Ctrl-C in 17 of a --num-proc 2 build
        # printed that without it (a stranger's trial), and builds hung in the signal tests.
        # needed: tests/test_export_stops.py::test_a_signal_with_worker_processes_ends_them_all_with_one_line
        _STOPPING.append(signum)
        _kill_and_reap(workers)
        for cleanup in HARD_STOP_CLEANUPS:
            cleanup()
        os.write(2, f"{_PREFIX[0]}: {STOPPED[signum]}\n".encode())
        os._exit(128 + signum)
    STOP_SIGNALS.append(signum)
    raise KeyboardInterrupt() if signum == signal.SIGINT else Terminated(signum)


def _kill_and_reap(workers: list[int]) -> None:
    """SIGKILL the pool's workers and those it starts in their place, a few rounds at most, and reap them."""
    killed = set()
    for _ in range(10):
        for pid in workers:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 5
        waiting = set(workers)
        while waiting and time.monotonic() < deadline:
            for pid in list(waiting):
                try:
                    done = os.waitpid(pid, os.WNOHANG)[0]
                except ChildProcessError:
                    done = pid
                if done:
                    waiting.discard(pid)
            time.sleep(0.01 if waiting else 0)
        killed.update(workers)
        workers = [pid for pid in _worker_processes() if pid not in killed]
        if not workers:
            return


def _worker_processes() -> list[int]:
    """The pids of the worker processes this process started (multiprocess, as datasets uses it)."""
    pids = []
    for name in ("multiprocess", "multiprocessing"):
        # a module whose import the signal cut short may lack the function: no workers yet, then
        active_children = getattr(sys.modules.get(name), "active_children", None)
        with contextlib.suppress(Exception):
            pids += [child.pid for child in active_children() if child.pid] if active_children else []
    return pids


def ended(status: int) -> int:
    """As the command, exit here: a signal while Python shut down would end a finished command
    with 130 and no line (a stranger's trial: Ctrl-C just after the table of an export)."""
    if AS_COMMAND:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                if stream is not None:  # None: closed when the command started (`2>&-`)
                    stream.flush()
        os._exit(status)
    return status


def import_lasting(modules) -> None:
    """Import what lives as long as the command (datasets, pyarrow, pandas) without the cyclic
    collector, then freeze it: needed for speed, 0.1 s less CPU per build (bench/toolkit_overhead.py)."""
    if not AS_COMMAND:  # a library caller's collector is left as it is: a freeze would keep its garbage too
        return
    gc.disable()
    try:
        for name in modules:
            importlib.import_module(name)
    finally:
        gc.enable()
        # needed: tests/test_cli.py::test_the_commands_lasting_imports_are_frozen_out_of_the_collectors_way_and_a_library_callers_are_not  # noqa: E501
        gc.freeze()


def _in_worker():
    try:
        _worker_handlers()
    finally:
        _unblock_after_fork()


def _worker_handlers():
    # A worker forked by the command (--num-proc) dies of its pool's SIGTERM and leaves Ctrl-C and SIGHUP to its parent.
    if signal.getsignal(signal.SIGTERM) is not stop:
        return
    # needed: tests/test_export_stops.py::test_a_bad_record_with_worker_processes_is_the_same_one_line
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    # needed: tests/test_export_stops.py::test_a_signal_with_worker_processes_ends_them_all_with_one_line[Ctrl-C]
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # needed: tests/test_export_stops.py::test_a_signal_with_worker_processes_ends_them_all_with_one_line[terminal closed]  # noqa: E501
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    if sys.platform.startswith("linux"):  # the worker dies with its parent, even one killed with SIGKILL
        import ctypes  # here, not at the command's start: a worker has it already (datasets imports it)

        # needed: tests/test_export_stops.py::test_a_signal_with_worker_processes_ends_them_all_with_one_line[SIGKILL]
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        # needed: tests/test_export_stops.py::test_a_worker_whose_parent_died_before_it_asked_to_die_with_it_ends
        if os.getppid() != _FORKED_BY[0]:  # the parent died before prctl: no signal will come
            os._exit(128 + signal.SIGKILL)


_FORKED_BY = [0]  # the pid of the process that forks, read by its child
_MASK_AT_FORK = threading.local()  # the forking thread's signal mask before _before_fork blocked the stops


def _before_fork():
    _FORKED_BY[0] = os.getpid()
    # The stops wait, blocked, until the child has its worker's handlers: one that came before would reach the
    # parent's `stop` in the child, or be dropped by Python ("Signal 15 ignored due to race condition"), and a
    # pool that terminated a worker just started waited for it forever (a datasets4 leg hung at --num-proc 2).
    # needed: tests/test_export_stops.py::test_a_worker_terminated_as_it_starts_dies
    if hasattr(signal, "pthread_sigmask"):
        _MASK_AT_FORK.previous = signal.pthread_sigmask(signal.SIG_BLOCK, set(STOPPED))


def _unblock_after_fork():
    previous = getattr(_MASK_AT_FORK, "previous", None)
    if previous is not None:
        _MASK_AT_FORK.previous = None
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


# needed: the tests named in _in_worker and _before_fork (datasets forks the workers)
os.register_at_fork(before=_before_fork, after_in_parent=_unblock_after_fork, after_in_child=_in_worker)
