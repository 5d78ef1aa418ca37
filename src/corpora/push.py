"""`corpora push`: build a corpus from its real sources and upload the export to the Hub."""

from __future__ import annotations

from pathlib import Path

from huggingface_hub import HfApi
from huggingface_hub import get_token

from corpora import build
from corpora import pipeline
from corpora import registry
from corpora import swap
from corpora import validate
from corpora.errors import CorporaError


def push(
    name: str,
    repo_id: str,
    private: bool = False,
    dry_run: bool = False,
    data_dir=None,
    out="build",
    allow_modified_sources: bool = False,
    configs: list[str] | None = None,
) -> list[str]:
    """Build NAME (checked against the recorded release and the official sizes), then create the dataset repo and upload
    the export folder. The token comes from HF_TOKEN or `hf auth login`, as huggingface_hub finds
    it; it is never printed, and without one nothing is built. Returns the uploaded paths."""
    registry.get(name)  # an unknown corpus is said before anything else
    # Known offline (the environment, the stored login): no build of hours before a certain failure.
    if not dry_run and not get_token():
        raise CorporaError(
            "no Hugging Face token: log in once with `hf auth login` (or `huggingface-cli login`), "
            "or set HF_TOKEN; --dry-run needs none"
        )
    build.export(pipeline.Request(name, configs, data_dir, allow_modified_sources=allow_modified_sources), out,
                  repo_id=repo_id)
    folder = Path(out) / name
    problems = validate.export_problems(registry.get(name), folder)
    if problems:  # the Hub would show a wrong or broken page
        raise CorporaError(f"{name}: not uploading {folder}: its card does not validate: {'; '.join(problems)}")
    # The export's mark is this tool's, not the dataset's.
    paths = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file() and p.name != swap.MARK)
    action = "would upload" if dry_run else "uploading"
    sizes = {path: (folder / path).stat().st_size for path in paths}
    print(f"{action} {len(paths)} files, {sum(sizes.values()):,} bytes, from {folder} to "
          f"https://huggingface.co/datasets/{repo_id} ({'private' if private else 'public'}):")
    for path, size in sizes.items():
        print(f"  {path} ({size:,} bytes)")
    if dry_run:
        return paths
    api = HfApi()
    try:
        api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
        commit = api.upload_folder(
            repo_id=repo_id,
            repo_type="dataset",
            folder_path=str(folder),
            commit_message=f"Upload {name} built by corpora",
            ignore_patterns=[swap.MARK],
            delete_patterns=["*.parquet", "**/*.parquet"],  # no stale shards from an earlier upload
        )
    except Exception as error:  # noqa: BLE001 - an HTTP, connection or auth failure: one line with its reason
        raise CorporaError(
            f"{name}: uploading to dataset repository {repo_id} failed: {describe_failure(error)}; "
            f"the export is complete in {folder}: run the push again when fixed"
        ) from error
    print(f"pushed: {commit.commit_url}")
    return paths


def _chain(error: BaseException):
    seen = []
    while error is not None and error not in seen:
        seen.append(error)
        error = error.__cause__ or error.__context__
    return seen


def describe_failure(error: BaseException) -> str:
    """Why an upload failed, in words: the HTTP status, offline mode, no connection."""
    for cause in _chain(error):
        name = type(cause).__name__
        status = getattr(cause, "status", None) or getattr(getattr(cause, "response", None), "status_code", None)
        if isinstance(status, int):
            response = getattr(cause, "response", None)
            phrase = getattr(cause, "message", None) or getattr(response, "reason", None)
            phrase = phrase or getattr(response, "reason_phrase", None) or ""
            said = " ".join(str(getattr(cause, "server_message", None) or "").split())  # the Hub says why
            return f"the server answered HTTP {status} {phrase}".rstrip() + (f" ({said})" if said else "")
        if name == "OfflineModeIsEnabled":
            return "offline mode is on (HF_HUB_OFFLINE=1 or HF_DATASETS_OFFLINE=1)"
        if name in ("ClientConnectorError", "ConnectionError", "ConnectError", "gaierror", "ConnectionRefusedError"):
            detail = " ".join(str(cause).split())
            return f"no connection ({detail}): no network, or the host cannot be reached"
        if isinstance(cause, TimeoutError) or "Timeout" in name:
            return "the connection timed out"
    return " ".join(str(error).split())
