"""Every type of uavcan and reg against pydsdl's reference codec, and a sample against pycyphal."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

import numpy as np
import pydsdl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wireplan

from ._support import class_for, full_name, unwrap
from ._values import same, values

_FAST = settings(
    max_examples=3,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)


def _check_value(t: Any, cls: Any, v: Any) -> None:
    ref = pydsdl.serialize(t, v)
    mine = cls.from_builtin(v).serialize()
    assert mine == ref, f"{full_name(t)}: {mine.hex()} != {ref.hex()} for {v!r}"
    assert wireplan.dsdl.serialize(cls.from_builtin(v)) == ref
    back = wireplan.dsdl.deserialize(cls, ref)
    assert same(back.to_builtin(), pydsdl.deserialize(t, ref)), full_name(t)


def _check_bytes(t: Any, cls: Any, data: bytes) -> None:
    try:
        expected = pydsdl.deserialize(t, data)
    except (pydsdl.SerDesError, UnicodeDecodeError):
        expected = None
    try:
        got = cls.deserialize(data).to_builtin()
    except wireplan.DecodeError as exc:
        assert expected is None, f"{full_name(t)}: pydsdl decodes what wireplan rejects: {exc}"
        assert 0 <= exc.offset <= max(len(data), 1) + 8
        assert exc.path.startswith("$")
        return
    assert expected is not None, f"{full_name(t)}: wireplan decodes what pydsdl rejects"
    assert same(got, expected)


def test_every_type_is_generated(public_types: list[Any], wp_public: dict[str, ModuleType]) -> None:
    assert len(public_types) == 266
    for t in public_types:
        cls = class_for(wp_public, t)
        assert full_name(t) == cls._FULL_NAME_
        assert unwrap(t).extent // 8 == cls._EXTENT_BYTES_ or not cls._SEALED_


def _oracle_checks(t: Any, cls: Any, out_of_range: bool = True) -> None:
    maxb = (unwrap(t).bit_length_set.max + 7) // 8

    @_FAST
    @given(values(t))
    def in_range(v: Any) -> None:
        _check_value(t, cls, v)

    @settings(_FAST, max_examples=2)
    @given(values(t, in_range=False))
    def outside(v: Any) -> None:
        _check_value(t, cls, v)

    @settings(_FAST, max_examples=2)
    @given(st.binary(max_size=maxb + 4))
    def random_bytes(data: bytes) -> None:
        _check_bytes(t, cls, data)

    @settings(_FAST, max_examples=2)
    @given(values(t), st.integers(0, 64))
    def truncated(v: Any, cut: int) -> None:
        data = pydsdl.serialize(t, v)
        _check_bytes(t, cls, data[: max(0, len(data) - cut)])

    in_range()
    if out_of_range:
        outside()
    random_bytes()
    truncated()


def test_against_pydsdl(public_types: list[Any], wp_public: dict[str, ModuleType]) -> None:
    """Valid values (in range and out of range), random bytes and truncated bytes, per type."""
    for t in public_types:
        _oracle_checks(t, class_for(wp_public, t))


def test_numpy_arrays_against_pydsdl(
    public_types: list[Any], wp_public_numpy: dict[str, ModuleType]
) -> None:
    """``arrays="numpy"``: the same bytes both ways.  Values out of a field's range are left
    out: an element its numpy dtype cannot hold is refused on assignment (as nunavut's)."""
    for t in public_types:
        _oracle_checks(t, class_for(wp_public_numpy, t), out_of_range=False)


def _arrays_of(obj: Any) -> list[tuple[str, str, str, int]]:
    """(field, container, dtype, length) of every array field of ``obj``."""
    out = []
    for f in unwrap(type(obj)._MODEL_).fields_except_padding:
        value = getattr(obj, f.name + "_" if f.name in ("from", "type") else f.name, None)
        if isinstance(f.data_type, pydsdl.ArrayType) and value is not None:
            out.append((f.name, type(value).__name__, str(value.dtype), len(value)))
    return out


def test_numpy_arrays_are_nunavuts(
    public_types: list[Any],
    wp_public_numpy: dict[str, ModuleType],
    pycyphal_public: dict[str, ModuleType],
) -> None:
    """Every array field of every type, built by default and decoded from pydsdl's bytes:
    a numpy array of the dtype and length nunavut's class gives."""
    pd = pytest.importorskip("pycyphal.dsdl")
    for t in public_types:
        mine, theirs = class_for(wp_public_numpy, t), class_for(pycyphal_public, t)
        assert _arrays_of(mine()) == _arrays_of(theirs()), full_name(t)
        if unwrap(t).short_name == "_":
            continue  # nunavut's deserializer of a type named `_` raises NameError (its bug)

        _same_arrays_decoded(t, mine, theirs, pd)


def _same_arrays_decoded(t: Any, mine: Any, theirs: Any, pd: Any) -> None:
    @settings(_FAST, max_examples=2)
    @given(values(t))
    def decoded(v: Any) -> None:
        data = pydsdl.serialize(t, v)
        got = _arrays_of(mine.deserialize(data))
        assert got == _arrays_of(pd.deserialize(theirs, [memoryview(data)])), full_name(t)

    decoded()


SAMPLE = [
    "uavcan.node.Heartbeat.1.0",
    "uavcan.node.GetInfo.Response.1.0",
    "uavcan.node.port.List.1.0",
    "uavcan.register.Value.1.0",
    "uavcan.register.Access.Request.1.0",
    "uavcan.register.Access.Response.1.0",
    "uavcan.primitive.array.Real32.1.0",
    "uavcan.primitive.array.Bit.1.0",
    "uavcan.diagnostic.Record.1.1",
    "uavcan.file.Read.Response.1.1",
    "uavcan.time.Synchronization.1.0",
    "uavcan.si.sample.velocity.Vector3.1.0",
    "uavcan.metatransport.can.Frame.0.2",
    "uavcan.internet.udp.OutgoingPacket.0.2",
    "reg.udral.physics.kinematics.cartesian.State.0.1",
    "reg.udral.service.actuator.common.Feedback.0.1",
    "reg.udral.physics.electricity.PowerTs.0.1",
]


@pytest.mark.parametrize("name", SAMPLE)
def test_against_pycyphal(
    name: str,
    public_types: list[Any],
    wp_public: dict[str, ModuleType],
    pycyphal_public: dict[str, ModuleType],
) -> None:
    """pycyphal decodes wireplan's bytes and re-encodes them identically, and the reverse."""
    t = next(t for t in public_types if full_name(t) == name)
    mine = class_for(wp_public, t)
    theirs = class_for(pycyphal_public, t)

    _pycyphal_checks(t, mine, theirs)


def _pycyphal_checks(t: Any, mine: Any, theirs: Any) -> None:
    import pycyphal.dsdl

    @settings(_FAST, max_examples=10)
    @given(values(t))
    def check(v: Any) -> None:
        data = mine.from_builtin(v).serialize()
        obj = pycyphal.dsdl.deserialize(theirs, [memoryview(data)])
        assert obj is not None
        again = b"".join(pycyphal.dsdl.serialize(obj))
        assert again == data
        assert mine.deserialize(again) == mine.deserialize(data)

    check()


def test_heartbeat_same_object_both_ways(
    wp_public: dict[str, ModuleType], pycyphal_public: dict[str, ModuleType]
) -> None:
    import pycyphal.dsdl

    w = importlib.import_module(wp_public["uavcan"].__name__ + ".node")
    p = importlib.import_module(pycyphal_public["uavcan"].__name__ + ".node")
    for uptime, health, mode, vssc in [
        (0, 0, 0, 0),
        (1, 1, 1, 1),
        (2**32 - 1, 3, 7, 255),
        (128, 2, 3, 127),
    ]:
        mine = w.Heartbeat_1_0(
            uptime=uptime,
            health=w.Health_1_0(value=health),
            mode=w.Mode_1_0(value=mode),
            vendor_specific_status_code=vssc,
        )
        theirs = p.Heartbeat_1_0(
            uptime=uptime,
            health=p.Health_1_0(value=health),
            mode=p.Mode_1_0(value=mode),
            vendor_specific_status_code=vssc,
        )
        assert mine.serialize() == b"".join(pycyphal.dsdl.serialize(theirs))
    assert w.Heartbeat_1_0.MAX_PUBLICATION_PERIOD == p.Heartbeat_1_0.MAX_PUBLICATION_PERIOD
    assert w.Heartbeat_1_0.OFFLINE_TIMEOUT == p.Heartbeat_1_0.OFFLINE_TIMEOUT


LONG = [
    "uavcan.primitive.array.Real32.1.0",
    "uavcan.primitive.array.Natural16.1.0",
    "uavcan.primitive.array.Integer8.1.0",
    "uavcan.primitive.array.Bit.1.0",
    "uavcan.primitive.String.1.0",
    "uavcan.register.Value.1.0",
]


@pytest.mark.parametrize("name", LONG)
def test_long_arrays_become_numpy(
    name: str, public_types: list[Any], wp_public: dict[str, ModuleType]
) -> None:
    """Arrays of 64+ numbers or bools decode to numpy arrays; either form encodes the same."""
    t = next(t for t in public_types if full_name(t) == name)
    cls = class_for(wp_public, t)
    _long_checks(t, cls)


def _long_checks(t: Any, cls: Any) -> None:
    @settings(_FAST, max_examples=6)
    @given(values(t, max_var=300))
    def check(v: Any) -> None:
        ref = pydsdl.serialize(t, v)
        obj = cls.deserialize(ref)
        assert same(obj.to_builtin(), pydsdl.deserialize(t, ref))
        assert obj.serialize() == ref  # numpy arrays in, the same bytes out
        assert cls.from_builtin(v).serialize() == ref  # lists in

    check()


def test_numpy_inputs(wp_public: dict[str, ModuleType], public_types: list[Any]) -> None:
    arr = wp_public["uavcan"].primitive.array
    r32 = next(t for t in public_types if full_name(t) == "uavcan.primitive.array.Real32.1.0")
    values64 = np.linspace(-1e39, 1e39, 64)  # float64, partly beyond float32: saturated
    obj = arr.Real32_1_0(value=values64)
    assert obj.serialize() == pydsdl.serialize(r32, {"value": values64.tolist()})
    data = obj.serialize()
    back = arr.Real32_1_0.deserialize(data)
    assert isinstance(back.value, np.ndarray) and back.value.dtype == np.float32
    # from bytes: a zero-copy, read-only view of the input
    assert not back.value.flags.writeable and np.shares_memory(
        back.value, np.frombuffer(data, np.uint8)
    )
    # from a buffer that may change: a writable copy of its own
    buf = bytearray(data)
    mine = arr.Real32_1_0.deserialize(buf).value
    assert mine.flags.writeable and not np.shares_memory(mine, np.frombuffer(buf, np.uint8))
    buf[1:5] = bytes(4)
    assert mine[0] == back.value[0]
    assert (arr.Real32_1_0.deserialize(memoryview(data)).value == back.value).all()
    n8 = next(t for t in public_types if full_name(t) == "uavcan.primitive.array.Natural8.1.0")
    wide = np.array([0, 255, 256, -1] * 20, dtype=np.int64)  # saturated to 0..255
    assert arr.Natural8_1_0(value=wide).serialize() == pydsdl.serialize(
        n8, {"value": wide.tolist()}
    )
    small = arr.Natural8_1_0.deserialize(arr.Natural8_1_0(value=[1, 2]).serialize())
    assert small.value == [1, 2]  # fewer than 64 elements: a list


def test_valid_values_never_take_the_slow_path(
    public_types: list[Any], wp_public: dict[str, ModuleType], monkeypatch: pytest.MonkeyPatch
) -> None:
    """In-range values serialize on the generated fast path of every type,
    including types that nest types of another root namespace (reg over
    uavcan): a value the fast path rejects goes through normalize, so a fast
    path that rejected valid values would only show as lost speed."""
    taken: list[str] = []

    def spy(cls: Any, obj: Any) -> bytes:
        taken.append(cls._FULL_NAME_)
        raise AssertionError("slow path")

    for pkg in wp_public.values():
        impl = importlib.import_module(pkg.__name__ + "._wireplan_impl")
        monkeypatch.setattr(impl, "_serialize_slow", spy)

    def fast_path(t: Any, cls: Any) -> None:
        @settings(_FAST, max_examples=2)
        @given(values(t, in_range=True, max_var=4))
        def check(v: Any) -> None:
            assert cls.from_builtin(v).serialize() == pydsdl.serialize(t, v)

        check()

    for t in public_types:
        fast_path(t, class_for(wp_public, t))
    assert not taken, sorted(set(taken))


def test_float16_arrays_are_numpy_float16(wp_public: dict[str, ModuleType]) -> None:
    """float16 arrays decode to numpy float16 at every length (Python has no float16):
    a read-only view of ``bytes``, a writable copy of a ``bytearray``; lists still go in."""
    r16 = wp_public["uavcan"].primitive.array.Real16_1_0
    vec = importlib.import_module(wp_public["uavcan"].__name__ + ".si.unit.velocity").Vector3_1_0
    data = r16(value=[0.5, -2.0, 65504.0]).serialize()
    for buffer, writable in ((data, False), (bytearray(data), True)):
        value = r16.deserialize(buffer).value
        assert value.dtype == np.float16 and value.tolist() == [0.5, -2.0, 65504.0]
        assert value.flags.writeable is writable
    assert r16.deserialize(r16(value=[]).serialize()).value.dtype == np.float16
    assert type(vec.deserialize(bytes(12)).meter_per_second) is list  # float32: a list
    assert r16.deserialize(data).serialize() == data


def test_union_variants_decode_every_cut_as_pydsdl(
    public_types: list[Any], wp_public: dict[str, ModuleType]
) -> None:
    """A union's ``deserialize`` runs its variants from offset 0, and a variant whose every
    read fails past the end of the data (no bit stream, no nested routine) checks no
    length: short data raises there and is zero-extended.  Per variant of every union
    (the bools of ``register.Value`` are read by a slice, which a short buffer cuts: that
    variant checks its end), values with arrays up to 80 elements (lists and numpy arrays)
    and the data cut at its start, middle and end decode as pydsdl decodes them."""
    import random

    from ._values import random_value

    rng = random.Random(41)
    unions = [t for t in public_types if isinstance(unwrap(t), pydsdl.UnionType)]
    assert len(unions) >= 4
    for t in unions:
        cls = class_for(wp_public, t)
        for f in unwrap(t).fields:
            for max_var in (3, 3, 3, 20, 20, 20, 80, 80, 80):  # some are empty
                data = pydsdl.serialize(
                    t, {f.name: random_value(f.data_type, rng, max_var=max_var)}
                )
                n = len(data)
                for k in {0, 1, 2, 3, n // 2, n - rng.randint(1, 9), n - 1, n}:
                    _check_bytes(t, cls, data[: max(0, k)])
