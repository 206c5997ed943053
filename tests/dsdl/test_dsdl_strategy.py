"""The strategy chosen is the fast one where it can be, checked against pydsdl's offset sets."""

from __future__ import annotations

import inspect
import sys
from types import ModuleType
from typing import Any

import numpy as np
import pydsdl
import pytest

from wireplan.dsdl import layout

from ._support import CORNER, UAVCAN, class_for, full_name, unwrap


def _plain_fixed_aligned(t: Any) -> bool:
    """Fixed size, every leaf a byte-aligned 8/16/32/64-bit number: one struct is enough."""
    inner = unwrap(t)
    if inner.bit_length_set.min != inner.bit_length_set.max or isinstance(inner, pydsdl.UnionType):
        return False
    for f, off in inner.iterate_fields_with_offsets():
        dt = f.data_type
        if isinstance(dt, pydsdl.PaddingField | pydsdl.VoidType):
            continue
        if isinstance(dt, pydsdl.CompositeType):
            if isinstance(dt, pydsdl.DelimitedType) or not _plain_fixed_aligned(dt):
                return False
            continue
        if isinstance(dt, pydsdl.ArrayType):
            if not isinstance(dt, pydsdl.FixedLengthArrayType):
                return False
            dt = dt.element_type
        if isinstance(dt, pydsdl.BooleanType) or dt.bit_length not in (8, 16, 32, 64):
            return False
        if not off.is_aligned_at(8):
            return False
    return True


def test_heartbeat_is_one_struct(wp_public: dict[str, ModuleType]) -> None:
    hb = wp_public["uavcan"].node.Heartbeat_1_0
    assert hb._STRATEGY_ == "single-struct"
    report = layout(hb)
    assert report.strategy == "single-struct"
    assert {f.path: f.strategy for f in report.fields} == {
        "uptime": "struct",
        "health": "inline",
        "health.value": "struct",
        "mode": "inline",
        "mode.value": "struct",
        "vendor_specific_status_code": "struct",
    }
    assert report.fields[-1].offset_min == report.fields[-1].offset_max == 48


def test_fixed_byte_aligned_types_use_one_struct(
    public_types: list[Any], wp_public: dict[str, ModuleType]
) -> None:
    plain = [t for t in public_types if _plain_fixed_aligned(t)]
    assert len(plain) >= 100
    for t in plain:
        cls = class_for(wp_public, t)
        assert cls._STRATEGY_ == "single-struct", full_name(t)


def test_reported_strategy_agrees_with_pydsdl(
    public_types: list[Any], wp_public: dict[str, ModuleType]
) -> None:
    """A field the code moves with byte-level steps is byte-aligned in every pydsdl offset set."""
    for t in public_types:
        report = layout(class_for(wp_public, t))
        for f in report.fields:
            if f.strategy in ("struct", "byte-copy", "inline", "call") and "masked" not in f.reason:
                if "padding" in f.reason:
                    continue
                assert f.alignment >= 8, (full_name(t), f)


def test_bit_packed_type_falls_back_only_where_needed() -> None:
    report = layout("corner.Mixed.1.0", CORNER)
    got = {f.path: f.strategy for f in report.fields}
    assert got["a"] == got["b"] == got["e"] == "struct"
    assert got["c"] == "struct" and got["d"] == "bit-group"  # uint3 at a byte start, uint5 after it
    assert got["flags"] == "bit-stream"  # variable-length bools: alignment unknown from here on
    assert got["after_flags"] == "bit-stream"
    assert got["inner"] == "inline" and got["inner.x"] == "struct"  # realigned by the nested type
    assert got["tail"] == "struct"
    assert report.strategy == "stepwise"


def test_misaligned_fixed_type_is_still_one_struct() -> None:
    report = layout("corner.Misaligned.1.0", CORNER)
    assert report.strategy == "single-struct+bits"
    got = {f.path: f for f in report.fields}
    assert got["d"].strategy == "bit-group" and got["d"].offset_min == 9
    assert got["inner"].strategy == "inline"


def test_nested_delimited_and_unions_are_calls() -> None:
    report = layout("uavcan.node.port.List.1.0", UAVCAN)
    assert {f.path: f.strategy for f in report.fields}["publishers"] == "call"
    assert report.sealed and report.max_bytes == report.extent_bytes


def test_layout_by_name_matches_layout_of_class(wp_public: dict[str, ModuleType]) -> None:
    by_name = layout("uavcan.node.Heartbeat.1.0", UAVCAN)
    assert by_name == layout(wp_public["uavcan"].node.Heartbeat_1_0)
    with pytest.raises(Exception, match=r"no type uavcan\.node\.Nope"):
        layout("uavcan.node.Nope.1.0", UAVCAN)


def test_layout_render_is_readable() -> None:
    text = layout("uavcan.node.Heartbeat.1.0", UAVCAN).render()
    assert "single-struct" in text and "health.value" in text
    assert "byte-aligned 32-bit at byte 0 of run 0" in text and "run 0:" in text


def test_complete_input_is_decoded_in_place(
    wp_public: dict[str, ModuleType], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Complete input never takes the padded path; short input does and comes back
    zero-extended.  Real32's reads all raise past the end of the data, so its decoder
    runs with no length checks at all; Access.Request (a slice for its name, a union)
    checks its end instead."""
    uavcan = wp_public["uavcan"]
    impl = sys.modules[uavcan.__name__ + "._wireplan_impl"]
    padded: list[int] = []
    real_pad = impl._pad

    def spy(data: Any, size: int) -> bytes:
        padded.append(size)
        return real_pad(data, size)  # type: ignore[no-any-return]

    monkeypatch.setattr(impl, "_pad", spy)
    real32 = uavcan.primitive.array.Real32_1_0
    assert "n = len(data)" not in inspect.getsource(real32.deserialize)
    full = real32(value=np.arange(64, dtype=np.float32)).serialize()
    assert np.array_equal(real32.deserialize(full).value, np.arange(64))
    assert real32.deserialize(real32(value=[1.5, 2.5]).serialize()).value == [1.5, 2.5]
    assert padded == []
    short = real32(value=[1.5, 2.5]).serialize()[:-2]  # 2.5's upper bytes missing
    assert real32.deserialize(short).value == [1.5, 0.0] and padded == [257]

    reg = uavcan.register
    request = reg.Access_1_0.Request(
        name=reg.Name_1_0(name=list(b"x.y")),
        value=reg.Value_1_0(natural16=uavcan.primitive.array.Natural16_1_0(value=[7])),
    )
    data = request.serialize()
    assert "n = len(data)" in inspect.getsource(reg.Access_1_0.Request.deserialize)
    padded.clear()
    assert reg.Access_1_0.Request.deserialize(data) == request and padded == []
    cut = reg.Access_1_0.Request.deserialize(data[:-1])  # natural16 7 loses its upper byte
    assert cut.value.natural16.value == [7] and len(padded) == 1
