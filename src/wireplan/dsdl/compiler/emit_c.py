"""Render C plans (:mod:`.plan_c`) as C11 headers with nunavut 3.1's API.

One header per type (``uavcan/node/Heartbeat_1_0.h``), a service's request
and response in the service's header, identifiers stropped as nunavut does
(``uavcan/_register/Value_1_0.h``, member ``_string``), the same macros,
struct layout (``elements`` + ``count``, ``bitpacked``, ``_tag_``), error
codes and function signatures.  The support routines are in
``wireplan/dsdl/support.h``, copied into the output.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from importlib import resources

from wireplan import __version__

from .model import Array, Composite, Constant, DataType, Primitive, Service, TopType
from .plan_c import CBody, CPlan, CRun, CStep, memcpy_layout, plan_c

__all__ = ["SUPPORT_HEADER", "c_name", "generate_c", "header_path", "strop", "support_text"]

SUPPORT_HEADER = "wireplan/dsdl/support.h"

# nunavut 3.1's reserved identifiers for C (C and C++ keywords, preprocessor words) and the
# patterns of names reserved by the C standard library: a match gets a leading underscore.
_RESERVED = frozenset(
    [
        "asm",
        "auto",
        "break",
        "case",
        "char",
        "const",
        "continue",
        "default",
        "defined",
        "do",
        "double",
        "error",
        "else",
        "elif",
        "endif",
        "enum",
        "extern",
        "float",
        "for",
        "fortran",
        "goto",
        "if",
        "ifdef",
        "ifndef",
        "include",
        "inline",
        "int",
        "line",
        "long",
        "pragma",
        "register",
        "restrict",
        "return",
        "short",
        "signed",
        "sizeof",
        "static",
        "struct",
        "switch",
        "typedef",
        "undef",
        "union",
        "unsigned",
        "void",
        "volatile",
        "while",
        "_Alignas",
        "_Alignof",
        "_Atomic",
        "_Bool",
        "_Complex",
        "_Generic",
        "_Imaginary",
        "_Noreturn",
        "_Pragma",
        "_Static_assert",
        "_Thread_local",
        "alignas",
        "alignof",
        "and",
        "and_eq",
        "atomic_cancel",
        "atomic_commit",
        "atomic_noexcept",
        "bitand",
        "bitor",
        "bool",
        "catch",
        "char8_t",
        "char16_t",
        "char32_t",
        "class",
        "compl",
        "concept",
        "consteval",
        "constexpr",
        "constinit",
        "const_cast",
        "co_await",
        "co_return",
        "co_yield",
        "decltype",
        "delete",
        "dynamic_cast",
        "explicit",
        "export",
        "false",
        "friend",
        "mutable",
        "namespace",
        "new",
        "noexcept",
        "not",
        "not_eq",
        "nullptr",
        "operator",
        "or",
        "or_eq",
        "private",
        "protected",
        "public",
        "reflexpr",
        "reinterpret_cast",
        "requires",
        "static_assert",
        "static_cast",
        "synchronized",
        "template",
        "this",
        "thread_local",
        "throw",
        "true",
        "try",
        "typeid",
        "typename",
        "using",
        "virtual",
        "wchar_t",
        "xor",
        "xor_eq",
        "override",
        "final",
        "import",
        "module",
        "transaction_safe",
        "transaction_safe_dynamic",
        "define",
        "__has_include",
        "__has_cpp_attribute",
        "pascal",
    ]
)
_PATTERNS = [
    re.compile(p)
    for p in (
        r"(^__)|(^_[A-Z])",
        r"^(is|to|str|mem|wcs)[a-z]",
        r"^u?int[a-zA-Z_0-9]*_t",
        r"^(atomic_|memory_)[a-z]",
        r"^(cnd_|mtx_|thrd_|tss_)[a-z]",
        r"^E[A-Z0-9]+",
        r"^FE_[A-Z]",
        r"^U?INT[a-zA-Z_0-9]*_(MAX|MIN|C)",
        r"^(PRI|SCN)[a-zX]",
        r"^LC_[A-Z]",
        r"^SIG_?[A-Z]",
        r"^TIME_[A-Z]",
        r"^ATOMIC_[A-Z]",
        r"^(memory_order_)[a-z]",
    )
]


def strop(name: str, path: bool = False) -> str:
    """A DSDL name as a C identifier, escaped as nunavut 3.1 does (``register`` -> ``_register``).

    ``path``: a folder or file name, which only C keywords and ``_X`` / ``__`` names escape
    (``torque`` stays, the member ``torque`` would not).
    """
    patterns = _PATTERNS[:1] if path else _PATTERNS
    out = re.sub(r"\s+", "_", name)
    out = re.sub(r"^\d|[^a-zA-Z0-9_]+", lambda m: "".join(f"zX{ord(c):04X}" for c in m[0]), out)
    if out in _RESERVED:
        out = "_" + out
    if any(p.match(out) for p in patterns):
        out = "_" + out
    if any(p.match(out) for p in patterns) or out in _RESERVED:
        m = re.match(r"^_+([A-Z]?)", out)
        if m:
            out = f"_{m[1].lower()}{out[m.end() :]}"
    return out


def c_name(name: str, version: tuple[int, int]) -> str:
    """The C name of a type: ``uavcan_node_Heartbeat_1_0``."""
    parts = name.split(".")
    return strop("_".join([*parts[:-1], f"{parts[-1]}_{version[0]}_{version[1]}"]))


def header_path(name: str, version: tuple[int, int]) -> str:
    """``uavcan/node/Heartbeat_1_0.h`` (namespace folders and file stem stropped)."""
    parts = name.split(".")
    stem = strop(f"{parts[-1]}_{version[0]}_{version[1]}", path=True)
    return "/".join([*(strop(p, path=True) for p in parts[:-1]), stem + ".h"])


def _guard(name: str, version: tuple[int, int]) -> str:
    s = re.sub(r"\W+", "_", name.strip())
    s = re.sub(r"(?<=[A-Z])([A-Z][a-z]+)", lambda m: "_" + m[0].lower(), s)
    s = re.sub(r"(?<=_)([A-Z])+", lambda m: m[0].lower(), s)
    s = re.sub(r"(?<=[a-z])([A-Z])+", lambda m: "_" + m[0].lower(), s)
    return f"{s.upper()}_{version[0]}_{version[1]}_INCLUDED_"


def support_text() -> str:
    """The support header's text (package data)."""
    return (
        resources.files("wireplan.dsdl.compiler")
        .joinpath("c/wireplan_dsdl_support.h")
        .read_text(encoding="utf-8")
    )


# -- C types and members -------------------------------------------------------------------------


def _ctype(t: DataType) -> str:
    if isinstance(t, Composite):
        return c_name(t.name, t.version)
    assert isinstance(t, Primitive)
    if t.kind == "b":
        return "bool"
    if t.kind == "f":
        return "double" if t.bits == 64 else "float"
    width = next(n for n in (8, 16, 32, 64) if t.bits <= n)
    return f"{'int' if t.kind == 'i' else 'uint'}{width}_t"


def _is_bool_array(t: DataType) -> bool:
    return isinstance(t, Array) and isinstance(t.element, Primitive) and t.element.kind == "b"


def _member(path: tuple[str, ...], t: DataType) -> str:
    names = [strop(n) for n in path[:-1]]
    last = path[-1]
    if isinstance(t, Array) and t.fixed and _is_bool_array(t):
        names.append(strop(last + "_bitpacked_"))
    else:
        names.append(strop(last))
    return ".".join(names)


def _u(n: int) -> str:
    return f"{n}U" if n < 1 << 32 else f"{n}ULL"


class _Fn:
    """A function body being written: lines, indentation, fresh names."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.depth = 1
        self.count = 0

    def fresh(self, stem: str) -> str:
        self.count += 1
        return f"_{stem}{self.count}_"

    def __call__(self, *lines: str) -> None:
        for line in lines:
            if line.startswith("#"):
                self.lines.append(line)
            else:
                self.lines.append("    " * self.depth + line if line else "")

    def open(self) -> None:
        self("{")
        self.depth += 1

    def close(self) -> None:
        self.depth -= 1
        self("}")


# -- values ---------------------------------------------------------------------------------------


def _to_wire(p: Primitive, x: str) -> str:
    """The uint64_t wire bits of C value ``x`` (saturated per DSDL; masked by the writer)."""
    if p.kind == "b":
        return f"(uint64_t) ({x} ? 1U : 0U)"
    if p.kind == "f":
        if p.bits == 16:
            return f"(uint64_t) wireplanF16Pack({x}, {'true' if p.saturated else 'false'})"
        if p.bits == 32:
            return f"(uint64_t) wireplanF32Bits({x})"
        return f"wireplanF64Bits({x})"
    if p.bits in (8, 16, 32, 64) or not p.saturated:
        return f"(uint64_t) {x}" if p.kind == "u" else f"(uint64_t) (int64_t) {x}"
    if p.kind == "u":
        top = _u((1 << p.bits) - 1)
        return f"(uint64_t) (({x} > {top}) ? {top} : {x})"
    lo, hi = -(1 << (p.bits - 1)), (1 << (p.bits - 1)) - 1
    return f"(uint64_t) (int64_t) (({x} < {lo}LL) ? {lo}LL : (({x} > {hi}LL) ? {hi}LL : {x}))"


def _from_wire(p: Primitive, v: str) -> str:
    """The C value of the wire bits ``v`` (an unsigned expression holding exactly p.bits)."""
    if p.kind == "b":
        return f"(({v}) != 0U)"
    if p.kind == "f":
        if p.bits == 16:
            return f"wireplanF16Unpack((uint16_t) ({v}))"
        if p.bits == 32:
            return f"wireplanF32From((uint32_t) ({v}))"
        return f"wireplanF64From((uint64_t) ({v}))"
    if p.kind == "i":
        return f"({_ctype(p)}) wireplanSext((uint64_t) ({v}), {p.bits}U)"
    return f"({_ctype(p)}) ({v})"


def _read_static(p: str, at: int, bits: int) -> str:
    i, s = divmod(at, 8)
    n = (s + bits + 7) // 8
    terms = []
    for j in range(n):
        sh = 8 * j - s
        b = f"{p}[{i + j}U]"
        if sh < 0:
            terms.append(f"((uint64_t) {b} >> {-sh}U)")
        elif sh == 0:
            terms.append(f"(uint64_t) {b}")
        else:
            terms.append(f"((uint64_t) {b} << {sh}U)")
    e = " | ".join(terms)
    if bits < 64 and not (s == 0 and bits == 8 * n):
        e = f"(({e}) & {_u((1 << bits) - 1)})"
    return e


def _write_static(fn: _Fn, p: str, at: int, bits: int, v: str) -> None:
    i, s = divmod(at, 8)
    n = (s + bits + 7) // 8
    if s == 0 and bits == 8:
        fn(f"{p}[{i}U] = (uint8_t) ({v});")
        return
    fn.open()
    mask = "" if bits == 64 else f" & {_u((1 << bits) - 1)}"
    fn(f"const uint64_t _v = ({v}){mask};")
    if s:
        fn(f"{p}[{i}U] = (uint8_t) (({p}[{i}U] & {(1 << s) - 1}U) | (uint8_t) (_v << {s}U));")
    else:
        fn(f"{p}[{i}U] = (uint8_t) _v;")
    for j in range(1, n):
        fn(f"{p}[{i + j}U] = (uint8_t) (_v >> {8 * j - s}U);")
    fn.close()


_ST = {8: None, 16: "wireplanSt16", 32: "wireplanSt32", 64: "wireplanSt64"}
_LD = {8: None, 16: "wireplanLd16", 32: "wireplanLd32", 64: "wireplanLd64"}


def _store(fn: _Fn, addr: str, p: Primitive, x: str) -> None:
    """A byte-aligned standard-width value ``x`` stored at ``addr``."""
    if p.kind == "f":
        if p.bits == 16:
            v = f"wireplanF16Pack({x}, {'true' if p.saturated else 'false'})"
        elif p.bits == 32:
            v = f"wireplanF32Bits({x})"
        else:
            v = f"wireplanF64Bits({x})"
    else:
        v = f"(uint{p.bits}_t) {x}"
    if p.bits == 8:
        fn(f"*({addr}) = (uint8_t) {x};")
    else:
        fn(f"{_ST[p.bits]}({addr}, {v});")


def _load(p: Primitive, addr: str) -> str:
    raw = f"*({addr})" if p.bits == 8 else f"{_LD[p.bits]}({addr})"
    if p.kind == "f":
        return _from_wire(p, raw)
    if p.kind == "i":
        return f"({_ctype(p)}) wireplanSext({raw}, {p.bits}U)"
    return raw


def _copy(size: int) -> str:
    """memcpy for a short constant length (the compiler emits moves), else wireplanCopy."""
    return "memcpy" if size <= 64 else "wireplanCopy"


def _is_memcpy_number(p: Primitive) -> bool:
    return (p.kind in "ui" and p.bits in (8, 16, 32, 64)) or (p.kind == "f" and p.bits in (32, 64))


# -- serialization --------------------------------------------------------------------------------


class _Ser:
    def __init__(self, fn: _Fn) -> None:
        self.fn = fn

    def body(self, body: CBody, base: str) -> None:
        for block in body.blocks:
            if isinstance(block, CRun):
                self.run(block, base)
            else:
                self.dynamic(block, base)

    def run(self, run: CRun, base: str) -> None:
        fn = self.fn
        steps = [s for s in run.steps if s.strategy != "inline"]
        if steps:
            p = fn.fresh("p")
            fn.open()
            fn(f"uint8_t* const {p} = &buffer[off / 8U];")
            for s in steps:
                self.static(s, base, p)
            fn.close()
        if run.bits:
            fn(f"off += {run.bits}U;")

    def static(self, s: CStep, base: str, p: str) -> None:
        fn = self.fn
        assert s.at is not None
        x = base + _member(s.path, s.type) if s.path and s.path[-1] else ""
        t = s.type
        if s.role == "length":
            assert isinstance(t, Primitive)
            arr = base + ".".join(strop(n) for n in s.path)
            fn(f"if ({arr}.count > {s.capacity}U)")
            fn("{", "    return -NUNAVUT_ERROR_REPRESENTATION_BAD_ARRAY_LENGTH;", "}")
            x = f"{arr}.count"
        if isinstance(t, Primitive):
            if s.strategy == "padding":
                _write_static(fn, p, s.at, t.bits, "0U")
            elif s.strategy == "load":
                _store(fn, f"&{p}[{s.at // 8}U]", t, x)
            else:
                _write_static(fn, p, s.at, t.bits, _to_wire(t, x))
            return
        assert isinstance(t, Array) and isinstance(t.element, Primitive)
        el, n, k = t.element, t.capacity, s.at // 8
        if s.strategy == "copy":
            if el.kind == "b":
                if n // 8:
                    fn(f"{_copy(n // 8)}(&{p}[{k}U], &{x}[0], {n // 8}U);")
                if n % 8:
                    fn(f"{p}[{k + n // 8}U] = (uint8_t) ({x}[{n // 8}U] & {(1 << n % 8) - 1}U);")
                return
            size = el.bits // 8
            if _is_memcpy_number(el):
                fn("#if WIREPLAN_DSDL_LE")
                fn(f"{_copy(n * size)}(&{p}[{k}U], &{x}[0], {n * size}U);")
                fn("#else")
            i = fn.fresh("i")
            fn(f"for (size_t {i} = 0U; {i} < {n}U; ++{i})")
            fn.open()
            _store(fn, f"&{p}[{k}U + ({i} * {size}U)]", el, f"{x}[{i}]")
            fn.close()
            if _is_memcpy_number(el):
                fn("#endif")
            return
        if el.kind == "b":
            fn(f"wireplanSetBitArray({p}, {s.at}U, &{x}[0], {n}U);")
            return
        i = fn.fresh("i")
        fn(f"for (size_t {i} = 0U; {i} < {n}U; ++{i})")
        fn.open()
        fn(
            f"wireplanSetBits({p}, {s.at}U + ({i} * {el.bits}U), {_to_wire(el, f'{x}[{i}]')}, {el.bits}U);"
        )
        fn.close()

    def dynamic(self, s: CStep, base: str) -> None:
        fn = self.fn
        t = s.type
        if s.strategy == "align":
            fn("off = (off + 7U) & ~(size_t) 7U;")
            return
        x = base + _member(s.path, t) if s.path and s.path[-1] else ""
        if isinstance(t, Primitive):  # stream scalar, padding or length prefix
            if s.role == "length":
                arr = base + ".".join(strop(n) for n in s.path)
                fn(f"if ({arr}.count > {s.capacity}U)")
                fn("{", "    return -NUNAVUT_ERROR_REPRESENTATION_BAD_ARRAY_LENGTH;", "}")
                v = f"(uint64_t) {arr}.count"
            elif s.strategy == "padding":
                v = "0U"
            else:
                v = _to_wire(t, x)
            fn(f"wireplanSetBits(buffer, off, {v}, {t.bits}U);")
            fn(f"off += {t.bits}U;")
            return
        if isinstance(t, Composite):
            self.call(t, x)
            return
        assert isinstance(t, Array)
        count = f"{x}.count" if not t.fixed else f"{t.capacity}U"
        el = t.element
        elems = f"{x}.elements" if not t.fixed else x
        if isinstance(el, Composite):
            i = fn.fresh("i")
            if s.strategy == "loop":
                assert s.body is not None
                lay = memcpy_layout(el)
                if lay is not None:
                    fn("#if WIREPLAN_DSDL_LE")
                    fn(f"wireplanCopy(&buffer[off / 8U], &{elems}[0], {count} * {lay[0]}U);")
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
        bits = f"{x}.bitpacked" if not t.fixed else x
        if s.strategy == "copy":
            n = fn.fresh("n")
            q = fn.fresh("q")
            fn.open()
            fn(f"const size_t {n} = {count};")
            fn(f"uint8_t* const {q} = &buffer[off / 8U];")
            if el.kind == "b":
                fn(f"wireplanCopy({q}, &{bits}[0], {n} / 8U);")
                fn(f"if (({n} % 8U) != 0U)")
                fn.open()
                fn(f"{q}[{n} / 8U] = (uint8_t) ({bits}[{n} / 8U] & ((1U << ({n} % 8U)) - 1U));")
                fn.close()
                fn(f"off += {n};")
            else:
                size = el.bits // 8
                if _is_memcpy_number(el):
                    fn("#if WIREPLAN_DSDL_LE")
                    fn(f"wireplanCopy({q}, &{elems}[0], {n} * {size}U);")
                    fn("#else")
                i = fn.fresh("i")
                fn(f"for (size_t {i} = 0U; {i} < {n}; ++{i})")
                fn.open()
                _store(fn, f"&{q}[{i} * {size}U]", el, f"{elems}[{i}]")
                fn.close()
                if _is_memcpy_number(el):
                    fn("#endif")
                fn(f"off += {n} * {el.bits}U;")
            fn.close()
            return
        # stream: elements at a run-time bit position
        if el.kind == "b":
            fn(f"wireplanSetBitArray(buffer, off, &{bits}[0], {count});")
            fn(f"off += {count};")
            return
        i = fn.fresh("i")
        fn(f"for (size_t {i} = 0U; {i} < {count}; ++{i})")
        fn.open()
        fn(f"wireplanSetBits(buffer, off, {_to_wire(el, f'{elems}[{i}]')}, {el.bits}U);")
        fn(f"off += {el.bits}U;")
        fn.close()

    def call(self, t: Composite, x: str) -> None:
        fn = self.fn
        name = c_name(t.name, t.version)
        sz, err = fn.fresh("size"), fn.fresh("err")
        fn.open()
        if t.sealed:
            fn(f"size_t {sz} = capacity_bytes - (off / 8U);")
            fn(f"const int8_t {err} = {name}_serialize_(&{x}, &buffer[off / 8U], &{sz});")
            fn(f"if ({err} < 0)", "{", f"    return {err};", "}")
            fn(f"off += {sz} * 8U;")
        else:
            fn(f"size_t {sz} = capacity_bytes - (off / 8U) - 4U;")
            fn(f"const int8_t {err} = {name}_serialize_(&{x}, &buffer[(off / 8U) + 4U], &{sz});")
            fn(f"if ({err} < 0)", "{", f"    return {err};", "}")
            fn(f"wireplanSt32(&buffer[off / 8U], (uint32_t) {sz});")
            fn(f"off += ({sz} + 4U) * 8U;")
        fn.close()


# -- deserialization ------------------------------------------------------------------------------


class _De:
    def __init__(self, fn: _Fn) -> None:
        self.fn = fn

    def body(self, body: CBody, base: str) -> None:
        for block in body.blocks:
            if isinstance(block, CRun):
                self.run(block, base)
            else:
                self.dynamic(block, base)

    def run(self, run: CRun, base: str) -> None:
        fn = self.fn
        steps = [s for s in run.steps if s.strategy not in ("inline", "padding")]
        if steps:
            size = (run.bits + 7) // 8
            p, tmp = fn.fresh("p"), fn.fresh("t")
            fn.open()
            fn(f"const uint8_t* {p};")
            fn(f"uint8_t {tmp}[{size}];")
            fn(f"if (((off / 8U) + {size}U) <= capacity_bytes)")
            fn("{", f"    {p} = &buffer[off / 8U];", "}")
            fn("else")
            fn("{", f"    wireplanGetBytes({tmp}, buffer, capacity_bytes, off / 8U, {size}U);",
               f"    {p} = {tmp};", "}")  # fmt: skip
            for s in steps:
                self.static(s, base, p, size)
            fn.close()
        if run.bits:
            fn(f"off += {run.bits}U;")

    def static(self, s: CStep, base: str, p: str, size: int) -> None:
        fn = self.fn
        assert s.at is not None
        t = s.type
        if s.role == "length":
            assert isinstance(t, Primitive)
            arr = base + ".".join(strop(n) for n in s.path)
            if s.strategy == "load":
                v = _load(t, f"&{p}[{s.at // 8}U]")
            else:
                v = _read_static(p, s.at, t.bits)
            fn(f"{arr}.count = (size_t) ({v});")
            fn(f"if ({arr}.count > {s.capacity}U)")
            fn("{", "    return -NUNAVUT_ERROR_REPRESENTATION_BAD_ARRAY_LENGTH;", "}")
            return
        x = base + _member(s.path, t)
        if isinstance(t, Primitive):
            if s.strategy == "load":
                fn(f"{x} = {_load(t, f'&{p}[{s.at // 8}U]')};")
            else:
                fn(f"{x} = {_from_wire(t, _read_static(p, s.at, t.bits))};")
            return
        assert isinstance(t, Array) and isinstance(t.element, Primitive)
        el, n, k = t.element, t.capacity, s.at // 8
        if s.strategy == "copy":
            if el.kind == "b":
                if n // 8:
                    fn(f"{_copy(n // 8)}(&{x}[0], &{p}[{k}U], {n // 8}U);")
                if n % 8:
                    fn(f"{x}[{n // 8}U] = (uint8_t) ({p}[{k + n // 8}U] & {(1 << n % 8) - 1}U);")
                return
            esize = el.bits // 8
            if _is_memcpy_number(el):
                fn("#if WIREPLAN_DSDL_LE")
                fn(f"{_copy(n * esize)}(&{x}[0], &{p}[{k}U], {n * esize}U);")
                fn("#else")
            i = fn.fresh("i")
            fn(f"for (size_t {i} = 0U; {i} < {n}U; ++{i})")
            fn.open()
            fn(f"{x}[{i}] = {_load(el, f'&{p}[{k}U + ({i} * {esize}U)]')};")
            fn.close()
            if _is_memcpy_number(el):
                fn("#endif")
            return
        if el.kind == "b":
            fn(f"wireplanGetBitArray(&{x}[0], {p}, {size}U, {s.at}U, {n}U);")
            return
        i = fn.fresh("i")
        fn(f"for (size_t {i} = 0U; {i} < {n}U; ++{i})")
        fn.open()
        v = f"wireplanGetBits({p}, {size}U, {s.at}U + ({i} * {el.bits}U), {el.bits}U)"
        fn(f"{x}[{i}] = {_from_wire(el, v)};")
        fn.close()

    def dynamic(self, s: CStep, base: str) -> None:
        fn = self.fn
        t = s.type
        if s.strategy == "align":
            fn("off = (off + 7U) & ~(size_t) 7U;")
            return
        if isinstance(t, Primitive):
            if s.role == "length":
                arr = base + ".".join(strop(n) for n in s.path)
                fn(
                    f"{arr}.count = (size_t) wireplanGetBits(buffer, capacity_bytes, off, {t.bits}U);"
                )
                fn(f"if ({arr}.count > {s.capacity}U)")
                fn("{", "    return -NUNAVUT_ERROR_REPRESENTATION_BAD_ARRAY_LENGTH;", "}")
            elif s.strategy != "padding":
                x = base + _member(s.path, t)
                v = f"wireplanGetBits(buffer, capacity_bytes, off, {t.bits}U)"
                fn(f"{x} = {_from_wire(t, v)};")
            fn(f"off += {t.bits}U;")
            return
        x = base + _member(s.path, t)
        if isinstance(t, Composite):
            self.call(t, x)
            return
        assert isinstance(t, Array)
        count = f"{x}.count" if not t.fixed else f"{t.capacity}U"
        el = t.element
        elems = f"{x}.elements" if not t.fixed else x
        if isinstance(el, Composite):
            i = fn.fresh("i")
            if s.strategy == "loop":
                assert s.body is not None
                lay = memcpy_layout(el)
                if lay is not None:
                    fn("#if WIREPLAN_DSDL_LE")
                    fn(f"wireplanGetBytes((uint8_t*) &{elems}[0], buffer, capacity_bytes, off / 8U, "
                       f"{count} * {lay[0]}U);")  # fmt: skip
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
        bits = f"{x}.bitpacked" if not t.fixed else x
        if s.strategy == "copy":
            n = fn.fresh("n")
            fn.open()
            fn(f"const size_t {n} = {count};")
            if el.kind == "b":
                fn(
                    f"wireplanGetBytes(&{bits}[0], buffer, capacity_bytes, off / 8U, ({n} + 7U) / 8U);"
                )
                fn(f"if (({n} % 8U) != 0U)")
                fn.open()
                fn(f"{bits}[{n} / 8U] = (uint8_t) ({bits}[{n} / 8U] & ((1U << ({n} % 8U)) - 1U));")
                fn.close()
                fn(f"off += {n};")
            else:
                size = el.bits // 8
                if _is_memcpy_number(el):
                    fn("#if WIREPLAN_DSDL_LE")
                    fn(f"wireplanGetBytes((uint8_t*) &{elems}[0], buffer, capacity_bytes, off / 8U, "
                       f"{n} * {size}U);")  # fmt: skip
                    fn("#else")
                pos, i = fn.fresh("pos"), fn.fresh("i")
                fn(f"const size_t {pos} = off / 8U;")
                fn(f"if (({pos} + ({n} * {size}U)) <= capacity_bytes)")
                fn.open()
                fn(f"for (size_t {i} = 0U; {i} < {n}; ++{i})")
                fn.open()
                fn(f"{elems}[{i}] = {_load(el, f'&buffer[{pos} + ({i} * {size}U)]')};")
                fn.close()
                fn.close()
                fn("else")
                fn.open()
                fn(f"for (size_t {i} = 0U; {i} < {n}; ++{i})")
                fn.open()
                fn(f"uint8_t _b[{size}];")
                fn(
                    f"wireplanGetBytes(_b, buffer, capacity_bytes, {pos} + ({i} * {size}U), {size}U);"
                )
                fn(f"{elems}[{i}] = {_load(el, '&_b[0]')};")
                fn.close()
                fn.close()
                if _is_memcpy_number(el):
                    fn("#endif")
                fn(f"off += {n} * {el.bits}U;")
            fn.close()
            return
        if el.kind == "b":
            fn(f"wireplanGetBitArray(&{bits}[0], buffer, capacity_bytes, off, {count});")
            fn(f"off += {count};")
            return
        i = fn.fresh("i")
        fn(f"for (size_t {i} = 0U; {i} < {count}; ++{i})")
        fn.open()
        v = f"wireplanGetBits(buffer, capacity_bytes, off, {el.bits}U)"
        fn(f"{elems}[{i}] = {_from_wire(el, v)};")
        fn(f"off += {el.bits}U;")
        fn.close()

    def call(self, t: Composite, x: str) -> None:
        fn = self.fn
        name = c_name(t.name, t.version)
        sz, err, pos = fn.fresh("size"), fn.fresh("err"), fn.fresh("pos")
        fn.open()
        if t.sealed:
            fn(f"const size_t {pos} = wireplanMin(off / 8U, capacity_bytes);")
            fn(f"size_t {sz} = capacity_bytes - {pos};")
            fn(f"const int8_t {err} = {name}_deserialize_(&{x}, &buffer[{pos}], &{sz});")
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
            fn(f"const int8_t {err} = {name}_deserialize_(&{x}, &buffer[{pos}], &{sz});")
            fn(f"if ({err} < 0)", "{", f"    return {err};", "}")
            fn(f"off += {h} * 8U;")
        fn.close()


# -- a type's definitions -------------------------------------------------------------------------


def _constant(c: Constant) -> str:
    if c.kind == "b":
        return "true" if c.value else "false"
    if c.kind == "f":
        return f"(({'double' if c.bits == 64 else 'float'}) {float(c.value)!r})"
    if c.kind == "s":  # pragma: no cover (DSDL has no string constants in types)
        return '"' + str(c.value).replace("\\", "\\\\").replace('"', '\\"') + '"'
    v = int(c.value)
    if c.signed:
        return f"{v}LL" if c.bits > 32 else str(v)
    return f"{v}ULL" if c.bits > 32 else f"{v}UL" if c.bits > 16 else f"{v}U"


def _field_decl(ref: str, name: str, t: DataType) -> list[str]:
    if isinstance(t, Primitive | Composite):
        return [f"{_ctype(t)} {strop(name)};"]
    if t.fixed:
        if _is_bool_array(t):
            return [f"uint8_t {strop(name + '_bitpacked_')}[{(t.capacity + 7) // 8}];"]
        return [f"{_ctype(t.element)} {strop(name)}[{t.capacity}];"]
    if _is_bool_array(t):
        inner = f"uint8_t bitpacked[{(t.capacity + 7) // 8}];"
    else:
        inner = f"{_ctype(t.element)} elements[{ref}_{name}_ARRAY_CAPACITY_];"
    return ["struct", "{", f"    {inner}", "    size_t count;", f"}} {strop(name)};"]


def _signature(ref: str, which: str) -> str:
    if which == "serialize":
        return (
            f"static inline int8_t {ref}_serialize_(\n"
            f"    const {ref}* const obj, uint8_t* const buffer, size_t* const inout_buffer_size_bytes)"
        )
    return (
        f"static inline int8_t {ref}_deserialize_(\n"
        f"    {ref}* const out_obj, const uint8_t* buffer, size_t* const inout_buffer_size_bytes)"
    )


def _composite(t: Composite, plan: CPlan) -> list[str]:
    ref = c_name(t.name, t.version)
    out = [
        f"// {t.full_name}: {plan.strategy} ({plan.reason})",
        f'#define {ref}_FULL_NAME_             "{t.name}"',
        f'#define {ref}_FULL_NAME_AND_VERSION_ "{t.full_name}"',
        f"#define {ref}_EXTENT_BYTES_                    {t.extent // 8}UL",
        f"#define {ref}_SERIALIZATION_BUFFER_SIZE_BYTES_ {(t.max_bits + 7) // 8}UL",
        f"WIREPLAN_DSDL_STATIC_ASSERT({ref}_EXTENT_BYTES_ >= {ref}_SERIALIZATION_BUFFER_SIZE_BYTES_,",
        '                            "Internal constraint violation");',
    ]
    for c in t.constants:
        out.append(f"#define {ref}_{c.name} ({_constant(c)})")
    for f in t.fields:
        if not f.padding and isinstance(f.type, Array):
            out.append(f"#define {ref}_{f.name}_ARRAY_CAPACITY_           {f.type.capacity}U")
            var = "false" if f.type.fixed else "true"
            out.append(f"#define {ref}_{f.name}_ARRAY_IS_VARIABLE_LENGTH_ {var}")
    out.append("typedef struct")
    out.append("{")
    fields = [f for f in t.fields if not f.padding]
    if t.union:
        out.append("    union")
        out.append("    {")
        for f in fields:
            out.extend("        " + line for line in _field_decl(ref, f.name, f.type))
        out.append("    };")
        out.append(f"    {_ctype(Primitive('u', t.tag_bits, False, ''))} _tag_;")
    elif not fields:
        out.append("    uint8_t _dummy_;")
    else:
        for f in fields:
            out.extend("    " + line for line in _field_decl(ref, f.name, f.type))
    out.append(f"}} {ref};")
    if t.union:
        out.append(f"#define {ref}_UNION_OPTION_COUNT_ {len(t.fields)}U")
    if plan.memcpy_bytes is not None:
        out.append("#if WIREPLAN_DSDL_LE")
        out.append(f"// The wire layout of {t.full_name} is the C layout: checked here.")
        msg = (
            f'"{ref}: the C layout differs from the wire layout on this target; '
            'define WIREPLAN_DSDL_GENERIC"'
        )
        out.append(f"WIREPLAN_DSDL_STATIC_ASSERT(sizeof({ref}) == {plan.memcpy_bytes}U, {msg});")
        for f in fields:
            out.append(
                f"WIREPLAN_DSDL_STATIC_ASSERT(offsetof({ref}, {_member((f.name,), f.type)}) == "
                f"{f.offset.min // 8}U, {msg});"
            )
        out.append("#endif")
    out.append("")
    out.extend(_serialize(t, plan, ref))
    out.append("")
    out.extend(_deserialize(t, plan, ref))
    out.append("")
    out.append(f"static inline void {ref}_initialize_({ref}* const out_obj)")
    out.append("{")
    out.append("    if (out_obj != NULL)")
    out.append("    {")
    out.append("        memset(out_obj, 0, sizeof(*out_obj));")
    out.append("    }")
    out.append("}")
    if t.union:
        for k, f in enumerate(t.fields):
            out.append("")
            out.append(f"static inline void {ref}_select_{f.name}_({ref}* const obj)")
            out.append("{")
            out.append("    if (obj != NULL)")
            out.append("    {")
            out.append(f"        obj->_tag_ = {k};")
            out.append("    }")
            out.append("}")
            out.append(f"static inline bool {ref}_is_{f.name}_(const {ref}* const obj)")
            out.append("{")
            out.append(f"    return ((obj != NULL) && (obj->_tag_ == {k}));")
            out.append("}")
    out.append("")
    return out


def _serialize(t: Composite, plan: CPlan, ref: str) -> list[str]:
    fn = _Fn()
    fn("if ((obj == NULL) || (buffer == NULL) || (inout_buffer_size_bytes == NULL))")
    fn("{", "    return -NUNAVUT_ERROR_INVALID_ARGUMENT;", "}")
    fn("const size_t capacity_bytes = *inout_buffer_size_bytes;")
    if t.max_bits:
        fn(f"if ((8U * capacity_bytes) < {t.max_bits}UL)")
        fn("{", "    return -NUNAVUT_ERROR_SERIALIZATION_BUFFER_TOO_SMALL;", "}")
    fn("size_t off = 0U;")
    ser = _Ser(fn)
    if plan.memcpy_bytes is not None:
        fn("#if WIREPLAN_DSDL_LE")
        fn(f"{_copy(plan.memcpy_bytes)}(buffer, obj, {plan.memcpy_bytes}U);")
        fn(f"off = {plan.memcpy_bytes * 8}U;")
        fn("#else")
    if plan.body is not None:
        ser.body(plan.body, "obj->")
    else:
        tag = Primitive("u", t.tag_bits, False, "")
        fn(f"if (obj->_tag_ >= {len(t.fields)}U)")
        fn("{", "    return -NUNAVUT_ERROR_REPRESENTATION_BAD_UNION_TAG;", "}")
        _store(fn, "&buffer[0]", tag, "obj->_tag_")
        fn(f"off = {t.tag_bits}U;")
        for k, variant in enumerate(plan.variants):
            fn(f"{'if' if k == 0 else 'else if'} ({k}U == obj->_tag_)  // {t.fields[k].name}")
            fn.open()
            ser.body(variant, "obj->")
            fn.close()
    if plan.memcpy_bytes is not None:
        fn("#endif")
    fn("(void) capacity_bytes;")
    fn("*inout_buffer_size_bytes = off / 8U;")
    fn("return NUNAVUT_SUCCESS;")
    return [_signature(ref, "serialize"), "{", *fn.lines, "}"]


def _deserialize(t: Composite, plan: CPlan, ref: str) -> list[str]:
    fn = _Fn()
    fn("if ((out_obj == NULL) || (inout_buffer_size_bytes == NULL) ||")
    fn("    ((buffer == NULL) && (0U != *inout_buffer_size_bytes)))")
    fn("{", "    return -NUNAVUT_ERROR_INVALID_ARGUMENT;", "}")
    fn("if (buffer == NULL)", "{", '    buffer = (const uint8_t*) "";', "}")
    fn("const size_t capacity_bytes = *inout_buffer_size_bytes;")
    fn("size_t off = 0U;")
    de = _De(fn)
    if plan.memcpy_bytes is not None:
        fn("#if WIREPLAN_DSDL_LE")
        w = plan.memcpy_bytes
        fn(f"if (capacity_bytes >= {w}U)")
        fn("{", f"    {_copy(w)}(out_obj, buffer, {w}U);", "}")
        fn("else")
        fn("{", f"    wireplanGetBytes((uint8_t*) out_obj, buffer, capacity_bytes, 0U, {w}U);", "}")
        fn(f"off = {plan.memcpy_bytes * 8}U;")
        fn("#else")
    if plan.body is not None:
        de.body(plan.body, "out_obj->")
    else:
        tag = Primitive("u", t.tag_bits, False, "")
        size = t.tag_bits // 8
        fn(f"if (capacity_bytes >= {size}U)")
        fn("{", f"    out_obj->_tag_ = {_load(tag, '&buffer[0]')};", "}")
        fn("else")
        fn("{", f"    out_obj->_tag_ = ({_ctype(tag)}) wireplanGetBits(buffer, capacity_bytes, 0U, "
           f"{t.tag_bits}U);", "}")  # fmt: skip
        fn(f"off = {t.tag_bits}U;")
        for k, variant in enumerate(plan.variants):
            fn(f"{'if' if k == 0 else 'else if'} ({k}U == out_obj->_tag_)  // {t.fields[k].name}")
            fn.open()
            de.body(variant, "out_obj->")
            fn.close()
        fn("else")
        fn("{", "    return -NUNAVUT_ERROR_REPRESENTATION_BAD_UNION_TAG;", "}")
    if plan.memcpy_bytes is not None:
        fn("#endif")
    fn("*inout_buffer_size_bytes = wireplanMin(off / 8U, capacity_bytes);")
    fn("return NUNAVUT_SUCCESS;")
    return [_signature(ref, "deserialize"), "{", *fn.lines, "}"]


# -- files ----------------------------------------------------------------------------------------


def _deps(t: Composite) -> set[tuple[str, tuple[int, int]]]:
    out = set()
    for f in t.fields:
        ft = f.type.element if isinstance(f.type, Array) else f.type
        if isinstance(ft, Composite):
            out.add((ft.name, ft.version))
    return out


def _file(
    name: str,
    version: tuple[int, int],
    fixed_port_id: int | None,
    parts: Sequence[Composite],
    plans: dict[tuple[str, int, int], CPlan],
    service: bool,
) -> str:
    ref = c_name(name, version)
    guard = _guard(name, version)
    deps: set[tuple[str, tuple[int, int]]] = set()
    for p in parts:
        deps |= _deps(p)
    includes = [f"#include <{SUPPORT_HEADER}>", "#include <stdint.h>", "#include <stdlib.h>"]
    includes += sorted(f"#include <{header_path(n, v)}>" for n, v in deps)
    lines = [
        f"// Generated by wireplan {__version__} from DSDL type {name}.{version[0]}.{version[1]}: "
        "do not edit.",
        "// The API is nunavut 3.1's (nnvg --target-language c); see docs/dsdl-c.md.",
        f"#ifndef {guard}",
        f"#define {guard}",
        "",
        *includes,
        "",
        "#ifdef __cplusplus",
        'extern "C" {',
        "#endif",
        "",
    ]
    if fixed_port_id is not None:
        lines.append(f"#define {ref}_HAS_FIXED_PORT_ID_ true")
        lines.append(f"#define {ref}_FIXED_PORT_ID_     {fixed_port_id}U")
    else:
        lines.append(f"#define {ref}_HAS_FIXED_PORT_ID_ false")
    if service:
        lines.append(f'#define {ref}_FULL_NAME_             "{name}"')
        lines.append(f'#define {ref}_FULL_NAME_AND_VERSION_ "{name}.{version[0]}.{version[1]}"')
    lines.append("")
    for p in parts:
        lines.extend(_composite(p, plans[p.key]))
    lines += ["#ifdef __cplusplus", "}", "#endif", f"#endif // {guard}", ""]
    return "\n".join(lines)


def _reachable(types: Iterable[TopType]) -> dict[tuple[str, int, int], Composite]:
    seen: dict[tuple[str, int, int], Composite] = {}

    def visit(t: DataType) -> None:
        if isinstance(t, Array):
            visit(t.element)
        elif isinstance(t, Composite) and t.key not in seen:
            seen[t.key] = t
            for f in t.fields:
                visit(f.type)

    for t in types:
        if isinstance(t, Service):
            visit(t.request)
            visit(t.response)
        else:
            visit(t)
    return seen


def generate_c(
    types: Sequence[TopType],
) -> tuple[dict[str, str], dict[tuple[str, int, int], CPlan]]:
    """Header files (relative path -> text) for ``types`` and every type they reach, and the
    C plans by type key.  Service halves are written in their service's header."""
    comps = _reachable(types)
    plans = {key: plan_c(t) for key, t in comps.items()}
    files: dict[str, str] = {SUPPORT_HEADER: support_text()}
    halves: set[tuple[str, int, int]] = set()
    for t in types:
        if isinstance(t, Service):
            halves |= {t.request.key, t.response.key}
            path = header_path(t.name, t.version)
            files[path] = _file(t.name, t.version, t.fixed_port_id, [t.request, t.response],
                                plans, True)  # fmt: skip
    for key, c in comps.items():
        if key in halves:
            continue
        files[header_path(c.name, c.version)] = _file(
            c.name, c.version, c.fixed_port_id, [c], plans, False
        )
    return files, plans
