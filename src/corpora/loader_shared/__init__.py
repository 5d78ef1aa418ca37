"""The modules every loader folder carries a copy of, kept here once.

A loader must work alone (datasets 3.6 loads it as a script, copying the modules it imports as
`from ._name import x` beside it), so each loader folder holds copies of these files:
`_loader_common.py` and `_builder_base.py` in every folder, `_strict_json.py` and `_fields.py` in
those whose loader imports them.
`python -m corpora.loader_shared loaders/NAME` (`make shared-modules`, part of `make cards`)
writes the copies; `corpora card` (and `--check`) fails on a copy that differs. Edit the files here, never a
copy.
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent

# Each shared module, and whether a loader folder needs it given the text of its own modules.
MODULES = {
    "_loader_common.py": lambda text: True,
    "_builder_base.py": lambda text: True,
    "_strict_json.py": lambda text: "from ._strict_json import " in text,
    "_fields.py": lambda text: "from ._fields import " in text,
}

HEADER = "# Generated from src/corpora/loader_shared/{name} by `make shared-modules`; edit that file, not this copy.\n"


def copies_for(text: str) -> dict[str, str]:
    """{file name: text} of the shared modules a loader folder whose own modules have this text
    needs."""
    return {
        name: HEADER.format(name=name) + (HERE / name).read_text(encoding="utf-8")
        for name, needed in MODULES.items()
        if needed(text)
    }


def own_text(folder: Path, script: Path) -> str:
    """The loader script and every module beside it that is not a shared copy."""
    modules = [script, *(path for path in sorted(folder.glob("*.py")) if path != script and path.name not in MODULES)]
    return "".join(path.read_text(encoding="utf-8") for path in modules)


def stale_copies(folder: Path, script: Path) -> list[str]:
    """The shared modules of a loader folder that are missing, differ from their source, or are
    there though no module of the loader imports them."""
    return _stale(folder, copies_for(own_text(folder, script)))


def write_copies(folder: Path, script: Path) -> list[str]:
    """Bring a loader folder's shared modules up to date; returns the names written or removed."""
    from corpora.path_errors import write_text  # here: corpora.errors imports this package (shorten)

    wanted = copies_for(own_text(folder, script))
    changed = _stale(folder, wanted)
    for name in changed:
        if name in wanted:
            write_text(folder / name, wanted[name])
        else:
            (folder / name).unlink()
    return changed


def _stale(folder: Path, wanted: dict[str, str]) -> list[str]:
    stale = [name for name, text in wanted.items() if _read(folder / name) != text]
    return stale + [name for name in MODULES if name not in wanted and (folder / name).exists()]


def _read(path: Path) -> str | None:
    return path.read_text(encoding="utf-8") if path.is_file() else None
