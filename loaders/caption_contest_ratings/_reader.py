"""Reads caption_contest_ratings' CSV files with pyarrow.csv: a summary file, or the one CSV member of
a response archive inflated by zipfile, is read into memory and parsed by `open_csv` block by block,
each column as the type its format says. Errors name the file, the record, the field and the value.
"""

import zipfile
import zlib

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from corpora.loader_shared.loader_common import check_is_data
from corpora.loader_shared.loader_common import invalid
from corpora.loader_shared.loader_common import no_records
from corpora.loader_shared.loader_common import show
from corpora.loader_shared.loader_common import utf8

BLOCK_SIZE = 16 << 20  # bytes of CSV parsed into one record batch
_HEADER_LIMIT = 1 << 16  # a header line is shorter than this
_ZIP_ERRORS = (zipfile.BadZipFile, EOFError, zlib.error)
EXPECTED_TYPE = {  # what a value that does not convert to a type is expected to be
    "int32": "an integer",
    "int64": "an integer",
    "double": "a number",
    "timestamp[us]": "a timestamp YYYY-MM-DD HH:MM:SS[.ffffff]",
    "string": "UTF-8 text",
}


def read_file(open_file, file, source):
    """(where, bytes) of a summary file."""
    with open_file(file, "rb") as f:
        return source, f.read()


def read_archive(open_file, file, source):
    """(`<archive>!<member>`, bytes) of the one CSV file of a zip archive.

    The member is inflated whole, not handed to pyarrow as a zipfile stream: pyarrow reads a Python file
    ahead in a thread of its own, which aborts the process when it calls into Python while the interpreter
    exits (after an error, or with a streaming iterator left open; tests/test_caption_contest_ratings_threads.py)."""
    with open_file(file, "rb") as raw:
        head = raw.read(1 << 12)
        raw.seek(0)
        if not head.startswith(b"PK\x03\x04"):
            check_is_data(head, source, "a zip archive")
            raise ValueError(f"{source}: not a zip archive (starts with {show(head[:16])}); the download is corrupt")
        try:
            archive = zipfile.ZipFile(raw)
        except (*_ZIP_ERRORS, OSError) as error:
            raise ValueError(f"{source}: corrupt zip archive ({error})") from None
        with archive:
            member = _archive_member(archive, source)
            if archive.getinfo(member).header_offset < 0:  # bytes missing before the central directory
                raise ValueError(f"{source}: corrupt zip archive (Bad magic number for file header)")
            try:
                with archive.open(member) as f:
                    return f"{source}!{member}", _inflate(f, archive.getinfo(member).file_size)
            except _ZIP_ERRORS as error:
                raise ValueError(f"{source}: corrupt zip archive ({error})") from None


def _inflate(member, size):
    """A member's `size` bytes, read in pieces: its read() holds all its bytes twice (1.36 GB for 500 MB)."""
    data = bytearray(size)
    with memoryview(data) as view:
        at = 0
        while at < size and (read := member.readinto(view[at : at + (1 << 20)])):
            at += read
    return data


def _archive_member(archive, source):
    names = [info.filename for info in archive.infolist() if not info.is_dir()]
    mac = [name for name in names if "__MACOSX/" in f"/{name}" or name.split("/")[-1].startswith("._")]
    if mac:
        raise ValueError(f"{source}: has macOS resource entries ({', '.join(mac[:3])}); expected exactly one CSV file")
    if len(names) != 1:
        raise ValueError(f"{source}: expected exactly one CSV file in the archive, found {len(names)}: {names[:5]}")
    return names[0]


def _header(data, source, csv_format):
    """The header of a CSV file (names hold no newline or quote)."""
    check_is_data(data[:_HEADER_LIMIT], source, "a CSV file")
    line, newline, _ = data[:_HEADER_LIMIT].partition(b"\n")
    if not newline and len(data) >= _HEADER_LIMIT:
        raise ValueError(f"{source}: no line break in the first 64 KiB; not a CSV file")
    text = utf8(line, source, 1)
    return csv_format.header(source, text.rstrip("\r").split(","), text.endswith("\r"))


def _open_csv(data, convert_options):
    """pyarrow's reader of the CSV bytes `data`, in blocks of about BLOCK_SIZE. A blank line is no
    record, as pandas reads it (FORMAT.md, "Blank lines")."""
    # pyarrow drops the LF of a CR LF inside a quoted value where a block ends between the two
    # (21 and 26; tests/test_caption_contest_ratings_io.py): no block ends there.
    block_size = BLOCK_SIZE
    while any(data[end - 1 : end + 1] == b"\r\n" for end in range(block_size, len(data), block_size)):
        block_size += 1
    return pa_csv.open_csv(
        pa.BufferReader(pa.py_buffer(data)),
        read_options=pa_csv.ReadOptions(block_size=block_size, use_threads=False),
        parse_options=pa_csv.ParseOptions(newlines_in_values=True, ignore_empty_lines=True),
        convert_options=convert_options,
    )


def csv_batches(where, data, csv_format):
    """(header, record offset, batch) of the CSV file `data` (bytes); `csv_format` is the loader's
    CsvFormat: the header's check, each column's type, what its records are, whether pandas wrote it."""
    header = _header(data, where, csv_format)
    offset, floats = 0, False
    batches = _typed_batches(data, header, csv_format, floats, 0)
    while True:
        try:  # only the read: a generator left open is closed at exit, maybe after the module's names
            batch = next(batches, None)
        except pa.ArrowInvalid as error:
            if floats or not csv_format.pandas_written:
                raise _conversion_error(data, where, header, csv_format, error) from None
            floats = True  # quirk 22: read again with the integers as floats, from the first record not given
            batches = _typed_batches(data, header, csv_format, floats, offset)
            continue
        if batch is None:
            break
        yield header, offset, batch
        offset += batch.num_rows
    if offset == 0:
        raise no_records(where, f"{csv_format.what} after the header")
    if not data.endswith(b"\n"):
        raise ValueError(f"{where}: does not end with a line feed after record {offset}; the file is truncated")


def _typed_batches(data, header, csv_format, floats, skip):
    """The record batches of `data`, typed as `csv_format` says, from record `skip` on."""
    nulls = csv_format.pandas_written
    types = {name: csv_format.read_type(name, floats) for name in header}
    options = pa_csv.ConvertOptions(column_types=types, null_values=[""] if nulls else [],
                                    strings_can_be_null=nulls, quoted_strings_can_be_null=nulls)
    for batch in _open_csv(data, options):
        if skip < batch.num_rows:
            yield batch.slice(skip)
        skip = max(skip - batch.num_rows, 0)


def count_records(data):
    """The records of a CSV file as `csv_batches` reads them, converting only the last column."""
    line = data[:_HEADER_LIMIT].split(b"\n", 1)[0].rstrip(b"\r")
    names = [name.decode("utf-8", "replace") for name in line.split(b",")]
    options = pa_csv.ConvertOptions(include_columns=names[-1:], column_types={names[-1]: pa.binary()})
    return sum(batch.num_rows for batch in _open_csv(data, options))


def _conversion_error(data, source, header, csv_format, error):
    """The ValueError of an Arrow error: the first value that does not convert (a binary search)."""
    message = str(error).split("\n")[0]
    if "CSV conversion error" not in message:
        return ValueError(f"{source}: invalid CSV ({message})")
    offset = 0
    for batch in _open_csv(data, pa_csv.ConvertOptions(column_types={name: pa.binary() for name in header})):
        for name in header:
            column = batch.column(name)
            if _converts(column, csv_format.read_type(name), csv_format.pandas_written):
                continue
            lo, hi = 0, len(column)  # the first bad value is in [lo, hi)
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if _converts(column.slice(lo, mid - lo), csv_format.read_type(name), csv_format.pandas_written):
                    lo = mid
                else:
                    hi = mid
            where = f"{source}, record {offset + lo + 1}"
            value = column[lo].as_py()
            try:
                text = value.decode("utf-8")
            except UnicodeDecodeError as decode_error:
                return ValueError(
                    f"{where}: field {name!r}: not UTF-8 (byte 0x{value[decode_error.start]:02x} in {show(value)})"
                )
            expected = csv_format.types[name]
            return invalid(where, name, text, EXPECTED_TYPE.get(str(expected), str(expected)))
        offset += batch.num_rows
    return ValueError(f"{source}: invalid CSV ({message})")


def _converts(column, target, empty_is_null):
    """Whether the binary `column` converts to `target`, as the reader converts it."""
    try:
        strings = column.cast(pa.string())  # validates UTF-8
        if pa.types.is_string(target):
            return True
        empty = pc.equal(strings, "")  # null where the reader reads an empty cell as null, else an error
        if not empty_is_null and pc.any(empty).as_py():
            return False
        # Not if_else(empty, null, strings): pyarrow 21 gives another array's bytes for a slice.
        strings.filter(pc.invert(empty)).cast(target)
        return True
    except pa.ArrowInvalid:
        return False
