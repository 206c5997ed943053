"""The constructors of allocator-aware C++ classes (``c++17-pmr``, ``c++20-pmr``,
``cetl++14-17``): nunavut 3.1's ``uses-trailing-allocator`` convention, for
:mod:`.emit_cpp`."""

from __future__ import annotations

from collections.abc import Sequence

from .cpp_names import cpp_strop, cpp_type
from .model import Array, Composite, DataType, Field

__all__ = ["struct_constructors", "takes_allocator", "union_constructors"]


def takes_allocator(t: DataType) -> bool:
    """Whether a member of type ``t`` is constructed with the allocator (PMR headers): a
    composite or a variable-length array."""
    return isinstance(t, Composite) or (isinstance(t, Array) and not t.fixed)


def _default(t: Composite) -> bool:
    """Whether a class of the CETL headers has a default constructor: its type has one size
    and no delimiter header (every member then has one too)."""
    return t.fixed and t.sealed


def _init_list(items: Sequence[tuple[str, str]]) -> list[str]:
    """``: a{x}`` / ``, b{y}`` lines of a constructor."""
    return [f"        {':' if k == 0 else ','} {n}{{{v}}}" for k, (n, v) in enumerate(items)]


def _ctor(head: str, items: Sequence[tuple[str, str]], unused: Sequence[str]) -> list[str]:
    body = [f"        static_cast<void>({u}); // avoid unused param warning" for u in unused]
    return [f"    {head}", *_init_list(items), "    {", *body, "    }", ""]


def struct_constructors(cls: str, t: Composite, cetl: bool = False) -> list[str]:
    """nunavut's constructors of a PMR class (``ctor_convention`` uses-trailing-allocator):
    default, allocator, initializing (a field's value each), copy and move, with and
    without an allocator; a member that takes the allocator gets it.  The allocator
    constructor is ``noexcept`` (nunavut's is not; every member's is), so a union's
    ``set_x`` constructs in place (libstdc++ otherwise builds a temporary variant, and g++
    12 warns of it as maybe uninitialized).  ``cetl``: CETL's allocator has no default, so
    only a type of fixed size (sealed) has a default constructor (nunavut's rule), and the
    initializing one takes the allocator always (never ``explicit``); a
    ``VariableLengthArray`` is made with its capacity."""
    fields = [f for f in t.fields if not f.padding]
    names = [cpp_strop(f.name) for f in fields]

    def given(value: str, f: Field) -> str:
        return f"{value}, allocator" if takes_allocator(f.type) else value

    def fresh(f: Field) -> str:
        t = f.type
        if cetl and isinstance(t, Array) and not t.fixed:
            return f"{t.capacity}, allocator"
        if takes_allocator(t):
            return "allocator"
        if isinstance(t, Array) and isinstance(t.element, Composite):
            return ", ".join([f"{cpp_type(t.element)}{{allocator}}"] * t.capacity)
        return ""

    alloc = "const allocator_type& allocator"
    out = [] if cetl and not _default(t) else _ctor(f"{cls}()", [(n, "") for n in names], [])
    out += _ctor(f"explicit {cls}({alloc}) noexcept",
                 [(n, fresh(f)) for n, f in zip(names, fields, strict=True)], ["allocator"])  # fmt: skip
    if fields:
        params = [f"        const _traits_::TypeOf::{n}& param_{n}," for n in names]
        out.append(f"    {'explicit ' if len(fields) == 1 and not cetl else ''}{cls}(")
        out += [*params, f"        {alloc}{'' if cetl else ' = allocator_type()'})"]
        out += _ctor("", [(n, given(f"param_{n}", f)) for n, f in zip(names, fields, strict=True)],
                     ["allocator"])[1:]  # fmt: skip
    out.append(f"    {cls}(const {cls}& rhs) = default;")
    out.append("")
    out += _ctor(f"{cls}(const {cls}& rhs, {alloc})",
                 [(n, given(f"rhs.{n}", f)) for n, f in zip(names, fields, strict=True)],
                 ["rhs", "allocator"])  # fmt: skip
    out += [f"    {cls}({cls}&&) = default;", ""]
    out += _ctor(f"{cls}({cls}&& rhs, {alloc})",
                 [(n, given(f"std::move(rhs.{n})", f)) for n, f in zip(names, fields, strict=True)],
                 ["rhs", "allocator"])  # fmt: skip
    out += [
        f"    {cls}& operator=(const {cls}&) = default;",
        f"    {cls}& operator=({cls}&&) = default;",
        f"    ~{cls}() = default;",
        "",
    ]
    return out


def union_constructors(cls: str, t: Composite, cetl: bool = False) -> list[str]:
    """nunavut's constructors of a PMR union: the alternative a copy or move gets is built
    with the allocator where it takes one (``wireplan_detail::with_allocator``).  A union of
    variable size keeps its allocator in ``allocator_`` for ``set_x`` and copies take the
    copy's allocator; one of fixed size (nunavut) has no ``allocator_``, default copies.
    ``cetl``: ``cetl::in_place_index_t``, no default allocator argument, and a default
    constructor only where the union is of fixed size (sealed)."""
    alloc = "const allocator_type& allocator"
    detail = "::nunavut::support::wireplan_detail"
    tag = "cetl::in_place_index_t" if cetl else "std::in_place_index_t"
    first = [("union_value", f"{tag}<0U>{{}}, allocator")]
    copy = "rhs.allocator_.select_on_container_copy_construction()"
    kept = [] if t.fixed else [("allocator_", "allocator")]

    def rebuilt(src: str, allocator: str) -> tuple[str, str]:
        return "union_value", f"{detail}::with_allocator<{tag}, VariantType>({src}, {allocator})"

    out = [] if cetl and not _default(t) else [f"    {cls}() = default;", ""]
    out += _ctor(f"explicit {cls}({alloc}) noexcept",
                 [*(first if takes_allocator(t.fields[0].type) else []), *kept], ["allocator"])  # fmt: skip
    out.append("    template<std::size_t I, class T>")
    out += _ctor(
        f"{cls}({tag}<I>, T&& v, {alloc}{'' if cetl else ' = allocator_type()'})",
        [("union_value", f"{detail}::make_alternative<{tag}, VariantType, I>(std::forward<T>(v), "
                         "allocator)"), *kept], [])  # fmt: skip
    if t.fixed:
        out += [f"    {cls}(const {cls}& rhs) = default;", ""]
    else:
        out += _ctor(
            f"{cls}(const {cls}& rhs)", [rebuilt("rhs.union_value", copy), ("allocator_", copy)], []
        )
    out += _ctor(f"{cls}(const {cls}& rhs, {alloc})",
                 [rebuilt("rhs.union_value", "allocator"), *kept], [])  # fmt: skip
    out += [f"    {cls}({cls}&&) = default;", ""]
    out += _ctor(f"{cls}({cls}&& rhs, {alloc})",
                 [rebuilt("std::move(rhs.union_value)", "allocator"), *kept], [])  # fmt: skip
    if t.fixed:
        return [*out, f"    {cls}& operator=(const {cls}&) = default;",
                f"    {cls}& operator=({cls}&&) = default;", f"    ~{cls}() = default;", ""]  # fmt: skip
    for head, source, allocator in [
        (f"const {cls}& rhs", "rhs.union_value", copy),
        (f"{cls}&& rhs", "std::move(rhs.union_value)", "std::move(rhs.allocator_)"),
    ]:
        out += [
            f"    {cls}& operator=({head})",
            "    {",
            "        if (this != &rhs)",
            "        {",
            f"            ::nunavut::support::assignInplace(allocator_, {allocator});",
            f"            union_value = {rebuilt(source, 'allocator_')[1]};",
            "        }",
            "        return *this;",
            "    }",
            "",
        ]
    return [*out, f"    ~{cls}() = default;", ""]
