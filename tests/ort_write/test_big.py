"""Past 2 GiB for real: a 2.4 GB .onnx (dense external data) to .ort + .ort.data and back.

Every byte of the weights is random data, so the operating system reads and
writes all of it and counts every page a conversion maps: each conversion
runs in a fresh interpreter whose peak RSS (``VmHWM``) must stay under 1 GiB.
About a minute here, most of it writing gigabytes; marked ``big`` (CI runs
it; ``-m "not big"`` leaves it out while developing).  The timing against a
plain copy is in ``benchmarks/bench_ort_external.py``; nothing here asserts
time.
"""

from __future__ import annotations

import os
import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnx.helper as h
import onnxruntime as ort
import pytest

from ort_write import big, peer
from wireplan import ArgumentError, EncodeError
from wireplan.core.buffers import MappedFile
from wireplan.ort import convert, load, writer
from wireplan.ort.onnx.read import from_onnx
from wireplan.ort.reader import companion_file, external_offsets
from wireplan.ort.sessions import session

pytestmark = pytest.mark.big

GiB = 1 << 30
OFF = ort.GraphOptimizationLevel.ORT_DISABLE_ALL


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    path = tmp_path_factory.mktemp("big")
    try:
        yield path
    finally:  # pytest keeps old temporary folders: do not leave gigabytes in them
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="module")
def model(folder: Path) -> tuple[Path, dict[str, Any]]:
    """big.onnx + big.onnx.data (2.4 GB, dense) and its feeds; each test removes its outputs."""
    return big.make(folder, dense=True)


def run(path: Path, feeds: dict[str, Any]) -> list[Any]:
    opts = ort.SessionOptions()
    opts.graph_optimization_level = OFF
    return list(
        ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"]).run(None, feeds)
    )


def same(a: list[Any], b: list[Any]) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def left(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def mib(n: int) -> str:
    return f"peak RSS {n / 2**20:.0f} MiB"


def test_a_24_gb_model_converts_runs_and_comes_back(
    folder: Path, model: tuple[Path, dict[str, Any]]
) -> None:
    src, feeds = model
    nbytes = big.ROWS * big.COLS * 4
    assert os.path.getsize(folder / "big.onnx.data") > 2.3e9

    # Without external data: refused before anything is written.
    with pytest.raises(EncodeError, match=r"2 GiB.*external_data=True"):
        writer.convert_onnx_to_ort(src, folder / "inline.ort", durable=False)
    assert not (folder / "inline.ort").exists()

    dst = folder / "big.ort"
    rss, _ = big.convert_in_subprocess(src, dst)
    assert rss < GiB, mib(rss)
    assert dst.stat().st_size < 1 << 20

    # The layout, read with onnxruntime's own generated classes: every weight (and the
    # head's, 256 kB) at a multiple of 4096 of the companion; the head's bias inline.
    g = peer.root_of(dst.read_bytes()).Model().Graph()
    with from_onnx(src) as source, MappedFile(folder / "big.ort.data") as data:
        want = {t.name: t.raw_data for t in source.graph.initializers}
        out = np.frombuffer(data.buffer, np.uint8)
        assert g.InitializersLength() == big.TENSORS + 2
        for i in range(g.InitializersLength()):
            t = g.Initializers(i)
            name = t.Name().decode()
            off = peer.external_data_offset(t)
            if name == "head_b":
                assert off < 0 and t.RawDataAsNumpy().tobytes() == want[name].tobytes()
                continue
            assert t.RawDataLength() == 0
            assert off % 4096 == 0
            n = want[name].shape[0]
            assert n == nbytes or name == "head_t"
            assert big.same_bytes(out[off : off + n], want[name])
        del out

    # Zero-copy load: the tensors view the mapped companion.
    with load(dst) as om:
        companion = companion_file(om)
        assert companion is not None
        for t in om.graph.initializers:
            if t.external_data_offset >= 0:
                assert companion.offset_of(t.raw_data) == t.external_data_offset
        assert len(external_offsets(om)) == big.TENSORS + 1

    # Run: session() over the same data file, against onnxruntime on the source .onnx.
    want_out = run(src, feeds)
    assert np.abs(want_out[0]).sum() > 0
    assert same(session(dst, graph_optimization_level=OFF).run(None, feeds), want_out)

    # Back to a runnable .onnx, its data file a link to the companion (no copy).
    back = folder / "back.onnx"
    rss, _ = big.convert_in_subprocess(dst, back, route="ort-onnx")
    assert rss < GiB, mib(rss)
    assert (folder / "back.onnx.data").stat().st_ino == (folder / "big.ort.data").stat().st_ino
    assert same(run(back, feeds), want_out)
    for f in ("back.onnx", "back.onnx.data", "big.ort", "big.ort.data"):
        (folder / f).unlink()
    assert left(folder) == ["big.onnx", "big.onnx.data"]


def onnxruntimes_optimized(src: Path, dst: Path) -> None:
    """The .onnx onnxruntime saves after optimizing ``src`` with its converter's settings
    (level all, NchwcTransformer off, no QDQ int8), initializers of 1 KiB or more in
    ``<dst>.data``."""
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.optimized_model_filepath = str(dst)
    opts.log_severity_level = 3
    for key, value in (
        ("session.qdqisint8allowed", "0"),
        ("session.optimized_model_external_initializers_file_name", dst.name + ".data"),
        ("session.optimized_model_external_initializers_min_size_in_bytes", "1024"),
    ):
        opts.add_session_config_entry(key, value)
    ort.InferenceSession(
        str(src), opts, providers=["CPUExecutionProvider"], disabled_optimizers=["NchwcTransformer"]
    )


def nodes_of(nodes: list[tuple[str, str, str, Any, Any]]) -> Counter[tuple[Any, ...]]:
    """``(name, domain, op_type, inputs, outputs)`` of a graph's nodes as a multiset."""
    return Counter((a, b, c, tuple(i), tuple(o)) for a, b, c, i, o in nodes)


def test_optimized_past_2_gib(folder: Path, model: tuple[Path, dict[str, Any]]) -> None:
    """The fixed style (the default of convert) past what onnxruntime writes as .ort: through
    an optimized .onnx with external initializers.  The Transpose is folded and MatMul + Add
    fused into Gemm; the .ort holds the graph onnxruntime saves and runs as it does."""
    src, feeds = model
    opt = folder / "opt.ort"
    try:
        rss, _ = big.convert_in_subprocess(src, opt, route="optimized")
    except big.ConversionFailed as exc:  # 1.15.1 keeps the source's external references
        assert peer.RELEASE < (1, 20), exc.stderr
        assert "PeerError" in exc.stderr
        assert "does not save an optimized model's weights" in exc.stderr
        assert left(folder) == ["big.onnx", "big.onnx.data"]
        return
    assert rss < GiB, mib(rss)

    ref = folder / "ref.onnx"
    onnxruntimes_optimized(src, ref)
    source = onnx.load(str(src), load_external_data=False)
    theirs = onnx.load(str(ref), load_external_data=False)
    with load(opt) as om:
        assert Counter(n.op_type for n in source.graph.node) == big.SOURCE_OPS
        assert Counter(n.op_type for n in om.graph.nodes) == big.OPTIMIZED_OPS
        ours = [(n.name, n.domain, n.op_type, n.inputs, n.outputs) for n in om.graph.nodes]
        onnxruntimes = [(n.name, n.domain, n.op_type, n.input, n.output) for n in theirs.graph.node]
        assert nodes_of(ours) == nodes_of(onnxruntimes)
        names = {t.name for t in om.graph.initializers}
        assert names == {t.name for t in theirs.graph.initializer}
        assert "head_t" not in names  # folded into a new, transposed initializer
    want = run(ref, feeds)
    assert np.abs(want[1]).sum() > 0
    assert same(session(opt, graph_optimization_level=OFF).run(None, feeds), want)
    for f in ("ref.onnx", "ref.onnx.data"):
        (folder / f).unlink()

    # the runtime style has no route past 2 GiB: said before anything is written
    with pytest.raises(ArgumentError, match="cannot pass 2 GiB"):
        convert(src, folder / "r.ort", optimization="runtime", external_data=True)
    assert left(folder) == ["big.onnx", "big.onnx.data", "opt.ort", "opt.ort.data"]
    for f in ("opt.ort", "opt.ort.data"):
        (folder / f).unlink()


@pytest.fixture(scope="module")
def half_onnx(folder: Path, model: tuple[Path, dict[str, Any]]) -> Iterator[Path]:
    """An .onnx of 1.2 GB (half of the weights, ``y`` only) over the first weights of
    big.onnx.data: no byte copied."""
    src, _ = model
    m = onnx.load(str(src), load_external_data=False)
    half = big.TENSORS // 2
    nodes = [h.make_node("Gather", [f"w{i}", "idx"], [f"g{i}"]) for i in range(half)]
    nodes.append(h.make_node("Sum", [f"g{i}" for i in range(half)], ["y"]))
    graph = h.make_graph(
        nodes, "half", list(m.graph.input), [m.graph.output[0]], list(m.graph.initializer[:half])
    )
    part = folder / "half.onnx"
    onnx.save(h.make_model(graph, opset_imports=list(m.opset_import), ir_version=8), str(part))
    yield part
    part.unlink()


@pytest.fixture(scope="module")
def inline_ort(folder: Path, half_onnx: Path) -> Iterator[Path]:
    """An .ort of 1.2 GB without external data: .ort -> .onnx with external data then has
    no companion to link and writes every payload."""
    dst = folder / "half.ort"
    writer.convert_onnx_to_ort(half_onnx, dst, durable=False)
    assert dst.stat().st_size > 1.1e9
    yield dst
    dst.unlink()


def test_optimized_between_half_and_one_and_a_half_gib(
    folder: Path, model: tuple[Path, dict[str, Any]], half_onnx: Path
) -> None:
    """1.2 GB, where onnxruntime would build its .ort in memory (1.8 GiB peak RSS): from
    1.20 on, the fixed style takes the external route and stays under 1 GiB."""
    _, feeds = model
    dst = folder / "half-opt.ort"
    try:
        rss, _ = big.convert_in_subprocess(half_onnx, dst, route="optimized")
        if peer.RELEASE >= (1, 20):
            assert rss < GiB, mib(rss)
        assert same(
            session(dst, graph_optimization_level=OFF).run(None, feeds), run(half_onnx, feeds)
        )
    finally:
        for f in ("half-opt.ort", "half-opt.ort.data"):
            (folder / f).unlink(missing_ok=True)


@pytest.mark.parametrize("threads", [2, None], ids=["threads=2", "serial"])
def test_an_ort_without_companion_to_onnx_with_external_data(
    folder: Path, inline_ort: Path, threads: int | None
) -> None:
    back = folder / "back.onnx"
    try:
        rss, _ = big.convert_in_subprocess(inline_ort, back, threads, route="ort-onnx")
        assert os.stat(folder / "back.onnx.data").st_nlink == 1
        with load(inline_ort) as a, from_onnx(back) as b:
            theirs = {t.name: t.raw_data for t in b.graph.initializers}
            for t in a.graph.initializers:
                assert big.same_bytes(t.raw_data, theirs[t.name])
        assert rss < GiB, mib(rss)
    finally:
        for f in ("back.onnx", "back.onnx.data"):
            (folder / f).unlink(missing_ok=True)
