"""C code pieces: the function being written, and the C that moves one value.

The wire bits of a C value and back (saturation as DSDL asks), reads and
writes at a static bit offset (constant shifts), loads and stores of
standard-width numbers at a byte address, and the copy call for a length.
"""

from __future__ import annotations

from .c_names import ctype, unsigned
from .model import Primitive

__all__ = [
    "Function",
    "copy_call",
    "from_wire",
    "is_memcpy_number",
    "load",
    "read_static",
    "store",
    "to_wire",
    "write_static",
]

# (load, store) of a standard-width little-endian number at a byte address, by width
_LOAD_STORE = {16: ("wireplanLd16", "wireplanSt16"), 32: ("wireplanLd32", "wireplanSt32"),
               64: ("wireplanLd64", "wireplanSt64")}  # fmt: skip


class Function:
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


def to_wire(p: Primitive, x: str) -> str:
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
        top = unsigned((1 << p.bits) - 1)
        return f"(uint64_t) (({x} > {top}) ? {top} : {x})"
    lo, hi = -(1 << (p.bits - 1)), (1 << (p.bits - 1)) - 1
    return f"(uint64_t) (int64_t) (({x} < {lo}LL) ? {lo}LL : (({x} > {hi}LL) ? {hi}LL : {x}))"


def from_wire(p: Primitive, v: str) -> str:
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
        return f"({ctype(p)}) wireplanSext((uint64_t) ({v}), {p.bits}U)"
    return f"({ctype(p)}) ({v})"


def read_static(p: str, at: int, bits: int) -> str:
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
        e = f"(({e}) & {unsigned((1 << bits) - 1)})"
    return e


def write_static(fn: Function, p: str, at: int, bits: int, v: str) -> None:
    i, s = divmod(at, 8)
    n = (s + bits + 7) // 8
    if s == 0 and bits == 8:
        fn(f"{p}[{i}U] = (uint8_t) ({v});")
        return
    fn.open()
    mask = "" if bits == 64 else f" & {unsigned((1 << bits) - 1)}"
    fn(f"const uint64_t _v = ({v}){mask};")
    if s:
        fn(f"{p}[{i}U] = (uint8_t) (({p}[{i}U] & {(1 << s) - 1}U) | (uint8_t) (_v << {s}U));")
    else:
        fn(f"{p}[{i}U] = (uint8_t) _v;")
    for j in range(1, n):
        fn(f"{p}[{i + j}U] = (uint8_t) (_v >> {8 * j - s}U);")
    fn.close()


def store(fn: Function, addr: str, p: Primitive, x: str) -> None:
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
        fn(f"{_LOAD_STORE[p.bits][1]}({addr}, {v});")


def load(p: Primitive, addr: str) -> str:
    """The value of a byte-aligned standard-width number at ``addr``."""
    raw = f"*({addr})" if p.bits == 8 else f"{_LOAD_STORE[p.bits][0]}({addr})"
    if p.kind == "f":
        return from_wire(p, raw)
    if p.kind == "i":
        return f"({ctype(p)}) wireplanSext({raw}, {p.bits}U)"
    return raw


def copy_call(size: int) -> str:
    """memcpy for a short constant length (the compiler emits moves), else wireplanCopy."""
    return "memcpy" if size <= 64 else "wireplanCopy"


def is_memcpy_number(p: Primitive) -> bool:
    return (p.kind in "ui" and p.bits in (8, 16, 32, 64)) or (p.kind == "f" and p.bits in (32, 64))
