"""Value types from onnx shape inference, on a copy of the model that it cannot choke on.

:func:`inferred_types` gives the types onnx infers for the values of a model (every graph),
which the .ort needs for its ``node_args`` where the .onnx declares none.  It runs on a
skeleton of the model: large weights are typed inputs instead (no payload copied), and no
negative dimension goes in (onnx aborts the process on one).
"""

from __future__ import annotations

import onnx
import onnx.shape_inference

from wireplan.ort.signatures import ONNX_DOMAINS

__all__: list[str] = []


def inferred_types(model: onnx.ModelProto) -> dict[str, onnx.TypeProto | onnx.TensorProto]:
    """Types onnx shape inference finds for values (all graphs), on a copy without big payloads.

    An initializer's entry is the (small) tensor itself, made a type only when asked for.
    """
    skeleton = onnx.ModelProto()
    _copy_skeleton(model, skeleton)
    try:
        inferred = onnx.shape_inference.infer_shapes(skeleton, check_type=False, strict_mode=False)
    except Exception:
        return {}
    out: dict[str, onnx.TypeProto | onnx.TensorProto] = {}

    def walk(g: onnx.GraphProto) -> None:
        for t in g.initializer:
            out.setdefault(t.name, t)
        for vi in (*g.input, *g.value_info, *g.output):
            if vi.type.WhichOneof("value") is not None:
                out.setdefault(vi.name, vi.type)
        for nd in g.node:
            for a in nd.attribute:
                if a.type == onnx.AttributeProto.GRAPH:
                    walk(a.g)
                for sg in a.graphs:
                    walk(sg)

    walk(inferred.graph)
    return out


# Shape inference reads the values of shape-like inputs only: a shape, axes, pads, split
# sizes (integers), scales or a range's bounds (a few numbers of any type).  Initializers
# beyond these sizes go in as typed graph inputs.
_SKELETON_INTEGERS = 512
_SKELETON_OTHERS = 64
_INTEGER_TYPES = frozenset(
    getattr(onnx.TensorProto, k)
    for k in ("INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64")
)


def _copy_skeleton(model: onnx.ModelProto, into: onnx.ModelProto) -> None:
    """``model`` with large initializers turned into typed graph inputs (for shape inference).

    Built field by field so that the payloads of big initializers are never copied.  Sizes
    come from the dimensions: upb's ``ByteSize()`` serializes a tensor to count its bytes.

    No negative dimension goes in: onnx 1.21 and later abort the process (SIGABRT, a
    libstdc++ assertion in ``std::clamp``) when shape inference meets one in Slice or
    Gather (onnx/onnx#8481), where onnxruntime runs such a model (an input declared
    ``[3, -1]``).  The graph's declared types get unknown dimensions instead, and a tensor
    with one is left out (the writer refuses it, naming it).
    """
    into.ir_version = model.ir_version
    into.opset_import.extend(model.opset_import)
    into.functions.extend(model.functions)
    src, g = model.graph, into.graph
    g.name = src.name
    g.input.extend(src.input)
    g.output.extend(src.output)
    g.value_info.extend(src.value_info)
    g.sparse_initializer.extend(src.sparse_initializer)
    listed = {x.name for x in src.input}
    for t in src.initializer:
        keeps = _skeleton_keeps(t)
        if keeps:
            g.initializer.append(t)
        elif keeps is not None and t.name not in listed:
            _typed_input(g, t.name, t)
    # Weights held by Constant nodes (as exporters such as Paddle's write them) likewise:
    # the node's output becomes a typed input.
    kept = []
    for nd in src.node:
        if nd.op_type == "Constant" and nd.domain in ONNX_DOMAINS and len(nd.attribute) == 1:
            a = nd.attribute[0]
            if a.name == "value" and len(nd.output) == 1:
                keeps = _skeleton_keeps(a.t)
                if keeps is None:
                    continue
                if not keeps:
                    _typed_input(g, nd.output[0], a.t)
                    continue
        kept.append(nd)
    g.node.extend(kept)
    for vi in (*g.input, *g.output, *g.value_info):
        _unknown_negative(vi.type)


def _unknown_negative(t: onnx.TypeProto) -> None:
    """Turn the negative dimensions of ``t`` (nested types too) into unknown ones."""
    which = t.WhichOneof("value")
    if which in ("tensor_type", "sparse_tensor_type"):
        for d in getattr(t, which).shape.dim:
            if d.dim_value < 0:
                d.ClearField("dim_value")
    elif which in ("sequence_type", "optional_type"):
        _unknown_negative(getattr(t, which).elem_type)
    elif which == "map_type":
        _unknown_negative(t.map_type.value_type)


def _skeleton_keeps(t: onnx.TensorProto) -> bool | None:
    """Whether shape inference may read ``t``'s values (sized by its dimensions); None when
    it must not see ``t`` at all (a negative dimension)."""
    count = 1
    for d in t.dims:
        if d < 0:
            return None
        count *= d
    return count <= (_SKELETON_INTEGERS if t.data_type in _INTEGER_TYPES else _SKELETON_OTHERS)


def _typed_input(g: onnx.GraphProto, name: str, t: onnx.TensorProto) -> None:
    """Declare ``name`` a graph input of ``t``'s type."""
    vi = g.input.add()
    vi.name = name
    tt = vi.type.tensor_type
    tt.elem_type = t.data_type
    shape = tt.shape
    for d in t.dims:
        shape.dim.add().dim_value = d
