"""External data: large initializers in ``<name>.ort.data``, read back, run, converted both ways."""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from ort_write import models, peer
from wireplan import ArgumentError, DecodeError, EncodeError, cli
from wireplan.core.buffers import MappedFile, file_range
from wireplan.core.executor import execute, execute_file
from wireplan.core.plan import Plan
from wireplan.flatbuffers.builder import Builder, build_bytes
from wireplan.ort import load, writer
from wireplan.ort.onnx.read import from_onnx
from wireplan.ort.onnx.save import convert_ort_to_onnx
from wireplan.ort.onnx.to_proto import to_onnx
from wireplan.ort.reader import (
    companion_file,
    external_offsets,
    field_byte,
    payload_offsets,
    tensor_paths,
)
from wireplan.ort.schema import ORT_SCHEMA
from wireplan.ort.sessions import session


def oracle_tensors(buf: bytes) -> dict[str, tuple[int, int]]:
    """``name -> (external_data_offset, raw_data length)`` of the main graph's initializers.

    Read with onnxruntime's own generated classes (``Tensor.ExternalDataOffset``).
    """
    g = peer.root_of(buf).Model().Graph()
    out = {}
    for i in range(g.InitializersLength()):
        t = g.Initializers(i)
        out[t.Name().decode()] = (peer.external_data_offset(t), t.RawDataLength())
    return out


def main(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = cli.main(list(argv), out=out)
    return code, out.getvalue()


def run_onnx(model: onnx.ModelProto | Path, feeds: dict[str, Any]) -> list[Any]:
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    src = str(model) if isinstance(model, Path) else model.SerializeToString()
    return list(
        ort.InferenceSession(src, opts, providers=["CPUExecutionProvider"]).run(None, feeds)
    )


def mixed() -> onnx.ModelProto:
    """Big float weights, a small one, a string initializer (strings never go external)."""
    m = models.weights(1 << 20, tensors=3)
    g = m.graph
    g.initializer.append(onnx.numpy_helper.from_array(np.arange(4, dtype=np.float32), "small"))
    g.initializer.append(
        onnx.helper.make_tensor("labels", onnx.TensorProto.STRING, [300], [b"x" * 8] * 300)
    )
    return m


def feeds_for(model: onnx.ModelProto) -> dict[str, Any]:
    n = model.graph.input[0].type.tensor_type.shape.dim[0].dim_value
    return {"x": np.linspace(-1, 1, n, dtype=np.float32)}


@pytest.fixture
def ext(tmp_path: Path) -> Path:
    path = tmp_path / "m.ort"
    writer.save(mixed(), path, external_data=True, alignment=4096, durable=False)
    return path


# --- writing ---------------------------------------------------------------------------------


def test_layout_checked_with_onnxruntimes_classes(ext: Path) -> None:
    model = mixed()
    buf = ext.read_bytes()
    data = (ext.parent / "m.ort.data").read_bytes()
    seen = oracle_tensors(buf)
    big = [t for t in model.graph.initializer if t.name.startswith("w")]
    for t in big:
        off, raw = seen[t.name]
        assert raw == 0
        assert off % 4096 == 0
        assert data[off : off + len(t.raw_data)] == t.raw_data
    assert seen["small"] == (-1, 16)  # below the threshold: inline
    assert seen["labels"][0] == -1  # strings stay inline
    assert len(buf) < 16 << 10  # the flatbuffer stays small


def test_threshold_decides(tmp_path: Path) -> None:
    writer.save(mixed(), tmp_path / "a.ort", external_data=True, size_threshold=16)
    seen = oracle_tensors((tmp_path / "a.ort").read_bytes())
    assert seen["small"][0] >= 0 and seen["small"][1] == 0
    writer.save(mixed(), tmp_path / "b.ort", external_data=True, size_threshold=1 << 30)
    assert all(off == -1 for off, _ in oracle_tensors((tmp_path / "b.ort").read_bytes()).values())
    assert (tmp_path / "b.ort.data").stat().st_size == 0
    with pytest.raises(ArgumentError, match="size_threshold"):
        writer.save(mixed(), tmp_path / "c.ort", external_data=True, size_threshold=-1)


@pytest.mark.parametrize("alignment", [4, 64, 4096, 65536])
def test_serial_and_threaded_files_are_byte_identical(tmp_path: Path, alignment: int) -> None:
    model = models.weights(24 << 20, tensors=5)
    writer.save(model, tmp_path / "s.ort", external_data=True, alignment=alignment, threads=1)
    writer.save(model, tmp_path / "t.ort", external_data=True, alignment=alignment, threads=2)
    for name in ("s.ort", "s.ort.data"):
        a = (tmp_path / name).read_bytes()
        b = (tmp_path / name.replace("s.", "t.")).read_bytes()
        assert a == b
    assert all(off % alignment == 0 for _, _, off, _ in external_offsets(load(tmp_path / "s.ort")))


def test_windowed_executor_matches_execute(tmp_path: Path) -> None:
    """execute_file writes what execute writes, whatever the window, serial or threaded."""
    rng = np.random.default_rng(3)
    plan = Plan()
    plan.add(5, source=b"hello")
    plan.add(300_001, alignment=4096, source=rng.integers(0, 256, 300_001, dtype=np.uint8))
    plan.add(40_000, alignment=64, source=rng.random(10_000, dtype=np.float32), dtype=">f4")
    plan.add(
        90_000, alignment=16, source=rng.integers(0, 9, (300, 75), dtype=np.int32).T, dtype="<i4"
    )
    plan.add(7, alignment=8192)  # no source: zeros
    plan.pad_to(4096)
    expected = bytearray(plan.size)
    execute(plan, expected)
    for window, threads in [(1 << 16, 1), (1 << 16, 3), (100_000, 2), (1 << 30, 1)]:
        path = tmp_path / f"w{window}.bin"
        with open(path, "wb") as f:
            f.truncate(plan.size)
        fd = os.open(path, os.O_RDWR)
        try:
            execute_file(plan, fd, threads=threads, window_bytes=window, chunk_bytes=4096)
        finally:
            os.close(fd)
        assert path.read_bytes() == expected, (window, threads)


def test_file_to_file_copies_match_execute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Large sources that view a mapped file go file to file (copy_file_range), small ones are
    written from the mapping, converted ones go through mappings: the same bytes."""
    real = os.copy_file_range
    kernel: list[int] = []

    def spy(*args: Any) -> int:
        kernel.append(args[2])
        return real(*args)

    monkeypatch.setattr(os, "copy_file_range", spy)
    rng = np.random.default_rng(4)
    raw = rng.integers(0, 256, 1_000_003, dtype=np.uint8)
    (tmp_path / "src.bin").write_bytes(raw.tobytes())
    with MappedFile(tmp_path / "src.bin") as mf:
        whole = np.frombuffer(mf.buffer, np.uint8)
        assert file_range(whole[5:]) is not None
        assert file_range(whole[5:].view(np.uint8)[::2]) is None  # not contiguous
        assert file_range(raw) is None  # not a mapping
        plan = Plan()
        plan.add(700_000, alignment=4096, source=whole[3:700_003])
        plan.add(1000, alignment=64, source=raw[:1000])  # owned: through a mapping
        plan.add(250_000, alignment=4096, source=whole[:250_000].view("<f4"), dtype=">f4")
        plan.add(99, alignment=16, source=whole[-99:])  # small: written from the mapping
        expected = bytearray(plan.size)
        execute(plan, expected)
        for window, threads in [(1 << 16, 1), (1 << 16, 2), (1 << 30, None)]:
            path = tmp_path / f"k{window}-{threads}.bin"
            with open(path, "wb") as f:
                f.truncate(plan.size)
            fd = os.open(path, os.O_RDWR)
            try:
                execute_file(plan, fd, threads=threads, window_bytes=window)
            finally:
                os.close(fd)
            assert path.read_bytes() == expected, (window, threads)
        del whole
    assert sum(kernel) == 3 * 700_000  # the large region only, file to file


def test_to_bytes_refuses_external_data() -> None:
    with pytest.raises(ArgumentError, match="companion file"):
        writer.to_bytes(mixed(), external_data=True)


def test_past_two_gib_without_external_data_is_refused_before_writing(tmp_path: Path) -> None:
    with load(bytes(writer.to_bytes(models.weights(1000, tensors=1)))) as om:
        huge = np.broadcast_to(np.zeros(1, np.uint8), (2**31,))
        t = om.graph.initializers[0]
        om.graph.initializers[0] = type(t)(
            name=t.name, dims=np.array([2**29], np.int64), data_type=1, raw_data=huge
        )
        with pytest.raises(EncodeError, match=r"2 GiB.*external_data=True"):
            writer.save(om, tmp_path / "big.ort")
        result, data = writer.layout_files(om, external_data=True, alignment=4096)
        assert result.size < 1 << 20 and data.size == 2**31
    assert os.listdir(tmp_path) == []


def test_failure_keeps_the_previous_pair(ext: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = {p.name: p.read_bytes() for p in ext.parent.iterdir()}

    def boom(done: int, total: int) -> None:
        if done:
            raise RuntimeError("interrupted")

    with pytest.raises(RuntimeError):
        writer.save(models.weights(1 << 20), ext, external_data=True, progress=boom)
    assert {p.name: p.read_bytes() for p in ext.parent.iterdir()} == before

    # The second rename (the .ort, the commit point) fails: the .data renamed first goes back.
    real = os.replace
    calls: list[str] = []

    def second_fails(src: Any, dst: Any) -> None:
        calls.append(os.fspath(dst))
        if len(calls) == 2:
            raise OSError("disk gone")
        real(src, dst)

    monkeypatch.setattr(os, "replace", second_fails)
    with pytest.raises(OSError, match="disk gone"):
        writer.save(models.weights(1 << 20), ext, external_data=True)
    monkeypatch.setattr(os, "replace", real)
    assert calls[0].endswith("m.ort.data")
    assert {p.name: p.read_bytes() for p in ext.parent.iterdir()} == before

    # A first pair, where nothing existed: nothing stays behind.
    new = ext.parent / "new.ort"
    calls.clear()
    monkeypatch.setattr(os, "replace", second_fails)
    with pytest.raises(OSError):
        writer.save(models.weights(1 << 20), new, external_data=True)
    monkeypatch.setattr(os, "replace", real)
    assert {p.name for p in ext.parent.iterdir()} == set(before)


def test_durable_pair_fsyncs(tmp_path: Path, fsyncs: list[int]) -> None:
    writer.save(mixed(), tmp_path / "a.ort", external_data=True, durable=False)
    assert fsyncs == []
    writer.save(mixed(), tmp_path / "b.ort", external_data=True)
    assert len(fsyncs) == 3  # both files and their folder
    for suffix in (".ort", ".ort.data"):
        assert (tmp_path / f"a{suffix}").read_bytes() == (tmp_path / f"b{suffix}").read_bytes()


# --- reading ---------------------------------------------------------------------------------


def read_all(om: Any) -> None:
    """Read every tensor's payload: a zero-copy load checks the companion as tensors are read."""
    for _, t in tensor_paths(om):
        _ = t.raw_data


def test_load_views_the_companion(ext: Path) -> None:
    model = mixed()
    with load(ext) as om:
        data = companion_file(om)
        for t in om.graph.initializers:
            src = next(x for x in model.graph.initializer if x.name == t.name)
            if t.external_data_offset >= 0:
                assert not t.raw_data.flags.writeable
                assert data.offset_of(t.raw_data) == t.external_data_offset  # a view, no copy
                assert t.raw_data.tobytes() == src.raw_data
        assert [n for _, n, _, _ in external_offsets(om)] == ["w0", "w1", "w2"]
        assert {n for _, n, _, _ in payload_offsets(om)} <= {"small"}
        copied = load(ext, copy=True, threads=2)
        assert copied.source is None
        for a, b in zip(om.graph.initializers, copied.graph.initializers, strict=True):
            assert a.raw_data.tobytes() == b.raw_data.tobytes()
            assert b.raw_data.flags.owndata or b.raw_data.base is not None


def test_companion_given_explicitly(ext: Path) -> None:
    (ext.parent / "m.ort.data").rename(ext.parent / "weights.bin")
    with pytest.raises(DecodeError, match=r"m\.ort\.data"):
        read_all(load(ext))
    with load(ext, external_data="weights.bin") as om:
        assert om.graph.initializers[0].nbytes
    buf = ext.read_bytes()
    data = (ext.parent / "weights.bin").read_bytes()
    with load(buf, external_data=data) as om:
        assert om.graph.initializers[1].raw_data.tobytes() == mixed().graph.initializer[1].raw_data
    with load(buf, external_data=ext.parent / "weights.bin", copy=True) as om:
        assert om.graph.initializers[2].nbytes
    with pytest.raises(DecodeError, match="external_data=") as info:
        read_all(load(buf))
    assert info.value.path == "$.model.graph.initializers[0].external_data_offset"


def test_missing_short_and_truncated_companions(ext: Path) -> None:
    data_path = ext.parent / "m.ort.data"
    data = data_path.read_bytes()
    offsets = {n: (off, size) for _, n, off, size in external_offsets(load(ext))}
    last_off, last_size = offsets["w2"]
    buf = ext.read_bytes()

    def stored(at: int) -> int:  # the error's offset is that of the field in the .ort
        assert 0 <= at < len(buf)
        return int(np.frombuffer(buf, "<i8", count=1, offset=at)[0])

    for cut in (0, 1, last_off, last_off + last_size - 1):
        data_path.write_bytes(data[:cut])
        with pytest.raises(DecodeError, match="run past its end") as info:
            read_all(load(ext))
        assert stored(info.value.offset) in {off for off, _ in offsets.values()}
        assert info.value.path is not None and info.value.path.endswith("external_data_offset")
    data_path.unlink()
    with pytest.raises(DecodeError, match="cannot be read") as info:
        read_all(load(ext))
    assert stored(info.value.offset) == offsets["w0"][0]
    om = load(ext)  # verified on access: the companion is opened by the first external tensor
    assert om.graph.initializers[3].name == "small"
    with pytest.raises(DecodeError, match="cannot be read") as again:
        load(ext, verify="all")  # the whole file verified: the companion is checked at once
    assert (again.value.offset, again.value.path) == (info.value.offset, info.value.path)
    assert info.value.path == "$.model.graph.initializers[0].external_data_offset"


def test_a_tensor_in_both_places_is_refused(ext: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A tensor with ``raw_data`` and an ``external_data_offset`` (onnxruntime writes one or
    the other) is a DecodeError at the offset's field in every read, ``inspect`` included:
    it listed such a tensor as external and failed on the missing companion (fuzzer)."""
    om = load(ext, copy=True)
    both = om.graph.initializers[0]
    assert both.external_data_offset >= 0 and both.raw_data.shape[0]  # copied in by load
    root = {"ort_version": om.ort_version, "model": om.model, "kernel_type_str_resolver": None}
    buf = bytes(build_bytes(Builder(ORT_SCHEMA), root))  # written as it is, both fields
    bad = ext.parent / "both.ort"
    bad.write_bytes(buf)
    (ext.parent / "both.ort.data").write_bytes((ext.parent / "m.ort.data").read_bytes())
    for source in (bad, buf):
        for options in ({}, {"verify": "all"}, {"copy": True}):
            with pytest.raises(DecodeError, match="both raw_data") as info:
                read_all(load(source, external_data=ext.parent / "m.ort.data", **options))
            assert info.value.path == "$.model.graph.initializers[0].external_data_offset"
            assert field_byte(buf, info.value.path) == info.value.offset
    assert main("inspect", str(bad))[0] == 1
    assert main("convert", str(bad), str(ext.parent / "both.onnx"))[0] == 1
    said = capsys.readouterr().err.splitlines()
    assert len(said) == 2 and all("has both raw_data" in line for line in said)


def test_copies_and_views_raise_the_first_problem_alike(ext: Path) -> None:
    """A missing companion and a damaged table after it: ``copy=True`` raises what a
    zero-copy load raises, the first problem in decode order (found by the fuzzer)."""
    buf = bytearray(ext.read_bytes())
    at = field_byte(bytes(buf), "$.kernel_type_str_resolver.op_kernel_type_str_args[0]")
    table = at + int.from_bytes(buf[at : at + 4], "little")
    buf[table : table + 4] = (-(1 << 30)).to_bytes(4, "little", signed=True)  # its vtable
    (ext.parent / "m.ort.data").unlink()
    for source in (bytes(buf), ext):  # a buffer has no companion; the file's is missing
        errors = []
        for copy in (False, True):
            with pytest.raises(DecodeError, match="external") as info:
                load(source, copy=copy, verify="all")
            errors.append((info.value.offset, info.value.path))
        assert errors[0] == errors[1]
        assert errors[0][1] == "$.model.graph.initializers[0].external_data_offset"


def test_nothing_resolves_outside_the_models_folder(ext: Path, tmp_path: Path) -> None:
    inner = tmp_path / "inner"
    inner.mkdir()
    (inner / "m.ort").write_bytes(ext.read_bytes())
    with pytest.raises(DecodeError, match="outside the model's folder"):
        read_all(load(inner / "m.ort", external_data="../m.ort.data"))
    with pytest.raises(DecodeError, match="outside the model's folder"):
        read_all(load(inner / "m.ort", external_data=tmp_path / "m.ort.data"))
    (inner / "m.ort.data").symlink_to(tmp_path / "m.ort.data")
    with pytest.raises(DecodeError, match="outside the model's folder"):
        read_all(load(inner / "m.ort"))


def test_corrupt_offsets_and_files_end_in_wireplan_errors(ext: Path) -> None:
    """Every byte of the external offsets, and random damage, gives a model or a DecodeError."""
    buf = bytearray(ext.read_bytes())
    data = (ext.parent / "m.ort.data").read_bytes()
    needle = [
        int(off).to_bytes(8, "little")
        for _, _, off, _ in external_offsets(load(bytes(buf), external_data=data))
    ]
    positions = [buf.find(n) for n in needle if n != bytes(8)]
    assert positions
    rng = np.random.default_rng(5)
    for pos in positions:
        for k in range(8):
            for value in (0x00, 0x7F, 0x80, 0xFF):
                bad = bytearray(buf)
                bad[pos + k] = value
                try:
                    with load(bytes(bad), external_data=data) as om:
                        for _, t in tensor_paths(om):
                            t.raw_data.tobytes()
                except DecodeError:
                    pass
    for _ in range(300):
        bad = bytearray(buf)
        for pos in rng.integers(0, len(bad), 4):
            bad[pos] = int(rng.integers(0, 256))
        try:
            with load(bytes(bad), external_data=data) as om:
                for _, t in tensor_paths(om):
                    t.raw_data.tobytes()
        except DecodeError:
            pass


def test_inspect_shows_external_tensors(ext: Path) -> None:
    code, out = main("inspect", str(ext))
    assert code == 0
    assert "external data: 3 tensors" in out
    assert "w0: external at 0 (aligned 4096)" in out


# --- running in onnxruntime ------------------------------------------------------------------


def test_session_runs_through_an_onnx_over_the_same_data(ext: Path) -> None:
    model = mixed()
    feeds = feeds_for(model)
    before = sorted(os.listdir(ext.parent))
    got = list(session(ext).run(None, feeds))
    assert sorted(os.listdir(ext.parent)) == before  # the temporary .onnx is gone
    want = run_onnx(model, feeds)
    assert all(np.array_equal(a, b) for a, b in zip(got, want, strict=True))
    # onnxruntime itself cannot load it: that is why the detour exists (the message differs
    # from release to release; 1.15 loads no format 6 at all).
    with pytest.raises(Exception, match="ONNXRuntimeError"):
        ort.InferenceSession(str(ext), providers=["CPUExecutionProvider"])


def test_session_of_a_subgraph_model(tmp_path: Path) -> None:
    model = models.features()
    writer.save(model, tmp_path / "f.ort", external_data=True, size_threshold=16)
    assert external_offsets(load(tmp_path / "f.ort"))
    for feeds in models.feature_feeds():
        got = session(tmp_path / "f.ort").run(None, feeds)
        want = run_onnx(model, feeds)
        assert all(np.array_equal(a, b) for a, b in zip(got, want, strict=True))


# --- both directions -------------------------------------------------------------------------


def test_ort_to_onnx_links_the_companion(ext: Path) -> None:
    dst = ext.parent / "back.onnx"
    convert_ort_to_onnx(ext, dst, external_data=True)
    assert (ext.parent / "back.onnx.data").stat().st_ino == (
        ext.parent / "m.ort.data"
    ).stat().st_ino
    proto = onnx.load(str(dst), load_external_data=False)
    offsets = {n: off for _, n, off, _ in external_offsets(load(ext))}
    for t in proto.graph.initializer:
        info = {e.key: e.value for e in t.external_data}
        if t.name in offsets:
            assert info["location"] == "back.onnx.data"
            assert int(info["offset"]) == offsets[t.name]
        else:
            assert not info
    feeds = feeds_for(mixed())
    assert all(
        np.array_equal(a, b)
        for a, b in zip(run_onnx(dst, feeds), run_onnx(mixed(), feeds), strict=True)
    )


def test_round_trips_keep_every_byte(tmp_path: Path) -> None:
    """.onnx (external) -> .ort (external) -> .onnx (external) -> .ort: the same tensors."""
    src = tmp_path / "src.onnx"
    onnx.save(
        mixed(), str(src), save_as_external_data=True, location="src.onnx.data", size_threshold=0
    )
    writer.convert_onnx_to_ort(src, tmp_path / "a.ort", external_data=True, alignment=4096)
    convert_ort_to_onnx(tmp_path / "a.ort", tmp_path / "b.onnx", external_data=True)
    writer.convert_onnx_to_ort(
        tmp_path / "b.onnx", tmp_path / "c.ort", external_data=True, alignment=4096, reuse_data=True
    )

    def values(arrays: Any) -> dict[str, Any]:
        return {name: a.tolist() if a.dtype == object else a.tobytes() for name, a in arrays}

    want = values(
        (t.name, onnx.numpy_helper.to_array(t, str(tmp_path)))
        for t in onnx.load(str(src)).graph.initializer
    )
    for name in ("a.ort", "c.ort"):
        with load(tmp_path / name) as om:
            assert values((t.name, t.numpy()) for t in om.graph.initializers) == want
            again = to_onnx(om)
            assert (
                values((t.name, onnx.numpy_helper.to_array(t)) for t in again.graph.initializer)
                == want
            )
    with from_onnx(tmp_path / "b.onnx") as om:
        assert values((t.name, t.numpy()) for t in om.graph.initializers) == want
    assert (tmp_path / "c.ort").read_bytes() == (tmp_path / "a.ort").read_bytes()


def test_reuse_data_links_an_aligned_source(tmp_path: Path) -> None:
    inline = tmp_path / "in.ort"
    writer.save(mixed(), inline)
    convert_ort_to_onnx(inline, tmp_path / "src.onnx", external_data=True, alignment=4096)
    code, _ = main(
        "convert",
        str(tmp_path / "src.onnx"),
        str(tmp_path / "r.ort"),
        "--external-data",
        "--reuse-data",
        "--alignment",
        "4096",
        "--no-fsync",
        "--optimization",
        "none",
    )
    assert code == 0
    assert (tmp_path / "r.ort.data").stat().st_ino == (tmp_path / "src.onnx.data").stat().st_ino
    proto = onnx.load(str(tmp_path / "src.onnx"), load_external_data=False)
    where = {
        t.name: int(next(e.value for e in t.external_data if e.key == "offset"))
        for t in proto.graph.initializer
        if t.external_data
    }
    seen = oracle_tensors((tmp_path / "r.ort").read_bytes())
    assert {n: seen[n][0] for n in where} == where
    feeds = feeds_for(mixed())
    got = session(tmp_path / "r.ort").run(None, feeds)
    assert all(np.array_equal(a, b) for a, b in zip(got, run_onnx(mixed(), feeds), strict=True))
    # Offsets that are not multiples of the alignment asked for: a clear error, nothing written.
    with pytest.raises(EncodeError, match="not a multiple of the alignment 65536") as info:
        writer.convert_onnx_to_ort(
            tmp_path / "src.onnx",
            tmp_path / "x.ort",
            external_data=True,
            alignment=65536,
            reuse_data=True,
        )
    assert info.value.path is not None and "initializers[" in info.value.path
    assert not (tmp_path / "x.ort").exists() and not (tmp_path / "x.ort.data").exists()
    with load(inline) as om, pytest.raises(ArgumentError, match="one file"):
        writer.save(om, tmp_path / "y.ort", external_data=True, reuse_data=True)


def test_cli_external_data(tmp_path: Path) -> None:
    src = tmp_path / "m.onnx"
    onnx.save(mixed(), str(src))
    code, _ = main(
        "convert",
        str(src),
        str(tmp_path / "m.ort"),
        "--external-data",
        "--size-threshold",
        "64",
        "--alignment",
        "4096",
        "--optimization",
        "none",  # the initializers as the .onnx has them (not constant-folded)
    )
    assert code == 0
    seen = oracle_tensors((tmp_path / "m.ort").read_bytes())
    assert seen["small"] == (-1, 16) and seen["w0"][0] == 0
    code, _ = main("convert", str(tmp_path / "m.ort"), str(tmp_path / "n.ort"), "--external-data")
    assert code == 0
    with load(tmp_path / "m.ort") as a, load(tmp_path / "n.ort") as b:
        assert [t.raw_data.tobytes() for t in a.graph.initializers] == [
            t.raw_data.tobytes() for t in b.graph.initializers
        ]
        assert [n for _, n, _, _ in external_offsets(b)] == ["w0", "w1", "w2", "labels"][:3]
    code, _ = main("convert", str(src), str(tmp_path / "o.ort"), "--size-threshold", "64")
    assert code != 0 and not (tmp_path / "o.ort").exists()
