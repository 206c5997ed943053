"""DSDL -> Python code generator: layout analysis, strategy, code.

The only module of wireplan that imports :mod:`pydsdl`.

For every composite type the generator walks the fields with a static
knowledge of the bit position (exact within the current *run*, or only
known at run time after a variable-length field whose element width is not
a multiple of 8) and chooses, per field, the cheapest code that is proven
correct:

``struct``
    a byte-aligned 8/16/32/64-bit field: one code of a precompiled
    ``struct.Struct`` that covers the whole run of such fields;
``bit-group``
    fields that do not start or end on a byte boundary, but whose bit
    offset is known statically: packed with shifts into an integer that is
    itself one code of the same ``struct.Struct``;
``byte-copy``
    a variable-length array of byte-sized primitives at a byte boundary:
    ``struct`` with a repeat count (or ``bytes()`` for ``uint8``);
``bit-stream``
    a field whose alignment cannot be proven: shifted into a running
    integer at a run-time bit position;
``inline``
    a sealed nested structure, serialized in place in its container's run;
``call``
    a union, a delimited (appendable) nested type, or an array of
    composites: through the nested type's own routine.

The offsets reported by :func:`layout` are pydsdl's bit length sets
(``iterate_fields_with_offsets``), so the report can be checked against
the strategy: a ``struct`` field is always byte-aligned there.
"""

from __future__ import annotations

import builtins
import hashlib
import keyword
import os
import re
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pydsdl

from wireplan import __version__
from wireplan.dsdl._layout import FieldLayout, TypeLayout
from wireplan.errors import WireplanError

__all__ = [
    "CompileError",
    "FieldLayout",
    "TypeLayout",
    "analyse",
    "generate",
    "models",
    "read_types",
    "source_digest",
]

GENERATOR_VERSION = "4"
IMPL_MODULE = "_wireplan_impl"

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


class CompileError(WireplanError):
    """A DSDL source that pydsdl rejects, or a type this compiler cannot handle."""


# ------------------------------------------------------------------------------------ reading


def _as_paths(dirs: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> list[Path]:
    if isinstance(dirs, str | os.PathLike):
        return [Path(dirs)]
    return [Path(d) for d in dirs]


def read_types(roots: Sequence[Path], lookup: Sequence[Path]) -> list[pydsdl.CompositeType]:
    """Every type of ``roots`` (all versions), read by pydsdl."""
    out: list[pydsdl.CompositeType] = []
    for root in roots:
        others = [str(p) for p in [*roots, *lookup] if Path(p).resolve() != root.resolve()]
        try:
            out.extend(pydsdl.read_namespace(str(root), others))
        except pydsdl.FrontendError as exc:
            raise CompileError(f"{root}: {exc}") from None
    return out


def source_digest(roots: Sequence[Path], lookup: Sequence[Path]) -> str:
    """A hash of every ``.dsdl`` file under the folders, of wireplan's and pydsdl's versions."""
    h = hashlib.sha256()
    h.update(f"wireplan {__version__} gen {GENERATOR_VERSION} pydsdl {pydsdl.__version__}".encode())
    h.update(Path(__file__).read_bytes())  # a changed generator invalidates the cache too
    h.update((Path(__file__).parent / "runtime.py").read_bytes())  # and so does its runtime
    for label, dirs in (("root", roots), ("lookup", lookup)):
        for d in dirs:
            d = Path(d).resolve()
            h.update(f"\0{label}\0{d}\0".encode())
            for path in sorted(d.rglob("*.dsdl")):
                h.update(str(path.relative_to(d)).encode() + b"\0")
                h.update(path.read_bytes())
    return h.hexdigest()[:24]


# ------------------------------------------------------------------------------------ naming


def _unwrap(t: Any) -> Any:
    return t.inner_type if isinstance(t, pydsdl.DelimitedType) else t


_PY_RESERVED = frozenset(keyword.kwlist) | frozenset(dir(builtins))


def _attr(name: str) -> str:
    """The Python attribute of a DSDL field: as nunavut names it (``id`` -> ``id_``)."""
    return name + "_" if name in _PY_RESERVED or name in _RESERVED else name


@dataclass
class _Unit:
    """One generated class: a message type, or a service's request or response."""

    t: Any  # the type as pydsdl gives it (maybe DelimitedType)
    ident: str  # identifier in the implementation module
    namespace: str  # "uavcan.node"
    root: str
    cls_name: str  # "Heartbeat_1_0" or "Request"
    qualname: str  # "Heartbeat_1_0" or "Access_1_0.Request"

    @property
    def inner(self) -> Any:
        return _unwrap(self.t)


def _key(t: Any) -> tuple[str, int, int]:
    t = _unwrap(t)
    return (t.full_name, t.version.major, t.version.minor)


# ------------------------------------------------------------------------------------ layout report


def _alignment(offsets: Any) -> int:
    a = 64
    while a > 1 and not offsets.is_aligned_at(a):
        a //= 2
    return a


# ------------------------------------------------------------------------------------ code emission


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


def _prim_info(t: Any) -> tuple[str, int, bool]:
    """('u'|'i'|'f'|'b'|'v', bits, saturated)."""
    sat = getattr(t, "cast_mode", None) == pydsdl.PrimitiveType.CastMode.SATURATED
    if isinstance(t, pydsdl.BooleanType):
        return ("b", 1, True)
    if isinstance(t, pydsdl.VoidType):
        return ("v", t.bit_length, False)
    if isinstance(t, pydsdl.FloatType):
        return ("f", t.bit_length, sat)
    if isinstance(t, pydsdl.SignedIntegerType):
        return ("i", t.bit_length, sat)
    if isinstance(t, pydsdl.UnsignedIntegerType):
        return ("u", t.bit_length, sat)
    raise CompileError(f"unsupported primitive {t}")  # pragma: no cover


def _byte_code(t: Any) -> str | None:
    """The struct code of a primitive that occupies whole bytes, else None."""
    if isinstance(t, pydsdl.FloatType):
        return _FLOAT_CODE[t.bit_length]
    if isinstance(t, pydsdl.BooleanType | pydsdl.VoidType):
        return None
    if isinstance(t, pydsdl.IntegerType):
        return _INT_CODE.get((t.bit_length, isinstance(t, pydsdl.SignedIntegerType)))
    return None


def _is_composite(t: Any) -> bool:
    return isinstance(t, pydsdl.CompositeType)


def _byte_bools(el: Any, cap: int, large: bool) -> bool:
    """Whether a fixed bool array at a byte boundary moves as ``cap // 8`` packed bytes."""
    return isinstance(el, pydsdl.BooleanType) and large and cap % 8 == 0


def _plain_fixed(t: Any) -> bool:
    """A sealed structure of fixed size in whole bytes with only primitives, fixed arrays of
    primitives and such structures inside: its code can be inlined in an array loop."""
    if not isinstance(t, pydsdl.StructureType) or isinstance(t, pydsdl.DelimitedType):
        return False
    lengths = t.bit_length_set
    if lengths.min != lengths.max or lengths.max % 8:
        return False
    for f in t.fields:
        ft = f.data_type
        if isinstance(ft, pydsdl.FixedLengthArrayType):
            ft = ft.element_type
        elif isinstance(ft, pydsdl.ArrayType):
            return False
        if isinstance(ft, pydsdl.CompositeType):
            if not _plain_fixed(ft):
                return False
        elif not isinstance(ft, pydsdl.PrimitiveType | pydsdl.VoidType):
            return False
    return True


def _uint_wrapper(t: Any) -> tuple[str, int, str] | None:
    """(struct code, bits, attribute) of a sealed structure that is one unsigned integer at
    bit 0, then only padding, in 1, 2, 4 or 8 bytes (``SubjectID``, ``ServiceID``): an
    array of them is read with one ``unpack_from`` of the integers.  (Writing them the
    same way, through a list of the values, is slower than the loop for short arrays.)"""
    if not _plain_fixed(t) or not t.fields or isinstance(t.fields[0], pydsdl.PaddingField):
        return None
    first = t.fields[0].data_type
    if not isinstance(first, pydsdl.UnsignedIntegerType):
        return None
    if any(not isinstance(f, pydsdl.PaddingField) for f in t.fields[1:]):
        return None
    code = _GROUP_CODE.get(t.bit_length_set.max // 8)
    if code is None:
        return None
    return code, first.bit_length, _attr(t.fields[0].name)


def _is_large(t: Any) -> bool:
    """Whether an array's values may be a numpy array (with ``LARGE`` elements or more)."""
    el = t.element_type
    if isinstance(el, pydsdl.UTF8Type | pydsdl.ByteType) or t.capacity < LARGE:
        return False
    return isinstance(el, pydsdl.BooleanType) or _byte_code(el) is not None


class _Gen:
    """State shared by the emitters of one compilation."""

    def __init__(self, units: dict[tuple[str, int, int], _Unit], root: str) -> None:
        self.units = units
        self.root = root
        self.unions = {u.ident for u in units.values() if isinstance(u.inner, pydsdl.UnionType)}
        self.mod = _Module()
        self.external: set[str] = set()

    def ident(self, t: Any) -> str:
        unit = self.units[_key(t)]
        if unit.root != self.root:
            self.external.add(unit.ident)
        return unit.ident


class _Emitter:
    """Lines of one function with indentation and fresh local names."""

    def __init__(self, gen: _Gen, report: list[FieldLayout] | None) -> None:
        self.gen = gen
        self.lines: list[str] = []
        self.indent = 1
        self.n = 0
        self.report = report
        self.steps = 0  # statements that move bytes, beyond bindings

    def new(self, prefix: str = "v") -> str:
        self.n += 1
        return f"{prefix}{self.n}"

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.indent + line)

    def note(self, path: str, t: Any, offsets: Any, strategy: str, reason: str) -> None:
        if self.report is None or offsets is None:
            return
        self.report.append(
            FieldLayout(
                path=path.lstrip("."),
                type=str(t),
                offset_min=int(offsets.min),
                offset_max=int(offsets.max),
                alignment=_alignment(offsets),
                strategy=strategy,
                reason=reason,
            )
        )


def _fields_with_offsets(t: Any, base: Any) -> list[tuple[Any, Any]]:
    if base is None:
        return [(f, None) for f in t.fields]
    if isinstance(t, pydsdl.UnionType):
        return list(t.iterate_fields_with_offsets(base))
    return list(t.iterate_fields_with_offsets(base))


# ---------------------------------------------------------------- serialization


def _literal(items: list[tuple[str, str | None]]) -> str | None:
    """A run of (struct code, argument) items as a ``bytes`` literal, if every argument is a
    constant (a union tag, padding); else None."""
    args = [e for _, e in items if e is not None]
    if not all(a.isdigit() for a in args):
        return None
    return repr(struct.pack("<" + "".join(c for c, _ in items), *map(int, args)))


class _Ser(_Emitter):
    """Emits ``def f(self, out)`` appending a value's bytes to the bytearray ``out``."""

    def __init__(self, gen: _Gen, report: list[FieldLayout] | None = None) -> None:
        super().__init__(gen, report)
        self.mode = "byte"
        self.items: list[tuple[str, str | None]] = []
        self.checks: list[str] = []
        self.pre: list[str] = []
        self.parts: list[str] = []
        self.gbits = 0
        self.group_fields: list[str] = []
        self.group_has_shift = False
        self.safe: set[str] = set()  # locals known to be in 0..255 (checked array lengths)
        self.exact: set[str] = set()  # expressions that give bytes of exactly their run's length

    # -- byte mode runs
    def _group_add(self, part: str | None, bits: int) -> None:
        if part is not None:
            if self.gbits:
                self.parts.append(f"{part} << {self.gbits}")
                self.group_has_shift = True
            else:
                self.parts.append(part)
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
        self.group_has_shift = False

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
        if not self.items and tail is None:
            self._checks_line()
            return
        self._checks_line()
        codes = "".join(c for c, _ in self.items)
        args = [e for _, e in self.items if e is not None]
        if tail is None and codes == "B" and len(args) == 1 and not self._known_byte(args[0]):
            self.emit(f"out.append({args[0]})")  # range-checked like pack: ValueError
        elif tail is None:
            self.emit(f"out += {self._run_expr()}")
        else:
            count, code, seq, cap = tail
            cache = self.gen.mod.cache("<" + codes, code, cap)
            self.emit(f"out += {cache}[{count}]({', '.join([*args, '*' + seq])})")
        self.items = []
        self.steps += 1

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
        self.steps += 1

    def align8(self) -> None:
        if self.mode == "bits":
            self.emit("out += acc.to_bytes((pos + 7) >> 3, 'little')")
            self.mode = "byte"
            self.steps += 1
        elif self.gbits:
            self._group_add(None, 8 - self.gbits % 8)

    def bind(self, expr: str) -> str:
        if expr.isidentifier():
            return expr
        v = self.new()
        self.emit(f"{v} = {expr}")
        return v

    # -- leaves
    def prim(self, t: Any, expr: str, path: str, offsets: Any) -> None:
        kind, bits, _ = _prim_info(t)
        if kind == "v":
            if self.mode == "bits":
                self.emit(f"pos += {bits}")
            elif self.gbits == 0 and bits % 8 == 0:
                self.items.append((f"{bits // 8}x", None))
            else:
                self._group_add(None, bits)
            self.note(
                path, t, offsets, "struct" if self.mode == "byte" else "bit-stream", "zero padding"
            )
            return
        v = self.bind(expr)
        code = _byte_code(t)
        if self.mode == "byte":
            if self.gbits == 0 and code is not None:
                self.items.append((code, v))
                self.note(
                    path, t, offsets, "struct", f"byte-aligned {bits}-bit, struct code {code!r}"
                )
                return
            start = self.gbits
            part, check = self._part(kind, bits, v)
            if check:
                self.checks.append(check)
            self._group_add(part, bits)
            if start == 0 and (self.gbits == 0 or self.gbits >= bits) and bits < 8:
                self.note(
                    path, t, offsets, "struct", f"{bits}-bit at a byte boundary, masked in its byte"
                )
            else:
                self.note(
                    path,
                    t,
                    offsets,
                    "bit-group",
                    f"{bits}-bit at static bit {start} of a byte group",
                )
            return
        part, check = self._part(kind, bits, v)
        if kind == "b":
            # bools and 0/1 pass; anything else (2, NaN, a str) takes the slow path
            self.emit(f"if {check}:")
            self.emit("    raise OverflowError")
            self.emit(f"acc |= {v} << pos")
        else:
            if check:
                self.emit(f"if {check}:")
                self.emit("    raise OverflowError")
            self.emit(f"acc |= {part} << pos")
        self.emit(f"pos += {bits}")
        self.note(path, t, offsets, "bit-stream", "alignment not provable: run-time bit position")

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

    def _array_int(self, el: Any, v: str) -> str:
        """An expression: the bits of array ``v`` as one int."""
        if isinstance(el, pydsdl.BooleanType):
            return f"_b2i({v})"
        code = _byte_code(el)
        if code == "B":
            return f"int.from_bytes({self._u8(v)}, 'little')"
        if code is not None:
            return f"int.from_bytes(_pack_array({code!r}, {v}), 'little')"
        kind, bits, _ = _prim_info(el)
        return f"_i2i({v}, {bits}, {kind == 'i'})"

    @staticmethod
    def _u8(v: str) -> str:
        # a list of ints or a bytes object as it is; anything else through the range checks
        return (
            f"(bytes({v}) if {v}.__class__ is list or {v}.__class__ is bytes "
            f"else _pack_array('B', {v}))"
        )

    def array(self, t: Any, expr: str, path: str, offsets: Any) -> None:
        el = t.element_type
        large = _is_large(t)
        cap = t.capacity
        v = self.bind(expr)
        fixed = isinstance(t, pydsdl.FixedLengthArrayType)
        if _is_composite(el):
            self.align8()
            n = self.new("n")
            self.emit(f"{n} = len({v})")
            if fixed:
                self.checks.append(f"({n} != {cap})")
            else:
                self.checks.append(f"({n} > {cap})")
                self.items.append((_INT_CODE[(t.length_field_type.bit_length, False)], n))
                if t.length_field_type.bit_length == 8:
                    self.safe.add(n)
            self.flush()
            e = self.new("e")
            self.emit(f"for {e} in {v}:")
            if _plain_fixed(el):
                # the element's code inlined in the loop: no call per element
                self.indent += 1
                self.structure(el, e, f"{path}[]", None)
                self.align8()
                self.flush()
                self.indent -= 1
                self.steps += 1
                self.note(
                    path, t, offsets, "inline", "array of fixed structures: element code in a loop"
                )
                return
            self.emit(f"    {self._composite_fn(el)}({e}, out)")
            self.steps += 1
            self.note(path, t, offsets, "call", "array of composites: element routine in a loop")
            return
        code = _byte_code(el)
        if fixed:
            if self.mode == "byte" and self.gbits == 0 and code is not None:
                self.checks.append(f"(len({v}) - {cap})")
                if code == "B":
                    self.items.append((f"{cap}s", self._u8(v)))
                elif large:
                    self.items.append(
                        (f"{cap * el.bit_length // 8}s", f"_pack_array({code!r}, {v})")
                    )
                else:
                    self.items.append((f"{cap}{code}", f"*{v}"))
                self.note(
                    path, t, offsets, "struct", f"byte-aligned, struct repeat count {cap}{code}"
                )
                return
            if self.mode == "byte" and self.gbits == 0 and _byte_bools(el, cap, large):
                # exactly cap // 8 bytes (or an exception): numpy's packbits for a
                # numpy bool array of that shape, bools_to_bytes for anything else
                packed = (
                    f"(_packbits({v}, None, 'little').tobytes() if {v}.__class__ is _ndarray "
                    f"and {v}.dtype is _BOOL and {v}.shape == ({cap},) else _bools_bytes({v}, {cap}))"
                )
                self.items.append((f"{cap // 8}s", packed))
                self.exact.add(packed)
                self.note(
                    path, t, offsets, "struct", f"byte-aligned bool[{cap}]: {cap // 8} packed bytes"
                )
                return
            width = cap * el.bit_length
            if isinstance(el, pydsdl.BooleanType) and 0 < cap <= SMALL_BOOLS:
                # a few bools: unpacked (which checks the length) and or-ed in place
                names = [self.new("e") for _ in range(cap)]
                self.emit(f"{', '.join(names)}, = {v}")
                # bools and 0/1 only here; anything else takes the slow path
                self.emit(f"if ({' | '.join(names)}) >> 1:")
                self.emit("    raise OverflowError")
                bits = " | ".join(f"{e} << {i}" if i else f"{e}" for i, e in enumerate(names))
                if self.mode == "byte":
                    self._group_add(f"({bits})", width)
                    self.note(path, t, offsets, "bit-group", f"{width} bits at a static bit offset")
                    return
                self.emit(f"acc |= ({bits}) << pos")
                self.emit(f"pos += {width}")
                self.note(
                    path, t, offsets, "bit-stream", "alignment not provable: run-time bit position"
                )
                return
            if self.mode == "byte":
                self.checks.append(f"(len({v}) - {cap})")
                self._group_add(f"{self._array_int(el, v)}", width)
                self.note(path, t, offsets, "bit-group", f"{width} bits at a static bit offset")
                return
            self.emit(f"if len({v}) != {cap}:")
            self.emit("    raise OverflowError")
            self.emit(f"acc |= {self._array_int(el, v)} << pos")
            self.emit(f"pos += {width}")
            self.note(
                path, t, offsets, "bit-stream", "alignment not provable: run-time bit position"
            )
            return
        # variable length: the length prefix, then the elements
        n = self.new("n")
        self.emit(f"{n} = len({v})")
        lbits = t.length_field_type.bit_length
        if self.mode == "byte":
            self.checks.append(f"({n} > {cap})")
            if self.gbits == 0:
                self.items.append((_INT_CODE[(lbits, False)], n))
                if lbits == 8:
                    self.safe.add(n)
            else:
                self._group_add(n, lbits)
        else:
            self.emit(f"if {n} > {cap}:")
            self.emit("    raise OverflowError")
            self.emit(f"acc |= {n} << pos")
            self.emit(f"pos += {lbits}")
        if self.mode == "byte" and self.gbits == 0 and code is not None:
            if code == "B":
                # the pending run and the bytes in one statement (a top-level
                # serializer then returns it as it is)
                head = self._head()
                self.emit(f"out += {head} + {self._u8(v)}" if head else f"out += {self._u8(v)}")
                self.steps += 1
                self.note(path, t, offsets, "byte-copy", "byte-aligned array: one bytes copy")
            elif large:
                # a list goes out with the run in one pack; a numpy array as one tobytes()
                codes = "".join(c for c, _ in self.items)
                args = [e for _, e in self.items if e is not None]
                cache = self.gen.mod.cache("<" + codes, code, cap)
                head = self._head()
                plus = f"{head} + " if head else ""
                # numpy first: what a large array decodes to
                self.emit(f"if {v}.__class__ is _ndarray and {v}.dtype is _DT_{code}:")
                self.emit(f"    out += {plus}{v}.tobytes()")
                self.emit(f"elif {v}.__class__ is list:")
                self.emit(f"    out += {cache}[{n}]({', '.join([*args, '*' + v])})")
                self.emit("else:")
                self.emit(f"    out += {plus}_pack_array({code!r}, {v})")
                self.steps += 2
                self.note(path, t, offsets, "byte-copy", "byte-aligned array: one bytes copy")
            else:
                self.flush(tail=(n, code, v, cap))
                self.note(
                    path,
                    t,
                    offsets,
                    "byte-copy",
                    f"byte-aligned, struct with a run-time count of {code!r}",
                )
            return
        self.to_bits()
        self.emit(f"acc |= {self._array_int(el, v)} << pos")
        self.emit(f"pos += {n} * {el.bit_length}" if el.bit_length != 1 else f"pos += {n}")
        self.note(
            path,
            t,
            offsets,
            "bit-stream",
            "elements not byte-aligned: packed into a run-time bit position",
        )

    def _composite_fn(self, t: Any) -> str:
        ident = self.gen.ident(t)
        return f"_sd_{ident}" if isinstance(t, pydsdl.DelimitedType) else f"_s_{ident}"

    def composite(self, t: Any, expr: str, path: str, offsets: Any) -> None:
        self.align8()
        if isinstance(t, (pydsdl.DelimitedType, pydsdl.UnionType)):
            v = self.bind(expr)
            self.flush()
            self.emit(f"{self._composite_fn(t)}({v}, out)")
            self.steps += 1
            why = (
                "delimited: its own routine behind a length header"
                if isinstance(t, pydsdl.DelimitedType)
                else "union: its own routine per variant"
            )
            self.note(path, t, offsets, "call", why)
            return
        v = self.bind(expr)
        self.note(path, t, offsets, "inline", "sealed structure serialized in place")
        self.structure(t, v, path, offsets)
        self.align8()

    def value(self, t: Any, expr: str, path: str, offsets: Any) -> None:
        if t.alignment_requirement == 8:
            self.align8()
        if isinstance(t, pydsdl.ArrayType):
            self.array(t, expr, path, offsets)
        elif _is_composite(t):
            self.composite(t, expr, path, offsets)
        else:
            self.prim(t, expr, path, offsets)

    def structure(self, t: Any, obj: str, path: str, base: Any) -> None:
        for f, off in _fields_with_offsets(t, base):
            if isinstance(f, pydsdl.PaddingField):
                self.prim(f.data_type, "", f"{path}.<void>", off)
            else:
                self.value(f.data_type, f"{obj}.{_attr(f.name)}", f"{path}.{f.name}", off)


# ---------------------------------------------------------------- deserialization


class _Des(_Emitter):
    """Emits ``def f(b, o, n)`` returning ``(value, next_byte_offset)``.

    ``b`` is padded with zeros up to the type's maximum size (so no read is
    out of bounds, which also implements the implicit zero extension), ``n``
    is the real length of the data, used by delimiter header checks.

    Lists are built as ``[*x]``, not ``list(x)``: no global lookup and call.
    """

    def __init__(self, gen: _Gen, report: list[FieldLayout] | None = None) -> None:
        super().__init__(gen, report)
        self.mode = "byte"
        self.so = 0  # static byte offset from `o` (byte mode)
        self.run_start = 0
        self.items: list[tuple[str, str | None, int]] = []  # (code, target, value count)
        self.post: list[str] = []
        self.gvar = ""
        self.gbits = 0
        self.gstart = 0
        self.gx: list[str] = []

    def flush(self) -> None:
        if self.items:
            codes = "".join(c for c, _, _ in self.items)
            name = self.gen.mod.struct("<" + codes)
            targets = [(t, c) for _, t, c in self.items if t is not None]
            at = f"o + {self.run_start}" if self.run_start else "o"
            call = f"{name}_u(b, {at})"
            multi = [t for t, c in targets if c > 1]
            if not targets:
                pass
            elif codes == "B" and len(targets) == 1:
                self.emit(f"{targets[0][0]} = b[{at}]")
            elif not multi:
                names = ", ".join(t for t, _ in targets)
                self.emit(f"{names}, = {call}" if len(targets) == 1 else f"{names} = {call}")
            elif len(multi) == 1:
                names = ", ".join(("*" + t) if c > 1 else t for t, c in targets)
                self.emit(f"{names}, = {call}" if len(targets) == 1 else f"{names} = {call}")
            else:
                tup = self.new("t")
                self.emit(f"{tup} = {call}")
                i = 0
                for t, c in targets:
                    if c > 1:
                        self.emit(f"{t} = [*{tup}[{i}:{i + c}]]")
                    else:
                        self.emit(f"{t} = {tup}[{i}]")
                    i += c
            self.items = []
            self.steps += 1
        for line in self.post:
            self.emit(line)
        self.post = []
        self.run_start = self.so

    def pin(self) -> None:
        """Make the run-time ``o`` the current position (byte mode, aligned)."""
        self.flush()
        if self.so:
            self.emit(f"o += {self.so}")
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
        self.steps += 1

    def align8(self) -> None:
        if self.mode == "bits":
            self.flush()
            self.emit("o = (p + 7) >> 3")
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

    def prim(self, t: Any, path: str, offsets: Any, target: str | None = None) -> str:
        kind, bits, _ = _prim_info(t)
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
        if self.mode == "byte":
            if self.gbits == 0 and code is not None:
                self.items.append((code, v, 1))
                self.so += bits // 8
                return v
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

    def _from_int(self, el: Any, raw: str, count: str, target: str, large: bool) -> list[str]:
        """Lines turning the int ``raw`` holding ``count`` elements into a list ``target``."""
        if isinstance(el, pydsdl.BooleanType):
            if large:
                fn = "_i2b_np" if count.isdigit() else "_i2b_auto"
                return [f"{target} = {fn}({raw}, {count})"]
            return [f"{target} = _i2b({raw}, {count})"]
        code = _byte_code(el)
        size = el.bit_length // 8
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
            return [f"{target} = [*{self.gen.mod.unpacker(code)}[{count}]({data}, 0)]"]
        kind, bits, _ = _prim_info(el)
        return [f"{target} = _i2i_r({raw}, {bits}, {count}, {kind == 'i'})"]

    def _finish_special(self, el: Any, v: str, path: str, at: str) -> None:
        """utf8 arrays become str, byte arrays bytes (pydsdl's convention)."""
        if isinstance(el, pydsdl.UTF8Type):
            self.emit(f"{v} = _utf8({v}, {at}, {('$' + path)!r})")
        elif isinstance(el, pydsdl.ByteType):
            self.emit(f"{v} = bytes({v})")

    def array(self, t: Any, path: str, offsets: Any) -> str:
        el = t.element_type
        cap = t.capacity
        fixed = isinstance(t, pydsdl.FixedLengthArrayType)
        v = self.new("a")
        large = _is_large(t)
        special = isinstance(el, pydsdl.UTF8Type | pydsdl.ByteType)
        if fixed:
            count = str(cap)
        else:
            if self.mode == "bits":
                self.emit("q = p >> 3")
                at = "q"
            else:
                at = f"o + {self.so}" if self.so else "o"
            count = self.prim(t.length_field_type, path, None)
            if self.mode == "byte" and self.gbits:
                self.to_bits()
            else:
                self.flush()
            self.emit(f"if {count} > {cap}:")
            self.emit(
                f"    raise _DecodeError(f'array length {{{count}}} exceeds capacity {cap}', "
                f"{at}, {('$' + path)!r})"
            )
        if _is_composite(el):
            self.align8()
            self.pin()
            wrapped = _uint_wrapper(el) if cap <= TABLE_CAP else None
            if wrapped is not None:
                # one unpack of all the integers, an object around each
                ecode, ebits, attr = wrapped
                esize = struct.calcsize(ecode)
                g, r = self.new("g"), self.new("r")
                self.emit(f"{v} = []")
                self.emit(f"for {g} in {self.gen.mod.unpacker(ecode, cap)}[{count}](b, o):")
                self.emit(f"    {r} = _new_{self.gen.ident(el)}()")
                mask = f" & {(1 << ebits) - 1}" if ebits < esize * 8 else ""
                self.emit(f"    {r}.{attr} = {g}{mask}")
                self.emit(f"    {v}.append({r})")
                self.emit(f"o += {count} * {esize}" if esize > 1 else f"o += {count}")
                self.steps += 1
                return v
            if _plain_fixed(el):
                # the element's code inlined in the loop (it cannot fail: no tags, no lengths)
                self.emit(f"{v} = []")
                self.emit(f"for _ in range({count}):")
                self.indent += 1
                r = self.structure(el, f"{path}[]", None, inline=True)
                self.flush()
                self.emit(f"{v}.append({r})")
                self.emit(f"o += {self.so}")
                self.so = 0
                self.run_start = 0
                self.indent -= 1
                self.steps += 1
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
            self.emit(f"    raise exc.under(f{(path + '[{' + i + '}]')!r}) from None")
            self.steps += 1
            return v
        code = _byte_code(el)
        size = el.bit_length // 8
        if fixed:
            if self.mode == "byte" and self.gbits == 0 and code is not None and large:
                self.pin()
                self.emit(f"{v} = _np_from(b, {code!r}, {cap}, o)")
                self.emit(f"o += {cap * size}")
                self.steps += 1
                return v
            if self.mode == "byte" and self.gbits == 0 and code is not None:
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
                else:
                    self.items.append((f"{cap}{code}", v, cap))
                self.so += cap * size
                return v
            if self.mode == "byte" and self.gbits == 0 and _byte_bools(el, cap, large):
                # unpacked by numpy straight from the buffer (no bytes object)
                self.flush()
                at = f"o + {self.so}" if self.so else "o"
                self.emit(
                    f"{v} = _unpackbits(_frombuffer(b, _U8, {cap // 8}, {at}), "
                    "None, None, 'little').view(_BOOL)"
                )
                self.so += cap // 8
                self.run_start = self.so
                self.steps += 1
                return v
            width = cap * el.bit_length
            if self.mode == "byte" and isinstance(el, pydsdl.BooleanType) and cap <= SMALL_BOOLS:
                self._group_open()
                g, shift = self.gvar, self.gbits
                self.gx.append(
                    f"{v} = [{', '.join(f'{g} & {1 << (shift + i)} != 0' for i in range(cap))}]"
                )
                self._group_add(width)
                return v
            if self.mode == "byte":
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
        if self.mode == "byte" and self.gbits == 0 and code is not None:
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
                # short buffer raises instead of being cut (see _QUIET_READ)
                self.emit(f"    {v} = [*{self.gen.mod.unpacker(code)}[{count}](b, o)]")
            elif code == "B" and t.capacity >= LARGE:
                self.emit(f"{v} = [*b[o:o + {count}]]")  # utf8 / byte text: no table that long
            else:
                self.emit(f"{v} = [*{self.gen.mod.unpacker(code)}[{count}](b, o)]")
            if special:
                self._finish_special(el, v, path, "o")
            self.emit(f"o += {count}" if size == 1 else f"o += {count} * {size}")
            self.steps += 1
            return v
        self.to_bits()
        raw = self.new("r")
        width = f"{count} * {el.bit_length}" if el.bit_length != 1 else count
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

    def _composite_fn(self, t: Any) -> str:
        ident = self.gen.ident(t)
        return f"_dd_{ident}" if isinstance(t, pydsdl.DelimitedType) else f"_d_{ident}"

    def composite(self, t: Any, path: str, offsets: Any) -> str:
        self.align8()
        if isinstance(t, pydsdl.UnionType):
            # a sealed union: its tag read here, then straight to the variant
            self.pin()
            v = self.new("c")
            ident = self.gen.ident(t)
            code = _INT_CODE[(t.tag_field_type.bit_length, False)]
            self.emit("try:")
            self.lines.extend(
                _tag_read(self.gen, code, len(t.fields), "b", "o", "    " * (self.indent + 1))
            )
            self.emit(f"    {v}, o = _DV_{ident}[t](b, o, n)")
            self.emit("except _DecodeError as exc:")
            self.emit(f"    raise exc.under({path!r}) from None")
            self.steps += 1
            return v
        if isinstance(t, pydsdl.DelimitedType):
            self.pin()
            v = self.new("c")
            self.emit("try:")
            self.emit(f"    {v}, o = {self._composite_fn(t)}(b, o, n)")
            self.emit("except _DecodeError as exc:")
            self.emit(f"    raise exc.under({path!r}) from None")
            self.steps += 1
            return v
        return self.structure(t, path, offsets, inline=True)

    def value(self, t: Any, path: str, offsets: Any) -> str:
        if t.alignment_requirement == 8:
            self.align8()
        if isinstance(t, pydsdl.ArrayType):
            return self.array(t, path, offsets)
        if _is_composite(t):
            return self.composite(t, path, offsets)
        return self.prim(t, path, offsets)

    def structure(self, t: Any, path: str, base: Any, inline: bool = False) -> str:
        values: list[tuple[str, str]] = []
        for f, off in _fields_with_offsets(t, base):
            if isinstance(f, pydsdl.PaddingField):
                self.prim(f.data_type, path, off)
            else:
                values.append((_attr(f.name), self.value(f.data_type, f"{path}.{f.name}", off)))
        self.align8()
        r = self.new("r")
        self.post.append(f"{r} = _new_{self.gen.ident(t)}()")
        for name, v in values:
            self.post.append(f"{r}.{name} = {v}")
        return r


# ------------------------------------------------------------------------------------ per-type code


def _kind_expr(gen: _Gen, t: Any) -> str:
    if isinstance(t, pydsdl.UTF8Type):
        return "('utf8',)"
    if isinstance(t, pydsdl.ByteType):
        return "('byte',)"
    if isinstance(t, pydsdl.ArrayType):
        tag = "fa" if isinstance(t, pydsdl.FixedLengthArrayType) else "va"
        return f"({tag!r}, {t.capacity}, {_kind_expr(gen, t.element_type)}, {_is_large(t)})"
    if _is_composite(t):
        return f"('c', {gen.ident(t)})"
    kind, bits, sat = _prim_info(t)
    if kind == "b":
        return "('b',)"
    return f"({kind!r}, {bits}, {sat})"


def _default_expr(gen: _Gen, t: Any) -> str | None:
    """A literal default, or None when the default must be built per instance."""
    if isinstance(t, pydsdl.ArrayType) or _is_composite(t):
        return None
    kind, _, _ = _prim_info(t)
    return {"b": "False", "f": "0.0"}.get(kind, "0")


def _fresh_default(gen: _Gen, t: Any) -> str:
    """An expression building the default of a field that needs one per instance: the
    nested type's constructor, an empty list, or the runtime's ``default_of``."""
    if _is_composite(t):
        return f"{gen.ident(t)}()"
    if isinstance(t, pydsdl.VariableLengthArrayType):
        return "[]"
    return f"_default({_kind_expr(gen, t)})"


def _constant_value(c: Any) -> str:
    v = c.value.native_value
    if isinstance(c.data_type, pydsdl.FloatType):
        return repr(float(v))
    if isinstance(c.data_type, pydsdl.BooleanType):
        return repr(bool(v))
    if isinstance(v, str):
        return repr(v)
    return repr(int(v))


def _max_bytes(t: Any) -> int:
    return (int(t.bit_length_set.max) + 7) // 8


def _min_bytes(t: Any) -> int:
    return (int(t.bit_length_set.min) + 7) // 8


@dataclass
class _Code:
    lines: list[str]
    layout: TypeLayout


_OUT = re.compile(r"\bout\b")
_CALL = re.compile(r"(_sd?)_(\w+)\((\w+), out\)$")
_BITS = re.compile(r"\b(acc|pos)\b")
_ONE_READ = re.compile(r"    (.+) = (_S\d+_u)\(b, o\)$")  # a body's first line: one unpack
_USES_BUF = re.compile(r"\b[bno]\b")
# what a body may do without raising when the data ends early: a slice of the
# buffer (truncated silently), the length n, a nested routine (it may slice)
_QUIET_READ = re.compile(r"\bb\[[^\]]*:|\bn\b|\b_dd?_\w+\(|\b_DV_")


def _returned(kind: str, ident: str, arg: str, unions: set[str]) -> str:
    """The bytes of the appending call ``{kind}_{ident}({arg}, out)`` as an expression: its
    returning twin, or for a sealed union the variant's routine, dispatched right here."""
    if kind == "_s" and ident in unions:
        return f"_RV_{ident}[{arg}._tag]({arg}._value)"
    return f"{'_rd' if kind == '_sd' else '_r'}_{ident}({arg})"


def _returning(lines: list[str], unions: set[str]) -> list[str] | None:
    """A serializer body that appends to ``out``, rewritten to return its bytes, when it can be.

    Every byte-moving statement at the top level of the body becomes one
    part of a single ``return a + b + ...`` (a call into a nested routine
    becomes a call to its returning twin ``_r_``/``_rd_``), and an
    ``if``/``elif``/``else`` whose branches each write one part assigns a
    local instead.  This skips the ``bytearray``, its appends and its copy
    into ``bytes``.  A sealed union (``unions``: their identifiers) is
    dispatched right here, without its ``_r_`` in between.  Bodies with
    loops that write (arrays of composites) give None: :func:`_listed`
    gathers those.
    """
    out: list[str] = []
    parts: list[str] = []
    i = 0
    chain: str | None = None  # the local that the current if/elif/else chain assigns
    unfinished = False  # that chain has no else yet
    while i < len(lines):
        line = lines[i]
        body = line[4:]
        block = []
        j = i + 1
        while j < len(lines) and lines[j].startswith("        "):
            block.append(lines[j])
            j += 1
        if body.startswith(("if ", "elif ", "else:")):
            if body.startswith("if ") and unfinished:
                return None  # a chain that writes must end in else
            if body.startswith("if "):
                chain = None
            writes = [b for b in block if _OUT.search(b)]
            if writes:
                if len(block) != 1 or not block[0].startswith("        out += "):
                    return None
                if chain is None:
                    chain = f"w{len(parts)}"
                    parts.append(chain)
                out.append(line)
                out.append(f"        {chain} = {block[0][len('        out += ') :]}")
                unfinished = not body.startswith("else:")
            else:
                if chain is not None:
                    return None  # a branch of a writing chain that writes nothing
                out.extend([line, *block])
        elif unfinished:
            return None
        elif block:
            if any(_OUT.search(b) for b in block):
                return None
            out.extend([line, *block])
        elif body.startswith("out += ") and _BITS.search(body):
            # the bit accumulator may be reused by a later run: take its bytes now
            out.append(f"    w{len(parts)} = {body[len('out += ') :]}")
            parts.append(f"w{len(parts)}")
        elif body.startswith("out += "):
            parts.append(body[len("out += ") :])
        elif body.startswith("out.append(") and body.endswith(")"):
            parts.append(f"bytes(({body[len('out.append(') : -1]},))")
        elif (m := _CALL.match(body)) is not None:
            parts.append(_returned(m[1], m[2], m[3], unions))
        elif _OUT.search(body):
            return None
        else:
            out.append(line)
        i = j
    if unfinished:
        return None
    if not parts:
        return [*out, "    return b''"]
    if len(parts) <= 4:
        return [*out, f"    return {' + '.join(parts)}"]
    return [*out, f"    return b''.join(({', '.join(parts)},))"]


_OUT_ADD = re.compile(r"^(\s*)out \+= (.+)$")
_OUT_APPEND = re.compile(r"^(\s*)out\.append\((.+)\)$")
_OUT_CALL = re.compile(r"^(\s*)(_sd?)_(\w+)\((\w+), out\)$")


def _listed(lines: list[str], unions: set[str]) -> list[str] | None:
    """A serializer body that appends to the ``bytearray`` ``out`` (one with loops,
    which :func:`_returning` leaves alone), rewritten to gather its parts in a list
    for one ``b''.join``: list appends cost less than ``bytearray +=`` and the
    final ``bytes()`` copy (1.4x for a four-element ``SubjectID`` list).  None
    when ``out`` is used otherwise."""
    body = ["    out = []"]
    for line in lines:
        if (m := _OUT_ADD.match(line)) is not None:
            body.append(f"{m[1]}out.append({m[2]})")
        elif (m := _OUT_APPEND.match(line)) is not None:
            body.append(f"{m[1]}out.append(bytes(({m[2]},)))")  # one byte, range-checked
        elif (m := _OUT_CALL.match(line)) is not None:
            body.append(f"{m[1]}out.append({_returned(m[2], m[3], m[4], unions)})")
        elif _OUT.search(line):
            return None
        else:
            body.append(line)
    return [*body, "    return b''.join(out)"]


def _routine_pair(
    append: str, returning: str, param: str, body: list[str], gen: _Gen
) -> tuple[list[str], list[str] | None]:
    """The lines of ``append(param, out)`` (the serializer ``body``) and of its returning twin
    ``returning(param)``, and the returning body, whose last line returns the bytes (None
    when it keeps a ``bytearray``)."""
    returns = _returning(body, gen.unions)
    if returns is None:
        returns = _listed(body, gen.unions)
    lines = [f"def {append}({param}, out):", *(body or ["    pass"]), ""]
    lines.append(f"def {returning}({param}):")
    if returns is None:
        lines += ["    out = bytearray()", *body, "    return bytes(out)"]  # the body, no call
    else:
        lines += returns
    lines.append("")
    return lines, returns


def _tag_read(gen: _Gen, code: str, fields: int, buf: str, at: str, indent: str) -> list[str]:
    """Lines reading a union's tag into ``t`` from ``buf`` at ``at``, rejecting a bad one."""
    read = (
        f"t = {buf}[{at}]" if code == "B" else f"t, = {gen.mod.struct('<' + code)}_u({buf}, {at})"
    )
    return [
        indent + read,
        f"{indent}if t >= {fields}:",
        f"{indent}    raise _DecodeError(f'invalid union tag {{t}} (the union has {fields} fields)', {at})",
    ]


def _gen_unit(gen: _Gen, unit: _Unit) -> _Code:
    t = unit.inner
    ident = unit.ident
    is_union = isinstance(t, pydsdl.UnionType)
    sealed = not isinstance(unit.t, pydsdl.DelimitedType)
    maxb = _max_bytes(t)
    report: list[FieldLayout] = []
    lines: list[str] = []
    fields = [f for f in t.fields if not isinstance(f, pydsdl.PaddingField)]
    t_fields = t.fields
    des_lines: list[str] = []
    des_r = ""
    des_so = 0
    tb = 0
    tag_code = "B"
    base0 = pydsdl.BitLengthSet(0)
    single = False
    returning: list[str] | None = None

    # ---- serializer body
    if is_union:
        tag_bits = t.tag_field_type.bit_length
        tag_code = _INT_CODE[(tag_bits, False)]
        variants: list[str] = []
        steps = 0
        for k, (f, off) in enumerate(t.iterate_fields_with_offsets(base0)):
            ser = _Ser(gen, report)
            ser.items.append((tag_code, str(k)))
            ser.value(f.data_type, "v", f".{f.name}", off)
            ser.align8()
            ser.flush()
            steps = max(steps, ser.steps)
            pair, _ = _routine_pair(f"_sv{k}_{ident}", f"_rv{k}_{ident}", "v", ser.lines, gen)
            lines.extend(pair)
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
        strategy = "stepwise"
        reason = f"union: a {tag_bits}-bit tag, then one routine per variant"
    else:
        ser = _Ser(gen, report)
        ser.structure(t, "self", "", base0)
        ser.align8()
        ser.flush()
        pair, returning = _routine_pair(f"_s_{ident}", f"_r_{ident}", "self", ser.lines, gen)
        lines.extend(pair)
        last = ser.lines[-1].lstrip() if ser.lines else ""
        single = (
            ser.steps == 1
            and last.startswith(
                ("out += _S", "out += b'", "out += _B1[", "out += (_packbits(", "out.append(")
            )
            and _min_bytes(t) == maxb  # a fixed layout
        )
        if not ser.steps:
            single = True
        bits = any(f.strategy in ("bit-group",) for f in report)
        if single and not bits:
            strategy = "single-struct"
            reason = "fixed layout, every field byte-aligned: one struct.pack / unpack_from"
        elif single:
            strategy = "single-struct+bits"
            reason = (
                "fixed layout with bit-packed fields: one struct call, shifts for the packed bytes"
            )
        else:
            strategy = "stepwise"
            reason = f"{ser.steps} steps: " + ", ".join(
                sorted({f.strategy for f in report if f.strategy not in ("struct", "inline")})
            )
        single_lines = list(ser.lines)

    # ---- deserializer body
    if is_union:
        tag_bits = t.tag_field_type.bit_length
        tb = tag_bits // 8
        variants = []
        for k, (f, off) in enumerate(t.iterate_fields_with_offsets(base0)):
            des = _Des(gen)
            des.so = tb
            des.run_start = tb
            v = des.value(f.data_type, f".{f.name}", off)
            des.align8()
            des.flush()
            lines.append(f"def _dv{k}_{ident}(b, o, n):")
            lines.extend(des.lines)
            lines.append(f"    u = _new_{ident}()")
            lines.append(f"    u._tag = {k}")
            lines.append(f"    u._value = {v}")
            lines.append(f"    return u, o + {des.so}" if des.so else "    return u, o")
            lines.append("")
            variants.append(f"_dv{k}_{ident}")
        lines.append(f"_DV_{ident} = ({', '.join(variants)},)")
        lines.append("")
        lines.append(f"def _d_{ident}(b, o, n):")
        lines.extend(_tag_read(gen, tag_code, len(t.fields), "b", "o", "    "))
        lines.append(f"    return _DV_{ident}[t](b, o, n)")
        lines.append("")
    else:
        des = _Des(gen)
        r = des.structure(t, "", base0)
        des.flush()
        lines.append(f"def _d_{ident}(b, o, n):")
        lines.extend(des.lines)
        lines.append(f"    return {r}, o + {des.so}" if des.so else f"    return {r}, o")
        lines.append("")
        des_lines = list(des.lines)
        des_r = r
        des_so = des.so

    # top-level decode (pads) and the delimited wrappers
    minb = _min_bytes(t)
    top_body = ["    n = len(data)", f"    if n >= {minb}:", "        b = data", "        try:"]
    if is_union:
        top_body.extend(_tag_read(gen, tag_code, len(t_fields), "b", "0", " " * 12))
        top_body.append(f"            r, o = _DV_{ident}[t](b, 0, n)")
        end = "o"
    else:
        top_body.append("            o = 0")
        top_body.extend("        " + line for line in des_lines)
        r = des_r
        end = f"o + {des_so}" if des_so else "o"
    top_body.append(f"            if {end} <= n:")
    top_body.append(f"                return {'r' if is_union else des_r}")
    top_body += [
        "        except _DecodeError:",
        "            raise",
        "        except (_StructError, IndexError, ValueError):",
        "            pass",
        f"    return _d_{ident}(_pad(data, {maxb}), 0, n)[0]",
    ]
    lines.append(f"def _D_{ident}(data):")
    lines.append("    n = len(data)")
    if minb == maxb:
        lines.append(f"    if n < {maxb}:")
        lines.append(f"        data = _pad(data, {maxb})")
        lines.append(f"    return _d_{ident}(data, 0, n)[0]")
    else:
        # Complete input is decoded in place (the body inlined); only input that
        # ends early is padded and decoded again.
        lines.extend(top_body)
    lines.append("")
    if not sealed:
        # the body's bytes as one expression (after its binding lines), with no
        # call in between where the returning body or the union dispatch allows
        body_pre: list[str] = []
        if is_union:
            body_expr = f"_RV_{ident}[self._tag](self._value)"
        elif returning is not None:
            body_pre, body_expr = returning[:-1], returning[-1][len("    return ") :]
        else:
            body_expr = f"_r_{ident}(self)"
        lines.append(f"def _sd_{ident}(v, out):")
        if minb == maxb:
            header = repr(maxb.to_bytes(4, "little"))  # a fixed size: a constant header
            lines.append(f"    out += {header}")
            lines.append(f"    _s_{ident}(v, out)")
            lines.append("")
            lines += [
                f"def _rd_{ident}(self):",
                *body_pre,
                f"    return {header} + {body_expr}",
                "",
            ]
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
        if is_union:
            lines.extend(_tag_read(gen, tag_code, len(t_fields), "b", "o", " " * 8))
            lines.append(f"        v, p = _DV_{ident}[t](b, o, e)")
            lines.append("        if p <= e:")
            lines.append("            return v, e")
        else:
            # the body inlined, bounded by the header (n is the end for nested headers)
            lines.append("        n = e")
            lines.extend("    " + line for line in des_lines)
            lines.append(f"        if o + {des_so} <= e:" if des_so else "        if o <= e:")
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

    # ---- the class
    cls: list[str] = []
    # The keyword constructor is the __call__ of a metaclass of its own, not an
    # __init__: with no __init__, the decoders allocate through type.__call__
    # bound to the class (``_new_<ident>()``), about 60 ns less per object than
    # object.__new__(cls).  A type without fields needs no constructor.
    ctor: list[str] = []
    cls.append(f"class {ident}(metaclass=_T_{ident}):" if fields else f"class {ident}:")
    cls.append(f'    """DSDL type ``{t.full_name}.{t.version.major}.{t.version.minor}``."""')
    cls.append("")
    if is_union:
        cls.append('    __slots__ = ("_tag", "_value")')
    else:
        cls.append(f"    __slots__ = ({''.join(repr(_attr(f.name)) + ', ' for f in fields)})")
    cls.append(
        f"    _FULL_NAME_ = {t.full_name + '.' + str(t.version.major) + '.' + str(t.version.minor)!r}"
    )
    cls.append(f"    _EXTENT_BYTES_ = {unit.t.extent // 8}")
    cls.append(f"    _MAX_BYTES_ = {maxb}")
    cls.append(f"    _SEALED_ = {sealed}")
    cls.append(f"    _UNION_ = {is_union}")
    cls.append(f"    _STRATEGY_ = {strategy!r}")
    if t.has_fixed_port_id:
        cls.append(f"    _FIXED_PORT_ID_ = {t.fixed_port_id}")
    # pycyphal v1's protocol (the model is read lazily, see wireplan.dsdl._pycyphal)
    cls.append("    _MODEL_ = _rt.Model(__file__)")
    cls.append("    _serialize_ = _rt.serialize_into")
    cls.append("    _deserialize_ = classmethod(_rt.deserialize_from)")
    for c in t.constants:
        cls.append(f"    {_attr(c.name)} = {_constant_value(c)}")
    cls.append("")
    if is_union:
        union_params = ", ".join(f"{_attr(f.name)}=None" for f in fields)
        ctor.append(f"    def __call__(cls, *, {union_params}):")
        ctor.append(f"        self = _new_{ident}() if cls is {ident} else _new(cls)")
        ctor.append("        self._tag = -1")
        for k, f in enumerate(fields):
            a = _attr(f.name)
            ctor.append(f"        if {a} is not None:")
            ctor.append("            if self._tag >= 0:")
            ctor.append("                raise _EncodeError('a union takes exactly one field')")
            ctor.append(f"            self._tag = {k}")
            ctor.append(f"            self._value = {a}")
        f0 = fields[0]
        d0 = _default_expr(gen, f0.data_type)
        ctor.append("        if self._tag < 0:")
        ctor.append("            self._tag = 0")
        if d0 is not None:
            ctor.append(f"            self._value = {d0}")
        else:
            ctor.append(f"            self._value = {_fresh_default(gen, f0.data_type)}")
        ctor.append("        return self")
        for k, f in enumerate(fields):
            cls.append(
                f"    {_attr(f.name)} = property(_rt.union_getter({k}), _rt.union_setter({k}))"
            )
        cls.append("")
    elif fields:
        params: list[str] = []
        body: list[str] = []
        for f in fields:
            a = _attr(f.name)
            d = _default_expr(gen, f.data_type)
            if d is not None:
                params.append(f"{a}={d}")
                body.append(f"        self.{a} = {a}")
            else:
                params.append(f"{a}=None")
                body.append(
                    f"        self.{a} = {_fresh_default(gen, f.data_type)} if {a} is None else {a}"
                )
        ctor.append(f"    def __call__(cls, *, {', '.join(params)}):")
        ctor.append(f"        self = _new_{ident}() if cls is {ident} else _new(cls)")
        ctor.extend(body)
        ctor.append("        return self")
    if ctor:
        doc = f"The type of ``{t.full_name}.{t.version.major}.{t.version.minor}``: its constructor."
        cls = [f"class _T_{ident}(type):", f'    """{doc}"""', "", *ctor, "", "", *cls]
    # serialize
    cls.append("    def serialize(self):")
    cls.append('        """The serialized bytes (no delimiter header at the top level)."""')
    if not is_union and returning:
        cls.append("        try:")
        for line in returning:
            cls.append("        " + line)
        cls.append("        except Exception:")
        cls.append(f"            return _serialize_slow({ident}, self)")
    elif not is_union and single:
        cls.append("        return b''")
    elif not is_union:
        cls.append("        out = bytearray()")
        cls.append("        try:")
        for line in single_lines:
            cls.append("        " + line)
        cls.append("        except Exception:")
        cls.append(f"            return _serialize_slow({ident}, self)")
        cls.append("        return bytes(out)")
    else:
        cls.append("        try:")
        cls.append(f"            return _RV_{ident}[self._tag](self._value)")
        cls.append("        except Exception:")
        cls.append(f"            return _serialize_slow({ident}, self)")
    cls.append("")
    # deserialize
    # a staticmethod: nothing to bind on each call (the class is known here)
    cls.append("    @staticmethod")
    cls.append("    def deserialize(data):")
    cls.append(
        '        """Decode ``data``; short input is zero-extended, extra bytes are ignored."""'
    )
    if minb != maxb and not is_union and not any(_QUIET_READ.search(x) for x in des_lines):
        # Every read raises past the end of the data (struct, indexing, frombuffer
        # with a count) and bytes it skips are padding: the body runs on the data
        # as it is, with no length checks, and short data takes the padded path.
        cls.append("        b = data")
        cls.append("        try:")
        cls.append("            o = 0")
        unused = des_lines and re.match(r"    o \+= ", des_lines[-1])
        body = des_lines[:-1] if unused else des_lines
        cls.extend("        " + line for line in body)  # (the last offset update unused)
        cls.append(f"            return {des_r}")
        cls += [
            "        except _DecodeError:",
            "            raise",
            "        except (_StructError, IndexError, ValueError):",
            "            pass",
            f"        return _d_{ident}(_pad(data, {maxb}), 0, len(data))[0]",
        ]
    elif minb != maxb:
        cls.extend("    " + line for line in top_body)
    elif not is_union:
        first = _ONE_READ.match(des_lines[0]) if des_lines else None
        rest = des_lines[1:]
        if maxb and first is not None and not any(_USES_BUF.search(x) for x in rest):
            # one unpack reads everything: try it on the data as it is, pad
            # only when it is too short (no len() on the way)
            targets, name = first.groups()
            cls.append("        try:")
            cls.append(f"            {targets} = {name}(data, 0)")
            cls.append("        except _StructError:")
            cls.append(f"            {targets} = {name}(_pad(data, {maxb}), 0)")
            cls.extend("    " + line for line in rest)
        else:
            cls.append("        n = len(data)")
            if maxb:
                cls.append(f"        if n < {maxb}:")
                cls.append(f"            data = _pad(data, {maxb})")
            cls.append("        b = data")
            cls.append("        o = 0")
            for line in des_lines:
                cls.append("    " + line)
        cls.append(f"        return {des_r}")
    else:
        cls.append("        n = len(data)")
        cls.append(f"        if n < {maxb}:")
        cls.append(f"            data = _pad(data, {maxb})")
        cls.extend(_tag_read(gen, tag_code, len(t_fields), "data", "0", " " * 8))
        cls.append(f"        return _DV_{ident}[t](data, 0, n)[0]")
    cls.append("")
    cls.append("    to_builtin = _rt.to_builtin")
    cls.append("    from_builtin = classmethod(_rt.from_builtin)")
    cls.append("    __eq__ = _rt.eq")
    cls.append("    __repr__ = _rt.repr_of")
    cls.append("    __hash__ = None")
    cls.append("")
    cls.append("")

    # layout report
    layout = TypeLayout(
        name=f"{t.full_name}.{t.version.major}.{t.version.minor}",
        kind="union" if is_union else "structure",
        sealed=sealed,
        extent_bytes=unit.t.extent // 8,
        min_bytes=_min_bytes(t),
        max_bytes=maxb,
        strategy=strategy,
        reason=reason,
        fields=report,
    )
    return _Code(lines=cls + lines, layout=layout)


# ------------------------------------------------------------------------------------ units & modules


def _collect(types: Iterable[Any]) -> dict[tuple[str, int, int], _Unit]:
    """Every composite reachable from ``types``, as units, keyed by (name, major, minor)."""
    units: dict[tuple[str, int, int], _Unit] = {}

    def add(
        t: Any, cls_name: str | None = None, qual: str | None = None, ident: str | None = None
    ) -> None:
        key = _key(t)
        if key in units:
            return
        inner = _unwrap(t)
        name, major, minor = key
        parts = name.split(".")
        if ident is None:
            cls_name = f"{parts[-1]}_{major}_{minor}"
            qual = cls_name
            ident = "_".join([*parts[:-1], cls_name])
            namespace = ".".join(parts[:-1])
        else:
            namespace = ".".join(parts[:-2])
        assert cls_name is not None and qual is not None
        units[key] = _Unit(t, ident, namespace, parts[0], cls_name, qual)
        for f in inner.fields:
            visit(f.data_type)

    def visit(dt: Any) -> None:
        if isinstance(dt, pydsdl.ArrayType):
            visit(dt.element_type)
        elif isinstance(dt, pydsdl.CompositeType):
            add(dt)

    for t in types:
        if isinstance(t, pydsdl.ServiceType):
            base = f"{t.short_name}_{t.version.major}_{t.version.minor}"
            prefix = "_".join([*t.full_name.split(".")[:-1], base])
            add(t.request_type, "Request", f"{base}.Request", f"{prefix}_Request")
            add(t.response_type, "Response", f"{base}.Response", f"{prefix}_Response")
        else:
            add(t)
    return units


@dataclass
class _Service:
    name: str  # "Access_1_0"
    namespace: str
    root: str
    ident: str
    full_name: str
    request: str
    response: str
    fixed_port_id: int | None
    version: tuple[int, int]


def _services(types: Iterable[Any], units: dict[tuple[str, int, int], _Unit]) -> list[_Service]:
    out = []
    for t in types:
        if isinstance(t, pydsdl.ServiceType):
            parts = t.full_name.split(".")
            name = f"{parts[-1]}_{t.version.major}_{t.version.minor}"
            out.append(
                _Service(
                    name=name,
                    namespace=".".join(parts[:-1]),
                    root=parts[0],
                    ident="_".join([*parts[:-1], name]),
                    full_name=t.full_name,
                    request=units[_key(t.request_type)].ident,
                    response=units[_key(t.response_type)].ident,
                    fixed_port_id=t.fixed_port_id if t.has_fixed_port_id else None,
                    version=(t.version.major, t.version.minor),
                )
            )
    return out


_IMPL_HEAD = '''\
"""Generated by wireplan {version} from DSDL: do not edit.

Classes of root namespace ``{root}``; the namespace packages re-export them.
"""
# ruff: noqa
# mypy: ignore-errors

import importlib as _importlib
from struct import Struct as _Struct

from wireplan.dsdl import runtime as _rt

_DecodeError = _rt.DecodeError
_EncodeError = _rt.EncodeError
_new = object.__new__
_alloc = type.__call__  # bound to a class without __init__: a new blank instance
_pad = _rt.pad
_default = _rt.default_of
_b2i = _rt.bools_to_int
_i2b = _rt.int_to_bools
_i2i = _rt.ints_to_int
_i2i_r = _rt.int_to_ints
_fb = _rt.float_to_bits
_bf = _rt.bits_to_float
_pack_array = _rt.pack_array
_B1 = tuple(bytes((i,)) for i in range(256))
_np_from = _rt.numpy_from
_i2b_np = _rt.int_to_bool_array
_bools_bytes = _rt.bools_to_bytes
_unpackbits = _rt.unpackbits
_packbits = _rt.packbits
_U8 = _rt.np.dtype(_rt.np.uint8)
_BOOL = _rt.np.dtype(_rt.np.bool_)
_numbers = _rt.numbers_from
_ndarray = _rt.np.ndarray
_frombuffer = _rt.np.frombuffer
_DT_b = _rt.DTYPES['b']
_DT_B = _rt.DTYPES['B']
_DT_h = _rt.DTYPES['h']
_DT_H = _rt.DTYPES['H']
_DT_i = _rt.DTYPES['i']
_DT_I = _rt.DTYPES['I']
_DT_q = _rt.DTYPES['q']
_DT_Q = _rt.DTYPES['Q']
_DT_e = _rt.DTYPES['e']
_DT_f = _rt.DTYPES['f']
_DT_d = _rt.DTYPES['d']
_i2b_auto = _rt.int_to_bools_auto
_utf8 = _rt.utf8
_U32 = _Struct("<I")
_U32_p = _U32.pack
_U32_u = _U32.unpack_from
_StructError = _rt.StructError
_PREFIX = __name__[: -len({suffix!r})]


def _serialize_slow(cls, obj):
    out = bytearray()
    globals()["_s_" + cls.__dict__["_IDENT_"]](_rt.normalize(cls, obj), out)
    return bytes(out)

'''


def generate(types: Sequence[Any]) -> tuple[dict[str, str], list[TypeLayout]]:
    """Source files (relative path -> text) of the package for ``types``, and their layouts."""
    units = _collect(types)
    services = _services(types, units)
    roots = sorted({u.root for u in units.values()})
    files: dict[str, str] = {}
    layouts: list[TypeLayout] = []
    for root in roots:
        gen = _Gen(units, root)
        mine = [u for u in units.values() if u.root == root]
        mine.sort(key=lambda u: u.ident)
        body: list[str] = []
        for unit in mine:
            code = _gen_unit(gen, unit)
            body.extend(code.lines)
            layouts.append(code.layout)
        tail: list[str] = []
        for unit in mine:
            inner = unit.inner
            fields = [f for f in inner.fields if not isinstance(f, pydsdl.PaddingField)]
            table = ", ".join(
                f"({_attr(f.name)!r}, {_kind_expr(gen, f.data_type)}, {f.name!r})" for f in fields
            )
            tail.append(f"{unit.ident}._FIELDS_ = ({table}{',' if fields else ''})")
            tail.append(f"{unit.ident}._IDENT_ = {unit.ident!r}")
            tail.append(f"{unit.ident}.__name__ = {unit.cls_name!r}")
            tail.append(f"{unit.ident}.__qualname__ = {unit.qualname!r}")
            tail.append(f"{unit.ident}.__module__ = _PREFIX + {unit.namespace!r}")
            tail.append(f"_new_{unit.ident} = _alloc.__get__({unit.ident})")
            if fields:
                # errors of the constructor name the class: "Heartbeat_1_0() got an ..."
                meta = f"_T_{unit.ident}"
                tail.append(f"{meta}.__call__.__qualname__ = {unit.qualname!r}")
                tail.append(f"{meta}.__name__ = {unit.cls_name + '_type'!r}")
                tail.append(f"{meta}.__qualname__ = {unit.qualname + '_type'!r}")
                tail.append(f"{meta}.__module__ = _PREFIX + {unit.namespace!r}")
        for svc in (s for s in services if s.root == root):
            tail.append("")
            tail.append(f"class {svc.ident}:")
            tail.append(
                f'    """DSDL service ``{svc.full_name}.{svc.version[0]}.{svc.version[1]}``."""'
            )
            tail.append("")
            tail.append("    __slots__ = ()")
            tail.append(f"    Request = {svc.request}")
            tail.append(f"    Response = {svc.response}")
            tail.append(
                f"    _FULL_NAME_ = {svc.full_name + '.' + str(svc.version[0]) + '.' + str(svc.version[1])!r}"
            )
            if svc.fixed_port_id is not None:
                tail.append(f"    _FIXED_PORT_ID_ = {svc.fixed_port_id}")
            tail.append("    _MODEL_ = _rt.Model(__file__)")
            tail.append("")
            tail.append(f"{svc.ident}.__name__ = {svc.name!r}")
            tail.append(f"{svc.ident}.__qualname__ = {svc.name!r}")
            tail.append(f"{svc.ident}.__module__ = _PREFIX + {svc.namespace!r}")
            if svc.fixed_port_id is not None:  # as nunavut: the halves carry the service's ID
                tail.append(f"{svc.request}._FIXED_PORT_ID_ = {svc.fixed_port_id}")
                tail.append(f"{svc.response}._FIXED_PORT_ID_ = {svc.fixed_port_id}")
        head = _IMPL_HEAD.format(version=__version__, root=root, suffix=f"{root}.{IMPL_MODULE}")
        imports: list[str] = []
        for other in sorted({units_by_ident(units)[i].root for i in gen.external}):
            imports.append(
                f"_m_{other} = _importlib.import_module(_PREFIX + {other + '.' + IMPL_MODULE!r})"
            )
        for ident in sorted(gen.external):
            u = units_by_ident(units)[ident]
            imports.append(f"{ident} = _m_{u.root}.{ident}")
            union = isinstance(u.inner, pydsdl.UnionType)
            for prefix in (
                ("_new_", "_s_", "_r_", "_d_", "_D_")
                + (("_RV_", "_DV_") if union else ())
                + (
                    ("_sd_", "_rd_", "_dd_")
                    if not isinstance(u.t, pydsdl.StructureType | pydsdl.UnionType)
                    else ()
                )
            ):
                imports.append(f"{prefix}{ident} = _m_{u.root}.{prefix}{ident}")
        text = "\n".join([head, *imports, *gen.mod.header(), "", "", *body, *tail, ""])
        files[f"{root}/{IMPL_MODULE}.py"] = text
    # namespace packages
    namespaces: dict[str, list[tuple[str, str, str]]] = {}  # ns -> [(public name, root, ident)]
    for u in units.values():
        if u.cls_name in ("Request", "Response"):
            continue
        namespaces.setdefault(u.namespace, []).append((u.cls_name, u.root, u.ident))
    for s in services:
        namespaces.setdefault(s.namespace, []).append((s.name, s.root, s.ident))
    all_ns = set()
    for ns in namespaces:
        parts = ns.split(".")
        for i in range(1, len(parts) + 1):
            all_ns.add(".".join(parts[:i]))
    for ns in sorted(all_ns):
        children = sorted(c.split(".")[-1] for c in all_ns if c.rsplit(".", 1)[0] == ns and c != ns)
        entries = sorted(namespaces.get(ns, []))
        lines_ns = [
            f'"""DSDL namespace ``{ns}`` (generated by wireplan {__version__})."""',
            "# ruff: noqa",
            "",
        ]
        if entries:
            names = ", ".join(f"{ident} as {name}" for name, _, ident in entries)
            lines_ns.append(f"from {'.' * len(ns.split('.'))}{IMPL_MODULE} import {names}")
        for child in children:
            lines_ns.append(f"from . import {child} as {child}")
        lines_ns.append("")
        lines_ns.append(
            "__all__ = [" + ", ".join(repr(n) for n in [*(e[0] for e in entries), *children]) + "]"
        )
        lines_ns.append("")
        files[ns.replace(".", "/") + "/__init__.py"] = "\n".join(lines_ns)
    return files, layouts


def models(types: Sequence[Any]) -> dict[str, dict[str, Any]]:
    """The pydsdl type of each class :func:`generate` writes (pycyphal's ``_MODEL_``).

    By root namespace, then full name with version (``_FULL_NAME_``); a
    service maps to its ``ServiceType``.
    """
    out: dict[str, dict[str, Any]] = {}
    for u in _collect(types).values():
        v = u.inner.version
        out.setdefault(u.root, {})[f"{u.inner.full_name}.{v.major}.{v.minor}"] = u.t
    for t in types:
        if isinstance(t, pydsdl.ServiceType):
            name = f"{t.full_name}.{t.version.major}.{t.version.minor}"
            out.setdefault(t.full_name.split(".")[0], {})[name] = t
    return out


def units_by_ident(units: dict[tuple[str, int, int], _Unit]) -> dict[str, _Unit]:
    return {u.ident: u for u in units.values()}


def analyse(types: Sequence[Any]) -> list[TypeLayout]:
    """The layouts of ``types`` (and every type they reach) without writing anything."""
    return generate(types)[1]


def find_type(types: Sequence[Any], name: str) -> Any:
    """The type named ``uavcan.node.Heartbeat.1.0`` (or its request / response)."""
    for t in types:
        candidates = [t]
        if isinstance(t, pydsdl.ServiceType):
            candidates = [t, t.request_type, t.response_type]
        for c in candidates:
            inner = _unwrap(c)
            full = f"{inner.full_name}.{inner.version.major}.{inner.version.minor}"
            if full == name:
                return c
            if (
                isinstance(c, pydsdl.ServiceType)
                and f"{c.full_name}.{c.version.major}.{c.version.minor}" == name
            ):
                return c
    raise CompileError(f"no type named {name!r}")


def byte_code_struct(fmt: str) -> struct.Struct:  # pragma: no cover - debugging helper
    return struct.Struct(fmt)
