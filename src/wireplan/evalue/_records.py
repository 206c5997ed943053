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

import glob
import os
import struct
from collections.abc import Iterable, Iterator
from typing import Any, Final

from wireplan.core.buffers import MappedFile
from wireplan.core.closing import Closing
from wireplan.core.plan import align_up
from wireplan.errors import DecodeError, LimitError
from wireplan.evalue._lists import ALIGNMENT, _decode_list_at, _first_nonzero

__all__ = [
    "RECORD_MAGIC",
    "RECORD_VERSION",
    "RecordFile",
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
    try:
        count = _record_head(memoryview(head))
        _check_count(count, size)
    except DecodeError as exc:
        raise type(exc)(f"{os.fspath(path)}: {exc.reason}", exc.offset) from None
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
