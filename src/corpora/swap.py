"""Safe export folders: one writer per OUT/NAME, a private partial folder per build, an atomic swap.

Layout in OUT, for a corpus NAME:

    NAME                      a symlink to the current version, e.g. `.NAME.v-4242-1a2b3c4d`
    .NAME.v-<id>/             a whole export (Parquet, README.md, croissant.json)
    .NAME.lock, .NAME.lock.info   the writer's lock (filelock) and who holds it (pid, host, start)
    .NAME.partial-<pid>-<id>/ a build in progress: `NAME/` (the export being made) and `cache/`
                              (its datasets cache)

The swap replaces the symlink with `os.replace`, one rename that a reader sees either before or
after. Everything else is done by the lock holder only, so whatever a killed build left (a partial
folder, a new symlink not yet renamed, an old version) is removed by the next build. An export made
before this layout (a real folder OUT/NAME) is moved aside under a journal (`.NAME.swap`) first;
the next build restores it if the move was interrupted.
"""

from __future__ import annotations

import contextlib
import datetime
import errno
import os
import secrets
import shutil
import socket
import sys
import time
from pathlib import Path

import filelock

from corpora.errors import CorporaError

PAUSE_VARIABLE = "CORPORA_TEST_PAUSE_AT"


def pause_at(phase: str) -> None:
    """Test hook: with CORPORA_TEST_PAUSE_AT=<phase> (generating, writing, swapping), the build
    prints `corpora: paused at <phase>` on stderr and sleeps there, so a test can kill it at a
    known point."""
    if os.environ.get(PAUSE_VARIABLE) == phase:
        print(f"corpora: paused at {phase}", file=sys.stderr, flush=True)
        time.sleep(3600)


def check_no_overlap(target: Path, sources: list[Path]) -> None:
    """Refuse an export folder that is, contains or is inside a source folder or file: the swap
    would delete it. Compared as real paths (symlinks resolved)."""
    export = Path(os.path.realpath(target.parent)) / target.name
    candidates = {export, Path(os.path.realpath(target))}
    for source in sources:
        real = Path(os.path.realpath(source))
        for path in candidates:
            if path == real or path in real.parents or real in path.parents:
                raise CorporaError(
                    f"{target}: the export folder overlaps the sources in {source}; choose another --out"
                )


def prepare_out(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(out))
    out.mkdir(parents=True, exist_ok=True)


@contextlib.contextmanager
def exclusive(target: Path, timeout: float | None = None):
    """Hold the lock of `target` (OUT/.NAME.lock). If another build holds it, say who and wait
    for it (at most `timeout` seconds if given): the later build then exports after the earlier
    one, so both ask-for-a-build requests end with a whole export."""
    path = target.with_name(f".{target.name}.lock")
    info = target.with_name(f".{target.name}.lock.info")
    lock = filelock.FileLock(str(path))
    # A quiet first second: the other build may be ending, and one that has just taken the lock
    # has then written who it is.
    first = 1.0 if timeout is None else min(1.0, timeout)
    try:
        lock.acquire(timeout=first)
    except filelock.Timeout:
        print(f"corpora: {target}: waiting for another build ({holder(info)})", file=sys.stderr, flush=True)
        try:
            lock.acquire(timeout=-1 if timeout is None else max(0.0, timeout - first))
        except filelock.Timeout:
            raise CorporaError(
                f"{target}: another build is writing it ({holder(info)}); gave up after {timeout:g} s"
            ) from None
    try:
        started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
        info.write_text(f"pid {os.getpid()} on {socket.gethostname()}, started {started}\n")
        yield
    finally:
        with contextlib.suppress(OSError):
            info.unlink()
        lock.release()


def holder(info: Path) -> str:
    try:
        return info.read_text().strip() or "unknown build"
    except OSError:
        return "unknown build"


def repair_and_clean(target: Path) -> None:
    """Under the lock: restore an export whose swap was interrupted, then remove what killed
    builds left (no other build can be running: they all hold the lock)."""
    out, name = target.parent, target.name
    journal = out / f".{name}.swap"
    if journal.exists():
        previous = out / journal.read_text().strip()
        if not os.path.lexists(target) and previous.is_dir():
            previous.rename(target)
        journal.unlink()
    legacy = out / f".{name}.previous"  # the swap of corpora before this layout
    if not os.path.lexists(target) and legacy.is_dir():
        legacy.rename(target)
    current = os.readlink(target) if target.is_symlink() else None
    leftovers = [*out.glob(f".{name}.partial*"), *out.glob(f".{name}.link-*"), *out.glob(f".{name}.v-*")]
    for path in leftovers:
        if path.name == current:
            continue
        if path.is_symlink() or not path.is_dir():
            path.unlink()
        else:
            shutil.rmtree(path)


def new_workspace(target: Path) -> Path:
    """A partial folder unique to this build: OUT/.NAME.partial-<pid>-<random>."""
    workspace = target.with_name(f".{target.name}.partial-{os.getpid()}-{secrets.token_hex(4)}")
    workspace.mkdir()
    return workspace


def swap_in(export: Path, target: Path) -> None:
    """Make `export` (a finished, checked folder) the one OUT/NAME shows, in one rename."""
    version = target.with_name(f".{target.name}.v-{os.getpid()}-{secrets.token_hex(4)}")
    export.rename(version)
    link = target.with_name(f".{target.name}.link-{version.name}")
    os.symlink(version.name, link)  # relative: the export folder can be moved as a whole
    if os.path.lexists(target) and not target.is_symlink():
        # An export from before this layout: moved aside under a journal the next build reads.
        journal = target.with_name(f".{target.name}.swap")
        aside = target.with_name(f".{target.name}.v-old-{secrets.token_hex(4)}")
        journal.write_text(aside.name + "\n")
        target.rename(aside)
        pause_at("swapping")
        os.replace(link, target)
        journal.unlink()
        shutil.rmtree(aside)
    else:
        pause_at("swapping")
        previous = os.readlink(target) if target.is_symlink() else None
        os.replace(link, target)
        if previous is not None and previous.startswith(f".{target.name}.v-"):
            shutil.rmtree(target.with_name(previous), ignore_errors=True)
    # Anything older (a kill after the rename) is cleaned by the next build.
