"""Decoders generated per schema, one concern: a plan per table, then one Python function each.

:func:`decoders` compiles a :class:`~wireplan.flatbuffers.schema.Schema` once into field plans
and, per (schema, classes), writes and compiles a decoding function per table with its slots
unrolled and every check inline (about three times faster than interpreting the plans).
The functions take the :class:`~wireplan.flatbuffers.reader.TableReader` as ``r``.
"""

from __future__ import annotations

import dataclasses
import inspect
import struct
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NoReturn

import numpy as np

from wireplan.errors import ArgumentError, DecodeError, LimitError
from wireplan.flatbuffers.lazy import TableList
from wireplan.flatbuffers.schema import Field, Schema, StructDef, TypeRef

_U16 = struct.Struct("<H").unpack_from
_U16X2 = struct.Struct("<HH").unpack_from
_U32 = struct.Struct("<I").unpack_from
_I32 = struct.Struct("<i").unpack_from
_U8 = struct.Struct("<B").unpack_from

# Field kinds, as small ints for a cheap dispatch.
_SCALAR, _STRING, _TABLE, _STRUCT, _UNION, _VEC_SCALAR, _VEC_STRING, _VEC_TABLE, _VEC_STRUCT = (
    range(9)
)


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
    align: int = 4  # where the field must start: its size (scalars), the struct's alignment


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
                align=sc.size,
            )
        if t.kind == "string":  # a string key is required, as flatc's verifiers check it
            return _FieldPlan(f.name, f.slot, _STRING, 4, "", f.required or f.key)
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
                align=s.structs[t.name].alignment,
            )
        if t.kind == "union":
            if f.slot < 1:
                raise ArgumentError(f"{tname}.{f.name}: a union needs its type code in slot - 1")
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
        raise ArgumentError(f"{tname}.{f.name}: unsupported field type {t}")


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


# FlatBuffers' verifier refuses what a writer never misaligns (onnxruntime's among them): a table
# (its offset to its vtable) not at a multiple of 4, a vtable at an odd position, a field not at
# a multiple of its alignment, a vector or string whose length is not at a multiple of 4.
_ALIGNED = "a multiple of {}, as FlatBuffers' verifier requires"


def _fail_table(name: str, pos: int) -> NoReturn:
    if pos & 3 and pos >= 0:
        raise DecodeError(f"table {name} at {pos} is not at {_ALIGNED.format(4)}", pos)
    raise DecodeError(f"table {name} at {pos} lies outside the buffer", pos)


def _fail_vtable(name: str, pos: int, vt: int, n: int, mv: memoryview) -> NoReturn:
    if vt < 0 or vt + 4 > n:
        raise DecodeError(f"vtable of {name} at {vt} lies outside the buffer", pos)
    if vt & 1:
        raise DecodeError(f"vtable of {name} at {vt} is not at {_ALIGNED.format(2)}", pos)
    vtsize, tsize = _U16X2(mv, vt)
    if vtsize < 4 or vtsize & 1 or vt + vtsize > n:
        raise DecodeError(f"vtable of {name} has a bad size {vtsize}", vt)
    raise DecodeError(f"table {name} has a bad size {tsize}", vt + 2)


def _fail_field(name: str, field: str, fo: int, tsize: int, at: int) -> NoReturn:
    raise DecodeError(f"field {name}.{field} at +{fo} lies outside its table ({tsize} bytes)", at)


def _fail_align(name: str, fields: tuple[tuple[str, int, int], ...], sl: Any, vt: int) -> None:
    """The first field of ``fields`` (name, slot, alignment) that ``sl`` places off its
    alignment in a table at a multiple of 4, if any (the table's at a multiple of 8 for
    8-byte fields is checked where they are read)."""
    for field, slot, align in fields:
        fo = sl[slot]
        if fo % min(align, 4):
            raise DecodeError(
                f"field {name}.{field} at +{fo} is not at {_ALIGNED.format(align)}",
                vt + 4 + 2 * slot,
            )


def _fail_misaligned(what: str, at: int, align: int, where: int) -> NoReturn:
    raise DecodeError(f"{what} at {at} is not at {_ALIGNED.format(align)}", where)


def _fail_required(name: str, field: str, pos: int) -> NoReturn:
    raise DecodeError(f"required field {name}.{field} is missing", pos)


def _fail_union(union: str, code: int, at: int) -> NoReturn:
    raise DecodeError(f"union {union} has no member with type code {code}", at)


def _positional(cls: Callable[..., Any], names: list[str]) -> bool:
    """Whether ``cls`` takes ``names`` as its first parameters, in order, by position
    (cheaper than keywords), the others having defaults."""
    try:
        params = list(inspect.signature(cls).parameters.values())
    except (TypeError, ValueError):
        return False
    if [p.name for p in params[: len(names)]] != names:
        return False
    ok = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return all(p.kind in ok for p in params[: len(names)]) and all(
        p.default is not inspect.Parameter.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        for p in params[len(names) :]
    )


def _field_lines(
    w: Callable[[str], None], ns: dict[str, Any], tname: str, i: int, f: _FieldPlan, lazy: bool
) -> None:
    """Write the lines that decode field ``f``, the ``i``-th of table ``tname``, into ``v{i}``.

    They run in a function where ``r``, ``pos``, ``depth``, ``mv``, ``n``, ``vt``, ``tsize``
    and ``sl`` (the vtable's slots) are set; what they need from outside goes into ``ns``.
    """
    v = f"v{i}"
    dname = f"D_{tname}_{i}"
    ns[dname] = f.default
    w(f"    fo = sl[{f.slot}]")
    w("    if fo:")
    w(f"        if fo + {f.inline} > tsize:")
    w(f"            fail_field({tname!r}, {f.name!r}, fo, tsize, vt + {4 + 2 * f.slot})")
    w("        try:")
    kind = f.kind
    where = f"vt + {4 + 2 * f.slot}"
    if f.align > 4:  # a table is at a multiple of 4 (checked), its field maybe not of 8
        w(f"            if (pos + fo) & {f.align - 1}:")
        w(
            f"                fail_misaligned('field {tname}.{f.name}', pos + fo, {f.align}, {where})"
        )
    if kind == _SCALAR:
        assert f.unpack is not None
        ns[f"U_{tname}_{i}"] = f.unpack
        w(f"            {v} = U_{tname}_{i}(mv, pos + fo)[0]")
    elif kind == _STRING:
        # The common case inline; anything unusual goes to the checked slow path,
        # which raises the right error.
        w("            at = pos + fo")
        w("            sp = at + U32(mv, at)[0]")
        w("            if sp + 4 > n or sp == at:")
        w("                r._ref(at)")
        w("            ln = U32(mv, sp)[0]")
        w("            end = sp + 4 + ln")
        w("            if end >= n or mv[end] or sp & 3:")
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
        w("            if tp + 4 > n or tp == at:")
        w("                r._ref(at)")
        w(f"            {v} = t_{f.target}(r, tp, depth + 1)")
    elif kind == _VEC_TABLE and lazy:  # decoded as used
        w(
            f"            {v} = TableList(r, r._ref(pos + fo), t_{f.target}, "
            f"{f.target!r}, depth + 1, {f.name!r})"
        )
    elif kind == _VEC_TABLE:
        w(f"            {v} = v_{f.target}(r, r._ref(pos + fo), depth + 1)")
    elif kind == _VEC_STRING:  # empty ones (writers store many) inline
        w("            at = pos + fo")
        w("            vp = at + U32(mv, at)[0]")
        w("            if vp + 4 <= n and not vp & 3 and vp != at and not U32(mv, vp)[0]:")
        w(f"                {v} = []")
        w("            else:")
        w(f"                {v} = r._strings_at(r._ref(at))")
    elif kind == _VEC_SCALAR:
        # A view of a read-only source inline; copies and the unusual, checked there.
        assert f.dtype is not None
        ns[f"T_{tname}_{i}"] = f.dtype
        size = f.dtype.itemsize
        w("            at = pos + fo")
        w("            vp = at + U32(mv, at)[0]")
        w("            if vp + 4 > n or vp == at:")
        w("                r._ref(at)")
        w("            ln = U32(mv, vp)[0]")
        w(f"            if r._plain and vp + 4 + ln * {size} <= n and not vp & 3:")
        w("                r._budget -= 4")
        w("                if r._budget < 0:")
        w("                    r._charge(0, vp)")
        w(f"                {v} = frombuffer(mv, T_{tname}_{i}, ln, vp + 4)")
        w("            else:")
        w(f"                {v} = r._scalars_at(vp, T_{tname}_{i})")
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


# --- views: tables whose fields are decoded as they are read ----------------------------------
#
# A view is an instance of a subclass of the table's class, made without decoding a field: it
# keeps (reader, position, depth, slots, table size, vtable) in ``_wp`` once its table's header is
# checked, and each field is a property that decodes the field on first read (the same lines
# and checks as the eager decoder), stores it in the class's own slot and marks it in ``_wd``.
# Setting a field stores it the same way.  Copies and pickles of a view are plain objects.


def _plain(cls: type, names: tuple[str, ...], values: tuple[Any, ...]) -> Any:
    """An object of ``cls`` with ``values`` set, no ``__init__`` run (what a view reduces to)."""
    obj: Any = object.__new__(cls)
    for name, value in zip(names, values, strict=True):
        object.__setattr__(obj, name, value)
    return obj


def _slot_of(cls: type, name: str) -> Any:
    """The slot descriptor that stores field ``name`` in objects of ``cls``."""
    for k in cls.__mro__:
        found = k.__dict__.get(name)
        if found is not None:
            if isinstance(found, types.MemberDescriptorType):
                return found
            break
    raise ArgumentError(f"a view of {cls.__name__} needs its field {name!r} in a slot")


def _view_class(cls: Any, fields: list[_FieldPlan]) -> type:
    """The view subclass of ``cls`` (see above); its properties are added once generated."""
    names = tuple(f.name for f in fields)
    declared = getattr(cls, "__dataclass_fields__", None)
    if declared is None or tuple(declared) != names:
        raise ArgumentError(
            f"a view of {cls.__name__} needs a dataclass whose fields are the table's, in order"
        )
    every = (1 << len(names)) - 1

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        object.__setattr__(self, "_wd", every)  # all set by the class's own __init__
        cls.__init__(self, *args, **kwargs)

    def __reduce_ex__(self: Any, protocol: Any) -> tuple[Any, ...]:
        return (_plain, (cls, names, tuple(getattr(self, n) for n in names)))

    body: dict[str, Any] = {
        "__slots__": ("_wd", "_wp"),
        "__init__": __init__,
        "__reduce_ex__": __reduce_ex__,
        "__qualname__": cls.__qualname__,
        "__module__": cls.__module__,
        "__doc__": cls.__doc__,
    }
    if cls.__eq__ is not object.__eq__:

        def __eq__(self: Any, other: object) -> Any:
            if not isinstance(other, cls):
                return NotImplemented
            return tuple(getattr(self, n) for n in names) == tuple(getattr(other, n) for n in names)

        body["__eq__"] = __eq__
        body["__hash__"] = cls.__hash__
    for name in names:
        _slot_of(cls, name)  # refused early
    return type(cls.__name__, (cls,), body)


def _view_getters(
    w: Callable[[str], None],
    ns: dict[str, Any],
    tname: str,
    fields: list[_FieldPlan],
    lazy: bool,
) -> None:
    """Write the property functions of table ``tname``'s view: ``g_`` reads, ``p_`` sets."""
    cls = ns[f"C_{tname}"]

    def inner(line: str) -> None:
        w("    " + line)

    for i, f in enumerate(fields):
        slot = _slot_of(cls, f.name)
        ns[f"GET_{tname}_{i}"] = slot.__get__
        ns[f"SET_{tname}_{i}"] = slot.__set__
        bit = 1 << i
        w(f"def g_{tname}_{i}(self):")
        w(f"    if self._wd & {bit}:")
        w(f"        return GET_{tname}_{i}(self)")
        w("    r, pos, depth, sl, tsize, vt = self._wp")
        w("    mv = r._mv")
        w("    n = r._n")
        w("    try:")
        _field_lines(inner, ns, tname, i, f, lazy)
        w("    except DecodeError as exc:")
        w("        raise r.placed(exc) from None")
        w(f"    SET_{tname}_{i}(self, v{i})")
        w(f"    self._wd |= {bit}")
        w(f"    return v{i}")
        w("")
        w(f"def p_{tname}_{i}(self, value):")
        w(f"    SET_{tname}_{i}(self, value)")
        w(f"    self._wd |= {bit}")
        w("")


def _return(
    w: Callable[[str], None], tname: str, made: str, hooks: dict[str, str], fields: list[_FieldPlan]
) -> None:
    """The lines that return the object ``made``: through the reader's hook for ``tname`` if
    it has one (``r._after[tname](r, pos, obj)``), only when the table stores the hook's field
    if it names one."""
    if tname not in hooks:
        w(f"    return {made}")
        return
    field = hooks[tname]
    if field:
        slot = next((f.slot for f in fields if f.name == field), None)
        if slot is None:
            raise ArgumentError(f"a hook on table {tname} names no field of it: {field!r}")
        w(f"    if not sl[{slot}]:")
        w(f"        return {made}")
    w(f"    return r._after[{tname!r}](r, pos, {made})")


def _generate(
    plans: Mapping[str, tuple[list[_FieldPlan], Callable[..., Any] | None]],
    lazy: bool,
    after: frozenset[tuple[str, str]] = frozenset(),
    views: frozenset[str] = frozenset(),
) -> dict[str, Callable[[Any, int, int], Any]]:
    hooks = dict(after)
    ns: dict[str, Any] = {
        "NEW": object.__new__,
        "TableList": TableList,
        "frombuffer": np.frombuffer,
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
        "fail_align": _fail_align,
        "fail_misaligned": _fail_misaligned,
        "fail_required": _fail_required,
        "fail_union": _fail_union,
    }
    src: list[str] = []
    for tid, (tname, (fields, cls)) in enumerate(plans.items()):
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
        w("    if pos & 3 or pos + 4 > n:")
        w(f"        fail_table({tname!r}, pos)")
        w("    r._budget -= 4")
        w("    if r._budget < 0:")
        w("        r._charge(0, pos)")
        # A vtable checked once per reader and table: its slots and table size, kept.
        key = f"vt * {len(plans)} + {tid}"
        w("    vt = pos - I32(mv, pos)[0]")
        w(f"    seen = r._vtables.get({key})")
        w("    if seen is None:")
        w("        if vt < 0 or vt + 4 > n or vt & 1:")
        w(f"            fail_vtable({tname!r}, pos, vt, n, mv)")
        w("        vtsize, tsize = U16X2(mv, vt)")
        w("        if vtsize < 4 or vtsize & 1 or vt + vtsize > n or tsize < 4 or pos + tsize > n:")
        w(f"            fail_vtable({tname!r}, pos, vt, n, mv)")
        if k:
            w("        ns = (vtsize - 4) >> 1")
            w(f"        if ns >= {k}:")
            w(f"            sl = S_{tname}(mv, vt + 4)")
            w("        else:")
            w(f"            sl = SLOTS(ns)(mv, vt + 4) + Z_{tname}[{k} - ns]")
        else:
            w("        sl = ()")
        aligned = tuple((f.name, f.slot, f.align) for f in fields if f.align > 1)
        if aligned:  # once per vtable: a table is at a multiple of 4
            ns[f"A_{tname}"] = aligned
            test = " | ".join(f"sl[{slot}] & {min(a, 4) - 1}" for _, slot, a in aligned)
            w(f"        if {test}:")
            w(f"            fail_align({tname!r}, A_{tname}, sl, vt)")
        w(f"        r._vtables[{key}] = (sl, tsize)")
        w("    else:")
        w("        sl, tsize = seen")
        w("        if pos + tsize > n:")
        w(f"            fail_vtable({tname!r}, pos, vt, n, mv)")
        if tname in views and cls is not None:  # a view: the fields are decoded as read
            ns[f"V_{tname}"] = _view_class(cls, fields)
            w(f"    o = NEW(V_{tname})")
            w("    o._wp = (r, pos, depth, sl, tsize, vt)")
            w("    o._wd = 0")
            _return(w, tname, "o", hooks, fields)
            w("")
            _view_getters(w, ns, tname, fields, lazy)
        else:
            args = []
            for i, f in enumerate(fields):
                args.append(f"{f.name}=v{i}")
                _field_lines(w, ns, tname, i, f, lazy)
            if cls is not None and _positional(cls, [f.name for f in fields]):
                made = f"C_{tname}({', '.join(f'v{i}' for i in range(len(fields)))})"
            elif cls is not None:
                made = f"C_{tname}({', '.join(args)})"
            else:
                made = "{" + ", ".join(f"{f.name!r}: v{i}" for i, f in enumerate(fields)) + "}"
            _return(w, tname, made, hooks, fields)
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
        w("            if tp + 4 > n or tp == at:")
        w("                r._ref(at)")
        w(f"            out.append(t_{tname}(r, tp, depth))")
        w("        except DecodeError as exc:")
        w("            raise exc.under(f'[{i}]') from None")
        w("        at += 4")
        w("    return out")
        w("")
    code = compile("\n".join(src), "<wireplan.flatbuffers generated decoders>", "exec")
    exec(code, ns)
    for tname in views:
        cls = plans[tname][1]
        for i, f in enumerate(plans[tname][0] if cls is not None else ()):
            setattr(ns[f"V_{tname}"], f.name, property(ns[f"g_{tname}_{i}"], ns[f"p_{tname}_{i}"]))
    return {tname: ns[f"t_{tname}"] for tname in plans}


_DECODERS: dict[
    tuple[int, tuple[tuple[str, int], ...], bool, frozenset[tuple[str, str]], frozenset[str]],
    tuple[
        Schema,
        dict[str, tuple[list[_FieldPlan], Callable[..., Any] | None]],
        dict[str, Callable[[Any, int, int], Any]],
    ],
] = {}


# The answer for a mapping seen before, with its items then (compared by identity of values).
_Decoders = tuple[
    dict[str, tuple[list[_FieldPlan], Callable[..., Any] | None]],
    dict[str, Callable[[Any, int, int], Any]],
]
_LAST: dict[
    tuple[int, int, bool, frozenset[tuple[str, str]], frozenset[str]],
    tuple[Schema, tuple[tuple[str, Any], ...], _Decoders],
] = {}


def decoders(
    schema: Schema,
    classes: Mapping[str, Callable[..., Any]],
    lazy: bool = False,
    after: frozenset[tuple[str, str]] = frozenset(),
    views: frozenset[str] = frozenset(),
) -> tuple[
    dict[str, tuple[list[_FieldPlan], Callable[..., Any] | None]],
    dict[str, Callable[[Any, int, int], Any]],
]:
    """Per table: its field plans and class, and its generated decoding function.

    ``after`` pairs the tables whose functions hand the decoded object to the reader's
    hook (``r._after[name](r, pos, obj)``, see :class:`TableReader`) with the field the
    table must store for that (``""``: always); ``views``
    the tables (with a class, in a lazy read) decoded as views, field by field as read.
    """
    items = tuple(classes.items())
    last = _LAST.get((id(schema), id(classes), lazy, after, views))
    if last is not None and last[0] is schema and last[1] == items:  # the same mapping again
        return last[2]
    key = (id(schema), tuple(sorted((name, id(c)) for name, c in items)), lazy, after, views)
    hit = _DECODERS.get(key)
    if hit is not None and hit[0] is schema:
        if len(_LAST) < 64:
            _LAST[(id(schema), id(classes), lazy, after, views)] = (schema, items, (hit[1], hit[2]))
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
    fns = _generate(plans, lazy, after, views if lazy else frozenset())
    _DECODERS[key] = (schema, plans, fns)
    return plans, fns
