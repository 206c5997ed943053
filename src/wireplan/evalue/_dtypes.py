"""ExecuTorch ``ScalarType`` numbering and its numpy counterparts.

Each code of ExecuTorch's ``runtime/core/portable_type/scalar_type.h`` gets a
:class:`ScalarTypeInfo`: its name, element size, whether ExecuTorch's Java
layer accepts it (the default, non-``extended`` set), and how numpy holds it.

Three kinds of numpy representation exist:

- plain numpy dtypes (``float32``...): the wire view is the same dtype in
  big-endian order, and one ``numpy.copyto`` swaps bytes while it copies;
- ``ml_dtypes`` types (``bfloat16``, the float8 variants): imported lazily,
  only when such a tensor is decoded.  numpy cannot byte-swap them, so the
  copy runs on their bits, and a zero-copy view of a bfloat16 tensor is a
  :class:`RawTensor` (float8 is one byte: nothing to swap, views keep the type);
- no numpy type at all (``complex32``, the quantized and bit types): such
  tensors decode, with ``extended=True``, to :class:`wireplan.evalue.RawTensor`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "JAVA_SCALAR_TYPES",
    "SCALAR_TYPES",
    "ScalarTypeInfo",
    "info_for_code",
    "info_for_dtype",
]


@dataclass(frozen=True, slots=True)
class ScalarTypeInfo:
    """One ExecuTorch scalar type.

    ``native`` is the numpy dtype a decoded, copied tensor has (``None`` when
    numpy cannot hold the type); ``wire`` is the dtype of a zero-copy view of
    the wire bytes; ``bits`` is the native-order dtype that the copy runs on
    (``native`` itself for plain numpy types, an unsigned integer of the same
    size for ``ml_dtypes`` types).
    """

    code: int
    name: str
    itemsize: int
    java: bool
    native: np.dtype[Any] | None
    wire: np.dtype[Any]
    bits: np.dtype[Any]

    @property
    def numpy_ok(self) -> bool:
        """True when decoded tensors of this type are numpy arrays."""
        return self.native is not None


def _plain(code: int, name: str, dtype: str, java: bool) -> ScalarTypeInfo:
    native = np.dtype(dtype)
    return ScalarTypeInfo(
        code, name, native.itemsize, java, native, native.newbyteorder(">"), native
    )


def _raw(code: int, name: str, itemsize: int) -> ScalarTypeInfo:
    bits = np.dtype(f"u{itemsize}")
    return ScalarTypeInfo(code, name, itemsize, False, None, bits.newbyteorder(">"), bits)


# ml_dtypes names by code; their infos are built on first use.
_ML_DTYPES: dict[int, tuple[str, int]] = {
    15: ("bfloat16", 2),
    23: ("float8_e5m2", 1),
    24: ("float8_e4m3fn", 1),
    25: ("float8_e5m2fnuz", 1),
    26: ("float8_e4m3fnuz", 1),
}

_PLAIN: tuple[ScalarTypeInfo, ...] = (
    _plain(0, "uint8", "u1", True),
    _plain(1, "int8", "i1", True),
    _plain(2, "int16", "i2", False),
    _plain(3, "int32", "i4", True),
    _plain(4, "int64", "i8", True),
    _plain(5, "float16", "f2", True),
    _plain(6, "float32", "f4", True),
    _plain(7, "float64", "f8", True),
    _plain(9, "complex64", "c8", False),
    _plain(10, "complex128", "c16", False),
    _plain(11, "bool", "?", False),
    _plain(27, "uint16", "u2", False),
    _plain(28, "uint32", "u4", False),
    _plain(29, "uint64", "u8", False),
)

_RAW: tuple[ScalarTypeInfo, ...] = (
    _raw(8, "complex32", 4),
    _raw(12, "qint8", 1),
    _raw(13, "quint8", 1),
    _raw(14, "qint32", 4),
    _raw(16, "quint4x2", 1),
    _raw(17, "quint2x4", 1),
    _raw(18, "bits1x8", 1),
    _raw(19, "bits2x4", 1),
    _raw(20, "bits4x2", 1),
    _raw(21, "bits8", 1),
    _raw(22, "bits16", 2),
)

#: Every ScalarType name by code, 0..29.
SCALAR_TYPES: dict[int, str] = {
    **{i.code: i.name for i in _PLAIN},
    **{i.code: i.name for i in _RAW},
    **{code: name for code, (name, _) in _ML_DTYPES.items()},
}
SCALAR_TYPES = dict(sorted(SCALAR_TYPES.items()))

#: The codes ExecuTorch's Java layer encodes and decodes.
JAVA_SCALAR_TYPES: frozenset[int] = frozenset(i.code for i in _PLAIN if i.java)

#: The codes numpy holds (``ml_dtypes``' among them, whether it is installed or not): the
#: decoder checks their tensors as numpy would read them.
NUMPY_TYPE_CODES: frozenset[int] = frozenset((*(i.code for i in _PLAIN), *_ML_DTYPES))

# Decoding: code -> info.  ml_dtypes entries are filled in lazily.
_BY_CODE: dict[int, ScalarTypeInfo] = {i.code: i for i in (*_PLAIN, *_RAW)}
# Encoding: native numpy dtype -> info.
_BY_DTYPE: dict[np.dtype[Any], ScalarTypeInfo] = {i.wire.newbyteorder("="): i for i in _PLAIN}
_ML_BY_NAME: dict[str, int] = {name: code for code, (name, _) in _ML_DTYPES.items()}


def _ml_info(code: int) -> ScalarTypeInfo:
    name, itemsize = _ML_DTYPES[code]
    import ml_dtypes  # only extended dtypes need it

    native = np.dtype(getattr(ml_dtypes, name))
    if itemsize == 1:  # nothing to swap: view and copy as the type itself
        info = ScalarTypeInfo(code, name, 1, False, native, native, native)
    else:
        bits = np.dtype(f"u{itemsize}")
        info = ScalarTypeInfo(code, name, itemsize, False, native, bits.newbyteorder(">"), bits)
    _BY_CODE[code] = info
    _BY_DTYPE[native] = info
    return info


def _ml_raw_info(code: int) -> ScalarTypeInfo:
    # Without ml_dtypes, bfloat16 and float8 tensors still decode, as RawTensor.
    name, itemsize = _ML_DTYPES[code]
    bits = np.dtype(f"u{itemsize}")
    return ScalarTypeInfo(code, name, itemsize, False, None, bits.newbyteorder(">"), bits)


def info_for_code(code: int) -> ScalarTypeInfo | None:
    """The scalar type with this code, ``None`` for a code ExecuTorch does not define."""
    info = _BY_CODE.get(code)
    if info is None and code in _ML_DTYPES:
        try:
            info = _ml_info(code)
        except ImportError:
            info = _ml_raw_info(code)
    return info


def info_for_dtype(dtype: np.dtype[Any]) -> ScalarTypeInfo | None:
    """The scalar type of an array's dtype (any byte order), ``None`` if there is none."""
    info = _BY_DTYPE.get(dtype)
    if info is not None:
        return info
    if dtype.byteorder in "<>" and dtype.kind in "biufc" and dtype.fields is None:
        return _BY_DTYPE.get(dtype.newbyteorder("="))
    code = _ML_BY_NAME.get(dtype.name)
    if code is not None and dtype.isbuiltin == 2:
        # The array exists, so ml_dtypes is already imported.
        return _ml_info(code)
    return None
