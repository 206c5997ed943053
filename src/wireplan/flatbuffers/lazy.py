"""A vector of tables decoded as it is used: what a lazy read hands out.

:class:`TableList` stands where an eager decode puts a ``list`` of table objects.
Its length is read (and checked) when it is made.  Indexing one element decodes
that element only and keeps it, so asking again gives the same object; any other
use (iterating, slicing, comparing, changing it) decodes the rest at once, keeping
what was already decoded, and from then on it behaves as that list.

A lazy read verifies on access: each table is checked by the same decoder, with
the same checks and limits, when it is decoded, so a damaged table raises
:class:`~wireplan.DecodeError` when the list reaches it, with the byte offset and
the full path.  (A reader that verified the whole buffer first cannot fail there.)

:meth:`TableList.candidates` answers "which elements can hold a table with one of
these fields?" from the vtables alone, without decoding: a walk that looks for
rare fields (a tensor or a graph in a node attribute) decodes only the elements
it names.  The list keeps the buffer alive until it has been decoded.
"""

from __future__ import annotations

import copy
import struct
import threading
from collections.abc import Callable, Iterable, Iterator, MutableSequence
from typing import Any, SupportsIndex, overload

from wireplan.errors import DecodeError

__all__ = ["TableList"]

_U32 = struct.Struct("<I").unpack_from
_I32 = struct.Struct("<i").unpack_from
_U16X2 = struct.Struct("<HH").unpack_from
_U16 = struct.Struct("<H").unpack_from
# Decoding shares its reader (the work budget); lists decode one at a time.
_DECODING = threading.RLock()

_Decode = Callable[[Any, int, int], Any]
# What an undecoded list keeps: reader, position, element decoder, table, depth, field name.
_Pending = tuple[Any, int, _Decode, str, int, str]


class TableList(MutableSequence[Any]):
    """A list of decoded tables, decoded as used (see the module)."""

    __slots__ = ("_count", "_items", "_pending", "_scans", "_some")

    def __init__(
        self, reader: Any, pos: int, decode: _Decode, table: str, depth: int, field: str
    ) -> None:
        """The vector of ``table`` tables at ``pos`` (its length), for ``reader``; ``decode``
        decodes one element, ``field`` names the vector in error paths."""
        self._count: int = reader._length(pos, 4)  # checked: the offsets lie in the buffer
        self._items: list[Any] | None = None
        self._some: dict[int, Any] = {}
        self._scans: dict[str | None, list[tuple[int, int]]] | None = None
        self._pending: _Pending | None = (
            reader,
            pos,
            decode,
            table,
            depth,
            field,
        )

    @property
    def decoded(self) -> bool:
        """Whether every element has been decoded (for tests and benchmarks)."""
        return self._items is not None

    def may_hold(self, fields: Iterable[tuple[str, str]]) -> bool:
        """Whether the undecoded elements can reach a table with one of ``fields``.

        ``(table, field)`` pairs; ``False`` only while nothing is decoded and a reader
        that verified the whole buffer found none of those fields anywhere.
        """
        pending = self._pending
        if pending is None or self._some:
            return True
        present = pending[0].present
        return present is None or any(f in present for f in fields)

    def candidates(self, field: str | None, wanted: tuple[str, ...]) -> list[int]:
        """Indices of the elements that may hold one of the fields ``wanted``: in the
        element itself (``field`` ``None``) or in a table of its vector of tables ``field``.

        Read from the vtables, nothing decoded; a superset: every element already
        decoded counts, and so does any element whose bytes look wrong (decoding it
        raises the error).  An element left out has none of ``wanted`` there.
        """
        pending = self._pending
        if pending is None:
            return list(range(len(self)))
        reader, _, _, table, _, _ = pending
        target, _, slots = _scan_plan(reader._plans, table, field, wanted)
        some = self._some
        if not slots or not self.may_hold((target, w) for w in wanted):
            return sorted(some)
        scans = self._scans
        if scans is None:
            scans = self._scans = {}
        masks = scans.get(field)
        if masks is None:  # one scan per vector field, whatever is wanted
            masks = scans[field] = _scan(pending, self._count, field)
        want = 0
        for s in slots:
            want |= 1 << s
        found = [i for i, mask in masks if mask & want]
        if some and not some.keys() <= set(found):  # elements decoded since: they count
            return sorted(set(found) | some.keys())
        return found

    def _one(self, i: int) -> Any:
        """Element ``i`` (in range), decoded once."""
        found = self._some.get(i)
        if found is not None:
            return found
        with _DECODING:
            items = self._items
            if items is not None:  # another thread decoded the whole list meanwhile
                return items[i]
            found = self._some.get(i)
            if found is None:
                found = self._some[i] = self._decode(i)
        return found

    def _decode(self, i: int) -> Any:
        reader, pos, decode, _, depth, field = self._pending  # type: ignore[misc]
        try:
            return decode(reader, reader._ref(pos + 4 + 4 * i), depth)
        except DecodeError as exc:
            raise reader.placed(exc.under(f"[{i}]").under(f".{field}")) from None

    def _decode_all(self) -> list[Any]:
        """Every element, those decoded before kept (the loop of :meth:`_decode`, inlined)."""
        reader, pos, decode, _, depth, field = self._pending  # type: ignore[misc]
        some = self._some
        n = reader._n
        items = []
        at = pos + 4
        for i, off in enumerate(_words(self._count)(reader._mv, at)):
            found = some.get(i) if some else None
            if found is None:
                tp = at + off
                try:
                    if tp + 4 > n or not off:
                        reader._ref(at)  # raises
                    found = decode(reader, tp, depth)
                except DecodeError as exc:
                    raise reader.placed(exc.under(f"[{i}]").under(f".{field}")) from None
            items.append(found)
            at += 4
        return items

    def _list(self) -> list[Any]:
        items = self._items
        if items is None:
            with _DECODING:  # one decode, whichever thread comes first
                items = self._items
                if items is None:
                    items = self._items = self._decode_all()
                    self._pending = None
                    self._some = {}
        return items

    def __len__(self) -> int:
        items = self._items
        return self._count if items is None else len(items)

    @overload
    def __getitem__(self, i: SupportsIndex) -> Any: ...
    @overload
    def __getitem__(self, i: slice) -> list[Any]: ...
    def __getitem__(self, i: SupportsIndex | slice) -> Any:
        items = self._items
        if items is not None or isinstance(i, slice):
            return self._list()[i]
        k = i.__index__()
        count = self._count
        if k < 0:
            k += count
        if not 0 <= k < count:
            raise IndexError("list index out of range")  # a list's error, nothing decoded
        return self._one(k)

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


def _scan(pending: _Pending, count: int, field: str | None) -> list[tuple[int, int]]:
    """``(index, mask)`` of the elements of a list (``pending``: its reader, position, ...)
    with a field (``field`` None) or a table in their vector ``field`` with a field: bit
    ``k`` for slot ``k``, -1 where the bytes look wrong."""
    reader, pos, _, table, _, _ = pending
    _, slot, _ = _scan_plan(reader._plans, table, field, ())
    mv, n = reader._mv, reader._n
    masks: dict[int, int] = {}  # vtable position -> its slots' presence mask
    out = []
    first = pos + 4
    offsets = _words(count)(mv, first)  # checked to lie in the buffer at creation
    if field is None:
        for i, off in enumerate(offsets):
            mask = _table_mask(mv, n, first + 4 * i + off, masks)
            if mask:
                out.append((i, mask))
        return out
    where: dict[int, tuple[int, int]] = {}  # element vtable -> (field offset, table size)
    for i, off in enumerate(offsets):
        tp = first + 4 * i + off
        if tp & 3 or not off:
            out.append((i, -1))
            continue
        found = where.get(tp - _I32(mv, tp)[0]) if tp + 4 <= n else None
        if found is None:
            found = _field_offset(mv, n, tp, slot)
            if found[0] >= 0:
                where[tp - _I32(mv, tp)[0]] = found
        fo, tsize = found
        if fo < 0 or tp + tsize > n:
            out.append((i, -1))  # odd: decoding raises
            continue
        if not fo:
            continue
        vp = tp + fo
        step = _U32(mv, vp)[0]
        vp += step
        count = _U32(mv, vp)[0] if vp + 4 <= n and not vp & 3 and step else -1
        if count < 0 or vp + 4 + 4 * count > n:
            out.append((i, -1))
            continue
        mask = 0
        at = vp + 4
        for j, child in enumerate(_words(count)(mv, at)):
            tp = at + 4 * j + child
            if tp + 4 > n or tp & 3 or not child:
                mask = -1
                break
            m = masks.get(tp - _I32(mv, tp)[0])
            mask |= _table_mask(mv, n, tp, masks) if m is None else m
        if mask:
            out.append((i, mask))
    return out


# -- the vtable reads behind candidates(): (-1, 0) or True where the bytes look wrong ----------

_Plan = tuple[str, int, tuple[int, ...]]
_PLANS: dict[tuple[int, str, str | None, tuple[str, ...]], tuple[Any, _Plan]] = {}


def _scan_plan(plans: Any, table: str, field: str | None, wanted: tuple[str, ...]) -> _Plan:
    """``(table searched, slot of field, slots of wanted)`` from the decoders' plans."""
    key = (id(plans), table, field, wanted)
    hit = _PLANS.get(key)
    if hit is not None and hit[0] is plans:
        return hit[1]
    own = {p.name: p for p in plans[table][0]}
    target = table if field is None else own[field].target
    inner = {p.name: p for p in plans[target][0]}
    slot = -1 if field is None else own[field].slot
    found = (target, slot, tuple(inner[w].slot for w in wanted if w in inner))
    if len(_PLANS) < 1024:
        _PLANS[key] = (plans, found)
    return found


def _field_offset(mv: Any, n: int, tp: int, slot: int) -> tuple[int, int]:
    """``(offset of field ``slot`` in the table at ``tp``, or 0 if absent; table size)``."""
    if tp + 4 > n or tp & 3:
        return -1, 0
    vt = tp - _I32(mv, tp)[0]
    if vt < 0 or vt + 4 > n or vt & 1:
        return -1, 0
    vtsize, tsize = _U16X2(mv, vt)
    if vtsize < 4 or vtsize & 1 or vt + vtsize > n or tsize < 4:
        return -1, 0
    if slot >= (vtsize - 4) >> 1:
        return 0, tsize
    fo: int = _U16(mv, vt + 4 + 2 * slot)[0]
    if fo and (fo + 4 > tsize or fo & 3):  # the field: an offset, at a multiple of 4
        return -1, 0
    return fo, tsize


def _table_mask(mv: Any, n: int, tp: int, masks: dict[int, int]) -> int:
    """The presence mask of the table at ``tp`` (bit ``k``: slot ``k`` set; -1 if odd)."""
    if tp + 4 > n or tp & 3:
        return -1
    vt = tp - _I32(mv, tp)[0]
    found = masks.get(vt)
    if found is None:
        found = -1
        if vt >= 0 and vt + 4 <= n and not vt & 1:
            vtsize, tsize = _U16X2(mv, vt)
            if vtsize >= 4 and not vtsize & 1 and vt + vtsize <= n and tsize >= 4:
                found = 0
                for k, fo in enumerate(_slots(vtsize)(mv, vt + 4)):
                    if fo:
                        found |= 1 << k
        masks[vt] = found
    return found


_SLOTS: dict[int, Callable[..., tuple[int, ...]]] = {}
_WORDS: dict[int, Callable[..., tuple[int, ...]]] = {}


def _words(count: int) -> Callable[..., tuple[int, ...]]:
    """The unpacker of ``count`` little-endian uint32 (a vector's offsets)."""
    found = _WORDS.get(count)
    if found is None:
        found = struct.Struct(f"<{count}I").unpack_from
        if count <= 4096:
            _WORDS[count] = found
    return found


def _slots(vtsize: int) -> Callable[..., tuple[int, ...]]:
    """The unpacker of a vtable's slots (``vtsize`` bytes with its 4-byte head)."""
    found = _SLOTS.get(vtsize)
    if found is None:
        found = struct.Struct(f"<{(vtsize - 4) >> 1}H").unpack_from
        if len(_SLOTS) < 256:
            _SLOTS[vtsize] = found
    return found
