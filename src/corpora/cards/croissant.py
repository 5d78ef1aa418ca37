"""An export's croissant.json (Croissant 1.1 with RAI), from the card's sources and the Parquet files:
a record set per config, class labels as their index (mlcroissant reads two levels: test_croissant.py)."""

from __future__ import annotations

import re
from pathlib import Path

import datasets

from corpora import registry
from corpora import sources
from corpora.cards import field_patterns
from corpora.cards.sections import json_text
from corpora.feature_spelling import list_item

CONTEXT = {
    "@language": "en",
    "@vocab": "https://schema.org/",
    "citeAs": "cr:citeAs",
    "column": "cr:column",
    "conformsTo": "dct:conformsTo",
    "cr": "http://mlcommons.org/croissant/",
    "rai": "http://mlcommons.org/croissant/RAI/",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "dct": "http://purl.org/dc/terms/",
    "examples": {"@id": "cr:examples", "@type": "@json"},
    "extract": "cr:extract",
    "field": "cr:field",
    "fileProperty": "cr:fileProperty",
    "fileObject": "cr:fileObject",
    "fileSet": "cr:fileSet",
    "format": "cr:format",
    "includes": "cr:includes",
    "isArray": "cr:isArray",
    "arrayShape": "cr:arrayShape",
    "isLiveDataset": "cr:isLiveDataset",
    "jsonPath": "cr:jsonPath",
    "key": "cr:key",
    "md5": "cr:md5",
    "parentField": "cr:parentField",
    "path": "cr:path",
    "recordSet": "cr:recordSet",
    "references": "cr:references",
    "regex": "cr:regex",
    "repeated": "cr:repeated",
    "replace": "cr:replace",
    "sc": "https://schema.org/",
    "samplingRate": "cr:samplingRate",
    "equivalentProperty": "cr:equivalentProperty",
    "separator": "cr:separator",
    "source": "cr:source",
    "subField": "cr:subField",
    "transform": "cr:transform",
}
CONFORMS_TO = "http://mlcommons.org/croissant/1.1"
PARQUET = "application/x-parquet"
# A value this long or shorter is one line of croissant.json (its indentation not counted): a field
# without sub-fields is one line. Nested values are indented by one space (a record set of 357 fields
# is 8 KB smaller than with two).
JSON_WIDTH = 450
JSON_INDENT = 1

# The Responsible AI properties and the card text each is written from.
RAI_FROM_CARD = {
    "rai:dataCollection": "source_data",
    "rai:dataAnnotationProtocol": "annotations",
    "rai:dataBiases": "biases",
    "rai:dataLimitations": "limitations",
    "rai:personalSensitiveInformation": "personal_information",
    "rai:dataSocialImpact": "social_impact",
    "rai:dataUseCases": "supported_tasks",
}

LICENSE_URLS = {
    "cc-by-4.0": "https://creativecommons.org/licenses/by/4.0/",
    "cc-by-nc-4.0": "https://creativecommons.org/licenses/by-nc/4.0/",
    "mit": "https://opensource.org/license/mit",
}


def license_urls(value):
    """The license (or licenses, a list) of the card header as the URLs Croissant expects."""
    if isinstance(value, list):
        return [LICENSE_URLS.get(name, name) for name in value]
    return LICENSE_URLS.get(value, value)


def data_type(feature) -> str:
    """The Croissant data type of a feature that is not a struct or a list."""
    if isinstance(feature, datasets.ClassLabel):
        return "sc:Integer"
    if isinstance(feature, datasets.Image):
        return "sc:ImageObject"
    dtype = feature.dtype
    if dtype == "bool":
        return "sc:Boolean"
    if dtype.startswith(("int", "uint")):
        return "sc:Integer"
    if dtype.startswith("float"):
        return "sc:Float"
    if dtype.startswith("timestamp"):
        return "sc:DateTime"
    if dtype.startswith("date"):
        return "sc:Date"
    return "sc:Text"


def fields(features, descriptions: dict, file_set: str, record_set: str, prefix: str = "", column=None) -> list:
    """Croissant fields for a features dict; nested structs become sub-fields, lists arrays."""
    result = []
    for name, feature in features.items():
        dotted = prefix + name
        depth = 0
        while list_item(feature) is not None:
            feature, depth = list_item(feature), depth + 1
        field = {"@type": "cr:Field", "@id": f"{record_set}/{dotted}", "name": dotted}
        description = descriptions.get(dotted, "")  # none: its record set describes it by a pattern
        if isinstance(feature, datasets.ClassLabel):
            names = ", ".join(f"{index} = {name}" for index, name in enumerate(feature.names))
            description += f" Class label stored as its index: {names}."
        if description.strip():
            field["description"] = description.strip()
        if isinstance(feature, dict):
            field["dataType"] = "cr:RecordSet"
            field["subField"] = fields(feature, descriptions, file_set, record_set, dotted + ".", column or name)
        else:
            field["dataType"] = data_type(feature)
        source = {"fileSet": {"@id": file_set}, "extract": {"column": column or name}}
        if column:  # a sub-field: its key in the parent's value (mlcroissant maps it over lists)
            source["transform"] = {"jsonPath": name}
        elif isinstance(feature, datasets.Image):  # Parquet holds {bytes, path}: the image is the bytes
            source["transform"] = {"jsonPath": "bytes"}
        field["source"] = source
        if depth:
            field["isArray"] = True
            field["arrayShape"] = ",".join(["-1"] * depth)
        result.append(field)
    return result


# The meaning of a split name, as the Hub's own croissant.json says it (its own names stay).
SPLIT_KINDS = (("train", "cr:TrainingSplit"), ("validation", "cr:ValidationSplit"), ("val", "cr:ValidationSplit"),
               ("test", "cr:TestSplit"))


def split_kind(split: str) -> str:
    """The Croissant split of a name by its start (test_zero is a test split), else the name."""
    return next((kind for prefix, kind in SPLIT_KINDS if split.startswith(prefix)), split)


def split_names(folder: Path, config: str) -> list[str]:
    """The splits of a config in an export, from its file names (<split>-0000i-of-0000n.parquet)."""
    names = (re.fullmatch(r"(.+)-\d{5}-of-\d{5}\.parquet", p.name) for p in sorted((folder / config).glob("*.parquet")))
    return list(dict.fromkeys(match.group(1) for match in names if match))


def split_record_set(splits: list[str]) -> dict:
    """The record set of every split name, with its meaning (dataType cr:Split)."""
    return {
        "@type": "cr:RecordSet",
        "dataType": "cr:Split",
        "@id": "splits",
        "name": "splits",
        "description": "The splits of the export: their names and what each is for.",
        "key": {"@id": "splits/name"},
        "field": [
            {"@type": "cr:Field", "@id": "splits/name", "name": "name", "dataType": "sc:Text"},
            {"@type": "cr:Field", "@id": "splits/url", "name": "url", "dataType": "sc:URL"},
        ],
        "data": [{"splits/name": split, "splits/url": split_kind(split)} for split in splits],
    }


def split_field(config: str, file_set: str, splits: list[str]) -> dict:
    """A record set's `split` field: the split name, read from the path of its Parquet file."""
    names = "|".join(re.escape(split) for split in sorted(splits, key=len, reverse=True))
    return {
        "@type": "cr:Field",
        "@id": f"{config}/split",
        "name": "split",
        "description": "The split of the record (see the splits record set).",
        "dataType": "sc:Text",
        "source": {
            "fileSet": {"@id": file_set},
            "extract": {"fileProperty": "fullpath"},
            # As the Hub writes it: mlcroissant turns it into a glob to read one split alone.
            "transform": {"regex": f"{re.escape(config)}/({names})-.+\\.parquet$"},
        },
        "references": {"field": {"@id": "splits/name"}},
    }


def config_files(folder: Path, config: str) -> list[dict]:
    """The Parquet files of a config in an export (each with its sha256 and size) and their file set."""
    files = []
    for path in sorted((folder / config).glob("*.parquet")):
        relative = path.relative_to(folder).as_posix()
        measured = sources.measure(path)
        files.append({
            "@type": "cr:FileObject",
            "@id": relative,
            "name": relative,
            "contentUrl": relative,
            "encodingFormat": PARQUET,
            "sha256": measured.sha256,
            "contentSize": f"{measured.size} B",
        })
    file_set = {
        "@type": "cr:FileSet",
        "@id": f"parquet-{config}",
        "name": f"parquet-{config}",
        "description": f"The Parquet files of the {config} config, one or more per split.",
        "containedIn": [{"@id": d["@id"]} for d in files],
        "encodingFormat": PARQUET,
        "includes": f"{config}/*.parquet",
    }
    return [*files, file_set]


def patterns_text(patterns: dict[str, str]) -> list[str]:
    """A record set's descriptions of its fields by a pattern of their names, said once (none: [])."""
    if not patterns:
        return []
    return ["Fields described by a pattern of their names (`*` stands for any part of a name between two dots):",
            *(", ".join(f"`{p}`" for p in field_patterns.patterns(key)) + f": {text}"
              for key, text in patterns.items())]


def describe(corpus: registry.Corpus, folder: Path, source: dict, configs: list[str], origin: sources.Origin,
             repo_id: str | None = None, notice: str | None = None):
    """The Croissant JSON-LD of the export in `folder`, its texts from `source` (cards.export_source: the
    configs it holds only) and `origin` (the build's sources.Origin); `notice` (not the release) opens its
    description."""
    descriptions = {c.name: " ".join((c.description or "").split()) for c in corpus.builder_class.BUILDER_CONFIGS}
    distribution, record_sets, all_splits = [], [], []
    for config in configs:
        file_set = f"parquet-{config}"
        distribution += config_files(folder, config)
        splits = [split for split in corpus.split_sizes[config] if split in split_names(folder, config)]
        all_splits += [split for split in splits if split not in all_splits]
        record_sets.append({
            "@type": "cr:RecordSet",
            "@id": config,
            "name": config,
            "description": " ".join([descriptions[config], *patterns_text(source["config_patterns"][config])]),
            "field": [split_field(config, file_set, splits)]
            + fields(corpus.features(config), source["config_fields"][config], file_set, config),
        })
    released = source["released"]["date"]
    facts = origin.provenance  # loader and corpora versions, upstream commits
    description = {
        "@context": CONTEXT,
        "@type": "sc:Dataset",
        "conformsTo": CONFORMS_TO,
        "name": corpus.name,
        "alternateName": source["pretty_name"],
        "description": " ".join(
            f"{notice or ''} {source['scope'] or ''} {source['summary']} {sources.provenance_line(facts)}".split()),
        "url": f"https://huggingface.co/datasets/{repo_id}" if repo_id else corpus.homepage,
        "sameAs": corpus.homepage,
        "license": license_urls(source["license"]),
        "citeAs": corpus.citation,
        "inLanguage": source["language"],
        "keywords": source["tags"],
        **({"datePublished": released.isoformat()} if released else {}),
        "version": facts["loader_version"],  # the builder's VERSION
        "isLiveDataset": False,
        "distribution": distribution,
        "recordSet": [split_record_set(all_splits)] + record_sets,
    }
    for prop, key in RAI_FROM_CARD.items():
        description[prop] = " ".join(str(source[key]).split())
    return description


def write_json(corpus: registry.Corpus, folder: Path, source: dict, configs: list[str], origin: sources.Origin,
               repo_id: str | None = None, notice: str | None = None) -> Path:
    path = folder / "croissant.json"
    # Small objects on one line (a field, a file): the largest dummy export's is 145,248 bytes, 267,676
    # with json.dumps(indent=2).
    text = json_text(describe(corpus, folder, source, configs, origin, repo_id, notice), width=JSON_WIDTH,
                     margin=False, step=JSON_INDENT)
    path.write_text(text + "\n", encoding="utf-8")
    return path
