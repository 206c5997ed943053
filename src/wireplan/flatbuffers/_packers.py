"""Packing functions generated per compiled table, and per shape of it, when first used.

A table's function reads its fields (attributes of an object, or keys of a mapping) into
locals, decides which are present (``None``, a scalar at its default and, where asked, an
empty string are left out) and keeps them as the bits of one integer.  That integer picks
the shape's function, written when the shape is first met from its
:class:`~._compiled._Shape`: the vtable, the table's inline bytes reserved, what the fields
refer to placed after it in layout order, then one ``pack_into``.  Everything the
interpretation of the entries decided per table is decided once, in the source; the
uncommon kinds (unions, structs, vectors) call :class:`~._pack._State` methods.  Packing
the shipped models' .ort metadata takes 1.5x less time than interpreting the entries for
each table did; writing the functions costs about 0.5 ms each, once per table and shape.
"""

from __future__ import annotations

import keyword
import struct
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from wireplan.flatbuffers._compiled import _REF, _SCALAR, _STRUCT, _UTYPE, _Entry, _Shape, _Table
from wireplan.flatbuffers._pack import _ZEROS, repeating

if TYPE_CHECKING:
    from wireplan.flatbuffers._pack import _State

#: ``pack(state, value, path) -> offset`` of a table value.
Packer = Callable[["_State", Any, Any], int]

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


def lazy_packer(
    ct: _Table, max_depth: int, max_tables: int, key_of: Callable[[Any], Any] | None = None
) -> Packer:
    """A packer of ``ct`` that writes the real one (:func:`table_packer`) when first called;
    with ``key_of``, one that copies the subtrees of equal values (:func:`._pack.repeating`)."""

    def first(st: _State, value: Any, path: Any) -> int:
        if ct.pack is first:  # callers that bound ``ct.pack`` before keep calling this
            real = table_packer(ct, max_depth, max_tables)
            ct.pack = real if key_of is None else repeating(real, key_of)
        return ct.pack(st, value, path)

    return first


def _entries(ct: _Table) -> list[tuple[int, _Entry]]:
    """The table's entries in schema order (a union's type byte, then its reference), each
    with the index of the field whose value it holds."""
    out: list[tuple[int, _Entry]] = []
    for i, (_, e, e2) in enumerate(ct.fields):
        out.append((i, e))
        if e2 is not None:
            out.append((i, e2))
    return out


def _compile(source: list[str], ns: dict[str, Any], name: str) -> Any:
    exec(compile("\n".join(source), f"<wireplan.flatbuffers packer {name}>", "exec"), ns)
    return ns["pack"]


def table_packer(ct: _Table, max_depth: int, max_tables: int) -> Packer:
    """The packing function of ``ct``: fields read, presence as bits, the shape's function called."""
    entries = _entries(ct)
    bit = {id(e): 1 << k for k, (_, e) in enumerate(entries)}
    n = len(ct.fields)
    values = ", ".join(f"v{i}" for i in range(n))
    places: dict[int, Any] = {}

    def place_for(mask: int) -> Any:
        present = [e for _, e in entries if bit[id(e)] & mask]
        key = tuple(present)
        shape = ct.shapes.get(key)
        if shape is None:
            shape = ct.shapes[key] = _Shape(present)
        places[mask] = fn = _place(ct, shape, entries, n, max_depth, max_tables)
        return fn

    ns: dict[str, Any] = {
        "FORMS": _FORMS,
        "form_of": _form_of,
        "OBJECT": _OBJECT,
        "MAPPING": _MAPPING,
        "CT": ct,
        "PLACES": places,
        "place_for": place_for,
    }
    src = ["def pack(st, value, path):"]
    w = src.append
    w(" subst = st.subst")
    w(" if subst is not None:")
    w("  value = subst.get(id(value), value)")
    w(" tv = type(value)")
    w(" form = FORMS.get(tv)")
    w(" if form is None:")
    w("  form = FORMS[tv] = form_of(tv)")
    w(" if form == OBJECT:")
    if n:
        w("  try:")
        for i, (fname, _, _) in enumerate(ct.fields):
            plain = fname.isidentifier() and not keyword.iskeyword(fname)
            w(f"   v{i} = value.{fname}" if plain else f"   v{i} = getattr(value, {fname!r})")
        w("  except AttributeError:")
        for i, (fname, _, _) in enumerate(ct.fields):
            w(f"   v{i} = getattr(value, {fname!r}, None)")
        w(" elif form == MAPPING:")
        w("  get = value.get")
        for i, (fname, _, _) in enumerate(ct.fields):
            w(f"  v{i} = get({fname!r})")
    else:
        w("  pass")
        w(" elif form == MAPPING:")
        w("  pass")
    w(" else:")
    w("  st.not_a_table(CT, value, path)")
    w(" m = 0")
    guard = ""
    if ct.variants is not None:
        # only the selector and the fields its value lists are written
        sel = next(i for i, (fname, _, _) in enumerate(ct.fields) if fname == ct.variant_field)
        allowed = {}
        for tag, fields in ct.variants.items():
            names = {f[0] for f in fields}
            allowed[tag] = sum(bit[id(e)] for i, e in entries if ct.fields[i][0] in names)
        ns["ALLOWED"] = allowed
        ns["ALL"] = (1 << len(entries)) - 1
        w(f" allowed = ALLOWED.get(v{sel}, ALL)")
        guard = "allowed & {} and "
    for i, (_, e, e2) in enumerate(ct.fields):
        b = bit[id(e)] | (bit[id(e2)] if e2 is not None else 0)
        g = guard.format(b)
        if e.kind == _SCALAR:
            ns[f"D{i}"] = e.default
            w(f" if {g}v{i} is not None:")
            if e.enum is not None:
                ns[f"E{i}"] = e
                w(f"  if isinstance(v{i}, str):")
                w(f"   v{i} = st.enum_value(E{i}, v{i}, path)")
            w(f"  if not v{i} == D{i}:")
            w(f"   m |= {b}")
        elif e.kind == _UTYPE or e.keep_empty:
            w(f" if {g}v{i} is not None:")
            w(f"  m |= {b}")
        else:
            w(f" if {g}v{i} is not None and not v{i} == '':")
            w(f"  m |= {b}")
    w(" place = PLACES.get(m)")
    w(" if place is None:")
    w("  place = place_for(m)")
    w(f" return place(st, path{', ' if n else ''}{values})")
    return _compile(src, ns, ct.name)  # type: ignore[no-any-return]


def _place(
    ct: _Table,
    shape: _Shape,
    entries: list[tuple[int, _Entry]],
    n: int,
    max_depth: int,
    max_tables: int,
) -> Any:
    """The function that places a table of ``shape`` whose field values are ``v0 ... v{n-1}``."""
    field_of = {id(e): i for i, e in entries}
    ns: dict[str, Any] = {
        "CT": ct,
        "SHAPE": shape,
        "VT": shape.vtable,
        "BLANK": shape.zeros,
        "PACK": shape.packer.pack_into,
        "ZEROS": _ZEROS,
        "ndarray": np.ndarray,
    }
    values = "".join(f", v{i}" for i in range(n))
    src = [f"def pack(st, path{values}):"]
    w = src.append
    w(" depth = st.depth + 1")
    w(" count = st.count + 1")
    w(" st.count = count")
    w(f" if depth > {max_depth} or count > {max_tables}:")
    w("  st.refuse(depth, path)")
    w(" buf = st.buf")
    w(" vtables = st.vtables")
    w(" vt = vtables.get(VT)")
    w(" if vt is None:")
    w("  if len(buf) & 1:")
    w("   buf += b'\\0'")
    w("  vt = len(buf)")
    w("  buf += VT")
    w("  vtables[VT] = vt")
    w(f" pad = -len(buf) & {shape.align - 1}")
    w(" if pad:")
    w("  buf += ZEROS[pad]")
    w(" pos = len(buf)")
    w(" buf += BLANK")
    if ct.logged:
        w(" if st.log is not None:")
        w("  st.log.append(pos)")
    w(" st.depth = depth")
    args = ["pos - vt"]
    for j, (_, e, off) in enumerate(shape.layout):
        v = f"v{field_of[id(e)]}"
        name = repr(e.name)
        if e.kind == _SCALAR:
            args.append(v)
            continue
        if e.kind == _REF and e.ref == 1:
            w(f" a{j} = st.string({v}, (path, {name})) - pos - {off}")
        elif e.kind == _REF and e.ref == 2:
            assert e.target is not None
            ns[f"T{j}"] = e.target
            w(f" a{j} = T{j}.pack(st, {v}, (path, {name})) - pos - {off}")
        elif e.kind == _REF and e.type.kind == "vector":
            elem = ns[f"X{j}"] = e.type.element
            call = f"st.vector(X{j}, {v}, (path, {name}), pos + {off}, {e.align})"
            if elem is not None and elem.kind in ("table", "string"):
                # a non-empty list straight to its references, an empty one to its length
                # (4 zero bytes); anything else checked first
                ns[f"T{j}"] = e.target if elem.kind == "table" else None
                w(f" if type({v}) is list:")
                w(f"  if {v}:")
                w(f"   a{j} = st.refs_vector(T{j}, {v}, (path, {name}), {e.align})")
                w("  else:")
                w("   if len(buf) & 3:")
                w("    buf += ZEROS[-len(buf) & 3]")
                w(f"   a{j} = len(buf)")
                w("   buf += ZEROS[4]")
                w(" else:")
                w(f"  a{j} = {call}")
            elif e.elements is not None:
                # a numpy array of the wire's own type: its bytes as they are
                ns[f"D{j}"], size = e.elements
                a = max(4, size, e.align)
                w(f" if type({v}) is ndarray and {v}.dtype is D{j}:")
                w(f"  a{j} = st.numbers({v}, {size}, {a}, (path, {name}), pos + {off})")
                w(" else:")
                w(f"  a{j} = {call}")
            else:
                w(f" a{j} = {call}")
            w(f" a{j} = a{j} - pos - {off} if a{j} >= 0 else 0")  # a large vector: patched later
        elif e.kind == _REF:
            assert e.type.kind == "union"
            ns[f"E{j}"] = e
            w(f" a{j} = st.union_value(E{j}, {v}, (path, {name})) - pos - {off}")
        elif e.kind == _UTYPE:
            ns[f"E{j}"] = e
            w(f" a{j} = st.union_code(E{j}, {v}, path)")
        else:
            assert e.kind == _STRUCT
            ns[f"E{j}"] = e
            w(f" a{j} = st.struct_bytes(E{j}, {v}, path)")
        args.append(f"a{j}")
    w(" st.depth = depth - 1")
    w(" try:")
    w(f"  PACK(buf, pos, {', '.join(args)})")
    w(" except struct_error as exc:")
    w(f"  st.pack_failed(CT, SHAPE, [{', '.join(args)}], path, exc)")
    w(" return pos")
    ns["struct_error"] = struct.error
    return _compile(src, ns, f"{ct.name} shape")
