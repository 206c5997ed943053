"""The whole-buffer verifier against the eager decoder, and reads verified on access.

``verified`` is what lets a lazy read hand out tables on access: if it passes a buffer
the decoder would refuse, a later access fails far from ``load``; if it refuses one the
decoder reads, the read is only slower.  Both are checked on damaged buffers here.
"""

from __future__ import annotations

import copy
import struct
import threading
from typing import Any

import flatbuffers
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_reader import BAG, SCHEMA, build_empty, build_full, chain, inner, shared_bag

from wireplan import DecodeError
from wireplan.flatbuffers.lazy import TableList
from wireplan.flatbuffers.reader import DEFAULT_LIMITS, Limits, TableReader
from wireplan.flatbuffers.schema import Schema
from wireplan.flatbuffers.verify import verified


def verdicts(schema: Schema, buf: bytes, limits: Limits = DEFAULT_LIMITS) -> tuple[bool, bool]:
    """(whether the eager decoder reads ``buf``, whether ``verified`` passes it)."""
    reader = TableReader(schema, buf, limits=limits)
    try:
        root = reader.root_position()
    except DecodeError:
        return False, False  # the header is checked before either runs
    try:
        reader.read_table(schema.root, root)
        decoded = True
    except DecodeError:
        decoded = False
    budget = limits.expansion_factor * len(buf) + limits.expansion_slack
    passed = verified(schema, buf, root, max_depth=limits.max_depth, budget=budget) is not None
    return decoded, passed


def plain(value: Any) -> Any:
    """A decoded value with its lists (lazy or not) as lists, for equality."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, TableList)):
        return [plain(v) for v in value]
    if hasattr(value, "tolist"):
        return ("array", value.dtype.str, value.tobytes())
    if isinstance(value, float):  # NaN too: by its bits
        return ("float", struct.pack("<d", value))
    return value


def test_sound_buffers_pass() -> None:
    for buf in (build_full(), build_empty(), chain(50)):
        assert verdicts(SCHEMA, buf) == (True, True)


def test_depth_and_work_limits_are_the_decoders() -> None:
    assert verdicts(SCHEMA, chain(50), Limits(max_depth=20)) == (False, False)
    assert verdicts(SCHEMA, chain(21), Limits(max_depth=20)) == (True, True)
    assert verdicts(SCHEMA, chain(22), Limits(max_depth=20)) == (False, False)
    buf = build_full()
    tight = Limits(expansion_factor=0, expansion_slack=0)
    assert verdicts(SCHEMA, buf, tight) == (False, False)

    # the least budget the decoder needs is the least the verifier passes
    def budget(k: int) -> Limits:
        return Limits(expansion_factor=0, expansion_slack=k)

    need = next(k for k in range(4 * len(buf)) if verdicts(SCHEMA, buf, budget(k))[0])
    assert verdicts(SCHEMA, buf, budget(need)) == (True, True)
    assert verdicts(SCHEMA, buf, budget(need - 1)) == (False, False)


def chain_with_inners(length: int, union: bool) -> bytes:
    """``length`` Root tables each in the ``next`` of the one before, the first and the last
    with an Inner (``child``, or the union ``pick``): Inners at depths 1 and ``length``."""
    b = flatbuffers.Builder(0)
    prev = None
    for k in range(length):
        held = inner(b, k, f"at {k}") if k in (0, length - 1) else None
        b.StartObject(14)
        if held is not None and union:
            b.PrependUint8Slot(9, 1, 0)
            b.PrependUOffsetTRelativeSlot(10, held, 0)
        elif held is not None:
            b.PrependUOffsetTRelativeSlot(8, held, 0)
        if prev is not None:
            b.PrependUOffsetTRelativeSlot(13, prev, 0)
        prev = b.EndObject()
    b.Finish(prev)
    return bytes(b.Output())


@pytest.mark.parametrize("union", [False, True])
def test_tables_of_one_type_met_at_several_depths(union: bool) -> None:
    # The Inners are checked in one pass (no cycle of the schema reaches them again), the
    # deepest one at its own depth: the decoder's limit to the level.
    buf = chain_with_inners(12, union)
    assert verdicts(SCHEMA, buf, Limits(max_depth=12)) == (True, True)
    assert verdicts(SCHEMA, buf, Limits(max_depth=11)) == (False, False)
    # and through a vector of tables: the same Inner twice, from depth 1 and depth 12
    b = flatbuffers.Builder(0)
    shared = inner(b, 7, "shared")
    b.StartVector(4, 1, 4)
    b.PrependUOffsetTRelative(shared)
    deep = b.EndVector()
    prev = None
    for k in range(11):
        b.StartObject(14)
        if k == 0:
            b.PrependUOffsetTRelativeSlot(7, deep, 0)
        if prev is not None:
            b.PrependUOffsetTRelativeSlot(13, prev, 0)
        if k == 10:
            b.PrependUOffsetTRelativeSlot(8, shared, 0)
        prev = b.EndObject()
    b.Finish(prev)
    buf = bytes(b.Output())
    assert verdicts(SCHEMA, buf, Limits(max_depth=11)) == (True, True)
    assert verdicts(SCHEMA, buf, Limits(max_depth=10)) == (False, False)


def test_every_truncation() -> None:
    buf = build_full()
    for n in range(len(buf) + 1):
        decoded, passed = verdicts(SCHEMA, buf[:n])
        assert decoded == passed, n


@settings(max_examples=600, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), min_size=1, max_size=6))
def test_byte_flips(flips: list[tuple[int, int]]) -> None:
    buf = bytearray(build_full())
    for pos, value in flips:
        buf[pos % len(buf)] = value
    decoded, passed = verdicts(SCHEMA, bytes(buf))
    assert decoded == passed


@settings(max_examples=600, deadline=None)
@given(
    pos=st.integers(0, 10_000),
    value=st.sampled_from([0, 1, 2, 3, 4, 8, 0xFFFF, 0x7FFFFFFF, 0xFFFFFFFC, 0xFFFFFFFF])
    | st.integers(0, 0xFFFFFFFF),
)
def test_words_set_to_offsets_and_lengths(pos: int, value: int) -> None:
    buf = bytearray(build_full())
    at = pos % (len(buf) - 3)
    buf[at : at + 4] = struct.pack("<I", value)
    decoded, passed = verdicts(SCHEMA, bytes(buf))
    assert decoded == passed


def test_bad_utf8_and_shared_objects() -> None:
    buf = bytearray(build_full())
    at = bytes(buf).index("b\u00e9".encode())
    buf[at + 1] = 0xC3  # a lead byte followed by 0xA9's successor: "b" 0xC3 0xA9 -> 0xC3 0xC3
    buf[at + 2] = 0xC3
    assert verdicts(SCHEMA, bytes(buf)) == (False, False)
    for many in (3, 2000):  # a few references to the shared table pass; thousands do not
        ok = many == 3
        assert verdicts(BAG, shared_bag(200, many)) == (ok, ok)


def test_lazy_read_decodes_vectors_of_tables_on_first_use() -> None:
    buf = build_full()
    eager = TableReader(SCHEMA, buf).read_table("Root", TableReader(SCHEMA, buf).root_position())
    reader = TableReader(SCHEMA, buf, lazy=True)
    lazy = reader.read_table("Root", reader.root_position())
    inners = lazy["inners"]
    assert isinstance(inners, TableList) and not inners.decoded
    assert len(inners) == 3 and not inners.decoded  # the length is read, nothing decoded
    assert reader.present is not None and ("Root", "inners") in reader.present
    assert ("Root", "next") not in reader.present
    assert plain(lazy) == plain(eager)
    assert inners.decoded and inners == eager["inners"] and inners[1:] == eager["inners"][1:]
    inners.append({"v": 5, "name": "new"})
    assert len(inners) == 4 and inners[-1]["v"] == 5
    assert copy.deepcopy(inners) == list(inners) and isinstance(copy.copy(inners), list)


def test_lazy_read_of_a_bad_buffer_is_the_eager_error() -> None:
    buf = bytearray(build_full())
    buf[bytes(buf).index(b"i1\0") + 2] = ord("x")  # inners[1].name loses its NUL
    with pytest.raises(DecodeError, match="NUL") as eager:
        TableReader(SCHEMA, bytes(buf)).read_table("Root", struct.unpack_from("<I", buf)[0])
    reader = TableReader(SCHEMA, bytes(buf), lazy=True)
    with pytest.raises(DecodeError) as lazy:
        reader.read_table("Root", reader.root_position())
    assert (lazy.value.offset, lazy.value.path) == (eager.value.offset, eager.value.path)
    assert reader.present is None


def test_threads_decode_a_lazy_list_once() -> None:
    buf = build_full()

    def use(lst: Any, barrier: threading.Barrier, seen: list[Any]) -> None:
        barrier.wait()
        seen.append((len(lst), lst[0], lst[:]))

    for _ in range(20):
        reader = TableReader(SCHEMA, buf, lazy=True)
        inners = reader.read_table("Root", reader.root_position())["inners"]
        barrier = threading.Barrier(4)
        seen: list[Any] = []
        workers = [threading.Thread(target=use, args=(inners, barrier, seen)) for _ in range(4)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        assert len(seen) == 4 and all(s == seen[0] for s in seen)
        assert all(s[1] is inners[0] for s in seen)  # one decode: the same objects


# -- verified on access (verify=False): each table checked when it is decoded -----------------


def test_read_on_access_decodes_one_element_at_a_time() -> None:
    buf = build_full()
    eager = TableReader(SCHEMA, buf).read_table("Root", TableReader(SCHEMA, buf).root_position())
    reader = TableReader(SCHEMA, buf, lazy=True, verify=False)
    lazy = reader.read_table("Root", reader.root_position())
    inners = lazy["inners"]
    assert reader.present is None and len(inners) == 3 and not inners.decoded
    second = inners[1]
    assert not inners.decoded and inners[-2] is second  # one element, decoded once
    assert plain(second) == plain(eager["inners"][1])
    assert plain(lazy) == plain(eager) and inners.decoded
    assert inners[1] is second  # the whole list keeps what was decoded before
    with pytest.raises(IndexError):
        inners[3]


@pytest.mark.parametrize("index", [3, -4, 10**9])
def test_read_on_access_out_of_range_is_a_list_index_error(index: int) -> None:
    """Before any element is decoded, as after: the IndexError of any list (``for`` over
    ``__getitem__`` and ``try: x[i] except IndexError`` code relies on it)."""
    reader = TableReader(SCHEMA, build_full(), lazy=True, verify=False)
    inners = reader.read_table("Root", reader.root_position())["inners"]
    assert not inners.decoded
    with pytest.raises(IndexError, match="out of range"):
        inners[index]
    assert not inners.decoded  # nothing decoded to say so


def test_read_on_access_raises_where_the_damage_is_read() -> None:
    buf = bytearray(build_full())
    buf[bytes(buf).index(b"i1\0") + 2] = ord("x")  # inners[1].name loses its NUL
    with pytest.raises(DecodeError, match="NUL") as eager:
        TableReader(SCHEMA, bytes(buf)).read_table("Root", struct.unpack_from("<I", buf)[0])
    reader = TableReader(SCHEMA, bytes(buf), lazy=True, verify=False)
    inners = reader.read_table("Root", reader.root_position())["inners"]  # not read yet: no error
    assert plain(inners[0])["name"] == "i0" and plain(inners[2])["name"] == "i2"
    for use in (lambda: inners[1], lambda: list(inners)):
        with pytest.raises(DecodeError) as late:
            use()
        assert (late.value.offset, late.value.path) == (eager.value.offset, eager.value.path)


def vtable_fields(reader: TableReader, pos: int, table: str) -> set[str]:
    """The fields the vtable of the ``table`` at ``pos`` stores."""
    return {f.name for f in reader.schema.tables[table].fields
            if reader.field_position(table, pos, f.name) is not None}  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(flips=st.lists(st.tuples(st.integers(0, 1 << 16), st.integers(0, 255)), max_size=3))
def test_candidates_never_leave_out_an_element_that_holds_a_field(
    flips: list[tuple[int, int]],
) -> None:
    """``candidates`` from the vtables: every element with the field, on sound and damaged
    buffers (an element it names may still fail to decode; one it leaves out has no such field)."""
    buf = bytearray(build_full())
    for at, value in flips:
        buf[at % len(buf)] = value
    reader = TableReader(SCHEMA, bytes(buf), lazy=True, verify=False)
    try:
        inners = reader.read_table("Root", reader.root_position())["inners"]
    except DecodeError:
        return
    if not isinstance(inners, TableList):
        return
    for wanted in (("name",), ("v",), ("name", "v")):
        chosen = inners.candidates(None, wanted)
        for i in range(len(inners)):
            at = inners._pending[1] + 4 + 4 * i  # type: ignore[index]
            try:
                held = vtable_fields(reader, reader.follow(at), "Inner") & set(wanted)
            except DecodeError:
                continue  # a damaged element: decoding it raises, whether chosen or not
            assert i in chosen or not held, (wanted, i, chosen)
    if not flips:
        assert inners.candidates(None, ("name",)) == [0, 1, 2]
