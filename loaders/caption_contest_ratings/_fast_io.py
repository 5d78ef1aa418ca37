"""Reading machinery of the caption_contest_ratings loader, kept apart so that the loader reads
like a plain script. `bench/caption_contest_build.py` measures each piece (figures in
docs/caption_contest_ratings.md):

- Every source file is read whole into memory that Arrow allocated (`read_member`,
  `arrow_bytes`), so that pyarrow's CSV reader, which reads in an I/O thread of its own, never
  calls into Python: through a Python file object, that thread aborted the process when it ran
  while the interpreter shut down (a streaming iterator left open at exit). A file in memory costs
  its size (the largest release member is about 160 MB of CSV).
- `read_member` inflates a deflated or stored zip member straight from the archive file with
  ISA-L (the `isal` package; zlib where it is missing): about twice as fast as zipfile's zlib.
  Like zipfile it checks the member's size and CRC-32.
- `read_ahead` runs a generator ahead in a worker thread. The loader has two: one reads
  (inflates) the next file, one parses and checks the next tables, while datasets writes the
  current one. Inflating, parsing and writing release the GIL: on an idle 2-core machine the
  builder takes 2.85 s for 5 M cardinal rows with them and 5.22 s without (4.70 s and 5.22 s
  of CPU; `bench/caption_contest_build.py`).
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

# What reading a damaged archive raises, with either inflater.
ZIP_ERRORS = (zipfile.BadZipFile, EOFError, zlib.error, deflate.error)


def read_member(raw, archive, member):
    """The whole of the archive member `member`, inflated, as a `pyarrow.Buffer` (see `arrow_bytes`).
    Deflated and stored members are read straight from the archive file `raw` and inflated with
    `deflate`, their size and CRC-32 checked as zipfile checks them; anything else (encrypted,
    other methods) is read by zipfile, which inflates with zlib or refuses."""
    info = archive.getinfo(member)
    if info.flag_bits & 0x1 or info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        with archive.open(member) as f:
            return arrow_bytes(f.read())
    raw.seek(_data_offset(raw, info))
    out = pa.allocate_buffer(info.file_size)
    view = memoryview(out).cast("B")  # Arrow exports signed bytes
    inflater = deflate.decompressobj(-15) if info.compress_type == zipfile.ZIP_DEFLATED else None
    size, crc, left = 0, 0, info.compress_size
    while left:
        chunk = raw.read(min(left, CHUNK))
        if not chunk:
            raise EOFError(f"the archive ends inside {info.filename!r}")
        left -= len(chunk)
        data = inflater.decompress(chunk) if inflater is not None else chunk
        if size + len(data) <= info.file_size:  # a member longer than recorded is counted, not kept
            view[size : size + len(data)] = data
        crc = deflate.crc32(data, crc)
        size += len(data)
    if inflater is not None and not inflater.eof:
        raise EOFError("Compressed file ended before the end-of-stream marker was reached")
    if size != info.file_size:
        raise zipfile.BadZipFile(f"{info.filename!r} holds {size:,} bytes, the archive records {info.file_size:,}")
    if crc != info.CRC:
        raise zipfile.BadZipFile(f"Bad CRC-32 for file {info.filename!r}")
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


def arrow_bytes(data):
    """`data` copied into memory that Arrow allocated. pyarrow's CSV reader reads its source in an
    I/O thread of its own; a file object or a Python-owned buffer makes that thread call into
    Python, and when it did so while the interpreter shut down (a streaming iterator left open,
    or only a reader freed late), Python aborted the process. Arrow's own memory needs no GIL."""
    out = pa.allocate_buffer(len(data))
    memoryview(out).cast("B")[:] = data
    return out


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
