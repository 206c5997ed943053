"""Layout reports: plain data, readable without pydsdl (a view of the compiler's plan)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["FieldLayout", "RunLayout", "TypeLayout"]


@dataclass
class FieldLayout:
    """One step of a type's plan: a field, or a field of an inlined nested structure."""

    path: str  # "health.value"
    type: str  # "saturated uint2"
    offset_min: int  # bits from the start of the type
    offset_max: int
    alignment: int  # largest power of two (<= 64 bits) dividing every possible offset
    strategy: str
    reason: str
    run: int = 0  # the run it belongs to
    run_bit: int | None = None  # its bit offset from the start of the run, when static
    c_strategy: str = ""  # the C backend's strategy (empty when not planned)
    c_reason: str = ""
    cpp_strategy: str = ""  # the C++ backend's, where it differs from C's (bool containers)

    @property
    def c_column(self) -> str:
        """The C strategy, and the C++ one after a slash where it differs."""
        if self.cpp_strategy and self.cpp_strategy != self.c_strategy:
            return f"{self.c_strategy}/{self.cpp_strategy}"
        return self.c_strategy


@dataclass
class RunLayout:
    """A stretch of static offsets that starts on a byte boundary, or a bit stream."""

    index: int
    start: str  # why a run starts there
    stream: bool  # the position is known at run time only
    bits: int | None  # static length
    variant: int | None = None  # the union variant it belongs to
    element: bool = False  # the body of a loop over array elements


@dataclass
class TypeLayout:
    """The plan of one composite type: runs, steps with offsets, strategy and reason."""

    name: str  # "uavcan.node.Heartbeat.1.0"
    kind: str  # "structure" / "union"
    sealed: bool
    extent_bytes: int
    min_bytes: int
    max_bytes: int
    strategy: str  # "single-struct", "single-struct+bits" or "stepwise"
    reason: str
    fields: list[FieldLayout] = field(default_factory=list)
    runs: list[RunLayout] = field(default_factory=list)
    facts: dict[str, bool] = field(default_factory=dict)
    c_strategy: str = ""  # the C backend's strategy for the whole type (empty when not planned)
    c_reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        """Plain data (for JSON)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TypeLayout:
        """The inverse of :meth:`to_dict`."""
        fields = [FieldLayout(**f) for f in data["fields"]]
        runs = [RunLayout(**r) for r in data.get("runs", [])]
        return cls(**{**data, "fields": fields, "runs": runs})

    def render(self) -> str:
        """A human-readable table: the runs, then one line per step."""
        lines = [
            f"{self.name}: {self.kind}, {'sealed' if self.sealed else 'delimited'}, "
            f"{self.min_bytes}..{self.max_bytes} bytes, extent {self.extent_bytes} bytes",
            f"strategy: {self.strategy} ({self.reason})",
        ]
        if self.c_strategy:
            lines.append(f"C/C++ strategy: {self.c_strategy} ({self.c_reason})")
        if self.facts:
            lines.append("facts: " + ", ".join(f"{k}={v}" for k, v in self.facts.items()))
        for r in self.runs:
            size = "bit stream" if r.stream else f"{r.bits} bits" if r.bits is not None else "?"
            where = f" (variant {r.variant})" if r.variant is not None else ""
            where += " (per element)" if r.element else ""
            lines.append(f"run {r.index}{where}: {size}, starts at {r.start}")
        width = max([len(f.path) for f in self.fields] + [5])
        twidth = max([len(f.type) for f in self.fields] + [4])
        cwidth = max([len(f.c_column) for f in self.fields] + [0])
        if cwidth:
            cwidth = max(cwidth, 14)
        c_head = f"{'C/C++ strategy':<{cwidth}}  " if cwidth else ""
        lines.append(
            f"{'field':<{width}}  {'type':<{twidth}}  {'offset bits':>13}  align  run  "
            f"{'at':>4}  {c_head}strategy"
        )
        for f in self.fields:
            off = (
                f"{f.offset_min}"
                if f.offset_min == f.offset_max
                else f"{f.offset_min}..{f.offset_max}"
            )
            at = "-" if f.run_bit is None else str(f.run_bit)
            c_col = f"{f.c_column:<{cwidth}}  " if cwidth else ""
            lines.append(
                f"{f.path:<{width}}  {f.type:<{twidth}}  {off:>13}  {f.alignment:>5}  "
                f"{f.run:>3}  {at:>4}  {c_col}{f.strategy}: {f.reason}"
            )
        return "\n".join(lines)
