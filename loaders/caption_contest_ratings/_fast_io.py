"""Reading machinery of the caption_contest_ratings loader, kept apart so that the loader reads
like a plain script. `bench/caption_contest_build.py` measures each piece (figures in
docs/caption_contest_ratings.md):

- Source bytes reach pyarrow's CSV reader only from memory that Arrow allocated (`joined`,
  `read_member`): that reader reads in an I/O thread of its own, and from a Python
  file object that thread calls into Python; when it did so while the interpreter shut down (a
  streaming iterator left open at exit), Python aborted the process.
- `member_pieces` inflates a deflated or stored zip member straight from the archive file with
  ISA-L (the `isal` package; zlib where it is missing): about twice as fast as zipfile's zlib.
  Like zipfile it checks the member's size and CRC-32 (after the last piece).
- `record_chunks` cuts the inflated bytes into chunks of about 16 MiB after a line feed, so a
  response archive is parsed while it is inflated and memory holds a few chunks, not whole files
  (the largest release member is about 160 MB of CSV). A line feed may be inside a quoted value;
  the loader checks every cut (`_chunk_batches`). On 5 M cardinal rows, the versions run in turn
  on the same files: against reading each file whole, `num_proc=2` 3.34 s instead of 4.49 s and
  `num_proc=1` 3.21 s instead of 4.09 s (medians of 3); against the loader before whole files
  (a Python file object streamed to pyarrow), 3.38 s and 3.43 s, 3.61 s and 4.37 s (medians of 5).
- `read_ahead` runs a generator ahead in a worker thread. The loader has two: one reads
  (inflates) the next chunks, one parses and checks the next tables, while datasets writes the
  current one. Inflating, parsing and writing release the GIL: one process keeps both cores of
  a 2-core machine busy (5 M cardinal rows: 3.28 s with them, 5.49 s without).
- `gathered` joins the tables of small files (a summary file holds 5,400 rows on average): each
  table becomes a record batch or a row group, and thousands of tiny ones write and read slowly.

Only the standard library, pyarrow and, where installed, isal: datasets 3.x copies this module
along with the loading script.
"""

import collections
import struct
import zipfile
import zlib
from concurrent.futures import ThreadPoolExecutor

import pyarrow as pa

try:  # ISA-L has zlib's interface
    from isal import isal_zlib as deflate
except ImportError:  # pragma: no cover - isal is a dependency of corpora; the loader works without
    deflate = zlib

# The source bytes are held in buffers of the system allocator: a build allocates and frees one
# of 16 MiB or more per chunk, which Arrow's default allocator (mimalloc) gives back to the
# system and takes again, so every chunk's memory is touched for the first time, and that is
# slow here. With the system allocator, 5 M cardinal rows with `num_proc=2` took 3.09 s (5.79 s
# of CPU) instead of 5.85 s (10.59 s); `num_proc=1` 3.38 s instead of 3.88 s (medians of 3).
MEMORY_POOL = pa.system_memory_pool()

# What reading a damaged archive raises, with either inflater.
ZIP_ERRORS = (zipfile.BadZipFile, EOFError, zlib.error, deflate.error)


def read_member(raw, archive, member):
    """The whole of the archive member `member`, inflated, as a `pyarrow.Buffer` (see `joined`),
    its size and CRC-32 checked (`member_pieces`)."""
    info = archive.getinfo(member)
    if not _read_directly(info):
        with archive.open(member) as f:
            return joined([f.read()])
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
    `deflate`; after the last piece their size and CRC-32 are checked as zipfile checks them.
    Anything else (encrypted, other methods) is read by zipfile, which inflates with zlib or
    refuses."""
    info = archive.getinfo(member)
    if not _read_directly(info):
        with archive.open(member) as f:
            yield from iter(lambda: f.read(CHUNK), b"")
        return
    raw.seek(_data_offset(raw, info))
    inflater = deflate.decompressobj(-15) if info.compress_type == zipfile.ZIP_DEFLATED else None
    size, crc, left = 0, 0, info.compress_size
    while left:
        chunk = raw.read(min(left, CHUNK))
        if not chunk:
            raise EOFError(f"the archive ends inside {info.filename!r}")
        left -= len(chunk)
        data = inflater.decompress(chunk) if inflater is not None else chunk
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


def _read_directly(info):
    return not info.flag_bits & 0x1 and info.compress_type in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)


def record_chunks(pieces, size):
    """The bytes of `pieces` (bytes objects, in order) in Arrow buffers (`joined`) of at least
    `size` bytes where the data allows: each but the last ends with the last line feed of the
    pieces read so far. That is a record boundary unless the line feed is inside a quoted value
    (in the real summaries 6,840 of 1,081,771 captions hold one); the loader checks each cut and reads
    across one that is not (`_chunk_batches`). Always at least one chunk, empty for empty data."""
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
            chunk = joined(held[:index] + [last[: at + 1]])
            rest = [bytes(last[at + 1 :])] + held[index + 1 :]  # no line feed in the rest
        held = [part for part in rest if part]
        held_size, newline = sum(map(len, held)), None
        yielded = True
        yield chunk
    if held or not yielded:
        yield joined(held)


def joined(parts):
    """The bytes of `parts` (bytes-like objects, pyarrow buffers included) copied into one buffer
    that Arrow allocated. pyarrow's CSV reader reads its source in an I/O thread of its own; a
    file object or a Python-owned buffer makes that thread call into Python, and when it did so
    while the interpreter shut down (a streaming iterator left open, or only a reader freed late),
    Python aborted the process. Arrow's own memory needs no GIL."""
    out = pa.allocate_buffer(sum(memoryview(part).nbytes for part in parts), memory_pool=MEMORY_POOL)
    view = memoryview(out).cast("B")  # Arrow exports signed bytes
    at = 0
    for part in parts:
        with memoryview(part) as source, source.cast("B") as data:
            view[at : at + len(data)] = data
            at += len(data)
    return out


CHUNK = 256 << 10  # compressed bytes inflated at a time: their output (about 1 MiB) stays in the cache


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


def read_ahead(items, depth=3):
    """The items of the generator `items`, each computed in a worker thread up to `depth` ahead
    (3: as many tables in memory as the queue-and-thread version this replaced).

    The worker runs one `next(items)` at a time and never waits for the consumer, so it is idle
    whenever the consumer is. When the consumer stops, early or not, the steps not begun are
    cancelled and closing `items` is the worker's last step: nothing here waits for the worker.
    That matters because the garbage collector may close an abandoned generator in any thread,
    even one inside `threading`'s own locks (a join there deadlocked the test suite). Errors are
    raised to the consumer in order."""
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


def gathered(tables, min_rows):
    """(key, table) for (key, table) pairs: tables under a quarter of `min_rows` are joined into
    tables of about `min_rows` rows, keyed by their first part; bigger ones pass as they are
    (joining them would only copy)."""
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
