"""The core every format shares: plan regions, execute copies, allocate, map and view, write atomically."""

from wireplan.core.alloc import fill_new_bytes
from wireplan.core.atomic import (
    SizedFile,
    atomic_open,
    write_bytes,
    write_group,
    write_plan,
    write_sized,
)
from wireplan.core.buffers import MappedFile, as_memoryview, drop_pages, view
from wireplan.core.executor import copy_array, execute, execute_file, resolve_threads, run_copies
from wireplan.core.plan import Plan, Region, align_up, check_alignment, is_power_of_two

__all__ = [
    "MappedFile",
    "Plan",
    "Region",
    "SizedFile",
    "align_up",
    "as_memoryview",
    "atomic_open",
    "check_alignment",
    "copy_array",
    "drop_pages",
    "execute",
    "execute_file",
    "fill_new_bytes",
    "is_power_of_two",
    "resolve_threads",
    "run_copies",
    "view",
    "write_bytes",
    "write_group",
    "write_plan",
    "write_sized",
]
