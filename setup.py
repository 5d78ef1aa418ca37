"""The package's layout, which pyproject.toml cannot express: the repository's top-level folders
loaders/, dataset_cards/ and dummy_data/ travel inside the package as corpora/_data/<folder>, so
an installed corpora works from any folder (registry.repo_root finds them there; in a checkout,
editable install included, it uses the folders themselves).

setuptools copies data files only from the packages it is given, and warns that it will stop
copying the others: every subfolder is listed here, found at build time, so a new corpus's
folders need no edit of this file."""

from pathlib import Path

from setuptools import find_packages
from setuptools import setup

DATA_FOLDERS = {folder: f"corpora._data.{folder}" for folder in ("loaders", "dataset_cards", "dummy_data")}


def data_packages():
    """{package: folder} for each data folder and each of its subfolders."""
    packages = {}
    for folder, package in DATA_FOLDERS.items():
        for path in sorted([Path(folder), *Path(folder).rglob("*")]):
            if path.is_dir() and "__pycache__" not in path.parts:
                packages[".".join([package, *path.relative_to(folder).parts])] = path.as_posix()
    return packages


packages = data_packages()
setup(
    # Every package under src/ (a listed one was missed when cards/ and diff/ became packages).
    packages=[*find_packages("src"), "corpora.templates", *packages],
    package_dir={"": "src", **packages},
    # The package's own data; every file of the data folders (not dotfiles, not __pycache__).
    # setuptools' own build folder goes under .cache/: build/ is where `corpora build` exports by default.
    options={"build": {"build_base": ".cache/setuptools-build"}},
    package_data={
        "corpora": ["vocabularies.yaml"],
        "corpora.templates": ["*.j2"],
        **{package: ["*"] for package in packages},
    },
)
