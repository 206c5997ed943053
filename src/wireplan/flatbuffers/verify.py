"""Verify a whole FlatBuffer in a few numpy passes: about one per table type.

:func:`verified` answers one question: would decoding the buffer from its root
table (:mod:`wireplan.flatbuffers.reader`, the same checks and limits) succeed?
It holds every table of one type found so far as an array of positions (with
each one's nesting depth), and makes each of the decoder's checks (offsets inside
the buffer, vtable and table sizes, fields inside their tables, required fields,
vector and string lengths, NUL terminators, UTF-8, union type codes, nesting
depth, the work budget) on the whole array at once.  Types are taken parents
first (:func:`_type_order`), so a type that no cycle of the schema reaches again
is checked in one pass however many levels its tables come from; the types of a
cycle (a graph in a node's attribute) take a pass per level of nesting.  Its cost
grows with the number of table types, not with the number of tables, so a lazy
reader can hand out tables on access from a buffer already known to be sound.

It says only yes or no: where a buffer is bad, the eager decoder finds the first
bad byte and names it (offset and path), as it always has.  The walk is at least
as strict as the decoder; where it is stricter (a buffer far out of the ordinary:
more string bytes than the buffer holds), the caller just decodes eagerly.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np

from wireplan.core.buffers import as_memoryview
from wireplan.flatbuffers._decoders import (
    _STRING,
    _TABLE,
    _UNION,
    _VEC_SCALAR,
    _VEC_STRING,
    _VEC_STRUCT,
    _VEC_TABLE,
    _compiled,
)
from wireplan.flatbuffers.schema import Schema

__all__ = ["Layout", "Present", "every_offset", "verified"]

#: The fields a verified buffer holds: ``(table, field)`` for every field present in at least
#: one table it reaches.
Present = frozenset[tuple[str, str]]

_Ints = np.ndarray[Any, np.dtype[np.int64]]
# The nesting depth of each table of a batch: one number when they share it, else an array.
_Depth = int | _Ints
# What a batch finds, by table type: (positions, their depths) in parts.
_Found = dict[str, list[tuple[_Ints, _Depth]]]

# Reductions straight through the ufuncs (ndarray.max() and .any() go through Python wrappers,
# which cost more than the work on the few tables of most batches).
_MAX = np.maximum.reduce
_MIN = np.minimum.reduce
_ANY = np.logical_or.reduce
_OR = np.bitwise_or.reduce


def every_offset(buffer: Any, dtype: str) -> np.ndarray[Any, Any]:
    """``buffer`` (a memoryview or a byte array) read as ``dtype`` at every byte offset:
    overlapping, no copy; writable when the buffer is."""
    dt = np.dtype(dtype)
    count = memoryview(buffer).nbytes - dt.itemsize + 1
    if count <= 0:
        return np.zeros(0, dt)
    return np.ndarray((count,), dtype=dt, buffer=buffer, offset=0, strides=(1,))


def _spread(starts: _Ints, counts: _Ints, step: int) -> _Ints:
    """``starts[i] + step * k`` for every ``k < counts[i]``, all rows in order."""
    total = int(counts.sum())
    if not total:
        return np.zeros(0, np.int64)
    before = np.cumsum(counts) - counts
    return np.repeat(starts - step * before, counts) + step * np.arange(total, dtype=np.int64)


class Layout:
    """Where the objects of a verified buffer lie, for a caller that moves them.

    Filled by :func:`verified` when given one: ``refs`` the uoffsets followed, as
    arrays of (where stored, where pointing); ``tables`` every table and its vtable;
    ``extents`` the bytes of every object (tables, vtables, vectors with their length,
    strings with their NUL); ``vectors`` the vectors that the field ``field``
    (``(table, field name)``, a vector of scalars) refers to, as (position of the
    length, bytes of the elements).  Arrays may repeat what is shared.
    """

    def __init__(self, field: tuple[str, str] | None = None) -> None:
        self.field = field
        self.refs: list[tuple[_Ints, _Ints]] = []
        self.tables: list[tuple[_Ints, _Ints]] = []
        self.extents: list[tuple[_Ints, _Ints]] = []
        #: the bytes read as values (scalar and struct fields, union codes, vtables, strings,
        #: vectors of numbers, lengths of vectors of references): what no offset may overlap
        self.data: list[tuple[_Ints, _Ints]] = []
        self.vectors: list[tuple[_Ints, _Ints]] = []
        #: a table has entries the walk does not follow (deprecated, or unknown to the schema)
        self.unsure = False
        #: the root table's position, once a walk from it passed
        self.root: int | None = None


class _Walk:
    """One verification: the buffer's typed views, the work spent, the strings to check."""

    def __init__(self, mv: memoryview, budget: int, layout: Layout | None = None) -> None:
        self.mv = mv
        self.n = mv.nbytes
        self.u8 = np.frombuffer(mv, np.uint8)
        self.u16 = every_offset(mv, "<u2")
        self.u32 = every_offset(mv, "<u4")
        self.i32 = every_offset(mv, "<i4")
        self.budget = budget
        self.strings: list[_Ints] = []
        self.present: set[tuple[str, str]] = set()
        self.layout = layout
        # Checked once at the end, as FlatBuffers' verifier requires (reading meanwhile is
        # safe: the views read any byte position): every offset followed a nonzero multiple
        # of 4 (from the root and fields at multiples of 4, so every table, vector and
        # string lies at one), every vtable at an even position.
        self.steps: list[_Ints] = []
        self.vtables: list[_Ints] = []

    def spend(self, units: int) -> bool:
        self.budget -= units
        return self.budget >= 0

    def refs(self, at: _Ints) -> _Ints | None:
        """Where the uoffsets stored at ``at`` point (``at`` + 4 known inside); None if outside."""
        step = self.u32[at]
        target: _Ints = at + step  # uint32 + int64: int64
        if target.size and _MAX(target) + 4 > self.n:
            return None
        self.steps.append(step)
        if self.layout is not None:
            self.layout.refs.append((at, target))
        return target

    def lengths(self, at: _Ints, elem: int, extra: int = 0) -> _Ints | None:
        """The element counts of the vectors at ``at``; None if one runs past the end."""
        count: _Ints = self.u32[at].astype(np.int64)
        return None if _MAX(at + count * elem) + 4 + extra > self.n else count

    def strings_sound(self) -> bool:
        if not self.strings:
            return True
        at = np.unique(np.concatenate(self.strings))
        length = self.lengths(at, 1, 1)
        if length is None:
            return False
        if (self.u8[at + 4 + length] != 0).any():
            return False
        if int(length.sum()) > self.n:  # far out of the ordinary: let the decoder judge
            return False
        if self.layout is not None:
            self.layout.extents.append((at, at + 5 + length))
            self.layout.data.append((at, at + 5 + length))
        # Each string with its NUL: the whole is UTF-8 exactly when every string is (a NUL
        # ends any sequence a string leaves open, and starts none).
        chars = self.u8[_spread(at + 4, length + 1, 1)]
        if not chars.size or int(chars.max()) < 0x80:
            return True
        try:
            chars.tobytes().decode("utf-8")
        except UnicodeDecodeError:
            return False
        return True


class _Fields:
    """A table's fields as arrays, to check them all in one pass.

    ``unread``: the vtable entries of fields never read (deprecated references) and
    ``known`` the slot count the schema knows; a :class:`Layout` is unsure of a table
    with either (a reference there would not be followed).
    """

    __slots__ = (
        "inline",
        "known",
        "misaligned",
        "plans",
        "required",
        "slots",
        "unread",
        "where",
        "wide",
        "wide_mask",
    )

    def __init__(self, plans: list[Any], unread: list[int], known: int) -> None:
        self.plans = plans
        self.slots = np.array([f.slot for f in plans], np.int64)
        self.where = 4 + 2 * self.slots  # of each slot's entry, from the vtable's start
        self.inline = np.array([f.inline for f in plans], np.int64)
        # the bits a field's offset must not have in a table at a multiple of 4, and the
        # fields that must lie at a multiple of 8 (column, mask)
        self.misaligned = np.array([min(f.align, 4) - 1 for f in plans], np.int64)
        self.wide = np.array([j for j, f in enumerate(plans) if f.align > 4], np.int64)
        self.wide_mask = np.array([f.align - 1 for f in plans if f.align > 4], np.int64)
        required = np.array([f.required for f in plans], bool)
        self.required = required if required.any() else None
        self.unread = unread
        self.known = known


_FIELDS: dict[int, tuple[Schema, tuple[dict[str, _Fields], list[str]]]] = {}


def _fields(schema: Schema) -> tuple[dict[str, _Fields], list[str]]:
    """Each table type's :class:`_Fields`, and the order to check the types in."""
    hit = _FIELDS.get(id(schema))
    if hit is None or hit[0] is not schema:
        tables = {}
        for name, plans in _compiled(schema).tables.items():
            fields = schema.tables[name].fields
            unread = [
                f.slot
                for f in fields
                if f.deprecated and f.type.kind not in ("scalar", "enum", "struct")
            ]
            known = max((f.slot + 1 for f in fields), default=0)
            tables[name] = _Fields(plans, unread, known)
        hit = _FIELDS[id(schema)] = (schema, (tables, _type_order(schema)))
    return hit[1]


def _type_order(schema: Schema) -> list[str]:
    """The table types, each after every type that can refer to it, except where a cycle of
    references (a graph in an attribute of a node of a graph) forbids it: the types of a
    cycle come together, as the walk from the root first meets them.

    Checking the types in this order, each type outside a cycle is checked once, when all
    its tables are known.
    """
    plans = _compiled(schema).tables
    refers: dict[str, list[str]] = {
        name: [
            t
            for f in fs
            for t in (
                [f.target]
                if f.kind in (_TABLE, _VEC_TABLE)
                else list(f.members.values())
                if f.kind == _UNION and f.members
                else []
            )
            if t in plans
        ]
        for name, fs in plans.items()
    }
    # first met, breadth first from the root (then the types it does not reach)
    met: dict[str, int] = {}
    for start in (schema.root, *plans):
        if start not in plans or start in met:
            continue
        met[start] = len(met)
        queue = [start]
        for name in queue:
            for t in refers[name]:
                if t not in met:
                    met[t] = len(met)
                    queue.append(t)
    # the cycles (strongly connected components, Tarjan's), found children first
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    component: dict[str, int] = {}  # numbered as found: children before parents
    found = 0

    def visit(v: str) -> None:
        nonlocal found
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in refers[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            while True:
                w = stack.pop()
                on.discard(w)
                component[w] = found
                if w == v:
                    break
            found += 1

    for name in sorted(plans, key=met.__getitem__):
        if name not in index:
            visit(name)
    return sorted(plans, key=lambda t: (-component[t], met[t]))


def verified(
    schema: Schema,
    buffer: Any,
    root: int,
    table: str | None = None,
    *,
    max_depth: int,
    budget: int,
    layout: Layout | None = None,
) -> Present | None:
    """Whether decoding the table ``table`` (default: the schema's root) at ``root`` would succeed.

    ``None`` if it would fail; else the fields present (:data:`Present`), so a reader can tell
    that no table uses a field without decoding any.

    ``max_depth`` and ``budget`` are the decoder's (:class:`~wireplan.flatbuffers.reader.Limits`:
    ``expansion_factor * len(buffer) + expansion_slack`` work units, charged as it charges
    them for a decode without ``copy``).  ``layout``: filled with where every object lies.
    """
    walk = _Walk(as_memoryview(buffer), budget, layout)
    tables, order = _fields(schema)
    pending: _Found = defaultdict(list)
    pending[table or schema.root].append((np.array([root], np.int64), 0))
    while pending:
        tname = next(t for t in order if t in pending)
        pos, depth = _joined(pending.pop(tname))
        if not pos.size:
            continue
        if (depth if isinstance(depth, int) else int(_MAX(depth))) > max_depth:
            return None
        if not _tables(walk, tables[tname], tname, pos, depth, pending):
            return None
    if not (_strings_charged(walk) and walk.strings_sound()) or _misaligned(walk, root):
        return None
    if layout is not None:
        layout.root = root
    return frozenset(walk.present)


def _misaligned(walk: _Walk, root: int) -> bool:
    """Whether a table, vector or string of the walk is off a multiple of 4 (the root, or an
    offset followed), an offset is 0, or a vtable lies at an odd position."""
    if walk.steps:
        steps = np.concatenate(walk.steps)
        if _OR(steps) & 3 or not _MIN(steps):
            return True
    return bool(root & 3 or (walk.vtables and _OR(np.concatenate(walk.vtables)) & 1))


def _joined(parts: list[tuple[_Ints, _Depth]]) -> tuple[_Ints, _Depth]:
    """One batch of the parts found of a type: positions, and depths (one number if shared)."""
    if len(parts) == 1:
        return parts[0]
    pos = np.concatenate([p for p, _ in parts])
    shared = {d if isinstance(d, int) else -1 for _, d in parts}
    if len(shared) == 1 and -1 not in shared:
        return pos, shared.pop()
    return pos, np.concatenate(
        [np.full(p.size, d, np.int64) if isinstance(d, int) else d for p, d in parts]
    )


def _at(depth: _Depth, rows: Any) -> _Depth:
    """The depths of the tables ``rows`` selects (a mask or indices)."""
    return depth if isinstance(depth, int) else depth[rows]


def _tables(
    walk: _Walk,
    fields: _Fields,
    tname: str,
    pos: _Ints,
    depth: _Depth,
    following: _Found,
) -> bool:
    """Check the tables of one type at ``pos`` (nested ``depth`` deep); queue what they
    refer to, one level deeper (``pos`` not empty)."""
    n, u16 = walk.n, walk.u16
    if not walk.spend(4 * pos.size) or _MAX(pos) + 4 > n:
        return False
    vt = pos - walk.i32[pos]
    if _MIN(vt) < 0 or _MAX(vt) + 4 > n:
        return False
    walk.vtables.append(vt)
    vtsize = u16[vt]
    tsize = u16[vt + 2]
    if (
        _MIN(vtsize) < 4
        or _OR(vtsize) & 1
        or _MAX(vt + vtsize) > n
        or _MIN(tsize) < 4
        or _MAX(pos + tsize) > n
    ):
        return False
    layout = walk.layout
    if layout is not None:
        layout.tables.append((pos, vt))
        layout.extents += [(pos, pos + tsize), (vt, vt + vtsize)]
        layout.data.append((vt, vt + vtsize))
        if _MAX(vtsize) > 4 + 2 * fields.known:
            layout.unsure = True
        for slot in fields.unread:
            has = vtsize > 4 + 2 * slot
            if _ANY(has) and _ANY(u16[vt[has] + 4 + 2 * slot] != 0):
                layout.unsure = True
    if not fields.plans:
        return True
    # every field of every table at once: a row per table, a column per field
    has = ((vtsize - 4) >> 1)[:, None] > fields.slots
    fo = u16[vt[:, None] + fields.where * has] * has  # slot entry, or 0 past the vtable
    present = fo > 0
    if fields.required is not None and _ANY(fields.required & ~present, axis=None):
        return False
    if _MAX((fo + fields.inline) * present - tsize[:, None], axis=None) > 0:
        return False
    if _OR(fo & fields.misaligned, axis=None):
        return False
    wide = fields.wide
    if wide.size and _OR(
        (pos[:, None] + fo[:, wide]) & (fields.wide_mask * present[:, wide]), axis=None
    ):
        return False
    for j in np.flatnonzero(_ANY(present, axis=0)).tolist():
        f = fields.plans[j]
        walk.present.add((tname, f.name))
        if layout is not None and f.kind not in _REFERENCES:
            start = (pos + fo[:, j])[present[:, j]]
            layout.data.append((start, start + f.inline))
        if f.kind in _REFERENCES:
            rows = present[:, j]
            at = (pos + fo[:, j])[rows]
            below = _at(depth, rows) + 1
            if f.kind == _UNION:
                ok = _union(walk, f, pos[rows], vt[rows], tsize[rows], at, below, following)
            else:
                ok = _reference(walk, tname, f, at, below, following)
            if not ok:
                return False
    return True


def _reference(
    walk: _Walk, tname: str, f: Any, at: _Ints, below: _Depth, following: _Found
) -> bool:
    """The present values of one reference field of table ``tname``, stored at ``at``;
    a table they refer to lies ``below`` deep."""
    target = walk.refs(at)
    if target is None:
        return False
    kind = f.kind
    if kind == _TABLE:
        following[f.target].append((target, below))
        return True
    if kind == _STRING:
        walk.strings.append(target)
        return walk.spend(4 * target.size)
    if kind in (_VEC_SCALAR, _VEC_STRUCT):
        size = f.dtype.itemsize
        count = walk.lengths(target, size)
        if count is None:
            return False
        extra = int(count.sum()) * size if kind == _VEC_STRUCT else 0
        layout = walk.layout
        if layout is not None:
            layout.extents.append((target, target + 4 + count * size))
            layout.data.append((target, target + 4 + count * size))
            if layout.field == (tname, f.name):
                layout.vectors.append((target, count * size))
        return walk.spend(4 * target.size + extra)
    # vectors of tables or strings: their elements are references
    count = walk.lengths(target, 4)
    if count is None or not walk.spend(4 * int(count.sum())):
        return False
    if walk.layout is not None:
        walk.layout.extents.append((target, target + 4 + 4 * count))
        walk.layout.data.append((target, target + 4))
    elements = walk.refs(_spread(target + 4, count, 4))
    if elements is None:
        return False
    if kind == _VEC_TABLE:
        following[f.target].append(
            (elements, below if isinstance(below, int) else np.repeat(below, count))
        )
        walk.budget += 4 * elements.size  # charged with their level (first: bounds the array)
    else:  # strings: their 4-byte prefixes are what was charged
        assert kind == _VEC_STRING
        walk.strings.append(elements)
    return True


_REFERENCES = frozenset(
    (_STRING, _TABLE, _UNION, _VEC_SCALAR, _VEC_STRING, _VEC_TABLE, _VEC_STRUCT)
)


def _strings_charged(walk: _Walk) -> bool:
    """Charge every string's bytes (its 4-byte prefix was charged where it was found)."""
    if not walk.strings:
        return True
    at = np.concatenate(walk.strings)
    return walk.spend(int(walk.u32[at].astype(np.int64).sum()))


def _union(
    walk: _Walk,
    f: Any,
    pos: _Ints,
    vt: _Ints,
    tsize: _Ints,
    at: _Ints,
    below: _Depth,
    following: _Found,
) -> bool:
    """The rows of a present union value field: type codes inside, known, members queued
    (``below`` deep)."""
    to = walk.u16[vt + 4 + 2 * (f.slot - 1)].astype(np.int64)
    if ((to > 0) & (to + 1 > tsize)).any():
        return False
    code = np.where(to > 0, walk.u8[np.where(to > 0, pos + to, 0)], 0)
    if walk.layout is not None:
        coded = pos[to > 0] + to[to > 0]
        walk.layout.data.append((coded, coded + 1))
    chosen = code != 0
    if not chosen.any():
        return True
    members = f.members
    target = walk.refs(at[chosen])
    if target is None:
        return False
    code = code[chosen]
    below = _at(below, chosen)
    for c in np.unique(code).tolist():
        member = members.get(c)
        if member is None:
            return False
        which = code == c
        following[member].append((target[which], _at(below, which)))
    return True
