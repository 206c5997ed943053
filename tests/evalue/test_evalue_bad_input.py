"""Malformed input raises DecodeError (with the byte offset) and nothing else: no other
exception, no hang, no allocation the input does not pay for."""

from __future__ import annotations

import contextlib
import struct
import tracemalloc
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from evalue_support import load_golden
from hypothesis import given, settings
from hypothesis import strategies as st

from wireplan.errors import DecodeError, LimitError
from wireplan.evalue import RawTensor, decode, decode_list, encode, encode_list


def _samples() -> list[tuple[bytes, bool]]:
    """Valid encodings and whether they need extended=True."""
    out = [(d, False) for _, d in load_golden()]
    out += [(encode(v), False) for v in (2**63 - 1, -0.0, "\x00\u65e5", b"\xff\xfe")]
    out += [
        (encode(np.arange(6, dtype=np.float32).reshape(1, 2, 3)), False),
        (encode(np.array([True, False]), extended=True), True),
        (encode(np.arange(3, dtype=np.uint64), extended=True), True),
        (encode(np.ones(2, dtype=ml_dtypes.bfloat16), extended=True), True),
        (encode(np.ones(2, dtype=np.complex64), extended=True), True),
        (encode(RawTensor(8, (2,), bytes(8)), extended=True), True),
        (encode(RawTensor(6, (1,) * 70, bytes(4))), False),
    ]
    return out


SAMPLES = _samples()
LISTS = [
    encode_list([]),
    encode_list([None, True, 7, 2.5, "ab", np.arange(4, dtype=np.int32)]),
    encode_list([np.zeros((2, 2), np.float64), np.zeros(0, np.int8), "x"]),
]


def _decode_any(data: bytes, extended: bool) -> None:
    for copy in (True, False):
        for text in (True, False):
            try:
                decode(data, copy=copy, extended=extended, text=text)
            except DecodeError as exc:
                assert 0 <= exc.offset <= len(data)
                assert f"at byte {exc.offset}" in str(exc)


def test_truncation_at_every_offset() -> None:
    for data, extended in SAMPLES:
        for k in range(len(data)):
            with pytest.raises(DecodeError) as info:
                decode(data[:k], extended=extended)
            assert 0 <= info.value.offset <= k, (data.hex(), k)
        # One extra byte is never ignored (Java ignores it after a scalar).
        with pytest.raises(DecodeError, match=r"1 trailing byte after the value$"):
            decode(data + b"\x00", extended=extended)
        with pytest.raises(DecodeError, match=r"2 trailing bytes after the value$"):
            decode(data + b"\x00\x00", extended=extended)


def test_list_truncation_at_every_offset() -> None:
    for data in LISTS:
        assert isinstance(decode_list(data), list)
        for k in range(len(data)):
            with pytest.raises(DecodeError):
                decode_list(data[:k])
        with pytest.raises(DecodeError, match=r"1 trailing byte after the last element$"):
            decode_list(data + b"\x00")


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_random_byte_flips(data: st.DataObject) -> None:
    blob, extended = data.draw(st.sampled_from(SAMPLES))
    buf = bytearray(blob)
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(buf) - 1))
        buf[i] = data.draw(st.integers(0, 255))
    _decode_any(bytes(buf), extended)
    _decode_any(bytes(buf), True)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_random_list_flips(data: st.DataObject) -> None:
    buf = bytearray(data.draw(st.sampled_from(LISTS)))
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(buf) - 1))
        buf[i] = data.draw(st.integers(0, 255))
    try:
        decode_list(bytes(buf), copy=data.draw(st.booleans()))
    except DecodeError as exc:
        assert 0 <= exc.offset <= len(buf)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64))
def test_random_bytes(blob: bytes) -> None:
    _decode_any(blob, True)
    with contextlib.suppress(DecodeError):
        decode_list(b"WPEL\x00\x01\x00\x00" + blob)


def _tensor(code: int, shape: list[int], data: bytes = b"") -> bytes:
    return bytes([1, code, len(shape) & 0xFF]) + struct.pack(f">{len(shape)}i", *shape) + data


HUGE = [
    _tensor(6, [2**31 - 1, 2**31 - 1], b"\0" * 16),
    _tensor(7, [2**31 - 1] * 127),
    _tensor(0, [0] + [2**31 - 1] * 3),  # zero elements, but numpy would overflow
    _tensor(4, [65536, 65536, 65536]),
    b"\x02\xff\xff\xff\xff" + b"abc",
    b"WPEL\x00\x01\x00\x00" + b"\xff" * 8,
    b"WPEL\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01" + struct.pack(">QQ", 32, 2**63),
]


@pytest.mark.parametrize("blob", HUGE)
def test_huge_declared_sizes_never_allocate(blob: bytes) -> None:
    tracemalloc.start()
    try:
        with pytest.raises(LimitError):
            if blob.startswith(b"WPEL"):
                decode_list(blob)
            else:
                decode(blob, extended=True)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20


def test_zero_element_rank_127_is_valid_and_cheap() -> None:
    value = decode(_tensor(0, [0] + [2**31 - 1] * 126))
    assert isinstance(value, RawTensor) and value.data == b"" and len(value.shape) == 127


@pytest.mark.parametrize(
    ("blob", "offset", "message"),
    [
        (b"", 0, "empty input"),
        (b"\x09", 0, "ListTensor"),
        (b"\x63", 0, "unknown EValue tag 99"),
        (b"\x05\x02", 1, "Bool byte is 2"),
        (b"\x04\x00\x00", 1, "truncated"),
        (b"\x01\x1e\x00", 1, "unknown tensor scalar type 30"),
        (b"\x01\x0b\x00\x01", 1, "extended=True"),
        (b"\x01\x06\xff", 2, "negative tensor rank -1"),
        (_tensor(6, [2, -3]), 7, "negative tensor size -3 in dimension 1"),
        (_tensor(6, [2], b"\0" * 9), 15, "trailing"),
        (_tensor(6, [3], b"\0" * 8), 7, "declares 12 data bytes"),
        (b"\x01\x06\x02\x00\x00\x00", 3, "truncated"),
        (b"\x02\x00\x00\x00\x03a\xffb", 6, "not valid UTF-8"),
        (b"\x02\x00\x00\x00\x02ab!", 7, "trailing"),
    ],
)
def test_error_offsets(blob: bytes, offset: int, message: str) -> None:
    with pytest.raises(DecodeError, match=message) as info:
        decode(blob)
    assert info.value.offset == offset


def test_bool_tensor_bytes_are_checked() -> None:
    with pytest.raises(DecodeError, match="element 1 is 7") as info:
        decode(_tensor(11, [3], b"\x01\x07\x00"), extended=True)
    assert info.value.offset == 8


def test_list_errors_carry_path_and_absolute_offset() -> None:
    blob = bytearray(encode_list([1, "ok", 2.0]))
    second = struct.unpack_from(">Q", blob, 16 + 16)[0]
    blob[second + 5] = 0xFF  # inside "ok"
    with pytest.raises(DecodeError) as info:
        decode_list(bytes(blob))
    assert info.value.path == "$[1]" and info.value.offset == second + 5
    assert "$[1]" in str(info.value)
    bad = bytearray(encode_list([]))
    bad[5] = 2
    with pytest.raises(DecodeError, match="version 2"):
        decode_list(bytes(bad))
    with pytest.raises(DecodeError, match="magic"):
        decode_list(b"XXXX" + bytes(12))


def test_only_decode_errors_escape_for_wrong_buffers() -> None:
    values: list[Any] = [None, 1, "s", np.zeros(3, np.float32)]
    for v in values:
        data = encode(v)
        assert isinstance(decode(memoryview(data)), type(decode(data)))


_SIZES = st.sampled_from([0, 1, 2, 3, 127, 255, 65536, 2**31 - 1, -1, -(2**31)])


@settings(max_examples=300, deadline=None)
@given(
    code=st.integers(0, 255),
    rank=st.integers(0, 255),
    sizes=st.lists(_SIZES, max_size=130),
    tail=st.binary(max_size=40),
    copy=st.booleans(),
)
def test_hostile_tensor_headers(
    code: int, rank: int, sizes: list[int], tail: bytes, copy: bool
) -> None:
    # Any scalar type byte, any rank byte (128+ is negative), sizes at the i32 limits, up
    # to more than 127 of them, overflowing element counts: a DecodeError and no large
    # allocation, or a value whose data is exactly the bytes given.
    head = bytes([1, code, rank]) + b"".join(struct.pack(">i", n) for n in sizes)
    blob = head + tail
    tracemalloc.start()
    try:
        try:
            value = decode(blob, copy=copy, extended=True, text=False)
        except DecodeError as exc:
            assert 0 <= exc.offset <= len(blob)
            value = None
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20
    if value is not None:
        nbytes = value.nbytes
        assert nbytes <= len(tail)


# A list table's (offset, size) entries, count and body at the edges of their ranges.
HOSTILE_LIST_TABLES = {
    "entries": st.lists(
        st.tuples(
            st.sampled_from([0, 15, 16, 17, 32, 48, 2**32, 2**63, 2**64 - 1]),
            st.sampled_from([0, 1, 9, 2**31, 2**63, 2**64 - 1]),
        ),
        max_size=4,
    ),
    "count_delta": st.sampled_from([0, 1, 2**40]),
    "body": st.binary(max_size=32),
}


@settings(max_examples=200, deadline=None)
@given(**HOSTILE_LIST_TABLES)
def test_hostile_list_tables(entries: list[tuple[int, int]], count_delta: int, body: bytes) -> None:
    blob = struct.pack(">4sHHQ", b"WPEL", 1, 0, len(entries) + count_delta)
    blob += b"".join(struct.pack(">QQ", off, n) for off, n in entries) + body
    try:
        decode_list(blob, copy=False)
    except DecodeError as exc:
        assert 0 <= exc.offset <= len(blob)


@pytest.mark.parametrize("code", [15, 6])  # bfloat16 (no big-endian numpy type), float32
def test_zero_elements_with_an_overflowing_shape_fail_alike_with_and_without_copy(
    code: int,
) -> None:
    # Found by fuzz_evalue: a bfloat16 tensor with a 0 among sizes whose product overflows
    # numpy was a RawTensor view without a copy and a LimitError with one.
    blob = _tensor(code, [0x0F0F0F0F] * 12 + [0, 3])
    errors = []
    for copy in (False, True):
        with pytest.raises(LimitError, match="overflows the element count") as info:
            decode(blob, copy=copy, extended=True, text=False)
        errors.append((info.value.offset, info.value.reason))
    assert errors[0] == errors[1] and errors[0][0] == len(blob)
