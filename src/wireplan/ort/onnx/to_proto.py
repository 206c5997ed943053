"""The .ort model -> ``onnx.ModelProto`` walker (:func:`to_onnx`).

What ONNX has room for and what it leaves out: :mod:`wireplan.ort.onnx`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import onnx
import onnx.helper
from google.protobuf.message import DecodeError as ProtobufDecodeError  # type: ignore[import-untyped]

from wireplan.errors import EncodeError
from wireplan.ort import model as m
from wireplan.ort.graph import nesting_problem, topological_order, walk_tensors
from wireplan.ort.reader import tensor_problems
from wireplan.ort.schema import ATTRIBUTE_TYPE, DIMENSION_VALUE_TYPE, TENSOR_DATA_TYPE

__all__ = [
    "to_onnx",
]

#: Attribute types an ONNX AttributeProto holds that the .ort converts (FLOAT .. GRAPHS).
_CONVERTIBLE_ATTRIBUTES = frozenset(range(ATTRIBUTE_TYPE["FLOAT"], ATTRIBUTE_TYPE["GRAPHS"] + 1))
#: protobuf's default recursion limit (``onnx.load`` parses with it): a ModelProto nests at
#: most this many messages, the main graph is the second and each subgraph level adds three.
_PROTOBUF_DEPTH = 100
_NESTING = (_PROTOBUF_DEPTH - 2) // 3
_STRING = TENSOR_DATA_TYPE["STRING"]
_DIM_VALUE = DIMENSION_VALUE_TYPE["VALUE"]
_DIM_PARAM = DIMENSION_VALUE_TYPE["PARAM"]
_DIM_UNKNOWN = DIMENSION_VALUE_TYPE["UNKNOWN"]

ExternalHook = Callable[[m.Tensor], "list[tuple[str, str]] | None"]


class _ToOnnx:
    def __init__(self, external: ExternalHook | None, *, streamed: bool = False) -> None:
        self.external = external
        # Streamed: the main graph's initializers are left out of the message and written
        # after it by _stream_onnx, straight from the .ort mapping.
        self.streamed = streamed

    def tensor(self, t: m.Tensor, path: str, *, data: bool = True) -> onnx.TensorProto:
        if t.external_data_offset >= 0 and t.nbytes == 0 and not t.string_data:
            raise EncodeError(
                "tensor data lives outside the .ort (external_data_offset, training "
                "checkpoints only); it cannot be converted",
                path,
            )
        p = onnx.TensorProto()
        p.name = t.name
        if t.doc_string:
            p.doc_string = t.doc_string
        p.dims.extend(int(d) for d in t.dims)
        p.data_type = t.data_type
        if t.data_type == _STRING:
            p.string_data.extend(s.encode("utf-8") for s in t.string_data)
            return p
        entries = self.external(t) if self.external is not None else None
        if entries is not None:
            p.data_location = onnx.TensorProto.EXTERNAL
            for key, value in entries:
                e = p.external_data.add()
                e.key = key
                e.value = value
        elif data:
            p.raw_data = t.raw_data.tobytes()
        return p

    def sparse(self, s: m.SparseTensor, path: str) -> onnx.SparseTensorProto:
        p = onnx.SparseTensorProto()
        if s.values is not None:
            p.values.CopyFrom(self.tensor(s.values, path + ".values"))
        if s.indices is not None:
            indices = s.indices
            if indices.data_type != TENSOR_DATA_TYPE["INT64"]:
                # onnxruntime stores sparse indices in the narrowest integer type that holds
                # them; ONNX requires int64.  Same values, wider type.
                wide = indices.numpy().astype("<i8")
                indices = m.Tensor(
                    name=indices.name,
                    doc_string=indices.doc_string,
                    dims=indices.dims,
                    data_type=TENSOR_DATA_TYPE["INT64"],
                    raw_data=wide.reshape(-1).view(np.uint8),
                )
            p.indices.CopyFrom(self.tensor(indices, path + ".indices"))
        p.dims.extend(int(d) for d in s.dims)
        return p

    def type_info(self, ti: m.TypeInfo, into: onnx.TypeProto, path: str) -> None:
        if ti.denotation:
            into.denotation = ti.denotation
        v = ti.value
        if isinstance(v, m.TensorTypeAndShape):
            tt = into.tensor_type
            tt.elem_type = v.elem_type
            if v.shape is not None:
                shape = tt.shape
                shape.SetInParent()
                for d in v.shape.dim:
                    dim = shape.dim.add()
                    if d.denotation:
                        dim.denotation = d.denotation
                    dv = d.value
                    if dv is None:
                        continue
                    if dv.dim_type == DIMENSION_VALUE_TYPE["VALUE"]:
                        dim.dim_value = dv.dim_value
                    elif dv.dim_type == DIMENSION_VALUE_TYPE["PARAM"]:
                        dim.dim_param = dv.dim_param
        elif isinstance(v, m.SequenceType):
            seq = into.sequence_type
            seq.SetInParent()
            if v.elem_type is not None:
                self.type_info(v.elem_type, seq.elem_type, path + ".elem_type")
        elif isinstance(v, m.MapType):
            mp = into.map_type
            mp.key_type = v.key_type
            if v.value_type is not None:
                self.type_info(v.value_type, mp.value_type, path + ".value_type")

    def value_info(self, name: str, vi: m.ValueInfo | None, path: str) -> onnx.ValueInfoProto:
        p = onnx.ValueInfoProto()
        p.name = name
        if vi is not None:
            if vi.doc_string:
                p.doc_string = vi.doc_string
            if vi.type is not None:
                self.type_info(vi.type, p.type, path)
        return p

    def attribute(self, a: m.Attribute, path: str, owner: str) -> onnx.AttributeProto:
        p = onnx.AttributeProto()
        p.name = a.name
        if a.doc_string:
            p.doc_string = a.doc_string
        if a.type not in _CONVERTIBLE_ATTRIBUTES:
            raise EncodeError(
                f"attribute {a.name!r} has type {a.type}, which cannot be converted (ONNX "
                f"attribute types this converter writes: {sorted(_CONVERTIBLE_ATTRIBUTES)})",
                path + ".type",
            )
        p.type = a.type  # type: ignore[assignment]
        at = ATTRIBUTE_TYPE
        if a.type == at["FLOAT"]:
            p.f = a.f
        elif a.type == at["INT"]:
            p.i = a.i
        elif a.type == at["STRING"]:
            p.s = a.s.encode("utf-8")
        elif a.type == at["TENSOR"]:
            if a.t is None:
                raise EncodeError("TENSOR attribute without a tensor", path)
            p.t.CopyFrom(self.tensor(a.t, path + ".t"))
        elif a.type == at["GRAPH"]:
            if a.g is None:
                raise EncodeError("GRAPH attribute without a graph", path)
            p.g.CopyFrom(self.graph(a.g, f"{owner}_{a.name}", "", path + ".g"))
        elif a.type == at["FLOATS"]:
            p.floats.extend(a.floats.tolist())
        elif a.type == at["INTS"]:
            p.ints.extend(a.ints.tolist())
        elif a.type == at["STRINGS"]:
            p.strings.extend(s.encode("utf-8") for s in a.strings)
        elif a.type == at["TENSORS"]:
            p.tensors.extend(
                self.tensor(t, f"{path}.tensors[{i}]") for i, t in enumerate(a.tensors)
            )
        elif a.type == at["GRAPHS"]:
            p.graphs.extend(
                self.graph(g, f"{owner}_{a.name}_{i}", "", f"{path}.graphs[{i}]")
                for i, g in enumerate(a.graphs)
            )
        else:
            raise EncodeError(f"attribute type {a.type} cannot be converted", path)
        return p

    def node(self, n: m.Node, path: str) -> onnx.NodeProto:
        p = onnx.NodeProto()
        p.op_type = n.op_type
        if n.name:
            p.name = n.name
        if n.domain:
            p.domain = n.domain
        if n.doc_string:
            p.doc_string = n.doc_string
        p.input.extend(n.inputs)
        p.output.extend(n.outputs)
        owner = n.name or n.op_type
        p.attribute.extend(
            self.attribute(a, f"{path}.attributes[{i}]", owner) for i, a in enumerate(n.attributes)
        )
        return p

    def graph(self, g: m.Graph, name: str, doc: str, path: str) -> onnx.GraphProto:
        p = onnx.GraphProto()
        p.name = name
        if doc:
            p.doc_string = doc
        infos = {vi.name: vi for vi in g.node_args}
        if not (self.streamed and path == "$.model.graph"):
            p.initializer.extend(
                self.tensor(t, f"{path}.initializers[{i}]") for i, t in enumerate(g.initializers)
            )
        p.sparse_initializer.extend(
            self.sparse(s, f"{path}.sparse_initializers[{i}]")
            for i, s in enumerate(g.sparse_initializers)
        )
        order = topological_order(g.nodes) or list(range(len(g.nodes)))
        p.node.extend(self.node(g.nodes[i], f"{path}.nodes[{i}]") for i in order)
        p.input.extend(self.value_info(x, infos.get(x), f"{path}.inputs") for x in g.inputs)
        p.output.extend(self.value_info(x, infos.get(x), f"{path}.outputs") for x in g.outputs)
        boundary = set(g.inputs) | set(g.outputs)
        produced = {o for n in g.nodes for o in n.outputs if o}
        for vi in g.node_args:
            # Types of intermediate values only: inputs and outputs carry their own, initializers
            # theirs, and outer-scope values belong to the enclosing graph.
            if vi.name in boundary or vi.name not in produced or vi.type is None:
                continue
            p.value_info.append(self.value_info(vi.name, vi, f"{path}.node_args"))
        return p

    def model(self, om: m.OrtModel) -> onnx.ModelProto:
        md = om.model
        where = None if md is None or md.graph is None else nesting_problem(md.graph, _NESTING)
        if where is not None:
            raise EncodeError(
                f"subgraphs nest more than {_NESTING} levels deep: past protobuf's limit of "
                f"{_PROTOBUF_DEPTH} nested messages (onnx.load refuses such a model)",
                where,
            )
        _refuse_bad_tensors(om)
        try:
            proto = self._model(om)
        except (ProtobufDecodeError, RecursionError) as exc:
            # Copying a subgraph reparses it: types nested inside may still pass the limit.
            raise EncodeError(
                f"the ONNX model nests past protobuf's limit of {_PROTOBUF_DEPTH} nested "
                f"messages (onnx.load refuses such a model): {exc}"
            ) from None
        if proto.ir_version < 4:
            # Before IR 4 every initializer must also be a graph input; onnxruntime's optimizers
            # add initializers (folded constants) without listing them.
            listed = {x.name for x in proto.graph.input}
            for t in om.graph.initializers:
                if t.name not in listed:
                    proto.graph.input.append(
                        onnx.helper.make_tensor_value_info(t.name, t.data_type, t.shape)
                    )
        return proto

    def _model(self, om: m.OrtModel) -> onnx.ModelProto:
        md = om.model
        if md is None or md.graph is None:
            raise EncodeError("the .ort holds no model graph", "$.model")
        p = onnx.ModelProto()
        p.ir_version = md.ir_version
        for o in md.opset_import:
            op = p.opset_import.add()
            op.domain = o.domain
            op.version = o.version
        if md.producer_name:
            p.producer_name = md.producer_name
        if md.producer_version:
            p.producer_version = md.producer_version
        if md.domain:
            p.domain = md.domain
        if md.model_version:
            p.model_version = md.model_version
        if md.doc_string:
            p.doc_string = md.doc_string
        for e in md.metadata_props:
            prop = p.metadata_props.add()
            prop.key = e.key
            prop.value = e.value
        p.graph.CopyFrom(self.graph(md.graph, "main_graph", md.graph_doc_string, "$.model.graph"))
        return p


def _refuse_bad_tensors(om: m.OrtModel) -> None:
    """A tensor whose payload disagrees with its shape makes an .onnx onnxruntime refuses.

    Read from a file: the reader's :class:`~wireplan.DecodeError` at the byte
    holding the bad field; built in memory: an :class:`~wireplan.EncodeError`.
    """
    for exc in tensor_problems(om):
        if om.source is None:
            raise EncodeError(exc.reason, exc.path)
        raise exc


def to_onnx(model: m.OrtModel, *, companion: str | None = None) -> onnx.ModelProto:
    """An ``onnx.ModelProto`` with everything of ``model`` that ONNX can hold (module docstring).

    Nodes keep their stored order unless it is not topological (then a
    stable topological sort, see :func:`_topological`).  Payloads are
    copied into the protobuf message (protobuf owns its bytes); use :func:`convert_ort_to_onnx` with ``external_data=True`` for
    big models.  ``companion``: tensors the .ort keeps in its external data
    file become ONNX external data at the same offsets of the file
    ``companion`` (a location relative to the .onnx), not copies.
    A tensor whose payload disagrees with its shape (dims ``[16, 9]`` over
    512 bytes of float32, dims no array can have) is refused, as onnxruntime
    would refuse the .onnx: a :class:`~wireplan.DecodeError` at the byte of
    the .ort that holds the field for a loaded model
    (:func:`wireplan.ort.reader.tensor_problems`), an
    :class:`~wireplan.EncodeError` for one built in memory.
    """
    if companion is None:
        return _ToOnnx(None).model(model)
    entries = _companion_entries(model, companion)
    return _ToOnnx(lambda t: entries.get(id(t))).model(model)


def _companion_entries(model: m.OrtModel, location: str) -> dict[int, list[tuple[str, str]]]:
    """ONNX external-data entries for the tensors stored in the .ort's companion file."""
    return {
        id(t): [
            ("location", location),
            ("offset", str(t.external_data_offset)),
            ("length", str(t.nbytes)),
        ]
        for _, t in walk_tensors(model.graph)
        if t.external_data_offset >= 0 and t.data_type != _STRING and t.nbytes
    }
