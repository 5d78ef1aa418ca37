"""The `corpora` command's process: Ctrl-C, SIGTERM and SIGHUP end it with one line, its worker processes
(--num-proc) end with it, and it exits when its work is done.

Imported by corpora.cli before anything else of the command: run as the command (not imported as
a library), a signal is one line from then on, before the imports of the commands."""

from __future__ import annotations

import contextlib
import gc
import importlib
import os
import signal
import sys

from corpora.commands import NAMES
from corpora.errors import STOPPED
from corpora.stops import STOP_SIGNALS
from corpora.stops import Terminated


def _is_the_command() -> bool:
    # `corpora ...` (the script pyproject declares), or `python -m corpora.cli ...`
    main_spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    return os.path.basename(sys.argv[0]) == "corpora" or getattr(main_spec, "name", None) == "corpora.cli"


AS_COMMAND = _is_the_command()


def command_name(argv: list[str] | None = None) -> str:
    """The subcommand, read off the arguments before they are parsed (a signal may come first)."""
    return next((arg for arg in (sys.argv[1:] if argv is None else argv) if arg in NAMES), "")


def prefix(command: str) -> str:
    """What the command's lines start with: `corpora build`."""
    return f"corpora {command}" if command else "corpora"


def _stopped_early(signum, frame):
    os.write(2, f"{prefix(command_name())}: {STOPPED[signum]}\n".encode())
    os._exit(128 + signum)


if AS_COMMAND:  # until main() installs `stop`
    for _signum in STOPPED:
        signal.signal(_signum, _stopped_early)


def handle_stops() -> dict:
    """From here on, Ctrl-C, SIGTERM and SIGHUP unwind the stack like an exception (`stop`), so
    that every `finally` cleans up. Returns the handlers they replace."""
    STOP_SIGNALS.clear()
    return {signum: signal.signal(signum, stop) for signum in STOPPED}


def restore(handlers: dict) -> None:
    """The handlers `handle_stops` replaced, back: for a caller that imported the command (tests)."""
    if not AS_COMMAND:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)


def ended(status: int) -> int:
    """The command has ended with `status` (said on stderr if it failed). As the command, the
    process exits here: a signal while Python shut down would find its default handlers back
    and kill the process after its work was done, with nothing said."""
    if AS_COMMAND:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        os._exit(status)
    return status


def import_lasting(modules) -> None:
    """Import `modules`, whose objects live as long as the process, as the command does:
    importing datasets, pyarrow and pandas makes about 100,000 objects, which the cyclic collector,
    run while they are made, walks again and again, and frozen after, no later collection walks
    them (0.1 s of CPU of a build). The thousand or so objects the imports left unreachable stay
    too: freeing them would cost a full collection. Imported as a library, the caller's collector
    is left as it is (a freeze would keep its garbage too)."""
    if not AS_COMMAND:
        return
    gc.disable()
    try:
        for name in modules:
            importlib.import_module(name)
    finally:
        gc.enable()
        gc.freeze()


def quiet_stdout() -> None:
    """The reader of stdout went away: keep Python from failing again when it flushes stdout at exit."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


_STOPPING: list[int] = []  # the signal that is ending the build with its worker processes


def stop(signum, frame):
    """Ctrl-C, SIGTERM or SIGHUP. With worker processes alive (--num-proc), their pool cannot be closed
    safely any more (a worker killed while it holds the task queue's lock hangs the parent), so
    the workers are killed, the build's partial folder removed, and the process exits here."""
    if _STOPPING:  # a second signal while the first one ends the build
        return
    children = _worker_processes()
    if children:
        _STOPPING.append(signum)
        # The pool starts a new worker for each one that dies: kill and reap until none is left,
        # so that none outlives the build and none writes to the partial folder once it is gone.
        killed = set()
        for _ in range(10):  # a few rounds at most: each replacement is killed in the next one
            for child in children:
                with contextlib.suppress(OSError):
                    os.kill(child, signal.SIGKILL)
            _reap(children)
            killed.update(children)
            children = [child for child in _worker_processes() if child not in killed]
            if not children:
                break
        from corpora import exports

        exports.abandon_all()
        os.write(2, f"{prefix(command_name())}: {STOPPED[signum]}\n".encode())
        os._exit(128 + signum)
    STOP_SIGNALS.append(signum)
    raise KeyboardInterrupt() if signum == signal.SIGINT else Terminated(signum)


def _reap(children: list[int], seconds: float = 5.0) -> None:
    import time

    deadline = time.monotonic() + seconds
    waiting = set(children)
    while waiting and time.monotonic() < deadline:
        for child in list(waiting):
            try:
                done, _ = os.waitpid(child, os.WNOHANG)
            except ChildProcessError:
                done = child
            if done:
                waiting.discard(child)
        if waiting:
            time.sleep(0.01)


def _worker_processes() -> list[int]:
    """The pids of the worker processes this process started (multiprocess, as datasets uses it)."""
    pids = []
    for name in ("multiprocess", "multiprocessing"):
        # A module whose import the signal cut short may lack the function: no workers yet, then.
        active_children = getattr(sys.modules.get(name), "active_children", None)
        with contextlib.suppress(Exception):
            pids += [child.pid for child in active_children() if child.pid] if active_children else []
    return pids


def _in_worker():
    # A forked worker (num_proc) is ended by its pool with SIGTERM, and dies of it as usual (a
    # Python handler would only set a flag, and a worker whose other thread took the signal
    # waited forever on its task queue). Ctrl-C and a closing terminal (SIGHUP, sent to the whole
    # process group) are for the parent, which ends the workers. A
    # worker dies with its parent, even one killed with SIGKILL (Linux: PR_SET_PDEATHSIG).
    if signal.getsignal(signal.SIGTERM) is stop or _STOPPING:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        if sys.platform.startswith("linux"):
            import ctypes  # here: the command imports it after its start (with datasets), a worker has it

            with contextlib.suppress(OSError, AttributeError):
                ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
            if os.getppid() != _FORKED_BY[0]:  # the parent died before prctl: no signal will come
                os._exit(128 + signal.SIGKILL)


_FORKED_BY = [0]  # the pid of the process that forks, read by its child


def _before_fork():
    _FORKED_BY[0] = os.getpid()


os.register_at_fork(before=_before_fork, after_in_child=_in_worker)
