"""Memory safety and failure behaviour: read-only views, owned copies, in-place bytes,
encode_into destinations, threads, failed record writes, ``wireplan inspect`` on damaged files.

Each test here pins a fix from the review pass (see the module docstrings' claims in
``docs/evalue.md``); each failed before its fix.
"""

from __future__ import annotations

import io
import mmap
import pickle
import threading
from pathlib import Path
from types import TracebackType
from typing import Any

import ml_dtypes
import numpy as np
import pytest

import wireplan.cli
import wireplan.core.alloc as alloc
import wireplan.evalue._codec as codec
import wireplan.evalue._lists as lists
from wireplan.errors import ArgumentError, DecodeError, EncodeError
from wireplan.evalue import (
    RawTensor,
    RecordFile,
    RecordWriter,
    decode,
    decode_list,
    encode,
    encode_into,
    encode_list,
    read_records,
)
from wireplan.evalue.cli import InspectError

# -- zero-copy views are read-only for good; copies are owned ----------------


@pytest.mark.parametrize("kind", [bytearray, lambda b: memoryview(bytearray(b))])
def test_views_over_writable_buffers_cannot_be_made_writable(kind: Any) -> None:
    arr = np.arange(6, dtype=np.float32).reshape(2, 3)
    data = kind(encode(arr))
    before = bytes(data)
    view = decode(data, copy=False)
    with pytest.raises(ValueError, match="WRITEABLE"):
        view.flags.writeable = True
    (listed,) = decode_list(kind(encode_list([arr])), copy=False)
    with pytest.raises(ValueError, match="WRITEABLE"):
        listed.flags.writeable = True
    assert bytes(data) == before
    assert np.shares_memory(view, np.frombuffer(data, np.uint8))  # still a view, no copy


def test_record_file_views_are_read_only(tmp_path: Path) -> None:
    path = tmp_path / "r.evr"
    with RecordWriter(path) as w:
        w.write([np.arange(4, dtype=np.int32)])
    with RecordFile(path, copy=False) as f:
        view = f[0][0]
        with pytest.raises(ValueError, match="WRITEABLE"):
            view.flags.writeable = True


@pytest.mark.parametrize(
    ("arr", "extended"),
    [
        (np.arange(5, dtype=np.uint8), False),  # native == wire: the copy must still copy
        (np.arange(5, dtype=np.float64), False),
        (np.arange(5, dtype=np.float32).astype(ml_dtypes.bfloat16), True),
        (np.array([True, False]), True),
        (np.arange(300 * 301, dtype=np.float32).reshape(300, 301), False),
    ],
)
def test_copies_are_owned_writable_native(arr: np.ndarray[Any, Any], extended: bool) -> None:
    for data in (encode(arr, extended=extended), bytearray(encode(arr, extended=extended))):
        back = decode(data, extended=extended)
        assert back.flags.writeable and back.flags.owndata and back.dtype.isnative
        assert not np.shares_memory(back, np.frombuffer(data, np.uint8))
        back[...] = 0  # writing the copy leaves the input alone
        assert bytes(data) == encode(arr, extended=extended)


def test_zero_sized_views_have_the_wire_dtype() -> None:
    for shape in [(0,), (3, 0), (0, 2**31 - 1)]:
        data = encode(RawTensor(6, shape, b""))
        view = decode(data, copy=False)
        assert view.dtype == np.dtype(">f4") and view.shape == shape
        assert not view.flags.writeable
        back = decode(data)
        assert back.dtype == np.dtype("float32") and back.flags.writeable


def test_encoding_never_writes_to_its_input() -> None:
    rng = np.random.default_rng(5)
    base = rng.standard_normal((200, 400)).astype(np.float32)
    payload = bytearray(rng.integers(0, 256, 100_000, dtype=np.uint8).tobytes())
    for arr in (base, base.T, base[::2, 1::3], np.asfortranarray(base)):
        before = arr.tobytes()
        encode(arr)
        encode_list([arr, payload])
        assert arr.tobytes() == before
    assert bytes(payload) == bytes(encode(payload)[5:])


# -- bytes filled in place ---------------------------------------------------


def _bytes_in_traceback(tb: TracebackType | None, size: int) -> bool:
    while tb is not None:
        for value in tb.tb_frame.f_locals.values():
            if type(value) is bytes and len(value) == size:
                return True
        tb = tb.tb_next
    return False


class _Midway(Exception):
    pass


def test_failed_encode_leaves_no_half_filled_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    arr = np.ones((512, 512), np.float32)
    size = len(encode(arr))

    def half_then_fail(parts: Any, dest: np.ndarray[Any, Any], offset: int) -> int:
        dest[: dest.shape[0] // 2] = 0xAB
        raise _Midway

    monkeypatch.setattr(codec, "_write", half_then_fail)
    with pytest.raises(_Midway) as info:
        encode(arr)
    assert not _bytes_in_traceback(info.tb, size)


def test_failed_encode_list_leaves_no_half_filled_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    values = [np.ones((64, 64), np.float32), "x"]
    size = len(encode_list(values))

    def half_then_fail(plan: Any, dest: np.ndarray[Any, Any], **kw: Any) -> None:
        dest[: dest.shape[0] // 2] = 0xAB
        raise _Midway

    monkeypatch.setattr(lists, "execute", half_then_fail)
    with pytest.raises(_Midway) as info:
        encode_list(values)
    assert not _bytes_in_traceback(info.tb, size)


def test_the_codec_fills_no_shared_bytes_object_in_place(monkeypatch: pytest.MonkeyPatch) -> None:
    # fill_new_bytes itself: tests/core/test_alloc.py; here, the sizes the codec asks it for.
    sizes: list[int] = []
    real = alloc._bytes_from_size

    def spy(ptr: Any, size: int) -> Any:
        sizes.append(size)
        return real(ptr, size)

    monkeypatch.setattr(alloc, "_bytes_from_size", spy)
    encode_list([])
    encode(np.ones(20000, np.float32))
    assert sizes and min(sizes) >= 2


# -- encode_into destinations ------------------------------------------------


def test_encode_into_rejects_non_contiguous_destinations() -> None:
    value = np.arange(3, dtype=np.float32)
    strided = np.zeros(64, np.uint8)
    with pytest.raises(EncodeError, match="contiguous"):
        encode_into(value, strided[::2])
    assert not strided.any()  # nothing written, not even the header
    rows = np.zeros((4, 40), np.uint8)
    with pytest.raises(EncodeError, match="contiguous"):
        encode_into(value, rows[:, :20])  # reshape would have copied: bytes lost
    assert not rows.any()
    with pytest.raises(EncodeError, match="contiguous"):
        encode_into(value, memoryview(bytearray(64))[::2])


def test_encode_into_accepted_destinations(tmp_path: Path) -> None:
    value = np.arange(3, dtype=np.float32)
    want = encode(value)
    n = len(want)
    grid = np.zeros((2, n), np.uint8)
    assert encode_into(value, grid, n) == n and grid[1].tobytes() == want
    wide = np.zeros(8, np.float64)
    assert encode_into(value, wide) == n and wide.tobytes()[:n] == want
    path = tmp_path / "m"
    path.write_bytes(bytes(n + 1))
    with open(path, "r+b") as f, mmap.mmap(f.fileno(), 0) as mm:
        assert encode_into(value, mm, 1) == n and mm[1:] == want
    with (
        open(path, "rb") as f,
        mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as ro,
        pytest.raises(EncodeError, match="writable"),
    ):
        encode_into(value, ro)


def test_wrong_payload_types_are_encode_errors() -> None:
    with pytest.raises(EncodeError, match="bytes-like"):
        encode(RawTensor(0, (1,), "a"))  # type: ignore[arg-type]
    with pytest.raises(EncodeError, match="bytes-like"):
        encode_list([RawTensor(0, (2,), [1, 2])])  # type: ignore[arg-type]


def test_decoders_agree_on_wrong_arguments() -> None:
    strided = memoryview(bytes(64))[::2]
    for fn in (decode, decode_list):
        with pytest.raises(ArgumentError, match="contiguous"):
            fn(strided)
        with pytest.raises(ArgumentError, match=r"bytes-like object, not builtins\.str"):
            fn("text")


# -- threads -------------------------------------------------------------------


def test_concurrent_encodes_and_decodes_do_not_interfere() -> None:
    # Rank-1 tensors: the data sits at byte 7, misaligned, so encode takes the chunked
    # scratch-buffer path (float16 always; float32/64 under numpy < 2.3); a shared scratch
    # buffer would mix threads' bytes.
    rng = np.random.default_rng(11)
    dtypes = (np.float32, np.float64, np.float16)
    arrays = [rng.standard_normal(300_000).astype(dt) for dt in dtypes] * 2
    arrays += [rng.standard_normal((700, 500)).astype(np.float32).T]
    wire = [np.ascontiguousarray(a).astype(a.dtype.newbyteorder(">")).tobytes() for a in arrays]
    want = [encode(a) for a in arrays]
    want_lists = [encode_list([a], threads=1) for a in arrays]
    assert all(w.endswith(x) for w, x in zip(want, wire, strict=True))
    errors: list[str] = []
    start = threading.Barrier(len(arrays))

    def work(i: int) -> None:
        start.wait()
        for _ in range(6):
            data = encode(arrays[i])
            if data != want[i]:
                errors.append(f"encode {i}")
            if not np.array_equal(decode(data), arrays[i]):
                errors.append(f"decode {i}")
            if encode_list([arrays[i]], threads=2) != want_lists[i]:
                errors.append(f"encode_list {i}")

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(arrays))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


# -- record writer failures ---------------------------------------------------


@pytest.mark.parametrize("failing_write", [1, 2, 3])
def test_failed_record_write_never_publishes(tmp_path: Path, failing_write: int) -> None:
    path = tmp_path / "data.evr"
    with RecordWriter(path) as w:
        w.write(["old"])
    old = path.read_bytes()

    w = RecordWriter(path)
    w.write([1])
    assert w._file is not None
    real = w._file.write
    calls = [0]

    def flaky(data: Any) -> int:
        calls[0] += 1
        if calls[0] == failing_write:  # the padding, the length field, the list itself
            raise OSError(28, "No space left on device")
        return real(data)

    w._file.write = flaky  # type: ignore[method-assign]
    with pytest.raises(OSError, match="No space"):
        w.write([np.arange(3.0), "x" * 40])
    # The user catches the error and carries on: the writer refuses, nothing is published.
    with pytest.raises(ArgumentError, match="aborted by a failed write"):
        w.write([2])
    with pytest.raises(ArgumentError, match="aborted by a failed write"):
        w.close()
    assert path.read_bytes() == old
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.evr"]
    assert list(read_records(path)) == [["old"]]


def test_encode_error_in_a_record_leaves_the_writer_usable(tmp_path: Path) -> None:
    path = tmp_path / "r.evr"
    with RecordWriter(path) as w:
        w.write([1])
        with pytest.raises(EncodeError):
            w.write([2, object()])
        w.write([3])
    assert list(read_records(path)) == [[1], [3]]


# -- wireplan inspect on damaged files ---------------------------------------


@pytest.fixture
def _only_evalue(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wireplan.cli, "FORMATS", (("evalue", "EValue"),))


def _damaged(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    rec = tmp_path / "good.evr"
    with RecordWriter(rec) as w:
        for i in range(3):
            w.write([np.arange(4, dtype=np.float32), f"x{i}", i])
    data = rec.read_bytes()
    out = {}
    for name, blob, kind in [
        ("cut.evr", data[:-5], "damaged EValue record file"),
        ("head.evr", data[:10], "damaged EValue record file"),
        ("cut.evl", encode_list([1, "ok", np.zeros(3)])[:-4], "damaged EValue list"),
        ("cut.ev", encode(np.arange(5.0))[:-3], "read as a bare Tensor"),
        ("tag.ev", b"\x02\x00\x00\x00\x09abc", "read as a bare String"),
    ]:
        path = tmp_path / name
        path.write_bytes(blob)
        out[name] = (path, kind)
    return out


@pytest.mark.usefixtures("_only_evalue")
def test_inspect_damaged_files_exit_1_with_a_clear_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for path, kind in _damaged(tmp_path).values():
        assert wireplan.cli.main(["inspect", str(path)], out=io.StringIO()) == 1
        err = capsys.readouterr().err
        assert err.startswith(f"wireplan: error: {path}: "), err
        assert kind in err and "at byte " in err, err
        assert "Traceback" not in err


def test_inspect_error_is_a_decode_error_with_the_offset(tmp_path: Path) -> None:
    path, _ = _damaged(tmp_path)["cut.ev"]
    from wireplan.evalue.cli import inspect

    with pytest.raises(InspectError) as info:
        inspect(path, io.StringIO())
    exc = info.value
    assert isinstance(exc, DecodeError) and exc.offset == 7 and exc.file == path
    again = pickle.loads(pickle.dumps(exc))
    assert str(again) == str(exc) and again.offset == 7


def test_masked_arrays_are_not_silently_unmasked() -> None:
    # A mask has no place in an EValue tensor: masked elements are an error that says
    # what to do, a masked array without masked elements encodes as its data.
    arr = np.ma.masked_array(np.arange(4, dtype=np.float32), mask=[False, True, False, False])
    with pytest.raises(EncodeError, match="filled"):
        encode(arr)
    with pytest.raises(EncodeError, match=r"\$\[1\]"):
        encode_list([1, arr])
    plain = np.ma.masked_array(np.arange(4, dtype=np.float32))
    assert encode(plain) == encode(np.arange(4, dtype=np.float32))
    assert np.array_equal(decode(encode(arr.filled(0))), [0, 0, 2, 3])
