"""The ExecuTorch adapter (wireplan_evalue_executorch.hpp), built against ExecuTorch's own headers
and library from its wheel, under ASan and UBSan.

The executorch 1.5.1 wheel ships ``include/`` and ``lib/libexecutorch.so``: the test downloads
it (``pip download --no-deps``, pinned by sha256) into ``$WIREPLAN_TEST_WHEELS`` (default
``~/.cache/wireplan/test-wheels``), compiles the adapter with them and runs it.  What ExecuTorch's
``EValue`` and ``Tensor`` accessors then report must be what the Python decoder reads: tags,
scalars, the same string bytes, scalar types, sizes and native element bytes.  A download that
fails is a failure, not a skip (the wheel is Linux x86-64 only: other machines skip).
"""

from __future__ import annotations

import hashlib
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from evalue_support import load_golden
from test_cpp_reader import SANITIZE, WARNINGS, _weighted_sum, compile_cpp, run_batch

from wireplan.evalue import RecordFile, RecordWriter, decode, info_for_dtype

HERE = Path(__file__).resolve().parent
DRIVER = HERE / "test_cpp_reader_executorch.cpp"
VERSION = "1.5.1"
WHEEL = f"executorch-{VERSION}-cp311-cp311-manylinux_2_28_x86_64.whl"
SHA256 = "274c28c2fe2b76acb03f9fa381537425c40e0098dcf886baf6d97a1a55ffe300"
# What a consumer must define (the wheel's lib/cmake/executorch/executorch-config.cmake).
DEFINES = ["-DC10_USING_CUSTOM_GENERATED_MACROS", "-DET_EVENT_TRACER_ENABLED"]

if platform.system() != "Linux" or platform.machine() != "x86_64":
    pytest.skip("the executorch wheel's library is built for Linux x86-64", allow_module_level=True)


def _cache() -> Path:
    root = os.environ.get("WIREPLAN_TEST_WHEELS")
    base = Path(root) if root else Path.home() / ".cache" / "wireplan" / "test-wheels"
    return base / f"executorch-{VERSION}"


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            h.update(block)
    return h.hexdigest()


def executorch_sdk() -> Path:
    """The wheel's ``include/`` and ``lib/libexecutorch.so``, extracted once (atomically)."""
    done = _cache()
    if (done / "lib" / "libexecutorch.so").is_file():
        return done
    done.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=done.parent) as tmp:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
               "--platform", "manylinux_2_28_x86_64", "--python-version", "3.11",
               "--disable-pip-version-check", "-q", "-d", tmp, f"executorch=={VERSION}"]  # fmt: skip
        got = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
        assert got.returncode == 0, f"pip could not download executorch: {got.stderr}"
        wheel = Path(tmp) / WHEEL
        assert _digest(wheel) == SHA256, f"{WHEEL}: unexpected sha256"
        out = Path(tmp) / "sdk"
        with zipfile.ZipFile(wheel) as z:
            for name in z.namelist():
                if (
                    name.startswith("executorch/include/")
                    or name == "executorch/lib/libexecutorch.so"
                ):
                    z.extract(name, out)
        try:
            os.replace(out / "executorch", done)
        except OSError:  # another worker got there first
            assert (done / "lib" / "libexecutorch.so").is_file()
    return done


@pytest.fixture(scope="module")
def adapter(tmp_path_factory: pytest.TempPathFactory) -> Path:
    sdk = executorch_sdk()
    compiler = shutil.which("g++")
    assert compiler, "g++ is needed to test the C++ reader"
    include = sdk / "include"
    flags = [*WARNINGS, *SANITIZE, *DEFINES, "-isystem", str(include), "-isystem",
             str(include / "executorch/runtime/core/portable_type/c10")]  # fmt: skip
    libs = ["-L", str(sdk / "lib"), "-lexecutorch", f"-Wl,-rpath,{sdk / 'lib'}"]
    out = tmp_path_factory.mktemp("et") / "adapter"
    return compile_cpp(compiler, [*flags, *libs], [DRIVER], out)


def _expected(value: Any) -> str:
    """What the adapter's driver prints for a value the Python decoder gave (copy=True)."""
    if value is None:
        return "N"
    if isinstance(value, bool):
        return f"B{int(value)}"
    if isinstance(value, int):
        return f"I{value}"
    if isinstance(value, float):
        return "D" + np.array(value, ">f8").tobytes().hex()
    assert isinstance(value, np.ndarray) and value.dtype.isnative
    info = info_for_dtype(value.dtype)
    assert info is not None
    native = value.tobytes()
    sizes = "x".join(str(n) for n in value.shape)
    view = int(value.itemsize == 1 and value.size > 0)
    return f"T{info.code},{value.ndim},{sizes},{len(native)},{view}#{_weighted_sum(native):x}"


def _check(line: str, blob: bytes, values: list[tuple[int, int, Any]]) -> None:
    tokens = line.split()
    assert tokens[0] == "O" and "E" not in tokens, line
    assert len(tokens) - 1 == len(values), line
    for token, (record, element, value) in zip(tokens[1:], values, strict=True):
        r, e, got = token.split(":", 2)
        assert (int(r), int(e)) == (record, element), token
        if isinstance(value, bytes | str):
            raw = value.encode("utf-8") if isinstance(value, str) else value
            off, n = map(int, got[1:].split("+"))
            assert got[0] == "S" and blob[off : off + n] == raw, token  # a view of the input
        else:
            assert got == _expected(value), (token, value)


def test_golden_vectors_as_executorch_evalues(adapter: Path, tmp_path: Path) -> None:
    golden = [d for _, d in load_golden()]
    lines = run_batch(adapter, [("v", d, False, True) for d in golden], tmp_path)
    for blob, line in zip(golden, lines, strict=True):
        _check(line, blob, [(-1, -1, decode(blob))])


def test_every_record_as_executorch_evalues(adapter: Path, tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    java = [np.uint8, np.int8, np.int32, np.int64, np.float16, np.float32, np.float64]
    path = tmp_path / "train.evr"
    with RecordWriter(path, durable=False) as w:
        for i in range(200):
            dtype = java[i % len(java)]
            shape = tuple(int(n) for n in rng.integers(0, 5, size=int(rng.integers(0, 4))))
            x = (rng.standard_normal(shape) * 50).astype(dtype)
            w.write([x, i % 10, 0.25 * i, i % 2 == 0, None, f"ex{i}"])
    blob = path.read_bytes()
    (line,) = run_batch(adapter, [("r", blob, False, True)], tmp_path)
    with RecordFile(path) as f:
        values = [(r, e, v) for r, rec in enumerate(f) for e, v in enumerate(rec)]
    _check(line, blob, values)
    assert sum(",1#" in t for t in line.split()) > 0  # one-byte tensors are views


def test_reader_errors_pass_through(adapter: Path, tmp_path: Path) -> None:
    (line,) = run_batch(adapter, [("v", b"\x04\x00\x00", False, True)], tmp_path)
    assert line == "O E 2 1"
