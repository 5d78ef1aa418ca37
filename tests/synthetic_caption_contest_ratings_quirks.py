"""The dummy caption_contest_ratings files with the quirks of loaders/caption_contest_ratings/FORMAT.md
(summaries of its excerpts, awkward cells and captions) and the other shapes of response archives
upstream's material shows (`write_response_shapes`), written with the makers of
tests/synthetic_caption_contest_ratings.py, whose `main` calls them."""

from __future__ import annotations

import random
from pathlib import Path

from synthetic_caption_contest_ratings import CARDINAL_HEADER
from synthetic_caption_contest_ratings import DUELING_HEADER
from synthetic_caption_contest_ratings import SUMMARY_A
from synthetic_caption_contest_ratings import SUMMARY_B
from synthetic_caption_contest_ratings import cardinal_tail
from synthetic_caption_contest_ratings import dueling_tail
from synthetic_caption_contest_ratings import participant
from synthetic_caption_contest_ratings import summary_bytes
from synthetic_caption_contest_ratings import write_archive

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
