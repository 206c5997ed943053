"""The list framing and record files: layout, alignment, zero copy, atomic writes."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from wireplan.core.executor import execute
from wireplan.errors import DecodeError, EncodeError, FileError, LimitError
from wireplan.evalue import (
    ALIGNMENT,
    RecordFile,
    RecordWriter,
    decode,
    decode_list,
    encode,
    encode_list,
    plan_list,
    read_records,
)

EXAMPLE: list[Any] = [
    np.arange(12, dtype=np.float32).reshape(3, 4),
    "label",
    7,
    None,
    np.zeros((2, 0), np.int64),
    True,
    -1.5,
    b"\xff\x00",
]


def _equal(a: list[Any], b: list[Any]) -> bool:
    if len(a) != len(b):
        return False
    for x, y in zip(a, b, strict=True):
        if isinstance(y, np.ndarray):
            if not (
                isinstance(x, np.ndarray)
                and x.shape == y.shape
                and x.dtype.newbyteorder("=") == y.dtype
                and np.ascontiguousarray(x, y.dtype).tobytes() == y.tobytes()
            ):
                return False
        elif isinstance(y, bytes):
            if x != y:
                return False
        elif type(x) is not type(y) or x != y:
            return False
    return True


def test_empty_list_layout() -> None:
    assert encode_list([]) == b"WPEL" + b"\x00\x01" + b"\x00\x00" + bytes(8)
    assert decode_list(encode_list([])) == []


def test_list_layout_by_hand() -> None:
    data = encode_list([5, "hi"])
    head = b"WPEL\x00\x01\x00\x00" + struct.pack(">Q", 2)
    table = struct.pack(">QQQQ", 48, 9, 57, 7)
    assert data == head + table + encode(5) + encode("hi")


def test_list_round_trip_and_alignment() -> None:
    data = encode_list(EXAMPLE)
    assert _equal(decode_list(encode_list(EXAMPLE[:-1])), EXAMPLE[:-1])
    as_bytes = decode_list(data, text=False)
    assert as_bytes[1] == b"label" and as_bytes[-1] == b"\xff\x00"
    with pytest.raises(DecodeError, match="UTF-8") as info:
        decode_list(data)  # b"\xff\x00" is not text
    assert info.value.path == "$[7]"
    count = struct.unpack_from(">Q", data, 8)[0]
    for i in range(count):
        off, length = struct.unpack_from(">QQ", data, 16 + 16 * i)
        element = data[off : off + length]
        assert decode(element, text=False) is not None or element == b"\x00"
        if element[0] == 1:
            rank = element[2]
            assert (off + 3 + 4 * rank) % ALIGNMENT == 0
    views = decode_list(data, copy=False, text=False)
    assert not views[0].flags.writeable and views[0].dtype == np.dtype(">f4")


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.none(),
            st.booleans(),
            st.integers(-(2**63), 2**63 - 1),
            st.floats(allow_nan=False),
            st.text(max_size=20),
            hnp.arrays(
                st.sampled_from([np.float32, np.int64, np.uint8, np.float16]),
                hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5),
            ),
        ),
        max_size=8,
    )
)
def test_list_round_trip_property(values: list[Any]) -> None:
    data = encode_list(values)
    assert _equal(decode_list(data), values)


def test_serial_and_threaded_plans_are_byte_identical() -> None:
    rng = np.random.default_rng(3)
    values = [rng.standard_normal((64, 64)).astype(np.float32) for _ in range(6)]
    values += ["x", 3, rng.integers(0, 255, 5000).astype(np.uint8)]
    plan = plan_list(values)
    serial = bytearray(plan.size)
    threaded = bytearray(plan.size)
    execute(plan, serial, threads=1)
    execute(plan, threaded, threads=4, chunk_bytes=1024)
    assert serial == threaded == encode_list(values) == encode_list(values, threads=2)
    # Every byte of the output is covered by a region: nothing is left unwritten.
    assert sum(r.length for r in plan) == plan.size


def test_list_encode_error_has_path() -> None:
    with pytest.raises(EncodeError) as info:
        encode_list([1, 2, 2**64])
    assert info.value.path == "$[2]"


def test_record_file_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "train.evr"
    rng = np.random.default_rng(0)
    records = [[rng.standard_normal((4, 5)).astype(np.float32), f"r{i}", i] for i in range(20)]
    with RecordWriter(path) as writer:
        for r in records:
            writer.write(r)
        assert writer.count == 20
    back = list(read_records(path))
    assert len(back) == 20
    for got, want in zip(back, records, strict=True):
        assert _equal(got, want)
    raw = path.read_bytes()
    assert raw[:24] == b"WPEVRECS\x00\x01\x00\x00\x00\x00\x00\x00" + struct.pack(">Q", 20)
    with RecordFile(path, copy=False) as f:
        assert len(f) == 20
        for i in range(20):
            start, _end = f.span(i)
            assert start % ALIGNMENT == 0
            assert bytes(f.raw(i)) == encode_list(records[i])
        first = f[0][0]
        last = f[-1]
    # Zero-copy views outlive close(): each keeps the mapping alive.
    assert not first.flags.writeable and first.dtype == np.dtype(">f4")
    assert np.array_equal(first, records[0][0]) and last[2] == 19


def test_write_encoded_checks_input(tmp_path: Path) -> None:
    path = tmp_path / "r.evr"
    with RecordWriter(path) as w:
        w.write_encoded(encode_list([1, "a"]))
        with pytest.raises(EncodeError, match="not a valid encoded list"):
            w.write_encoded(b"junk")
    assert list(read_records(path)) == [[1, "a"]]


def test_empty_record_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.evr"
    RecordWriter(path).close()
    assert path.stat().st_size == 24 and list(read_records(path)) == []


def test_writer_is_atomic(tmp_path: Path) -> None:
    path = tmp_path / "data.evr"
    with RecordWriter(path) as w:
        w.write([1])
    old = path.read_bytes()

    class Boom(Exception):
        pass

    with pytest.raises(Boom), RecordWriter(path) as w:
        w.write([2])
        raise Boom
    assert path.read_bytes() == old
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.evr"]

    w = RecordWriter(tmp_path / "new.evr")
    w.write([3])
    w.abort()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.evr"]
    with pytest.raises(EncodeError), RecordWriter(tmp_path / "bad.evr") as w:
        w.write([object()])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.evr"]


def test_truncated_or_corrupt_record_file(tmp_path: Path) -> None:
    path = tmp_path / "r.evr"
    with RecordWriter(path) as w:
        w.write([np.arange(3, dtype=np.int32), "a"])
        w.write([2.5])
    data = path.read_bytes()
    cut = tmp_path / "cut.evr"
    for k in range(len(data)):
        cut.write_bytes(data[:k])
        with pytest.raises(DecodeError), RecordFile(cut) as f:
            for i in range(len(f)):
                f[i]
    bad = bytearray(data)
    bad[56:64] = struct.pack(">Q", 2**62)
    cut.write_bytes(bytes(bad))
    with pytest.raises(LimitError):
        RecordFile(cut)
    bad = bytearray(data)
    bad[30] = 1  # padding must be zero
    cut.write_bytes(bytes(bad))
    with pytest.raises(DecodeError, match="padding"):
        RecordFile(cut)


def test_record_errors_name_the_record(tmp_path: Path) -> None:
    path = tmp_path / "r.evr"
    with RecordWriter(path) as w:
        w.write([1])
        w.write(["ok"])
    data = bytearray(path.read_bytes())
    with RecordFile(path) as f:
        _start, end = f.span(1)
    data[end - 1] = 0xFF
    path.write_bytes(bytes(data))
    with RecordFile(path) as f, pytest.raises(DecodeError) as info:
        f[1]
    assert info.value.path == "$[1][0]" and info.value.offset == end - 1


def test_encode_into_a_file_mapping(tmp_path: Path) -> None:
    from wireplan.core.atomic import write_sized
    from wireplan.evalue import encode_into, encoded_size

    arr = np.arange(100_000, dtype=np.float64).reshape(100, 1000).T  # large, non-contiguous
    path = tmp_path / "one.ev"
    n = encoded_size(arr)
    write_sized(path, n, lambda buf: encode_into(arr, buf))
    assert path.read_bytes() == encode(arr)
    out = np.zeros(n + 3, np.uint8)
    assert encode_into(arr, out, 3) == n and out[3:].tobytes() == encode(arr)


def test_writer_creates_missing_folders(tmp_path: Path) -> None:
    """Like ``mkdir -p``: a record file (or a shard) may go into folders not made yet."""
    path = tmp_path / "a" / "b" / "x.evr"
    record = [np.arange(6, dtype=np.float32).reshape(2, 3), "label", 7]
    with RecordWriter(path) as w:
        w.write(record)
    assert [p.name for p in path.parent.iterdir()] == ["x.evr"]  # no temporary file left
    [back] = list(read_records(path))
    assert _equal(back, record)
    # Shards, a pattern in a folder of its own that does not exist either.
    with RecordWriter(tmp_path / "c" / "d" / "s.evr", shard_bytes=200) as w:
        for i in range(3):
            w.write([i, "x" * 100])
    assert [Path(p).name for p in w.paths] == ["s-00000.evr", "s-00001.evr", "s-00002.evr"]
    assert [r[0] for shard in w.paths for r in read_records(shard)] == [0, 1, 2]
    # An existing folder, and an abort: the folders stay, no file appears.
    w = RecordWriter(tmp_path / "a" / "e" / "y.evr")
    w.write([1])
    w.abort()
    assert list((tmp_path / "a" / "e").iterdir()) == []


def test_writer_refuses_a_file_in_the_way_of_a_folder(tmp_path: Path) -> None:
    (tmp_path / "a").write_bytes(b"not a folder")
    with pytest.raises(FileError) as info:
        RecordWriter(tmp_path / "a" / "b" / "x.evr")
    assert (
        str(info.value)
        == f"cannot write {tmp_path / 'a' / 'b' / 'x.evr'}: {tmp_path / 'a'} is not a folder"
    )
    assert isinstance(info.value, OSError) and (tmp_path / "a").read_bytes() == b"not a folder"


@pytest.mark.parametrize("shard_bytes", [None, 300])
def test_durable_false_skips_the_fsyncs_and_changes_no_byte(
    tmp_path: Path, fsyncs: list[int], shard_bytes: int | None
) -> None:
    records = [[np.arange(i + 1, dtype=np.float32), f"r{i}", i] for i in range(12)]
    written = {}
    for durable in (True, False):
        fsyncs.clear()
        path = tmp_path / f"durable-{durable}" / "new" / "data.evr"  # its folders are made too
        with RecordWriter(path, shard_bytes=shard_bytes, durable=durable) as w:
            for values in records:
                w.write(values)
        assert w.durable is durable
        assert bool(fsyncs) is durable  # the files and the new folders: all synced, or none
        assert not [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")]
        written[durable] = [Path(p).read_bytes() for p in w.paths]
    assert written[True] == written[False]
    assert (len(written[False]) > 1) is (shard_bytes is not None)
    labels = [values[1] for p in w.paths for values in read_records(p)]
    assert labels == [f"r{i}" for i in range(12)]
