"""Sequences of EValues: the list framing (``encode_list``) and record files.

An EValue has no length of its own (a tensor runs to the end of its
buffer), so a sequence needs a framing.  Both framings here are wireplan's
own, big-endian like EValue, and versioned.

List, version 1 (what :func:`encode_list` writes)::

    offset  size
    0       4     magic b"WPEL"
    4       2     u16 version = 1
    6       2     u16 flags = 0 (reserved; readers reject other values)
    8       8     u64 count N
    16      16*N  N x (u64 offset, u64 length) of each element, from the list start
    ...           the elements, in order, each exactly one EValue

Elements are ascending and do not overlap; bytes between them are zero
padding; the list ends where its last element ends.  The writer puts every
tensor's data at a multiple of 64 bytes from the list start, so views of it
are aligned (in memory and in a record file).

Record file, version 1 (what :class:`RecordWriter` writes)::

    0       8     magic b"WPEVRECS"
    8       2     u16 version = 1
    10      2     u16 flags = 0
    12      4     u32 reserved = 0
    16      8     u64 record count N (written when the writer closes)
    then N records: zero padding, u64 length L, then L bytes of one list (above)

Each record's list starts at the first multiple of 64 that leaves room for
its length field after the previous record (the first list starts at byte
64).  The file ends where the last record ends; a reader that finds a
different number of records than the header declares reports the file as
truncated.
"""

from __future__ import annotations

import contextlib
import errno
import glob
import os
import struct
from collections.abc import Iterable, Iterator, Sequence
from types import TracebackType
from typing import IO, Any, Final

import numpy as np

from wireplan.core.alloc import fill_new_bytes
from wireplan.core.atomic import atomic_open
from wireplan.core.buffers import MappedFile, as_memoryview
from wireplan.core.closing import Closing
from wireplan.core.executor import execute
from wireplan.core.plan import Plan, align_up
from wireplan.errors import DecodeError, EncodeError, FileError, LimitError
from wireplan.evalue._codec import (
    TAG_TENSOR,
    _decode_at,
    _Parts,
    _parts,
    input_view,
)

__all__ = [
    "LIST_MAGIC",
    "LIST_VERSION",
    "RECORD_MAGIC",
    "RECORD_VERSION",
    "RecordFile",
    "RecordWriter",
    "decode_list",
    "encode_list",
    "read_records",
    "record_count",
    "shard_paths",
]

LIST_MAGIC: Final = b"WPEL"
LIST_VERSION: Final = 1
RECORD_MAGIC: Final = b"WPEVRECS"
RECORD_VERSION: Final = 1
#: Tensor data in a list, and lists in a record file, start at multiples of this.
ALIGNMENT: Final = 64

_LIST_HEAD = struct.Struct(">4sHHQ")
_ENTRY = struct.Struct(">QQ")
_RECORD_HEAD = struct.Struct(">8sHHIQ")
_U64 = struct.Struct(">Q")
_LIST_HEAD_SIZE: Final = _LIST_HEAD.size
_ENTRY_SIZE: Final = _ENTRY.size
_RECORD_HEAD_SIZE: Final = _RECORD_HEAD.size
_COUNT_AT: Final = 16


# ---------------------------------------------------------------------------
# Lists
# ---------------------------------------------------------------------------


def _element_offsets(parts: Sequence[_Parts]) -> tuple[list[int], int]:
    pos = _LIST_HEAD_SIZE + _ENTRY_SIZE * len(parts)
    offsets = []
    for p in parts:
        if p.data is not None and p.head[0] == TAG_TENSOR:
            pos = align_up(pos + len(p.head), ALIGNMENT) - len(p.head)
        offsets.append(pos)
        pos += p.size
    return offsets, pos


def plan_list(values: Iterable[Any], *, extended: bool = False) -> Plan:
    """The :class:`~wireplan.core.plan.Plan` of ``encode_list(values)``.

    Every byte of the output is covered by a region: the framing, headers
    and padding as one bytes region per run, each tensor's data as an array
    region typed with its big-endian wire dtype.
    """
    parts = [_parts(v, extended, f"$[{i}]") for i, v in enumerate(values)]
    offsets, size = _element_offsets(parts)
    pending = bytearray(_LIST_HEAD.pack(LIST_MAGIC, LIST_VERSION, 0, len(parts)))
    for p, off in zip(parts, offsets, strict=True):
        pending += _ENTRY.pack(off, p.size)
    plan = Plan()
    pending_at = 0
    for i, (p, off) in enumerate(zip(parts, offsets, strict=True)):
        gap = off - (pending_at + len(pending))
        if gap:
            pending += bytes(gap)
        pending += p.head
        if p.data is not None:
            plan.place(pending_at, len(pending), source=bytes(pending), name="framing")
            data_at = pending_at + len(pending)
            assert p.wire is not None
            plan.place(
                data_at,
                p.size - len(p.head),
                alignment=ALIGNMENT if p.head[0] == TAG_TENSOR else 1,
                source=p.data,
                dtype=p.wire,
                name=f"[{i}]",
            )
            pending_at, pending = data_at + p.size - len(p.head), bytearray()
    if pending:
        plan.place(pending_at, len(pending), source=bytes(pending), name="framing")
    assert plan.size == size and sum(r.length for r in plan) == size
    return plan


def encode_list(
    values: Iterable[Any], *, extended: bool = False, threads: int | None = None
) -> bytes:
    """Encode a sequence of values in wireplan's list framing (version 1).

    The layout is planned first (:func:`plan_list`), then the bytes move
    with :func:`wireplan.core.executor.execute`: serially for small lists,
    on a thread pool for large ones (``threads`` overrides), with the same
    output either way.  Raises :class:`EncodeError` with the element's path.
    """
    plan = plan_list(values, extended=extended)
    return fill_new_bytes(plan.size, lambda dest: execute(plan, dest, threads=threads))


_ZEROS: Final = bytes(ALIGNMENT)


def _first_nonzero(mv: memoryview, start: int, end: int) -> int | None:
    """The offset of the first non-zero byte in ``mv[start:end]``, or None."""
    if end - start <= len(_ZEROS) and mv[start:end] == _ZEROS[: end - start]:
        return None  # the usual padding: one compare, no numpy call
    gap = np.frombuffer(mv, np.uint8, end - start, start)
    return start + int(np.flatnonzero(gap)[0]) if gap.any() else None


def _decode_list_at(
    mv: memoryview, start: int, end: int, copy: bool, extended: bool, text: bool
) -> list[Any]:
    avail = end - start
    if avail < _LIST_HEAD_SIZE:
        if mv[start : start + min(avail, 4)] != LIST_MAGIC[: min(avail, 4)]:
            raise DecodeError("not an EValue list (magic b'WPEL' expected)", start)
        raise DecodeError(
            f"truncated: a list header needs {_LIST_HEAD_SIZE} bytes, {avail} remain", end
        )
    magic, version, flags, count = _LIST_HEAD.unpack_from(mv, start)
    if magic != LIST_MAGIC:
        raise DecodeError(f"not an EValue list (magic b'WPEL' expected, found {magic!r})", start)
    if version != LIST_VERSION:
        raise DecodeError(f"unsupported list version {version} (this reader knows 1)", start + 4)
    if flags:
        raise DecodeError(f"unknown list flags {flags:#06x}", start + 6)
    table_at = start + _LIST_HEAD_SIZE
    if count > (end - table_at) // _ENTRY_SIZE:
        raise LimitError(
            f"list declares {count} elements; {end - table_at} bytes cannot hold their table",
            start + 8,
        )
    prev = table_at + _ENTRY_SIZE * count
    out: list[Any] = []
    for i in range(count):
        entry_at = table_at + _ENTRY_SIZE * i
        off, length = _ENTRY.unpack_from(mv, entry_at)
        at = start + off
        if off > avail or length > end - at:
            raise LimitError(
                f"element {i} declared at offset {off} with {length} bytes, past the list end "
                f"({avail} bytes)",
                entry_at,
            )
        if at < prev:
            raise DecodeError(
                f"element {i} at offset {off} overlaps what comes before it", entry_at
            )
        if at > prev:
            bad = _first_nonzero(mv, prev, at)
            if bad is not None:
                raise DecodeError("non-zero padding between elements", bad)
        try:
            out.append(_decode_at(mv, at, at + length, copy, extended, text))
        except DecodeError as exc:
            raise exc.under(f"[{i}]") from None
        prev = at + length
    if prev != end:
        raise DecodeError(f"{end - prev} trailing bytes after the last element", prev)
    return out


def decode_list(
    data: Any, *, copy: bool = True, extended: bool = False, text: bool = True
) -> list[Any]:
    """Decode bytes written by :func:`encode_list` into a list of values.

    ``copy``, ``extended`` and ``text`` mean what they mean for
    :func:`~wireplan.evalue.decode`; with ``copy=False`` tensors are views
    into ``data``.  Errors carry the byte offset from the start of ``data``
    and the element's path (``$[3]``).
    """
    mv = input_view(data, "decode_list")
    return _decode_list_at(mv, 0, mv.nbytes, copy, extended, text)


# ---------------------------------------------------------------------------
# Record files
# ---------------------------------------------------------------------------


def _record_length_at(pos: int) -> int:
    """Where the length field of the record after byte ``pos`` goes."""
    return align_up(pos + _U64.size, ALIGNMENT) - _U64.size


class RecordWriter:
    """Write a record file: each record a list of EValues (one training example, say).

    The file appears at ``path``, complete, only on :meth:`close` (or at the
    end of a ``with`` block): it is written to a temporary file beside it,
    synced and renamed.  :meth:`abort`, or an exception leaving the ``with``
    block, removes the temporary file and leaves any old file untouched.
    Folders of ``path`` that do not exist yet are created first, as
    ``mkdir -p`` does (each synced into its parent); a file in the way of one
    raises :class:`~wireplan.errors.FileError`.

    With ``shard_bytes``, the records go to numbered shards instead: ``path``
    is a pattern with a ``{shard}`` field (``"train-{shard:05d}.evr"``; without
    one, ``-{shard:05d}`` goes before the extension).  A shard is finished and
    renamed into place as soon as the next record would take it past
    ``shard_bytes``; a record larger than that gets a shard of its own.
    :attr:`paths` lists the shards; an abort removes only the unfinished one.

    A value that cannot be encoded raises :class:`EncodeError` before any
    byte of its record is written, and the writer goes on.  A failed write
    to the file (a full disk) may leave half a record behind, so it aborts
    the writer: the error propagates, and :meth:`write` and :meth:`close`
    then raise ``ValueError`` instead of publishing a damaged file.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        extended: bool = False,
        shard_bytes: int | None = None,
    ) -> None:
        self.extended = extended
        self._failed: BaseException | None = None
        self._count = 0
        self._pattern: str | None = None
        self._shard_bytes = shard_bytes
        self._done: list[str] = []
        if shard_bytes is None:
            self.path = os.fspath(path)
        else:
            if shard_bytes < 1:
                raise ValueError(f"shard_bytes must be positive, not {shard_bytes}")
            self._pattern = _shard_pattern(os.fspath(path))
            self.path = self._pattern.format(shard=0)
        self._open_file()

    def _open_file(self) -> None:
        self._pos = 0
        self._in_file = 0
        _make_folders(self.path)
        self._cm = atomic_open(self.path)
        self._file: IO[bytes] | None = self._cm.__enter__()
        self._put(_RECORD_HEAD.pack(RECORD_MAGIC, RECORD_VERSION, 0, 0, 0))

    @property
    def count(self) -> int:
        """Records written so far (over all shards)."""
        return self._count

    @property
    def paths(self) -> list[str]:
        """The files finished so far, then the one being written (if any)."""
        return self._done + ([self.path] if self._file is not None else [])

    def _put(self, data: Any) -> None:
        if self._file is None:
            raise self._closed_error()
        try:
            self._file.write(data)
        except BaseException as exc:
            # Part of a record may be in the file: never publish it.
            self._failed = exc
            self.abort()
            raise
        self._pos += len(data) if isinstance(data, bytes) else memoryview(data).nbytes

    def _closed_error(self) -> ValueError:
        if self._failed is not None:
            return ValueError(
                f"the RecordWriter for {self.path} was aborted by a failed write "
                f"({self._failed!r}); {self.path} was not written"
            )
        return ValueError("the RecordWriter is closed")

    def write(self, values: Iterable[Any]) -> int:
        """Append one record holding ``values``; return its index."""
        return self._append(encode_list(values, extended=self.extended))

    def write_encoded(self, record: Any) -> int:
        """Append one record already encoded with :func:`encode_list` (checked first)."""
        mv = as_memoryview(record)
        try:
            _decode_list_at(mv, 0, mv.nbytes, False, True, False)
        except DecodeError as exc:
            raise EncodeError(f"not a valid encoded list: {exc}") from None
        return self._append(mv)

    def _append(self, data: Any) -> int:
        if self._file is None:
            raise self._closed_error()
        n = memoryview(data).nbytes
        if (
            self._pattern is not None
            and self._shard_bytes is not None
            and self._in_file
            and _record_length_at(self._pos) + _U64.size + n > self._shard_bytes
        ):
            self._finish_file()
            self.path = self._pattern.format(shard=len(self._done))
            self._open_file()
        at = _record_length_at(self._pos)
        if at > self._pos:
            self._put(bytes(at - self._pos))
        self._put(_U64.pack(memoryview(data).nbytes))
        self._put(data)
        self._count += 1
        self._in_file += 1
        return self._count - 1

    def close(self) -> None:
        """Finish the file (the last shard): sync it and rename it into place."""
        if self._file is None:
            if self._failed is not None:
                raise self._closed_error()
            return
        self._finish_file()

    def _finish_file(self) -> None:
        f = self._file
        assert f is not None
        try:
            f.seek(_COUNT_AT)
            f.write(_U64.pack(self._in_file))
            f.seek(0, os.SEEK_END)
        except BaseException as exc:
            self._failed = exc
            self.abort()
            raise
        self._file = None
        try:
            self._cm.__exit__(None, None, None)  # fsync, rename
        except BaseException as exc:  # the temporary file is gone, the old file untouched
            self._failed = exc
            raise
        self._done.append(self.path)

    def abort(self) -> None:
        """Discard everything written; an old file at ``path`` stays as it was."""
        if self._file is None:
            return
        self._file = None
        exc = _Aborted()
        # Flushing what is buffered may fail too (the disk that is full):
        # the temporary file is removed all the same.
        with contextlib.suppress(OSError):
            self._cm.__exit__(_Aborted, exc, None)

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()

    def __del__(self) -> None:
        # Never publish a half-written file because a writer was dropped.
        if getattr(self, "_file", None) is not None:
            with contextlib.suppress(Exception):
                self.abort()


class _Aborted(Exception):
    pass


def _make_folders(path: str) -> None:
    """Create the missing folders above ``path`` (``mkdir -p``), each synced into its parent."""
    target = os.path.abspath(path)
    missing: list[str] = []
    folder = os.path.dirname(target)
    while not os.path.isdir(folder) and os.path.dirname(folder) != folder:
        missing.append(folder)
        folder = os.path.dirname(folder)
    for folder in reversed(missing):
        try:
            os.mkdir(folder)
        except FileExistsError:
            if os.path.isdir(folder):  # another writer made it meanwhile
                continue
            reason = f"cannot write {target}: {folder} is not a folder"
            raise FileError(reason, folder, errno.ENOTDIR) from None
        except OSError as exc:
            reason = f"cannot write {target}: cannot create the folder {folder}: {exc.strerror}"
            raise FileError(reason, folder, exc.errno) from exc
        # The new folder's entry must reach the disk too, or a power loss can lose the file.
        with contextlib.suppress(OSError):
            fd = os.open(os.path.dirname(folder), os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)


def _shard_pattern(path: str) -> str:
    """``path`` as a ``str.format`` pattern with a ``{shard}`` field."""
    if "{shard" in path:
        try:
            path.format(shard=0)
        except (KeyError, IndexError, ValueError) as exc:
            raise ValueError(
                f"the shard pattern {path!r} must have one {{shard}} field and no other: {exc}"
            ) from None
        return path
    escaped = path.replace("{", "{{").replace("}", "}}")
    stem, ext = os.path.splitext(escaped)
    return f"{stem}-{{shard:05d}}{ext}"


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
