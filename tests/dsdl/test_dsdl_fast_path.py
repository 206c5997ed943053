"""The fast path catches only the errors it is designed to raise: bad values still give
EncodeError with the field path, and anything else (a defect, a user's exception) shows."""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any

import pytest

import wireplan
from wireplan.dsdl import runtime


def _impl(pkg: ModuleType) -> Any:
    return sys.modules[pkg.__name__ + "._wireplan_impl"]


def test_bad_values_give_encode_error_with_the_path(wp_corner: dict[str, ModuleType]) -> None:
    corner = wp_corner["corner"]
    cases = [
        (corner.Mixed_1_0(a="x"), "$.a"),  # struct.error
        (corner.Mixed_1_0(inner=5), "$.inner"),  # AttributeError: not the nested type
        (corner.Mixed_1_0(flags=[True] * 6), "$.flags"),  # OverflowError: too long
        (corner.Mixed_1_0(flags=5), "$.flags"),  # TypeError: no len()
        (corner.Mixed_1_0(inner=corner.Inner_1_0(z=1.5j)), "$.inner.z"),  # a complex number
        (corner.Text_1_0(name="", raw=b"12345", misaligned=""), "$.raw"),  # over capacity
        (corner.Floats_1_0(f64="nan"), "$.f64"),
    ]
    for obj, path in cases:
        with pytest.raises(wireplan.EncodeError) as info:
            obj.serialize()
        assert info.value.path == path, (obj, info.value)
    # out of range, but saturated: serialized (as pydsdl does), not an error
    assert corner.Mixed_1_0(b=70000).serialize() == corner.Mixed_1_0(b=65535).serialize()


def test_the_caught_errors_are_one_named_tuple() -> None:
    assert (
        runtime.StructError,
        OverflowError,
        TypeError,
        ValueError,
        AttributeError,
    ) == runtime.FAST_PATH_ERRORS


def test_an_exception_of_a_user_property_propagates(wp_corner: dict[str, ModuleType]) -> None:
    corner = wp_corner["corner"]

    class Boom(corner.Inner_1_0):  # type: ignore[misc,name-defined]
        __slots__ = ()

        @property
        def x(self) -> int:
            raise RuntimeError("from the user's property")

        @x.setter
        def x(self, value: int) -> None:
            pass

    holder = corner.Mixed_1_0(inner=Boom())
    with pytest.raises(RuntimeError, match="user's property"):
        holder.serialize()


def test_a_defect_in_the_fast_path_propagates(
    wp_corner: dict[str, ModuleType], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A generator defect is not turned into a silent slowdown: an error the fast path is
    not designed to raise propagates at once; one of the caught kinds sends the value
    through normalize and then the same routine again, outside any handler, where the
    defect raises for the caller."""
    corner = wp_corner["corner"]
    impl = _impl(corner)
    floats = corner.Floats_1_0(odd16=1.5, odd32=2.5)  # bit-packed floats go through _fb
    assert floats.serialize()

    def missing(value: float, bits: int) -> int:
        raise NameError("name '_nothing' is not defined")

    monkeypatch.setattr(impl, "_fb", missing)
    with pytest.raises(NameError):
        floats.serialize()

    def broken(value: float, bits: int) -> int:
        raise AttributeError("'int' object has no attribute 'nothing'")

    slow: list[str] = []
    real_slow = impl._serialize_slow

    def spy(cls: type, obj: object) -> bytes:
        slow.append(cls.__name__)
        return real_slow(cls, obj)  # type: ignore[no-any-return]

    monkeypatch.setattr(impl, "_fb", broken)
    monkeypatch.setattr(impl, "_serialize_slow", spy)
    with pytest.raises(AttributeError, match="nothing"):
        floats.serialize()
    assert slow == ["Floats_1_0"]


@pytest.mark.parametrize("count", [0, 1, 7, 8, 9, 16, 63, 64, 65])
def test_bool_arrays_and_their_integer_agree_with_a_loop(count: int) -> None:
    import random

    rng = random.Random(count)
    for _ in range(40):
        bools = [rng.random() < 0.5 for _ in range(count)]
        value = sum(1 << i for i, x in enumerate(bools) if x)
        assert runtime.bools_to_int(bools) == value
        assert runtime.bools_to_int(tuple(int(x) for x in bools)) == value
        assert runtime.int_to_bools(value | (1 << count + 3), count) == bools
        array = runtime.int_to_bool_array(value, count)
        assert array.dtype == bool and array.tolist() == bools
        assert runtime.bools_to_int(array) == value
    for bad in ([2], [True, -1], [None], [0.5], [True] * count + [3]):
        with pytest.raises(OverflowError):
            runtime.bools_to_int(bad)


@pytest.mark.parametrize("count", [0, 1, 7, 8, 9, 63, 64, 65, 300])
def test_bools_read_from_the_buffer_are_those_of_the_integer(count: int) -> None:
    """``bools_at`` (a byte-aligned bool array read straight from the buffer) gives what
    ``int_to_bools_auto`` gives for the same bits: a list below ``LARGE``, a numpy bool
    array from it on, from bytes, a bytearray and a memoryview at any offset."""
    import random

    import numpy as np

    rng = random.Random(count)
    for offset in (0, 3):
        data = bytes(rng.getrandbits(8) for _ in range(offset + (count + 7) // 8 + 2))
        value = int.from_bytes(data[offset:], "little") & ((1 << count) - 1)
        want = runtime.int_to_bools_auto(value, count)
        for given in (data, bytearray(data), memoryview(data)):
            got = runtime.bools_at(given, offset, count)
            assert type(got) is type(want)
            if isinstance(want, np.ndarray):
                assert got.dtype == np.bool_ and got.tolist() == want.tolist()
            else:
                assert got == want and all(type(x) is bool for x in got)


def test_head_table_is_the_packed_header_of_every_length() -> None:
    import struct

    table = runtime.head_table("<BH", (7,), 257)
    assert len(table) == 257
    assert all(table[n] == struct.pack("<BH", 7, n) for n in range(257))
    assert runtime.head_table("<4xB", (), 256)[255] == b"\x00\x00\x00\x00\xff"
    assert runtime.head_table("<H", (), 3) == (b"\x00\x00", b"\x01\x00", b"\x02\x00")


@pytest.mark.parametrize("count", [1, 3, 31, 64])
def test_float16_arrays_keep_nan_payloads(count: int) -> None:
    """Lists and numpy arrays (float16 or wider) pack as numpy casts them, a NaN's payload
    and sign included; reading gives the same bits back; a finite value too large for
    float16 is an OverflowError (the slow path saturates or rejects it)."""
    import numpy as np

    rng = np.random.default_rng(count)
    bits = rng.integers(0, 1 << 16, count, dtype=np.uint16)
    bits[0] = 0x7E01  # a NaN with a payload
    bits[-1] |= 0xFC00  # a negative NaN or infinity
    half = bits.view("<f2")
    data = bits.astype("<u2").tobytes()
    values = runtime.numbers_from(data, "e", count, 0).tolist()
    assert np.array(values, "<f2").view("<u2").tolist() == bits.tolist()
    for given in (values, tuple(values), half, half.astype(np.float64)):
        assert runtime.pack_f16(given) == data
    with pytest.raises(OverflowError):
        runtime.pack_f16([1e6] * count)
    with pytest.raises(OverflowError):
        runtime.pack_f16(np.full(count, 1e6))
