"""Bytes in, bytes out: generated classes over a transport that moves raw bytes.

pycyphal 2 (and a plain socket) sends payloads, not DSDL objects: the sender
serializes to ``bytes``, the receiver decodes from ``bytes``, ``bytearray``
or a ``memoryview`` of its receive buffer, possibly joined from fragments.
The extensibility rules apply at the receiver: short data reads as zeros,
extra bytes are ignored, and only a nested delimited type has a header.
"""

from __future__ import annotations

import socket
import struct
import threading
from types import ModuleType
from typing import Any

import pydsdl
import pytest

from ._support import class_for, full_name


def _objects(wp: dict[str, ModuleType], corner: ModuleType) -> list[Any]:
    uavcan = wp["uavcan"]
    node, register, primitive = uavcan.node, uavcan.register, uavcan.primitive
    return [
        node.Heartbeat_1_0(uptime=1234, health=node.Health_1_0(value=2)),
        primitive.array.Real32_1_0(value=[float(i) / 4 for i in range(64)]),  # 256 bytes, numpy
        primitive.array.Real32_1_0(value=[1.5, -2.0]),
        node.port.List_1_0(
            publishers=node.port.SubjectIDList_1_0(
                sparse_list=[node.port.SubjectID_1_0(value=v) for v in (7509, 100)]
            ),
            servers=node.port.ServiceIDList_1_0(mask=[i % 3 == 0 for i in range(512)]),
        ),
        register.Access_1_0.Request(
            name=register.Name_1_0(name=b"uavcan.node.id"),  # uint8[<=255]
            value=register.Value_1_0(natural16=primitive.array.Natural16_1_0(value=[42])),
        ),
        node.GetInfo_1_0.Response(name=b"org.example.node", software_image_crc=[7]),
        uavcan.diagnostic.Record_1_1(text="héllo, wörld".encode()),
        corner.Text_1_0(name="héllo", raw=b"\x00\xff", x=True, misaligned="ö"),  # utf8 text
    ]


def test_objects_over_a_datagram_socket(
    wp_public: dict[str, ModuleType], wp_corner: dict[str, ModuleType]
) -> None:
    """One message per datagram; the receiver decodes a memoryview of its reused buffer."""
    sent = _objects(wp_public, wp_corner["corner"])
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    buffer = bytearray(65536)
    view = memoryview(buffer)
    received = []
    with a, b:
        for obj in sent:
            a.send(obj.serialize())
            n = b.recv_into(buffer)
            received.append(type(obj).deserialize(view[:n]))
            buffer[:n] = bytes(n)  # the buffer is reused: decoded objects must not see it
    assert received == sent


def test_objects_over_a_stream_in_fragments(
    wp_public: dict[str, ModuleType], wp_corner: dict[str, ModuleType]
) -> None:
    """A byte stream framed by the application (a length prefix), sent in 5-byte pieces.

    The receiver gathers each message's fragments and decodes them joined
    (``b"".join``) and as a ``bytearray``; both give the object sent.
    """
    sent = _objects(wp_public, wp_corner["corner"])
    a, b = socket.socketpair()  # SOCK_STREAM
    with a, b:
        stream = b"".join(struct.pack("<I", len(p)) + p for p in (o.serialize() for o in sent))

        def send() -> None:  # from a thread: small sends fill the socket's buffer
            for i in range(0, len(stream), 5):
                a.sendall(stream[i : i + 5])
            a.shutdown(socket.SHUT_WR)

        sender = threading.Thread(target=send, daemon=True)
        sender.start()
        pending = bytearray()
        received = []
        for obj in sent:
            while len(pending) < 4:
                pending += b.recv(5)
            (size,) = struct.unpack_from("<I", pending)
            fragments = [bytes(pending[4:])]
            got = len(fragments[0])
            while got < size:
                piece = b.recv(5)
                fragments.append(piece)
                got += len(piece)
            joined = b"".join(fragments)
            payload, pending = joined[:size], bytearray(joined[size:])
            mine = type(obj).deserialize(payload)
            assert type(obj).deserialize(bytearray(payload)) == mine
            received.append(mine)
        assert b.recv(1) == b""
        sender.join(10)
    assert received == sent


def test_several_messages_in_one_buffer_as_memoryviews(
    wp_public: dict[str, ModuleType], wp_corner: dict[str, ModuleType]
) -> None:
    """Zero-copy: each message decoded from a slice of one big receive buffer."""
    sent = _objects(wp_public, wp_corner["corner"])
    payloads = [o.serialize() for o in sent]
    buffer = bytearray(b"".join(payloads))
    view = memoryview(buffer)
    at = 0
    for obj, payload in zip(sent, payloads, strict=True):
        assert type(obj).deserialize(view[at : at + len(payload)]) == obj
        at += len(payload)


def test_zero_extension_and_truncation_at_the_receiver(
    corner_types: list[Any], wp_corner: dict[str, ModuleType]
) -> None:
    """A receiver of another version: extra bytes are ignored, missing ones read as zeros.

    At the top level a delimited type has no header (its length is the
    transfer's); nested, it has a 4-byte header that lets an older receiver
    skip what a newer sender added.
    """
    ns = wp_corner["corner"]
    new = ns.Ext_1_1(a=0x1234, b=[1, 2], c=0xDEADBEEF, d=[-1, 3])
    data = new.serialize()
    old = ns.Ext_1_0.deserialize(data)  # truncation: c and d ignored
    assert (old.a, list(old.b)) == (0x1234, [1, 2])
    back = ns.Ext_1_1.deserialize(old.serialize())  # zero extension: c and d are zeros
    assert (back.a, list(back.b), back.c, list(back.d)) == (0x1234, [1, 2], 0, [])
    # cut after the length: the two elements it announces read as zeros
    assert ns.Ext_1_1.deserialize(data[:3]) == ns.Ext_1_1(a=0x1234, b=[0, 0])

    top = ns.Ext_1_1(a=1).serialize()
    holder = ns.HasExt_1_1(first=ns.Ext_1_1(a=1)).serialize()
    assert holder[:4] == struct.pack("<I", len(top))  # nested: the delimiter header
    assert holder[4 : 4 + len(top)] == top  # then the same body as at the top level
    assert ns.HasExt_1_0.deserialize(holder).first == ns.Ext_1_0(a=1)  # header skips c, d

    # pydsdl agrees on both rules
    by_name = {full_name(t): t for t in corner_types}
    assert pydsdl.deserialize(by_name["corner.Ext.1.0"], data) == old.to_builtin()
    assert pydsdl.deserialize(by_name["corner.Ext.1.1"], data[:3]) == (
        ns.Ext_1_1.deserialize(data[:3]).to_builtin()
    )
    assert class_for(wp_corner, by_name["corner.Ext.1.1"]) is ns.Ext_1_1


def test_a_header_longer_than_the_data_is_an_error(wp_corner: dict[str, ModuleType]) -> None:
    from wireplan.errors import DecodeError

    ns = wp_corner["corner"]
    data = bytearray(ns.HasExt_1_1(first=ns.Ext_1_1(a=1)).serialize())
    data[0:4] = struct.pack("<I", 1000)
    with pytest.raises(DecodeError) as info:
        ns.HasExt_1_1.deserialize(memoryview(data))
    assert info.value.offset == 0
