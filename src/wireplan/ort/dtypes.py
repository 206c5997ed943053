"""The data types of .ort tensors: numpy dtypes, sizes, shapes, and onnxruntime's type strings.

Facts about ``TensorDataType`` codes (:data:`wireplan.ort.schema.TENSOR_DATA_TYPE`) that the
model, the reader, the writer and the passes share, and the one place that spells a type as
onnxruntime's kernel constraints do (``"tensor(float16)"``, ``"seq(tensor(int64))"``) and
reads such a spelling back.  Standard library, numpy and the schema only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from wireplan.ort.schema import TENSOR_DATA_TYPE

__all__ = [
    "ELEMENT_BYTES",
    "MAX_RANK",
    "NUMPY_DTYPES",
    "element_count",
    "numpy_dtype",
    "shape_problem",
    "split_type_string",
    "tensor_elem_type",
    "tensor_type_string",
    "type_name",
    "wrapped_type_string",
]

# ONNX's names for its data types, those past the .ort schema included (onnx.TensorProto.DataType).
_TYPE_NAMES = {code: name for name, code in TENSOR_DATA_TYPE.items()} | {
    21: "UINT4",
    22: "INT4",
    23: "FLOAT4E2M1",
    24: "FLOAT8E8M0",
    25: "UINT2",
    26: "INT2",
    27: "FLOAT6E2M3",
    28: "FLOAT6E3M2",
}


def type_name(code: int) -> str:
    """A data type's name for messages (``"FLOAT16"``), or ``"data type N"`` for an unknown one."""
    return _TYPE_NAMES.get(code) or f"data type {code}"


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
    if type(dims) is np.ndarray:
        dims = dims.tolist()  # Python ints: one conversion, not one per element
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
    if type(dims) is np.ndarray:
        dims = dims.tolist()
    count = 1
    for d in dims:
        count *= int(d)
    return count


# --- onnxruntime's type strings ----------------------------------------------------------------

_SPELLED = {code: name.lower() for name, code in TENSOR_DATA_TYPE.items() if code}


def tensor_type_string(elem_type: int) -> str | None:
    """A tensor of ``elem_type`` as onnxruntime spells it (``"tensor(float16)"``), or None."""
    name = _SPELLED.get(elem_type)
    return None if name is None else f"tensor({name})"


def wrapped_type_string(kind: str, inner: str | None) -> str | None:
    """``"seq(...)"`` or ``"optional(...)"`` around a spelled type (None stays None)."""
    return None if inner is None else f"{kind}({inner})"


def split_type_string(spelled: str) -> tuple[str, str] | None:
    """``("tensor", "float16")`` for ``"tensor(float16)"``, ``("seq", "tensor(int64)")`` ..."""
    kind, paren, rest = spelled.partition("(")
    if not paren or not spelled.endswith(")"):
        return None
    return kind, rest[:-1]


def tensor_elem_type(spelled: str) -> int | None:
    """The element type code of ``"tensor(NAME)"``; None for another spelling or name."""
    parts = split_type_string(spelled)
    if parts is None or parts[0] != "tensor":
        return None
    return TENSOR_DATA_TYPE.get(parts[1].upper())
