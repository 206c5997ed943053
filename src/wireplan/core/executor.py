"""The executor: moves the bytes a :class:`~wireplan.core.plan.Plan` describes.

Every copy is a ``numpy.copyto`` between a destination view and a source
view, which runs at memory speed, converts byte order on the fly and
releases the GIL, so a thread pool really copies in parallel.  Large copies
are cut into chunks of ``chunk_bytes``; serial and threaded runs write the
same bytes to the same places, so their outputs are byte-identical.

A byte-swapping copy into a misaligned destination (an EValue's tensor data
starts at byte ``3 + 4 * rank``) is slow in numpy before 2.3: 1.8-3.9x an
aligned one.  :func:`copy_array` then swaps chunks into an aligned scratch
buffer that stays in cache and copies those on as plain bytes (1.3-1.5x).
numpy 2.3 made the direct copy of 4- and 8-byte numbers as fast as an
aligned one (1.0-1.3x), faster than the detour, so there they are copied
directly; 2-byte numbers still take the detour (direct about 2x).
"""

from __future__ import annotations

import contextlib
import mmap
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
from numpy.lib import NumpyVersion

from wireplan.core.plan import Plan, Region
from wireplan.errors import ArgumentError, FileError

__all__ = [
    "CHUNK_BYTES",
    "KERNEL_COPY_BYTES",
    "PARALLEL_THRESHOLD",
    "WINDOW_BYTES",
    "copy_array",
    "execute",
    "execute_file",
    "populate",
    "pwrite_all",
    "resolve_threads",
    "run_copies",
]

#: Copies are split into pieces of about this many bytes for the thread pool.
CHUNK_BYTES = 8 << 20
#: With ``threads=None``, a job smaller than this runs serially.
PARALLEL_THRESHOLD = 32 << 20
#: :func:`execute_file` maps at most about this many bytes of the destination at a time.
WINDOW_BYTES = 128 << 20
#: :func:`execute_file` copies a region of a mapped file this large file to file (a smaller
#: one is written from the mapping: one system call for many, instead of one each).
KERNEL_COPY_BYTES = 256 << 10

# madvise(MADV_POPULATE_WRITE) (Linux 5.14+): fault in a fresh file mapping in one call
# instead of one page fault per 4 KiB page as the copies first touch it (2-3x faster).
_MADV_POPULATE_WRITE = getattr(mmap, "MADV_POPULATE_WRITE", 23)

Copy = tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]

_U8 = np.dtype(np.uint8)
# The scratch buffer of a misaligned swapping copy, and the smallest copy that uses one.
_SCRATCH_BYTES = 1 << 19
_SCRATCH_ITEMS = 1 << 12
# Item sizes whose misaligned swapping copy numpy runs at aligned speed (see the module doc).
_DIRECT_ITEMSIZES = frozenset({4, 8}) if NumpyVersion(np.__version__) >= "2.3.0" else frozenset()


def copy_array(dst: np.ndarray[Any, Any], src: np.ndarray[Any, Any]) -> None:
    """``numpy.copyto(dst, src)``, at aligned speed into a misaligned byte-swapped ``dst``.

    ``dst`` is a C-contiguous view of the destination's bytes, shaped like ``src``.
    """
    if (
        dst.flags.aligned
        or dst.dtype.isnative
        or src.size <= _SCRATCH_ITEMS
        or src.ndim == 0
        or (dst.dtype.itemsize in _DIRECT_ITEMSIZES and dst.dtype.kind in "iuf")
    ):
        np.copyto(dst, src, casting="unsafe")
        return
    flat = src.reshape(-1) if src.flags.c_contiguous else src
    rows = flat.shape[0]
    inner = flat.size // rows  # elements per step along the outermost axis
    row_bytes = inner * dst.dtype.itemsize
    step = max(1, _SCRATCH_BYTES // row_bytes)
    scratch = np.empty((min(step, rows), *flat.shape[1:]), dst.dtype)
    scratch_bytes = scratch.reshape(-1).view(_U8)
    out = dst.reshape(-1).view(_U8)
    for i in range(0, rows, step):
        j = min(rows, i + step)
        np.copyto(scratch[: j - i], flat[i:j], casting="unsafe")
        np.copyto(out[i * row_bytes : j * row_bytes], scratch_bytes[: (j - i) * row_bytes])


def resolve_threads(threads: int | None, total_bytes: int) -> int:
    """The number of threads to use: ``None`` picks one by job size and core count."""
    if threads is None:
        if total_bytes < PARALLEL_THRESHOLD:
            return 1
        return max(1, min(os.cpu_count() or 1, 8))
    if threads < 1:
        raise ArgumentError(f"threads must be at least 1, not {threads}")
    return threads


def _byte_view(dest: Any) -> np.ndarray[Any, np.dtype[np.uint8]]:
    if isinstance(dest, np.ndarray):
        if not dest.flags.c_contiguous:
            raise ArgumentError("destination array must be C-contiguous")
        view = dest.reshape(-1).view(np.uint8)
    else:
        view = np.frombuffer(dest, dtype=np.uint8)
    if not view.flags.writeable:
        raise ArgumentError("destination buffer is read-only")
    return view


def _source_array(region: Region) -> np.ndarray[Any, Any]:
    src = region.source
    if isinstance(src, np.ndarray):
        return src
    return np.frombuffer(src, dtype=np.uint8)


def _split(dst: np.ndarray[Any, Any], src: np.ndarray[Any, Any], chunk_bytes: int) -> list[Copy]:
    """Cut one copy into pieces of about ``chunk_bytes`` along its outermost axis."""
    nbytes = dst.nbytes
    if nbytes <= chunk_bytes or src.ndim == 0:
        return [(dst, src)]
    if src.flags.c_contiguous:
        dst, src = dst.reshape(-1), src.reshape(-1)
    n = src.shape[0]
    if n < 2:
        return [(dst, src)]
    step = max(1, n * chunk_bytes // nbytes)
    return [(dst[i : i + step], src[i : i + step]) for i in range(0, n, step)]


def _checked_source(region: Region) -> tuple[np.ndarray[Any, Any], np.dtype[Any]]:
    """The source of ``region`` as an array and the dtype it is written as; refuses a
    source whose size is not the region's planned length."""
    src = _source_array(region)
    dtype = region.dtype if region.dtype is not None else src.dtype
    if dtype.itemsize * src.size != region.length:
        raise ArgumentError(
            f"region {region.name!r}: {region.length} bytes planned, "
            f"source holds {dtype.itemsize * src.size}"
        )
    return src, dtype


def _copies_for(region: Region, dest_bytes: np.ndarray[Any, np.dtype[np.uint8]]) -> Copy:
    src, dtype = _checked_source(region)
    if region.end > dest_bytes.shape[0]:
        raise ArgumentError(
            f"region {region.name!r} ends at {region.end}, past the destination "
            f"({dest_bytes.shape[0]} bytes)"
        )
    dst = dest_bytes[region.offset : region.end].view(dtype).reshape(src.shape)
    return dst, src


def run_copies(
    copies: Sequence[Copy],
    *,
    threads: int | None = None,
    chunk_bytes: int = CHUNK_BYTES,
    progress: Callable[[int], None] | None = None,
) -> None:
    """Run ``numpy.copyto(dst, src)`` for each pair, serially or on a thread pool.

    ``progress(nbytes)`` is called on this thread with the bytes copied since
    its last call, once about ``chunk_bytes`` have moved (threaded: as the
    pieces complete, in order) and once at the end; without it the serial
    copies are not cut at all.
    """
    total = sum(dst.nbytes for dst, _ in copies)
    n = resolve_threads(threads, total)
    if n == 1 and progress is None:
        for dst, src in copies:
            copy_array(dst, src)
        return
    pieces: list[Copy] = []
    for dst, src in copies:
        pieces.extend(_split(dst, src, chunk_bytes))

    def one(pair: Copy) -> int:
        copy_array(pair[0], pair[1])
        return pair[0].nbytes

    def report(copied: Iterable[int]) -> None:
        # Iterating runs the copies (and re-raises the first exception of any worker).
        pending = 0
        for k in copied:
            pending += k
            if progress is not None and pending >= chunk_bytes:
                progress(pending)
                pending = 0
        if progress is not None and pending:
            progress(pending)

    if n == 1:
        report(map(one, pieces))
        return
    with ThreadPoolExecutor(max_workers=n, thread_name_prefix="wireplan-copy") as pool:
        report(pool.map(one, pieces))


def execute(
    plan: Plan | Sequence[Region],
    dest: Any,
    *,
    threads: int | None = None,
    chunk_bytes: int = CHUNK_BYTES,
    progress: Callable[[int], None] | None = None,
) -> None:
    """Fill ``dest`` (a writable buffer: bytearray, mmap, memoryview or array) from a plan.

    Bytes no region covers, and regions without a source, are left as they
    are: a fresh ``bytearray`` or a newly truncated file holds zeros there.
    ``threads=None`` copies serially below :data:`PARALLEL_THRESHOLD` bytes
    and with one thread per core above it; ``threads=1`` is always serial.
    ``progress(nbytes)``: called as the bytes move (see :func:`run_copies`).
    """
    regions = plan.regions if isinstance(plan, Plan) else plan
    dest_bytes = _byte_view(dest)
    if isinstance(plan, Plan) and dest_bytes.shape[0] < plan.size:
        raise ArgumentError(
            f"destination holds {dest_bytes.shape[0]} bytes, plan needs {plan.size}"
        )
    copies = [_copies_for(r, dest_bytes) for r in regions if r.source is not None and r.length]
    run_copies(copies, threads=threads, chunk_bytes=chunk_bytes, progress=progress)


def populate(dest: Any) -> None:
    """Fault in a writable file mapping at once (Linux); anything else is left alone."""
    if isinstance(dest, mmap.mmap) and sys.platform == "linux":
        with contextlib.suppress(OSError, ValueError):
            dest.madvise(_MADV_POPULATE_WRITE)


# One piece of a region: (destination offset, source part, destination dtype).
_Piece = tuple[int, np.ndarray[Any, Any], np.dtype[Any]]


def _pieces(region: Region, limit: int) -> list[_Piece]:
    """``region`` cut along its source's outermost axis into parts of at most ``limit`` bytes."""
    src, dtype = _checked_source(region)
    if region.length <= limit or src.ndim == 0:
        return [(region.offset, src, dtype)]
    if src.flags.c_contiguous:
        src = src.reshape(-1)
    n = src.shape[0]
    row = region.length // n if n else region.length
    step = max(1, limit // max(1, row))
    return [(region.offset + i * row, src[i : i + step], dtype) for i in range(0, n, step)]


def _copy_range(src_fd: int, src_off: int, fd: int, dst_off: int, n: int) -> None:
    while n > 0:
        done = os.copy_file_range(src_fd, fd, n, src_off, dst_off)
        if done <= 0:
            raise FileError(
                f"the source file ends before offset {src_off} that the plan copies from"
            )
        src_off += done
        dst_off += done
        n -= done


def _kernel_copy(
    region: Region,
    fd: int,
    threads: int | None,
    piece_bytes: int,
    progress: Callable[[int], None] | None,
) -> bool:
    """Copy ``region`` file to file when its source is a view of an open MappedFile."""
    from wireplan.core.buffers import file_range

    src = region.source
    if (
        not isinstance(src, np.ndarray)
        or (region.dtype is not None and region.dtype != src.dtype)
        or not hasattr(os, "copy_file_range")
    ):
        return False
    found = file_range(src)
    if found is None or src.nbytes != region.length:
        return False
    src_fd, src_off = found
    n = region.length
    parts = [(i, min(piece_bytes, n - i)) for i in range(0, n, piece_bytes)]
    try:
        _copy_range(src_fd, src_off, fd, region.offset, parts[0][1])
    except OSError:
        return False  # not supported between these files: copy through mappings
    if progress is not None:
        progress(parts[0][1])
    rest = parts[1:]

    def one(part: tuple[int, int]) -> int:
        i, k = part
        _copy_range(src_fd, src_off + i, fd, region.offset + i, k)
        return k

    workers = resolve_threads(threads, n)
    if workers == 1 or len(rest) < 2:
        for part in rest:
            k = one(part)
            if progress is not None:
                progress(k)
        return True
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="wireplan-copy") as pool:
        for k in pool.map(one, rest):
            if progress is not None:
                progress(k)
    return True


def _as_written(region: Region) -> np.ndarray[Any, Any] | None:
    """The bytes of ``region`` as a flat uint8 view of its source, when the file gets
    exactly the source's memory (no conversion); None otherwise."""
    src = _source_array(region)
    if (
        (region.dtype is not None and region.dtype != src.dtype)
        or src.dtype.hasobject
        or not src.flags.c_contiguous
        or src.nbytes != region.length
    ):
        return None  # converted through a mapping (which also reports a size mismatch)
    return src.reshape(-1).view(_U8)


# Padding between two written regions up to this size is written as zeros to batch them.
_GAP_BYTES = 4096
_ZERO_GAP = np.zeros(_GAP_BYTES, _U8)
_IOV_MAX = 1024
# Batches of at least this many bytes return the pages of mapped sources once written
# (the resident set stays bounded however large the file); smaller ones are not worth
# the calls.
_DROP_BYTES = 256 << 10


def _write_regions(
    written: list[tuple[int, np.ndarray[Any, Any]]],
    fd: int,
    threads: int | None,
    chunk_bytes: int,
    progress: Callable[[int], None] | None,
) -> None:
    """Write each (offset, bytes) into ``fd`` with ``os.pwritev``: neighbours in batches
    of about ``chunk_bytes`` (one contiguous span each), the batches on ``threads``."""
    from wireplan.core.buffers import drop_pages

    written.sort(key=lambda w: w[0])
    # (file offset, parts, span bytes, region bytes): the zeros of gaps are not reported
    batches: list[tuple[int, list[np.ndarray[Any, Any]], int, int]] = []
    parts: list[np.ndarray[Any, Any]] = []
    at, span, moved = -1, 0, 0
    for off, raw in written:
        for i in range(0, raw.size, chunk_bytes):
            piece = raw[i : i + chunk_bytes]
            gap = off + i - (at + span)
            if (
                parts
                and 0 <= gap <= _GAP_BYTES
                and span < chunk_bytes
                and len(parts) < _IOV_MAX - 1
            ):
                if gap:
                    parts.append(_ZERO_GAP[:gap])
                parts.append(piece)
                span += gap + piece.size
                moved += piece.size
                continue
            if parts:
                batches.append((at, parts, span, moved))
            at, parts, span, moved = off + i, [piece], piece.size, piece.size
    if parts:
        batches.append((at, parts, span, moved))

    def one(batch: tuple[int, list[np.ndarray[Any, Any]], int, int]) -> int:
        offset, bufs, span, nbytes = batch
        pwrite_all(fd, bufs, offset)
        if span >= _DROP_BYTES:  # a small batch (a small file) keeps its few pages
            drop_pages(*bufs)
        return nbytes

    total = sum(b[2] for b in batches)
    workers = resolve_threads(threads, total)
    if workers == 1 or len(batches) < 2:
        for k in map(one, batches):
            if progress is not None:
                progress(k)
        return
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="wireplan-write") as pool:
        for k in pool.map(one, batches):
            if progress is not None:
                progress(k)


def pwrite_all(fd: int, bufs: Sequence[Any], offset: int) -> None:
    """``os.pwritev`` of ``bufs`` (byte buffers) at ``offset`` until every byte is written (a
    regular file may take fewer at once)."""
    views = [memoryview(b) for b in bufs]
    while views:
        done = os.pwritev(fd, views, offset)
        if done <= 0:
            raise FileError(f"could not write at offset {offset} of the file")
        offset += done
        while views and done >= views[0].nbytes:
            done -= views[0].nbytes
            views.pop(0)
        if views and done:
            views[0] = views[0][done:]


def execute_file(
    plan: Plan | Sequence[Region],
    fd: int,
    *,
    threads: int | None = None,
    window_bytes: int = WINDOW_BYTES,
    chunk_bytes: int = CHUNK_BYTES,
    progress: Callable[[int], None] | None = None,
) -> None:
    """Fill the open file ``fd`` (already at its final size) from a plan, a window at a time.

    The bytes :func:`execute` would write, serial or threaded, with memory
    that does not grow with the file:

    - a region of :data:`KERNEL_COPY_BYTES` or more whose source is a byte view
      into an open :class:`~wireplan.core.buffers.MappedFile` (an .onnx's
      external data, an .ort's companion) is copied file to file by the kernel
      (``os.copy_file_range``, in pieces of ``window_bytes`` on ``threads``
      threads), never mapped; where the kernel refuses, it goes the next way;
    - another region whose bytes are its source's as they lie in memory (no
      byte order or type to convert, contiguous) is written from the source with
      ``os.pwritev``, neighbours batched into one call (the padding between
      them written as the zeros it is): the kernel's one copy, without
      faulting in a mapping of the file page by page (about 2x faster up to
      tens of MB);
    - every other region is copied by ``numpy.copyto`` into mappings of
      about ``window_bytes`` of the file, each unmapped before the next.

    Sources that view a read-only file mapping have their pages released
    once written (:func:`wireplan.core.buffers.drop_pages`), except in a batch
    of neighbours smaller than 256 KiB.

    ``progress(nbytes)`` is called on this thread as the bytes move: after
    each piece of about ``chunk_bytes`` (kernel copies are then cut into
    pieces of that size instead of ``window_bytes``; threaded: as the pieces
    complete, in order).
    """
    from wireplan.core.buffers import drop_pages, file_range

    regions = plan.regions if isinstance(plan, Plan) else plan
    kernel_piece = window_bytes if progress is None else min(window_bytes, chunk_bytes)
    pieces: list[_Piece] = []
    mapped: list[Region] = []
    written: list[tuple[int, np.ndarray[Any, Any]]] = []
    rest: list[Region] = []
    for r in regions:
        if r.source is None or not r.length:
            continue
        raw = _as_written(r)
        if raw is not None and (raw.nbytes < KERNEL_COPY_BYTES or file_range(raw) is None):
            written.append((r.offset, raw))
        else:
            rest.append(r)
    # Written first: a batch writes the zeros of the padding between its regions, which
    # may hold a region of the other routes.
    if written:
        _write_regions(written, fd, threads, chunk_bytes, progress)
    for r in rest:
        # A kernel copy happens inside the test; what it refuses goes through mappings.
        if not _kernel_copy(r, fd, threads, kernel_piece, progress):
            mapped.append(r)
    for r in mapped:
        pieces.extend(_pieces(r, window_bytes))
    gran = mmap.ALLOCATIONGRANULARITY
    i = 0
    while i < len(pieces):
        j = i + 1
        start = pieces[i][0] // gran * gran
        end = pieces[i][0] + pieces[i][1].size * pieces[i][2].itemsize
        while j < len(pieces):
            off, src, dt = pieces[j]
            piece_end = off + src.size * dt.itemsize
            if piece_end - start > window_bytes:
                break
            end = max(end, piece_end)
            j += 1
        group = pieces[i:j]
        mm = mmap.mmap(fd, end - start, offset=start)
        try:
            populate(mm)
            window = np.frombuffer(mm, dtype=np.uint8)
            copies = [
                (
                    window[off - start : off - start + src.size * dt.itemsize]
                    .view(dt)
                    .reshape(src.shape),
                    src,
                )
                for off, src, dt in group
            ]
            run_copies(copies, threads=threads, chunk_bytes=chunk_bytes, progress=progress)
            del copies, window
        finally:
            with contextlib.suppress(BufferError):
                mm.close()
        drop_pages(*(src for _, src, _ in group))
        i = j
