"""The core every format shares: plan regions, execute copies, allocate, map and view, write atomically."""

from wireplan.core.alloc import fill_new_bytes
from wireplan.core.atomic import atomic_open, write_bytes, write_plan, write_sized
from wireplan.core.buffers import MappedFile, as_memoryview, view
from wireplan.core.execute import copy_array, execute, resolve_threads, run_copies
from wireplan.core.plan import Plan, Region, align_up, is_power_of_two

__all__ = [
    "MappedFile",
    "Plan",
    "Region",
    "align_up",
    "as_memoryview",
    "atomic_open",
    "copy_array",
    "execute",
    "fill_new_bytes",
    "is_power_of_two",
    "resolve_threads",
    "run_copies",
    "view",
    "write_bytes",
    "write_plan",
    "write_sized",
]
