"""The modules every loader folder carries a copy of, kept here once.

A loader must work alone (datasets 3.6 loads it as a script, copying the modules it imports as
`from ._name import x` beside it), so each loader folder holds copies of these files:
`_loader_common.py` in every folder, `_strict_json.py` in those whose loader imports it.
`corpora card NAME` (and `make cards`) writes the copies; `corpora card --check` fails on a copy
that differs. Edit the files here, never a copy.
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent

# Each shared module, and whether a loader folder needs it given its loader's text.
MODULES = {
    "_loader_common.py": lambda script: True,
    "_strict_json.py": lambda script: "from ._strict_json import " in script,
}

HEADER = "# Generated from src/corpora/loader_shared/{name} by `corpora card`; edit that file, not this copy.\n"


def copies_for(script_text: str) -> dict[str, str]:
    """{file name: text} of the shared modules a loader with this text needs in its folder."""
    return {
        name: HEADER.format(name=name) + (HERE / name).read_text(encoding="utf-8")
        for name, needed in MODULES.items()
        if needed(script_text)
    }


def stale_copies(folder: Path, script: Path) -> list[str]:
    """The shared modules of a loader folder that are missing, differ from their source, or are
    there though the loader does not import them."""
    wanted = copies_for(script.read_text(encoding="utf-8"))
    stale = [name for name, text in wanted.items() if _read(folder / name) != text]
    return stale + [name for name in MODULES if name not in wanted and (folder / name).exists()]


def write_copies(folder: Path, script: Path) -> list[str]:
    """Bring a loader folder's shared modules up to date; returns the names written or removed."""
    changed = stale_copies(folder, script)
    wanted = copies_for(script.read_text(encoding="utf-8"))
    for name in changed:
        if name in wanted:
            (folder / name).write_text(wanted[name], encoding="utf-8")
        else:
            (folder / name).unlink()
    return changed


def _read(path: Path) -> str | None:
    return path.read_text(encoding="utf-8") if path.is_file() else None
