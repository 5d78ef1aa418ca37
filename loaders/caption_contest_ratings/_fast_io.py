"""Reads caption_contest_ratings' CSV files and zipped CSVs in chunks held in Arrow's memory, in
threads of their own: a build inflates, parses and writes at once, in bounded memory, with exactly
the records and errors of each file read whole. Why each piece is as it is: SCALE.md, "How the
builder is fast"; `bench/caption_contest_ratings_build.py` measures it.
"""

import collections
import contextlib
import dataclasses
import functools
import itertools
import operator
import os
import struct
import typing
import zipfile
import zlib
from concurrent.futures import ThreadPoolExecutor

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from corpora.loader_shared.loader_common import check_is_data
from corpora.loader_shared.loader_common import invalid
from corpora.loader_shared.loader_common import no_records
from corpora.loader_shared.loader_common import show
from corpora.loader_shared.loader_common import utf8

try:  # ISA-L has zlib's interface
    from isal import isal_zlib as deflate
except ImportError:  # pragma: no cover - isal is a dependency of corpora; the loader works without
    deflate = zlib

BLOCK_SIZE = 16 << 20  # bytes of CSV per chunk, parsed into one record batch
READ_SIZE = 256 << 10  # compressed bytes inflated at a time: their output (about 1 MiB) stays in the cache
_HEADER_LIMIT = 1 << 16  # a header line is shorter than this

# mimalloc, Arrow's default, gives each freed chunk back to the system: the next one's first touch is slow.
MEMORY_POOL = pa.system_memory_pool()

ZIP_ERRORS = (zipfile.BadZipFile, EOFError, zlib.error, deflate.error)


# --- the files of a split ------------------------------------------------------------------------
def tables_of_files(read, tables_of, files, sources, min_rows):
    """(key, table) of every file: `read` gives its (where, chunk) pairs, `tables_of` its tables."""
    return read_ahead(gather_small_tables(_tables_of_each_file(read, tables_of, files, sources), min_rows))


def _tables_of_each_file(read, tables_of, files, sources):
    chunks = chunks_of_files(read, files, sources)
    with contextlib.closing(chunks):  # on an error, at once: no thread waits for the garbage collector
        for index, items in itertools.groupby(chunks, key=operator.itemgetter(0)):
            file, source = files[index], sources[index]
            for number, table in enumerate(tables_of(((where, chunk) for _, where, chunk in items), file, source)):
                yield f"{os.path.basename(source)}:{number}", table


def chunks_of_files(read, files, sources):
    """(file index, where, chunk) of every file, read (inflated) in a worker thread two chunks ahead."""
    chunks = (
        (index, where, chunk)
        for index, (file, source) in enumerate(zip(files, sources, strict=True))
        for where, chunk in read(file, source)
    )
    return read_ahead(chunks, depth=2)


def count_records_of_files(read, whole, paths):
    """The CSV records of the files `paths` (`count_records`); `whole` is None where `read` gives one chunk."""
    names = [os.path.basename(path) for path in paths]
    total = 0
    with contextlib.closing(chunks_of_files(read, paths, names)) as chunks:
        for index, items in itertools.groupby(chunks, key=operator.itemgetter(0)):
            read_whole = None if whole is None else functools.partial(whole, paths[index], names[index])
            total += count_records((chunk for _, _, chunk in items), read_whole)
    return total


def read_ahead(items, depth=3):
    """The items of the generator `items`, each computed in a worker thread up to `depth` ahead."""
    end = object()
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="caption-contest-read-ahead")
    ahead = collections.deque()
    try:
        ahead.extend(pool.submit(next, items, end) for _ in range(depth))
        while (item := ahead.popleft().result()) is not end:
            ahead.append(pool.submit(next, items, end))
            yield item
    finally:
        # Never wait for the worker: the garbage collector may close this generator inside threading's locks.
        for step in ahead:
            step.cancel()
        try:
            pool.submit(items.close)
        except RuntimeError:  # the interpreter is shutting down: its exit already stopped the worker
            pass
        pool.shutdown(wait=False)


def gather_small_tables(tables, min_rows):
    """(key, table) pairs with tables under a quarter of `min_rows` joined into ones of about `min_rows`."""
    pending, pending_rows, first = [], 0, None
    for key, table in tables:
        if table.num_rows >= min_rows // 4:
            if pending:
                yield first, pa.concat_tables(pending)
                pending, pending_rows = [], 0
            yield key, table
            continue
        if not pending:
            first = key
        pending.append(table)
        pending_rows += table.num_rows
        if pending_rows >= min_rows:
            yield first, pa.concat_tables(pending)
            pending, pending_rows = [], 0
    if pending:
        yield first, pa.concat_tables(pending)


# --- source bytes in Arrow's memory --------------------------------------------------------------
def file_chunks(open_file, file, source):
    """(where, chunk) of a file read whole into one chunk."""
    with open_file(file, "rb") as f:
        yield source, copy_to_arrow_memory([f.read()])


def archive_chunks(open_file, file, source):
    """(`<archive>!<member>`, chunk) of the CSV of a zip archive, inflated as it is read."""
    with open_file(file, "rb") as raw, _open_archive(raw, source) as (archive, member):
        chunks = record_chunks(member_pieces(raw, archive, member), BLOCK_SIZE)
        while True:
            try:  # only the read: a generator left open is closed at exit, maybe after the module's names
                chunk = next(chunks, None)
            except ZIP_ERRORS as error:
                raise _corrupt(source, error) from None
            if chunk is None:
                return
            yield f"{source}!{member}", chunk


def archive_whole(open_file, file, source):
    """The CSV of a zip archive, inflated whole."""
    with open_file(file, "rb") as raw, _open_archive(raw, source) as (archive, member):
        try:
            return read_member(raw, archive, member)
        except ZIP_ERRORS as error:
            raise _corrupt(source, error) from None


@contextlib.contextmanager
def _open_archive(raw, source):
    """(zipfile.ZipFile, its one CSV) of the zip archive open as `raw`."""
    head = raw.read(1 << 12)
    raw.seek(0)
    if not head.startswith(b"PK\x03\x04"):
        check_is_data(head, source, "a zip archive")
        raise ValueError(f"{source}: not a zip archive (starts with {show(head[:16])}); the download is corrupt")
    try:
        archive = zipfile.ZipFile(raw)
    except (zipfile.BadZipFile, EOFError, OSError) as error:
        raise _corrupt(source, error) from None
    with archive:
        yield archive, _archive_member(archive, source)


def _corrupt(source, error):
    return ValueError(f"{source}: corrupt zip archive ({error})")


def _archive_member(archive, source):
    names = [info.filename for info in archive.infolist() if not info.is_dir()]
    mac = [
        name
        for name in names
        if name.startswith("__MACOSX/") or "/__MACOSX/" in name or name.split("/")[-1].startswith("._")
    ]
    if mac:
        raise ValueError(f"{source}: has macOS resource entries ({', '.join(mac[:3])}); expected exactly one CSV file")
    if len(names) != 1:
        raise ValueError(f"{source}: expected exactly one CSV file in the archive, found {len(names)}: {names[:5]}")
    return names[0]


def read_member(raw, archive, member):
    """The archive member `member` inflated into a `pyarrow.Buffer`, its size and CRC-32 checked."""
    info = archive.getinfo(member)
    if not _can_read_directly(info):
        with archive.open(member) as f:
            return copy_to_arrow_memory([f.read()])
    out = pa.allocate_buffer(info.file_size, memory_pool=MEMORY_POOL)
    view = memoryview(out).cast("B")  # Arrow exports signed bytes
    size = 0
    for piece in member_pieces(raw, archive, member):
        if size + len(piece) <= info.file_size:  # a member longer than recorded is counted, not kept
            view[size : size + len(piece)] = piece
        size += len(piece)
    return out


def member_pieces(raw, archive, member):
    """The archive member `member` inflated in pieces of about 1 MiB, checked as zipfile checks them."""
    info = archive.getinfo(member)
    if not _can_read_directly(info):  # encrypted, or another method: zipfile inflates or refuses
        with archive.open(member) as f:
            yield from iter(lambda: f.read(READ_SIZE), b"")
        return
    raw.seek(_data_offset(raw, info))
    inflater = deflate.decompressobj(-15) if info.compress_type == zipfile.ZIP_DEFLATED else None
    size, crc, left = 0, 0, info.compress_size
    while left:
        compressed = raw.read(min(left, READ_SIZE))
        if not compressed:
            raise EOFError(f"the archive ends inside {info.filename!r}")
        left -= len(compressed)
        data = inflater.decompress(compressed) if inflater is not None else compressed
        crc = deflate.crc32(data, crc)
        size += len(data)
        if data:
            yield data
    if inflater is not None and not inflater.eof:
        raise EOFError("Compressed file ended before the end-of-stream marker was reached")
    if size != info.file_size:
        raise zipfile.BadZipFile(f"{info.filename!r} holds {size:,} bytes, the archive records {info.file_size:,}")
    if crc != info.CRC:
        raise zipfile.BadZipFile(f"Bad CRC-32 for file {info.filename!r}")


def _can_read_directly(info):
    return not info.flag_bits & 0x1 and info.compress_type in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)


def _data_offset(raw, info):
    header = b""
    if info.header_offset >= 0:  # negative where data is missing before the central directory
        raw.seek(info.header_offset)
        header = raw.read(30)
    if len(header) < 30 or header[:4] != b"PK\x03\x04":
        raise zipfile.BadZipFile(f"Bad magic number for file header of {info.filename!r}")
    name_length, extra_length = struct.unpack("<HH", header[26:30])
    return info.header_offset + 30 + name_length + extra_length


def record_chunks(pieces, size):
    """`pieces` in Arrow buffers of at least `size` bytes, each but the last cut after its last line feed."""
    held, held_size = [], 0
    newline = None  # (index in `held`, offset) of the last line feed held
    yielded = False
    for piece in pieces:
        held.append(piece)
        held_size += len(piece)
        at = piece.rfind(b"\n")
        if at >= 0:
            newline = len(held) - 1, at
        if held_size < size or newline is None:
            continue
        index, at = newline
        with memoryview(held[index]) as last:
            chunk = copy_to_arrow_memory(held[:index] + [last[: at + 1]])
            rest = [bytes(last[at + 1 :])] + held[index + 1 :]  # no line feed in the rest
        held = [part for part in rest if part]
        held_size, newline = sum(map(len, held)), None
        yielded = True
        yield chunk
    if held or not yielded:
        yield copy_to_arrow_memory(held)


def copy_to_arrow_memory(parts):
    """`parts` (bytes-like) copied into one buffer of Arrow's, the only source pyarrow's CSV reader gets."""
    out = pa.allocate_buffer(sum(memoryview(part).nbytes for part in parts), memory_pool=MEMORY_POOL)
    view = memoryview(out).cast("B")  # Arrow exports signed bytes
    at = 0
    for part in parts:
        with memoryview(part) as source, source.cast("B") as data:
            view[at : at + len(data)] = data
            at += len(data)
    return out


# --- CSV in chunks -------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class CsvFormat:
    """How a kind of CSV file is read: its header's check, each column's Arrow type, its records' name."""

    header: typing.Callable  # (source, names, crlf) -> the names, or a ValueError
    types: dict
    what: str
    pandas_written: bool = False  # quirks 21, nan-as-empty-cell; 22, integers-as-floats

    def read_type(self, name, floats=True):
        """A column's Arrow type; with `floats`, a pandas-written file's integers as float64."""
        target = self.types[name]
        return pa.float64() if floats and self.pandas_written and pa.types.is_integer(target) else target


def exact_headers(expected):
    """A `CsvFormat.header` that takes exactly one of `expected` (lists of names), with LF line ends."""

    def header(source, names, crlf):
        if crlf:
            raise ValueError(f"{source}: line 1 ends with CR LF; the release files use LF only")
        if names not in expected:
            shown = " or ".join(repr(",".join(header)) for header in expected)
            raise ValueError(f"{source}: unexpected header: expected columns {shown}; found {','.join(names)!r}")
        return names

    return header


def columns_by_name(columns, index_names):
    """A `CsvFormat.header` taking `columns` in any order after an optional index column, LF or CR LF."""

    def header(source, names, crlf):
        named = names[1:] if names and names[0] in index_names else names
        problems = [
            (f"unknown column(s) {', '.join(map(repr, unknown))}", unknown)
            for unknown in [[name for name in named if name not in columns]]
        ] + [
            (f"missing column(s) {', '.join(map(repr, missing))}", missing)
            for missing in [[name for name in columns if name not in named]]
        ] + [
            (f"repeated column(s) {', '.join(map(repr, repeated))}", repeated)
            for repeated in [sorted({name for name in named if named.count(name) > 1} & set(columns))]
        ]
        said = [text for text, names_ in problems if names_]
        if said:
            index = " or ".join(repr(name) for name in index_names)
            raise ValueError(
                f"{source}: unexpected header: {'; '.join(said)}; expected the columns {','.join(columns)!r} "
                f"in any order, after an optional pandas index column named {index}"
            )
        return names

    return header


def check_header(head, source, csv_format):
    """The header of a CSV file whose first bytes are `head` (names hold no newline or quote)."""
    check_is_data(head, source, "a CSV file")
    line, newline, _ = head.partition(b"\n")
    if not newline and len(head) >= _HEADER_LIMIT:
        raise ValueError(f"{source}: no line break in the first 64 KiB; not a CSV file")
    text = utf8(line, source, 1)
    return csv_format.header(source, text.rstrip("\r").split(","), text.endswith("\r"))


def file_batches(chunks, csv_format, whole=None):
    """(where, header, record offset, batch) of a file's (where, chunk) pairs (`csv_batches`)."""
    chunks = iter(chunks)
    where, first = next(chunks)
    data = itertools.chain([first], (chunk for _, chunk in chunks))
    for header, offset, batch in csv_batches(data, where, csv_format, whole):
        yield where, header, offset, batch


def csv_batches(chunks, source, csv_format, whole=None):
    """(header, record offset, batch) of a CSV file cut after line feeds; `chunks` is the whole file
    unless `whole` is given: it reads the file whole where the chunks do not parse."""
    chunks = iter(chunks)
    first = next(chunks)
    header = check_header(first[:_HEADER_LIMIT].to_pybytes(), source, csv_format)
    floats = []  # set once a chunk's integers were floats: the file's later ones are read so too
    if whole is None:
        try:
            # One block, as pyarrow's own block may cut a quoted CR LF: tests/test_caption_contest_ratings_pandas.py
            read = [(first, _parse_chunk(first, header, csv_format, True, True, floats))]
        except pa.ArrowInvalid as error:
            raise _conversion_error(first, source, header, csv_format, error) from None
    else:
        parse = functools.partial(_parse_chunk, header=header, csv_format=csv_format, one_batch=True, floats=floats)
        read = _batches_across_cuts(itertools.chain([first], chunks), parse)
    offset, last = 0, first
    for chunk, batches in read:
        if chunk is None:
            again = csv_batches([whole()], source, csv_format)
            yield from _from_record(again, offset)
            return
        for batch in batches:
            yield header, offset, _exact_integers(batch, csv_format, source, offset)
            offset += batch.num_rows
        last = chunk
    if offset == 0:
        raise no_records(source, f"{csv_format.what} after the header")
    if last[last.size - 1 :].to_pybytes() != b"\n":
        raise ValueError(f"{source}: does not end with a line feed after record {offset}; the file is truncated")


def _exact_integers(batch, csv_format, source, offset):
    """`batch` with the integer columns read as floats as integers (quirk 22, integers-as-floats)."""
    if not csv_format.pandas_written:
        return batch
    columns = []
    for name, column in zip(batch.schema.names, batch.columns, strict=True):
        target = csv_format.types[name]
        if pa.types.is_integer(target) and pa.types.is_floating(column.type):
            # From 2**53 on (either sign) a float may be the rounding of another integer of the text.
            exact = target.bit_width <= 53 or (pc.max(pc.abs(column)).as_py() or 0) < 2.0**53
            try:
                integers = column.cast(target) if exact else None  # a safe cast: refuses a fraction, NaN, inf
            except pa.ArrowInvalid:
                integers = None
            if integers is None:  # raise the error of the first value that is not an integer in range
                not_integral = pc.not_equal(column, pc.trunc(column))  # NaN too
                if target.bit_width <= 53:  # the type's range
                    out_of_range = pc.or_(pc.less(column, -(2.0 ** (target.bit_width - 1))),
                                          pc.greater_equal(column, 2.0 ** (target.bit_width - 1)))
                else:
                    out_of_range = pc.greater_equal(pc.abs(column), 2.0**53)
                bad = pc.fill_null(pc.or_(not_integral, out_of_range), False)
                check_rows(source, offset, batch, name, bad, _EXPECTED_TYPE[str(target)])
            column = integers
        columns.append(column)
    return pa.RecordBatch.from_arrays(columns, names=batch.schema.names)


def _batches_across_cuts(chunks, parse):
    """(chunk, its batches) of a file's chunks, a chunk cut inside a quoted value joined with the next;
    (None, None) last where that fails too: the caller reads the file whole."""
    carried, with_header = None, True
    for chunk in chunks:
        merged = carried is not None
        if merged:
            chunk, carried = copy_to_arrow_memory([carried, chunk]), None
        try:
            batches = parse(chunk, with_header=with_header)
            unsure = _may_end_inside_quotes(batches)
        except pa.ArrowInvalid:
            unsure = True
        if unsure and merged:  # two chunks in a row that do not read: an error, or a second bad cut
            yield None, None
            return
        if unsure:
            carried = chunk
            continue
        with_header = False
        yield chunk, batches
    if carried is not None:
        yield None, None


def _read_options(chunk, names, with_header, one_batch):
    block_size = min(max(BLOCK_SIZE, chunk.size + 1), 1 << 30) if one_batch else BLOCK_SIZE
    return pa_csv.ReadOptions(block_size=block_size, use_threads=False, column_names=None if with_header else names)


def _parse_chunk(chunk, header, csv_format, with_header, one_batch, floats):
    """A chunk's record batches; a pandas-written file's integers as floats where they do not parse."""
    if not floats:
        try:
            return _parse_typed(chunk, header, csv_format, with_header, one_batch, False)
        except pa.ArrowInvalid:
            if not csv_format.pandas_written:
                raise
    batches = _parse_typed(chunk, header, csv_format, with_header, one_batch, True)
    floats[:] = [True]
    return batches


def _parse_options(csv_format):
    # A pandas-written file is read as pandas reads it: a blank line is no record (FORMAT.md, "Blank lines").
    return pa_csv.ParseOptions(newlines_in_values=True, ignore_empty_lines=csv_format.pandas_written)


def _parse_typed(chunk, header, csv_format, with_header, one_batch, floats):
    nulls = csv_format.pandas_written
    reader = pa_csv.open_csv(
        pa.BufferReader(chunk),
        read_options=_read_options(chunk, header, with_header, one_batch),
        parse_options=_parse_options(csv_format),
        convert_options=pa_csv.ConvertOptions(
            column_types={name: csv_format.read_type(name, floats) for name in header},
            null_values=[""] if nulls else [],
            strings_can_be_null=nulls,
            quoted_strings_can_be_null=nulls,
        ),
    )
    with reader:
        return list(reader)


def _may_end_inside_quotes(batches):
    """Whether a chunk cut inside a quoted value could have parsed: its last value ends in a line feed."""
    batches = [batch for batch in batches if batch.num_rows]
    if not batches:
        return False
    value = batches[-1].column(batches[-1].num_columns - 1)[-1].as_py()
    if isinstance(value, str):
        return value.endswith("\n")
    return isinstance(value, bytes) and value.endswith(b"\n")


def _from_record(batches, records):
    """The (header, offset, batch) of `batches` from record `records` on."""
    for header, offset, batch in batches:
        if offset + batch.num_rows <= records:
            continue
        if offset < records:
            batch, offset = batch.slice(records - offset), records
        yield header, offset, batch


def check_rows(where, offset, batch, field, bad, expected):
    """Raise the error of the first row of `batch` (record `offset` + 1 on) where `bad` is true or null."""
    bad = pc.fill_null(bad, True)
    if not pc.any(bad).as_py():
        return
    index = pc.index(bad, True).as_py()
    raise invalid(f"{where}, record {offset + index + 1}", field, batch.column(field)[index].as_py(), expected)


def check_columns(check, fields, header, context):
    """Each column check of a table of `Field`s on the columns of `header`, in the table's order."""
    for name, field in fields.items():
        column = field.source(name)
        if column in header:
            for bad, expected in field.column_checks():
                check(column, bad(context["column"](column), context), expected.format_map(context))


def constant_column(value, type_, length):
    return pa.nulls(length, type_) if value is None else pa.repeat(pa.scalar(value, type_), length)


def _conversion_error(data, source, header, csv_format, error):
    """The ValueError of an Arrow error: the first value that does not convert (a binary search)."""
    message = str(error).split("\n")[0]
    if "CSV conversion error" not in message:
        return ValueError(f"{source}: invalid CSV ({message})")
    offset = 0
    reader = pa_csv.open_csv(
        pa.BufferReader(data),
        read_options=pa_csv.ReadOptions(block_size=BLOCK_SIZE, use_threads=False),
        parse_options=_parse_options(csv_format),
        convert_options=pa_csv.ConvertOptions(column_types={name: pa.binary() for name in header}),
    )
    for batch in reader:
        for name in header:
            column = batch.column(name)
            target = csv_format.read_type(name)
            cast = functools.partial(_cast, target=target, empty_is_null=csv_format.pandas_written)
            try:
                cast(column)
                continue
            except (pa.ArrowInvalid, UnicodeDecodeError):
                pass
            lo, hi = 0, len(column)  # the first bad value is in [lo, hi)
            while hi - lo > 1:
                mid = (lo + hi) // 2
                try:
                    cast(column.slice(lo, mid - lo))
                    lo = mid
                except (pa.ArrowInvalid, UnicodeDecodeError):
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
            return invalid(where, name, text, _EXPECTED_TYPE.get(str(expected), str(expected)))
        offset += batch.num_rows
    return ValueError(f"{source}: invalid CSV ({message})")


_EXPECTED_TYPE = {
    "int32": "an integer",
    "int64": "an integer",
    "double": "a number",
    "timestamp[us]": "a timestamp YYYY-MM-DD HH:MM:SS[.ffffff]",
    "string": "UTF-8 text",
}


def _cast(column, target, empty_is_null):
    strings = column.cast(pa.string())  # validates UTF-8
    if pa.types.is_string(target):
        return strings
    empty = pc.equal(strings, "")
    if empty_is_null:
        strings = pc.if_else(empty, pa.scalar(None, pa.string()), strings)
    elif len(strings) and pc.any(empty).as_py():
        raise pa.ArrowInvalid("empty value")
    return strings.cast(target)


def count_records(chunks, whole=None):
    """The records of a CSV file read as `csv_batches` reads it, converting only the last column."""
    chunks = iter(chunks)
    first = next(chunks)
    line = first[:_HEADER_LIMIT].to_pybytes().split(b"\n", 1)[0].rstrip(b"\r")
    names = [name.decode("utf-8", "replace") for name in line.split(b",")]
    if whole is None:
        return sum(batch.num_rows for batch in _last_column(first, names, True, False))
    total = 0
    parse = functools.partial(_last_column, names=names, one_batch=True)
    for chunk, batches in _batches_across_cuts(itertools.chain([first], chunks), parse):
        if chunk is None:
            return sum(batch.num_rows for batch in _last_column(whole(), names, True, False))
        total += sum(batch.num_rows for batch in batches)
    return total


def _last_column(chunk, names, with_header, one_batch):
    reader = pa_csv.open_csv(
        pa.BufferReader(chunk),
        read_options=_read_options(chunk, names, with_header, one_batch),
        parse_options=pa_csv.ParseOptions(newlines_in_values=True),
        convert_options=pa_csv.ConvertOptions(include_columns=names[-1:], column_types={names[-1]: pa.binary()}),
    )
    with reader:
        return list(reader)
