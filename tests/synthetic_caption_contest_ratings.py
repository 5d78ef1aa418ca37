"""Synthetic caption_contest_ratings sources in the real formats (loaders/caption_contest_ratings/FORMAT.md):
summary CSVs written like upstream (csv.writer, LF, quoting only where needed, both headers, the
real file names), and zipped pandas-style response CSVs (unnamed index column first, and the other shapes of
`write_response_shapes`, in tests/synthetic_caption_contest_ratings_quirks.py with the quirk files). Used by the
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


def archive_bytes(member: str, header: list[str], rows, newline: str = "\n",
                  method: int = zipfile.ZIP_DEFLATED) -> bytes:
    """A response archive, as bytes, holding the CSV `member` compressed by `method`: `rows` under
    `header` (cells as `csv_cell` writes them), each line ended by `newline`."""
    lines = [",".join(header)] + [",".join(csv_cell(value) for value in row) for row in rows]
    buffer = io.BytesIO()
    entry = _entry(member)
    entry.compress_type = method
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(entry, newline.join(lines) + newline)
    return buffer.getvalue()


def in_member(change):
    """A function of a response archive's bytes: the archive with its one CSV member's bytes changed by `change`."""
    def variant(raw: bytes) -> bytes:
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            [member] = archive.namelist()
            data = archive.read(member)
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            archive.writestr(member, change(data))
        return out.getvalue()

    return variant


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


def main(out: str) -> None:
    from synthetic_caption_contest_ratings_quirks import write_dummy_quirks  # it imports this module's makers
    from synthetic_caption_contest_ratings_quirks import write_response_shapes

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
