"""The public surface of wireplan.ort: small, explicit, and free of heavy imports."""

from __future__ import annotations

import subprocess
import sys

import wireplan.ort


def test_public_names() -> None:
    assert set(wireplan.ort.__all__) == {
        "OrtModel",
        "convert",
        "decode",
        "encode",
        "from_onnx",
        "load",
        "required_operators",
        "save",
        "session",
        "to_bytes",
        "to_onnx",
    }
    for name in wireplan.ort.__all__:
        obj = getattr(wireplan.ort, name)
        assert obj.__doc__, name
        # Implementations may live in private modules; they are public only through wireplan.ort.
        assert obj.__module__.startswith("wireplan.ort."), (name, obj.__module__)
    assert callable(wireplan.ort.session)


def test_import_does_not_pull_onnx_or_onnxruntime() -> None:
    code = (
        "import sys, wireplan.ort, wireplan.ort.cli, wireplan.ort.reader; "
        "bad = [m for m in ('onnx', 'onnxruntime', 'torch') if m in sys.modules]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
