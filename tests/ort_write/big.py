"""A model past 2 GiB whose .onnx keeps its weights in an external data file.

By default the data file is sparse: mostly holes (cheap on disk, read as
zeros); a few rows of each weight and a few scattered pages hold random
bytes, so a copy that misplaces anything is caught.  ``dense=True`` fills
every byte of every weight with random floats instead, as a real model's file
is (then the operating system really reads and writes 2.4 GB, and counts
every page a process maps).  Used by ``test_big.py`` and
``benchmarks/bench_ort_external.py``.
"""

from __future__ import annotations

import json
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
#: Width of the small head ``z = y @ Transpose(head_t) + head_b`` that onnxruntime rewrites.
HEAD = 64
#: Operators of the source graph, and of the graph onnxruntime's optimizer makes of it:
#: it folds the Transpose of a constant into a new initializer and fuses MatMul + Add into
#: Gemm (both at level basic, in every release tested).
SOURCE_OPS = {"Gather": TENSORS, "Add": TENSORS, "Transpose": 1, "MatMul": 1}
OPTIMIZED_OPS = {"Gather": TENSORS, "Add": TENSORS - 1, "Gemm": 1}

# Dense weights are written a chunk at a time, so the writing process stays small.
_CHUNK_BYTES = 64 << 20


def _write_dense(f: Any, rng: np.random.Generator, nbytes: int) -> None:
    """``nbytes`` of uniform random float32 in [0, 1) at the file position, in chunks."""
    for i in range(0, nbytes, _CHUNK_BYTES):
        f.write(rng.random(min(_CHUNK_BYTES, nbytes - i) // 4, dtype=np.float32).tobytes())


def make(
    folder: Path,
    *,
    tensors: int = TENSORS,
    rows: int = ROWS,
    cols: int = COLS,
    seed: int = 0,
    dense: bool = False,
) -> tuple[Path, dict[str, Any]]:
    """Write ``big.onnx`` + ``big.onnx.data`` into ``folder``; returns the path and the feeds.

    ``y = Gather(w0, idx) + Gather(w1, idx) + ...``: running it touches a few
    rows only; ``z = MatMul(y, Transpose(head_t)) + head_b`` is a small head
    (inline in the .onnx) that onnxruntime's optimizer rewrites
    (:data:`OPTIMIZED_OPS`).  Each weight starts at an offset that is *not* a
    multiple of 4096 (100 bytes past one), so a writer asked for 4096 must lay
    them out again.  ``dense``: every byte of every weight is random data
    (written a chunk at a time), not a hole; the gaps between weights are
    written zeros.
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
            if dense:
                f.write(bytes(off - pos))
                _write_dense(f, rng, nbytes)
            else:
                for r in picked:
                    f.seek(off + int(r) * cols * 4)
                    f.write(rng.standard_normal(cols).astype(np.float32).tobytes())
                for page in rng.integers(0, nbytes // 4096, 4):
                    f.seek(off + int(page) * 4096)
                    f.write(
                        rng.integers(0, 1 << 20, 1024, dtype=np.int32).astype(np.float32).tobytes()
                    )
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
    inits.append(
        onnx.numpy_helper.from_array(
            rng.standard_normal((HEAD, cols)).astype(np.float32) / cols, "head_t"
        )
    )
    inits.append(
        onnx.numpy_helper.from_array(rng.standard_normal(HEAD).astype(np.float32), "head_b")
    )
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
    nodes += [
        h.make_node("Transpose", ["head_t"], ["head_w"], perm=[1, 0]),
        h.make_node("MatMul", ["y", "head_w"], ["m"]),
        h.make_node("Add", ["m", "head_b"], ["z"]),
    ]
    graph = h.make_graph(
        nodes,
        "big",
        [h.make_tensor_value_info("idx", onnx.TensorProto.INT64, ["k"])],
        [
            h.make_tensor_value_info("y", onnx.TensorProto.FLOAT, ["k", cols]),
            h.make_tensor_value_info("z", onnx.TensorProto.FLOAT, ["k", HEAD]),
        ],
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


#: The conversions :func:`convert_in_subprocess` runs, and their fixed options.
ROUTES: dict[str, dict[str, Any]] = {
    # wireplan.ort.writer.convert_onnx_to_ort: no optimizing
    "onnx-ort": {"external_data": True, "alignment": 4096},
    # wireplan.ort.onnx.save.convert_ort_to_onnx
    "ort-onnx": {"external_data": True},
    # wireplan.ort.convert: optimized by onnxruntime (optimization="fixed")
    "optimized": {"external_data": True, "alignment": 4096},
}

_CONVERT = """
import json, sys, time
route, src, dst, options, warm = sys.argv[1:4] + [json.loads(sys.argv[4]), sys.argv[5] == "warm"]
if warm:  # the one-time costs: importing onnx and onnxruntime, kernel table
    import onnxruntime
    import wireplan.ort.onnx.save
    from wireplan.ort import onnxruntime_door as door
    door.kernels_known()
t = time.perf_counter()
if route == "onnx-ort":
    from wireplan.ort.writer import convert_onnx_to_ort as convert
elif route == "ort-onnx":
    from wireplan.ort.onnx.save import convert_ort_to_onnx as convert
else:
    from wireplan.ort import convert
convert(src, dst, **options)
dt = time.perf_counter() - t
import resource
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
try:  # this process's own high-water mark (see convert_in_subprocess)
    with open("/proc/self/status") as f:
        peak = next(int(x.split()[1]) * 1024 for x in f if x.startswith("VmHWM:"))
except (OSError, StopIteration):
    pass
print(peak, dt)
"""


class ConversionFailed(subprocess.CalledProcessError):
    """A conversion's child process failed; its message ends with the child's stderr."""

    def __str__(self) -> str:
        return f"{super().__str__()}\n{self.stderr}"


def convert_in_subprocess(
    src: Path,
    dst: Path,
    threads: int | None = None,
    *,
    route: str = "onnx-ort",
    durable: bool = False,
    warm: bool = False,
) -> tuple[int, float]:
    """Convert in a fresh interpreter: ``(peak RSS in bytes, seconds of the conversion)``.

    ``route``: one of :data:`ROUTES`, with its options, ``threads`` and
    ``durable`` (fsync both files, or not).

    The peak is the child's ``VmHWM`` (Linux; ``resource.getrusage`` elsewhere),
    which counts the pages of mapped files it touched as well as its own
    memory.  On Linux ``getrusage(RUSAGE_SELF).ru_maxrss`` of a child started by
    ``subprocess`` (vfork or fork, then exec) also counts the *parent's*
    peak, which exec records from the address space it replaces (seen here:
    1059 MiB reported for a conversion whose own peak was 60 MiB, when run
    from a pytest worker that had grown to a gigabyte).

    A failed conversion is a :class:`ConversionFailed` that shows the child's stderr.

    ``warm``: onnx and onnxruntime are imported (and onnxruntime's kernel
    table read) before the clock starts; otherwise the conversion's first
    call pays for them, as a command-line conversion does.
    """
    options = ROUTES[route] | {"durable": durable, "threads": threads}
    env = dict(os.environ)
    src_dir = str(Path(__file__).resolve().parents[2] / "src")
    env["PYTHONPATH"] = os.pathsep.join([src_dir, env.get("PYTHONPATH", "")])
    argv = [route, str(src), str(dst), json.dumps(options), "warm" if warm else "cold"]
    cmd = [sys.executable, "-c", _CONVERT, *argv]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if done.returncode:
        raise ConversionFailed(done.returncode, cmd, done.stdout, done.stderr)
    out = done.stdout.split()
    return int(out[0]), float(out[1])


def peak_rss_of_children() -> int:
    """The largest peak RSS of the waited-for children so far, in bytes."""
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
