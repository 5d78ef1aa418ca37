"""caption_contest_ratings's bad input: what `corpora build caption_contest_ratings` prints for
each malformed file (helpers.BadInput rows; tests/test_bad_input.py runs them and writes
docs/bad_input.md). Its own file beside tests/test_caption_contest_ratings.py, which declares it."""

import tempfile
import zipfile
from pathlib import Path

from helpers import BadInput
from synthetic_caption_contest_ratings import CARDINAL_HEADER
from synthetic_caption_contest_ratings import GOOD_B
from synthetic_caption_contest_ratings import ROW
from synthetic_caption_contest_ratings import archive_bytes
from synthetic_caption_contest_ratings import write_archive

SUMMARIES = "contests/summaries/"
RESPONSES = "contests/responses/"
SUMMARY = SUMMARIES + "510_summary_LilUCB.csv"
ARCHIVE = RESPONSES + "577-responses.csv.zip"
WHERE = f"{ARCHIVE}!577-responses.csv"
JPG = "contests/info/571/571.jpg"


def zipped(rows, header=CARDINAL_HEADER, **kwargs):
    """The bytes of a response archive written like upstream's (tests/synthetic_caption_contest_ratings.py)."""
    with tempfile.TemporaryDirectory() as folder:
        return write_archive(Path(folder) / "577-responses.csv.zip", header, rows, **kwargs).read_bytes()


def cp1252_member():
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "latin.zip"
        with zipfile.ZipFile(path, "w") as archive:
            text = ",".join(CARDINAL_HEADER) + "\n0,KLUCB,0.1,u,1.0,caf\u00e9,1,1,2017-07-28 17:05:39\n"
            archive.writestr("577-responses.csv", text.encode("cp1252"))
        return path.read_bytes()


def empty_zip():
    with tempfile.TemporaryDirectory() as folder:
        zipfile.ZipFile(Path(folder) / "empty.zip", "w").close()
        return (Path(folder) / "empty.zip").read_bytes()


HEADERS = ("expected columns 'target_id,rank,funny,somewhat_funny,unfunny,count,score,precision,contest,caption' or "
           "'rank,funny,somewhat_funny,unfunny,count,score,precision,contest,caption'")
CARDINAL_EXPECTED = ("expected the columns 'alg_label,network_delay,participant_uid,response_time,target,target_id,"
                     "target_reward,timestamp_query_generated' in any order, after an optional pandas index column "
                     "named '' or 'Unnamed: 0'")
R1 = f"{SUMMARY}, record 1: field"
W1, W2 = f"{WHERE}, record 1: field", f"{WHERE}, record 2: field"


def summary(case, data, message):
    return BadInput(SUMMARY, f"summary file: {case}", lambda raw: data, message, "summaries")


# (case, the bytes of the file, the line the user sees); docs/bad_input.md lists them.
BAD_INPUT = [summary(*row) for row in [
    ("truncated-line", GOOD_B[:-20], f"{SUMMARY}: invalid CSV (CSV parse error: Row #2: Expected 9 columns, got 7: 1,18,27,24,69,1.9130434782608696,0.094022385)"),
    ("truncated-quote", GOOD_B[:-5], f"{SUMMARY}: does not end with a line feed after record 1; the file is truncated"),
    ("latin1", GOOD_B.replace(b"A, b", "caf\u00e9".encode("cp1252")), f"{R1} 'caption': not UTF-8 (byte 0xe9 in b'caf\\xe9')"),
    ("semicolons", GOOD_B.replace(b",", b";"),
     f"{SUMMARY}: unexpected header: {HEADERS}; found 'rank;funny;somewhat_funny;unfunny;count;score;precision;contest;caption'"),
    ("missing-column", GOOD_B.replace(b",precision", b""),
     f"{SUMMARY}: unexpected header: {HEADERS}; found 'rank,funny,somewhat_funny,unfunny,count,score,contest,caption'"),
    ("extra-column", GOOD_B.replace(b"caption\n", b"caption,extra\n"),
     f"{SUMMARY}: unexpected header: {HEADERS}; found 'rank,funny,somewhat_funny,unfunny,count,score,precision,contest,caption,extra'"),
    ("extra-cell", GOOD_B.replace(b'"A, b"', b'"A, b",x'), f"{SUMMARY}: invalid CSV (CSV parse error: Row #2: Expected 9 columns, got 10: "
     '1,18,27,24,69,1.9130434782608696,0.09402238590614731,510,"A, b",x)'),
    ("empty", b"", f"{SUMMARY}: is empty (expected a CSV file)"),
    ("header-only", GOOD_B.split(b"\n")[0] + b"\n", f"{SUMMARY}: has no records after the header"),
    ("non-numeric-count", GOOD_B.replace(b",69,", b",abc,"), f"{R1} 'count': invalid value 'abc' (expected an integer)"),
    ("empty-count", GOOD_B.replace(b",69,", b",,"), f"{R1} 'count': invalid value '' (expected an integer)"),
    ("negative", GOOD_B.replace(b"1,18,", b"1,-18,"), f"{R1} 'funny': invalid value -18 (expected an integer >= 0)"),
    ("count-sum", GOOD_B.replace(b",69,", b",70,"), f"{R1} 'count': invalid value 70 (expected funny + somewhat_funny + unfunny, >= 1)"),
    ("score-range", GOOD_B.replace(b",1.9130434782608696,", b",3.5,"), f"{R1} 'score': invalid value 3.5 (expected a number from 1 to 3)"),
    ("nan", GOOD_B.replace(b",0.09402238590614731,", b",nan,"), f"{R1} 'precision': invalid value nan (expected a number > 0 or inf)"),
    ("contest", GOOD_B.replace(b",510,", b",511,"), f"{R1} 'contest': invalid value 511 (expected the file's contest 510)"),
    ("empty-caption", GOOD_B.replace(b'"A, b"', b'""'), f"{R1} 'caption': invalid value '' (expected a non-empty caption)"),
    ("int32-overflow", GOOD_B.replace(b"\n1,", b"\n99999999999,"), f"{R1} 'rank': invalid value '99999999999' (expected an integer)"),
    ("crlf", GOOD_B.replace(b"\n", b"\r\n"), f"{SUMMARY}: line 1 ends with CR LF; the release files use LF only"),
]] + [
    BadInput(ARCHIVE, f"response archive: {case}", lambda raw, data=data: data, message, "cardinal_responses") for case, data, message in [
        ("empty", b"", f"{ARCHIVE}: is empty (expected a zip archive)"),
        ("plain-csv", b",alg_label\n0,KLUCB\n", f"{ARCHIVE}: not a zip archive (starts with b',alg_label\\n0,KLU'); the download is corrupt"),
    ]
] + [
    BadInput(SUMMARY, "summary file: header not UTF-8", lambda raw: b"r\xe9nk" + raw[4:],
             f"{SUMMARY}, line 1: not UTF-8 (byte 0xe9 at offset 1 of the line: invalid continuation byte)", "summaries"),
    BadInput(SUMMARY, "summary file: XML", lambda raw: b"<?xml version='1.0'?>\n<summary/>\n",
             f"{SUMMARY}: unexpected header: {HEADERS}; found \"<?xml version='1.0'?>\"", "summaries"),
] + [
    BadInput(ARCHIVE, f"response archive: {name}", lambda raw, header=header, row=row: archive_bytes("577-responses.csv", header, [row]), message,
             "cardinal_responses")
    for name, header, row, message in [
        ("unknown column", CARDINAL_HEADER + ["label"], ROW + ["funny"], f"{WHERE}: unexpected header: unknown column(s) 'label'; {CARDINAL_EXPECTED}"),
        ("rating not an integer", CARDINAL_HEADER, ROW[:7] + ["2.5"] + ROW[8:],
         f"{W1} 'target_reward': invalid value 2.5 (expected an integer)"),
        ("empty rating", CARDINAL_HEADER, ROW[:7] + [""] + ROW[8:],
         f"{W1} 'target_reward': invalid value None (expected a value (the cell is empty))"),
    ]
]


def cardinal(case, rows, message, header=CARDINAL_HEADER):
    return BadInput(ARCHIVE, f"response archive: {case}", lambda raw: zipped(rows, header), message, "cardinal_responses")


BAD_INPUT += [
    BadInput(SUMMARY, "summary file: an unknown header", lambda raw: b"caption,mean,precision,votes,not_funny,somewhat_funny,funny\nA,1.0,0.1,1,1,0,0\n",
             f"{SUMMARY}: unexpected header: {HEADERS}; found 'caption,mean,precision,votes,not_funny,somewhat_funny,funny'",
             "summaries"),
    cardinal("rating 4", [ROW[:7] + [4] + ROW[8:]], f"{W1} 'target_reward': invalid value 4 (expected 1 (unfunny), 2 (somewhat funny) or 3 (funny))"),
    cardinal("rating a word", [ROW[:7] + ["funny"] + ROW[8:]], f"{W1} 'target_reward': invalid value 'funny' (expected an integer)"),
    cardinal("timestamp a word", [ROW[:8] + ["yesterday"]],
             f"{W1} 'timestamp_query_generated': invalid value 'yesterday' (expected a timestamp YYYY-MM-DD HH:MM:SS[.ffffff])"),
    cardinal("negative target_id", [ROW, ROW[:6] + ["-1.0"] + ROW[7:]], f"{W2} 'target_id': invalid value -1 (expected an integer >= 0)"),
    # Integers as pandas writes them in a column with an empty cell: an integral float is the
    # integer, any other number is not one.
    cardinal("rating 3.5 in a float column", [ROW, ROW[:7] + ["3.5"] + ROW[8:]], f"{W2} 'target_reward': invalid value 3.5 (expected an integer)"),
    cardinal("target_id 4181.25", [ROW[:6] + ["4181.25"] + ROW[7:]], f"{W1} 'target_id': invalid value 4181.25 (expected an integer)"),
    cardinal("target_id 3e9", [ROW[:6] + ["3e9"] + ROW[7:]], f"{W1} 'target_id': invalid value 3000000000.0 (expected an integer)"),
    cardinal("target_id nan", [ROW[:6] + ["nan"] + ROW[7:]], f"{W1} 'target_id': invalid value nan (expected an integer)"),
    cardinal("index 1.5", [["1.5"] + ROW[1:]], f"{W1} '': invalid value 1.5 (expected an integer)"),
    # Written as a float beyond 2**53, where a float no longer holds every integer: refused, not
    # rounded (9007199254740993.0 reads as ...992).
    cardinal("index 2**53 + 1 as a float", [ROW, ["9007199254740993.0"] + ROW[1:]],
             f"{W2} '': invalid value 9007199254740992.0 (expected an integer)"),
    # -2**53 may be the rounding of -(2**53 + 1) too: refused like 2**53 (hypothesis found it kept as None).
    cardinal("index -2**53 as a float", [ROW, ["-9007199254740992.0"] + ROW[1:]],
             f"{W2} '': invalid value -9007199254740992.0 (expected an integer)"),
    # An empty rating is not one (upstream's reader casts every rating to int).
    cardinal("empty target_id and rating", [ROW[:6] + ["", ""] + ROW[8:]],
             f"{W1} 'target_reward': invalid value None (expected a value (the cell is empty))"),
    cardinal("empty participant_uid", [ROW[:3] + [""] + ROW[4:]],
             f"{W1} 'participant_uid': invalid value None (expected a value (the cell is empty))"),
    cardinal("the README's column names", [["a", 1, 1, "t", "x", "y", 1]],
             f"{WHERE}: unexpected header: unknown column(s) 'Partipipant ID', 'Response Time (s)', 'Network delay (s)', "
             "'Timestamp', 'Alg label', 'Target', 'Rating'; missing column(s) 'alg_label', 'network_delay', 'participant_uid', "
             f"'response_time', 'target', 'target_id', 'target_reward', 'timestamp_query_generated'; {CARDINAL_EXPECTED}",
             ["Partipipant ID", "Response Time (s)", "Network delay (s)", "Timestamp", "Alg label", "Target", "Rating"]),
    *[cardinal(f"columns {case}", [list(range(len(header)))], f"{WHERE}: unexpected header: {problems}; {CARDINAL_EXPECTED}", header)
      for case, header, problems in [
          ("unknown", CARDINAL_HEADER + ["label"], "unknown column(s) 'label'"),
          ("missing", [name for name in CARDINAL_HEADER if name != "target_id"], "missing column(s) 'target_id'"),
          ("repeated", ["Unnamed: 0"] + CARDINAL_HEADER[1:-1] + ["target_reward"],
           "missing column(s) 'timestamp_query_generated'; repeated column(s) 'target_reward'"),
          # the index column is pandas' only as the first one
          ("index-last", CARDINAL_HEADER[1:] + [""], "unknown column(s) ''"),
          ("index-named", ["index"] + CARDINAL_HEADER[1:], "unknown column(s) 'index'"),
      ]],
    BadInput(ARCHIVE, "response archive: two CSV files", lambda raw: zipped([ROW], extra_members=[("other.csv", b"a\n1\n")]),
             f"{ARCHIVE}: expected exactly one CSV file in the archive, found 2: ['577-responses.csv', 'other.csv']",
             "cardinal_responses"),
    BadInput(ARCHIVE, "response archive: macOS entries",
             lambda raw: zipped([ROW], extra_members=[("__MACOSX/._577-responses.csv", b"\x00\x05\x16\x07")]),
             f"{ARCHIVE}: has macOS resource entries (__MACOSX/._577-responses.csv); expected exactly one CSV file",
             "cardinal_responses"),
    BadInput(ARCHIVE, "response archive: no member", lambda raw: empty_zip(),
             f"{ARCHIVE}: not a zip archive (starts with b'PK\\x05\\x06" + "\\x00" * 12 + "'); the download is corrupt",
             "cardinal_responses"),
    # Inside the archive: a whole file that is not the data is tests/test_bad_input.py's own case.
    BadInput(ARCHIVE, "response archive: member with a UTF-8 BOM", lambda raw: zipped([], ["\ufeff"]),
             f"{WHERE}: starts with a UTF-8 byte order mark; the release files have none", "cardinal_responses"),
    BadInput(ARCHIVE, "response archive: member in cp1252", lambda raw: cp1252_member(),
             f"{W1} 'target': not UTF-8 (byte 0xe9 in b'caf\\xe9')", "cardinal_responses"),
    BadInput(JPG, "cartoon: a GIF", lambda raw: b"GIF89a....", f"{JPG}: not a JPEG or PNG image (starts with b'GIF89a..')", "cartoons"),
    BadInput("contests/metadata/contexts.yaml", "contexts: a mapping for a list", lambda raw: b"508: {office: 1}\n",
             "contests/metadata/contexts.yaml, line 1: expected `<contest>: [word, word, ...]`, found '508: {office: 1}'",
             "cartoons"),
    BadInput("contests/artists.csv", "artists: another header", lambda raw: b"contest,painter\n508,X\n",
             "contests/artists.csv: unexpected header: expected columns 'contest,artist'; found 'contest,painter'", "cartoons"),
]
