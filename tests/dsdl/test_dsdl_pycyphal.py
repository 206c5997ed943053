"""Generated classes in pycyphal v1: its ``pycyphal.dsdl`` helpers and its presentation layer.

The peer is pycyphal 1.27 itself: its helpers on every type give the same
bytes and the same plain data for wireplan's classes as for the classes
nunavut generates for pycyphal, invalid input gives ``None`` for both, and a
Publisher/Subscriber pair and a Client/Server pair run over pycyphal's
loopback transport with wireplan's classes.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pydsdl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ._support import CORNER, class_for, full_name, unwrap
from ._values import same, values

pd = pytest.importorskip("pycyphal.dsdl")

_FAST = settings(
    max_examples=3, deadline=None, database=None, suppress_health_check=list(HealthCheck)
)


# pycyphal's own classes that fail here, where wireplan's are checked against pydsdl only:
# nunavut 2.3 names the types called ``_`` wrongly inside their code (NameError), and its
# code for signed sub-byte integer arrays (int3[<=2]) overflows under numpy 2.
_NUNAVUT_FAILS = {"corner.Ext.1.1", "corner.HasExt.1.1"}


def _broken_in_nunavut(t: Any) -> bool:
    return unwrap(t).short_name == "_" or full_name(t) in _NUNAVUT_FAILS


@pytest.fixture(scope="module")
def pycyphal_corner(
    pycyphal_public: dict[str, ModuleType], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, ModuleType]:
    """pycyphal's package of the corner namespace (next to its uavcan and reg)."""
    out = tmp_path_factory.mktemp("pycyphal-corner")
    pd.compile(str(CORNER), [], str(out))
    sys.path.insert(0, str(out))
    return {"corner": importlib.import_module("corner")}


@contextlib.contextmanager
def _importable_as_top_level(roots: dict[str, ModuleType]) -> Iterator[None]:
    """wireplan's packages (loaded under a private parent) importable as ``uavcan``... meanwhile.

    pycyphal's ``update_from_builtin`` builds a nested object it has to
    create (an array of composites, a union variant not selected) through
    ``get_class``, which imports the package named like the DSDL root.  A
    wireplan user has wireplan's package there (``compile(..., output=D)``
    with ``D`` on ``sys.path``); this process also has pycyphal's, so the
    test puts wireplan's modules in place for the call.
    """
    prefix = next(iter(roots.values())).__name__.rsplit(".", 1)[0] + "."
    mine = {
        name[len(prefix) :]: module
        for name, module in list(sys.modules.items())
        if name.startswith(prefix) and name[len(prefix) :].split(".")[0] in roots
    }
    saved = {name: sys.modules.get(name) for name in mine}
    sys.modules.update(mine)
    try:
        yield
    finally:
        for name, module in saved.items():
            if module is None:
                del sys.modules[name]
            else:
                sys.modules[name] = module


def _helpers_agree(t: Any, mine: Any, theirs: Any, roots: dict[str, ModuleType]) -> None:
    """pycyphal's helpers on both classes, per random value of ``t``."""
    if _broken_in_nunavut(t):
        theirs = None
    assert theirs is None or pd.is_message_type(mine) == pd.is_message_type(theirs)
    assert pd.get_model(mine) == t and str(pd.get_model(mine)) == full_name(t)
    assert pd.get_extent_bytes(mine) == t.extent // 8
    if theirs is not None:
        assert pd.get_model(mine) == pd.get_model(theirs)
        assert pd.get_extent_bytes(mine) == pd.get_extent_bytes(theirs)
        assert pd.get_fixed_port_id(mine) == pd.get_fixed_port_id(theirs)

    @_FAST
    @given(values(t))
    def check(v: Any) -> None:
        data = pydsdl.serialize(t, v)
        ours = pd.deserialize(mine, [memoryview(data)])
        assert ours is not None
        assert b"".join(pd.serialize(ours)) == data
        assert pd.get_model(ours) == t
        plain = pd.to_builtin(ours)
        assert ours.serialize() == data  # to_builtin made its arrays numpy arrays: same bytes
        assert ours == mine.deserialize(data)  # and the same value
        with _importable_as_top_level(roots):
            built = pd.update_from_builtin(mine(), plain)
        assert built.serialize() == data, full_name(t)
        if theirs is not None:
            ref = pd.deserialize(theirs, [memoryview(data)])
            assert ref is not None and b"".join(pd.serialize(ref)) == data
            assert same(plain, pd.to_builtin(ref)), full_name(t)
            again = pd.update_from_builtin(theirs(), plain)
            assert b"".join(pd.serialize(again)) == data
        # wireplan's own view of the same object agrees with pydsdl
        assert same(mine.deserialize(data).to_builtin(), pydsdl.deserialize(t, data))

    check()


def _rejects_alike(t: Any, mine: Any, theirs: Any) -> None:
    """Random and cut bytes: ``None`` from pycyphal's ``deserialize`` exactly where pydsdl rejects.

    pycyphal's own classes agree where they accept; they also reject a
    delimiter header that zero extension supplies (input that ends before
    a nested delimited field), which pydsdl and wireplan read as an empty body.
    """
    maxb = (unwrap(t).bit_length_set.max + 7) // 8

    def one(data: bytes) -> None:
        try:
            pydsdl.deserialize(t, data)
            valid = True
        except (pydsdl.SerDesError, UnicodeDecodeError):
            valid = False
        ours = pd.deserialize(mine, [memoryview(data)])
        assert (ours is not None) == valid, f"{full_name(t)}: {data.hex()}"
        ref = None if _broken_in_nunavut(t) else pd.deserialize(theirs, [memoryview(data)])
        if ours is not None and ref is not None:  # (NaN payloads may differ: compare values)
            assert same(pd.to_builtin(ours), pd.to_builtin(ref)), full_name(t)

    @settings(_FAST, max_examples=4)
    @given(st.binary(max_size=maxb + 4))
    def random_bytes(data: bytes) -> None:
        one(data)

    @settings(_FAST, max_examples=2)
    @given(values(t), st.integers(0, 64))
    def cut(v: Any, n: int) -> None:
        data = pydsdl.serialize(t, v)
        one(data[: max(0, len(data) - n)])

    random_bytes()
    cut()


def test_helpers_on_every_public_type(
    public_types: list[Any],
    wp_public: dict[str, ModuleType],
    pycyphal_public: dict[str, ModuleType],
) -> None:
    assert len(public_types) == 266
    for t in public_types:
        _helpers_agree(t, class_for(wp_public, t), class_for(pycyphal_public, t), wp_public)


def test_helpers_on_every_corner_type(
    corner_types: list[Any],
    wp_corner: dict[str, ModuleType],
    pycyphal_corner: dict[str, ModuleType],
) -> None:
    for t in corner_types:
        _helpers_agree(t, class_for(wp_corner, t), class_for(pycyphal_corner, t), wp_corner)


def test_invalid_input_gives_none_as_for_pycyphal_classes(
    public_types: list[Any],
    wp_public: dict[str, ModuleType],
    pycyphal_public: dict[str, ModuleType],
    corner_types: list[Any],
    wp_corner: dict[str, ModuleType],
    pycyphal_corner: dict[str, ModuleType],
) -> None:
    for t in public_types:
        _rejects_alike(t, class_for(wp_public, t), class_for(pycyphal_public, t))
    for t in corner_types:
        _rejects_alike(t, class_for(wp_corner, t), class_for(pycyphal_corner, t))
    value = wp_public["uavcan"].register.Value_1_0
    assert pd.deserialize(value, [memoryview(b"\x20")]) is None  # union tag 32 of 15
    assert pd.deserialize(value, [memoryview(b"\x0e"), memoryview(b"\xff")]) is None  # > capacity
    assert pd.deserialize(value, []) == value()  # zero extension: the empty variant


def test_services_and_fragments(
    wp_public: dict[str, ModuleType], pycyphal_public: dict[str, ModuleType]
) -> None:
    w = wp_public["uavcan"]
    p = importlib.import_module("uavcan.node")  # pycyphal's (its packages import no children)
    assert pd.is_service_type(w.node.GetInfo_1_0)
    assert not pd.is_message_type(w.node.GetInfo_1_0)
    assert pd.get_model(w.node.GetInfo_1_0) == pd.get_model(p.GetInfo_1_0)
    assert isinstance(pd.get_model(w.node.GetInfo_1_0), pydsdl.ServiceType)
    assert pd.get_fixed_port_id(w.node.GetInfo_1_0) == 430
    assert pd.get_fixed_port_id(w.node.GetInfo_1_0.Request) == 430  # as nunavut gives it
    assert pd.get_model(w.node.GetInfo_1_0.Request) == pd.get_model(p.GetInfo_1_0.Request)
    hb = w.node.Heartbeat_1_0(uptime=7, mode=w.node.Mode_1_0(value=2))
    data = hb.serialize()
    parts = [memoryview(data[:3]), memoryview(bytearray(data[3:]))]
    assert pd.deserialize(w.node.Heartbeat_1_0, parts) == hb


def test_models_need_pydsdl_only_when_read(tmp_path: Path) -> None:
    """Importing and (de)serializing need no pydsdl; ``_MODEL_`` unpickles it on first read."""
    import subprocess

    import wireplan.dsdl

    out = wireplan.dsdl.compile(CORNER, output=tmp_path)
    code = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "import corner\n"
        "x = corner.Mixed_1_0.deserialize(corner.Mixed_1_0().serialize())\n"
        "assert 'pydsdl' not in sys.modules\n"
        "m = corner.Mixed_1_0._MODEL_\n"
        "assert 'pydsdl' in sys.modules\n"
        "print(m, type(corner.Svc_1_0._MODEL_).__name__)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(out)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["corner.Mixed.1.0", "ServiceType"]


def _run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 20))


def test_publisher_and_subscriber_over_loopback(
    wp_public: dict[str, ModuleType], pycyphal_public: dict[str, ModuleType]
) -> None:
    from pycyphal.presentation import Presentation
    from pycyphal.transport.loopback import LoopbackTransport

    node = wp_public["uavcan"].node
    assert pycyphal_public["uavcan"].__name__ == "uavcan"
    theirs = importlib.import_module("uavcan.node").Heartbeat_1_0
    sent = [
        node.Heartbeat_1_0(uptime=i, health=node.Health_1_0(value=i % 4), mode=node.Mode_1_0())
        for i in range(5)
    ]

    async def main() -> tuple[list[Any], list[Any]]:
        pres = Presentation(LoopbackTransport(local_node_id=42))
        try:
            pub = pres.make_publisher_with_fixed_subject_id(node.Heartbeat_1_0)
            sub = pres.make_subscriber_with_fixed_subject_id(node.Heartbeat_1_0)
            # pycyphal's own class on the same subject sees the same bytes
            peer = pres.make_subscriber(theirs, pd.get_fixed_port_id(theirs))
            got, seen = [], []
            for msg in sent:
                assert await pub.publish(msg)
                received = await sub.receive_for(5)
                assert received is not None
                got.append(received[0])
                assert received[1].source_node_id == 42
                other = await peer.receive_for(5)
                assert other is not None
                seen.append(other[0])
            return got, seen
        finally:
            pres.close()

    got, seen = _run(main())
    assert got == sent
    assert all(type(m) is node.Heartbeat_1_0 for m in got)
    assert [pd.to_builtin(m) for m in seen] == [m.to_builtin() for m in sent]


def test_service_call_over_loopback(wp_public: dict[str, ModuleType]) -> None:
    from pycyphal.presentation import Presentation
    from pycyphal.transport.loopback import LoopbackTransport

    uavcan = wp_public["uavcan"]
    get_info = uavcan.node.GetInfo_1_0
    execute = uavcan.node.ExecuteCommand_1_3

    async def main() -> tuple[Any, Any]:
        pres = Presentation(LoopbackTransport(local_node_id=7))
        try:

            async def info(request: Any, meta: Any) -> Any:
                assert type(request) is get_info.Request
                return get_info.Response(
                    protocol_version=uavcan.node.Version_1_0(major=1, minor=0),
                    name=f"org.wireplan.from{meta.client_node_id}",
                    unique_id=bytes(range(16)),
                    software_image_crc=[0xDEADBEEF],
                )

            async def run(request: Any, meta: Any) -> Any:
                return execute.Response(status=len(request.parameter), output="done")

            pres.get_server_with_fixed_service_id(get_info).serve_in_background(info)
            pres.get_server_with_fixed_service_id(execute).serve_in_background(run)
            answer = await pres.make_client_with_fixed_service_id(get_info, 7).call(
                get_info.Request()
            )
            done = await pres.make_client_with_fixed_service_id(execute, 7).call(
                execute.Request(command=execute.Request.COMMAND_IDENTIFY, parameter="abc")
            )
            return answer, done
        finally:
            pres.close()

    answer, done = _run(main())
    assert answer is not None and done is not None
    response, meta = answer
    assert type(response) is get_info.Response
    assert meta.source_node_id == 7
    assert bytes(response.name) == b"org.wireplan.from7"  # uint8[<=50]: a list of numbers
    assert bytes(response.unique_id) == bytes(range(16))
    assert list(response.software_image_crc) == [0xDEADBEEF]
    assert done[0].status == 3 and bytes(done[0].output) == b"done"
