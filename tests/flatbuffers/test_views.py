"""Views (``TableReader(views=...)``): tables whose fields are decoded, checked and kept as read."""

from __future__ import annotations

import copy
import pickle
import struct
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
from test_reader import SCHEMA, build_empty, build_full

from wireplan import ArgumentError, DecodeError, LimitError
from wireplan.flatbuffers.reader import TableReader


@dataclass(slots=True)
class Inner:
    v: int = 0
    name: str = ""


@dataclass(slots=True)
class Root:
    flag: bool = True
    small: int = -3
    big: int = 7
    ratio: float = 0.5
    name: str = ""
    nums: Any = None
    words: list[str] = field(default_factory=list)
    inners: list[Inner] = field(default_factory=list)
    child: Inner | None = None
    pick: Any = None
    pairs: Any = None
    next: Root | None = None


NAMES = ("flag", "small", "big", "ratio", "name", "words", "child", "pick", "next")


def read(buf: bytes, views: tuple[str, ...] = ("Root", "Inner"), **kw: Any) -> Any:
    reader = TableReader(
        SCHEMA, buf, classes={"Root": Root, "Inner": Inner}, lazy=True, verify=False,
        views=views, **kw,
    )  # fmt: skip
    return reader.read_table("Root", reader.root_position())


@pytest.mark.parametrize("build", [build_full, build_empty])
def test_a_view_reads_what_the_eager_decode_reads(build: Any) -> None:
    buf = build()
    eager, view = read(buf, views=()), read(buf)
    assert type(eager) is Root and type(view) is not Root and isinstance(view, Root)
    assert type(view).__name__ == "Root" and repr(view) == repr(eager)
    for name in NAMES:
        assert getattr(view, name) == getattr(eager, name), name
    assert view.nums.tolist() == eager.nums.tolist() and not view.nums.flags.writeable
    assert view.pairs.tolist() == eager.pairs.tolist()
    assert [(x.v, x.name) for x in view.inners] == [(x.v, x.name) for x in eager.inners]
    if view.child is not None:  # a view equals the plain object, whichever side asks
        assert type(view.child) is not Inner
        assert view.child == eager.child and eager.child == view.child
        assert view.child != Inner(43, "child") and Inner(43, "child") != view.child


def test_a_field_is_decoded_once_and_can_be_set() -> None:
    view = read(build_full())
    first = view.nums
    assert view.nums is first  # kept
    view.name = "renamed"
    view.nums = np.arange(2)
    assert view.name == "renamed" and view.nums.tolist() == [0, 1]
    assert view.small == 5  # the others still come from the buffer


def test_copies_and_pickles_are_plain_objects() -> None:
    view = read(build_full())
    view.small = 11
    for other in (copy.copy(view), copy.deepcopy(view), pickle.loads(pickle.dumps(view))):
        assert type(other) is Root
        assert other.small == 11 and other.name == "root name"
        assert other.child == Inner(42, "child")
    made = type(view)(name="built")  # made by hand: every field set, none from a buffer
    assert made.name == "built" and made.small == -3 and made == Root(name="built")


def test_a_damaged_field_raises_when_read_with_the_eager_place() -> None:
    buf = bytearray(build_full())
    eager = read(bytes(buf), views=())
    where = bytes(buf).find(b"root name") - 4  # the string's length
    buf[where : where + 4] = struct.pack("<I", 0x7FFFFFF0)
    with pytest.raises(LimitError) as want:
        read(bytes(buf), views=())
    view = read(bytes(buf))  # the header is fine: made
    assert view.small == eager.small and view.words == eager.words
    with pytest.raises(LimitError) as got:
        _ = view.name
    assert (got.value.offset, got.value.path) == (want.value.offset, want.value.path)
    assert got.value.path == "$.name" and got.value.offset == where


def test_a_damaged_header_raises_when_the_view_is_made() -> None:
    buf = bytearray(build_full())
    root = struct.unpack_from("<I", buf, 0)[0]
    buf[root : root + 4] = struct.pack("<i", -(1 << 30))  # the vtable lies outside the buffer
    with pytest.raises(DecodeError) as info:
        read(bytes(buf))
    assert info.value.offset == root


def test_hooks_see_each_table_and_their_answer_stands() -> None:
    seen: list[tuple[str, int]] = []

    def hook(reader: TableReader, pos: int, obj: Any) -> Any:
        seen.append((obj.name, pos))
        return obj if obj.name != "i1" else Inner(-1, "replaced")

    for views in (("Root",), ("Root", "Inner")):
        seen.clear()
        root = read(build_full(), views=views, after={"Inner": hook})
        assert [(x.v, x.name) for x in root.inners] == [(0, "i0"), (-1, "replaced"), (2, "i2")]
        assert [name for name, _ in seen] == ["i0", "i1", "i2"]  # child: not read yet
        assert root.child.name == "child" and len(seen) == 4
        assert len({pos for _, pos in seen}) == 4


def test_a_hook_with_a_field_sees_only_the_tables_that_store_it() -> None:
    calls: list[str] = []

    def hook(reader: TableReader, pos: int, obj: Any) -> Any:
        calls.append(obj.name)
        return obj

    for views in ((), ("Root",)):
        for field_name, want in (("next", []), ("name", ["root name"])):
            calls.clear()
            read(build_full(), views=views, after={"Root": (field_name, hook)})
            assert calls == want
    with pytest.raises(ArgumentError, match="names no field"):
        read(build_full(), after={"Root": ("nothing", hook)})


def test_views_need_a_slotted_dataclass_of_the_tables_fields() -> None:
    @dataclass
    class Loose:
        v: int = 0
        name: str = ""

    @dataclass(slots=True)
    class Reordered:
        name: str = ""
        v: int = 0

    for cls in (Loose, Reordered):
        with pytest.raises(ArgumentError, match="view of"):
            TableReader(SCHEMA, build_full(), classes={"Inner": cls}, lazy=True, views=("Inner",))
