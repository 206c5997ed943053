"""Render the C moves (:mod:`.plan_c`) as C11 headers with nunavut 3.1's API: the file skeleton.

One header per type (``uavcan/node/Heartbeat_1_0.h``), a service's request
and response in the service's header, identifiers stropped as nunavut does
(``uavcan/_register/Value_1_0.h``, member ``_string``; :mod:`.c_names`), the
same macros, struct layout (``elements`` + ``count``, ``bitpacked``,
``_tag_``), error codes and function signatures.  The functions' bodies are
written by :mod:`.c_steps`, once for both directions.  The support routines
are in ``wireplan/dsdl/support.h``, copied into the output.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from importlib import resources

from wireplan import __version__

from .c_names import c_name, ctype, guard, header_path, is_bool_array, member, strop
from .c_steps import Deserializer, Serializer
from .model import Array, Composite, Constant, DataType, Primitive, Service, TopType
from .plan_c import CMoves, c_moves

__all__ = [
    "SUPPORT_HEADER",
    "SUPPORT_HEADERS",
    "c_name",
    "generate_c",
    "generate_headers",
    "header_path",
    "strop",
    "support_text",
]

SUPPORT_HEADER = "wireplan/dsdl/support.h"
#: The support headers of every output (relative path -> package data file): wireplan's own,
#: and the name nunavut's support header has, for application code that includes it.
SUPPORT_HEADERS = {
    SUPPORT_HEADER: "wireplan_dsdl_support.h",
    "nunavut/support/serialization.h": "nunavut_serialization.h",
}


def support_text(path: str = SUPPORT_HEADER, headers: Mapping[str, str] = SUPPORT_HEADERS) -> str:
    """The text of the support header at ``path`` in an output folder (package data; ``headers``:
    the output's support headers, relative path -> package file)."""
    return (
        resources.files("wireplan.dsdl.compiler")
        .joinpath(f"c/{headers[path]}")
        .read_text(encoding="utf-8")
    )


# -- a type's definitions -------------------------------------------------------------------------


def _constant(c: Constant) -> str:
    if c.kind == "b":
        return "true" if c.value else "false"
    if c.kind == "f":
        return f"(({'double' if c.bits == 64 else 'float'}) {float(c.value)!r})"
    if c.kind == "s":  # pragma: no cover (DSDL has no string constants in types)
        return '"' + str(c.value).replace("\\", "\\\\").replace('"', '\\"') + '"'
    v = int(c.value)
    if c.signed:
        return f"{v}LL" if c.bits > 32 else str(v)
    return f"{v}ULL" if c.bits > 32 else f"{v}UL" if c.bits > 16 else f"{v}U"


def _field_decl(ref: str, name: str, t: DataType) -> list[str]:
    if isinstance(t, Primitive | Composite):
        return [f"{ctype(t)} {strop(name)};"]
    if t.fixed:
        if is_bool_array(t):
            return [f"uint8_t {strop(name + '_bitpacked_')}[{(t.capacity + 7) // 8}];"]
        return [f"{ctype(t.element)} {strop(name)}[{t.capacity}];"]
    if is_bool_array(t):
        inner = f"uint8_t bitpacked[{(t.capacity + 7) // 8}];"
    else:
        inner = f"{ctype(t.element)} elements[{ref}_{name}_ARRAY_CAPACITY_];"
    return ["struct", "{", f"    {inner}", "    size_t count;", f"}} {strop(name)};"]


def _composite(t: Composite, moves: CMoves) -> list[str]:
    ref = c_name(t.name, t.version)
    out = [
        f"// {t.full_name}: {moves.strategy} ({moves.reason})",
        f'#define {ref}_FULL_NAME_             "{t.name}"',
        f'#define {ref}_FULL_NAME_AND_VERSION_ "{t.full_name}"',
        f"#define {ref}_EXTENT_BYTES_                    {t.extent // 8}UL",
        f"#define {ref}_SERIALIZATION_BUFFER_SIZE_BYTES_ {(t.max_bits + 7) // 8}UL",
        f"WIREPLAN_DSDL_STATIC_ASSERT({ref}_EXTENT_BYTES_ >= {ref}_SERIALIZATION_BUFFER_SIZE_BYTES_,",
        '                            "Internal constraint violation");',
    ]
    for c in t.constants:
        out.append(f"#define {ref}_{c.name} ({_constant(c)})")
    for f in t.fields:
        if not f.padding and isinstance(f.type, Array):
            out.append(f"#define {ref}_{f.name}_ARRAY_CAPACITY_           {f.type.capacity}U")
            var = "false" if f.type.fixed else "true"
            out.append(f"#define {ref}_{f.name}_ARRAY_IS_VARIABLE_LENGTH_ {var}")
    out.append("typedef struct")
    out.append("{")
    fields = [f for f in t.fields if not f.padding]
    if t.union:
        out.append("    union")
        out.append("    {")
        for f in fields:
            out.extend("        " + line for line in _field_decl(ref, f.name, f.type))
        out.append("    };")
        out.append(f"    {ctype(Primitive('u', t.tag_bits, False, ''))} _tag_;")
    elif not fields:
        out.append("    uint8_t _dummy_;")
    else:
        for f in fields:
            out.extend("    " + line for line in _field_decl(ref, f.name, f.type))
    out.append(f"}} {ref};")
    if t.union:
        out.append(f"#define {ref}_UNION_OPTION_COUNT_ {len(t.fields)}U")
    if moves.memcpy_bytes is not None:
        out.append("#if WIREPLAN_DSDL_LE")
        out.append(f"// The wire layout of {t.full_name} is the C layout: checked here.")
        msg = (
            f'"{ref}: the C layout differs from the wire layout on this target; '
            'define WIREPLAN_DSDL_GENERIC"'
        )
        out.append(f"WIREPLAN_DSDL_STATIC_ASSERT(sizeof({ref}) == {moves.memcpy_bytes}U, {msg});")
        for f in fields:
            out.append(
                f"WIREPLAN_DSDL_STATIC_ASSERT(offsetof({ref}, {member((f.name,), f.type)}) == "
                f"{f.offset.min // 8}U, {msg});"
            )
        out.append("#endif")
    out.append("")
    out.extend(Serializer().routine(t, moves, ref))
    out.append("")
    out.extend(Deserializer().routine(t, moves, ref))
    out.append("")
    out.append(f"static inline void {ref}_initialize_({ref}* const out_obj)")
    out.append("{")
    out.append("    if (out_obj != NULL)")
    out.append("    {")
    out.append("        memset(out_obj, 0, sizeof(*out_obj));")
    out.append("    }")
    out.append("}")
    if t.union:
        for k, f in enumerate(t.fields):
            out.append("")
            out.append(f"static inline void {ref}_select_{f.name}_({ref}* const obj)")
            out.append("{")
            out.append("    if (obj != NULL)")
            out.append("    {")
            out.append(f"        obj->_tag_ = {k};")
            out.append("    }")
            out.append("}")
            out.append(f"static inline bool {ref}_is_{f.name}_(const {ref}* const obj)")
            out.append("{")
            out.append(f"    return ((obj != NULL) && (obj->_tag_ == {k}));")
            out.append("}")
    out.append("")
    return out


# -- files ----------------------------------------------------------------------------------------


def dependencies(t: Composite) -> set[tuple[str, tuple[int, int]]]:
    out = set()
    for f in t.fields:
        ft = f.type.element if isinstance(f.type, Array) else f.type
        if isinstance(ft, Composite):
            out.add((ft.name, ft.version))
    return out


def _file(
    name: str,
    version: tuple[int, int],
    fixed_port_id: int | None,
    parts: Sequence[Composite],
    moves: dict[tuple[str, int, int], CMoves],
    service: bool,
) -> str:
    ref = c_name(name, version)
    include_guard = guard(name, version)
    deps: set[tuple[str, tuple[int, int]]] = set()
    for p in parts:
        deps |= dependencies(p)
    includes = [f"#include <{SUPPORT_HEADER}>", "#include <stdint.h>", "#include <stdlib.h>"]
    includes += sorted(f"#include <{header_path(n, v)}>" for n, v in deps)
    lines = [
        f"// Generated by wireplan {__version__} from DSDL type {name}.{version[0]}.{version[1]}: "
        "do not edit.",
        "// The API is nunavut 3.1's (nnvg --target-language c); see docs/dsdl-c.md.",
        f"#ifndef {include_guard}",
        f"#define {include_guard}",
        "",
        *includes,
        "",
        "#ifdef __cplusplus",
        'extern "C" {',
        "#endif",
        "",
    ]
    if fixed_port_id is not None:
        lines.append(f"#define {ref}_HAS_FIXED_PORT_ID_ true")
        lines.append(f"#define {ref}_FIXED_PORT_ID_     {fixed_port_id}U")
    else:
        lines.append(f"#define {ref}_HAS_FIXED_PORT_ID_ false")
    if service:
        lines.append(f'#define {ref}_FULL_NAME_             "{name}"')
        lines.append(f'#define {ref}_FULL_NAME_AND_VERSION_ "{name}.{version[0]}.{version[1]}"')
    lines.append("")
    for p in parts:
        lines.extend(_composite(p, moves[p.key]))
    lines += ["#ifdef __cplusplus", "}", "#endif", f"#endif // {include_guard}", ""]
    return "\n".join(lines)


def reachable(types: Iterable[TopType]) -> dict[tuple[str, int, int], Composite]:
    seen: dict[tuple[str, int, int], Composite] = {}

    def visit(t: DataType) -> None:
        if isinstance(t, Array):
            visit(t.element)
        elif isinstance(t, Composite) and t.key not in seen:
            seen[t.key] = t
            for f in t.fields:
                visit(f.type)

    for t in types:
        if isinstance(t, Service):
            visit(t.request)
            visit(t.response)
        else:
            visit(t)
    return seen


Moves = dict[tuple[str, int, int], CMoves]
# (name, version, fixed port-ID, the composites it holds, moves, whether a service) -> text
FileWriter = Callable[[str, tuple[int, int], int | None, Sequence[Composite], Moves, bool], str]


def generate_headers(
    types: Sequence[TopType],
    path_of: Callable[[str, tuple[int, int]], str],
    write: FileWriter,
    support: Mapping[str, str],
) -> tuple[dict[str, str], Moves]:
    """Header files (relative path -> text) for ``types`` and every type they reach, and the
    moves by type key: one file per type (``path_of``, ``write``), a service's halves in its
    service's file, and the ``support`` headers.  The C and the C++ backend differ only in
    the two functions and the support headers."""
    comps = reachable(types)
    moves = {key: c_moves(t) for key, t in comps.items()}
    files = {path: support_text(path, support) for path in support}
    halves: set[tuple[str, int, int]] = set()
    for t in types:
        if isinstance(t, Service):
            halves |= {t.request.key, t.response.key}
            files[path_of(t.name, t.version)] = write(
                t.name, t.version, t.fixed_port_id, [t.request, t.response], moves, True
            )
    for key, c in comps.items():
        if key not in halves:
            files[path_of(c.name, c.version)] = write(
                c.name, c.version, c.fixed_port_id, [c], moves, False
            )
    return files, moves


def generate_c(types: Sequence[TopType]) -> tuple[dict[str, str], Moves]:
    """C header files (relative path -> text) for ``types`` and every type they reach, and the
    C moves by type key."""
    return generate_headers(types, header_path, _file, SUPPORT_HEADERS)
