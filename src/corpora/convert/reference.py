"""`corpora convert --reference VERSION | --reference-python PYTHON`: the proof that an export holds
the rows the script gave in its time. The same script runs on that datasets version, with its own
machinery and none of the converter's stand-ins (reference_runner.py, run by that interpreter), on
the same sources; every row of every split is then compared with the export, in order, through
`corpora diff`'s engine (reference_rows.py says how values are compared)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import filelock

from corpora.convert import reference_rows
from corpora.diff import rows as diff_rows
from corpora.diff import sides
from corpora.diff.report import render
from corpora.errors import CorporaError

RUNNER = Path(__file__).with_name("reference_runner.py")
VERSIONS = {"2.21": "2.21.0", "3.6": "3.6.0"}  # --reference: the datasets release each names
FAILED = "REFERENCE-FAILED "  # the runner's one line, on its stderr


def cache_folder() -> Path:
    """Where the reference venvs are kept: the user's cache folder (XDG), corpora/reference."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "corpora" / "reference"


def find_uv() -> str:
    found = shutil.which("uv")
    if found is None:
        try:
            import uv  # the uv package on PyPI carries the binary

            found = uv.find_uv_bin()
        except (ImportError, FileNotFoundError):
            pass
    if found is None:
        raise CorporaError("--reference makes its venv with uv, which is not installed: pip install uv, "
                           "or name an interpreter with datasets installed with --reference-python PYTHON")
    return found


def reference_python(version: str, packages: tuple[str, ...] = ()) -> Path:
    """The interpreter of the cached venv holding datasets `version` (2.21 or 3.6), made with uv the
    first time, with `packages` too (what a script imports); a lock keeps two commands at once from
    both making it."""
    if version not in VERSIONS:
        raise CorporaError(f"--reference {version}: expected one of {', '.join(VERSIONS)}, "
                           "or --reference-python PYTHON for another interpreter")
    folder = cache_folder() / f"datasets-{VERSIONS[version]}"
    python = folder / "bin" / "python"
    made = folder / ".installed"
    if made.exists() and not packages:
        return python
    folder.parent.mkdir(parents=True, exist_ok=True)
    with filelock.FileLock(str(folder) + ".lock"):
        uv = None
        if not made.exists():  # else made by the command that held the lock before this one
            uv = find_uv()
            _uv(version, folder, [uv, "--quiet", "venv", "--clear", "--python", sys.executable, str(folder)])
            _uv(version, folder, [uv, "--quiet", "pip", "install", "--python", str(python),
                                  f"datasets[vision]=={VERSIONS[version]}"])
            made.touch()
        if packages:
            _uv(version, folder, [uv or find_uv(), "--quiet", "pip", "install", "--python", str(python), *packages])
    return python


def _uv(version: str, folder: Path, command: list[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode:
        said = (done.stderr.strip().splitlines() or ["exit status " + str(done.returncode)])[-1]
        raise CorporaError(f"--reference {version}: cannot make its venv in {folder}: {said}")


def run_reference(python: Path, script: Path, configs: list[str], out: Path, *, dummy: bool,
                  data_dir: Path | None) -> tuple[str, dict[str, dict[str, int]]]:
    """Run `script` with `python`'s datasets into `out`: (its datasets version, {config: {split: rows}})."""
    import json

    command = [str(python), "-I", str(RUNNER), str(script), str(out)]
    command += [option for config in configs for option in ("--config", config)]
    if dummy:
        command.append("--dummy")
    if data_dir is not None:
        command += ["--data-dir", str(data_dir)]
    # the script's modules are copied where this run alone sees them
    environment = dict(os.environ, HF_MODULES_CACHE=str(out / ".modules"), HF_DATASETS_DISABLE_PROGRESS_BARS="1")
    try:
        done = subprocess.run(command, capture_output=True, text=True, env=environment)
    except OSError as error:
        raise CorporaError(f"--reference-python {python}: cannot run it: {error.strerror}") from None
    said = [line[len(FAILED):] for line in done.stderr.splitlines() if line.startswith(FAILED)]
    if said:
        version, _, line = said[-1].partition(" ")
        cause = ("; a datasets 3.x reference runs only scripts and sources it runs unchanged"
                 if not version.startswith("2.") else "")
        raise CorporaError(f"reference (datasets {version}) cannot run {script.name}: {line}{cause}")
    if done.returncode:
        last = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        raise CorporaError(f"reference {python} failed on {script.name}: {last}")
    summary = json.loads((out / "reference.json").read_text(encoding="utf-8"))
    return summary["datasets"], summary["configs"]


def prove(export: Path, script: Path, configs: list[str] | None = None, *, version: str | None = None,
          python: str | Path | None = None, dummy: bool = False, data_dir: Path | None = None, say=print) -> int:
    """Compare every row of the export folder `export` (OUT/NAME) with what `script` gives on the
    reference (`version` or the interpreter `python`); 0 when identical, 1 when they differ."""
    if (version is None) == (python is None):
        raise CorporaError("name one reference: --reference VERSION or --reference-python PYTHON")
    if dummy and version is not None and not version.startswith("2."):
        raise CorporaError(f"--reference {version} --dummy: datasets {version} has no MockDownloadManager "
                           "(removed in 3.0), which ran a script on its dummy data; use --reference 2.21")
    layout = sides.layout(export) if export.is_dir() else {}
    if not layout:
        raise CorporaError(f"{export}: no <config>/<split>-*.parquet files to compare with the reference")
    configs = [config for config in layout if configs is None or config in configs]
    interpreter = Path(python) if python is not None else reference_python(version)
    with tempfile.TemporaryDirectory(prefix="corpora-reference-") as work:
        work = Path(work)
        ran, _ = run_reference(interpreter, script, configs, work / "run", dummy=dummy, data_dir=data_dir)
        rules = reference_rows.path_rules(dummy, data_dir)
        ran_layout = sides.layout(work / "run")
        reference_rows.copy_export(work / "reference", ran_layout, rules)
        counts = reference_rows.copy_export(work / "export", {c: layout[c] for c in configs}, rules)
        report = diff_rows.compare(work / "reference", work / "export", keys={c: [] for c in {*configs, *ran_layout}},
                                   old_label=f"reference (datasets {ran})", new_label=str(export))
    if report.identical:
        say(f"identical: {sum(sum(s.values()) for s in counts.values()):,} rows "
            f"in {sum(len(s) for s in counts.values())} splits")
        return 0
    say(render(report))
    return 1
