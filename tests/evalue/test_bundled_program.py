"""An ExecuTorch program's values as Java EValues: programs written by the flatbuffers package.

Slots are program.fbs's, spelled out here: EValue.val is slot 1 (its type code slot 0);
Tensor: scalar_type 0, sizes 2, dim_order 3, data_buffer_idx 5, allocation_info 6,
extra_tensor_info 9; ExecutionPlan: name 0, values 2; Program: execution_plan 1,
constant_buffer 2, segments 4, constant_segment 5; Buffer.storage 0.
"""

from __future__ import annotations

import struct
from typing import Any

import flatbuffers
import numpy as np
import pytest

from wireplan.errors import DecodeError, EncodeError, NotFoundError
from wireplan.evalue import BundledTestCase, decode_bundled, encode_bundled, program_values
from wireplan.evalue._fbs_schema import PROGRAM_SCHEMA
from wireplan.flatbuffers.builder import Union, build_bytes

KINDS = {
    "Null": 1,
    "Int": 2,
    "Bool": 3,
    "Double": 4,
    "Tensor": 5,
    "String": 6,
    "IntList": 7,
    "DoubleList": 8,
    "BoolList": 9,
    "TensorList": 10,
    "OptionalTensorList": 11,
}
W = np.arange(6, dtype="<f4").reshape(2, 3)


def _vec(b: flatbuffers.Builder, offsets: list[int]) -> int:
    b.StartVector(4, len(offsets), 4)
    for o in reversed(offsets):
        b.PrependUOffsetTRelative(o)
    return int(b.EndVector())


def _member(b: flatbuffers.Builder, kind: str, value: Any) -> int:
    if kind == "Tensor":  # (scalar_type, sizes, dim_order, data_buffer_idx, planned)
        code, sizes, order, index, planned = value
        sizes_at = b.CreateNumpyVector(np.array(sizes, np.int32))
        order_at = b.CreateNumpyVector(np.array(order, np.uint8))
        alloc = 0
        if planned:
            b.StartObject(3)
            alloc = b.EndObject()
        b.StartObject(10)
        b.PrependInt8Slot(0, code, 0)
        b.PrependUOffsetTRelativeSlot(2, sizes_at, 0)
        b.PrependUOffsetTRelativeSlot(3, order_at, 0)
        b.PrependUint32Slot(5, index, 0)
        if alloc:
            b.PrependUOffsetTRelativeSlot(6, alloc, 0)
        return int(b.EndObject())
    if kind == "String":
        s = b.CreateString(value)
        b.StartObject(1)
        b.PrependUOffsetTRelativeSlot(0, s, 0)
        return int(b.EndObject())
    if kind == "IntList":
        items = b.CreateNumpyVector(np.array(value, np.int64))
        b.StartObject(1)
        b.PrependUOffsetTRelativeSlot(0, items, 0)
        return int(b.EndObject())
    b.StartObject(1)
    if kind == "Int":
        b.PrependInt64Slot(0, value, 0)
    elif kind == "Bool":
        b.PrependBoolSlot(0, value, False)
    elif kind == "Double":
        b.PrependFloat64Slot(0, value, 0.0)
    return int(b.EndObject())


def _peer_program(values: list[tuple[str, Any]], constants: list[bytes]) -> bytes:
    """A Program with one plan "forward" and its constants in ``constant_buffer``."""
    b = flatbuffers.Builder(0)
    evalues = []
    for kind, value in values:
        m = _member(b, kind, value)
        b.StartObject(2)
        b.PrependUint8Slot(0, KINDS[kind], 0)
        b.PrependUOffsetTRelativeSlot(1, m, 0)
        evalues.append(b.EndObject())
    values_at = _vec(b, evalues)
    name = b.CreateString("forward")
    b.StartObject(10)
    b.PrependUOffsetTRelativeSlot(0, name, 0)
    b.PrependUOffsetTRelativeSlot(2, values_at, 0)
    plans = _vec(b, [b.EndObject()])
    buffers = []
    for raw in constants:
        b.StartVector(1, len(raw), 16)
        b.head -= len(raw)
        b.Bytes[b.head : b.head + len(raw)] = raw
        storage = b.EndVector()
        b.StartObject(1)
        b.PrependUOffsetTRelativeSlot(0, storage, 0)
        buffers.append(b.EndObject())
    buffers_at = _vec(b, buffers)
    b.StartObject(8)
    b.PrependUOffsetTRelativeSlot(1, plans, 0)
    b.PrependUOffsetTRelativeSlot(2, buffers_at, 0)
    b.Finish(b.EndObject(), file_identifier=b"ET12")
    return bytes(b.Output())


VALUES = [
    ("Null", None),
    ("Int", -(1 << 40)),
    ("Bool", True),
    ("Double", 0.5),
    ("String", "relu"),
    ("Tensor", (6, [2, 3], [0, 1], 1, False)),
    ("Tensor", (6, [3, 2], [1, 0], 1, False)),  # the same bytes, dims stored swapped
    ("Tensor", (6, [2, 3], [0, 1], 0, True)),  # planned at run time
    ("IntList", [1, 2]),
]
PROGRAM = _peer_program(VALUES, [b"", W.tobytes() + bytes(8)])  # index 0: the placeholder


def test_values_of_a_program_the_peer_wrote() -> None:
    for copy in (True, False):
        got = program_values(PROGRAM, indices=range(7), copy=copy)
        assert got[:5] == [None, -(1 << 40), True, 0.5, "relu"]
        assert np.array_equal(got[5], W) and got[5].dtype == np.float32
        assert np.array_equal(got[6], W.T)
        assert got[5].flags.writeable is copy


@pytest.mark.parametrize(
    ("index", "kind"), [(7, "a Tensor whose memory is planned at run time"), (8, "an IntList")]
)
def test_values_without_a_java_form_are_refused_by_name(index: int, kind: str) -> None:
    with pytest.raises(EncodeError, match=rf"value {index} of forward: {kind}") as info:
        program_values(PROGRAM, indices=[0, index])
    assert info.value.path.startswith(f"$.execution_plan[0].values[{index}]")


def test_unknown_methods_and_indices() -> None:
    with pytest.raises(NotFoundError, match="'train'"):
        program_values(PROGRAM, method="train")
    with pytest.raises(NotFoundError, match="no value 9"):
        program_values(PROGRAM, indices=[9])


def test_every_truncation_is_a_decode_error() -> None:
    for n in range(len(PROGRAM)):
        with pytest.raises(DecodeError):
            program_values(PROGRAM[:n], indices=[5])


def test_a_constant_past_its_buffer_names_its_place() -> None:
    short = _peer_program([("Tensor", (6, [4, 4], [0, 1], 1, False))], [b"", bytes(24)])
    with pytest.raises(DecodeError, match="fewer than 64 bytes") as info:
        program_values(short)
    assert info.value.offset is not None
    assert info.value.path == "$.execution_plan[0].values[0].val.data_buffer_idx"


def _segment_program(data: bytes, offsets: list[int]) -> bytes:
    """A .pte laid out as executorch's serializer does: the flatbuffer with a 32-byte ``eh00``
    header inserted after its identifier (the root offset moved by as much), then the
    segment at a 16-aligned ``segment_base_offset``."""
    tensor = {"scalar_type": 6, "sizes": [2, 3], "dim_order": [0, 1], "data_buffer_idx": 1}
    root = {
        "execution_plan": [
            {"name": "forward", "values": [{"val": Union("Tensor", tensor)}]},
        ],
        "segments": [{"offset": 0, "size": len(data)}],
        "constant_segment": {"segment_index": 0, "offsets": offsets},
    }
    flat = bytes(build_bytes(PROGRAM_SCHEMA, root))
    program_size = len(flat) + 32
    base = -(-program_size // 16) * 16
    header = struct.pack("<4sIQQQ", b"eh00", 32, program_size, base, len(data))
    header += bytes(32 - len(header))
    head = struct.pack("<I", struct.unpack_from("<I", flat)[0] + 32) + flat[4:8]
    pte = head + header + flat[8:]
    return pte + bytes(base - len(pte)) + data


def test_constants_in_a_segment() -> None:
    pte = _segment_program(bytes(16) + W.tobytes(), [0, 16])
    (got,) = program_values(pte)
    assert np.array_equal(got, W)
    with pytest.raises(DecodeError, match="runs past its segment"):
        program_values(_segment_program(bytes(16) + W.tobytes(), [0, 17]))
    no_header = bytearray(pte)
    no_header[8:12] = b"xxxx"
    with pytest.raises(DecodeError, match="no extended header") as info:
        program_values(bytes(no_header))
    assert info.value.offset == 8


def test_the_program_inside_a_bundled_program() -> None:
    bundled = decode_bundled(encode_bundled(PROGRAM, [BundledTestCase("forward", [W], [W])]))
    assert program_values(bundled.program, indices=[1, 4]) == [-(1 << 40), "relu"]
