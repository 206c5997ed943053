"""Bad values give EncodeError with the field path (#12 point 7), what users pass today
still works, and NaN payload bits survive arrays of every length."""

from __future__ import annotations

import math
import struct
from types import ModuleType
from typing import Any

import numpy as np
import pydsdl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wireplan

from ._support import class_for, full_name, unwrap
from ._values import values

_FAST = settings(
    max_examples=3, deadline=None, database=None, suppress_health_check=list(HealthCheck)
)


def _array_fields(t: Any) -> list[Any]:
    """The top-level array fields of a structure, or the array variants of a union."""
    inner = unwrap(t)
    return [
        f
        for f in inner.fields
        if not isinstance(f, pydsdl.PaddingField) and isinstance(f.data_type, pydsdl.ArrayType)
    ]


def _attr(cls: Any, name: str) -> str:
    return next(a for a, _, n in cls._FIELDS_ if n == name)


def _with(t: Any, v: dict[str, Any], name: str, value: Any) -> dict[str, Any]:
    if isinstance(unwrap(t), pydsdl.UnionType):
        return {name: value}
    return {**v, name: value}


def test_unordered_containers_are_rejected_with_the_path(
    public_types: list[Any], wp_public: dict[str, ModuleType]
) -> None:
    """A dict (its keys would be serialized), a set (iteration order), a dict view or a
    generator in an array field: EncodeError naming the field, on every array of every
    public type (the containers hold valid element values, or valid keys)."""
    checked = 0
    for t in public_types:
        cls = class_for(wp_public, t)
        for f in _array_fields(t):
            dt = f.data_type
            el = dt.element_type
            count = dt.capacity if isinstance(dt, pydsdl.FixedLengthArrayType) else 2
            if isinstance(el, pydsdl.CompositeType):
                element: Any = class_for(wp_public, el)()
            else:
                element = False if isinstance(el, pydsdl.BooleanType) else 0
            items = [element] * min(count, dt.capacity)
            for bad in (
                dict(enumerate(items)),
                set(range(len(items))),
                frozenset(range(len(items))),
                dict.fromkeys(range(len(items))).keys(),
                (x for x in items),
            ):
                obj = cls()
                setattr(obj, _attr(cls, f.name), bad)
                with pytest.raises(wireplan.EncodeError) as info:
                    obj.serialize()
                assert info.value.path == f"$.{f.name}", (full_name(t), bad, info.value)
                checked += 1
    assert checked > 300


def _accepts_sequences(t: Any, cls: Any, f: Any) -> None:
    el = f.data_type.element_type
    attr = _attr(cls, f.name)

    @settings(_FAST, max_examples=2)
    @given(st.data())
    def check(data: st.DataObject) -> None:
        v = data.draw(values(t, in_range=True, max_var=4))
        how = data.draw(st.sampled_from(["tuple", "np", "np64", "raw"]))
        if f.name not in v:
            return  # another variant of a union
        plain = v[f.name]
        ref = pydsdl.serialize(t, v)
        given_: Any
        if isinstance(plain, str | bytes):
            raw = plain.encode() if isinstance(plain, str) else plain
            given_ = plain if how != "raw" else list(raw)
        elif how == "tuple":
            given_ = tuple(plain)
        elif how == "raw" and isinstance(el, pydsdl.UnsignedIntegerType) and el.bit_length == 8:
            given_ = bytes(plain)
        elif how in ("np", "np64") and isinstance(el, pydsdl.BooleanType):
            given_ = np.array(plain, dtype=np.bool_)
        elif how == "np" and isinstance(el, pydsdl.FloatType):
            given_ = np.array(plain, dtype=f"<f{el.bit_length // 8}")
        elif how == "np64" and isinstance(el, pydsdl.FloatType):
            given_ = np.array(plain, dtype=np.float64)
        elif how == "np" and el.bit_length in (8, 16, 32, 64):
            signed = isinstance(el, pydsdl.SignedIntegerType)
            given_ = np.array(plain, dtype=f"<{'i' if signed else 'u'}{el.bit_length // 8}")
        elif how == "np64" and isinstance(el, pydsdl.IntegerType):
            given_ = np.array(plain, dtype=np.int64 if el.bit_length < 64 else object)
        else:
            given_ = list(plain)
        obj = cls.from_builtin(v)
        setattr(obj, attr, given_)
        assert obj.serialize() == ref, (full_name(t), f.name, how)

    check()


def test_sequences_users_pass_are_accepted(
    public_types: list[Any], wp_public: dict[str, ModuleType]
) -> None:
    """Lists, tuples, numpy arrays (the wire dtype or another), bytes for uint8 arrays and
    str for utf8 arrays serialize as pydsdl serializes the list."""
    for t in public_types:
        for f in _array_fields(t):
            if not isinstance(f.data_type.element_type, pydsdl.CompositeType):
                _accepts_sequences(t, class_for(wp_public, t), f)


@pytest.mark.parametrize(
    ("name", "dtype"),
    [("Real32_1_0", np.float32), ("Natural16_1_0", np.uint16), ("Natural8_1_0", np.uint8)],
)
def test_a_numpy_array_of_two_dimensions_is_an_encode_error(
    wp_public: dict[str, ModuleType], name: str, dtype: Any
) -> None:
    """A 2-D array of the wire dtype is refused, not written as its rows' count followed by
    every element (what the numpy fast path once wrote)."""
    cls = getattr(wp_public["uavcan"].primitive.array, name)
    with pytest.raises(wireplan.EncodeError) as info:
        cls(np.arange(6, dtype=dtype).reshape(2, 3)).serialize()
    assert info.value.path.startswith("$.value")
    flat = cls(np.arange(6, dtype=dtype)).serialize()
    assert flat == cls([0, 1, 2, 3, 4, 5]).serialize()


def test_an_empty_nested_type_takes_only_its_own_type(wp_public: dict[str, ModuleType]) -> None:
    can = wp_public["uavcan"].metatransport.can
    for bad in ("x", 5, can.DataFD_0_1()):
        with pytest.raises(wireplan.EncodeError) as info:
            can.Frame_0_2(error=bad).serialize()
        assert info.value.path == "$.error"
    assert can.Frame_0_2(error=can.Error_0_1()).serialize() == b"\x00" + bytes(4)


@pytest.mark.parametrize("text", ["\ud800", "a\udfffb", "\udc80" * 3])
def test_a_lone_surrogate_is_an_encode_error(
    wp_public: dict[str, ModuleType], wp_corner: dict[str, ModuleType], text: str
) -> None:
    """In a utf8 array, and in a uint8 array given as str (``register.Name``)."""
    reg = wp_public["uavcan"].register
    with pytest.raises(wireplan.EncodeError) as info:
        reg.Name_1_0(name=text).serialize()
    assert info.value.path == "$.name"
    with pytest.raises(wireplan.EncodeError) as info:
        reg.Name_1_0.from_builtin({"name": text}).serialize()
    assert info.value.path == "$.name"
    assert reg.Name_1_0(name="ok é").serialize() == b"\x05ok \xc3\xa9"
    corner = wp_corner["corner"]
    with pytest.raises(wireplan.EncodeError) as info:
        corner.Text_1_0(name=text).serialize()
    assert info.value.path == "$.name"
    with pytest.raises(wireplan.EncodeError) as info:
        corner.Text_1_0.from_builtin({"name": text})
    assert info.value.path == "$.name"
    # what users pass for text: str, UTF-8 bytes, a list of their values
    for name in ("é", "é".encode(), list("é".encode())):
        assert corner.Text_1_0(name=name, misaligned="").serialize()[:3] == b"\x02\xc3\xa9"


_NAN_BITS = {16: (0x7C00, 10), 32: (0x7F800000, 23), 64: (0x7FF0000000000000, 52)}
_CODE = {16: "H", 32: "I", 64: "Q"}


def _quiet_nan(bits: int, payload: int, negative: bool) -> bytes:
    exp, mbits = _NAN_BITS[bits]
    quiet = 1 << (mbits - 1)
    word = exp | quiet | (payload & (quiet - 1)) | (1 << (bits - 1) if negative else 0)
    return struct.pack("<" + _CODE[bits], word)


@pytest.mark.parametrize("bits", [16, 32, 64])
def test_nan_payload_bits_survive_arrays_of_every_length(
    wp_public: dict[str, ModuleType], bits: int
) -> None:
    """A quiet NaN's sign and payload bits survive decoding and encoding, whether the array
    is a list (under 64 elements) or a numpy array (64 and more), and a list of the
    decoded floats serializes to the same bytes as the numpy array."""
    array = wp_public["uavcan"].primitive.array
    cls = {16: array.Real16_1_0, 32: array.Real32_1_0, 64: array.Real64_1_0}[bits]
    cap = {16: 128, 32: 64, 64: 32}[bits]

    @settings(_FAST, max_examples=25)
    @given(
        st.integers(0, cap),
        st.lists(st.tuples(st.integers(1, (1 << 51) - 1), st.booleans()), min_size=1, max_size=8),
        st.data(),
    )
    def check(count: int, nans: list[tuple[int, bool]], data: Any) -> None:
        size = bits // 8
        elements = [struct.pack("<" + {16: "e", 32: "f", 64: "d"}[bits], 1.5)] * count
        for payload, negative in nans:
            if count:
                at = data.draw(st.integers(0, count - 1))
                elements[at] = _quiet_nan(bits, payload, negative)
        wire = bytes([count]) + b"".join(elements)
        value = cls.deserialize(wire).value
        assert cls(value=value).serialize() == wire, (count, type(value))
        as_list = value.tolist() if isinstance(value, np.ndarray) else value
        assert cls(value=list(as_list)).serialize() == wire
        assert len(wire) == 1 + count * size

    check()


def test_float16_lists_with_infinities_of_both_signs(wp_public: dict[str, ModuleType]) -> None:
    """float16 lists go through struct unless a NaN needs numpy; infinities of both signs
    make their sum NaN without any NaN element: still the right bytes, both ways."""
    cls = wp_public["uavcan"].primitive.array.Real16_1_0
    values = [math.inf, -math.inf, 1.5, -0.0, 65504.0, 6e-8]
    wire = cls(value=values).serialize()
    assert wire == bytes([6]) + struct.pack("<6e", *values)
    back = cls.deserialize(wire).value
    assert back.tolist() == list(struct.unpack("<6e", wire[1:]))
    assert math.copysign(1.0, back[3]) == -1.0
    with_nan = cls.deserialize(bytes([3]) + struct.pack("<3H", 0x7C00, 0xFC00, 0x7E55)).value
    assert with_nan[:2].tolist() == [math.inf, -math.inf] and math.isnan(with_nan[2])
    assert cls(value=with_nan).serialize()[5:] == struct.pack("<H", 0x7E55)  # payload kept
    # past the float16 range: saturated (DSDL's default cast mode) to +-65504, as pydsdl does
    assert cls(value=[1e6, -1e6]).serialize() == bytes([2]) + struct.pack("<2H", 0x7BFF, 0xFBFF)
