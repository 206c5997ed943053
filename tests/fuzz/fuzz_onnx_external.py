"""Fuzz harness: .onnx external-data entries and data files, converted to .ort.

Each input describes one initializer ``W`` stored outside an .onnx file, and
the data file itself::

    byte 0          data type (an index into TYPES)
    byte 1          rank (mod 5), then one byte per dimension
    key=value\\n     external-data entries (location, offset, length, ...), as many as given
    \\n              end of the entries
    ...             the data file ``w.bin``

The harness writes ``m.onnx`` (``Y = Identity(W)``) and ``w.bin`` into its
temporary folder and converts it with ``convert_onnx_to_ort``.  Beyond "only
wireplan errors escape": an .ort the writer wrote loads, its tensor has the
size its shape needs, and onnxruntime opens it (for the types Identity runs).
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path
from typing import Any

import wireplan
from wireplan.ort import load
from wireplan.ort.writer import convert_onnx_to_ort

MAX_LEN = 4096
#: Data types the input picks from (byte 0): ONNX codes, UNDEFINED and int4 included.
TYPES = (1, 2, 7, 10, 16, 8, 11, 9, 17, 22, 0, 3, 5, 12, 13, 14)
#: Types onnxruntime's Identity-16 runs: an .ort with one of them must open.
RUNNABLE = {1, 2, 3, 5, 7, 8, 9, 10, 11, 12, 13, 16}
_state: dict[str, Any] = {}


def setup() -> None:
    folder = tempfile.mkdtemp(prefix="wireplan-fuzz-onnx-external-")
    atexit.register(shutil.rmtree, folder, True)
    _state["dir"] = Path(folder)
    import onnx
    import onnxruntime

    _state["onnx"] = onnx
    _state["ort"] = onnxruntime


def _parse(data: bytes) -> tuple[int, list[int], list[tuple[str, str]], bytes]:
    if len(data) < 2:
        return 1, [], [], b""
    data_type = TYPES[data[0] % len(TYPES)]
    rank = data[1] % 5
    dims = list(data[2 : 2 + rank])
    rest = data[2 + rank :]
    head, _, payload = rest.partition(b"\n\n")
    entries = []
    for line in head.split(b"\n"):
        key, _, value = line.partition(b"=")
        entries.append((key.decode("utf-8", "replace"), value.decode("utf-8", "replace")))
    return data_type, dims, entries, payload


def _write(folder: Path, data_type: int, dims: list[int], entries: list[tuple[str, str]]) -> Path:
    onnx = _state["onnx"]
    h = onnx.helper
    w = onnx.TensorProto()
    w.name = "W"
    w.data_type = data_type
    w.dims.extend(dims)
    w.data_location = onnx.TensorProto.EXTERNAL
    for key, value in entries:
        e = w.external_data.add()
        e.key, e.value = key, value
    graph = h.make_graph(
        [h.make_node("Identity", ["W"], ["Y"])],
        "g",
        [],
        [h.make_tensor_value_info("Y", data_type, dims)],
        [w],
    )
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])
    model.ir_version = 8
    path = folder / "m.onnx"
    path.write_bytes(model.SerializeToString())
    return path


def seeds() -> dict[str, bytes]:
    f4 = bytes(range(24))
    return {
        "float-2x3": b"\x00\x02\x02\x03location=w.bin\noffset=0\nlength=24\n\n" + f4,
        "float-offset": b"\x00\x01\x04location=w.bin\noffset=8\nlength=16\n\n" + f4,
        "int64-no-length": b"\x02\x01\x02location=w.bin\n\n" + bytes(16),
        "uint8-checksum": b"\x01\x01\x05location=w.bin\nlength=5\nchecksum=abc\n\n" + b"hello",
        "bfloat16-scalar": b"\x04\x00location=w.bin\noffset=2\n\n" + bytes(4),
        "string": b"\x05\x01\x01location=w.bin\n\n" + b"x",
        "escape": b"\x00\x01\x01location=../w.bin\n\n" + bytes(4),
    }


def TestOneInput(data: bytes) -> None:
    folder: Path = _state["dir"]
    data_type, dims, entries, payload = _parse(data)
    src = _write(folder, data_type, dims, entries)
    (folder / "w.bin").write_bytes(payload)
    dst = folder / "m.ort"
    dst.unlink(missing_ok=True)
    try:
        convert_onnx_to_ort(src, dst, durable=False)
    except wireplan.WireplanError:
        assert not dst.exists(), "a refused conversion left an .ort behind"
        return
    try:
        with load(dst) as om:
            (w,) = om.graph.initializers
            arr = w.numpy()
            assert list(arr.shape) == dims, (arr.shape, dims)
    except wireplan.DecodeError as exc:
        raise AssertionError(f"the writer wrote an .ort load refuses: {exc!r}") from exc
    if data_type in RUNNABLE:
        ort = _state["ort"]
        so = ort.SessionOptions()
        so.log_severity_level = 4
        ort.InferenceSession(str(dst), so, providers=["CPUExecutionProvider"])
