"""Dataset cards: dataset_cards/NAME.yaml and the builder's info in one template, for a loader and an export."""

from __future__ import annotations

import copy
import difflib
import functools
from importlib import resources
from pathlib import Path

import datasets
import jinja2
from datasets.info import DatasetInfosDict
from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCard
from huggingface_hub import DatasetCardData

from corpora import exports
from corpora import prepare
from corpora import registry
from corpora import releases
from corpora import sources
from corpora.cards import field_patterns
from corpora.cards import figures
from corpora.cards import overlap
from corpora.cards.header import compact_header
from corpora.cards.header import read_metadata
from corpora.cards.sections import example_text
from corpora.cards.sections import field_rows
from corpora.cards.sections import has_class_labels
from corpora.cards.sections import size_category
from corpora.cards.sections import source_files
from corpora.cards.sections import with_label_names
from corpora.cards.sections import wrap
from corpora.cards.source import CardError
from corpora.cards.source import card_source
from corpora.cards.source import export_source
from corpora.cards.source import for_configs
from corpora.errors import shorten
from corpora.path_errors import write_text

TEMPLATES = resources.files("corpora") / "templates"
TEMPLATE = TEMPLATES / "dataset_card.md.j2"

PLACEHOLDER = "[More Information Needed]"


def field_tables(corpus: registry.Corpus, configs=None, descriptions=None) -> dict[str, list[tuple]]:
    """(name, type, earlier config with the same field and description, or None, description) per
    config: the card's field tables; a description may say something of some configs only. A field
    described by a pattern is a row of pattern_tables instead."""
    tables, seen = {}, {}
    descriptions = card_source(corpus)["fields"] if descriptions is None else descriptions
    for config in configs or corpus.configs:
        tables[config] = []
        for name, type_ in field_rows(corpus.features(config), collapse=True):
            keys = field_patterns.keys_of(descriptions, name)
            if keys and field_patterns.is_pattern(keys[0]):
                continue
            shown = (name, type_, for_configs(descriptions.get(name), [config]))
            tables[config].append((name, type_, seen.get(shown), shown[2]))
            seen.setdefault(shown, config)
    return tables


def pattern_tables(corpus: registry.Corpus, configs, descriptions) -> dict[str, list[tuple]]:
    """The fields each pattern of `descriptions` describes, per config: (the patterns as the card shows
    them, their fields' types, earlier config with the same row or None, description)."""
    tables, seen = {}, {}
    for config in configs:
        rows = dict(field_rows(corpus.features(config)))
        described = field_patterns.resolve(descriptions, rows)
        tables[config] = []
        for key in dict.fromkeys(key for key in described.values() if field_patterns.is_pattern(key)):
            # the types of the fields each pattern matches, in the order of the patterns
            matched = [name for name in rows if described.get(name) == key]
            spelled = dict.fromkeys(rows[name] for pattern in field_patterns.patterns(key)
                                    for name in matched if field_patterns.matches(pattern, name))
            shown = (", ".join(f"`{p}`" for p in field_patterns.patterns(key)), " or ".join(spelled),
                     for_configs(descriptions[key], [config]))
            tables[config].append((shown[0], shown[1], seen.get(shown), shown[2]))
            seen.setdefault(shown, config)
    return {config: rows for config, rows in tables.items() if rows}


def render(
    corpus: registry.Corpus,
    examples: dict[str, dict] | None = None,
    infos: dict[str, datasets.DatasetInfo] | None = None,
    repo_id: str | None = None,
    report: dict | None = None,
    built_from: str | None = None,
    byte_sizes: dict | None = None,
    notice: str | None = None,
    export_path: str | None = None,
    source: dict | None = None,
) -> str:
    """The loader's card (no `infos`: official sizes, the dummy `examples`), or an export's (its
    build's `infos` and `report`, `repo_id`, `notice` when not the release): its own configs only.
    `source`: the card source as export_source settled it for these configs (read here if not given)."""
    exported = list(infos or corpus.configs)  # an export may hold only some configs
    source = export_source(corpus, exported) if source is None else source
    if report:
        examples = {config: r.example for config, r in report.items()}
    if examples is None:
        raise CardError(f"{corpus.name}: a card needs the first example of each config")
    if infos is None:
        infos = committed_infos(corpus, byte_sizes)
    origin = sources.origin(corpus, sources.urls(corpus, exported))
    return render_settled(corpus, source, infos, examples, origin, repo_id, report, built_from, notice, export_path)


def render_settled(corpus: registry.Corpus, source: dict, infos: dict[str, datasets.DatasetInfo], examples: dict,
                   origin: sources.Origin, repo_id=None, report=None, built_from=None, notice=None,
                   export_path=None) -> str:
    """A card from what is settled already: the card source of its configs (export_source), each config's
    info and first example, where its sources come from (`origin`); an export's (`report`) or the loader's."""
    exported = list(infos)
    # What the card shows, gathered once, a layer at a time: the field tables, the sources, the
    # card's sections, the releases.
    fields = field_tables(corpus, exported, source["fields"])
    patterned = pattern_tables(corpus, exported, source["fields"])
    pinned, records, provenance = origin.urls, origin.records, origin.provenance
    unmeasured = sum(1 for url in pinned.values() if records.get(url) is None)
    size = size_category(corpus, infos if report else None)
    shown = {config: example_text(with_label_names(example, corpus.features(config)))
             for config, example in examples.items()}
    files = source_files(pinned, records)
    notes = releases.notes(corpus, exported)
    citation = version_citation(corpus, source["pretty_name"], exported, repo_id, notice)
    card_data = DatasetCardData(
        pretty_name=source["pretty_name"],
        license=source["license"],
        language=source["language"],
        language_creators=source["language_creators"],
        annotations_creators=source["annotations_creators"],
        multilinguality=source["multilinguality"],
        size_categories=[size],
        source_datasets=source["source_datasets"],
        task_categories=source["task_categories"],
        task_ids=source["task_ids"],
        tags=source["tags"],
    )
    if report:  # an export: what built it, machine-readable (the loader's card says it in its text)
        card_data.corpora = {
            "corpus": corpus.name,
            "loader_version": provenance["loader_version"],
            "corpora_version": provenance["corpora_version"],
            "upstream": [{"repository": r, "commit": c} for r, c in provenance["upstream"].items()],
        }
    DatasetInfosDict(infos).to_dataset_card_data(card_data)
    MetadataConfigs(
        {
            config: {
                "data_files": [{"split": split, "path": f"{config}/{split}-*"} for split in corpus.split_sizes[config]],
                **({"default": True} if config == corpus.default_config else {}),
            }
            for config in exported
        }
    ).to_dataset_card_data(card_data)
    first_config = corpus.default_config if corpus.default_config in exported else exported[0]
    values = dict(
        corpus=corpus,
        source=source,
        facts=source["loader_facts"],
        fields=fields,
        patterned=patterned,
        configs=exported,
        licenses=source["licenses"],
        scope=source["scope"],
        first_config=first_config,
        first_split=next(iter(corpus.split_sizes[first_config])),
        hub_repo=repo_id or f"your-org/{corpus.name}",
        notice=notice,
        figures=source["declared_figures"],
        figure_text=figures.text,
        overlap_key=overlap.KEY,
        overlap_text=overlap.text,
        held=overlap.held,
        examples=shown,
        report=report,
        built_from=built_from,
        provenance=provenance,
        homepage=corpus.homepage,
        citation=corpus.citation,
        source_files=files,
        unmeasured=unmeasured,
        wrap=wrap,
        export_path=repo_id or export_path or f"build/{corpus.name}",
        release_notes=notes,
        class_labels=any(has_class_labels(corpus.features(config)) for config in exported),
        version_citation=citation,
    )
    # DatasetCard.from_template's steps, the template compiled once: a compile took as long as the rest of a render.
    card = DatasetCard(card_template().render(card_data=card_data.to_yaml(), **{**card_data.to_dict(), **values}))
    text = str(card).rstrip("\n") + "\n"
    # An export's features header written compactly; the loader's card keeps datasets' own YAML, which
    # `datasets-cli test --save_info` writes again (needed: tests/test_save_info.py on datasets 3.6)
    text = compact_header(text) if report else text
    if PLACEHOLDER in text:
        raise CardError(f"{corpus.name}: the card still says {PLACEHOLDER!r}")
    return text


@functools.cache
def templates() -> jinja2.Environment:
    """The card templates, which import each other's macros (statistics.md.j2): jinja2.Template's defaults."""
    return jinja2.Environment(loader=jinja2.FunctionLoader(
        lambda name: ((TEMPLATES / name).read_text(encoding="utf-8"), None, lambda: True)))


@functools.cache
def card_template() -> jinja2.Template:
    return templates().get_template(TEMPLATE.name)


def version_citation(corpus: registry.Corpus, title: str, exported, repo_id, notice) -> str:
    """The card's "cite this version": with the Hub repository of a push, and the tag a push of the
    release (every config, release files) gets. The Hub's own address, not HF_ENDPOINT's (a mirror)."""
    url = f"https://huggingface.co/datasets/{repo_id}" if repo_id else None
    tagged = url and notice is None and set(exported) == set(corpus.configs)
    return releases.bibtex(corpus, title, url, releases.tag(corpus) if tagged else None)


def committed_infos(corpus: registry.Corpus, byte_sizes: dict | None = None) -> dict[str, datasets.DatasetInfo]:
    """The loader card's `dataset_info`: features, official sizes (datasets 3.x checks a script's
    build against them; none while one is unknown) and byte sizes last measured on the release."""
    byte_sizes = card_byte_sizes(corpus) if byte_sizes is None else byte_sizes
    infos = {}
    for config in corpus.configs:
        info = datasets.DatasetInfo(features=corpus.features(config), config_name=config)
        measured = byte_sizes.get(config, {})
        official = corpus.split_sizes[config]
        if None in official.values():
            official = measured.get("rows") or {}
        if official:
            info.splits = datasets.SplitDict()
            for split, rows in official.items():
                # 0 until measured: datasets' own default, and datasets 5.x ignores a split without it
                num_bytes = measured.get("splits", {}).get(split, 0)
                info.splits.add(datasets.SplitInfo(name=split, num_bytes=num_bytes, num_examples=rows))
            info.download_size = measured.get("download_size")
            info.dataset_size = measured.get("dataset_size")
        infos[config] = info
    return infos


def card_byte_sizes(corpus: registry.Corpus, card: Path | None = None) -> dict:
    """The byte sizes of a card (default: the committed one) per config whose split sizes are the official ones."""
    card = card or corpus.card_path
    if not card.is_file():
        return {}
    dataset_info = read_metadata(card).get("dataset_info") or []
    found = {}
    for entry in [dataset_info] if isinstance(dataset_info, dict) else dataset_info:
        config = entry.get("config_name", "default")
        splits = entry.get("splits") or []
        if config not in corpus.split_sizes or not splits:
            continue
        rows = {s.get("name"): s.get("num_examples") for s in splits}
        official = corpus.split_sizes[config]
        unknown = None in official.values()  # then the recorded rows are the measurement, kept as such
        if rows != official and not (unknown and list(rows) == list(official)):
            continue
        measured = {s["name"]: s["num_bytes"] for s in splits if s.get("num_bytes")}  # 0: not measured
        if measured:
            found[config] = {
                "splits": measured,
                **({"rows": rows} if unknown else {}),
                **{key: entry[key] for key in ("download_size", "dataset_size") if entry.get(key) is not None},
            }
    return found


def built_from(corpus: registry.Corpus, source, infos: dict[str, datasets.DatasetInfo]) -> str:
    """What a build read, in words for its card (never a local path), and its sizes that differ from the official."""
    if source.kind == "dummy":
        return f"the dummy data of `dummy_data/{corpus.name}/` (not the real corpus)"
    release = "the pinned release files" if source.release else "files that may differ from the release"
    where = "a local copy" if source.local else "the pinned URLs"
    checked = "size and sha256 checked" if source.release else "built with --allow-modified-sources"
    described = f"{release}, read from {where} ({checked}; see Source files)"
    differing = prepare.differing_sizes(corpus.split_sizes, infos)
    if differing:
        described += "; split sizes that differ from the official ones: " + ", ".join(differing)
    return described


def not_the_release(corpus: registry.Corpus, source) -> str | None:
    """What opens the card and croissant.json of a build that is not of the release, else None."""
    if source.kind == "dummy":
        return (f"This export was built from the dummy data of `dummy_data/{corpus.name}/` (a few records in the "
                "real format, partly invented), not from the corpus.")
    if not source.differing:
        return None
    return (f"This export was built from {len(source.differing)} source file(s) that differ from the recorded "
            f"release: {shorten(list(source.differing), 3, '; ')}. Its rows, sizes and statistics are those of these "
            "files.")


def write_sizes_from_export(corpus: registry.Corpus, export: Path, examples: dict[str, dict]) -> list[str]:
    """Write an export's byte sizes into the committed card, for its configs built from the release; returns them."""
    measured = card_byte_sizes(corpus, Path(export) / "README.md")
    mark = exports.read_mark(Path(export))
    if mark is None or mark.sources != "release":
        measured = {config: sizes for config, sizes in measured.items() if "rows" not in sizes}
    if measured:
        sizes = {**card_byte_sizes(corpus), **measured}
        write_text(corpus.card_path, render(corpus, examples, byte_sizes=sizes))
    return list(measured)


def write(corpus: registry.Corpus, examples: dict[str, dict]) -> bool:
    """Write the committed card; False if it was already up to date (nothing written)."""
    _check_release_notes(corpus)
    text = render(corpus, examples)
    if corpus.card_path.is_file() and corpus.card_path.read_text(encoding="utf-8") == text:
        return False
    write_text(corpus.card_path, text)
    return True


def write_export_card(corpus: registry.Corpus, source: dict, infos, path: Path, report: dict,
                      origin: sources.Origin, repo_id=None, built_from=None, notice=None, export_path=None) -> None:
    """An export's README.md, from its card source (export_source), build and sources (`origin`);
    `download_size` is the Parquet bytes, `dataset_size` the Arrow bytes, as on the Hub."""
    sized = {}
    for config, info in infos.items():
        sized[config] = copy.deepcopy(info)
        sized[config].download_size = sum(p.stat().st_size for p in (path.parent / config).glob("*.parquet"))
    examples = {config: r.example for config, r in report.items()}
    text = render_settled(corpus, source, sized, examples, origin, repo_id, report, built_from, notice, export_path)
    path.write_text(text, encoding="utf-8")


def check(corpus: registry.Corpus, examples: dict[str, dict]) -> str | None:
    """None if the committed card is what the sources render, else a unified diff."""
    _check_release_notes(corpus)
    expected = render(corpus, examples)
    actual = corpus.card_path.read_text(encoding="utf-8") if corpus.card_path.is_file() else ""
    if actual == expected:
        return None
    name = str(corpus.card_path.relative_to(corpus.root))
    diff = difflib.unified_diff(actual.splitlines(True), expected.splitlines(True), name, name + " (rendered)")
    return "".join(diff) or f"{name} differs"


def _check_release_notes(corpus: registry.Corpus) -> None:
    """The committed card shows the current version's note: a loader without one is refused."""
    wrong = releases.problem(corpus)
    if wrong:
        raise CardError(wrong)


