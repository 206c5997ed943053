"""A prepare pass: element types for the values onnx shape inference left untyped.

onnx shape inference leaves some values untyped (unused optional outputs;
sparse initializers and what they feed), but the .ort loader requires a
type for every named value: :func:`typed_graphs` gives those the element
type their initializer or operator schema implies, in replacement graphs
the encoder substitutes for the model's own (the model is not modified).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from wireplan.errors import EncodeError
from wireplan.ort import kernel_types
from wireplan.ort.dtypes import tensor_elem_type
from wireplan.ort.formats import MAX_DATA_TYPE, type_info_problems
from wireplan.ort.graph import subgraphs, walk_graphs
from wireplan.ort.model import (
    Dimension,
    DimensionValue,
    Graph,
    Node,
    Shape,
    TensorTypeAndShape,
    TypeInfo,
    ValueInfo,
)
from wireplan.ort.schema import DIMENSION_VALUE_TYPE, TENSOR_DATA_TYPE
from wireplan.ort.signatures import normal_domain

__all__ = ["typed_graphs"]

_DIM_VALUE = DIMENSION_VALUE_TYPE["VALUE"]


def typed_graphs(graph: Graph, format_version: int) -> dict[int, Graph]:
    """Replacements for ``graph`` and its subgraphs whose ``node_args`` lack types, by ``id``.

    Empty when every named value has a usable type.  A filled-in type that
    format 5 cannot hold is an :class:`~wireplan.EncodeError`; a value no
    initializer or schema types is one too.
    """
    fixes: dict[int, Any] = {}
    if not _needs_types(graph):
        return fixes
    _graph_fixes(graph, {}, fixes, True)
    if format_version == 5:
        for g in fixes.values():
            for i, vi in enumerate(g.node_args):
                for _, why in type_info_problems(vi.type, "", MAX_DATA_TYPE[5]):
                    raise EncodeError(
                        f"format 5 cannot hold this model: value {vi.name!r}: {why}",
                        f"$.model.graph.node_args[{i}]",
                    )
    return fixes


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
            elem = bound.get(type_str) if type_str in params else tensor_elem_type(type_str)
            if elem is None:
                elem = _unbound_output_type(node, i, known)
            if elem is not None:
                known[name] = elem
    out = []
    for vi in graph.node_args:
        if _untyped(vi) and vi.name and vi.name not in known:
            if vi.type is not None and vi.type.value is None:
                raise EncodeError(
                    f"value {vi.name!r} has an optional, sparse or opaque type, which has no "
                    "place in the .ort format (onnxruntime's own converter refuses it too)",
                    "$.model.graph.node_args",
                )
            maker = next((n for n in graph.nodes if vi.name in n.outputs), None)
            made = (
                f"an output of {maker.op_type!r} (domain {maker.domain or 'ai.onnx'!r}, node "
                f"{maker.name!r}) whose element type neither onnx shape inference, an initializer "
                "nor the operator's schema gives"
                if maker is not None
                else "neither an initializer nor a node output whose schema gives its type"
            )
            raise EncodeError(
                f"value {vi.name!r} has no element type, which the .ort format requires: it is "
                f"{made}; give it a value_info in the .onnx",
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


_FLOAT = TENSOR_DATA_TYPE["FLOAT"]


def _unbound_output_type(node: Node, index: int, known: Mapping[str, int]) -> int | None:
    """The element type onnxruntime's type inference gives output ``index`` of ``node`` when
    no input binds its type parameter (None when no rule here knows it).

    onnxruntime types these itself when it loads a model, but the optimized graphs it saves
    as .onnx leave them untyped; these are the operators its optimizers produce:

    - ``QGemm`` (com.microsoft): ``Y`` has the type of ``y_zero_point`` (input 8) when given,
      otherwise float (the output is not quantized);
    - ``SkipLayerNormalization``, ``SkipSimplifiedLayerNormalization`` (com.microsoft): the
      optional ``mean`` and ``inv_std_var`` outputs (1, 2) are float.
    """
    if normal_domain(node.domain) != "com.microsoft":
        return None
    if node.op_type == "QGemm" and index == 0:
        zero_point = node.inputs[8] if len(node.inputs) > 8 else ""
        return known.get(zero_point) if zero_point else _FLOAT
    if node.op_type in ("SkipLayerNormalization", "SkipSimplifiedLayerNormalization"):
        return _FLOAT if index in (1, 2) else None
    return None
