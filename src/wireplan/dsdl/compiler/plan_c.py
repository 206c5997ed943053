"""The C moves of a type, from the model: what C adds to the plan (memcpy, copies, C's runs).

It adds to :mod:`.plan`'s plan what only C can do or needs: a whole-object
``memcpy`` where the wire layout equals the natural C struct layout
(:func:`memcpy_layout`, with C sizes and alignments); a copy of any
byte-aligned bool array (a masked last byte) and of a variable-length one;
a sub-byte field at a byte start as constant shifts, not a masked byte; a
loop over array elements as one ``memcpy``; and the blocks the C functions
are cut into (one bounds check per static run, explicit re-alignment after
a bit stream).  Python's plan cuts runs for its struct packs instead, so the
two walks differ at the same field; both read :func:`.plan.plain_fixed`.

A body is a sequence of *blocks*: a :class:`CRun` (steps at static bit
offsets from a byte-aligned position known at run time: one bounds check
per run when reading) or a dynamic :class:`CStep` (its length is known only
at run time).  C strategies, fastest first:

``memcpy-object``
    the whole object: its wire layout equals the natural C layout of its
    struct (checked with static asserts), one ``memcpy`` on little-endian
    targets;
``load``
    a byte-aligned number of a standard width: one load / store;
``copy``
    a byte-aligned array of standard-width numbers, or of bools packed at a
    byte boundary: one ``memcpy`` of the elements on little-endian targets;
``bits``
    a field at a static bit offset that is not byte-aligned, or of an odd
    width: shifts and masks with constant offsets (saturation where DSDL
    asks for it);
``stream``
    a field at a bit position known only at run time: the support routines;
``inline``
    a sealed nested structure: its fields are steps of the container;
``loop``
    an array of fixed-size sealed structures: the element's steps in a loop
    (one ``memcpy`` when the element is ``memcpy-object``);
``call``
    a union, a delimited type, an array of other composites: the nested
    type's own function (behind a delimiter header where delimited);
``padding``
    void bits, written as zeros.

Everything here is data (names are DSDL names); :mod:`.emit_c` renders it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from wireplan.dsdl._layout import TypeLayout

from .c_names import is_bool_array
from .model import Array, Composite, DataType, Primitive
from .plan import plain_fixed

__all__ = ["CBody", "CMoves", "CRun", "CStep", "annotate", "c_moves", "memcpy_layout", "strategies"]


@dataclass(frozen=True)
class CStep:
    """One field (or a length prefix) and how it moves.

    ``path``: DSDL field names from the body's object (an array element's
    body starts again at the element).  ``at``: the static bit offset in
    its run; None for a dynamic step.  ``body``: the element's moves in a
    ``loop``.
    """

    path: tuple[str, ...]
    type: DataType
    strategy: str
    at: int | None
    reason: str
    role: str = "field"  # "field", "padding", "length"
    body: CBody | None = None
    aligned: bool = True  # dynamic steps: whether the run-time position is byte-aligned
    capacity: int = 0  # a length prefix: the array's capacity


@dataclass(frozen=True)
class CRun:
    """Steps at static bit offsets from a byte-aligned run-time position."""

    steps: tuple[CStep, ...]
    bits: int


@dataclass(frozen=True)
class CBody:
    blocks: tuple[CRun | CStep, ...]

    def steps(self) -> list[CStep]:
        """Every step, in order (runs opened)."""
        out: list[CStep] = []
        for b in self.blocks:
            out.extend(b.steps if isinstance(b, CRun) else [b])
        return out


@dataclass(frozen=True)
class CMoves:
    """The C moves of one composite: a body (structures) or one body per variant (unions)."""

    type: Composite
    body: CBody | None
    variants: tuple[CBody, ...]
    memcpy_bytes: int | None  # whole-object memcpy of this many bytes
    strategy: str
    reason: str


def memcpy_layout(t: DataType) -> tuple[int, int] | None:
    """(size, alignment) of a type whose wire layout equals its natural C layout, else None.

    Only full-width numbers (8..64-bit integers, float32, float64), fixed
    arrays of them and such structures qualify: every value of their C
    type is a valid wire value (no saturation, no masking), and every
    member sits at its wire offset with no padding between or after.
    """
    if isinstance(t, Primitive):
        if t.kind in ("u", "i") and t.bits in (8, 16, 32, 64):
            return t.bits // 8, t.bits // 8
        if t.kind == "f" and t.bits in (32, 64):
            return t.bits // 8, t.bits // 8
        return None
    if isinstance(t, Array):
        if not t.fixed:
            return None
        el = memcpy_layout(t.element)
        if el is None or t.capacity == 0:
            return None
        return el[0] * t.capacity, el[1]
    if t.union or not t.sealed or not t.fixed or not t.fields:
        return None
    offset, align = 0, 1
    for f in t.fields:
        if f.padding:
            return None
        sub = memcpy_layout(f.type)
        if sub is None or offset % sub[1] or f.offset.min != offset * 8:
            return None
        offset += sub[0]
        align = max(align, sub[1])
    if offset % align or offset * 8 != t.max_bits:
        return None
    return offset, align


def strategies(moves: CMoves, cpp: bool = False) -> dict[str, tuple[str, str]]:
    """The C strategy and its reason per field path (``health.value``, ``items[].x``);
    ``cpp``: the C++ backend's, which moves a bool array (``std::bitset``,
    ``std::vector<bool>``) bit by bit where C copies its packed bytes."""
    out: dict[str, tuple[str, str]] = {}

    def visit(body: CBody, prefix: str) -> None:
        for s in body.steps():
            if s.role == "length":
                continue
            name = ".".join(n or "<void>" for n in s.path)
            path = f"{prefix}{name}" if not prefix or not name else f"{prefix}.{name}"
            if moves.memcpy_bytes is not None:
                out[path] = ("memcpy-object", moves.reason)
            elif cpp and s.strategy == "copy" and is_bool_array(s.type):
                out.setdefault(path, ("bit-loop", "a bool container: bit by bit"))
            else:
                out.setdefault(path, (s.strategy, s.reason))
            if s.body is not None:
                visit(s.body, f"{path}[]")

    if moves.body is not None:
        visit(moves.body, "")
    for v in moves.variants:
        visit(v, "")
    return out


def annotate(layout: TypeLayout, moves: CMoves) -> TypeLayout:
    """The layout report with the C (and C++) strategy of the type and of each field beside
    the Python one."""
    by_path, cpp = strategies(moves), strategies(moves, cpp=True)
    fields = []
    for f in layout.fields:
        c = by_path.get(f.path, ("", ""))
        fields.append(replace(f, c_strategy=c[0], c_reason=c[1],
                              cpp_strategy=cpp.get(f.path, ("", ""))[0]))  # fmt: skip
    return replace(layout, fields=fields, c_strategy=moves.strategy, c_reason=moves.reason)


class _Walk:
    def __init__(self) -> None:
        self.blocks: list[CRun | CStep] = []
        self.run: list[CStep] = []
        self.at = 0
        self.stream = False

    def flush(self) -> None:
        if self.run or self.at:
            self.blocks.append(CRun(tuple(self.run), self.at))
        self.run = []
        self.at = 0

    def dyn(self, step: CStep) -> None:
        self.flush()
        self.blocks.append(step)

    def align8(self) -> None:
        if self.stream:
            self.blocks.append(CStep((), Primitive("v", 0, False, "align"), "align", None, ""))
            self.stream = False
        elif self.at % 8:
            self.at += 8 - self.at % 8

    def finish(self) -> CBody:
        self.align8()
        self.flush()
        return CBody(tuple(self.blocks))

    def static(self, path: tuple[str, ...], t: DataType, strategy: str, reason: str,
               role: str = "field", bits: int = 0, capacity: int = 0) -> None:  # fmt: skip
        self.run.append(CStep(path, t, strategy, self.at, reason, role, capacity=capacity))
        self.at += bits

    # -- fields
    def fields(self, t: Composite, prefix: tuple[str, ...]) -> None:
        for f in t.fields:
            self.field((*prefix, f.name), f.type, "padding" if f.padding else "field")

    def field(self, path: tuple[str, ...], t: DataType, role: str) -> None:
        if isinstance(t, Primitive):
            self.primitive(path, t, role)
        elif isinstance(t, Array):
            self.array(path, t)
        else:
            self.composite(path, t)

    def primitive(self, path: tuple[str, ...], t: Primitive, role: str) -> None:
        if self.stream:
            strategy = "padding" if t.kind == "v" else "stream"
            self.blocks.append(
                CStep(path, t, strategy, None, "run-time bit position", role, aligned=False)
            )
            return
        if t.kind == "v":
            self.static(path, t, "padding", "zero bits", role, t.bits)
        elif self.at % 8 == 0 and t.kind != "b" and t.bits in (8, 16, 32, 64):
            how = (
                "one load / store" if t.kind != "f" or t.bits != 16 else "a 16-bit load, converted"
            )
            self.static(path, t, "load", f"byte-aligned {t.bits}-bit: {how}", role, t.bits)
        else:
            why = "odd width" if self.at % 8 == 0 else f"static bit {self.at % 8}"
            sat = (
                "; saturated"
                if t.saturated and t.kind in "ui" and t.bits not in (8, 16, 32, 64)
                else ""
            )
            self.static(path, t, "bits", f"{why}: constant shifts{sat}", role, t.bits)

    def array(self, path: tuple[str, ...], t: Array) -> None:
        el = t.element
        if isinstance(el, Composite):
            self.align8()
            if t.length_type is not None:
                self.static(path, t.length_type, "load", "length prefix", "length",
                            t.length_type.bits, t.capacity)  # fmt: skip
            if plain_fixed(el):
                sub = _Walk()
                sub.fields(el, ())
                body = sub.finish()
                if memcpy_layout(el) is not None:
                    why = "elements laid out as in C: one memcpy of them all"
                else:
                    why = "fixed-size sealed elements: their steps in a loop"
                self.dyn(CStep(path, t, "loop", None, why, body=body))
            else:
                self.dyn(
                    CStep(path, t, "call", None, "the element type's own function per element")
                )
            return
        assert isinstance(el, Primitive)
        if t.fixed:
            if self.stream:
                self.blocks.append(
                    CStep(path, t, "stream", None, "run-time bit position", aligned=False)
                )
                return
            width = t.capacity * el.bits
            if self.at % 8 == 0 and (el.kind == "b" or el.bits in (8, 16, 32, 64)):
                what = "packed bools" if el.kind == "b" else f"{el.bits}-bit numbers"
                self.static(path, t, "copy", f"byte-aligned {what}: one copy", bits=width)
            else:
                self.static(
                    path, t, "bits", f"{width} bits at static bit {self.at % 8}", bits=width
                )
            return
        assert t.length_type is not None
        if self.stream:
            self.blocks.append(
                CStep(
                    path,
                    t.length_type,
                    "stream",
                    None,
                    "length prefix",
                    "length",
                    aligned=False,
                    capacity=t.capacity,
                )
            )
            self.blocks.append(
                CStep(path, t, "stream", None, "run-time bit position", aligned=False)
            )
            return
        self.static(path, t.length_type, "load" if self.at % 8 == 0 else "bits", "length prefix",
                    "length", t.length_type.bits, t.capacity)  # fmt: skip
        aligned = self.at % 8 == 0
        if aligned and (el.kind == "b" or el.bits in (8, 16, 32, 64)):
            what = "packed bools" if el.kind == "b" else f"{el.bits}-bit numbers"
            self.dyn(
                CStep(path, t, "copy", None, f"byte-aligned {what}: one copy of count elements")
            )
            if el.kind == "b":
                self.stream = True
            return
        self.flush()
        self.blocks.append(
            CStep(path, t, "stream", None, "elements at a run-time bit position", aligned=aligned)
        )
        self.stream = True

    def composite(self, path: tuple[str, ...], t: Composite) -> None:
        self.align8()
        if t.union or not t.sealed:
            why = (
                "delimited: its own function behind a 4-byte header"
                if not t.sealed
                else ("union: its own function")
            )
            self.dyn(CStep(path, t, "call", None, why))
            return
        self.run.append(CStep(path, t, "inline", self.at, "sealed structure serialized in place"))
        self.fields(t, path)
        self.align8()


def c_moves(t: Composite) -> CMoves:
    """The C moves of one composite type."""
    if t.union:
        variants = []
        for f in t.fields:
            w = _Walk()
            w.field((f.name,), f.type, "field")
            variants.append(w.finish())
        return CMoves(t, None, tuple(variants), None, "union",
                     f"a {t.tag_bits}-bit tag, then the variant's steps")  # fmt: skip
    w = _Walk()
    w.fields(t, ())
    body = w.finish()
    lay = memcpy_layout(t)
    if lay is not None:
        return CMoves(t, body, (), lay[0], "memcpy-object",
                     "wire layout equals the C layout: one memcpy (little-endian)")  # fmt: skip
    runs = [b for b in body.blocks if isinstance(b, CRun)]
    if len(runs) == len(body.blocks) <= 1:
        strategy, reason = "one-run", "static offsets: one bounds check, constant positions"
    else:
        strategy, reason = (
            "runs",
            f"{len(runs)} static runs, {len(body.blocks) - len(runs)} dynamic steps",
        )
    return CMoves(t, body, (), None, strategy, reason)
