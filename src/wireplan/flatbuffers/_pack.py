"""One build: tables packed front to back into the metadata, large vectors planned after it.

:class:`_State` walks a value once: each table's slot is reserved before the objects it
refers to, so every offset points forward; vtables are shared; small vectors and strings
are copied inline; large numpy vectors become :class:`_Pending` and then regions of the
:class:`~wireplan.core.plan.Plan` that :meth:`_State.finish` returns in a :class:`BuildResult`.
The values a caller passes (:class:`Union`, :class:`Aligned`) are defined here too.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, NoReturn, Protocol

import numpy as np

from wireplan.core.plan import Plan, align_up, check_alignment
from wireplan.errors import EncodeError
from wireplan.flatbuffers._compiled import _Entry, _Shape, _Table
from wireplan.flatbuffers.schema import Schema, StructDef, TypeRef

#: The largest FlatBuffers buffer: offsets are 32-bit and the format keeps sizes below 2 GiB.
MAX_BUFFER_SIZE = 2**31 - 1
#: The largest alignment a vector may ask for.
MAX_ALIGNMENT = 65536
#: Numpy vectors of at least this many bytes are planned as payload regions, not copied inline.
LARGE_BYTES = 64 << 10

_U32 = struct.Struct("<I")
_I32 = struct.Struct("<i")


class Union(NamedTuple):
    """The value of a union field: the member table's name and its fields."""

    table: str
    value: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Aligned:
    """A vector whose first element must start at a multiple of ``alignment`` from the buffer start.

    ``name`` labels the payload region in the plan (for messages and progress).
    """

    value: Any
    alignment: int
    name: str = ""


@dataclass(frozen=True, slots=True)
class BuildResult:
    """A planned buffer: ``plan`` fills it; ``metadata_size`` bytes of it are tables and small data.

    ``payloads`` lists ``(data_offset, nbytes, name)`` of the large vectors,
    which follow the metadata.
    """

    plan: Plan
    metadata_size: int
    payloads: tuple[tuple[int, int, str], ...]

    @property
    def size(self) -> int:
        return self.plan.size


class _Pending:
    """A large vector planned after the metadata: the reference to it is patched in later.

    ``count`` is the vector's element count; its bytes are ``array`` written as ``dtype``.
    """

    __slots__ = ("alignment", "array", "count", "dtype", "fixup", "path")

    def __init__(
        self,
        array: np.ndarray[Any, Any],
        dtype: np.dtype[Any],
        alignment: int,
        path: _Path,
        count: int,
        fixup: int,
    ) -> None:
        self.array = array
        self.dtype = dtype
        self.alignment = alignment
        self.path = path
        self.count = count
        self.fixup = fixup


# A path into the value, built as cheap nested tuples and rendered only when needed.
_Path = tuple[Any, ...] | None


def render_path(path: _Path) -> str:
    """``$.a.b[3]`` for the nested tuple path ``(((None, "a"), "b"), 3)``."""
    parts: list[str] = []
    while path is not None:
        path, seg = path
        parts.append(f"[{seg}]" if isinstance(seg, int) else f".{seg}")
    return "$" + "".join(reversed(parts))


class _Settings(Protocol):
    """What a build reads of its :class:`~.builder.Builder`."""

    schema: Schema
    large_bytes: int
    max_depth: int
    max_tables: int
    limits_why: str
    too_large_hint: str
    _tables: dict[str, _Table]

    def _struct(self, sdef: StructDef) -> tuple[struct.Struct, Callable[[Any], Any]]: ...


class _State:
    """One build: the metadata buffer, the vtable cache, the large vectors pending."""

    __slots__ = (
        "buf",
        "builder",
        "count",
        "depth",
        "log",
        "overaligned",
        "pending",
        "repeats",
        "subst",
        "tables",
        "vtables",
    )

    def __init__(
        self,
        builder: _Settings,
        substitutes: Mapping[int, Any] | None = None,
        *,
        repeats: bool = True,
    ) -> None:
        self.builder = builder
        self.depth = -1  # of the table being placed (the root: 0)
        self.count = 0  # tables placed
        self.subst = substitutes or None
        self.tables = builder._tables
        self.buf = bytearray()
        self.vtables: dict[bytes, int] = {}
        self.pending: list[_Pending] = []
        # Subtrees packed once, copied for equal values (:func:`repeating`).
        self.repeats: dict[Any, _Packed] | None = {} if repeats else None
        self.log: list[int] | None = None  # where tables are placed, while a subtree is recorded
        self.overaligned = False  # a vector aligned past 8 was placed (Aligned)

    # Each placement appends to ``buf`` and returns the absolute offset of what it placed.

    def string(self, value: Any, path: _Path) -> int:
        if isinstance(value, str):
            data = value.encode("utf-8")
        elif isinstance(value, (bytes, bytearray, memoryview)):
            data = bytes(value)
        else:
            raise EncodeError(f"expected a string, got {type(value).__name__}", render_path(path))
        buf = self.buf
        pad = -len(buf) & 3
        if pad:
            buf += _ZEROS[pad]
        pos = len(buf)
        buf += _U32.pack(len(data))
        buf += data
        buf += b"\0"
        return pos

    def table(self, ct: _Table, value: Any, path: _Path) -> int:
        return ct.pack(self, value, path)  # generated by ._packers when first used

    # What the generated packers call for the uncommon cases and on failure.

    def not_a_table(self, ct: _Table, value: Any, path: _Path) -> NoReturn:
        raise EncodeError(
            f"expected a mapping or object for table {ct.name}, got {type(value).__name__}",
            render_path(path),
        )

    def refuse(self, depth: int, path: _Path) -> NoReturn:
        b = self.builder
        why = f" ({b.limits_why})" if b.limits_why else ""
        if depth > b.max_depth:
            raise EncodeError(
                f"tables nest deeper than {b.max_depth} levels{why}", render_path(path)
            )
        raise EncodeError(f"more than {b.max_tables} tables{why}", render_path(path))

    def enum_value(self, e: _Entry, v: str, path: _Path) -> int:
        assert e.enum is not None
        try:
            return e.enum[v]
        except KeyError:
            raise EncodeError(f"unknown enum value {v!r}", render_path((path, e.name))) from None

    def struct_bytes(self, e: _Entry, v: Any, path: _Path) -> bytes:
        assert e.sdef is not None
        packer, flat = self.builder._struct(e.sdef)
        try:
            return packer.pack(*flat(v))
        except (struct.error, KeyError, IndexError, TypeError, AttributeError) as exc:
            raise EncodeError(f"struct {e.sdef.name}: {exc}", render_path((path, e.name))) from None

    def pack_failed(
        self, ct: _Table, shape: _Shape, args: list[Any], path: _Path, exc: struct.error
    ) -> NoReturn:
        """The table's inline values did not pack: find the field whose value does not."""
        for e, arg in zip(shape.entries, args[1:], strict=True):
            try:
                struct.pack("<" + e.code, arg)
            except struct.error as inner:
                raise EncodeError(
                    f"{e.type.name or e.type.kind} field: {inner}", render_path((path, e.name))
                ) from None
        raise EncodeError(f"table {ct.name}: {exc}", render_path(path)) from None

    def union_member(self, e: _Entry, v: Any, path: _Path) -> tuple[int, str, Any]:
        udef = self.builder.schema.unions[e.type.name]
        if isinstance(v, Union):
            table, value = v.table, v.value
        else:
            table, value = type(v).__name__, v
        for code, member in udef.members.items():
            if member == table:
                return code, table, value
        raise EncodeError(
            f"{table!r} is not a member of union {udef.name}", render_path((path, e.name))
        )

    def union_code(self, e: _Entry, v: Any, path: _Path) -> int:
        return self.union_member(e, v, path)[0]

    def union_value(self, e: _Entry, v: Any, path: _Path) -> int:
        """The member table a union field's value names (``path`` ends with the field)."""
        _, table, value = self.union_member(e, v, path[0] if path else None)
        return self.table(self.tables[table], value, path)

    def vector(self, elem: TypeRef, v: Any, path: _Path, where: int, alignment: int) -> int:
        if type(v) is Aligned:
            alignment = check_alignment(v.alignment, most=MAX_ALIGNMENT, path=render_path(path))
            v = v.value
        if alignment > 8:
            self.overaligned = True
        kind = elem.kind
        if kind == "scalar" or kind == "enum":
            return self.scalar_vector(elem, v, alignment, path, where)
        if type(v) is not list and (
            isinstance(v, (str, bytes, Mapping)) or not isinstance(v, Sequence)
        ):
            raise EncodeError(f"expected a sequence, got {type(v).__name__}", render_path(path))
        buf = self.buf
        n = len(v)
        if not n:
            # An empty vector: its length, aligned for its (absent) elements.
            pad = -len(buf) & 3
            if pad:
                buf += _ZEROS[pad]
            pos = len(buf)
            buf += _ZEROS[4]
            return pos
        if kind == "struct":
            sdef = self.builder.schema.structs[elem.name]
            packer, flat = self.builder._struct(sdef)
            a = max(4, sdef.alignment, alignment)
            pos = align_up(len(buf) + 4, a) - 4
            if pos > len(buf):
                buf += bytes(pos - len(buf))
            buf += _U32.pack(n)
            fmt = packer.format
            items: list[Any] = []
            extend = items.extend
            try:
                for item in v:
                    extend(flat(item))
                buf += struct.pack("<" + fmt[1:] * n, *items)
            except (struct.error, KeyError, IndexError, TypeError, AttributeError) as exc:
                raise EncodeError(f"vector of {sdef.name}: {exc}", render_path(path)) from None
            return pos
        if kind == "string":
            return self.refs_vector(None, v, path, alignment)
        if kind == "table":
            return self.refs_vector(self.tables[elem.name], v, path, alignment)
        raise EncodeError(f"vectors of {kind}s are not supported", render_path(path))

    def refs_vector(self, ct: _Table | None, v: Any, path: _Path, alignment: int) -> int:
        """A non-empty sequence of tables of ``ct`` (None: strings): the offsets first, then
        the objects, in order."""
        buf = self.buf
        n = len(v)
        if alignment > 8:
            self.overaligned = True
        a = max(4, alignment)
        pos = align_up(len(buf) + 4, a) - 4
        if pos > len(buf):
            buf += bytes(pos - len(buf))
        buf += _U32.pack(n)
        first = len(buf)
        buf += bytes(4 * n)
        if ct is None:
            string = self.string
            targets = [string(item, (path, i)) - first - 4 * i for i, item in enumerate(v)]
        else:
            if ct.key is not None and n > 1:
                v = _sorted_by_key(ct, v, path)
            pack = ct.pack
            targets = [pack(self, item, (path, i)) - first - 4 * i for i, item in enumerate(v)]
        struct.pack_into(f"<{n}I", buf, first, *targets)
        return pos

    def numbers(self, v: np.ndarray[Any, Any], size: int, a: int, path: _Path, where: int) -> int:
        """A vector of numbers given as an array of their own little-endian dtype, its first
        element at a multiple of ``a`` (``size``: an element's bytes)."""
        nbytes = v.nbytes
        if nbytes >= self.builder.large_bytes:
            self.pending.append(_Pending(v, v.dtype, a, path, v.size, where))
            return -1
        if a > 8:
            self.overaligned = True
        return self._inline(v.size, v.tobytes(), a, size)

    def scalar_vector(self, elem: TypeRef, v: Any, alignment: int, path: _Path, where: int) -> int:
        sc = self.builder.schema.scalar_of(elem)
        dtype = _LE[sc.fmt]
        a = max(4, sc.size, alignment)
        if isinstance(v, np.ndarray):
            if sc.size == 1 and v.dtype.itemsize != 1:
                # A byte vector given a wider array stores the array's little-endian bytes.
                if v.dtype.hasobject:
                    raise EncodeError(f"cannot store {v.dtype} as bytes", render_path(path))
                dtype = v.dtype.newbyteorder("<")
                n = v.size * dtype.itemsize
            else:
                n = v.size
            if v.size * dtype.itemsize >= self.builder.large_bytes:
                self.pending.append(_Pending(v, dtype, a, path, n, where))
                return -1
            data = np.ascontiguousarray(v, dtype=dtype).tobytes()
        elif isinstance(v, (bytes, bytearray, memoryview)) and sc.size == 1:
            data = bytes(v)
            n = len(data)
        else:
            if elem.kind == "enum":
                values = self.builder.schema.enums[elem.name].values
                v = [values[x] if isinstance(x, str) else x for x in v]
            try:
                n = len(v)
                data = struct.pack(f"<{n}{sc.fmt}", *v)
            except (struct.error, TypeError) as exc:
                raise EncodeError(f"vector of {sc.name}: {exc}", render_path(path)) from None
        return self._inline(n, data, a, sc.size)

    def _inline(self, count: int, data: bytes, a: int, size: int) -> int:
        """A vector of ``count`` elements of ``size`` bytes, ``data``, its first element
        at a multiple of ``a``."""
        if not count:
            a = max(4, size)  # an empty vector has no first element to align
        buf = self.buf
        pad = -(len(buf) + 4) & (a - 1)
        if pad:
            buf += bytes(pad)
        pos = len(buf)
        buf += _U32.pack(count)
        buf += data
        return pos

    def finish(self) -> BuildResult:
        buf = self.buf
        meta = len(buf)
        # Lay out the large vectors after the metadata, then check the total.
        pos = meta
        layout: list[tuple[_Pending, int, int]] = []
        for p in self.pending:
            data = align_up(pos + 4, p.alignment)
            nbytes = p.array.size * p.dtype.itemsize
            layout.append((p, data, nbytes))
            pos = data + nbytes
        total = pos
        if total > MAX_BUFFER_SIZE:
            raise EncodeError(
                f"the buffer would be {total} bytes, past the FlatBuffers limit of "
                f"{MAX_BUFFER_SIZE} bytes (2 GiB): {self.builder.too_large_hint}"
            )
        for p, data, _ in layout:
            _U32.pack_into(buf, p.fixup, data - 4 - p.fixup)
        plan = Plan()
        plan.place(0, meta, source=np.frombuffer(bytes(buf), dtype=np.uint8), name="metadata")
        payloads = []
        for p, data, nbytes in layout:
            name = render_path(p.path)
            plan.place(data - 4, 4, alignment=4, source=_U32.pack(p.count), name=name + ":length")
            plan.place(
                data, nbytes, alignment=p.alignment, source=p.array, dtype=p.dtype, name=name
            )
            payloads.append((data, nbytes, name))
        plan.reserve(total)
        return BuildResult(plan, meta, tuple(payloads))


class _Packed(NamedTuple):
    """A subtree as first packed at ``start``, its root and its tables (from ``start``);
    once it recurs, its bytes as an integer (little-endian) and the mask of its tables'
    vtable offsets (1 at the lowest byte of each)."""

    start: int
    size: int
    root: int
    tables: tuple[int, ...]
    data: int = 0
    mask: int = -1


def repeating(pack: Callable[[_State, Any, _Path], int], key_of: Callable[[Any], Any]) -> Any:
    """``pack`` for a table whose equal values (``key_of(value)``, ``None``: not known) are
    packed once per build and then copied.

    A copy placed ``shift`` bytes after the first is its bytes, each table's vtable offset
    (``table - vtable``, positive: vtables precede their tables) increased by ``shift``:
    the offsets inside the subtree are relative and stay.  The copy starts at the same
    position modulo 8 (after the padding to 4 every table starts with) and depth as the
    first (both are in the key), so it is the bytes packing it again would write.  A subtree is recorded only if it wrote no vtable of its
    own (it is recorded at its next occurrence), no large vector and no vector aligned
    past 8.  A value is packed as usual the first time, packed again and recorded the
    second, and copied from then on; its bytes are read back from the buffer at the third.
    """

    def repeat(st: _State, value: Any, path: _Path) -> int:
        cache = st.repeats
        key = None if cache is None else key_of(value)
        if key is None:
            return pack(st, value, path)
        assert cache is not None
        buf = st.buf
        # A table starts at a multiple of 4 or 8: the padding to 4 is the same either way.
        pad = -len(buf) & 3
        k = (key, (len(buf) + pad) & 7, st.depth)
        hit = cache.get(k)
        if hit is None:  # the first: packed as it is (most types of a graph recur, not all)
            cache[k] = _SEEN
            return pack(st, value, path)
        if pad:
            buf += _ZEROS[pad]
        start = len(buf)
        if hit is not _SEEN:
            if hit.mask < 0:
                first = hit.start
                cache[k] = hit = hit._replace(
                    data=int.from_bytes(buf[first : first + hit.size], "little"),
                    mask=sum(1 << (8 * t) for t in hit.tables),
                )
            shift = start - hit.start
            buf += (hit.data + shift * hit.mask).to_bytes(hit.size, "little")
            tables = hit.tables
            st.count += len(tables)
            if st.count > st.builder.max_tables:
                st.refuse(st.depth + 1, path)
            if st.log is not None:
                st.log.extend(start + t for t in tables)
            return start + hit.root
        # the second: packed again, where its tables go recorded
        outer, st.log = st.log, []
        vtables, pending, overaligned = len(st.vtables), len(st.pending), st.overaligned
        st.overaligned = False
        try:
            pos = pack(st, value, path)
        finally:
            log, st.log = st.log, outer
        assert log is not None
        if outer is not None:
            outer.extend(log)
        fits = not st.overaligned
        st.overaligned = overaligned or not fits
        if fits and len(st.vtables) == vtables and len(st.pending) == pending:
            cache[k] = _Packed(start, len(buf) - start, pos - start, tuple(t - start for t in log))
        return pos

    return repeat


_SEEN = _Packed(0, 0, 0, ())  # a key met once


_ZEROS = [bytes(n) for n in range(8)]
_LE = {code: np.dtype("<" + code) for code in "?bBhHiIqQfd"}


def _field_of(item: Any, name: str) -> Any:
    if isinstance(item, Mapping):
        return item.get(name)
    return getattr(item, name, None)


def _sorted_by_key(ct: _Table, items: Sequence[Any], path: _Path) -> list[Any]:
    """The tables sorted by their key field, as FlatBuffers binary search expects (stable)."""
    key = ct.key
    assert key is not None

    def string_key(item: Any) -> bytes:
        k = _field_of(item, key)
        if isinstance(k, str):
            return k.encode("utf-8")
        return bytes(k or b"")

    def scalar_key(item: Any) -> Any:
        k = _field_of(item, key)
        return 0 if k is None else k

    try:
        return sorted(items, key=string_key if ct.key_is_string else scalar_key)
    except (TypeError, AttributeError) as exc:
        raise EncodeError(f"cannot sort by key {key!r}: {exc}", render_path(path)) from None
