"""Layout reports: plain data, readable without pydsdl."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["FieldLayout", "TypeLayout"]


@dataclass
class FieldLayout:
    """One field (or one inlined nested field) of a type's layout."""

    path: str  # "health.value"
    type: str  # "saturated uint2"
    offset_min: int  # bits from the start of the type
    offset_max: int
    alignment: int  # largest power of two (<= 64 bits) dividing every possible offset
    strategy: str
    reason: str


@dataclass
class TypeLayout:
    """The layout of one composite type and the serializer strategy chosen for it."""

    name: str  # "uavcan.node.Heartbeat.1.0"
    kind: str  # "structure" / "union"
    sealed: bool
    extent_bytes: int
    min_bytes: int
    max_bytes: int
    strategy: str  # "single-struct", "single-struct+bits" or "stepwise"
    reason: str
    fields: list[FieldLayout] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """Plain data (for JSON)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TypeLayout:
        """The inverse of :meth:`to_dict`."""
        fields = [FieldLayout(**f) for f in data["fields"]]
        return cls(**{**data, "fields": fields})

    def render(self) -> str:
        """A human-readable table."""
        lines = [
            f"{self.name}: {self.kind}, {'sealed' if self.sealed else 'delimited'}, "
            f"{self.min_bytes}..{self.max_bytes} bytes, extent {self.extent_bytes} bytes",
            f"strategy: {self.strategy} ({self.reason})",
        ]
        width = max([len(f.path) for f in self.fields] + [5])
        twidth = max([len(f.type) for f in self.fields] + [4])
        lines.append(
            f"{'field':<{width}}  {'type':<{twidth}}  {'offset bits':>13}  align  strategy"
        )
        for f in self.fields:
            off = (
                f"{f.offset_min}"
                if f.offset_min == f.offset_max
                else f"{f.offset_min}..{f.offset_max}"
            )
            lines.append(
                f"{f.path:<{width}}  {f.type:<{twidth}}  {off:>13}  {f.alignment:>5}  "
                f"{f.strategy}: {f.reason}"
            )
        return "\n".join(lines)
