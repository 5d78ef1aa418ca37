"""Every lower bound of pyproject.toml is a version the package works with: the minimum-versions
leg (Makefile, `test-minimum`) installs exactly those versions and runs the tests that can differ
between versions there; this checks that it did."""

import importlib.metadata
import os

import pytest

from minimum_versions import minimum_versions

LEG = os.environ.get("CORPORA_TEST_LEG", "")


def test_every_dependency_has_a_lower_bound():
    assert {"datasets", "huggingface_hub", "pyarrow", "duckdb", "requests"} <= set(minimum_versions())


@pytest.mark.other_dependencies
@pytest.mark.skipif(LEG != "minimum", reason="only the minimum-versions leg installs the lower bounds")
def test_the_minimum_versions_leg_has_every_lower_bound_installed():
    installed = {name: importlib.metadata.version(name) for name in minimum_versions()}
    assert {name: version.split("+")[0] for name, version in installed.items()} == {
        name: version if version.count(".") >= 2 else version + ".0" * (2 - version.count("."))
        for name, version in minimum_versions().items()
    }
