"""The .ort model as Python objects: one dataclass per ``ort.fbs`` table.

Each class is named like its table and its attributes are named exactly
like the table's fields (snake_case, as in ``ort.fbs``), so code driven by
:data:`wireplan.ort.schema.ORT_SCHEMA` (the reader, the planned writer) can
map between tables and objects with ``getattr`` and keyword arguments;
:data:`TABLE_CLASSES` says which class belongs to which table or struct.
``EdgeEnd`` and ``NodeEdge`` are defined in :mod:`wireplan.ort.graph`, next to
the walks that compute them, and re-exported here.  Conversion to and from
ONNX is not a method: :func:`wireplan.ort.to_onnx` and
:func:`wireplan.ort.from_onnx`.

Value conventions, the same for loaded and for hand-made models:

- a string field is a ``str``; absent and empty are not distinguished (``""``);
- a scalar or enum field is an ``int`` / ``float`` / ``bool`` with the schema default;
- a sub-table is an instance or ``None`` when absent;
- a vector of tables or of strings is a ``list`` (empty when absent);
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
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from wireplan.core.closing import Closing
from wireplan.ort.graph import EdgeEnd, NodeEdge, walk_graphs
from wireplan.ort.schema import TENSOR_DATA_TYPE, TYPE_INFO_VALUE

__all__ = [
    "ELEMENT_BYTES",
    "MAX_RANK",
    "NUMPY_DTYPES",
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
    "element_count",
    "numpy_dtype",
    "shape_problem",
    "tensor_problem",
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


# bfloat16 and float8 need ml_dtypes; importing it takes over a second, so it is
# imported the first time a tensor of one of these types is viewed.
_ML_DTYPE_NAMES: dict[int, str] = {
    TENSOR_DATA_TYPE["BFLOAT16"]: "bfloat16",
    TENSOR_DATA_TYPE["FLOAT8E4M3FN"]: "float8_e4m3fn",
    TENSOR_DATA_TYPE["FLOAT8E4M3FNUZ"]: "float8_e4m3fnuz",
    TENSOR_DATA_TYPE["FLOAT8E5M2"]: "float8_e5m2",
    TENSOR_DATA_TYPE["FLOAT8E5M2FNUZ"]: "float8_e5m2fnuz",
}

#: numpy dtype of each fixed-size ``TensorDataType`` that numpy itself holds;
#: :func:`numpy_dtype` adds the ml_dtypes ones.
NUMPY_DTYPES: dict[int, np.dtype[Any]] = {
    TENSOR_DATA_TYPE["FLOAT"]: np.dtype("<f4"),
    TENSOR_DATA_TYPE["UINT8"]: np.dtype("u1"),
    TENSOR_DATA_TYPE["INT8"]: np.dtype("i1"),
    TENSOR_DATA_TYPE["UINT16"]: np.dtype("<u2"),
    TENSOR_DATA_TYPE["INT16"]: np.dtype("<i2"),
    TENSOR_DATA_TYPE["INT32"]: np.dtype("<i4"),
    TENSOR_DATA_TYPE["INT64"]: np.dtype("<i8"),
    TENSOR_DATA_TYPE["BOOL"]: np.dtype("?"),
    TENSOR_DATA_TYPE["FLOAT16"]: np.dtype("<f2"),
    TENSOR_DATA_TYPE["DOUBLE"]: np.dtype("<f8"),
    TENSOR_DATA_TYPE["UINT32"]: np.dtype("<u4"),
    TENSOR_DATA_TYPE["UINT64"]: np.dtype("<u8"),
    TENSOR_DATA_TYPE["COMPLEX64"]: np.dtype("<c8"),
    TENSOR_DATA_TYPE["COMPLEX128"]: np.dtype("<c16"),
}


def numpy_dtype(data_type: int) -> np.dtype[Any] | None:
    """The numpy dtype of a ``TensorDataType`` code, or None (strings, int4, no ml_dtypes)."""
    dt = NUMPY_DTYPES.get(data_type)
    if dt is not None or data_type not in _ML_DTYPE_NAMES:
        return dt
    try:
        import ml_dtypes
    except ImportError:  # pragma: no cover - ml_dtypes is installed with wireplan[dtypes]
        return None
    found: np.dtype[Any] = np.dtype(getattr(ml_dtypes, _ML_DTYPE_NAMES[data_type]))
    NUMPY_DTYPES[data_type] = found
    return found


#: The highest tensor rank wireplan reads or writes (numpy 2's limit on array dimensions).
MAX_RANK = 64
#: Bytes per element of the fixed-size data types an .ort holds (STRING and UNDEFINED have none).
ELEMENT_BYTES: dict[int, int] = {
    TENSOR_DATA_TYPE[name]: size
    for name, size in (
        ("FLOAT", 4),
        ("UINT8", 1),
        ("INT8", 1),
        ("UINT16", 2),
        ("INT16", 2),
        ("INT32", 4),
        ("INT64", 8),
        ("BOOL", 1),
        ("FLOAT16", 2),
        ("DOUBLE", 8),
        ("UINT32", 4),
        ("UINT64", 8),
        ("COMPLEX64", 8),
        ("COMPLEX128", 16),
        ("BFLOAT16", 2),
        ("FLOAT8E4M3FN", 1),
        ("FLOAT8E4M3FNUZ", 1),
        ("FLOAT8E5M2", 1),
        ("FLOAT8E5M2FNUZ", 1),
    )
}


def shape_problem(dims: Any, itemsize: int = 1) -> str | None:
    """Why ``dims`` cannot be a tensor's shape (None if it can).

    More than :data:`MAX_RANK` dimensions, a negative one, or a size past
    2**63 - 1 bytes even with the zero dimensions left out (numpy refuses
    such a shape whatever the element count).
    """
    if len(dims) > MAX_RANK:
        return f"{len(dims)} dimensions, more than {MAX_RANK}"
    size = itemsize
    for d in dims:
        d = int(d)
        if d < 0:
            return f"a negative dimension {d}"
        size *= max(d, 1)
    if size >= 1 << 63:
        return f"dimensions {tuple(int(d) for d in dims)} too large for any array"
    return None


def element_count(dims: Any) -> int:
    """The number of elements of a tensor of shape ``dims`` (checked with :func:`shape_problem`)."""
    count = 1
    for d in dims:
        count *= int(d)
    return count


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
        name = _TYPE_NAMES.get(t.data_type, f"data type {t.data_type}")
        return "raw_data", (
            f"tensor {t.name!r}: {t.nbytes} bytes of raw_data, but {name} {t.shape} needs "
            f"{count * size} (onnxruntime refuses such an initializer)"
        )
    return None


_TYPE_NAMES = {code: name for name, code in TENSOR_DATA_TYPE.items()}


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
        from wireplan.errors import DecodeError

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
            from wireplan.errors import DecodeError

            raise DecodeError("InferenceSession has no model", None, "$.model")
        return self.model

    @property
    def graph(self) -> Graph:
        g = self._model().graph
        if g is None:
            from wireplan.errors import DecodeError

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
        from wireplan.errors import DecodeError

        out = {}
        for i, t in enumerate(self.graph.initializers):
            try:
                out[t.name] = t.numpy()
            except DecodeError as exc:
                raise exc.under(f".model.graph.initializers[{i}]") from None
        return out

    def graphs(self) -> Iterator[Graph]:
        """The main graph, then every subgraph (If/Loop/Scan bodies), depth first.

        :func:`wireplan.ort.graph.walk_graphs` gives their paths too.
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
            for node in g.nodes:
                for attr in node.attributes:
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
