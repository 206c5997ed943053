"""A vector of tables decoded when it is first used: what a lazy read hands out.

:class:`TableList` stands where an eager decode puts a ``list`` of table objects.
Its length is read from the buffer; the first other use (indexing, iterating,
comparing, changing it) decodes every element at once and from then on it
behaves as that list.  It is only made over a buffer that
:func:`wireplan.flatbuffers.verify.verified` has passed, so decoding it later
cannot fail; it keeps the buffer alive until it has been decoded.
"""

from __future__ import annotations

import copy
import struct
import threading
from collections.abc import Callable, Iterable, Iterator, MutableSequence
from typing import Any, SupportsIndex, overload

__all__ = ["TableList"]

_U32 = struct.Struct("<I").unpack_from
# Decoding shares its reader (the work budget); lists decode one at a time.
_DECODING = threading.RLock()


class TableList(MutableSequence[Any]):
    """A list of decoded tables, decoded on first use (see the module)."""

    __slots__ = ("_items", "_pending")

    def __init__(
        self, reader: Any, pos: int, decode: Callable[[Any, int, int], list[Any]], depth: int
    ) -> None:
        self._items: list[Any] | None = None
        self._pending: tuple[Any, int, Callable[[Any, int, int], list[Any]], int] | None = (
            reader,
            pos,
            decode,
            depth,
        )

    @property
    def decoded(self) -> bool:
        """Whether the elements have been decoded (for tests and benchmarks)."""
        return self._items is not None

    def may_hold(self, fields: Iterable[tuple[str, str]]) -> bool:
        """Whether the undecoded elements can reach a table with one of ``fields``.

        ``(table, field)`` pairs; ``False`` only while nothing is decoded and the
        verified buffer has none of those fields anywhere, so a walk can skip the list.
        """
        pending = self._pending
        if pending is None:
            return True
        present = pending[0].present
        return present is None or any(f in present for f in fields)

    def _list(self) -> list[Any]:
        items = self._items
        if items is None:
            with _DECODING:  # one decode, whichever thread comes first
                items = self._items
                if items is None:
                    assert self._pending is not None
                    reader, pos, decode, depth = self._pending
                    items = self._items = decode(reader, pos, depth)
                    self._pending = None
        return items

    def __len__(self) -> int:
        pending = self._pending
        if pending is None:  # decoded
            return len(self._list())
        count: int = _U32(pending[0]._mv, pending[1])[0]
        return count

    @overload
    def __getitem__(self, i: SupportsIndex) -> Any: ...
    @overload
    def __getitem__(self, i: slice) -> list[Any]: ...
    def __getitem__(self, i: SupportsIndex | slice) -> Any:
        return self._list()[i]

    def __setitem__(self, i: Any, value: Any) -> None:
        self._list()[i] = value

    def __delitem__(self, i: SupportsIndex | slice) -> None:
        del self._list()[i]

    def insert(self, index: int, value: Any) -> None:
        self._list().insert(index, value)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._list())

    def __reversed__(self) -> Iterator[Any]:
        return iter(self._list()[::-1])

    def __contains__(self, value: object) -> bool:
        return value in self._list()

    def index(self, value: Any, start: int = 0, stop: int | None = None) -> int:
        return self._list().index(value, start, len(self) if stop is None else stop)

    def count(self, value: Any) -> int:
        return self._list().count(value)

    def append(self, value: Any) -> None:
        self._list().append(value)

    def extend(self, values: Iterable[Any]) -> None:
        self._list().extend(values)

    def sort(self, *args: Any, **kwargs: Any) -> None:
        self._list().sort(*args, **kwargs)

    def copy(self) -> list[Any]:
        return list(self._list())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, TableList):
            other = other._list()
        return self._list() == other

    __hash__ = None  # type: ignore[assignment]  # mutable, as a list

    def __add__(self, other: Iterable[Any]) -> list[Any]:
        return self._list() + list(other)

    def __radd__(self, other: Iterable[Any]) -> list[Any]:
        return list(other) + self._list()

    def __bool__(self) -> bool:
        return len(self) > 0

    def __repr__(self) -> str:
        return repr(self._list())

    def __copy__(self) -> list[Any]:
        return list(self._list())

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        return copy.deepcopy(self._list(), memo)

    def __reduce__(self) -> tuple[Any, ...]:
        return (list, (self._list(),))
