"""Reads caption_contest_ratings' CSV files with pyarrow.csv: a summary file, or the one CSV member of
a response archive inflated by zipfile, is read into memory and parsed by `open_csv` block by block,
each column as the loader's types say. Errors name the file, the record, the field and the value.
"""

import re
import zipfile
import zlib

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv
from datasets.utils.file_utils import xopen

from corpora.loader_shared.loader_common import check_is_data
from corpora.loader_shared.loader_common import invalid
from corpora.loader_shared.loader_common import no_records
from corpora.loader_shared.loader_common import show
from corpora.loader_shared.loader_common import utf8

BLOCK_SIZE = 16 << 20  # bytes of CSV parsed into one record batch
_HEADER_LIMIT = 1 << 16  # a header line is shorter than this
_ZIP_ERRORS = (zipfile.BadZipFile, EOFError, zlib.error)
_CONVERSION_ERROR = re.compile(r"In CSV column #(?P<column>[0-9]+): Row #(?P<row>[0-9]+): CSV conversion error")
EXPECTED_TYPE = {  # what a value that does not convert to a type is expected to be
    "int32": "an integer",
    "int64": "an integer",
    "double": "a number",
    "timestamp[us]": "a timestamp YYYY-MM-DD HH:MM:SS[.ffffff]",
    "string": "UTF-8 text",
}


def read_archive(file, source):
    """(`<archive>!<member>`, bytes) of the one CSV file of a zip archive (datasets' xopen opens a URL too).

    The member is inflated whole, not handed to pyarrow as a zipfile stream: pyarrow reads a Python file
    ahead in a thread of its own, which aborts the process when it calls into Python while the interpreter
    exits (after an error, or with a streaming iterator left open; tests/test_caption_contest_ratings_threads.py)."""
    with xopen(file, "rb") as raw:
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
            if member.header_offset < 0:  # bytes missing before the central directory
                raise ValueError(f"{source}: corrupt zip archive (Bad magic number for file header)")
            try:
                with archive.open(member) as f:
                    return f"{source}!{member.filename}", _inflate(f, member.file_size)
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
    members = [info for info in archive.infolist() if not info.is_dir()]
    names = [info.filename for info in members]
    mac = [name for name in names if "__MACOSX/" in f"/{name}" or name.split("/")[-1].startswith("._")]
    if mac:
        raise ValueError(f"{source}: has macOS resource entries ({', '.join(mac[:3])}); expected exactly one CSV file")
    if len(names) != 1:
        raise ValueError(f"{source}: expected exactly one CSV file in the archive, found {len(names)}: {names[:5]}")
    return members[0]


def header(data, source):
    """The column names of a CSV file (names hold no newline or quote) and whether line 1 ends with CR LF."""
    check_is_data(data[:_HEADER_LIMIT], source, "a CSV file")
    line, newline, _ = data[:_HEADER_LIMIT].partition(b"\n")
    if not newline and len(data) >= _HEADER_LIMIT:
        raise ValueError(f"{source}: no line break in the first 64 KiB; not a CSV file")
    text = utf8(line, source, 1)
    return text.rstrip("\r").split(","), text.endswith("\r")


def csv_batches(where, data, types, what, pandas_written):
    """(record offset, batch) of the CSV file `data` (bytes) whose header has the columns of `types`
    (name -> Arrow type) in order; `what` its records are. A `pandas_written` file has quirks 21,
    nan-as-empty-cell, and 22, integers-as-floats."""
    offset, floats = 0, False
    batches = _batches(data, _convert_options(types, pandas_written, floats))
    while True:
        try:  # only the read: a generator left open is closed at exit, maybe after the module's names
            batch = next(batches, None)
        except pa.ArrowInvalid as error:
            if floats or not pandas_written:
                raise _conversion_error(data, where, types, error) from None
            floats = True  # quirk 22: read again with the integers as floats, from the first record not given
            batches = _batches(data, _convert_options(types, pandas_written, floats), offset)
            continue
        if batch is None:
            break
        yield offset, _exact_integers(batch, types, where, offset) if floats else batch
        offset += batch.num_rows
    if offset == 0:
        raise no_records(where, f"{what} after the header")
    if not data.endswith(b"\n"):
        raise ValueError(f"{where}: does not end with a line feed after record {offset}; the file is truncated")


def _convert_options(types, nulls, floats):
    """Each column as its Arrow type (with `floats`, the integers as float64); with `nulls`, an empty cell is null."""
    read_types = {name: pa.float64() if floats and pa.types.is_integer(t) else t for name, t in types.items()}
    return pa_csv.ConvertOptions(column_types=read_types, null_values=[""] if nulls else [],
                                 strings_can_be_null=nulls, quoted_strings_can_be_null=nulls)


def _batches(data, convert_options, skip=0):
    """pyarrow's record batches of the CSV bytes `data` from record `skip` on, parsed in blocks of
    about BLOCK_SIZE. A blank line is no record, as pandas reads it (FORMAT.md, "Blank lines")."""
    # pyarrow drops the LF of a CR LF inside a quoted value where a block ends between the two
    # (21 and 26; tests/test_caption_contest_ratings_io.py): no block ends there.
    block_size = BLOCK_SIZE
    while any(data[end - 1 : end + 1] == b"\r\n" for end in range(block_size, len(data), block_size)):
        block_size += 1
    reader = pa_csv.open_csv(
        pa.BufferReader(pa.py_buffer(data)),
        read_options=pa_csv.ReadOptions(block_size=block_size, use_threads=False),
        parse_options=pa_csv.ParseOptions(newlines_in_values=True, ignore_empty_lines=True),
        convert_options=convert_options,
    )
    for batch in reader:
        if skip < batch.num_rows:
            yield batch.slice(skip)
        skip = max(skip - batch.num_rows, 0)


def _exact_integers(batch, types, where, offset):
    """`batch` with the integer columns read as floats as integers (quirk 22, integers-as-floats)."""
    columns = []
    for name, column in zip(batch.schema.names, batch.columns, strict=True):
        target = types[name]
        if pa.types.is_integer(target) and pa.types.is_floating(column.type):
            # The type's range; from 2**53 on (either sign) a float may be the rounding of another integer.
            bits = min(target.bit_width - 1, 53)
            low, high = -(2.0**bits) + (bits == 53), 2.0**bits
            in_range = pc.and_(pc.greater_equal(column, low), pc.less(column, high))
            bad = pc.invert(pc.and_(pc.equal(column, pc.trunc(column)), in_range))  # NaN too
            check_rows(where, offset, batch, name, pc.fill_null(bad, False), EXPECTED_TYPE[str(target)])
            column = column.cast(target)
        columns.append(column)
    return pa.RecordBatch.from_arrays(columns, names=batch.schema.names)


def check_rows(where, offset, batch, column, bad, expected):
    """Raise the error of the first row of `batch` (record `offset` + 1 on) where `bad` is true or null."""
    bad = pc.fill_null(bad, True)
    if pc.any(bad).as_py():
        index = pc.index(bad, True).as_py()
        raise invalid(f"{where}, record {offset + index + 1}", column, batch.column(column)[index].as_py(), expected)


def count_records(where, data):
    """The records of a CSV file as `csv_batches` reads them, converting only the last column."""
    last = header(data, where)[0][-1]
    options = pa_csv.ConvertOptions(include_columns=[last], column_types={last: pa.binary()})
    return sum(batch.num_rows for batch in _batches(data, options))


def _conversion_error(data, where, types, error):
    """The ValueError of an Arrow error; of a value that does not convert, pyarrow names the column and
    the row (the header is row 1), and the value is read again as bytes."""
    message = str(error).split("\n")[0]
    found = _CONVERSION_ERROR.match(message)
    if found is None:
        return ValueError(f"{where}: invalid CSV ({message})")
    name, record = list(types)[int(found["column"])], int(found["row"]) - 1
    options = pa_csv.ConvertOptions(include_columns=[name], column_types={name: pa.binary()})
    value = next(_batches(data, options, record - 1)).column(0)[0].as_py()
    try:
        text = value.decode("utf-8")
    except UnicodeDecodeError as decode_error:
        byte = f"0x{value[decode_error.start]:02x}"
        return ValueError(f"{where}, record {record}: field {name!r}: not UTF-8 (byte {byte} in {show(value)})")
    return invalid(f"{where}, record {record}", name, text, EXPECTED_TYPE.get(str(types[name]), str(types[name])))
