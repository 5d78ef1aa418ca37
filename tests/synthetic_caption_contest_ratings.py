"""Synthetic caption_contest_ratings sources in the real formats (loaders/caption_contest_ratings/FORMAT.md):
summary CSVs written like upstream (csv.writer, LF, quoting only where needed, both headers, the
real file names), and zipped pandas-style response CSVs (unnamed index column first, and the other shapes of
`write_response_shapes`). Used by the
tests, the benchmarks (full size) and to regenerate the dummy data (`python
tests/synthetic_caption_contest_ratings.py DIR` writes the dummy layout; the quirk files are then the
hand-written ones in dummy_data/).
Deterministic: the same seed gives the same bytes."""

from __future__ import annotations

import csv
import datetime
import io
import math
import random
import sys
import zipfile
from pathlib import Path

SUMMARY_A = [
    "target_id",
    "rank",
    "funny",
    "somewhat_funny",
    "unfunny",
    "count",
    "score",
    "precision",
    "contest",
    "caption",
]
SUMMARY_B = SUMMARY_A[1:]
CARDINAL_HEADER = [
    "",
    "alg_label",
    "network_delay",
    "participant_uid",
    "response_time",
    "target",
    "target_id",
    "target_reward",
    "timestamp_query_generated",
]
# A valid summary of the second header kind, and a valid response row (the bad-input and parser tests' base).
GOOD_B = b"rank,funny,somewhat_funny,unfunny,count,score,precision,contest,caption\n1,18,27,24,69,1.9130434782608696,0.09402238590614731,510,\"A, b\"\n"
ROW = [0, "KLUCB", "0.67", "abc_def", "28.3", "A caption", 4181, 3, "2017-07-28 17:05:39.090118"]
DUELING_HEADER = [
    "",
    "alg_label",
    "left_target",
    "left_target_id",
    "network_delay",
    "participant_id",
    "participant_uid",
    "response_time",
    "right_target",
    "right_target_id",
    "timestamp_query_generated",
    "winner_target",
    "winner_target_id",
]
WORDS = [
    "I",
    "you",
    "we",
    "the",
    "a",
    "boss",
    "shark",
    "cheese",
    "meeting",
    "office",
    "said",
    "just",
    "never",
    "told",
    "funding",
    "theory",
    "congressman",
    "job",
    "damn",
    "really",
    "more",
    "again",
    "lawyer",
    "dog",
    "honey",
    "think",
    "Tuesday",
    "well",
    "what",
    "about",
    "yoga",
    "rug",
    "not",
    "today",
    "Let\u2019s",
    "\u201cexceeded",
    "expectations?\u201d",
    "hmm,",
    "wait...",
    '"quote"',
]


def source_files(config: str) -> list[str]:
    """The source paths of a config's one split, as the loader declares them."""
    root = Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(root / "src"))
    from corpora import registry

    return registry.get("caption_contest_ratings").config(config).files["train"]


def caption(rng: random.Random, long: bool = False) -> str:
    # Real captions are about 65 characters long (summaries: 121.7 MB over 1.08 million rows).
    text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 14) + (4 if long else 0)))
    if rng.random() < 0.01:
        text = text.replace(" ", "\n", 1)  # captions with embedded LFs (quirk 5)
    return text


def summary_rows(rng: random.Random, n: int, contest: int, header_a: bool) -> list[list]:
    """Rows sorted by score with competition ranks and the upstream score/precision formulas."""
    raw = []
    for _ in range(n):
        funny, somewhat, unfunny = rng.randint(0, 40), rng.randint(0, 40), rng.randint(0, 40)
        if funny + somewhat + unfunny == 0:
            unfunny = 1
        raw.append((funny, somewhat, unfunny, caption(rng)))
    scored = []
    for funny, somewhat, unfunny, text in raw:
        count = funny + somewhat + unfunny
        total = 3 * funny + 2 * somewhat + unfunny
        score = total / count
        squares = 9 * funny + 4 * somewhat + unfunny
        precision = (
            math.inf if count == 1 else math.sqrt(max(1, squares - total * total / count) / (count * (count - 1)))
        )
        scored.append((score, funny, somewhat, unfunny, count, precision, text))
    scored.sort(key=lambda row: -row[0])
    ids = list(range(n))
    rng.shuffle(ids)
    rows = []
    for index, (score, funny, somewhat, unfunny, count, precision, text) in enumerate(scored):
        rank = 1 + sum(1 for other in scored[:index] if other[0] > score)
        row = [
            rank,
            funny,
            somewhat,
            unfunny,
            count,
            repr(score),
            "inf" if math.isinf(precision) else repr(precision),
            contest,
            text,
        ]
        rows.append(([ids[index]] if header_a else []) + row)
    return rows


def summary_bytes(header: list[str], rows: list[list]) -> bytes:
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue().encode("utf-8")


def is_header_a(name: str) -> bool:
    return "-round" in name or int(name[:3]) >= 587


def write_summaries(root: Path, rows_per_file: int, seed: int = 0) -> list[Path]:
    """Every summary file of the release, `rows_per_file` rows each."""
    rng = random.Random(seed)
    return [_write_summary_file(root, path, rows_per_file, rng=rng) for path in source_files("summaries")]


def write_summary_release(root: Path, total: int = 1_081_771) -> int:
    """Every summary file of the release, `total` rows spread over them (the real total by
    default); returns the bytes written."""
    names = source_files("summaries")
    per_file, extra = divmod(total, len(names))
    paths = [
        _write_summary_file(root, path, per_file + (1 if index < extra else 0), seed=index)
        for index, path in enumerate(names)
    ]
    return sum(path.stat().st_size for path in paths)


def _write_summary_file(root: Path, path: str, rows: int, seed: int = 0, rng=None) -> Path:
    rng = rng or random.Random(seed)
    name = path.rsplit("/", 1)[-1]
    header_a = is_header_a(name)
    contest = 689 if name == "688_summary_KLUCB.csv" else int(name[:3])  # quirk 4
    make = _fast_summary_rows if rows > 200 else summary_rows
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(summary_bytes(SUMMARY_A if header_a else SUMMARY_B, make(rng, rows, contest, header_a)))
    return target


def _fast_summary_rows(rng, n, contest, header_a):
    # Same format, without the quadratic competition ranking (ranks are 1..n, ties not needed at scale).
    rows = []
    for index in range(n):
        funny, somewhat, unfunny = rng.randint(0, 4000), rng.randint(0, 4000), rng.randint(1, 4000)
        count = funny + somewhat + unfunny
        score = (3 * funny + 2 * somewhat + unfunny) / count
        row = [
            index + 1,
            funny,
            somewhat,
            unfunny,
            count,
            repr(score),
            repr(rng.random() / 10 + 1e-4),
            contest,
            caption(rng),
        ]
        rows.append(([index] if header_a else []) + row)
    return rows


def participant(rng: random.Random) -> str:
    suffix = "".join(rng.choice("abcdefghijkLMNOPQRS0123456789") for _ in range(24))
    return f"{rng.getrandbits(120):030x}_{suffix}"


def cardinal_tail(rng: random.Random, alg: str) -> list:
    return [
        alg,
        f"{rng.random() * 2:.6f}",
        participant(rng),
        f"{rng.random() * 30:.3f}",
        caption(rng),
        rng.randint(0, 9000),
        rng.randint(1, 3),
        f"2017-07-{rng.randint(10, 28)} 17:05:{rng.randint(10, 59)}.{rng.randint(0, 999999):06d}",
    ]


def dueling_tail(rng: random.Random, alg: str) -> list:
    left, right = rng.randint(0, 900), rng.randint(0, 900)
    left_text, right_text = caption(rng), caption(rng)
    winner = rng.choice([(left_text, left), (right_text, right)])
    return [
        alg,
        left_text,
        left,
        f"{rng.random() * 2:.6f}",
        f"{rng.getrandbits(64):016x}",
        participant(rng),
        f"{rng.random() * 30:.3f}",
        right_text,
        right,
        f"2016-11-{rng.randint(10, 28)} 09:0{rng.randint(0, 9)}:{rng.randint(10, 59)}.{rng.randint(0, 999999):06d}",
        winner[0],
        winner[1],
    ]


def cardinal_csv(rows: int) -> bytes:
    """The bytes of a cardinal response CSV of `rows` rows, with captions that need quoting: big
    enough at 20,000 rows to span several compressed chunks of an archive member."""
    lines = [",".join(CARDINAL_HEADER)]
    lines += [
        f'{i},KLUCB,0.{i % 97},uid{i % 311},1.5,"caption {i % 1013}, with ""quotes""",{i % 1013},{1 + i % 3},'
        f"2017-07-28 17:05:39.{i % 999999:06d}"
        for i in range(rows)
    ]
    return ("\n".join(lines) + "\n").encode()


def _entry(name: str) -> zipfile.ZipInfo:
    """A member with a fixed date, so the same rows give the same archive bytes."""
    info = zipfile.ZipInfo(name, date_time=(2019, 7, 29, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def write_archive(path: Path, header: list[str], rows, member: str | None = None, extra_members=()) -> Path:
    """A zip holding one pandas-style CSV (index column first) named like the archive minus .zip."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        with archive.open(_entry(member or path.name[: -len(".zip")]), "w") as raw:
            text = io.TextIOWrapper(raw, encoding="utf-8", newline="")
            writer = csv.writer(text, lineterminator="\n")
            writer.writerow(header)
            for row in rows:
                writer.writerow(row)
            text.flush()
            text.detach()
        for name, data in extra_members:
            archive.writestr(_entry(name), data)
    return path


def write_big_cardinal(path: Path, rows: int, seed: int = 0, captions: int = 6000, session: int = 8) -> Path:
    """A full-size cardinal archive shaped like a real contest, so that it compresses like one.

    A contest has a few thousand captions, each `target_id` always with the same caption, and
    every visitor rates a run of captions in one session (one participant_uid, timestamps rising
    by the response times). The real archives hold about 46 to 55 bytes per rating zipped (format
    file: 519, 540 and 577 archive sizes over the response counts of the upstream notebooks);
    these hold about 48 (bench/caption_contest_ratings_build.py prints the figure).
    """
    rng = random.Random(seed)
    cells = [csv_cell(caption(rng, long=True)) for _ in range(captions)]
    algorithms = ["KLUCB", "LilUCB", "RandomSampling"]
    clock = datetime.datetime(2017, 7, 10, 17, 5, 0)
    path.parent.mkdir(parents=True, exist_ok=True)
    # Level 6, zlib's default, as zip tools write by default.
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        with archive.open(_entry(path.name[: -len(".zip")]), "w", force_zip64=True) as f:
            f.write((",".join(CARDINAL_HEADER) + "\n").encode())
            lines, index = [], 0
            while index < rows:
                uid = participant(rng)
                for _ in range(min(rows - index, 1 + int(rng.expovariate(1 / session)))):
                    target_id = rng.randrange(captions)
                    response_time = rng.random() * 20
                    clock += datetime.timedelta(seconds=response_time / 8)  # sessions overlap in time
                    stamp = clock.isoformat(sep=" ", timespec="microseconds")
                    lines.append(
                        f"{index},{rng.choice(algorithms)},{rng.random():.6f},{uid},{response_time:.3f},"
                        f"{cells[target_id]},{target_id},{rng.randint(1, 3)},{stamp}\n"
                    )
                    index += 1
                if len(lines) >= 100_000:
                    f.write("".join(lines).encode("utf-8"))
                    lines = []
            f.write("".join(lines).encode("utf-8"))
    return path


def csv_cell(value) -> str:
    """A field as csv.writer (and so pandas' `to_csv`) writes it: quoted only where needed; None,
    pandas' NaN, as an empty cell."""
    text = "" if value is None else str(value)
    if any(c in text for c in ',"\n\r'):
        return '"' + text.replace('"', '""') + '"'
    return text


def archive_bytes(member: str, header: list[str], rows, newline: str = "\n") -> bytes:
    """A response archive, as bytes, holding the CSV `member`: `rows` under `header` (cells as
    `csv_cell` writes them), each line ended by `newline`."""
    lines = [",".join(header)] + [",".join(csv_cell(value) for value in row) for row in rows]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(_entry(member), newline.join(lines) + newline)
    return buffer.getvalue()


def write_cartoons(root: Path) -> None:
    """Tiny images (JPEG; 571 a PNG, quirk 16) and the four metadata files."""
    from PIL import Image

    for path in source_files("cartoons"):
        if not path.endswith(".jpg"):
            continue
        contest = int(path.rsplit("/", 1)[-1][:3])
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        image = Image.new("RGB", (2, 2), (contest % 256, 255 - contest % 256, 128))
        buffer = io.BytesIO()
        image.save(buffer, format="PNG" if contest == 571 else "JPEG", quality=50)
        target.write_bytes(buffer.getvalue())


# Summary files with the quirks of loaders/caption_contest_ratings/FORMAT.md, its excerpts where it gives them.
QUIRK_SUMMARIES = {
    # header A, tied ranks (quirk 10), target_id a permutation
    "508-round1_summary_LilUCB.csv": (
        SUMMARY_A,
        [
            [2, 1, 3, 1, 0, 4, "2.75", "0.25", 508, "Tied for first."],
            [0, 1, 3, 1, 0, 4, "2.75", "0.25", 508, "Also tied, for first."],
            [1, 3, 0, 1, 1, 2, "1.5", "0.5", 508, "Third place, after a tie."],
        ],
    ),
    # precision inf where count is 1 (quirk 9)
    "509-round1_summary_LilUCB.csv": (
        SUMMARY_A,
        [
            [0, 1, 1, 0, 0, 1, "3.0", "inf", 509, "Only one vote."],
            [1, 2, 0, 0, 2, 2, "1.0", "0.0005", 509, "Two votes."],
        ],
    ),
    "510_summary_LilUCB.csv": (
        SUMMARY_B,
        [
            [
                1,
                18,
                27,
                24,
                69,
                "1.9130434782608696",
                "0.09402238590614731",
                510,
                "I'm a congressman--obstruction is my job.",
            ],
            [2, 1, 1, 2, 4, "1.75", "0.47871355387816905", 510, "Header B has no target_id."],
        ],
    ),
    "512_summary_LilUCB.csv": (
        SUMMARY_B,
        [
            [1, 3, 1, 0, 4, "2.75", "0.25", 512, "First."],
            [1791, 0, 0, 1, 1, "1.0", "inf", 512, "I have a rug, can I join women's yoga now?"],
        ],
    ),
    # rows swallowed into one caption by an upstream quoting error (quirk 6)
    "523_summary_LilUCB.csv": (
        SUMMARY_B,
        [
            [
                1,
                65,
                25,
                11,
                101,
                "2.5346534653465347",
                "0.06",
                523,
                "So....what type of business did you say you were in?\n"
                "65,25,11,Well at least they're not on our backs any more.\n"
                '3,4,5,"Quoted"',
            ],
            [2, 1, 2, 3, 6, "1.6666666666666667", "0.33333333333333337", 523, "A normal one."],
        ],
    ),
    # a caption that is a single space, unquoted (quirk 7)
    "529_summary_LilUCB.csv": (
        SUMMARY_B,
        [
            [1, 5, 1, 0, 6, "2.8333333333333335", "0.16666666666666666", 529, "A caption."],
            [1866, 1, 12, 37, 50, "1.28", "0.07021831844254003", 529, " "],
        ],
    ),
    # mojibake (quirk 11)
    "531_summary_LilUCB.csv": (
        SUMMARY_B,
        [
            [
                1,
                2,
                0,
                0,
                2,
                "3.0",
                "1.0",
                531,
                "The Viagra isn\u00e2\u20ac\u2122t working, all I have is a stiff neck.\u00e2\u20ac\u009d",
            ],
        ],
    ),
    "540_summary_Random.csv": (
        SUMMARY_B,
        [
            [1, 1, 1, 0, 2, "2.5", "0.5", 540, "Short algorithm name Random."],
        ],
    ),
    # duplicate captions within one file (quirk 8)
    "557_summary_LilUCB.csv": (
        SUMMARY_B,
        [
            [1, 9, 1, 0, 10, "2.9", "0.1", 557, "Well, I'll be damned..."],
            [2, 5, 2, 1, 8, "2.5", "0.2672612419124244", 557, "Something else."],
            [3, 6, 2, 2, 10, "2.4", "0.2666666666666667", 557, "Third."],
            [4, 1, 1, 1, 3, "2.0", "0.5773502691896257", 557, "Well, I'll be damned..."],
        ],
    ),
    # typo RandomSamping, every caption ends with LF (quirk 2, 5)
    "559_summary_RandomSamping.csv": (
        SUMMARY_B,
        [
            [1, 1, 0, 0, 1, "3.0", "inf", 559, "Ends with a line feed.\n"],
            [2, 0, 1, 0, 1, "2.0", "inf", 559, "So does this one.\n"],
        ],
    ),
    "560_summary_KLUCB_funny.csv": (
        SUMMARY_B,
        [
            [1, 2, 1, 0, 3, "2.6666666666666665", "0.33333333333333337", 560, "How funny?"],
        ],
    ),
    "560_summary_KLUCB_original.csv": (
        SUMMARY_B,
        [
            [1, 2, 1, 0, 3, "2.6666666666666665", "0.33333333333333337", 560, "How funny?"],
        ],
    ),
    # the contest column says 689 in the 688 file (quirk 4)
    "688_summary_KLUCB.csv": (
        SUMMARY_A,
        [
            [1, 1, 3, 0, 0, 3, "3.0", "0.5773502691896258", 689, "Filed under 688, says 689."],
            [0, 2, 0, 0, 3, 3, "1.0", "0.5773502691896258", 689, "Second row of 688."],
        ],
    ),
    # header A, the format doc's excerpts; newlines, commas, doubled quotes, TAB, U+200B, NBSP, edge spaces
    "691_summary_KLUCB.csv": (
        SUMMARY_A,
        [
            [
                2528,
                1,
                4321,
                5753,
                2664,
                12738,
                "2.1300832155754437",
                "0.006459405715900614",
                691,
                "Should I check, \u201cexceeded expectations?\u201d",
            ],
            [
                2611,
                2,
                3548,
                4645,
                2978,
                11171,
                "2.0510249753826875",
                "0.00721574214893721",
                691,
                "Let\u2019s just give him the damn cheese.",
            ],
            [
                0,
                3,
                10,
                10,
                10,
                30,
                "2.0",
                "0.15",
                691,
                "This confirms our theory ....\nHe\u2019s getting way more funding than we are\u201d!",
            ],
            [1, 4, 1, 2, 3, 6, "1.6666666666666667", "0.33", 691, 'He said ""no"" and\tleft.'],
            [2, 5, 0, 1, 5, 6, "1.1666666666666667", "0.16", 691, "zero\u200bwidth and no\u00a0break "],
        ],
    ),
}


def write_dummy_quirks(root: Path) -> None:
    for name, (header, rows) in QUIRK_SUMMARIES.items():
        rows = [[cell.replace('""', '"') if isinstance(cell, str) else cell for cell in row] for row in rows]
        (root / "contests" / "summaries" / name).write_bytes(summary_bytes(header, rows))
    rng = random.Random(2)
    # a cardinal archive with every reward, a NaN network delay (empty cell) and awkward captions
    rows = [
        [
            0,
            "KLUCB",
            "0.670163",
            "eea58658d9d40ceaf97f0bccbfa324_BuIKwH3xGWWASxp",
            "28.324",
            "Should I check, \u201cexceeded expectations?\u201d",
            4181,
            3,
            "2017-07-28 17:05:39.090118",
        ],
        [1, "KLUCB", "", participant(rng), "3.5", 'Two\nlines, and "quotes"', 12, 1, "2017-07-28 17:05:40"],
        [2, "RandomSampling", "0.1", participant(rng), "1.25", " ", 13, 2, "2017-07-29 00:00:00.000001"],
    ]
    write_archive(root / "contests/responses/577-responses.csv.zip", CARDINAL_HEADER, rows)
    rows = [[i] + cardinal_tail(rng, "LilUCB") for i in range(3)]
    write_archive(root / "contests/responses/559-active-responses.csv.zip", CARDINAL_HEADER, rows)


# The columns in the orders upstream's writers give (loaders/caption_contest_ratings/FORMAT.md):
# contest 556's as upstream's notebook prints it (no index column), and the row dicts of
# parse-responses/json_parse.py kept in insertion order.
NOTEBOOK_556_ORDER = [
    "participant_uid", "response_time", "network_delay", "timestamp_query_generated", "target_reward", "alg_label",
    "target", "target_id",
]  # fmt: skip
JSON_PARSE_CARDINAL_ORDER = [
    "target_id", "participant_uid", "response_time", "network_delay", "timestamp_query_generated", "target_reward",
    "alg_label", "target",
]  # fmt: skip
JSON_PARSE_DUELING_ORDER = [
    "participant_id", "timestamp_query_generated", "left_target_id", "right_target_id", "winner_target_id",
    "left_target", "right_target", "winner_target", "participant_uid", "response_time", "network_delay", "alg_label",
]  # fmt: skip


def reordered(header: list[str], rows: list[list], order: list[str], index: str | None = "") -> tuple[list, list]:
    """(header, rows) of rows written under `header` (index column first), in the column `order`,
    with the index column named `index` first, or none (None)."""
    at = [header.index(name) for name in order]
    first = [] if index is None else [index]
    return first + order, [([] if index is None else [row[0]]) + [row[i] for i in at] for row in rows]


def as_pandas_floats(rows: list[list], column: int, empty: set[int] = frozenset()) -> list[list]:
    """`rows` with the integers of `column` as pandas writes a float column: `3.0`, and an empty
    cell for NaN in the rows `empty`."""
    return [
        row[:column] + ["" if number in empty else f"{float(row[column])!r}"] + row[column + 1 :]
        for number, row in enumerate(rows)
    ]


def write_response_shapes(root: Path) -> None:
    """Dummy archives in the other shapes upstream's material shows: 540 with the index column
    named `Unnamed: 0`, its ratings and target ids as floats, a target id empty; 556 in the
    notebook's order without an index column (upstream's reader allows one to lack it), a target
    id empty; 561 in json_parse.py's order; 508's dueling votes in json_parse.py's order, 509's
    without an index column."""
    rng = random.Random(3)
    responses = root / "contests" / "responses"
    rows = [[i] + cardinal_tail(rng, "LilUCB") for i in range(2)]
    header, rows = reordered(CARDINAL_HEADER, rows, CARDINAL_HEADER[1:], "Unnamed: 0")
    rows = as_pandas_floats(as_pandas_floats(rows, header.index("target_reward")), header.index("target_id"), {1})
    write_archive(responses / "540-responses.csv.zip", header, rows)
    rows = [[i] + cardinal_tail(rng, "LilUCB") for i in range(2)]
    header, rows = reordered(CARDINAL_HEADER, rows, NOTEBOOK_556_ORDER, None)
    write_archive(responses / "556-responses.csv.zip", header, as_pandas_floats(rows, header.index("target_id"), {0}))
    rows = [[i] + cardinal_tail(rng, "KLUCB") for i in range(2)]
    write_archive(responses / "561-responses.csv.zip", *reordered(CARDINAL_HEADER, rows, JSON_PARSE_CARDINAL_ORDER))
    for contest, index in ((508, ""), (509, None)):
        rows = [[i] + dueling_tail(rng, "RoundRobin") for i in range(2)]
        path = responses / f"{contest}-round2-dueling-responses.csv.zip"
        write_archive(path, *reordered(DUELING_HEADER, rows, JSON_PARSE_DUELING_ORDER, index))


def main(out: str) -> None:
    root = Path(out)
    write_summaries(root, 2)
    rng = random.Random(1)
    for path in source_files("cardinal_responses"):
        alg = "KLUCB" if int(path.rsplit("/", 1)[-1][:3]) >= 559 else "LilUCB"
        rows = [[i] + cardinal_tail(rng, alg) for i in range(2)]
        write_archive(root / path, CARDINAL_HEADER, rows)
    for path in source_files("dueling_responses"):
        rows = [[i] + dueling_tail(rng, "RoundRobin") for i in range(2)]
        write_archive(root / path, DUELING_HEADER, rows)
    write_cartoons(root)
    write_metadata(root)
    write_dummy_quirks(root)
    write_response_shapes(root)


def write_metadata(root: Path) -> None:
    (root / "contests" / "metadata").mkdir(parents=True, exist_ok=True)
    (root / "contests" / "artists.csv").write_bytes(
        b'contest,artist\n495,Drew Dernavich\n508,Some Artist\n571,"Artist, With Comma"\n'
    )
    (root / "contests" / "metadata" / "descriptions.txt").write_bytes(
        b"contest,description\n510,People stepping over man lying on the sidewalk.\n"
        b'571,"A quoted description, with a comma."\n'
    )
    (root / "contests" / "metadata" / "contexts.yaml").write_bytes(
        b"508: [office, interrogation, police, table]\n571: [desert, island, palm tree]\n"
    )
    (root / "contests" / "metadata" / "anomalies.yaml").write_bytes(
        b"508: [shark, suspect, bored]\n571: [doorbell, sand]\n"
    )


if __name__ == "__main__":
    main(sys.argv[1])
