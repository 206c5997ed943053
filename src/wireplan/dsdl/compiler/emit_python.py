"""Rendering a plan as Python source (one type's routines and class): the Python backend's entry.

The emitter follows the plan (:mod:`.plan`): each step's strategy says
which code moves its bytes; the emitter only chooses the Python for it
(``struct`` codes, local names, bound methods, numpy for large arrays).
Serializer bodies are kept as statements (:class:`~.py_serialize._Statement`) that know what
they write, so the appending, returning and list-gathering forms of a
routine are rendered from the same statements, never by reading code back.

One concern per module: :mod:`.py_module` (what one implementation module
shares), :mod:`.py_serialize` and :mod:`.py_forms` (serializers),
:mod:`.py_deserialize` (deserializers), :mod:`.py_class` (the class);
this module puts one type's routines together.
"""

from __future__ import annotations

from .model import Array, Composite
from .plan import Step, TypePlan
from .py_class import _class_lines, _deserialize_lines, _pad_size, kind_expr
from .py_deserialize import _Deserializer, _tag_read
from .py_forms import _routine_pair, _Routines
from .py_module import _INT_CODE, ModuleContext, Unit, attr
from .py_serialize import _Serializer

__all__ = ["ModuleContext", "Unit", "attr", "emit_unit", "kind_expr"]


def _loops(step: Step) -> bool:
    """Whether a step repeats code per array element (an array of composites)."""
    return any(isinstance(s.type, Array) and isinstance(s.type.element, Composite)
               for s in step.walk())  # fmt: skip


def emit_unit(context: ModuleContext, unit: Unit, plan: TypePlan) -> list[str]:
    """The routines and the class of one type, rendered from its plan."""
    t = unit.t
    ident = unit.ident
    is_union = t.union
    sealed = t.sealed
    maxb = (t.max_bits + 7) // 8
    minb = (t.min_bits + 7) // 8
    lines: list[str] = []
    des = _Deserializer(context)
    des_r = ""
    tag_code = _INT_CODE[(t.tag_bits, False)] if is_union else "B"
    routines: _Routines | None = None

    # ---- serializer
    if is_union:
        variants: list[str] = []
        for k, (_tag, value) in enumerate(plan.variants):
            ser = _Serializer(context)
            ser.items.append((tag_code, str(k)))
            ser.value(value, "v")
            ser.align8()
            ser.flush()
            pair = _routine_pair(f"_sv{k}_{ident}", f"_rv{k}_{ident}", "v", ser, _loops(value))
            lines.extend(pair.lines)
            variants.append(f"_sv{k}_{ident}")
        lines.append(f"_SV_{ident} = ({', '.join(variants)},)")
        lines.append(
            f"_RV_{ident} = ({', '.join(f'_rv{k}_{ident}' for k in range(len(variants)))},)"
        )
        lines.append("")
        lines.append(f"def _s_{ident}(self, out):")
        lines.append(f"    _SV_{ident}[self._tag](self._value, out)")
        lines.append("")
        lines.append(f"def _r_{ident}(self):")
        lines.append(f"    return _RV_{ident}[self._tag](self._value)")
        lines.append("")
    else:
        ser = _Serializer(context)
        ser.structure(list(plan.steps), "self")
        ser.align8()
        ser.flush()
        routines = _routine_pair(f"_s_{ident}", f"_r_{ident}", "self", ser, plan.loops)
        lines.extend(routines.lines)

    # ---- deserializer
    if is_union:
        tb = t.tag_bits // 8
        variants = []
        for k, (_tag, value) in enumerate(plan.variants):
            dv, v = _variant(context, value, tb, None)
            lines.append(f"def _dv{k}_{ident}(b, o, n):")
            lines.extend(dv.lines)
            lines.append(f"    u = _new_{ident}()")
            lines.append(f"    u._tag = {k}")
            lines.append(f"    u._value = {v}")
            lines.append(f"    return u, o + {dv.so}" if dv.so else "    return u, o")
            lines.append("")
            variants.append(f"_dv{k}_{ident}")
        lines.append(f"_DV_{ident} = ({', '.join(variants)},)")
        lines.append("")
        lines.append(f"def _d_{ident}(b, o, n):")
        lines.extend(_tag_read(context, tag_code, len(t.fields), "b", "o", "    "))
        lines.append(f"    return _DV_{ident}[t](b, o, n)")
        lines.append("")
        if minb != maxb:
            lines += _top_variants(context, unit, plan)
    else:
        des_r = des.structure(t, list(plan.steps))
        des.flush()
        lines.append(f"def _d_{ident}(b, o, n):")
        lines.extend(des.lines)
        lines.append(f"    return {des_r}, o + {des.so}" if des.so else f"    return {des_r}, o")
        lines.append("")
    des_lines = des.lines
    des_end = f"o + {des.so}" if des.so else "o"

    # top-level decode (pads) and the delimited wrappers
    lines.append(f"def _D_{ident}(data):")
    lines.append("    n = len(data)")
    if minb == maxb:
        lines.append(f"    if n < {maxb}:")
        lines.append(f"        data = _pad(data, {maxb})")
        lines.append(f"    return _d_{ident}(data, 0, n)[0]")
    else:
        # Complete input is decoded in place (the body inlined); only input that
        # ends early is padded and decoded again.
        lines += [f"    if n >= {minb}:", "        b = data", "        try:"]
        if is_union:
            lines.extend(_tag_read(context, tag_code, len(t.fields), "b", "0", " " * 12))
            lines.append(f"            r = _TV_{ident}[t](b)")
            lines.append("            if r is not None:")
            lines.append("                return r")
        else:
            lines.append("            o = 0")
            lines.extend("        " + line for line in des_lines)
            lines.append(f"            if {des_end} <= n:")
            lines.append(f"                return {des_r}")
        lines += [
            "        except _DecodeError:",
            "            raise",
            "        except (_StructError, IndexError, ValueError):",
            "            pass",
            f"    return _d_{ident}(_pad(data, {_pad_size(t, maxb, 'n')}), 0, n)[0]",
        ]
    lines.append("")
    if not sealed:
        lines += _delimited(context, unit, routines, des, des_r, tag_code, minb, maxb)

    cls = _class_lines(context, unit, plan, routines)
    top: tuple[_Deserializer, str] | None = None
    if not is_union:
        # the same steps again from a known start (offset 0): the class's decoder
        top_des = _Deserializer(context, base=0)
        top = (top_des, top_des.structure(t, list(plan.steps)))
        top_des.flush()
    cls += _deserialize_lines(context, unit, plan, des, des_r, top, tag_code, minb, maxb)
    cls.append("")
    cls.append("    to_builtin = _rt.to_builtin")
    cls.append("    from_builtin = classmethod(_rt.from_builtin)")
    cls.append("    __eq__ = _rt.eq")
    cls.append("    __repr__ = _rt.repr_of")
    cls.append("    __hash__ = None")
    cls.append("")
    cls.append("")
    return cls + lines


def _variant(
    context: ModuleContext, value: Step, tag_bytes: int, base: int | None
) -> tuple[_Deserializer, str]:
    """A union variant's decoding steps after its tag (``base``: where the data starts,
    when known) and the local that holds its value."""
    des = _Deserializer(context, base=base)
    des.so = tag_bytes
    des.run_start = tag_bytes
    v = des.value(value)
    des.align8()
    des.flush()
    return des, v


def _top_variants(context: ModuleContext, unit: Unit, plan: TypePlan) -> list[str]:
    """A union's variants decoded from offset 0 (the top level): constant offsets up to
    the first variable length, and no ``(value, offset)`` pair to build and unpack.

    Each ``_tv{k}(b)`` returns the union, or ``None`` when the data ended before the
    variant did (the caller then pads).  A variant whose every read fails past the end
    of the data (``plan.variant_bounded``) needs no length: short data raises instead,
    and the caller pads on that."""
    ident = unit.ident
    tb = unit.t.tag_bits // 8
    lines: list[str] = []
    for k, (_tag, value) in enumerate(plan.variants):
        tv, v = _variant(context, value, tb, 0)
        bounded = plan.variant_bounded[k] and not tv.slices
        lines.append(f"def _tv{k}_{ident}(b):")
        if not bounded:
            lines.append("    n = len(b)")
        # with no end to check, the last offset update may have no use left
        unused = bounded and tv.advance >= 0 and not tv.read_after
        lines.extend(line for i, line in enumerate(tv.lines) if not unused or i != tv.advance)
        lines += [f"    u = _new_{ident}()", f"    u._tag = {k}", f"    u._value = {v}"]
        if bounded:
            lines += ["    return u", ""]
        else:
            lines += [f"    if {tv.at(tv.so)} <= n:", "        return u", ""]
    names = ", ".join(f"_tv{k}_{ident}" for k in range(len(plan.variants)))
    return [*lines, f"_TV_{ident} = ({names},)", ""]


def _delimited(
    context: ModuleContext,
    unit: Unit,
    routines: _Routines | None,
    des: _Deserializer,
    des_r: str,
    tag_code: str,
    minb: int,
    maxb: int,
) -> list[str]:
    """The routines of a delimited type nested in another: behind a length header."""
    t, ident = unit.t, unit.ident
    lines: list[str] = []
    # the body's bytes as one expression (after its binding lines), with no
    # call in between where the returning form or the union dispatch allows
    body_pre: list[str] = []
    if t.union:
        body_expr = f"_RV_{ident}[self._tag](self._value)"
    elif routines is not None:
        body_pre, body_expr = routines.pre, routines.expr
    else:
        body_expr = f"_r_{ident}(self)"
    lines.append(f"def _sd_{ident}(v, out):")
    if minb == maxb:
        header = repr(maxb.to_bytes(4, "little"))  # a fixed size: a constant header
        lines.append(f"    out += {header}")
        lines.append(f"    _s_{ident}(v, out)")
        lines.append("")
        lines += [f"def _rd_{ident}(self):", *body_pre, f"    return {header} + {body_expr}", ""]
    else:
        lines.append("    p = len(out)")
        lines.append("    out += b'\\x00\\x00\\x00\\x00'")
        lines.append(f"    _s_{ident}(v, out)")
        lines.append("    _U32.pack_into(out, p, len(out) - p - 4)")
        lines.append("")
        lines += [f"def _rd_{ident}(self):", *body_pre, f"    r = {body_expr}"]
        lines += ["    return _U32_p(len(r)) + r", ""]
    lines.append(f"def _dd_{ident}(b, o, n):")
    lines.append("    size, = _U32_u(b, o)")
    lines.append("    o += 4")
    lines.append("    if size and size > n - o:")
    lines.append(
        "        raise _DecodeError(f'delimiter header says {size} bytes but only "
        "{max(0, n - o)} remain', o - 4)"
    )
    # In place first: decoded within the parent's buffer and accepted when
    # it ended inside the body.  A body that ends early (to be zero-extended)
    # or any error takes the copy, which pads and reports exactly.
    lines.append("    e = o + size")
    lines.append("    start = o")
    lines.append("    try:")
    if t.union:
        lines.extend(_tag_read(context, tag_code, len(t.fields), "b", "o", " " * 8))
        lines.append(f"        v, p = _DV_{ident}[t](b, o, e)")
        lines.append("        if p <= e:")
        lines.append("            return v, e")
    else:
        # the body inlined, bounded by the header (n is the end for nested headers)
        lines.append("        n = e")
        lines.extend("    " + line for line in des.lines)
        lines.append(f"        if o + {des.so} <= e:" if des.so else "        if o <= e:")
        lines.append(f"            return {des_r}, e")
    lines.append("    except (_DecodeError, _StructError, IndexError, ValueError):")
    lines.append("        pass")
    lines.append("    try:")
    lines.append(f"        v = _D_{ident}(b[start:e])")
    lines.append("    except _DecodeError as exc:")
    lines.append("        exc.offset += start")
    lines.append("        raise exc.under('') from None")
    lines.append("    return v, e")
    lines.append("")
    return lines
