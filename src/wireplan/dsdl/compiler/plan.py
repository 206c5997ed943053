"""The plan: for every type, how its bytes move, decided once as plain data.

A type's body is cut into *runs*: stretches that start on a byte boundary
and in which every step's bit offset from the run's start is known
statically.  A run ends where the next offset depends on a value (after a
variable-length array, a nested delimited type or union, a loop over
composites); from a variable-length array whose elements are not whole
bytes on, the position is only known at run time (a *bit stream*) until
the next byte realignment, which starts a new run.

Each step has a strategy, the offsets pydsdl proves for it, and the reason
for the choice:

``struct``
    a byte-aligned number of a standard width (8, 16, 32, 64 bits), a
    fixed array of them, a fixed bool array packed in whole bytes, or a
    sub-byte field alone at a byte start (masked in its byte): part of the
    run's single pack / unpack (C: a store, a memcpy);
``bit-group``
    a field at a static bit offset that is not byte-aligned, or of an odd
    width: shifted into the bytes of the run;
``byte-copy``
    the elements of a variable-length array of standard-width numbers at a
    byte boundary: one copy of ``length * size`` bytes;
``bit-stream``
    a field at a run-time bit position;
``inline``
    a sealed nested structure (its fields are steps of the container's
    run), or an array of fixed-size sealed structures (the element's steps
    in a loop, no call per element);
``call``
    a union, a delimited type, an array of other composites: the nested
    type's own routine;
``padding``
    void bits, written as zeros.

The plan holds no Python: every backend renders the same plan, and the
layout report (:func:`report`) is read from it.
"""

from __future__ import annotations

from dataclasses import dataclass

from wireplan.dsdl._layout import FieldLayout, RunLayout, TypeLayout

from .model import Array, Composite, DataType, Offsets, Primitive

__all__ = ["Run", "Step", "TypePlan", "plain_fixed", "plan_type", "report", "uint_wrapper"]


@dataclass(frozen=True)
class Step:
    """One field (or an array's length prefix, or a union's tag) and how it moves.

    ``run`` is the index of its run, ``at`` its bit offset from the run's
    start (None in a bit stream), ``offset`` the offsets pydsdl proves from
    the start of the top-level type (None inside an array element, which
    repeats).  ``steps``: an inlined structure's fields, a variable-length
    array's length prefix, the element's fields of an inlined array loop.
    """

    path: str  # "health.value"; "" for the top level
    name: str  # DSDL field name; "" for padding, a length prefix, a union tag
    role: str  # "field", "padding", "length", "tag", "element"
    type: DataType
    strategy: str
    offset: Offsets | None
    run: int
    at: int | None
    reason: str
    steps: tuple[Step, ...] = ()

    def walk(self) -> list[Step]:
        """This step and every step under it, in order."""
        out = [self]
        for s in self.steps:
            out.extend(s.walk())
        return out


@dataclass(frozen=True)
class Run:
    """A stretch of static offsets starting on a byte boundary (or a bit stream)."""

    index: int
    start: str  # why a run starts here
    stream: bool  # the position is a run-time bit position
    bits: int | None  # static length, when every step in it has one
    variant: int | None = None  # the union variant it belongs to
    element: bool = False  # the body of a loop over array elements


@dataclass(frozen=True)
class TypePlan:
    """How one composite type moves: its steps and runs and the facts backends need.

    ``steps``: the fields of a structure, or one step per union variant
    (``variants``, each after its tag).  ``one_run``: a fixed layout whose
    every step belongs to run 0, so one pack / unpack (one memcpy where wire
    and native layouts agree) moves it all.  ``loops``: some step repeats
    per array element, so the serializer cannot be one expression.
    ``bounded_reads``: every read's length is known before it is made (no bit
    stream, no nested routine), so a read past the end of short data always
    fails rather than being cut; ``variant_bounded``: the same per union variant.
    """

    type: Composite
    steps: tuple[Step, ...]
    variants: tuple[tuple[Step, Step], ...]  # unions: (tag, value) per variant
    runs: tuple[Run, ...]
    strategy: str  # "single-struct", "single-struct+bits", "stepwise"
    reason: str
    one_run: bool
    loops: bool
    bounded_reads: bool
    variant_bounded: tuple[bool, ...] = ()

    def walk(self) -> list[Step]:
        """Every step, in order (union variants one after the other)."""
        out: list[Step] = []
        for s in self.steps:
            out.extend(s.walk())
        for tag, value in self.variants:
            out.extend(tag.walk())
            out.extend(value.walk())
        return out


def plain_fixed(t: DataType) -> bool:
    """A sealed structure of fixed size in whole bytes with only primitives, fixed arrays of
    primitives and such structures inside: its steps can be repeated in an array loop."""
    if not isinstance(t, Composite) or t.union or not t.sealed:
        return False
    if t.min_bits != t.max_bits or t.max_bits % 8:
        return False
    for f in t.fields:
        ft = f.type
        if isinstance(ft, Array):
            if not ft.fixed:
                return False
            ft = ft.element
        if isinstance(ft, Composite) and not plain_fixed(ft):
            return False
    return True


def uint_wrapper(t: DataType) -> tuple[int, int, str] | None:
    """(size in bytes, bits, field name) of a sealed structure that is one unsigned integer at
    bit 0, then only padding, in 1, 2, 4 or 8 bytes (``SubjectID``, ``ServiceID``): an
    array of them reads as one array of integers."""
    if not isinstance(t, Composite) or not plain_fixed(t) or not t.fields:
        return None
    first = t.fields[0]
    if first.padding or not isinstance(first.type, Primitive) or first.type.kind != "u":
        return None
    if any(not f.padding for f in t.fields[1:]):
        return None
    size = t.max_bits // 8
    if size not in (1, 2, 4, 8):
        return None
    return size, first.type.bits, first.name


class _Walk:
    """The static position while planning: a run and a bit offset in it, or a bit stream."""

    def __init__(self, runs: list[Run], variant: int | None = None) -> None:
        self.runs = runs
        self.variant = variant
        self.stream = False
        self.at = 0
        self.bounded = True
        self.loops = False
        self.run = self._open("the start of the type", False)

    def _open(self, start: str, stream: bool, element: bool = False) -> int:
        self.runs.append(Run(len(self.runs), start, stream, None, self.variant, element))
        return len(self.runs) - 1

    def _close(self) -> None:
        old = self.runs[self.run]
        if not old.stream:
            self.runs[self.run] = Run(
                old.index, old.start, False, self.at, old.variant, old.element
            )

    def new_run(self, start: str) -> None:
        """A new run at a byte boundary (after a step of run-time length)."""
        self._close()
        self.stream = False
        self.at = 0
        self.run = self._open(start, False)

    def align8(self) -> None:
        if self.stream:
            self._close()
            self.stream = False
            self.at = 0
            self.run = self._open("the byte boundary after a bit stream", False)
            self.bounded = False
        elif self.at % 8:
            self.at += 8 - self.at % 8

    def to_stream(self, why: str) -> None:
        if not self.stream:
            self._close()
            self.stream = True
            self.run = self._open(why, True)
            self.bounded = False

    def finish(self) -> None:
        self.align8()
        self._close()

    # -- steps
    def step(self, path: str, name: str, role: str, t: DataType, off: Offsets | None) -> Step:
        if t.alignment == 8:
            self.align8()
        if isinstance(t, Array):
            return self.array(path, name, role, t, off)
        if isinstance(t, Composite):
            return self.composite(path, name, role, t, off)
        return self.primitive(path, name, role, t, off)

    def _make(
        self,
        path: str,
        name: str,
        role: str,
        t: DataType,
        strategy: str,
        off: Offsets | None,
        reason: str,
        steps: tuple[Step, ...] = (),
        run: int | None = None,
        at: int | None = None,
    ) -> Step:
        return Step(
            path, name, role, t, strategy, off, self.run if run is None else run, at, reason, steps
        )

    def primitive(self, path: str, name: str, role: str, t: Primitive, off: Offsets | None) -> Step:
        if self.stream:
            strategy, reason = "bit-stream", "alignment not provable: run-time bit position"
            if t.kind == "v":
                strategy, reason = "padding", "zero padding"
            return self._make(path, name, role, t, strategy, off, reason)
        at = self.at
        self.at += t.bits
        if t.kind == "v":
            return self._make(path, name, role, t, "padding", off, "zero padding", at=at)
        if at % 8 == 0 and t.standard:
            return self._make(
                path, name, role, t, "struct", off,
                f"byte-aligned {t.bits}-bit at byte {at // 8} of run {self.run}", at=at,
            )  # fmt: skip
        if at % 8 == 0 and t.bits < 8:
            return self._make(
                path, name, role, t, "struct", off,
                f"{t.bits}-bit at a byte boundary, masked in its byte", at=at,
            )  # fmt: skip
        return self._make(
            path, name, role, t, "bit-group", off,
            f"{t.bits}-bit at static bit {at % 8} of byte {at // 8} of run {self.run}", at=at,
        )  # fmt: skip

    def array(self, path: str, name: str, role: str, t: Array, off: Offsets | None) -> Step:
        el = t.element
        cap = t.capacity
        if isinstance(el, Composite):
            self.align8()
            run, at = self.run, self.at
            head: tuple[Step, ...] = ()
            if t.length_type is not None:
                head = (self.primitive(path, "", "length", t.length_type, None),)
            inline = plain_fixed(el)
            self.loops = True
            if inline:
                body = _Walk(self.runs, self.variant)
                self.runs[body.run] = Run(
                    body.run, f"each element of {path or 'the array'}", False, None,
                    self.variant, True,
                )  # fmt: skip
                steps = tuple(body.fields(el, f"{path}[]", None))
                body.finish()
                reason = "array of fixed-size structures: the element's steps in a loop"
                uw = uint_wrapper(el)
                if uw is not None and cap <= 256:
                    reason += f"; elements are {uw[0]}-byte unsigned integers (one read of all)"
                step = self._make(path, name, role, t, "inline", off, reason, head + steps, run, at)
            else:
                self.bounded = False
                step = self._make(
                    path, name, role, t, "call", off,
                    "array of composites: the element's routine in a loop", head, run, at,
                )  # fmt: skip
            self.new_run(f"after the array {path}")
            return step
        assert isinstance(el, Primitive)
        if t.fixed:
            width = cap * el.bits
            if self.stream:
                return self._make(
                    path, name, role, t, "bit-stream", off,
                    "alignment not provable: run-time bit position",
                )  # fmt: skip
            at = self.at
            self.at += width
            if at % 8 == 0 and el.standard:
                return self._make(
                    path, name, role, t, "struct", off,
                    f"byte-aligned array of {cap} {el.bits}-bit numbers at byte {at // 8}", at=at,
                )  # fmt: skip
            if at % 8 == 0 and el.kind == "b" and cap >= 64 and cap % 8 == 0:
                return self._make(
                    path, name, role, t, "struct", off,
                    f"byte-aligned bool[{cap}]: {cap // 8} packed bytes", at=at,
                )  # fmt: skip
            return self._make(
                path, name, role, t, "bit-group", off,
                f"{width} bits at static bit {at % 8} of byte {at // 8}", at=at,
            )  # fmt: skip
        assert t.length_type is not None
        run, start = self.run, (None if self.stream else self.at)
        length = self.primitive(path, "", "length", t.length_type, None)
        if not self.stream and self.at % 8 == 0 and el.standard:
            self.new_run(f"after the array {path}")
            return self._make(
                path, name, role, t, "byte-copy", off,
                f"byte-aligned array of {el.bits}-bit numbers: one copy of length x "
                f"{el.bits // 8} bytes",
                (length,), run, start,
            )  # fmt: skip
        self.to_stream(f"the elements of {path}, not whole bytes")
        return self._make(
            path, name, role, t, "bit-stream", off,
            "elements not byte-aligned: packed at a run-time bit position", (length,),
            run, start,
        )  # fmt: skip

    def composite(self, path: str, name: str, role: str, t: Composite, off: Offsets | None) -> Step:
        self.align8()
        if t.union or not t.sealed:
            run, at = self.run, self.at
            why = (
                "delimited: its own routine behind a length header"
                if not t.sealed
                else "union: its own routine per variant"
            )
            self.bounded = False
            self.new_run(f"after {path}")
            return self._make(path, name, role, t, "call", off, why, run=run, at=at)
        run, at = self.run, self.at
        steps = tuple(self.fields(t, path, off))
        self.align8()
        return self._make(
            path, name, role, t, "inline", off, "sealed structure serialized in place",
            steps, run, at,
        )  # fmt: skip

    def fields(self, t: Composite, path: str, base: Offsets | None) -> list[Step]:
        out = []
        for f in t.fields:
            off = None if base is None else base + f.offset
            sub = f"{path}.{f.name}".lstrip(".") if f.name else f"{path}.<void>".lstrip(".")
            role = "padding" if f.padding else "field"
            out.append(self.step(sub, f.name, role, f.type, off))
        return out


def plan_type(t: Composite) -> TypePlan:
    """The plan of one composite type."""
    runs: list[Run] = []
    steps: tuple[Step, ...] = ()
    variants: list[tuple[Step, Step]] = []
    bounded = True
    variant_bounded: list[bool] = []
    loops = False
    if t.union:
        for k, f in enumerate(t.fields):
            w = _Walk(runs, k)
            tag_type = Primitive("u", t.tag_bits, False, f"truncated uint{t.tag_bits}")
            tag = w.primitive("", "", "tag", tag_type, Offsets.exact(0))
            value = w.step(f.name, f.name, "field", f.type, f.offset)
            w.finish()
            variants.append((tag, value))
            bounded = bounded and w.bounded
            variant_bounded.append(w.bounded)
            loops = loops or w.loops
        strategy = "stepwise"
        reason = f"union: a {t.tag_bits}-bit tag, then one routine per variant"
        one_run = False
    else:
        w = _Walk(runs)
        steps = tuple(w.fields(t, "", Offsets.exact(0)))
        w.finish()
        bounded, loops = w.bounded, w.loops
        every = [s for top in steps for s in top.walk()]
        one_run = (
            t.fixed
            and not loops
            and all(
                s.run == 0 and s.strategy in ("struct", "bit-group", "inline", "padding")
                for s in every
            )
        )
        if one_run and not any(s.strategy == "bit-group" for s in every):
            strategy = "single-struct"
            reason = "fixed layout, every field byte-aligned: one run, one pack / unpack"
        elif one_run:
            strategy = "single-struct+bits"
            reason = "fixed layout with bit-packed fields: one run, shifts for the packed bytes"
        else:
            strategy = "stepwise"
            kinds = sorted({s.strategy for s in every} - {"struct", "inline", "padding"})
            reason = f"{len(runs)} runs" + (": " + ", ".join(kinds) if kinds else "")
    return TypePlan(
        type=t,
        steps=steps,
        variants=tuple(variants),
        runs=tuple(runs),
        strategy=strategy,
        reason=reason,
        one_run=one_run,
        loops=loops,
        bounded_reads=bounded,
        variant_bounded=tuple(variant_bounded),
    )


def report(plan: TypePlan) -> TypeLayout:
    """The layout report of a plan: its runs, and per step its offsets, strategy and reason."""
    t = plan.type
    fields = []
    for s in plan.walk():
        if s.offset is None or s.role in ("tag", "length"):
            continue
        fields.append(
            FieldLayout(
                path=s.path,
                type=s.type.label,
                offset_min=s.offset.min,
                offset_max=s.offset.max,
                alignment=s.offset.alignment,
                strategy=s.strategy,
                reason=s.reason,
                run=s.run,
                run_bit=s.at,
            )
        )
    runs = [
        RunLayout(
            index=r.index,
            start=r.start,
            stream=r.stream,
            bits=r.bits,
            variant=r.variant,
            element=r.element,
        )
        for r in plan.runs
    ]
    return TypeLayout(
        name=t.full_name,
        kind="union" if t.union else "structure",
        sealed=t.sealed,
        extent_bytes=t.extent // 8,
        min_bytes=(t.min_bits + 7) // 8,
        max_bytes=(t.max_bits + 7) // 8,
        strategy=plan.strategy,
        reason=plan.reason,
        fields=fields,
        runs=runs,
        facts={
            "one_run": plan.one_run,
            "loops": plan.loops,
            "bounded_reads": plan.bounded_reads,
        },
    )
