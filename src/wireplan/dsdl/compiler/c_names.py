"""C names: DSDL names as C identifiers, header paths and guards, C types and struct members.

Stropped as nunavut 3.1 does, with the reserved words and patterns of
:mod:`.languages`.
"""

from __future__ import annotations

import re

from .languages import C_PATH_PATTERNS, C_PATTERNS, C_RESERVED
from .model import Array, Composite, DataType, Primitive

__all__ = [
    "c_name",
    "ctype",
    "guard",
    "header_path",
    "is_bool_array",
    "member",
    "strop",
    "unsigned",
]

_PATTERNS = [re.compile(p) for p in C_PATTERNS]
_PATH_PATTERNS = [re.compile(p) for p in C_PATH_PATTERNS]


def strop(name: str, path: bool = False) -> str:
    """A DSDL name as a C identifier, escaped as nunavut 3.1 does (``register`` -> ``_register``).

    ``path``: a folder or file name, which only C keywords and ``_X`` / ``__`` names escape
    (``torque`` stays, the member ``torque`` would not).
    """
    patterns = _PATH_PATTERNS if path else _PATTERNS
    out = re.sub(r"\s+", "_", name)
    out = re.sub(r"^\d|[^a-zA-Z0-9_]+", lambda m: "".join(f"zX{ord(c):04X}" for c in m[0]), out)
    if out in C_RESERVED:
        out = "_" + out
    if any(p.match(out) for p in patterns):
        out = "_" + out
    if any(p.match(out) for p in patterns) or out in C_RESERVED:
        m = re.match(r"^_+([A-Z]?)", out)
        if m:
            out = f"_{m[1].lower()}{out[m.end() :]}"
    return out


def c_name(name: str, version: tuple[int, int]) -> str:
    """The C name of a type: ``uavcan_node_Heartbeat_1_0``."""
    parts = name.split(".")
    return strop("_".join([*parts[:-1], f"{parts[-1]}_{version[0]}_{version[1]}"]))


def header_path(name: str, version: tuple[int, int]) -> str:
    """``uavcan/node/Heartbeat_1_0.h`` (namespace folders and file stem stropped)."""
    parts = name.split(".")
    stem = strop(f"{parts[-1]}_{version[0]}_{version[1]}", path=True)
    return "/".join([*(strop(p, path=True) for p in parts[:-1]), stem + ".h"])


def guard(name: str, version: tuple[int, int]) -> str:
    """The include guard of a type's header: ``UAVCAN_NODE_HEARTBEAT_1_0_INCLUDED_``."""
    s = re.sub(r"\W+", "_", name.strip())
    s = re.sub(r"(?<=[A-Z])([A-Z][a-z]+)", lambda m: "_" + m[0].lower(), s)
    s = re.sub(r"(?<=_)([A-Z])+", lambda m: m[0].lower(), s)
    s = re.sub(r"(?<=[a-z])([A-Z])+", lambda m: "_" + m[0].lower(), s)
    return f"{s.upper()}_{version[0]}_{version[1]}_INCLUDED_"


def ctype(t: DataType) -> str:
    """The C type of a primitive or a composite (``uint16_t``, ``uavcan_node_Health_1_0``)."""
    if isinstance(t, Composite):
        return c_name(t.name, t.version)
    assert isinstance(t, Primitive)
    if t.kind == "b":
        return "bool"
    if t.kind == "f":
        return "double" if t.bits == 64 else "float"
    width = next(n for n in (8, 16, 32, 64) if t.bits <= n)
    return f"{'int' if t.kind == 'i' else 'uint'}{width}_t"


def is_bool_array(t: DataType) -> bool:
    """Whether ``t`` is an array of bools (packed in ``bitpacked`` bytes in C)."""
    return isinstance(t, Array) and isinstance(t.element, Primitive) and t.element.kind == "b"


def member(path: tuple[str, ...], t: DataType) -> str:
    """The C member of the field at ``path`` (``health.value``; a fixed bool array's
    ``_bitpacked_`` bytes)."""
    names = [strop(n) for n in path[:-1]]
    last = path[-1]
    if isinstance(t, Array) and t.fixed and is_bool_array(t):
        names.append(strop(last + "_bitpacked_"))
    else:
        names.append(strop(last))
    return ".".join(names)


def unsigned(n: int) -> str:
    """The C literal of the unsigned ``n`` (``7U``, ``4294967296ULL``)."""
    return f"{n}U" if n < 1 << 32 else f"{n}ULL"
