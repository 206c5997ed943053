"""What ``wireplan inspect`` says of an .onnx file (:func:`onnx_facts`)."""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from typing import Any

import onnx

from wireplan.ort import model as m
from wireplan.ort.onnx.read import read_onnx
from wireplan.ort.protowire import raw_data_spans
from wireplan.ort.schema import TENSOR_DATA_TYPE
from wireplan.ort.signatures import ONNX_DOMAINS

__all__ = [
    "onnx_facts",
]

_STRING = TENSOR_DATA_TYPE["STRING"]


def _onnx_graphs(g: onnx.GraphProto) -> Iterator[onnx.GraphProto]:
    """``g`` and every graph its nodes' attributes hold, depth first."""
    yield g
    for nd in g.node:
        for a in nd.attribute:
            if a.HasField("g"):
                yield from _onnx_graphs(a.g)
            for sub in a.graphs:
                yield from _onnx_graphs(sub)


def _tensor_bytes(t: onnx.TensorProto) -> int:
    """Bytes of a numeric tensor's data held in the file (``raw_data`` or the typed fields)."""
    if t.data_location == onnx.TensorProto.EXTERNAL or t.data_type == _STRING:
        return 0
    if t.raw_data:
        return len(t.raw_data)
    size = m.ELEMENT_BYTES.get(t.data_type)
    return 0 if size is None else math.prod(int(d) for d in t.dims) * size


def onnx_facts(path: str | os.PathLike[str]) -> dict[str, Any]:
    """What ``wireplan inspect`` says of an .onnx file, as JSON-ready data (docs/cli.md).

    ``ir_version``, ``producer``, ``opsets`` (``{domain: version}``, ONNX as
    ``"ai.onnx"``), ``nodes`` (main graph), ``subgraph_nodes``, ``subgraphs``,
    ``nodes_by_op``, ``inputs`` (graph inputs that are not initializers),
    ``outputs``, ``initializers`` and ``sparse_initializers`` (every graph),
    ``functions``, ``payload_bytes`` and ``payload_tensors`` (numeric tensor
    data inside the file), ``payload_offsets`` (``(name, offset, nbytes)``
    of each ``raw_data`` in the file, in file order) and ``external_data``
    (``{"file", "files", "tensors", "bytes"}`` or None).  Raises what
    :func:`read_onnx` raises.
    """
    proto = read_onnx(path)
    with open(os.fspath(path), "rb") as f:
        data = f.read()
    graphs = list(_onnx_graphs(proto.graph))
    nodes = [nd for g in graphs for nd in g.node]
    by_op: dict[str, int] = {}
    for nd in nodes:
        op = (f"{nd.domain}:" if nd.domain not in ONNX_DOMAINS else "") + nd.op_type
        by_op[op] = by_op.get(op, 0) + 1
    tensors = [t for g in graphs for t in g.initializer]
    tensors += [sp.values for g in graphs for sp in g.sparse_initializer]
    tensors += [
        t
        for nd in nodes
        for a in nd.attribute
        for t in [*([a.t] if a.HasField("t") else []), *a.tensors]
    ]
    tensors += [sp.indices for g in graphs for sp in g.sparse_initializer]
    inline = [t for t in tensors if _tensor_bytes(t)]
    external = [t for t in tensors if t.data_location == onnx.TensorProto.EXTERNAL]
    ext: dict[str, Any] | None = None
    if external:
        files: list[str] = []
        total = 0
        for t in external:
            info = {e.key: e.value for e in t.external_data}
            if info.get("location", "") not in files:
                files.append(info.get("location", ""))
            length = info.get("length", "")
            size = m.ELEMENT_BYTES.get(t.data_type, 0)
            total += int(length) if length.isdigit() else math.prod(t.dims) * size
        ext = {"file": files[0], "files": files, "tensors": len(external), "bytes": total}
    inits = {t.name for t in proto.graph.initializer}
    return {
        "ir_version": int(proto.ir_version),
        "producer": " ".join(x for x in (proto.producer_name, proto.producer_version) if x),
        "opsets": {(o.domain or "ai.onnx"): int(o.version) for o in proto.opset_import},
        "nodes": len(proto.graph.node),
        "subgraph_nodes": len(nodes) - len(proto.graph.node),
        "subgraphs": len(graphs) - 1,
        "nodes_by_op": dict(sorted(by_op.items(), key=lambda kv: (-kv[1], kv[0]))),
        "inputs": [x.name for x in proto.graph.input if x.name not in inits],
        "outputs": [x.name for x in proto.graph.output],
        "initializers": sum(len(g.initializer) for g in graphs),
        "sparse_initializers": sum(len(g.sparse_initializer) for g in graphs),
        "functions": len(proto.functions),
        "payload_bytes": sum(_tensor_bytes(t) for t in inline),
        "payload_tensors": len(inline),
        "payload_offsets": list(raw_data_spans(data)),
        "external_data": ext,
    }
