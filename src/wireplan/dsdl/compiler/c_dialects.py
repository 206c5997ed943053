"""How the step code of :mod:`.c_steps` names the object's parts, in C and in C++.

The moves are the same in both languages (:mod:`.plan_c`); what differs is the object
they read and write: C's struct (``obj->field``, ``elements`` + ``count``, bools packed in
``bitpacked`` bytes, a ``_tag_`` beside an anonymous union) against nunavut's C++ class
(``obj.field``, ``std::vector`` / ``std::array``, ``std::bitset`` and ``std::vector<bool>``,
a ``std::variant`` named ``union_value``).  A dialect answers those questions as C
expressions; the step code stays one.
"""

from __future__ import annotations

from .c_names import c_name, member, strop
from .cpp_names import cpp_member, cpp_namespace, cpp_strop
from .model import Array, Composite, DataType

__all__ = ["CppDialect", "Dialect"]


class Dialect:
    """C: nunavut's C structs (the base class is the C dialect)."""

    #: bools of an array are packed in bytes (copied as bytes); else a container of bools
    packed_bools = True

    def signature(self, direction: str, ref: str, obj: str) -> str:
        """The head of the serialize / deserialize function of the type ``ref``."""
        if direction == "serialize":
            return (
                f"static inline int8_t {ref}_serialize_(\n"
                f"    const {ref}* const {obj}, uint8_t* const buffer, "
                "size_t* const inout_buffer_size_bytes)"
            )
        return (
            f"static inline int8_t {ref}_deserialize_(\n"
            f"    {ref}* const {obj}, const uint8_t* buffer, size_t* const inout_buffer_size_bytes)"
        )

    def unused(self, obj: str) -> list[str]:
        """Lines that mark the object used (C checks its pointer: none)."""
        return []

    def base(self, obj: str) -> str:
        """The prefix of the object's members (``obj->``)."""
        return f"{obj}->"

    def address(self, obj: str) -> str:
        """The object's address, for a whole-object copy."""
        return obj

    def null_check(self, obj: str) -> str:
        """The part of the argument check that tests the object pointer."""
        return f"({obj} == NULL) || "

    def member(self, path: tuple[str, ...], t: DataType) -> str:
        return member(path, t)

    def array(self, path: tuple[str, ...]) -> str:
        """A variable-length array member (its length prefix's step)."""
        return ".".join(strop(n) for n in path)

    def count(self, x: str) -> str:
        return f"{x}.count"

    def set_count(self, x: str, n: str) -> str:
        return f"{x}.count = {n};"

    def elements(self, x: str, t: Array) -> str:
        """An indexable expression of the array's elements."""
        return x if t.fixed else f"{x}.elements"

    def first(self, elements: str) -> str:
        """The address of the first element (of an ``elements`` expression)."""
        return f"&{elements}[0]"

    def bools(self, x: str, t: Array) -> str:
        """What the bit-array routines take for a bool array: the packed bytes (C)."""
        return f"&{x}[0]" if t.fixed else f"&{x}.bitpacked[0]"

    def set_bools(self) -> str:
        return "wireplanSetBitArray"

    def get_bools(self) -> str:
        return "wireplanGetBitArray"

    def tag(self, obj: str, reading: bool) -> str:
        """A union's tag: the member (C) or, reading, what the tag is read into."""
        return f"{obj}->_tag_"

    def tag_declaration(self) -> str | None:
        """The declaration of the local a reader reads the tag into (None: a member)."""
        return None

    def variant(self, obj: str, k: int, name: str, reading: bool) -> tuple[list[str], str | None]:
        """Lines that open variant ``k`` of a union and the expression of its value (None: the
        variant is a member, named as any field)."""
        return [], None

    def callee(self, t: Composite, direction: str, x: str) -> tuple[str, str]:
        """(function, first argument) of the nested type's own serialize / deserialize."""
        return f"{c_name(t.name, t.version)}_{direction}_", f"&{x}"


class CppDialect(Dialect):
    """C++: nunavut's C++ classes (references, standard containers, ``std::variant``)."""

    packed_bools = False

    def __init__(self, checked_resize: bool = False) -> None:
        #: a container may hold fewer elements than asked for (CETL's ``VariableLengthArray``
        #: past its ``max_size()`` or out of memory, without exceptions): check its size
        self.checked_resize = checked_resize

    def signature(self, direction: str, ref: str, obj: str) -> str:
        if direction == "serialize":
            return (
                f"inline std::int8_t wireplan_serialize_(const {ref}& {obj}, "
                "std::uint8_t* const buffer, std::size_t* const inout_buffer_size_bytes)"
            )
        return (
            f"inline std::int8_t wireplan_deserialize_({ref}& {obj}, const std::uint8_t* buffer, "
            "std::size_t* const inout_buffer_size_bytes)"
        )

    def unused(self, obj: str) -> list[str]:
        return [f"(void) {obj};"]

    def base(self, obj: str) -> str:
        return f"{obj}."

    def address(self, obj: str) -> str:
        return f"&{obj}"

    def null_check(self, obj: str) -> str:
        return ""

    def member(self, path: tuple[str, ...], t: DataType) -> str:
        return cpp_member(path)

    def array(self, path: tuple[str, ...]) -> str:
        return cpp_member(path)

    def count(self, x: str) -> str:
        return f"{x}.size()"

    def set_count(self, x: str, n: str) -> str:
        if self.checked_resize:
            bad = "return -NUNAVUT_ERROR_REPRESENTATION_BAD_ARRAY_LENGTH;"
            return f"{x}.resize({n}); if ({x}.size() != {n}) {{ {bad} }}"
        return f"{x}.resize({n});"

    def elements(self, x: str, t: Array) -> str:
        return x

    def first(self, elements: str) -> str:
        return f"{elements}.data()"

    def bools(self, x: str, t: Array) -> str:
        return x

    def set_bools(self) -> str:
        return "::nunavut::support::wireplan_detail::set_bools"

    def get_bools(self) -> str:
        return "::nunavut::support::wireplan_detail::get_bools"

    def tag(self, obj: str, reading: bool) -> str:
        return "_tag_" if reading else f"{obj}.union_value.index()"

    def tag_declaration(self) -> str | None:
        return "std::size_t _tag_ = 0U;"

    def variant(self, obj: str, k: int, name: str, reading: bool) -> tuple[list[str], str | None]:
        v = f"_v{k}_"
        if reading:
            # the alternative the object holds is reused (its vectors keep their memory): every
            # field is written below, as when it is new
            n = cpp_strop(name)
            return [
                f"auto& {v} = ({obj}.union_value.index() == {k}U) ? "
                f"*{obj}.get_{n}_if() : {obj}.set_{n}();",
                f"(void) {v};",
            ], v
        return [f"const auto& {v} = *{obj}.get_{cpp_strop(name)}_if();", f"(void) {v};"], v

    def callee(self, t: Composite, direction: str, x: str) -> tuple[str, str]:
        ns = "::".join(cpp_namespace(t.name))
        return f"::{ns}::wireplan_{direction}_", x
