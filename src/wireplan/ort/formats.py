"""What each .ort format version the writer writes can hold, and the checks that say so.

Format 6 (onnxruntime 1.16 on) and format 5 (1.13 to 1.15): their data types,
``Tensor.external_data_offset``, and how deep tables may nest.  The writer asks
:func:`refuse_unrepresentable` and :func:`refuse_too_deep` before anything is laid
out; :func:`unrepresentable` lists every problem.
"""

from __future__ import annotations

from collections.abc import Iterator

from wireplan.errors import ArgumentError, EncodeError
from wireplan.ort.dtypes import type_name
from wireplan.ort.graph import (
    MAX_DEPTH,
    MAX_GRAPH_NESTING,
    nesting_problem,
    walk_graphs,
    walk_tensors,
)
from wireplan.ort.model import (
    Graph,
    MapType,
    OrtModel,
    SequenceType,
    Tensor,
    TensorTypeAndShape,
    TypeInfo,
    sparse_problem,
    tensor_problem,
)

__all__ = [
    "FORMAT_VERSIONS",
    "MAX_DATA_TYPE",
    "ORT_VERSION",
    "check_format_version",
    "refuse_too_deep",
    "refuse_unrepresentable",
    "type_info_problems",
    "unrepresentable",
]

#: The format version written by default (onnxruntime 1.16 and later write and read "6").
ORT_VERSION = "6"

#: The format versions the writer can write: 5 (onnxruntime 1.13-1.15) and 6 (1.16 on).
FORMAT_VERSIONS = (5, 6)

#: The largest TensorDataType code each format version's schema has: format 5 stops at
#: BFLOAT16 (16); format 6 added the four float8 types (17..20).  onnxruntime refuses a
#: Tensor of any higher code ("Unsupported tensor data type") in every release.
MAX_DATA_TYPE = {5: 16, 6: 20}


def check_format_version(format_version: int) -> int:
    """``format_version`` if the writer can write it (5 or 6), else an ArgumentError."""
    if type(format_version) is not int or format_version not in FORMAT_VERSIONS:
        raise ArgumentError(
            f"format_version must be one of {', '.join(map(str, FORMAT_VERSIONS))} "
            "(5: onnxruntime 1.13 to 1.15; 6: onnxruntime 1.16 and later), "
            f"not {format_version!r}"
        )
    return int(format_version)


def _why(code: int, format_version: int) -> str:
    if format_version == 5 and code <= MAX_DATA_TYPE[6]:
        return (
            f"{type_name(code)} is not in format 5 (its data types stop at BFLOAT16; "
            "format 6 added the float8 types, onnxruntime 1.16): write format_version=6"
        )
    return (
        f"{type_name(code)} (code {code}) is past the data types of the .ort schema, which "
        f"stop at {type_name(MAX_DATA_TYPE[format_version])} in format {format_version}"
    )


def type_info_problems(t: TypeInfo | None, path: str, top: int) -> Iterator[tuple[str, str]]:
    """``(path, why)`` of the element types in ``t`` past ``top`` (format 5's value types)."""
    if t is None:
        return
    v = t.value
    if isinstance(v, TensorTypeAndShape):
        if v.elem_type > top:
            yield f"{path}.value.elem_type", _why(v.elem_type, 5)
    elif isinstance(v, SequenceType):
        yield from type_info_problems(v.elem_type, f"{path}.value.elem_type", top)
    elif isinstance(v, MapType):
        if v.key_type > top:
            yield f"{path}.value.key_type", _why(v.key_type, 5)
        yield from type_info_problems(v.value_type, f"{path}.value.value_type", top)


def _tensor_problems(t: Tensor, path: str, format_version: int) -> Iterator[tuple[str, str]]:
    if t.data_type > MAX_DATA_TYPE[format_version]:
        why = f"tensor {t.name!r}: {_why(t.data_type, format_version)}"
        if t.data_type > MAX_DATA_TYPE[6]:
            why += "; onnxruntime refuses such a tensor in any .ort"
        yield f"{path}.data_type", why
    if format_version == 5 and t.external_data_offset >= 0 and t.nbytes == 0:
        why = (
            f"tensor {t.name!r}: format 5 has no external_data_offset field (onnxruntime "
            "added it later, for training checkpoints, without a version bump)"
        )
        yield f"{path}.external_data_offset", why
    found = tensor_problem(t)
    if found is not None:
        field, why = found
        yield f"{path}.{field}", why


def _graph_problems(graph: Graph, format_version: int) -> Iterator[tuple[str, str]]:
    """Tensors first (every graph), then sparse tensors' dense shapes, then value types
    (format 5 only), in walk order."""
    for path, t in walk_tensors(graph):
        yield from _tensor_problems(t, path, format_version)
    for path, g in walk_graphs(graph):
        for i, sp in enumerate(g.sparse_initializers):
            found = sparse_problem(sp)
            if found is not None:
                yield f"{path}.sparse_initializers[{i}].{found[0]}", found[1]
    if format_version == 5:
        for path, g in walk_graphs(graph):
            for i, vi in enumerate(g.node_args):
                where = f"{path}.node_args[{i}].type"
                for at, why in type_info_problems(vi.type, where, MAX_DATA_TYPE[5]):
                    yield at, f"value {vi.name!r}: {why}"


def unrepresentable(model: OrtModel, format_version: int = 6) -> list[tuple[str, str]]:
    """``(path, why)`` of everything in ``model`` that format ``format_version`` cannot hold.

    Format 5 (onnxruntime 1.13-1.15) has no float8 data types (codes 17-20)
    and no ``Tensor.external_data_offset``; no format has data types past
    20 for tensors (int4, uint4, float4 ...: onnxruntime's loader refuses
    such a tensor).  Value types (``node_args``) past 20 are left to format
    6: onnxruntime 1.20 and 1.32 parse them and 1.32 runs int4 values.
    No format holds a tensor whose shape no array can have (more than
    :data:`wireplan.ort.model.MAX_RANK` dimensions, a negative one, a size
    past 2**63 bytes; a sparse tensor's dense shape too) or whose payload
    is not the size its shape needs.
    Empty when the model can be written.
    """
    check_format_version(format_version)
    md = model.model
    if md is None or md.graph is None:
        return []
    return list(_graph_problems(md.graph, format_version))


def refuse_unrepresentable(model: OrtModel, format_version: int) -> None:
    """An :class:`~wireplan.EncodeError` for the first of :func:`unrepresentable`, if any."""
    problems = unrepresentable(model, format_version)
    if problems:
        path, why = problems[0]
        more = f" ({len(problems) - 1} more such)" if len(problems) > 1 else ""
        raise EncodeError(f"format {format_version} cannot hold this model: {why}{more}", path)


def refuse_too_deep(model: OrtModel) -> None:
    """Graphs nested past what any .ort holds, found before anything walks them recursively."""
    md = model.model
    if md is None or md.graph is None:
        return
    where = nesting_problem(md.graph)
    if where is not None:
        raise EncodeError(
            f"subgraphs nest more than {MAX_GRAPH_NESTING} levels deep, so tables would nest "
            f"deeper than {MAX_DEPTH} levels (onnxruntime's verifier refuses such an .ort)",
            where,
        )
