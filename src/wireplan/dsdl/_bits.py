"""The fast path's bit and byte helpers: what generated serializers and deserializers call.

Bool arrays and odd-width integer arrays packed into one integer, floats at
non-byte-aligned offsets, byte-aligned arrays through ``struct`` or numpy,
and the ``struct`` tables generated code keeps.  A helper that meets a value
outside its domain raises one of :data:`FAST_PATH_ERRORS`, which sends the
value down the slow path (:func:`wireplan.dsdl._cast.normalize`).  Everything
here is re-exported by :mod:`wireplan.dsdl.runtime`, the module generated
code imports.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from math import isnan as _isnan
from typing import Any

import numpy as np

from wireplan.errors import ArgumentError, DecodeError, EncodeError

__all__ = [
    "DTYPES",
    "FAST_PATH_ERRORS",
    "LARGE",
    "LARGE_WIDE",
    "SEQUENCES",
    "Kind",
    "PackCache",
    "StructError",
    "bits_to_float",
    "bools_at",
    "bools_to_bytes",
    "bools_to_int",
    "float_to_bits",
    "head_table",
    "int_to_bool_array",
    "int_to_bools",
    "int_to_bools_auto",
    "int_to_ints",
    "ints_to_int",
    "large_at",
    "numbers_from",
    "numpy_from",
    "pack_array",
    "pack_f16",
    "pack_table",
    "packbits",
    "pad",
    "unpack_table",
    "unpackbits",
    "utf8",
    "utf8_bytes",
]


StructError = struct.error
# What the generated fast path raises for a value outside its domain (an integer out
# of range or of the wrong type for ``struct``, a failed range check, a wrong length,
# a missing or wrong nested object): ``serialize`` catches these, and only these, and
# sends the value through :func:`normalize`.  Anything else propagates.
FAST_PATH_ERRORS = (StructError, OverflowError, TypeError, ValueError, AttributeError)
# The array values the fast path takes as they are: ordered sequences.  Anything else
# (a dict, whose keys would be serialized; a set, in iteration order) goes to
# normalize, which accepts the other sequences (bytes, range, memoryview) and rejects
# the rest with EncodeError.
SEQUENCES = frozenset({list, tuple, np.ndarray})
_ORDERED = (list, tuple, bytes, bytearray)
_BOOL = np.dtype(np.bool_)
_U8 = np.dtype(np.uint8)
_frombuffer = np.frombuffer
_from_le = int.from_bytes  # bound once (looked up on every call otherwise)
# numpy's bit packing without its __array_function__ dispatch (about 0.17 us a
# call): generated code calls these on exact ndarrays only, for which the
# dispatch would find no override.  numpy versions without the attribute keep
# the public function.
packbits = getattr(np.packbits, "_implementation", np.packbits)
unpackbits = getattr(np.unpackbits, "_implementation", np.unpackbits)
Kind = tuple[Any, ...]  # a field kind (wireplan.dsdl.runtime); arrays carry a 4th item: numpy?

_FLOAT_CODE = {16: "e", 32: "f", 64: "d"}
_F_PACK = {bits: struct.Struct("<" + code).pack for bits, code in _FLOAT_CODE.items()}
_F_UNPACK = {bits: struct.Struct("<" + code).unpack for bits, code in _FLOAT_CODE.items()}
_FLOAT_MAX = {16: 65504.0, 32: 3.4028234663852886e38, 64: 1.7976931348623157e308}


# bytes 0/1 <-> ASCII "0"/"1", so that bool arrays convert through int(..., 2) at C speed.
_TO_ASCII = bytes([48, 49]) + bytes(254)


def pad(data: Any, size: int) -> bytes:
    """``data`` extended with zero bytes to ``size`` (the implicit zero extension rule)."""
    return bytes(data) + bytes(size - len(data))


def bools_to_int(values: Sequence[Any]) -> int:
    """The bits of a bool array as one integer, element 0 in the least significant bit."""
    if len(values) == 0:
        return 0
    if isinstance(values, np.ndarray) and values.dtype is _BOOL and values.ndim == 1:
        # positional arguments: numpy's keyword parsing costs more than the packing; a
        # bool array of more dimensions falls through to the check of its elements
        return _from_le(packbits(values, None, "little").tobytes(), "little")
    if values.__class__ not in SEQUENCES:
        raise OverflowError("not a list, tuple or numpy array")  # the slow path checks it
    try:  # bools and 0/1 ints convert at C speed
        raw = bytes(values if type(values) is list else list(values))
        if len(raw) <= 8:
            return _SMALL_BITS[raw]  # a dict lookup: a tenth of int(..., 2)'s cost
        return int(raw[::-1].translate(_TO_ASCII), 2)
    except (TypeError, ValueError, KeyError):
        # 2, NaN, None...: the caller's slow path coerces (or rejects) them first
        raise OverflowError("bool array element other than a bool, 0 or 1") from None


# the integer of every array of up to 8 elements 0/1, by its bytes
_SMALL_BITS = {bytes(b >> i & 1 for i in range(n)): b for n in range(9) for b in range(1 << n)}
_BYTE_BITS = tuple(tuple(bool(b >> i & 1) for i in range(8)) for b in range(256))


def int_to_bools(value: int, count: int) -> list[bool]:
    """The inverse of :func:`bools_to_int` for ``count`` elements."""
    if count <= 8:
        return [*_BYTE_BITS[value & 255][:count]]
    raw = (value & ((1 << count) - 1)).to_bytes((count + 7) >> 3, "little")
    out: list[bool] = []
    for byte in raw:  # a loop of in-place extends: twice as fast as chaining the tuples
        out += _BYTE_BITS[byte]
    del out[count:]
    return out


def bools_at(data: Any, offset: int, count: int) -> Any:
    """``count`` bools packed LSB first from byte ``offset`` of ``data``: what
    :func:`int_to_bools_auto` gives for them, read from the buffer without building the
    integer.  A short buffer gives fewer elements (the caller's end check rejects it) or,
    from ``LARGE`` elements on, numpy's ``ValueError``."""
    size = (count + 7) >> 3
    if count >= LARGE:
        return _frombuffer(
            unpackbits(_frombuffer(data, _U8, size, offset), None, count, "little"), _BOOL
        )
    out: list[bool] = []
    for byte in data[offset : offset + size]:
        out += _BYTE_BITS[byte]
    del out[count:]
    return out


def ints_to_int(values: Sequence[int], bits: int, signed: bool) -> int:
    """Elements of an odd-width integer array packed LSB first into one integer.

    Raises ``OverflowError`` when an element does not fit (the caller then
    takes the slow path, which brings values into range first).
    """
    if values.__class__ not in SEQUENCES:
        raise ArgumentError("not a list, tuple or numpy array")  # the slow path checks it
    if isinstance(values, np.ndarray):
        values = values.tolist()  # Python ints: numpy's would wrap around when shifted
    acc = 0
    shift = 0
    half = 1 << (bits - 1)
    mask = (1 << bits) - 1
    for v in values:
        if signed:
            if (v + half) >> bits:
                raise OverflowError
            v &= mask
        elif v >> bits:
            raise OverflowError
        acc |= v << shift
        shift += bits
    return acc


def int_to_ints(value: int, bits: int, count: int, signed: bool) -> list[int]:
    """The inverse of :func:`ints_to_int`."""
    mask = (1 << bits) - 1
    out = [(value >> (i * bits)) & mask for i in range(count)]
    if signed:
        half = 1 << (bits - 1)
        out = [(v ^ half) - half for v in out]
    return out


def float_to_bits(value: float, bits: int) -> int:
    """IEEE 754 bits of ``value`` (binary16/32/64); ``OverflowError`` if out of range."""
    return _from_le(_F_PACK[bits](value), "little")


def bits_to_float(raw: int, bits: int) -> float:
    """The float whose IEEE 754 representation is ``raw``."""
    value: float = _F_UNPACK[bits](raw.to_bytes(bits // 8, "little"))[0]
    return value


_DTYPES = {c: np.dtype("<" + c) for c in "bBhHiIqQefd"}
DTYPES = _DTYPES  # the numpy dtype of each struct code, for generated code


def pack_array(code: str, values: Sequence[Any]) -> bytes:
    """Elements of a byte-aligned primitive array, little-endian, with struct's range checks.

    A numpy array of exactly the wire dtype is copied as it is; anything else
    goes through ``struct``, whose range checks send out-of-range values to
    the slow (saturating) path.
    """
    if isinstance(values, np.ndarray):
        dtype = _DTYPES[code]
        if (values.dtype is dtype or values.dtype == dtype) and values.ndim == 1:
            return values.tobytes()
        values = values.tolist()
    elif not isinstance(values, _ORDERED):
        raise ArgumentError("not a sequence")  # a dict, a set, a str: the slow path checks it
    if code == "e":
        return pack_f16(values)
    return struct.pack(f"<{len(values)}{code}", *values)


_F16 = np.dtype("<f2")
_F16_MAX = 65504.0


def pack_f16(values: Sequence[Any]) -> bytes:
    """float16 elements as bytes, keeping a NaN's payload bits (``struct``'s ``e`` writes
    the canonical NaN instead), with ``struct``'s checks: ``OverflowError`` for a finite
    value that rounds beyond the float16 range, ``TypeError`` / ``ValueError`` for a
    non-number (the caller's slow path then saturates or rejects them)."""
    if values.__class__ not in SEQUENCES:
        raise ArgumentError("not a list, tuple or numpy array")
    if isinstance(values, np.ndarray):
        if values.dtype == _F16 and values.ndim == 1:
            return values.tobytes()  # already float16: nothing to round or check
        return _f16_from_wide(values)
    # struct's ``e`` rounds as numpy does and raises OverflowError the same way, at
    # half numpy's cost; only a NaN needs numpy (its payload).  The sum is NaN when an
    # element is, or when infinities of both signs meet (then each element is asked).
    packed = _f16_struct(len(values)).pack(*values)
    total = sum(values)
    if total == total or not any(map(_isnan, values)):
        return packed
    # struct checked every element (none overflows): numpy's cast keeps the payload
    return np.array(values, dtype=np.float64).astype(_F16).tobytes()


def _f16_from_wide(values: Any) -> bytes:
    wide = np.asarray(values, dtype=np.float64)
    if wide.ndim != 1:
        raise ArgumentError("not a flat sequence of numbers")
    with np.errstate(over="ignore", invalid="ignore"):
        half = wide.astype(_F16)
    if np.isinf(half).any() and (np.isinf(half) & np.isfinite(wide)).any():
        raise OverflowError("float too large to pack as float16")
    return half.tobytes()


_F16_STRUCTS: dict[int, struct.Struct] = {}


def _f16_struct(count: int) -> struct.Struct:
    """``<{count}e``, compiled once per count (counts are bounded by DSDL capacities)."""
    found = _F16_STRUCTS.get(count)
    if found is None:
        found = _F16_STRUCTS[count] = struct.Struct(f"<{count}e")
    return found


def numpy_from(data: Any, code: str, count: int, offset: int) -> Any:
    """A numpy array of ``count`` elements of ``code`` read from ``data`` at ``offset``.

    From ``bytes`` it is a read-only view (zero-copy: bytes cannot change
    under it).  From anything else (a ``bytearray``, a ``memoryview``: a
    buffer its owner may reuse) it is a writable copy that owns its memory.
    """
    view = _frombuffer(data, _DTYPES[code], count, offset)  # ValueError beyond the data
    return view if data.__class__ is bytes else view.copy()


LARGE = 64  # from this many elements on, arrays of bools decode to numpy arrays
LARGE_BYTES = 32  # arrays of uint8
LARGE_WIDE = 16  # and arrays of other numbers (each element a new Python object in a list)


def large_at(code: str | None) -> int:
    """From how many elements on an array of struct code ``code`` (``None``: bools) decodes
    to a numpy array: ``LARGE`` for bools (a list of bools is unpacked from one int),
    ``LARGE_BYTES`` for ``uint8`` (small ints are shared objects, but from about 30
    elements on a view decodes as fast as the list and serializes faster: a
    ``uavcan.primitive.String`` of 30 bytes decodes in 412 ns as a list and 438 ns as a
    view, serializes in 225 and 195 ns; of 40 bytes 470 + 255 ns against 431 + 191 ns),
    ``LARGE_WIDE`` for the others (a numpy view beats building that many int or float
    objects)."""
    if code is None:
        return LARGE
    return LARGE_BYTES if code == "B" else LARGE_WIDE


def numbers_from(data: Any, code: str, count: int, offset: int) -> Any:
    """``count`` numbers at ``offset``: a list, or a numpy array from ``large_at(code)``
    elements on and for float16 (Python has no float16; numpy keeps NaN payloads)."""
    if count >= large_at(code) or code == "e":
        return numpy_from(data, code, count, offset)
    if code == "B":
        return list(data[offset : offset + count])
    return list(struct.unpack_from(f"<{count}{code}", data, offset))


def int_to_bools_auto(value: int, count: int) -> Any:
    """:func:`int_to_bools`, or :func:`int_to_bool_array` from ``LARGE`` elements on."""
    if count >= LARGE:
        return int_to_bool_array(value, count)
    return int_to_bools(value, count)


def int_to_bool_array(value: int, count: int) -> Any:
    """:func:`int_to_bools` as a numpy bool array."""
    raw = _frombuffer(value.to_bytes((count + 7) >> 3, "little"), _U8)
    # 0 / 1 bytes: valid bools, taken as such (frombuffer: 0.1 us less than .view(dtype))
    return _frombuffer(unpackbits(raw, None, count, "little"), _BOOL)


class PackCache(dict[int, Callable[..., bytes]]):
    """``cache[n]``: the bound ``pack`` of a fixed head followed by ``n`` elements of ``code``.

    Lets a length prefix and the array after it go out in one call; the
    bound method is kept, not the ``Struct``, to skip an attribute lookup
    per call.
    """

    def __init__(self, head: str, code: str) -> None:
        super().__init__()
        self.head = head
        self.code = code

    def __missing__(self, count: int) -> Callable[..., bytes]:
        made = struct.Struct(f"{self.head}{count}{self.code}").pack
        if len(self) < 4096:
            self[count] = made
        return made


def head_table(fmt: str, lead: tuple[int, ...], size: int) -> tuple[bytes, ...]:
    """``table[n]`` for ``n < size``: ``struct.pack(fmt, *lead, n)``, the bytes of constants
    (a union tag) and then a length.  A serializer that has checked the length against
    its capacity looks its header up (14 ns) instead of packing it (40)."""
    packer = struct.Struct(fmt).pack
    return tuple(packer(*lead, n) for n in range(size))


def pack_table(head: str, code: str, size: int) -> tuple[Callable[..., bytes], ...]:
    """``table[n]`` for ``n < size``: what ``PackCache(head, code)[n]`` gives, made up front."""
    return tuple(struct.Struct(f"{head}{n}{code}").pack for n in range(size))


def unpack_table(code: str, size: int) -> tuple[Callable[[Any, int], tuple[Any, ...]], ...]:
    """``table[n]`` for ``n < size``: the bound ``unpack_from`` of ``n`` elements ``code``."""
    return tuple(struct.Struct(f"<{n}{code}").unpack_from for n in range(size))


def bools_to_bytes(values: Any, count: int) -> bytes:
    """Exactly ``count`` bools (a multiple of 8) as ``count // 8`` bytes, element 0 in bit 0.

    A 1-D numpy bool array is packed by numpy; anything else goes through
    :func:`bools_to_int`.  A wrong length raises ``OverflowError`` (the
    caller's slow path then reports it).
    """
    if values.__class__ is np.ndarray and values.dtype is _BOOL and values.shape == (count,):
        # positional arguments: numpy's keyword parsing costs more than the packing
        return packbits(values, None, "little").tobytes()
    if len(values) != count:
        raise OverflowError
    return bools_to_int(values).to_bytes(count >> 3, "little")


def utf8(data: Any, offset: int, path: str) -> str:
    """Decode a ``utf8`` array; ``DecodeError`` naming the array on invalid text."""
    try:
        return bytes(data).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DecodeError(f"invalid UTF-8: {exc.reason}", offset, path) from None


def utf8_bytes(value: str, path: str) -> bytes:
    """The UTF-8 bytes of ``value``; ``EncodeError`` naming ``path`` for a lone surrogate."""
    try:
        return value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise EncodeError(f"not encodable as UTF-8: {exc.reason}", path) from None
