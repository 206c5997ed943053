"""What the Python emitters of one module share: names, struct codes, module constants.

The attribute names of DSDL fields, the ``struct`` codes of primitives, the
thresholds that choose between code shapes, the generated classes (units),
and the module-level constants (``struct`` objects, pack and unpack tables)
that the emitted functions of one module share.
"""

from __future__ import annotations

from dataclasses import dataclass

from wireplan.dsdl._bits import LARGE, large_at  # from so many elements on: numpy arrays

from .languages import PYTHON_CLASS_NAMES, PYTHON_RESERVED
from .model import Array, Composite, DataType, Primitive

_INT_CODE = {(8, False): "B", (16, False): "H", (32, False): "I", (64, False): "Q"}
_INT_CODE.update({(8, True): "b", (16, True): "h", (32, True): "i", (64, True): "q"})
_FLOAT_CODE = {16: "e", 32: "f", 64: "d"}
_GROUP_CODE = {1: "B", 2: "H", 4: "I", 8: "Q"}
SMALL_BOOLS = 16  # fixed bool arrays up to this size are packed with inline code
TABLE_CAP = 256  # per-count pack tables up to this capacity are tuples

# Per primitive kind, both directions in one table: (the value of the wire bits ``{raw}``, the
# wire bits of the value ``{v}``, the check that ``{v}`` fits, None where the packing checks);
# ``{b}``: the width, ``{m}``: its mask, ``{h}``: half its range.  The checks are comparisons,
# not shifts: the interpreter specializes int comparisons.  An unsigned check needs no lower
# bound: a negative value makes the packed integer negative, which pack / to_bytes reject (so
# the slow path runs).  Bools: True/False/0/1 pass; 2 raises here; -1 goes negative like an
# unsigned; NaN, 0.5 or a str fail in the | that packs them: all take the slow path.
_CONVERSIONS = {
    "u": ("{raw}", "{v}", "{v} > {m}"),
    "i": ("(({raw}) ^ {h}) - {h}", "({v} & {m})", "not -{h} <= {v} < {h}"),
    "b": ("{raw} != 0", "{v}", "{v} > 1"),
    "f": ("_bf({raw}, {b})", "_fb({v}, {b})", None),
}


def _facts(bits: int) -> dict[str, int]:
    return {"b": bits, "m": (1 << bits) - 1, "h": 1 << (bits - 1)}


def from_wire(kind: str, bits: int, raw: str) -> str:
    """The value of a primitive of ``kind`` from the expression ``raw`` of its wire bits."""
    return _CONVERSIONS[kind][0].format(raw=raw, **_facts(bits))


def to_wire(kind: str, bits: int, v: str) -> tuple[str, str | None]:
    """The wire bits of the value ``v`` and the check that fails where it does not fit."""
    _, store, check = _CONVERSIONS[kind]
    facts = _facts(bits)
    return store.format(v=v, **facts), None if check is None else check.format(v=v, **facts)


def attr(name: str) -> str:
    """The Python attribute of a DSDL field: as nunavut names it (``id`` -> ``id_``)."""
    return name + "_" if name in PYTHON_RESERVED or name in PYTHON_CLASS_NAMES else name


@dataclass
class Unit:
    """One generated class: a message type, or a service's request or response."""

    t: Composite
    ident: str  # identifier in the implementation module
    namespace: str  # "uavcan.node"
    root: str
    cls_name: str  # "Heartbeat_1_0" or "Request"
    qualname: str  # "Heartbeat_1_0" or "Access_1_0.Request"


class _Constants:
    """Module-level constants shared by the generated functions of one implementation module."""

    def __init__(self) -> None:
        self.structs: dict[str, str] = {}
        self.caches: dict[tuple[str, str], str] = {}
        self.cache_caps: dict[str, int] = {}
        self.unpackers: dict[str, int] = {}  # code -> largest count
        self.heads: dict[tuple[str, tuple[int, ...]], str] = {}
        self.head_caps: dict[str, int] = {}

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

    def head(self, fmt: str, lead: tuple[int, ...], cap: int) -> str:
        """The name of the table of ``struct.pack(fmt, *lead, n)`` for ``n`` up to ``cap``."""
        name = self.heads.get((fmt, lead))
        if name is None:
            name = f"_H{len(self.heads)}"
            self.heads[(fmt, lead)] = name
        self.head_caps[name] = max(cap, self.head_caps.get(name, 0))
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
        for (fmt, lead), name in self.heads.items():
            out.append(f"{name} = _rt.head_table({fmt!r}, {lead!r}, {self.head_caps[name] + 1})")
        out += [
            f"_UC_{code} = _rt.unpack_table({code!r}, {self.unpackers[code] + 1})"
            for code in sorted(self.unpackers)
        ]
        return out

    def unpacker(self, code: str, cap: int | None = None) -> str:
        """The name of the per-count ``unpack_from`` table of elements ``code``, up to ``cap``.

        Number arrays unpack through it only below ``large_at(code)`` elements
        (larger ones become numpy arrays); arrays of one-integer structures up
        to their capacity (at most ``TABLE_CAP``).
        """
        short = large_at(code) - 1
        self.unpackers[code] = max(short if cap is None else cap, self.unpackers.get(code, short))
        return f"_UC_{code}"


def _byte_code(t: DataType) -> str | None:
    """The struct code of a primitive that occupies whole bytes, else None."""
    if not isinstance(t, Primitive) or not t.standard:
        return None
    if t.kind == "f":
        return _FLOAT_CODE[t.bits]
    return _INT_CODE[(t.bits, t.kind == "i")]


def _is_large(t: Array) -> bool:
    """Whether an array's values may be a numpy array: with ``large_at`` elements or more,
    and a float16 array at any length (decoded as numpy float16: Python has no float16)."""
    el = t.element
    if not isinstance(el, Primitive) or el.text:
        return False
    if el.kind == "f" and el.bits == 16:
        return True
    if el.kind == "b":
        return t.capacity >= LARGE
    code = _byte_code(el)
    return code is not None and t.capacity >= large_at(code)


class ModuleContext:
    """State shared by the emitters of one implementation module (one root namespace)."""

    def __init__(self, units: dict[tuple[str, int, int], Unit], root: str) -> None:
        self.units = units
        self.root = root
        self.constants = _Constants()
        self.external: set[str] = set()

    def ident(self, t: Composite) -> str:
        unit = self.units[t.key]
        if unit.root != self.root:
            self.external.add(unit.ident)
        return unit.ident


class _Function:
    """Lines of one function with indentation and fresh local names."""

    def __init__(self, context: ModuleContext) -> None:
        self.context = context
        self.indent = 1
        self.n = 0

    def new(self, prefix: str = "v") -> str:
        self.n += 1
        return f"{prefix}{self.n}"
