"""The core every format shares: plan regions, execute copies, map and view, write atomically."""

from wireplan.core.atomic import atomic_open, write_bytes, write_plan, write_sized
from wireplan.core.buffers import MappedFile, as_memoryview, view
from wireplan.core.execute import execute, resolve_threads, run_copies
from wireplan.core.plan import Plan, Region, align_up, is_power_of_two

__all__ = [
    "MappedFile",
    "Plan",
    "Region",
    "align_up",
    "as_memoryview",
    "atomic_open",
    "execute",
    "is_power_of_two",
    "resolve_threads",
    "run_copies",
    "view",
    "write_bytes",
    "write_plan",
    "write_sized",
]
