"""The generated class of one type: constructor, constants, ``serialize``, ``deserialize``."""

from __future__ import annotations

from .model import Array, Composite, DataType, Primitive
from .plan import TypePlan
from .py_deserialize import _Deserializer, _tag_read
from .py_forms import _Routines
from .py_module import ModuleContext, Unit, _is_large, attr


def kind_expr(context: ModuleContext, t: DataType) -> str:
    """The runtime's field kind of ``t`` (see :mod:`wireplan.dsdl.runtime`) as source."""
    if isinstance(t, Primitive) and t.text:
        return f"({t.text!r},)"
    if isinstance(t, Array):
        tag = "fa" if t.fixed else "va"
        return f"({tag!r}, {t.capacity}, {kind_expr(context, t.element)}, {_is_large(t)})"
    if isinstance(t, Composite):
        return f"('c', {context.ident(t)})"
    if t.kind == "b":
        return "('b',)"
    return f"({t.kind!r}, {t.bits}, {t.saturated})"


def _default_expr(t: DataType) -> str | None:
    """A literal default, or None when the default must be built per instance."""
    if not isinstance(t, Primitive):
        return None
    return {"b": "False", "f": "0.0"}.get(t.kind, "0")


def _fresh_default(context: ModuleContext, t: DataType) -> str:
    """An expression building the default of a field that needs one per instance: the
    nested type's constructor, an empty list, or the runtime's ``default_of``."""
    if isinstance(t, Composite):
        return f"{context.ident(t)}()"
    if isinstance(t, Array) and not t.fixed:
        return "[]"
    return f"_default({kind_expr(context, t)})"


def _constant_value(kind: str, value: object) -> str:
    if kind == "f":
        return repr(float(value))  # type: ignore[arg-type]
    return repr(value)


def _class_lines(
    context: ModuleContext, unit: Unit, plan: TypePlan, routines: _Routines | None
) -> list[str]:
    """The class of one type up to ``serialize`` (the metaclass with its constructor first)."""
    t, ident = unit.t, unit.ident
    fields = [f for f in t.fields if not f.padding]
    cls: list[str] = []
    # The keyword constructor is the __call__ of a metaclass of its own, not an
    # __init__: with no __init__, the decoders allocate through type.__call__
    # bound to the class (``_new_<ident>()``), about 60 ns less per object than
    # object.__new__(cls).  A type without fields needs no constructor.
    ctor: list[str] = []
    cls.append(f"class {ident}(metaclass=_T_{ident}):" if fields else f"class {ident}:")
    cls.append(f'    """DSDL type ``{t.full_name}``."""')
    cls.append("")
    if t.union:
        cls.append('    __slots__ = ("_tag", "_value")')
    else:
        cls.append(f"    __slots__ = ({''.join(repr(attr(f.name)) + ', ' for f in fields)})")
    cls.append(f"    _FULL_NAME_ = {t.full_name!r}")
    cls.append(f"    _EXTENT_BYTES_ = {t.extent // 8}")
    cls.append(f"    _MAX_BYTES_ = {(t.max_bits + 7) // 8}")
    cls.append(f"    _SEALED_ = {t.sealed}")
    cls.append(f"    _UNION_ = {t.union}")
    cls.append(f"    _STRATEGY_ = {plan.strategy!r}")
    if t.fixed_port_id is not None:
        cls.append(f"    _FIXED_PORT_ID_ = {t.fixed_port_id}")
    # pycyphal v1's protocol (the model is read lazily, see wireplan.dsdl._pycyphal)
    cls.append("    _MODEL_ = _rt.Model(__file__)")
    cls.append("    _serialize_ = _rt.serialize_into")
    cls.append("    _deserialize_ = classmethod(_rt.deserialize_from)")
    for c in t.constants:
        cls.append(f"    {attr(c.name)} = {_constant_value(c.kind, c.value)}")
    cls.append("")
    if t.union:
        union_params = ", ".join(f"{attr(f.name)}=None" for f in fields)
        ctor.append(f"    def __call__(cls, *, {union_params}):")  # keywords, as nunavut's
        ctor.append(f"        self = _new_{ident}() if cls is {ident} else _new(cls)")
        ctor.append("        self._tag = -1")
        for k, f in enumerate(fields):
            a = attr(f.name)
            ctor.append(f"        if {a} is not None:")
            ctor.append("            if self._tag >= 0:")
            ctor.append("                raise _EncodeError('a union takes exactly one field')")
            ctor.append(f"            self._tag = {k}")
            ctor.append(f"            self._value = {a}")
        f0 = fields[0]
        d0 = _default_expr(f0.type)
        ctor.append("        if self._tag < 0:")
        ctor.append("            self._tag = 0")
        ctor.append(
            f"            self._value = {d0 if d0 is not None else _fresh_default(context, f0.type)}"
        )
        ctor.append("        return self")
        for k, f in enumerate(fields):
            cls.append(
                f"    {attr(f.name)} = property(_rt.union_getter({k}), _rt.union_setter({k}))"
            )
        cls.append("")
    elif fields:
        params: list[str] = []
        body: list[str] = []
        for f in fields:
            a = attr(f.name)
            d = _default_expr(f.type)
            if d is not None:
                params.append(f"{a}={d}")
                body.append(f"        self.{a} = {a}")
            else:
                params.append(f"{a}=None")
                body.append(
                    f"        self.{a} = {_fresh_default(context, f.type)} if {a} is None else {a}"
                )
        # positional or keyword, in field order, as nunavut's classes take them
        ctor.append(f"    def __call__(cls, {', '.join(params)}):")
        ctor.append(f"        self = _new_{ident}() if cls is {ident} else _new(cls)")
        ctor.extend(body)
        ctor.append("        return self")
    if ctor:
        doc = f"The type of ``{t.full_name}``: its constructor."
        cls = [f"class _T_{ident}(type):", f'    """{doc}"""', "", *ctor, "", "", *cls]
    # serialize: the fast path; the errors it raises for values outside its domain
    # (out of range, wrong type) send the value through normalize, which brings it
    # into range or raises EncodeError with its path.  Nothing else is caught.
    cls.append("    def serialize(self):")
    cls.append('        """The serialized bytes (no delimiter header at the top level)."""')
    cls.append("        try:")
    if t.union:
        cls.append(f"            return _RV_{ident}[self._tag](self._value)")
    else:
        assert routines is not None
        cls.extend("        " + line for line in routines.returning_body())
    cls.append("        except _FAST_ERRORS:")
    cls.append(f"            return _serialize_slow({ident}, self)")
    cls.append("")
    return cls


def _skips_bodies(t: Composite) -> bool:
    """Whether ``t`` holds a delimited type (through fields and arrays, at any depth).

    A delimited body may be longer than the type's extent (a newer version,
    skipped), so the fields after it can lie beyond ``t.max_bits``.
    """
    seen: set[int] = set()
    todo: list[DataType] = [f.type for f in t.fields]
    while todo:
        d = todo.pop()
        if isinstance(d, Array):
            todo.append(d.element)
        elif isinstance(d, Composite) and id(d) not in seen:
            if not d.sealed:
                return True
            seen.add(id(d))
            todo += [f.type for f in d.fields]
    return False


def _pad_size(t: Composite, maxb: int, n: str) -> str:
    """How far the padded path zero-extends the data (``n``: the expression of its length).

    ``maxb`` covers every read of a type without delimited fields.  After a
    delimited field the offset is at most the data's length (its header is
    checked against it), and what follows needs at most ``maxb`` more bytes.
    """
    return f"{n} + {maxb}" if _skips_bodies(t) else str(maxb)


def _padded_after(ident: str, t: Composite, maxb: int, indent: str, n: str) -> list[str]:
    """What follows a ``try`` on the data as it is (``indent``): a ``DecodeError`` stands,
    a read past the end takes the padded path (``n``: the data's length)."""
    return [
        f"{indent}except _DecodeError:",
        f"{indent}    raise",
        f"{indent}except (_StructError, IndexError, ValueError):",
        f"{indent}    pass",
        f"        return _d_{ident}(_pad(data, {_pad_size(t, maxb, n)}), 0, {n})[0]",
    ]


def _deserialize_lines(
    context: ModuleContext,
    unit: Unit,
    plan: TypePlan,
    des: _Deserializer,
    des_r: str,
    top: tuple[_Deserializer, str] | None,
    tag_code: str,
    minb: int,
    maxb: int,
) -> list[str]:
    """``deserialize``: a staticmethod (nothing to bind per call; the class is known).

    ``top``: a structure's steps emitted from offset 0 (constant offsets up to the
    first variable length) and its result, used where the body runs on the data as it is.
    """
    t, ident = unit.t, unit.ident
    des_lines = des.lines
    cls = ["    @staticmethod", "    def deserialize(data):"]
    cls.append(
        '        """Decode ``data``; short input is zero-extended, extra bytes are ignored."""'
    )
    if minb != maxb and top is not None and plan.bounded_reads and not des.slices:
        # Every read raises past the end of the data (struct, indexing, frombuffer
        # with a count) and bytes it skips are padding: the body runs on the data
        # as it is, with no length checks, and short data takes the padded path.
        top_des, top_r = top
        cls.append("        b = data")
        cls.append("        try:")
        # the last offset update, when only the result's construction follows: unused
        unused = top_des.advance >= 0 and not top_des.read_after
        body = [line for i, line in enumerate(top_des.lines) if not unused or i != top_des.advance]
        cls.extend("        " + line for line in body)
        cls.append(f"            return {top_r}")
        cls += _padded_after(ident, t, maxb, "        ", "len(data)")
    elif minb != maxb and t.union:
        # the tag read fails on empty data; each variant checks its own end, or its
        # reads fail past the end (see _top_variants): no length here
        cls += ["        b = data", "        try:"]
        cls.extend(_tag_read(context, tag_code, len(t.fields), "b", "0", " " * 12))
        cls.append(f"            r = _TV_{ident}[t](b)")
        cls.append("            if r is not None:")
        cls.append("                return r")
        cls += _padded_after(ident, t, maxb, "        ", "len(data)")
    elif minb != maxb:
        cls += ["        n = len(data)", f"        if n >= {minb}:", "            b = data"]
        cls.append("            try:")
        assert top is not None
        top_des, top_r = top
        cls.extend("            " + line for line in top_des.lines)
        cls.append(f"                if {top_des.at(top_des.so)} <= n:")
        cls.append(f"                    return {top_r}")
        cls += _padded_after(ident, t, maxb, "            ", "n")
    elif not t.union:
        first = des.first_unpack
        if (
            maxb
            and plan.one_run
            and first is not None
            and first[0] == 0
            and des.unpacks == 1
            and not des.other_reads
        ):
            # one unpack reads everything: try it on the data as it is, pad
            # only when it is too short (no len() on the way)
            _, targets, name = first
            cls.append("        try:")
            cls.append(f"            {targets} = {name}(data, 0)")
            cls.append("        except _StructError:")
            cls.append(f"            {targets} = {name}(_pad(data, {maxb}), 0)")
            cls.extend("    " + line for line in des_lines[1:])
            cls.append(f"        return {des_r}")
        else:
            assert top is not None
            top_des, top_r = top
            if maxb:  # an empty type reads nothing: no length, no buffer
                cls.append("        n = len(data)")
                cls.append(f"        if n < {maxb}:")
                cls.append(f"            data = _pad(data, {maxb})")
                cls.append("        b = data")
            cls.extend("    " + line for line in top_des.lines)
            cls.append(f"        return {top_r}")
    else:
        cls.append("        n = len(data)")
        cls.append(f"        if n < {maxb}:")
        cls.append(f"            data = _pad(data, {maxb})")
        cls.extend(_tag_read(context, tag_code, len(t.fields), "data", "0", " " * 8))
        cls.append(f"        return _DV_{ident}[t](data, 0, n)[0]")
    return cls
