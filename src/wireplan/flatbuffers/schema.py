"""A FlatBuffers schema as plain Python data.

The verified reader (:mod:`wireplan.flatbuffers.reader`) and the planned
builder (:mod:`wireplan.flatbuffers.builder`) are both driven by these
descriptions, so a format (``.ort``) states its tables once.

Types refer to other tables, structs, enums and unions by name; a
:class:`Schema` resolves the names, which lets tables be recursive
(an ``.ort`` ``Attribute`` holds a ``Graph`` that holds ``Node`` tables that
hold ``Attribute`` tables).

Wire facts used throughout (FlatBuffers binary format): little-endian;
a table starts with an ``int32`` soffset to its vtable (``vtable = table -
soffset``); a vtable is ``uint16`` vtable size, ``uint16`` table size, then
one ``uint16`` field offset per slot (0 = absent, use the default);
references (strings, vectors, sub-tables) are ``uint32`` offsets relative
to where they are stored; a vector or string is a ``uint32`` element count
followed by the elements (a string also by a NUL byte); a union field uses
two slots: a ``uint8`` type (0 = NONE) then the reference to the member
table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from wireplan.errors import ArgumentError, NotFoundError

__all__ = [
    "SCALARS",
    "EnumDef",
    "Field",
    "FieldType",
    "Scalar",
    "Schema",
    "StructDef",
    "TableDef",
    "TypeRef",
    "UnionDef",
]


@dataclass(frozen=True, slots=True)
class Scalar:
    """A fixed-size little-endian scalar: ``fmt`` is its :mod:`struct` code."""

    name: str
    fmt: str
    size: int


SCALARS: dict[str, Scalar] = {
    s.name: s
    for s in (
        Scalar("bool", "?", 1),
        Scalar("int8", "b", 1),
        Scalar("uint8", "B", 1),
        Scalar("int16", "h", 2),
        Scalar("uint16", "H", 2),
        Scalar("int32", "i", 4),
        Scalar("uint32", "I", 4),
        Scalar("int64", "q", 8),
        Scalar("uint64", "Q", 8),
        Scalar("float32", "f", 4),
        Scalar("float64", "d", 8),
    )
}


@dataclass(frozen=True, slots=True)
class TypeRef:
    """The type of a field or of a vector's elements.

    ``kind`` is ``"scalar"`` (``name`` is a key of :data:`SCALARS`),
    ``"enum"``, ``"struct"``, ``"table"``, ``"union"`` (``name`` names the
    definition in the schema), ``"string"``, or ``"vector"`` (``element``
    is the element type; vectors of vectors and of unions do not occur in
    the schemas we read and are not supported).
    """

    kind: Literal["scalar", "enum", "struct", "table", "union", "string", "vector"]
    name: str = ""
    element: TypeRef | None = None

    @staticmethod
    def scalar(name: str) -> TypeRef:
        if name not in SCALARS:
            raise ArgumentError(f"unknown scalar type {name!r}")
        return TypeRef("scalar", name)

    @staticmethod
    def vector(element: TypeRef) -> TypeRef:
        if element.kind in ("vector", "union"):
            raise ArgumentError(f"vectors of {element.kind}s are not supported")
        return TypeRef("vector", element=element)


FieldType = TypeRef


@dataclass(frozen=True, slots=True)
class Field:
    """One field of a table.  ``slot`` is its vtable slot (a union takes ``slot`` and ``slot+1``:
    the type byte and the value; ``slot`` here is the value's).

    ``key`` marks the field a vector of this table is sorted by;
    ``deprecated`` fields are never written and read as their default.
    """

    name: str
    slot: int
    type: TypeRef
    default: int | float | bool = 0
    key: bool = False
    deprecated: bool = False
    required: bool = False


@dataclass(frozen=True, slots=True)
class EnumDef:
    name: str
    underlying: str
    values: dict[str, int]


@dataclass(frozen=True, slots=True)
class StructDef:
    """A struct: scalar (or nested struct) fields laid out in order with natural alignment."""

    name: str
    fields: tuple[tuple[str, TypeRef], ...]
    size: int
    alignment: int
    offsets: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class TableDef:
    name: str
    fields: tuple[Field, ...]

    def field(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        raise NotFoundError(f"table {self.name} has no field {name!r}")

    @property
    def key_field(self) -> Field | None:
        for f in self.fields:
            if f.key:
                return f
        return None


@dataclass(frozen=True, slots=True)
class UnionDef:
    """A union: member tables by their type code (0 is NONE and never listed)."""

    name: str
    members: dict[int, str]


@dataclass
class Schema:
    """All definitions of one ``.fbs`` file, by name."""

    root: str
    file_identifier: bytes
    tables: dict[str, TableDef] = field(default_factory=dict)
    structs: dict[str, StructDef] = field(default_factory=dict)
    enums: dict[str, EnumDef] = field(default_factory=dict)
    unions: dict[str, UnionDef] = field(default_factory=dict)

    def table(self, name: str, *fields: Field) -> TableDef:
        slots = [f.slot for f in fields]
        if len(set(slots)) != len(slots):
            raise ArgumentError(f"table {name}: duplicate slots {slots}")
        t = TableDef(name, tuple(fields))
        self.tables[name] = t
        return t

    def struct(self, name: str, *fields: tuple[str, TypeRef]) -> StructDef:
        offsets: list[int] = []
        pos = 0
        align = 1
        for fname, ftype in fields:
            if ftype.kind == "struct":
                sub = self.structs[ftype.name]
                size, a = sub.size, sub.alignment
            elif ftype.kind in ("scalar", "enum"):
                size = a = self.scalar_of(ftype).size
            else:
                raise ArgumentError(f"struct {name}.{fname}: {ftype.kind} fields are not allowed")
            pos = (pos + a - 1) // a * a
            offsets.append(pos)
            pos += size
            align = max(align, a)
        size = (pos + align - 1) // align * align
        s = StructDef(name, tuple(fields), size, align, tuple(offsets))
        self.structs[name] = s
        return s

    def enum(self, name: str, underlying: str, **values: int) -> EnumDef:
        e = EnumDef(name, underlying, dict(values))
        self.enums[name] = e
        return e

    def union(self, name: str, **members: int) -> UnionDef:
        u = UnionDef(name, {code: table for table, code in members.items()})
        self.unions[name] = u
        return u

    def scalar_of(self, t: TypeRef) -> Scalar:
        """The wire scalar of a scalar or enum type."""
        if t.kind == "scalar":
            return SCALARS[t.name]
        if t.kind == "enum":
            return SCALARS[self.enums[t.name].underlying]
        raise ArgumentError(f"{t.kind} {t.name!r} is not a scalar")

    def check(self) -> None:
        """Raise ``ValueError`` if any name a type refers to is not defined."""
        kinds: dict[str, dict[str, object]] = {
            "table": dict(self.tables),
            "struct": dict(self.structs),
            "enum": dict(self.enums),
            "union": dict(self.unions),
        }

        def walk(where: str, t: TypeRef) -> None:
            if t.kind == "vector":
                assert t.element is not None
                walk(where, t.element)
            elif t.kind in kinds and t.name not in kinds[t.kind]:
                raise ArgumentError(f"{where}: unknown {t.kind} {t.name!r}")

        for tdef in self.tables.values():
            for f in tdef.fields:
                walk(f"{tdef.name}.{f.name}", f.type)
        for udef in self.unions.values():
            for member in udef.members.values():
                if member not in self.tables:
                    raise ArgumentError(f"union {udef.name}: unknown table {member!r}")
        if self.root not in self.tables:
            raise ArgumentError(f"root table {self.root!r} is not defined")
