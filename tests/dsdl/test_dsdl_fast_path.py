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


def _outcome(decode: Any, data: bytes) -> Any:
    """What ``decode`` makes of ``data``: its value as built-in data (as text, so that NaNs
    compare equal), or its error's place."""
    try:
        return repr(decode(data).to_builtin())
    except wireplan.DecodeError as exc:
        return ("error", exc.reason, exc.offset, exc.path)


_TOP_LEVEL = [
    ("uavcan", "primitive.array.Natural16_1_0"),  # a length at 0, numbers after it
    ("uavcan", "register.Name_1_0"),  # uint8 length, capacity 255
    ("uavcan", "node.GetInfo_1_0.Response"),  # lengths after 30 fixed bytes
    ("uavcan", "file.Read_1_1.Request"),  # a 40-bit integer, then a length
    ("uavcan", "register.Access_1_0.Request"),  # an array, then a union
    ("uavcan", "node.port.List_0_1"),  # delimited fields
    ("uavcan", "primitive.array.Bit_1_0"),  # bools from a byte, then the end
    ("uavcan", "register.Value_1_0"),  # a union: its variants from offset 0
    ("uavcan", "node.port.SubjectIDList_0_1"),  # a union of bools, composites, an empty
]


@pytest.mark.parametrize(("root", "name"), _TOP_LEVEL)
def test_the_top_level_decoder_is_the_nested_ones(
    wp_public: dict[str, ModuleType], root: str, name: str
) -> None:
    """``deserialize`` runs the steps from offset 0 (constant offsets up to the first
    variable length, the last offset update left out): the same values and the same
    errors, offset and path included, as the routine that starts anywhere (``_D_``, which
    pycyphal's protocol uses), on valid, truncated, extended and random data.  A union's
    ``_D_`` runs its variants from offset 0 too: both are compared with the variants that
    start anywhere (``_d_``, on the data zero-extended)."""
    import random

    cls: Any = wp_public[root]
    for part in name.split("."):
        cls = getattr(cls, part)
    impl = _impl(wp_public[root])
    ident = cls.__dict__["_IDENT_"]
    top = getattr(impl, "_D_" + ident)
    anywhere = getattr(impl, "_d_" + ident)

    def nested(data: Any) -> Any:
        if not cls._UNION_:
            return top(data)
        return anywhere(runtime.pad(data, len(data) + cls._MAX_BYTES_), 0, len(data))[0]

    rng = random.Random(23)
    datas = [b"", b"\x00", b"\xff" * 4]
    if not cls._UNION_:
        datas.append(cls().serialize())
    variants = len(getattr(impl, "_DV_" + ident, ()))
    for _ in range(300):
        size = rng.choice([1, 2, 5, 31, 33, 64, cls._MAX_BYTES_, cls._MAX_BYTES_ + 3])
        data = bytes(rng.getrandbits(8) for _ in range(size))
        if variants:  # mostly a valid tag (uint8 here), then random bytes
            data = bytes([rng.randrange(variants + 1)]) + data[1:]
        datas.append(data)
    for data in datas:
        for given in (data, bytearray(data), data[:-1], data + b"\x07"):
            assert _outcome(cls.deserialize, bytes(given)) == _outcome(nested, bytes(given))
            assert _outcome(cls.deserialize, given) == _outcome(nested, given)
            assert _outcome(top, given) == _outcome(nested, given)


@pytest.mark.parametrize("count", [0, 1, 63, 64, 254, 255])
def test_a_length_that_cannot_exceed_the_capacity_is_not_checked(
    wp_public: dict[str, ModuleType], public_types: list[Any], count: int
) -> None:
    """``uint8[<=255]``: every value of its 8-bit length fits, so the decoder has no check
    for it (nothing to raise); every length decodes as pydsdl does, also when the data ends
    early.  A capacity below the length's range is still checked."""
    import pydsdl

    name_type = next(t for t in public_types if t.full_name == "uavcan.register.Name")
    cls = wp_public["uavcan"].register.Name_1_0
    data = bytes([count]) + bytes((i * 7 + 1) % 256 for i in range(count))
    for given in (data, data[: len(data) // 2 + 1]):
        want = pydsdl.deserialize(name_type, memoryview(given))
        got = cls.deserialize(given)
        assert [int(x) for x in got.name] == [int(x) for x in want["name"]]
        assert got.serialize() == bytes(pydsdl.serialize(name_type, want))
    routine = getattr(_impl(wp_public["uavcan"]), "_d_" + cls.__dict__["_IDENT_"])
    assert "exceeds capacity" not in _source_of(routine)
    natural16 = wp_public["uavcan"].primitive.array.Natural16_1_0
    with pytest.raises(wireplan.DecodeError, match="exceeds capacity 128") as info:
        natural16.deserialize(bytes([129]) + bytes(258))
    assert (info.value.offset, info.value.path) == (0, "$.value")


def _source_of(fn: Any) -> str:
    import inspect

    return inspect.getsource(fn)


@pytest.mark.parametrize(
    ("name", "field", "cap"),
    [("primitive.String_1_0", "value", 256), ("register.Name_1_0", "name", 255)],
)
def test_byte_arrays_of_every_form_and_length(
    wp_public: dict[str, ModuleType], public_types: list[Any], name: str, field: str, cap: int
) -> None:
    """A byte array serializes as pydsdl does whatever its form (an empty list takes the
    shortcut to ``b''``), up to its capacity; beyond it, or with an element or a value of
    the wrong type, it is wireplan's EncodeError with the path."""
    import numpy as np
    import pydsdl

    cls: Any = wp_public["uavcan"]
    for part in name.split("."):
        cls = getattr(cls, part)
    full = "uavcan." + name.split("_")[0]
    ptype = next(t for t in public_types if t.full_name == full)
    for count in (0, 1, 2, 63, 64, cap - 1, cap):
        values = [(i * 5 + 3) % 256 for i in range(count)]
        want = bytes(pydsdl.serialize(ptype, {field: values}))
        for given in (values, tuple(values), bytes(values), np.array(values, np.uint8)):
            assert cls(**{field: given}).serialize() == want, (count, type(given))
        assert cls.deserialize(want).serialize() == want
    # saturated uint8: out-of-range elements are clamped (the slow path), not refused
    saturated = bytes(pydsdl.serialize(ptype, {field: [1, 255, 0]}))
    assert cls(**{field: [1, 256, -1]}).serialize() == saturated
    for bad in ([0] * (cap + 1), [1, "x"], [None], 5):
        with pytest.raises(wireplan.EncodeError, match=rf"^\$\.{field}"):
            cls(**{field: bad}).serialize()
