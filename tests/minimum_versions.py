"""The lower bound of every dependency in pyproject.toml, as pins for pip (`name==version`): what
the minimum-versions test leg installs (Makefile), and what tests/test_minimum_versions.py finds
installed there.

    python tests/minimum_versions.py     # prints the pins, one per line
"""

import re
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def minimum_versions() -> dict[str, str]:
    """{distribution: its lower bound} for each of `[project] dependencies`. Read with a pattern
    (tomllib is Python 3.11+; the lines are one requirement each)."""
    text = PYPROJECT.read_text(encoding="utf-8")
    block = re.search(r"^dependencies = \[\n(.*?)^\]", text, re.MULTILINE | re.DOTALL).group(1)
    pins = {}
    for line in block.splitlines():
        requirement = re.match(r'\s*"([A-Za-z0-9_.-]+)(?:\[[^\]]*\])?>=([0-9][0-9.]*)[^"]*",', line)
        if requirement:
            pins[requirement.group(1)] = requirement.group(2)
        elif line.strip().startswith('"'):
            raise ValueError(f"pyproject.toml: a dependency without a lower bound: {line.strip()}")
    return pins


if __name__ == "__main__":
    print("\n".join(f"{name}=={version}" for name, version in minimum_versions().items()))
