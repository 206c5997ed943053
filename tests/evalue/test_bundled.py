"""ExecuTorch bundled programs <-> Java EValues: against the flatbuffers package as the peer.

The flatbuffers package's generic ``Table`` reads what we write (field by vtable slot, as
flatc's generated readers do) and its ``Builder`` writes what we read, with the slots and
alignments of executorch's ``bundled_program_schema.fbs`` and ``program.fbs`` spelled out
here by hand, independently of ``wireplan.evalue._fbs_schema``.
"""

from __future__ import annotations

import io
import math
import struct
from pathlib import Path
from typing import Any

import flatbuffers
import numpy as np
import pytest
from flatbuffers import number_types as N
from flatbuffers.table import Table
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from wireplan.errors import ArgumentError, DecodeError, EncodeError
from wireplan.evalue import (
    BundledTestCase,
    RawTensor,
    RecordWriter,
    bundled_to_records,
    decode_bundled,
    encode_bundled,
    read_bundled,
    read_records,
    records_to_bundled,
    write_bundled,
)

# Slots as bundled_program_schema.fbs declares them (a union takes the slot before its value).
BP_VERSION, BP_SUITES, BP_PROGRAM = 0, 1, 2
SUITE_NAME, SUITE_CASES = 0, 1
CASE_INPUTS, CASE_OUTPUTS = 0, 1
VALUE_TYPE, VALUE_VAL = 0, 1
T_SCALAR_TYPE, T_SIZES, T_DATA, T_DIM_ORDER = 0, 1, 2, 3
MEMBER = {1: "Tensor", 2: "Int", 3: "Bool", 4: "Double"}
# program.fbs: Program.version 0, execution_plan 1; ExecutionPlan.name 0, values 2; EValue.val 1.
INT_MEMBER_OF_KERNEL_TYPES = 2


# -- the peer's reader ------------------------------------------------------------------------


def _at(t: Table, slot: int) -> int:
    return int(t.Offset(4 + 2 * slot))


def _scalar(t: Table, slot: int, flags: Any) -> Any:
    o = _at(t, slot)
    return t.Get(flags, t.Pos + o) if o else 0


def _tables(t: Table, slot: int) -> list[Table]:
    o = _at(t, slot)
    if not o:
        return []
    start = t.Vector(o)
    return [Table(t.Bytes, t.Indirect(start + 4 * i)) for i in range(t.VectorLen(o))]


def _bytes(t: Table, slot: int) -> tuple[int, bytes]:
    o = _at(t, slot)
    if not o:
        return 0, b""
    start = t.Vector(o)
    return start, bytes(t.Bytes[start : start + t.VectorLen(o)])


def _union(t: Table) -> tuple[str, Table]:
    code = _scalar(t, VALUE_TYPE, N.Uint8Flags)
    member = Table(bytearray(), 0)
    t.Union(member, _at(t, VALUE_VAL))
    return MEMBER[code], member


def _peer_value(t: Table) -> Any:
    kind, m = _union(t)
    if kind == "Int":
        return _scalar(m, 0, N.Int64Flags)
    if kind == "Bool":
        return bool(_scalar(m, 0, N.BoolFlags))
    if kind == "Double":
        return _scalar(m, 0, N.Float64Flags)
    start, data = _bytes(m, T_DATA)
    assert not data or start % 16 == 0, "Tensor.data is force_align: 16"
    _, order = _bytes(m, T_DIM_ORDER)
    o = _at(m, T_SIZES)
    shape = struct.unpack_from(f"<{m.VectorLen(o)}i", m.Bytes, m.Vector(o)) if o else ()
    assert list(order) == list(range(len(shape)))
    return ("Tensor", _scalar(m, T_SCALAR_TYPE, N.Int8Flags), shape, data)


def _peer_read(buf: bytes) -> tuple[int, bytes, list[tuple[str, list[Any], list[Any]]]]:
    assert flatbuffers.util.GetBufferIdentifier(buf, 0) == b"BP08"
    root = Table(bytearray(buf), struct.unpack_from("<I", buf)[0])
    start, program = _bytes(root, BP_PROGRAM)
    assert start % 32 == 0, "BundledProgram.program is force_align: 32"
    cases = []
    for suite in _tables(root, BP_SUITES):
        name = suite.String(suite.Pos + _at(suite, SUITE_NAME)).decode()
        for case in _tables(suite, SUITE_CASES):
            ins = [_peer_value(v) for v in _tables(case, CASE_INPUTS)]
            outs = [_peer_value(v) for v in _tables(case, CASE_OUTPUTS)]
            cases.append((name, ins, outs))
    return _scalar(root, BP_VERSION, N.Uint32Flags), program, cases


# -- the peer's writer -------------------------------------------------------------------------


def _peer_program() -> bytes:
    """A minimal executorch Program: one plan "forward" whose one value is Int 7."""
    b = flatbuffers.Builder(0)
    b.StartObject(1)
    b.PrependInt64Slot(0, 7, 0)
    int_table = b.EndObject()
    b.StartObject(2)
    b.PrependUint8Slot(0, INT_MEMBER_OF_KERNEL_TYPES, 0)
    b.PrependUOffsetTRelativeSlot(1, int_table, 0)
    evalue = b.EndObject()
    b.StartVector(4, 1, 4)
    b.PrependUOffsetTRelative(evalue)
    values = b.EndVector()
    name = b.CreateString("forward")
    b.StartObject(10)
    b.PrependUOffsetTRelativeSlot(0, name, 0)
    b.PrependUOffsetTRelativeSlot(2, values, 0)
    plan = b.EndObject()
    b.StartVector(4, 1, 4)
    b.PrependUOffsetTRelative(plan)
    plans = b.EndVector()
    b.StartObject(8)
    b.PrependUint32Slot(0, 0, 0)
    b.PrependUOffsetTRelativeSlot(1, plans, 0)
    b.Finish(b.EndObject(), file_identifier=b"ET12")
    return bytes(b.Output())


def _peer_bytes(b: flatbuffers.Builder, data: bytes, alignment: int) -> int:
    b.StartVector(1, len(data), alignment)
    b.head -= len(data)
    b.Bytes[b.head : b.head + len(data)] = data
    return int(b.EndVector())


def _peer_value_table(b: flatbuffers.Builder, value: Any) -> int:
    if isinstance(value, tuple):  # (scalar_type, sizes, dim_order, data)
        code, sizes, order, data = value
        data_at = _peer_bytes(b, data, 16)
        order_at = _peer_bytes(b, bytes(order), 1)
        b.StartVector(4, len(sizes), 4)
        for s in reversed(sizes):
            b.PrependInt32(s)
        sizes_at = b.EndVector()
        b.StartObject(4)
        b.PrependInt8Slot(T_SCALAR_TYPE, code, 0)
        b.PrependUOffsetTRelativeSlot(T_SIZES, sizes_at, 0)
        b.PrependUOffsetTRelativeSlot(T_DATA, data_at, 0)
        b.PrependUOffsetTRelativeSlot(T_DIM_ORDER, order_at, 0)
        member, code = b.EndObject(), 1
    else:
        b.StartObject(1)
        if isinstance(value, bool):
            b.PrependBoolSlot(0, value, False)
            code = 3
        elif isinstance(value, int):
            b.PrependInt64Slot(0, value, 0)
            code = 2
        else:
            b.PrependFloat64Slot(0, value, 0.0)
            code = 4
        member = b.EndObject()
    b.StartObject(2)
    b.PrependUint8Slot(VALUE_TYPE, code, 0)
    b.PrependUOffsetTRelativeSlot(VALUE_VAL, member, 0)
    return int(b.EndObject())


def _peer_vector(b: flatbuffers.Builder, offsets: list[int]) -> int:
    b.StartVector(4, len(offsets), 4)
    for o in reversed(offsets):
        b.PrependUOffsetTRelative(o)
    return int(b.EndVector())


def _peer_bundled(
    program: bytes, suites: list[tuple[str, list[tuple[list[Any], list[Any]]]]]
) -> bytes:
    b = flatbuffers.Builder(0)
    suite_tables = []
    for name, cases in suites:
        case_tables = []
        for ins, outs in cases:
            ins_at = _peer_vector(b, [_peer_value_table(b, v) for v in ins])
            outs_at = _peer_vector(b, [_peer_value_table(b, v) for v in outs])
            b.StartObject(2)
            b.PrependUOffsetTRelativeSlot(CASE_INPUTS, ins_at, 0)
            b.PrependUOffsetTRelativeSlot(CASE_OUTPUTS, outs_at, 0)
            case_tables.append(b.EndObject())
        cases_at = _peer_vector(b, case_tables)
        name_at = b.CreateString(name)
        b.StartObject(2)
        b.PrependUOffsetTRelativeSlot(SUITE_NAME, name_at, 0)
        b.PrependUOffsetTRelativeSlot(SUITE_CASES, cases_at, 0)
        suite_tables.append(b.EndObject())
    suites_at = _peer_vector(b, suite_tables)
    program_at = _peer_bytes(b, program, 32)
    b.StartObject(3)
    b.PrependUint32Slot(BP_VERSION, 2, 0)
    b.PrependUOffsetTRelativeSlot(BP_SUITES, suites_at, 0)
    b.PrependUOffsetTRelativeSlot(BP_PROGRAM, program_at, 0)
    b.Finish(b.EndObject(), file_identifier=b"BP08")
    return bytes(b.Output())


PROGRAM = _peer_program()


# -- tests ---------------------------------------------------------------------------------------


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (
            isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and a.dtype == b.dtype
            and a.shape == b.shape
            and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
        )
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    return type(a) is type(b) and a == b


def test_the_peer_reads_what_we_write() -> None:
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    big = np.arange(40_000, dtype=">f8").reshape(200, 200).T  # planned payload, swapped
    cases = [
        BundledTestCase("forward", [a, -3, True, 2.5], [a.T, big]),
        BundledTestCase("forward", [np.zeros((0, 3), np.int64), np.array(7, np.uint8)], []),
        BundledTestCase("encode", [], [np.array([True, False])]),
    ]
    version, program, got = _peer_read(encode_bundled(PROGRAM, cases))
    assert version == 2 and program == PROGRAM
    want = [
        (
            c.method_name,
            [_peer_form(v) for v in c.inputs],
            [_peer_form(v) for v in c.expected_outputs],
        )
        for c in cases
    ]
    assert got == want
    # The nested program is executorch's, readable on its own.
    root = Table(bytearray(program), struct.unpack_from("<I", program)[0])
    (plan,) = _tables(root, 1)
    (value,) = _tables(plan, 2)
    assert plan.String(plan.Pos + _at(plan, 0)) == b"forward"
    assert _scalar(value, 0, N.Uint8Flags) == INT_MEMBER_OF_KERNEL_TYPES


def _peer_form(v: Any) -> Any:
    if isinstance(v, np.ndarray):
        codes = {"f4": 6, "f8": 7, "i8": 4, "u1": 0, "b1": 11}
        key = f"{v.dtype.kind}{v.dtype.itemsize}"
        return (
            "Tensor",
            codes[key],
            v.shape,
            np.ascontiguousarray(v, v.dtype.newbyteorder("<")).tobytes(),
        )
    return v


def test_we_read_what_the_peer_writes() -> None:
    x = np.arange(24, dtype="<i4").reshape(2, 3, 4)
    # dim_order (0, 2, 1): memory holds x.transpose(0, 2, 1) row-major ("channels last").
    channels_last = np.ascontiguousarray(x.transpose(0, 2, 1)).tobytes()
    half = np.array([1.5, -2.0], "<f2")
    buf = _peer_bundled(
        PROGRAM,
        [
            (
                "forward",
                [
                    (
                        [(3, [2, 3, 4], [0, 2, 1], channels_last), 5, False, 0.25],
                        [(5, [2], [0], half.tobytes())],
                    )
                ],
            ),
            ("step", [([], [(3, [], [], struct.pack("<i", -9))])]),
        ],
    )
    for copy in (True, False):
        got = decode_bundled(buf, copy=copy)
        assert got.version == 2 and bytes(got.program) == PROGRAM
        (c0, c1) = got.test_cases
        assert (c0.method_name, c0.index, c1.method_name) == ("forward", 0, "step")
        assert np.array_equal(c0.inputs[0], x) and c0.inputs[0].dtype == np.int32
        assert c0.inputs[1:] == [5, False, 0.25]
        assert np.array_equal(c0.expected_outputs[0], half)
        assert (
            c1.inputs == [] and c1.expected_outputs[0].shape == () and c1.expected_outputs[0] == -9
        )
        assert c0.inputs[0].flags.writeable is copy


def _cases(tmp_path: Path, cases: list[BundledTestCase]) -> Path:
    path = tmp_path / "t.evr"
    with RecordWriter(path, durable=False) as w:
        for c in cases:
            w.write([c.method_name, len(c.inputs), *c.inputs, *c.expected_outputs])
    return path


JAVA_DTYPES = st.sampled_from(
    [np.uint8, np.int8, np.int32, np.int64, np.float16, np.float32, np.float64]
)
ARRAYS = JAVA_DTYPES.flatmap(
    lambda dt: hnp.arrays(dt, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
)
VALUES = st.one_of(
    ARRAYS,
    st.booleans(),
    st.integers(-(1 << 63), (1 << 63) - 1),
    st.floats(allow_nan=True),
)
CASES = st.lists(
    st.tuples(
        st.sampled_from(["forward", "step"]),
        st.lists(VALUES, max_size=3),
        st.lists(VALUES, max_size=3),
    ),
    max_size=4,
)


@settings(max_examples=40, deadline=None)
@given(CASES)
def test_records_round_trip_through_a_bundled_program(tmp_path_factory: Any, cases: Any) -> None:
    tmp = tmp_path_factory.mktemp("rt")
    # Grouped by method, as a bundled program keeps them.
    cases = sorted(cases, key=lambda c: c[0] != "forward")
    records = _cases(tmp, [BundledTestCase(m, list(i), list(o)) for m, i, o in cases])
    assert records_to_bundled(records, tmp / "t.bpte", PROGRAM, durable=False) == len(cases)
    assert bundled_to_records(tmp / "t.bpte", tmp / "back.evr", durable=False) == len(cases)
    back = list(read_records(tmp / "back.evr"))
    want = [[m, len(i), *i, *o] for m, i, o in cases]
    assert len(back) == len(want)
    for got, exp in zip(back, want, strict=True):
        assert len(got) == len(exp) and all(_same(g, e) for g, e in zip(got, exp, strict=True))
    # The peer reads the same file.
    assert len(_peer_read((tmp / "t.bpte").read_bytes())[2]) == len(cases)


def test_write_and_read_a_file(tmp_path: Path) -> None:
    a = np.linspace(0, 1, 100_000, dtype=np.float32)  # past the builder's inline limit
    write_bundled(
        tmp_path / "p.bpte", PROGRAM, [BundledTestCase("forward", [a], [a * 2])], threads=2
    )
    got = read_bundled(tmp_path / "p.bpte", copy=False)
    assert np.array_equal(got.test_cases[0].inputs[0], a)
    assert np.array_equal(got.test_cases[0].expected_outputs[0], a * 2)


@pytest.mark.parametrize(
    ("value", "kind"),
    [(None, "None"), ("text", "str"), (b"raw", "bytes"), (np.zeros(2, np.complex64), "complex64")],
)
def test_what_has_no_bundled_form_is_refused_by_name(value: Any, kind: str) -> None:
    cases = [
        BundledTestCase("forward", [1], []),
        BundledTestCase("forward", [2, value], [], index=1),
    ]
    with pytest.raises(EncodeError, match=rf"test case forward\[1\] inputs\[1\]: .*{kind}"):
        encode_bundled(PROGRAM, cases)


def test_tensor_types_beyond_java_need_extended(tmp_path: Path) -> None:
    path = tmp_path / "b.bpte"
    flags = np.array([True, False])
    write_bundled(path, PROGRAM, [BundledTestCase("forward", [], [flags])], durable=False)
    with pytest.raises(EncodeError, match=r"forward\[0\] expected_outputs\[0\]: a BOOL tensor"):
        bundled_to_records(path, tmp_path / "r.evr", durable=False)
    bundled_to_records(path, tmp_path / "r.evr", extended=True, durable=False)
    (rec,) = read_records(tmp_path / "r.evr", extended=True)
    assert rec[:2] == ["forward", 0] and np.array_equal(rec[2], flags)


def test_types_numpy_cannot_hold_come_as_raw_tensors() -> None:
    raw = RawTensor(12, (2, 2), bytes([1, 2, 3, 4]))  # qint8
    wide = RawTensor(22, (2,), bytes([0, 1, 0, 2]))  # bits16, big-endian on the Java side
    buf = encode_bundled(PROGRAM, [BundledTestCase("forward", [raw, wide], [])])
    assert _peer_read(buf)[2][0][1][1][3] == bytes([1, 0, 2, 0])  # little-endian in the fbs
    got = decode_bundled(buf).test_cases[0].inputs
    assert got == [raw, wide]
    with pytest.raises(EncodeError, match=r"inputs\[0\]: 3 data bytes for shape \[2\] of bits16"):
        encode_bundled(PROGRAM, [BundledTestCase("forward", [RawTensor(22, (2,), bytes(3))], [])])


def test_a_record_that_is_not_a_test_case(tmp_path: Path) -> None:
    path = tmp_path / "bad.evr"
    with RecordWriter(path, durable=False) as w:
        w.write(["forward", 0])
        w.write(["forward", 5, 1])
    with pytest.raises(DecodeError, match=r"\$\[1\]") as info:
        records_to_bundled(path, tmp_path / "x.bpte", PROGRAM, durable=False)
    assert info.value.offset is not None and info.value.offset > 0


def _good() -> bytes:
    return encode_bundled(
        PROGRAM, [BundledTestCase("forward", [np.arange(6, dtype=np.float32).reshape(2, 3), 4], [])]
    )


def test_every_truncation_is_a_decode_error_inside_the_buffer() -> None:
    buf = _good()
    for n in range(len(buf)):
        with pytest.raises(DecodeError) as info:
            decode_bundled(buf[:n])
        assert info.value.offset is None or 0 <= info.value.offset <= n


def test_every_flipped_byte_decodes_or_fails_cleanly() -> None:
    buf = _good()
    for i in range(len(buf)):
        bad = bytearray(buf)
        bad[i] ^= 0xFF
        try:
            decode_bundled(bytes(bad))
        except DecodeError as exc:
            assert exc.offset is None or 0 <= exc.offset < len(buf)


def _tensor_field_at(buf: bytes, slot: int) -> int:
    """Where the first input tensor's field ``slot`` is stored, found with the peer's reader."""
    root = Table(bytearray(buf), struct.unpack_from("<I", buf)[0])
    value = _tables(_tables(_tables(root, BP_SUITES)[0], SUITE_CASES)[0], CASE_INPUTS)[0]
    _, tensor = _union(value)
    return int(tensor.Pos) + _at(tensor, slot)


def test_a_wrong_data_length_names_its_place() -> None:
    buf = _peer_bundled(PROGRAM, [("forward", [([(6, [2, 3], [0, 1], bytes(20))], [])])])
    with pytest.raises(DecodeError, match=r"20 data bytes for shape \[2, 3\] of float32") as info:
        decode_bundled(buf)
    assert info.value.offset == _tensor_field_at(buf, T_DATA)
    assert info.value.path == "$.method_test_suites[0].test_cases[0].inputs[0].val.data"


def test_a_bad_dim_order_and_scalar_type_name_their_place() -> None:
    buf = _peer_bundled(PROGRAM, [("forward", [([(6, [2, 3], [1, 1], bytes(24))], [])])])
    with pytest.raises(DecodeError, match="dim_order") as info:
        decode_bundled(buf)
    assert info.value.offset == _tensor_field_at(buf, T_DIM_ORDER)
    buf = _peer_bundled(PROGRAM, [("forward", [([(9, [2], [0], bytes(16))], [])])])  # complex64
    with pytest.raises(DecodeError, match="unknown scalar type 9") as info:
        decode_bundled(buf)
    assert info.value.offset == _tensor_field_at(buf, T_SCALAR_TYPE)


def test_not_a_bundled_program() -> None:
    with pytest.raises(DecodeError, match="identifier") as info:
        decode_bundled(PROGRAM)
    assert info.value.offset == 4
    with pytest.raises(ArgumentError, match="ET12"):
        encode_bundled(b"not a program", [])


def test_the_command_line_goes_both_ways(tmp_path: Path, capsys: Any) -> None:
    """``wireplan evalue bundle`` makes a .bpte from a .pte and records; ``bundled`` reads it
    back; a record that is no test case is an error naming the record."""
    from wireplan.cli import main

    (tmp_path / "m.pte").write_bytes(PROGRAM)
    cases = [BundledTestCase("forward", [np.arange(6, dtype=np.float32)], [True, 2.5])]
    records = _cases(tmp_path, cases)
    out = io.StringIO()
    argv = ["evalue", "bundle", str(records), "--program", str(tmp_path / "m.pte")]
    assert main([*argv, "-o", str(tmp_path / "t.bpte"), "--no-fsync"], out=out) == 0
    assert "1 test case" in out.getvalue()
    assert read_bundled(tmp_path / "t.bpte").program == PROGRAM
    back = tmp_path / "back.evr"
    assert main(["evalue", "bundled", str(tmp_path / "t.bpte"), "-o", str(back)], out=out) == 0
    (got,) = read_records(back)
    assert (
        got[:2] == ["forward", 1] and _same(got[2], cases[0].inputs[0]) and got[3:] == [True, 2.5]
    )
    with RecordWriter(tmp_path / "bad.evr", durable=False) as w:
        w.write([1, 2])
    bad = ["evalue", "bundle", str(tmp_path / "bad.evr"), "--program", str(tmp_path / "m.pte")]
    capsys.readouterr()
    assert main([*bad, "-o", str(tmp_path / "x.bpte")], out=out) == 1
    assert "$[0]" in capsys.readouterr().err and not (tmp_path / "x.bpte").exists()
