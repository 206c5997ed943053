"""Hostile external-data entries in .onnx sources: wireplan errors, no hang, no bad .ort."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import onnx
import onnx.helper
import onnx.numpy_helper
import onnxruntime as ort
import pytest

from wireplan import EncodeError, WireplanError
from wireplan.ort.onnx.read import from_onnx
from wireplan.ort.writer import convert_onnx_to_ort

from .peer import FORMAT_VERSION

WEIGHTS = np.arange(6, dtype=np.float32).reshape(2, 3)


def _model(folder: Path, entries: dict[str, str], data: bytes | None = WEIGHTS.tobytes()) -> Path:
    """``Y = X + W`` with ``W`` (float32 [2, 3]) stored outside, as ``entries`` say."""
    w = onnx.numpy_helper.from_array(WEIGHTS, "W")
    w.ClearField("raw_data")
    w.data_location = onnx.TensorProto.EXTERNAL
    for key, value in entries.items():
        e = w.external_data.add()
        e.key, e.value = key, value
    graph = onnx.helper.make_graph(
        [onnx.helper.make_node("Add", ["X", "W"], ["Y"])],
        "g",
        [onnx.helper.make_tensor_value_info("X", onnx.TensorProto.FLOAT, [2, 3])],
        [onnx.helper.make_tensor_value_info("Y", onnx.TensorProto.FLOAT, [2, 3])],
        [w],
    )
    model = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 17)])
    model.ir_version = 8
    path = folder / "m.onnx"
    path.write_bytes(model.SerializeToString())
    if data is not None:
        (folder / "w.bin").write_bytes(data)
    return path


def _convert(src: Path) -> Path:
    dst = src.with_suffix(".ort")
    convert_onnx_to_ort(src, dst, durable=False, format_version=FORMAT_VERSION)
    return dst


def test_well_formed_entries_convert_and_run(tmp_path: Path) -> None:
    src = _model(tmp_path, {"location": "w.bin", "offset": "0", "length": "24"})
    dst = _convert(src)
    x = np.ones((2, 3), np.float32)
    got = ort.InferenceSession(str(dst), providers=["CPUExecutionProvider"]).run(None, {"X": x})
    assert np.array_equal(got[0], x + WEIGHTS)


@pytest.mark.parametrize(
    ("entries", "match"),
    [
        ({"location": "w\0.bin"}, "not a file name"),
        ({"location": "w.bin", "offset": "abc"}, "offset 'abc'"),
        ({"location": "w.bin", "offset": "-4"}, "offset '-4'"),
        ({"location": "w.bin", "length": "2.5"}, "length '2.5'"),
        ({"location": "w.bin", "offset": "9" * 5000}, "at most 20 digits"),
        ({"location": "w.bin", "length": "20"}, "'W' has length 20, but .* takes 24 bytes"),
        ({"location": "w.bin", "length": "28"}, "'W' has length 28"),
        ({"location": "w.bin", "offset": "8"}, r"'W': data \[8, 32\) lies outside"),
    ],
)
def test_bad_entries_are_encode_errors(tmp_path: Path, entries: dict[str, str], match: str) -> None:
    src = _model(tmp_path, entries)
    with pytest.raises(EncodeError, match=match) as info:
        _convert(src)
    assert info.value.path.startswith("$.graph")
    assert not src.with_suffix(".ort").exists()


def test_a_file_shorter_than_the_tensor_without_length(tmp_path: Path) -> None:
    src = _model(tmp_path, {"location": "w.bin"}, WEIGHTS.tobytes()[:20])
    with pytest.raises(EncodeError, match=r"'W': data \[0, 24\) lies outside 'w.bin' \(20 bytes"):
        _convert(src)


def test_a_longer_file_without_length_gives_the_tensor_its_bytes(tmp_path: Path) -> None:
    src = _model(tmp_path, {"location": "w.bin"}, WEIGHTS.tobytes() + b"trailing")
    with from_onnx(src) as om:
        assert np.array_equal(om.graph.initializers[0].numpy(), WEIGHTS)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_as_data_file_is_refused_without_hanging(tmp_path: Path) -> None:
    src = _model(tmp_path, {"location": "w.bin", "length": "24"}, data=None)
    os.mkfifo(tmp_path / "w.bin")
    # In a child: a regression would hang there, and the timeout ends it.
    script = textwrap.dedent(
        """
        import sys
        from wireplan import EncodeError
        from wireplan.ort.writer import convert_onnx_to_ort
        try:
            convert_onnx_to_ort(sys.argv[1], sys.argv[2], durable=False)
        except EncodeError as e:
            print(e)
        """
    )
    src_dir = str(Path(__file__).resolve().parents[2] / "src")
    env = {**os.environ, "PYTHONPATH": src_dir + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run(
        [sys.executable, "-c", script, str(src), str(tmp_path / "m.ort")],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=True,
    )
    assert "not a regular file" in done.stdout and "'w.bin'" in done.stdout


def test_a_folder_as_data_file_is_refused(tmp_path: Path) -> None:
    src = _model(tmp_path, {"location": "w.bin", "length": "24"}, data=None)
    (tmp_path / "w.bin").mkdir()
    with pytest.raises(WireplanError, match="not a regular file"):
        _convert(src)
