"""The tables of onnxruntime's ``ort.fbs`` as a :class:`~wireplan.flatbuffers.schema.Schema`.

Slots, types and defaults were read off the flatc-generated readers that
the onnxruntime wheel ships (``tools/ort_format_model/ort_flatbuffers_py``)
and the published ``ort.fbs``.  Everything reachable from the root table
``InferenceSession`` is described, including the deprecated session state
(kernel def hashes, format versions up to 4) so that the slots stay
documented even though the field itself is never read or written, and the
``KernelTypeStrResolver`` and runtime optimization records of versions 5
and 6.  Fields the schema declares ``(key)`` are marked: vectors of those
tables are sorted by that field in a valid file.

Use :data:`ORT_SCHEMA`.
"""

from __future__ import annotations

from wireplan.flatbuffers.schema import Field, Schema, TypeRef

__all__ = [
    "ARG_TYPE",
    "ATTRIBUTE_TYPE",
    "DIMENSION_VALUE_TYPE",
    "FILE_IDENTIFIER",
    "FORMAT_RELEASES",
    "NODE_TYPE",
    "ORT_SCHEMA",
    "SUPPORTED_VERSIONS",
    "TENSOR_DATA_TYPE",
    "TYPE_INFO_VALUE",
    "build_schema",
]

#: The four bytes at offset 4 of every .ort file.
FILE_IDENTIFIER = b"ORTM"

#: ``InferenceSession.ort_version`` values onnxruntime 1.31 accepts (it writes "6").
SUPPORTED_VERSIONS = ("1", "2", "3", "4", "5", "6")

#: For each format version: the onnxruntime releases whose converter wrote it and those
#: whose loader accepts it.  From onnxruntime's format history (the schema README, its
#: "ORT model format" page) and, for 1.15.1, 1.20.1 and 1.32.0, from loading such files.
#: Formats 1-4 load in full builds from 1.14 on only: they rebuild the kernel type string
#: resolver from operator schemas and ignore saved runtime optimizations; minimal builds
#: from 1.13 on need format 5 or later.
FORMAT_RELEASES: dict[str, tuple[str, str]] = {
    "1": ("1.5", "1.5-1.7; full builds from 1.14"),
    "2": ("1.6", "1.6-1.7; full builds from 1.14"),
    "3": ("1.7", "1.7; full builds from 1.14"),
    "4": ("1.8-1.12", "1.8-1.12; full builds from 1.14"),
    "5": ("1.13-1.15", "1.13 and later"),
    "6": ("1.16 and later", "1.16 and later"),
}

ATTRIBUTE_TYPE = {
    "UNDEFINED": 0,
    "FLOAT": 1,
    "INT": 2,
    "STRING": 3,
    "TENSOR": 4,
    "GRAPH": 5,
    "FLOATS": 6,
    "INTS": 7,
    "STRINGS": 8,
    "TENSORS": 9,
    "GRAPHS": 10,
    "SPARSE_TENSOR": 11,
    "SPARSE_TENSORS": 12,
}

DIMENSION_VALUE_TYPE = {"UNKNOWN": 0, "VALUE": 1, "PARAM": 2}

#: The same codes as ``onnx.TensorProto.DataType`` for 0..20.
TENSOR_DATA_TYPE = {
    "UNDEFINED": 0,
    "FLOAT": 1,
    "UINT8": 2,
    "INT8": 3,
    "UINT16": 4,
    "INT16": 5,
    "INT32": 6,
    "INT64": 7,
    "STRING": 8,
    "BOOL": 9,
    "FLOAT16": 10,
    "DOUBLE": 11,
    "UINT32": 12,
    "UINT64": 13,
    "COMPLEX64": 14,
    "COMPLEX128": 15,
    "BFLOAT16": 16,
    "FLOAT8E4M3FN": 17,
    "FLOAT8E4M3FNUZ": 18,
    "FLOAT8E5M2": 19,
    "FLOAT8E5M2FNUZ": 20,
}

NODE_TYPE = {"Primitive": 0, "Fused": 1}

ARG_TYPE = {"INPUT": 0, "OUTPUT": 1}

#: Member tables of the ``TypeInfoValue`` union by type code.
TYPE_INFO_VALUE = {"TensorTypeAndShape": 1, "SequenceType": 2, "MapType": 3}


def _s(name: str) -> TypeRef:
    return TypeRef.scalar(name)


def _t(name: str) -> TypeRef:
    return TypeRef("table", name)


def _e(name: str) -> TypeRef:
    return TypeRef("enum", name)


def _vec(element: TypeRef) -> TypeRef:
    return TypeRef.vector(element)


_STR = TypeRef("string")


def build_schema() -> Schema:
    """Build a fresh :class:`Schema` of ``ort.fbs`` (use the shared :data:`ORT_SCHEMA`)."""
    s = Schema(root="InferenceSession", file_identifier=FILE_IDENTIFIER)

    s.enum("AttributeType", "int32", **ATTRIBUTE_TYPE)
    s.enum("DimensionValueType", "int8", **DIMENSION_VALUE_TYPE)
    s.enum("TensorDataType", "int32", **TENSOR_DATA_TYPE)
    s.enum("NodeType", "int32", **NODE_TYPE)
    s.enum("ArgType", "int8", **ARG_TYPE)

    s.struct(
        "EdgeEnd",
        ("node_index", _s("uint32")),
        ("src_arg_index", _s("int32")),
        ("dst_arg_index", _s("int32")),
    )

    # Types.
    s.table("Shape", Field("dim", 0, _vec(_t("Dimension"))))
    s.table(
        "Dimension",
        Field("value", 0, _t("DimensionValue")),
        Field("denotation", 1, _STR),
    )
    s.table(
        "DimensionValue",
        Field("dim_type", 0, _e("DimensionValueType")),
        Field("dim_value", 1, _s("int64")),
        Field("dim_param", 2, _STR),
    )
    s.table(
        "TensorTypeAndShape",
        Field("elem_type", 0, _e("TensorDataType")),
        Field("shape", 1, _t("Shape")),
    )
    s.table(
        "MapType",
        Field("key_type", 0, _e("TensorDataType")),
        Field("value_type", 1, _t("TypeInfo")),
    )
    s.table("SequenceType", Field("elem_type", 0, _t("TypeInfo")))
    s.union("TypeInfoValue", **TYPE_INFO_VALUE)
    # A union takes two slots: the uint8 type code (slot 1) and the value (slot 2).
    s.table(
        "TypeInfo",
        Field("denotation", 0, _STR),
        Field("value", 2, TypeRef("union", "TypeInfoValue")),
    )
    s.table(
        "ValueInfo",
        Field("name", 0, _STR),
        Field("doc_string", 1, _STR),
        Field("type", 2, _t("TypeInfo")),
    )

    # Nodes.
    s.table(
        "NodeEdge",
        Field("node_index", 0, _s("uint32")),
        Field("input_edges", 1, _vec(TypeRef("struct", "EdgeEnd"))),
        Field("output_edges", 2, _vec(TypeRef("struct", "EdgeEnd"))),
    )
    s.table(
        "Node",
        Field("name", 0, _STR),
        Field("doc_string", 1, _STR),
        Field("domain", 2, _STR),
        Field("since_version", 3, _s("int32")),
        Field("index", 4, _s("uint32")),
        Field("op_type", 5, _STR),
        Field("type", 6, _e("NodeType")),
        Field("execution_provider_type", 7, _STR),
        Field("inputs", 8, _vec(_STR)),
        Field("outputs", 9, _vec(_STR)),
        Field("attributes", 10, _vec(_t("Attribute"))),
        Field("input_arg_counts", 11, _vec(_s("int32"))),
        Field("implicit_inputs", 12, _vec(_STR)),
    )
    s.table(
        "Attribute",
        Field("name", 0, _STR),
        Field("doc_string", 1, _STR),
        Field("type", 2, _e("AttributeType")),
        Field("f", 3, _s("float32")),
        Field("i", 4, _s("int64")),
        Field("s", 5, _STR),
        Field("t", 6, _t("Tensor")),
        Field("g", 7, _t("Graph")),
        Field("floats", 8, _vec(_s("float32"))),
        Field("ints", 9, _vec(_s("int64"))),
        Field("strings", 10, _vec(_STR)),
        Field("tensors", 11, _vec(_t("Tensor"))),
        Field("graphs", 12, _vec(_t("Graph"))),
    )

    # Tensors.
    s.table(
        "Tensor",
        Field("name", 0, _STR),
        Field("doc_string", 1, _STR),
        Field("dims", 2, _vec(_s("int64"))),
        Field("data_type", 3, _e("TensorDataType")),
        Field("raw_data", 4, _vec(_s("uint8"))),
        Field("string_data", 5, _vec(_STR)),
        Field("external_data_offset", 6, _s("int64"), default=-1),
    )
    s.table(
        "SparseTensor",
        Field("values", 0, _t("Tensor")),
        Field("indices", 1, _t("Tensor")),
        Field("dims", 2, _vec(_s("int64"))),
    )

    # Runtime optimizations (saved by onnxruntime's "runtime" optimization style).
    s.table(
        "NodesToOptimizeIndices",
        Field("node_indices", 0, _vec(_s("uint32"))),
        Field("num_inputs", 1, _s("uint32")),
        Field("num_outputs", 2, _s("uint32")),
        Field("has_variadic_input", 3, _s("bool")),
        Field("has_variadic_output", 4, _s("bool")),
        Field("num_variadic_inputs", 5, _s("uint32")),
        Field("num_variadic_outputs", 6, _s("uint32")),
    )
    s.table(
        "DeprecatedNodeIndexAndKernelDefHash",
        Field("node_index", 0, _s("uint32")),
        Field("kernel_def_hash", 1, _s("uint64")),
    )
    s.table(
        "RuntimeOptimizationRecord",
        Field("action_id", 0, _STR),
        Field("nodes_to_optimize_indices", 1, _t("NodesToOptimizeIndices")),
        Field(
            "produced_nodes",
            2,
            _vec(_t("DeprecatedNodeIndexAndKernelDefHash")),
            deprecated=True,
        ),
        Field("produced_op_ids", 3, _vec(_STR)),
    )
    s.table(
        "RuntimeOptimizationRecordContainerEntry",
        Field("optimizer_name", 0, _STR, key=True),
        Field("runtime_optimization_records", 1, _vec(_t("RuntimeOptimizationRecord"))),
    )
    s.table(
        "RuntimeOptimizations",
        Field("records", 0, _vec(_t("RuntimeOptimizationRecordContainerEntry"))),
    )

    # Graph and model.
    s.table(
        "Graph",
        Field("initializers", 0, _vec(_t("Tensor"))),
        Field("node_args", 1, _vec(_t("ValueInfo"))),
        Field("nodes", 2, _vec(_t("Node"))),
        Field("max_node_index", 3, _s("uint32")),
        Field("node_edges", 4, _vec(_t("NodeEdge"))),
        Field("inputs", 5, _vec(_STR)),
        Field("outputs", 6, _vec(_STR)),
        Field("sparse_initializers", 7, _vec(_t("SparseTensor"))),
        Field("runtime_optimizations", 8, _t("RuntimeOptimizations")),
    )
    s.table("StringStringEntry", Field("key", 0, _STR), Field("value", 1, _STR))
    s.table("OperatorSetId", Field("domain", 0, _STR), Field("version", 1, _s("int64")))
    s.table(
        "Model",
        Field("ir_version", 0, _s("int64")),
        Field("opset_import", 1, _vec(_t("OperatorSetId"))),
        Field("producer_name", 2, _STR),
        Field("producer_version", 3, _STR),
        Field("domain", 4, _STR),
        Field("model_version", 5, _s("int64")),
        Field("doc_string", 6, _STR),
        Field("graph", 7, _t("Graph")),
        Field("graph_doc_string", 8, _STR),
        Field("metadata_props", 9, _vec(_t("StringStringEntry"))),
    )

    # Deprecated session state (kernel def hashes; format versions up to 4).
    s.table(
        "DeprecatedKernelCreateInfos",
        Field("node_indices", 0, _vec(_s("uint32"))),
        Field("kernel_def_hashes", 1, _vec(_s("uint64"))),
    )
    s.table(
        "DeprecatedSubGraphSessionState",
        Field("graph_id", 0, _STR, key=True),
        Field("session_state", 1, _t("DeprecatedSessionState")),
    )
    s.table(
        "DeprecatedSessionState",
        Field("kernels", 0, _t("DeprecatedKernelCreateInfos")),
        Field("sub_graph_session_states", 1, _vec(_t("DeprecatedSubGraphSessionState"))),
    )

    # Kernel type string resolver (format version 5 on).
    s.table(
        "ArgTypeAndIndex",
        Field("arg_type", 0, _e("ArgType")),
        Field("index", 1, _s("uint32")),
    )
    s.table(
        "KernelTypeStrArgsEntry",
        Field("kernel_type_str", 0, _STR, key=True),
        Field("args", 1, _vec(_t("ArgTypeAndIndex"))),
    )
    s.table(
        "OpIdKernelTypeStrArgsEntry",
        Field("op_id", 0, _STR, key=True),
        Field("kernel_type_str_args", 1, _vec(_t("KernelTypeStrArgsEntry"))),
    )
    s.table(
        "KernelTypeStrResolver",
        Field("op_kernel_type_str_args", 0, _vec(_t("OpIdKernelTypeStrArgsEntry"))),
    )

    # The root.
    s.table(
        "InferenceSession",
        Field("ort_version", 0, _STR),
        Field("model", 1, _t("Model")),
        Field("session_state", 2, _t("DeprecatedSessionState"), deprecated=True),
        Field("kernel_type_str_resolver", 3, _t("KernelTypeStrResolver")),
    )
    s.check()
    return s


#: The shared, checked schema of ``ort.fbs``.
ORT_SCHEMA: Schema = build_schema()
