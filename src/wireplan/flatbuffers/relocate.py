"""Lay a verified FlatBuffer out again without rebuilding it: its tables as they are, vectors moved.

:func:`relocate` plans a new buffer from an existing one in which the vectors that
one field refers to (``Tensor.raw_data`` of an .ort) move to the end, each at a
multiple of the alignment asked, and everything else keeps its bytes: the
metadata is copied as one block with the moved vectors cut out (in multiples of 8
bytes, so every scalar keeps its alignment), and only the offsets change, all at
once in numpy: each uoffset and each table's offset to its vtable is recomputed
from where its two ends now lie.  What they are comes from the verifier's walk
(:func:`~wireplan.flatbuffers.verify.verified` filling a
:class:`~wireplan.flatbuffers.verify.Layout`), so nothing is read that it has not
checked.

The plan is the builder's kind (:class:`~wireplan.flatbuffers.builder.BuildResult`), so
it is written by the same executor: one block of the metadata followed by the small moved
vectors (under 64 KiB, copied in while the block stays under 16 MiB: a region each would
cost more than its bytes), then each other vector's length and bytes, viewed from the
source.  ``None`` when a buffer does not allow it
(table entries the walk does not follow, or objects that overlap what would
move): build it instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from wireplan.core.buffers import as_memoryview
from wireplan.core.plan import Plan, align_up
from wireplan.flatbuffers._pack import MAX_BUFFER_SIZE, BuildResult
from wireplan.flatbuffers.verify import Layout, every_offset

__all__ = ["relocate"]

_CUT = 8  # cut in multiples of the largest scalar alignment
# Vectors under this many bytes are copied into the metadata's block while it stays under
# _SMALL_BLOCK bytes (so a large model's many small tensors cannot make it large).
_SMALL_VECTOR = 64 << 10
_SMALL_BLOCK = 16 << 20


def _concat(pairs: list[tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]]) -> tuple[Any, Any]:
    if not pairs:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return (
        np.concatenate([a for a, _ in pairs]).astype(np.int64),
        np.concatenate([b for _, b in pairs]).astype(np.int64),
    )


def _firsts(a: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Where each run of equal values in the sorted ``a`` starts (deduplicating by a sort:
    ``np.unique``'s hash table is several times slower on these arrays of offsets)."""
    return np.concatenate(([True], a[1:] != a[:-1])) if a.size else np.zeros(0, bool)


def relocate(
    buffer: Any,
    layout: Layout,
    alignment: int,
    *,
    small_vector: int | None = None,
    block_limit: int | None = None,
) -> BuildResult | None:
    """A plan of ``buffer`` with the vectors of ``layout.field`` at multiples of ``alignment``.

    ``layout``: what :func:`~wireplan.flatbuffers.verify.verified` found in ``buffer``
    (it passed), asked for a field that is a vector of scalars.  The header (root offset,
    file identifier) stays where it is.  ``None`` when the buffer cannot be relocated
    (see the module).  Vectors under ``small_vector`` bytes (default 64 KiB) are copied
    into the metadata's block while it stays under ``block_limit`` bytes (default 16 MiB):
    a plan of that one region when every vector fits.
    """
    small_vector = _SMALL_VECTOR if small_vector is None else small_vector
    block_limit = _SMALL_BLOCK if block_limit is None else block_limit
    if layout.unsure or layout.root is None or layout.field is None:
        return None
    mv = as_memoryview(buffer)
    n = mv.nbytes
    root = layout.root
    head = 8  # the root offset and the room of a file identifier: never cut
    step = max(alignment, _CUT)

    # The vectors to move: distinct, non-empty, in order, not overlapping each other.
    start, nbytes = _concat(layout.vectors)
    order = np.argsort(start, kind="stable")
    start, nbytes = start[order], nbytes[order]
    first = _firsts(start)  # a vector met twice counts once
    start, nbytes = start[first], nbytes[first]
    keep = nbytes > 0
    start, nbytes = start[keep], nbytes[keep]
    end = start + 4 + nbytes
    if start.size > 1 and (end[:-1] > start[1:]).any():
        return None
    cut = (4 + nbytes) // _CUT * _CUT  # the bytes removed: the rest stays as padding
    cut_end = start + cut
    before = np.concatenate(([0], np.cumsum(cut)))  # removed before interval i

    # Nothing else may lie in what is cut: not the header, no table, vtable, string or
    # other vector (a moved vector's own extent excepted).
    ext_start, ext_end = _concat(layout.extents)
    ext_start = np.append(ext_start, 0)
    ext_end = np.append(ext_end, head)
    if start.size:
        i = np.searchsorted(start, ext_end, side="left") - 1
        hit = (i >= 0) & (cut_end[np.maximum(i, 0)] > ext_start)
        if hit.any():
            j = np.minimum(np.searchsorted(start, ext_start[hit]), start.size - 1)
            if not ((start[j] == ext_start[hit]) & (end[j] == ext_end[hit])).all():
                return None

    def moved_to(p: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        """Where bytes at ``p`` (outside every cut) lie in the compacted metadata."""
        return p - before[np.searchsorted(start, p, side="right")]

    meta_size = n - int(before[-1])
    # The moved vectors after the metadata, each length right before its aligned bytes:
    # the small ones first, copied into the block that holds the metadata (a region each
    # would cost more than its bytes), as long as the block stays small; then the others.
    data = np.empty(start.size, np.int64)
    pos = meta_size
    small = (nbytes < small_vector).tolist()
    sizes = nbytes.tolist()
    for in_block in (True, False):
        for k, size in enumerate(sizes):
            if small[k] is in_block:
                d = align_up(pos + 4, step)
                if in_block and d + size > block_limit:
                    small[k] = False  # the block is full: this one is a region
                    continue
                data[k] = d
                pos = d + size
        if in_block:
            block_size = pos
    total = pos
    if total > MAX_BUFFER_SIZE:
        return None

    src = np.frombuffer(mv, np.uint8)
    block = np.zeros(block_size, np.uint8)  # the padding between vectors: zeros
    meta = block[:meta_size]
    at = m = 0  # the next byte to keep, and where it goes
    for s, c in zip(np.append(start, n).tolist(), np.append(cut, 0).tolist(), strict=True):
        meta[m : m + s - at] = src[at:s]
        m += s - at
        at = s + c

    # uoffsets (the root's included): from where each now lies to where its target does
    where, target = _concat(layout.refs)
    where = np.append(where, 0)
    target = np.append(target, root)
    table, vtable = _concat(layout.tables)
    if not _offsets_apart(where, table, layout, start, end):
        return None
    if start.size:
        k = np.minimum(np.searchsorted(start, target), start.size - 1)
        moving = start[k] == target
        new_target = np.where(moving, data[k] - 4, moved_to(target))
    else:
        new_target = target
    stored = moved_to(where)
    value = new_target - stored
    if value.size and (value.min() <= 0 or value.max() > 0xFFFFFFFF):
        return None
    every_offset(meta, "<u4")[stored] = value
    # each table's signed offset to its vtable
    table = moved_to(table)
    every_offset(meta, "<i4")[table] = table - moved_to(vtable)

    name = ".".join(layout.field)
    moves = list(zip(start.tolist(), data.tolist(), sizes, small, strict=True))
    # each vector's length and bytes, as they lie together in the source
    for s, d, size, inside in moves:
        if inside:
            block[d - 4 : d + size] = src[s : s + 4 + size]
    plan = Plan()
    plan.place(0, block_size, source=block, name="metadata")
    plan.place_each(
        ((d - 4, 4 + size, src[s : s + 4 + size]) for s, d, size, inside in moves if not inside),
        alignment=4,
        name=name,
    )
    payloads = [(d, size, name) for _, d, size, _ in moves]
    plan.reserve(total)
    return BuildResult(plan, meta_size, tuple(payloads))


def _offsets_apart(
    where: np.ndarray[Any, Any],
    table: np.ndarray[Any, Any],
    layout: Layout,
    start: np.ndarray[Any, Any],
    end: np.ndarray[Any, Any],
) -> bool:
    """Whether the 4-byte offsets to rewrite (uoffsets at ``where``, each table's vtable
    offset) share no byte with each other, with anything read as a value, or with the
    vectors that move: otherwise rewriting one would change another's meaning."""
    patched = np.sort(np.concatenate([where, table]))
    patched = patched[_firsts(patched)]
    if patched.size > 1 and (np.diff(patched) < 4).any():
        return False
    ds, de = _concat(layout.data)
    ds, de = np.append(ds, start), np.append(de, end)  # the moved vectors' bytes too
    # a patched span [p, p + 4) meets [s, e) when s - 4 < p < e: when the first p past
    # s - 4 lies before e
    if not patched.size:
        return True
    first = np.searchsorted(patched, ds - 3, side="left")
    return not (patched[np.minimum(first, patched.size - 1)] < de)[first < patched.size].any()
