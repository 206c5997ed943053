"""Reading DSDL: the only module of wireplan that imports :mod:`pydsdl`.

pydsdl parses and checks the namespaces; this module turns its types into
wireplan's plain model (:mod:`.model`), carrying over the facts pydsdl
proves about offsets (the structure of its bit length sets, never expanded)
as :class:`~.model.Offsets`.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
import operator
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from wireplan.core.extras import door

with door("wireplan.dsdl", "pydsdl", "dsdl"):
    import pydsdl

from wireplan import __version__
from wireplan.errors import CompileError

from .model import Array, Composite, Constant, DataType, Field, Offsets, Primitive, Service, TopType

# CompileError lives in wireplan.errors; it is named here too, where pydsdl's errors become it.
__all__ = [
    "GENERATOR_VERSION",
    "CompileError",
    "definition_count",
    "read_types",
    "source_digest",
]

GENERATOR_VERSION = "5"

#: ``progress(done, total)`` of a compile: definitions read of those to read.
Progress = Callable[[int, int], None]


def read_types(
    roots: Sequence[Path],
    lookup: Sequence[Path],
    progress: Progress | None = None,
) -> list[TopType]:
    """Every type of ``roots`` (all versions), read by pydsdl, in wireplan's model.

    ``progress(done, total)``: called with ``(0, total)`` first, then as pydsdl
    finishes each definition of the roots (see :class:`_Tally`), ``total``
    being their ``.dsdl`` files (:func:`definition_count`).
    """
    found: list[Any] = []
    total = definition_count(roots) if progress is not None else 0
    done = 0
    if progress is not None:
        progress(0, total)
    for root in roots:
        others = [str(p) for p in [*roots, *lookup] if Path(p).resolve() != root.resolve()]
        try:
            if progress is None:
                found.extend(pydsdl.read_namespace(str(root), others))
                continue
            end = done + definition_count([root])
            with _tallied(root.resolve().name, done, end, total, progress) as tally:
                found.extend(pydsdl.read_namespace(str(root), others))
            done = end
            if tally.done < end:
                progress(end, total)
        except pydsdl.FrontendError as exc:
            # pydsdl's location as attributes; a namespace-wide problem names the folder.
            raise CompileError(exc.text, exc.path or root, exc.line) from None
    return convert(found)


def definition_count(roots: Sequence[Path]) -> int:
    """The number of DSDL definitions (``.dsdl`` files: types and services) under ``roots``."""
    return sum(1 for root in roots for _ in Path(root).rglob("*.dsdl"))


class _Tally(logging.Filter):
    """Counts the definitions of one root namespace as pydsdl finishes reading them.

    pydsdl has no progress hook, but logs one INFO record per definition it
    has read (``"%s: Processed in %.0f ms; ..."`` from
    ``pydsdl._dsdl_definition``, the type's full name first).  A filter on
    that logger sees the record before any handler does; it passes on only
    what the logger's own level would have let through, so turning the level
    down to INFO for the read shows the user nothing new.  Should pydsdl
    log differently, progress still ends at the total, only in one step.
    """

    def __init__(
        self, root: str, base: int, end: int, total: int, level: int, progress: Progress
    ) -> None:
        super().__init__()
        self.root, self.done, self.end, self.total, self.level = root, base, end, total, level
        self.progress = progress
        self.seen: set[str] = set()
        self.error: Exception | None = None

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if (
            self.error is None
            and isinstance(record.msg, str)
            and record.msg.startswith("%s: Processed")
            and isinstance(args, tuple)
            and args
        ):
            name = str(args[0])
            if name.split(".")[0] == self.root and name not in self.seen:
                self.seen.add(name)
                self.done += 1
                try:
                    self.progress(min(self.done, self.end), self.total)
                except Exception as exc:  # raised after pydsdl returns, not wrapped by it
                    self.error = exc
        return record.levelno >= self.level


_TALLY_LOCK = threading.Lock()  # one tally at a time changes the logger's level


@contextlib.contextmanager
def _tallied(root: str, base: int, end: int, total: int, progress: Progress) -> Iterator[_Tally]:
    logger = logging.getLogger("pydsdl._dsdl_definition")
    with _TALLY_LOCK:
        level = logger.level
        tally = _Tally(root, base, end, total, logger.getEffectiveLevel(), progress)
        logger.addFilter(tally)
        if not logger.isEnabledFor(logging.INFO):
            logger.setLevel(logging.INFO)
        try:
            yield tally
        finally:
            logger.setLevel(level)
            logger.removeFilter(tally)
    if tally.error is not None:
        raise tally.error


def convert(types: Sequence[Any]) -> list[TopType]:
    """pydsdl's types in wireplan's model (nested types shared by identity)."""
    reader = _Reader()
    out: list[TopType] = []
    for t in types:
        if isinstance(t, pydsdl.ServiceType):
            out.append(
                Service(
                    name=t.full_name,
                    version=(t.version.major, t.version.minor),
                    fixed_port_id=t.fixed_port_id if t.has_fixed_port_id else None,
                    request=reader.composite(t.request_type),
                    response=reader.composite(t.response_type),
                    source=t,
                )
            )
        else:
            out.append(reader.composite(t))
    return out


def source_digest(roots: Sequence[Path], lookup: Sequence[Path]) -> str:
    """A hash of every ``.dsdl`` file under the folders, of the generator and of the versions.

    The generator is every file of this package and the runtime, so any
    change to the compiler invalidates cached packages.
    """
    h = hashlib.sha256()
    h.update(f"wireplan {__version__} gen {GENERATOR_VERSION} pydsdl {pydsdl.__version__}".encode())
    here = Path(__file__).resolve().parent
    runtime = ("runtime.py", "_bits.py", "_cast.py", "_builtin.py")  # what generated code runs
    for path in [*sorted(here.glob("*.py")), *(here.parent / name for name in runtime)]:
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    for label, dirs in (("root", roots), ("lookup", lookup)):
        for d in dirs:
            d = Path(d).resolve()
            h.update(f"\0{label}\0{d}\0".encode())
            for path in sorted(d.rglob("*.dsdl")):
                h.update(str(path.relative_to(d)).encode() + b"\0")
                h.update(path.read_bytes())
    return h.hexdigest()[:24]


def _lengths(t: Any, memo: dict[int, tuple[Any, Offsets]]) -> Offsets:
    """The bit lengths a serialized ``t`` may have, built the way pydsdl builds its bit
    length sets but in :class:`~.model.Offsets` arithmetic (bounds, residues modulo 64).

    pydsdl's sets are symbolic and exact, and listing their members (``bls % 64``)
    expands them: on a type like ``CombinatorialExplosion.0.1`` of nunavut's
    verification suite that never ends.  These operations never expand a set.
    """
    known = memo.get(id(t))
    if known is not None:
        return known[1]
    if isinstance(t, pydsdl.DelimitedType):
        unit = int(t.alignment_requirement)
        body = Offsets.exact(unit).repeat_range(int(t.extent) // unit)
        out = Offsets.exact(int(t.delimiter_header_type.bit_length)) + body
    elif isinstance(t, pydsdl.UnionType):
        either = functools.reduce(operator.or_, (_lengths(f.data_type, memo) for f in t.fields))
        out = (Offsets.exact(int(t.tag_field_type.bit_length)) + either).pad_to(
            int(t.alignment_requirement)
        )
    elif isinstance(t, pydsdl.CompositeType):
        end = Offsets.exact(0)
        for f, at in _field_offsets(t, memo):
            end = at + _lengths(f.data_type, memo)
        out = end.pad_to(int(t.alignment_requirement))
    elif isinstance(t, pydsdl.FixedLengthArrayType):
        out = _lengths(t.element_type, memo).repeat(int(t.capacity))
    elif isinstance(t, pydsdl.VariableLengthArrayType):
        prefix = Offsets.exact(int(t.length_field_type.bit_length))
        out = prefix + _lengths(t.element_type, memo).repeat_range(int(t.capacity))
    else:
        out = Offsets.exact(int(t.bit_length))
    memo[id(t)] = (t, out)  # the type is kept so that its id is not reused
    return out


def _field_offsets(t: Any, memo: dict[int, tuple[Any, Offsets]]) -> Iterator[tuple[Any, Offsets]]:
    """``(field, offset)`` of a structure or union's fields, as
    ``iterate_fields_with_offsets`` lays them out."""
    if isinstance(t, pydsdl.UnionType):
        tag = Offsets.exact(int(t.tag_field_type.bit_length))
        for f in t.fields:
            yield f, tag
        return
    at = Offsets.exact(0)
    for f in t.fields:
        at = at.pad_to(int(f.data_type.alignment_requirement))
        yield f, at
        at = at + _lengths(f.data_type, memo)


class _Reader:
    def __init__(self) -> None:
        self.done: dict[tuple[str, int, int], Composite] = {}
        self.lengths: dict[int, tuple[Any, Offsets]] = {}

    def composite(self, t: Any) -> Composite:
        sealed = not isinstance(t, pydsdl.DelimitedType)
        inner = t.inner_type if not sealed else t
        key = (inner.full_name, inner.version.major, inner.version.minor)
        known = self.done.get(key)
        if known is not None:
            return known
        union = isinstance(inner, pydsdl.UnionType)
        bls = inner.bit_length_set
        c = Composite(
            name=inner.full_name,
            version=(inner.version.major, inner.version.minor),
            union=union,
            sealed=sealed,
            extent=int(t.extent),
            min_bits=int(bls.min),
            max_bits=int(bls.max),
            tag_bits=inner.tag_field_type.bit_length if union else 0,
            fixed_port_id=inner.fixed_port_id if inner.has_fixed_port_id else None,
            deprecated=bool(inner.deprecated),
            source=t,
        )
        self.done[key] = c  # before the fields: a type may be reached again through them
        for f, off in _field_offsets(inner, self.lengths):
            name = "" if isinstance(f, pydsdl.PaddingField) else f.name
            c.fields.append(Field(name, self.data_type(f.data_type), off))
        c.constants = [_constant(k) for k in inner.constants]
        return c

    def data_type(self, t: Any) -> DataType:
        if isinstance(t, pydsdl.CompositeType):
            return self.composite(t)
        if isinstance(t, pydsdl.ArrayType):
            fixed = isinstance(t, pydsdl.FixedLengthArrayType)
            bls = t.bit_length_set
            return Array(
                element=self.data_type(t.element_type),
                capacity=int(t.capacity),
                fixed=fixed,
                length_type=None if fixed else _primitive(t.length_field_type),
                label=str(t),
                alignment=int(t.alignment_requirement),
                min_bits=int(bls.min),
                max_bits=int(bls.max),
            )
        return _primitive(t)


def _primitive(t: Any) -> Primitive:
    label = str(t)
    if isinstance(t, pydsdl.VoidType):
        return Primitive("v", t.bit_length, False, label)
    sat = t.cast_mode == pydsdl.PrimitiveType.CastMode.SATURATED
    if isinstance(t, pydsdl.BooleanType):
        return Primitive("b", 1, True, label)
    if isinstance(t, pydsdl.FloatType):
        return Primitive("f", t.bit_length, sat, label)
    if isinstance(t, pydsdl.SignedIntegerType):
        return Primitive("i", t.bit_length, sat, label)
    if isinstance(t, pydsdl.UTF8Type):
        return Primitive("u", 8, False, label, text="utf8")
    if isinstance(t, pydsdl.ByteType):
        return Primitive("u", 8, False, label, text="byte")
    if isinstance(t, pydsdl.UnsignedIntegerType):
        return Primitive("u", t.bit_length, sat, label)
    raise CompileError(f"unsupported primitive {t}")  # pragma: no cover


def _constant(c: Any) -> Constant:
    v = c.value.native_value
    bits = int(getattr(c.data_type, "bit_length", 0))
    if isinstance(c.data_type, pydsdl.FloatType):
        return Constant(c.name, "f", float(v), bits)
    if isinstance(c.data_type, pydsdl.BooleanType):
        return Constant(c.name, "b", bool(v), bits)
    if isinstance(v, str):
        return Constant(c.name, "s", v)
    signed = isinstance(c.data_type, pydsdl.SignedIntegerType)
    return Constant(c.name, "i", int(v), bits, signed)
