"""ExecuTorch's flatbuffer schemas as data: the program (``.pte``) and the bundled program (``.bpte``).

Read off ``schema/program.fbs``, ``schema/scalar_type.fbs`` and
``devtools/bundled_program/schema/bundled_program_schema.fbs`` of
pytorch/executorch v1.4.1 (unchanged on its main branch of 2026-08): table
and field names, field order (a field's vtable slot is its position; a
union takes two), types, defaults, ``force_align`` and file identifiers.
The two namespaces both name tables ``Tensor``, ``Int``, ``Bool`` and
``Double`` with different fields, so each is its own
:class:`~wireplan.flatbuffers.schema.Schema`.
"""

from __future__ import annotations

from wireplan.flatbuffers.schema import Field, Schema, TypeRef

__all__ = [
    "BUNDLED_ALIGNMENT",
    "BUNDLED_SCHEMA",
    "BUNDLED_VERSION",
    "FBS_SCALAR_TYPES",
    "PROGRAM_ALIGNMENT",
    "PROGRAM_SCHEMA",
]

#: ``executorch_flatbuffer.ScalarType`` (an int8 enum): the codes the schema names.  The
#: runtime's 8-10 (complex) and 18-21 (bits1x8..bits8) are not among them.
FBS_SCALAR_TYPES: dict[int, str] = {
    0: "BYTE",
    1: "CHAR",
    2: "SHORT",
    3: "INT",
    4: "LONG",
    5: "HALF",
    6: "FLOAT",
    7: "DOUBLE",
    11: "BOOL",
    12: "QINT8",
    13: "QUINT8",
    14: "QINT32",
    15: "BFLOAT16",
    16: "QUINT4X2",
    17: "QUINT2X4",
    22: "BITS16",
    23: "FLOAT8E5M2",
    24: "FLOAT8E4M3FN",
    25: "FLOAT8E5M2FNUZ",
    26: "FLOAT8E4M3FNUZ",
    27: "UINT16",
    28: "UINT32",
    29: "UINT64",
}

#: ``BUNDLED_PROGRAM_SCHEMA_VERSION`` of executorch's ``devtools/bundled_program/version.py``.
BUNDLED_VERSION = 2

#: ``force_align`` of vector fields: where their first element starts.
PROGRAM_ALIGNMENT = {("Buffer", "storage"): 16, ("BackendDelegateInlineData", "data"): 16}
BUNDLED_ALIGNMENT = {("Tensor", "data"): 16, ("BundledProgram", "program"): 32}

_S = TypeRef.scalar
_V = TypeRef.vector


def _t(name: str) -> TypeRef:
    return TypeRef("table", name)


def _e(name: str) -> TypeRef:
    return TypeRef("enum", name)


_STR = TypeRef("string")
_BYTES = _V(_S("uint8"))
_INTS = _V(_S("int32"))


def _fields(*spec: tuple[str, TypeRef] | tuple[str, TypeRef, int]) -> tuple[Field, ...]:
    """Fields in declaration order, slots counted as flatc counts them (a union takes two)."""
    out: list[Field] = []
    slot = 0
    for name, ftype, *default in spec:
        if ftype.kind == "union":
            slot += 1  # the type code's slot comes first
        out.append(Field(name, slot, ftype, default[0] if default else 0))
        slot += 1
    return tuple(out)


def _scalar_type_enum(s: Schema) -> None:
    s.enum("ScalarType", "int8", **{name: code for code, name in FBS_SCALAR_TYPES.items()})


def _value_tables(s: Schema) -> None:
    """``Int``, ``Bool`` and ``Double``: alike in both schemas."""
    s.table("Int", *_fields(("int_val", _S("int64"))))
    s.table("Bool", *_fields(("bool_val", _S("bool"))))
    s.table("Double", *_fields(("double_val", _S("float64"))))


def build_program_schema() -> Schema:
    """``executorch_flatbuffer.Program``, file identifier ``ET12``."""
    s = Schema("Program", b"ET12")
    _scalar_type_enum(s)
    s.enum("TensorShapeDynamism", "int8", STATIC=0, DYNAMIC_BOUND=1, DYNAMIC_UNBOUND=2)
    s.enum("TensorDataLocation", "int8", SEGMENT=0, EXTERNAL=1)
    s.enum("DeviceType", "int8", CPU=0, CUDA=1)
    s.enum("DataLocation", "int8", INLINE=0, SEGMENT=1)
    s.table("ContainerMetadata", *_fields(("encoded_inp_str", _STR), ("encoded_out_str", _STR)))
    s.table("Null")
    s.table(
        "AllocationDetails",
        *_fields(
            ("memory_id", _S("uint32")),
            ("memory_offset_low", _S("uint32")),
            ("memory_offset_high", _S("uint32")),
        ),
    )
    s.table(
        "ExtraTensorInfo",
        *_fields(
            ("mutable_data_segments_idx", _S("uint64")),
            ("fully_qualified_name", _STR),
            ("location", _e("TensorDataLocation")),
            ("device_type", _e("DeviceType")),
            ("device_index", _S("int8")),
        ),
    )
    s.table(
        "Tensor",
        *_fields(
            ("scalar_type", _e("ScalarType")),
            ("storage_offset", _S("int32")),
            ("sizes", _INTS),
            ("dim_order", _BYTES),
            ("requires_grad", _S("bool")),
            ("data_buffer_idx", _S("uint32")),
            ("allocation_info", _t("AllocationDetails")),
            ("layout", _S("int8")),
            ("shape_dynamism", _e("TensorShapeDynamism")),
            ("extra_tensor_info", _t("ExtraTensorInfo")),
        ),
    )
    _value_tables(s)
    s.table("String", *_fields(("string_val", _STR)))
    s.table("IntList", *_fields(("items", _V(_S("int64")))))
    s.table("DoubleList", *_fields(("items", _V(_S("float64")))))
    s.table("BoolList", *_fields(("items", _V(_S("bool")))))
    s.table("TensorList", *_fields(("items", _INTS)))  # indices into the plan's values
    s.table("OptionalTensorList", *_fields(("items", _INTS)))  # -1: None
    s.union(
        "KernelTypes",
        Null=1,
        Int=2,
        Bool=3,
        Double=4,
        Tensor=5,
        String=6,
        IntList=7,
        DoubleList=8,
        BoolList=9,
        TensorList=10,
        OptionalTensorList=11,
    )
    s.table("EValue", *_fields(("val", TypeRef("union", "KernelTypes"))))
    s.table("Operator", *_fields(("name", _STR), ("overload", _STR)))
    s.table("KernelCall", *_fields(("op_index", _S("int32")), ("args", _INTS)))
    s.table("DelegateCall", *_fields(("delegate_index", _S("int32")), ("args", _INTS)))
    s.table("MoveCall", *_fields(("move_from", _S("int32")), ("move_to", _S("int32"))))
    s.table(
        "JumpFalseCall",
        *_fields(("cond_value_index", _S("int32")), ("destination_instruction", _S("int32"))),
    )
    s.table("FreeCall", *_fields(("value_index", _S("int32"))))
    s.union(
        "InstructionArguments",
        KernelCall=1,
        DelegateCall=2,
        MoveCall=3,
        JumpFalseCall=4,
        FreeCall=5,
    )
    s.table("Instruction", *_fields(("instr_args", TypeRef("union", "InstructionArguments"))))
    s.table(
        "Frame",
        *_fields(("filename", _STR), ("lineno", _S("int32")), ("name", _STR), ("context", _STR)),
    )
    s.table("FrameList", *_fields(("items", _V(_t("Frame")))))
    s.table(
        "BackendDelegateDataReference",
        *_fields(("location", _e("DataLocation")), ("index", _S("uint32"))),
    )
    s.table("CompileSpec", *_fields(("key", _STR), ("value", _BYTES)))
    s.table(
        "BackendDelegate",
        *_fields(
            ("id", _STR),
            ("processed", _t("BackendDelegateDataReference")),
            ("compile_specs", _V(_t("CompileSpec"))),
        ),
    )
    s.table(
        "Chain",
        *_fields(
            ("inputs", _INTS),
            ("outputs", _INTS),
            ("instructions", _V(_t("Instruction"))),
            ("stacktrace", _V(_t("FrameList"))),
        ),
    )
    s.table(
        "NonConstBufferDevice",
        *_fields(
            ("buffer_idx", _S("int32")),
            ("device_type", _e("DeviceType")),
            ("device_index", _S("int8")),
        ),
    )
    s.table(
        "ExecutionPlan",
        *_fields(
            ("name", _STR),
            ("container_meta_type", _t("ContainerMetadata")),
            ("values", _V(_t("EValue"))),
            ("inputs", _INTS),
            ("outputs", _INTS),
            ("chains", _V(_t("Chain"))),
            ("operators", _V(_t("Operator"))),
            ("delegates", _V(_t("BackendDelegate"))),
            ("non_const_buffer_sizes", _V(_S("int64"))),
            ("non_const_buffer_device", _V(_t("NonConstBufferDevice"))),
        ),
    )
    s.table("Buffer", *_fields(("storage", _BYTES)))
    s.table("BackendDelegateInlineData", *_fields(("data", _BYTES)))
    s.table("DataSegment", *_fields(("offset", _S("uint64")), ("size", _S("uint64"))))
    s.table(
        "SubsegmentOffsets",
        *_fields(("segment_index", _S("uint32")), ("offsets", _V(_S("uint64")))),
    )
    s.table("NamedData", *_fields(("key", _STR), ("segment_index", _S("uint32"))))
    s.table(
        "Program",
        *_fields(
            ("version", _S("uint32")),
            ("execution_plan", _V(_t("ExecutionPlan"))),
            ("constant_buffer", _V(_t("Buffer"))),
            ("backend_delegate_data", _V(_t("BackendDelegateInlineData"))),
            ("segments", _V(_t("DataSegment"))),
            ("constant_segment", _t("SubsegmentOffsets")),
            ("mutable_data_segments", _V(_t("SubsegmentOffsets"))),
            ("named_data", _V(_t("NamedData"))),
        ),
    )
    s.check()
    return s


def build_bundled_schema() -> Schema:
    """``bundled_program_flatbuffer.BundledProgram``, file identifier ``BP08``."""
    s = Schema("BundledProgram", b"BP08")
    _scalar_type_enum(s)
    s.table(
        "Tensor",
        *_fields(
            ("scalar_type", _e("ScalarType")),
            ("sizes", _INTS),
            ("data", _BYTES),  # the storage's bytes, little-endian
            ("dim_order", _BYTES),
        ),
    )
    _value_tables(s)
    s.union("ValueUnion", Tensor=1, Int=2, Bool=3, Double=4)
    s.table("Value", *_fields(("val", TypeRef("union", "ValueUnion"))))
    s.table(
        "BundledMethodTestCase",
        *_fields(("inputs", _V(_t("Value"))), ("expected_outputs", _V(_t("Value")))),
    )
    s.table(
        "BundledMethodTestSuite",
        *_fields(("method_name", _STR), ("test_cases", _V(_t("BundledMethodTestCase")))),
    )
    s.table(
        "BundledProgram",
        *_fields(
            ("version", _S("uint32")),
            ("method_test_suites", _V(_t("BundledMethodTestSuite"))),
            ("program", _BYTES),  # a whole .pte, nested
        ),
    )
    s.check()
    return s


PROGRAM_SCHEMA = build_program_schema()
BUNDLED_SCHEMA = build_bundled_schema()
