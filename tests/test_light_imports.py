"""Heavy optional dependencies load only when a feature that needs them is used."""

from __future__ import annotations

import subprocess
import sys

HEAVY = (
    "onnx",
    "onnxruntime",
    "torch",
    "ml_dtypes",
    "pydsdl",
    "pycyphal",
    "flatbuffers",
    "yaml",
    "fsspec",
)


def _imported_after(code: str) -> list[str]:
    probe = f"{code}\nimport sys\nprint(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return done.stdout.split()


def test_package_and_cli_import_nothing_heavy() -> None:
    code = (
        "import wireplan, wireplan.core, wireplan.evalue, wireplan.ort\n"
        "import wireplan.cli\n"
        "wireplan.cli.build_parser()"
    )
    assert _imported_after(code) == []


def test_reading_ort_and_evalue_needs_no_heavy_import() -> None:
    code = (
        "import numpy as np, wireplan.evalue as ev\n"
        "ev.decode(ev.encode(np.zeros((2, 2), np.float32)))\n"
        "import wireplan.ort.reader, wireplan.ort.model\n"
        "wireplan.ort.model.numpy_dtype(1)"
    )
    assert _imported_after(code) == []
