"""The generic verified FlatBuffers reader on buffers built by the ``flatbuffers`` package's Builder."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import flatbuffers
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wireplan import ArgumentError, DecodeError, LimitError, NotFoundError
from wireplan.flatbuffers.reader import Limits, TableReader, read_root
from wireplan.flatbuffers.schema import Field, Schema, TypeRef

STR = TypeRef("string")


def make_schema() -> Schema:
    s = Schema(root="Root", file_identifier=b"TEST")
    s.struct("Pair", ("a", TypeRef.scalar("uint32")), ("b", TypeRef.scalar("int16")))
    s.table("Inner", Field("v", 0, TypeRef.scalar("int32")), Field("name", 1, STR))
    s.table("Req", Field("must", 0, STR, required=True))
    s.union("Pick", Inner=1, Req=2)
    s.table(
        "Root",
        Field("flag", 0, TypeRef.scalar("bool"), default=True),
        Field("small", 1, TypeRef.scalar("int8"), default=-3),
        Field("big", 2, TypeRef.scalar("uint64"), default=7),
        Field("ratio", 3, TypeRef.scalar("float64"), default=0.5),
        Field("name", 4, STR),
        Field("nums", 5, TypeRef.vector(TypeRef.scalar("int32"))),
        Field("words", 6, TypeRef.vector(STR)),
        Field("inners", 7, TypeRef.vector(TypeRef("table", "Inner"))),
        Field("child", 8, TypeRef("table", "Inner")),
        Field("pick", 10, TypeRef("union", "Pick")),
        Field("pairs", 11, TypeRef.vector(TypeRef("struct", "Pair"))),
        Field("old", 12, TypeRef.scalar("int32"), deprecated=True),
        Field("next", 13, TypeRef("table", "Root")),
    )
    s.check()
    return s


SCHEMA = make_schema()


@dataclass
class Pair:
    a: int
    b: int


def inner(b: flatbuffers.Builder, v: int, name: str) -> int:
    s = b.CreateString(name)
    b.StartObject(2)
    b.PrependInt32Slot(0, v, 0)
    b.PrependUOffsetTRelativeSlot(1, s, 0)
    return int(b.EndObject())


def build_full() -> bytes:
    b = flatbuffers.Builder(0)
    name = b.CreateString("root name")
    nums = b.CreateNumpyVector(np.array([1, -2, 3], dtype=np.int32))
    w = [b.CreateString(x) for x in ("a", "b\u00e9", "")]
    b.StartVector(4, len(w), 4)
    for off in reversed(w):
        b.PrependUOffsetTRelative(off)
    words = b.EndVector()
    items = [inner(b, i, f"i{i}") for i in range(3)]
    b.StartVector(4, len(items), 4)
    for off in reversed(items):
        b.PrependUOffsetTRelative(off)
    inners = b.EndVector()
    child = inner(b, 42, "child")
    picked = inner(b, 9, "picked")
    b.StartVector(8, 2, 4)
    for a, bb in reversed([(1, -1), (70000, 5)]):
        b.Prep(4, 8)
        b.Pad(2)
        b.PrependInt16(bb)
        b.PrependUint32(a)
    pairs = b.EndVector()
    b.StartObject(14)
    b.PrependBoolSlot(0, False, True)
    b.PrependInt8Slot(1, 5, -3)
    b.PrependUint64Slot(2, 2**63 + 1, 7)
    b.PrependFloat64Slot(3, 2.25, 0.5)
    b.PrependUOffsetTRelativeSlot(4, name, 0)
    b.PrependUOffsetTRelativeSlot(5, nums, 0)
    b.PrependUOffsetTRelativeSlot(6, words, 0)
    b.PrependUOffsetTRelativeSlot(7, inners, 0)
    b.PrependUOffsetTRelativeSlot(8, child, 0)
    b.PrependUint8Slot(9, 1, 0)
    b.PrependUOffsetTRelativeSlot(10, picked, 0)
    b.PrependUOffsetTRelativeSlot(11, pairs, 0)
    b.PrependInt32Slot(12, 99, 0)
    root = b.EndObject()
    b.Finish(root, file_identifier=b"TEST")
    return bytes(b.Output())


def build_empty() -> bytes:
    b = flatbuffers.Builder(0)
    b.StartObject(0)
    b.Finish(b.EndObject())
    return bytes(b.Output())


def test_every_kind_of_field() -> None:
    buf = build_full()
    v = read_root(SCHEMA, buf, identifier=b"TEST")
    assert v["flag"] is False and v["small"] == 5 and v["big"] == 2**63 + 1 and v["ratio"] == 2.25
    assert v["name"] == "root name"
    assert v["nums"].tolist() == [1, -2, 3] and v["nums"].dtype == np.dtype("<i4")
    assert v["words"] == ["a", "b\u00e9", ""]
    assert [(x["v"], x["name"]) for x in v["inners"]] == [(0, "i0"), (1, "i1"), (2, "i2")]
    assert v["child"] == {"v": 42, "name": "child"}
    assert v["pick"] == {"v": 9, "name": "picked"}
    assert v["pairs"].tolist() == [(1, -1), (70000, 5)]
    assert "old" not in v  # deprecated: never read
    assert v["next"] is None


def test_absent_fields_read_as_defaults() -> None:
    v = read_root(SCHEMA, build_empty())
    assert v["flag"] is True and v["small"] == -3 and v["big"] == 7 and v["ratio"] == 0.5
    assert v["name"] == "" and v["words"] == [] and v["inners"] == [] and v["child"] is None
    assert v["nums"].shape == (0,) and v["pick"] is None and v["pairs"].shape == (0,)


def test_classes_are_used() -> None:
    @dataclass
    class Inner:
        v: int
        name: str

    v = read_root(SCHEMA, build_full(), classes={"Inner": Inner, "Pair": Pair})
    assert v["child"] == Inner(42, "child")
    assert v["pairs"] == [Pair(1, -1), Pair(70000, 5)]


def test_scalar_vectors_are_readonly_views() -> None:
    buf = bytearray(build_full())
    v = read_root(SCHEMA, buf)
    whole = np.frombuffer(buf, dtype=np.uint8)
    assert np.shares_memory(v["nums"], whole)
    assert not v["nums"].flags.writeable


def test_copy_gives_owned_arrays_and_threads_match() -> None:
    buf = build_full()
    a = read_root(SCHEMA, buf, copy=True, threads=1)
    b = read_root(SCHEMA, buf, copy=True, threads=2)
    assert a["nums"].tolist() == b["nums"].tolist() == [1, -2, 3]
    assert not np.shares_memory(a["nums"], np.frombuffer(buf, dtype=np.uint8))


def test_identifier_checked() -> None:
    with pytest.raises(DecodeError) as info:
        read_root(SCHEMA, build_full(), identifier=b"NOPE")
    assert info.value.offset == 4


def test_bad_questions_are_argument_and_lookup_errors() -> None:
    """Not the buffer's fault: a bad identifier argument, or a field the schema lacks."""
    reader = TableReader(SCHEMA, build_full())
    with pytest.raises(ArgumentError, match="4 bytes"):
        reader.root_position(b"LONGER")
    root = reader.root_position(b"TEST")
    with pytest.raises(NotFoundError, match="no field 'nope'"):
        reader.locate("$.nope", root)
    with pytest.raises(NotFoundError, match="no field 'nope'"):
        SCHEMA.tables["Root"].field("nope")
    with pytest.raises(ArgumentError, match="not a scalar"):
        SCHEMA.scalar_of(TypeRef("string"))


def test_bad_schemas_are_argument_errors() -> None:
    s = Schema(root="Missing", file_identifier=b"")
    with pytest.raises(ArgumentError, match="duplicate slots"):
        s.table("T", Field("a", 0, TypeRef.scalar("int32")), Field("b", 0, TypeRef.scalar("int32")))
    with pytest.raises(ArgumentError, match="root table 'Missing' is not defined"):
        s.check()
    with pytest.raises(ArgumentError, match="unknown scalar type"):
        TypeRef.scalar("int128")


def test_required_field() -> None:
    b = flatbuffers.Builder(0)
    b.StartObject(1)
    req = b.EndObject()
    b.StartObject(11)
    b.PrependUint8Slot(9, 2, 0)
    b.PrependUOffsetTRelativeSlot(10, req, 0)
    b.Finish(b.EndObject())
    with pytest.raises(DecodeError) as info:
        read_root(SCHEMA, bytes(b.Output()))
    assert info.value.path == "$.pick" and "required" in info.value.reason


def test_unknown_union_member() -> None:
    b = flatbuffers.Builder(0)
    child = inner(b, 1, "x")
    b.StartObject(11)
    b.PrependUint8Slot(9, 7, 0)
    b.PrependUOffsetTRelativeSlot(10, child, 0)
    b.Finish(b.EndObject())
    with pytest.raises(DecodeError, match="type code 7"):
        read_root(SCHEMA, bytes(b.Output()))


def test_bad_utf8_and_missing_nul() -> None:
    buf = bytearray(build_full())
    at = buf.find(b"root name")
    bad = bytearray(buf)
    bad[at] = 0xC3
    bad[at + 1] = 0x28
    with pytest.raises(DecodeError) as info:
        read_root(SCHEMA, bytes(bad))
    assert info.value.path == "$.name" and info.value.offset == at
    nul = bytearray(buf)
    nul[at + len("root name")] = ord("!")
    with pytest.raises(DecodeError, match="NUL"):
        read_root(SCHEMA, bytes(nul))


def test_unknown_trailing_slots_are_ignored() -> None:
    b = flatbuffers.Builder(0)
    b.StartObject(40)
    b.PrependInt32Slot(39, 5, 0)
    b.PrependInt8Slot(1, 4, -3)
    b.Finish(b.EndObject())
    assert read_root(SCHEMA, bytes(b.Output()))["small"] == 4


def chain(depth: int) -> bytes:
    b = flatbuffers.Builder(0)
    prev = None
    for _ in range(depth):
        b.StartObject(14)
        if prev is not None:
            b.PrependUOffsetTRelativeSlot(13, prev, 0)
        prev = b.EndObject()
    b.Finish(prev)
    return bytes(b.Output())


def test_depth_is_capped() -> None:
    assert read_root(SCHEMA, chain(50))["next"] is not None
    with pytest.raises(LimitError) as info:
        read_root(SCHEMA, chain(50), limits=Limits(max_depth=20))
    assert info.value.path.startswith("$.next.next.next")


BAG = Schema(root="Bag", file_identifier=b"BAGS")
BAG.table(
    "Bag",
    Field("words", 0, TypeRef.vector(STR)),
    Field("bags", 1, TypeRef.vector(TypeRef("table", "Bag"))),
)


def shared_bag(strings: int, refs: int) -> bytes:
    """A Bag whose ``bags`` refer ``refs`` times to one Bag holding ``strings`` strings."""
    b = flatbuffers.Builder(0)
    offsets = [b.CreateString("0123456789") for _ in range(strings)]
    b.StartVector(4, len(offsets), 4)
    for off in offsets:
        b.PrependUOffsetTRelative(off)
    words = b.EndVector()
    b.StartObject(2)
    b.PrependUOffsetTRelativeSlot(0, words, 0)
    shared = b.EndObject()
    b.StartVector(4, refs, 4)
    for _ in range(refs):
        b.PrependUOffsetTRelative(shared)
    many = b.EndVector()
    b.StartObject(2)
    b.PrependUOffsetTRelativeSlot(1, many, 0)
    b.Finish(b.EndObject())
    return bytes(b.Output())


def test_shared_objects_cannot_blow_up() -> None:
    # 2000 vector entries all point at one table holding 2000 strings: 4 million strings
    # from a 30 kB buffer, unless the expansion cap stops it.
    buf = shared_bag(2000, 2000)
    assert len(buf) < 64_000
    with pytest.raises(LimitError, match="work limit") as info:
        read_root(BAG, buf)
    assert info.value.path.startswith("$.bags[")


def test_self_reference_is_not_a_loop() -> None:
    buf = bytearray(build_full())
    # Point the "child" reference at itself (uoffset 0): it must fail, not recurse.
    v = read_root(SCHEMA, bytes(buf))
    assert v["child"] is not None
    root = int.from_bytes(buf[0:4], "little")
    vt = root - int.from_bytes(buf[root : root + 4], "little", signed=True)
    child_fo = int.from_bytes(buf[vt + 4 + 2 * 8 : vt + 6 + 2 * 8], "little")
    buf[root + child_fo : root + child_fo + 4] = b"\0\0\0\0"
    with pytest.raises(DecodeError) as info:
        read_root(SCHEMA, bytes(buf))
    assert info.value.path == "$.child"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), min_size=1, max_size=6))
def test_byte_flips_only_raise_decode_errors(flips: list[tuple[int, int]]) -> None:
    buf = bytearray(build_full())
    for pos, value in flips:
        buf[pos % len(buf)] = value
    with contextlib.suppress(DecodeError):
        read_root(SCHEMA, bytes(buf))


def test_every_truncation_raises_decode_error() -> None:
    buf = build_full()
    # The buffer ends with a string: its NUL, then up to 3 bytes of alignment padding.
    needed = len(buf.rstrip(b"\0")) + 1
    for n in range(needed):
        with pytest.raises(DecodeError):
            read_root(SCHEMA, buf[:n])
    for n in range(needed, len(buf) + 1):
        assert read_root(SCHEMA, buf[:n])["name"] == "root name"
