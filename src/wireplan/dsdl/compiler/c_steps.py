"""The C and C++ code of each strategy step, written once for both directions (one concern).

:class:`_Steps` walks a body of :mod:`.plan_c` (runs, dynamic steps,
loops, the function around them) and renders every strategy once; where
the two directions differ only in which way the bytes go, it asks its
direction for the copy call: :class:`Serializer` stores into the buffer,
:class:`Deserializer` loads from it.  What the directions do differently
beyond that (a reader checks every read against the buffer's end and a
nested delimiter header before it trusts it; a writer checks the buffer's
size once, up front) is in their own methods, each named for the one act.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from .c_code import (
    Function,
    copy_call,
    from_wire,
    is_memcpy_number,
    load,
    read_static,
    store,
    to_wire,
    write_static,
)
from .c_dialects import Dialect
from .c_names import ctype
from .model import Array, Composite, DataType, Primitive
from .plan_c import CBody, CMoves, CRun, CStep, memcpy_layout

__all__ = ["Deserializer", "Serializer"]

_BAD_LENGTH = "    return -NUNAVUT_ERROR_REPRESENTATION_BAD_ARRAY_LENGTH;"


# -- the steps, once ------------------------------------------------------------------------------


class _Steps(ABC):
    """The code of a body's steps in one direction (the subclass); ``obj``: the object's
    parameter, ``skipped``: the strategies with no code inside a run."""

    obj = ""
    direction = ""  # "serialize" or "deserialize"
    reading = False
    skipped: tuple[str, ...] = ()

    def __init__(self, dialect: Dialect | None = None) -> None:
        self.fn = Function()
        self.d = dialect or Dialect()
        # a union's variant in C++: its value is a local (name, expression) at the top level
        self.root: tuple[str, str] | None = None
        self.top = ""

    def expr(self, base: str, path: tuple[str, ...], t: DataType, array: bool = False) -> str:
        """The expression of the member at ``path`` from ``base`` (empty: padding)."""
        if not path or not path[-1]:
            return ""
        name = self.d.array if array else (lambda q: self.d.member(q, t))
        if self.root is not None and base == self.top and path[0] == self.root[0]:
            rest = path[1:]
            return self.root[1] + ("." + name(rest) if rest else "")
        return base + name(path)

    # the function: its checks, the whole-object copy, the body or the union's variants
    def routine(self, t: Composite, moves: CMoves, ref: str) -> list[str]:
        """The whole serialize / deserialize function of ``t`` (``ref``: its C name)."""
        fn = self.fn
        self.prologue(t)
        base = self.d.base(self.obj)
        if moves.memcpy_bytes is not None:
            fn("#if WIREPLAN_DSDL_LE")
            self.whole_object(moves.memcpy_bytes)
            fn(f"off = {moves.memcpy_bytes * 8}U;")
            fn("#else")
        if moves.body is not None:
            self.body(moves.body, base)
        else:
            self.tag(t)
            fn(f"off = {t.tag_bits}U;")
            tag = self.d.tag(self.obj, self.reading)
            for k, variant in enumerate(moves.variants):
                name = t.fields[k].name
                fn(f"{'if' if k == 0 else 'else if'} ({k}U == {tag})  // {name}")
                fn.open()
                lines, value = self.d.variant(self.obj, k, name, self.reading)
                fn(*lines)
                self.root, self.top = (name, value) if value else None, base
                self.body(variant, base)
                self.root = None
                fn.close()
            self.after_variants()
        if moves.memcpy_bytes is not None:
            fn("#endif")
        self.epilogue()
        return [self.d.signature(self.direction, ref, self.obj), "{", *fn.lines, "}"]

    def body(self, body: CBody, base: str) -> None:
        for block in body.blocks:
            if isinstance(block, CRun):
                self.run(block, base)
            else:
                self.dynamic(block, base)

    def run(self, run: CRun, base: str) -> None:
        steps = [s for s in run.steps if s.strategy not in self.skipped]
        if steps:
            size = (run.bits + 7) // 8
            p = self.open_run(size)
            for s in steps:
                self.static(s, base, p, size)
            self.fn.close()
        if run.bits:
            self.fn(f"off += {run.bits}U;")

    def check_length(self, arr: str, capacity: int) -> None:
        self.fn(f"if ({self.d.count(arr)} > {capacity}U)", "{", _BAD_LENGTH, "}")

    def static(self, s: CStep, base: str, p: str, size: int) -> None:
        """A step at static bit ``s.at`` of the run at ``p`` (``size`` bytes)."""
        fn = self.fn
        assert s.at is not None
        t = s.type
        if s.role == "length":
            assert isinstance(t, Primitive)
            self.length(s, self.expr(base, s.path, t, array=True), p)
            return
        x = self.expr(base, s.path, t)
        if isinstance(t, Primitive):
            if s.strategy == "load":
                self.number(f"&{p}[{s.at // 8}U]", t, x)
            else:
                self.bits_static(p, s.at, t, None if s.strategy == "padding" else x)
            return
        assert isinstance(t, Array) and isinstance(t.element, Primitive)
        el, n, k = t.element, t.capacity, s.at // 8
        if el.kind == "b" and not self.d.packed_bools:
            self.bit_array(p, f"{size}U", f"{s.at}U", self.d.bools(x, t), f"{n}U")
            return
        if s.strategy == "copy":
            if el.kind == "b":
                if n // 8:
                    dst, src = self.pair(f"&{p}[{k}U]", f"&{x}[0]")
                    fn(f"{copy_call(n // 8)}({dst}, {src}, {n // 8}U);")
                if n % 8:
                    dst, src = self.pair(f"{p}[{k + n // 8}U]", f"{x}[{n // 8}U]")
                    fn(f"{dst} = (uint8_t) ({src} & {(1 << n % 8) - 1}U);")
                return
            width = el.bits // 8
            memcpy = is_memcpy_number(el)
            if memcpy:
                fn("#if WIREPLAN_DSDL_LE")
                dst, src = self.pair(f"&{p}[{k}U]", self.d.first(x))
                fn(f"{copy_call(n * width)}({dst}, {src}, {n * width}U);")
                fn("#else")
            i = fn.fresh("i")
            fn(f"for (size_t {i} = 0U; {i} < {n}U; ++{i})")
            fn.open()
            self.number(f"&{p}[{k}U + ({i} * {width}U)]", el, f"{x}[{i}]")
            fn.close()
            if memcpy:
                fn("#endif")
            return
        if el.kind == "b":
            self.bit_array(p, f"{size}U", f"{s.at}U", self.d.bools(x, t), f"{n}U")
            return
        i = fn.fresh("i")
        fn(f"for (size_t {i} = 0U; {i} < {n}U; ++{i})")
        fn.open()
        self.bits(p, f"{size}U", f"{s.at}U + ({i} * {el.bits}U)", el, f"{x}[{i}]")
        fn.close()

    def dynamic(self, s: CStep, base: str) -> None:
        """A step at a run-time position ``off`` (in bits) of ``buffer``."""
        fn = self.fn
        t = s.type
        if s.strategy == "align":
            fn("off = (off + 7U) & ~(size_t) 7U;")
            return
        x = self.expr(base, s.path, t)
        if isinstance(t, Primitive):  # stream scalar, padding or length prefix
            if s.role == "length":
                self.length_stream(s, self.expr(base, s.path, t, array=True))
            else:
                padding = s.strategy == "padding"
                self.bits("buffer", "capacity_bytes", "off", t, None if padding else x)
            fn(f"off += {t.bits}U;")
            return
        if isinstance(t, Composite):
            self.call(t, x)
            return
        count = self.d.count(x) if not t.fixed else f"{t.capacity}U"
        el = t.element
        elems = self.d.elements(x, t)
        if isinstance(el, Composite):
            i = fn.fresh("i")
            if s.strategy == "loop":
                assert s.body is not None
                lay = memcpy_layout(el)
                if lay is not None:
                    fn("#if WIREPLAN_DSDL_LE")
                    self.bulk("&buffer[off / 8U]", self.d.first(elems), f"{count} * {lay[0]}U")
                    fn(f"off += {count} * {lay[0] * 8}U;")
                    fn("#else")
                fn(f"for (size_t {i} = 0U; {i} < {count}; ++{i})")
                fn.open()
                self.body(s.body, f"{elems}[{i}].")
                fn.close()
                if lay is not None:
                    fn("#endif")
            else:
                fn(f"for (size_t {i} = 0U; {i} < {count}; ++{i})")
                fn.open()
                self.call(el, f"{elems}[{i}]")
                fn.close()
            return
        assert isinstance(el, Primitive)
        packed = f"{x}.bitpacked" if not t.fixed else x
        if el.kind == "b" and not self.d.packed_bools:  # a container of bools: bit by bit
            self.bit_array("buffer", "capacity_bytes", "off", self.d.bools(x, t), count)
            fn(f"off += {count};")
            return
        if s.strategy == "copy":
            n = fn.fresh("n")
            q = self.open_copy(n, count)
            if el.kind == "b":
                self.bool_bytes(q, packed, n)
                fn(f"off += {n};")
            else:
                width = el.bits // 8
                memcpy = is_memcpy_number(el)
                if memcpy:
                    fn("#if WIREPLAN_DSDL_LE")
                    self.bulk(q, self.d.first(elems), f"{n} * {width}U")
                    fn("#else")
                self.number_loop(q, el, elems, n, width)
                if memcpy:
                    fn("#endif")
                fn(f"off += {n} * {el.bits}U;")
            fn.close()
            return
        # stream: elements at a run-time bit position
        if el.kind == "b":
            self.bit_array("buffer", "capacity_bytes", "off", self.d.bools(x, t), count)
            fn(f"off += {count};")
            return
        i = fn.fresh("i")
        fn(f"for (size_t {i} = 0U; {i} < {count}; ++{i})")
        fn.open()
        self.bits("buffer", "capacity_bytes", "off", el, f"{elems}[{i}]")
        fn(f"off += {el.bits}U;")
        fn.close()

    # -- what each direction says for itself (the copy calls and the checks)
    @abstractmethod
    def prologue(self, t: Composite) -> None:
        """The argument checks, ``capacity_bytes`` and ``off``."""

    @abstractmethod
    def whole_object(self, size: int) -> None:
        """The object's ``size`` bytes in one copy (its wire layout is its C layout)."""

    @abstractmethod
    def tag(self, t: Composite) -> None:
        """A union's tag at byte 0."""

    @abstractmethod
    def after_variants(self) -> None:
        """After the last variant's branch (a reader rejects an unknown tag there)."""

    @abstractmethod
    def epilogue(self) -> None:
        """The size used and success."""

    @abstractmethod
    def open_run(self, size: int) -> str:
        """Open a run's block; the name of the pointer to its ``size`` bytes."""

    @abstractmethod
    def pair(self, wire: str, memory: str) -> tuple[str, str]:
        """(destination, source) of a copy between the buffer and the object."""

    @abstractmethod
    def number(self, addr: str, p: Primitive, x: str) -> None:
        """A byte-aligned standard-width number ``x`` at buffer address ``addr``."""

    @abstractmethod
    def bits_static(self, p: str, at: int, t: Primitive, x: str | None) -> None:
        """``x`` at static bit ``at`` of the run at ``p`` (constant shifts); None: padding."""

    @abstractmethod
    def bits(self, buf: str, size: str, pos: str, t: Primitive, x: str | None) -> None:
        """``x`` at bit ``pos`` of ``buf`` (``size`` bytes), by the support routines;
        None: padding (zeros written, nothing read)."""

    @abstractmethod
    def bit_array(self, buf: str, size: str, pos: str, memory: str, count: str) -> None:
        """``count`` packed bools at ``memory`` <-> bit ``pos`` of ``buf``."""

    @abstractmethod
    def bulk(self, wire: str, memory: str, size: str) -> None:
        """``size`` bytes between the buffer at the byte ``off / 8U`` (``wire``) and ``memory``."""

    @abstractmethod
    def length(self, s: CStep, arr: str, p: str) -> None:
        """The length prefix of array ``arr`` at a static offset (checked against the capacity)."""

    @abstractmethod
    def length_stream(self, s: CStep, arr: str) -> None:
        """The length prefix of ``arr`` at a run-time position."""

    @abstractmethod
    def open_copy(self, n: str, count: str) -> str:
        """Open the block of a variable-length array copy of ``count`` (``n``) elements; the
        buffer address of the elements."""

    @abstractmethod
    def bool_bytes(self, q: str, packed: str, n: str) -> None:
        """The ``n`` packed bools ``packed`` as whole bytes at ``q``."""

    @abstractmethod
    def number_loop(self, q: str, el: Primitive, elems: str, n: str, width: int) -> None:
        """``n`` numbers ``elems`` one by one (a big-endian target)."""

    @abstractmethod
    def call(self, t: Composite, x: str) -> None:
        """The nested type's own function on member ``x``."""


class Serializer(_Steps):
    """``<type>_serialize_``: the object's fields stored into ``buffer``."""

    obj = "obj"
    direction = "serialize"
    reading = False
    skipped = ("inline",)

    def prologue(self, t: Composite) -> None:
        fn = self.fn
        fn(*self.d.unused(self.obj))
        fn(
            f"if ({self.d.null_check(self.obj)}(buffer == NULL) || (inout_buffer_size_bytes == NULL))"
        )
        fn("{", "    return -NUNAVUT_ERROR_INVALID_ARGUMENT;", "}")
        fn("const size_t capacity_bytes = *inout_buffer_size_bytes;")
        if t.max_bits:
            fn(f"if ((8U * capacity_bytes) < {t.max_bits}UL)")
            fn("{", "    return -NUNAVUT_ERROR_SERIALIZATION_BUFFER_TOO_SMALL;", "}")
        fn("size_t off = 0U;")

    def whole_object(self, size: int) -> None:
        self.fn(f"{copy_call(size)}(buffer, {self.d.address(self.obj)}, {size}U);")

    def tag(self, t: Composite) -> None:
        fn = self.fn
        tag = self.d.tag(self.obj, False)
        fn(f"if ({tag} >= {len(t.fields)}U)")
        fn("{", "    return -NUNAVUT_ERROR_REPRESENTATION_BAD_UNION_TAG;", "}")
        store(fn, "&buffer[0]", Primitive("u", t.tag_bits, False, ""), tag)

    def after_variants(self) -> None:
        pass  # the tag was checked before the branches

    def epilogue(self) -> None:
        self.fn("(void) capacity_bytes;")
        self.fn("*inout_buffer_size_bytes = off / 8U;")
        self.fn("return NUNAVUT_SUCCESS;")

    def open_run(self, size: int) -> str:
        p = self.fn.fresh("p")
        self.fn.open()
        self.fn(f"uint8_t* const {p} = &buffer[off / 8U];")
        return p

    def pair(self, wire: str, memory: str) -> tuple[str, str]:
        return wire, memory

    def number(self, addr: str, p: Primitive, x: str) -> None:
        store(self.fn, addr, p, x)

    def bits_static(self, p: str, at: int, t: Primitive, x: str | None) -> None:
        write_static(self.fn, p, at, t.bits, "0U" if x is None else to_wire(t, x))

    def bits(self, buf: str, size: str, pos: str, t: Primitive, x: str | None) -> None:
        v = "0U" if x is None else to_wire(t, x)
        self.fn(f"wireplanSetBits({buf}, {pos}, {v}, {t.bits}U);")

    def bit_array(self, buf: str, size: str, pos: str, memory: str, count: str) -> None:
        self.fn(f"{self.d.set_bools()}({buf}, {pos}, {memory}, {count});")

    def bulk(self, wire: str, memory: str, size: str) -> None:
        self.fn(f"wireplanCopy({wire}, {memory}, {size});")

    def length(self, s: CStep, arr: str, p: str) -> None:
        self.check_length(arr, s.capacity)
        assert isinstance(s.type, Primitive) and s.at is not None
        if s.strategy == "load":
            self.number(f"&{p}[{s.at // 8}U]", s.type, self.d.count(arr))
        else:
            self.bits_static(p, s.at, s.type, self.d.count(arr))

    def length_stream(self, s: CStep, arr: str) -> None:
        self.check_length(arr, s.capacity)
        self.fn(
            f"wireplanSetBits(buffer, off, (uint64_t) {self.d.count(arr)}, {s.type.max_bits}U);"
        )

    def open_copy(self, n: str, count: str) -> str:
        q = self.fn.fresh("q")
        self.fn.open()
        self.fn(f"const size_t {n} = {count};")
        self.fn(f"uint8_t* const {q} = &buffer[off / 8U];")
        return q

    def bool_bytes(self, q: str, packed: str, n: str) -> None:
        fn = self.fn
        fn(f"wireplanCopy({q}, &{packed}[0], {n} / 8U);")
        fn(f"if (({n} % 8U) != 0U)")
        fn.open()
        fn(f"{q}[{n} / 8U] = (uint8_t) ({packed}[{n} / 8U] & ((1U << ({n} % 8U)) - 1U));")
        fn.close()

    def number_loop(self, q: str, el: Primitive, elems: str, n: str, width: int) -> None:
        fn = self.fn
        i = fn.fresh("i")
        fn(f"for (size_t {i} = 0U; {i} < {n}; ++{i})")
        fn.open()
        store(fn, f"&{q}[{i} * {width}U]", el, f"{elems}[{i}]")
        fn.close()

    def call(self, t: Composite, x: str) -> None:
        fn = self.fn
        name, arg = self.d.callee(t, self.direction, x)
        sz, err = fn.fresh("size"), fn.fresh("err")
        fn.open()
        if t.sealed:
            fn(f"size_t {sz} = capacity_bytes - (off / 8U);")
            fn(f"const int8_t {err} = {name}({arg}, &buffer[off / 8U], &{sz});")
            fn(f"if ({err} < 0)", "{", f"    return {err};", "}")
            fn(f"off += {sz} * 8U;")
        else:
            fn(f"size_t {sz} = capacity_bytes - (off / 8U) - 4U;")
            fn(f"const int8_t {err} = {name}({arg}, &buffer[(off / 8U) + 4U], &{sz});")
            fn(f"if ({err} < 0)", "{", f"    return {err};", "}")
            fn(f"wireplanSt32(&buffer[off / 8U], (uint32_t) {sz});")
            fn(f"off += ({sz} + 4U) * 8U;")
        fn.close()


class Deserializer(_Steps):
    """``<type>_deserialize_``: the object's fields loaded from ``buffer``, every read bounded
    by its size (bytes past the end read as zeros, the implicit zero extension)."""

    obj = "out_obj"
    direction = "deserialize"
    reading = True
    skipped = ("inline", "padding")

    def prologue(self, t: Composite) -> None:
        fn = self.fn
        fn(*self.d.unused(self.obj))
        fn(f"if ({self.d.null_check(self.obj)}(inout_buffer_size_bytes == NULL) ||")
        fn("    ((buffer == NULL) && (0U != *inout_buffer_size_bytes)))")
        fn("{", "    return -NUNAVUT_ERROR_INVALID_ARGUMENT;", "}")
        fn("if (buffer == NULL)", "{", '    buffer = (const uint8_t*) "";', "}")
        fn("const size_t capacity_bytes = *inout_buffer_size_bytes;")
        fn("size_t off = 0U;")

    def whole_object(self, size: int) -> None:
        fn = self.fn
        fn(f"if (capacity_bytes >= {size}U)")
        obj = self.d.address(self.obj)
        fn("{", f"    {copy_call(size)}({obj}, buffer, {size}U);", "}")
        fn("else")
        fn(
            "{",
            f"    wireplanGetBytes((uint8_t*) {obj}, buffer, capacity_bytes, 0U, {size}U);",
            "}",
        )

    def tag(self, t: Composite) -> None:
        fn = self.fn
        tag = Primitive("u", t.tag_bits, False, "")
        declaration = self.d.tag_declaration()
        if declaration:
            fn(declaration)
        lv = self.d.tag(self.obj, True)
        fn(f"if (capacity_bytes >= {t.tag_bits // 8}U)")
        fn("{", f"    {lv} = {load(tag, '&buffer[0]')};", "}")
        fn("else")
        fn("{", f"    {lv} = ({ctype(tag)}) wireplanGetBits(buffer, capacity_bytes, 0U, "
           f"{t.tag_bits}U);", "}")  # fmt: skip

    def after_variants(self) -> None:
        self.fn("else")
        self.fn("{", "    return -NUNAVUT_ERROR_REPRESENTATION_BAD_UNION_TAG;", "}")

    def epilogue(self) -> None:
        self.fn("*inout_buffer_size_bytes = wireplanMin(off / 8U, capacity_bytes);")
        self.fn("return NUNAVUT_SUCCESS;")

    def open_run(self, size: int) -> str:
        fn = self.fn
        p, tmp = fn.fresh("p"), fn.fresh("t")
        fn.open()
        fn(f"const uint8_t* {p};")
        fn(f"uint8_t {tmp}[{size}];")
        fn(f"if (((off / 8U) + {size}U) <= capacity_bytes)")
        fn("{", f"    {p} = &buffer[off / 8U];", "}")
        fn("else")
        fn("{", f"    wireplanGetBytes({tmp}, buffer, capacity_bytes, off / 8U, {size}U);",
           f"    {p} = {tmp};", "}")  # fmt: skip
        return p

    def pair(self, wire: str, memory: str) -> tuple[str, str]:
        return memory, wire

    def number(self, addr: str, p: Primitive, x: str) -> None:
        self.fn(f"{x} = {load(p, addr)};")

    def bits_static(self, p: str, at: int, t: Primitive, x: str | None) -> None:
        assert x is not None  # a reader skips padding
        self.fn(f"{x} = {from_wire(t, read_static(p, at, t.bits))};")

    def bits(self, buf: str, size: str, pos: str, t: Primitive, x: str | None) -> None:
        if x is not None:
            v = f"wireplanGetBits({buf}, {size}, {pos}, {t.bits}U)"
            self.fn(f"{x} = {from_wire(t, v)};")

    def bit_array(self, buf: str, size: str, pos: str, memory: str, count: str) -> None:
        self.fn(f"{self.d.get_bools()}({memory}, {buf}, {size}, {pos}, {count});")

    def bulk(self, wire: str, memory: str, size: str) -> None:
        self.fn(f"wireplanGetBytes((uint8_t*) {memory}, buffer, capacity_bytes, off / 8U, {size});")

    def length(self, s: CStep, arr: str, p: str) -> None:
        assert isinstance(s.type, Primitive) and s.at is not None
        if s.strategy == "load":
            v = load(s.type, f"&{p}[{s.at // 8}U]")
        else:
            v = read_static(p, s.at, s.type.bits)
        self.count(arr, v, s.capacity)

    def length_stream(self, s: CStep, arr: str) -> None:
        bits = s.type.max_bits
        self.count(arr, f"wireplanGetBits(buffer, capacity_bytes, off, {bits}U)", s.capacity)

    def count(self, arr: str, v: str, capacity: int) -> None:
        """The length ``v`` of ``arr`` checked against its capacity, then set."""
        fn = self.fn
        n = fn.fresh("count")
        fn(f"const size_t {n} = (size_t) ({v});")
        fn(f"if ({n} > {capacity}U)", "{", _BAD_LENGTH, "}")
        fn(self.d.set_count(arr, n))

    def open_copy(self, n: str, count: str) -> str:
        self.fn.open()
        self.fn(f"const size_t {n} = {count};")
        return "&buffer[off / 8U]"

    def bool_bytes(self, q: str, packed: str, n: str) -> None:
        fn = self.fn
        fn(f"wireplanGetBytes(&{packed}[0], buffer, capacity_bytes, off / 8U, ({n} + 7U) / 8U);")
        fn(f"if (({n} % 8U) != 0U)")
        fn.open()
        fn(f"{packed}[{n} / 8U] = (uint8_t) ({packed}[{n} / 8U] & ((1U << ({n} % 8U)) - 1U));")
        fn.close()

    def number_loop(self, q: str, el: Primitive, elems: str, n: str, width: int) -> None:
        # in place where the whole array is in the buffer, else each element through a copy
        fn = self.fn
        pos, i = fn.fresh("pos"), fn.fresh("i")
        fn(f"const size_t {pos} = off / 8U;")
        fn(f"if (({pos} + ({n} * {width}U)) <= capacity_bytes)")
        fn.open()
        fn(f"for (size_t {i} = 0U; {i} < {n}; ++{i})")
        fn.open()
        fn(f"{elems}[{i}] = {load(el, f'&buffer[{pos} + ({i} * {width}U)]')};")
        fn.close()
        fn.close()
        fn("else")
        fn.open()
        fn(f"for (size_t {i} = 0U; {i} < {n}; ++{i})")
        fn.open()
        fn(f"uint8_t _b[{width}];")
        fn(f"wireplanGetBytes(_b, buffer, capacity_bytes, {pos} + ({i} * {width}U), {width}U);")
        fn(f"{elems}[{i}] = {load(el, '&_b[0]')};")
        fn.close()
        fn.close()

    def call(self, t: Composite, x: str) -> None:
        fn = self.fn
        name, arg = self.d.callee(t, self.direction, x)
        sz, err, pos = fn.fresh("size"), fn.fresh("err"), fn.fresh("pos")
        fn.open()
        if t.sealed:
            fn(f"const size_t {pos} = wireplanMin(off / 8U, capacity_bytes);")
            fn(f"size_t {sz} = capacity_bytes - {pos};")
            fn(f"const int8_t {err} = {name}({arg}, &buffer[{pos}], &{sz});")
            fn(f"if ({err} < 0)", "{", f"    return {err};", "}")
            fn(f"off += {sz} * 8U;")
        else:
            h = fn.fresh("header")
            fn(f"const size_t {h} = (((off / 8U) + 4U) <= capacity_bytes)")
            fn("    ? (size_t) wireplanLd32(&buffer[off / 8U])")
            fn("    : (size_t) wireplanGetBits(buffer, capacity_bytes, off, 32U);")
            fn("off += 32U;")
            fn(f"const size_t {pos} = wireplanMin(off / 8U, capacity_bytes);")
            fn(f"if ({h} > (capacity_bytes - {pos}))")
            fn("{", "    return -NUNAVUT_ERROR_REPRESENTATION_BAD_DELIMITER_HEADER;", "}")
            fn(f"size_t {sz} = {h};")
            fn(f"const int8_t {err} = {name}({arg}, &buffer[{pos}], &{sz});")
            fn(f"if ({err} < 0)", "{", f"    return {err};", "}")
            fn(f"off += {h} * 8U;")
        fn.close()
