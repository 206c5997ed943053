"""Read-only buffers and zero-copy numpy views over them.

:class:`MappedFile` maps a file read-only.  Arrays handed out by
:func:`view` share memory with the buffer; a view keeps the mapping alive
for as long as the view exists, so a view is never left dangling:
:meth:`MappedFile.close` releases the mapping at once when no view holds
it, and otherwise as soon as the last view is gone.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import stat
import weakref
from typing import Any

import numpy as np

from wireplan.core.closing import Closing
from wireplan.errors import ArgumentError, FileError

__all__ = ["MappedFile", "as_memoryview", "drop_pages", "file_range", "view"]


def as_memoryview(data: Any) -> memoryview:
    """A flat, byte-typed memoryview of any bytes-like object (no copy)."""
    mv = data if isinstance(data, memoryview) else memoryview(data)
    if not mv.c_contiguous:
        raise ArgumentError("buffer must be contiguous")
    if mv.ndim != 1 or mv.format != "B":
        mv = mv.cast("B")
    return mv


def view(
    buffer: Any, offset: int, dtype: np.dtype[Any] | str, shape: tuple[int, ...]
) -> np.ndarray[Any, Any]:
    """A numpy array over ``buffer`` at ``offset``: no bytes are copied.

    The caller has already checked that the bytes lie inside the buffer.
    The array is read-only when the buffer is.
    """
    dt = np.dtype(dtype)
    count = 1
    for n in shape:
        count *= n
    arr = np.frombuffer(buffer, dtype=dt, count=count, offset=offset)
    return arr.reshape(shape)


def _mapping_of(
    arr: np.ndarray[Any, Any], starts: dict[int, int] | None = None
) -> tuple[mmap.mmap, int] | None:
    """The read-only shared mapping an array views and the array's offset in it, if any.

    ``starts``: the addresses of mappings already looked up (by ``id``), filled as found,
    for a caller asking of many arrays at once."""
    base: Any = arr
    while isinstance(base, np.ndarray):
        base = base.base
    if not isinstance(base, memoryview) or not base.readonly:
        return None
    mm = base.obj
    if not isinstance(mm, mmap.mmap):
        return None
    start = None if starts is None else starts.get(id(mm))
    if start is None:
        try:
            start = int(np.frombuffer(mm, dtype=np.uint8, count=1).ctypes.data)
        except (ValueError, TypeError):  # closed or empty
            return None
        if starts is not None:
            starts[id(mm)] = start
    offset = int(arr.ctypes.data) - start
    if offset < 0 or offset + arr.nbytes > len(mm):
        return None
    return mm, offset


# Open MappedFiles by the id of their mapping, for file_range (an entry goes when its file
# is closed or collected).
_OPEN: dict[int, weakref.ref[MappedFile]] = {}


def file_range(arr: np.ndarray[Any, Any]) -> tuple[int, int] | None:
    """``(fd, offset)`` when ``arr`` is a contiguous byte view into an open :class:`MappedFile`.

    The descriptor is the one the mapping was made from (held open by the
    MappedFile), so the kernel can copy those bytes file to file
    (``os.copy_file_range``) without mapping them; ``None`` otherwise.
    """
    if arr.dtype.itemsize != 1 or not arr.flags.c_contiguous:
        return None
    found = _mapping_of(arr)
    if found is None:
        return None
    ref = _OPEN.get(id(found[0]))
    mf = ref() if ref is not None else None
    if mf is None or mf._mm is not found[0] or mf._fd < 0:
        return None
    return mf._fd, found[1]


def drop_pages(*arrays: np.ndarray[Any, Any]) -> None:
    """Unmap the resident pages of each array that views a read-only file mapping.

    Copying a large mapped file touches every page, and each stays in the
    process's resident set until unmapped; this returns them (the data stays
    in the page cache, and the arrays stay valid: a later access faults the
    pages in again).  Anything else (owned memory, a writable mapping) is
    left alone.  Arrays of one mapping are released as the one span from the
    first to the last (the bytes between fault in again too, if read): one call
    for the many small payloads of a batch.
    """
    starts: dict[int, int] = {}
    spans: dict[int, tuple[mmap.mmap, int, int]] = {}
    for arr in arrays:
        found = _mapping_of(arr, starts) if arr.nbytes else None
        if found is None:
            continue
        mm, offset = found
        end = offset + arr.nbytes
        had = spans.get(id(mm))
        if had is not None:
            offset, end = min(offset, had[1]), max(end, had[2])
        spans[id(mm)] = (mm, offset, end)
    page = mmap.PAGESIZE
    for mm, offset, end in spans.values():
        # Neighbouring bytes on the same pages lose nothing either: they fault in again.
        lo = offset // page * page
        hi = min(len(mm), -(-end // page) * page)
        if hi > lo:
            with contextlib.suppress(OSError, ValueError, AttributeError):
                mm.madvise(mmap.MADV_DONTNEED, lo, hi - lo)


# O_NONBLOCK: opening a FIFO for reading would wait for a writer forever.
_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


class MappedFile(Closing):
    """A file mapped read-only into memory; ``buffer`` is a memoryview of its bytes.

    Use it as a context manager or call :meth:`close`.  Empty files have an
    empty buffer (``mmap`` cannot map zero bytes).  The file is opened
    without blocking and must be a regular file: a FIFO, device or folder
    raises :class:`~wireplan.errors.FileError` (an ``OSError``) at once.
    """

    __slots__ = ("__weakref__", "_fd", "_mm", "buffer", "path", "size")

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self._fd = -1
        self._mm: mmap.mmap | None = None
        fd = os.open(self.path, _OPEN_FLAGS)
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise FileError(f"{self.path} is not a regular file", self.path)
            self.size = st.st_size
            if self.size:
                self._mm = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
                self._fd, fd = fd, -1  # kept open for file_range
                _OPEN[id(self._mm)] = weakref.ref(self)
        finally:
            if fd >= 0:
                os.close(fd)
        self.buffer: memoryview = memoryview(self._mm) if self._mm is not None else memoryview(b"")

    @property
    def closed(self) -> bool:
        return self._mm is None

    def find(self, sub: bytes) -> int:
        """Where ``sub`` first occurs in the file (a search at memchr speed), -1 if nowhere."""
        return -1 if self._mm is None else self._mm.find(sub)

    def offset_of(self, arr: np.ndarray[Any, Any]) -> int | None:
        """Where the bytes of ``arr`` start in this file, when ``arr`` views this mapping."""
        if self._mm is None:
            return None
        found = _mapping_of(arr)
        if found is None or found[0] is not self._mm:
            return None
        return found[1]

    def close(self) -> None:
        """Release the mapping.  Arrays still viewing it keep it alive until they go."""
        mm, self._mm = self._mm, None
        fd, self._fd = self._fd, -1
        if mm is not None:
            _OPEN.pop(id(mm), None)
        if fd >= 0:
            os.close(fd)
        # With views still exported, the mapping is unmapped when the last
        # of them is collected; their memory stays valid meanwhile.
        with contextlib.suppress(BufferError):
            self.buffer.release()
        if mm is not None:
            with contextlib.suppress(BufferError):
                mm.close()

    def __del__(self) -> None:
        mm = getattr(self, "_mm", None)
        if mm is not None:
            _OPEN.pop(id(mm), None)
        if getattr(self, "_fd", -1) >= 0:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = -1

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"{self.size} bytes"
        return f"MappedFile({self.path!r}, {state})"
