"""caption_contest_ratings's bad input: what `corpora build caption_contest_ratings` prints for each
malformed file (helpers.BadInput rows; tests/test_bad_input.py runs them and writes docs/bad_input.md),
and the variants it reads as the release (message None). One case a line, as test tables read best."""

import io
import tempfile
import zipfile
from pathlib import Path

from corpora import registry
from helpers import BadInput
from synthetic_caption_contest_ratings import CARDINAL_HEADER
from synthetic_caption_contest_ratings import GOOD_B
from synthetic_caption_contest_ratings import ROW
from synthetic_caption_contest_ratings import archive_bytes
from synthetic_caption_contest_ratings import cardinal_csv
from synthetic_caption_contest_ratings import in_member
from synthetic_caption_contest_ratings import write_archive

SUMMARY, ARCHIVE, JPG = "contests/summaries/510_summary_LilUCB.csv", "contests/responses/577-responses.csv.zip", "contests/info/571/571.jpg"
WHERE = f"{ARCHIVE}!577-responses.csv"
R1, W1, W2 = f"{SUMMARY}, record 1: field", f"{WHERE}, record 1: field", f"{WHERE}, record 2: field"
HEADERS = ("expected columns 'target_id,rank,funny,somewhat_funny,unfunny,count,score,precision,contest,caption' or "
           "'rank,funny,somewhat_funny,unfunny,count,score,precision,contest,caption'")
CARDINAL_EXPECTED = ("expected the columns 'alg_label,network_delay,participant_uid,response_time,target,target_id,"
                     "target_reward,timestamp_query_generated' in any order, after an optional pandas index column "
                     "named '' or 'Unnamed: 0'")
CONTEXTS = "contests/metadata/contexts.yaml"


def zipped(rows, header=CARDINAL_HEADER, **kwargs):
    """The bytes of a response archive written like upstream's (tests/synthetic_caption_contest_ratings.py)."""
    with tempfile.TemporaryDirectory() as folder:
        return write_archive(Path(folder) / "577-responses.csv.zip", header, rows, **kwargs).read_bytes()


def deflated(data, method=zipfile.ZIP_DEFLATED):
    """An archive of one member `577-responses.csv` holding `data`, and the member's zip entry."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=method) as archive:
        archive.writestr("577-responses.csv", data)
    return buffer.getvalue(), archive.getinfo("577-responses.csv")


def stored_with_a_changed_byte():
    """A stored (not compressed) member with a byte changed: only the CRC-32 of the central directory tells."""
    data = bytearray(deflated(cardinal_csv(3000), zipfile.ZIP_STORED)[0])
    data[data.index(b"caption 17,") + 8] = ord("8")
    return bytes(data)


def compressed_data_cut_short():
    """The compressed data ends early while the central directory is intact."""
    data, info = deflated(cardinal_csv(3000))
    start = info.header_offset + 30 + len(info.filename)
    return data[:start + info.compress_size // 2] + data[start + info.compress_size:]


def summary(case, data, message):
    return BadInput(SUMMARY, f"summary file: {case}", lambda raw: data, message, "summaries")


def archive(case, variant, message):
    return BadInput(ARCHIVE, f"response archive: {case}", variant, message, "cardinal_responses")


def cardinal(case, rows, message, header=CARDINAL_HEADER):
    return archive(case, lambda raw: zipped(rows, header), message)


def one_row(case, row, message, header=CARDINAL_HEADER):
    return archive(case, lambda raw: archive_bytes("577-responses.csv", header, [row]), message)


def corrupt(case, variant, cause):
    return archive(case, lambda raw: variant(zipped([ROW] * 50)), f"{ARCHIVE}: corrupt zip archive ({cause})")


# (case, the bytes of the file, the line the user sees); docs/bad_input.md lists them. The edges of each
# documented range: RANGES in tests/test_caption_contest_ratings.py.
BAD_INPUT = [
    summary("truncated-line", GOOD_B[:-20], f"{SUMMARY}: invalid CSV (CSV parse error: Row #2: Expected 9 columns, got 7: 1,18,27,24,69,1.9130434782608696,0.094022385)"),
    summary("truncated-quote", GOOD_B[:-5], f"{SUMMARY}: does not end with a line feed after record 1; the file is truncated"),
    summary("latin1", GOOD_B.replace(b"A, b", "caf\u00e9".encode("cp1252")), f"{R1} 'caption': not UTF-8 (byte 0xe9 in b'caf\\xe9')"),
    summary("semicolons", GOOD_B.replace(b",", b";"), f"{SUMMARY}: unexpected header: {HEADERS}; found 'rank;funny;somewhat_funny;unfunny;count;score;precision;contest;caption'"),
    summary("missing-column", GOOD_B.replace(b",precision", b""), f"{SUMMARY}: unexpected header: {HEADERS}; found 'rank,funny,somewhat_funny,unfunny,count,score,contest,caption'"),
    summary("extra-column", GOOD_B.replace(b"caption\n", b"caption,extra\n"), f"{SUMMARY}: unexpected header: {HEADERS}; found 'rank,funny,somewhat_funny,unfunny,count,score,precision,contest,caption,extra'"),
    summary("extra-cell", GOOD_B.replace(b'"A, b"', b'"A, b",x'), f'{SUMMARY}: invalid CSV (CSV parse error: Row #2: Expected 9 columns, got 10: 1,18,27,24,69,1.9130434782608696,0.09402238590614731,510,"A, b",x)'),
    summary("empty", b"", f"{SUMMARY}: is empty (expected a CSV file)"),
    summary("header-only", GOOD_B.split(b"\n")[0] + b"\n", f"{SUMMARY}: has no records after the header"),
    summary("non-numeric-count", GOOD_B.replace(b",69,", b",abc,"), f"{R1} 'count': invalid value 'abc' (expected an integer)"),
    summary("empty-count", GOOD_B.replace(b",69,", b",,"), f"{R1} 'count': invalid value '' (expected an integer)"),
    summary("rank-written-as-a-float", GOOD_B.replace(b"\n1,", b"\n1.0,"), f"{R1} 'rank': invalid value '1.0' (expected an integer)"),  # pandas' floats: responses only
    summary("negative", GOOD_B.replace(b"1,18,", b"1,-18,"), f"{R1} 'funny': invalid value -18 (expected an integer >= 0)"),
    summary("count-sum", GOOD_B.replace(b",69,", b",70,"), f"{R1} 'count': invalid value 70 (expected funny + somewhat_funny + unfunny, >= 1)"),
    summary("nan", GOOD_B.replace(b",0.09402238590614731,", b",nan,"), f"{R1} 'precision': invalid value nan (expected a number > 0 or inf)"),
    summary("contest", GOOD_B.replace(b",510,", b",511,"), f"{R1} 'contest': invalid value 511 (expected the file's contest 510)"),
    summary("empty-caption", GOOD_B.replace(b'"A, b"', b'""'), f"{R1} 'caption': invalid value '' (expected a non-empty caption)"),
    summary("int32-overflow", GOOD_B.replace(b"\n1,", b"\n99999999999,"), f"{R1} 'rank': invalid value '99999999999' (expected an integer)"),
    summary("crlf", GOOD_B.replace(b"\n", b"\r\n"), f"{SUMMARY}: line 1 ends with CR LF; the release files use LF only"),
    BadInput(SUMMARY, "summary file: header not UTF-8", lambda raw: b"r\xe9nk" + raw[4:],
             f"{SUMMARY}, line 1: not UTF-8 (byte 0xe9 at offset 1 of the line: invalid continuation byte)", "summaries"),
    summary("XML", b"<?xml version='1.0'?>\n<summary/>\n", f"{SUMMARY}: unexpected header: {HEADERS}; found \"<?xml version='1.0'?>\""),
    summary("an unknown header", b"caption,mean,precision,votes,not_funny,somewhat_funny,funny\nA,1.0,0.1,1,1,0,0\n",
            f"{SUMMARY}: unexpected header: {HEADERS}; found 'caption,mean,precision,votes,not_funny,somewhat_funny,funny'"),
    # Blank lines, which pandas skips (one inside a quoted caption is the caption's): the release's rows.
    BadInput(SUMMARY, "summary file: a blank line at the end", lambda raw: raw + b"\n", None, "summaries"),
    BadInput(SUMMARY, "summary file: two blank lines at the end", lambda raw: raw + b"\n\n", None, "summaries"),
    BadInput(SUMMARY, "summary file: a blank line between records", lambda raw: raw.replace(b"job.\n", b"job.\n\n"), None, "summaries"),
    archive("empty", lambda raw: b"", f"{ARCHIVE}: is empty (expected a zip archive)"),
    archive("plain-csv", lambda raw: b",alg_label\n0,KLUCB\n", f"{ARCHIVE}: not a zip archive (starts with b',alg_label\\n0,KLU'); the download is corrupt"),
    archive("no member", lambda raw: b"PK\x05\x06" + b"\x00" * 18, f"{ARCHIVE}: not a zip archive (starts with b'PK\\x05\\x06" + "\\x00" * 12 + "'); the download is corrupt"),
    corrupt("truncated", lambda good: good[: len(good) // 2], "File is not a zip file"),
    corrupt("stored member changed", lambda good: stored_with_a_changed_byte(), "Bad CRC-32 for file '577-responses.csv'"),
    corrupt("deflate stream damaged", lambda good: good[:60] + b"\x00" * 10 + good[70:], "Error -3 while decompressing data: invalid code -- missing end-of-block"),
    corrupt("compressed data cut short", lambda good: compressed_data_cut_short(), "Bad magic number for file header"),
    archive("two CSV files", lambda raw: zipped([ROW], extra_members=[("other.csv", b"a\n1\n")]), f"{ARCHIVE}: expected exactly one CSV file in the archive, found 2: ['577-responses.csv', 'other.csv']"),
    archive("macOS entries", lambda raw: zipped([ROW], extra_members=[("__MACOSX/._577-responses.csv", b"\x00\x05\x16\x07")]),
            f"{ARCHIVE}: has macOS resource entries (__MACOSX/._577-responses.csv); expected exactly one CSV file"),
    # Inside the archive: a whole file that is not the data is tests/test_bad_input.py's own case.
    archive("member with a UTF-8 BOM", lambda raw: zipped([], ["\ufeff"]), f"{WHERE}: starts with a UTF-8 byte order mark; the release files have none"),
    archive("member in cp1252", in_member(lambda data: data.replace("\"Should I check, \u201cexceeded expectations?\u201d\"".encode(), b"caf\xe9")),
            f"{W1} 'target': not UTF-8 (byte 0xe9 in b'caf\\xe9')"),
    archive("a dueling archive", lambda raw: (registry.get("caption_contest_ratings").dummy_dir / "contests/responses/497-responses.csv.zip").read_bytes(),  # quirk 15
            f"{ARCHIVE}!497-responses.csv: unexpected header: unknown column(s) 'left_target', 'left_target_id', 'participant_id', 'right_target', "
            f"'right_target_id', 'winner_target', 'winner_target_id'; missing column(s) 'target', 'target_id', 'target_reward'; {CARDINAL_EXPECTED}"),
    one_row("rating not an integer", ROW[:7] + ["2.5"] + ROW[8:], f"{W1} 'target_reward': invalid value 2.5 (expected an integer)"),
    one_row("empty rating", ROW[:7] + [""] + ROW[8:], f"{W1} 'target_reward': invalid value None (expected a value (the cell is empty))"),  # upstream casts each to int
    cardinal("rating a word", [ROW[:7] + ["funny"] + ROW[8:]], f"{W1} 'target_reward': invalid value 'funny' (expected an integer)"),
    cardinal("timestamp a word", [ROW[:8] + ["yesterday"]], f"{W1} 'timestamp_query_generated': invalid value 'yesterday' (expected a timestamp YYYY-MM-DD HH:MM:SS[.ffffff])"),
    cardinal("empty participant_uid", [ROW[:3] + [""] + ROW[4:]], f"{W1} 'participant_uid': invalid value None (expected a value (the cell is empty))"),
    # Integers as pandas writes them in a column with an empty cell: an integral float is the integer, any other number is not one.
    cardinal("negative target_id", [ROW, ROW[:6] + ["-1.0"] + ROW[7:]], f"{W2} 'target_id': invalid value -1 (expected an integer >= 0)"),
    cardinal("rating 3.5 in a float column", [ROW, ROW[:7] + ["3.5"] + ROW[8:]], f"{W2} 'target_reward': invalid value 3.5 (expected an integer)"),
    cardinal("target_id 4181.25", [ROW[:6] + ["4181.25"] + ROW[7:]], f"{W1} 'target_id': invalid value 4181.25 (expected an integer)"),
    cardinal("target_id 3e9", [ROW[:6] + ["3e9"] + ROW[7:]], f"{W1} 'target_id': invalid value 3000000000.0 (expected an integer)"),
    cardinal("target_id nan", [ROW[:6] + ["nan"] + ROW[7:]], f"{W1} 'target_id': invalid value nan (expected an integer)"),
    cardinal("index 1.5", [["1.5"] + ROW[1:]], f"{W1} '': invalid value 1.5 (expected an integer)"),
    # -2**53 may be the rounding of -(2**53 + 1): refused like 2**53 (hypothesis found it kept as None).
    cardinal("index -2**53 as a float", [ROW, ["-9007199254740992.0"] + ROW[1:]], f"{W2} '': invalid value -9007199254740992.0 (expected an integer)"),
    cardinal("negative index named 'Unnamed: 0'", [ROW, [-1] + ROW[1:]], f"{W2} 'Unnamed: 0': invalid value -1 (expected a row index >= 0)", ["Unnamed: 0"] + CARDINAL_HEADER[1:]),
    cardinal("the README's column names", [["a", 1, 1, "t", "x", "y", 1]],
             f"{WHERE}: unexpected header: unknown column(s) 'Partipipant ID', 'Response Time (s)', 'Network delay (s)', 'Timestamp', 'Alg label', 'Target', "
             "'Rating'; missing column(s) 'alg_label', 'network_delay', 'participant_uid', 'response_time', 'target', 'target_id', 'target_reward', "
             f"'timestamp_query_generated'; {CARDINAL_EXPECTED}",
             ["Partipipant ID", "Response Time (s)", "Network delay (s)", "Timestamp", "Alg label", "Target", "Rating"]),
    *[cardinal(f"columns {case}", [list(range(len(header)))], f"{WHERE}: unexpected header: {problems}; {CARDINAL_EXPECTED}", header) for case, header, problems in [
        ("unknown", CARDINAL_HEADER + ["label"], "unknown column(s) 'label'"),
        ("missing", [name for name in CARDINAL_HEADER if name != "target_id"], "missing column(s) 'target_id'"),
        ("repeated", ["Unnamed: 0"] + CARDINAL_HEADER[1:-1] + ["target_reward"], "missing column(s) 'timestamp_query_generated'; repeated column(s) 'target_reward'"),
        ("index-last", CARDINAL_HEADER[1:] + [""], "unknown column(s) ''"),  # the index column is pandas' only as the first one
        ("index-named", ["index"] + CARDINAL_HEADER[1:], "unknown column(s) 'index'"),
    ]],
    BadInput(JPG, "cartoon: a GIF", lambda raw: b"GIF89a....", f"{JPG}: not a JPEG or PNG image (starts with b'GIF89a..')", "cartoons"),
    BadInput(CONTEXTS, "contexts: a mapping for a list", lambda raw: b"508: {office: 1}\n", f"{CONTEXTS}, line 1: expected `<contest>: [word, word, ...]`, found '508: {{office: 1}}'", "cartoons"),
    BadInput(CONTEXTS, "contexts: a capital letter", lambda raw: raw.replace(b"office", b"Office"), f"{CONTEXTS}, line 1: expected lower-case words, found 'Office, interrogation, police, table'", "cartoons"),
    BadInput("contests/artists.csv", "artists: another header", lambda raw: b"contest,painter\n508,X\n",
             "contests/artists.csv: unexpected header: expected columns 'contest,artist'; found 'contest,painter'", "cartoons"),
]
