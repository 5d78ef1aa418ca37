"""Reading caption_contest_ratings' CSV files in chunks of records held in Arrow's memory, in
threads of their own, buys builds that inflate, parse and write at once in bounded memory, with
exactly the records and errors of each file read whole.

- Reading: a small file is one chunk (`file_chunks`); a zip archive's one CSV member is inflated
  with ISA-L (the `isal` package; zlib where it is missing) straight from the archive file, never
  extracted, and cut after line feeds into chunks of about `BLOCK_SIZE` (`record_chunks`), so
  memory holds a few chunks, not whole members (the largest is about 160 MB of CSV).
- Arrow's memory: pyarrow's CSV reader reads its source in an I/O thread of its own; given a
  Python object that thread calls into Python, and doing so while the interpreter shuts down (a
  streaming iterator left open at exit) aborts the process. Arrow's own memory needs no GIL.
- Parsing (`csv_batches`): a line feed inside a quoted value makes a wrong cut; every cut is
  checked and a chunk that may end inside a value is read again with the next one; where that
  fails too, the file is read whole. A bad value is located by its record (`check_rows`).
- Threads (`tables_of_files`): one reads (inflates) the next chunks, one parses and checks the
  next tables, while datasets writes the current one. Inflating, parsing and writing release the
  GIL, so one process keeps two cores busy. Small tables are joined (`gather_small_tables`).

Only the standard library, pyarrow and, where installed, isal; files are opened by the caller's
`open_file` (the loader passes datasets' `xopen`). `bench/caption_contest_ratings_build.py` measures the
pieces (figures in loaders/caption_contest_ratings/SCALE.md).
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

# The source bytes are held in buffers of the system allocator: a build allocates and frees one
# of 16 MiB or more per chunk, which Arrow's default allocator (mimalloc) gives back to the
# system and takes again, so that every chunk's memory is touched for the first time, slowly.
MEMORY_POOL = pa.system_memory_pool()

# What reading a damaged archive raises, with either inflater.
ZIP_ERRORS = (zipfile.BadZipFile, EOFError, zlib.error, deflate.error)


# --- the files of a split ------------------------------------------------------------------------


def tables_of_files(read, tables_of, files, sources, min_rows):
    """(key, table) for the tables of every file, small ones joined up to about `min_rows` rows.
    `read(file, source)` gives a file's (where, chunk) pairs, `tables_of(pairs, file, source)` its
    tables. Reading, parsing and the consumer's writing each run in a thread of their own."""
    return read_ahead(gather_small_tables(_tables_of_each_file(read, tables_of, files, sources), min_rows))


def _tables_of_each_file(read, tables_of, files, sources):
    """(key, table) for the tables of each file, parsed while the next chunks are read. An error
    closes that reader at once (`closing`), so no thread waits for the garbage collector."""
    chunks = chunks_of_files(read, files, sources)
    with contextlib.closing(chunks):
        for index, items in itertools.groupby(chunks, key=operator.itemgetter(0)):
            file, source = files[index], sources[index]
            for number, table in enumerate(tables_of(((where, chunk) for _, where, chunk in items), file, source)):
                yield f"{os.path.basename(source)}:{number}", table


def chunks_of_files(read, files, sources):
    """(file index, where, chunk) for the chunks of every file (`read(file, source)` gives
    (where, chunk) pairs), read (inflated) in a worker thread up to two chunks ahead."""
    chunks = (
        (index, where, chunk)
        for index, (file, source) in enumerate(zip(files, sources, strict=True))
        for where, chunk in read(file, source)
    )
    return read_ahead(chunks, depth=2)


def count_records_of_files(read, whole, paths):
    """The CSV records of the files `paths`, read as `read` gives them (see `count_records`);
    `whole(file, source)` reads one whole, or is None where `read` gives a file in one chunk."""
    names = [os.path.basename(path) for path in paths]
    total = 0
    with contextlib.closing(chunks_of_files(read, paths, names)) as chunks:
        for index, items in itertools.groupby(chunks, key=operator.itemgetter(0)):
            read_whole = None if whole is None else functools.partial(whole, paths[index], names[index])
            total += count_records((chunk for _, _, chunk in items), read_whole)
    return total


def read_ahead(items, depth=3):
    """The items of the generator `items`, each computed in a worker thread up to `depth` ahead.

    The worker runs one `next(items)` at a time and never waits for the consumer, so it is idle
    whenever the consumer is. When the consumer stops, early or not, the steps not begun are
    cancelled and closing `items` is the worker's last step: nothing here waits for the worker,
    because the garbage collector may close an abandoned generator in any thread, even one inside
    `threading`'s own locks, where a join deadlocks. Errors are raised to the consumer in order."""
    end = object()
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="caption-contest-read-ahead")
    ahead = collections.deque()
    try:
        ahead.extend(pool.submit(next, items, end) for _ in range(depth))
        while (item := ahead.popleft().result()) is not end:
            ahead.append(pool.submit(next, items, end))
            yield item
    finally:
        for step in ahead:
            step.cancel()
        try:
            pool.submit(items.close)
        except RuntimeError:  # the interpreter is shutting down: its exit already stopped the worker
            pass
        pool.shutdown(wait=False)


def gather_small_tables(tables, min_rows):
    """(key, table) for (key, table) pairs: tables under a quarter of `min_rows` are joined into
    tables of about `min_rows` rows, keyed by their first part; bigger ones pass as they are
    (joining them would only copy). Each table becomes a record batch or a row group, and
    thousands of tiny ones (a summary file holds 5,400 rows on average) write and read slowly."""
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
    """(where, chunk) for a file read whole into one chunk, opened with `open_file(file, "rb")`."""
    with open_file(file, "rb") as f:
        yield source, copy_to_arrow_memory([f.read()])


def archive_chunks(open_file, file, source):
    """(where, chunk) for the CSV of a zip archive, opened with `open_file(file, "rb")`: its member
    inflated as it is read, in chunks of records (`record_chunks`); `where` names the member for
    messages (`<archive>!<member>`)."""
    with open_file(file, "rb") as raw, _open_archive(raw, source) as (archive, member):
        chunks = record_chunks(member_pieces(raw, archive, member), BLOCK_SIZE)
        while True:
            # Only the read is in the `try`: a generator left open is closed at exit, when the
            # module's names may already be gone.
            try:
                chunk = next(chunks, None)
            except ZIP_ERRORS as error:
                raise ValueError(f"{source}: corrupt zip archive ({error})") from None
            if chunk is None:
                return
            yield f"{source}!{member}", chunk


def archive_whole(open_file, file, source):
    """The CSV of a zip archive, opened with `open_file(file, "rb")`, inflated whole."""
    with open_file(file, "rb") as raw, _open_archive(raw, source) as (archive, member):
        try:
            return read_member(raw, archive, member)
        except ZIP_ERRORS as error:
            raise ValueError(f"{source}: corrupt zip archive ({error})") from None


@contextlib.contextmanager
def _open_archive(raw, source):
    """(zipfile.ZipFile, member) of the zip archive open as `raw` and its one CSV."""
    head = raw.read(1 << 12)
    raw.seek(0)
    if not head.startswith(b"PK\x03\x04"):
        check_is_data(head, source, "a zip archive")
        raise ValueError(f"{source}: not a zip archive (starts with {show(head[:16])}); the download is corrupt")
    try:
        archive = zipfile.ZipFile(raw)
    except (zipfile.BadZipFile, EOFError, OSError) as error:
        raise ValueError(f"{source}: corrupt zip archive ({error})") from None
    with archive:
        yield archive, _archive_member(archive, source)


def _archive_member(archive, source):
    """The one CSV of an archive; `__MACOSX/` entries or a second CSV are errors."""
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
    """The whole of the archive member `member`, inflated, as a `pyarrow.Buffer` in Arrow's memory,
    its size and CRC-32 checked (`member_pieces`)."""
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
    """The bytes of the archive member `member`, inflated, in pieces of about 1 MiB (bytes objects).
    Deflated and stored members are read straight from the archive file `raw` and inflated with
    `deflate` (ISA-L: about twice as fast as zipfile's zlib); after the last piece their size and
    CRC-32 are checked as zipfile checks them. Anything else (encrypted, other methods) is read by
    zipfile, which inflates with zlib or refuses."""
    info = archive.getinfo(member)
    if not _can_read_directly(info):
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
    """Where the member's data starts in the archive file: after its local header."""
    header = b""
    if info.header_offset >= 0:  # negative where data is missing before the central directory
        raw.seek(info.header_offset)
        header = raw.read(30)
    if len(header) < 30 or header[:4] != b"PK\x03\x04":
        raise zipfile.BadZipFile(f"Bad magic number for file header of {info.filename!r}")
    name_length, extra_length = struct.unpack("<HH", header[26:30])
    return info.header_offset + 30 + name_length + extra_length


def record_chunks(pieces, size):
    """The bytes of `pieces` (bytes objects, in order) in Arrow buffers of at least `size` bytes
    where the data allows: each but the last ends with the last line feed of the pieces read so
    far. That is a record boundary unless the line feed is inside a quoted value (in the real
    summaries 6,840 of 1,081,771 captions hold one); `csv_batches` checks each cut and reads
    across one that is not. Always at least one chunk, empty for empty data."""
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
    """The bytes of `parts` (bytes-like objects, pyarrow buffers included) copied into one buffer
    that Arrow allocated, the only kind of source pyarrow's CSV reader is given here (why: the
    module docstring)."""
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
    """How a kind of CSV file is read.

    - `header(source, names, crlf)`: the header the file's first line gives (its column `names`;
      `crlf`, whether it ends with CR LF), or a ValueError (`exact_headers`, `columns_by_name`);
    - `types`: the Arrow type of each column's values, by name;
    - `what`: the records' name in the error of a file without any;
    - `pandas_written`: written by pandas' `to_csv`, read as `pandas.read_csv` reads it: an empty
      cell, quoted or not, is null (pandas writes NaN as an empty cell), and an integer column may
      be written as floats (pandas writes a column with a NaN as `4181.0`): an integral float is
      that integer, any other value an error."""

    header: typing.Callable
    types: dict
    what: str
    pandas_written: bool = False

    def read_type(self, name, floats=True):
        """The Arrow type a column is parsed as: with `floats`, integers of a pandas-written file
        as float64 (a chunk whose integers do not parse as integers is parsed so)."""
        target = self.types[name]
        return pa.float64() if floats and self.pandas_written and pa.types.is_integer(target) else target


def exact_headers(expected):
    """A `CsvFormat.header` that takes exactly one of `expected` (lists of column names), with LF
    line ends."""

    def header(source, names, crlf):
        if crlf:
            raise ValueError(f"{source}: line 1 ends with CR LF; the release files use LF only")
        if names not in expected:
            shown = " or ".join(repr(",".join(header)) for header in expected)
            raise ValueError(f"{source}: unexpected header: expected columns {shown}; found {','.join(names)!r}")
        return names

    return header


def columns_by_name(columns, index_names):
    """A `CsvFormat.header` that takes the `columns` in any order, each once, after an optional
    first column named one of `index_names` (pandas' index), with LF or CR LF line ends."""

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
    """The header of a CSV file whose first bytes are `head`, as `csv_format.header` takes it;
    else a ValueError. Header names never contain newlines or quotes."""
    check_is_data(head, source, "a CSV file")
    line, newline, _ = head.partition(b"\n")
    if not newline and len(head) >= _HEADER_LIMIT:
        raise ValueError(f"{source}: no line break in the first 64 KiB; not a CSV file")
    text = utf8(line, source, 1)
    return csv_format.header(source, text.rstrip("\r").split(","), text.endswith("\r"))


def file_batches(chunks, csv_format, whole=None):
    """(where, header, record offset, batch) for a CSV file given as the (where, chunk) pairs of a
    reader (`file_chunks`, `archive_chunks`): `csv_batches` of its chunks, named in messages by
    the `where` of the first."""
    chunks = iter(chunks)
    where, first = next(chunks)
    data = itertools.chain([first], (chunk for _, chunk in chunks))
    for header, offset, batch in csv_batches(data, where, csv_format, whole):
        yield where, header, offset, batch


def csv_batches(chunks, source, csv_format, whole=None):
    """(header, record offset, batch) for every block of a CSV file given as `chunks`, Arrow
    buffers cut after line feeds (the first holds the header), read as `csv_format` says (a
    batch's columns are typed as its `types`).

    Without `whole`, `chunks` is the whole file in one buffer. With it, the chunks are read by
    `_batches_across_cuts`, and where they do not read, `whole()` returns the whole file, read in
    one piece: its records and errors are then exactly those of the file (the records already
    given are skipped). A conversion error is located by re-reading the file untyped
    (`_conversion_error`), only on that path."""
    chunks = iter(chunks)
    first = next(chunks)
    header = check_header(first[:_HEADER_LIMIT].to_pybytes(), source, csv_format)
    floats = []  # set once a chunk's integers were written as floats: the file's later ones are too
    if whole is None:
        try:
            # One block: pyarrow's reader drops the LF of a CR LF inside a quoted value where its
            # own block ends between the two (tests/test_caption_contest_ratings_pandas.py).
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
    """`batch` with its integer columns read as floats (`CsvFormat.read_type`) as integers; an
    empty cell stays null, a value that is not an integer of the column's type is an error."""
    if not csv_format.pandas_written:
        return batch
    columns = []
    for name, column in zip(batch.schema.names, batch.columns, strict=True):
        target = csv_format.types[name]
        if pa.types.is_integer(target) and pa.types.is_floating(column.type):
            # A float holds every integer of magnitude below 2**53 exactly; from 2**53 on (either
            # sign) it may be the rounding of another integer of the text, so it is refused.
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
    """(chunk, its record batches) for the chunks of a file, Arrow buffers cut after line feeds,
    the first holding the header; `parse(chunk, with_header=...)` gives a chunk's batches.

    A cut may be inside a quoted value. A chunk that does not parse, or whose last record may end
    inside a quoted value (`_may_end_inside_quotes`), is parsed again joined with the next chunk.
    Where that fails too, or the last chunk fails, the last item is (None, None): the caller reads
    the file whole."""
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
    """A chunk's read options: the first chunk holds the header, the others are named by it; read
    in blocks of `BLOCK_SIZE`, or as one batch (a chunk of records is about that size)."""
    block_size = min(max(BLOCK_SIZE, chunk.size + 1), 1 << 30) if one_batch else BLOCK_SIZE
    return pa_csv.ReadOptions(block_size=block_size, use_threads=False, column_names=None if with_header else names)


def _parse_chunk(chunk, header, csv_format, with_header, one_batch, floats):
    """The record batches of a chunk of CSV, typed by `csv_format.read_type`: a pandas-written
    file's integers as integers, and where they do not parse so, as floats (`_exact_integers`
    takes those back), for this chunk and, once `floats` says so, the file's later ones."""
    if not floats:
        try:
            return _parse_typed(chunk, header, csv_format, with_header, one_batch, False)
        except pa.ArrowInvalid:
            if not csv_format.pandas_written:
                raise
    batches = _parse_typed(chunk, header, csv_format, with_header, one_batch, True)
    floats[:] = [True]
    return batches


def _parse_typed(chunk, header, csv_format, with_header, one_batch, floats):
    nulls = csv_format.pandas_written
    reader = pa_csv.open_csv(
        pa.BufferReader(chunk),
        read_options=_read_options(chunk, header, with_header, one_batch),
        parse_options=pa_csv.ParseOptions(newlines_in_values=True, ignore_empty_lines=False),
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
    """Whether a chunk cut inside a quoted value could have parsed: its last record would then end
    in the value of its last column, cut after a line feed (in any other field the record is short
    of fields, and a value of a type other than text or bytes does not convert)."""
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
    """Raise the error of the first row of `batch` where the boolean array `bad` is true (or
    null): its value of `field` is not `expected`. The batch starts at record `offset` + 1 of the
    file `where` (as `csv_batches` gives them)."""
    bad = pc.fill_null(bad, True)
    if not pc.any(bad).as_py():
        return
    index = pc.index(bad, True).as_py()
    raise invalid(f"{where}, record {offset + index + 1}", field, batch.column(field)[index].as_py(), expected)


def _conversion_error(data, source, header, csv_format, error):
    """The ValueError for an Arrow error: the first record and field whose value does not convert,
    found by a binary search of each untyped column."""
    message = str(error).split("\n")[0]
    if "CSV conversion error" not in message:
        return ValueError(f"{source}: invalid CSV ({message})")
    offset = 0
    reader = pa_csv.open_csv(
        pa.BufferReader(data),
        read_options=pa_csv.ReadOptions(block_size=BLOCK_SIZE, use_threads=False),
        parse_options=pa_csv.ParseOptions(newlines_in_values=True, ignore_empty_lines=False),
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
    """The records of a CSV file given as chunks cut after line feeds, read as `csv_batches`
    reads them (`_batches_across_cuts`), converting only the last column; where the chunks do not
    read, the whole file is counted (`whole()`), which raises what reading it whole raises.
    Without `whole`, `chunks` is the whole file."""
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
    """The record batches of a chunk of CSV with only its last column, as raw bytes."""
    reader = pa_csv.open_csv(
        pa.BufferReader(chunk),
        read_options=_read_options(chunk, names, with_header, one_batch),
        parse_options=pa_csv.ParseOptions(newlines_in_values=True),
        convert_options=pa_csv.ConvertOptions(include_columns=names[-1:], column_types={names[-1]: pa.binary()}),
    )
    with reader:
        return list(reader)
