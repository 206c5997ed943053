"""wireplan's own model of DSDL types: plain data, filled by :mod:`.read`.

Nothing here imports pydsdl.  Offsets are what pydsdl proves with its bit
length sets, kept as their bounds and their residues modulo 64, which is
enough to answer every alignment question up to 64 bits exactly (and
closed under addition, so the offsets of an inlined nested field are the
container's offset plus the nested type's own).
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = [
    "Array",
    "Composite",
    "Constant",
    "DataType",
    "Field",
    "Offsets",
    "Primitive",
    "Service",
    "TopType",
]

_ALL = (1 << 64) - 1


def _rotate(mask: int, by: int) -> int:
    by %= 64
    return ((mask << by) | (mask >> (64 - by))) & _ALL


@dataclass(frozen=True)
class Offsets:
    """A set of possible bit offsets: its bounds and which residues modulo 64 occur."""

    min: int
    max: int
    residues: int  # bit r is set when some offset is r modulo 64

    @classmethod
    def exact(cls, bits: int) -> Offsets:
        """The set holding only ``bits``."""
        return cls(bits, bits, 1 << (bits % 64))

    @property
    def fixed(self) -> bool:
        """Whether the offset is known statically (one value)."""
        return self.min == self.max

    def is_aligned_at(self, n: int) -> bool:
        """Whether every offset is a multiple of ``n`` (a power of two up to 64)."""
        return all(r % n == 0 for r in range(64) if self.residues >> r & 1)

    @property
    def alignment(self) -> int:
        """The largest power of two up to 64 that divides every offset."""
        a = 64
        while a > 1 and not self.is_aligned_at(a):
            a //= 2
        return a

    def __add__(self, other: Offsets) -> Offsets:
        """The set of sums (an inlined field: the container's offset plus its own)."""
        acc = 0
        for r in range(64):
            if self.residues >> r & 1:
                acc |= _rotate(other.residues, r)
        return Offsets(self.min + other.min, self.max + other.max, acc)

    def __or__(self, other: Offsets) -> Offsets:
        """Either set (the variants of a union)."""
        lo, hi = min(self.min, other.min), max(self.max, other.max)
        return Offsets(lo, hi, self.residues | other.residues)

    def pad_to(self, n: int) -> Offsets:
        """Every offset rounded up to a multiple of ``n`` (a power of two up to 64)."""
        acc = 0
        for r in range(64):
            if self.residues >> r & 1:
                acc |= 1 << (-(-r // n) * n % 64)
        return Offsets(-(-self.min // n) * n, -(-self.max // n) * n, acc)

    def repeat(self, count: int) -> Offsets:
        """The sums of ``count`` members (a fixed-length array of such elements).

        By doubling: a handful of additions even for ``count`` in the millions.
        """
        out, step = Offsets.exact(0), self
        while count:
            if count & 1:
                out = out + step
            step = step + step
            count >>= 1
        return out

    def repeat_range(self, count: int) -> Offsets:
        """The sums of 0 to ``count`` members (a variable-length array up to ``count``).

        ``U(n)``, the sums of up to ``n`` members, by halving: ``U(2k) = U(k) | (k*S + U(k))``
        and ``U(2k+1) = U(k) | ((k+1)*S + U(k))``.  A bit length set of pydsdl
        expands to every length; this never does, so a type like nunavut's
        ``CombinatorialExplosion.0.1`` (65536 strings of up to 256 bytes) takes microseconds.
        """
        if count == 0:
            return Offsets.exact(0)
        half = self.repeat_range((count - 1) // 2 if count % 2 else count // 2)
        shift = self.repeat(count // 2 + 1 if count % 2 else count // 2)
        return half | (shift + half)

    def __str__(self) -> str:
        span = f"{self.min}" if self.fixed else f"{self.min}..{self.max}"
        return f"{span} (aligned {self.alignment})"


@dataclass(frozen=True)
class Primitive:
    """A scalar: ``kind`` is ``u``, ``i``, ``f``, ``b`` (bool) or ``v`` (void padding).

    ``text`` is ``"utf8"`` or ``"byte"`` for the element types of text and
    byte arrays (8-bit unsigned on the wire).
    """

    kind: str
    bits: int
    saturated: bool
    label: str  # as DSDL spells it: "saturated uint8"
    text: str = ""
    alignment: int = 1

    @property
    def standard(self) -> bool:
        """Whether it is a number of a standard width (8, 16, 32, 64 bits; floats 16..64)."""
        if self.kind == "f":
            return True
        return self.kind in ("u", "i") and self.bits in (8, 16, 32, 64)

    @property
    def min_bits(self) -> int:
        return self.bits

    @property
    def max_bits(self) -> int:
        return self.bits


@dataclass(frozen=True)
class Array:
    """A fixed-length (``fixed``) or variable-length array."""

    element: DataType
    capacity: int
    fixed: bool
    length_type: Primitive | None  # the length prefix of a variable-length array
    label: str
    alignment: int
    min_bits: int
    max_bits: int


@dataclass(eq=False)
class Field:
    """A field of a composite; ``name`` is empty for padding."""

    name: str
    type: DataType
    offset: Offsets  # from the start of its composite

    @property
    def padding(self) -> bool:
        return not self.name


@dataclass(frozen=True)
class Constant:
    name: str
    kind: str  # "f", "b", "s" (str), "i"
    value: float | bool | str | int
    bits: int = 0  # the width of its type (0 for a string)
    signed: bool = False  # an integer constant of a signed type


@dataclass(eq=False)
class Composite:
    """A structure or union; ``sealed`` false: delimited (a length header where nested)."""

    name: str  # "uavcan.node.Heartbeat"
    version: tuple[int, int]
    union: bool
    sealed: bool
    extent: int  # bits
    min_bits: int
    max_bits: int
    tag_bits: int  # unions: the width of the tag, else 0
    fixed_port_id: int | None
    fields: list[Field] = field(default_factory=list)
    constants: list[Constant] = field(default_factory=list)
    alignment: int = 8
    deprecated: bool = False  # marked @deprecated in its definition
    source: object = field(default=None, repr=False)  # the reader's own object (pydsdl's)

    @property
    def full_name(self) -> str:
        """``uavcan.node.Heartbeat.1.0``."""
        return f"{self.name}.{self.version[0]}.{self.version[1]}"

    @property
    def key(self) -> tuple[str, int, int]:
        return (self.name, *self.version)

    @property
    def label(self) -> str:
        return self.full_name

    @property
    def fixed(self) -> bool:
        """Whether every value has the same serialized size."""
        return self.min_bits == self.max_bits


@dataclass(eq=False)
class Service:
    """A service type: a request and a response composite."""

    name: str
    version: tuple[int, int]
    fixed_port_id: int | None
    request: Composite
    response: Composite
    source: object = field(default=None, repr=False)  # the reader's own object (pydsdl's)

    @property
    def full_name(self) -> str:
        return f"{self.name}.{self.version[0]}.{self.version[1]}"


DataType = Primitive | Array | Composite
TopType = Composite | Service
