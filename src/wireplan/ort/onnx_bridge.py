"""The one module that imports ``onnx``: .ort <-> ONNX conversion and operator schemas.

:func:`to_onnx` turns an :class:`~wireplan.ort.model.OrtModel` into an
``onnx.ModelProto`` carrying everything the .ort holds that ONNX can say:
node order, node names, domains, attributes (subgraphs included),
initializers (numeric, string, sparse), value infos with types and shapes
(``dim_value``, ``dim_param``, denotations), opset imports, metadata props
and doc strings.  What ONNX has no place for is left out: the node
``index``, ``execution_provider_type``, ``since_version`` (implied by the
opset imports), ``implicit_inputs``, ``input_arg_counts`` and the node
edges (implied by the names), the kernel type string resolver and runtime
optimization records.  An .ort graph has no name, so graphs are named
``main_graph`` and ``<node>_<attribute>`` for subgraphs.

:func:`from_onnx` goes the other way and fills in what an .ort needs and
ONNX leaves implicit: Constant nodes become initializers (as onnxruntime
does), node indices, ``since_version``, ``input_arg_counts``,
``implicit_inputs`` (always present), node edges and a ``node_args`` entry
with the (inferred) type of every value.  Weights are not copied: inline
``raw_data`` is viewed in place, external data files are memory-mapped.

:func:`convert_ort_to_onnx` writes the .onnx atomically, optionally with the
payloads in one external data file at aligned offsets (for models past
protobuf's 2 GiB limit).
"""

from __future__ import annotations

import contextlib
import itertools
import math
import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from wireplan.core.extras import door

with door("wireplan.ort's .onnx support", "onnx", "onnx"):
    import onnx
    import onnx.defs
    import onnx.helper
    import onnx.inliner
    import onnx.numpy_helper
    import onnx.shape_inference
from google.protobuf.message import DecodeError as ProtobufDecodeError  # type: ignore[import-untyped]

from wireplan.core.atomic import SizedFile, atomic_open, write_bytes, write_group
from wireplan.core.buffers import MappedFile
from wireplan.core.executor import CHUNK_BYTES, execute_file
from wireplan.core.gcpause import gc_paused
from wireplan.core.plan import Plan, check_alignment
from wireplan.errors import DecodeError, EncodeError
from wireplan.ort import model as m
from wireplan.ort.graph import nesting_problem, node_edges, topological_order, walk_tensors
from wireplan.ort.protowire import framing_problem, raw_data_spans, varint
from wireplan.ort.schema import ATTRIBUTE_TYPE, DIMENSION_VALUE_TYPE, TENSOR_DATA_TYPE

if TYPE_CHECKING:  # annotations only: kernel_types imports this module when it asks onnx
    from wireplan.ort.kernel_types import Signature, SignatureLookup

__all__ = [
    "convert_ort_to_onnx",
    "example_model",
    "from_onnx",
    "onnx_facts",
    "onnx_op_signature",
    "read_onnx",
    "to_onnx",
]

_ONNX_DOMAINS = ("", "ai.onnx")
#: Attribute types an ONNX AttributeProto holds that the .ort converts (FLOAT .. GRAPHS).
_CONVERTIBLE_ATTRIBUTES = frozenset(range(ATTRIBUTE_TYPE["FLOAT"], ATTRIBUTE_TYPE["GRAPHS"] + 1))
#: protobuf's default recursion limit (``onnx.load`` parses with it): a ModelProto nests at
#: most this many messages, the main graph is the second and each subgraph level adds three.
_PROTOBUF_DEPTH = 100
_NESTING = (_PROTOBUF_DEPTH - 2) // 3
_PROTOBUF_LIMIT = 2**31 - 1
_STRING = TENSOR_DATA_TYPE["STRING"]
_DIM_VALUE = DIMENSION_VALUE_TYPE["VALUE"]
_DIM_PARAM = DIMENSION_VALUE_TYPE["PARAM"]
_DIM_UNKNOWN = DIMENSION_VALUE_TYPE["UNKNOWN"]
_I8 = np.dtype("<i8")
_I4 = np.dtype("<i4")


# ---------------------------------------------------------------------------------------------
# operator schemas


def onnx_op_signature(domain: str, op_type: str, opset_version: int) -> Signature | None:
    """The ONNX schema of ``op_type`` in force at ``opset_version`` of ``domain``.

    Returns ``(since_version, inputs, outputs, type_params)``: inputs and
    outputs as ``(formal name, type_str)`` pairs in formal order, and the
    names of the schema's type-constraint parameters.  ``None`` when onnx
    knows no such operator at that version (custom or contrib domains), or
    when ``opset_version`` is outside int32 (onnx keeps versions in an int).
    """
    if not 0 <= opset_version <= _PROTOBUF_LIMIT:
        return None
    dom = "" if domain in _ONNX_DOMAINS else domain
    try:
        schema = onnx.defs.get_schema(op_type, opset_version, dom)
    except onnx.defs.SchemaError:
        return None
    return (
        int(schema.since_version),
        [(p.name, p.type_str) for p in schema.inputs],
        [(p.name, p.type_str) for p in schema.outputs],
        [c.type_param_str for c in schema.type_constraints],
    )


# ---------------------------------------------------------------------------------------------
# .ort -> ONNX

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
    from wireplan.ort.reader import tensor_problems

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


def _companion_file(model: m.OrtModel) -> str | None:
    """The path of the mapped companion file of a loaded .ort with external tensors."""
    mf = getattr(model.source, "companion", None)
    return mf.path if isinstance(mf, MappedFile) else None


def _external_plan(
    model: m.OrtModel, location: str, alignment: int, threshold: int
) -> tuple[Plan, dict[int, list[tuple[str, str]]]]:
    plan = Plan()
    entries: dict[int, list[tuple[str, str]]] = {}
    for t in model.tensors():
        n = t.nbytes
        if t.data_type == _STRING or n < threshold or id(t) in entries:
            continue
        r = plan.add(n, alignment=alignment, source=t.raw_data, name=t.name)
        entries[id(t)] = [("location", location), ("offset", str(r.offset)), ("length", str(n))]
    return plan, entries


def _write_sequential(
    plan: Plan, path: Path, progress: Callable[[int, int], None] | None, durable: bool = True
) -> None:
    """Write the plan's regions in order with plain writes (zeros between them), atomically.

    For a file in the page cache this beats filling a fresh shared mapping
    (no page faults on the destination); the threaded path uses the executor.
    ``progress(done, plan.size)`` after every write of up to ``CHUNK_BYTES``.
    """
    pad = bytes(65536)
    with atomic_open(path, durable=durable) as f:
        pos = 0
        for r in plan:
            while pos < r.offset:
                n = min(len(pad), r.offset - pos)
                f.write(pad[:n])
                pos += n
            if progress is None:
                f.write(r.source.data)
                pos += r.length
                continue
            for part in _parts(r.source):
                f.write(part)
                pos += len(part)
                progress(pos, plan.size)
        if pos < plan.size:
            f.write(bytes(plan.size - pos))


def _parts(source: Any) -> Iterator[memoryview]:
    """The bytes of a payload in slices of ``CHUNK_BYTES``, for progress as they are written."""
    data = memoryview(source).cast("B")
    for i in range(0, len(data), CHUNK_BYTES):
        yield data[i : i + CHUNK_BYTES]


def _no_fill(_: Any) -> None:
    """Nothing to write: the file is linked, not filled."""


def _check_size(size: int) -> None:
    if size > _PROTOBUF_LIMIT:
        raise EncodeError(
            f"the model needs {size} bytes, past protobuf's 2 GiB limit: "
            "convert with external_data=True (--external-data)"
        )


# Protobuf keys (field number << 3 | wire type 2) of the fields the streamed pieces use.
_MODEL_GRAPH = varint(7 << 3 | 2)
_GRAPH_INITIALIZER = varint(5 << 3 | 2)
_TENSOR_RAW_DATA = varint(9 << 3 | 2)


def _stream_pieces(
    om: m.OrtModel, conv: _ToOnnx
) -> tuple[bytes, list[tuple[bytes, np.ndarray[Any, Any] | None]]]:
    """The model without its main-graph initializers, and one piece per initializer.

    A piece is a serialized ``ModelProto`` holding only ``graph.initializer[0]``: protobuf
    merges a repeated singular message field and appends repeated fields, so the
    concatenation parses as the whole model, initializers in order.  Each piece is its
    header bytes followed by the raw payload, which is written from the .ort mapping.
    """
    skeleton = conv.model(om).SerializeToString()
    pieces: list[tuple[bytes, np.ndarray[Any, Any] | None]] = []
    for i, t in enumerate(om.graph.initializers):
        path = f"$.model.graph.initializers[{i}]"
        numeric = t.data_type != _STRING
        head = conv.tensor(t, path, data=not numeric).SerializeToString()
        if numeric:
            n = t.nbytes
            head += _TENSOR_RAW_DATA + varint(n)
            tensor_len = len(head) + n
        else:
            tensor_len = len(head)
        graph_piece = _GRAPH_INITIALIZER + varint(tensor_len)
        graph_len = len(graph_piece) + tensor_len
        prefix = _MODEL_GRAPH + varint(graph_len) + graph_piece + head
        pieces.append((prefix, t.raw_data if numeric else None))
    return skeleton, pieces


def convert_ort_to_onnx(
    src: str | os.PathLike[str] | m.OrtModel,
    dst: str | os.PathLike[str],
    *,
    external_data: bool = False,
    alignment: int = 4096,
    size_threshold: int = 1024,
    threads: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    durable: bool = True,
) -> None:
    """Convert an .ort file (or a loaded model) to an .onnx file at ``dst``, atomically.

    An .ort with external data (its companion file) and
    ``external_data=True``: ``<dst name>.data`` becomes a hard link to the
    companion (a copy across file systems), and the .onnx's external-data
    entries point at the same offsets; tensors inline in the .ort stay
    inline.  No weight is rewritten.

    Otherwise, with ``external_data=True`` every payload of ``size_threshold`` bytes
    or more goes to ``<dst name>.data`` beside ``dst``, each at an offset
    that is a multiple of ``alignment``; the payloads go from the .ort
    mapping straight into that file and never become Python bytes (plain
    sequential writes; with ``threads > 1`` the executor fills a mapping of
    the file in parallel, byte-identical).
    Without it the whole model must fit protobuf's 2 GiB limit; the
    message is then streamed: the model without its main-graph initializers
    first, then each initializer as its own ``ModelProto`` piece (protobuf
    merges them into one model on parsing) whose payload is written straight
    from the mapping, so no payload is copied into a Python object.
    ``progress(done_bytes, total_bytes)`` is called on this thread as the
    payloads are written, about every ``CHUNK_BYTES`` (8 MiB); a linked
    companion moves no bytes (``total`` is then the .onnx's size).
    Both files are written atomically (temporary file, fsync, rename);
    ``durable=False`` skips the fsyncs (atomic against a failed process, not
    against power loss: :mod:`wireplan.core.atomic`).
    """
    check_alignment(alignment)
    from wireplan.ort.reader import load

    own = not isinstance(src, m.OrtModel)
    om = load(src) if not isinstance(src, m.OrtModel) else src
    try:
        dst_path = Path(dst)
        reused = _companion_file(om) if external_data else None
        if reused is not None:
            location = dst_path.name + ".data"
            proto = to_onnx(om, companion=location)
            _check_size(proto.ByteSize())
            data = proto.SerializeToString()
            total = len(data)  # the weights stay where they are: a link, no bytes move
            if progress is not None:
                progress(0, total)
            data_path = dst_path.with_name(location)
            files = [SizedFile(data_path, 0, _no_fill, mapped=False, link_from=reused)]
            if data_path.exists() and os.path.samefile(reused, data_path):
                files = []

            def fill(buf: Any) -> None:
                buf[: len(data)] = data

            write_group([*files, SizedFile(dst_path, len(data), fill)], durable=durable)
        elif external_data:
            location = dst_path.name + ".data"
            plan, entries = _external_plan(om, location, alignment, size_threshold)
            total = plan.size
            if progress is not None:
                progress(0, total)
            proto = _ToOnnx(lambda t: entries.get(id(t))).model(om)
            _check_size(proto.ByteSize())
            data_path = dst_path.with_name(location)
            if threads is not None and threads > 1:
                done = 0

                def advance(n: int) -> None:
                    nonlocal done
                    done += n
                    assert progress is not None
                    progress(done, total)

                def fill_data(fd: int) -> None:
                    execute_file(
                        plan, fd, threads=threads, progress=None if progress is None else advance
                    )

                write_group(
                    [SizedFile(data_path, plan.size, fill_data, mapped=False)], durable=durable
                )
            else:
                _write_sequential(plan, data_path, progress, durable)
            write_bytes(dst_path, proto.SerializeToString(), durable=durable)
        else:
            skeleton, pieces = _stream_pieces(om, _ToOnnx(None, streamed=True))
            total = sum(0 if d is None else d.shape[0] for _, d in pieces)
            _check_size(len(skeleton) + sum(len(h) for h, _ in pieces) + total)
            if progress is not None:
                progress(0, total)
            done = 0
            with atomic_open(dst_path, durable=durable) as f:
                f.write(skeleton)
                for head, payload in pieces:
                    f.write(head)
                    if payload is None:
                        continue
                    if progress is None:
                        f.write(payload.data)
                        continue
                    for part in _parts(payload):
                        f.write(part)
                        done += len(part)
                        progress(done, total)
        if progress is not None:
            progress(total, total)
    finally:
        if own:
            om.close()


# ---------------------------------------------------------------------------------------------
# ONNX -> .ort model


class _Sources:
    """The external data files of one model, mapped once each; closed with the OrtModel."""

    def __init__(self, base: Path | None) -> None:
        self.base = base
        self.files: dict[str, MappedFile] = {}

    def view(self, location: str, offset: int, length: int | None, path: str, name: str) -> Any:
        if self.base is None:
            raise EncodeError(
                "tensor data is external but the model's folder is unknown (pass a path or base_dir)",
                path,
            )
        mf = self.files.get(location)
        if mf is None:
            if "\0" in location or not location:
                raise EncodeError(
                    f"external tensor {name!r}: location {location!r} is not a file name", path
                )
            target = (self.base / location).resolve()
            if not target.is_relative_to(self.base.resolve()):
                raise EncodeError(
                    f"external data location {location!r} lies outside the model's folder", path
                )
            try:
                mf = self.files[location] = MappedFile(target)
            except OSError as exc:
                raise EncodeError(f"cannot open external data {location!r}: {exc}", path) from None
        n = mf.size - offset if length is None else length
        if offset < 0 or n < 0 or offset + n > mf.size:
            raise EncodeError(
                f"external tensor {name!r}: data [{offset}, {offset + n}) lies outside "
                f"{location!r} ({mf.size} bytes)",
                path,
            )
        return np.frombuffer(mf.buffer[offset : offset + n], dtype=np.uint8)

    def close(self) -> None:
        files, self.files = self.files, {}
        for mf in files.values():
            with contextlib.suppress(BufferError):
                mf.close()


_FOUR_BIT = {
    getattr(onnx.TensorProto, name)
    for name in ("INT4", "UINT4", "FLOAT4E2M1")
    if hasattr(onnx.TensorProto, name)
}

# Bits per element of the fixed-size ONNX types (others are not checked).
_ELEMENT_BITS: dict[int, int] = {
    getattr(onnx.TensorProto, name): bits
    for name, bits in (
        ("FLOAT", 32),
        ("UINT8", 8),
        ("INT8", 8),
        ("UINT16", 16),
        ("INT16", 16),
        ("INT32", 32),
        ("INT64", 64),
        ("BOOL", 8),
        ("FLOAT16", 16),
        ("DOUBLE", 64),
        ("UINT32", 32),
        ("UINT64", 64),
        ("COMPLEX64", 64),
        ("COMPLEX128", 128),
        ("BFLOAT16", 16),
        ("FLOAT8E4M3FN", 8),
        ("FLOAT8E4M3FNUZ", 8),
        ("FLOAT8E5M2", 8),
        ("FLOAT8E5M2FNUZ", 8),
        ("INT4", 4),
        ("UINT4", 4),
        ("FLOAT4E2M1", 4),
    )
    if hasattr(onnx.TensorProto, name)
}


def _payload_size(p: onnx.TensorProto) -> int | None:
    """The bytes a tensor's data takes (4-bit types packed two a byte); None when unknown."""
    bits = _ELEMENT_BITS.get(p.data_type)
    if bits is None or any(d < 0 for d in p.dims):
        return None
    count: int = math.prod(p.dims)
    return (count * bits + 7) // 8


def _entry_int(info: dict[str, str], key: str, name: str, path: str) -> int | None:
    """A non-negative decimal external-data entry (``offset``, ``length``), None when absent."""
    value = info.get(key)
    if value is None:
        return None
    if not (value.isascii() and value.isdigit()) or len(value) > 20:
        raise EncodeError(
            f"external tensor {name!r}: {key} {value[:40]!r} is not a non-negative decimal "
            "number of at most 20 digits",
            path,
        )
    return int(value)


def _readonly_u8(a: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    out = np.ascontiguousarray(a).reshape(-1).view(np.uint8)
    out.flags.writeable = False
    return out


def _little_endian(arr: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    if arr.dtype.byteorder == ">" or (arr.dtype.byteorder == "=" and np.little_endian is False):
        arr = arr.astype(arr.dtype.newbyteorder("<"))
    return arr


class _FromOnnx:
    def __init__(self, sources: _Sources, lookup: SignatureLookup, opsets: dict[str, int]) -> None:
        self.sources = sources
        self.lookup = lookup
        self.opsets = opsets
        self.inferred: dict[str, onnx.TypeProto | onnx.TensorProto] = {}

    # -- tensors --------------------------------------------------------------------------------

    def tensor(self, p: onnx.TensorProto, path: str) -> m.Tensor:
        t = m.Tensor(
            name=p.name,
            doc_string=p.doc_string,
            dims=np.array(list(p.dims), dtype=_I8),
            data_type=p.data_type,
        )
        if p.data_type == _STRING:
            try:
                t.string_data = [s.decode("utf-8") for s in p.string_data]
            except UnicodeDecodeError:
                raise EncodeError(
                    "string tensor holds bytes that are not UTF-8 (.ort strings are UTF-8)", path
                ) from None
            return t
        if p.data_location == onnx.TensorProto.EXTERNAL:
            info = {e.key: e.value for e in p.external_data}
            if "location" not in info:
                raise EncodeError(f"external tensor {p.name!r} without a location", path)
            need = _payload_size(p)
            length = _entry_int(info, "length", p.name, path)
            if need is not None and length is not None and length != need:
                raise EncodeError(
                    f"external tensor {p.name!r} has length {length}, but its "
                    f"{onnx.TensorProto.DataType.Name(p.data_type)} {list(p.dims)} takes {need} bytes",
                    path,
                )
            offset = _entry_int(info, "offset", p.name, path) or 0
            t.raw_data = self.sources.view(
                info["location"], offset, need if length is None else length, path, p.name
            )
            t.raw_data.flags.writeable = False
            return t
        if p.HasField("raw_data"):
            t.raw_data = np.frombuffer(p.raw_data, dtype=np.uint8)
            return t
        arr = onnx.numpy_helper.to_array(p)
        if p.data_type in _FOUR_BIT:
            flat = arr.reshape(-1).view(np.uint8) & 0x0F
            if flat.shape[0] % 2:
                flat = np.concatenate([flat, np.zeros(1, np.uint8)])
            t.raw_data = _readonly_u8(flat[0::2] | (flat[1::2] << 4))
            return t
        t.raw_data = _readonly_u8(_little_endian(arr))
        return t

    def sparse(self, p: onnx.SparseTensorProto, path: str) -> m.SparseTensor:
        return m.SparseTensor(
            values=self.tensor(p.values, path + ".values"),
            indices=self.tensor(p.indices, path + ".indices"),
            dims=np.array(list(p.dims), dtype=_I8),
        )

    # -- types ----------------------------------------------------------------------------------

    def type_info(self, p: onnx.TypeProto) -> m.TypeInfo:
        which = p.WhichOneof("value")
        value: m.TensorTypeAndShape | m.SequenceType | m.MapType | None = None
        if which == "tensor_type":
            tt = p.tensor_type
            shape = None
            if tt.HasField("shape"):
                dims = []
                dimension, dimension_value = m.Dimension, m.DimensionValue
                for d in tt.shape.dim:
                    kind = d.WhichOneof("value")
                    if kind == "dim_value":
                        dv = dimension_value(_DIM_VALUE, d.dim_value, "")
                    elif kind == "dim_param":
                        dv = dimension_value(_DIM_PARAM, 0, d.dim_param)
                    else:
                        dv = dimension_value(_DIM_UNKNOWN, 0, "")
                    dims.append(dimension(dv, d.denotation))
                shape = m.Shape(dims)
            value = m.TensorTypeAndShape(tt.elem_type, shape)
        elif which == "sequence_type":
            st = p.sequence_type
            value = m.SequenceType(
                self.type_info(st.elem_type) if st.HasField("elem_type") else None
            )
        elif which == "map_type":
            mt = p.map_type
            value = m.MapType(
                mt.key_type, self.type_info(mt.value_type) if mt.HasField("value_type") else None
            )
        # optional_type, sparse_tensor_type and opaque_type have no place in ort.fbs.
        return m.TypeInfo(p.denotation, value)

    @staticmethod
    def tensor_type_of(t: m.Tensor) -> m.TypeInfo:
        dimension, dimension_value = m.Dimension, m.DimensionValue
        dims = [dimension(dimension_value(_DIM_VALUE, d, ""), "") for d in t.dims.tolist()]
        return m.TypeInfo("", m.TensorTypeAndShape(t.data_type, m.Shape(dims)))

    # -- attributes and nodes -------------------------------------------------------------------

    def attribute(self, p: onnx.AttributeProto, path: str, free: list[str]) -> m.Attribute:
        """Convert an attribute; names its subgraphs take from outside are appended to ``free``."""
        if p.ref_attr_name:
            raise EncodeError("attribute references a function attribute (ref_attr_name)", path)
        a = m.Attribute(name=p.name, doc_string=p.doc_string, type=int(p.type))
        at = ATTRIBUTE_TYPE
        if p.type == at["FLOAT"]:
            a.f = float(p.f)
        elif p.type == at["INT"]:
            a.i = int(p.i)
        elif p.type == at["STRING"]:
            try:
                a.s = p.s.decode("utf-8")
            except UnicodeDecodeError:
                raise EncodeError(
                    "string attribute is not UTF-8 (.ort strings are UTF-8)", path
                ) from None
        elif p.type == at["TENSOR"]:
            a.t = self.tensor(p.t, path + ".t")
        elif p.type == at["GRAPH"]:
            a.g = self.graph(p.g, path + ".g", free)
        elif p.type == at["FLOATS"]:
            a.floats = np.array(list(p.floats), dtype="<f4")
        elif p.type == at["INTS"]:
            a.ints = np.array(list(p.ints), dtype="<i8")
        elif p.type == at["STRINGS"]:
            try:
                a.strings = [s.decode("utf-8") for s in p.strings]
            except UnicodeDecodeError:
                raise EncodeError(
                    "string attribute is not UTF-8 (.ort strings are UTF-8)", path
                ) from None
        elif p.type == at["TENSORS"]:
            a.tensors = [self.tensor(t, f"{path}.tensors[{i}]") for i, t in enumerate(p.tensors)]
        elif p.type == at["GRAPHS"]:
            a.graphs = [self.graph(g, f"{path}.graphs[{i}]", free) for i, g in enumerate(p.graphs)]
        else:
            raise EncodeError(
                f"attribute {p.name!r} of type {onnx.AttributeProto.AttributeType.Name(p.type)} "
                "has no place in the .ort format",
                path,
            )
        return a

    def node(self, p: onnx.NodeProto, index: int, path: str) -> m.Node:
        opset = self.opsets.get("" if p.domain in _ONNX_DOMAINS else p.domain)
        sig = self.lookup(p.domain, p.op_type, opset) if opset is not None else None
        inputs = list(p.input)
        if sig is not None:
            # One count per formal input; a variadic one (always the last) takes the rest.
            nformal = len(sig[1])
            counts = [
                (max(0, len(inputs) - i) if i == nformal - 1 else (1 if i < len(inputs) else 0))
                for i in range(nformal)
            ]
        else:
            counts = [1] * len(inputs)
        free: list[str] = []
        attributes = [
            self.attribute(a, f"{path}.attributes[{i}]", free) for i, a in enumerate(p.attribute)
        ]
        return m.Node(
            name=p.name,
            doc_string=p.doc_string,
            domain=p.domain,
            since_version=sig[0] if sig is not None else 0,
            index=index,
            op_type=p.op_type,
            inputs=inputs,
            outputs=list(p.output),
            attributes=attributes,
            input_arg_counts=np.array(counts, dtype=_I4),
            implicit_inputs=list(dict.fromkeys(free)),
        )

    # -- graphs ---------------------------------------------------------------------------------

    def graph(self, p: onnx.GraphProto, path: str, free: list[str]) -> m.Graph:
        """Convert a graph; names it uses but does not define are appended to ``free``."""
        g = m.Graph()
        nodes = list(p.node)
        consts = [
            (i, nd)
            for i, nd in enumerate(nodes)
            if nd.op_type == "Constant" and nd.domain in _ONNX_DOMAINS
        ]
        for i, t in enumerate(p.initializer):
            g.initializers.append(self.tensor(t, f"{path}.initializer[{i}]"))
        for i, sp in enumerate(p.sparse_initializer):
            g.sparse_initializers.append(self.sparse(sp, f"{path}.sparse_initializer[{i}]"))
        for i, nd in consts:
            self.constant(nd, g, f"{path}.node[{i}]")
        const_ids = {id(nd) for _, nd in consts}
        kept = [nd for nd in nodes if id(nd) not in const_ids]

        defined: set[str] = {x.name for x in p.input}
        defined.update(t.name for t in g.initializers)
        defined.update(sp.values.name for sp in g.sparse_initializers if sp.values is not None)
        for nd in kept:
            defined.update(o for o in nd.output if o)
        for index, nd in enumerate(kept):
            node = self.node(nd, index, f"{path}.node[{index}]")
            g.nodes.append(node)
            free.extend(x for x in (*node.inputs, *node.implicit_inputs) if x and x not in defined)
        free.extend(x.name for x in p.output if x.name not in defined)

        g.max_node_index = len(g.nodes)
        g.inputs = [x.name for x in p.input]
        g.outputs = [x.name for x in p.output]
        g.node_edges = node_edges(g.nodes)
        g.node_args = self.node_args(p, g, defined)
        return g

    def constant(self, nd: onnx.NodeProto, g: m.Graph, path: str) -> None:
        """A Constant node as an initializer of its output's name (what onnxruntime does)."""
        if len(nd.output) != 1 or len(nd.attribute) != 1:
            raise EncodeError("a Constant node needs one output and one attribute", path)
        name = nd.output[0]
        attr = nd.attribute[0]
        kind = attr.name
        if kind == "value":
            t = self.tensor(attr.t, path + ".value")
            t.name = name
            g.initializers.append(t)
            return
        if kind == "sparse_value":
            s = self.sparse(attr.sparse_tensor, path + ".sparse_value")
            if s.values is not None:
                s.values.name = name
            g.sparse_initializers.append(s)
            return
        values: Any
        if kind == "value_float":
            proto = onnx.helper.make_tensor(name, onnx.TensorProto.FLOAT, [], [attr.f])
        elif kind == "value_floats":
            values = list(attr.floats)
            proto = onnx.helper.make_tensor(name, onnx.TensorProto.FLOAT, [len(values)], values)
        elif kind == "value_int":
            proto = onnx.helper.make_tensor(name, onnx.TensorProto.INT64, [], [attr.i])
        elif kind == "value_ints":
            values = list(attr.ints)
            proto = onnx.helper.make_tensor(name, onnx.TensorProto.INT64, [len(values)], values)
        elif kind == "value_string":
            proto = onnx.helper.make_tensor(name, onnx.TensorProto.STRING, [], [attr.s])
        elif kind == "value_strings":
            values = list(attr.strings)
            proto = onnx.helper.make_tensor(name, onnx.TensorProto.STRING, [len(values)], values)
        else:
            raise EncodeError(f"Constant attribute {kind!r} is not supported", path)
        g.initializers.append(self.tensor(proto, path + "." + kind))

    def node_args(self, p: onnx.GraphProto, g: m.Graph, defined: set[str]) -> list[m.ValueInfo]:
        """A ValueInfo for every value the graph names, typed where anything says the type."""
        # Later wins: inputs are the most authoritative.
        declared = {vi.name: vi for vi in (*p.value_info, *p.output, *p.input)}
        init_types = {t.name: t for t in g.initializers}
        # Every name once, in order of first appearance (onnxruntime also keeps a NodeArg
        # named "" for omitted optional inputs/outputs).
        order = dict.fromkeys(
            itertools.chain(
                [x.name for x in p.input],
                [t.name for t in g.initializers],
                itertools.chain.from_iterable(
                    itertools.chain(nd.inputs, nd.outputs) for nd in g.nodes
                ),
                [x.name for x in p.output],
            )
        )
        out = []
        for name in order:
            vi = declared.get(name)
            if vi is not None and vi.type.WhichOneof("value") is not None:
                out.append(m.ValueInfo(name, vi.doc_string, self.type_info(vi.type)))
                continue
            init = init_types.get(name)
            if init is not None:
                out.append(m.ValueInfo(name, "", self.tensor_type_of(init)))
                continue
            inferred = self.inferred.get(name)
            if isinstance(inferred, onnx.TensorProto):  # an initializer elsewhere: its type
                inferred = onnx.helper.make_tensor_type_proto(
                    inferred.data_type, list(inferred.dims)
                )
            if inferred is not None:
                out.append(m.ValueInfo(name, "", _unknown_dims(self.type_info(inferred))))
            else:
                # Untyped, as onnxruntime keeps them: "" (omitted optional arguments), values
                # nothing declares, and outer-scope values a subgraph uses.
                out.append(m.ValueInfo(name, vi.doc_string if vi is not None else "", None))
        return out


def _unknown_dims(ti: m.TypeInfo) -> m.TypeInfo:
    """Turn the ``unk__N`` symbols onnx shape inference invents into unknown dimensions."""
    v = ti.value
    if isinstance(v, m.TensorTypeAndShape) and v.shape is not None:
        for d in v.shape.dim:
            dv = d.value
            if dv is not None and dv.dim_param.startswith("unk__"):
                d.value = m.DimensionValue(DIMENSION_VALUE_TYPE["UNKNOWN"], 0, "")
    elif isinstance(v, m.SequenceType) and v.elem_type is not None:
        _unknown_dims(v.elem_type)
    elif isinstance(v, m.MapType) and v.value_type is not None:
        _unknown_dims(v.value_type)
    return ti


class _OnnxSources:
    """Holds what an OrtModel made by :func:`from_onnx` views, so that ``close()`` releases it."""

    def __init__(self, sources: _Sources, proto: onnx.ModelProto) -> None:
        self._sources = sources
        self._proto: onnx.ModelProto | None = proto

    def external_files(self) -> dict[str, MappedFile]:
        """The external data files the model's tensors view, by location."""
        return dict(self._sources.files)

    def close(self) -> None:
        self._proto = None
        self._sources.close()


def _infer_types(model: onnx.ModelProto) -> dict[str, onnx.TypeProto | onnx.TensorProto]:
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


def _copy_skeleton(model: onnx.ModelProto, into: onnx.ModelProto) -> None:
    """``model`` with large initializers turned into typed graph inputs (for shape inference).

    Built field by field so that the payloads of big initializers are never copied.
    """
    into.ir_version = model.ir_version
    into.opset_import.extend(model.opset_import)
    into.functions.extend(model.functions)
    src, g = model.graph, into.graph
    g.name = src.name
    g.node.extend(src.node)
    g.input.extend(src.input)
    g.output.extend(src.output)
    g.value_info.extend(src.value_info)
    g.sparse_initializer.extend(src.sparse_initializer)
    listed = {x.name for x in src.input}
    for t in src.initializer:
        if t.ByteSize() > 4096:
            if t.name not in listed:
                g.input.append(
                    onnx.helper.make_tensor_value_info(t.name, t.data_type, list(t.dims))
                )
        else:
            g.initializer.append(t)


def _all_nodes(g: onnx.GraphProto) -> Iterator[onnx.NodeProto]:
    for nd in g.node:
        yield nd
        for a in nd.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                yield from _all_nodes(a.g)
            for sg in a.graphs:
                yield from _all_nodes(sg)


#: ``expand(domain, op_type, since_version, binding, node) -> bool``, asked for each node that
#: has a function body (as :func:`wireplan.ort.runtime.needs_expansion`); ``node()`` gives, on
#: demand, the node's attributes as :class:`wireplan.ort.model.Attribute` objects and its
#: numbers of inputs and outputs.
NodeFacts = Callable[[], tuple[list[m.Attribute], int, int]]
ExpandCheck = Callable[[str, str, int, Mapping[str, str], NodeFacts], bool]

# The private domain of the model-local functions expansion makes (inlined at once, never left).
_EXPAND_DOMAIN = "wireplan.expand"
_TYPE_NAMES = {code: name.lower() for name, code in TENSOR_DATA_TYPE.items() if code}


def _as_type(t: onnx.TypeProto | onnx.TensorProto | None) -> onnx.TypeProto:
    """A value's type (an empty TypeProto when unknown); an initializer's from its tensor."""
    if isinstance(t, onnx.TensorProto):
        return onnx.helper.make_tensor_type_proto(t.data_type, list(t.dims))
    return t if t is not None else onnx.TypeProto()


def _type_string(t: onnx.TypeProto) -> str | None:
    """A type as onnxruntime spells it in kernel constraints (``"tensor(float16)"``), or None."""
    kind = t.WhichOneof("value")
    if kind == "tensor_type":
        name = _TYPE_NAMES.get(t.tensor_type.elem_type)
        return None if name is None else f"tensor({name})"
    if kind == "sequence_type":
        inner = _type_string(t.sequence_type.elem_type)
        return None if inner is None else f"seq({inner})"
    if kind == "optional_type":
        inner = _type_string(t.optional_type.elem_type)
        return None if inner is None else f"optional({inner})"
    return None


def _binding(
    nd: onnx.NodeProto, sig: Signature, types: Mapping[str, onnx.TypeProto | onnx.TensorProto]
) -> dict[str, str]:
    """Kernel type string -> type of the first present argument bound to it whose type is known.

    Keys as in onnxruntime's kernel type string resolver: the formal's
    ``type_str`` when it is a type parameter of the schema, otherwise the
    formal's name.  Only the last formal can be variadic in ONNX.
    """
    _, formal_in, formal_out, params = sig
    bound: dict[str, str] = {}
    for actual, formal in ((nd.input, formal_in), (nd.output, formal_out)):
        if not formal:
            continue
        for i, name in enumerate(actual):
            fname, type_str = formal[min(i, len(formal) - 1)]
            key = type_str if type_str in params else fname
            if not name or key in bound or name not in types:
                continue
            spelled = _type_string(_as_type(types[name]))
            if spelled is not None:
                bound[key] = spelled
    return bound


def _function_body(
    schema: Any,  # onnx.defs.OpSchema; onnx's type stubs lack its function members
    opset: int,
    nd: onnx.NodeProto,
    types: Mapping[str, onnx.TypeProto | onnx.TensorProto],
) -> onnx.FunctionProto | None:
    """The function body of ``nd`` at the model's ``opset``, None when the schema has none.

    A context-dependent body is built for this node (its attributes and the
    types of its inputs; an absent or untyped input gets an empty type), as
    onnxruntime builds it; a builder that refuses means no body, as there.
    """
    raw: bytes = b""
    try:
        if schema.has_context_dependent_function:
            # The builder of the newest version up to the model's opset (onnx's Python
            # binding only takes a version that has a builder of its own).
            version = max(
                (v for v in schema.context_dependent_function_opset_versions if v <= opset),
                default=None,
            )
            if version is not None:
                raw = schema.get_context_dependent_function_with_opset_version(
                    version,
                    nd.SerializeToString(),
                    [_as_type(types.get(x) if x else None).SerializeToString() for x in nd.input],
                )
        elif schema.has_function:
            raw = schema.get_function_with_opset_version(opset)
    except Exception:  # onnx raises its own types when a builder refuses the node
        return None
    if not raw:
        return None
    body = onnx.FunctionProto()
    body.ParseFromString(raw)
    if not len(body.node):
        return None
    # The body's operators resolve at the model's opset of the schema's domain, as
    # onnxruntime resolves them once inlined.
    for o in body.opset_import:
        if o.domain == schema.domain or {o.domain, schema.domain} <= set(_ONNX_DOMAINS):
            o.version = opset
    return body


def _opsets(proto: onnx.ModelProto) -> dict[str, int]:
    return {
        ("" if o.domain in _ONNX_DOMAINS else o.domain): int(o.version) for o in proto.opset_import
    }


def _expand_function_ops(
    proto: onnx.ModelProto,
    lookup: SignatureLookup,
    expand: ExpandCheck,
) -> tuple[onnx.ModelProto, dict[str, onnx.TypeProto | onnx.TensorProto] | None]:
    """Replace the nodes ``expand`` selects by their function bodies, as onnxruntime does.

    Every node (subgraphs included) of an operator whose schema has a
    function body is asked about, with the type binding of its arguments
    (from onnx shape inference): onnxruntime inlines a node that no kernel
    matches by version and types, so a float16 Softmax-13 is expanded while
    a float32 one is kept.  Bodies are taken at the model's opset (built
    for the node when context-dependent) and inlined by onnx's inliner as
    model-local functions, so only the selected nodes change.  Repeated
    while the inlined bodies hold such nodes in turn.  ``proto`` is not
    modified; it is returned as it is when nothing is expanded.  Also
    returns the inferred types of the returned model when they were
    computed (:func:`_infer_types`), else None.
    """
    schemas: dict[tuple[str, str, int], Any] = {}  # onnx.defs.OpSchema with a body, or None
    answers: dict[tuple[str, str, int, tuple[tuple[str, str], ...]], bool] = {}

    def schema_of(domain: str, op_type: str, opset: int) -> Any:
        key = (domain, op_type, opset)
        if key not in schemas:
            found: Any
            try:
                found = onnx.defs.get_schema(op_type, opset, domain)
            except onnx.defs.SchemaError:
                found = None
            has_body = found is not None and (
                found.has_function or found.has_context_dependent_function
            )
            schemas[key] = found if has_body else None
        return schemas[key]

    for _ in range(32):  # bodies may hold nodes that need expanding in turn
        opsets = _opsets(proto)  # bodies may import more
        candidates = []
        for k, nd in enumerate(_all_nodes(proto.graph)):
            domain = "" if nd.domain in _ONNX_DOMAINS else nd.domain
            opset = opsets.get(domain)
            if opset is None or domain == _EXPAND_DOMAIN:
                continue
            schema = schema_of(domain, nd.op_type, opset)
            if schema is not None:
                candidates.append((k, domain, opset, schema))
        if not candidates:
            return proto, None
        types = _infer_types(proto)
        chosen: dict[int, onnx.FunctionProto] = {}
        shared: dict[tuple[str, str, int], onnx.FunctionProto | None] = {}
        nodes = list(_all_nodes(proto.graph))
        for k, domain, opset, schema in candidates:
            nd = nodes[k]
            sig = lookup(domain, nd.op_type, opset)
            if sig is None:
                continue
            binding = _binding(nd, sig, types)
            key = (domain, nd.op_type, sig[0], tuple(sorted(binding.items())))
            if key not in answers:
                answers[key] = expand(
                    domain, nd.op_type, sig[0], binding, _node_facts(nd, lookup, opsets, types)
                )
            if not answers[key]:
                continue
            if schema.has_context_dependent_function:
                body = _function_body(schema, opset, nd, types)
            else:
                skey = (domain, nd.op_type, opset)
                if skey not in shared:
                    shared[skey] = _function_body(schema, opset, nd, types)
                body = shared[skey]
            if body is not None:
                chosen[k] = body
        if not chosen:
            return proto, types
        proto = _inline_nodes(proto, chosen)
    return proto, None


def _node_facts(
    nd: onnx.NodeProto,
    lookup: SignatureLookup,
    opsets: dict[str, int],
    types: dict[str, onnx.TypeProto | onnx.TensorProto],
) -> NodeFacts:
    """``nd``'s attributes as .ort objects (subgraphs too) and arity, converted when asked for.

    Only a kernel probe needs them (onnxruntime releases that do not export
    their kernel definitions); tensors with external data cannot be
    converted here and raise :class:`~wireplan.EncodeError`.
    """

    def convert() -> tuple[list[m.Attribute], int, int]:
        conv = _FromOnnx(_Sources(None), lookup, opsets)
        conv.inferred = types
        free: list[str] = []
        attributes = [
            conv.attribute(a, f"$.attributes[{i}]", free) for i, a in enumerate(nd.attribute)
        ]
        return attributes, len(nd.input), len(nd.output)

    return convert


def _inline_nodes(
    proto: onnx.ModelProto, bodies: Mapping[int, onnx.FunctionProto]
) -> onnx.ModelProto:
    """A copy of ``proto`` with node ``k`` (in :func:`_all_nodes` order) replaced by ``bodies[k]``.

    Each chosen node becomes the call of a model-local function of a
    private domain holding its body (one function per distinct body), and
    onnx's inliner expands the calls: formal parameters are bound to the
    node's arguments (absent optional inputs included), attribute
    references resolved, inner names made unique.
    """
    out = onnx.ModelProto()
    out.CopyFrom(proto)
    names: dict[int, str] = {}  # id of a body -> its function name
    functions: list[onnx.FunctionProto] = []
    for k, nd in enumerate(_all_nodes(out.graph)):
        body = bodies.get(k)
        if body is None:
            continue
        if id(body) not in names:
            names[id(body)] = f"{body.name or nd.op_type}_{len(functions)}"
            f = onnx.FunctionProto()
            f.CopyFrom(body)
            f.name = names[id(body)]
            f.domain = _EXPAND_DOMAIN
            functions.append(f)
        nd.domain = _EXPAND_DOMAIN
        nd.op_type = names[id(body)]
    out.functions.extend(functions)
    out.opset_import.append(onnx.helper.make_opsetid(_EXPAND_DOMAIN, 1))
    try:
        out = onnx.inliner.inline_local_functions(out)
    except Exception as exc:
        ops = sorted({f.name.rsplit("_", 1)[0] for f in functions})
        raise EncodeError(f"expanding {ops} into their function bodies failed: {exc}") from None
    if len(out.functions) or any(nd.domain == _EXPAND_DOMAIN for nd in _all_nodes(out.graph)):
        raise EncodeError("function bodies remain after expansion", "$.graph")
    kept = [o for o in out.opset_import if o.domain != _EXPAND_DOMAIN]
    del out.opset_import[:]
    out.opset_import.extend(kept)
    return out


def _memoized(lookup: SignatureLookup) -> SignatureLookup:
    """``lookup`` asked once per (domain, op_type, opset) for one conversion."""
    cache: dict[tuple[str, str, int], Signature | None] = {}

    def memo(domain: str, op_type: str, opset: int) -> Signature | None:
        key = (domain, op_type, opset)
        try:
            return cache[key]
        except KeyError:
            found = cache[key] = lookup(domain, op_type, opset)
            return found

    return memo


# ---------------------------------------------------------------------------------------------
# reading an .onnx file


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
        op = (f"{nd.domain}:" if nd.domain not in _ONNX_DOMAINS else "") + nd.op_type
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
            conv.inferred = inferred if inferred is not None else _infer_types(proto)
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


# ---------------------------------------------------------------------------------------------
# a small example model


def example_model() -> onnx.ModelProto:
    """A small ONNX model for demos: MatMul + Add + Relu + Reshape with a dynamic batch.

    ``x: float[batch, 64] -> y: float[batch, 8, 4]``; a 64x32 float32 weight
    (8 KiB) and a bias initializer, a ``dim_param``, metadata props.
    """
    rng = np.random.default_rng(20261201)
    w = rng.standard_normal((64, 32)).astype(np.float32)
    b = rng.standard_normal(32).astype(np.float32)
    shape = np.array([-1, 8, 4], dtype=np.int64)
    h = onnx.helper
    graph = h.make_graph(
        [
            h.make_node("MatMul", ["x", "w"], ["xw"], name="matmul"),
            h.make_node("Add", ["xw", "b"], ["xwb"], name="add"),
            h.make_node("Relu", ["xwb"], ["r"], name="relu"),
            h.make_node("Reshape", ["r", "shape"], ["y"], name="reshape"),
        ],
        "example",
        [h.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["batch", 64])],
        [h.make_tensor_value_info("y", onnx.TensorProto.FLOAT, ["batch", 8, 4])],
        initializer=[
            onnx.numpy_helper.from_array(w, "w"),
            onnx.numpy_helper.from_array(b, "b"),
            onnx.numpy_helper.from_array(shape, "shape"),
        ],
        doc_string="wireplan example graph",
    )
    model = h.make_model(
        graph,
        opset_imports=[h.make_opsetid("", 17)],
        producer_name="wireplan",
        producer_version="0.1.0",
        doc_string="wireplan example model",
    )
    model.ir_version = 8
    h.set_model_props(model, {"purpose": "demo"})
    return model
