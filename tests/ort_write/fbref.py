"""Reference encode/decode through the official ``flatbuffers`` package, driven by a wireplan Schema.

``fb_decode`` reads a buffer with ``flatbuffers.table.Table`` (the primitives
the flatc-generated Python readers use) into plain data; ``fb_encode``
builds the same value with the stock ``flatbuffers.Builder`` (what a
flatc-generated builder does).  Used by the tests as oracles and by the
benchmark as peer (c).
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from typing import Any

import flatbuffers
import flatbuffers.number_types as N
import numpy as np
from flatbuffers.table import Table

from wireplan.flatbuffers.schema import Schema, StructDef, TableDef, TypeRef

FLAGS = {
    "bool": N.BoolFlags,
    "int8": N.Int8Flags,
    "uint8": N.Uint8Flags,
    "int16": N.Int16Flags,
    "uint16": N.Uint16Flags,
    "int32": N.Int32Flags,
    "uint32": N.Uint32Flags,
    "int64": N.Int64Flags,
    "uint64": N.Uint64Flags,
    "float32": N.Float32Flags,
    "float64": N.Float64Flags,
}


def _scalar_name(schema: Schema, t: TypeRef) -> str:
    return schema.scalar_of(t).name


def _get(value: Any, name: str) -> Any:
    if isinstance(value, Mapping):
        return value.get(name)
    return getattr(value, name, None)


# --- decoding ------------------------------------------------------------------------------


def root_table(buf: bytes) -> Table:
    pos = flatbuffers.encode.Get(N.UOffsetTFlags.packer_type, buf, 0)
    return Table(buf, pos)


def _read_struct(schema: Schema, sdef: StructDef, buf: Any, pos: int) -> tuple[Any, ...]:
    out: list[Any] = []
    for (_, ftype), off in zip(sdef.fields, sdef.offsets, strict=True):
        if ftype.kind == "struct":
            out.append(_read_struct(schema, schema.structs[ftype.name], buf, pos + off))
        else:
            flags = FLAGS[_scalar_name(schema, ftype)]
            out.append(flatbuffers.encode.Get(flags.packer_type, buf, pos + off))
    return tuple(out)


def fb_decode(schema: Schema, tdef: TableDef | str, tab: Table) -> dict[str, Any]:
    """Every non-deprecated field: scalars (default when absent), None for absent references."""
    if isinstance(tdef, str):
        tdef = schema.tables[tdef]
    out: dict[str, Any] = {}
    for f in tdef.fields:
        if f.deprecated:
            continue
        o = tab.Offset(4 + 2 * f.slot)
        t = f.type
        if t.kind in ("scalar", "enum"):
            flags = FLAGS[_scalar_name(schema, t)]
            out[f.name] = tab.Get(flags, o + tab.Pos) if o else f.default
        elif t.kind == "struct":
            sdef = schema.structs[t.name]
            out[f.name] = _read_struct(schema, sdef, tab.Bytes, tab.Pos + o) if o else None
        elif not o:
            out[f.name] = None
        elif t.kind == "string":
            out[f.name] = tab.String(o + tab.Pos)
        elif t.kind == "table":
            out[f.name] = fb_decode(schema, t.name, Table(tab.Bytes, tab.Indirect(o + tab.Pos)))
        elif t.kind == "union":
            to = tab.Offset(4 + 2 * (f.slot - 1))
            code = tab.Get(N.Uint8Flags, to + tab.Pos) if to else 0
            member = schema.unions[t.name].members[code]
            sub = Table(bytearray(), 0)
            tab.Union(sub, o)
            out[f.name] = (member, fb_decode(schema, member, sub))
        else:
            assert t.element is not None
            out[f.name] = _decode_vector(schema, t.element, tab, o)
    return out


def _decode_vector(schema: Schema, elem: TypeRef, tab: Table, o: int) -> Any:
    n = tab.VectorLen(o)
    start = tab.Vector(o)
    if elem.kind in ("scalar", "enum"):
        flags = FLAGS[_scalar_name(schema, elem)]
        return tab.GetVectorAsNumpy(flags, o).tolist()
    if elem.kind == "struct":
        sdef = schema.structs[elem.name]
        return [_read_struct(schema, sdef, tab.Bytes, start + i * sdef.size) for i in range(n)]
    if elem.kind == "string":
        return [tab.String(start + 4 * i) for i in range(n)]
    return [
        fb_decode(schema, elem.name, Table(tab.Bytes, tab.Indirect(start + 4 * i)))
        for i in range(n)
    ]


def vector_data_offset(tab: Table, slot: int) -> int | None:
    """Absolute offset of the first element of the vector in ``slot`` (None when absent)."""
    o = tab.Offset(4 + 2 * slot)
    return tab.Vector(o) if o else None


# --- encoding with the stock Builder -------------------------------------------------------


class FbEncoder:
    """Builds buffers of ``schema`` with ``flatbuffers.Builder``.

    ``omit_empty_strings`` leaves ``""`` string fields out, like the planned
    builder's option; ``keep_empty`` names exceptions ``(table, field)``.
    """

    def __init__(
        self,
        schema: Schema,
        *,
        omit_empty_strings: bool = False,
        keep_empty: frozenset[tuple[str, str]] = frozenset(),
        alignment: dict[tuple[str, str], int] | None = None,
    ) -> None:
        self.schema = schema
        self.omit = omit_empty_strings
        self.keep = keep_empty
        self.alignment = alignment or {}

    def encode(self, value: Any, *, root: str | None = None, ident: bytes | None = None) -> bytes:
        b = flatbuffers.Builder(1024)
        off = self.table(b, self.schema.tables[root or self.schema.root], value)
        idb = self.schema.file_identifier if ident is None else ident
        b.Finish(off, file_identifier=idb or None)
        return bytes(b.Output())

    def table(self, b: flatbuffers.Builder, tdef: TableDef, value: Any) -> int:
        schema = self.schema
        refs: dict[str, int] = {}
        for f in tdef.fields:
            if f.deprecated:
                continue
            v = _get(value, f.name)
            if v is None:
                continue
            t = f.type
            if t.kind == "string":
                if v == "" and self.omit and (tdef.name, f.name) not in self.keep:
                    continue
                refs[f.name] = b.CreateString(v)
            elif t.kind == "table":
                refs[f.name] = self.table(b, schema.tables[t.name], v)
            elif t.kind == "union":
                member = v[0] if isinstance(v, tuple) else type(v).__name__
                val = v[1] if isinstance(v, tuple) else v
                refs[f.name] = self.table(b, schema.tables[member], val)
            elif t.kind == "vector":
                assert t.element is not None
                align = self.alignment.get((tdef.name, f.name), 1)
                refs[f.name] = self.vector(b, t.element, v, align)
        nslots = max((f.slot for f in tdef.fields), default=-1) + 1
        b.StartObject(nslots)
        for f in tdef.fields:
            if f.deprecated:
                continue
            v = _get(value, f.name)
            if v is None:
                continue
            t = f.type
            if t.kind in ("scalar", "enum"):
                if t.kind == "enum" and isinstance(v, str):
                    v = schema.enums[t.name].values[v]
                flags = FLAGS[_scalar_name(schema, t)]
                b.PrependSlot(flags, f.slot, v, f.default)
            elif t.kind == "struct":
                self.inline_struct(b, schema.structs[t.name], v)
                b.PrependStructSlot(f.slot, b.Offset(), 0)
            elif f.name in refs:
                if t.kind == "union":
                    member = v[0] if isinstance(v, tuple) else type(v).__name__
                    codes = {m: c for c, m in schema.unions[t.name].members.items()}
                    b.PrependUint8Slot(f.slot - 1, codes[member], 0)
                b.PrependUOffsetTRelativeSlot(f.slot, refs[f.name], 0)
        return int(b.EndObject())

    def inline_struct(self, b: flatbuffers.Builder, sdef: StructDef, v: Any) -> None:
        b.Prep(sdef.alignment, sdef.size)
        flat = _flat_struct(self.schema, sdef, v)
        b.head = b.head - sdef.size
        b.Bytes[b.head : b.head + sdef.size] = flat

    def vector(self, b: flatbuffers.Builder, elem: TypeRef, v: Any, align: int) -> int:
        schema = self.schema
        if elem.kind in ("scalar", "enum"):
            sc = schema.scalar_of(elem)
            if isinstance(v, np.ndarray):
                arr = v if sc.size != 1 else v.reshape(-1).view(np.uint8)
                arr = np.ascontiguousarray(arr, dtype=np.dtype("<" + sc.fmt))
                if align <= max(4, sc.size):
                    return int(b.CreateNumpyVector(arr))
                data = arr.tobytes()
            else:
                data = struct.pack(f"<{len(v)}{sc.fmt}", *v)
            n = len(data) // sc.size
            b.StartVector(sc.size, n, max(align, sc.size))
            b.head = b.head - len(data)
            b.Bytes[b.head : b.head + len(data)] = data
            return int(b.EndVector())
        if elem.kind == "struct":
            sdef = schema.structs[elem.name]
            b.StartVector(sdef.size, len(v), sdef.alignment)
            for item in reversed(v):
                self.inline_struct(b, sdef, item)
            return int(b.EndVector())
        items = list(v)
        if elem.kind == "table":
            key = schema.tables[elem.name].key_field
            if key is not None:
                if key.type.kind == "string":
                    items.sort(key=lambda it: str(_get(it, key.name)).encode())
                else:
                    items.sort(key=lambda it: _get(it, key.name) or 0)
            offs = [self.table(b, schema.tables[elem.name], it) for it in items]
        else:
            offs = [b.CreateString(it) for it in items]
        b.StartVector(4, len(offs), 4)
        for off in reversed(offs):
            b.PrependUOffsetTRelative(off)
        return int(b.EndVector())


def _flat_struct(schema: Schema, sdef: StructDef, v: Any) -> bytes:
    out = bytearray(sdef.size)
    for i, ((fname, ftype), off) in enumerate(zip(sdef.fields, sdef.offsets, strict=True)):
        if isinstance(v, Mapping):
            fv = v[fname]
        elif isinstance(v, tuple):
            fv = v[i]
        else:
            fv = getattr(v, fname)
        if ftype.kind == "struct":
            sub = schema.structs[ftype.name]
            out[off : off + sub.size] = _flat_struct(schema, sub, fv)
        else:
            sc = schema.scalar_of(ftype)
            struct.pack_into("<" + sc.fmt, out, off, fv)
    return bytes(out)
