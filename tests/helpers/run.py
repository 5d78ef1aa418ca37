"""The two ways a test runs a command: `corpora_here` in this process (what the command does),
`run_process` as a process of its own (its start, its signals, its workers, an installed copy)."""

import contextlib
import io
import logging
import os
import subprocess
import sys
import warnings
from pathlib import Path
from typing import NamedTuple

# The `corpora` console script of this environment.
CORPORA = str(Path(sys.executable).with_name("corpora"))


class Ran(NamedTuple):
    """What a command gave: its exit status and its whole output (unpacks as `code, out, err`)."""

    returncode: int
    stdout: str
    stderr: str


def corpora_here(*args) -> Ran:
    """`corpora ARGS` run in this process, its exit status and output as a process would give
    them (its stderr is not a terminal: no progress bars), for a test of what the command does
    rather than of the process (its signals, its start, its workers)."""
    from corpora import cli

    with captured_output() as (stdout, stderr):
        try:
            status = cli.main([str(arg) for arg in args])
        except SystemExit as exit:  # argparse's
            status = exit.code
    return Ran(status, stdout.getvalue(), stderr.getvalue())


def run_process(argv, *, env=None, cwd=None, without=(), timeout=None, **options) -> subprocess.CompletedProcess:
    """`argv` as a process of its own, in this environment with `env` added and the variables
    `without` removed; its exit status and output as text. With `timeout`, a process that has not
    ended after that many seconds is killed and fails the test (subprocess.TimeoutExpired)."""
    environment = {key: value for key, value in os.environ.items() if key not in without}
    environment.update(env or {})
    return subprocess.run([str(arg) for arg in argv], env=environment, cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, check=False, **options)


@contextlib.contextmanager
def captured_output():
    """What the command writes to stdout and stderr, loggers and warnings included, as a pipe
    gets it: printed at the time, to a stream that is not a terminal."""
    stdout, stderr = io.StringIO(), io.StringIO()
    streams = {id(sys.stdout): stdout, id(sys.stderr): stderr, id(sys.__stdout__): stdout, id(sys.__stderr__): stderr}
    handlers = {handler for logger in [logging.getLogger(), *logging.Logger.manager.loggerDict.values()]
                for handler in getattr(logger, "handlers", ()) if isinstance(handler, logging.StreamHandler)
                and id(handler.stream) in streams and not isinstance(type(handler).__dict__.get("stream"), property)}
    with contextlib.ExitStack() as stack:
        stack.enter_context(contextlib.redirect_stdout(stdout))
        stack.enter_context(contextlib.redirect_stderr(stderr))
        for handler in handlers:
            stack.callback(handler.setStream, handler.setStream(streams[id(handler.stream)]))
        stack.enter_context(warnings.catch_warnings())
        warnings.resetwarnings()  # Python's own filters (a command's), not pytest's, and printed to stderr
        for action, category, module in PYTHON_WARNING_FILTERS:
            warnings.filterwarnings(action, category=category, module=module, append=True)
        warnings.showwarning = lambda message, category, filename, lineno, file=None, line=None: sys.stderr.write(
            warnings.formatwarning(message, category, filename, lineno, line))
        yield stdout, stderr


# What Python does with a warning when no -W option or PYTHONWARNINGS says otherwise.
PYTHON_WARNING_FILTERS = [
    ("default", DeprecationWarning, "__main__"), ("ignore", DeprecationWarning, ""),
    ("ignore", PendingDeprecationWarning, ""), ("ignore", ImportWarning, ""), ("ignore", ResourceWarning, ""),
]
