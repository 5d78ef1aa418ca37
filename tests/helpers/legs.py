"""Which legs run a test is said by its markers (tests/conftest.py selects by them). This finds the
tests that use what differs most between datasets versions and say nothing about it: the check of
tests/test_repository.py, so no such test is left to the main leg alone unseen."""

import ast
import re
from pathlib import Path

# What differs most between datasets versions: streaming and its shards, worker processes, reading
# an export back or running a loading script through load_dataset. A test whose code (or that of a
# function of its file that it calls) uses one of these, or that uses the HTTP `mirror` fixture
# (datasets' and fsspec's download code), says which legs run it.
VERSION_SENSITIVE = re.compile(
    r"streaming=True|as_streaming_dataset|split_dataset_by_node|num_proc|datasets\.load_dataset\("
    r"|trust_remote_code=True|dataset_module_factory"
)
# The markers that say it: every leg, the main leg alone, or each leg whose datasets runs scripts.
LEG_MARKS = {"both_legs", "main_leg", "datasets3"}


def unmarked_version_sensitive_tests(path: Path) -> list[str]:
    """`file::test` of each test of the file that uses version-sensitive datasets code (or the
    `mirror` fixture) without one of LEG_MARKS on it, its class or its module (`pytestmark`)."""
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    functions = {node.name: node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    module_marks = set().union(*(_marks(node.value) for node in tree.body
                                 if isinstance(node, ast.Assign) and _targets(node) == ["pytestmark"]))
    found = []
    for owner, marks in [(tree, module_marks), *[(node, module_marks | _decorator_marks(node)) for node in tree.body
                                                  if isinstance(node, ast.ClassDef) and node.name.startswith("Test")]]:
        for node in owner.body:
            if not (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test")):
                continue
            source = _source(node, lines)
            called = [functions[name] for name in re.findall(r"\b(\w+)\(", source) if name in functions]
            sensitive = any(VERSION_SENSITIVE.search(_source(f, lines)) or _calls_load_dataset(f) for f in [node, *called])
            uses_mirror = "mirror" in [argument.arg for argument in node.args.args]
            if (sensitive or uses_mirror) and not (marks | _decorator_marks(node)) & LEG_MARKS:
                found.append(f"{path.name}::{node.name}" if owner is tree else f"{path.name}::{owner.name}::{node.name}")
    return found


def _source(node, lines) -> str:
    first = min([node.lineno] + [decorator.lineno for decorator in node.decorator_list])
    return "".join(lines[first - 1 : node.end_lineno])


def _calls_load_dataset(node) -> bool:
    """A call of load_dataset imported by its own name (`from datasets import load_dataset`)."""
    return any(isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "load_dataset"
               for call in ast.walk(node))


def _targets(node) -> list[str]:
    return [target.id for target in node.targets if isinstance(target, ast.Name)]


def _decorator_marks(node) -> set[str]:
    return set().union(*(_marks(decorator) for decorator in node.decorator_list))


def _marks(node) -> set[str]:
    """The names X of every `pytest.mark.X` in an expression (a decorator, a list of marks)."""
    return {attribute.attr for attribute in ast.walk(node) if isinstance(attribute, ast.Attribute)
            and isinstance(attribute.value, ast.Attribute) and attribute.value.attr == "mark"}
