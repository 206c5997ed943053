"""A schema compiled for building: each table's entries and, per set of present fields, its shape.

A shape is what packing one table needs: the inline layout (larger fields first), one
precompiled :class:`struct.Struct`, and the vtable bytes.  :class:`~.builder.Builder` compiles
the tables once; :mod:`._packers` writes a packing function per table and shape from them,
which :mod:`._pack` calls on every build.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from wireplan.core.plan import align_up
from wireplan.flatbuffers.schema import StructDef, TypeRef

# Kinds of compiled table entries.
_SCALAR, _STRUCT, _REF, _UTYPE = 0, 1, 2, 3


class _Entry:
    """One inline slot of a table: a scalar, an inline struct, a reference, or a union's type byte."""

    __slots__ = (
        "align",
        "code",
        "default",
        "elements",
        "enum",
        "keep_empty",
        "kind",
        "name",
        "ref",
        "sdef",
        "size",
        "slot",
        "target",
        "type",
    )

    def __init__(
        self,
        name: str,
        slot: int,
        kind: int,
        code: str,
        size: int,
        default: Any,
        type_: TypeRef,
        enum: Mapping[str, int] | None = None,
        sdef: StructDef | None = None,
    ) -> None:
        self.name = name
        self.slot = slot
        self.kind = kind
        self.code = code
        self.size = size
        self.default = default
        self.type = type_
        self.enum = enum
        self.sdef = sdef
        #: Alignment asked for the first element of a vector field (1: natural).
        self.align = 1
        #: Write an empty string rather than leaving the field out.
        self.keep_empty = True
        #: For references: 1 string, 2 table (``target`` is its compiled table), 0 other
        #: (a vector of tables: ``target`` is its elements' compiled table).
        self.ref = 0
        self.target: _Table | None = None
        #: For a vector of scalars: the elements' little-endian dtype and size.
        self.elements: tuple[np.dtype[Any], int] | None = None


class _Shape:
    """The layout of a table with a given set of present entries: packer, vtable, size.

    ``perm[i]`` is the index, in the list of present entries (schema order),
    of the ``i``-th entry in layout order; ``offsets[i]`` its inline offset.
    """

    __slots__ = (
        "align",
        "entries",
        "layout",
        "offsets",
        "packer",
        "perm",
        "size",
        "vtable",
        "zeros",
    )

    def __init__(self, present: list[_Entry]) -> None:
        # Larger fields first keeps padding low; each field is naturally aligned
        # because the table start is aligned to the largest of them.
        perm = sorted(range(len(present)), key=lambda i: (-_align_of(present[i]), present[i].slot))
        fmt = ["<i"]
        pos = 4
        align = 4
        offsets: list[int] = []
        slots: dict[int, int] = {}
        for i in perm:
            e = present[i]
            a = _align_of(e)
            pad = align_up(pos, a) - pos
            if pad:
                fmt.append(f"{pad}x")
            pos += pad
            offsets.append(pos)
            slots[e.slot] = pos
            fmt.append(e.code)
            pos += e.size
            align = max(align, a)
        self.perm = perm
        self.entries = [present[i] for i in perm]
        self.offsets = offsets
        self.packer = struct.Struct("".join(fmt))
        self.size = pos
        self.align = align
        nslots = max(slots, default=-1) + 1
        self.vtable = struct.pack(
            f"<{2 + nslots}H", 4 + 2 * nslots, pos, *(slots.get(k, 0) for k in range(nslots))
        )
        self.zeros = bytes(pos)
        self.layout = list(zip(perm, self.entries, offsets, strict=True))


def _align_of(e: _Entry) -> int:
    if e.kind == _STRUCT:
        assert e.sdef is not None
        return e.sdef.alignment
    return e.size


class _Table:
    """A table definition compiled for building."""

    __slots__ = (
        "fields",
        "key",
        "key_is_string",
        "logged",
        "name",
        "pack",
        "shapes",
        "variant_field",
        "variants",
    )

    def __init__(self, name: str) -> None:
        self.name = name
        # (field name, entry, second entry): a union has its type byte first, then its reference.
        self.fields: list[tuple[str, _Entry, _Entry | None]] = []
        self.shapes: dict[tuple[_Entry, ...], _Shape] = {}
        self.key: str | None = None
        self.key_is_string = False
        #: Held by a value of a ``repeats`` table: its placement is logged while one is recorded.
        self.logged = False
        #: With variants: the value of ``variant_field`` selects the fields that are written.
        self.variant_field = ""
        self.variants: dict[Any, list[tuple[str, _Entry, _Entry | None]]] | None = None
        #: ``pack(state, value, path) -> offset``, generated when first used (:mod:`._packers`).
        self.pack: Callable[[Any, Any, Any], int]
