"""A planned FlatBuffers builder: the whole layout first, then the bytes.

The stock FlatBuffers builders write back to front with one cursor, so
every payload goes through that cursor and nothing can be aligned beyond
the element size.  :class:`Builder` instead lays the buffer out front to
back, driven by a :class:`~wireplan.flatbuffers.schema.Schema`:

- the root offset (and file identifier) at the start, then the root table,
  then, depth first, what each table refers to.  A table is placed
  (its slot reserved) *before* the objects it references, so every
  ``uoffset`` points forward, as the format requires; the table's inline
  bytes are packed, with one precompiled :class:`struct.Struct` per table
  shape, once its children have their offsets;
- vtables are deduplicated: a table whose vtable bytes were already
  written refers to the earlier copy (``soffset`` is signed);
- vectors of tables whose schema declares a key field are sorted by it;
- small vectors and strings go inline into a ``bytearray`` of metadata;
- large vectors of scalars (numpy arrays of at least ``large_bytes``)
  are only *planned*: they follow the metadata, each data start at the
  alignment asked for (any power of two up to 65536 from the start of
  the buffer), and become :class:`~wireplan.core.plan.Region` objects that
  :func:`wireplan.core.executor.execute` copies serially or in parallel,
  byte-identical either way.

:meth:`Builder.build` returns a :class:`BuildResult` whose
:class:`~wireplan.core.plan.Plan` starts with the metadata region; nothing
large has been copied yet.  Building is single-threaded Python over the
tables (a few microseconds each); the payload copies are the parallel part.

Values are plain Python data:

- a table is a mapping from field name to value, or any object with the
  fields as attributes (dataclasses: ``wireplan.ort.model``); ``None`` (or
  a missing key/attribute) leaves the field out, as does a scalar equal to
  its default;
- scalars and enums are ``int``/``float``/``bool`` (enums may also be
  given by member name);
- strings are ``str`` (UTF-8) or ``bytes``;
- a union is :class:`Union` ``(member_table_name, mapping)``, or an
  object whose class is named like the member table;
- a struct is a tuple in field order (nested structs as nested tuples)
  or a mapping;
- a vector is a sequence or, for scalars, a numpy array; wrap it in
  :class:`Aligned` to ask for an alignment of its first element.

FlatBuffers offsets are 32-bit and the format caps a buffer below 2 GiB;
a layout that does not fit raises :class:`~wireplan.errors.EncodeError`
before any byte is written.
"""

from __future__ import annotations

import operator
import struct
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from wireplan.core.executor import execute
from wireplan.core.plan import Plan, align_up, check_alignment
from wireplan.errors import EncodeError
from wireplan.flatbuffers.schema import Schema, StructDef, TableDef, TypeRef

__all__ = [
    "LARGE_BYTES",
    "MAX_ALIGNMENT",
    "MAX_BUFFER_SIZE",
    "Aligned",
    "BuildResult",
    "Builder",
    "Union",
    "build_bytes",
    "render_path",
]

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


# Kinds of compiled table entries.
_SCALAR, _STRUCT, _REF, _UTYPE = 0, 1, 2, 3


class _Entry:
    """One inline slot of a table: a scalar, an inline struct, a reference, or a union's type byte."""

    __slots__ = (
        "align",
        "code",
        "default",
        "enum",
        "keep_empty",
        "kind",
        "name",
        "ref",
        "sdef",
        "size",
        "slot",
        "target",
        "type",
    )

    def __init__(
        self,
        name: str,
        slot: int,
        kind: int,
        code: str,
        size: int,
        default: Any,
        type_: TypeRef,
        enum: Mapping[str, int] | None = None,
        sdef: StructDef | None = None,
    ) -> None:
        self.name = name
        self.slot = slot
        self.kind = kind
        self.code = code
        self.size = size
        self.default = default
        self.type = type_
        self.enum = enum
        self.sdef = sdef
        #: Alignment asked for the first element of a vector field (1: natural).
        self.align = 1
        #: Write an empty string rather than leaving the field out.
        self.keep_empty = True
        #: For references: 1 string, 2 table (``target`` is its compiled table), 0 other.
        self.ref = 0
        self.target: _Table | None = None


class _Shape:
    """The layout of a table with a given set of present entries: packer, vtable, size.

    ``perm[i]`` is the index, in the list of present entries (schema order),
    of the ``i``-th entry in layout order; ``offsets[i]`` its inline offset.
    """

    __slots__ = (
        "align",
        "entries",
        "layout",
        "offsets",
        "packer",
        "perm",
        "size",
        "vtable",
        "zeros",
    )

    def __init__(self, present: list[_Entry]) -> None:
        # Larger fields first keeps padding low; each field is naturally aligned
        # because the table start is aligned to the largest of them.
        perm = sorted(range(len(present)), key=lambda i: (-_align_of(present[i]), present[i].slot))
        fmt = ["<i"]
        pos = 4
        align = 4
        offsets: list[int] = []
        slots: dict[int, int] = {}
        for i in perm:
            e = present[i]
            a = _align_of(e)
            pad = align_up(pos, a) - pos
            if pad:
                fmt.append(f"{pad}x")
            pos += pad
            offsets.append(pos)
            slots[e.slot] = pos
            fmt.append(e.code)
            pos += e.size
            align = max(align, a)
        self.perm = perm
        self.entries = [present[i] for i in perm]
        self.offsets = offsets
        self.packer = struct.Struct("".join(fmt))
        self.size = pos
        self.align = align
        nslots = max(slots, default=-1) + 1
        self.vtable = struct.pack(
            f"<{2 + nslots}H", 4 + 2 * nslots, pos, *(slots.get(k, 0) for k in range(nslots))
        )
        self.zeros = bytes(pos)
        self.layout = list(zip(perm, self.entries, offsets, strict=True))


def _align_of(e: _Entry) -> int:
    if e.kind == _STRUCT:
        assert e.sdef is not None
        return e.sdef.alignment
    return e.size


class _Table:
    """A table definition compiled for building."""

    __slots__ = (
        "fields",
        "key",
        "key_is_string",
        "name",
        "shapes",
        "table_refs",
        "variant_field",
        "variants",
    )

    def __init__(self, name: str) -> None:
        self.name = name
        # (field name, entry, second entry): a union has its type byte first, then its reference.
        self.fields: list[tuple[str, _Entry, _Entry | None]] = []
        self.shapes: dict[tuple[_Entry, ...], _Shape] = {}
        self.key: str | None = None
        self.key_is_string = False
        #: With variants: the value of ``variant_field`` selects the fields that are written.
        self.variant_field = ""
        self.variants: dict[Any, list[tuple[str, _Entry, _Entry | None]]] | None = None
        self.table_refs: dict[str, _Table] = {}


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


class Builder:
    """Builds buffers of one schema.  Reusable; compiled table shapes are cached across builds.

    - ``large_bytes``: numpy vectors of scalars at least this big are planned
      as payload regions after the metadata instead of being copied into it.
    - ``field_alignment``: ``{(table, field): alignment}`` for vector fields
      whose first element must start at a multiple of ``alignment`` from the
      start of the buffer (a power of two up to 65536).
    - ``omit_empty_strings``: leave string fields holding ``""`` out of the
      table (readers see the default, an absent string), except the fields
      named in ``keep_empty``.
    - ``variants``: ``{table: (selector field, {selector value: fields})}``
      for tables used like a tagged union (an ONNX ``Attribute`` keeps its
      value in the field its ``type`` names): only the selector and the
      fields listed for its value are written; a value not listed writes
      every field.
    - ``too_large_hint``: what the error for a layout past 2 GiB suggests.
    - ``max_depth`` / ``max_tables``: refuse (``EncodeError``) a value whose
      tables nest deeper than ``max_depth`` (the root at depth 0) or that has
      more than ``max_tables`` tables, as a reader's verifier would;
      ``limits_why`` says whose limits they are, for the message.
    """

    def __init__(
        self,
        schema: Schema,
        *,
        large_bytes: int = LARGE_BYTES,
        field_alignment: Mapping[tuple[str, str], int] | None = None,
        omit_empty_strings: bool = False,
        keep_empty: Collection[tuple[str, str]] = (),
        variants: Mapping[str, tuple[str, Mapping[Any, Collection[str]]]] | None = None,
        too_large_hint: str = "store large vectors outside the buffer (external data)",
        max_depth: int | None = None,
        max_tables: int | None = None,
        limits_why: str = "",
    ) -> None:
        schema.check()
        self.too_large_hint = too_large_hint
        self.max_depth = _UNLIMITED if max_depth is None else max_depth
        self.max_tables = _UNLIMITED if max_tables is None else max_tables
        self.limits_why = limits_why
        self.schema = schema
        self.large_bytes = large_bytes
        self._tables: dict[str, _Table] = {}
        self._struct_packers: dict[str, tuple[struct.Struct, Callable[[Any], Any]]] = {}
        for name in schema.tables:
            self._compile(name)
        for ct in self._tables.values():
            for _, e, e2 in ct.fields:
                ref = e2 if e2 is not None else e
                if ref.kind == _REF and ref.type.kind == "string":
                    ref.ref = 1
                elif ref.kind == _REF and ref.type.kind == "table":
                    ref.ref = 2
                    ref.target = self._tables[ref.type.name]
        for (tname, fname), alignment in (field_alignment or {}).items():
            entry = self._entry(tname, fname)
            if entry.type.kind != "vector":
                raise ValueError(f"{tname}.{fname} is not a vector; only vectors take an alignment")
            entry.align = check_alignment(alignment, most=MAX_ALIGNMENT, path=f"{tname}.{fname}")
        keep = set(keep_empty)
        for tname, ct in self._tables.items():
            for fname, e, _ in ct.fields:
                if e.type.kind == "string":
                    e.keep_empty = not omit_empty_strings or (tname, fname) in keep
        for tname, (selector, choices) in (variants or {}).items():
            ct = self._tables[tname]
            names = {f[0] for f in ct.fields}
            if selector not in names:
                raise ValueError(f"schema has no field {tname}.{selector}")
            ct.variant_field = selector
            ct.variants = {}
            for value, chosen in choices.items():
                unknown = set(chosen) - names
                if unknown:
                    raise ValueError(f"table {tname} has no fields {sorted(unknown)}")
                wanted = set(chosen) | {selector}
                ct.variants[value] = [f for f in ct.fields if f[0] in wanted]

    def _entry(self, table: str, name: str) -> _Entry:
        ct = self._tables.get(table)
        if ct is not None:
            for fname, e, e2 in ct.fields:
                if fname == name:
                    return e2 if e2 is not None else e
        raise ValueError(f"schema has no field {table}.{name}")

    # -- compilation ------------------------------------------------------------------------

    def _compile(self, name: str) -> _Table:
        tdef: TableDef = self.schema.tables[name]
        ct = _Table(name)
        for f in tdef.fields:
            if f.deprecated:
                continue
            t = f.type
            entries: tuple[_Entry, ...]
            if t.kind in ("scalar", "enum"):
                sc = self.schema.scalar_of(t)
                enum = self.schema.enums[t.name].values if t.kind == "enum" else None
                entries = (_Entry(f.name, f.slot, _SCALAR, sc.fmt, sc.size, f.default, t, enum),)
            elif t.kind == "struct":
                sdef = self.schema.structs[t.name]
                entries = (
                    _Entry(
                        f.name, f.slot, _STRUCT, f"{sdef.size}s", sdef.size, None, t, None, sdef
                    ),
                )
            elif t.kind == "union":
                entries = (
                    _Entry(f.name, f.slot - 1, _UTYPE, "B", 1, 0, t),
                    _Entry(f.name, f.slot, _REF, "I", 4, None, t),
                )
            else:
                entries = (_Entry(f.name, f.slot, _REF, "I", 4, None, t),)
            ct.fields.append((f.name, entries[0], entries[1] if len(entries) > 1 else None))
            if f.key:
                ct.key = f.name
                ct.key_is_string = t.kind == "string"
        self._tables[name] = ct
        return ct

    def _struct(self, sdef: StructDef) -> tuple[struct.Struct, Callable[[Any], Any]]:
        cached = self._struct_packers.get(sdef.name)
        if cached is not None:
            return cached
        fmt: list[str] = []

        def layout(s: StructDef, base: int) -> int:
            pos = base
            for (_fname, ftype), off in zip(s.fields, s.offsets, strict=True):
                if base + off > pos:
                    fmt.append(f"{base + off - pos}x")
                    pos = base + off
                if ftype.kind == "struct":
                    pos = layout(self.schema.structs[ftype.name], pos)
                else:
                    sc = self.schema.scalar_of(ftype)
                    fmt.append(sc.fmt)
                    pos += sc.size
            if base + s.size > pos:
                fmt.append(f"{base + s.size - pos}x")
                pos = base + s.size
            return pos

        layout(sdef, 0)

        def flatten(s: StructDef, value: Any, out: list[Any]) -> None:
            for i, (fname, ftype) in enumerate(s.fields):
                if isinstance(value, Mapping):
                    v = value[fname]
                elif isinstance(value, tuple):
                    v = value[i]
                else:
                    v = getattr(value, fname)
                if ftype.kind == "struct":
                    flatten(self.schema.structs[ftype.name], v, out)
                elif ftype.kind == "enum" and isinstance(v, str):
                    out.append(self.schema.enums[ftype.name].values[v])
                else:
                    out.append(v)

        def flat(value: Any) -> Any:
            out: list[Any] = []
            flatten(sdef, value, out)
            return out

        simple = all(t.kind == "scalar" for _, t in sdef.fields)
        if simple:
            # Flat structs of plain scalars: tuples as they are, objects by attribute.
            generic = flat
            getter = operator.attrgetter(*(name for name, _ in sdef.fields))
            single = len(sdef.fields) == 1

            def flat(value: Any) -> Any:
                if type(value) is tuple:
                    return value
                if isinstance(value, (Mapping, list, tuple)):
                    return generic(value)
                got = getter(value)
                return (got,) if single else got

        packer = struct.Struct("<" + "".join(fmt))
        if packer.size != sdef.size:
            raise ValueError(
                f"struct {sdef.name}: packs {packer.size} bytes, schema says {sdef.size}"
            )
        self._struct_packers[sdef.name] = (packer, flat)
        return packer, flat

    # -- building ---------------------------------------------------------------------------

    def build(
        self,
        root: Any,
        *,
        root_table: str | None = None,
        file_identifier: bytes | None = None,
        substitutes: Mapping[int, Any] | None = None,
    ) -> BuildResult:
        """Plan the buffer for ``root``, a table of ``root_table`` (default: the schema's root).

        ``file_identifier`` defaults to the schema's (4 bytes; ``b""`` for none).
        The metadata is packed now; large vectors are regions of the plan,
        copied only when the plan is executed.  ``substitutes`` maps the
        ``id()`` of a table value inside ``root`` to the value to write in
        its place (the caller keeps both alive during the call), which lets
        a caller patch a few tables of a large object tree without copying it.
        """
        ident = self.schema.file_identifier if file_identifier is None else file_identifier
        if ident and len(ident) != 4:
            raise EncodeError(f"file identifier must be 4 bytes, not {ident!r}")
        state = _State(self, substitutes)
        buf = state.buf
        buf += bytes(4)
        if ident:
            buf += ident
        try:
            root_pos = state.table(self._tables[root_table or self.schema.root], root, None)
        except RecursionError:
            raise EncodeError("value nests too deeply to encode") from None
        _U32.pack_into(buf, 0, root_pos)
        return state.finish()


_UNLIMITED = 1 << 62

_MAPPING, _OBJECT, _NOT_A_TABLE = 0, 1, 2
# What a Python type is as a table value, asked once per type (an ABC check per
# table costs more than the rest of the dispatch for models of many small tables).
_FORMS: dict[type, int] = {dict: _MAPPING}


def _form_of(tv: type) -> int:
    if issubclass(tv, Mapping):
        return _MAPPING
    if tv is type(None) or issubclass(tv, (str, bytes, int, float, list, tuple)):
        return _NOT_A_TABLE
    return _OBJECT


class _State:
    """One build: the metadata buffer, the vtable cache, the large vectors pending."""

    __slots__ = ("buf", "builder", "count", "depth", "pending", "subst", "tables", "vtables")

    def __init__(self, builder: Builder, substitutes: Mapping[int, Any] | None = None) -> None:
        self.builder = builder
        self.depth = -1  # of the table being placed (the root: 0)
        self.count = 0  # tables placed
        self.subst = substitutes or None
        self.tables = builder._tables
        self.buf = bytearray()
        self.vtables: dict[bytes, int] = {}
        self.pending: list[_Pending] = []

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
        subst = self.subst
        if subst is not None:
            value = subst.get(id(value), value)
        fields = ct.fields
        present: list[_Entry] = []
        values: list[Any] = []
        add_entry = present.append
        add_value = values.append
        tv = type(value)
        form = _FORMS.get(tv)
        if form is None:
            form = _FORMS[tv] = _form_of(tv)
        if form == _NOT_A_TABLE:
            raise EncodeError(
                f"expected a mapping or object for table {ct.name}, got {type(value).__name__}",
                render_path(path),
            )
        # Fields by name: a mapping's keys or an object's attributes (one loop for both;
        # the test per field is cheaper than a getter call per field).
        get = value.get if form == _MAPPING else None
        if ct.variants is not None:
            tag = (
                get(ct.variant_field) if get is not None else getattr(value, ct.variant_field, None)
            )
            fields = ct.variants.get(tag, fields)
        for fname, e, e2 in fields:
            v = get(fname) if get is not None else getattr(value, fname, None)
            if v is None:
                continue
            kind = e.kind
            if kind == _SCALAR:
                if e.enum is not None and isinstance(v, str):
                    v = self.enum_value(e, v, path)
                if v == e.default:
                    continue
            elif kind == _UTYPE:
                add_entry(e)
                add_value(v)
                e = e2  # type: ignore[assignment]  # a union always has its second entry
            elif not e.keep_empty and v == "":
                continue
            add_entry(e)
            add_value(v)
        depth = self.depth + 1
        self.count += 1
        if depth > self.builder.max_depth or self.count > self.builder.max_tables:
            self.refuse(depth, path)
        self.depth = depth
        pos = self.place_table(ct, present, values, path)
        self.depth = depth - 1
        return pos

    def refuse(self, depth: int, path: _Path) -> None:
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

    def place_table(self, ct: _Table, present: list[_Entry], values: list[Any], path: _Path) -> int:
        key = tuple(present)
        shape = ct.shapes.get(key)
        if shape is None:
            shape = ct.shapes[key] = _Shape(present)
        buf = self.buf
        vt_pos = self.vtables.get(shape.vtable)
        if vt_pos is None:
            if len(buf) & 1:
                buf += b"\0"
            vt_pos = len(buf)
            buf += shape.vtable
            self.vtables[shape.vtable] = vt_pos
        pad = -len(buf) & (shape.align - 1)
        if pad:
            buf += _ZEROS[pad]
        pos = len(buf)
        buf += shape.zeros
        args: list[Any] = [pos - vt_pos]
        append = args.append
        for i, e, off in shape.layout:
            v = values[i]
            kind = e.kind
            if kind == _SCALAR:
                append(v)
            elif kind == _REF:
                where = pos + off
                rk = e.ref
                if rk == 1:
                    target = self.string(v, (path, e.name))
                elif rk == 2:
                    target = self.table(e.target, v, (path, e.name))  # type: ignore[arg-type]
                else:
                    target = self.ref(e, v, (path, e.name), where)
                append(target - where if target >= 0 else 0)
            elif kind == _UTYPE:
                append(self.union_code(e, v, path))
            else:
                assert e.sdef is not None
                packer, flat = self.builder._struct(e.sdef)
                try:
                    append(packer.pack(*flat(v)))
                except (struct.error, KeyError, IndexError, TypeError, AttributeError) as exc:
                    raise EncodeError(
                        f"struct {e.sdef.name}: {exc}", render_path((path, e.name))
                    ) from None
        try:
            shape.packer.pack_into(buf, pos, *args)
        except struct.error as exc:
            # Failure path only: find the field whose value does not pack.
            for e, arg in zip(shape.entries, args[1:], strict=True):
                try:
                    struct.pack("<" + e.code, arg)
                except struct.error as inner:
                    raise EncodeError(
                        f"{e.type.name or e.type.kind} field: {inner}", render_path((path, e.name))
                    ) from None
            raise EncodeError(f"table {ct.name}: {exc}", render_path(path)) from None
        return pos

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

    def ref(self, e: _Entry, v: Any, path: _Path, where: int) -> int:
        t = e.type
        kind = t.kind
        if kind == "string":
            return self.string(v, path)
        if kind == "table":
            return self.table(self.tables[t.name], v, path)
        if kind == "union":
            _, table, value = self.union_member(e, v, path[0] if path else None)
            return self.table(self.tables[table], value, path)
        assert t.element is not None
        return self.vector(t.element, v, path, where, e.align)

    def vector(self, elem: TypeRef, v: Any, path: _Path, where: int, alignment: int) -> int:
        if type(v) is Aligned:
            alignment = check_alignment(v.alignment, most=MAX_ALIGNMENT, path=render_path(path))
            v = v.value
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
        # Vectors of references: the offsets first, then the objects, in order.
        a = max(4, alignment)
        pos = align_up(len(buf) + 4, a) - 4
        if pos > len(buf):
            buf += bytes(pos - len(buf))
        buf += _U32.pack(n)
        first = len(buf)
        buf += bytes(4 * n)
        targets: list[int] = []
        append = targets.append
        if kind == "string":
            string = self.string
            for i, item in enumerate(v):
                append(string(item, (path, i)) - first - 4 * i)
        elif kind == "table":
            ct = self.tables[elem.name]
            if ct.key is not None and n > 1:
                v = _sorted_by_key(ct, v, path)
            table = self.table
            for i, item in enumerate(v):
                append(table(ct, item, (path, i)) - first - 4 * i)
        else:
            raise EncodeError(f"vectors of {kind}s are not supported", render_path(path))
        struct.pack_into(f"<{n}I", buf, first, *targets)
        return pos

    def scalar_vector(self, elem: TypeRef, v: Any, alignment: int, path: _Path, where: int) -> int:
        sc = self.builder.schema.scalar_of(elem)
        dtype = _LE[sc.fmt]
        buf = self.buf
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
        if not n:
            a = max(4, sc.size)  # an empty vector has no first element to align
        pos = align_up(len(buf) + 4, a) - 4
        buf += bytes(pos - len(buf))
        buf += _U32.pack(n)
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


def build_bytes(
    schema: Schema | Builder,
    root: Any,
    *,
    threads: int | None = None,
    **options: Any,
) -> bytearray:
    """Build ``root`` and execute the plan into a new ``bytearray``."""
    builder = schema if isinstance(schema, Builder) else Builder(schema)
    result = builder.build(root, **options)
    out = bytearray(result.size)
    execute(result.plan, out, threads=threads)
    return out
