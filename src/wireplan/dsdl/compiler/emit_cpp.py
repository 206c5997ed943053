"""Render the C moves (:mod:`.plan_c`) as C++ headers with nunavut 3.1's C++ API: the skeleton.

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
``nunavut::support::SerializeResult``.  With PMR allocators (``c++17-pmr``, ``c++20-pmr``)
each class has nunavut's ``allocator_type`` and constructors, and its vectors the allocator;
with ``c++14`` a union's ``VariantType`` is nunavut's C++14 one over the support header's
``wireplan_detail::variant``; ``cetl++14-17`` is C++14 with CETL's containers (libcyphal's
flavour): ``cetl::VariableLengthArray`` made with its capacity, CETL's polymorphic
allocator (no default: every constructor takes one), unions over ``cetl::variant``.

The bodies are the C backend's: the same plan, the same step code (:mod:`.c_steps`) with
the C++ dialect (:mod:`.c_dialects`), in ``wireplan_serialize_`` / ``wireplan_deserialize_``
overloads on a byte pointer that the nunavut functions call.  The support headers are
``nunavut/support/serialization.hpp`` (the nunavut names, wireplan's own code) and
``wireplan/dsdl/support.h`` (the routines the C backend uses).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from wireplan import __version__
from wireplan.errors import ArgumentError

from .c_dialects import CppDialect
from .c_steps import Deserializer, Serializer
from .cpp_ctors import struct_constructors, takes_allocator, union_constructors
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

__all__ = ["CPP_STANDARDS", "CPP_SUPPORT_HEADERS", "CppFlavour", "generate_cpp"]


@dataclass(frozen=True)
class CppFlavour:
    """What a ``--language-standard`` changes in the headers.

    ``allocator``: the classes' ``allocator_type`` (None: no allocators); ``variant``: what a
    union's ``VariantType`` derives from (``std``: ``std::variant``, ``cetl``: ``cetl::variant``,
    ``wireplan``: nunavut's C++14 one over the support header's); ``cetl``: CETL's containers
    (``cetl::VariableLengthArray``, made with its capacity) and an allocator without a
    default (no default constructors, no default allocator arguments).
    """

    allocator: str | None = None
    variant: str = "std"
    cetl: bool = False

    @property
    def pmr(self) -> bool:
        """Whether the classes take an allocator (nunavut's ``std_flavor`` pmr or cetl)."""
        return self.allocator is not None

    @property
    def family(self) -> str:
        """``std``, ``pmr`` or ``cetl``: headers of one family only compile together."""
        return "cetl" if self.cetl else "pmr" if self.pmr else "std"


PMR_ALLOCATOR = "std::pmr::polymorphic_allocator<void>"
CETL_ALLOCATOR = "cetl::pf17::pmr::polymorphic_allocator<void>"

#: nunavut's ``--language-standard`` values this backend writes.  C++17 and C++20 headers are
#: the same text; C++14 unions are not ``std::variant``.
CPP_STANDARDS = {
    "c++14": CppFlavour(variant="wireplan"),
    "c++17": CppFlavour(),
    "c++20": CppFlavour(),
    "c++17-pmr": CppFlavour(allocator=PMR_ALLOCATOR),
    "c++20-pmr": CppFlavour(allocator=PMR_ALLOCATOR),
    "cetl++14-17": CppFlavour(allocator=CETL_ALLOCATOR, variant="cetl", cetl=True),
}

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


def _traits(t: Composite, fixed_port_id: int | None, half: str | None, fl: CppFlavour) -> list[str]:
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
        out += [
            f"            using {cpp_strop(f.name)} = {cpp_type(f.type, fl.pmr, fl.cetl)};"
            for f in fields
        ]
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


def _variant_cxx17(names: Sequence[str], ns: str = "std") -> list[str]:
    """nunavut's C++17 ``VariantType``: a ``std::variant`` with its ``get_if`` wrappers
    (``ns`` ``cetl``: over ``cetl::variant``, CETL's C++14 polyfill, ``std::variant`` under
    C++17)."""
    alts = ",\n".join(f"        _traits_::TypeOf::{n}" for n in names)
    out = [
        f"    class VariantType final : public {ns}::variant<\n{alts}\n    >",
        "    {",
        "    public:",
        f"        static const constexpr std::size_t variant_npos = {ns}::variant_npos;",
        f"        using Base = {ns}::variant<\n{alts}\n        >;",
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
        f"        struct alternative<I, {ns}::variant<Types...>> final",
        "        {",
        f"            using type = typename {ns}::variant_alternative<I, {ns}::variant<Types...>>::type;",
        "        };",
        "        template<std::size_t I, typename T>",
        "        struct alternative<I, const T> final",
        "        {",
        f"            using type = std::add_const_t<typename {ns}::variant_alternative<I, T>::type>;",
        "        };",
        "        template<std::size_t I, class... Types>",
        f"        static constexpr typename alternative<I, {ns}::variant<Types...>>::type* "
        f"get_if({ns}::variant<Types...>* v) noexcept",
        "        {",
        f"            return {ns}::get_if<I, Types...>(v);",
        "        }",
        "        template<std::size_t I, class... Types>",
        f"        static constexpr const typename alternative<I, {ns}::variant<Types...>>::type* "
        f"get_if(const {ns}::variant<Types...>* v) noexcept",
        "        {",
        f"            return {ns}::get_if<I, Types...>(v);",
        "        }",
        "    };",
        "",
    ]
    return out


def _variant_cxx14(names: Sequence[str], types: Sequence[str]) -> list[str]:
    """nunavut's C++14 ``VariantType`` (``emplace``, ``get_if``, ``index``, ``IndexOf``,
    ``alternative``), over the support header's ``wireplan_detail::variant``."""
    alts = ", ".join(f"_traits_::TypeOf::{n}" for n in names)
    storage = f"::nunavut::support::wireplan_detail::variant<{alts}>"
    out = [
        f"    class VariantType final : public {storage}",
        "    {",
        f"        using Storage = {storage};",
        "",
        "    public:",
        "        static const constexpr std::size_t variant_npos = std::numeric_limits<std::size_t>::max();",
        "        using Base = VariantType;",
        "        using Storage::Storage;",
        "        struct IndexOf final",
        "        {",
        "            IndexOf() = delete;",
        *(
            f"            static constexpr const std::size_t {n} = {k}U;"
            for k, n in enumerate(names)
        ),
        "        };",
        f"        static constexpr const std::size_t MAX_INDEX = {len(names)}U;",
        "        template<std::size_t I, class...Types> struct alternative;",
    ]
    for k, ty in enumerate(types):
        out += [
            f"        template<class...Types> struct alternative<{k}U, Types...>",
            "        {",
            f"            using type = {ty};",
            "        };",
        ]
    for const in ("", "const "):
        out += [
            "        template<std::size_t I, class... Types>",
            f"        static constexpr {const}typename alternative<I, VariantType>::type* "
            f"get_if({const}VariantType* v) noexcept",
            "        {",
            "            return (v) ? v->template get<I>() : nullptr;",
            "        }",
        ]
    return [*out, "    };", ""]


def _union(t: Composite, fl: CppFlavour) -> list[str]:
    names = [cpp_strop(f.name) for f in t.fields]
    types = [cpp_type(f.type) for f in t.fields]
    pmr = fl.pmr
    if fl.variant == "wireplan":
        out = _variant_cxx14(names, types)
    else:
        out = _variant_cxx17(names, fl.variant)
    out += [
        "    VariantType union_value;",
    ]
    if pmr and not t.fixed:
        out += ["", "    allocator_type allocator_;"]
    for f, n in zip(t.fields, names, strict=True):
        extra = ", allocator_" if pmr and not t.fixed and takes_allocator(f.type) else ""
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
        ]
        arr = f.type if isinstance(f.type, Array) and f.type.fixed else None
        if pmr and not t.fixed and arr is not None and isinstance(arr.element, Composite):
            # nunavut's: a fixed array of classes is made of elements given the allocator
            # (CETL's have no default constructor; std::pmr's would take the default resource)
            made = ", ".join([f"{cpp_type(arr.element)}{{allocator_}}"] * arr.capacity)
            out += [
                f"    typename std::add_lvalue_reference<{ty}>::type set_{n}()",
                "    {",
                f"        return union_value.emplace<VariantType::IndexOf::{n}>({ty}{{{made}}});",
                "    }",
            ]
        out += [
            "    template<class... Args> typename",
            f"    std::add_lvalue_reference<{ty}>::type set_{n}(Args&&...v)",
            "    {",
            f"        return union_value.emplace<VariantType::IndexOf::{n}>(std::forward<Args>(v)...{extra});",
            "    }",
        ]
    return out


def _composite(
    t: Composite,
    moves: CMoves,
    fixed_port_id: int | None,
    half: str | None,
    fl: CppFlavour,
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
    pmr = fl.pmr
    if pmr:
        out += [f"    using allocator_type = {fl.allocator};", ""]
    out += _traits(t, fixed_port_id, half, fl)
    fields = [f for f in t.fields if not f.padding]
    if pmr:
        out.append("")
        out += (union_constructors(cls, t, fl.cetl) if t.union
                else struct_constructors(cls, t, fl.cetl))  # fmt: skip
    for c in t.constants:
        ty, value = _constant(c)
        out.append(f"    static constexpr {ty} {cpp_strop(c.name)} = {value};")
    if t.union:
        out += _union(t, fl)
    else:
        for f in fields:
            name = cpp_strop(f.name)
            # a PMR class's constructors initialise every member
            out.append(f"    _traits_::TypeOf::{name} {name}{'' if pmr else '{}'};")
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
    d = CppDialect(checked_resize=fl.cetl)
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
          service: bool, standard: str) -> str:  # fmt: skip
    fl = CPP_STANDARDS[standard]
    include_guard = cpp_guard(name, version)
    deps: set[tuple[str, tuple[int, int]]] = set()
    for p in parts:
        deps |= dependencies(p)
    # nunavut's order: the support header among the types' headers (and CETL's), sorted
    quoted = ["nunavut/support/serialization.hpp", *(cpp_header_path(n, v) for n, v in deps)]
    if fl.cetl:
        quoted.append("cetl/pf17/sys/memory_resource.hpp")
        if any(isinstance(f.type, Array) and not f.type.fixed for p in parts for f in p.fields):
            quoted.append("cetl/variable_length_array.hpp")
    includes = sorted(f'#include "{q}"' for q in quoted)
    unions = any(p.union for p in parts)
    lines = [
        f"// Generated by wireplan {__version__} from DSDL type {name}.{version[0]}.{version[1]}: "
        "do not edit.",
        "// The API is nunavut 3.1's (nnvg --target-language cpp --language-standard "
        f"{standard}); see docs/dsdl-c.md.",
        f"#ifndef {include_guard}",
        f"#define {include_guard}",
        "",
        *includes,
        "#include <array>",
        "#include <bitset>",
        "#include <cstddef>",
        "#include <cstdint>",
        "#include <limits>",
        *(["#include <memory_resource>"] if fl.family == "pmr" else []),
        "#include <type_traits>",
        "#include <utility>",
        *(["#include <variant>"] if fl.variant == "std" else []),
        *(["#include <cetl/pf17/cetlpf.hpp>"] if fl.variant == "cetl" and unions else []),
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
            lines += _composite(p, moves[p.key], fixed_port_id, half, fl)
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
        lines += _composite(parts[0], moves[parts[0].key], fixed_port_id, None, fl)
    lines += _close(namespaces)
    lines += ["", "#if defined(__GNUC__)", "#    pragma GCC diagnostic pop", "#endif", ""]
    lines += [f"#endif // {include_guard}", ""]
    return "\n".join(lines)


def generate_cpp(types: Sequence[TopType], standard: str = "c++17") -> tuple[dict[str, str], Moves]:
    """C++ header files (relative path -> text) for ``types`` and every type they reach, and the
    moves by type key (the C backend's); ``standard`` is one of :data:`CPP_STANDARDS`."""
    if standard not in CPP_STANDARDS:
        raise ArgumentError(
            f"unknown C++ standard {standard!r}: choose one of {', '.join(CPP_STANDARDS)}"
        )
    write = functools.partial(_file, standard=standard)
    return generate_headers(types, cpp_header_path, write, CPP_SUPPORT_HEADERS)
