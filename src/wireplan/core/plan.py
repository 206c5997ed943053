"""A plan of regions: where every byte of an output goes, decided before any byte moves.

A :class:`Plan` is plain data: an ordered list of :class:`Region` objects
(offset, length, alignment, source) and the total size of the destination.
Formats build a plan (the EValue list framing, the .ort writer), then hand
it to :func:`wireplan.core.executor.execute`, which fills a destination sized
once, serially or with threads, with byte-identical results.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from wireplan.errors import ArgumentError

__all__ = ["Plan", "Region", "align_up", "check_alignment", "is_power_of_two"]


def is_power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def check_alignment(alignment: object, *, most: int | None = None, path: str = "$") -> int:
    """``alignment`` when it is a power of two (up to ``most``); otherwise an :class:`ArgumentError`.

    The one check of an alignment for every writer (the plan, the FlatBuffers
    builder, the .ort and .onnx writers), so a bad one is the same error
    everywhere: an ``ArgumentError``, which is also a ``ValueError``.  ``path``
    names the value that asked for it (``$.graph.initializers[2]``) when it is
    not the call's own argument (``"$"``).
    """
    if (
        not isinstance(alignment, int)
        or isinstance(alignment, bool)
        or not is_power_of_two(alignment)
        or (most is not None and alignment > most)
    ):
        span = "" if most is None else f" from 1 to {most}"
        where = "" if path == "$" else f"{path}: "
        raise ArgumentError(f"{where}alignment must be a power of two{span}, not {alignment!r}")
    return alignment


def align_up(offset: int, alignment: int) -> int:
    """The smallest multiple of ``alignment`` (a power of two) at or after ``offset``."""
    return (offset + alignment - 1) & -alignment


@dataclass(frozen=True, slots=True)
class Region:
    """``length`` bytes at ``offset`` of the destination, filled from ``source``.

    ``source`` is a numpy array (any shape, order or byte order) or a
    bytes-like object; ``None`` leaves the bytes as the destination has them
    (zero for a fresh buffer or file).  For an array, ``dtype`` says how the
    destination bytes are typed (``">f4"`` for big-endian float32, say): the
    executor converts while it copies, so byte swapping costs no extra pass.
    Arrays are always written in row-major (C) order.
    """

    offset: int
    length: int
    alignment: int = 1
    source: Any = None
    dtype: np.dtype[Any] | None = None
    name: str = ""

    @property
    def end(self) -> int:
        return self.offset + self.length


class Plan:
    """An ordered set of non-overlapping regions inside a destination of ``size`` bytes.

    No byte belongs to two regions (:meth:`place` refuses an overlap), which
    is what lets the executor copy regions in parallel, in any order, with
    byte-identical results.

    Regions are usually placed with :meth:`add`, which puts each one at the
    next offset that satisfies its alignment; :meth:`place` puts one at an
    explicit offset.  The plan grows as regions are added; :meth:`pad_to`
    rounds the size up.
    """

    __slots__ = ("_ends", "_regions", "_size", "_starts")

    def __init__(self) -> None:
        self._regions: list[Region] = []
        self._size = 0
        # The non-empty regions' [start, end) intervals, sorted by start: they never overlap.
        self._starts: list[int] = []
        self._ends: list[int] = []

    @property
    def size(self) -> int:
        """Bytes the destination needs."""
        return self._size

    @property
    def regions(self) -> tuple[Region, ...]:
        return tuple(self._regions)

    def __iter__(self) -> Iterator[Region]:
        return iter(self._regions)

    def __len__(self) -> int:
        return len(self._regions)

    def add(
        self,
        length: int,
        *,
        alignment: int = 1,
        source: Any = None,
        dtype: np.dtype[Any] | str | None = None,
        name: str = "",
    ) -> Region:
        """Append a region at the next offset that is a multiple of ``alignment``."""
        return self.place(
            align_up(self._size, check_alignment(alignment)),
            length,
            alignment=alignment,
            source=source,
            dtype=dtype,
            name=name,
        )

    def place(
        self,
        offset: int,
        length: int,
        *,
        alignment: int = 1,
        source: Any = None,
        dtype: np.dtype[Any] | str | None = None,
        name: str = "",
    ) -> Region:
        """Put a region at an explicit ``offset``; it must not overlap any region already placed.

        Regions may be placed in any order; an empty region overlaps nothing.
        """
        check_alignment(alignment)
        if offset < 0 or length < 0:
            raise ArgumentError(f"region {name!r}: negative offset or length ({offset}, {length})")
        if offset % alignment:
            raise ArgumentError(
                f"region {name!r}: offset {offset} is not a multiple of {alignment}"
            )
        at = len(self._starts)
        if length:
            if at and offset < self._ends[-1]:  # not simply after the last: look it up
                at = bisect.bisect_right(self._starts, offset)
            end = offset + length
            clash = None
            if at and self._ends[at - 1] > offset:
                clash = at - 1
            elif at < len(self._starts) and self._starts[at] < end:
                clash = at
            if clash is not None:
                other = next(
                    r for r in self._regions if r.length and r.offset == self._starts[clash]
                )
                raise ArgumentError(
                    f"region {name!r} [{offset}, {end}) overlaps "
                    f"{other.name!r} [{other.offset}, {other.end})"
                )
        region = Region(
            offset,
            length,
            alignment,
            source,
            None if dtype is None else np.dtype(dtype),
            name,
        )
        self._regions.append(region)
        if length:
            self._starts.insert(at, offset)
            self._ends.insert(at, offset + length)
        self._size = max(self._size, region.end)
        return region

    def place_each(
        self,
        placements: Iterable[tuple[int, int, Any]],
        *,
        alignment: int = 1,
        name: str = "",
    ) -> None:
        """:meth:`place` each ``(offset, length, source)``, for many regions of one kind.

        In the usual order (increasing offsets, each past every region placed before)
        a region costs a comparison, not a search; any other is placed (or refused) as
        :meth:`place` does.
        """
        check_alignment(alignment)
        regions, starts, ends = self._regions, self._starts, self._ends
        last = ends[-1] if ends else 0
        try:
            for offset, length, source in placements:
                if offset < last or length <= 0 or offset % alignment:
                    self._size = max(self._size, last)
                    self.place(offset, length, alignment=alignment, source=source, name=name)
                    last = ends[-1] if ends else 0
                    continue
                regions.append(Region(offset, length, alignment, source, None, name))
                last = offset + length
                starts.append(offset)
                ends.append(last)
        finally:
            self._size = max(self._size, last)

    def pad_to(self, alignment: int) -> None:
        """Round the destination size up to a multiple of ``alignment``."""
        self._size = align_up(self._size, check_alignment(alignment))

    def reserve(self, size: int) -> None:
        """Make the destination at least ``size`` bytes long."""
        self._size = max(self._size, size)

    def __repr__(self) -> str:
        return f"Plan({len(self._regions)} regions, {self._size} bytes)"
