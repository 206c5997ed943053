"""``durable=False`` / ``--no-fsync`` reaches the file write and changes no byte of the output."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import onnx
import pytest

import wireplan.ort
from wireplan.cli import main
from wireplan.ort import encoder, writer
from wireplan.ort.onnx.save import convert_ort_to_onnx

from . import models


@pytest.fixture
def src(tmp_path: Path) -> Path:
    """A small .onnx with external data (payloads copied from a mapping)."""
    path = tmp_path / "m.onnx"
    onnx.save(
        models.weights(1 << 16, tensors=3),
        os.fspath(path),
        save_as_external_data=True,
        all_tensors_to_one_file=True,
        location="m.onnx.data",
        size_threshold=0,
    )
    return path


def test_save_durable_flag(src: Path, tmp_path: Path, fsyncs: list[int]) -> None:
    expected = bytes(writer.to_bytes(src))
    writer.save(src, tmp_path / "a.ort", durable=False, threads=2)
    assert fsyncs == []
    writer.save(src, tmp_path / "b.ort", threads=2)
    assert len(fsyncs) == 2  # the file and its folder
    assert (tmp_path / "a.ort").read_bytes() == expected
    assert (tmp_path / "b.ort").read_bytes() == expected


def test_convert_durable_flag(src: Path, tmp_path: Path, fsyncs: list[int]) -> None:
    writer.convert_onnx_to_ort(src, tmp_path / "a.ort", alignment=4096, durable=False)
    none = {"optimization": "none"}  # the writer's graph, as convert_onnx_to_ort writes it
    wireplan.ort.convert(src, tmp_path / "b.ort", alignment=4096, durable=False, **none)
    assert fsyncs == []
    wireplan.ort.convert(src, tmp_path / "c.ort", alignment=4096, **none)
    assert len(fsyncs) == 2
    data = (tmp_path / "c.ort").read_bytes()
    assert (tmp_path / "a.ort").read_bytes() == data
    assert (tmp_path / "b.ort").read_bytes() == data


@pytest.mark.parametrize("external", [False, True])
@pytest.mark.parametrize("threads", [None, 2])
def test_ort_to_onnx_durable_flag(
    src: Path, tmp_path: Path, fsyncs: list[int], external: bool, threads: int | None
) -> None:
    ort_path = tmp_path / "m.ort"
    writer.save(src, ort_path, durable=False)
    assert fsyncs == []
    options: dict[str, Any] = {"external_data": external, "threads": threads}
    wireplan.ort.convert(ort_path, tmp_path / "a.onnx", durable=False, **options)
    assert fsyncs == []
    convert_ort_to_onnx(ort_path, tmp_path / "b.onnx", **options)
    assert len(fsyncs) == (4 if external else 2)  # (.data and) .onnx, each with its folder
    a = tmp_path / "a.onnx"
    b = tmp_path / "b.onnx"
    if external:
        assert (tmp_path / "a.onnx.data").read_bytes() == (tmp_path / "b.onnx.data").read_bytes()
        # The .onnx names its own .data file; otherwise the same message.
        assert a.read_bytes().replace(b"a.onnx.data", b"b.onnx.data") == b.read_bytes()
    else:
        assert a.read_bytes() == b.read_bytes()


def test_cli_no_fsync(src: Path, tmp_path: Path, fsyncs: list[int]) -> None:
    none = ["--optimization", "none"]  # the writer's graph, as to_bytes writes it
    assert main(["convert", str(src), str(tmp_path / "a.ort"), "--no-fsync", *none]) == 0
    assert main(["convert", str(tmp_path / "a.ort"), str(tmp_path / "a.onnx"), "--no-fsync"]) == 0
    assert fsyncs == []
    assert main(["convert", str(src), str(tmp_path / "b.ort"), *none]) == 0
    assert len(fsyncs) == 2
    assert (tmp_path / "a.ort").read_bytes() == (tmp_path / "b.ort").read_bytes()
    assert (tmp_path / "a.ort").read_bytes() == bytes(writer.to_bytes(src))
    reloaded = onnx.load(os.fspath(tmp_path / "a.onnx"))
    assert len(reloaded.graph.initializer) == 3


def test_not_durable_failure_keeps_old_file(
    tmp_path: Path, fsyncs: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failure while the payloads are copied leaves the previous .ort, and no temporary file."""
    target = tmp_path / "m.ort"
    target.write_bytes(b"precious")

    def boom(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(encoder, "fill", boom)
    with pytest.raises(KeyboardInterrupt):
        writer.save(models.weights(4096, tensors=2), target, durable=False)
    assert target.read_bytes() == b"precious"
    assert [p.name for p in tmp_path.iterdir()] == ["m.ort"]
    assert fsyncs == []
