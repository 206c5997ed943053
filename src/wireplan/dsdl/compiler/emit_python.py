"""Rendering a plan as Python source (one type's routines and class).

The emitter follows the plan (:mod:`.plan`): each step's strategy says
which code moves its bytes; the emitter only chooses the Python for it
(``struct`` codes, local names, bound methods, numpy for large arrays).
Serializer bodies are kept as statements (:class:`_St`) that know what
they write, so the appending, returning and list-gathering forms of a
routine are rendered from the same statements, never by reading code back.
"""

from __future__ import annotations

import builtins
import keyword
import struct
from dataclasses import dataclass

from .model import Array, Composite, DataType, Primitive
from .plan import Step, TypePlan, uint_wrapper

__all__ = ["Gen", "Unit", "attr", "emit_unit", "kind_expr"]

_RESERVED = frozenset(
    {"serialize", "deserialize", "to_builtin", "from_builtin", "mro", "Request", "Response"}
)
_INT_CODE = {(8, False): "B", (16, False): "H", (32, False): "I", (64, False): "Q"}
_INT_CODE.update({(8, True): "b", (16, True): "h", (32, True): "i", (64, True): "q"})
_FLOAT_CODE = {16: "e", 32: "f", 64: "d"}
_GROUP_CODE = {1: "B", 2: "H", 4: "I", 8: "Q"}
SMALL_BOOLS = 16  # fixed bool arrays up to this size are packed with inline code
LARGE = 64  # arrays of numbers or bools with at least this many elements are numpy arrays
TABLE_CAP = 256  # per-count pack tables up to this capacity are tuples

_PY_RESERVED = frozenset(keyword.kwlist) | frozenset(dir(builtins))


def attr(name: str) -> str:
    """The Python attribute of a DSDL field: as nunavut names it (``id`` -> ``id_``)."""
    return name + "_" if name in _PY_RESERVED or name in _RESERVED else name


@dataclass
class Unit:
    """One generated class: a message type, or a service's request or response."""

    t: Composite
    ident: str  # identifier in the implementation module
    namespace: str  # "uavcan.node"
    root: str
    cls_name: str  # "Heartbeat_1_0" or "Request"
    qualname: str  # "Heartbeat_1_0" or "Access_1_0.Request"


class _Module:
    """Module-level constants shared by the generated functions of one implementation module."""

    def __init__(self) -> None:
        self.structs: dict[str, str] = {}
        self.caches: dict[tuple[str, str], str] = {}
        self.cache_caps: dict[str, int] = {}
        self.unpackers: dict[str, int] = {}  # code -> largest count

    def struct(self, fmt: str) -> str:
        name = self.structs.get(fmt)
        if name is None:
            name = f"_S{len(self.structs)}"
            self.structs[fmt] = name
        return name

    def cache(self, head: str, code: str, cap: int) -> str:
        """The name of the per-count ``pack`` of ``head`` then up to ``cap`` elements ``code``."""
        name = self.caches.get((head, code))
        if name is None:
            name = f"_C{len(self.caches)}"
            self.caches[(head, code)] = name
        self.cache_caps[name] = max(cap, self.cache_caps.get(name, 0))
        return name

    def header(self) -> list[str]:
        out = []
        for fmt, name in self.structs.items():
            # bound methods: one attribute lookup less per call
            out.append(f"{name} = _Struct({fmt!r})")
            out.append(f"{name}_p = {name}.pack")
            out.append(f"{name}_u = {name}.unpack_from")
        # tuples where the counts are few (indexing a tuple is cheaper than a
        # dict with __missing__), a growing cache for large capacities
        for (head, code), name in self.caches.items():
            cap = self.cache_caps[name]
            if cap <= TABLE_CAP:
                out.append(f"{name} = _rt.pack_table({head!r}, {code!r}, {cap + 1})")
            else:
                out.append(f"{name} = _rt.PackCache({head!r}, {code!r})")
        out += [
            f"_UC_{code} = _rt.unpack_table({code!r}, {self.unpackers[code] + 1})"
            for code in sorted(self.unpackers)
        ]
        return out

    def unpacker(self, code: str, cap: int = LARGE - 1) -> str:
        """The name of the per-count ``unpack_from`` table of elements ``code``, up to ``cap``.

        Number arrays unpack through it only below ``LARGE`` elements (larger
        ones become numpy arrays); arrays of one-integer structures up to
        their capacity (at most ``TABLE_CAP``).
        """
        self.unpackers[code] = max(cap, self.unpackers.get(code, LARGE - 1))
        return f"_UC_{code}"


def _byte_code(t: DataType) -> str | None:
    """The struct code of a primitive that occupies whole bytes, else None."""
    if not isinstance(t, Primitive) or not t.standard:
        return None
    if t.kind == "f":
        return _FLOAT_CODE[t.bits]
    return _INT_CODE[(t.bits, t.kind == "i")]


def _is_large(t: Array) -> bool:
    """Whether an array's values may be a numpy array (with ``LARGE`` elements or more)."""
    el = t.element
    if not isinstance(el, Primitive) or el.text or t.capacity < LARGE:
        return False
    return el.kind == "b" or _byte_code(el) is not None


class Gen:
    """State shared by the emitters of one implementation module (one root namespace)."""

    def __init__(self, units: dict[tuple[str, int, int], Unit], root: str) -> None:
        self.units = units
        self.root = root
        self.mod = _Module()
        self.external: set[str] = set()

    def ident(self, t: Composite) -> str:
        unit = self.units[t.key]
        if unit.root != self.root:
            self.external.add(unit.ident)
        return unit.ident


class _Emitter:
    """Lines of one function with indentation and fresh local names."""

    def __init__(self, gen: Gen) -> None:
        self.gen = gen
        self.indent = 1
        self.n = 0

    def new(self, prefix: str = "v") -> str:
        self.n += 1
        return f"{prefix}{self.n}"


# ---------------------------------------------------------------- serialization


@dataclass
class _St:
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


class _Ser(_Emitter):
    """The statements of ``def f(self, out)``, appending a value's bytes to ``out``."""

    def __init__(self, gen: Gen) -> None:
        super().__init__(gen)
        self.body: list[_St] = []
        self.mode = "byte"
        self.items: list[tuple[str, str | None]] = []
        self.checks: list[str] = []
        self.pre: list[str] = []
        self.parts: list[str] = []
        self.gbits = 0
        self.safe: set[str] = set()  # locals known to be in 0..255 (checked array lengths)
        self.exact: set[str] = set()  # expressions that give bytes of exactly their run's length

    def emit(self, line: str) -> None:
        self.body.append(_St(self.indent, "line", line))

    def write(self, expr: str, volatile: bool = False) -> None:
        self.body.append(_St(self.indent, "write", expr, volatile=volatile))

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

        Constant items (union tags, padding) fold into a literal; a byte known
        to be in 0..255 (an 8-bit array length, checked against the capacity)
        is looked up in a table of one-byte ``bytes`` instead of packed.
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
        if last_code == "B" and last in self.safe:
            lead = _literal(items[:-1]) if len(items) > 1 else ""
            if lead is not None:
                return f"{lead} + _B1[{last}]" if lead else f"_B1[{last}]"
        if codes == "B" and len(args) == 1:
            return f"bytes(({args[0]},))"
        return f"{self.gen.mod.struct('<' + codes)}_p({', '.join(args)})"

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
            self.body.append(_St(self.indent, "byte", args[0]))
        elif tail is None:
            self.write(self._run_expr())
        else:
            count, code, seq, cap = tail
            cache = self.gen.mod.cache("<" + codes, code, cap)
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
        part, check = self._part(kind, bits, v)
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

    @staticmethod
    def _part(kind: str, bits: int, v: str) -> tuple[str, str | None]:
        # Comparisons, not shifts: the interpreter specializes int comparisons.  An
        # unsigned check needs no lower bound: a negative value makes the packed
        # integer negative, which pack / to_bytes reject (so the slow path runs).
        if kind == "u":
            return v, f"{v} > {(1 << bits) - 1}"
        if kind == "i":
            half = 1 << (bits - 1)
            return f"({v} & {(1 << bits) - 1})", f"not -{half} <= {v} < {half}"
        if kind == "b":
            # True/False/0/1 pass; 2 raises here; -1 goes negative like an unsigned;
            # NaN, 0.5 or a str fail in the | that packs them: all take the slow path
            return v, f"{v} > 1"
        return f"_fb({v}, {bits})", None

    def _array_int(self, el: Primitive, v: str) -> str:
        """An expression: the bits of array ``v`` as one int."""
        if el.kind == "b":
            return f"_b2i({v})"
        code = _byte_code(el)
        if code == "B":
            return f"int.from_bytes({self._u8(v)}, 'little')"
        if code is not None:
            return f"int.from_bytes(_pack_array({code!r}, {v}), 'little')"
        return f"_i2i({v}, {el.bits}, {el.kind == 'i'})"

    @staticmethod
    def _u8(v: str) -> str:
        # a list of ints or a bytes object as it is; anything else through the range checks
        return (
            f"(bytes({v}) if {v}.__class__ is list or {v}.__class__ is bytes "
            f"else _pack_array('B', {v}))"
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
                data = self._u8(v) if code == "B" else f"_pack_f16({v})"
                head = self._head()
                self.write(f"{head} + {data}" if head else data)
            elif large:
                # a list goes out with the run in one pack; a numpy array as one tobytes()
                codes = "".join(c for c, _ in self.items)
                args = [e for _, e in self.items if e is not None]
                cache = self.gen.mod.cache("<" + codes, code, cap)
                head = self._head()
                plus = f"{head} + " if head else ""
                # numpy first: what a large array decodes to
                arms = [
                    (f"if {v}.__class__ is _ndarray and {v}.dtype is _DT_{code}:",
                     f"{plus}{v}.tobytes()"),
                    (f"elif {v}.__class__ is list:",
                     f"{cache}[{n}]({', '.join([*args, '*' + v])})" if code != "e"
                     else f"{plus}_pack_f16({v})"),
                    ("else:", f"{plus}_pack_array({code!r}, {v})"),
                ]  # fmt: skip
                for head_line, part in arms:
                    self.body.append(_St(self.indent, "arm", part, head=head_line))
            else:
                self.checks.append(self._ordered(v))
                self.flush(tail=(n, code, v, cap))
            return
        assert step.strategy == "bit-stream"
        self.to_bits()
        self.emit(f"acc |= {self._array_int(el, v)} << pos")
        self.emit(f"pos += {n} * {el.bits}" if el.bits != 1 else f"pos += {n}")

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
            self.emit(f"{', '.join(names)}, = {v}")
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
            _St(
                self.indent,
                "call",
                v,
                ident=self.gen.ident(t),
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
            self.checks.append(f"not isinstance({v}, {self.gen.ident(t)})")
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


def _returned(st: _St) -> str:
    """The bytes of a call statement as an expression: the nested type's returning twin,
    or for a sealed union the variant's routine, dispatched right here."""
    if st.union and not st.delimited:
        return f"_RV_{st.ident}[{st.text}._tag]({st.text}._value)"
    return f"{'_rd' if st.delimited else '_r'}_{st.ident}({st.text})"


def _append_form(body: list[_St]) -> list[str]:
    """The body appending to the ``bytearray`` ``out``."""
    out = []
    for st in body:
        pad = "    " * st.indent
        if st.kind == "line":
            out.append(pad + st.text)
        elif st.kind == "write":
            out.append(f"{pad}out += {st.text}")
        elif st.kind == "byte":
            out.append(f"{pad}out.append({st.text})")
        elif st.kind == "call":
            out.append(f"{pad}{'_sd' if st.delimited else '_s'}_{st.ident}({st.text}, out)")
        else:
            out += [pad + st.head, f"{pad}    out += {st.text}"]
    return out


def _returning_form(body: list[_St]) -> tuple[list[str], str]:
    """The body of a routine without loops as lines and one expression of its bytes.

    Every write becomes one part of a single ``a + b + ...``; an if/elif/else
    chain assigns a local that is one part; a call becomes its returning
    twin.  This skips the ``bytearray``, its appends and its copy into
    ``bytes``.
    """
    lines: list[str] = []
    parts: list[str] = []
    chain = ""
    for st in body:
        assert st.indent == 1 or st.kind == "line", "a loop that writes: use the listed form"
        pad = "    " * st.indent
        if st.kind == "line":
            lines.append(pad + st.text)
        elif st.kind == "write" and st.volatile:
            local = f"w{len(parts)}"
            lines.append(f"{pad}{local} = {st.text}")
            parts.append(local)
        elif st.kind == "write":
            parts.append(st.text)
        elif st.kind == "byte":
            parts.append(f"bytes(({st.text},))")
        elif st.kind == "call":
            parts.append(_returned(st))
        else:
            if st.head.startswith("if "):
                chain = f"w{len(parts)}"
                parts.append(chain)
            lines += [pad + st.head, f"{pad}    {chain} = {st.text}"]
    if not parts:
        return lines, "b''"
    if len(parts) <= 4:
        return lines, " + ".join(parts)
    return lines, f"b''.join(({', '.join(parts)},))"


def _listed_form(body: list[_St]) -> tuple[list[str], str]:
    """The body of a routine with loops, gathering its parts in a list for one ``b''.join``:
    list appends cost less than ``bytearray +=`` and the final ``bytes()`` copy (1.4x for
    a four-element ``SubjectID`` list)."""
    out = ["    out = []"]
    for st in body:
        pad = "    " * st.indent
        if st.kind == "line":
            out.append(pad + st.text)
        elif st.kind == "write":
            out.append(f"{pad}out.append({st.text})")
        elif st.kind == "byte":
            out.append(f"{pad}out.append(bytes(({st.text},)))")  # one byte, range-checked
        elif st.kind == "call":
            out.append(f"{pad}out.append({_returned(st)})")
        else:
            out += [pad + st.head, f"{pad}    out.append({st.text})"]
    return out, "b''.join(out)"


@dataclass
class _Routines:
    """A serializer in its two forms: ``lines`` define the appending routine and its
    returning twin; the returning body is ``pre`` lines, then the bytes ``expr``."""

    lines: list[str]
    pre: list[str]
    expr: str

    def returning_body(self) -> list[str]:
        return [*self.pre, f"    return {self.expr}"]


def _routine_pair(append: str, returning: str, param: str, ser: _Ser, loops: bool) -> _Routines:
    """``append(param, out)`` and its returning twin ``returning(param)``; a body with loops
    (``loops``, from the plan) gathers a list, any other returns one expression."""
    body = _append_form(ser.body)
    pre, expr = _listed_form(ser.body) if loops else _returning_form(ser.body)
    routines = _Routines([f"def {append}({param}, out):", *(body or ["    pass"]), ""], pre, expr)
    routines.lines += [f"def {returning}({param}):", *routines.returning_body(), ""]
    return routines


# ---------------------------------------------------------------- deserialization


class _Des(_Emitter):
    """Emits the body of ``def f(b, o, n)`` returning ``(value, next_byte_offset)``.

    ``b`` is padded with zeros up to the type's maximum size (so no read is
    out of bounds, which also implements the implicit zero extension), ``n``
    is the real length of the data, used by delimiter header checks.

    Lists are built as ``[*x]``, not ``list(x)``: no global lookup and call.

    Besides the lines it records what the top-level decoder needs to know
    about them: ``unpacks`` (the struct reads, and where the first one is),
    ``other_reads`` (any other use of the buffer), ``slices`` (a read that a
    short buffer cuts silently), ``advance`` (the index of a last line that
    only moves ``o``).
    """

    def __init__(self, gen: Gen) -> None:
        super().__init__(gen)
        self.lines: list[str] = []
        self.mode = "byte"
        self.so = 0  # static byte offset from `o` (byte mode)
        self.run_start = 0
        self.items: list[tuple[str, str | None, int]] = []  # (code, target, value count)
        self.post: list[str] = []
        self.gvar = ""
        self.gbits = 0
        self.gstart = 0
        self.gx: list[str] = []
        self.unpacks = 0
        self.first_unpack: tuple[int, str, str] | None = None  # (line, targets, struct)
        self.other_reads = False
        self.slices = False
        self.advance = -1

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.indent + line)

    def _advance(self, line: str) -> None:
        if self.indent == 1:
            self.advance = len(self.lines)
        self.emit(line)

    def flush(self) -> None:
        if self.items:
            codes = "".join(c for c, _, _ in self.items)
            name = self.gen.mod.struct("<" + codes)
            targets = [(t, c) for _, t, c in self.items if t is not None]
            at = f"o + {self.run_start}" if self.run_start else "o"
            call = f"{name}_u(b, {at})"
            multi = [t for t, c in targets if c > 1]
            line = len(self.lines)
            if not targets:
                pass
            elif codes == "B" and len(targets) == 1:
                self.other_reads = True
                self.emit(f"{targets[0][0]} = b[{at}]")
            elif len(multi) <= 1:
                names = ", ".join(("*" + t) if c > 1 else t for t, c in targets)
                lhs = f"{names}," if len(targets) == 1 else names
                self.emit(f"{lhs} = {call}")
                self.unpacks += 1
                if self.unpacks == 1 and at == "o" and self.indent == 1:
                    self.first_unpack = (line, lhs, f"{name}_u")
            else:
                tup = self.new("t")
                self.emit(f"{tup} = {call}")
                self.unpacks += 1
                if self.unpacks == 1 and at == "o" and self.indent == 1:
                    self.first_unpack = (line, tup, f"{name}_u")
                i = 0
                for t, c in targets:
                    if c > 1:
                        self.emit(f"{t} = [*{tup}[{i}:{i + c}]]")
                    else:
                        self.emit(f"{t} = {tup}[{i}]")
                    i += c
            self.items = []
        for line_ in self.post:
            self.emit(line_)
        self.post = []
        self.run_start = self.so

    def pin(self) -> None:
        """Make the run-time ``o`` the current position (byte mode, aligned)."""
        self.flush()
        if self.so:
            self._advance(f"o += {self.so}")
        self.so = 0
        self.run_start = 0

    def _group_open(self) -> None:
        if self.gbits == 0:
            self.gvar = self.new("g")
            self.gstart = self.so
            self.gx = []

    def _group_add(self, bits: int) -> None:
        self.gbits += bits
        if self.gbits % 8 == 0:
            k = self.gbits // 8
            if not self.gx:
                self.items.append((f"{k}x", None, 0))
            elif k in _GROUP_CODE:
                self.items.append((_GROUP_CODE[k], self.gvar, 1))
                self.post.extend(self.gx)
            else:
                raw = self.gvar + "r"
                self.items.append((f"{k}s", raw, 1))
                self.post.append(f"{self.gvar} = int.from_bytes({raw}, 'little')")
                self.post.extend(self.gx)
            self.so += k
            self.gbits = 0
            self.gx = []

    def to_bits(self) -> None:
        if self.mode == "bits":
            return
        self.other_reads = True
        if self.gbits:
            k = (self.gbits + 7) // 8
            gvar, gx, gstart, bits = self.gvar, self.gx, self.gstart, self.gbits
            self.gbits = 0
            self.gx = []
            self.flush()
            if gx:
                lo = f"o + {gstart}" if gstart else "o"
                self.emit(f"{gvar} = int.from_bytes(b[{lo}:o + {gstart + k}], 'little')")
                for line in gx:
                    self.emit(line)
            self.emit(f"p = (o + {gstart}) * 8 + {bits}" if gstart else f"p = o * 8 + {bits}")
        else:
            self.flush()
            self.emit(f"p = (o + {self.so}) * 8" if self.so else "p = o * 8")
        self.mode = "bits"

    def align8(self) -> None:
        if self.mode == "bits":
            self.flush()
            self._advance("o = (p + 7) >> 3")
            self.mode = "byte"
            self.so = 0
            self.run_start = 0
        elif self.gbits:
            self._group_add(8 - self.gbits % 8)

    @staticmethod
    def _convert(kind: str, bits: int, raw: str) -> str:
        if kind == "u":
            return raw
        if kind == "i":
            h = 1 << (bits - 1)
            return f"(({raw}) ^ {h}) - {h}"
        if kind == "b":
            return f"{raw} != 0"
        return f"_bf({raw}, {bits})"

    def _bits_read(self, bits: int) -> str:
        """Expression: ``bits`` bits at run-time bit position ``p``."""
        return (
            f"(int.from_bytes(b[p >> 3:(p + {bits + 7}) >> 3], 'little') >> (p & 7)) "
            f"& {(1 << bits) - 1}"
        )

    def prim(self, step: Step, target: str | None = None) -> str:
        t = step.type
        assert isinstance(t, Primitive)
        assert (self.mode == "bits") == (step.at is None), step
        kind, bits = t.kind, t.bits
        if kind == "v":
            if self.mode == "bits":
                self.emit(f"p += {bits}")
            elif self.gbits == 0 and bits % 8 == 0:
                self.items.append((f"{bits // 8}x", None, 0))
                self.so += bits // 8
            else:
                self._group_open()
                self._group_add(bits)
            return "None"
        v = target or self.new()
        code = _byte_code(t)
        if step.strategy == "struct" and code is not None:
            assert self.gbits == 0
            self.items.append((code, v, 1))
            self.so += bits // 8
            return v
        if step.strategy in ("struct", "bit-group"):
            self._group_open()
            shift = self.gbits
            g = self.gvar
            if kind == "b":
                self.gx.append(f"{v} = {g} & {1 << shift} != 0")
            else:
                raw = (
                    f"({g} >> {shift}) & {(1 << bits) - 1}" if shift else f"{g} & {(1 << bits) - 1}"
                )
                self.gx.append(f"{v} = {self._convert(kind, bits, raw)}")
            self._group_add(bits)
            return v
        if kind == "b":
            self.emit(f"{v} = (b[p >> 3] >> (p & 7)) & 1 != 0")
        else:
            self.emit(f"{v} = {self._bits_read(bits)}")
            if kind != "u":
                self.emit(f"{v} = {self._convert(kind, bits, v)}")
        self.emit(f"p += {bits}")
        return v

    def _from_int(self, el: Primitive, raw: str, count: str, target: str, large: bool) -> list[str]:
        """Lines turning the int ``raw`` holding ``count`` elements into a list ``target``."""
        if el.kind == "b":
            if large:
                fn = "_i2b_np" if count.isdigit() else "_i2b_auto"
                return [f"{target} = {fn}({raw}, {count})"]
            return [f"{target} = _i2b({raw}, {count})"]
        code = _byte_code(el)
        size = el.bits // 8
        if code is not None:
            data = (
                f"({raw}).to_bytes({count} * {size}, 'little')"
                if size != 1
                else f"({raw}).to_bytes({count}, 'little')"
            )
            if large:
                fn = "_np_from" if count.isdigit() else "_numbers"
                return [f"{target} = {fn}({data}, {code!r}, {count}, 0)"]
            if code == "B":
                return [f"{target} = [*{data}]"]
            return [f"{target} = {self._short_numbers(code, count, data, '0')}"]
        return [f"{target} = _i2i_r({raw}, {el.bits}, {count}, {el.kind == 'i'})"]

    def _short_numbers(self, code: str, count: str, buf: str, at: str) -> str:
        """An expression: a list of ``count`` numbers ``code`` read from ``buf`` at ``at``
        (float16 through numpy, which keeps NaN payload bits; struct's table otherwise)."""
        if code == "e":
            return f"_f16_list({buf}, {count}, {at})"
        return f"[*{self.gen.mod.unpacker(code)}[{count}]({buf}, {at})]"

    def _finish_special(self, el: Primitive, v: str, path: str, at: str) -> None:
        """utf8 arrays become str, byte arrays bytes (pydsdl's convention)."""
        if el.text == "utf8":
            self.other_reads = True
            self.emit(f"{v} = _utf8({v}, {at}, {('$.' + path)!r})")
        elif el.text == "byte":
            self.emit(f"{v} = bytes({v})")

    def array(self, step: Step) -> str:
        t = step.type
        assert isinstance(t, Array)
        el = t.element
        cap = t.capacity
        path = step.path
        v = self.new("a")
        large = _is_large(t)
        if t.fixed:
            count = str(cap)
        else:
            if self.mode == "bits":
                self.emit("q = p >> 3")
                at = "q"
            else:
                at = f"o + {self.so}" if self.so else "o"
            length = next(s for s in step.steps if s.role == "length")
            count = self.prim(length)
            if self.mode == "byte" and self.gbits:
                self.to_bits()
            else:
                self.flush()
            self.other_reads = True
            self.emit(f"if {count} > {cap}:")
            self.emit(
                f"    raise _DecodeError(f'array length {{{count}}} exceeds capacity {cap}', "
                f"{at}, {('$.' + path)!r})"
            )
        if isinstance(el, Composite):
            return self._composite_array(step, el, v, count)
        assert isinstance(el, Primitive)
        code = _byte_code(el)
        size = el.bits // 8
        special = bool(el.text)
        if t.fixed:
            return self._fixed_array(step, t, el, v, code, large, special)
        if step.strategy == "byte-copy":
            assert code is not None
            self.pin()
            if large:
                self.emit(f"if {count} >= {LARGE}:")
                # zero-copy from immutable bytes; a copy from a buffer that may change
                self.emit(
                    f"    {v} = (_frombuffer(b, _DT_{code}, {count}, o) if b.__class__ is bytes"
                )
                self.emit(f"        else _frombuffer(b, _DT_{code}, {count}, o).copy())")
                self.emit("else:")
                # bytes too go through the unpack table: faster than a slice, and a
                # short buffer raises instead of being cut
                self.emit(f"    {v} = {self._short_numbers(code, count, 'b', 'o')}")
            elif code == "B" and cap >= LARGE:
                self.slices = True  # cut silently by a short buffer
                self.emit(f"{v} = [*b[o:o + {count}]]")  # utf8 / byte text: no table that long
            else:
                self.emit(f"{v} = {self._short_numbers(code, count, 'b', 'o')}")
            if special:
                self._finish_special(el, v, path, "o")
            self._advance(f"o += {count}" if size == 1 else f"o += {count} * {size}")
            return v
        self.to_bits()
        raw = self.new("r")
        width = f"{count} * {el.bits}" if el.bits != 1 else count
        self.emit(
            f"{raw} = (int.from_bytes(b[p >> 3:(p + {width} + 7) >> 3], 'little') >> (p & 7)) "
            f"& ((1 << ({width})) - 1)"
        )
        for line in self._from_int(el, raw, count, v, large):
            self.emit(line)
        if special:
            self._finish_special(el, v, path, "p >> 3")
        self.emit(f"p += {width}")
        return v

    def _composite_array(self, step: Step, el: Composite, v: str, count: str) -> str:
        self.align8()
        self.pin()
        self.other_reads = True
        cap = step.type.capacity if isinstance(step.type, Array) else 0
        wrapped = uint_wrapper(el) if cap <= TABLE_CAP else None
        if step.strategy == "inline" and wrapped is not None:
            # one unpack of all the integers, an object around each
            esize, ebits, name = wrapped
            ecode = _GROUP_CODE[esize]
            g, r = self.new("g"), self.new("r")
            self.emit(f"{v} = []")
            self.emit(f"for {g} in {self.gen.mod.unpacker(ecode, cap)}[{count}](b, o):")
            self.emit(f"    {r} = _new_{self.gen.ident(el)}()")
            mask = f" & {(1 << ebits) - 1}" if ebits < esize * 8 else ""
            self.emit(f"    {r}.{attr(name)} = {g}{mask}")
            self.emit(f"    {v}.append({r})")
            self._advance(f"o += {count} * {esize}" if esize > 1 else f"o += {count}")
            return v
        if step.strategy == "inline":
            # the element's steps in the loop (they cannot fail: no tags, no lengths)
            self.emit(f"{v} = []")
            self.emit(f"for _ in range({count}):")
            self.indent += 1
            r = self.structure(el, [s for s in step.steps if s.role != "length"])
            self.flush()
            self.emit(f"{v}.append({r})")
            self.emit(f"o += {self.so}")
            self.so = 0
            self.run_start = 0
            self.indent -= 1
            return v
        fn = self._composite_fn(el)
        e = self.new("e")
        i = self.new("i")
        self.emit(f"{v} = []")
        self.emit("try:")
        self.emit(f"    for {i} in range({count}):")
        self.emit(f"        {e}, o = {fn}(b, o, n)")
        self.emit(f"        {v}.append({e})")
        self.emit("except _DecodeError as exc:")
        self.emit(f"    raise exc.under(f{('.' + step.path + '[{' + i + '}]')!r}) from None")
        self.advance = -1
        return v

    def _fixed_array(
        self,
        step: Step,
        t: Array,
        el: Primitive,
        v: str,
        code: str | None,
        large: bool,
        special: bool,
    ) -> str:
        cap = t.capacity
        size = el.bits // 8
        path = step.path
        count = str(cap)
        if step.strategy == "struct" and code is not None and large:
            self.pin()
            self.other_reads = True
            self.emit(f"{v} = _np_from(b, {code!r}, {cap}, o)")
            self._advance(f"o += {cap * size}")
            return v
        if step.strategy == "struct" and code is not None:
            if code == "B":
                raw = self.new("r")
                self.items.append((f"{cap}s", raw, 1))
                at = f"o + {self.so}"
                if special:
                    self.post.append(f"{v} = {raw}")
                    self.so += cap
                    self.flush()
                    self._finish_special(el, v, path, at)
                    return v
                self.post.append(f"{v} = [*{raw}]")
            elif code == "e":
                raw = self.new("r")
                self.items.append((f"{cap * 2}s", raw, 1))
                self.post.append(f"{v} = _f16_list({raw}, {cap}, 0)")  # NaN payloads kept
            else:
                self.items.append((f"{cap}{code}", v, cap))
            self.so += cap * size
            return v
        if step.strategy == "struct":
            # packed bools, unpacked by numpy straight from the buffer (no bytes object)
            self.flush()
            self.other_reads = True
            at = f"o + {self.so}" if self.so else "o"
            self.emit(
                f"{v} = _unpackbits(_frombuffer(b, _U8, {cap // 8}, {at}), "
                "None, None, 'little').view(_BOOL)"
            )
            self.so += cap // 8
            self.run_start = self.so
            return v
        width = cap * el.bits
        if step.strategy == "bit-group" and el.kind == "b" and cap <= SMALL_BOOLS:
            self._group_open()
            g, shift = self.gvar, self.gbits
            self.gx.append(
                f"{v} = [{', '.join(f'{g} & {1 << (shift + i)} != 0' for i in range(cap))}]"
            )
            self._group_add(width)
            return v
        if step.strategy == "bit-group":
            self._group_open()
            g, shift = self.gvar, self.gbits
            raw = (
                f"(({g} >> {shift}) & {(1 << width) - 1})"
                if shift
                else f"({g} & {(1 << width) - 1})"
            )
            self.gx.extend(self._from_int(el, raw, count, v, large))
            self._group_add(width)
            if special:
                self.flush()
                self._finish_special(el, v, path, "o")
            return v
        raw = self.new("r")
        self.emit(f"{raw} = {self._bits_read(width)}")
        for line in self._from_int(el, raw, count, v, large):
            self.emit(line)
        self.emit(f"p += {width}")
        if special:
            self._finish_special(el, v, path, "p >> 3")
        return v

    def _composite_fn(self, t: Composite) -> str:
        ident = self.gen.ident(t)
        return f"_dd_{ident}" if not t.sealed else f"_d_{ident}"

    def composite(self, step: Step) -> str:
        t = step.type
        assert isinstance(t, Composite)
        self.align8()
        if step.strategy == "inline":
            return self.structure(t, list(step.steps))
        self.pin()
        self.other_reads = True
        v = self.new("c")
        self.emit("try:")
        if t.sealed:
            # a sealed union: its tag read here, then straight to the variant
            ident = self.gen.ident(t)
            code = _INT_CODE[(t.tag_bits, False)]
            self.lines.extend(
                _tag_read(self.gen, code, len(t.fields), "b", "o", "    " * (self.indent + 1))
            )
            self.emit(f"    {v}, o = _DV_{ident}[t](b, o, n)")
        else:
            self.emit(f"    {v}, o = {self._composite_fn(t)}(b, o, n)")
        self.emit("except _DecodeError as exc:")
        self.emit(f"    raise exc.under({('.' + step.path)!r}) from None")
        self.advance = -1
        return v

    def value(self, step: Step) -> str:
        t = step.type
        if t.alignment == 8:
            self.align8()
        if isinstance(t, Array):
            return self.array(step)
        if isinstance(t, Composite):
            return self.composite(step)
        return self.prim(step)

    def structure(self, t: Composite, steps: list[Step]) -> str:
        values: list[tuple[str, str]] = []
        for s in steps:
            if s.role == "padding":
                self.prim(s)
            else:
                values.append((attr(s.name), self.value(s)))
        self.align8()
        r = self.new("r")
        self.post.append(f"{r} = _new_{self.gen.ident(t)}()")
        for name, v in values:
            self.post.append(f"{r}.{name} = {v}")
        return r


def _tag_read(gen: Gen, code: str, fields: int, buf: str, at: str, indent: str) -> list[str]:
    """Lines reading a union's tag into ``t`` from ``buf`` at ``at``, rejecting a bad one."""
    read = (
        f"t = {buf}[{at}]" if code == "B" else f"t, = {gen.mod.struct('<' + code)}_u({buf}, {at})"
    )
    return [
        indent + read,
        f"{indent}if t >= {fields}:",
        f"{indent}    raise _DecodeError(f'invalid union tag {{t}} (the union has {fields} fields)', {at})",
    ]


# ---------------------------------------------------------------- one type


def kind_expr(gen: Gen, t: DataType) -> str:
    """The runtime's field kind of ``t`` (see :mod:`wireplan.dsdl.runtime`) as source."""
    if isinstance(t, Primitive) and t.text:
        return f"({t.text!r},)"
    if isinstance(t, Array):
        tag = "fa" if t.fixed else "va"
        return f"({tag!r}, {t.capacity}, {kind_expr(gen, t.element)}, {_is_large(t)})"
    if isinstance(t, Composite):
        return f"('c', {gen.ident(t)})"
    if t.kind == "b":
        return "('b',)"
    return f"({t.kind!r}, {t.bits}, {t.saturated})"


def _default_expr(t: DataType) -> str | None:
    """A literal default, or None when the default must be built per instance."""
    if not isinstance(t, Primitive):
        return None
    return {"b": "False", "f": "0.0"}.get(t.kind, "0")


def _fresh_default(gen: Gen, t: DataType) -> str:
    """An expression building the default of a field that needs one per instance: the
    nested type's constructor, an empty list, or the runtime's ``default_of``."""
    if isinstance(t, Composite):
        return f"{gen.ident(t)}()"
    if isinstance(t, Array) and not t.fixed:
        return "[]"
    return f"_default({kind_expr(gen, t)})"


def _loops(step: Step) -> bool:
    """Whether a step repeats code per array element (an array of composites)."""
    return any(isinstance(s.type, Array) and isinstance(s.type.element, Composite)
               for s in step.walk())  # fmt: skip


def emit_unit(gen: Gen, unit: Unit, plan: TypePlan) -> list[str]:
    """The routines and the class of one type, rendered from its plan."""
    t = unit.t
    ident = unit.ident
    is_union = t.union
    sealed = t.sealed
    maxb = (t.max_bits + 7) // 8
    minb = (t.min_bits + 7) // 8
    lines: list[str] = []
    des = _Des(gen)
    des_r = ""
    tag_code = _INT_CODE[(t.tag_bits, False)] if is_union else "B"
    routines: _Routines | None = None

    # ---- serializer
    if is_union:
        variants: list[str] = []
        for k, (_tag, value) in enumerate(plan.variants):
            ser = _Ser(gen)
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
        ser = _Ser(gen)
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
            dv = _Des(gen)
            dv.so = tb
            dv.run_start = tb
            v = dv.value(value)
            dv.align8()
            dv.flush()
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
        lines.extend(_tag_read(gen, tag_code, len(t.fields), "b", "o", "    "))
        lines.append(f"    return _DV_{ident}[t](b, o, n)")
        lines.append("")
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
            lines.extend(_tag_read(gen, tag_code, len(t.fields), "b", "0", " " * 12))
            lines.append(f"            r, o = _DV_{ident}[t](b, 0, n)")
            lines.append("            if o <= n:")
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
        lines += _delimited(gen, unit, routines, des, des_r, tag_code, minb, maxb)

    cls = _class_lines(gen, unit, plan, routines)
    cls += _deserialize_lines(gen, unit, plan, des, des_r, tag_code, minb, maxb)
    cls.append("")
    cls.append("    to_builtin = _rt.to_builtin")
    cls.append("    from_builtin = classmethod(_rt.from_builtin)")
    cls.append("    __eq__ = _rt.eq")
    cls.append("    __repr__ = _rt.repr_of")
    cls.append("    __hash__ = None")
    cls.append("")
    cls.append("")
    return cls + lines


def _delimited(
    gen: Gen,
    unit: Unit,
    routines: _Routines | None,
    des: _Des,
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
        lines.extend(_tag_read(gen, tag_code, len(t.fields), "b", "o", " " * 8))
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


def _constant_value(kind: str, value: object) -> str:
    if kind == "f":
        return repr(float(value))  # type: ignore[arg-type]
    return repr(value)


def _class_lines(gen: Gen, unit: Unit, plan: TypePlan, routines: _Routines | None) -> list[str]:
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
        ctor.append(f"    def __call__(cls, *, {union_params}):")
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
            f"            self._value = {d0 if d0 is not None else _fresh_default(gen, f0.type)}"
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
                    f"        self.{a} = {_fresh_default(gen, f.type)} if {a} is None else {a}"
                )
        ctor.append(f"    def __call__(cls, *, {', '.join(params)}):")
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


def _deserialize_lines(
    gen: Gen,
    unit: Unit,
    plan: TypePlan,
    des: _Des,
    des_r: str,
    tag_code: str,
    minb: int,
    maxb: int,
) -> list[str]:
    """``deserialize``: a staticmethod (nothing to bind per call; the class is known)."""
    t, ident = unit.t, unit.ident
    des_lines = des.lines
    cls = ["    @staticmethod", "    def deserialize(data):"]
    cls.append(
        '        """Decode ``data``; short input is zero-extended, extra bytes are ignored."""'
    )
    if minb != maxb and not t.union and plan.bounded_reads and not des.slices:
        # Every read raises past the end of the data (struct, indexing, frombuffer
        # with a count) and bytes it skips are padding: the body runs on the data
        # as it is, with no length checks, and short data takes the padded path.
        cls.append("        b = data")
        cls.append("        try:")
        cls.append("            o = 0")
        unused = des.advance == len(des_lines) - 1  # the last offset update: unused
        body = des_lines[:-1] if unused and des_lines else des_lines
        cls.extend("        " + line for line in body)
        cls.append(f"            return {des_r}")
        cls += [
            "        except _DecodeError:",
            "            raise",
            "        except (_StructError, IndexError, ValueError):",
            "            pass",
            f"        return _d_{ident}(_pad(data, {_pad_size(t, maxb, 'len(data)')}), 0, len(data))[0]",
        ]
    elif minb != maxb:
        cls += ["        n = len(data)", f"        if n >= {minb}:", "            b = data"]
        cls.append("            try:")
        if t.union:
            cls.extend(_tag_read(gen, tag_code, len(t.fields), "b", "0", " " * 16))
            cls.append(f"                r, o = _DV_{ident}[t](b, 0, n)")
            cls.append("                if o <= n:")
            cls.append("                    return r")
        else:
            cls.append("                o = 0")
            cls.extend("            " + line for line in des_lines)
            end = f"o + {des.so}" if des.so else "o"
            cls.append(f"                if {end} <= n:")
            cls.append(f"                    return {des_r}")
        cls += [
            "            except _DecodeError:",
            "                raise",
            "            except (_StructError, IndexError, ValueError):",
            "                pass",
            f"        return _d_{ident}(_pad(data, {_pad_size(t, maxb, 'n')}), 0, n)[0]",
        ]
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
        else:
            cls.append("        n = len(data)")
            if maxb:
                cls.append(f"        if n < {maxb}:")
                cls.append(f"            data = _pad(data, {maxb})")
            cls.append("        b = data")
            cls.append("        o = 0")
            cls.extend("    " + line for line in des_lines)
        cls.append(f"        return {des_r}")
    else:
        cls.append("        n = len(data)")
        cls.append(f"        if n < {maxb}:")
        cls.append(f"            data = _pad(data, {maxb})")
        cls.extend(_tag_read(gen, tag_code, len(t.fields), "data", "0", " " * 8))
        cls.append(f"        return _DV_{ident}[t](data, 0, n)[0]")
    return cls
