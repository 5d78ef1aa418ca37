"""The export transaction: one writer per OUT/NAME (its lock), a partial folder per build, a swap no reader
sees half done, nothing removed that this tool did not make, and the export's mark (docs/bad_input.md
lays out OUT)."""

from __future__ import annotations

import contextlib
import ctypes
import datetime
import errno
import json
import os
import re
import secrets
import shutil
import socket
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import filelock

from corpora import signals
from corpora.errors import CorporaError
from corpora.errors import full_disk
from corpora.errors import shorten
from corpora.path_errors import write_text
from corpora.signals import stop_if_asked

MARK = ".corpora-export.json"


class Hooks:
    """Where a test stops a build, and how it swaps. This default does nothing: a test passes its
    own to `transaction` (or, for a whole `corpora` process, sets HOOKS: tests/hooked_corpora.py)."""

    exchange = True  # False: the two-rename swap of systems without an atomic exchange

    def reached(self, phase: str) -> None:
        """generating, writing, swapping, renaming (between the two renames of a swap without an exchange), or
        removing (the workspace, however the build ended)."""


HOOKS = Hooks()


@dataclass(frozen=True)
class Partial:
    """A build in progress, as the body of `transaction` sees it."""

    target: Path  # OUT/NAME, which the swap replaces
    workspace: Path  # OUT/.NAME.partial-<pid>-<id>, removed however the build ends
    sources: object  # sources.Sources: found and checked under the lock
    hooks: Hooks

    @property
    def folder(self) -> Path:
        """The export being made."""
        return self.workspace / self.target.name

    @property
    def cache(self) -> Path:
        """The build's datasets cache."""
        return self.workspace / "cache"

    def phase(self, name: str) -> None:
        """Between two phases: a stop Python swallowed ends the build here, and a test may pause it."""
        stop_if_asked()
        self.hooks.reached(name)


@contextlib.contextmanager
def transaction(out, name: str, configs, find_sources: Callable[[], object], *, local_copy=None,
                known: list[str] | None = None, drop_others: bool = False, lock_timeout: float | None = None,
                hooks: Hooks | None = None):
    """Export corpus `name` (its `configs`) to OUT/NAME safely; yields the `Partial` to write.

    Before any work: OUT/NAME must be replaceable (`_check_replaceable`: `known`, `drop_others`)
    and not overlap `local_copy` (the source folder given, if any). Then, under the lock of
    OUT/NAME (waiting at most `lock_timeout` seconds if given): an interrupted swap is put back,
    what killed builds left is removed, the checks run again, `find_sources()` finds the build's
    sources (sources.Sources), which must not overlap the export either, and a workspace is
    made. When the body ends without an error, the export is marked and swapped in; however it
    ends, the workspace goes (the cache, half an export, or the previous export)."""
    hooks = hooks or HOOKS
    out = Path(out)
    target = out / name
    configs = list(configs)
    if local_copy is not None:
        _check_no_overlap(target, [local_copy])  # before any work: the swap would delete them
    _check_replaceable(target, configs, known, drop_others)  # before any work; again under the lock
    _prepare_out(out)
    with _exclusive(target, lock_timeout):
        _repair_and_clean(target)
        _check_replaceable(target, configs, known, drop_others)
        sources = find_sources()
        _check_no_overlap(target, list(sources.files.values()))
        partial = Partial(target, _new_workspace(target), sources, hooks)
        try:
            try:
                yield partial
                _write_mark(partial.folder, name, configs, sources)
            except Exception as error:
                full = _full_disk(error, partial)
                if full is None:
                    raise
                raise full from error
            partial.phase("swapping")  # the last moment a stop leaves the previous export as it was
            _swap_in(partial.folder, target, hooks)
        finally:
            # A stop waits for the workspace to go: one inside its removal left its cache and locks behind.
            # needed: tests/test_export_safety.py::test_a_stop_while_the_workspace_is_removed_waits_for_it
            with signals.held():
                hooks.reached("removing")
                _abandon(partial.workspace, target)


def _full_disk(error: Exception, partial: Partial) -> OSError | None:
    """A full disk while the export is written, said about OUT/NAME: datasets and pyarrow name no
    file, and a file of the workspace, which goes, means nothing to the user (errors.full_disk)."""
    full = full_disk(error, partial.target)
    if full is not None and full.filename and Path(full.filename).is_relative_to(partial.workspace):
        return OSError(full.errno, full.strerror, str(partial.target))
    return full


@dataclass(frozen=True)
class Mark:
    """The mark of an export (NAME/.corpora-export.json): the corpus and configs this tool built
    there, what from, and the files it wrote."""

    corpus: str
    configs: tuple[str, ...]
    sources: str | None  # "release", "modified" or "dummy"
    differing: tuple[str, ...]  # the source files that differ from the release
    files: tuple[str, ...] | None  # None: a mark of corpora 0.1.0's first exports, which lists none
    version: str | None = None  # of the tool that wrote it


def _write_mark(export: Path, name: str, configs: list[str], sources) -> None:
    """Mark `export` as an export of corpus `name` made by this tool, with its configs and what it
    was built from (sources.Sources): "release", "modified" or "dummy", and the files that
    differ from the release."""
    from corpora import __version__

    mark = {"tool": "corpora", "version": __version__, "corpus": name, "configs": configs,
            "sources": sources.kind, "differing": list(sources.differing),
            "files": published_files(export)}  # what a later build may replace (_check_replaceable)
    write_text(export / MARK, json.dumps(mark, indent=2) + "\n")


def read_mark(folder: Path) -> Mark | None:
    """The mark of an export folder, None if it has none (not an export of this tool) or one this
    tool did not write (a field of the wrong type)."""
    try:
        mark = json.loads((Path(folder) / MARK).read_text())
    except (OSError, ValueError):
        return None
    if not (isinstance(mark, dict) and mark.get("tool") == "corpora" and isinstance(mark.get("corpus"), str)):
        return None
    lists = {field: mark.get(field, []) for field in ("configs", "differing")}
    files = mark.get("files")  # absent from corpora 0.1.0's first marks
    if not all(_strings(value) for value in lists.values()) or not (files is None or _strings(files)):
        return None
    version, sources = mark.get("version"), mark.get("sources")
    return Mark(mark["corpus"], tuple(lists["configs"]), sources if isinstance(sources, str) else None,
                tuple(lists["differing"]), None if files is None else tuple(files),
                version if isinstance(version, str) else None)


def _strings(value) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def published_files(folder: Path) -> list[str]:
    """The files of an export folder an upload publishes (relative, sorted): all but the mark,
    which is this tool's, not the dataset's."""
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file() and p.name != MARK)


def _check_replaceable(target: Path, configs: list[str], known: list[str] | None = None,
                      drop_others: bool = False) -> None:
    """Refuse, before any work, to replace OUT/NAME unless it is an export of this corpus made by
    this tool whose configs are all among those built (a build of some configs never drops others),
    or `drop_others` says to drop them. `known`: the loader's configs; one of the export's that is
    not among them (an export of an older loader, whose config was since renamed) cannot be built
    again, so only `drop_others` lets the export be replaced."""
    if not os.path.lexists(target):
        return
    if target.is_symlink():
        raise CorporaError(
            f"{target} is a symbolic link (to {os.readlink(target)}), which a build would replace, and is left as it "
            "is: pass the folder that holds the export it points to as --out, or move the link away"
        )
    mark = read_mark(target) if target.is_dir() else None
    if mark is None or mark.corpus != target.name:
        raise CorporaError(
            f"{target} is not an export of corpora (no {MARK} of {target.name} in it) and is left as it is: "
            "move it away, or choose another --out"
        )
    if mark.files is not None:  # a mark of corpora 0.1.0's first exports lists none
        theirs = sorted(set(published_files(target)) - set(mark.files))
        if theirs:
            raise CorporaError(
                f"{target} holds file(s) this tool did not write, which the build would delete with the export it "
                f"replaces: {shorten(theirs)}; move them out of it first, or choose another --out"
            )
    dropped = [config for config in mark.configs if config not in configs]
    if drop_others:
        return
    gone = [config for config in dropped if known is not None and config not in known]
    if gone:
        kept = [config for config in dropped if config not in gone]
        # Every config the loader still has, unless the build already makes them all.
        rebuild = " ".join(f"--config {config}" for config in [*configs, *kept]) + " " if kept else ""
        raise CorporaError(
            f"{target} holds config(s) {', '.join(gone)} that {target.name} no longer has (renamed or removed), "
            f"so no build can make them again: to replace the export without them, build with "
            f"{rebuild}--drop-other-configs, or choose another --out"
        )
    if dropped:
        every = " ".join(f"--config {config}" for config in [*configs, *dropped])
        these = "this config" if len(configs) == 1 else "these configs"
        raise CorporaError(
            f"{target} holds config(s) {', '.join(dropped)} that this build of {', '.join(configs)} would drop: "
            f"build them together ({every}, or no --config for every config), replace the export with {these} "
            "only (--drop-other-configs), or choose another --out"
        )


def _check_no_overlap(target: Path, sources: list[Path]) -> None:
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


def _prepare_out(out: Path) -> None:
    real = Path(os.path.realpath(out))
    inside = next((folder for folder in (real, *real.parents) if read_mark(folder) is not None), None)
    if inside is not None:  # OUT/NAME given as --out: a second export would nest in the first
        raise CorporaError(f"{out}: inside the export {inside} (of corpus {read_mark(inside).corpus}); pass the "
                           f"folder that holds exports, such as {inside.parent}, as --out")
    if out.is_symlink() and not out.exists():
        raise CorporaError(f"{out}: a symbolic link to {os.readlink(out)}, which does not exist; "
                           "make that folder, or choose another --out")
    if out.exists() and not out.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(out))
    out.mkdir(parents=True, exist_ok=True)


@contextlib.contextmanager
def _exclusive(target: Path, timeout: float | None = None):
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
        print(f"corpora: {target}: waiting for another build ({_holder(info)})", file=sys.stderr, flush=True)
        try:
            lock.acquire(timeout=-1 if timeout is None else max(0.0, timeout - first))
        except filelock.Timeout:
            raise CorporaError(
                f"{target}: another build is writing it ({_holder(info)}); gave up after {timeout:g} s"
            ) from None
    try:
        started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
        info.write_text(f"pid {os.getpid()} on {socket.gethostname()}, started {started}\n")
        yield
    finally:
        with contextlib.suppress(OSError):
            info.unlink()
        lock.release()


def _holder(info: Path) -> str:
    try:
        return info.read_text().strip() or "unknown build"
    except OSError:
        return "unknown build"


def _repair_and_clean(target: Path) -> None:
    """Under the lock: put back an export whose two-rename swap was interrupted, then remove what
    killed builds left (no other build can be running: they all hold the lock)."""
    out, name = target.parent, target.name
    _restore(target)
    for path in out.glob(f".{name}.partial-*"):
        # Only a workspace as `_new_workspace` makes it, holding what a build puts there: a folder
        # of that name holding anything else is not this tool's, and stays.
        made = re.fullmatch(rf"\.{re.escape(name)}\.partial-\d+-[0-9a-f]{{8}}", path.name)
        if made and path.is_dir() and not path.is_symlink() and {p.name for p in path.iterdir()} <= {name, "cache"}:
            shutil.rmtree(path, ignore_errors=True)


def _restore(target: Path) -> None:
    journal = target.with_name(f".{target.name}.swap")
    if not journal.exists():
        return
    aside = target.parent / journal.read_text().strip()
    if not os.path.lexists(target) and aside.is_dir():
        aside.rename(target)
    journal.unlink()


def _new_workspace(target: Path) -> Path:
    """A partial folder unique to this build: OUT/.NAME.partial-<pid>-<random>."""
    workspace = target.with_name(f".{target.name}.partial-{os.getpid()}-{secrets.token_hex(4)}")
    workspace.mkdir()
    _ACTIVE[workspace] = target
    return workspace


_ACTIVE: dict[Path, Path] = {}  # this process's builds: the workspace of each, and its OUT/NAME


def abandon_all() -> None:
    """A hard stop (signals.stop with worker processes): every build of this process abandoned, its lock said free."""
    for workspace, target in list(_ACTIVE.items()):
        _abandon(workspace, target)
        with contextlib.suppress(OSError):
            target.with_name(f".{target.name}.lock.info").unlink()


signals.HARD_STOP_CLEANUPS.append(abandon_all)


def _swap_in(export: Path, target: Path, hooks: Hooks) -> None:
    """`export` becomes OUT/NAME in one step that Ctrl-C, SIGTERM and SIGHUP wait for; the previous export
    goes with the workspace."""
    with signals.held():
        if not os.path.lexists(target):
            export.rename(target)
        elif not (hooks.exchange and _exchange(export, target)):
            journal = target.with_name(f".{target.name}.swap")
            aside = export.with_name(export.name + ".previous")
            journal.write_text(f"{aside.parent.name}/{aside.name}\n")
            target.rename(aside)
            hooks.reached("renaming")
            export.rename(target)
            journal.unlink()  # the previous export, at `aside`, goes with the workspace


def _abandon(workspace: Path, target: Path) -> None:
    """However a build ends: the export a signal caught between two renames put back, the workspace removed."""
    with contextlib.suppress(OSError):
        _restore(target)
    shutil.rmtree(workspace, ignore_errors=True)
    _ACTIVE.pop(workspace, None)


def _exchange(first: Path, second: Path) -> bool:
    """Exchange two folders atomically (renameat2 RENAME_EXCHANGE); False where the system cannot."""
    if not sys.platform.startswith("linux"):
        return False
    # needed: tests/test_export_safety.py::test_the_swap_has_no_moment_without_the_export
    renameat2 = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
    if renameat2 is None:
        return False
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(first), at_fdcwd, os.fsencode(second), rename_exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code), str(second))
