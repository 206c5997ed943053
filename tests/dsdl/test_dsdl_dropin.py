"""Code written for nunavut's Python classes (as pycyphal compiles them) runs unchanged on
wireplan's: one script, run on both packages, prints the same transcript.

What the script does is what application code does with generated classes:
positional and keyword constructors, scalar attributes read and assigned, arrays
read by length and index, unions by keyword, service halves, ``_MODEL_``,
``repr`` and ``==`` of a value with itself, and pycyphal's helpers.  Where the
two differ by design (docs/dsdl.md: arrays under 64 numbers are lists, ``==``
compares fields) the script stays on the common ground.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

pd = pytest.importorskip("pycyphal.dsdl")


_CAUGHT = (TypeError, ValueError, AttributeError, LookupError)


def _recorder(
    uavcan: Any,
) -> tuple[list[str], Callable[[str, Callable[[], object]], None], Callable[[str], Any]]:
    """A transcript, ``say(label, thunk)`` appending ``label: repr(result)`` (or the kinds
    of error an ``except`` clause of the caller would catch) to it, and ``sub(name)``
    importing ``uavcan.name``."""
    out: list[str] = []

    def say(label: str, thunk: Callable[[], object]) -> None:
        try:
            out.append(f"{label}: {thunk()!r}")
        except Exception as e:
            kinds = [k.__name__ for k in _CAUGHT if isinstance(e, k)]
            out.append(f"{label}: raises {' '.join(kinds) or type(e).__name__}")

    def sub(name: str) -> Any:
        return importlib.import_module(f"{uavcan.__name__}.{name}")

    return out, say, sub


def _script(uavcan: Any) -> list[str]:
    out, say, sub = _recorder(uavcan)

    node, reg, prim, time = sub("node"), sub("register"), sub("primitive"), sub("time")
    array = sub("primitive.array")
    health, mode = node.Health_1_0(2), node.Mode_1_0(value=1)
    hb = node.Heartbeat_1_0(5, health, mode, 3)
    say("positional", lambda: (hb.uptime, hb.health.value, hb.mode.value))
    say("vssc", lambda: hb.vendor_specific_status_code)
    say("mixed", lambda: node.Heartbeat_1_0(7, mode=node.Mode_1_0(3)).mode.value)
    say("defaults", lambda: (node.Heartbeat_1_0().uptime, node.Heartbeat_1_0(9).health.value))
    say("too many", lambda: node.Heartbeat_1_0(1, health, mode, 3, 4))
    say("twice", lambda: node.Heartbeat_1_0(1, uptime=2))
    say("unknown keyword", lambda: node.Heartbeat_1_0(upTime=2))
    say("bytes", lambda: bytes(b"".join(pd.serialize(hb))).hex())
    wire = [memoryview(b"".join(pd.serialize(hb)))]
    say("round trip", lambda: pd.to_builtin(pd.deserialize(node.Heartbeat_1_0, wire)))
    say("assigned", lambda: (setattr(hb, "uptime", 11), hb.uptime)[1])
    say("repr", lambda: repr(hb).split("(")[0])
    say("self-equal", lambda: hb == hb)

    name = reg.Name_1_0("uavcan.node.id")
    say("array by length", lambda: len(name.name))
    say("array by index", lambda: int(array.Natural8_1_0([117, 1]).value[0]))
    say("bytes by index", lambda: int(prim.Unstructured_1_0(b"\x07\x08").value[1]))
    say("array of ints", lambda: [int(x) for x in array.Natural16_1_0([1, 2, 3]).value])
    say("bytes of name", lambda: bytes(b"".join(pd.serialize(name))).hex())

    value = reg.Value_1_0(natural16=array.Natural16_1_0([42]))
    say("union keyword", lambda: [int(x) for x in value.natural16.value])
    say("union other", lambda: value.empty)
    say("union positional", lambda: reg.Value_1_0(prim.Empty_1_0()))
    say("union two", lambda: reg.Value_1_0(empty=prim.Empty_1_0(), natural16=value.natural16))

    req = reg.Access_1_0.Request(name, value)
    say("request", lambda: bytes(b"".join(pd.serialize(req))).hex())
    resp = reg.Access_1_0.Response(time.SynchronizedTimestamp_1_0(1), False, True, value)
    say("response", lambda: (resp.timestamp.microsecond, resp.mutable, resp.persistent))

    m = node.Heartbeat_1_0._MODEL_
    say("model", lambda: (m.full_name, m.version.major, m.fixed_port_id, m.extent))
    say("model fields", lambda: [f.name for f in m.fields_except_padding])
    say("model service", lambda: reg.Access_1_0._MODEL_.full_name)
    say("attributes", lambda: pd.get_attribute(hb, "uptime"))
    say("fixed port", lambda: pd.get_fixed_port_id(node.Heartbeat_1_0))
    return out


def _numpy_script(uavcan: Any) -> list[str]:
    """What code written for nunavut's classes does with arrays: numpy's methods on every
    array, text through ``tobytes().decode()``, assignment of text, bytes and lists."""
    np = pytest.importorskip("numpy")
    out, say, sub = _recorder(uavcan)

    reg, prim, array, port = (
        sub("register"),
        sub("primitive"),
        sub("primitive.array"),
        sub("node.port"),
    )
    si = sub("si.unit.velocity")

    def wire(obj: Any) -> bytes:
        return bytes(b"".join(pd.serialize(obj)))

    def back(obj: Any) -> Any:
        return pd.deserialize(type(obj), [memoryview(wire(obj))])

    name = reg.Name_1_0("uavcan.node.id")
    say("text", lambda: name.name.tobytes().decode())
    say("text decoded", lambda: back(name).name.tobytes().decode())
    say("text kind", lambda: (type(name.name).__name__, str(name.name.dtype), name.name.shape))
    say("repr", lambda: repr(name))
    name.name = "uavcan.pub.x"
    say("text assigned", lambda: (name.name.tobytes(), wire(name).hex()))
    name.name = b"raw"
    say("bytes assigned", lambda: (name.name.tolist(), name.name.flags.writeable))
    name.name = [104, 105]
    say("list assigned", lambda: (name.name.tobytes().decode(), str(name.name.dtype)))
    say("too long", lambda: reg.Name_1_0("x" * 300))
    blob = prim.Unstructured_1_0(b"\x01\x02\xff")
    say("byte array", lambda: (blob.value.sum(), str(blob.value.dtype), back(blob).value.tolist()))
    say("string", lambda: back(prim.String_1_0("héllo")).value.tobytes().decode())

    n16 = array.Natural16_1_0([1, 2, 3])
    say("numbers", lambda: (int(n16.value.sum()), str(n16.value.dtype), n16.value.tolist()))
    say("numbers decoded", lambda: (str(back(n16).value.dtype), int(back(n16).value.max())))
    say("numbers repr", lambda: repr(n16))
    r32 = array.Real32_1_0(np.linspace(0, 1, 5, dtype=np.float32))
    say("floats", lambda: (wire(r32).hex(), back(r32).value.mean().item()))
    say("float16", lambda: str(array.Real16_1_0([0.5]).value.dtype))
    say("equal arrays", lambda: np.array_equal(back(r32).value, r32.value))
    vec = si.Vector3_1_0()
    say("fixed default", lambda: (vec.meter_per_second.tolist(), str(vec.meter_per_second.dtype)))
    vec.meter_per_second[1] = 2.5
    say("fixed in place", lambda: back(vec).meter_per_second.tolist())
    say("fixed wrong length", lambda: si.Vector3_1_0([1.0, 2.0]))
    bits = array.Bit_1_0([True, False, True])
    say("bools", lambda: (str(bits.value.dtype), int(bits.value.sum()), back(bits).value.tolist()))
    ids = port.SubjectIDList_1_0(sparse_list=[port.SubjectID_1_0(7), port.SubjectID_1_0(9)])
    say("composites", lambda: (type(ids.sparse_list).__name__, str(ids.sparse_list.dtype)))
    say("composites decoded", lambda: [int(x.value) for x in back(ids).sparse_list])
    mask = port.SubjectIDList_1_0(mask=np.zeros(8192, bool))
    mask.mask[[3, 100]] = True
    say("mask", lambda: back(mask).mask.nonzero()[0].tolist())
    value = reg.Value_1_0(natural16=n16)
    say("union", lambda: back(value).natural16.value.tolist())
    say("builtin", lambda: pd.to_builtin(back(reg.Access_1_0.Request(reg.Name_1_0("a.b"), value))))
    return out


def test_nunavut_array_idioms(
    wp_public_numpy: dict[str, ModuleType], pycyphal_public: dict[str, ModuleType]
) -> None:
    """With ``arrays="numpy"`` code that uses nunavut's arrays runs unchanged on ours."""
    theirs = _numpy_script(pycyphal_public["uavcan"])
    mine = _numpy_script(wp_public_numpy["uavcan"])
    assert mine == theirs
    assert "text: 'uavcan.node.id'" in mine and "mask: [3, 100]" in mine


def test_numpy_arrays_keep_the_common_script(
    wp_public_numpy: dict[str, ModuleType], pycyphal_public: dict[str, ModuleType]
) -> None:
    assert _script(wp_public_numpy["uavcan"]) == _script(pycyphal_public["uavcan"])


def test_same_script_same_transcript(
    wp_public: dict[str, ModuleType], pycyphal_public: dict[str, ModuleType]
) -> None:
    theirs = _script(pycyphal_public["uavcan"])
    mine = _script(wp_public["uavcan"])
    assert mine == theirs
    assert "positional: (5, 2, 1)" in mine
    assert "too many: raises TypeError" in mine and "union positional: raises TypeError" in mine
    assert "union two: raises ValueError" in mine
