"""Every vector ExecuTorch's Java EValue wrote encodes byte for byte and decodes to its value."""

from __future__ import annotations

import numpy as np
import pytest
from evalue_support import GOLDEN_VALUES

from wireplan.evalue import decode, encode, encode_into, encoded_size


def _same(a: object, b: object) -> bool:
    if isinstance(b, np.ndarray):
        return (
            isinstance(a, np.ndarray)
            and a.dtype == b.dtype
            and a.shape == b.shape
            and a.tobytes() == b.tobytes()
        )
    return type(a) is type(b) and a == b


def test_every_golden_case_is_known(golden: list[tuple[str, bytes]]) -> None:
    assert {name for name, _ in golden} == set(GOLDEN_VALUES)


def test_golden_encode_byte_for_byte(golden: list[tuple[str, bytes]]) -> None:
    for name, data in golden:
        value = GOLDEN_VALUES[name]
        assert encode(value) == data, name
        assert encoded_size(value) == len(data), name
        buf = bytearray(len(data) + 5)
        assert encode_into(value, buf, 3) == len(data), name
        assert bytes(buf[3 : 3 + len(data)]) == data, name
        assert buf[:3] == b"\0\0\0" and buf[-2:] == b"\0\0", name


def test_golden_decode(golden: list[tuple[str, bytes]]) -> None:
    for name, data in golden:
        value = GOLDEN_VALUES[name]
        back = decode(data)
        assert _same(back, value), name
        if isinstance(value, np.ndarray):
            assert back.dtype.isnative and back.flags.writeable and back.flags.owndata, name
            view = decode(data, copy=False)
            assert not view.flags.writeable, name
            assert np.array_equal(view, value), name
            assert view.dtype.newbyteorder("=") == value.dtype, name
        for kind in (bytearray, memoryview):
            assert _same(decode(kind(data)), value), name


def test_golden_bytes_as_bytes(golden: list[tuple[str, bytes]]) -> None:
    rows = dict(golden)
    assert decode(rows["string_hello_accent"], text=False) == "h\u00e9llo".encode()
    assert encode("h\u00e9llo".encode()) == rows["string_hello_accent"]
    assert encode(bytearray(b"")) == rows["string_empty"]


def test_java_int8_uint8_decode_bug_not_reproduced(golden: list[tuple[str, bytes]]) -> None:
    # Java returns the header bytes as part of the data for these two types.
    rows = dict(golden)
    assert decode(rows["u8_shape[4]_0_1_127_255"]).tolist() == [0, 1, 127, 255]
    assert decode(rows["i8_shape[2]_-1_2"]).tolist() == [-1, 2]


@pytest.mark.parametrize(
    ("value", "hexdata"),
    [
        (True, "0501"),
        (np.float32(1.5), "0106003fc00000"),  # a numpy scalar is a rank-0 tensor
        (np.arange(6, dtype=np.float32).reshape(2, 3).T.copy(order="F"), None),
    ],
)
def test_other_mappings(value: object, hexdata: str | None) -> None:
    data = encode(value)
    if hexdata is not None:
        assert data.hex() == hexdata
    else:
        arr = np.asarray(value)
        assert np.array_equal(decode(data), arr)
