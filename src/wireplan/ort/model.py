"""The .ort model as Python objects: one dataclass per ``ort.fbs`` table (one concern).

Each class is named like its table and its attributes are named exactly
like the table's fields (snake_case, as in ``ort.fbs``), so code driven by
:data:`wireplan.ort.schema.ORT_SCHEMA` (the reader, the planned writer) can
map between tables and objects with ``getattr`` and keyword arguments;
:data:`TABLE_CLASSES` says which class belongs to which table or struct.
What belongs to the tables themselves is here too: where a node's
attributes hold graphs (:func:`subgraphs`, :func:`walk_graphs`; the other
walks and the edge computation are in :mod:`wireplan.ort.graph`), a type as
onnxruntime spells it (:func:`type_string`, :func:`type_info`), and the
name of a model's external data file (:func:`companion_path`).  Conversion
to and from ONNX is not a method: :func:`wireplan.ort.to_onnx` and
:func:`wireplan.ort.from_onnx`.  Data type facts (numpy dtypes, sizes) are in
:mod:`wireplan.ort.dtypes` and re-exported here.

Value conventions, the same for loaded and for hand-made models:

- a string field is a ``str``; absent and empty are not distinguished (``""``);
- a scalar or enum field is an ``int`` / ``float`` / ``bool`` with the schema default;
- a sub-table is an instance or ``None`` when absent;
- a vector of tables or of strings is a ``list`` (empty when absent); loaded without
  ``copy=True``, a vector of tables is a :class:`~wireplan.flatbuffers.lazy.TableList`,
  a mutable sequence decoded element by element as used (its length is read without decoding);
- a vector of scalars is a 1-D little-endian numpy array (empty when absent).
  Loaded without ``copy=True``, it is a read-only view into the file's bytes;
- a vector of ``EdgeEnd`` structs is a ``list`` of :class:`EdgeEnd`;
- the ``TypeInfoValue`` union field ``TypeInfo.value`` holds the member
  object itself (:class:`TensorTypeAndShape`, :class:`SequenceType` or
  :class:`MapType`) or ``None``; its type code follows from the class
  (``TypeInfo.value_type``, and :data:`wireplan.ort.schema.TYPE_INFO_VALUE`);
- ``Tensor.raw_data`` is always a 1-D ``uint8`` array holding the payload
  bytes as stored (little-endian); :meth:`Tensor.numpy` gives a typed view;
- deprecated fields (``InferenceSession.session_state``,
  ``RuntimeOptimizationRecord.produced_nodes``) are never read and stay ``None``.

Lifetime of views: the arrays of a model loaded from a path are views into
a read-only memory mapping.  :meth:`OrtModel.close` (or leaving a ``with``
block) drops the model's hold on the mapping; the mapping is unmapped as
soon as no array views it any more.  An array therefore never dangles: it
stays valid for as long as you keep a reference to it, and keeping one keeps
(only) the mapping alive.  A model loaded from a bytes-like object views
that object, which must not be modified while the model is in use.  With
``load(..., copy=True)`` every array owns its memory and nothing refers to
the source afterwards.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from wireplan.core.closing import Closing
from wireplan.errors import DecodeError
from wireplan.flatbuffers.lazy import TableList
from wireplan.ort.dtypes import (
    ELEMENT_BYTES,
    MAX_RANK,
    NUMPY_DTYPES,
    element_count,
    numpy_dtype,
    shape_problem,
    split_type_string,
    tensor_elem_type,
    tensor_type_string,
    type_name,
    wrapped_type_string,
)
from wireplan.ort.schema import TENSOR_DATA_TYPE, TYPE_INFO_VALUE

__all__ = [
    "ELEMENT_BYTES",
    "MAX_RANK",
    "NUMPY_DTYPES",
    "ROOT",
    "TABLE_CLASSES",
    "ArgTypeAndIndex",
    "Attribute",
    "DeprecatedKernelCreateInfos",
    "DeprecatedNodeIndexAndKernelDefHash",
    "DeprecatedSessionState",
    "DeprecatedSubGraphSessionState",
    "Dimension",
    "DimensionValue",
    "EdgeEnd",
    "Graph",
    "KernelTypeStrArgsEntry",
    "KernelTypeStrResolver",
    "MapType",
    "Model",
    "Node",
    "NodeEdge",
    "NodesToOptimizeIndices",
    "OpIdKernelTypeStrArgsEntry",
    "OperatorSetId",
    "OrtModel",
    "RuntimeOptimizationRecord",
    "RuntimeOptimizationRecordContainerEntry",
    "RuntimeOptimizations",
    "SequenceType",
    "Shape",
    "SparseTensor",
    "StringStringEntry",
    "Tensor",
    "TensorTypeAndShape",
    "TypeInfo",
    "ValueInfo",
    "companion_path",
    "element_count",
    "has_subgraph",
    "numpy_dtype",
    "shape_problem",
    "sparse_problem",
    "subgraphs",
    "tensor_problem",
    "type_info",
    "type_string",
    "walk_graphs",
]

Array = np.ndarray[Any, np.dtype[Any]]


def _empty_array(dtype: str) -> Array:
    a = np.zeros(0, dtype=dtype)
    a.flags.writeable = False
    return a


# Default factories: a new empty read-only array of each vector element type.
def _i8() -> Array:
    return _empty_array("<i8")


def _i4() -> Array:
    return _empty_array("<i4")


def _u1() -> Array:
    return _empty_array("u1")


def _u4() -> Array:
    return _empty_array("<u4")


def _u8() -> Array:
    return _empty_array("<u8")


def _f4() -> Array:
    return _empty_array("<f4")


def tensor_problem(t: Tensor) -> tuple[str, str] | None:
    """``(field, why)`` when tensor ``t`` cannot be what it says it is; None when it can.

    No data type (UNDEFINED), a shape no array can have (:func:`shape_problem`),
    a payload of another size than its data type and shape need, or a string
    tensor with another number of strings.  onnxruntime refuses every one of
    them ("Initializer raw data size mismatch"), and an .onnx converted from
    such a tensor is refused too.  A tensor kept outside the file (no
    ``raw_data``, ``external_data_offset`` set) takes its size from the shape.
    ``field`` is ``"data_type"``, ``"dims"``, ``"raw_data"`` or ``"string_data"``.
    """
    if t.data_type == TENSOR_DATA_TYPE["UNDEFINED"]:
        return "data_type", f"tensor {t.name!r} has no data type (UNDEFINED)"
    size = ELEMENT_BYTES.get(t.data_type)
    problem = shape_problem(t.dims, size or 1)
    if problem is not None:
        return "dims", f"tensor {t.name!r} has {problem}"
    count = element_count(t.dims)
    if t.data_type == TENSOR_DATA_TYPE["STRING"]:
        if len(t.string_data) != count:
            return (
                "string_data",
                f"tensor {t.name!r}: {len(t.string_data)} strings for shape {t.shape}",
            )
    elif size is not None and (t.nbytes or t.external_data_offset < 0) and t.nbytes != count * size:
        name = type_name(t.data_type)
        return "raw_data", (
            f"tensor {t.name!r}: {t.nbytes} bytes of raw_data, but {name} {t.shape} needs "
            f"{count * size} (onnxruntime refuses such an initializer)"
        )
    return None


def sparse_problem(sp: SparseTensor) -> tuple[str, str] | None:
    """``(field, why)`` when sparse tensor ``sp``'s dense shape no array can have (onnxruntime:
    "dense dims expected to be non-negative"); None when it can.  Its values and indices are
    tensors of their own (:func:`tensor_problem`)."""
    values = sp.values
    size = 1 if values is None else ELEMENT_BYTES.get(values.data_type, 1)
    problem = shape_problem(sp.dims, size)
    if problem is None:
        return None
    name = "" if values is None else values.name
    return "dims", f"sparse tensor {name!r} has a dense shape of {problem}"


# --- types -----------------------------------------------------------------------------------


@dataclass(eq=False, slots=True)
class DimensionValue:
    dim_type: int = 0
    dim_value: int = 0
    dim_param: str = ""


@dataclass(eq=False, slots=True)
class Dimension:
    value: DimensionValue | None = None
    denotation: str = ""


@dataclass(eq=False, slots=True)
class Shape:
    dim: list[Dimension] = field(default_factory=list)


@dataclass(eq=False, slots=True)
class TensorTypeAndShape:
    elem_type: int = 0
    shape: Shape | None = None


@dataclass(eq=False, slots=True)
class MapType:
    key_type: int = 0
    value_type: TypeInfo | None = None


@dataclass(eq=False, slots=True)
class SequenceType:
    elem_type: TypeInfo | None = None


@dataclass(eq=False, slots=True)
class TypeInfo:
    denotation: str = ""
    value: TensorTypeAndShape | SequenceType | MapType | None = None

    @property
    def value_type(self) -> int:
        """The ``TypeInfoValue`` union type code of :attr:`value` (0 = NONE)."""
        return 0 if self.value is None else TYPE_INFO_VALUE[type(self.value).__name__]


@dataclass(eq=False, slots=True)
class ValueInfo:
    name: str = ""
    doc_string: str = ""
    type: TypeInfo | None = None


# --- tensors ---------------------------------------------------------------------------------


@dataclass(eq=False, slots=True)
class Tensor:
    name: str = ""
    doc_string: str = ""
    dims: Array = field(default_factory=_i8)
    data_type: int = 0
    raw_data: Array = field(default_factory=_u1)
    string_data: list[str] = field(default_factory=list)
    external_data_offset: int = -1

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(int(d) for d in self.dims)

    @property
    def nbytes(self) -> int:
        """Payload bytes stored in the file (``raw_data``)."""
        return int(self.raw_data.shape[0])

    def numpy(self) -> Array:
        """The tensor as a numpy array of its element type and shape.

        Numeric tensors give a view of :attr:`raw_data` (no copy; read-only
        when loaded zero-copy); string tensors an ``object`` array of ``str``.
        Raises :class:`~wireplan.DecodeError` if the payload does not match
        the declared type and shape; its ``offset`` is None (a tensor does
        not know where it lies in a file) and its ``path`` names the field.
        """
        shape = self.shape
        dtype = numpy_dtype(self.data_type)
        problem = shape_problem(shape, 1 if dtype is None else dtype.itemsize)
        if problem is not None:
            raise DecodeError(f"tensor {self.name!r} has {problem}", None, "$.dims")
        count = element_count(shape)
        if self.data_type == TENSOR_DATA_TYPE["STRING"]:
            if len(self.string_data) != count:
                raise DecodeError(
                    f"tensor {self.name!r}: {len(self.string_data)} strings for shape {shape}",
                    None,
                    "$.string_data",
                )
            try:
                return np.array(self.string_data, dtype=object).reshape(shape)
            except ValueError as exc:
                raise DecodeError(f"tensor {self.name!r}: {exc}", None, "$.dims") from None
        if dtype is None:
            raise DecodeError(
                f"tensor {self.name!r}: no numpy dtype for data_type {self.data_type}",
                None,
                "$.data_type",
            )
        if count * dtype.itemsize != self.raw_data.shape[0]:
            raise DecodeError(
                f"tensor {self.name!r}: {self.raw_data.shape[0]} bytes of raw_data for "
                f"{dtype} {shape}",
                None,
                "$.raw_data",
            )
        try:
            return self.raw_data.view(dtype).reshape(shape)
        except ValueError as exc:  # numpy 1 allows 32 dimensions only
            raise DecodeError(f"tensor {self.name!r}: {exc}", None, "$.dims") from None


@dataclass(eq=False, slots=True)
class SparseTensor:
    values: Tensor | None = None
    indices: Tensor | None = None
    dims: Array = field(default_factory=_i8)


# --- nodes -----------------------------------------------------------------------------------


@dataclass(eq=False, slots=True)
class Attribute:
    name: str = ""
    doc_string: str = ""
    type: int = 0
    f: float = 0.0
    i: int = 0
    s: str = ""
    t: Tensor | None = None
    g: Graph | None = None
    floats: Array = field(default_factory=_f4)
    ints: Array = field(default_factory=_i8)
    strings: list[str] = field(default_factory=list)
    tensors: list[Tensor] = field(default_factory=list)
    graphs: list[Graph] = field(default_factory=list)


@dataclass(eq=False, slots=True)
class Node:
    name: str = ""
    doc_string: str = ""
    domain: str = ""
    since_version: int = 0
    index: int = 0
    op_type: str = ""
    type: int = 0
    execution_provider_type: str = ""
    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    attributes: list[Attribute] = field(default_factory=list)
    input_arg_counts: Array = field(default_factory=_i4)
    implicit_inputs: list[str] = field(default_factory=list)


# --- runtime optimizations -------------------------------------------------------------------


@dataclass(eq=False, slots=True)
class NodesToOptimizeIndices:
    node_indices: Array = field(default_factory=_u4)
    num_inputs: int = 0
    num_outputs: int = 0
    has_variadic_input: bool = False
    has_variadic_output: bool = False
    num_variadic_inputs: int = 0
    num_variadic_outputs: int = 0


@dataclass(eq=False, slots=True)
class DeprecatedNodeIndexAndKernelDefHash:
    node_index: int = 0
    kernel_def_hash: int = 0


@dataclass(eq=False, slots=True)
class RuntimeOptimizationRecord:
    action_id: str = ""
    nodes_to_optimize_indices: NodesToOptimizeIndices | None = None
    produced_nodes: None = None  # deprecated in ort.fbs: never read or written
    produced_op_ids: list[str] = field(default_factory=list)


@dataclass(eq=False, slots=True)
class RuntimeOptimizationRecordContainerEntry:
    optimizer_name: str = ""
    runtime_optimization_records: list[RuntimeOptimizationRecord] = field(default_factory=list)


@dataclass(eq=False, slots=True)
class RuntimeOptimizations:
    records: list[RuntimeOptimizationRecordContainerEntry] = field(default_factory=list)


# --- graph and model -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EdgeEnd:
    """The ``EdgeEnd`` struct (12 bytes: uint32, int32, int32)."""

    node_index: int = 0
    src_arg_index: int = 0
    dst_arg_index: int = 0


@dataclass(eq=False, slots=True)
class NodeEdge:
    node_index: int = 0
    input_edges: list[EdgeEnd] = field(default_factory=list)
    output_edges: list[EdgeEnd] = field(default_factory=list)


@dataclass(eq=False, slots=True)
class Graph:
    initializers: list[Tensor] = field(default_factory=list)
    node_args: list[ValueInfo] = field(default_factory=list)
    nodes: list[Node] = field(default_factory=list)
    max_node_index: int = 0
    node_edges: list[NodeEdge] = field(default_factory=list)
    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    sparse_initializers: list[SparseTensor] = field(default_factory=list)
    runtime_optimizations: RuntimeOptimizations | None = None


@dataclass(eq=False, slots=True)
class StringStringEntry:
    key: str = ""
    value: str = ""


@dataclass(eq=False, slots=True)
class OperatorSetId:
    domain: str = ""
    version: int = 0


@dataclass(eq=False, slots=True)
class Model:
    ir_version: int = 0
    opset_import: list[OperatorSetId] = field(default_factory=list)
    producer_name: str = ""
    producer_version: str = ""
    domain: str = ""
    model_version: int = 0
    doc_string: str = ""
    graph: Graph | None = None
    graph_doc_string: str = ""
    metadata_props: list[StringStringEntry] = field(default_factory=list)


# --- deprecated session state ----------------------------------------------------------------


@dataclass(eq=False, slots=True)
class DeprecatedKernelCreateInfos:
    node_indices: Array = field(default_factory=_u4)
    kernel_def_hashes: Array = field(default_factory=_u8)


@dataclass(eq=False, slots=True)
class DeprecatedSubGraphSessionState:
    graph_id: str = ""
    session_state: DeprecatedSessionState | None = None


@dataclass(eq=False, slots=True)
class DeprecatedSessionState:
    kernels: DeprecatedKernelCreateInfos | None = None
    sub_graph_session_states: list[DeprecatedSubGraphSessionState] = field(default_factory=list)


# --- kernel type string resolver -------------------------------------------------------------


@dataclass(eq=False, slots=True)
class ArgTypeAndIndex:
    arg_type: int = 0
    index: int = 0


@dataclass(eq=False, slots=True)
class KernelTypeStrArgsEntry:
    kernel_type_str: str = ""
    args: list[ArgTypeAndIndex] = field(default_factory=list)


@dataclass(eq=False, slots=True)
class OpIdKernelTypeStrArgsEntry:
    op_id: str = ""
    kernel_type_str_args: list[KernelTypeStrArgsEntry] = field(default_factory=list)


@dataclass(eq=False, slots=True)
class KernelTypeStrResolver:
    op_kernel_type_str_args: list[OpIdKernelTypeStrArgsEntry] = field(default_factory=list)


# --- the root --------------------------------------------------------------------------------


@dataclass(eq=False)
class OrtModel(Closing):
    """A whole .ort file: the ``InferenceSession`` root table plus what it was read from.

    The dataclass fields mirror ``InferenceSession`` (``ort_version``,
    ``model``, ``kernel_type_str_resolver``; ``session_state`` is
    deprecated and always ``None``).  The properties below are shortcuts
    into :attr:`model`.  See the module docstring for how long the arrays
    of a loaded model live; :meth:`close` and the context manager release
    the source.
    """

    ort_version: str = "6"
    model: Model | None = None
    session_state: None = None  # deprecated in ort.fbs: never read or written
    kernel_type_str_resolver: KernelTypeStrResolver | None = None
    #: What the arrays view (a MappedFile or the bytes-like object); None once closed or copied.
    source: Any = field(default=None, repr=False)

    # -- shortcuts ----------------------------------------------------------------------------

    def _model(self) -> Model:
        if self.model is None:
            raise DecodeError("InferenceSession has no model", None, "$.model")
        return self.model

    @property
    def graph(self) -> Graph:
        g = self._model().graph
        if g is None:
            raise DecodeError("Model has no graph", None, "$.model.graph")
        return g

    @property
    def ir_version(self) -> int:
        return self._model().ir_version

    @property
    def opset_imports(self) -> dict[str, int]:
        """Domain (``""`` for ONNX) to opset version."""
        return {o.domain: o.version for o in self._model().opset_import}

    @property
    def producer_name(self) -> str:
        return self._model().producer_name

    @property
    def producer_version(self) -> str:
        return self._model().producer_version

    @property
    def doc_string(self) -> str:
        return self._model().doc_string

    @property
    def metadata_props(self) -> dict[str, str]:
        return {e.key: e.value for e in self._model().metadata_props}

    @property
    def initializers(self) -> dict[str, Array]:
        """Initializers of the main graph by name, as typed numpy arrays (views, no copy)."""
        out = {}
        for i, t in enumerate(self.graph.initializers):
            try:
                out[t.name] = t.numpy()
            except DecodeError as exc:
                raise exc.under(f".model.graph.initializers[{i}]") from None
        return out

    def graphs(self) -> Iterator[Graph]:
        """The main graph, then every subgraph (If/Loop/Scan bodies), depth first.

        :func:`walk_graphs` gives their paths too.
        """
        return (g for _, g in walk_graphs(self.graph))

    def tensors(self) -> Iterator[Tensor]:
        """Every tensor with a payload: initializers, sparse parts and tensor attributes."""
        for g in self.graphs():
            yield from g.initializers
            for sp in g.sparse_initializers:
                if sp.values is not None:
                    yield sp.values
                if sp.indices is not None:
                    yield sp.indices
            nodes = g.nodes
            for i in holding(nodes, HOLD_TENSORS):
                for attr in nodes[i].attributes:
                    if attr.t is not None:
                        yield attr.t
                    yield from attr.tensors

    # -- lifetime -----------------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self.source is None

    def close(self) -> None:
        """Release the source: a mapping is unmapped once no array of this model views it."""
        src, self.source = self.source, None
        close = getattr(src, "close", None)
        if close is not None:
            with contextlib.suppress(BufferError):
                close()


# --- where graphs nest -----------------------------------------------------------------------

#: The path of an .ort model's main graph.
ROOT = "$.model.graph"


def subgraphs(node: Node, path: str = "") -> Iterator[tuple[str, Graph]]:
    """The graphs ``node``'s attributes hold (one level), as ``(path, graph)``.

    A node attribute holds a graph in ``g`` (If branches, Loop and Scan
    bodies) or a list of them in ``graphs``.  ``path`` is the node's; a
    graph's is ``{path}.attributes[j].g`` or ``{path}.attributes[j].graphs[k]``.
    """
    for j, attr in enumerate(node.attributes):
        if attr.g is not None:
            yield f"{path}.attributes[{j}].g", attr.g
        for k, g in enumerate(attr.graphs):
            yield f"{path}.attributes[{j}].graphs[{k}]", g


def has_subgraph(node: Node) -> bool:
    """Whether an attribute of ``node`` holds a graph."""
    return any(a.g is not None or a.graphs for a in node.attributes)


#: The attribute fields that hold graphs; and tensors.
HOLD_GRAPHS = ("g", "graphs")
HOLD_TENSORS = ("t", "tensors")


def holding(nodes: list[Node], fields: tuple[str, ...]) -> Iterable[int]:
    """Indices of the nodes that may have an attribute with one of ``fields`` (in order).

    Of a loaded model's undecoded nodes (a :class:`TableList`), the answer comes from
    the vtables, and only the nodes it names are decoded; otherwise every node.
    """
    if isinstance(nodes, TableList):
        return nodes.candidates("attributes", fields)
    return range(len(nodes))


def walk_graphs(graph: Graph, path: str = ROOT) -> Iterator[tuple[str, Graph]]:
    """``graph`` and every graph inside it, as ``(path, graph)``, depth first."""
    yield path, graph
    nodes = graph.nodes
    for i in holding(nodes, HOLD_GRAPHS):
        node = nodes[i]
        if has_subgraph(node):  # paths are formatted for subgraphs only
            for where, g in subgraphs(node, f"{path}.nodes[{i}]"):
                yield from walk_graphs(g, where)


# --- names and spellings ---------------------------------------------------------------------


def companion_path(path: str | os.PathLike[str]) -> Path:
    """The external data file of the model at ``path``: ``<file name>.data`` in the same folder.

    The one rule for the companion of an .ort (``save(..., external_data=True)``) and of an
    .onnx that wireplan writes with external data.
    """
    p = Path(path)
    return p.with_name(p.name + ".data")


def type_string(t: TypeInfo | None) -> str | None:
    """A type as onnxruntime spells it in kernel constraints (``"tensor(float16)"``), or None."""
    v = None if t is None else t.value
    if isinstance(v, TensorTypeAndShape):
        return tensor_type_string(v.elem_type)
    if isinstance(v, SequenceType):
        return wrapped_type_string("seq", type_string(v.elem_type))
    return None


def type_info(spelled: str) -> TypeInfo | None:
    """The :class:`TypeInfo` of ``"tensor(float16)"`` / ``"seq(tensor(int64))"``, or None."""
    parts = split_type_string(spelled)
    if parts is None:
        return None
    if parts[0] == "tensor":
        code = tensor_elem_type(spelled)
        return None if code is None else TypeInfo(value=TensorTypeAndShape(elem_type=code))
    if parts[0] == "seq":
        inner = type_info(parts[1])
        return None if inner is None else TypeInfo(value=SequenceType(elem_type=inner))
    return None


#: Table (and struct) name -> the class that mirrors it.  ``InferenceSession`` maps to OrtModel.
TABLE_CLASSES: dict[str, type] = {
    "Shape": Shape,
    "Dimension": Dimension,
    "DimensionValue": DimensionValue,
    "TensorTypeAndShape": TensorTypeAndShape,
    "MapType": MapType,
    "SequenceType": SequenceType,
    "TypeInfo": TypeInfo,
    "ValueInfo": ValueInfo,
    "EdgeEnd": EdgeEnd,
    "NodeEdge": NodeEdge,
    "Node": Node,
    "Attribute": Attribute,
    "Tensor": Tensor,
    "SparseTensor": SparseTensor,
    "NodesToOptimizeIndices": NodesToOptimizeIndices,
    "DeprecatedNodeIndexAndKernelDefHash": DeprecatedNodeIndexAndKernelDefHash,
    "RuntimeOptimizationRecord": RuntimeOptimizationRecord,
    "RuntimeOptimizationRecordContainerEntry": RuntimeOptimizationRecordContainerEntry,
    "RuntimeOptimizations": RuntimeOptimizations,
    "Graph": Graph,
    "StringStringEntry": StringStringEntry,
    "OperatorSetId": OperatorSetId,
    "Model": Model,
    "DeprecatedKernelCreateInfos": DeprecatedKernelCreateInfos,
    "DeprecatedSubGraphSessionState": DeprecatedSubGraphSessionState,
    "DeprecatedSessionState": DeprecatedSessionState,
    "ArgTypeAndIndex": ArgTypeAndIndex,
    "KernelTypeStrArgsEntry": KernelTypeStrArgsEntry,
    "OpIdKernelTypeStrArgsEntry": OpIdKernelTypeStrArgsEntry,
    "KernelTypeStrResolver": KernelTypeStrResolver,
    "InferenceSession": OrtModel,
}
