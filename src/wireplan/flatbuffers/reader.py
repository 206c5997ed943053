"""A verified, schema-driven FlatBuffers reader over any bytes-like buffer or mapping.

:func:`read_root` decodes a whole buffer eagerly, table by table, as a
:class:`~wireplan.flatbuffers.schema.Schema` describes it, and checks every
byte it touches while doing so:

- every offset (root, vtable, field, reference, vector element) lies inside
  the buffer, every field inside its table as the vtable sizes it;
- vtable sizes are even and at least 4, table sizes at least 4;
- vector and string lengths are checked against the bytes that remain
  before anything is allocated (:class:`~wireplan.LimitError`), strings end
  with a NUL and are valid UTF-8;
- union type codes name a member of the union; required fields are present;
- nesting depth is capped (``max_depth`` tables), and so is the total work
  (``expansion`` units: each decoded table is charged 4, each string and
  struct vector its wire size, each copied vector its bytes; a buffer without shared objects never
  costs more than its length, so the default cap of ``4 * len(buffer) +
  4096`` only stops buffers that reference the same objects over and over
  to blow up).

Loops are impossible by construction: a reference is an unsigned offset
added to its own position and every field lies after its table's start,
so each referenced object starts strictly after the table that refers to
it, and the recursion ends after at most ``len(buffer)`` steps (or sooner,
at ``max_depth``).  Any failure raises :class:`~wireplan.DecodeError` with
the byte offset and a path such as ``$.model.graph.nodes[3].attributes[0]``;
the message is built only then.  The offset is always inside the buffer:
that of the byte holding the bad value (the reference or vector element
that points outside, the length, the table's vtable offset, the vtable's
size or entry), never the place a bad reference points to.  Alignment is not required (numpy handles
unaligned views).  A union field's ``slot`` is its value's; the ``uint8``
type code is in ``slot - 1``.  Unknown trailing slots are ignored.

Each table is decoded by a function generated from its plan (every slot
unrolled, every check inline), compiled once per schema and set of
classes and cached.

What a table becomes: ``classes[table_name](**fields)`` when ``classes``
has the table, else a ``dict`` of field name to value.  Field values:
scalars and enums as Python numbers (schema default when absent), strings
as ``str`` (``""`` when absent), sub-tables as objects (``None`` when
absent), unions as the member's object (``None`` for NONE), vectors of
tables or strings as lists, vectors of structs as lists of
``classes[struct_name](**fields)`` or, without a class, as a numpy
structured array; vectors of scalars as 1-D little-endian numpy arrays that
are read-only **views into the buffer** (no copy), or owned copies with
``copy=True``.  Deprecated fields are skipped (never read).

With ``copy=True``, vectors of scalars of ``large_bytes`` or more are
allocated during the walk and filled afterwards in one batch through
:func:`wireplan.core.executor.run_copies` (``threads`` as there), so a
threaded copy writes the same bytes as a serial one.
"""

from __future__ import annotations

import dataclasses
import struct
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NoReturn

import numpy as np

from wireplan.core.buffers import as_memoryview
from wireplan.core.executor import run_copies
from wireplan.errors import DecodeError, LimitError
from wireplan.flatbuffers.schema import Field, Schema, StructDef, TypeRef

__all__ = ["DEFAULT_LIMITS", "DEFAULT_MAX_DEPTH", "Limits", "TableReader", "read_root"]

#: Default cap on nested tables (an .ort subgraph level costs three: Node, Attribute, Graph).
DEFAULT_MAX_DEPTH = 200

_U16 = struct.Struct("<H").unpack_from
_U16X2 = struct.Struct("<HH").unpack_from
_U32 = struct.Struct("<I").unpack_from
_I32 = struct.Struct("<i").unpack_from
_U8 = struct.Struct("<B").unpack_from

# Field kinds, as small ints for a cheap dispatch.
_SCALAR, _STRING, _TABLE, _STRUCT, _UNION, _VEC_SCALAR, _VEC_STRING, _VEC_TABLE, _VEC_STRUCT = (
    range(9)
)


@dataclass(frozen=True, slots=True)
class Limits:
    """Caps on one decode: nesting depth, and work as a multiple of the buffer length."""

    max_depth: int = DEFAULT_MAX_DEPTH
    expansion_factor: int = 4
    expansion_slack: int = 4096


#: The limits used unless a caller passes others.
DEFAULT_LIMITS = Limits()


@dataclass(slots=True)
class _FieldPlan:
    name: str
    slot: int
    kind: int
    inline: int  # bytes the field takes inside the table
    default: Any
    required: bool
    unpack: Callable[..., tuple[Any, ...]] | None = None  # scalar fields
    fresh: bool = False  # absent: a new empty list (vectors of tables, strings, structs)
    target: str = ""  # table / struct name, or union name
    dtype: np.dtype[Any] | None = None  # vector of scalars / structs
    members: Mapping[int, str] | None = None  # union


def _struct_dtype(schema: Schema, sdef: StructDef) -> np.dtype[Any]:
    formats: list[Any] = []
    for _, ftype in sdef.fields:
        if ftype.kind == "struct":
            formats.append(_struct_dtype(schema, schema.structs[ftype.name]))
        else:
            sc = schema.scalar_of(ftype)
            formats.append(np.dtype("<" + sc.fmt) if sc.size > 1 else np.dtype(sc.fmt))
    return np.dtype(
        {
            "names": [name for name, _ in sdef.fields],
            "formats": formats,
            "offsets": list(sdef.offsets),
            "itemsize": sdef.size,
        }
    )


def _scalar_dtype(schema: Schema, t: TypeRef) -> np.dtype[Any]:
    sc = schema.scalar_of(t)
    return np.dtype("<" + sc.fmt) if sc.size > 1 else np.dtype(sc.fmt)


class _Compiled:
    """Per-schema decoding plans, built once and cached on the schema object's id."""

    def __init__(self, schema: Schema) -> None:
        self.schema = schema
        self.tables: dict[str, list[_FieldPlan]] = {}
        self.struct_dtypes: dict[str, np.dtype[Any]] = {
            name: _struct_dtype(schema, sdef) for name, sdef in schema.structs.items()
        }
        for tname, tdef in schema.tables.items():
            self.tables[tname] = [
                self._plan(tname, f)
                for f in sorted(tdef.fields, key=lambda f: f.slot)
                if not f.deprecated
            ]

    def _plan(self, tname: str, f: Field) -> _FieldPlan:
        t = f.type
        s = self.schema
        if t.kind in ("scalar", "enum"):
            sc = s.scalar_of(t)
            default: Any = f.default
            if sc.fmt == "?":
                default = bool(default)
            elif sc.fmt in "fd":
                default = float(default)
            else:
                default = int(default)
            return _FieldPlan(
                f.name,
                f.slot,
                _SCALAR,
                sc.size,
                default,
                f.required,
                struct.Struct("<" + sc.fmt).unpack_from,
            )
        if t.kind == "string":
            return _FieldPlan(f.name, f.slot, _STRING, 4, "", f.required)
        if t.kind == "table":
            return _FieldPlan(f.name, f.slot, _TABLE, 4, None, f.required, target=t.name)
        if t.kind == "struct":
            size = s.structs[t.name].size
            return _FieldPlan(
                f.name,
                f.slot,
                _STRUCT,
                size,
                None,
                f.required,
                target=t.name,
                dtype=self.struct_dtypes[t.name],
            )
        if t.kind == "union":
            if f.slot < 1:
                raise ValueError(f"{tname}.{f.name}: a union needs its type code in slot - 1")
            return _FieldPlan(
                f.name,
                f.slot,
                _UNION,
                4,
                None,
                f.required,
                target=t.name,
                members=s.unions[t.name].members,
            )
        if t.kind == "vector":
            e = t.element
            assert e is not None
            if e.kind in ("scalar", "enum"):
                dt = _scalar_dtype(s, e)
                empty = np.zeros(0, dtype=dt)
                empty.flags.writeable = False
                return _FieldPlan(f.name, f.slot, _VEC_SCALAR, 4, empty, f.required, dtype=dt)
            if e.kind == "string":
                return _FieldPlan(f.name, f.slot, _VEC_STRING, 4, None, f.required, fresh=True)
            if e.kind == "table":
                return _FieldPlan(
                    f.name, f.slot, _VEC_TABLE, 4, None, f.required, target=e.name, fresh=True
                )
            if e.kind == "struct":
                return _FieldPlan(
                    f.name,
                    f.slot,
                    _VEC_STRUCT,
                    4,
                    None,
                    f.required,
                    target=e.name,
                    dtype=self.struct_dtypes[e.name],
                )
        raise ValueError(f"{tname}.{f.name}: unsupported field type {t}")


_COMPILED: dict[int, _Compiled] = {}
_SLOTS: dict[int, Callable[[Any, int], tuple[int, ...]]] = {}


def _slots_unpacker(nslots: int) -> Callable[[Any, int], tuple[int, ...]]:
    """``unpack_from`` for a vtable's ``nslots`` uint16 field offsets (cached per count)."""
    u = _SLOTS.get(nslots)
    if u is None:
        u = _SLOTS[nslots] = struct.Struct(f"<{nslots}H").unpack_from
    return u


def _compiled(schema: Schema) -> _Compiled:
    c = _COMPILED.get(id(schema))
    if c is None or c.schema is not schema:
        c = _Compiled(schema)
        _COMPILED[id(schema)] = c
    return c


# --- generated decoders ----------------------------------------------------------------------
#
# Each table gets a Python function written from its plan (the slots unrolled, every check
# inline), compiled once per (schema, classes) and cached: about three times faster than
# interpreting the plan field by field.  The functions take the TableReader as ``r``.

_SCALAR_UNPACK: dict[str, Callable[..., tuple[Any, ...]]] = {}


def _unpacker(fmt: str) -> Callable[..., tuple[Any, ...]]:
    u = _SCALAR_UNPACK.get(fmt)
    if u is None:
        u = _SCALAR_UNPACK[fmt] = struct.Struct("<" + fmt).unpack_from
    return u


def _fail_table(name: str, pos: int) -> NoReturn:
    raise DecodeError(f"table {name} at {pos} lies outside the buffer", pos)


def _fail_vtable(name: str, pos: int, vt: int, n: int, mv: memoryview) -> NoReturn:
    if vt < 0 or vt + 4 > n:
        raise DecodeError(f"vtable of {name} at {vt} lies outside the buffer", pos)
    vtsize, tsize = _U16X2(mv, vt)
    if vtsize < 4 or vtsize & 1 or vt + vtsize > n:
        raise DecodeError(f"vtable of {name} has a bad size {vtsize}", vt)
    raise DecodeError(f"table {name} has a bad size {tsize}", vt + 2)


def _fail_field(name: str, field: str, fo: int, tsize: int, at: int) -> NoReturn:
    raise DecodeError(f"field {name}.{field} at +{fo} lies outside its table ({tsize} bytes)", at)


def _fail_required(name: str, field: str, pos: int) -> NoReturn:
    raise DecodeError(f"required field {name}.{field} is missing", pos)


def _fail_union(union: str, code: int, at: int) -> NoReturn:
    raise DecodeError(f"union {union} has no member with type code {code}", at)


def _generate(
    plans: Mapping[str, tuple[list[_FieldPlan], Callable[..., Any] | None]],
) -> dict[str, Callable[[Any, int, int], Any]]:
    ns: dict[str, Any] = {
        "DecodeError": DecodeError,
        "LimitError": LimitError,
        "I32": _I32,
        "U32": _U32,
        "U16X2": _U16X2,
        "U8": _U8,
        "SLOTS": _slots_unpacker,
        "fail_table": _fail_table,
        "fail_vtable": _fail_vtable,
        "fail_field": _fail_field,
        "fail_required": _fail_required,
        "fail_union": _fail_union,
    }
    src: list[str] = []
    for tname, (fields, cls) in plans.items():
        k = max((f.slot for f in fields), default=-1) + 1
        ns[f"C_{tname}"] = cls
        ns[f"S_{tname}"] = _slots_unpacker(k)
        ns[f"Z_{tname}"] = tuple((0,) * i for i in range(k + 1))
        w = src.append
        w(f"def t_{tname}(r, pos, depth):")
        w("    if depth > r._max_depth:")
        w("        raise LimitError(f'tables nested deeper than {r._max_depth}', pos)")
        w("    mv = r._mv")
        w("    n = r._n")
        w("    if pos + 4 > n:")
        w(f"        fail_table({tname!r}, pos)")
        w("    r._budget -= 4")
        w("    if r._budget < 0:")
        w("        r._charge(0, pos)")
        w("    vt = pos - I32(mv, pos)[0]")
        w("    if vt < 0 or vt + 4 > n:")
        w(f"        fail_vtable({tname!r}, pos, vt, n, mv)")
        w("    vtsize, tsize = U16X2(mv, vt)")
        w("    if vtsize < 4 or vtsize & 1 or vt + vtsize > n or tsize < 4 or pos + tsize > n:")
        w(f"        fail_vtable({tname!r}, pos, vt, n, mv)")
        if k:
            w("    ns = (vtsize - 4) >> 1")
            w(f"    if ns >= {k}:")
            w(f"        sl = S_{tname}(mv, vt + 4)")
            w("    else:")
            w(f"        sl = SLOTS(ns)(mv, vt + 4) + Z_{tname}[{k} - ns]")
        args = []
        for i, f in enumerate(fields):
            v = f"v{i}"
            args.append(f"{f.name}={v}")
            dname = f"D_{tname}_{i}"
            ns[dname] = f.default
            w(f"    fo = sl[{f.slot}]")
            w("    if fo:")
            w(f"        if fo + {f.inline} > tsize:")
            w(f"            fail_field({tname!r}, {f.name!r}, fo, tsize, vt + {4 + 2 * f.slot})")
            w("        try:")
            kind = f.kind
            if kind == _SCALAR:
                assert f.unpack is not None
                ns[f"U_{tname}_{i}"] = f.unpack
                w(f"            {v} = U_{tname}_{i}(mv, pos + fo)[0]")
            elif kind == _STRING:
                # The common case inline; anything unusual goes to the checked slow path,
                # which raises the right error.
                w("            at = pos + fo")
                w("            sp = at + U32(mv, at)[0]")
                w("            if sp + 4 > n:")
                w("                r._ref(at)")
                w("            ln = U32(mv, sp)[0]")
                w("            end = sp + 4 + ln")
                w("            if end >= n or mv[end]:")
                w(f"                {v} = r._string_at(sp)")
                w("            else:")
                w("                r._budget -= 4 + ln")
                w("                if r._budget < 0:")
                w("                    r._charge(0, sp)")
                w("                try:")
                w(f"                    {v} = str(mv[sp + 4 : end], 'utf-8')")
                w("                except UnicodeDecodeError:")
                w(f"                    {v} = r._string_at(sp)")
            elif kind == _TABLE:
                w("            at = pos + fo")
                w("            tp = at + U32(mv, at)[0]")
                w("            if tp + 4 > n:")
                w("                r._ref(at)")
                w(f"            {v} = t_{f.target}(r, tp, depth + 1)")
            elif kind == _VEC_TABLE:
                w(f"            {v} = v_{f.target}(r, r._ref(pos + fo), depth + 1)")
            elif kind == _VEC_STRING:
                w(f"            {v} = r._strings_at(r._ref(pos + fo))")
            elif kind == _VEC_SCALAR:
                ns[f"T_{tname}_{i}"] = f.dtype
                w(f"            {v} = r._scalars_at(r._ref(pos + fo), T_{tname}_{i})")
            elif kind == _VEC_STRUCT:
                ns[f"T_{tname}_{i}"] = f.dtype
                w(f"            {v} = r._structs_at(r._ref(pos + fo), {f.target!r}, T_{tname}_{i})")
            elif kind == _STRUCT:
                ns[f"T_{tname}_{i}"] = f.dtype
                w(f"            {v} = r._struct_at(pos + fo, {f.target!r}, T_{tname}_{i})")
            else:  # _UNION
                assert f.members is not None
                ns[f"M_{tname}_{i}"] = f.members
                w(f"            to = sl[{f.slot - 1}]")
                w("            if to and to + 1 > tsize:")
                w(
                    "                raise DecodeError('union type code lies outside its table', "
                    f"vt + {4 + 2 * (f.slot - 1)})"
                )
                w("            code = U8(mv, pos + to)[0] if to else 0")
                w("            if code:")
                w(f"                member = M_{tname}_{i}.get(code)")
                w("                if member is None:")
                w(f"                    fail_union({f.target!r}, code, pos + to)")
                w(f"                {v} = r._fns[member](r, r._ref(pos + fo), depth + 1)")
                w("            else:")
                w(f"                {v} = None")
            w("        except DecodeError as exc:")
            w(f"            raise exc.under({'.' + f.name!r}) from None")
            w("    else:")
            if f.required:
                w(f"        fail_required({tname!r}, {f.name!r}, pos)")
            elif f.fresh:
                w(f"        {v} = []")
            else:
                w(f"        {v} = {dname}")
        if cls is not None:
            w(f"    return C_{tname}({', '.join(args)})")
        else:
            w("    return {" + ", ".join(f"{f.name!r}: v{i}" for i, f in enumerate(fields)) + "}")
        w("")
        w(f"def v_{tname}(r, pos, depth):")
        w("    count = r._length(pos, 4)")
        w("    mv = r._mv")
        w("    n = r._n")
        w("    out = []")
        w("    at = pos + 4")
        w("    for i in range(count):")
        w("        try:")
        w("            tp = at + U32(mv, at)[0]")
        w("            if tp + 4 > n:")
        w("                r._ref(at)")
        w(f"            out.append(t_{tname}(r, tp, depth))")
        w("        except DecodeError as exc:")
        w("            raise exc.under(f'[{i}]') from None")
        w("        at += 4")
        w("    return out")
        w("")
    code = compile("\n".join(src), "<wireplan.flatbuffers generated decoders>", "exec")
    exec(code, ns)
    return {tname: ns[f"t_{tname}"] for tname in plans}


_DECODERS: dict[
    tuple[int, tuple[tuple[str, int], ...]],
    tuple[
        Schema,
        dict[str, tuple[list[_FieldPlan], Callable[..., Any] | None]],
        dict[str, Callable[[Any, int, int], Any]],
    ],
] = {}


def _decoders(
    schema: Schema, classes: Mapping[str, Callable[..., Any]]
) -> tuple[
    dict[str, tuple[list[_FieldPlan], Callable[..., Any] | None]],
    dict[str, Callable[[Any, int, int], Any]],
]:
    key = (id(schema), tuple(sorted((name, id(c)) for name, c in classes.items())))
    hit = _DECODERS.get(key)
    if hit is not None and hit[0] is schema:
        return hit[1], hit[2]
    comp = _compiled(schema)
    plans: dict[str, tuple[list[_FieldPlan], Callable[..., Any] | None]] = {}
    for tname, fields in comp.tables.items():
        adjusted = []
        for f in fields:
            if f.kind == _VEC_STRUCT:
                if f.target in classes:
                    f = dataclasses.replace(f, fresh=True)
                else:
                    f = dataclasses.replace(f, default=np.zeros(0, dtype=f.dtype))
            adjusted.append(f)
        plans[tname] = (adjusted, classes.get(tname))
    fns = _generate(plans)
    _DECODERS[key] = (schema, plans, fns)
    return plans, fns


class TableReader:
    """One decode of one buffer; use :func:`read_root` unless you need :meth:`read_table`.

    ``buffer`` is any contiguous bytes-like object (``bytes``, ``mmap``,
    ``memoryview``, ``MappedFile.buffer``); it is never copied.  Views this
    reader hands out keep the buffer alive.
    """

    __slots__ = (
        "_budget",
        "_classes",
        "_copy",
        "_fns",
        "_large",
        "_max_depth",
        "_mv",
        "_n",
        "_pending",
        "_plans",
        "_writable_source",
        "schema",
    )

    def __init__(
        self,
        schema: Schema,
        buffer: Any,
        *,
        classes: Mapping[str, Callable[..., Any]] | None = None,
        copy: bool = False,
        large_bytes: int = 1 << 20,
        limits: Limits = DEFAULT_LIMITS,
    ) -> None:
        self.schema = schema
        self._classes = dict(classes or {})
        self._plans, self._fns = _decoders(schema, self._classes)
        self._mv = as_memoryview(buffer)
        self._n = self._mv.nbytes
        self._copy = copy
        self._large = large_bytes
        self._pending: list[tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]] = []
        self._max_depth = limits.max_depth
        self._budget = limits.expansion_factor * self._n + limits.expansion_slack
        # Views of a writable source (bytearray) are marked read-only all the same.
        self._writable_source = not self._mv.readonly

    # -- public -------------------------------------------------------------------------------

    def read_table(self, table: str, pos: int, depth: int = 0) -> Any:
        """Decode the table ``table`` that starts at byte ``pos``."""
        return self._table(table, pos, depth)

    def root_position(self, identifier: bytes | None = None) -> int:
        """Check the buffer's header (and ``identifier`` at bytes 4..8); return the root table's position."""
        mv, n = self._mv, self._n
        head = 8 if identifier is not None else 4
        if n < head + 4:
            raise DecodeError(f"buffer of {n} bytes is too short for a FlatBuffer", n)
        if identifier is not None:
            if len(identifier) != 4:
                raise ValueError("a file identifier has 4 bytes")
            found = bytes(mv[4:8])
            if found != identifier:
                raise DecodeError(f"file identifier is {found!r}, expected {identifier!r}", 4)
        root: int = _U32(mv, 0)[0]
        if root < head or root + 4 > n:
            raise DecodeError(f"root offset {root} lies outside the buffer ({n} bytes)", 0)
        return root

    def field_position(self, table: str, pos: int, name: str) -> int | None:
        """Where field ``name`` of the ``table`` at ``pos`` is stored, checked; ``None`` if absent.

        For a reference field (string, table, vector) this is the position of
        the stored offset; use :meth:`follow` to get to the referenced object.
        """
        mv, n = self._mv, self._n
        if pos + 4 > n:
            raise DecodeError(f"table {table} at {pos} lies outside the buffer", pos)
        vt = pos - _I32(mv, pos)[0]
        if vt < 0 or vt + 4 > n:
            raise DecodeError(f"vtable of {table} at {vt} lies outside the buffer", pos)
        vtsize, tsize = _U16X2(mv, vt)
        if vtsize < 4 or vtsize & 1 or vt + vtsize > n:
            raise DecodeError(f"vtable of {table} has a bad size {vtsize}", vt)
        if tsize < 4 or pos + tsize > n:
            raise DecodeError(f"table {table} has a bad size {tsize}", vt + 2)
        plan = next((f for f in self._plans[table][0] if f.name == name), None)
        if plan is None:
            raise KeyError(f"table {table} has no readable field {name!r}")
        if plan.slot >= (vtsize - 4) >> 1:
            return None
        fo: int = _U16(mv, vt + 4 + 2 * plan.slot)[0]
        if fo == 0:
            return None
        if fo + plan.inline > tsize:
            raise DecodeError(
                f"field {table}.{name} lies outside its table", vt + 4 + 2 * plan.slot
            )
        return pos + fo

    def locate(self, path: str, root: int | None = None) -> int | None:
        """Where the value at ``path`` (``$.model.graph.initializers[2].dims``) is stored.

        For the error path of checks made after decoding: the position of
        the field (a scalar itself, or the uoffset of a reference), or of
        the vector element for a path ending in ``[i]``; ``None`` if the
        path leads through an absent field.  Starts at the root table
        (``root``: its position, default from the header).
        """
        table = self.schema.root
        pos = self.root_position() if root is None else root
        at: int | None = None
        for token in _path_tokens(path):
            if isinstance(token, int):
                if at is None or table == "":
                    return None
                vec = self.follow(at)
                if not 0 <= token < self._length(vec, 4):
                    return None
                at = vec + 4 + 4 * token
                continue
            if at is not None:  # step into the table the last field refers to
                pos = self.follow(at)
            if table == "":
                return None
            fdef = next((f for f in self.schema.tables[table].fields if f.name == token), None)
            if fdef is None:
                raise KeyError(f"table {table} has no field {token!r}")
            at = self.field_position(table, pos, token)
            if at is None:
                return None
            t = fdef.type
            if t.kind == "table":
                table = t.name
            elif t.kind == "vector" and t.element is not None and t.element.kind == "table":
                table = t.element.name
            elif t.kind == "union":
                table = self._union_member(pos, fdef.slot - 1, t.name)
            else:
                table = ""  # nothing to step into
        return at

    def _union_member(self, pos: int, code_slot: int, union: str) -> str:
        """The member table named by the type code in slot ``code_slot`` ("" if none)."""
        mv = self._mv
        vt = pos - _I32(mv, pos)[0]
        if code_slot >= (_U16(mv, vt)[0] - 4) >> 1:
            return ""
        fo = _U16(mv, vt + 4 + 2 * code_slot)[0]
        code = _U8(mv, pos + fo)[0] if fo else 0
        return self.schema.unions[union].members.get(code, "")

    def follow(self, at: int) -> int:
        """The position a uoffset stored at ``at`` refers to, checked to lie inside the buffer."""
        if at < 0 or at + 4 > self._n:
            raise DecodeError(f"offset at {at} lies outside the buffer", at)
        return self._ref(at)

    def string(self, pos: int) -> str:
        """The checked string whose length prefix is at ``pos``."""
        return self._string_at(pos)

    def finish(self, threads: int | None = None) -> None:
        """Run the deferred copies of large vectors (``copy=True``); a no-op otherwise."""
        pending, self._pending = self._pending, []
        if pending:
            run_copies(pending, threads=threads)

    # -- checks -------------------------------------------------------------------------------

    def _charge(self, units: int, pos: int) -> None:
        self._budget -= units
        if self._budget < 0:
            raise LimitError(
                "decoding expands past the work limit (the buffer refers to the same "
                "objects too often)",
                pos,
            )

    def _ref(self, at: int) -> int:
        """Follow the uoffset stored at ``at`` (already known to be inside the buffer)."""
        target: int = at + _U32(self._mv, at)[0]
        if target + 4 > self._n:
            raise DecodeError(f"offset {target} points outside the buffer ({self._n} bytes)", at)
        return target

    def _length(self, at: int, elem: int, extra: int = 0) -> int:
        """The element count of the vector or string whose length is at ``at``."""
        count: int = _U32(self._mv, at)[0]
        if at + 4 + count * elem + extra > self._n:
            raise LimitError(
                f"length {count} (x{elem} bytes) runs past the end of the buffer "
                f"({self._n - at - 4} bytes left)",
                at,
            )
        return count

    # -- values -------------------------------------------------------------------------------

    def _string_at(self, pos: int) -> str:
        n = self._length(pos, 1, 1)
        self._charge(4 + n, pos)
        mv = self._mv
        end = pos + 4 + n
        if mv[end] != 0:
            raise DecodeError("string is not NUL-terminated", end)
        try:
            return str(mv[pos + 4 : end], "utf-8")
        except UnicodeDecodeError as exc:
            raise DecodeError(
                f"string is not valid UTF-8 ({exc.reason})", pos + 4 + exc.start
            ) from None

    def _scalars_at(self, pos: int, dtype: np.dtype[Any]) -> np.ndarray[Any, Any]:
        n = self._length(pos, dtype.itemsize)
        self._charge(4, pos)
        start = pos + 4
        nbytes = n * dtype.itemsize
        src = np.frombuffer(self._mv[start : start + nbytes], dtype=dtype)
        if self._copy:
            self._charge(nbytes, pos)
            if nbytes >= self._large:
                dst = np.empty(n, dtype=dtype)
                self._pending.append((dst, src))
                return dst
            return src.copy()
        if self._writable_source:
            src.flags.writeable = False
        return src

    def _structs_at(self, pos: int, name: str, dtype: np.dtype[Any]) -> Any:
        n = self._length(pos, dtype.itemsize)
        self._charge(4 + n * dtype.itemsize, pos)
        start = pos + 4
        arr = np.frombuffer(self._mv[start : start + n * dtype.itemsize], dtype=dtype)
        cls = self._classes.get(name)
        if cls is None:
            return arr.copy() if self._copy else arr
        names = dtype.names or ()
        return [cls(**dict(zip(names, row, strict=True))) for row in arr.tolist()]

    def _struct_at(self, pos: int, name: str, dtype: np.dtype[Any]) -> Any:
        arr = np.frombuffer(self._mv[pos : pos + dtype.itemsize], dtype=dtype)
        row = arr.tolist()[0]
        cls = self._classes.get(name)
        names = dtype.names or ()
        values = dict(zip(names, row, strict=True))
        return cls(**values) if cls is not None else values

    def _table(self, name: str, pos: int, depth: int) -> Any:
        return self._fns[name](self, pos, depth)

    def _strings_at(self, pos: int) -> list[str]:
        n = self._length(pos, 4)
        mv = self._mv
        out: list[str] = []
        at = pos + 4
        nbytes = self._n
        for i in range(n):
            target = at + _U32(mv, at)[0]
            try:
                if target + 4 > nbytes:
                    raise DecodeError(f"offset {target} points outside the buffer", at)
                out.append(self._string_at(target))
            except DecodeError as exc:
                raise exc.under(f"[{i}]") from None
            at += 4
        return out


def _path_tokens(path: str) -> list[str | int]:
    """``"$.a.b[3].c"`` as ``["a", "b", 3, "c"]``."""
    out: list[str | int] = []
    for part in path.removeprefix("$").split("."):
        if not part:
            continue
        name, *indices = part.split("[")
        if name:
            out.append(name)
        out.extend(int(i.rstrip("]")) for i in indices)
    return out


def read_root(
    schema: Schema,
    buffer: Any,
    *,
    identifier: bytes | None = None,
    classes: Mapping[str, Callable[..., Any]] | None = None,
    copy: bool = False,
    threads: int | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> Any:
    """Verify and decode the root table of ``buffer`` (see the module docstring).

    ``identifier`` (4 bytes) is checked at bytes 4..8 when given; pass
    ``schema.file_identifier`` to check the schema's own.
    """
    reader = TableReader(schema, buffer, classes=classes, copy=copy, limits=limits)
    value = reader.read_table(schema.root, reader.root_position(identifier))
    reader.finish(threads)
    return value
