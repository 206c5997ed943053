"""The list framing of EValues (``encode_list`` / ``decode_list``): wireplan's version 1.

An EValue has no length of its own (a tensor runs to the end of its
buffer), so a sequence needs a framing.  This one is wireplan's own,
big-endian like EValue, and versioned::

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
are aligned (in memory and in a record file, :mod:`wireplan.evalue._records`).
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence
from typing import Any, Final

import numpy as np

from wireplan.core.alloc import fill_new_bytes
from wireplan.core.executor import execute
from wireplan.core.plan import Plan, align_up
from wireplan.core.text import count as counted
from wireplan.errors import DecodeError, LimitError
from wireplan.evalue._codec import (
    TAG_TENSOR,
    _decode_at,
    _Parts,
    _parts,
    input_view,
)

__all__ = [
    "ALIGNMENT",
    "LIST_MAGIC",
    "LIST_VERSION",
    "decode_list",
    "encode_list",
    "plan_list",
]

LIST_MAGIC: Final = b"WPEL"
LIST_VERSION: Final = 1
#: Tensor data in a list, and lists in a record file, start at multiples of this.
ALIGNMENT: Final = 64

_LIST_HEAD = struct.Struct(">4sHHQ")
_ENTRY = struct.Struct(">QQ")
_LIST_HEAD_SIZE: Final = _LIST_HEAD.size
_ENTRY_SIZE: Final = _ENTRY.size


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
        raise DecodeError(f"{counted(end - prev, 'trailing byte')} after the last element", prev)
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
