"""Render the C moves (:mod:`.plan_c`) as C++17 headers with nunavut 3.1's C++ API: the skeleton.

One header per type (``uavcan/node/Heartbeat_1_0.hpp``), in namespaces named after the
DSDL namespaces (``uavcan::_register``; :mod:`.cpp_names`), a ``struct T final`` with
nunavut's ``_traits_`` (``HasFixedPortID``, ``FixedPortId``, ``IsServiceType``,
``FullNameAndVersion()``, ``ExtentBytes``, ``SerializationBufferSizeBytes``, ``TypeOf``,
``ArrayCapacity``), members initialised with ``{}``, ``std::array`` / ``std::vector`` /
``std::bitset`` members, unions as a ``VariantType`` (a ``std::variant``, which is what
nunavut's ``cetl::variant`` is under C++17) named ``union_value`` with ``is_x`` / ``get_x``
/ ``get_x_if`` / ``set_x``, service halves ``GetInfo::Request_1_0`` beside a
``GetInfo_1_0`` holding ``Request`` and ``Response``, and the free functions
``serialize(const T&, bitspan)`` / ``deserialize(T&, const_bitspan)`` returning
``nunavut::support::SerializeResult``.

The bodies are the C backend's: the same plan, the same step code (:mod:`.c_steps`) with
the C++ dialect (:mod:`.c_dialects`), in ``wireplan_serialize_`` / ``wireplan_deserialize_``
overloads on a byte pointer that the nunavut functions call.  The support headers are
``nunavut/support/serialization.hpp`` (the nunavut names, wireplan's own code) and
``wireplan/dsdl/support.h`` (the routines the C backend uses).
"""

from __future__ import annotations

from collections.abc import Sequence

from wireplan import __version__

from .c_dialects import CppDialect
from .c_steps import Deserializer, Serializer
from .cpp_names import (
    cpp_guard,
    cpp_header_path,
    cpp_member,
    cpp_name,
    cpp_namespace,
    cpp_strop,
    cpp_type,
)
from .emit_c import SUPPORT_HEADER, Moves, dependencies, generate_headers
from .model import Array, Composite, Constant, Primitive, TopType
from .plan_c import CMoves

__all__ = ["CPP_SUPPORT_HEADERS", "generate_cpp"]

#: The support headers of a C++ output (relative path -> package data file).
CPP_SUPPORT_HEADERS = {
    SUPPORT_HEADER: "wireplan_dsdl_support.h",
    "nunavut/support/serialization.hpp": "nunavut_serialization.hpp",
}


def _constant(c: Constant) -> tuple[str, str]:
    """(C++ type, value) of a constant."""
    if c.kind == "b":
        return "bool", "true" if c.value else "false"
    if c.kind == "f":
        t = "double" if c.bits == 64 else "float"
        return t, f"static_cast<{t}>({float(c.value)!r})"
    v = int(c.value)
    t = cpp_type(Primitive("i" if c.signed else "u", c.bits, False, ""))
    if c.signed:
        return t, f"{v}LL" if c.bits > 32 else str(v)
    return t, f"{v}ULL" if c.bits > 32 else f"{v}UL" if c.bits > 16 else f"{v}U"


def _port(fixed_port_id: int | None) -> list[str]:
    """The port-ID members of a ``_traits_``."""
    if fixed_port_id is None:
        return ["        static constexpr bool HasFixedPortID = false;"]
    return [
        "        static constexpr bool HasFixedPortID = true;",
        f"        static constexpr std::uint16_t FixedPortId = {fixed_port_id}U;",
    ]


def _traits(t: Composite, fixed_port_id: int | None, half: str | None) -> list[str]:
    out = [
        "    struct _traits_  // The name is surrounded with underscores to avoid collisions with DSDL attributes.",
        "    {",
        "        _traits_() = delete;",
        *_port(fixed_port_id),
    ]
    if half is None:
        out.append("        static constexpr bool IsServiceType = false;")
    else:
        out += [
            "        static constexpr bool IsServiceType  = true;",
            "        static constexpr bool IsService      = false;",
            f"        static constexpr bool IsRequest      = {'true' if half == 'Request' else 'false'};",
            f"        static constexpr bool IsResponse     = {'true' if half == 'Response' else 'false'};",
        ]
    out += [
        f'        static constexpr const char* FullNameAndVersion() {{ return "{t.full_name}"; }}',
        f"        static constexpr std::size_t ExtentBytes                  = {t.extent // 8}UL;",
        f"        static constexpr std::size_t SerializationBufferSizeBytes = {(t.max_bits + 7) // 8}UL;",
        '        static_assert(ExtentBytes >= SerializationBufferSizeBytes, "Internal constraint violation");',
        "        static_assert(ExtentBytes < (std::numeric_limits<std::size_t>::max() / 8U), "
        '"This message is too large to be handled by the selected types");',
    ]
    fields = [f for f in t.fields if not f.padding]
    if fields:
        out += ["        struct TypeOf", "        {", "            TypeOf() = delete;"]
        out += [f"            using {cpp_strop(f.name)} = {cpp_type(f.type)};" for f in fields]
        out.append("        };")
    arrays = [f for f in fields if isinstance(f.type, Array)]
    if arrays:
        out += [
            "        struct ArrayCapacity",
            "        {",
            "            ArrayCapacity() = delete;",
        ]
        out += [
            f"            static constexpr std::size_t {cpp_strop(f.name)} = {f.type.capacity}UL;"
            for f in arrays
            if isinstance(f.type, Array)
        ]
        out.append("        };")
    out.append("    };")
    return out


def _union(t: Composite) -> list[str]:
    names = [cpp_strop(f.name) for f in t.fields]
    alts = ",\n".join(f"        _traits_::TypeOf::{n}" for n in names)
    out = [
        f"    class VariantType final : public std::variant<\n{alts}\n    >",
        "    {",
        "    public:",
        "        static const constexpr std::size_t variant_npos = std::variant_npos;",
        f"        using Base = std::variant<\n{alts}\n        >;",
        "        using Base::Base;",
        "        struct IndexOf final",
        "        {",
        "            IndexOf() = delete;",
    ]
    out += [
        f"            static constexpr const std::size_t {n} = {k}U;" for k, n in enumerate(names)
    ]
    out += [
        "        };",
        f"        static constexpr const std::size_t MAX_INDEX = {len(names)}U;",
        "        template<std::size_t I, typename T>",
        "        struct alternative;",
        "        template<std::size_t I, typename... Types>",
        "        struct alternative<I, std::variant<Types...>> final",
        "        {",
        "            using type = typename std::variant_alternative<I, std::variant<Types...>>::type;",
        "        };",
        "        template<std::size_t I, typename T>",
        "        struct alternative<I, const T> final",
        "        {",
        "            using type = std::add_const_t<typename std::variant_alternative<I, T>::type>;",
        "        };",
        "        template<std::size_t I, class... Types>",
        "        static constexpr typename alternative<I, std::variant<Types...>>::type* "
        "get_if(std::variant<Types...>* v) noexcept",
        "        {",
        "            return std::get_if<I, Types...>(v);",
        "        }",
        "        template<std::size_t I, class... Types>",
        "        static constexpr const typename alternative<I, std::variant<Types...>>::type* "
        "get_if(const std::variant<Types...>* v) noexcept",
        "        {",
        "            return std::get_if<I, Types...>(v);",
        "        }",
        "    };",
        "",
        "    VariantType union_value;",
    ]
    for n in names:
        ty = f"_traits_::TypeOf::{n}"
        at = f"VariantType::get_if<VariantType::IndexOf::{n}>(&union_value)"
        out += [
            "",
            f"    bool is_{n}() const",
            "    {",
            f"        return VariantType::IndexOf::{n} == union_value.index();",
            "    }",
            f"    typename std::add_pointer<{ty}>::type get_{n}_if()",
            "    {",
            f"        return {at};",
            "    }",
            f"    typename std::add_pointer<const {ty}>::type get_{n}_if() const",
            "    {",
            f"        return {at};",
            "    }",
            f"    typename std::add_lvalue_reference<{ty}>::type get_{n}()",
            "    {",
            f"        return *{at};",
            "    }",
            f"    typename std::add_lvalue_reference<const {ty}>::type get_{n}() const",
            "    {",
            f"        return *{at};",
            "    }",
            "    template<class... Args> typename",
            f"    std::add_lvalue_reference<{ty}>::type set_{n}(Args&&...v)",
            "    {",
            f"        return union_value.emplace<VariantType::IndexOf::{n}>(std::forward<Args>(v)...);",
            "    }",
        ]
    return out


def _composite(
    t: Composite, moves: CMoves, fixed_port_id: int | None, half: str | None
) -> list[str]:
    cls = cpp_name(t.name.split(".")[-1], t.version)
    attribute = (
        f'[[deprecated("{t.full_name} is reaching the end of its life; there may be a newer '
        'version available")]]'
        if t.deprecated
        else ""
    )
    out = [f"// {t.full_name}: {moves.strategy} ({moves.reason})", f"struct {attribute}{cls} final"]
    out.append("{")
    out += _traits(t, fixed_port_id, half)
    for c in t.constants:
        ty, value = _constant(c)
        out.append(f"    static constexpr {ty} {cpp_strop(c.name)} = {value};")
    if t.union:
        out += _union(t)
    else:
        for f in t.fields:
            if not f.padding:
                name = cpp_strop(f.name)
                out.append(f"    _traits_::TypeOf::{name} {name}{{}};")
    out += ["};", ""]
    if moves.memcpy_bytes is not None:
        msg = (
            f'"{cls}: the C++ layout differs from the wire layout on this target; '
            'define WIREPLAN_DSDL_GENERIC"'
        )
        out.append("#if WIREPLAN_DSDL_LE")
        out.append(f"// The wire layout of {t.full_name} is the C++ layout: checked here.")
        out.append(f"static_assert(std::is_trivially_copyable<{cls}>::value && "
                   f"std::is_standard_layout<{cls}>::value, {msg});")  # fmt: skip
        out.append(f"static_assert(sizeof({cls}) == {moves.memcpy_bytes}U, {msg});")
        for f in t.fields:
            out.append(f"static_assert(offsetof({cls}, {cpp_member((f.name,))}) == "
                       f"{f.offset.min // 8}U, {msg});")  # fmt: skip
        out += ["#endif", ""]
    d = CppDialect()
    out += Serializer(d).routine(t, moves, cls)
    out.append("")
    out += Deserializer(d).routine(t, moves, cls)
    out += [
        "",
        f"inline nunavut::support::SerializeResult serialize(const {cls}& obj,",
        "                                                   nunavut::support::bitspan out_buffer)",
        "{",
        "    return nunavut::support::wireplan_detail::serialize(",
        "        out_buffer, [&obj](std::uint8_t* const buffer, std::size_t* const size) {",
        "            return wireplan_serialize_(obj, buffer, size);",
        "        });",
        "}",
        "",
        f"inline nunavut::support::SerializeResult deserialize({cls}& obj,",
        "                                                     nunavut::support::const_bitspan in_buffer)",
        "{",
        "    return nunavut::support::wireplan_detail::deserialize(",
        "        in_buffer, [&obj](const std::uint8_t* const buffer, std::size_t* const size) {",
        "            return wireplan_deserialize_(obj, buffer, size);",
        "        });",
        "}",
        "",
    ]
    return out


def _open(namespaces: Sequence[str]) -> list[str]:
    return [line for ns in namespaces for line in (f"namespace {ns}", "{")]


def _close(namespaces: Sequence[str]) -> list[str]:
    return [f"}} // namespace {ns}" for ns in reversed(namespaces)]


def _file(name: str, version: tuple[int, int], fixed_port_id: int | None,
          parts: Sequence[Composite], moves: dict[tuple[str, int, int], CMoves],
          service: bool) -> str:  # fmt: skip
    include_guard = cpp_guard(name, version)
    deps: set[tuple[str, tuple[int, int]]] = set()
    for p in parts:
        deps |= dependencies(p)
    # nunavut's order: the support header among the types' headers, sorted
    support = '#include "nunavut/support/serialization.hpp"'
    includes = sorted([support, *(f'#include "{cpp_header_path(n, v)}"' for n, v in deps)])
    lines = [
        f"// Generated by wireplan {__version__} from DSDL type {name}.{version[0]}.{version[1]}: "
        "do not edit.",
        "// The API is nunavut 3.1's (nnvg --target-language cpp --language-standard c++17); "
        "see docs/dsdl-c.md.",
        f"#ifndef {include_guard}",
        f"#define {include_guard}",
        "",
        *includes,
        "#include <array>",
        "#include <bitset>",
        "#include <cstddef>",
        "#include <cstdint>",
        "#include <limits>",
        "#include <type_traits>",
        "#include <utility>",
        "#include <variant>",
        "#include <vector>",
        "",
    ]
    namespaces = cpp_namespace(name)
    # The generated code uses deprecated types itself (a user's use of one still warns), and
    # its function bodies are the C backend's steps, with C casts and NULL.
    lines += ["#if defined(__GNUC__)", "#    pragma GCC diagnostic push",
              '#    pragma GCC diagnostic ignored "-Wdeprecated-declarations"',
              '#    pragma GCC diagnostic ignored "-Wold-style-cast"',
              '#    pragma GCC diagnostic ignored "-Wzero-as-null-pointer-constant"',
              "#endif", ""]  # fmt: skip
    lines += _open(namespaces)
    if service:
        short = cpp_strop(name.split(".")[-1])
        lines += ["", *_open([short])]
        for half, p in zip(("Request", "Response"), parts, strict=True):
            lines += _composite(p, moves[p.key], fixed_port_id, half)
        lines += _close([short])
        cls = cpp_name(name.split(".")[-1], version)
        lines += [
            "",
            f"struct {cls}",
            "{",
            f"    {cls}() = delete;",
            f"    using Request  = {short}::Request_{version[0]}_{version[1]};",
            f"    using Response = {short}::Response_{version[0]}_{version[1]};",
            "    struct _traits_",
            "    {",
            "        _traits_() = delete;",
            *_port(fixed_port_id),
        ]
        lines += [
            "        static constexpr bool IsServiceType = true;",
            "        static constexpr bool IsService = true;",
            "        static constexpr bool IsRequest = false;",
            "        static constexpr bool IsResponse = false;",
            f'        static constexpr const char* FullNameAndVersion() {{ return "{name}.'
            f'{version[0]}.{version[1]}"; }}',
            "    };",
            "};",
            "",
        ]
    else:
        lines.append("")
        lines += _composite(parts[0], moves[parts[0].key], fixed_port_id, None)
    lines += _close(namespaces)
    lines += ["", "#if defined(__GNUC__)", "#    pragma GCC diagnostic pop", "#endif", ""]
    lines += [f"#endif // {include_guard}", ""]
    return "\n".join(lines)


def generate_cpp(types: Sequence[TopType]) -> tuple[dict[str, str], Moves]:
    """C++ header files (relative path -> text) for ``types`` and every type they reach, and the
    moves by type key (the C backend's)."""
    return generate_headers(types, cpp_header_path, _file, CPP_SUPPORT_HEADERS)
