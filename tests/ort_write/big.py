"""A model past 2 GiB whose .onnx keeps its weights in a sparse external data file.

The data file is mostly holes (cheap on disk, read as zeros); a few rows of
each weight and a few scattered pages hold random bytes, so a copy that
misplaces anything is caught.  Used by ``test_big.py`` and
``benchmarks/bench_ort_external.py``.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnx.helper as h

#: Weights of the default model: 6 x 100_000 x 1000 float32 = 2.4 GB.
TENSORS, ROWS, COLS = 6, 100_000, 1000


def make(
    folder: Path,
    *,
    tensors: int = TENSORS,
    rows: int = ROWS,
    cols: int = COLS,
    seed: int = 0,
) -> tuple[Path, dict[str, Any]]:
    """Write ``big.onnx`` + ``big.onnx.data`` into ``folder``; returns the path and the feeds.

    ``y = Gather(w0, idx) + Gather(w1, idx) + ...``: running it touches a few
    rows only.  Each weight starts at an offset that is *not* a multiple of
    4096 (100 bytes past one), so a writer asked for 4096 must lay them out
    again.
    """
    rng = np.random.default_rng(seed)
    nbytes = rows * cols * 4
    data_path = folder / "big.onnx.data"
    picked = np.array(sorted({0, 1, rows // 3, rows // 2, rows - 1, *rng.integers(0, rows, 3)}))
    inits = []
    offsets = []
    with open(data_path, "wb") as f:
        pos = 0
        for i in range(tensors):
            off = (pos + 4095) // 4096 * 4096 + 100
            offsets.append(off)
            for r in picked:
                f.seek(off + int(r) * cols * 4)
                f.write(rng.standard_normal(cols).astype(np.float32).tobytes())
            for page in rng.integers(0, nbytes // 4096, 4):
                f.seek(off + int(page) * 4096)
                f.write(rng.integers(0, 1 << 20, 1024, dtype=np.int32).astype(np.float32).tobytes())
            t = onnx.TensorProto()
            t.name = f"w{i}"
            t.data_type = onnx.TensorProto.FLOAT
            t.dims.extend([rows, cols])
            t.data_location = onnx.TensorProto.EXTERNAL
            for key, value in (("location", data_path.name), ("offset", off), ("length", nbytes)):
                e = t.external_data.add()
                e.key, e.value = key, str(value)
            inits.append(t)
            pos = off + nbytes
        f.truncate(pos)
    nodes = []
    prev = ""
    for i in range(tensors):
        nodes.append(h.make_node("Gather", [f"w{i}", "idx"], [f"g{i}"], axis=0))
        if prev:
            out = "y" if i == tensors - 1 else f"s{i}"
            nodes.append(h.make_node("Add", [prev, f"g{i}"], [out]))
            prev = out
        else:
            prev = f"g{i}"
    graph = h.make_graph(
        nodes,
        "big",
        [h.make_tensor_value_info("idx", onnx.TensorProto.INT64, ["k"])],
        [h.make_tensor_value_info("y", onnx.TensorProto.FLOAT, ["k", cols])],
        initializer=inits,
    )
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])
    model.ir_version = 8
    path = folder / "big.onnx"
    onnx.save(model, str(path))
    return path, {"idx": picked.astype(np.int64)}


def same_bytes(a: np.ndarray[Any, Any], b: np.ndarray[Any, Any], chunk: int = 64 << 20) -> bool:
    """Whether two byte arrays are equal, compared a chunk at a time (bounded memory)."""
    if a.shape != b.shape:
        return False
    return all(
        np.array_equal(a[i : i + chunk], b[i : i + chunk]) for i in range(0, a.shape[0], chunk)
    )


_CONVERT = """
import resource, sys, time
from wireplan.ort import writer
if sys.argv[4] == "warm":  # the one-time costs: importing onnx and onnxruntime, kernel table
    import wireplan.ort.onnx
    from wireplan.ort import onnxruntime_door as door
    door.kernels_known()
t = time.perf_counter()
writer.convert_onnx_to_ort(sys.argv[1], sys.argv[2], external_data=True, alignment=4096,
                           durable=False, threads=int(sys.argv[3]) if sys.argv[3] != "-" else None)
dt = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
try:  # this process's own high-water mark (see convert_in_subprocess)
    with open("/proc/self/status") as f:
        peak = next(int(x.split()[1]) * 1024 for x in f if x.startswith("VmHWM:"))
except (OSError, StopIteration):
    pass
print(peak, dt)
"""


def convert_in_subprocess(
    src: Path, dst: Path, threads: int | None = None, *, warm: bool = False
) -> tuple[int, float]:
    """Convert in a fresh interpreter: ``(peak RSS in bytes, seconds of the conversion)``.

    The peak is the child's ``VmHWM`` (Linux; ``resource.getrusage`` elsewhere):
    on Linux ``getrusage(RUSAGE_SELF).ru_maxrss`` of a child started by
    ``subprocess`` (vfork or fork, then exec) also counts the *parent's*
    peak, which exec records from the address space it replaces (seen here:
    1059 MiB reported for a conversion whose own peak was 60 MiB, when run
    from a pytest worker that had grown to a gigabyte).

    ``warm``: onnx and onnxruntime are imported (and onnxruntime's kernel
    table read) before the clock starts; otherwise the conversion's first
    call pays for them, as a command-line conversion does.
    """
    env = dict(os.environ)
    src_dir = str(Path(__file__).resolve().parents[2] / "src")
    env["PYTHONPATH"] = os.pathsep.join([src_dir, env.get("PYTHONPATH", "")])
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            _CONVERT,
            str(src),
            str(dst),
            "-" if threads is None else str(threads),
            "warm" if warm else "cold",
        ],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout.split()
    return int(out[0]), float(out[1])


def peak_rss_of_children() -> int:
    """The largest peak RSS of the waited-for children so far, in bytes."""
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
