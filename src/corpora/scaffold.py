"""`corpora new NAME`: a new corpus's folders and test, a skeleton that passes `make test` as it is."""

from __future__ import annotations

import datetime
import json
import keyword
import re
import shutil
from pathlib import Path

import jinja2

from corpora import prepare
from corpora import registry
from corpora import sources
from corpora.cards import readme
from corpora.errors import CorporaError
from corpora.path_errors import write_text

TEMPLATES = Path(__file__).resolve().parent / "templates"
_NAME = re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+)*")


def new(name: str) -> list[Path]:
    """Write corpus `name`'s skeleton over nothing; returns its files, or on failure removes them."""
    if not _NAME.fullmatch(name):
        raise CorporaError(f"{name!r} is not a corpus name: lower-case words joined by _ (a Python module name)")
    # `import global` is a syntax error. Soft keywords (match, case, type) are names that import.
    if keyword.iskeyword(name):
        raise CorporaError(f"{name!r} is not a corpus name: it is a Python keyword, which cannot name a module")
    registry.require_checkout(f"loaders/{name}/")
    root = registry.repo_root()
    folders = [root / "loaders" / name, root / "dummy_data" / name]
    files = {
        root / "loaders" / name / f"{name}.py": "new_loader.py.j2",
        root / "loaders" / name / "FORMAT.md": "new_format.md.j2",
        root / "dataset_cards" / f"{name}.yaml": "new_card.yaml.j2",
        root / "dummy_data" / name / "data" / "train.jsonl": "new_dummy_train.jsonl.j2",
        root / "dummy_data" / name / "data" / "test.jsonl": "new_dummy_test.jsonl.j2",
    }
    if (root / "tests").is_dir():  # a checkout; a collection of loaders only has no tests
        files[root / "tests" / f"test_{name}.py"] = "new_test.py.j2"
    taken = [path for path in [*folders, *files] if path.exists()]
    if taken:
        shown = ", ".join(str(path.relative_to(root)) for path in taken)
        raise CorporaError(f"{name}: {shown} already exist(s); choose another name")
    used = _shared_uses(root, name)
    if used:  # tests/test_repository.py keeps corpus names out of shared code
        raise CorporaError(f"{name}: the shared code already uses this word ({', '.join(used[:3])}"
                           f"{f' and {len(used) - 3} more' if len(used) > 3 else ''}); choose another name")
    today = datetime.date.today()
    values = {"name": name, "class_name": "".join(word.title() for word in name.split("_")),
              "pretty": " ".join(name.split("_")).capitalize(), "date": today.isoformat(), "year": today.year}
    environment = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), keep_trailing_newline=True,
                                     undefined=jinja2.StrictUndefined, autoescape=False)
    written = []
    try:
        for path, template in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            written.append(path)  # before: a write that fails leaves a file (empty) to remove
            write_text(path, environment.get_template(template).render(values))
        counts = {"default": {"train": 3, "test": 2}}  # the lines of the two dummy files
        written.append(root / "dummy_data" / name / "expected_counts.json")
        write_text(written[-1], json.dumps(counts, indent=2) + "\n")
        corpus = registry.get(name)
        written.append(sources.write_records(corpus, dict.fromkeys(corpus.urls.values())))  # not measured
        readme.write(corpus, prepare.dummy_examples(corpus))
        written.append(corpus.card_path)
    except BaseException:
        for path in reversed(written):
            path.unlink(missing_ok=True)
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)
        raise
    return written


def _shared_uses(root: Path, name: str) -> list[str]:
    """`file:line` of each use of the word `name` in the code every corpus shares: src/ and the
    tests that are not a corpus's own (tests/test_<corpus>.py, tests/test_<corpus>_<part>.py)."""
    corpora = [path.name for path in (root / "loaders").iterdir() if path.is_dir()]
    tests = [path for path in sorted((root / "tests").glob("*.py")) if path.name != "test_repository.py"
             and not any(re.fullmatch(rf"test_{corpus}(_.*)?\.py", path.name) for corpus in corpora)]
    word = re.compile(rf"\b{re.escape(name)}\b")
    uses = []
    for path in [*sorted((root / "src").rglob("*.py")), *tests]:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if word.search(line):
                uses.append(f"{path.relative_to(root)}:{number}")
    return uses
