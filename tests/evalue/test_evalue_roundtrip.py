"""Round trips for every type and dtype, with the boundary values of the format."""

from __future__ import annotations

import math
import struct
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from wireplan.errors import EncodeError
from wireplan.evalue import (
    JAVA_SCALAR_TYPES,
    MAX_RANK,
    NUMPY_MAX_RANK,
    SCALAR_TYPES,
    RawTensor,
    decode,
    encode,
    encode_into,
    encoded_size,
    info_for_code,
)

INT_BOUNDS = [0, 1, -1, 127, 128, 255, 256, 2**31 - 1, -(2**31), 2**63 - 1, -(2**63)]
FLOAT_BITS = [
    0x0000000000000000,  # 0.0
    0x8000000000000000,  # -0.0
    0x7FF0000000000000,  # inf
    0xFFF0000000000000,  # -inf
    0x7FF8000000000000,  # quiet NaN
    0x7FF0000000000001,  # signalling NaN, payload 1
    0xFFFFFFFFFFFFFFFF,  # negative NaN, full payload
    0x0000000000000001,  # smallest subnormal
    0x7FEFFFFFFFFFFFFF,  # largest finite
]
STRINGS = ["", "\x00", "a\x00b", "h\u00e9llo", "\u65e5\u672c", "\U0001f600", "\uffff", "x" * 70000]

FAST = settings(max_examples=60, deadline=None)


def _bits(x: float) -> int:
    return int(struct.unpack(">Q", struct.pack(">d", x))[0])


def _from_bits(b: int) -> float:
    return float(struct.unpack(">d", struct.pack(">Q", b))[0])


def _round(value: Any, **kw: Any) -> Any:
    data = encode(value, **kw)
    assert encoded_size(value, **kw) == len(data)
    buf = bytearray(len(data) + 2)
    assert encode_into(value, buf, 1, **kw) == len(data)
    assert bytes(buf[1:-1]) == data
    return decode(data, **{k: v for k, v in kw.items() if k == "extended"})


# -- scalars ---------------------------------------------------------------


@pytest.mark.parametrize("n", INT_BOUNDS)
def test_int_boundaries(n: int) -> None:
    data = encode(n)
    assert data == b"\x04" + struct.pack(">q", n)
    assert type(decode(data)) is int and decode(data) == n


@FAST
@given(st.integers(min_value=-(2**63), max_value=2**63 - 1))
def test_int_round_trip(n: int) -> None:
    assert _round(n) == n


@pytest.mark.parametrize("n", [2**63, -(2**63) - 1, 2**64, -(2**100)])
def test_int_outside_int64(n: int) -> None:
    with pytest.raises(EncodeError, match="int64"):
        encode(n)
    with pytest.raises(EncodeError):
        encoded_size(n)


@pytest.mark.parametrize("bits", FLOAT_BITS)
def test_double_bit_patterns(bits: int) -> None:
    x = _from_bits(bits)
    data = encode(x)
    assert data == b"\x03" + struct.pack(">Q", bits)
    assert _bits(decode(data)) == bits


@FAST
@given(st.integers(min_value=0, max_value=2**64 - 1))
def test_double_any_bits(bits: int) -> None:
    assert _bits(_round(_from_bits(bits))) == bits


def test_bool_none() -> None:
    assert _round(True) is True and _round(False) is False and _round(None) is None
    # A numpy bool is a rank-0 tensor of scalar type 11, outside Java's set.
    assert encode(np.True_, extended=True) == b"\x01\x0b\x00\x01"
    with pytest.raises(EncodeError, match="extended=True"):
        encode(np.True_)


@pytest.mark.parametrize("s", STRINGS)
def test_string_boundaries(s: str) -> None:
    data = encode(s)
    payload = s.encode("utf-8")
    assert data == b"\x02" + struct.pack(">I", len(payload)) + payload
    assert _round(s) == s
    assert decode(data, text=False) == payload


@FAST
@given(st.text())
def test_string_round_trip(s: str) -> None:
    assert _round(s) == s


@FAST
@given(st.binary())
def test_bytes_round_trip(b: bytes) -> None:
    data = encode(b)
    assert decode(data, text=False) == b
    assert encode(bytearray(b)) == data == encode(memoryview(b))


def test_lone_surrogate_is_encode_error() -> None:
    with pytest.raises(EncodeError, match="surrogate"):
        encode("a\ud800")


def test_subclasses_and_unknown_types() -> None:
    import enum

    class Color(enum.IntEnum):
        RED = 3

    assert decode(encode(Color.RED)) == 3
    with pytest.raises(EncodeError, match="cannot encode"):
        encode(object())
    with pytest.raises(EncodeError, match=r"builtins.tuple as an EValue: EValue has no list .*"):
        encode((1, 2))
    with pytest.raises(EncodeError, match=r"no list type \(encode_list writes a list of EValues"):
        encode([1, 2])
    with pytest.raises(EncodeError, match=r"^cannot encode a builtins.object as an EValue$"):
        encode(object())


def test_numpy_scalars_refused_as_tensors_name_their_plain_evalue() -> None:
    """A numpy scalar is a rank-0 Tensor; one whose dtype Java refuses says which plain
    EValue ``bool()`` or ``int()`` would give instead."""
    for value, plain in ((np.bool_(True), "a Bool"), (np.array(False), "a Bool"),
                         (np.uint16(3), "an Int"), (np.int16(-3), "an Int")):  # fmt: skip
        with pytest.raises(EncodeError, match=rf"rank-0 Tensor; for {plain} EValue pass "):
            encode(value)
    assert decode(encode(bool(np.bool_(True)))) is True
    for value in (np.zeros(2, bool), np.complex64(1)):  # not a scalar; no plain EValue
        with pytest.raises(EncodeError, match=r"extended=True to write it anyway$"):
            encode(value)


# -- tensors ---------------------------------------------------------------

PLAIN_DTYPES = {
    0: np.uint8,
    1: np.int8,
    2: np.int16,
    3: np.int32,
    4: np.int64,
    5: np.float16,
    6: np.float32,
    7: np.float64,
    9: np.complex64,
    10: np.complex128,
    11: np.bool_,
    27: np.uint16,
    28: np.uint32,
    29: np.uint64,
}
ML_DTYPES = {
    15: ml_dtypes.bfloat16,
    23: ml_dtypes.float8_e5m2,
    24: ml_dtypes.float8_e4m3fn,
    25: ml_dtypes.float8_e5m2fnuz,
    26: ml_dtypes.float8_e4m3fnuz,
}
RAW_ONLY = sorted(set(SCALAR_TYPES) - set(PLAIN_DTYPES) - set(ML_DTYPES))
SHAPES = hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4)


def _expected_bytes(arr: np.ndarray[Any, Any], code: int) -> bytes:
    """A slow reference encoder, element by element, written from the format notes."""
    head = bytes([1, code, arr.ndim]) + b"".join(struct.pack(">i", n) for n in arr.shape)
    size = arr.dtype.itemsize
    flat = np.ascontiguousarray(arr).reshape(-1)
    raw = flat.view(np.uint8).reshape(-1, size) if flat.size else np.zeros((0, size), np.uint8)
    if arr.dtype.kind == "c":  # two floats, each big-endian
        half = size // 2
        out = b"".join(bytes(r[:half][::-1]) + bytes(r[half:][::-1]) for r in raw)
    else:
        out = b"".join(bytes(r[::-1]) for r in raw)
    return head + out


def _check_tensor(arr: np.ndarray[Any, Any], code: int) -> None:
    extended = code not in JAVA_SCALAR_TYPES
    data = encode(arr, extended=extended)
    assert data == _expected_bytes(arr, code)
    back = _round(arr, extended=extended)
    assert back.dtype == arr.dtype and back.shape == arr.shape
    assert back.tobytes() == np.ascontiguousarray(arr).tobytes()  # bit-exact, NaN payloads too
    assert back.flags.writeable and back.dtype.isnative
    view = decode(data, copy=False, extended=extended)
    if code == 15:  # numpy has no big-endian bfloat16: the view keeps its type as a RawTensor
        assert isinstance(view, RawTensor) and view.shape == arr.shape
        assert encode(view, extended=True) == data
    else:
        assert not view.flags.writeable and view.shape == arr.shape
    if extended and code != 11:
        with pytest.raises(EncodeError, match="extended=True"):
            encode(arr)


@pytest.mark.parametrize("code", sorted(PLAIN_DTYPES))
@FAST
@given(data=st.data())
def test_plain_dtype_round_trip(code: int, data: st.DataObject) -> None:
    dtype = np.dtype(PLAIN_DTYPES[code])
    if dtype.kind == "f":
        # Every bit pattern, NaN payloads and -0.0 included.
        bits = data.draw(hnp.arrays(np.dtype(f"u{dtype.itemsize}"), SHAPES))
        arr = bits.view(dtype)
    elif dtype.kind == "c":
        bits = data.draw(hnp.arrays(np.dtype(f"u{dtype.itemsize // 2}"), SHAPES))
        arr = np.ascontiguousarray(bits[..., None].repeat(2, -1)).view(dtype)[..., 0]
    else:
        arr = data.draw(hnp.arrays(dtype, SHAPES))
    _check_tensor(arr, code)
    if arr.ndim >= 2:  # non-contiguous and Fortran order are written row-major
        _check_tensor(arr.T, code)
        _check_tensor(np.asfortranarray(arr), code)
        _check_tensor(arr[::-1, ::2], code)


@pytest.mark.parametrize("code", sorted(ML_DTYPES))
@FAST
@given(data=st.data())
def test_ml_dtypes_round_trip(code: int, data: st.DataObject) -> None:
    dtype = np.dtype(ML_DTYPES[code])
    bits = data.draw(hnp.arrays(np.dtype(f"u{dtype.itemsize}"), SHAPES))
    arr = bits.view(dtype)
    _check_tensor(arr, code)
    view = decode(encode(arr, extended=True), copy=False, extended=True)
    wire = np.frombuffer(view.data, f">u{dtype.itemsize}") if code == 15 else view.view(bits.dtype)
    assert wire.astype(bits.dtype).tobytes() == bits.tobytes()


@pytest.mark.parametrize(
    ("dtype", "values"),
    [
        (np.uint8, [0, 1, 127, 128, 255]),
        (np.int8, [0, 1, -1, 127, -128]),
        (np.int16, [0, 1, -1, 255, 256, 32767, -32768]),
        (np.int32, [0, 1, -1, 2**31 - 1, -(2**31)]),
        (np.int64, [0, 1, -1, 2**63 - 1, -(2**63)]),
        (np.uint64, [0, 1, 2**64 - 1]),
        (np.float32, [0.0, -0.0, 1.0, math.inf, -math.inf]),
        (np.bool_, [True, False]),
    ],
)
def test_tensor_boundary_values(dtype: Any, values: list[Any]) -> None:
    arr = np.array(values, dtype=dtype)
    code = next(c for c, d in PLAIN_DTYPES.items() if np.dtype(d) == arr.dtype)
    _check_tensor(arr, code)


def test_float32_nan_payloads_survive() -> None:
    bits = np.array([0x7FC00000, 0x7F800001, 0xFFFFFFFF, 0x7FBFFFFF, 0x80000000], np.uint32)
    arr = bits.view(np.float32)
    assert decode(encode(arr)).view(np.uint32).tolist() == bits.tolist()


@pytest.mark.parametrize("shape", [(), (0,), (3, 0, 2), (0,) * 5, (1,) * NUMPY_MAX_RANK])
def test_shapes(shape: tuple[int, ...]) -> None:
    arr = np.arange(math.prod(shape), dtype=np.int32).reshape(shape)
    _check_tensor(arr, 3)


def test_big_tensor_via_single_pass_path() -> None:
    # Above the small-value threshold encode fills a fresh bytes object in place.
    arr = np.random.default_rng(0).standard_normal((300, 301)).astype(np.float32)
    for a in (arr, arr.T, arr[:, ::3]):
        data = encode(a)
        assert data[11:] == np.ascontiguousarray(a).astype(">f4").tobytes()
        assert np.array_equal(decode(data), a)
    for dtype in (ml_dtypes.bfloat16, np.complex64, np.int16):
        b = arr.astype(dtype)
        assert decode(encode(b, extended=True), extended=True).tobytes() == b.tobytes()


@pytest.mark.parametrize("code", sorted(JAVA_SCALAR_TYPES))
def test_rank_127_raw_tensor(code: int) -> None:
    info = info_for_code(code)
    assert info is not None
    shape = (1,) * MAX_RANK
    raw = RawTensor(code, shape, bytes(range(info.itemsize)))
    data = encode(raw)
    assert data[:3] == bytes([1, code, 127]) and len(data) == 3 + 4 * 127 + info.itemsize
    back = decode(data)
    assert isinstance(back, RawTensor) and back == raw
    assert encode(back) == data
    view = decode(data, copy=False)
    assert isinstance(view.data, memoryview) and view.data.readonly and bytes(view.data) == raw.data


def test_rank_above_numpy_limit_decodes_raw() -> None:
    shape = (1,) * (NUMPY_MAX_RANK + 1)
    raw = RawTensor(6, shape, b"\x3f\x80\x00\x00")
    back = decode(encode(raw))
    assert isinstance(back, RawTensor) and back.shape == shape and back.data == raw.data


@pytest.mark.parametrize("code", RAW_ONLY)
@settings(max_examples=20, deadline=None)
@given(shape=SHAPES, data=st.data())
def test_types_numpy_cannot_hold_decode_raw(
    code: int, shape: tuple[int, ...], data: st.DataObject
) -> None:
    info = info_for_code(code)
    assert info is not None and info.native is None
    n = math.prod(shape) * info.itemsize
    raw = RawTensor(code, shape, data.draw(st.binary(min_size=n, max_size=n)))
    blob = encode(raw, extended=True)
    assert blob == bytes([1, code, len(shape)]) + struct.pack(f">{len(shape)}i", *shape) + raw.data
    assert decode(blob, extended=True) == raw
    with pytest.raises(EncodeError, match="extended=True"):
        encode(raw)


def test_encode_limits() -> None:
    with pytest.raises(EncodeError, match="rank 128"):
        encode(RawTensor(6, (1,) * 128, b"\0\0\0\0"))
    with pytest.raises(EncodeError, match="i32"):
        encode(RawTensor(0, (2**31,), b""))
    with pytest.raises(EncodeError, match="needs 8 data bytes"):
        encode(RawTensor(6, (2,), b"\0\0\0"))
    with pytest.raises(EncodeError, match="no ExecuTorch scalar type"):
        encode(np.array(["a"]))
    with pytest.raises(EncodeError, match="no ExecuTorch scalar type"):
        encode(np.zeros(2, dtype="M8[s]"))
    with pytest.raises(EncodeError):
        encode_into(1, bytearray(8))
    with pytest.raises(EncodeError, match="writable"):
        encode_into(1, b"\0" * 9)


def test_non_native_input_arrays() -> None:
    arr = np.arange(5, dtype=">i4")
    assert encode(arr) == encode(arr.astype("<i4"))
    assert decode(encode(arr)).dtype == np.dtype("=i4")


def test_single_values_run_through_the_core_executor(monkeypatch: pytest.MonkeyPatch) -> None:
    import wireplan.evalue._codec as codec
    from wireplan.core.plan import Plan

    plans: list[list[tuple[int, int]]] = []
    real = codec.execute

    def spy(plan: Any, dest: Any, **kw: Any) -> None:
        regions = plan.regions if isinstance(plan, Plan) else plan
        plans.append([(r.offset, r.length) for r in regions])
        real(plan, dest, **kw)

    monkeypatch.setattr(codec, "execute", spy)
    arr = np.arange(300 * 300, dtype=np.float32).reshape(300, 300)  # past the small-value path
    blob = encode(arr)
    assert plans == [[(0, 11), (11, arr.nbytes)]]  # header, then the data
    buf = bytearray(len(blob) + 5)
    assert encode_into(arr, buf, 5) == len(blob) and bytes(buf[5:]) == blob
    assert plans[-1] == [(5, 11), (16, arr.nbytes)]
    assert np.array_equal(decode(blob), arr)
    assert plans[-1] == [(0, arr.nbytes)]  # wire bytes -> a new native array
