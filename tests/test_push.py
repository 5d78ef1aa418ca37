"""`corpora push` against a fake Hub on 127.0.0.1 (only the Hub's HTTP edge is faked), of the example
corpus (tests/example_collection): its release files as the upstream copy."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import EXAMPLE
from conftest import EXAMPLE_COLLECTION
from fake_hub import FakeHub

pytestmark = [pytest.mark.usefixtures("example_collection"), pytest.mark.other_dependencies]  # the subprocesses inherit its CORPORA_ROOT

NAME = EXAMPLE
TOKEN = "hf_fakeTokenThatMustNeverBePrinted"


@pytest.fixture
def hub():
    server = FakeHub()
    yield server
    server.close()


@pytest.fixture
def upstream_copy(example_release):
    """The example's release, the files its checksums.tsv records: no --allow-modified-sources."""
    return example_release


# What the export of the example holds: its card and Croissant file, and one Parquet file per split
# of each config (raters: train; ratings and sentences: train, validation, test).
EXPORTED = [
    "README.md",
    "croissant.json",
    "raters/train-00000-of-00001.parquet",
    *(f"ratings/{split}-00000-of-00001.parquet" for split in ("test", "train", "validation")),
    *(f"sentences/{split}-00000-of-00001.parquet" for split in ("test", "train", "validation")),
]


def corpora(*args, hub, home):
    env = dict(os.environ, HF_ENDPOINT=hub.endpoint, HF_TOKEN=TOKEN, HF_HUB_OFFLINE="0", HF_HOME=str(home))
    command = [str(Path(sys.executable).with_name("corpora")), *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, check=False)


def test_push_creates_the_repo_and_uploads_the_export(hub, upstream_copy, tmp_path):
    out = tmp_path / "out"
    result = corpora("push", NAME, "--repo-id", "my-org/ratings", "--private", "--data-dir", str(upstream_copy),
                     "--out", str(out), hub=hub, home=tmp_path / "home")
    assert result.returncode == 0, result.stderr
    assert TOKEN not in result.stdout + result.stderr
    assert len(hub.created) == 1
    created = hub.created[0]
    assert (created["organization"], created["name"], created["type"]) == ("my-org", "ratings", "dataset")
    # huggingface_hub 1.x and later send a visibility, earlier versions a flag
    assert created.get("visibility") == "private" or created.get("private") is True
    assert len(hub.commits) == 1
    commit = hub.commits[0]
    assert commit["summary"] == "Upload example_ratings built by corpora"
    export = out / NAME
    local = {p.relative_to(export).as_posix(): p.read_bytes() for p in export.rglob("*") if p.is_file()}
    assert local.pop(".corpora-export.json").startswith(b'{\n  "tool": "corpora"')  # the tool's mark stays here
    assert commit["files"] == local
    assert b'ds = load_dataset("my-org/ratings", "sentences")' in local["README.md"]
    assert sorted(local) == EXPORTED
    # every call carried the token, from HF_TOKEN
    assert {auth for method, path, auth in hub.requests if path.startswith("/api/datasets") or path.startswith("/api/repos")} == {f"Bearer {TOKEN}"}


def test_dry_run_sends_nothing(hub, upstream_copy, tmp_path):
    result = corpora("push", NAME, "--repo-id", "my-org/ratings", "--dry-run", "--data-dir", str(upstream_copy),
                     "--out", str(tmp_path / "out"), hub=hub, home=tmp_path / "home")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    sizes = {path: (tmp_path / "out" / NAME / path).stat().st_size for path in EXPORTED}
    assert lines[-10] == (
        f"would upload 9 files, {sum(sizes.values()):,} bytes, from {tmp_path / 'out' / NAME} to "
        "https://huggingface.co/datasets/my-org/ratings (public):"
    )
    assert lines[-9:] == [f"  {path} ({size:,} bytes)" for path, size in sizes.items()]
    assert "Generating" not in result.stderr and "%|" not in result.stderr  # no progress bars in a pipe
    assert [r for r in hub.requests if r[1].startswith("/api/")] == []


def test_push_refuses_data_that_is_not_the_release(hub, tmp_path):
    dummy = EXAMPLE_COLLECTION / "dummy_data" / NAME
    result = corpora("push", NAME, "--repo-id", "my-org/ratings", "--data-dir", str(dummy),
                     "--out", str(tmp_path / "out"), hub=hub, home=tmp_path / "home")
    assert result.returncode == 1
    assert result.stderr.splitlines()[-1].startswith(
        "corpora push: error: example_ratings: 6 source file(s) differ from the recorded release: "
    )
    assert hub.created == [] and hub.commits == []


def test_push_refuses_an_export_whose_card_does_not_validate(tmp_path, monkeypatch, upstream_copy):
    from corpora import build
    from corpora import push
    from corpora.errors import CorporaError

    real_build = build.export

    def build_then_break_the_card(request, out, **kwargs):  # as a hand edit or a template bug would
        rows = real_build(request, out, **kwargs)
        card = Path(out) / request.name / "README.md"
        text = card.read_text().replace("num_examples: 12", "num_examples: 13", 1)  # sentences/train
        card.write_text(text.replace("license: cc-by-4.0", "license: not-a-license", 1))
        return rows

    monkeypatch.setattr(build, "export", build_then_break_the_card)
    monkeypatch.setattr(push, "HfApi", None)  # nothing may reach the Hub
    monkeypatch.setenv("HF_TOKEN", TOKEN)  # a token is checked before anything is built
    with pytest.raises(CorporaError) as caught:
        push.push(NAME, "my-org/ratings", data_dir=upstream_copy, out=tmp_path / "out")
    assert str(caught.value) == (
        f"{NAME}: not uploading {tmp_path / 'out' / NAME}: its card does not validate: "
        "license 'not-a-license' is not in the Hub's licenses vocabulary; "
        "license 'not-a-license', the loader says 'cc-by-4.0'; "
        "sentences/train: dataset_info says 13 rows, the files hold 12"
    )


def test_a_dummy_export_card_validates(dummy_export):
    from corpora import registry
    from corpora import validate

    assert validate.export_problems(registry.get(NAME), dummy_export(NAME)) == []
