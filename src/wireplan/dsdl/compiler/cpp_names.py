"""C++ names: DSDL names as C++ identifiers, namespaces, header paths and guards, C++ types.

As nunavut 3.1 names them for ``--target-language cpp``: the same reserved words as C
(:mod:`.languages`), but only the patterns C++ reserves (``_X`` names; a leading digit), so
the member ``string`` stays ``string`` where C writes ``_string``; ``register`` is
``_register`` in both.  Types: ``std::uint16_t``, ``std::array<T,N>``, ``std::vector<T>``,
``std::bitset<N>`` for a fixed bool array; with PMR allocators (``c++17-pmr``) a vector is
``std::vector<T, std::allocator_traits<allocator_type>::rebind_alloc<T>>``.
"""

from __future__ import annotations

import re

from .c_names import guard
from .languages import C_RESERVED
from .model import Array, Composite, DataType, Primitive

__all__ = [
    "cpp_guard",
    "cpp_header_path",
    "cpp_member",
    "cpp_name",
    "cpp_namespace",
    "cpp_qualified",
    "cpp_strop",
    "cpp_type",
]

_RESERVED_PATTERNS = (re.compile(r"^\d"), re.compile(r"^_[A-Z]"))


def cpp_strop(name: str) -> str:
    """A DSDL name as a C++ identifier (``register`` -> ``_register``, ``string`` stays)."""
    out = re.sub(r"\s+", "_", name)
    out = re.sub(r"[^a-zA-Z0-9_]+|^_{2,}|_{2,}$",
                 lambda m: "".join(f"zX{ord(c):04X}" for c in m[0]), out)  # fmt: skip
    if out in C_RESERVED or any(p.match(out) for p in _RESERVED_PATTERNS):
        out = "_" + out
    return out


def cpp_name(short: str, version: tuple[int, int]) -> str:
    """The class name of a type: ``Heartbeat_1_0`` (a service half: ``Request_1_0``)."""
    return cpp_strop(f"{short}_{version[0]}_{version[1]}")


def cpp_namespace(name: str) -> list[str]:
    """The namespaces of a type named ``uavcan.node.Heartbeat`` (``uavcan``, ``node``); a
    service half ``uavcan.node.GetInfo.Request`` is in the service's namespace ``GetInfo``."""
    return [cpp_strop(p) for p in name.split(".")[:-1]]


def cpp_qualified(t: Composite) -> str:
    """``uavcan::node::Health_1_0``."""
    return "::".join([*cpp_namespace(t.name), cpp_name(t.name.split(".")[-1], t.version)])


def cpp_header_path(name: str, version: tuple[int, int]) -> str:
    """``uavcan/_register/Value_1_0.hpp``."""
    parts = name.split(".")
    return "/".join([*(cpp_strop(p) for p in parts[:-1]), cpp_name(parts[-1], version) + ".hpp"])


def cpp_guard(name: str, version: tuple[int, int]) -> str:
    """``UAVCAN_NODE_GET_INFO_1_0_HPP_INCLUDED``."""
    return guard(name, version).removesuffix("_INCLUDED_") + "_HPP_INCLUDED"


def cpp_type(t: DataType, pmr: bool = False, cetl: bool = False) -> str:
    """The C++ type of a field (``std::uint8_t``, ``std::array<float,3>``, ``std::vector<bool>``);
    ``pmr``: a vector takes the class's ``allocator_type``, rebound to its element type;
    ``cetl``: the vector is CETL's ``VariableLengthArray``."""
    if isinstance(t, Composite):
        return cpp_qualified(t)
    if isinstance(t, Array):
        el = cpp_type(t.element)
        if t.fixed:
            if isinstance(t.element, Primitive) and t.element.kind == "b":
                return f"std::bitset<{t.capacity}>"
            return f"std::array<{el},{t.capacity}>"
        if pmr or cetl:
            vector = "cetl::VariableLengthArray" if cetl else "std::vector"
            return f"{vector}<{el}, std::allocator_traits<allocator_type>::rebind_alloc<{el}>>"
        return f"std::vector<{el}>"
    assert isinstance(t, Primitive)
    if t.kind == "b":
        return "bool"
    if t.kind == "f":
        return "double" if t.bits == 64 else "float"
    width = next(n for n in (8, 16, 32, 64) if t.bits <= n)
    return f"std::{'int' if t.kind == 'i' else 'uint'}{width}_t"


def cpp_member(path: tuple[str, ...]) -> str:
    """The C++ member of the field at ``path`` (``health.value``)."""
    return ".".join(cpp_strop(n) for n in path)
