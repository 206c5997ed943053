"""The ``required_operators.config`` of onnxruntime's reduced builds, without onnxruntime.

A minimal onnxruntime build (``build.py --include_ops_by_config FILE``, optionally
``--enable_reduced_operator_type_support``) keeps only the kernels a config file
lists.  onnxruntime writes that file from .ort models
(``onnxruntime.tools.ort_format_model.create_config_from_models``, which its
converter calls); :func:`required_operators` writes the same text from the
same .ort files, or from .onnx models through the conversion the planned
writer makes.  The format, as onnxruntime 1.15.1, 1.20.1 and 1.32.0 write it:

- one line per domain and operator version: ``domain;since_version;Op1,Op2``.
  The version is each node's ``since_version`` (the schema version the node
  resolved to, not the model's opset import), the ONNX domain is spelled
  ``ai.onnx``; domains and operators are sorted as strings, versions as
  numbers.  Every node of every graph counts, subgraphs of ``If``/``Loop``/
  ``Scan`` included; runtime optimization records do not;
- with type reduction, an operator that onnxruntime tracks types for is
  followed by JSON naming the C++ types it sees at the tracked inputs and
  outputs, merged over all its nodes, all versions and all models
  (``Cast{"inputs": {"0": ["float"]}, "outputs": {"0": ["int64_t"]}}``); the
  same entry follows the operator on each of its version lines.  ``OneHot``
  lists ``{"custom": [[input 0, input 2, input 1], ...]}`` triples.  Operators
  without tracking (and tracked ones whose tracked arguments are all
  absent) stay bare.  A sequence counts as its element type, a map as
  ``std::map<key,value>`` (no tracked argument takes a map, and onnxruntime's
  tool fails on one: its ``types.py`` calls a ``MapType.init`` that does not exist);
- comment lines start with ``#``.  The ``!globally_allowed_types;T1,T2`` line
  (one type list for every operator, instead of per-operator types) is
  written by hand, never generated; onnxruntime refuses it together with
  per-operator types.

The tracked arguments (:data:`TRACKED`) are onnxruntime 1.32.0's.  The releases
differ in one operator: 1.32.0 also tracks ``com.microsoft:GatherPacked``,
which 1.20.1 and older do not have at all (1.15.1 also lacks the float8 type
names, and format 5 files cannot hold float8); so one table serves every
release.  A type with no C++ name in onnxruntime's list (complex, 4-bit
integers, float4, undefined) at a tracked argument is an
:class:`~wireplan.EncodeError`: onnxruntime's tool fails on it too.

This module imports neither ``onnx`` nor ``onnxruntime``; an .onnx input needs
``onnx`` (and uses ``onnxruntime``, when installed, as the writer does).
"""

from __future__ import annotations

import json
import mmap
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from wireplan.core.executor import execute
from wireplan.errors import ArgumentError, EncodeError
from wireplan.ort.graph import ROOT, subgraphs
from wireplan.ort.model import (
    Graph,
    MapType,
    Node,
    OrtModel,
    SequenceType,
    TensorTypeAndShape,
    TypeInfo,
)
from wireplan.ort.prepare import as_ort_model
from wireplan.ort.reader import load
from wireplan.ort.schema import FILE_IDENTIFIER, TENSOR_DATA_TYPE
from wireplan.ort.writer import layout

if TYPE_CHECKING:
    import onnx  # noqa: TID251 - for annotations only, never imported at run time

__all__ = ["CPP_TYPE_NAMES", "TRACKED", "OperatorUsage", "operator_usage", "required_operators"]

_ONNX = "ai.onnx"

#: C++ names of the element types, as the config spells them.
CPP_TYPE_NAMES: Mapping[int, str] = {
    TENSOR_DATA_TYPE[k]: v
    for k, v in (
        ("FLOAT", "float"),
        ("UINT8", "uint8_t"),
        ("INT8", "int8_t"),
        ("UINT16", "uint16_t"),
        ("INT16", "int16_t"),
        ("INT32", "int32_t"),
        ("INT64", "int64_t"),
        ("STRING", "std::string"),
        ("BOOL", "bool"),
        ("FLOAT16", "MLFloat16"),
        ("DOUBLE", "double"),
        ("UINT32", "uint32_t"),
        ("UINT64", "uint64_t"),
        ("BFLOAT16", "BFloat16"),
        ("FLOAT8E4M3FN", "Float8E4M3FN"),
        ("FLOAT8E4M3FNUZ", "Float8E4M3FNUZ"),
        ("FLOAT8E5M2", "Float8E5M2"),
        ("FLOAT8E5M2FNUZ", "Float8E5M2FNUZ"),
    )
}


# Operators whose input 0 type is recorded.  Add, Concat, Div, Equal, Greater, Less, Mul,
# Neg, Sub and DequantizeLinear also always keep some integer kernels in a reduced build,
# but that is not part of the config: it lists what the models use, nothing more.
_INPUT_0 = """
    Abs ArgMax ArgMin AveragePool BatchNormalization BitShift Ceil Clip Conv CumSum Exp Expand
    Floor Gemm IsNaN Log LogSoftmax LpNormalization MatMul Max MaxPool Mean Min NonZero Pad
    QLinearConv QLinearMatMul Range Reciprocal ReduceL1 ReduceL2 ReduceLogSum ReduceLogSumExp
    ReduceMax ReduceMean ReduceMin ReduceProd ReduceSum ReduceSumSquare Relu Resize
    ReverseSequence RoiAlign Round Scatter ScatterElements ScatterND Shrink Sigmoid Sign Sin
    Softmax Split SplitToSequence Sqrt Sum Tanh TopK Transpose Unique
    Add Concat Div Equal Greater Less Mul Neg Sub DequantizeLinear
"""
# Operators whose output 0 type is recorded (they make new data of a type set by attribute).
_OUTPUT_0 = """
    ConstantOfShape RandomNormal RandomNormalLike RandomUniform RandomUniformLike Multinomial
    QuantizeLinear DynamicQuantizeLinear
"""


def _tracked() -> dict[tuple[str, str], tuple[tuple[int, ...], tuple[int, ...]]]:
    out: dict[tuple[str, str], tuple[tuple[int, ...], tuple[int, ...]]] = {}
    for op in _INPUT_0.split():
        out[_ONNX, op] = (0,), ()
    for op in _OUTPUT_0.split():
        out[_ONNX, op] = (), (0,)
    for op in ("QLinearAdd", "QLinearMul", "QLinearConv"):
        out["com.microsoft", op] = (0,), ()
    out[_ONNX, "Cast"] = (0,), (0,)
    for op in ("Gather", "GatherElements", "Pow", "Slice"):
        out[_ONNX, op] = (0, 1), ()
    out[_ONNX, "Where"] = (1,), ()  # input 0 is always bool
    out["com.microsoft", "GatherPacked"] = (0, 1), (0,)  # onnxruntime 1.32.0 on
    return out


#: ``(domain, op_type) -> (input indices, output indices)`` whose types type reduction
#: records; ``ai.onnx:OneHot`` is recorded as triples instead (see the module docstring).
TRACKED: Mapping[tuple[str, str], tuple[tuple[int, ...], tuple[int, ...]]] = _tracked()

_ONE_HOT = (_ONNX, "OneHot")

# Names of the ONNX element types ort.fbs has no code for, for messages.
_LATER_TYPES = dict(
    enumerate(
        ("UINT4", "INT4", "FLOAT4E2M1", "FLOAT8E8M0", "UINT2", "INT2", "FLOAT6E2M3", "FLOAT6E3M2"),
        start=21,
    )
)


@dataclass
class OperatorUsage:
    """What a set of models uses: operators by domain and version, types by operator.

    ``ops[domain][since_version]`` is a set of op types (ONNX as ``"ai.onnx"``);
    ``inputs[(domain, op)][i]`` / ``outputs[(domain, op)][i]`` the C++ type names
    seen at tracked argument ``i``; ``triples[(domain, op)]`` OneHot's type triples.
    """

    ops: dict[str, dict[int, set[str]]] = field(default_factory=dict)
    inputs: dict[tuple[str, str], dict[int, set[str]]] = field(default_factory=dict)
    outputs: dict[tuple[str, str], dict[int, set[str]]] = field(default_factory=dict)
    triples: dict[tuple[str, str], set[tuple[str, str, str]]] = field(default_factory=dict)
    #: The models counted, as given (paths) or ``"<OrtModel>"`` / ``"<ModelProto>"``.
    sources: list[str] = field(default_factory=list)

    def add(self, model: OrtModel, *, types: bool = True) -> None:
        """Count every node of ``model`` (subgraphs too); record types when ``types``."""
        _visit(model.graph, {}, self, types, ROOT)

    def type_entry(self, domain: str, op_type: str) -> str | None:
        """The JSON written after ``op_type`` under type reduction, or None."""
        key = (domain, op_type)
        if key in self.triples:
            triples = self.triples[key]
            return json.dumps({"custom": sorted(triples)}) if triples else None
        info: dict[str, dict[str, list[str]]] = {}
        for side, table in (("inputs", self.inputs), ("outputs", self.outputs)):
            seen = {str(i): sorted(s) for i, s in sorted(table.get(key, {}).items()) if s}
            if seen:
                info[side] = seen
        return json.dumps(info) if info else None

    def config(self, *, type_reduction: bool = False, header: bool = True) -> str:
        """The ``required_operators.config`` text (with a comment naming the sources)."""
        lines = []
        if header:
            lines.append("# Generated by wireplan from model/s:")
            lines.extend(f"# - {s}" for s in self.sources)
        for domain in sorted(self.ops):
            for version in sorted(self.ops[domain]):
                names = sorted(self.ops[domain][version])
                if type_reduction:
                    names = [op + (self.type_entry(domain, op) or "") for op in names]
                lines.append(f"{domain};{version};{','.join(names)}")
        return "".join(line + "\n" for line in lines)


def _type_name(t: TypeInfo | None, what: str, where: str) -> str:
    v = None if t is None else t.value
    if isinstance(v, TensorTypeAndShape):
        name = CPP_TYPE_NAMES.get(v.elem_type)
        if name is None:
            names = {c: n for n, c in TENSOR_DATA_TYPE.items()} | _LATER_TYPES
            kind = names.get(v.elem_type, "unknown")
            raise EncodeError(
                f"{what} has element type {v.elem_type} ({kind}), which has no C++ type name in "
                "onnxruntime's reduced-build config (its own tool fails on it too)",
                where,
            )
        return name
    if isinstance(v, SequenceType):
        return _type_name(v.elem_type, f"the elements of {what}", where)
    if isinstance(v, MapType):
        key = _type_name(TypeInfo(value=TensorTypeAndShape(elem_type=v.key_type)), what, where)
        return f"std::map<{key},{_type_name(v.value_type, f'the values of {what}', where)}>"
    raise EncodeError(f"{what} has no type (a tensor, sequence or map type is needed)", where)


def _arg_type(
    node: Node,
    names: list[str],
    index: int,
    side: str,
    scope: Mapping[str, TypeInfo | None],
    where: str,
) -> str:
    name = names[index]
    what = f"{side} {index} ({name!r}) of {node.op_type} node {node.name!r}"
    if name not in scope:
        raise EncodeError(f"{what} is not among the graph's node_args, so it has no type", where)
    return _type_name(scope[name], what, where)


def _record(
    node: Node,
    key: tuple[str, str],
    scope: Mapping[str, TypeInfo | None],
    u: OperatorUsage,
    where: str,
) -> None:
    if key == _ONE_HOT:
        if len(node.inputs) < 3:
            raise EncodeError(
                f"OneHot node {node.name!r} has {len(node.inputs)} inputs, not 3", where
            )
        a, b, c = (_arg_type(node, node.inputs, i, "input", scope, where) for i in range(3))
        # onnxruntime's kernels are registered by (input, output, depth) = inputs 0, 2, 1.
        u.triples.setdefault(key, set()).add((a, c, b))
        return
    tracked = TRACKED.get(key)
    if tracked is None:
        return
    ins, outs = tracked
    seen_in = u.inputs.setdefault(key, {i: set() for i in ins})
    seen_out = u.outputs.setdefault(key, {o: set() for o in outs})
    for i in ins:
        # Older versions of some operators had fewer inputs (Slice-1): skip what is absent.
        if i < len(node.inputs):
            seen_in[i].add(_arg_type(node, node.inputs, i, "input", scope, where))
    for o in outs:
        if o >= len(node.outputs):
            raise EncodeError(
                f"{node.op_type} node {node.name!r} has {len(node.outputs)} outputs; "
                f"output {o} is needed to record its type",
                where,
            )
        seen_out[o].add(_arg_type(node, node.outputs, o, "output", scope, where))


def _visit(
    graph: Graph, outer: Mapping[str, TypeInfo | None], u: OperatorUsage, types: bool, path: str
) -> None:
    # A subgraph sees the enclosing graphs' values; its own node_args take precedence.
    scope = dict(outer)
    if types:
        for vi in graph.node_args:
            scope[vi.name] = vi.type
    for i, node in enumerate(graph.nodes):
        where = f"{path}.nodes[{i}]"
        domain = node.domain or _ONNX
        u.ops.setdefault(domain, {}).setdefault(node.since_version, set()).add(node.op_type)
        if types:
            _record(node, (domain, node.op_type), scope, u, where)
        for sub_path, sub in subgraphs(node, where):
            _visit(sub, scope, u, types, sub_path)


def _is_ort(path: str | os.PathLike[str]) -> bool:
    with open(path, "rb") as f:
        head = f.read(8)
    return len(head) == 8 and head[4:8] == FILE_IDENTIFIER


def _as_written(model: Any, float16_casts: bool | None) -> OrtModel:
    """The .ort the writer would make of ``model`` (an .onnx path or ModelProto), read back.

    Only the metadata is filled in: the payload bytes stay zero in an
    anonymous mapping (nothing reads them), so no weight is copied.
    """
    om, owned = as_ort_model(model)  # an .onnx needs onnx: a MissingExtraError without it
    try:
        result = layout(om, float16_casts=float16_casts)
        buf = mmap.mmap(-1, result.size)
        execute([r for r in result.plan.regions if r.offset < result.metadata_size], buf)
    finally:
        if owned:
            om.close()
    return load(buf)


def operator_usage(
    models: Any,
    *,
    type_reduction: bool = False,
    float16_casts: bool | None = None,
) -> OperatorUsage:
    """The :class:`OperatorUsage` of one model or several (see :func:`required_operators`)."""
    single = isinstance(models, (str, os.PathLike, OrtModel)) or hasattr(models, "opset_import")
    items: Iterable[Any] = [models] if single else models
    u = OperatorUsage()
    for m in items:
        if isinstance(m, OrtModel):
            u.sources.append("<OrtModel>")
            u.add(m, types=type_reduction)
            continue
        if isinstance(m, (str, os.PathLike)):
            u.sources.append(os.fspath(m))
            if _is_ort(m):
                with load(m) as om:
                    u.add(om, types=type_reduction)
                continue
            if not os.fspath(m).lower().endswith(".onnx"):
                raise ArgumentError(
                    f"{os.fspath(m)!r} is neither an .ort model (no 'ORTM' identifier at bytes "
                    "4..8) nor an .onnx file"
                )
        elif hasattr(m, "opset_import"):
            u.sources.append("<ModelProto>")
        else:
            raise ArgumentError(
                "expected .ort or .onnx paths, OrtModels or onnx.ModelProtos, "
                f"not {type(m).__name__}"
            )
        with _as_written(m, float16_casts) as om:
            u.add(om, types=type_reduction)
    return u


def required_operators(
    models: OrtModel
    | onnx.ModelProto
    | str
    | os.PathLike[str]
    | Iterable[OrtModel | onnx.ModelProto | str | os.PathLike[str]],
    *,
    type_reduction: bool = False,
    float16_casts: bool | None = None,
) -> str:
    """The ``required_operators.config`` of a minimal onnxruntime build for ``models``.

    ``models`` is one model or several (merged into one config): .ort paths
    or :class:`~wireplan.ort.OrtModel` objects, .onnx paths or
    ``onnx.ModelProto`` objects.  For an .ort, the text equals what
    onnxruntime's ``create_config_from_models`` writes for the same file,
    comment lines aside.  An .onnx model is counted as the .ort that
    :func:`wireplan.ort.save` would write of it (operators onnxruntime has no
    kernel for expanded into their function bodies, Casts around float16
    nodes per ``float16_casts``, as there; this needs ``onnx``, and the
    result depends on the installed onnxruntime as the written file does),
    so the config is the one that .ort needs.  ``type_reduction`` adds the
    per-operator type lists (``--enable_type_reduction`` in onnxruntime's
    converter).  Types come from the graphs' ``node_args``.  The first lines
    are ``#`` comments naming the models.
    """
    return operator_usage(
        models, type_reduction=type_reduction, float16_casts=float16_casts
    ).config(type_reduction=type_reduction)
