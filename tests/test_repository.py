"""The repository stands alone: every file that the code, the tests, the docs and the cards name
is in it, and every "quirk N" names a numbered quirk of its corpus's format doc.

What is checked, in loaders/, src/, tests/, bench/, docs/, dataset_cards/ and README.md:
- a repository path in the text (`docs/bad_input.md`, `tests/test_cli.py`, `loaders/<name>/`)
  exists; `<...>`, `{...}` and a CLI metavar in capitals (`NAME`) are wildcards that must match
  at least one file; a path after another GitHub repository's name on the same line
  ("huggingface/datasets src/...") is that repository's and is not checked;
- a relative Markdown link resolves from the folder of the file it is in;
- "quirk N" (or "quirks N, M") is a numbered row of the quirks table of
  loaders/<name>/FORMAT.md, where <name> is the corpus of the file: the loader folder it is in,
  else the corpus named in its path (tests/test_<name>.py, dataset_cards/<name>.yaml), else the
  one corpus whose loaders/<name>/FORMAT.md the file cites; "quirk N, name" (the loaders' way of
  citing) names that row's short name;
- nothing cites files outside the repository: a sibling `../shared` folder, a DESIGN.md, or an
  absolute home or work directory.
Corpora are found by convention (the folders of loaders/), so a new corpus needs no edit here;
a corpus without a format doc passes as long as nothing cites its quirks. This file is not
scanned: its own tests write broken references on purpose.
"""

import ast
import re
from pathlib import Path

import jinja2
import pytest

from helpers import own_test_file
from helpers.legs import unmarked_version_sensitive_tests

REPO = Path(__file__).resolve().parents[1]
SCANNED = ["loaders", "src", "tests", "bench", "docs", "dataset_cards", "README.md"]
TEXT_SUFFIXES = {".py", ".md", ".yaml", ".yml", ".toml", ".txt", ".j2", ".cfg", ".tsv"}
# `formats/` too: a bare `formats/<name>.md` is a stale name (the format docs are loaders/<name>/FORMAT.md).
TOP_FOLDERS = "loaders|src|tests|bench|docs|dataset_cards|dummy_data|formats"
# A repository path: one of the top folders, then path characters, not inside a URL or a longer path.
PATH = re.compile(rf"(?<![\w./-])(?:{TOP_FOLDERS})/[\w./<>{{}}*-]*")
# A GitHub repository ("huggingface/datasets") named earlier on the line: the paths after it are its own;
# so are those after a zip named as `ARCHIVE.zip: ` (a member of it, as convert names a file a dummy zip lacks).
FOREIGN = re.compile(rf"(?<![\w./-])(?!(?:{TOP_FOLDERS})/)[A-Za-z][\w-]*/[\w.-]+(?=\s)|\.zip: ")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
QUIRK = re.compile(r"\bquirks?\s+(\d+(?:(?:\s*,\s*|\s+and\s+)\d+)*)", re.IGNORECASE)
FORMAT_DOC = re.compile(r"loaders/(\w+)/FORMAT\.md")
QUIRK_ROW = re.compile(r"^\|\s*(\d+)\s*\|(?:\s*`?([a-z0-9]+(?:-[a-z0-9]+)*)`?\s*\|)?")
# A citation by number and name, as the loaders write it: "quirk 2, numbers-as-strings" (a list: "; ").
NAMED_QUIRK = re.compile(r"(?:\bquirks?\s+|;\s*)(\d+),\s*([a-z0-9]+(?:-[a-z0-9]+)+|[a-z]+(?=[).;]|$))")
OUTSIDE = ["../shared", "DESIGN.md", "/work/", "/home/", "/Users/"]


def corpus_names(root: Path) -> list[str]:
    return sorted(p.name for p in (root / "loaders").iterdir() if (p / f"{p.name}.py").is_file())


def scanned_files(root: Path) -> list[Path]:
    files = []
    for entry in SCANNED:
        path = root / entry
        candidates = [path] if path.is_file() else sorted(path.rglob("*"))
        for file in candidates:
            parts = file.relative_to(root).parts
            if any(part == "__pycache__" or part.endswith(".egg-info") for part in parts):
                continue
            if file.is_file() and file.suffix in TEXT_SUFFIXES and parts != ("tests", "test_repository.py"):
                files.append(file)
    return files


def lines_of(root: Path):
    """(file, line number, line) of every scanned text file."""
    for file in scanned_files(root):
        text = file.read_text(encoding="utf-8")
        for number, line in enumerate(text.splitlines(), start=1):
            yield file, number, line


def path_exists(root: Path, reference: str) -> bool:
    reference = reference.rstrip(".")
    if "..." in reference:  # an elision in prose ("loaders/.../x"), not a path
        return True
    if (root / reference).exists():
        return True
    # Placeholders: <name>, {name} and a CLI metavar in capitals (loaders/NAME/checksums.tsv).
    pattern = re.sub(r"<[^<>/]*>|\{[^{}/]*\}|\b[A-Z][A-Z_]*[A-Z]\b", "*", reference).rstrip("/")
    if "<" in pattern or "{" in pattern:  # a placeholder cut by the pattern: glob what precedes it
        pattern = re.split(r"[<{]", pattern)[0] + "*"
    if "*" in pattern:
        return any(root.glob(pattern))
    return (root / pattern).exists()


def collections(root: Path) -> list[Path]:
    """The repository's collection, and those inside tests/ with loaders/ of their own
    (tests/example_collection): a collection's paths (`loaders/<name>/...`) resolve in any."""
    return [root] + sorted(p.parent for p in (root / "tests").glob("*/loaders") if p.is_dir())


def unresolved_paths(root: Path) -> list[str]:
    problems = []
    for file, number, line in lines_of(root):
        for match in PATH.finditer(line):
            if FOREIGN.search(line[: match.start()]):
                continue
            if not any(path_exists(collection, match.group()) for collection in collections(root)):
                problems.append(f"{file.relative_to(root)}:{number}: {match.group()}")
    return problems


def unresolved_links(root: Path) -> list[str]:
    problems = []
    for file, number, line in lines_of(root):
        if file.suffix != ".md":
            continue
        for match in LINK.finditer(line):
            target = match.group(1).split("#")[0]
            if not target or re.match(r"[a-z][a-z0-9+.-]*:", target) or "{{" in target:
                continue  # an anchor in the same page, a URL, a template
            if not (file.parent / target).exists():
                problems.append(f"{file.relative_to(root)}:{number}: {match.group(1)}")
    return problems


def quirk_names(doc: Path) -> dict[int, str | None]:
    """{number: short name} of the rows of the quirks table: the table after a heading that says Quirks."""
    names = {}
    in_quirks = False
    for line in doc.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            in_quirks = "quirk" in line.lower()
        elif in_quirks and QUIRK_ROW.match(line):
            row = QUIRK_ROW.match(line)
            names[int(row.group(1))] = row.group(2)
    return names


def numbered_quirks(doc: Path) -> set[int]:
    return set(quirk_names(doc))


def corpus_of(root: Path, file: Path, names: list[str]) -> str | None:
    parts = file.relative_to(root).parts
    if parts[0] == "loaders" and len(parts) > 2 and parts[1] in names:
        return parts[1]
    named = [name for name in names if name in "/".join(parts)]
    if len(named) == 1:
        return named[0]
    cited = set(FORMAT_DOC.findall(file.read_text(encoding="utf-8"))) & set(names)
    return cited.pop() if len(cited) == 1 else None


def unresolved_quirks(root: Path) -> list[str]:
    names = corpus_names(root)
    problems = []
    for file, number, line in lines_of(root):
        for match in QUIRK.finditer(line):
            where = f"{file.relative_to(root)}:{number}: {match.group()}"
            name = corpus_of(root, file, names)
            if name is None:
                problems.append(f"{where}: of which corpus? (no corpus in the path, no single format doc cited)")
                continue
            doc = root / "loaders" / name / "FORMAT.md"
            if not doc.is_file():
                problems.append(f"{where}: loaders/{name}/FORMAT.md does not exist")
                continue
            missing = [int(n) for n in re.findall(r"\d+", match.group(1)) if int(n) not in numbered_quirks(doc)]
            if missing:
                problems.append(f"{where}: loaders/{name}/FORMAT.md has no quirk {', '.join(map(str, missing))}")
        for match in NAMED_QUIRK.finditer(line):
            name = corpus_of(root, file, names)
            doc = root / "loaders" / str(name) / "FORMAT.md"
            named = quirk_names(doc).get(int(match.group(1))) if doc.is_file() else None
            if named is not None and named != match.group(2):
                problems.append(f"{file.relative_to(root)}:{number}: quirk {match.group(1)} is {named!r}, not {match.group(2)!r}")
    return problems


def outside_references(root: Path) -> list[str]:
    return [
        f"{file.relative_to(root)}:{number}: {outside}"
        for file, number, line in lines_of(root)
        for outside in OUTSIDE
        if outside in line
    ]


def shared_files_naming_a_corpus(root: Path) -> list[str]:
    """Lines of src/ and of the shared test files (every tests/*.py that is not a corpus's own)
    that name a corpus: adding, changing or removing a corpus must not touch them."""
    names = corpus_names(root)
    files = sorted((root / "src").rglob("*.py")) + sorted((root / "tests").glob("*.py"))
    problems = []
    for file in files:
        if file.name == "test_repository.py" or any(own_test_file(n, file.name) for n in names):
            continue
        for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
            problems += [f"{file.relative_to(root)}:{number}: {n}" for n in names if re.search(rf"\b{n}\b", line)]
    return problems


def _code(root: Path) -> list[tuple[str, str]]:
    """(file, source) of the loaders (tests/example_collection's too), src/ and the loader `corpora new` writes."""
    files = [*sorted(root.glob("loaders/*/*.py")), *sorted(root.glob("tests/*/loaders/*/*.py")),
             *sorted((root / "src").rglob("*.py"))]
    code = [(str(file.relative_to(root)), file.read_text(encoding="utf-8")) for file in files]
    template = root / "src" / "corpora" / "templates" / "new_loader.py.j2"
    if template.is_file():
        values = {"name": "toy", "class_name": "Toy", "pretty": "Toy", "date": "2026-01-01", "year": 2026}
        code.append((str(template.relative_to(root)), jinja2.Template(template.read_text(encoding="utf-8")).render(values)))
    return code


def _config_name(node: ast.AST) -> bool:
    """`config.name`, `self.config.name` or `config_name`: the name of a config."""
    if isinstance(node, ast.Name):
        return node.id == "config_name"
    return isinstance(node, ast.Attribute) and node.attr == "name" and (
        isinstance(node.value, ast.Name) and node.value.id == "config"
        or isinstance(node.value, ast.Attribute) and node.value.attr == "config")


def _literal(node: ast.AST) -> bool:
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return bool(node.elts) and all(_literal(element) for element in node.elts)
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _sys_modules(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "modules" and isinstance(node.value, ast.Name) \
        and node.value.id == "sys"


def config_facts_elsewhere(root: Path) -> list[str]:
    """What a config should carry, found elsewhere: a config's name compared with a literal or used
    as a key (a branch or a table standing in for an attribute of the config), a module's globals
    read through sys.modules by its `__module__` (and sys.modules at all in a loader), or a loader
    module's private names read through a `module` (texts come from the builder's info, URLs and
    counts from the config)."""
    problems = []
    for file, source in _code(root):
        loader = not file.startswith("src/") or file.startswith("src/corpora/loader_shared/")
        for node in ast.walk(ast.parse(source)):
            line = f"{file}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
                if any(map(_config_name, sides)) and any(map(_literal, sides)):
                    problems.append(f"{line}: a config's name compared with a literal")
            elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and _config_name(node.slice):
                problems.append(f"{line}: a lookup by a config's name")
            elif isinstance(node, ast.Subscript) and _sys_modules(node.value) and "__module__" in ast.unparse(node.slice):
                problems.append(f"{line}: a module's globals read through sys.modules")
            elif loader and _sys_modules(node):
                problems.append(f"{line}: sys.modules in a loader's code")
            elif isinstance(node, ast.Attribute) and re.fullmatch(r"_[A-Za-z]\w*", node.attr) and (
                    isinstance(node.value, ast.Name) and node.value.id == "module"
                    or isinstance(node.value, ast.Attribute) and node.value.attr == "module"):
                problems.append(f"{line}: a loader module's {node.attr} read")
    return problems


CHECKS = [unresolved_paths, unresolved_links, unresolved_quirks, outside_references, shared_files_naming_a_corpus,
          config_facts_elsewhere]


@pytest.mark.parametrize("check", CHECKS, ids=[check.__name__ for check in CHECKS])
def test_the_repository_resolves_its_own_references(check):
    assert check(REPO) == []


def test_each_format_doc_numbers_its_quirks():
    docs = sorted((REPO / "loaders").glob("*/FORMAT.md"))
    assert len(docs) == len(corpus_names(REPO)), "a corpus without loaders/<name>/FORMAT.md"
    for doc in docs:
        numbers = numbered_quirks(doc)
        assert numbers == set(range(1, len(numbers) + 1)), f"{doc.name}: quirks {sorted(numbers)}"


# --- the checks find what they are meant to find -----------------------------------------------


@pytest.fixture
def tiny_repo(tmp_path):
    """A repository with one corpus, `toy`, its format doc with quirks 1 and 2, and files that
    cite them rightly and wrongly."""
    (tmp_path / "loaders" / "toy").mkdir(parents=True)
    (tmp_path / "docs").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "bench").mkdir()
    (tmp_path / "dummy_data" / "toy").mkdir(parents=True)
    (tmp_path / "README.md").write_text(
        "See [the doc](loaders/toy/FORMAT.md), [gone](docs/gone.md) and [web](https://example.org/x.md).\n"
        "Layout: `loaders/<name>/<name>.py`, `tests/test_<name>.py`, loaders/<name>/FORMAT.md, dummy_data/NAME/.\n"
        "Vendored from huggingface/hub-docs at docs/hub/licenses.md.\n"
        "Tests of the reader: tests/test_<name>_io.py\n"
        "The old name of the doc: formats/toy.md\n"
        "A member a zip lacks, named in it: toy/dummy/1.0.0/dummy_data.zip: dummy_data/gone.csv\n"
    )
    (tmp_path / "loaders" / "toy" / "FORMAT.md").write_text(
        "# toy\n\n## 5. Quirks\n\n| # | name | quirk |\n|---|---|---|\n| 1 | `one-thing` | one |\n| 2 | two | two |\n\n"
        "## 6. Sizes\n\n| 3 | no quirk |\n"
    )
    (tmp_path / "loaders" / "toy" / "toy.py").write_text(
        "# quirk 2 is fine, quirks 1, 3 are not; see loaders/toy/_gone.py\n"
        "x = 1  # quirk 1, one-thing; 2, two (both right)\n"
        "y = 2  # quirks 2, one-thing; 1, two.\n"
    )
    (tmp_path / "tests" / "test_toy.py").write_text('"""Every quirk of loaders/toy/FORMAT.md."""\n# quirk 1 and 4\n')
    (tmp_path / "bench" / "make_data.py").write_text(
        "# no corpus here: quirk 1\n# from the notes in ../shared/formats and /home/me/x\n"
    )
    (tmp_path / "bench" / "toy_data.py").write_text("# the same by name: quirk 2 and 9\n")
    (tmp_path / "tests" / "test_cli.py").write_text('NAME = "toy"\nTOYS = "toy_box"\n')
    (tmp_path / "tests" / "synthetic_toy.py").write_text('NAME = "toy"\n')
    return tmp_path


def test_the_checks_find_each_broken_reference(tiny_repo):
    assert unresolved_paths(tiny_repo) == [
        "loaders/toy/toy.py:1: loaders/toy/_gone.py",
        "README.md:1: docs/gone.md",
        "README.md:4: tests/test_<name>_io.py",
        "README.md:5: formats/toy.md",
    ]
    assert unresolved_links(tiny_repo) == ["README.md:1: docs/gone.md"]
    assert unresolved_quirks(tiny_repo) == [
        "loaders/toy/toy.py:1: quirks 1, 3: loaders/toy/FORMAT.md has no quirk 3",
        "loaders/toy/toy.py:3: quirk 2 is 'two', not 'one-thing'",
        "loaders/toy/toy.py:3: quirk 1 is 'one-thing', not 'two'",
        "tests/test_toy.py:2: quirk 1 and 4: loaders/toy/FORMAT.md has no quirk 4",
        "bench/make_data.py:1: quirk 1: of which corpus? (no corpus in the path, no single format doc cited)",
        "bench/toy_data.py:1: quirk 2 and 9: loaders/toy/FORMAT.md has no quirk 9",
    ]
    assert outside_references(tiny_repo) == [
        "bench/make_data.py:2: ../shared",
        "bench/make_data.py:2: /home/",
    ]
    assert numbered_quirks(tiny_repo / "loaders" / "toy" / "FORMAT.md") == {1, 2}
    # test_toy.py and synthetic_toy.py are the corpus's own; test_cli.py is shared.
    assert shared_files_naming_a_corpus(tiny_repo) == ["tests/test_cli.py:1: toy"]


def test_the_check_of_config_facts_finds_each_kind(tmp_path):
    (tmp_path / "loaders" / "toy").mkdir(parents=True)
    (tmp_path / "src" / "corpora" / "loader_shared").mkdir(parents=True)
    (tmp_path / "loaders" / "toy" / "toy.py").write_text(
        "import sys\n"
        "def count(config, config_name):\n"
        "    if config.name == 'texts' or config_name in ('a', 'b'):\n"
        "        return 1\n"
        "    return sys.modules[__name__]\n"
        "class Toy:\n"
        "    def _features(self):\n"
        "        return FEATURES[self.config.name] if self.config.name != NAME else None\n"
    )
    (tmp_path / "src" / "corpora" / "loader_shared" / "base.py").write_text(
        "import sys\n"
        "def info(self):\n"
        "    return sys.modules[type(self).__module__]._DESCRIPTION\n"
    )
    (tmp_path / "src" / "corpora" / "registry.py").write_text(
        "import sys\n"
        "def config(self, name):\n"
        "    found = [c for c in self.configs if c.name == name]  # the name a user gave: fine\n"
        "    return sys.modules.get('pyarrow'), self.module._URLS, corpus.module._count_source_records\n"
    )
    assert config_facts_elsewhere(tmp_path) == [
        "loaders/toy/toy.py:3: a config's name compared with a literal",
        "loaders/toy/toy.py:3: a config's name compared with a literal",
        "loaders/toy/toy.py:5: sys.modules in a loader's code",
        "loaders/toy/toy.py:8: a lookup by a config's name",
        "src/corpora/loader_shared/base.py:3: a module's globals read through sys.modules",
        "src/corpora/loader_shared/base.py:3: sys.modules in a loader's code",
        "src/corpora/registry.py:4: a loader module's _URLS read",
        "src/corpora/registry.py:4: a loader module's _count_source_records read",
    ]


def yaml_blocks(path: Path) -> list[str]:
    return re.findall(r"```yaml\n(.*?)```", path.read_text(encoding="utf-8"), flags=re.S)


def test_the_documented_workflows_are_valid_as_pasted():
    """Each ```yaml block of the README and of docs/ (docs/validating_in_ci.md shows two) is a whole
    GitHub Actions workflow: a trigger (YAML 1.1 reads `on` as true), jobs that each say where they
    run and list steps that use or run something."""
    import yaml

    assert len(yaml_blocks(REPO / "docs" / "validating_in_ci.md")) >= 2
    pages = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    blocks = [block for page in pages for block in yaml_blocks(page)]
    for block in blocks:
        workflow = yaml.safe_load(block)
        if "repos" in workflow:  # a .pre-commit-config.yaml: tests/test_ci_action.py checks it
            continue
        trigger = workflow.get("on", workflow.get(True))
        assert trigger, f"no `on:` in\n{block}"
        assert workflow["jobs"], block
        for job in workflow["jobs"].values():
            assert isinstance(job["runs-on"], str)
            assert job["steps"] and all("uses" in step or "run" in step for step in job["steps"])


def test_the_readme_links_every_docs_page():
    """The README starts a newcomer; each task's page in docs/ is reached from it."""
    linked = {Path(target.split("#")[0]) for target in LINK.findall((REPO / "README.md").read_text(encoding="utf-8"))}
    pages = {page.relative_to(REPO) for page in (REPO / "docs").glob("*.md")}
    assert sorted(pages - linked) == []


def test_the_readme_test_command_is_what_ci_runs():
    """The README's test command is the one CI runs: the last line of .ci/run."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    first_commands = readme.split("```sh\n", 1)[1].split("\n```", 1)[0]
    assert [line.split("#")[0].strip() for line in first_commands.splitlines() if not line.startswith(" ")] == [
        "make demo", "make test"]
    assert (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()[-1] == "make test"


# --- the legs: chosen by markers (tests/conftest.py), checked here (helpers/legs.py) -----------------


def test_every_test_of_version_sensitive_datasets_code_says_which_legs_run_it():
    """A test that streams, shards, uses worker processes, calls load_dataset, runs a loading
    script or uses the HTTP `mirror` is marked `both_legs`, `main_leg` or `datasets3`: else the
    other legs would leave it out unseen."""
    unmarked = [test for path in sorted((REPO / "tests").glob("test_*.py")) for test in unmarked_version_sensitive_tests(path)]
    assert unmarked == [], "mark each @pytest.mark.both_legs (or main_leg: the generic tests run that code in every leg)"


PLANTED = '''
import datasets
import pytest
from datasets import load_dataset

pytestmark = pytest.mark.usefixtures("example_collection")

def stream(name):
    return datasets.load_dataset(name, streaming=True)

def test_streams():
    list(corpora.load("x", streaming=True))

def test_through_a_function_of_its_file():
    stream("x")

def test_workers():
    corpora.load("x", num_proc=2)

def test_a_script():
    load_dataset("loaders/x", trust_remote_code=True)

def test_a_bare_load_dataset():
    load_dataset("x")

def test_over_http(mirror):
    pass

class TestShards:
    def test_by_node(self):
        split_dataset_by_node(None, rank=0, world_size=2)

    @pytest.mark.datasets3
    def test_marked_in_its_class(self):
        load_dataset("x")

@pytest.mark.both_legs
class TestMarked:
    def test_streams(self):
        list(corpora.load("x", streaming=True))

@pytest.mark.both_legs
def test_marked_for_every_leg():
    list(corpora.load("x", streaming=True))

@pytest.mark.main_leg
def test_marked_for_the_main_leg():
    corpora.load("x", num_proc=2)

def test_plain():
    corpora.load("x")
'''


def test_the_leg_check_names_each_test_planted_without_its_marker(tmp_path):
    planted = tmp_path / "test_planted.py"
    planted.write_text(PLANTED)
    assert unmarked_version_sensitive_tests(planted) == [
        "test_planted.py::test_streams", "test_planted.py::test_through_a_function_of_its_file",
        "test_planted.py::test_workers", "test_planted.py::test_a_script", "test_planted.py::test_a_bare_load_dataset",
        "test_planted.py::test_over_http", "test_planted.py::TestShards::test_by_node",
    ]
    planted.write_text(PLANTED.replace('pytestmark = pytest.mark.usefixtures("example_collection")',
                                       "pytestmark = [pytest.mark.both_legs]"))
    assert unmarked_version_sensitive_tests(planted) == []
