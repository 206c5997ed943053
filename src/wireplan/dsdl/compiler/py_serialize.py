"""The serializer emitter: a plan's steps as the statements of a serializer body.

Serializer bodies are kept as statements (:class:`_Statement`) that know what
they write, so the appending, returning and list-gathering forms of a
routine (:mod:`.py_forms`) are rendered from the same statements.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from .model import Array, Composite, Primitive
from .plan import Step
from .py_module import (
    _GROUP_CODE,
    _INT_CODE,
    SMALL_BOOLS,
    TABLE_CAP,
    ModuleContext,
    _byte_code,
    _Function,
    _is_large,
    attr,
    to_wire,
)


@dataclass
class _Statement:
    """One statement of a serializer body.

    ``kind``: ``line`` (code that writes nothing), ``write`` (appends the
    bytes expression ``text``), ``byte`` (appends the one byte ``text``,
    range-checked), ``call`` (the routine of the nested type ``ident`` on
    ``text``), ``arm`` (a branch ``head`` of an if/elif/else chain whose
    every arm writes one expression ``text``).  ``volatile``: the expression
    reads the bit accumulator, so its bytes must be taken where it stands.
    """

    indent: int
    kind: str
    text: str
    ident: str = ""
    delimited: bool = False
    union: bool = False
    head: str = ""
    volatile: bool = False


def _literal(items: list[tuple[str, str | None]]) -> str | None:
    """A run of (struct code, argument) items as a ``bytes`` literal, if every argument is a
    constant (a union tag, padding); else None."""
    args = [e for _, e in items if e is not None]
    if not all(a.isdigit() for a in args):
        return None
    return repr(struct.pack("<" + "".join(c for c, _ in items), *map(int, args)))


class _Serializer(_Function):
    """The statements of ``def f(self, out)``, appending a value's bytes to ``out``."""

    def __init__(self, context: ModuleContext) -> None:
        super().__init__(context)
        self.body: list[_Statement] = []
        self.mode = "byte"
        self.items: list[tuple[str, str | None]] = []
        self.checks: list[str] = []
        self.pre: list[str] = []
        self.parts: list[str] = []
        self.gbits = 0
        self.safe: set[str] = set()  # locals known to be in 0..255 (checked array lengths)
        self.bounded: dict[str, int] = {}  # array lengths checked against their capacity
        self.exact: set[str] = set()  # expressions that give bytes of exactly their run's length
        # (first body index, end index, indent, array, length) of a variable bool array
        # that opened a bit stream on a byte boundary: should the stream end right after
        # it, the array is packed straight to bytes, no integer built (see align8)
        self.lone_bools: tuple[int, int, int, str, str] | None = None

    def emit(self, line: str) -> None:
        self.body.append(_Statement(self.indent, "line", line))

    def write(self, expr: str, volatile: bool = False) -> None:
        self.body.append(_Statement(self.indent, "write", expr, volatile=volatile))

    # -- byte mode runs
    def _group_add(self, part: str | None, bits: int) -> None:
        if part is not None:
            self.parts.append(f"{part} << {self.gbits}" if self.gbits else part)
        self.gbits += bits
        if self.gbits % 8 == 0:
            self._group_close()

    def _group_close(self) -> None:
        k = self.gbits // 8
        expr = " | ".join(self.parts) if self.parts else "0"
        if not self.parts:
            self.items.append((f"{k}x", None))
        elif k in _GROUP_CODE:
            self.items.append((_GROUP_CODE[k], expr if len(self.parts) == 1 else f"({expr})"))
        else:
            self.items.append((f"{k}s", f"({expr}).to_bytes({k}, 'little')"))
        self.parts = []
        self.gbits = 0

    def _run_expr(self) -> str:
        """The pending run (at least one item) as one ``bytes`` expression; the run is emptied.

        Constant items (union tags, padding) fold into a literal; an array length
        checked against a capacity of at most ``TABLE_CAP``, alone or after constants,
        is looked up in a table of the run's ``bytes`` (one-byte ones for an 8-bit
        length alone) instead of packed.
        """
        codes = "".join(c for c, _ in self.items)
        args = [e for _, e in self.items if e is not None]
        items = self.items
        self.items = []
        whole = _literal(items)
        if whole is not None:
            return whole
        if len(items) == 1 and items[0][1] in self.exact:
            return args[0]  # already the bytes, of exactly the run's length
        last_code, last = items[-1]
        cap = self.bounded.get(last or "")
        lead = [e for _, e in items[:-1] if e is not None]
        if cap is not None and cap <= TABLE_CAP and all(e.isdigit() for e in lead):
            if len(items) == 1 and last_code == "B":
                return f"_B1[{last}]"
            lead_values = tuple(int(e) for e in lead)
            return f"{self.context.constants.head('<' + codes, lead_values, cap)}[{last}]"
        if codes == "B" and len(args) == 1:
            return f"bytes(({args[0]},))"
        return f"{self.context.constants.struct('<' + codes)}_p({', '.join(args)})"

    def _known_byte(self, arg: str) -> bool:
        """Whether ``arg`` is a constant or a local known to be in 0..255."""
        return arg.isdigit() or arg in self.safe

    def _head(self) -> str | None:
        """The pending run as one ``bytes`` expression (its checks emitted first), or None."""
        self._checks_line()
        if not self.items:
            return None
        return self._run_expr()

    def _checks_line(self) -> None:
        if self.checks:
            self.emit(f"if {' or '.join(self.checks)}:")
            self.emit("    raise OverflowError")
            self.checks = []
        for line in self.pre:
            self.emit(line)
        self.pre = []

    def flush(self, tail: tuple[str, str, str, int] | None = None) -> None:
        """Pack the pending run; ``tail`` = (count_var, code, seq_var, capacity) of a
        runtime-sized array."""
        assert self.mode == "byte" and self.gbits == 0
        self._checks_line()
        if not self.items and tail is None:
            return
        codes = "".join(c for c, _ in self.items)
        args = [e for _, e in self.items if e is not None]
        if tail is None and codes == "B" and len(args) == 1 and not self._known_byte(args[0]):
            # range-checked like pack: ValueError
            self.body.append(_Statement(self.indent, "byte", args[0]))
        elif tail is None:
            self.write(self._run_expr())
        else:
            count, code, seq, cap = tail
            cache = self.context.constants.cache("<" + codes, code, cap)
            self.write(f"{cache}[{count}]({', '.join([*args, '*' + seq])})")
        self.items = []

    def to_bits(self) -> None:
        if self.mode == "bits":
            return
        open_group = " | ".join(self.parts) if self.parts else "0"
        bits = self.gbits
        self.parts = []
        self.gbits = 0
        self.flush()
        self.emit(f"acc = {open_group}")
        self.emit(f"pos = {bits}")
        self.mode = "bits"

    def align8(self) -> None:
        if self.mode == "bits":
            lone, self.lone_bools = self.lone_bools, None
            if lone is not None and lone[1:3] == (len(self.body), self.indent):
                # the stream is one bool array: numpy packs a 1-d bool array (0.4 us where
                # the integer's way costs 0.8), anything else goes through the integer
                start, _, _, v, n = lone
                del self.body[start:]
                self.write(
                    f"(_packbits({v}, None, 'little').tobytes() if {v}.__class__ is _ndarray "
                    f"and {v}.dtype is _BOOL and {v}.ndim == 1 "
                    f"else _b2i({v}).to_bytes(({n} + 7) >> 3, 'little'))"
                )
            else:
                # the accumulator may be reused by a later stream: its bytes are taken now
                self.write("acc.to_bytes((pos + 7) >> 3, 'little')", volatile=True)
            self.mode = "byte"
        elif self.gbits:
            self._group_add(None, 8 - self.gbits % 8)

    def bind(self, expr: str) -> str:
        if expr.isidentifier():
            return expr
        v = self.new()
        self.emit(f"{v} = {expr}")
        return v

    @staticmethod
    def _ordered(v: str) -> str:
        """A check that fails for anything but a list, tuple or numpy array (a dict's keys,
        a set's order): a list passes with one ``is`` (16 ns, the set lookup costs 37)."""
        return f"({v}.__class__ is not list and {v}.__class__ not in _SEQS)"

    def _stream_check(self, check: str) -> None:
        self.emit(f"if {check}:")
        self.emit("    raise OverflowError")

    # -- leaves
    def prim(self, step: Step, expr: str) -> None:
        t = step.type
        assert isinstance(t, Primitive)
        assert (self.mode == "bits") == (step.at is None), step
        kind, bits = t.kind, t.bits
        if kind == "v":
            if self.mode == "bits":
                self.emit(f"pos += {bits}")
            elif self.gbits == 0 and bits % 8 == 0:
                self.items.append((f"{bits // 8}x", None))
            else:
                self._group_add(None, bits)
            return
        v = self.bind(expr)
        code = _byte_code(t)
        if step.strategy == "struct" and code is not None:
            assert self.gbits == 0
            self.items.append((code, v))
            return
        part, check = to_wire(kind, bits, v)
        if step.strategy in ("struct", "bit-group"):
            if check:
                self.checks.append(check)
            self._group_add(part, bits)
            return
        # bools: True/False and 0/1 pass; anything else (2, NaN, a str) takes the slow path
        if check:
            self._stream_check(check)
        self.emit(f"acc |= {v if kind == 'b' else part} << pos")
        self.emit(f"pos += {bits}")

    def _array_int(self, el: Primitive, v: str) -> str:
        """An expression: the bits of array ``v`` as one int."""
        if el.kind == "b":
            return f"_b2i({v})"
        code = _byte_code(el)
        if code == "B":
            return f"_ifb({self._u8(v)}, 'little')"
        if code is not None:
            return f"_ifb(_pack_array({code!r}, {v}), 'little')"
        return f"_i2i({v}, {el.bits}, {el.kind == 'i'})"

    @staticmethod
    def _u8(v: str, part: bool = True) -> str:
        """Byte array ``v`` as bytes: a list through ``bytearray`` (range-checked, 3x
        faster than ``bytes(list)``; fine as one part of a concatenation that starts with
        bytes, or a struct ``s`` item; ``part=False`` for the whole result), an empty list
        as ``b''`` (making an empty bytearray costs more than the test), bytes and a 1-d
        uint8 numpy array as they are, anything else through ``_pack_array``'s checks."""
        return (
            f"(({'bytearray' if part else 'bytes'}({v}) if {v} else b'') if {v}.__class__ is list "
            f"else {v} if {v}.__class__ is bytes "
            f"else {v}.tobytes() if {v}.__class__ is _ndarray and {v}.dtype is _U8 "
            f"and {v}.ndim == 1 else _pack_array('B', {v}))"
        )

    def array(self, step: Step, expr: str) -> None:
        t = step.type
        assert isinstance(t, Array)
        el = t.element
        large = _is_large(t)
        cap = t.capacity
        v = self.bind(expr)
        length = [s for s in step.steps if s.role == "length"]
        if isinstance(el, Composite):
            self.align8()
            n = self.new("n")
            self.emit(f"{n} = len({v})")
            self.checks.append(self._ordered(v))
            if t.fixed:
                self.checks.append(f"({n} != {cap})")
            else:
                assert t.length_type is not None and length[0].strategy == "struct"
                self.checks.append(f"({n} > {cap})")
                self.bounded[n] = cap
                self.items.append((_INT_CODE[(t.length_type.bits, False)], n))
                if t.length_type.bits == 8:
                    self.safe.add(n)
            self.flush()
            e = self.new("e")
            self.emit(f"for {e} in {v}:")
            self.indent += 1
            if step.strategy == "inline":
                # the element's steps in the loop: no call per element
                self.structure([s for s in step.steps if s.role != "length"], e)
                self.align8()
                self.flush()
            else:
                self._call(el, e)
            self.indent -= 1
            return
        assert isinstance(el, Primitive)
        code = _byte_code(el)
        if t.fixed:
            self._fixed_array(step, t, el, v, code, large)
            return
        # variable length: the length prefix, then the elements
        assert t.length_type is not None
        n = self.new("n")
        self.emit(f"{n} = len({v})")
        lbits = t.length_type.bits
        if length[0].strategy == "bit-stream":
            self._stream_check(f"{n} > {cap}")
            self.emit(f"acc |= {n} << pos")
            self.emit(f"pos += {lbits}")
        else:
            self.checks.append(f"({n} > {cap})")
            self.bounded[n] = cap
            if length[0].strategy == "struct":
                self.items.append((_INT_CODE[(lbits, False)], n))
                if lbits == 8:
                    self.safe.add(n)
            else:
                self._group_add(n, lbits)
        if step.strategy == "byte-copy":
            assert code is not None and self.mode == "byte" and self.gbits == 0
            if code == "B" or (code == "e" and not large):
                # the pending run and the bytes in one statement (a top-level
                # serializer then returns it as it is); float16 through numpy, which
                # keeps NaN payload bits
                head = self._head()
                data = self._u8(v, head is not None) if code == "B" else f"_pack_f16({v})"
                if head:  # two parts: a returning form of many joins them in one copy
                    self.write(head)
                self.write(data)
            elif large:
                # a list goes out with the run in one pack; a numpy array as one tobytes()
                codes = "".join(c for c, _ in self.items)
                args = [e for _, e in self.items if e is not None]
                cache = self.context.constants.cache("<" + codes, code, cap)
                head = self._head()
                plus = f"{head} + " if head else ""
                # numpy first: what a large array decodes to
                arms = [
                    (f"if {v}.__class__ is _ndarray and {v}.dtype is _DT_{code} and {v}.ndim == 1:",
                     f"{plus}{v}.tobytes()"),
                    (f"elif {v}.__class__ is list:",
                     f"{cache}[{n}]({', '.join([*args, '*' + v])})" if code != "e"
                     else f"{plus}_pack_f16({v})"),
                    ("else:", f"{plus}_pack_array({code!r}, {v})"),
                ]  # fmt: skip
                for head_line, part in arms:
                    self.body.append(_Statement(self.indent, "arm", part, head=head_line))
            else:
                self.checks.append(self._ordered(v))
                self.flush(tail=(n, code, v, cap))
            return
        assert step.strategy == "bit-stream"
        lone = el.kind == "b" and self.mode == "byte" and not self.gbits
        self.to_bits()
        start = len(self.body) - 2  # to_bits' "acc = 0", "pos = 0"
        self.emit(f"acc |= {self._array_int(el, v)} << pos")
        self.emit(f"pos += {n} * {el.bits}" if el.bits != 1 else f"pos += {n}")
        if lone:
            self.lone_bools = (start, len(self.body), self.indent, v, n)

    def _fixed_array(
        self, step: Step, t: Array, el: Primitive, v: str, code: str | None, large: bool
    ) -> None:
        cap = t.capacity
        if step.strategy == "struct" and code is not None:
            self.checks.append(f"(len({v}) - {cap})")
            if code == "B":
                self.items.append((f"{cap}s", self._u8(v)))
            elif large:
                self.items.append((f"{cap * el.bits // 8}s", f"_pack_array({code!r}, {v})"))
            elif code == "e":
                # float16 through numpy: NaN payload bits kept (struct writes the canonical NaN)
                self.items.append((f"{cap * 2}s", f"_pack_f16({v})"))
            else:
                self.checks.append(self._ordered(v))
                self.items.append((f"{cap}{code}", f"*{v}"))
            return
        if step.strategy == "struct":
            # packed bools: exactly cap // 8 bytes (or an exception): numpy's packbits for
            # a numpy bool array of that shape, bools_to_bytes for anything else
            packed = (
                f"(_packbits({v}, None, 'little').tobytes() if {v}.__class__ is _ndarray "
                f"and {v}.dtype is _BOOL and {v}.shape == ({cap},) else _bools_bytes({v}, {cap}))"
            )
            self.items.append((f"{cap // 8}s", packed))
            self.exact.add(packed)
            return
        width = cap * el.bits
        stream = step.strategy == "bit-stream"
        if el.kind == "b" and 0 < cap <= SMALL_BOOLS:
            # a few bools: unpacked (which checks the length) and or-ed in place
            names = [self.new("e") for _ in range(cap)]
            # numpy's elements would make numpy integers (no to_bytes): unpack Python bools
            self.emit(f"{', '.join(names)}, = {v}.tolist() if {v}.__class__ is _ndarray else {v}")
            # bools and 0/1 only here; anything else takes the slow path
            self._stream_check(f"({' | '.join(names)}) >> 1 or {self._ordered(v)}")
            bits = " | ".join(f"{e} << {i}" if i else f"{e}" for i, e in enumerate(names))
            if not stream:
                self._group_add(f"({bits})", width)
                return
            self.emit(f"acc |= ({bits}) << pos")
            self.emit(f"pos += {width}")
            return
        if not stream:
            self.checks.append(f"(len({v}) - {cap})")
            self._group_add(f"{self._array_int(el, v)}", width)
            return
        self._stream_check(f"len({v}) != {cap}")
        self.emit(f"acc |= {self._array_int(el, v)} << pos")
        self.emit(f"pos += {width}")

    def _call(self, t: Composite, v: str) -> None:
        self.body.append(
            _Statement(
                self.indent,
                "call",
                v,
                ident=self.context.ident(t),
                delimited=not t.sealed,
                union=t.union,
            )
        )

    def composite(self, step: Step, expr: str) -> None:
        t = step.type
        assert isinstance(t, Composite)
        self.align8()
        v = self.bind(expr)
        if not t.union and all(f.padding for f in t.fields):
            # nothing of it is read: only its type says that it is one
            self.checks.append(f"not isinstance({v}, {self.context.ident(t)})")
        if step.strategy == "call":
            self.flush()
            self._call(t, v)
            return
        self.structure(list(step.steps), v)
        self.align8()

    def value(self, step: Step, expr: str) -> None:
        t = step.type
        if t.alignment == 8:
            self.align8()
        if isinstance(t, Array):
            self.array(step, expr)
        elif isinstance(t, Composite):
            self.composite(step, expr)
        else:
            self.prim(step, expr)

    def structure(self, steps: list[Step], obj: str) -> None:
        for s in steps:
            if s.role == "padding":
                self.prim(s, "")
            else:
                self.value(s, f"{obj}.{attr(s.name)}")
