"""A loader's release history: `RELEASE_NOTES` beside the builder's `VERSION` (version -> one line on
what changed for users, as TFDS builders state theirs), and the citation of one version. A note may
be a list of parts, each a line or {"only": [configs], "text": line}: the card of an export of some
configs shows the parts about them (as dataset_cards/NAME.yaml's per-config parts)."""

from __future__ import annotations

import re

import datasets

from corpora import registry
from corpora.errors import CorporaError


def declared(corpus: registry.Corpus):
    """The builder's RELEASE_NOTES as written (None: it has none)."""
    return getattr(corpus.builder_class, "RELEASE_NOTES", None)


def tag(corpus: registry.Corpus) -> str:
    """The tag of a release: the loader's version, as `v1.0.0`."""
    return f"v{corpus.version}"


def problem(corpus: registry.Corpus) -> str | None:
    """What is wrong with the loader's release notes, naming the file to edit, or None."""
    notes, where = declared(corpus), f"loaders/{corpus.name}/{corpus.name}.py"
    if not isinstance(notes, dict):
        return (f"{where}: the builder has no RELEASE_NOTES (version -> one line on what changed for users, beside "
                f"VERSION); add RELEASE_NOTES = {{\"{corpus.version}\": \"Initial release.\"}}")
    for version, note in notes.items():
        wrong = _wrong_note(version, note, corpus.configs)
        if wrong:
            return f"{where}: RELEASE_NOTES{wrong}"
    if corpus.version not in notes:
        return (f"{where}: RELEASE_NOTES has no note for version {corpus.version} (the builder's VERSION): add one "
                "line on what changed for users")
    return None


def require_note(corpus: registry.Corpus, what: str) -> None:
    """Refuse `what` (a push) of a version whose release note is missing, naming the file to edit."""
    wrong = problem(corpus)
    if wrong:
        raise CorporaError(f"{corpus.name}: not {what}: {wrong}")


def notes(corpus: registry.Corpus, configs=None) -> dict[str, str]:
    """The valid release notes, newest version first (the card's order); with `configs`, the parts
    about them only (a version with none left out)."""
    found = declared(corpus)
    if not isinstance(found, dict):
        return {}
    held = set(corpus.configs if configs is None else configs)
    valid = {v: _settled(n, held) for v, n in found.items() if _wrong_note(v, n, corpus.configs) is None}
    valid = {version: note for version, note in valid.items() if note}
    return dict(sorted(valid.items(), key=lambda item: datasets.Version(item[0]), reverse=True))


def _settled(note, held: set) -> str:
    """A note's parts about the `held` configs, as one line."""
    parts = note if isinstance(note, list) else [note]
    kept = [part["text"] if isinstance(part, dict) else part for part in parts
            if not isinstance(part, dict) or set(part["only"]) & held]
    return " ".join(" ".join(kept).split())


def between(history: dict[str, str], old: str, new: str) -> dict[str, str]:
    """The notes of the versions after the older of `old` and `new` up to the newer, oldest first;
    a version without a note maps to None."""
    low, high = sorted((datasets.Version(old), datasets.Version(new)))
    versions = {datasets.Version(v) for v in history} | {high}
    return {str(v): history.get(str(v)) for v in sorted(versions) if low < v <= high}


def _wrong_note(version, note, configs) -> str | None:
    """The one rule of a release note (`problem` says it, `notes` keeps the notes that keep it): a version
    MAJOR.MINOR.PATCH, one line of text (or a list of parts, each a line or {"only": [some of the
    `configs`], "text": a line}); what is wrong, said after "RELEASE_NOTES", else None."""
    if not _is_version(version):
        return f": {version!r} is not a version (MAJOR.MINOR.PATCH, as VERSION)"
    parts = note if isinstance(note, list) and note else [note]
    for part in parts:
        only = part.get("only") if isinstance(part, dict) else None
        if isinstance(part, dict) and (sorted(part) != ["only", "text"] or not isinstance(only, list)
                                       or not only or not set(only) <= set(configs)):
            return f"[{version!r}]: a part about some configs is {{'only': [configs of {configs}], 'text': ...}}"
        text = part["text"] if isinstance(part, dict) else part
        if not isinstance(text, str) or not text.strip() or "\n" in text.strip():
            return f"[{version!r}] must be one line of text, not {note!r}"
    return None


def _is_version(text) -> bool:
    if not isinstance(text, str):
        return False
    try:
        datasets.Version(text)
    except ValueError:
        return False
    return True


def bibtex(corpus: registry.Corpus, title: str, url: str | None = None, release_tag: str | None = None) -> str:
    """A BibTeX entry for this version of the dataset: the loader's version, and once published (`url`,
    the Hub repository) where, with the tag that names the release if it has one."""
    version = corpus.version
    where = f"Hugging Face dataset {url.rsplit('/datasets/', 1)[-1]}" if url else None
    said = [where + (f", tag {release_tag}" if release_tag else "")] if where else []
    said.append(f"{'built' if said else 'Built'} by the corpora loader {corpus.name} version {version}")
    fields = {"title": f"{title} (version {version})", "version": version}
    if url:
        fields |= {"publisher": "Hugging Face", "url": f"{url}/tree/{release_tag}" if release_tag else url}
    fields["note"] = "; ".join(said)
    lines = [f"@misc{{{corpus.name}_v{version.replace('.', '_')},"]
    lines += [f"    {name} = {{{value if name == 'url' else _escape(value)}}}," for name, value in fields.items()]
    return "\n".join(lines + ["}"])


_SPECIAL = re.compile(r"[\\&%$#_{}~^]")
_ESCAPED = {"\\": r"\textbackslash{}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def _escape(text: str) -> str:
    """Text as BibTeX reads it: LaTeX's special characters escaped."""
    return _SPECIAL.sub(lambda match: _ESCAPED.get(match[0], "\\" + match[0]), text)
