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

The compiled tables are :mod:`._compiled`'s, one build is :mod:`._pack`'s; this module is
the surface.  :meth:`Builder.build` returns a :class:`BuildResult` whose
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
from collections.abc import Callable, Collection, Mapping
from typing import Any

from wireplan.core.executor import execute
from wireplan.core.plan import check_alignment
from wireplan.errors import ArgumentError, EncodeError, NotFoundError
from wireplan.flatbuffers._compiled import _REF, _SCALAR, _STRUCT, _UTYPE, _Entry, _Table
from wireplan.flatbuffers._pack import (
    _LE,
    _U32,
    LARGE_BYTES,
    MAX_ALIGNMENT,
    MAX_BUFFER_SIZE,
    Aligned,
    BuildResult,
    Union,
    _State,
    render_path,
)
from wireplan.flatbuffers._packers import lazy_packer
from wireplan.flatbuffers.schema import Schema, StructDef, TableDef

# The building blocks live in ._compiled (tables) and ._pack (one build); the names
# callers use are here.
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


class Builder:
    """Builds buffers of one schema.  Reusable; compiled table shapes are cached across builds.

    - ``large_bytes``: numpy vectors of scalars at least this big are planned
      as payload regions after the metadata instead of being copied into it.
    - ``field_alignment``: ``{(table, field): alignment}`` for vector fields
      whose first element must start at a multiple of ``alignment`` from the
      start of the buffer (a power of two up to 65536).
    - ``omit_empty_strings``: leave string fields holding ``""`` out of the
      table (readers see the default, an absent string), except the fields
      named in ``keep_empty`` and keys (which verifiers require).
    - ``variants``: ``{table: (selector field, {selector value: fields})}``
      for tables used like a tagged union (an ONNX ``Attribute`` keeps its
      value in the field its ``type`` names): only the selector and the
      fields listed for its value are written; a value not listed writes
      every field.
    - ``repeats``: ``{table: key}`` for tables whose values recur (an ONNX value's
      type): values with the same ``key(value)`` (``None``: unknown) pack to the same
      bytes, so each is packed once per build and then copied, its vtable offsets moved
      (the key must tell apart values that pack differently).  The file is the same.
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
        repeats: Mapping[str, Callable[[Any], Any]] | None = None,
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
                elif ref.kind == _REF and ref.type.element and ref.type.element.kind == "table":
                    ref.target = self._tables[ref.type.element.name]  # a vector's elements
                elif ref.kind == _REF and ref.type.element and ref.type.element.kind in _NUMBERS:
                    sc = schema.scalar_of(ref.type.element)
                    ref.elements = (_LE[sc.fmt], sc.size)
        for (tname, fname), alignment in (field_alignment or {}).items():
            entry = self._entry(tname, fname)
            if entry.type.kind != "vector":
                raise ArgumentError(
                    f"{tname}.{fname} is not a vector; only vectors take an alignment"
                )
            entry.align = check_alignment(alignment, most=MAX_ALIGNMENT, path=f"{tname}.{fname}")
        keep = set(keep_empty)
        for tname, ct in self._tables.items():
            for fname, e, _ in ct.fields:
                if e.type.kind == "string":  # a key is required (flatc's verifiers check it)
                    e.keep_empty = not omit_empty_strings or (tname, fname) in keep
                    e.keep_empty |= fname == ct.key
        for tname, (selector, choices) in (variants or {}).items():
            ct = self._tables[tname]
            names = {f[0] for f in ct.fields}
            if selector not in names:
                raise NotFoundError(f"schema has no field {tname}.{selector}")
            ct.variant_field = selector
            ct.variants = {}
            for value, chosen in choices.items():
                unknown = set(chosen) - names
                if unknown:
                    raise NotFoundError(f"table {tname} has no fields {sorted(unknown)}")
                wanted = set(chosen) | {selector}
                ct.variants[value] = [f for f in ct.fields if f[0] in wanted]
        repeats = dict(repeats or {})
        for tname in repeats:
            if tname not in self._tables:
                raise NotFoundError(f"schema has no table {tname!r}")
        self._in_repeats = self._reachable(repeats)
        for tname in self._in_repeats:
            self._tables[tname].logged = True
        for ct in self._tables.values():
            ct.pack = lazy_packer(ct, self.max_depth, self.max_tables, repeats.get(ct.name))

    def _reachable(self, names: Collection[str]) -> frozenset[str]:
        """The tables in values of ``names`` (them included)."""
        seen, todo = set(names), list(names)
        while todo:
            for _, e, e2 in self._tables[todo.pop()].fields:
                t = (e2 if e2 is not None else e).type
                if t.kind == "vector" and t.element is not None:
                    t = t.element
                if t.kind == "table":
                    found = [t.name]
                elif t.kind == "union":
                    found = list(self.schema.unions[t.name].members.values())
                else:
                    found = []
                for name in found:
                    if name not in seen:
                        seen.add(name)
                        todo.append(name)
        return frozenset(seen)

    def _entry(self, table: str, name: str) -> _Entry:
        ct = self._tables.get(table)
        if ct is not None:
            for fname, e, e2 in ct.fields:
                if fname == name:
                    return e2 if e2 is not None else e
        raise NotFoundError(f"schema has no field {table}.{name}")

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
            raise ArgumentError(
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
        a caller patch a few tables of a large object tree without copying it
        (a substitute of a table that a ``repeats`` value may hold turns the copies off).
        """
        ident = self.schema.file_identifier if file_identifier is None else file_identifier
        if ident and len(ident) != 4:
            raise EncodeError(f"file identifier must be 4 bytes, not {ident!r}")
        # A copy of a repeated subtree would not see a substitute inside it: none may be
        # a table such a subtree can hold (mappings could be any table).
        repeats = bool(self._in_repeats) and not any(
            isinstance(v, Mapping) or type(v).__name__ in self._in_repeats
            for v in (substitutes or {}).values()
        )
        state = _State(self, substitutes, repeats=repeats)
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
_NUMBERS = ("scalar", "enum")


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
