""".onnx in: the file read (:func:`read_onnx`) and made an .ort model (:func:`from_onnx`)."""

from __future__ import annotations

import os
from pathlib import Path

import onnx
import onnx.inliner
from google.protobuf.message import DecodeError as ProtobufDecodeError  # type: ignore[import-untyped]

from wireplan.core.gcpause import gc_paused
from wireplan.errors import DecodeError, EncodeError
from wireplan.ort import model as m
from wireplan.ort.onnx.expand import ExpandCheck, _expand_function_ops
from wireplan.ort.onnx.from_proto import _FromOnnx, _OnnxSources, _Sources
from wireplan.ort.onnx.infer import inferred_types
from wireplan.ort.onnx.schemas import _memoized, _opsets, onnx_op_signature
from wireplan.ort.protowire import framing_problem
from wireplan.ort.signatures import SignatureLookup

__all__ = [
    "from_onnx",
    "read_onnx",
]


def read_onnx(path: str | os.PathLike[str]) -> onnx.ModelProto:
    """The ``onnx.ModelProto`` of the .onnx file at ``path``, external data left where it is.

    ``onnx.load(path, load_external_data=False)``, with one
    :class:`~wireplan.DecodeError` for a file that is not an ONNX model:
    empty, an .ort, bytes protobuf cannot parse (with the offset and path of
    the first framing problem when one is found: a length past the end of
    a truncated file, a broken key; None when protobuf refused something
    the framing does not show), or a message without a graph.  A missing
    file or a folder is the ``OSError`` of opening it.
    """
    name = os.fspath(path)
    if os.path.getsize(name) == 0 and os.path.isfile(name):
        raise DecodeError("empty file")
    try:
        proto = onnx.load(name, load_external_data=False)
    except (ProtobufDecodeError, RecursionError) as exc:
        with open(name, "rb") as f:
            data = f.read()
        if data[4:8] == b"ORTM":
            raise DecodeError("an .ort model, not an .onnx (bytes 4..8 are 'ORTM')", 4) from None
        found = framing_problem(data)
        if found is None:
            raise DecodeError(f"not an ONNX model: protobuf cannot parse it ({exc})") from None
        offset, where, why = found
        raise DecodeError(f"not an ONNX model: {why}", offset, where) from None
    if not proto.HasField("graph"):
        raise DecodeError(
            "not an ONNX model: it parses as protobuf, but holds no graph (ModelProto.graph)"
        )
    return proto


def from_onnx(
    model_or_path: onnx.ModelProto | str | os.PathLike[str],
    *,
    base_dir: str | os.PathLike[str] | None = None,
    signature: SignatureLookup | None = None,
    infer_types: bool = True,
    inline_functions: bool = True,
    expand: ExpandCheck | None = None,
) -> m.OrtModel:
    """An :class:`~wireplan.ort.model.OrtModel` for an ONNX model, ready for an .ort writer.

    ``model_or_path`` is an ``onnx.ModelProto`` or the path of an .onnx
    file, with inline or external data.  A path is read with
    :func:`read_onnx` (a :class:`~wireplan.DecodeError` for a file that is
    not an ONNX model); external data files
    (also for a ModelProto whose data was not loaded, with ``base_dir``)
    are memory-mapped and tensors view them, so weights never become
    Python bytes.  Inline ``raw_data`` is viewed in place; tensors stored in
    typed fields (``float_data``...) are converted to little-endian bytes.

    Constant nodes become initializers, as onnxruntime does.  Every node
    gets ``index``, ``since_version`` and ``input_arg_counts`` from the
    operator schema that ``signature(domain, op_type, opset)`` returns
    (default :func:`onnx_op_signature`; an operator it does not know gets
    ``since_version`` 0 and one count per input, for the caller to fill),
    ``implicit_inputs`` (outer-scope values its subgraphs use, always a
    list), node edges, and a ``node_args`` entry for every value with its
    declared or (``infer_types``) inferred type.

    Model-local functions are inlined (``inline_functions``); with
    ``inline_functions=False`` they raise :class:`~wireplan.EncodeError`.
    ``expand(domain, op_type, since_version, binding, attributes)`` is asked
    for every node (subgraphs included) of an operator that has a function
    body in onnx (``CastLike``, ``Softmax``, ``SequenceMap``, ...), with the
    types bound to its kernel type strings (``{"T": "tensor(float16)"}``)
    and a function that returns the node's attributes as .ort objects and
    its numbers of inputs and outputs; where
    it says True the node is replaced by the body (built for the node's
    types when context-dependent), repeatedly, as onnxruntime does when it
    loads an .onnx but not when it loads an .ort.
    ``kernel_type_str_resolver`` is left ``None`` for the writer to compute.
    Close the result (or use ``with``) to release mapped external data.
    """
    if isinstance(model_or_path, onnx.ModelProto):
        proto = model_or_path
        base = Path(base_dir) if base_dir is not None else None
    else:
        path = Path(model_or_path)
        proto = read_onnx(path)
        base = Path(base_dir) if base_dir is not None else path.parent
    if len(proto.functions):
        if not inline_functions:
            raise EncodeError(
                f"the model defines {len(proto.functions)} local function(s), which the .ort "
                "format cannot hold; inline them (inline_functions=True)",
                "$.functions",
            )
        try:
            proto = onnx.inliner.inline_local_functions(proto)
        except Exception as exc:
            raise EncodeError(
                f"inlining the model-local functions failed: {exc}", "$.functions"
            ) from None
        if len(proto.functions):
            raise EncodeError("model-local functions remain after inlining", "$.functions")
    lookup = _memoized(signature or onnx_op_signature)
    # Tens of thousands of small objects: the cyclic GC would rescan the growing model
    # again and again (most of the time for thousands of nodes); what is built is a tree.
    with gc_paused():
        inferred = None
        if expand is not None:
            proto, inferred = _expand_function_ops(proto, lookup, expand)
        opsets = _opsets(proto)
        sources = _Sources(base)
        conv = _FromOnnx(sources, lookup, opsets)
        if infer_types:
            conv.inferred = inferred if inferred is not None else inferred_types(proto)
        else:
            conv.inferred = {}
        try:
            graph = conv.graph(proto.graph, "$.graph", [])
        except BaseException:
            sources.close()
            raise
        md = m.Model(
            ir_version=int(proto.ir_version),
            opset_import=[m.OperatorSetId(o.domain, int(o.version)) for o in proto.opset_import],
            producer_name=proto.producer_name,
            producer_version=proto.producer_version,
            domain=proto.domain,
            model_version=int(proto.model_version),
            doc_string=proto.doc_string,
            graph=graph,
            graph_doc_string=proto.graph.doc_string,
            metadata_props=[m.StringStringEntry(p.key, p.value) for p in proto.metadata_props],
        )
        return m.OrtModel(ort_version="6", model=md, source=_OnnxSources(sources, proto))
