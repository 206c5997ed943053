"""Record files, version 1: their layout, and reading them (find, check, scan, map).

A record file holds many EValue lists (:mod:`wireplan.evalue._lists`), one a
record; :class:`~wireplan.evalue.RecordWriter` (:mod:`wireplan.evalue._writer`)
writes them.  Big-endian, like EValue::

    0       8     magic b"WPEVRECS"
    8       2     u16 version = 1
    10      2     u16 flags = 0
    12      4     u32 reserved = 0
    16      8     u64 record count N (written when the writer closes)
    then N records: zero padding, u64 length L, then L bytes of one list

Each record's list starts at the first multiple of 64 that leaves room for
its length field after the previous record (the first list starts at byte
64).  The file ends where the last record ends; a reader that finds a
different number of records than the header declares reports the file as
truncated.
"""

from __future__ import annotations

import contextlib
import glob
import os
import struct
from collections.abc import Iterable, Iterator
from typing import IO, Any, Final

from wireplan.core.buffers import MappedFile
from wireplan.core.closing import Closing
from wireplan.core.plan import align_up
from wireplan.errors import DecodeError, LimitError
from wireplan.evalue._lists import ALIGNMENT, _decode_list_at, _first_nonzero

__all__ = [
    "RECORD_MAGIC",
    "RECORD_VERSION",
    "RecordFile",
    "StreamedRecords",
    "read_records",
    "record_count",
    "shard_paths",
]

RECORD_MAGIC: Final = b"WPEVRECS"
RECORD_VERSION: Final = 1

_RECORD_HEAD = struct.Struct(">8sHHIQ")
_U64 = struct.Struct(">Q")
_RECORD_HEAD_SIZE: Final = _RECORD_HEAD.size
_COUNT_AT: Final = 16


def _record_length_at(pos: int) -> int:
    """Where the length field of the record after byte ``pos`` goes."""
    return align_up(pos + _U64.size, ALIGNMENT) - _U64.size


def _has_glob(text: str) -> bool:
    return any(c in text for c in "*?[")


def shard_paths(source: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> list[str]:
    """The record files ``source`` names: a file, a folder, a glob, or a list of them.

    A folder gives the files in it (not hidden, not in subfolders) that begin
    with the record file magic; a glob gives its matches (record files or
    not); both sorted by name.  Raises ``FileNotFoundError`` when a path
    does not exist or a folder or glob finds nothing.
    """
    if not isinstance(source, str | os.PathLike):
        out: list[str] = []
        for item in source:
            out += shard_paths(item)
        return out
    path = os.fspath(source)
    if os.path.isdir(path):
        found = []
        for name in sorted(os.listdir(path)):
            full = os.path.join(path, name)
            if name.startswith(".") or not os.path.isfile(full):
                continue
            with open(full, "rb") as f:
                if f.read(len(RECORD_MAGIC)) == RECORD_MAGIC:
                    found.append(full)
        if not found:
            raise FileNotFoundError(f"no EValue record files in the folder {path}")
        return found
    if os.path.exists(path) or not _has_glob(path):
        if not os.path.isfile(path):
            raise FileNotFoundError(f"no such record file: {path}")
        return [path]
    matches = sorted(p for p in glob.glob(path) if os.path.isfile(p))
    if not matches:
        raise FileNotFoundError(f"no files match {path}")
    return matches


def record_count(path: str | os.PathLike[str]) -> int:
    """The number of records a record file's header declares (reads 24 bytes).

    A count the file's size cannot hold (8 bytes per record at least) is a
    ``LimitError``; opening the file (:class:`RecordFile`) checks the
    records themselves.
    """
    with open(path, "rb") as f:
        head = f.read(_RECORD_HEAD_SIZE)
        size = os.fstat(f.fileno()).st_size
    return _counted(head, size, os.fspath(path))


def _counted(head: bytes, size: int, name: str) -> int:
    """The record count in ``head`` (a file's first bytes), checked against the file's
    ``size``; an error names the file ``name``."""
    try:
        count = _record_head(memoryview(head))
        _check_count(count, size)
    except DecodeError as exc:
        raise type(exc)(f"{name}: {exc.reason}", exc.offset) from None
    return count


def _check_count(count: int, size: int) -> None:
    if count > (size - _RECORD_HEAD_SIZE) // _U64.size:
        raise LimitError(f"record file declares {count} records; {size} bytes cannot hold them", 16)


def _record_head(mv: memoryview) -> int:
    """Check a record file's header; return the record count it declares."""
    size = mv.nbytes
    if size < _RECORD_HEAD_SIZE:
        have = mv[: min(size, 8)]
        if have != RECORD_MAGIC[: len(have)]:
            raise DecodeError("not an EValue record file (magic b'WPEVRECS' expected)", 0)
        raise DecodeError(
            f"truncated: the record file header needs {_RECORD_HEAD_SIZE} bytes, {size} remain",
            size,
        )
    magic, version, flags, reserved, count = _RECORD_HEAD.unpack_from(mv, 0)
    if magic != RECORD_MAGIC:
        raise DecodeError(
            f"not an EValue record file (magic b'WPEVRECS' expected, found {magic!r})", 0
        )
    if version != RECORD_VERSION:
        raise DecodeError(f"unsupported record file version {version} (this reader knows 1)", 8)
    if flags or reserved:
        raise DecodeError("unknown record file flags", 10 if flags else 12)
    return int(count)


def _scan_records(mv: memoryview) -> list[tuple[int, int]]:
    size = mv.nbytes
    count = _record_head(mv)
    _check_count(count, size)
    spans: list[tuple[int, int]] = []
    pos = _RECORD_HEAD_SIZE
    while pos < size:
        at = _record_length_at(pos)
        if at + _U64.size > size:
            raise DecodeError(
                f"truncated: record {len(spans)}'s length field ends at byte {at + 8}, "
                f"the file at {size}",
                size,
            )
        bad = _first_nonzero(mv, pos, at) if at > pos else None
        if bad is not None:
            raise DecodeError(f"non-zero padding before record {len(spans)}", bad)
        (length,) = _U64.unpack_from(mv, at)
        start = at + _U64.size
        if length > size - start:
            raise LimitError(
                f"record {len(spans)} declares {length} bytes, only {size - start} remain", at
            )
        spans.append((start, start + length))
        pos = start + length
    if len(spans) != count:
        raise DecodeError(
            f"the header declares {count} records, the file holds {len(spans)} "
            "(truncated or damaged)",
            size,
        )
    return spans


class RecordFile(Closing):
    """A record file mapped read-only; records are decoded on demand.

    ``len(f)`` records; ``f[i]`` decodes record ``i`` to a list; ``f.raw(i)``
    is its encoded list as a read-only memoryview (no copy).  Opening reads
    only the length fields.  With ``copy=False``, tensors are read-only views
    of the mapping; they stay valid after :meth:`close` for as long as they
    exist (each keeps the mapping alive).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        copy: bool = True,
        extended: bool = False,
        text: bool = True,
    ) -> None:
        self.copy, self.extended, self.text = copy, extended, text
        self._mapped = MappedFile(path)
        self.path = self._mapped.path
        try:
            self._spans = _scan_records(self._mapped.buffer)
        except BaseException:
            self._mapped.close()
            raise

    @property
    def size(self) -> int:
        """The file's size in bytes."""
        return self._mapped.size

    def __len__(self) -> int:
        return len(self._spans)

    def span(self, index: int) -> tuple[int, int]:
        """Where record ``index``'s list lies in the file: ``(start, end)``."""
        return self._spans[index]

    def raw(self, index: int) -> memoryview:
        """Record ``index`` as encoded bytes (a read-only view of the mapping)."""
        start, end = self._spans[index]
        return self._mapped.buffer[start:end]

    def __getitem__(self, index: int) -> list[Any]:
        if index < 0:
            index += len(self._spans)
        start, end = self._spans[index]
        # Slice first: arrays then hold the slice, not the file's buffer.
        mv = self._mapped.buffer[: self._mapped.size]
        try:
            return _decode_list_at(mv, start, end, self.copy, self.extended, self.text)
        except DecodeError as exc:
            raise exc.under(f"[{index}]") from None

    def __iter__(self) -> Iterator[list[Any]]:
        for i in range(len(self._spans)):
            yield self[i]

    def close(self) -> None:
        self._mapped.close()


def read_records(
    path: str | os.PathLike[str],
    *,
    copy: bool = True,
    extended: bool = False,
    text: bool = True,
) -> Iterator[list[Any]]:
    """Yield each record of a record file, decoded to a list, read through mmap.

    With ``copy=False`` tensors are read-only views of the mapped file (no
    copy); they stay valid for as long as they exist.
    """
    with RecordFile(path, copy=copy, extended=extended, text=text) as f:
        yield from f


# --- record files on an fsspec file system ----------------------------------------------

#: Bytes read at once from a file system (one request on an object store).
BLOCK_BYTES: Final = 8 << 20
# What an unwanted record's length field needs at most: its padding, then 8 bytes.
_PROBE: Final = ALIGNMENT + _U64.size


def is_url(source: object) -> bool:
    """Whether ``source`` is an fsspec URL (``memory://x``, ``simplecache::s3://b/k``)."""
    return isinstance(source, str) and ("://" in source or "::" in source)


def remote_shard_paths(fs: Any, source: str | Iterable[str]) -> list[str]:
    """:func:`shard_paths` on an fsspec file system: paths on ``fs``, sorted per item."""
    from wireplan.core import remote

    if not isinstance(source, str):
        return [p for item in source for p in remote_shard_paths(fs, item)]

    def is_records(path: str) -> bool:
        with remote.opened(fs, path) as f:
            return remote.read_at(f, 0, len(RECORD_MAGIC)) == RECORD_MAGIC

    return remote.expand(fs, fs._strip_protocol(source), is_records)


def remote_record_count(fs: Any, path: str) -> int:
    """:func:`record_count` of a file on an fsspec file system (one 24-byte range read)."""
    from wireplan.core import remote

    with remote.opened(fs, path) as f:
        size = f.seek(0, os.SEEK_END)
        head = remote.read_at(f, 0, _RECORD_HEAD_SIZE)
    return _counted(head, size, remote.url(fs, path))


class StreamedRecords(Closing):
    """A record file on an fsspec file system, read front to back in large blocks.

    :meth:`take` yields the records asked for, in the order asked: it scans
    the file from the start (or from where the last scan stopped, when the
    indices go on from there) reading ``block_bytes`` at a time, decodes the
    wanted records it passes and holds them until their turn (a shuffle
    window's worth at most, for the dataset's order).  A wanted record that
    does not fit the block is read in one request of its own; an unwanted
    one is not read, and when records average over 1/64 of a block the
    next length field is read alone (a probe) rather than a block.  Records
    before the first wanted one are passed the same way (there is no index).
    One open file for the object's life; the file is checked as far as it
    is read, errors carrying the file's byte offsets.
    """

    def __init__(
        self,
        fs: Any,
        path: str,
        *,
        block_bytes: int = BLOCK_BYTES,
        extended: bool = False,
        text: bool = True,
    ) -> None:
        from wireplan.core import remote

        self._remote = remote
        self.fs, self.path, self.url = fs, path, remote.url(fs, path)
        self.block_bytes, self.extended, self.text = block_bytes, extended, text
        self._cm: contextlib.AbstractContextManager[IO[bytes]] | None = remote.opened(fs, path)
        self._file = self._cm.__enter__()
        try:
            self.size = int(self._file.seek(0, os.SEEK_END))
            self._buf, self._buf_at = memoryview(b""), 0
            self._count = _record_head(self._read(0, max(block_bytes, _RECORD_HEAD_SIZE)))
            _check_count(self._count, self.size)
        except DecodeError as exc:
            self.close()
            raise type(exc)(f"{self.url}: {exc.reason}", exc.offset) from None
        except BaseException:
            self.close()
            raise
        self._mean = (self.size - _RECORD_HEAD_SIZE) // max(self._count, 1)
        self._restart()

    def __len__(self) -> int:
        return self._count

    def _restart(self) -> None:
        self._pos, self._next = _RECORD_HEAD_SIZE, 0

    def _read(self, at: int, size: int) -> memoryview:
        """Bytes ``[at, at + size)`` (clamped to the file) as the current block."""
        size = min(size, self.size - at)
        try:
            data = self._remote.read_at(self._file, at, size)
        except OSError as exc:
            raise self._remote.refused(self.fs, self.path, exc) from None
        if len(data) != size:
            raise DecodeError(
                f"{self.url}: truncated: the file ends at byte {at + len(data)}, not {self.size}",
                at + len(data),
            )
        self._buf, self._buf_at = memoryview(data), at
        return self._buf

    def _has(self, start: int, end: int) -> bool:
        return self._buf_at <= start and end <= self._buf_at + self._buf.nbytes

    def take(self, indices: Iterable[int]) -> Iterator[list[Any]]:
        """Decode the records ``indices`` (each ``0 <= i < len(self)``), in that order."""
        order = list(indices)
        pending = set(order)
        held: dict[int, list[Any]] = {}
        if order and min(order) < self._next:
            self._restart()
        for index in order:
            while index not in held:
                self._scan(pending, held)
            pending.discard(index)
            yield held.pop(index)

    def _scan(self, pending: set[int], held: dict[int, list[Any]]) -> None:
        """Pass the next record (reading a block when needed); hold it if pending."""
        index, pos = self._next, self._pos
        if index >= self._count:
            raise DecodeError(
                f"{self.url}: the header declares {self._count} records, more were asked for",
                16,
            )
        wanted = index in pending
        # A wanted record, or small ones: a block (an average record at least);
        # an unwanted large one: its length field alone.
        if wanted:
            block = max(self.block_bytes, self._mean + _PROBE)
        else:
            block = self.block_bytes if self._mean * 64 < self.block_bytes else _PROBE
        start, end = self._span(index, pos, block)
        buf, base = self._buf, self._buf_at
        if wanted:
            if not self._has(start, end):
                self._read(start, max(end - start, self.block_bytes))
                buf, base = self._buf, self._buf_at
            try:
                held[index] = _decode_list_at(
                    buf, start - base, end - base, True, self.extended, self.text
                )
            except DecodeError as exc:
                # The mapped reader checks every length field on opening, before it decodes
                # a record: a damaged layout further on is what it reports, so here too.
                damage = self._damage_from(index + 1, end)
                if damage is not None:
                    raise damage from None
                moved = type(exc)(
                    f"{self.url}: {exc.reason}",
                    None if exc.offset is None else exc.offset + base,
                    exc.path,
                )
                raise moved.under(f"[{index}]") from None
        self._pos, self._next = end, index + 1

    def _span(self, index: int, pos: int, block: int) -> tuple[int, int]:
        """Where record ``index``'s list lies (``start, end``), its padding and length field
        at ``pos`` checked, read in a block of ``block`` bytes or more when not held."""
        at = _record_length_at(pos)
        if at + _U64.size > self.size:
            raise DecodeError(
                f"{self.url}: truncated: record {index}'s length field ends at byte {at + 8}, "
                f"the file at {self.size}",
                self.size,
            )
        if not self._has(pos, at + _U64.size):
            self._read(pos, max(block, at + _U64.size - pos))
        buf, base = self._buf, self._buf_at
        bad = _first_nonzero(buf, pos - base, at - base) if at > pos else None
        if bad is not None:
            raise DecodeError(f"{self.url}: non-zero padding before record {index}", bad + base)
        (length,) = _U64.unpack_from(buf, at - base)
        start = at + _U64.size
        if length > self.size - start:
            raise LimitError(
                f"{self.url}: record {index} declares {length} bytes, only "
                f"{self.size - start} remain",
                at,
            )
        return start, start + length

    def _damage_from(self, index: int, pos: int) -> DecodeError | None:
        """The first layout error from record ``index`` at ``pos`` to the end (what
        :func:`_scan_records` finds there, read a length field at a time), or None."""
        try:
            while pos < self.size:
                pos = self._span(index, pos, 0)[1]
                index += 1
        except DecodeError as exc:
            return exc
        if index != self._count:
            return DecodeError(
                f"{self.url}: the header declares {self._count} records, the file holds "
                f"{index} (truncated or damaged)",
                self.size,
            )
        return None

    def close(self) -> None:
        cm, self._cm = getattr(self, "_cm", None), None
        if cm is not None:
            cm.__exit__(None, None, None)
