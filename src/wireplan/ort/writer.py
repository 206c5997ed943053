"""Write .ort models: a planned, aligned, parallel FlatBuffers writer.

The whole file is laid out first by :class:`wireplan.flatbuffers.builder.Builder`
over :data:`wireplan.ort.schema.ORT_SCHEMA`: tables, vtables, strings and
small vectors are packed into a metadata buffer at the front; every
non-empty ``Tensor.raw_data`` starts at a multiple of ``alignment`` from
the start of the file, and large ones are regions of a
:class:`~wireplan.core.plan.Plan` that the shared executor copies straight
from their source (the .onnx file's mapping, an .ort mapping, numpy
arrays) into the destination, serially or with threads, byte-identical
either way.  Files are pre-sized and written atomically
(:func:`wireplan.core.atomic.write_sized`): a failure leaves any previous
file in place.

The output is format version 6 (onnxruntime 1.16 on) or, with
``format_version=5``, format 5 (onnxruntime 1.13 to 1.15), both with the
``KernelTypeStrResolver`` that onnxruntime needs from version 5 on
(:mod:`wireplan.ort.kernel_types`); what the asked version cannot hold is an
:class:`~wireplan.EncodeError` before anything is written.
FlatBuffers offsets are 32-bit: a model past 2 GiB is an
:class:`~wireplan.EncodeError` before anything is written, unless
``external_data=True`` puts the large initializers in a companion file
``<name>.ort.data`` (each at a multiple of ``alignment``; their ``Tensor``
tables hold ``external_data_offset`` and no ``raw_data``).  Both files are
planned once, filled by the executor and renamed into place together
(:func:`wireplan.core.atomic.write_group`).
"""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from wireplan.core.atomic import SizedFile, write_group, write_sized
from wireplan.core.buffers import MappedFile
from wireplan.core.executor import execute, execute_file, populate
from wireplan.core.gcpause import gc_paused
from wireplan.core.plan import Plan, check_alignment
from wireplan.core.progress import Tally
from wireplan.errors import EncodeError
from wireplan.flatbuffers.builder import MAX_ALIGNMENT, Builder, BuildResult
from wireplan.ort import casts, kernel_types
from wireplan.ort.graph import (
    MAX_DEPTH,
    MAX_GRAPH_NESTING,
    MAX_TABLES,
    nesting_problem,
    subgraphs,
    walk_graphs,
    walk_tensors,
)
from wireplan.ort.model import (
    Dimension,
    DimensionValue,
    Graph,
    MapType,
    OrtModel,
    SequenceType,
    Shape,
    Tensor,
    TensorTypeAndShape,
    TypeInfo,
    ValueInfo,
    tensor_problem,
)
from wireplan.ort.schema import (
    ATTRIBUTE_TYPE,
    DIMENSION_VALUE_TYPE,
    ORT_SCHEMA,
    TENSOR_DATA_TYPE,
)

__all__ = [
    "DEFAULT_SIZE_THRESHOLD",
    "FORMAT_VERSIONS",
    "ORT_VERSION",
    "as_ort_model",
    "check_format_version",
    "companion_path",
    "convert_onnx_to_ort",
    "convert_ort_to_ort",
    "plan",
    "plan_files",
    "save",
    "to_bytes",
    "unrepresentable",
    "write_pair",
]

#: The format version written by default (onnxruntime 1.16 and later write and read "6").
ORT_VERSION = "6"

#: The format versions the writer can write: 5 (onnxruntime 1.13-1.15) and 6 (1.16 on).
FORMAT_VERSIONS = (5, 6)

# The largest TensorDataType code each format version's schema has: format 5 stops at
# BFLOAT16 (16); format 6 added the four float8 types (17..20).  onnxruntime refuses a
# Tensor of any higher code ("Unsupported tensor data type") in every release.
_MAX_DATA_TYPE = {5: 16, 6: 20}
# ONNX's names for its data types past the .ort schema (onnx.TensorProto.DataType), for messages.
_DATA_TYPE_NAME = {code: name for name, code in TENSOR_DATA_TYPE.items()} | {
    21: "UINT4",
    22: "INT4",
    23: "FLOAT4E2M1",
    24: "FLOAT8E8M0",
    25: "UINT2",
    26: "INT2",
    27: "FLOAT6E2M3",
    28: "FLOAT6E3M2",
}

Progress = Callable[[int, int], None]

# Strings onnxruntime requires to be present even when empty; Node.domain as its own writer
# does (its Python tools, e.g. the reduced-build config writer, fail on an absent one).
_KEEP_EMPTY = (
    ("Attribute", "s"),
    ("Node", "domain"),
    ("ValueInfo", "name"),
    ("OperatorSetId", "domain"),
    ("StringStringEntry", "key"),
    ("StringStringEntry", "value"),
)

# Which Attribute fields carry the value of each attribute type.
_ATTRIBUTE_VALUE = {
    ATTRIBUTE_TYPE[kind]: ("name", "doc_string", field)
    for kind, field in (
        ("FLOAT", "f"),
        ("INT", "i"),
        ("STRING", "s"),
        ("TENSOR", "t"),
        ("GRAPH", "g"),
        ("FLOATS", "floats"),
        ("INTS", "ints"),
        ("STRINGS", "strings"),
        ("TENSORS", "tensors"),
        ("GRAPHS", "graphs"),
    )
}

_DIM_VALUE = DIMENSION_VALUE_TYPE["VALUE"]

#: With ``external_data=True``, initializers of at least this many bytes go to the companion file.
DEFAULT_SIZE_THRESHOLD = 1024

_STRING = TENSOR_DATA_TYPE["STRING"]
_NO_BYTES = np.zeros(0, np.uint8)
_NO_BYTES.flags.writeable = False


def companion_path(path: str | os.PathLike[str]) -> Path:
    """The external data file of the .ort at ``path``: ``<file name>.data`` in the same folder."""
    p = Path(path)
    return p.with_name(p.name + ".data")


def _check_threshold(size_threshold: int) -> int:
    if not isinstance(size_threshold, int) or size_threshold < 0:
        raise EncodeError(f"size_threshold must be a count of bytes >= 0, not {size_threshold!r}")
    return size_threshold


def _check_threads(threads: int | None) -> None:
    if threads is not None and (not isinstance(threads, int) or threads < 1):
        raise EncodeError(f"threads must be None or at least 1, not {threads!r}")


def check_format_version(format_version: int) -> int:
    """``format_version`` if the writer can write it (5 or 6), else :class:`~wireplan.EncodeError`."""
    if type(format_version) is not int or format_version not in FORMAT_VERSIONS:
        raise EncodeError(
            f"format_version must be one of {', '.join(map(str, FORMAT_VERSIONS))} "
            "(5: onnxruntime 1.13 to 1.15; 6: onnxruntime 1.16 and later), "
            f"not {format_version!r}"
        )
    return int(format_version)


def _type_name(code: int) -> str:
    return _DATA_TYPE_NAME.get(code) or f"data type {code}"


def _why(code: int, format_version: int) -> str:
    if format_version == 5 and code <= _MAX_DATA_TYPE[6]:
        return (
            f"{_type_name(code)} is not in format 5 (its data types stop at BFLOAT16; "
            "format 6 added the float8 types, onnxruntime 1.16): write format_version=6"
        )
    return (
        f"{_type_name(code)} (code {code}) is past the data types of the .ort schema, which "
        f"stop at {_type_name(_MAX_DATA_TYPE[format_version])} in format {format_version}"
    )


def _type_info_problems(t: TypeInfo | None, path: str, top: int) -> Iterator[tuple[str, str]]:
    if t is None:
        return
    v = t.value
    if isinstance(v, TensorTypeAndShape):
        if v.elem_type > top:
            yield f"{path}.value.elem_type", _why(v.elem_type, 5)
    elif isinstance(v, SequenceType):
        yield from _type_info_problems(v.elem_type, f"{path}.value.elem_type", top)
    elif isinstance(v, MapType):
        if v.key_type > top:
            yield f"{path}.value.key_type", _why(v.key_type, 5)
        yield from _type_info_problems(v.value_type, f"{path}.value.value_type", top)


def _tensor_problems(t: Tensor, path: str, format_version: int) -> Iterator[tuple[str, str]]:
    if t.data_type > _MAX_DATA_TYPE[format_version]:
        why = f"tensor {t.name!r}: {_why(t.data_type, format_version)}"
        if t.data_type > _MAX_DATA_TYPE[6]:
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
    """Tensors first (every graph), then value types (format 5 only), in walk order."""
    for path, t in walk_tensors(graph):
        yield from _tensor_problems(t, path, format_version)
    if format_version == 5:
        for path, g in walk_graphs(graph):
            for i, vi in enumerate(g.node_args):
                where = f"{path}.node_args[{i}].type"
                for at, why in _type_info_problems(vi.type, where, _MAX_DATA_TYPE[5]):
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
    past 2**63 bytes) or whose payload is not the size its shape needs.
    Empty when the model can be written.
    """
    check_format_version(format_version)
    md = model.model
    if md is None or md.graph is None:
        return []
    return list(_graph_problems(md.graph, format_version))


def _refuse_unrepresentable(model: OrtModel, format_version: int) -> None:
    problems = unrepresentable(model, format_version)
    if problems:
        path, why = problems[0]
        more = f" ({len(problems) - 1} more such)" if len(problems) > 1 else ""
        raise EncodeError(f"format {format_version} cannot hold this model: {why}{more}", path)


def _refuse_too_deep(model: OrtModel) -> None:
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


_TOO_LARGE = (
    "save with external_data=True (CLI --external-data) to put the large initializers in a "
    "companion .data file"
)


@functools.cache
def _builder(alignment: int) -> Builder:
    return Builder(
        ORT_SCHEMA,
        too_large_hint=_TOO_LARGE,
        field_alignment={("Tensor", "raw_data"): alignment},
        omit_empty_strings=True,
        keep_empty=_KEEP_EMPTY,
        # An Attribute carries only the field of its type, as onnxruntime writes it.
        variants={"Attribute": ("type", _ATTRIBUTE_VALUE)},
        max_depth=MAX_DEPTH,
        max_tables=MAX_TABLES,
        limits_why="onnxruntime's verifier refuses such an .ort",
    )


def _graph_fixes(
    graph: Graph, outer: Mapping[str, int], fixes: dict[int, Any], needed: bool
) -> None:
    """Collect replacement graphs whose ``node_args`` lack types (into ``fixes`` by ``id``).

    onnx shape inference leaves some values untyped (unused optional
    outputs; sparse initializers and what they feed), but the .ort loader
    requires a type for every named value: those get the element type
    their initializer or operator schema implies.  ``outer`` holds the
    element types of enclosing graphs, for subgraphs.
    """
    known = dict(outer)
    if needed:
        for vi in graph.node_args:
            t = vi.type
            if t is not None and isinstance(t.value, TensorTypeAndShape) and t.value.elem_type:
                known[vi.name] = t.value.elem_type
        if any(_untyped(vi) and vi.name for vi in graph.node_args):
            fixes[id(graph)] = dataclasses.replace(graph, node_args=_typed_node_args(graph, known))
    for node in graph.nodes:
        for _, g in subgraphs(node):
            _graph_fixes(g, known, fixes, needed or _needs_types(g))


def _needs_types(graph: Graph) -> bool:
    """Whether this graph or one inside it has a named value without a usable type."""
    return any(_untyped(vi) and vi.name for _, g in walk_graphs(graph) for vi in g.node_args)


def _untyped(vi: ValueInfo) -> bool:
    """No usable type: none at all, an empty TypeInfo, or a tensor of UNDEFINED elements."""
    t = vi.type
    if t is None or t.value is None:
        return True
    return isinstance(t.value, TensorTypeAndShape) and t.value.elem_type == 0


def _elem_type(type_str: str) -> int | None:
    if type_str.startswith("tensor(") and type_str.endswith(")"):
        return TENSOR_DATA_TYPE.get(type_str[7:-1].upper())
    return None


def _typed_node_args(graph: Graph, known: dict[str, int]) -> list[ValueInfo]:
    """``graph.node_args`` with element types filled in where missing (``known`` grows)."""
    shapes: dict[str, Any] = {}
    # Initializers (dense and sparse) have their type in the tensor itself.
    dense = [(t.name, t.data_type, t.dims) for t in graph.initializers]
    dense += [
        (sp.values.name, sp.values.data_type, sp.dims)
        for sp in graph.sparse_initializers
        if sp.values is not None
    ]
    for name, data_type, dims in dense:
        if name not in known:
            known[name] = data_type
            shapes[name] = Shape(
                dim=[
                    Dimension(value=DimensionValue(dim_type=_DIM_VALUE, dim_value=int(d)))
                    for d in dims
                ]
            )
    for node in graph.nodes:
        sig = kernel_types.signature(node.domain, node.op_type, node.since_version)
        if sig is None:
            continue
        _, formal_in, formal_out, params = sig
        bound: dict[str, int] = {}
        for i, name in enumerate(node.inputs):
            if i < len(formal_in) and name in known:
                bound.setdefault(formal_in[i][1], known[name])
        for i, name in enumerate(node.outputs):
            if not name or name in known:
                continue
            type_str = formal_out[min(i, len(formal_out) - 1)][1] if formal_out else ""
            elem = bound.get(type_str) if type_str in params else _elem_type(type_str)
            if elem is not None:
                known[name] = elem
    out = []
    for vi in graph.node_args:
        if _untyped(vi) and vi.name and vi.name not in known:
            raise EncodeError(
                f"value {vi.name!r} has no type the .ort format can hold (optional types have "
                "no place in it; onnxruntime's own converter refuses such models too)",
                "$.model.graph.node_args",
            )
        if _untyped(vi) and vi.name in known:
            vi = ValueInfo(
                name=vi.name,
                doc_string=vi.doc_string,
                type=TypeInfo(
                    value=TensorTypeAndShape(elem_type=known[vi.name], shape=shapes.get(vi.name))
                ),
            )
        out.append(vi)
    return out


def _reused_layout(
    model: OrtModel, reuse: MappedFile, alignment: int
) -> tuple[dict[int, Tensor], Plan]:
    """Initializers that view ``reuse`` stay where they are in it (``reuse_data``)."""
    subst: dict[int, Tensor] = {}
    found: list[tuple[int, int, str, Tensor]] = []
    for path, g in walk_graphs(model.graph):
        for i, t in enumerate(g.initializers):
            off = reuse.offset_of(t.raw_data) if t.nbytes else None
            if off is None or id(t) in subst:
                continue
            if off % alignment:
                raise EncodeError(
                    f"tensor {t.name!r} lies at offset {off} of {reuse.path!r}, not a multiple "
                    f"of the alignment {alignment}: that file cannot be reused (convert without "
                    "reuse_data for a new aligned layout, or with a smaller alignment)",
                    f"{path}.initializers[{i}]",
                )
            subst[id(t)] = dataclasses.replace(t, raw_data=_NO_BYTES, external_data_offset=off)
            found.append((off, t.nbytes, t.name, t))
    data = Plan()
    last: tuple[int, int] | None = None
    for off, n, name, t in sorted(found, key=lambda f: (f[0], f[1])):
        if (off, n) != last:
            data.place(off, n, alignment=alignment, source=t.raw_data, name=name)
            last = (off, n)
    data.reserve(reuse.size)
    return subst, data


def _tensor_layout(
    model: OrtModel, external: bool, threshold: int, alignment: int
) -> tuple[dict[int, Tensor], Plan]:
    """Substitute tables for tensors whose data moves, and the plan of the companion file.

    With ``external``, every initializer (any graph) of a numeric type with
    ``threshold`` or more bytes goes to the companion file at the next
    multiple of ``alignment``, in walk order, a tensor object used twice
    once; its table gets ``external_data_offset`` and no ``raw_data``.
    Every other tensor that holds its bytes is written inline and loses an
    ``external_data_offset`` it was read with.
    """
    subst: dict[int, Tensor] = {}
    data = Plan()
    if external:
        for _, g in walk_graphs(model.graph):
            for t in g.initializers:
                n = t.nbytes
                if id(t) in subst or t.data_type == _STRING or n == 0 or n < threshold:
                    continue
                raw = t.raw_data
                dtype = None if raw.dtype.itemsize == 1 else raw.dtype.newbyteorder("<")
                length = raw.size * raw.dtype.itemsize
                r = data.add(length, alignment=alignment, source=raw, dtype=dtype, name=t.name)
                subst[id(t)] = dataclasses.replace(
                    t, raw_data=_NO_BYTES, external_data_offset=r.offset
                )
    for _, t in walk_tensors(model.graph):
        if id(t) not in subst and t.external_data_offset >= 0 and t.nbytes:
            subst[id(t)] = dataclasses.replace(t, external_data_offset=-1)
    return subst, data


def plan(
    model: OrtModel,
    *,
    alignment: int = 64,
    float16_casts: bool | None = None,
    format_version: int = 6,
) -> BuildResult:
    """Lay out ``model`` as an .ort file: the metadata packed, the payloads planned.

    Computes the ``KernelTypeStrResolver`` (keeping entries the model
    already carries).  Nothing large is copied until the plan is executed.
    The model is not modified, except that a node whose ``since_version``
    is 0 (unknown) gets the version of the schema found for it.
    ``float16_casts``: see :func:`save` (what is written gets the Casts,
    not ``model``).  ``format_version``: 6 (default) or 5; what that
    version cannot hold (:func:`unrepresentable`) is an
    :class:`~wireplan.EncodeError` naming the first offending path.
    """
    return plan_files(
        model, alignment=alignment, float16_casts=float16_casts, format_version=format_version
    )[0]


def plan_files(
    model: OrtModel,
    *,
    alignment: int = 64,
    float16_casts: bool | None = None,
    format_version: int = 6,
    external_data: bool = False,
    size_threshold: int = DEFAULT_SIZE_THRESHOLD,
    reuse: MappedFile | None = None,
) -> tuple[BuildResult, Plan]:
    """:func:`plan`, and the plan of the external data file (empty without ``external_data``).

    ``reuse``: the tensors that view this mapped file keep their offsets in it
    (``save(reuse_data=True)``).
    """
    check_alignment(alignment, most=MAX_ALIGNMENT)
    _check_threshold(size_threshold)
    format_version = check_format_version(format_version)
    if external_data and format_version == 5:
        raise EncodeError(
            "format 5 has no Tensor.external_data_offset (onnxruntime added it later, without a "
            "version bump): external_data=True needs format_version=6",
            "$.ort_version",
        )
    _refuse_too_deep(model)
    _refuse_unrepresentable(model, format_version)
    if casts.wanted(float16_casts):
        model = casts.insert_casts(model)
    md = model.model
    if md is None or md.graph is None:
        raise EncodeError("the model has no graph", "$.model.graph")
    resolver = kernel_types.resolver_for(model)
    fixes: dict[int, Any] = {}
    if _needs_types(md.graph):
        _graph_fixes(md.graph, {}, fixes, True)
        if format_version == 5:
            for g in fixes.values():
                for i, vi in enumerate(g.node_args):
                    for _, why in _type_info_problems(vi.type, "", _MAX_DATA_TYPE[5]):
                        raise EncodeError(
                            f"format 5 cannot hold this model: value {vi.name!r}: {why}",
                            f"$.model.graph.node_args[{i}]",
                        )
    root = {
        "ort_version": str(format_version),
        "model": md,
        "kernel_type_str_resolver": resolver,
    }
    if reuse is not None:
        moved, data = _reused_layout(model, reuse, alignment)
        tensors = _tensor_layout(model, False, size_threshold, alignment)[0] | moved
    else:
        tensors, data = _tensor_layout(model, external_data, size_threshold, alignment)
    fixes.update(tensors)
    with gc_paused():  # tens of thousands of small tables for a many-nodes model
        return _builder(alignment).build(root, substitutes=fixes), data


def as_ort_model(model: Any) -> tuple[OrtModel, bool]:
    """The :class:`OrtModel` the writer starts from, and whether it was made here.

    ``model`` is an ``OrtModel`` (returned as it is, ``False``), an
    ``onnx.ModelProto`` or an .onnx path (converted by ``from_onnx`` with
    the function-op expansion the installed onnxruntime needs, ``True``:
    the caller closes it).  The float16 Casts come later, in :func:`plan`.
    """
    if isinstance(model, OrtModel):
        return model, False
    if not isinstance(model, (str, os.PathLike)) and not hasattr(model, "opset_import"):
        raise EncodeError(
            "expected an onnx.ModelProto, the path of an .onnx file or an OrtModel, "
            f"not {type(model).__name__}"
        )
    from wireplan.ort.onnx.read import from_onnx
    from wireplan.ort.runtime import needs_expansion

    # onnxruntime inlines function ops no kernel matches (version, types) for .onnx only.
    return from_onnx(model, signature=kernel_types.signature, expand=needs_expansion), True


def _fill(
    result: BuildResult,
    dest: Any,
    threads: int | None,
    progress: Progress | None,
    base: int = 0,
    grand_total: int | None = None,
) -> None:
    """Execute the .ort's plan into ``dest``; ``progress(done, total)`` as the bytes move,
    counted from ``base`` of ``grand_total`` (the companion file's bytes come first)."""
    populate(dest)
    regions = result.plan.regions
    if progress is None:
        execute(regions, dest, threads=threads)
        return
    size = sum(r.length for r in regions if r.source is not None)
    total = size if grand_total is None else grand_total
    progress(base, total)
    tally = Tally(progress, total, base)
    execute(regions, dest, threads=threads, progress=tally)
    if tally.done != base + size:  # regions whose source is empty
        progress(base + size, total)


def save(
    model: Any,
    path: str | os.PathLike[str],
    *,
    alignment: int = 64,
    threads: int | None = None,
    progress: Progress | None = None,
    durable: bool = True,
    float16_casts: bool | None = None,
    format_version: int = 6,
    external_data: bool = False,
    size_threshold: int = DEFAULT_SIZE_THRESHOLD,
    reuse_data: bool = False,
) -> None:
    """Write ``model`` as an .ort file at ``path``, atomically.

    ``model`` is an ``onnx.ModelProto``, the path of an .onnx file (inline or
    external data; the weights are memory-mapped, not loaded into Python
    objects), or an :class:`~wireplan.ort.OrtModel`.  Each non-empty
    ``Tensor.raw_data`` starts at a multiple of ``alignment`` (a power of
    two, 1..65536) from the start of the file.  ``threads`` copies the
    payloads in parallel (``None``: by size; the output is the same bytes
    either way); ``progress(done_bytes, total_bytes)`` is called on the
    calling thread as they are copied, every 8 MiB or so
    (:data:`wireplan.core.executor.CHUNK_BYTES`), the companion file's bytes
    first; the .onnx is read (parsed) before the first call.  Raises :class:`~wireplan.EncodeError` for what .ort cannot
    hold (an operator without a known schema, a file past 2 GiB) before
    anything is written.  ``durable=False`` skips the fsyncs: still atomic
    against a failed or killed process, not against power loss (see
    :mod:`wireplan.core.atomic`); the bytes are the same.

    ``external_data=True``: every initializer of ``size_threshold`` bytes or
    more (strings never) goes to :func:`companion_path` (``<name>.ort.data``
    in the same folder) at a multiple of ``alignment``, and its ``Tensor``
    table holds ``external_data_offset`` instead of ``raw_data``; the rest
    stays inline.  For models past 2 GiB.  onnxruntime cannot run such a
    file itself: :func:`wireplan.ort.runtime.session` runs it through an
    .onnx that points into the same data file.  The companion is filled a
    window at a time (:func:`wireplan.core.executor.execute_file`), so memory
    stays bounded, and both files are renamed into place together, the
    .data first (:func:`wireplan.core.atomic.write_group`).  ``reuse_data``
    (``model`` an .onnx path whose external data is one file, each tensor
    at a multiple of ``alignment``): the .ort points at the tensors where
    they are, and the companion is a hard link to that file (a copy across
    file systems) instead of a new layout; see :func:`convert_onnx_to_ort`.

    ``float16_casts`` wraps float16 nodes that have no float16 CPU kernel
    in Casts to and from float32, as onnxruntime does when it loads an
    .onnx but not an .ort (:mod:`wireplan.ort.casts`), so the .ort runs
    where the .onnx runs, with the same outputs.  ``None`` (the default):
    on when onnxruntime is installed (its kernel list decides), otherwise
    the graph is written as it is; ``False``: never; ``True``: always
    (an ``EncodeError`` without onnxruntime).

    ``format_version``: 6 (the default; onnxruntime 1.16 and later) or 5
    (onnxruntime 1.13 to 1.15).  Format 5 has no float8 data types and no
    ``Tensor.external_data_offset``: a model using them, or
    ``external_data=True``, is an ``EncodeError`` naming the tensor or value
    (see :func:`unrepresentable`).
    """
    _check_threads(threads)
    check_format_version(format_version)
    if reuse_data and not external_data:
        raise EncodeError("reuse_data=True needs external_data=True")
    om, owned = as_ort_model(model)
    try:
        reused = _reusable_data(om) if reuse_data else None
        result, data = plan_files(
            om,
            alignment=alignment,
            float16_casts=float16_casts,
            format_version=format_version,
            external_data=external_data,
            size_threshold=size_threshold,
            reuse=reused,
        )
        if not external_data:
            write_sized(
                path,
                result.size,
                lambda buf: _fill(result, buf, threads, progress),
                durable=durable,
            )
            return
        write_pair(
            result,
            data,
            path,
            threads=threads,
            progress=progress,
            durable=durable,
            link_from=None if reused is None else reused.path,
        )
    finally:
        if owned:
            om.close()


def _reusable_data(om: OrtModel) -> MappedFile:
    """The one external data file of a model read from an .onnx (``reuse_data``)."""
    files = getattr(om.source, "external_files", None)
    found = files() if files is not None else {}
    if len(found) != 1:
        raise EncodeError(
            "reuse_data=True needs an .onnx source whose external data is one file "
            f"(this one has {len(found)})"
        )
    mapped: MappedFile = next(iter(found.values()))
    return mapped


def write_pair(
    result: BuildResult,
    data: Plan,
    path: str | os.PathLike[str],
    *,
    threads: int | None = None,
    progress: Progress | None = None,
    durable: bool = True,
    link_from: str | None = None,
) -> None:
    """Write a planned .ort at ``path`` and its companion (``data``), all or neither.

    ``link_from``: an existing file that already holds the companion's bytes
    at the planned offsets; the companion becomes a hard link to it (a copy
    when linking fails), or is left alone when it is that file.
    """
    meta_total = sum(r.length for r in result.plan.regions if r.source is not None)
    data_total = sum(r.length for r in data.regions if r.source is not None)
    total = meta_total + data_total

    def fill_data(fd: int) -> None:
        if progress is None:
            execute_file(data, fd, threads=threads)
            return
        progress(0, total)
        execute_file(data, fd, threads=threads, progress=Tally(progress, total))

    target = companion_path(path)
    files = [SizedFile(target, data.size, fill_data, mapped=False, link_from=link_from)]
    if link_from is not None and target.exists() and os.path.samefile(link_from, target):
        files = []
    write_group(
        [
            *files,
            SizedFile(
                path,
                result.size,
                lambda buf: _fill(result, buf, threads, progress, data_total, total),
            ),
        ],
        durable=durable,
    )


def to_bytes(
    model: Any,
    *,
    alignment: int = 64,
    threads: int | None = None,
    float16_casts: bool | None = None,
    format_version: int = 6,
    external_data: bool = False,
    size_threshold: int = DEFAULT_SIZE_THRESHOLD,
) -> bytearray:
    """The .ort file for ``model`` in memory (a ``bytearray``); see :func:`save`.

    ``external_data=True`` is an :class:`~wireplan.EncodeError`: the
    weights would go to a second file named after the .ort's path, which a
    buffer does not have (use :func:`save`).  ``size_threshold`` is checked
    only.
    """
    _check_threads(threads)
    check_format_version(format_version)
    _check_threshold(size_threshold)
    if external_data:
        raise EncodeError(
            "to_bytes cannot write external data: the weights go to a companion file "
            "named after the .ort path (save(model, path, external_data=True))"
        )
    om, owned = as_ort_model(model)
    try:
        result = plan(
            om, alignment=alignment, float16_casts=float16_casts, format_version=format_version
        )
        out = bytearray(result.size)
        _fill(result, out, threads, None)
        return out
    finally:
        if owned:
            om.close()


def convert_onnx_to_ort(
    src: str | os.PathLike[str],
    dst: str | os.PathLike[str],
    *,
    alignment: int = 64,
    threads: int | None = None,
    progress: Progress | None = None,
    durable: bool = True,
    float16_casts: bool | None = None,
    format_version: int = 6,
    external_data: bool = False,
    size_threshold: int = DEFAULT_SIZE_THRESHOLD,
    reuse_data: bool = False,
) -> None:
    """Convert the .onnx file ``src`` (inline or external data) to the .ort file ``dst``.

    Options as in :func:`save` (``durable=False``: no fsync; ``float16_casts``:
    Casts around float16 nodes without a float16 CPU kernel; ``format_version``:
    6 or 5; ``external_data``, ``size_threshold``: large initializers in
    ``<dst>.data``).  ``reuse_data=True`` (with ``external_data``): when the
    .onnx keeps its external tensors in one file, each at a multiple of
    ``alignment``, the .ort points at them where they are and
    ``<dst>.data`` becomes a hard link to that file (a copy when linking
    fails), so no weight is rewritten; tensors inline in the .onnx stay
    inline.  Otherwise an :class:`~wireplan.EncodeError` says which tensor
    is in the way (convert without ``reuse_data`` to get a new layout).
    """
    save(
        os.fspath(src),
        dst,
        alignment=alignment,
        threads=threads,
        progress=progress,
        durable=durable,
        float16_casts=float16_casts,
        format_version=format_version,
        external_data=external_data,
        size_threshold=size_threshold,
        reuse_data=reuse_data,
    )


# Format versions whose files name kernels by kernel-def hashes and carry no resolver.
_HASH_FORMATS = ("1", "2", "3", "4")


def _refuse_hashed_optimizations(model: OrtModel) -> None:
    """Runtime optimization records of formats 1-4 name kernels by kernel-def hashes only."""
    for path, graph in walk_graphs(model.graph):
        ro = graph.runtime_optimizations
        if ro is not None and ro.records:
            raise EncodeError(
                f"format {model.ort_version} saved runtime optimizations name the kernels they "
                "produce by kernel-def hashes (produced_nodes) of the release that wrote them; "
                "format 5 and later have no place for those and name operators instead, which "
                "the hashes do not tell (onnxruntime 1.13 and later ignore these records when "
                "they load an old file). Set graph.runtime_optimizations = None on the loaded "
                "model and save it, or convert the .onnx again",
                f"{path}.runtime_optimizations",
            )


def _rebuild_resolver(model: OrtModel) -> None:
    """Give a format 1-4 model the resolver its kernel-def hashes stood for, from operator schemas."""
    try:
        model.kernel_type_str_resolver = kernel_types.resolver_for(model)
    except EncodeError as exc:
        from wireplan.ort.runtime import available, version

        if available():
            hint = (
                f" (the installed onnxruntime {version()} does not know it, or does not "
                "export its operator schemas to Python, as 1.15 does not)"
            )
        else:
            hint = (
                " (an installed onnxruntime that exports its operator schemas to Python, "
                "such as 1.20 or later, provides those of its own domains, com.microsoft ...)"
            )
        raise EncodeError(
            f"format {model.ort_version} files carry kernel-def hashes instead of a kernel "
            "type string resolver, so it is rebuilt from operator schemas, and this one "
            f"cannot be: {exc.reason}{hint}",
            exc.path,
        ) from None


def convert_ort_to_ort(
    src: str | os.PathLike[str],
    dst: str | os.PathLike[str],
    *,
    format_version: int = 6,
    alignment: int = 64,
    threads: int | None = None,
    progress: Progress | None = None,
    durable: bool = True,
    float16_casts: bool | None = False,
    external_data: bool = False,
    size_threshold: int = DEFAULT_SIZE_THRESHOLD,
) -> None:
    """Re-write the .ort file ``src`` as format ``format_version`` (6 or 5) at ``dst``.

    Moves a model between onnxruntime releases without onnxruntime: every
    table is carried over as read (payloads copied straight from the
    mapping), the ``KernelTypeStrResolver`` entries of the source are kept,
    and what the target format cannot hold is an
    :class:`~wireplan.EncodeError` naming it (:func:`unrepresentable`).
    Formats 1 to 4 (onnxruntime 1.5 to 1.12) have no resolver: their
    deprecated session state names kernels by kernel-def hashes, which are
    dropped and replaced by a resolver computed from operator schemas
    (onnx for the ONNX domains, onnxruntime for its own when installed),
    as onnxruntime's full builds do when they load such a file; an operator
    no schema source knows, and saved runtime optimizations (recorded with
    kernel-def hashes only), are refused.  ``float16_casts`` is off by
    default: the source already holds the graph as its runtime executes it.
    A source with external data reads its companion file; ``external_data``
    decides whether ``dst`` has one.  Other options as in :func:`save`.
    """
    from wireplan.ort.reader import check_tensors, load

    format_version = check_format_version(format_version)
    check_alignment(alignment, most=MAX_ALIGNMENT)
    _check_threads(threads)
    with load(src) as om:
        check_tensors(om)  # a DecodeError at the byte of the bad field, not an EncodeError
        if om.ort_version in _HASH_FORMATS:
            _refuse_hashed_optimizations(om)
            if om.kernel_type_str_resolver is None:
                _rebuild_resolver(om)
        save(
            om,
            dst,
            alignment=alignment,
            threads=threads,
            progress=progress,
            durable=durable,
            float16_casts=float16_casts,
            format_version=format_version,
            external_data=external_data,
            size_threshold=size_threshold,
        )
