"""`corpora convert --dummy`: a download manager that maps each download of a legacy script into
its own test data, `dummy/<config>/<version>/dummy_data.zip` (or `dummy/<version>/...` for a
script without BUILDER_CONFIGS), as datasets 2.x's test harness (its MockDownloadManager) mapped
it, so the rows are those the script gave in its tests. No network is used. Without the zip, the
`dummy_data/` folder beside it is its content, unzipped: datasets' `dummy_data` command made that
folder, then zipped it (kept it unzipped with --keep_uncompressed).

The mapping, inside the unzipped `dummy_data/` folder:
- a single URL, or each URL of a list: its last path part (after the last "/"), quote_plus-quoted;
  a single URL whose file is missing: the `dummy_data` folder itself (many zips hold the
  downloaded file's content at their top);
- a list whose URLs are all shards (`NNN-of-NNN`), or PubMed baseline files: each one maps as the first;
- a dict: each value's `Path(url).name`, quoted (a list value: each of its URLs so); where two
  single values collide, each key is appended to its value;
- `extract` returns its input, `iter_archive` yields the files under a path in the zip's member
  order (a folder's: `folder_members`; names starting with "." or "__" skipped), `manual_dir` is
  the `dummy_data` folder.
"""

from __future__ import annotations

import os
import re
import urllib.parse
import zipfile
from pathlib import Path

from corpora.errors import CorporaError

DUMMY_FOLDER = "dummy_data"
_SHARD = re.compile("[0-9]{3,}-of-[0-9]{3,}")
_PUBMED = "https://ftp.ncbi.nlm.nih.gov/pubmed/baseline/pubmed"


def dummy_zip(script_folder: Path, config: str | None, version) -> Path:
    """Where the dummy data of a config is: dummy/<config>/<version>/dummy_data.zip, or
    dummy/<version>/dummy_data.zip for a script without BUILDER_CONFIGS (`config` None)."""
    parts = ("dummy", str(version)) if config is None else ("dummy", config, str(version))
    return Path(script_folder, *parts, "dummy_data.zip")


def dummy_data(script_folder: Path, config: str | None, version) -> Path:
    """The dummy data of a config: its dummy_data.zip (`dummy_zip`), else the dummy_data/ folder
    beside where the zip would be; the zip's path where neither is."""
    zip_path = dummy_zip(script_folder, config, version)
    folder = zip_path.with_name(DUMMY_FOLDER)
    return folder if not zip_path.is_file() and folder.is_dir() else zip_path


def folder_members(folder: Path) -> list[str]:
    """The paths a zip of `folder` holds, in the order the dummy data of a folder is read (and
    zipped, for a reference: reference_runner.py): the folder, then each folder's files and
    subfolders, in sorted order, depth first. Paths start with the folder's own name; a folder's ends with "/"."""
    members = []
    for where, subfolders, files in os.walk(folder):
        subfolders.sort()
        inside = Path(where).relative_to(folder.parent).as_posix()
        members += [inside + "/", *(f"{inside}/{name}" for name in sorted(files))]
    return members


class DummyDownloadManager:
    """The download manager a builder is given for `--dummy` (download_and_prepare(dl_manager=...))."""

    is_streaming = False
    record_checksums = False  # the dummy data is no release: there is nothing to check
    downloaded_size = 0

    def __init__(self, source: Path, unzip_to: Path):
        """`source`: a dummy_data.zip (unzipped into `unzip_to`) or a dummy_data/ folder (read where it is)."""
        source = Path(source)
        if source.is_dir():
            self._members, self._root = folder_members(source), source.parent
        elif source.is_file():
            try:
                with zipfile.ZipFile(source) as archive:
                    self._members = archive.namelist()  # in the zip's order
                    archive.extractall(unzip_to)
            except zipfile.BadZipFile as error:
                raise CorporaError(f"{source}: not a zip file ({error})") from error
            self._root = Path(unzip_to)
        else:
            raise CorporaError(f"{source}: no such file: the script has no dummy data for this config "
                               "(--dummy reads dummy/<config>/<version>/dummy_data.zip, or dummy/<version>/ "
                               "for a script without BUILDER_CONFIGS, or the dummy_data/ folder beside it)")
        self.source = source
        self.dummy_file = str(self._root / DUMMY_FOLDER)
        self.downloaded_paths = {}  # {url: the path it maps to}, for the card

    def known_as(self, path: str) -> str | None:
        """An absolute `path` inside the dummy data as the user knows it: the zip and its member, or
        the path in the dummy_data/ folder read where it is; where it is the folder that stands for
        a download whose file the dummy data lacks, that download is named. None: not the dummy data's."""
        root = os.path.abspath(self._root)
        if not path.startswith(root + os.sep):
            return None
        member = path[len(root) + 1:].replace(os.sep, "/")
        said = f"{self.source}: {member}" if self.source.is_file() else str(self.source.parent / member)
        lacking = [url for url, mapped in self.downloaded_paths.items() if mapped == self.dummy_file]
        if lacking and path == os.path.abspath(self.dummy_file):
            name = urllib.parse.quote_plus(lacking[0].split("/")[-1])
            said += f" (standing for {lacking[0]}: the dummy data holds no {DUMMY_FOLDER}/{name})"
        return said

    @property
    def manual_dir(self) -> str:
        if os.path.isdir(self.dummy_file):
            return self.dummy_file
        return "/".join(self.dummy_file.replace(os.sep, "/").split("/")[:-1])

    def download_and_extract(self, url_or_urls, *args):
        if isinstance(url_or_urls, dict):
            return self._dict(url_or_urls)
        if isinstance(url_or_urls, (list, tuple)):
            return self._list(url_or_urls)
        return self._single(url_or_urls)

    def download(self, url_or_urls, *args):
        return self.download_and_extract(url_or_urls)

    def download_custom(self, url_or_urls, custom_download):
        return self.download_and_extract(url_or_urls)

    def extract(self, path, *args, **kwargs):
        return path

    def get_recorded_sizes_checksums(self) -> dict:
        return {}

    def manage_extracted_files(self):
        pass

    def delete_extracted_files(self):
        pass

    def _mapped(self, url: str, name: str) -> str:
        path = os.path.join(self.dummy_file, urllib.parse.quote_plus(name))
        self.downloaded_paths[url] = path
        return path

    def _dict(self, urls: dict) -> dict:
        mapped = {}
        for key, value in urls.items():
            if isinstance(value, list):
                mapped[key] = [self._mapped(url, Path(url).name) for url in value]
            else:
                mapped[key] = self._mapped(value, Path(value).name)
        values = list(mapped.values())
        if all(isinstance(value, str) for value in values) and len(set(values)) < len(values):
            mapped = {key: value + key for key, value in mapped.items()}  # as 2.x made them unique
        return mapped

    def _list(self, urls) -> list:
        shards = all(_SHARD.search(url) for url in urls) or all(url.startswith(_PUBMED) for url in urls)
        if urls and shards:
            return [self._mapped(url, urls[0].split("/")[-1]) for url in urls]
        return [self._mapped(url, url.split("/")[-1]) for url in urls]

    def _single(self, url: str) -> str:
        path = self._mapped(url, url.split("/")[-1])
        if os.path.exists(path):
            return path
        self.downloaded_paths[url] = self.dummy_file  # the zip holds the download's content at its top
        return self.dummy_file

    def iter_archive(self, path):
        """(path inside `path`, open file) for each file under `path`, in the zip's member order."""
        path = Path(path)
        prefix = path.relative_to(self._root).as_posix()
        for member in self._members:
            if not member.startswith(prefix):
                continue
            file_path = self._root / member
            if file_path.is_file() and not file_path.name.startswith((".", "__")):
                yield file_path.relative_to(path).as_posix(), file_path.open("rb")

    def iter_files(self, paths):
        """Each file under the paths (a path or a list), folders walked in sorted order."""
        for path in paths if isinstance(paths, list) else [paths]:
            if os.path.isfile(path):
                yield path
                continue
            for folder, subfolders, files in os.walk(path):
                if os.path.basename(folder).startswith((".", "__")):
                    continue
                subfolders.sort()
                for name in sorted(files):
                    if not name.startswith((".", "__")):
                        yield os.path.join(folder, name)


def forget_release_sizes(builder) -> None:
    """The sizes a script's repository recorded are the release's, not its dummy data's: datasets
    3.x reads them and checks the free disk space against them (174 GiB for one script), as 2.x's
    test harness did not. They are dropped from the builder's info for a dummy conversion."""
    builder.info.size_in_bytes = builder.info.download_size = builder.info.dataset_size = None
