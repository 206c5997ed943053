"""The EValue codec (one concern): a value <-> the bytes of ExecuTorch's Java ``EValue``.

Wire layout (big-endian throughout)::

    u8 tag, then
      0 None    nothing
      1 Tensor  u8 scalar_type, i8 rank, rank x i32 size, row-major elements
      2 String  u32 byte length, bytes (UTF-8 for text)
      3 Double  IEEE-754 binary64
      4 Int     int64
      5 Bool    u8 0 or 1

There is no payload length: a tensor's data runs to the end of the buffer.

Every value is first turned into :class:`_Parts`: the header bytes, and for
tensors and byte strings an array whose elements follow the header, with the
big-endian dtype they take on the wire.  From 64 KiB on they become a core
plan of two regions that :func:`wireplan.core.executor.execute` runs: one
byte-swapping copy, so encoding runs at copy speed.  The scalar paths skip all
this: a precompiled :class:`struct.Struct` each, dispatched on the exact type.
"""

from __future__ import annotations

import importlib
import math
import operator
import struct
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from wireplan.core.alloc import fill_new_bytes
from wireplan.core.buffers import as_memoryview
from wireplan.core.executor import execute
from wireplan.core.plan import Plan, Region
from wireplan.core.text import count
from wireplan.errors import ArgumentError, DecodeError, EncodeError, LimitError
from wireplan.evalue._dtypes import (
    JAVA_SCALAR_TYPES,
    NUMPY_TYPE_CODES,
    SCALAR_TYPES,
    ScalarTypeInfo,
    info_for_code,
    info_for_dtype,
)
from wireplan.evalue._types import EValue, RawTensor

__all__ = [
    "MAX_RANK",
    "MAX_SIZE",
    "EValue",
    "RawTensor",
    "decode",
    "encode",
    "encode_into",
    "encoded_size",
]

TAG_NONE: Final = 0
TAG_TENSOR: Final = 1
TAG_STRING: Final = 2
TAG_DOUBLE: Final = 3
TAG_INT: Final = 4
TAG_BOOL: Final = 5

TAG_NAMES: Final = ("None", "Tensor", "String", "Double", "Int", "Bool")
# Tags of ExecuTorch's C++ runtime that the Java wire format does not carry.
_CXX_ONLY_TAGS: Final = {
    6: "ListBool",
    7: "ListDouble",
    8: "ListInt",
    9: "ListTensor",
    10: "ListScalar",
    11: "ListOptionalTensor",
}

#: The largest rank the wire format can carry (an ``i8``).
MAX_RANK: Final = 127
#: The largest dimension size the wire format can carry (an ``i32``).
MAX_SIZE: Final = 2**31 - 1
_MAX_STRING: Final = 2**32 - 1
# numpy refuses arrays whose byte size does not fit in an intp.
_MAX_NBYTES: Final = sys.maxsize

# Below this many bytes, encode() builds the result by concatenation.
_SMALL: Final = 1 << 16

_INT = struct.Struct(">bq")
_DOUBLE = struct.Struct(">bd")
_STR_HEAD = struct.Struct(">BI")
_TENSOR_HEAD = struct.Struct(">BBb")
_UNPACK_INT = struct.Struct(">xq")
_UNPACK_DOUBLE = struct.Struct(">xd")
_U32 = struct.Struct(">I")
_I64 = struct.Struct(">q")
_F64 = struct.Struct(">d")

_pack_int = _INT.pack
_pack_double = _DOUBLE.pack
_unpack_int = _UNPACK_INT.unpack
_unpack_double = _UNPACK_DOUBLE.unpack

_NONE_BYTES: Final = b"\x00"
_TRUE_BYTES: Final = b"\x05\x01"
_FALSE_BYTES: Final = b"\x05\x00"

_U8: Final = np.dtype(np.uint8)


# ---------------------------------------------------------------------------
# Encoding
# ---------------------------------------------------------------------------


@dataclass(slots=True)
class _Parts:
    """An encoded value before the bytes move: header, then ``data`` as ``wire``."""

    head: bytes
    data: np.ndarray[Any, Any] | None = None
    wire: np.dtype[Any] | None = None

    @property
    def size(self) -> int:
        if self.data is None:
            return len(self.head)
        assert self.wire is not None
        return len(self.head) + self.data.size * self.wire.itemsize


def _max_ndim() -> int:
    for n in (64, 32):
        try:
            np.empty((1,) * n)
        except ValueError:
            continue
        return n
    return 32  # pragma: no cover - every supported numpy holds 32


#: The largest rank numpy arrays can have (64 from numpy 2 on, 32 before); deeper tensors
#: decode to RawTensor.
NUMPY_MAX_RANK: Final = _max_ndim()
#: Up to this rank a tensor of a type numpy holds is checked as numpy would read it (bool
#: bytes 0 or 1, an element count numpy can multiply), whichever numpy is installed: the
#: rank numpy 2 holds, and the C++ reader's ``kCheckedMaxRank``.
CHECKED_MAX_RANK: Final = 64

_TENSOR_SIZES: list[struct.Struct] = [struct.Struct(f">{n}i") for n in range(MAX_RANK + 1)]


def _int_range_error(value: int, path: str = "$") -> EncodeError:
    return EncodeError(
        f"Int {value} is outside int64 (EValue Int is 64-bit two's complement)", path
    )


def _flat_bytes(value: Any, path: str) -> memoryview:
    try:
        return as_memoryview(value)
    except ValueError:
        raise EncodeError("a byte payload must be a contiguous buffer", path) from None
    except TypeError:
        t = type(value)
        raise EncodeError(
            f"a byte payload must be a bytes-like object, not {t.__module__}.{t.__qualname__}",
            path,
        ) from None


def _string_parts(payload: Any, path: str) -> _Parts:
    n = len(payload)
    if n > _MAX_STRING:
        raise EncodeError(f"String of {n} bytes exceeds the u32 length field", path)
    if n <= _SMALL:
        return _Parts(_STR_HEAD.pack(TAG_STRING, n) + payload)
    return _Parts(_STR_HEAD.pack(TAG_STRING, n), np.frombuffer(payload, _U8), _U8)


def _encode_text(value: str, path: str) -> bytes:
    try:
        return value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise EncodeError(
            f"String is not valid Unicode (lone surrogate at character {exc.start})", path
        ) from None


def _tensor_head(code: int, shape: tuple[int, ...], path: str) -> bytes:
    rank = len(shape)
    if rank > MAX_RANK:
        raise EncodeError(f"Tensor rank {rank} exceeds the wire limit of {MAX_RANK}", path)
    for i, n in enumerate(shape):
        if n > MAX_SIZE or n < 0:
            raise EncodeError(
                f"Tensor size {n} in dimension {i} does not fit the i32 size field", path
            )
    return _TENSOR_HEAD.pack(TAG_TENSOR, code, rank) + _TENSOR_SIZES[rank].pack(*shape)


def _array_parts(arr: np.ndarray[Any, Any], extended: bool, path: str) -> _Parts:
    info = info_for_dtype(arr.dtype)
    if info is None:
        raise EncodeError(f"numpy dtype {arr.dtype} has no ExecuTorch scalar type", path)
    if not info.java and not extended:
        raise EncodeError(
            f"dtype {info.name} is not one of the tensor types ExecuTorch's Java layer "
            "accepts (uint8, int8, int32, int64, float16, float32, float64); "
            f"pass extended=True to write it anyway{_scalar_hint(arr)}",
            path,
        )
    head = _tensor_head(info.code, arr.shape, path)
    src = arr if info.bits is info.native else arr.view(info.bits)
    return _Parts(head, src, info.wire)


# A numpy scalar (or rank-0 array) of these kinds has a plain EValue of its own.
_PLAIN_OF_KIND: Final = {"b": ("a Bool", "bool"), "i": ("an Int", "int"), "u": ("an Int", "int")}


def _scalar_hint(arr: np.ndarray[Any, Any]) -> str:
    """For a rank-0 array refused as a tensor: the plain EValue it may have been meant as."""
    plain = _PLAIN_OF_KIND.get(arr.dtype.kind) if arr.ndim == 0 else None
    if plain is None:
        return ""
    return f" (a numpy scalar is a rank-0 Tensor; for {plain[0]} EValue pass {plain[1]}(value))"


def _raw_parts(raw: RawTensor, extended: bool, path: str) -> _Parts:
    info = info_for_code(raw.scalar_type)
    if info is None:
        raise EncodeError(f"unknown scalar type {raw.scalar_type}", path)
    if not info.java and not extended:
        raise EncodeError(
            f"scalar type {info.name} is not one ExecuTorch's Java layer accepts; "
            "pass extended=True to write it anyway",
            path,
        )
    try:
        shape = tuple(operator.index(n) for n in raw.shape)
    except TypeError:
        raise EncodeError("RawTensor shape must hold integers", path) from None
    head = _tensor_head(info.code, shape, path)
    need = math.prod(shape) * info.itemsize
    data = np.frombuffer(_flat_bytes(raw.data, path), _U8)
    if data.size != need:
        raise EncodeError(
            f"RawTensor of shape {list(shape)} and type {info.name} needs {need} data bytes, "
            f"holds {data.size}",
            path,
        )
    return _Parts(head, data, _U8)


# Tensors of other libraries, by the top package of their type: the wireplan module whose
# ``tensor_to_numpy`` converts them.  The codec loads it by name when it meets such a tensor
# (the library is imported then: its tensor exists) and never imports it, as that module sits
# above the codec (wireplan.evalue.torch, torch's one door, builds the dataset on the records).
_CONVERTERS: Final = {"torch": "wireplan.evalue.torch"}


def _converter(value: object) -> Callable[[Any], np.ndarray[Any, Any] | RawTensor] | None:
    """The ``tensor_to_numpy`` for ``value`` when it is another library's tensor, else None."""
    door = _CONVERTERS.get(type(value).__module__.partition(".")[0])
    if door is None or not hasattr(value, "__dlpack__"):
        return None
    convert: Callable[[Any], np.ndarray[Any, Any] | RawTensor]
    convert = importlib.import_module(door).tensor_to_numpy
    return convert


def _parts(value: Any, extended: bool, path: str = "$") -> _Parts:
    """Split ``value`` into header bytes and the elements that follow them."""
    t = type(value)
    if t is int:
        try:
            return _Parts(_pack_int(TAG_INT, value))
        except struct.error:
            raise _int_range_error(value, path) from None
    if t is float:
        return _Parts(_pack_double(TAG_DOUBLE, value))
    if t is bool:
        return _Parts(_TRUE_BYTES if value else _FALSE_BYTES)
    if value is None:
        return _Parts(_NONE_BYTES)
    if t is str:
        return _string_parts(_encode_text(value, path), path)
    if t is np.ndarray:
        return _array_parts(value, extended, path)
    if t is bytes or t is bytearray:
        return _string_parts(value, path)
    if t is memoryview:
        return _string_parts(_flat_bytes(value, path), path)
    if t is RawTensor:
        return _raw_parts(value, extended, path)
    # Subclasses and the rarer types.
    if isinstance(value, np.ma.MaskedArray):
        if np.ma.getmaskarray(value).any():
            raise EncodeError(
                "a masked array with masked elements: an EValue tensor has no mask; "
                "pass arr.filled(fill_value) (or arr.data to keep the hidden values)",
                path,
            )
        return _array_parts(np.asarray(value.data), extended, path)
    if isinstance(value, np.ndarray | np.generic):
        return _array_parts(np.asarray(value), extended, path)
    if isinstance(value, bool):
        return _Parts(_TRUE_BYTES if value else _FALSE_BYTES)
    if isinstance(value, int):
        return _parts(int(value), extended, path)
    if isinstance(value, float):
        return _Parts(_pack_double(TAG_DOUBLE, float(value)))
    if isinstance(value, str):
        return _string_parts(_encode_text(str(value), path), path)
    if isinstance(value, bytes | bytearray | memoryview):
        return _string_parts(_flat_bytes(value, path), path)
    convert = _converter(value)
    if convert is not None:
        arr = convert(value)
        if isinstance(arr, RawTensor):
            return _raw_parts(arr, extended, path)
        return _array_parts(arr, extended, path)
    hint = ""
    if isinstance(value, list | tuple):  # no list on the Java wire; wireplan frames them
        hint = ": EValue has no list type (encode_list writes a list of EValues)"
    raise EncodeError(f"cannot encode a {t.__module__}.{t.__qualname__} as an EValue{hint}", path)


def _plan(parts: _Parts, offset: int) -> Plan:
    """The regions of one encoded value at ``offset``: its header, then its data (if any)."""
    plan = Plan()
    head = parts.head
    plan.place(offset, len(head), source=head, name="header")
    data = parts.data
    if data is not None:
        assert parts.wire is not None
        plan.place(
            offset + len(head),
            data.size * parts.wire.itemsize,
            source=data,
            dtype=parts.wire,
            name="data",
        )
    return plan


def _write(parts: _Parts, dest: np.ndarray[Any, Any], offset: int) -> int:
    """Write ``parts`` into the uint8 array ``dest`` at ``offset``; return the end.

    One plan of one or two regions, run by the core's executor (serially:
    one value is one copy).
    """
    plan = _plan(parts, offset)
    execute(plan, dest, threads=1)
    return plan.size


def encode(value: Any, *, extended: bool = False) -> bytes:
    """Encode one value as an EValue; the bytes ExecuTorch's Java ``EValue.fromByteArray`` reads.

    ``None``, ``bool``, ``int`` (int64 range), ``float``, ``str`` (UTF-8),
    bytes-like objects (a String payload as is), numpy arrays and scalars,
    torch tensors (when torch is installed) and :class:`RawTensor`.  Tensor
    dtypes are the seven Java accepts unless ``extended=True``.  Arrays of
    any memory order are written row-major.  Raises :class:`EncodeError`.
    """
    t = type(value)
    if t is int:
        try:
            return _pack_int(4, value)  # TAG_INT
        except struct.error:
            raise _int_range_error(value) from None
    if t is float:
        return _pack_double(3, value)  # TAG_DOUBLE
    if t is bool:
        return _TRUE_BYTES if value else _FALSE_BYTES
    if value is None:
        return _NONE_BYTES
    parts = _parts(value, extended)
    if parts.data is None:
        return parts.head
    size = parts.size
    if size <= _SMALL:
        assert parts.wire is not None
        return parts.head + np.asarray(parts.data, dtype=parts.wire, order="C").tobytes()
    return fill_new_bytes(size, lambda dest: _write(parts, dest, 0))


def encoded_size(value: Any, *, extended: bool = False) -> int:
    """The number of bytes :func:`encode` produces for ``value``."""
    t = type(value)
    if t is int or t is float:
        if t is int and not -(2**63) <= value < 2**63:
            raise _int_range_error(value)
        return 9
    if t is bool:
        return 2
    if value is None:
        return 1
    return _parts(value, extended).size


def encode_into(value: Any, buffer: Any, offset: int = 0, *, extended: bool = False) -> int:
    """Encode ``value`` into the writable ``buffer`` at ``offset``; return the bytes written.

    ``buffer`` is any writable, contiguous bytes-like object: a
    ``bytearray``, a writable ``mmap`` or ``memoryview``, a C-contiguous
    numpy array (its bytes).  Raises :class:`EncodeError` when the value
    cannot be encoded, the buffer is read-only or not contiguous, or the
    value does not fit; nothing is written then.
    """
    parts = _parts(value, extended)
    if isinstance(buffer, np.ndarray):
        # reshape() of a non-contiguous array would copy: the bytes would go nowhere.
        if not buffer.flags.c_contiguous:
            raise EncodeError("encode_into needs a C-contiguous buffer")
        dest = buffer.reshape(-1).view(_U8) if buffer.dtype != _U8 or buffer.ndim != 1 else buffer
    else:
        try:
            dest = np.frombuffer(as_memoryview(buffer), _U8)
        except ValueError:
            raise EncodeError("encode_into needs a contiguous buffer") from None
    if not dest.flags.writeable:
        raise EncodeError("encode_into needs a writable buffer")
    offset = operator.index(offset)
    size = parts.size
    if offset < 0 or offset + size > dest.shape[0]:
        raise EncodeError(
            f"the value needs {size} bytes at offset {offset}; the buffer holds {dest.shape[0]}"
        )
    _write(parts, dest, offset)
    return size


# ---------------------------------------------------------------------------
# Decoding
# ---------------------------------------------------------------------------


def _truncated(what: str, need: int, pos: int, end: int) -> DecodeError:
    have = end - pos
    return DecodeError(
        f"truncated: {what} needs {need} bytes, {have} remain", pos if have > 0 else end
    )


def _trailing(pos: int, end: int) -> DecodeError:
    return DecodeError(f"{count(end - pos, 'trailing byte')} after the value", pos)


def _decode_tensor(
    mv: memoryview, pos: int, end: int, copy: bool, extended: bool
) -> np.ndarray[Any, Any] | RawTensor:
    # pos is the scalar_type byte, just after the tag.
    if end - pos < 2:
        raise _truncated("a Tensor header (scalar type, rank)", 2, pos, end)
    code = mv[pos]
    rank = mv[pos + 1]
    if not extended and code not in JAVA_SCALAR_TYPES:
        if code not in SCALAR_TYPES:
            raise DecodeError(f"unknown tensor scalar type {code}", pos)
        raise DecodeError(
            f"tensor scalar type {code} ({SCALAR_TYPES[code]}) is not one ExecuTorch's "
            "Java layer accepts; pass extended=True to read it",
            pos,
        )
    info = info_for_code(code)
    if info is None:
        raise DecodeError(f"unknown tensor scalar type {code}", pos)
    if rank > MAX_RANK:
        raise DecodeError(f"negative tensor rank {rank - 256}", pos + 1)
    sizes_at = pos + 2
    data_at = sizes_at + 4 * rank
    if data_at > end:
        raise _truncated(f"a rank-{rank} Tensor's sizes", 4 * rank, sizes_at, end)
    shape: tuple[int, ...] = _TENSOR_SIZES[rank].unpack_from(mv, sizes_at)
    count = 1
    for i, n in enumerate(shape):
        if n < 0:
            raise DecodeError(f"negative tensor size {n} in dimension {i}", sizes_at + 4 * i)
        count *= n
    return _tensor_data(mv, info, shape, count, data_at, end, copy)


def _tensor_data(
    mv: memoryview,
    info: ScalarTypeInfo,
    shape: tuple[int, ...],
    count: int,
    data_at: int,
    end: int,
    copy: bool,
) -> np.ndarray[Any, Any] | RawTensor:
    need = count * info.itemsize
    have = end - data_at
    if need > have:
        raise LimitError(
            f"Tensor of shape {list(shape)} and type {info.name} declares {need} data bytes, "
            f"only {have} remain",
            data_at,
        )
    if need < have:
        raise _trailing(data_at + need, end)
    rank = len(shape)
    if info.code in NUMPY_TYPE_CODES and rank <= CHECKED_MAX_RANK:
        # The checks of a tensor of a type numpy holds, whichever numpy (1.x holds rank 32
        # at most, 2.x 64) and whether ml_dtypes is installed: what is refused does not change.
        if count == 0:
            # numpy still multiplies every size; keep it from overflowing (with or without
            # a copy).
            nonzero = math.prod(n for n in shape if n)
            if nonzero * info.itemsize > _MAX_NBYTES:
                raise LimitError(f"Tensor shape {list(shape)} overflows the element count", data_at)
        elif info.code == 11:  # bool: only 0 and 1 are valid bytes
            raw = np.frombuffer(mv, _U8, need, data_at)
            if raw.max() > 1:
                first = int(np.flatnonzero(raw > 1)[0])
                raise DecodeError(
                    f"Bool tensor element {first} is {raw[first]}, not 0 or 1", data_at + first
                )
    if info.native is None or rank > NUMPY_MAX_RANK:
        data = mv[data_at:end]
        return RawTensor(info.code, shape, bytes(data) if copy else data.toreadonly())
    if not copy and info.bits is not info.native:
        # numpy has no big-endian bfloat16: a zero-copy view keeps its type as a RawTensor.
        return RawTensor(info.code, shape, mv[data_at:end].toreadonly())
    if count == 0:
        if copy:
            return np.empty(shape, info.native)
        empty = np.empty(shape, info.wire)  # the dtype a view has, even with no elements
        empty.flags.writeable = False
        return empty
    # A view must stay read-only: over a writable buffer (a bytearray), a
    # view of a read-only memoryview cannot have its writeable flag set back.
    src = mv if copy or mv.readonly else mv.toreadonly()
    wire_view = np.frombuffer(src, info.wire, count, data_at).reshape(shape)
    if not copy:
        return wire_view
    out = np.empty(shape, info.native)
    if need < _SMALL:
        np.copyto(out if info.bits is info.native else out.view(info.bits), wire_view)
    else:  # one region, run by the core's executor: wire bytes -> native array
        execute([Region(0, need, source=wire_view, dtype=info.bits)], out, threads=1)
    return out


def _decode_at(mv: memoryview, pos: int, end: int, copy: bool, extended: bool, text: bool) -> Any:
    """Decode the one value that fills ``mv[pos:end]`` exactly."""
    if pos >= end:
        raise DecodeError("empty input: an EValue needs at least its tag byte", pos)
    tag = mv[pos]
    pos += 1
    if tag in (TAG_INT, TAG_DOUBLE):
        if end - pos < 8:
            raise _truncated(TAG_NAMES[tag], 8, pos, end)
        if end - pos > 8:
            raise _trailing(pos + 8, end)
        return (_I64 if tag == TAG_INT else _F64).unpack_from(mv, pos)[0]
    if tag == TAG_TENSOR:
        return _decode_tensor(mv, pos, end, copy, extended)
    if tag == TAG_STRING:
        if end - pos < 4:
            raise _truncated("a String length", 4, pos, end)
        n = _U32.unpack_from(mv, pos)[0]
        pos += 4
        if n > end - pos:
            raise LimitError(f"String declares {n} bytes, only {end - pos} remain", pos)
        if n < end - pos:
            raise _trailing(pos + n, end)
        payload = mv[pos:end]
        if not text:
            return bytes(payload)
        try:
            return str(payload, "utf-8")
        except UnicodeDecodeError as exc:
            raise DecodeError(
                f"String is not valid UTF-8 ({exc.reason})", pos + exc.start
            ) from None
    if tag == TAG_BOOL:
        if pos >= end:
            raise _truncated("a Bool", 1, pos, end)
        if end - pos > 1:
            raise _trailing(pos + 1, end)
        b = mv[pos]
        if b > 1:
            raise DecodeError(f"Bool byte is {b}, not 0 or 1", pos)
        return b == 1
    if tag == TAG_NONE:
        if pos != end:
            raise _trailing(pos, end)
        return None
    if tag in _CXX_ONLY_TAGS:
        raise DecodeError(
            f"tag {tag} ({_CXX_ONLY_TAGS[tag]}) exists in ExecuTorch's C++ runtime "
            "but not in the Java wire format",
            pos - 1,
        )
    raise DecodeError(f"unknown EValue tag {tag}", pos - 1)


def decode(data: Any, *, copy: bool = True, extended: bool = False, text: bool = True) -> Any:
    """Decode one EValue that fills ``data`` (any bytes-like object) exactly.

    Tensors come back as numpy arrays: with ``copy=True`` a native-endian,
    writable array the caller owns; with ``copy=False`` a read-only
    big-endian view over ``data`` (no byte copied, constant time), valid as
    long as ``data``'s memory is (the view keeps the object alive, but a
    mutable buffer changed later changes the view, and a closed mmap ends
    it).  Strings come back as ``str``, or as ``bytes`` with ``text=False``.
    Scalar types beyond Java's seven need ``extended=True``.

    Raises :class:`DecodeError` (with the byte offset) for any malformed
    input, :class:`LimitError` when a declared size exceeds the input.
    """
    # The scalar fast path: exact type, exact length, tag, unpack.
    if type(data) is bytes:
        n = len(data)
        if n == 9:
            tag = data[0]
            if tag == 4:  # TAG_INT
                return _unpack_int(data)[0]
            if tag == 3:  # TAG_DOUBLE
                return _unpack_double(data)[0]
        elif n == 2:
            if data == _TRUE_BYTES:
                return True
            if data == _FALSE_BYTES:
                return False
        elif n == 1 and data == _NONE_BYTES:
            return None
    mv = input_view(data, "decode")
    return _decode_at(mv, 0, mv.nbytes, copy, extended, text)


def input_view(data: Any, who: str) -> memoryview:
    """``data`` as a flat byte memoryview; :class:`ArgumentError` for what is not contiguous bytes.

    A wrong argument is a programming error, not malformed input: like
    ``struct.unpack``, the decoders raise a ``TypeError`` for it (an
    ``ArgumentError`` is one).
    """
    try:
        return as_memoryview(data)
    except ValueError as exc:  # an ArgumentError from the core: not contiguous
        raise ArgumentError(f"{who} needs a contiguous bytes-like object: {exc}") from None
    except TypeError:  # memoryview's own: not a buffer at all
        t = type(data)
        raise ArgumentError(
            f"{who} needs a bytes-like object, not {t.__module__}.{t.__qualname__}"
        ) from None
