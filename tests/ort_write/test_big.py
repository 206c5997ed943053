"""Past 2 GiB for real: a 2.4 GB .onnx (sparse external data) to .ort + .ort.data and back.

About 30 s here, most of it writing 2.4 GB; marked ``big`` (CI runs it; ``-m "not big"``
leaves it out while developing).  The timing against a plain copy is in
``benchmarks/bench_ort_external.py``; nothing here asserts time.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime as ort
import pytest

from ort_write import big, peer
from wireplan import ArgumentError, EncodeError, PeerError
from wireplan.core.buffers import MappedFile
from wireplan.ort import load, writer
from wireplan.ort.onnx.read import from_onnx
from wireplan.ort.onnx.save import convert_ort_to_onnx
from wireplan.ort.reader import external_offsets
from wireplan.ort.sessions import session

pytestmark = pytest.mark.big


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    path = tmp_path_factory.mktemp("big")
    try:
        yield path
    finally:  # pytest keeps old temporary folders: do not leave gigabytes in them
        shutil.rmtree(path, ignore_errors=True)


def run(path: Path, feeds: dict[str, Any]) -> list[Any]:
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return list(
        ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"]).run(None, feeds)
    )


def test_a_24_gb_model_converts_runs_and_comes_back(folder: Path) -> None:
    src, feeds = big.make(folder)
    nbytes = big.ROWS * big.COLS * 4
    assert os.path.getsize(folder / "big.onnx.data") > 2.3e9

    # Without external data: refused before anything is written.
    with pytest.raises(EncodeError, match=r"2 GiB.*external_data=True"):
        writer.convert_onnx_to_ort(src, folder / "inline.ort", durable=False)
    assert not (folder / "inline.ort").exists()

    dst = folder / "big.ort"
    rss, _ = big.convert_in_subprocess(src, dst)
    assert rss < 1 << 30, f"peak RSS {rss / 2**20:.0f} MiB"
    assert dst.stat().st_size < 1 << 20

    # The layout, read with onnxruntime's own generated classes.
    g = peer.root_of(dst.read_bytes()).Model().Graph()
    with from_onnx(src) as source, MappedFile(folder / "big.ort.data") as data:
        want = {t.name: t.raw_data for t in source.graph.initializers}
        out = np.frombuffer(data.buffer, np.uint8)
        assert g.InitializersLength() == big.TENSORS
        for i in range(g.InitializersLength()):
            t = g.Initializers(i)
            off = peer.external_data_offset(t)
            assert t.RawDataLength() == 0
            assert off % 4096 == 0
            assert big.same_bytes(out[off : off + nbytes], want[t.Name().decode()])
        del out

    # Zero-copy load: the tensors view the mapped companion.
    with load(dst) as om:
        companion = om.source.companion
        for t in om.graph.initializers:
            assert companion.offset_of(t.raw_data) == t.external_data_offset
        assert len(external_offsets(om)) == big.TENSORS

    # Run: session() over the same data file, against onnxruntime on the source .onnx.
    want_out = run(src, feeds)
    assert np.abs(want_out[0]).sum() > 0
    got = session(dst, graph_optimization_level=ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
    assert all(np.array_equal(a, b) for a, b in zip(got.run(None, feeds), want_out, strict=True))
    del got

    # Back to a runnable .onnx, its data file a link to the companion (no copy).
    back = folder / "back.onnx"
    convert_ort_to_onnx(dst, back, external_data=True, durable=False)
    assert (folder / "back.onnx.data").stat().st_ino == (folder / "big.ort.data").stat().st_ino
    assert all(np.array_equal(a, b) for a, b in zip(run(back, feeds), want_out, strict=True))
    for f in ("back.onnx", "back.onnx.data", "big.ort", "big.ort.data"):
        (folder / f).unlink()

    # Optimized (the default of convert): past what onnxruntime writes as .ort, through an
    # optimized .onnx with external initializers; runs as onnxruntime runs the source.
    from wireplan.ort import convert

    opt = folder / "opt.ort"
    try:
        convert(src, opt, external_data=True, alignment=4096, durable=False)
    except PeerError as exc:  # 1.15.1 keeps the source's external references instead
        assert peer.RELEASE < (1, 20) and "does not save an optimized model's weights" in str(exc)
        assert sorted(p.name for p in folder.iterdir()) == ["big.onnx", "big.onnx.data"]
        return
    got = session(opt, graph_optimization_level=ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
    assert all(np.array_equal(a, b) for a, b in zip(got.run(None, feeds), want_out, strict=True))
    del got
    # the runtime style has no route past 2 GiB: said before anything is written
    with pytest.raises(ArgumentError, match="cannot pass 2 GiB"):
        convert(src, folder / "r.ort", optimization="runtime", external_data=True)
    assert sorted(p.name for p in folder.iterdir()) == [
        "big.onnx", "big.onnx.data", "opt.ort", "opt.ort.data"
    ]  # fmt: skip
