"""`corpora convert --dummy`'s download manager (corpora/convert/dummy.py): each URL a legacy
script downloads mapped into its dummy_data.zip as datasets 2.x's MockDownloadManager mapped it."""

import zipfile
from pathlib import Path

import pytest

from corpora.convert import dummy
from corpora.convert import reference_runner
from corpora.errors import CorporaError

FILES = [f"{dummy.DUMMY_FOLDER}/{path}" for path in (
    "train.csv", "data%3Fformat%3Djson", "part-00000-of-00004.txt", "pubmed21n0001.xml", "words/z.txt",
    "words/.DS_Store", "words/__init__.txt", "words/a/b.txt")] + ["__MACOSX/._dummy_data"]


def manager(tmp_path: Path, members=FILES) -> dummy.DummyDownloadManager:
    zip_path = tmp_path / "script" / "dummy" / "en" / "1.0.0" / "dummy_data.zip"
    zip_path.parent.mkdir(parents=True)
    with zipfile.ZipFile(zip_path, "w") as archive:
        for member in members:
            archive.writestr(member, f"content of {member}")
    return dummy.DummyDownloadManager(zip_path, tmp_path / "unzipped")


def test_where_the_dummy_data_of_a_config_is(tmp_path):
    assert dummy.dummy_zip(tmp_path, "en", "1.0.0") == tmp_path / "dummy" / "en" / "1.0.0" / "dummy_data.zip"
    assert dummy.dummy_zip(tmp_path, None, "0.0.0") == tmp_path / "dummy" / "0.0.0" / "dummy_data.zip"
    version = tmp_path / "dummy" / "en" / "1.0.0"
    assert dummy.dummy_data(tmp_path, "en", "1.0.0") == version / "dummy_data.zip"  # neither: the zip's path
    (version / "dummy_data").mkdir(parents=True)
    assert dummy.dummy_data(tmp_path, "en", "1.0.0") == version / "dummy_data"  # unzipped
    (version / "dummy_data.zip").write_bytes(b"")
    assert dummy.dummy_data(tmp_path, "en", "1.0.0") == version / "dummy_data.zip"  # the zip first, as datasets read it


def test_a_single_url_maps_to_its_quoted_last_part_or_to_the_folder(tmp_path):
    dl = manager(tmp_path)
    data = tmp_path / "unzipped" / "dummy_data"
    assert dl.download_and_extract("https://example.org/a/train.csv") == f"{data}/train.csv"
    assert dl.download("https://example.org/api/data?format=json") == f"{data}/data%3Fformat%3Djson"
    # a file the zip lacks: the dummy_data folder stands for it (the download's extracted content)
    assert dl.download_and_extract("https://example.org/a/corpus.tar.gz") == str(data)
    assert dl.downloaded_paths == {"https://example.org/a/train.csv": f"{data}/train.csv",
                                   "https://example.org/api/data?format=json": f"{data}/data%3Fformat%3Djson",
                                   "https://example.org/a/corpus.tar.gz": str(data)}


def test_a_list_maps_each_url_and_shards_to_the_first(tmp_path):
    dl = manager(tmp_path)
    data = tmp_path / "unzipped" / "dummy_data"
    assert dl.download(["https://x.org/train.csv", "https://x.org/b/missing.csv"]) == [
        f"{data}/train.csv", f"{data}/missing.csv"]  # a list keeps a missing file's own path
    shards = [f"https://x.org/part-{i:05d}-of-00004.txt" for i in range(4)]
    assert dl.download_and_extract(shards) == [f"{data}/part-00000-of-00004.txt"] * 4
    pubmed = [f"https://ftp.ncbi.nlm.nih.gov/pubmed/baseline/pubmed21n000{i}.xml" for i in (1, 2)]
    assert dl.download_and_extract(pubmed) == [f"{data}/pubmed21n0001.xml"] * 2
    assert dl.download_and_extract([]) == []


def test_a_dict_maps_each_value_and_appends_keys_where_they_collide(tmp_path):
    dl = manager(tmp_path)
    data = tmp_path / "unzipped" / "dummy_data"
    assert dl.download_and_extract({"train": "https://x.org/train.csv", "more": ["https://x.org/a.txt?b=1"]}) == {
        "train": f"{data}/train.csv", "more": [f"{data}/a.txt%3Fb%3D1"]}
    assert dl.download({"train": "https://x.org/en/data.csv", "test": "https://x.org/fr/data.csv"}) == {
        "train": f"{data}/data.csvtrain", "test": f"{data}/data.csvtest"}


def test_extract_is_the_identity_and_manual_dir_the_dummy_data(tmp_path):
    dl = manager(tmp_path)
    assert dl.extract("/any/path.zip") == "/any/path.zip"
    assert dl.extract(["a", "b"]) == ["a", "b"]
    assert dl.manual_dir == str(tmp_path / "unzipped" / "dummy_data")
    assert (dl.record_checksums, dl.downloaded_size, dl.get_recorded_sizes_checksums()) == (False, 0, {})


def test_iter_archive_follows_the_zips_member_order(tmp_path):
    dl = manager(tmp_path)
    words = tmp_path / "unzipped" / "dummy_data" / "words"
    found = [(path, f.read()) for path, f in dl.iter_archive(str(words))]
    assert found == [("z.txt", f"content of {words.parent.name}/words/z.txt".encode()),
                     ("a/b.txt", f"content of {words.parent.name}/words/a/b.txt".encode())]


def test_a_dummy_data_folder_is_read_where_it_is_in_sorted_order(tmp_path):
    folder = tmp_path / "script" / "dummy" / "en" / "1.0.0" / dummy.DUMMY_FOLDER
    for member in FILES[:-1]:
        (folder.parent / member).parent.mkdir(parents=True, exist_ok=True)
        (folder.parent / member).write_text(f"content of {member}")
    assert dummy.folder_members(folder) == [f"{dummy.DUMMY_FOLDER}/{path}" for path in (
        "", "data%3Fformat%3Djson", "part-00000-of-00004.txt", "pubmed21n0001.xml", "train.csv", "words/",
        "words/.DS_Store", "words/__init__.txt", "words/z.txt", "words/a/", "words/a/b.txt")]
    dl = dummy.DummyDownloadManager(folder, tmp_path / "unzipped")
    assert dl.download_and_extract({"train": "https://x.org/train.csv", "all": "https://x.org/all.tar.gz"}) == {
        "train": f"{folder}/train.csv", "all": f"{folder}/all.tar.gz"}
    assert dl.download_and_extract("https://x.org/all.tar.gz") == str(folder)
    assert dl.manual_dir == str(folder)
    assert [(path, f.read()) for path, f in dl.iter_archive(str(folder / "words"))] == [
        ("z.txt", f"content of {dummy.DUMMY_FOLDER}/words/z.txt".encode()),
        ("a/b.txt", f"content of {dummy.DUMMY_FOLDER}/words/a/b.txt".encode())]
    assert not (tmp_path / "unzipped").exists()  # nothing copied
    # a 2.21 reference, whose MockDownloadManager reads a zip only, zips it in that order
    reference_runner.zip_folder(folder, tmp_path / "zipped" / "dummy_data.zip")
    with zipfile.ZipFile(tmp_path / "zipped" / "dummy_data.zip") as archive:
        assert archive.namelist() == dummy.folder_members(folder)


def test_iter_files_walks_in_sorted_order(tmp_path):
    dl = manager(tmp_path)
    data = tmp_path / "unzipped" / "dummy_data"
    assert list(dl.iter_files([str(data / "words"), str(data / "train.csv")])) == [
        f"{data}/words/z.txt", f"{data}/words/a/b.txt", f"{data}/train.csv"]


def test_a_config_without_dummy_data_is_one_line(tmp_path):
    missing = tmp_path / "dummy" / "fr" / "1.0.0" / "dummy_data.zip"
    with pytest.raises(CorporaError) as raised:
        dummy.DummyDownloadManager(missing, tmp_path / "unzipped")
    assert str(raised.value) == (f"{missing}: no such file: the script has no dummy data for this config (--dummy "
                                 "reads dummy/<config>/<version>/dummy_data.zip, or dummy/<version>/ for a script "
                                 "without BUILDER_CONFIGS, or the dummy_data/ folder beside it)")
