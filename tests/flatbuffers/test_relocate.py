"""Relocating a buffer: the same decoded value, the moved vectors aligned, or no plan at all."""

from __future__ import annotations

import struct
from typing import Any

import flatbuffers
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_reader import SCHEMA, STR, build_full
from test_verify import plain

from wireplan import DecodeError
from wireplan.core.executor import execute
from wireplan.flatbuffers.reader import DEFAULT_LIMITS, TableReader
from wireplan.flatbuffers.relocate import relocate
from wireplan.flatbuffers.schema import Field, Schema, TypeRef
from wireplan.flatbuffers.verify import Layout, verified


def moved(schema: Schema, buf: bytes, field: tuple[str, str], alignment: int) -> bytes | None:
    layout = Layout(field)
    root = struct.unpack_from("<I", buf)[0]
    budget = 4 * len(buf) + 4096
    if verified(schema, buf, root, max_depth=200, budget=budget, layout=layout) is None:
        return None
    result = relocate(buf, layout, alignment)
    if result is None:
        return None
    out = bytearray(result.size)
    execute(result.plan, out)
    return bytes(out)


def decoded(schema: Schema, buf: bytes) -> Any:
    r = TableReader(schema, buf, limits=DEFAULT_LIMITS)
    return plain(r.read_table(schema.root, r.root_position()))


@pytest.mark.parametrize("alignment", [1, 8, 64, 4096])
def test_the_value_stays_and_the_vector_is_aligned(alignment: int) -> None:
    buf = build_full()
    out = moved(SCHEMA, buf, ("Root", "nums"), alignment)
    assert out is not None and out != buf
    assert decoded(SCHEMA, out) == decoded(SCHEMA, buf)
    r = TableReader(SCHEMA, out)
    nums = r.read_table("Root", r.root_position())["nums"]
    start = np.frombuffer(out, np.uint8).ctypes.data
    assert (nums.ctypes.data - start) % max(alignment, 8) == 0
    assert (nums.ctypes.data - start) >= len(buf) - 16  # after the metadata


def test_an_object_inside_a_moved_vector_stops_it() -> None:
    # words[0] made to point at the nums vector: [3, 1, -2, 3] read as the string "\1\0\0"
    buf = bytearray(build_full())
    root = struct.unpack_from("<I", buf)[0]
    vt = root - struct.unpack_from("<i", buf, root)[0]

    def field_at(slot: int) -> int:
        return root + struct.unpack_from("<H", buf, vt + 4 + 2 * slot)[0]

    nums = field_at(5) + struct.unpack_from("<I", buf, field_at(5))[0]
    words = field_at(6) + struct.unpack_from("<I", buf, field_at(6))[0]
    first = words + 4
    struct.pack_into("<I", buf, first, nums - first)
    assert decoded(SCHEMA, bytes(buf))["words"][0] == "\x01\x00\x00"
    assert moved(SCHEMA, bytes(buf), ("Root", "nums"), 64) is None


def test_a_deprecated_reference_stops_it() -> None:
    s = Schema(root="R", file_identifier=b"DEPR")
    s.table(
        "R",
        Field("old", 0, STR, deprecated=True),
        Field("data", 1, TypeRef.vector(TypeRef.scalar("uint8"))),
    )
    b = flatbuffers.Builder(0)
    old = b.CreateString("kept only as bytes")
    data = b.CreateByteVector(bytes(range(40)))
    b.StartObject(2)
    b.PrependUOffsetTRelativeSlot(0, old, 0)
    b.PrependUOffsetTRelativeSlot(1, data, 0)
    b.Finish(b.EndObject())
    buf = bytes(b.Output())
    assert moved(s, buf, ("R", "data"), 64) is None  # the walk does not follow "old"
    b = flatbuffers.Builder(0)
    data = b.CreateByteVector(bytes(range(40)))
    b.StartObject(2)
    b.PrependUOffsetTRelativeSlot(1, data, 0)
    b.Finish(b.EndObject())
    clean = bytes(b.Output())
    out = moved(s, clean, ("R", "data"), 64)
    assert out is not None and decoded(s, out) == decoded(s, clean)


def same_value_or_not_at_all(data: bytes, alignment: int) -> None:
    """A buffer the decoder refuses gets no plan; one it reads relocates to the same value
    (or to no plan)."""
    try:
        want = decoded(SCHEMA, data)
    except DecodeError:
        assert moved(SCHEMA, data, ("Root", "nums"), alignment) is None
        return
    out = moved(SCHEMA, data, ("Root", "nums"), alignment)
    if out is not None:
        assert decoded(SCHEMA, out) == want


@settings(max_examples=400, deadline=None)
@example(flips=[(24, 24)], alignment=1)  # nums and words made one vector: words' offsets in it
@given(
    flips=st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), min_size=1, max_size=4),
    alignment=st.sampled_from([1, 16, 256]),
)
def test_damaged_buffers_relocate_to_the_same_value_or_not_at_all(
    flips: list[tuple[int, int]], alignment: int
) -> None:
    buf = bytearray(build_full())
    for pos, value in flips:
        buf[pos % len(buf)] = value
    same_value_or_not_at_all(bytes(buf), alignment)


@settings(max_examples=400, deadline=None)
@example(pos=84, value=0xFFFFFFFC, alignment=1)  # the ratio made a NaN: compared by its bits
@given(
    pos=st.integers(0, 10_000),
    value=st.sampled_from([0, 1, 2, 3, 4, 8, 12, 16, 24, 0xFFFF, 0xFFFFFFFC]) | st.integers(0, 400),
    alignment=st.sampled_from([1, 16]),
)
def test_words_set_to_offsets_relocate_to_the_same_value_or_not_at_all(
    pos: int, value: int, alignment: int
) -> None:
    buf = bytearray(build_full())
    at = pos % (len(buf) - 3)
    buf[at : at + 4] = struct.pack("<I", value)
    same_value_or_not_at_all(bytes(buf), alignment)
