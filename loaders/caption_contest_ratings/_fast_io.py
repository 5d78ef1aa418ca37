"""Reading machinery of the caption_contest_ratings loader, kept apart so that the loader reads
like a plain script. `bench/caption_contest_build.py` measures each piece (figures in
docs/caption_contest_ratings.md):

- `Member` reads a deflated or stored zip member straight from the archive file and inflates it
  with ISA-L (the `isal` package; zlib where it is missing): about twice as fast as zipfile's
  zlib. Like zipfile it checks the member's size and CRC-32 at its end.
- `Tail` hands a file's bytes to pyarrow's CSV reader unchanged and keeps the last byte (a
  truncated file ends without a line feed): RawIOBase's default `read` copied every 16 MiB block
  twice.
- `read_ahead` reads the next tables in a worker thread while datasets writes the current one.
  Parsing, inflating and writing release the GIL, so on an idle 2-core machine one process kept
  both cores busy (19.1 s of CPU in 10.5 s for 20 M cardinal rows). With other work on the
  cores it buys nothing and costs nothing (CPU time with and without it within 1%).
- `gathered` joins the tables of small files (a summary file holds 5,400 rows on average): each
  table becomes a record batch or a row group, and thousands of tiny ones write and read slowly.

Only the standard library, pyarrow and, where installed, isal: datasets 3.x copies this module
along with the loading script.
"""

import collections
import io
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


def open_member(raw, archive, member):
    """A file object for an archive member: deflated and stored members are read by `Member`,
    anything else (encrypted, other methods) by zipfile, which inflates with zlib or refuses."""
    info = archive.getinfo(member)
    if info.flag_bits & 0x1 or info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        return archive.open(member)
    return Member(raw, info)


class Reader(io.RawIOBase):
    """A readable raw stream whose subclasses define `read`; `readinto` copies once."""

    def readable(self):
        return True

    def readinto(self, buffer):
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


class Tail(Reader):
    """A pass-through reader that remembers the last byte read."""

    def __init__(self, raw):
        self.raw = raw
        self.last = b""

    def read(self, size=-1):
        data = self.raw.read(size)
        if data:
            self.last = data[-1:]
        return data


class Member(Reader):
    """The bytes of one deflated or stored zip member `info`, read from the archive file `f`."""

    CHUNK = 4 << 20  # compressed bytes per read: about the CSV reader's block size once inflated

    def __init__(self, f, info):
        header = b""
        if info.header_offset >= 0:  # negative where data is missing before the central directory
            f.seek(info.header_offset)
            header = f.read(30)
        if len(header) < 30 or header[:4] != b"PK\x03\x04":
            raise zipfile.BadZipFile(f"Bad magic number for file header of {info.filename!r}")
        name_length, extra_length = struct.unpack("<HH", header[26:30])
        self._file = f
        self._info = info
        self._start = info.header_offset + 30 + name_length + extra_length
        self.seek(0)

    def seek(self, offset, whence=io.SEEK_SET):
        """Only back to the start (the CSV reader reads the header first, then starts again)."""
        if (offset, whence) != (0, io.SEEK_SET):
            raise io.UnsupportedOperation("a zip member can only be read again from its start")
        self._file.seek(self._start)
        self._compressed_left = self._info.compress_size
        self._inflater = deflate.decompressobj(-15) if self._info.compress_type == zipfile.ZIP_DEFLATED else None
        self._crc = 0
        self._size = 0
        self._done = False
        return 0

    def tell(self):
        return self._size

    def read(self, size=-1):
        """Up to `size` bytes (all that is left for -1): as many as one compressed chunk gives, so
        that blocks are not joined (a short read is not the end; b"" is)."""
        if size is None or size < 0:
            return b"".join(iter(lambda: self.read(1 << 24), b""))
        data = b""
        while size > 0 and not data and not self._done:
            data = self._next(size)
        self._crc = deflate.crc32(data, self._crc)
        self._size += len(data)
        if self._done:
            self._check()
        return data

    def _next(self, wanted):
        """Up to `wanted` more bytes of the member (none while the inflater takes in a header)."""
        inflater = self._inflater
        pending = inflater.unconsumed_tail if inflater is not None else b""
        if not pending:
            if self._compressed_left == 0:
                if inflater is not None and not inflater.eof:
                    raise EOFError("Compressed file ended before the end-of-stream marker was reached")
                self._done = True
                return b""
            pending = self._file.read(min(self._compressed_left, self.CHUNK if inflater else wanted))
            if not pending:
                raise EOFError(f"the archive ends inside {self._info.filename!r}")
            self._compressed_left -= len(pending)
        if inflater is None:
            return pending
        data = inflater.decompress(pending, wanted)
        if inflater.eof:
            self._done = True
        return data

    def _check(self):
        if self._size != self._info.file_size:
            raise zipfile.BadZipFile(
                f"{self._info.filename!r} holds {self._size:,} bytes, the archive records {self._info.file_size:,}"
            )
        if self._crc != self._info.CRC:
            raise zipfile.BadZipFile(f"Bad CRC-32 for file {self._info.filename!r}")


def read_ahead(items, depth=3):
    """The items of the generator `items`, each computed in a worker thread up to `depth` ahead
    (3: as many tables in memory as the queue-and-thread version this replaced).

    The worker runs one `next(items)` at a time and never waits for the consumer, so it is idle
    whenever the consumer is; the pool is shut down (pending steps cancelled, the running one
    finished) and `items` closed when the consumer stops, early or not. Errors are raised to the
    consumer in order."""
    end = object()
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="caption-contest-read-ahead")
    try:
        ahead = collections.deque(pool.submit(next, items, end) for _ in range(depth))
        while (item := ahead.popleft().result()) is not end:
            ahead.append(pool.submit(next, items, end))
            yield item
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        items.close()


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
