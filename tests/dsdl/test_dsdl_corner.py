"""The corner-case namespace (tests/dsdl/corner): pydsdl as the oracle, plus exact edge values."""

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

from wireplan import DecodeError, EncodeError

from ._support import class_for, full_name, unwrap
from ._values import same, values

_S = settings(
    max_examples=40, deadline=None, database=None, suppress_health_check=list(HealthCheck)
)


@pytest.fixture(scope="module")
def ns(wp_corner: dict[str, ModuleType]) -> ModuleType:
    return wp_corner["corner"]


def _corner_checks(t: Any, cls: Any, outside: bool = True) -> None:
    maxb = (unwrap(t).bit_length_set.max + 7) // 8

    @_S
    @given(values(t, in_range=True, max_var=20))
    def valid(v: Any) -> None:
        ref = pydsdl.serialize(t, v)
        assert cls.from_builtin(v).serialize() == ref, (full_name(t), v)
        assert same(cls.deserialize(ref).to_builtin(), pydsdl.deserialize(t, ref))

    @_S
    @given(values(t, in_range=False, max_var=20))
    def out_of_range(v: Any) -> None:
        ref = pydsdl.serialize(t, v)
        assert cls.from_builtin(v).serialize() == ref, (full_name(t), v)

    @settings(_S, max_examples=60)
    @given(st.binary(max_size=maxb + 8))
    def fuzz(data: bytes) -> None:
        try:
            expected = pydsdl.deserialize(t, data)
        except (pydsdl.SerDesError, UnicodeDecodeError):
            expected = None
        try:
            got = cls.deserialize(data).to_builtin()
        except DecodeError:
            assert expected is None
            return
        assert expected is not None and same(got, expected)

    valid()
    if outside:
        out_of_range()
    fuzz()


def test_oracle_every_corner_type(
    corner_types: list[Any], wp_corner: dict[str, ModuleType]
) -> None:
    for t in corner_types:
        _corner_checks(t, class_for(wp_corner, t))


def test_oracle_every_corner_type_with_numpy_arrays(corner_types: list[Any]) -> None:
    """``arrays="numpy"`` over odd widths, bit-level arrays, text, unions of arrays: the same
    bytes (values in range: out of range, an element its dtype cannot hold is refused)."""
    from wireplan.dsdl import load

    from ._support import CORNER

    wp = {"corner": load(CORNER, arrays="numpy")}
    for t in corner_types:
        _corner_checks(t, class_for(wp, t), outside=False)


# ----------------------------------------------------------------- exact values at the thresholds


@pytest.mark.parametrize(
    ("value", "saturated", "truncated"),
    [
        (65504.0, 65504.0, 65504.0),
        (65519.0, 65504.0, 65504.0),  # rounds down to the largest half
        (65520.0, 65504.0, math.inf),  # would round up to infinity
        (1e9, 65504.0, math.inf),
        (-1e9, -65504.0, -math.inf),
        (math.inf, math.inf, math.inf),
        (-math.inf, -math.inf, -math.inf),
        (6e-8, 6e-8, 6e-8),  # subnormal
        (10**400, 65504.0, math.inf),  # an int too large for a float
    ],
)
def test_float16_saturation(
    ns: ModuleType, value: float, saturated: float, truncated: float
) -> None:
    obj = ns.Floats_1_0(s16=value, t16=value, odd16=value)
    data = obj.serialize()
    back = ns.Floats_1_0.deserialize(data)
    half = struct.Struct("<e")
    assert back.s16 == half.unpack(half.pack(saturated))[0]
    assert back.t16 == half.unpack(half.pack(truncated))[0]
    assert back.odd16 == back.s16  # the same rule at a misaligned offset
    t = pydsdl.read_namespace(str(_corner_dir()), [])
    ft = next(x for x in t if x.full_name == "corner.Floats")
    assert data == pydsdl.serialize(
        ft, obj.to_builtin() | {"s16": value, "t16": value, "odd16": value}
    )


def test_float16_nan_kept(ns: ModuleType) -> None:
    back = ns.Floats_1_0.deserialize(ns.Floats_1_0(s16=math.nan, t32=math.nan).serialize())
    assert math.isnan(back.s16) and math.isnan(back.t32)


def test_float32_overflow(ns: ModuleType) -> None:
    back = ns.Floats_1_0.deserialize(ns.Floats_1_0(s32=1e39, t32=-1e39, odd32=1e300).serialize())
    assert back.s32 == struct.unpack("<f", struct.pack("<f", 3.4028234663852886e38))[0]
    assert back.t32 == -math.inf and back.odd32 == math.inf


@pytest.mark.parametrize(
    ("field", "given_value", "expected"),
    [
        ("a", 32, 0),  # truncated uint5 wraps
        ("a", 33, 1),
        ("a", -1, 31),
        ("c", 32, 31),  # saturated uint5 clamps
        ("c", -5, 0),
        ("b", 64, 63),  # int7 saturates
        ("b", -65, -64),
        ("d", 1000, 63),
        ("e", 2**64 + 5, 5),  # truncated uint64
        ("e", -1, 2**64 - 1),
        ("f", 2**63, 2**63 - 1),
        ("f", -(2**63) - 1, -(2**63)),
        ("g", 128, 127),
        ("h", 2, 1),
        ("i", 2, 0),  # truncated uint1
        ("i", 3, 1),
        ("j", 2**32, 0),
        ("k", 2**64, 2**64 - 1),
        ("k", -1, 0),
        ("a", 2.6, 3),  # floats round as pydsdl does
        ("b", True, 1),
    ],
)
def test_casts(ns: ModuleType, field: str, given_value: Any, expected: int) -> None:
    obj = ns.Casts_1_0(**{field: given_value})
    data = obj.serialize()
    assert getattr(ns.Casts_1_0.deserialize(data), field) == expected
    types = pydsdl.read_namespace(str(_corner_dir()), [])
    ct = next(x for x in types if x.full_name == "corner.Casts")
    assert data == pydsdl.serialize(ct, {field: given_value})


@pytest.mark.parametrize(
    "value", [0, 1, 127, 128, 255, 256, 2**31 - 1, 2**31, 2**32 - 1, 2**63, 2**64 - 1]
)
def test_boundaries_through_fast_and_slow_paths(ns: ModuleType, value: int) -> None:
    obj = ns.Casts_1_0(e=value, j=value, k=value)
    back = ns.Casts_1_0.deserialize(obj.serialize())
    assert back.e == value % 2**64
    assert back.j == value % 2**32
    assert back.k == min(value, 2**64 - 1)


# Bool fields and bool arrays in every position the generator handles differently:
# a bit group at a static offset (Misaligned.a), a few bools packed inline
# (Misaligned.flags), bools at a run-time bit position (BoolArrays.f, .w) and a
# variable-length array (BoolArrays.v).
_BOOL_SITES = [
    ("Misaligned_1_0", "a", None),
    ("Misaligned_1_0", "flags", 1),
    ("BoolArrays_1_0", "f", 12),
    ("BoolArrays_1_0", "v", 0),
    ("BoolArrays_1_0", "w", 2),
]


def _bool_site(ns: ModuleType, type_name: str, field: str, index: int | None, value: Any) -> Any:
    obj = getattr(ns, type_name)()
    if index is None:
        setattr(obj, field, value)
    else:
        items = list(getattr(obj, field))
        items += [False] * (index + 1 - len(items))
        items[index] = value
        setattr(obj, field, items)
    return obj


@pytest.mark.parametrize(("type_name", "field", "index"), _BOOL_SITES)
@pytest.mark.parametrize("bad", [math.nan, -math.inf, "yes"])
def test_bool_rejects_what_pydsdl_rejects(
    ns: ModuleType, type_name: str, field: str, index: int | None, bad: Any
) -> None:
    # pydsdl raises for a non-finite float or a non-number in a bool; the fast
    # path must not take its truthiness
    with pytest.raises(EncodeError):
        _bool_site(ns, type_name, field, index, bad).serialize()


@pytest.mark.parametrize(("type_name", "field", "index"), _BOOL_SITES)
@pytest.mark.parametrize("truthy", [2, -1, 0.5, 1.0])
def test_bool_coerces_numbers_like_pydsdl(
    ns: ModuleType,
    corner_types: list[Any],
    type_name: str,
    field: str,
    index: int | None,
    truthy: Any,
) -> None:
    got = _bool_site(ns, type_name, field, index, truthy).serialize()
    want = _bool_site(ns, type_name, field, index, True).serialize()
    assert got == want
    t = next(t for t in corner_types if unwrap(t).full_name == "corner." + type_name[:-4])
    assert got == pydsdl.serialize(t, _bool_site(ns, type_name, field, index, truthy).to_builtin())


def test_large_bool_array_fast_and_slow(wp_public: dict[str, ModuleType]) -> None:
    port = wp_public["uavcan"].node.port
    mask = np.zeros(512, dtype=bool)
    mask[[0, 9, 511]] = True
    want = port.ServiceIDList_1_0(mask=mask).serialize()
    assert want[0] == 1 and want[1] == 2 and want[63] == 128  # no header at the top level
    as_list = port.ServiceIDList_1_0(mask=mask.tolist()).serialize()
    as_ints = port.ServiceIDList_1_0(mask=mask.astype(np.uint8)).serialize()
    coerced = port.ServiceIDList_1_0(mask=[2 if b else 0 for b in mask.tolist()]).serialize()
    assert want == as_list == as_ints == coerced
    bad = mask.tolist()
    bad[3] = math.nan
    with pytest.raises(EncodeError):
        port.ServiceIDList_1_0(mask=bad).serialize()
    with pytest.raises(EncodeError):
        port.ServiceIDList_1_0(mask=mask[:-1]).serialize()
    back = port.ServiceIDList_1_0.deserialize(want).mask
    assert back.dtype == np.bool_ and back.flags.writeable and np.array_equal(back, mask)


@pytest.mark.parametrize("count", [0, 1, 7, 8, 9, 63, 64, 65, 300])
def test_variable_bool_array_alone_in_its_bytes(
    wp_public: dict[str, ModuleType], public_types: list[Any], count: int
) -> None:
    """A variable-length bool array that starts on a byte and ends its bit stream
    (uavcan.primitive.array.Bit, register.Value's bit arm) is packed straight to bytes:
    the bytes pydsdl writes, for a list, a tuple, 0/1 ints, a numpy bool array and a
    strided view of one; a bool array of another shape or a NaN is not taken as it is."""
    uavcan = wp_public["uavcan"]
    bit_type = next(t for t in public_types if full_name(t) == "uavcan.primitive.array.Bit.1.0")
    rng = np.random.default_rng(count)
    bools = rng.random(count) < 0.5
    want = bytes(pydsdl.serialize(bit_type, {"value": bools.tolist()}))
    wide = np.zeros(2 * count, dtype=bool)
    wide[::2] = bools
    for items in (bools.tolist(), tuple(bools.tolist()), bools.astype(np.uint8).tolist(),
                  bools, wide[::2], bools.astype(np.uint8)):  # fmt: skip
        assert uavcan.primitive.array.Bit_1_0(value=items).serialize() == want
        value = uavcan.register.Value_1_0(bit=uavcan.primitive.array.Bit_1_0(value=items))
        assert value.serialize() == bytes([3]) + want
    back = uavcan.primitive.array.Bit_1_0.deserialize(want).value
    assert list(back) == bools.tolist()
    if count:
        with pytest.raises(EncodeError):
            uavcan.primitive.array.Bit_1_0(value=[math.nan] * count).serialize()
    for shape in ((2, 2), (2, 8)):  # two elements, each not a bool: not packed flat
        with pytest.raises(EncodeError):
            uavcan.primitive.array.Bit_1_0(value=np.ones(shape, dtype=bool)).serialize()


@pytest.mark.parametrize("count", [0, 1, 32, 33, 255, 256, 257])
def test_array_lengths_at_the_capacity(
    wp_public: dict[str, ModuleType], public_types: list[Any], count: int
) -> None:
    """Array headers (a union tag and a length) at and around each capacity: pydsdl's
    bytes up to it, EncodeError beyond it (the fast path looks headers up by length)."""
    uavcan = wp_public["uavcan"]
    value_type = next(t for t in public_types if full_name(t) == "uavcan.register.Value.1.0")
    arms = [("string", "String_1_0", 256), ("natural8", "array.Natural8_1_0", 256),
            ("integer8", "array.Integer8_1_0", 256), ("natural16", "array.Natural16_1_0", 128),
            ("real64", "array.Real64_1_0", 32)]  # fmt: skip
    for arm, cls_name, cap in arms:
        items = [n % 100 for n in range(count)]
        cls = getattr(uavcan.primitive, cls_name.split(".")[0])
        if "." in cls_name:
            cls = getattr(cls, cls_name.split(".")[1])
        value = uavcan.register.Value_1_0(**{arm: cls(value=items)})
        if count > cap:
            with pytest.raises(EncodeError):
                value.serialize()
            continue
        want = bytes(pydsdl.serialize(value_type, {arm: {"value": items}}))
        assert value.serialize() == want, arm
        assert cls(value=items).serialize() == want[1:], arm


def _corner_dir() -> Any:
    from ._support import CORNER

    return CORNER


# ----------------------------------------------------------------- structure


def test_empty_types(ns: ModuleType) -> None:
    assert ns.Empty_1_0().serialize() == b""
    assert ns.Empty_1_0.deserialize(b"") == ns.Empty_1_0()
    assert ns.Empty_1_0.deserialize(b"\x01\x02") == ns.Empty_1_0()
    assert ns.EmptyDelimited_1_0().serialize() == b""
    # nested: a delimiter header of zero
    assert ns.HasExt_1_0().serialize()[-4:] == b"\x00\x00\x00\x00"


def test_unions_inside_unions(ns: ModuleType) -> None:
    inner = ns.V_1_0(i=-3)
    outer = ns.U_1_0(v=inner)
    data = outer.serialize()
    assert data == bytes([1, 1, 0b101])
    back = ns.U_1_0.deserialize(data)
    assert back.v == inner and back.v.i == -3 and back.inner is None
    assert outer.to_builtin() == {"v": {"i": -3}}
    assert ns.U_1_0.from_builtin({"v": {"e": {}}}).serialize() == bytes([1, 2])


def test_union_construction_rules(ns: ModuleType) -> None:
    with pytest.raises(EncodeError):
        ns.V_1_0(h=1.0, i=1)
    default = ns.V_1_0()
    assert default.h == 0.0 and default.i is None
    u = ns.V_1_0(h=1.5)
    u.i = 2  # selecting another variant replaces the first
    assert u.h is None and u.i == 2
    assert u.serialize() == bytes([1, 2])


def test_extent_and_versions(ns: ModuleType) -> None:
    """A 1.1 sender inside a container read by a 1.0 receiver, and the reverse."""
    new = ns.HasExt_1_1(
        first=ns.Ext_1_1(a=7, b=[1, 2], c=0xDEADBEEF, d=[-1, 2]),
        between=5,
        many=[ns.Ext_1_1(a=1, c=2), ns.Ext_1_1(a=3, b=[9])],
    )
    data = new.serialize()
    old = ns.HasExt_1_0.deserialize(data)  # extra fields skipped thanks to the headers
    assert old.first.a == 7 and list(old.first.b) == [1, 2] and old.between == 5
    assert [m.a for m in old.many] == [1, 3]
    again = ns.HasExt_1_1.deserialize(old.serialize())  # implicit zero extension
    assert again.first.c == 0 and list(again.first.d) == [] and again.many[1].a == 3
    assert ns.Ext_1_0._EXTENT_BYTES_ == 64 and not ns.Ext_1_0._SEALED_


def test_service_types(ns: ModuleType) -> None:
    svc = ns.Svc_1_0
    assert svc.Request.__qualname__ == "Svc_1_0.Request"
    assert svc.Response.__name__ == "Response"
    req = svc.Request(req=ns.Inner_1_0(x=5, y=True, z=-200), flags=[True, False, True])
    assert svc.Request.deserialize(req.serialize()) == req
    resp = svc.Response(resp=ns.U_1_0(small=17), code=6)
    assert svc.Response.deserialize(resp.serialize()) == resp
    assert not svc.Response._SEALED_ and svc.Request._SEALED_


def test_deep_nesting(ns: ModuleType) -> None:
    leaf = ns.Level3_1_0(x=-8, u=ns.U_1_0(v=ns.V_1_0(bytes_=[1, 2, 3])))
    lvl = ns.Level2_1_0(flag=True, pair=[leaf, ns.Level3_1_0(x=7)], one=leaf)
    deep = ns.Deep_1_0(levels=[lvl, lvl], fixed=lvl, tail=3)
    back = ns.Deep_1_0.deserialize(deep.serialize())
    assert back == deep
    assert back.levels[1].pair[0].u.v.bytes_ == [1, 2, 3]


def test_text_and_bytes(ns: ModuleType) -> None:
    obj = ns.Text_1_0(name="héllo", raw=b"\x00\xff", x=True, misaligned="ab")
    back = ns.Text_1_0.deserialize(obj.serialize())
    assert back.to_builtin() == {"name": "héllo", "raw": b"\x00\xff", "x": True, "misaligned": "ab"}


def test_constants(ns: ModuleType) -> None:
    assert pytest.approx(3.14159) == ns.Floats_1_0.PI
    assert ns.Floats_1_0.LIMIT == 200 and ns.Floats_1_0.YES is True and ns.Floats_1_0.NEGATIVE == -7


# ----------------------------------------------------------------- bad input


def test_bad_union_tag(ns: ModuleType) -> None:
    with pytest.raises(DecodeError) as info:
        ns.U_1_0.deserialize(bytes([9]))
    assert info.value.offset == 0 and info.value.path == "$"
    assert "union tag 9" in str(info.value)
    # nested: the inner union's tag at byte 1, under the field that holds it
    with pytest.raises(DecodeError) as info:
        ns.U_1_0.deserialize(bytes([1, 7]))
    assert info.value.offset == 1 and info.value.path == "$.v"


def test_array_length_beyond_capacity(ns: ModuleType) -> None:
    with pytest.raises(DecodeError) as info:
        ns.U_1_0.deserialize(bytes([1, 3, 4]))  # V.bytes holds at most 3
    assert info.value.offset == 2 and info.value.path == "$.v.bytes"
    data = bytearray(ns.Deep_1_0(levels=[ns.Level2_1_0()]).serialize())
    with pytest.raises(DecodeError) as info:
        ns.Deep_1_0.deserialize(bytes([3]) + bytes(data[1:]))
    assert info.value.path == "$.levels" and info.value.offset == 0


def test_error_path_through_arrays_and_headers(ns: ModuleType) -> None:
    good = ns.HasExt_1_0(first=ns.Ext_1_0(), many=[ns.Ext_1_0(), ns.Ext_1_0(b=[1])])
    data = bytearray(good.serialize())
    # layout: first = header(4) + a(2) + len(1); between(1); count(1); many[0] = 4+3; many[1] = 4+4
    at = 4 + 3 + 1 + 1 + 7 + 4 + 2  # the length byte of many[1].b
    assert data[at] == 1
    data[at] = 5
    with pytest.raises(DecodeError) as info:
        ns.HasExt_1_0.deserialize(bytes(data))
    assert info.value.path == "$.many[1].b" and info.value.offset == at


def test_delimiter_header_longer_than_data(ns: ModuleType) -> None:
    data = ns.HasExt_1_0().serialize()
    bad = (1000).to_bytes(4, "little") + data[4:]
    with pytest.raises(DecodeError) as info:
        ns.HasExt_1_0.deserialize(bad)
    assert info.value.offset == 0 and info.value.path == "$.first"
    assert "1000 bytes" in str(info.value)


def test_fields_after_a_long_delimited_body_are_zero_extended(
    corner_types: list[Any], ns: ModuleType
) -> None:
    """Found by tests/fuzz/fuzz_dsdl.py: a delimited body longer than its extent (a newer
    version's, skipped) moves the fields after it past the type's largest size, so the
    padded path must zero-extend beyond that size too (it raised struct.error)."""
    t = next(t for t in corner_types if full_name(t) == "corner.Level2.1.0")
    # flag; pair[0] declares 50 bytes (its extent is 16); pair[1] an empty body; `one`'s
    # header would start 2 bytes before the end of the data
    body = bytes(2) + bytes([0x12] * 48)  # x = 0, union tag 0, then bytes it skips
    data = b"\x00" + (50).to_bytes(4, "little") + body + bytes(4) + bytes(2)
    assert len(data) == 61 == (unwrap(t).bit_length_set.max + 7) // 8
    got = ns.Level2_1_0.deserialize(data)
    assert same(got.to_builtin(), pydsdl.deserialize(t, data))
    assert got.one == ns.Level3_1_0()
    for cut in range(len(data) + 1):
        try:
            expected = pydsdl.deserialize(t, data[:cut])
        except pydsdl.SerDesError:
            expected = None
        try:
            mine = ns.Level2_1_0.deserialize(data[:cut]).to_builtin()
        except DecodeError:
            mine = None
        assert (mine is None) == (expected is None) and (mine is None or same(mine, expected))


def test_only_wireplan_errors_escape(ns: ModuleType) -> None:
    with pytest.raises(DecodeError):
        ns.Text_1_0.deserialize(bytes([2, 0xC3, 0x28]))  # invalid UTF-8
    with pytest.raises(EncodeError) as info:
        ns.Deep_1_0(levels=[ns.Level2_1_0()] * 3).serialize()
    assert info.value.path == "$.levels"
    with pytest.raises(EncodeError) as info:
        ns.Misaligned_1_0(flags=[True]).serialize()
    assert info.value.path == "$.flags"
    with pytest.raises(EncodeError) as info:
        ns.Misaligned_1_0(e="x").serialize()
    assert info.value.path == "$.e"
    with pytest.raises(EncodeError):
        ns.Level2_1_0(one=ns.Inner_1_0()).serialize()


def test_zero_extension_and_truncation(ns: ModuleType) -> None:
    full = ns.Misaligned_1_0(a=True, b=5, c=-3, d=1.5, e=200, wide=-(2**62))
    data = full.serialize()
    assert ns.Misaligned_1_0.deserialize(data + b"\xff" * 5) == full
    short = ns.Misaligned_1_0.deserialize(data[:3])
    assert short.a and short.b == 5 and short.wide == 0
    assert ns.Misaligned_1_0.deserialize(memoryview(data)) == full
    assert ns.Misaligned_1_0.deserialize(bytearray(data)) == full


def test_uint8_arrays_take_lists_bytes_and_arrays(wp_public: dict[str, ModuleType]) -> None:
    name = wp_public["uavcan"].register.Name_1_0
    want = b"\x0e" + b"uavcan.node.id"
    for value in (
        list(b"uavcan.node.id"),
        b"uavcan.node.id",
        bytearray(b"uavcan.node.id"),
        np.frombuffer(b"uavcan.node.id", np.uint8),
        "uavcan.node.id",
    ):
        assert name(name=value).serialize() == want, type(value)
    with pytest.raises(EncodeError):
        name(name=bytes(256)).serialize()  # capacity 255


def test_delimited_bodies_decoded_in_place_across_versions(
    corner_types: list[Any], wp_corner: dict[str, ModuleType]
) -> None:
    """Delimited bodies are decoded inside the parent's buffer, so a body that
    ends early (read by a newer version) must not take the bytes after it: it
    is zero-extended, as pydsdl does, even when those bytes would be a bad
    length or tag."""
    by_name = {full_name(t): t for t in corner_types}
    old_t, new_t = by_name["corner.HasExt.1.0"], by_name["corner.HasExt.1.1"]
    pairs = [(old_t, new_t), (new_t, old_t)]

    @_S
    @given(st.data())
    def check(data: Any) -> None:
        for writer, reader in pairs:
            v = data.draw(values(writer, in_range=True, max_var=4))
            raw = pydsdl.serialize(writer, v)
            expected = pydsdl.deserialize(reader, raw)
            for buf in (raw, bytearray(raw)):
                got = class_for(wp_corner, reader).deserialize(buf).to_builtin()
                assert same(got, expected), (full_name(writer), v)

    check()
    ns = wp_corner["corner"]
    # a 1.0 body of 3 bytes followed by bytes that a 1.1 reader would take as
    # int3[<=2] d's length 255 if it read past the body
    old = ns.HasExt_1_0(first=ns.Ext_1_0(a=1), between=0, many=[ns.Ext_1_0(a=0xFFFF, b=[255] * 4)])
    data = old.serialize()
    new = ns.HasExt_1_1.deserialize(data)
    assert new.first.a == 1 and new.first.c == 0 and list(new.first.d) == []
    assert [m.a for m in new.many] == [0xFFFF] and list(new.many[0].b) == [255] * 4


# Unsigned sub-byte fields are range-checked with one comparison against the
# maximum only: a negative value must still leave the fast path (the packed
# integer goes negative, which pack and to_bytes reject) and saturate to 0.
_UINT_SITES = [
    ("BitPacked", "id", 12),  # bit group at bit 0 (attribute id_: a builtin's name)
    ("BitPacked", "quality", 2),  # bit group in the middle of a word
    ("BitPacked", "battery", 6),
    ("Misaligned", "b", 3),
    ("BoolArrays", "after", 8),  # at a run-time bit position
    ("BoolArrays", "tail", 4),
]


@pytest.mark.parametrize(("type_name", "field", "bits"), _UINT_SITES)
@pytest.mark.parametrize("offset", [-1, -(2**70), 1, 2**70])
def test_unsigned_fields_saturate_both_ways(
    corner_types: list[Any], ns: ModuleType, type_name: str, field: str, bits: int, offset: int
) -> None:
    t = next(t for t in corner_types if full_name(t) == f"corner.{type_name}.1.0")
    obj = getattr(ns, f"{type_name}_1_0")()
    value = offset if offset < 0 else (1 << bits) - 1 + offset
    attr = field + "_" if field == "id" else field
    setattr(obj, attr, value)
    plain = obj.to_builtin()
    assert plain[field] == value
    assert obj.serialize() == pydsdl.serialize(t, plain)
    back = getattr(ns, f"{type_name}_1_0").deserialize(obj.serialize())
    assert getattr(back, attr) == (0 if offset < 0 else (1 << bits) - 1)


def test_numpy_inputs_to_bit_level_arrays(ns: ModuleType) -> None:
    """numpy arrays given to short bool arrays and odd-width integer arrays (unpacked and
    shifted in place) give the bytes lists give (with ``arrays="numpy"`` they always are
    numpy arrays: the oracle test above covers that)."""
    status = [True, False, True, True, False, True]
    frame = dict(id_=4095, status=status, temperature=1.5, valid=True)
    as_list = ns.BitPacked_1_0(**frame).serialize()
    assert ns.BitPacked_1_0(**{**frame, "status": np.array(status)}).serialize() == as_list
    odd = ns.OddArrays_1_0(a=[7, 6, 5], b=[-4096, 4095])
    for a_type, b_type in ((np.uint8, np.int16), (np.uint64, np.int64)):
        given = ns.OddArrays_1_0(a=np.array([7, 6, 5], a_type), b=np.array([-4096, 4095], b_type))
        assert given.serialize() == odd.serialize()


# ------------------------------------------------- bit groups kept open at a byte boundary

_GROUPS = {
    "Stamp.1.0.dsdl": "uint56 us\n@sealed\n",
    # 7 + 1 bytes: one Q; 5 + 5 (+ 1): one run; a struct int, padding, an array, an
    # inline composite, a bit stream and a float after a 7-byte group
    "Groups.1.0.dsdl": (
        "uint56 stamp\nbool a\nuint3 b\nvoid4\n"
        "uint40 x\nuint40 y\nbool c\nvoid7\n"
        "uint24 t24\nuint8 tail\n"
        "uint56 s2\nvoid8\n"
        "uint56 s3\nuint8[<=3] arr\n"
        "Stamp.1.0 inner\nint5 d\nvoid3\n"
        "uint56 s4\nbool[<=5] flags\n"
        "uint56 s5\nfloat16 f\n"
        "int56 s6\n"
        "@sealed\n"
    ),
    "GroupUnion.1.0.dsdl": "@union\nStamp.1.0 stamp\nuint56 raw\nuint8 small\n@sealed\n",
    "GroupDelimited.1.0.dsdl": "Stamp.1.0 stamp\nbool ok\nint7 level\n@extent 64 * 8\n",
}


def test_bit_groups_kept_open_at_a_byte_boundary(tmp_path: Any) -> None:
    """The decoder keeps a bit group of 3, 5, 6 or 7 bytes (a 56-bit timestamp) open for
    the fields after it (7 + 1 bytes read as one ``Q``); whatever follows settles it:
    pydsdl's bytes and values both ways, and random bytes."""
    from wireplan.dsdl import load

    folder = tmp_path / "groups"
    folder.mkdir()
    for name, text in _GROUPS.items():
        (folder / name).write_text(text)
    types = pydsdl.read_namespace(str(folder), [])
    wp = {"groups": load(folder)}
    for t in types:
        _corner_checks(t, class_for(wp, t))
