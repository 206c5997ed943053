"""A verified, schema-driven FlatBuffers reader over any bytes-like buffer or mapping.

:func:`read_root` decodes a whole buffer eagerly, table by table, as a
:class:`~wireplan.flatbuffers.schema.Schema` describes it, and checks every
byte it touches while doing so:

- every offset (root, vtable, field, reference, vector element) lies inside
  the buffer, every field inside its table as the vtable sizes it;
- vtable sizes are even and at least 4, table sizes at least 4;
- vector and string lengths are checked against the bytes that remain
  before anything is allocated (:class:`~wireplan.LimitError`), strings end
  with a NUL and are valid UTF-8;
- union type codes name a member of the union; required fields are present;
- nesting depth is capped (``max_depth`` tables), and so is the total work
  (``expansion`` units: each decoded table is charged 4, each string and
  struct vector its wire size, each copied vector its bytes; a buffer without shared objects never
  costs more than its length, so the default cap of ``4 * len(buffer) +
  4096`` only stops buffers that reference the same objects over and over
  to blow up).

Loops are impossible by construction: a reference is an unsigned offset
added to its own position and every field lies after its table's start,
so each referenced object starts strictly after the table that refers to
it, and the recursion ends after at most ``len(buffer)`` steps (or sooner,
at ``max_depth``).  Any failure raises :class:`~wireplan.DecodeError` with
the byte offset and a path such as ``$.model.graph.nodes[3].attributes[0]``;
the message is built only then.  The offset is always inside the buffer:
that of the byte holding the bad value (the reference or vector element
that points outside, the length, the table's vtable offset, the vtable's
size or entry), never the place a bad reference points to.  Alignment is not required (numpy handles
unaligned views).  A union field's ``slot`` is its value's; the ``uint8``
type code is in ``slot - 1``.  Unknown trailing slots are ignored.

A reader made with ``lazy=True`` (no ``copy``) puts a
:class:`~wireplan.flatbuffers.lazy.TableList` where a vector of tables would
be, decoded as used and checked then, by the same decoders (verification on
access: an error is raised when a damaged table is reached, with its offset
and full path).  With ``verify=True`` as well it first verifies all a table
reaches in numpy passes (:mod:`wireplan.flatbuffers.verify`, the same checks
and limits), so that nothing decoded later can fail; a buffer that fails that
verification is decoded eagerly, which raises the error with its place.

Each table is decoded by a function generated from its plan (every slot
unrolled, every check inline), compiled once per schema and set of
classes and cached.

What a table becomes: ``classes[table_name](**fields)`` when ``classes``
has the table, else a ``dict`` of field name to value.  Field values:
scalars and enums as Python numbers (schema default when absent), strings
as ``str`` (``""`` when absent), sub-tables as objects (``None`` when
absent), unions as the member's object (``None`` for NONE), vectors of
tables or strings as lists, vectors of structs as lists of
``classes[struct_name](**fields)`` or, without a class, as a numpy
structured array; vectors of scalars as 1-D little-endian numpy arrays that
are read-only **views into the buffer** (no copy), or owned copies with
``copy=True``.  Deprecated fields are skipped (never read).

With ``copy=True``, vectors of scalars of ``large_bytes`` or more are
allocated during the walk and filled afterwards in one batch through
:func:`wireplan.core.executor.run_copies` (``threads`` as there), so a
threaded copy writes the same bytes as a serial one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from wireplan.core.buffers import as_memoryview
from wireplan.core.executor import run_copies
from wireplan.errors import ArgumentError, DecodeError, LimitError, NotFoundError
from wireplan.flatbuffers._decoders import (
    _I32,
    _U8,
    _U16,
    _U16X2,
    _U32,
    _fail_misaligned,
    _fail_table,
    _fail_vtable,
    decoders,
)
from wireplan.flatbuffers.schema import Schema
from wireplan.flatbuffers.verify import Layout, Present, verified

#: A hook on decoded tables: ``hook(reader, position, obj)`` gives what stands for ``obj``.
_Hook = Callable[["TableReader", int, Any], Any]

__all__ = ["DEFAULT_LIMITS", "DEFAULT_MAX_DEPTH", "Limits", "TableReader", "read_root"]

#: Default cap on nested tables (an .ort subgraph level costs three: Node, Attribute, Graph).
DEFAULT_MAX_DEPTH = 200


@dataclass(frozen=True, slots=True)
class Limits:
    """Caps on one decode: nesting depth, and work as a multiple of the buffer length."""

    max_depth: int = DEFAULT_MAX_DEPTH
    expansion_factor: int = 4
    expansion_slack: int = 4096


#: The limits used unless a caller passes others.
DEFAULT_LIMITS = Limits()


class TableReader:
    """One decode of one buffer; use :func:`read_root` unless you need :meth:`read_table`.

    ``buffer`` is any contiguous bytes-like object (``bytes``, ``mmap``,
    ``memoryview``, ``MappedFile.buffer``); it is never copied.  Views this
    reader hands out keep the buffer alive.
    """

    __slots__ = (
        "_after",
        "_budget",
        "_classes",
        "_copy",
        "_fns",
        "_hooks",
        "_large",
        "_layout",
        "_lazy_fns",
        "_max_depth",
        "_mv",
        "_n",
        "_pending",
        "_plain",
        "_plans",
        "_root",
        "_verify",
        "_vtables",
        "_writable_source",
        "limits",
        "present",
        "schema",
    )

    def __init__(
        self,
        schema: Schema,
        buffer: Any,
        *,
        classes: Mapping[str, Callable[..., Any]] | None = None,
        copy: bool = False,
        large_bytes: int = 1 << 20,
        limits: Limits = DEFAULT_LIMITS,
        lazy: bool = False,
        verify: bool = True,
        layout: Layout | None = None,
        after: Mapping[str, _Hook | tuple[str, _Hook]] | None = None,
        views: Iterable[str] = (),
    ) -> None:
        if lazy and copy:
            raise ArgumentError("a lazy read views the buffer: it cannot copy")
        self.schema = schema
        self._classes = dict(classes or {})
        given = classes if classes is not None else self._classes
        # Hooks: each decoded table named here is passed through its hook.
        self._hooks = dict(after or {})  # as given, for placed()
        self._after = {t: h if callable(h) else h[1] for t, h in (after or {}).items()}
        hooked = frozenset((t, "" if callable(h) else h[0]) for t, h in (after or {}).items())
        self._plans, self._fns = decoders(schema, given, after=hooked)
        self._lazy_fns = (
            decoders(schema, given, lazy=True, after=hooked, views=frozenset(views))[1]
            if lazy
            else None
        )
        #: After a lazy :meth:`read_table` that verified: the fields the buffer holds.
        self.present: Present | None = None
        self._layout = layout  # filled by that verification
        self._verify = verify or layout is not None
        self._root: tuple[str, int, int] | None = None  # what read_table read
        self.limits = limits
        # A view of its own, which stays valid when the source's memoryview is released.
        self._mv = as_memoryview(buffer)[:]
        self._n = self._mv.nbytes
        self._copy = copy
        self._large = large_bytes
        self._pending: list[tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]] = []
        self._max_depth = limits.max_depth
        self._vtables: dict[int, tuple[tuple[int, ...], int]] = {}  # checked, per table kind
        self._budget = limits.expansion_factor * self._n + limits.expansion_slack
        # Views of a writable source (bytearray) are marked read-only all the same.
        self._writable_source = not self._mv.readonly
        # Vectors of scalars as plain views: no copy, and a read-only source.
        self._plain = not copy and self._mv.readonly

    # -- public -------------------------------------------------------------------------------

    def read_table(self, table: str, pos: int, depth: int = 0) -> Any:
        """Decode the table ``table`` that starts at byte ``pos``.

        A reader made with ``lazy=True`` hands out vectors of tables as
        :class:`~wireplan.flatbuffers.lazy.TableList` (decoded and checked as used).
        With ``verify`` it first verifies everything the table reaches
        (:func:`~wireplan.flatbuffers.verify.verified`, a few numpy passes); when that
        fails, the eager decode raises the error with its offset and path.
        """
        self._root = (table, pos, depth)
        lazy = self._lazy_fns
        if lazy is not None and not self._verify:
            self._fns = lazy  # union members are lazy too
        elif lazy is not None:
            self.present = verified(
                self.schema,
                self._mv,
                pos,
                table,
                max_depth=self._max_depth - depth,
                budget=self._budget,
                layout=self._layout,
            )
            if self.present is not None:
                self._fns = lazy  # everything below is verified: union members are lazy too
        return self._table(table, pos, depth)

    def placed(self, exc: DecodeError) -> DecodeError:
        """``exc``, raised below a lazily decoded list (its path starts there), with its full
        path: the eager decode from what :meth:`read_table` read finds the same byte."""
        if self._root is None:
            return exc
        table, pos, depth = self._root
        eager = TableReader(
            self.schema, self._mv, classes=self._classes, limits=self.limits, after=self._hooks
        )
        try:
            eager.read_table(table, pos, depth)
        except DecodeError as full:
            if full.offset == exc.offset and full.path.endswith(exc.path[1:]):
                return full
        return exc

    def root_position(self, identifier: bytes | None = None) -> int:
        """Check the buffer's header (and ``identifier`` at bytes 4..8); return the root table's position."""
        mv, n = self._mv, self._n
        head = 8 if identifier is not None else 4
        if n < head + 4:
            raise DecodeError(f"buffer of {n} bytes is too short for a FlatBuffer", n)
        if identifier is not None:
            if len(identifier) != 4:
                raise ArgumentError("a file identifier has 4 bytes")
            found = bytes(mv[4:8])
            if found != identifier:
                raise DecodeError(f"file identifier is {found!r}, expected {identifier!r}", 4)
        root: int = _U32(mv, 0)[0]
        if root < head or root + 4 > n:
            raise DecodeError(f"root offset {root} lies outside the buffer ({n} bytes)", 0)
        return root

    def field_position(self, table: str, pos: int, name: str) -> int | None:
        """Where field ``name`` of the ``table`` at ``pos`` is stored, checked; ``None`` if absent.

        For a reference field (string, table, vector) this is the position of
        the stored offset; use :meth:`follow` to get to the referenced object.
        """
        mv, n = self._mv, self._n
        if pos & 3 or pos + 4 > n:
            _fail_table(table, pos)
        vt = pos - _I32(mv, pos)[0]
        if vt < 0 or vt + 4 > n or vt & 1:
            _fail_vtable(table, pos, vt, n, mv)
        vtsize, tsize = _U16X2(mv, vt)
        if vtsize < 4 or vtsize & 1 or vt + vtsize > n or tsize < 4 or pos + tsize > n:
            _fail_vtable(table, pos, vt, n, mv)
        plan = next((f for f in self._plans[table][0] if f.name == name), None)
        if plan is None:
            raise NotFoundError(f"table {table} has no readable field {name!r}")
        if plan.slot >= (vtsize - 4) >> 1:
            return None
        fo: int = _U16(mv, vt + 4 + 2 * plan.slot)[0]
        if fo == 0:
            return None
        if fo + plan.inline > tsize:
            raise DecodeError(
                f"field {table}.{name} lies outside its table", vt + 4 + 2 * plan.slot
            )
        if (pos + fo) % plan.align:
            _fail_misaligned(f"field {table}.{name}", pos + fo, plan.align, vt + 4 + 2 * plan.slot)
        return pos + fo

    def locate(self, path: str, root: int | None = None) -> int | None:
        """Where the value at ``path`` (``$.model.graph.initializers[2].dims``) is stored.

        For the error path of checks made after decoding: the position of
        the field (a scalar itself, or the uoffset of a reference), or of
        the vector element for a path ending in ``[i]``; ``None`` if the
        path leads through an absent field.  Starts at the root table
        (``root``: its position, default from the header).
        """
        table = self.schema.root
        pos = self.root_position() if root is None else root
        at: int | None = None
        for token in _path_tokens(path):
            if isinstance(token, int):
                if at is None or table == "":
                    return None
                vec = self.follow(at)
                if not 0 <= token < self._length(vec, 4):
                    return None
                at = vec + 4 + 4 * token
                continue
            if at is not None:  # step into the table the last field refers to
                pos = self.follow(at)
            if table == "":
                return None
            fdef = next((f for f in self.schema.tables[table].fields if f.name == token), None)
            if fdef is None:
                raise NotFoundError(f"table {table} has no field {token!r}")
            at = self.field_position(table, pos, token)
            if at is None:
                return None
            t = fdef.type
            if t.kind == "table":
                table = t.name
            elif t.kind == "vector" and t.element is not None and t.element.kind == "table":
                table = t.element.name
            elif t.kind == "union":
                table = self._union_member(pos, fdef.slot - 1, t.name)
            else:
                table = ""  # nothing to step into
        return at

    def _union_member(self, pos: int, code_slot: int, union: str) -> str:
        """The member table named by the type code in slot ``code_slot`` ("" if none)."""
        mv = self._mv
        vt = pos - _I32(mv, pos)[0]
        if code_slot >= (_U16(mv, vt)[0] - 4) >> 1:
            return ""
        fo = _U16(mv, vt + 4 + 2 * code_slot)[0]
        code = _U8(mv, pos + fo)[0] if fo else 0
        return self.schema.unions[union].members.get(code, "")

    def follow(self, at: int) -> int:
        """The position a uoffset stored at ``at`` refers to, checked to lie inside the buffer."""
        if at < 0 or at + 4 > self._n:
            raise DecodeError(f"offset at {at} lies outside the buffer", at)
        return self._ref(at)

    def string(self, pos: int) -> str:
        """The checked string whose length prefix is at ``pos``."""
        return self._string_at(pos)

    def finish(self, threads: int | None = None) -> None:
        """Run the deferred copies of large vectors (``copy=True``); a no-op otherwise."""
        pending, self._pending = self._pending, []
        if pending:
            run_copies(pending, threads=threads)

    # -- checks -------------------------------------------------------------------------------

    def _charge(self, units: int, pos: int) -> None:
        self._budget -= units
        if self._budget < 0:
            raise LimitError(
                "decoding expands past the work limit (the buffer refers to the same "
                "objects too often)",
                pos,
            )

    def _ref(self, at: int) -> int:
        """Follow the uoffset stored at ``at`` (already known to be inside the buffer)."""
        target: int = at + _U32(self._mv, at)[0]
        if target + 4 > self._n:
            raise DecodeError(f"offset {target} points outside the buffer ({self._n} bytes)", at)
        if target == at:
            raise DecodeError(
                f"offset at {at} is 0: it refers to itself, which FlatBuffers' verifier refuses",
                at,
            )
        return target

    def _length(self, at: int, elem: int, extra: int = 0) -> int:
        """The element count of the vector or string whose length is at ``at``."""
        if at & 3:
            _fail_misaligned("vector or string", at, 4, at)
        count: int = _U32(self._mv, at)[0]
        if at + 4 + count * elem + extra > self._n:
            raise LimitError(
                f"length {count} (x{elem} bytes) runs past the end of the buffer "
                f"({self._n - at - 4} bytes left)",
                at,
            )
        return count

    # -- values -------------------------------------------------------------------------------

    def _string_at(self, pos: int) -> str:
        n = self._length(pos, 1, 1)
        self._charge(4 + n, pos)
        mv = self._mv
        end = pos + 4 + n
        if mv[end] != 0:
            raise DecodeError("string is not NUL-terminated", end)
        try:
            return str(mv[pos + 4 : end], "utf-8")
        except UnicodeDecodeError as exc:
            raise DecodeError(
                f"string is not valid UTF-8 ({exc.reason})", pos + 4 + exc.start
            ) from None

    def _scalars_at(self, pos: int, dtype: np.dtype[Any]) -> np.ndarray[Any, Any]:
        n = self._length(pos, dtype.itemsize)
        self._charge(4, pos)
        start = pos + 4
        nbytes = n * dtype.itemsize
        src = np.frombuffer(self._mv[start : start + nbytes], dtype=dtype)
        if self._copy:
            self._charge(nbytes, pos)
            if nbytes >= self._large:
                dst = np.empty(n, dtype=dtype)
                self._pending.append((dst, src))
                return dst
            return src.copy()
        if self._writable_source:
            src.flags.writeable = False
        return src

    def _structs_at(self, pos: int, name: str, dtype: np.dtype[Any]) -> Any:
        n = self._length(pos, dtype.itemsize)
        self._charge(4 + n * dtype.itemsize, pos)
        start = pos + 4
        arr = np.frombuffer(self._mv[start : start + n * dtype.itemsize], dtype=dtype)
        cls = self._classes.get(name)
        if cls is None:
            return arr.copy() if self._copy else arr
        names = dtype.names or ()
        return [cls(**dict(zip(names, row, strict=True))) for row in arr.tolist()]

    def _struct_at(self, pos: int, name: str, dtype: np.dtype[Any]) -> Any:
        arr = np.frombuffer(self._mv[pos : pos + dtype.itemsize], dtype=dtype)
        row = arr.tolist()[0]
        cls = self._classes.get(name)
        names = dtype.names or ()
        values = dict(zip(names, row, strict=True))
        return cls(**values) if cls is not None else values

    def _table(self, name: str, pos: int, depth: int) -> Any:
        return self._fns[name](self, pos, depth)

    def _strings_at(self, pos: int) -> list[str]:
        n = self._length(pos, 4)
        mv = self._mv
        out: list[str] = []
        at = pos + 4
        nbytes = self._n
        for i in range(n):
            target = at + _U32(mv, at)[0]
            try:
                if target + 4 > nbytes or target == at:
                    self._ref(at)  # raises
                out.append(self._string_at(target))
            except DecodeError as exc:
                raise exc.under(f"[{i}]") from None
            at += 4
        return out


def _path_tokens(path: str) -> list[str | int]:
    """``"$.a.b[3].c"`` as ``["a", "b", 3, "c"]``."""
    out: list[str | int] = []
    for part in path.removeprefix("$").split("."):
        if not part:
            continue
        name, *indices = part.split("[")
        if name:
            out.append(name)
        out.extend(int(i.rstrip("]")) for i in indices)
    return out


def read_root(
    schema: Schema,
    buffer: Any,
    *,
    identifier: bytes | None = None,
    classes: Mapping[str, Callable[..., Any]] | None = None,
    copy: bool = False,
    threads: int | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> Any:
    """Verify and decode the root table of ``buffer`` (see the module docstring).

    ``identifier`` (4 bytes) is checked at bytes 4..8 when given; pass
    ``schema.file_identifier`` to check the schema's own.
    """
    reader = TableReader(schema, buffer, classes=classes, copy=copy, limits=limits)
    value = reader.read_table(schema.root, reader.root_position(identifier))
    reader.finish(threads)
    return value
