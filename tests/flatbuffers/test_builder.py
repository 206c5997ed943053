"""The planned FlatBuffers builder against the official ``flatbuffers`` package (own test schema)."""

from __future__ import annotations

import struct
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ort_write.fbref import FbEncoder, fb_decode, root_table, vector_data_offset
from wireplan.core.executor import execute
from wireplan.errors import ArgumentError, EncodeError, NotFoundError
from wireplan.flatbuffers.builder import MAX_BUFFER_SIZE, Aligned, Builder, Union, build_bytes
from wireplan.flatbuffers.schema import Field, Schema, TypeRef

STR = TypeRef("string")


def _s(name: str) -> TypeRef:
    return TypeRef.scalar(name)


def _v(t: TypeRef) -> TypeRef:
    return TypeRef.vector(t)


def make_schema() -> Schema:
    s = Schema(root="Root", file_identifier=b"WPTS")
    s.enum("Color", "int8", Red=0, Green=1, Blue=2)
    s.struct("Vec3", ("x", _s("float32")), ("y", _s("float32")), ("z", _s("float32")))
    s.struct("Edge", ("a", _s("uint32")), ("b", _s("int64")), ("c", _s("uint8")))
    s.struct("Pair", ("e", TypeRef("struct", "Edge")), ("k", _s("int16")))
    s.table("Item", Field("name", 0, STR, key=True), Field("value", 1, _s("int32"), default=5))
    s.table("Leaf", Field("id", 0, _s("uint16")), Field("weight", 1, _s("float64"), default=1.5))
    s.table("Num", Field("k", 0, _s("int32"), key=True), Field("label", 1, STR))
    s.union("Thing", Item=1, Leaf=2)
    s.table(
        "Root",
        Field("name", 0, STR),
        Field("count", 1, _s("int64")),
        Field("flag", 2, _s("bool")),
        Field("ratio", 3, _s("float64"), default=1.5),
        Field("color", 4, TypeRef("enum", "Color"), default=2),
        Field("pos", 5, TypeRef("struct", "Vec3")),
        Field("data", 6, _v(_s("uint8"))),
        Field("floats", 7, _v(_s("float32"))),
        Field("longs", 8, _v(_s("int64"))),
        Field("names", 9, _v(STR)),
        Field("items", 10, _v(TypeRef("table", "Item"))),
        Field("edges", 11, _v(TypeRef("struct", "Edge"))),
        Field("thing", 13, TypeRef("union", "Thing")),
        Field("child", 14, TypeRef("table", "Root")),
        Field("old", 15, _s("int32"), deprecated=True),
        Field("colors", 16, _v(TypeRef("enum", "Color"))),
        Field("nums", 17, _v(TypeRef("table", "Num"))),
        Field("pairs", 18, _v(TypeRef("struct", "Pair"))),
        Field("small", 19, _s("int8"), default=-3),
    )
    s.check()
    return s


SCHEMA = make_schema()

f32 = st.floats(width=32, allow_nan=False)
text = st.text(max_size=12)
u32 = st.integers(0, 2**32 - 1)
i64 = st.integers(-(2**63), 2**63 - 1)

items = st.fixed_dictionaries({"name": text}, optional={"value": st.integers(-(2**31), 2**31 - 1)})
leaf = st.fixed_dictionaries(
    {}, optional={"id": st.integers(0, 65535), "weight": st.floats(allow_nan=False)}
)
edges = st.tuples(u32, i64, st.integers(0, 255))


def roots(depth: int) -> st.SearchStrategy[dict[str, Any]]:
    optional: dict[str, st.SearchStrategy[Any]] = {
        "name": text,
        "count": i64,
        "flag": st.booleans(),
        "ratio": st.floats(allow_nan=False),
        "color": st.sampled_from([0, 1, 2, "Red", "Blue"]),
        "pos": st.tuples(f32, f32, f32),
        "data": st.one_of(
            st.binary(max_size=40),
            st.lists(st.integers(0, 255), max_size=10).map(lambda x: np.array(x, np.uint8)),
        ),
        "floats": st.lists(f32, max_size=10),
        "longs": st.tuples(st.lists(i64, max_size=6), st.sampled_from([">i8", "<i8"])).map(
            lambda x: np.array(x[0], dtype=x[1])
        ),
        "names": st.lists(text, max_size=5),
        "items": st.lists(items, max_size=5),
        "edges": st.lists(edges, max_size=4),
        "thing": st.one_of(
            items.map(lambda v: Union("Item", v)), leaf.map(lambda v: Union("Leaf", v))
        ),
        "colors": st.lists(st.integers(0, 2), max_size=5),
        "nums": st.lists(
            st.fixed_dictionaries({"k": st.integers(-100, 100)}, optional={"label": text}),
            max_size=5,
        ),
        "pairs": st.lists(st.tuples(edges, st.integers(-(2**15), 2**15 - 1)), max_size=3),
        "small": st.integers(-128, 127),
    }
    if depth > 0:
        optional["child"] = roots(depth - 1)
    return st.fixed_dictionaries({}, optional=optional)


def _for_official(value: Any) -> Any:
    """The same value in the spellings the reference encoder takes (unions as tuples)."""
    if isinstance(value, Union):
        return (value.table, _for_official(value.value))
    if isinstance(value, dict):
        out = {k: _for_official(v) for k, v in value.items()}
        if isinstance(out.get("color"), str):
            out["color"] = SCHEMA.enums["Color"].values[out["color"]]
        return out
    return value


def _decode(buf: bytes) -> dict[str, Any]:
    return fb_decode(SCHEMA, "Root", root_table(buf))


@settings(max_examples=150, deadline=None)
@given(value=roots(2), large=st.sampled_from([1, 16, 1 << 20]))
def test_same_contents_as_official_builder(value: dict[str, Any], large: int) -> None:
    ours = bytes(build_bytes(Builder(SCHEMA, large_bytes=large), value))
    theirs = FbEncoder(SCHEMA).encode(_for_official(value))
    assert ours[4:8] == b"WPTS"
    assert _decode(ours) == _decode(theirs)


def test_fields_read_back_through_table_primitives() -> None:
    value = {
        "name": "héllo",
        "count": -(2**63),
        "flag": True,
        "ratio": 2.25,
        "color": "Green",
        "pos": (1.0, 2.0, 3.0),
        "data": b"\x00\x01\xff",
        "longs": np.array([2**62, -1], dtype=">i8"),
        "names": ["a", "", "ccc"],
        "items": [{"name": "b"}, {"name": "a", "value": 7}, {"name": "ab"}],
        "nums": [{"k": 3}, {"k": -1, "label": "neg"}, {"k": 0}],
        "edges": [(1, -2, 3)],
        "pairs": [((4, 5, 6), -7)],
        "thing": Union("Leaf", {"id": 9}),
        "child": {"name": "kid", "small": 0},
    }
    d = _decode(bytes(build_bytes(SCHEMA, value)))
    assert d["name"] == "héllo".encode()
    assert d["count"] == -(2**63) and d["flag"] is True and d["ratio"] == 2.25
    assert d["color"] == 1 and d["pos"] == (1.0, 2.0, 3.0)
    assert d["data"] == [0, 1, 255] and d["longs"] == [2**62, -1]
    assert d["names"] == [b"a", b"", b"ccc"]
    # Key fields: sorted by the key's bytes (strings) or value (scalars).
    assert [i["name"] for i in d["items"]] == [b"a", b"ab", b"b"]
    assert [n["k"] for n in d["nums"]] == [-1, 0, 3]
    assert d["edges"] == [(1, -2, 3)] and d["pairs"] == [((4, 5, 6), -7)]
    assert d["thing"] == ("Leaf", {"id": 9, "weight": 1.5})
    assert d["child"]["name"] == b"kid" and d["child"]["small"] == 0
    assert d["small"] == -3 and d["old"] == 0 if "old" in d else d["small"] == -3
    assert d["child"]["child"] is None


class Obj:
    """Tables may also be objects with attributes, unions the member object itself."""

    def __init__(self, **kw: Any) -> None:
        self.__dict__.update(kw)


class Leaf(Obj):
    pass


def test_objects_as_tables_and_union_by_class() -> None:
    value = Obj(name="o", thing=Leaf(id=3), items=[Obj(name="z"), Obj(name="y", value=1)])
    d = _decode(bytes(build_bytes(SCHEMA, value)))
    assert d["name"] == b"o"
    assert d["thing"] == ("Leaf", {"id": 3, "weight": 1.5})
    assert [i["name"] for i in d["items"]] == [b"y", b"z"]


def test_vtables_are_shared() -> None:
    value = {"items": [{"name": f"n{i:04d}", "value": i + 10} for i in range(1000)]}
    buf = bytes(build_bytes(SCHEMA, value))
    root = root_table(buf)
    start = vector_data_offset(root, 10)
    assert start is not None
    vtables = set()
    for i in range(1000):
        pos = start + 4 * i + struct.unpack_from("<I", buf, start + 4 * i)[0]
        vtables.add(pos - struct.unpack_from("<i", buf, pos)[0])
    assert len(vtables) == 1
    # The official Builder also deduplicates: ours is not bigger.
    assert len(buf) <= len(FbEncoder(SCHEMA).encode(value)) + 64


def test_omit_empty_strings() -> None:
    b = Builder(SCHEMA, omit_empty_strings=True, keep_empty=[("Num", "label")])
    d = _decode(bytes(build_bytes(b, {"name": "", "nums": [{"k": 1, "label": ""}]})))
    assert d["name"] is None
    assert d["nums"][0]["label"] == b""
    d = _decode(bytes(build_bytes(SCHEMA, {"name": ""})))
    assert d["name"] == b""


@pytest.mark.parametrize("alignment", [1, 2, 4, 8, 16, 64, 4096, 65536])
@pytest.mark.parametrize("large", [1, 1 << 30])
def test_vectors_start_at_the_alignment_asked(alignment: int, large: int) -> None:
    b = Builder(SCHEMA, large_bytes=large, field_alignment={("Root", "data"): alignment})
    rng = np.random.default_rng(alignment)
    value: dict[str, Any] = {"name": "x" * 3, "child": {"name": "y"}}
    node: dict[str, Any] = value
    arrays = []
    for _ in range(4):
        arr = rng.integers(0, 256, size=int(rng.integers(1, 300)), dtype=np.uint8)
        arrays.append(arr)
        node["data"] = arr
        node["floats"] = Aligned(rng.random(3, dtype=np.float32), alignment)
        node["child"] = {"name": "z"}
        node = node["child"]
    result = b.build(value)
    buf = bytearray(result.size)
    execute(result.plan, buf)
    tab = root_table(bytes(buf))
    decoded = _decode(bytes(buf))
    for arr in arrays:
        start = vector_data_offset(tab, 6)
        assert start is not None and start % max(alignment, 4) == 0
        floats = vector_data_offset(tab, 7)
        assert floats is not None and floats % max(alignment, 4) == 0
        assert decoded["data"] == arr.tolist()
        o = tab.Offset(4 + 2 * 14)
        tab = type(tab)(tab.Bytes, tab.Indirect(o + tab.Pos))
        decoded = decoded["child"]
    if large == 1:
        assert len(result.payloads) == 4 + 4
        assert all(off % max(alignment, 4) == 0 for off, _, _ in result.payloads)
    else:
        assert result.payloads == ()


def test_wide_arrays_in_byte_vectors_are_stored_little_endian() -> None:
    arr = np.arange(6, dtype=">f4").reshape(2, 3)
    for large in (1, 1 << 20):
        buf = bytes(build_bytes(Builder(SCHEMA, large_bytes=large), {"data": arr}))
        got = np.array(_decode(buf)["data"], dtype=np.uint8)
        assert got.tobytes() == arr.astype("<f4").tobytes()


def test_serial_and_threaded_outputs_are_identical() -> None:
    rng = np.random.default_rng(1)
    value = {
        "data": rng.integers(0, 256, 3_000_000, dtype=np.uint8),
        "floats": rng.random(1_000_000, dtype=np.float32),
        "longs": np.arange(500_000, dtype=">i8"),
        "child": {"data": rng.integers(0, 256, 5_000_000, dtype=np.uint8)[::2]},
    }
    b = Builder(SCHEMA, field_alignment={("Root", "data"): 4096})
    result = b.build(value)
    serial = bytearray(result.size)
    execute(result.plan, serial, threads=1)
    threaded = bytearray(result.size)
    execute(result.plan, threaded, threads=4, chunk_bytes=1 << 16)
    assert serial == threaded
    d = _decode(bytes(serial))
    assert d["longs"][-1] == 499_999
    assert d["child"]["data"] == value["child"]["data"].tolist()  # type: ignore[index]


def test_past_two_gib_is_an_encode_error_before_any_copy() -> None:
    # A broadcast array claims 2 GiB without owning it: nothing may try to copy it.
    huge = np.broadcast_to(np.zeros(1, np.uint8), (MAX_BUFFER_SIZE,))
    with pytest.raises(EncodeError, match=r"2 GiB.*external data"):
        Builder(SCHEMA).build({"data": huge})
    half = np.broadcast_to(np.zeros(1, np.uint8), (MAX_BUFFER_SIZE // 2 + 1,))
    with pytest.raises(EncodeError, match="external data"):
        Builder(SCHEMA).build({"data": half, "child": {"data": half}})


@pytest.mark.parametrize(
    ("value", "where"),
    [
        ({"name": 3}, "$.name"),
        ({"count": "many"}, "$.count"),
        ({"color": "Purple"}, "$.color"),
        ({"items": [{"name": "a"}, 5]}, "$.items"),
        ({"child": {"names": ["a", 7]}}, "$.child.names[1]"),
        ({"thing": Union("Root", {})}, "$.thing"),
        ({"edges": [(1, 2)]}, "$.edges"),
        ({"small": 1000}, "$.small"),
        ({"child": {"child": {"longs": ["x"]}}}, "$.child.child.longs"),
    ],
)
def test_bad_values_are_encode_errors_with_a_path(value: dict[str, Any], where: str) -> None:
    with pytest.raises(EncodeError) as info:
        build_bytes(SCHEMA, value)
    assert info.value.path.startswith(where)


def test_bad_configuration() -> None:
    """A bad builder argument is an ArgumentError, a name the schema lacks a NotFoundError."""
    with pytest.raises(ArgumentError, match="not a vector"):
        Builder(SCHEMA, field_alignment={("Root", "name"): 8})
    with pytest.raises(ArgumentError, match=r"Root\.data: alignment must be a power of two"):
        Builder(SCHEMA, field_alignment={("Root", "data"): 3})
    with pytest.raises(NotFoundError, match=r"no field Root\.nope"):
        Builder(SCHEMA, field_alignment={("Root", "nope"): 8})
    with pytest.raises(EncodeError):
        Builder(SCHEMA).build({}, file_identifier=b"TOOLONG")


def test_a_bad_alignment_in_a_value_names_its_place() -> None:
    with pytest.raises(ArgumentError, match=r"^\$\.floats: alignment must be a power of two"):
        build_bytes(SCHEMA, {"floats": Aligned([1.0], 3)})


def test_no_identifier_and_other_root() -> None:
    buf = bytes(build_bytes(SCHEMA, {"name": "q"}, file_identifier=b""))
    assert fb_decode(SCHEMA, "Root", root_table(buf))["name"] == b"q"
    buf = bytes(build_bytes(SCHEMA, {"id": 4}, root_table="Leaf"))
    assert fb_decode(SCHEMA, "Leaf", root_table(buf)) == {"id": 4, "weight": 1.5}


def test_variants_write_only_the_selected_fields() -> None:
    b = Builder(SCHEMA, variants={"Leaf": ("id", {1: ["weight"], 2: []})})
    for value, want in [
        ({"id": 1, "weight": 2.5}, {"id": 1, "weight": 2.5}),
        ({"id": 2, "weight": 2.5}, {"id": 2, "weight": 1.5}),  # weight left out: default
        ({"id": 3, "weight": 2.5}, {"id": 3, "weight": 2.5}),  # not listed: every field
    ]:
        buf = bytes(build_bytes(b, value, root_table="Leaf"))
        assert fb_decode(SCHEMA, "Leaf", root_table(buf)) == want
    with pytest.raises(NotFoundError, match=r"no field Leaf\.nope"):
        Builder(SCHEMA, variants={"Leaf": ("nope", {})})
    with pytest.raises(NotFoundError, match="has no fields"):
        Builder(SCHEMA, variants={"Leaf": ("id", {1: ["nope"]})})


def test_substitutes_replace_tables_by_identity() -> None:
    child = {"name": "original"}
    value = {"name": "root", "child": child}
    buf = bytes(build_bytes(SCHEMA, value, substitutes={id(child): {"name": "patched"}}))
    d = _decode(buf)
    assert d["name"] == b"root" and d["child"]["name"] == b"patched"
    assert child == {"name": "original"}


class Item(Obj):
    pass


def _as_objects(value: Any) -> Any:
    """The same value with every table an object (fields left out: attributes not set)."""
    if isinstance(value, Union):
        cls = {"Item": Item, "Leaf": Leaf}[value.table]
        return cls(**{k: _as_objects(v) for k, v in value.value.items()})
    if isinstance(value, dict):
        return Obj(**{k: _as_objects(v) for k, v in value.items()})
    if isinstance(value, list):
        return [_as_objects(v) for v in value]
    return value


@settings(max_examples=100, deadline=None)
@given(value=roots(2))
def test_objects_and_mappings_give_the_same_bytes(value: dict[str, Any]) -> None:
    """Tables read from attributes (some not set) or from keys: one packing, the same bytes."""
    b = Builder(SCHEMA, large_bytes=16)
    assert bytes(build_bytes(b, _as_objects(value))) == bytes(build_bytes(b, value))


def test_field_names_that_are_python_keywords() -> None:
    s = Schema(root="K", file_identifier=b"")
    s.table("K", Field("from", 0, _s("int32")), Field("class", 1, STR), Field("id", 2, _s("int8")))
    s.check()
    obj = Obj(id=2)
    setattr(obj, "from", 7)
    setattr(obj, "class", "c")
    want = bytes(build_bytes(s, {"from": 7, "class": "c", "id": 2}))
    assert bytes(build_bytes(s, obj)) == want
    assert fb_decode(s, "K", root_table(want)) == {"from": 7, "class": b"c", "id": 2}


def test_packing_functions_are_written_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A table's packer is written when first used, even inside a vector, then kept."""
    import wireplan.flatbuffers._packers as packers

    written: list[str] = []
    compile_ = packers._compile

    def counting(source: list[str], ns: dict[str, Any], name: str) -> Any:
        written.append(name)
        return compile_(source, ns, name)

    monkeypatch.setattr(packers, "_compile", counting)
    b = Builder(SCHEMA)
    value = {"items": [{"name": f"n{i}", "value": i} for i in range(50)]}
    first = bytes(build_bytes(b, value))
    # Root and Item, and one shape each: Item with both fields, Item whose value is the default
    assert sorted(written) == ["Item", "Item shape", "Item shape", "Root", "Root shape"]
    assert bytes(build_bytes(b, value)) == first
    assert len(written) == 5


def _repeats_schema() -> Schema:
    s = Schema(root="Wrap", file_identifier=b"")
    s.struct("Vec3", ("x", _s("float32")), ("y", _s("float32")), ("z", _s("float32")))
    s.table("Dim", Field("v", 0, _s("int64")), Field("p", 1, STR))
    s.table("Leaf", Field("id", 0, _s("uint16")), Field("weight", 1, _s("float64"), default=1.5))
    s.table("Item", Field("name", 0, STR, key=True))
    s.union("Thing", Leaf=1, Item=2)
    s.table(
        "Sub",
        Field("name", 0, STR),
        Field("dims", 1, _v(TypeRef("table", "Dim"))),
        Field("pos", 2, TypeRef("struct", "Vec3")),
        Field("thing", 4, TypeRef("union", "Thing")),
        Field("bytes", 5, _v(_s("uint8"))),
        Field("inner", 6, TypeRef("table", "Sub")),
        Field("items", 7, _v(TypeRef("table", "Item"))),
    )
    s.table("Wrap", Field("tag", 0, STR), Field("subs", 1, _v(TypeRef("table", "Sub"))))
    s.table("Root", Field("wraps", 0, _v(TypeRef("table", "Wrap"))))
    s.check()
    return s


REPEATS = _repeats_schema()
dims = st.lists(
    st.fixed_dictionaries({}, optional={"v": i64, "p": st.text(max_size=3)}), max_size=4
)
subs = st.recursive(
    st.fixed_dictionaries(
        {},
        optional={
            "name": st.text(max_size=5),
            "dims": dims,
            "pos": st.tuples(f32, f32, f32),
            "thing": st.one_of(
                st.builds(Union, st.just("Leaf"), st.fixed_dictionaries({"id": st.integers(0, 9)})),
                st.builds(Union, st.just("Item"), st.fixed_dictionaries({"name": text})),
            ),
            "bytes": st.binary(max_size=9),
            "items": st.lists(st.fixed_dictionaries({"name": text}), max_size=3),
        },
    ),
    lambda inner: st.fixed_dictionaries({"inner": inner, "name": st.text(max_size=2)}),
    max_leaves=3,
)


@st.composite
def repeated(draw: st.DrawFn) -> dict[str, Any]:
    """Wraps whose subs are drawn, with repetition, from a few values: equal subtrees at
    every position modulo 8 (the tags' lengths vary) and depth."""
    pool = draw(st.lists(subs, min_size=1, max_size=4))
    picks = st.lists(st.sampled_from(pool), max_size=8)
    wraps = st.fixed_dictionaries({"tag": st.text(max_size=7), "subs": picks})
    return {"wraps": draw(st.lists(wraps, min_size=1, max_size=5))}


def _key(value: Any) -> Any:
    return repr(value)  # equal reprs: equal values (no arrays here)


@settings(max_examples=200, deadline=None)
@given(value=repeated())
def test_repeats_write_the_bytes_packing_would(value: dict[str, Any]) -> None:
    plain = Builder(REPEATS)
    copying = Builder(REPEATS, repeats={"Sub": _key, "Dim": _key, "Item": _key})
    want = bytes(build_bytes(plain, value, root_table="Root"))
    assert bytes(build_bytes(copying, value, root_table="Root")) == want
    assert bytes(build_bytes(copying, value, root_table="Root")) == want  # the builder reused


def test_repeats_copy_and_keep_the_limits() -> None:
    sub = {"name": "s", "dims": [{"v": 1, "p": "a"}, {"v": -2}], "thing": Union("Leaf", {"id": 3})}
    value = {"wraps": [{"tag": "t" * i, "subs": [sub, sub]} for i in range(9)]}
    copying = Builder(REPEATS, repeats={"Sub": _key})
    want = bytes(build_bytes(Builder(REPEATS), value, root_table="Root"))
    assert bytes(build_bytes(copying, value, root_table="Root")) == want  # packers written
    calls = []
    sub_pack = copying._tables["Dim"].pack

    def counted(st_: Any, v: Any, path: Any) -> int:
        calls.append(1)
        return int(sub_pack(st_, v, path))

    copying._tables["Dim"].pack = counted  # Dim tables are packed only inside a packed Sub
    assert bytes(build_bytes(copying, value, root_table="Root")) == want
    # packed: the first two Subs at each position modulo 8 (0 or 4 here); the others copied
    assert len(calls) <= 2 * 2 * 2
    tables = 1 + 9 + 18 * 4  # Root, the wraps, each Sub with its two Dims and the Leaf
    for limit, fails in ((tables, False), (tables - 1, True)):
        for repeats in ({}, {"Sub": _key}):
            b = Builder(REPEATS, max_tables=limit, repeats=repeats)
            if fails:
                with pytest.raises(EncodeError, match=f"more than {limit} tables"):
                    build_bytes(b, value, root_table="Root")
            else:
                assert bytes(build_bytes(b, value, root_table="Root")) == want
    with pytest.raises(NotFoundError, match="no table 'Nope'"):
        Builder(REPEATS, repeats={"Nope": _key})


def test_repeats_and_what_copies_cannot_see() -> None:
    """A substitute a repeated value could hold, a vector aligned past 8, a large vector:
    the same bytes as packing each time."""
    sub = {"name": "s", "bytes": b"abc", "dims": [{"v": 1}]}
    value = {"wraps": [{"tag": "t" * i, "subs": [sub, sub, sub]} for i in range(4)]}
    dim = sub["dims"][0]
    cases: list[tuple[dict[str, Any], dict[str, Any]]] = [
        ({}, {"substitutes": {id(dim): {"v": 7}}}),
        ({"field_alignment": {("Sub", "bytes"): 16}}, {}),
        ({"large_bytes": 2}, {}),
    ]
    for options, build in cases:
        want = bytes(build_bytes(Builder(REPEATS, **options), value, root_table="Root", **build))
        b = Builder(REPEATS, repeats={"Sub": _key}, **options)
        assert bytes(build_bytes(b, value, root_table="Root", **build)) == want, options
        if "substitutes" in build:
            assert want.count(struct.pack("<q", 7)) == 12
