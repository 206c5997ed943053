"""The DSDL compiler: read (pydsdl) -> plan -> emit.

- :mod:`.read` is the only module of wireplan that imports pydsdl: it reads
  the namespaces and converts their types into wireplan's own model
  (:mod:`.model`), with the offsets pydsdl proves;
- :mod:`.plan` decides, per type, how its bytes move: runs and steps, each
  with its strategy, offsets and the reason for the choice (plain data, no
  Python in it), and gives the layout report;
- :mod:`.emit_python` renders a plan as Python source; :mod:`.package`
  lays the generated files out as packages;
- :mod:`.plan_c` decides the C backend's moves from the same model
  (whole-object memcpy, loads, copies, bit-level code: C's choices differ
  from Python's at the same field, see its docstring); :mod:`.emit_c`
  renders them as C headers with nunavut's API (:mod:`.c_names` the names,
  :mod:`.c_steps` the function bodies, each strategy once for both
  directions);
- :mod:`.languages`: the reserved words of C and Python, as data.
"""

from __future__ import annotations

from collections.abc import Sequence

from wireplan.dsdl._layout import FieldLayout, RunLayout, TypeLayout
from wireplan.errors import NotFoundError

from .model import Service, TopType
from .package import IMPL_MODULE, generate
from .plan import TypePlan, plan_type, report
from .read import GENERATOR_VERSION, CompileError, convert, read_types, source_digest

__all__ = [
    "GENERATOR_VERSION",
    "IMPL_MODULE",
    "CompileError",
    "FieldLayout",
    "RunLayout",
    "TypeLayout",
    "TypePlan",
    "analyse",
    "convert",
    "find_type",
    "generate",
    "models",
    "plan_type",
    "plans",
    "read_types",
    "report",
    "source_digest",
]


def plans(types: Sequence[TopType]) -> list[TypePlan]:
    """The plans of ``types`` and of every type they reach."""
    from .package import collect

    return [plan_type(u.t) for u in collect(types).values()]


def analyse(types: Sequence[TopType], c: bool = False) -> list[TypeLayout]:
    """The layouts of ``types`` (and every type they reach) without generating code;
    ``c``: with the C backend's strategy beside the Python one."""
    if not c:
        return [report(p) for p in plans(types)]
    from .plan_c import annotate, c_moves

    return [annotate(report(p), c_moves(p.type)) for p in plans(types)]


def models(types: Sequence[TopType]) -> dict[str, dict[str, object]]:
    """The pydsdl type of each class :func:`generate` writes (pycyphal's ``_MODEL_``).

    By root namespace, then full name with version (``_FULL_NAME_``); a
    service maps to its ``ServiceType``.  (Opaque here: :mod:`.read` kept them.)
    """
    from .package import collect

    out: dict[str, dict[str, object]] = {}
    for u in collect(types).values():
        out.setdefault(u.root, {})[u.t.full_name] = u.t.source
    for t in types:
        if isinstance(t, Service):
            out.setdefault(t.name.split(".")[0], {})[t.full_name] = t.source
    return out


def find_type(types: Sequence[TopType], name: str) -> TopType:
    """The type named ``uavcan.node.Heartbeat.1.0`` (a service, or its request / response)."""
    for t in types:
        if t.full_name == name:
            return t
        if isinstance(t, Service):
            for half in (t.request, t.response):
                if half.full_name == name:
                    return half
    raise NotFoundError(f"no type named {name!r}")
