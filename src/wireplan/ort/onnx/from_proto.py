"""The ``onnx.ModelProto`` -> .ort model walker: graphs, nodes, attributes, tensors, types."""

from __future__ import annotations

import contextlib
import itertools
import math
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnx.helper
import onnx.numpy_helper

from wireplan.core.buffers import MappedFile
from wireplan.errors import EncodeError
from wireplan.ort import model as m
from wireplan.ort.dtypes import NUMPY_DTYPES, type_name
from wireplan.ort.graph import node_edges
from wireplan.ort.schema import ATTRIBUTE_TYPE, DIMENSION_VALUE_TYPE, TENSOR_DATA_TYPE
from wireplan.ort.signatures import ONNX_DOMAINS, SignatureLookup, normal_domain

__all__ = []

_STRING = TENSOR_DATA_TYPE["STRING"]
_DIM_VALUE = DIMENSION_VALUE_TYPE["VALUE"]
_DIM_PARAM = DIMENSION_VALUE_TYPE["PARAM"]
_DIM_UNKNOWN = DIMENSION_VALUE_TYPE["UNKNOWN"]
_I8 = np.dtype("<i8")
_I4 = np.dtype("<i4")


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


# Data types an .onnx keeps one value per element in a typed field of their own: read straight
# into their little-endian bytes, their count checked against the shape, so that a wrong count
# says how many values the shape needs (onnx.numpy_helper.to_array, for the others, also takes
# 1.7 times as long on the small Constants some exporters write by the hundred).
_TYPED = {
    TENSOR_DATA_TYPE[name]: (field, NUMPY_DTYPES[TENSOR_DATA_TYPE[name]])
    for name, field in (
        ("FLOAT", "float_data"),
        ("DOUBLE", "double_data"),
        ("INT32", "int32_data"),
        ("INT64", "int64_data"),
        ("UINT64", "uint64_data"),
    )
}
_UNDEFINED = TENSOR_DATA_TYPE["UNDEFINED"]


def _count_problem(p: onnx.TensorProto, field: str, count: int, need: int) -> str:
    return (
        f"tensor {p.name!r}: {count} values in {field}, but {type_name(p.data_type)} {list(p.dims)} "
        f"needs {need} (onnxruntime refuses such an initializer)"
    )


def _values_problem(p: onnx.TensorProto, exc: Exception) -> str:
    """Why onnx could not read the values of ``p`` (kept in a typed field), as a sentence."""
    try:
        field = onnx.helper.tensor_dtype_to_field(p.data_type)
    except KeyError:
        return f"tensor {p.name!r} has {type_name(p.data_type)}, which onnx {onnx.__version__} does not know"
    return (
        f"tensor {p.name!r}: the values in {field} do not make a {type_name(p.data_type)} "
        f"{list(p.dims)} ({exc})"
    )


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
                    f"{type_name(p.data_type)} {list(p.dims)} takes {need} bytes",
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
        if p.data_type == _UNDEFINED:
            return t  # no values: the tensor's check names the missing type
        typed = _TYPED.get(p.data_type)
        if typed is not None:
            field, dtype = typed
            values = getattr(p, field)
            need = math.prod(p.dims)
            if len(values) != need and min(p.dims, default=0) >= 0:
                raise EncodeError(_count_problem(p, field, len(values), need), path)
            t.raw_data = _readonly_u8(np.array(values, dtype))
            return t
        try:
            arr = onnx.numpy_helper.to_array(p)
        except (ValueError, TypeError, KeyError) as exc:  # onnx's: values that do not fit
            raise EncodeError(_values_problem(p, exc), path) from None
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
                    if kind == "dim_value" and d.dim_value >= 0:
                        dv = dimension_value(_DIM_VALUE, d.dim_value, "")
                    elif kind == "dim_param":
                        dv = dimension_value(_DIM_PARAM, 0, d.dim_param)
                    else:  # none, or a negative value: unknown, as onnxruntime saves it
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
        opset = self.opsets.get(normal_domain(p.domain))
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
            if nd.op_type == "Constant" and nd.domain in ONNX_DOMAINS
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
