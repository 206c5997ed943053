"""Helpers shared by the EValue tests (imported by name: pytest puts this folder on sys.path)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

# Byte strings from ExecuTorch's own Java implementation, carried in the repository.
GOLDEN_DIR = Path(__file__).resolve().parents[1] / "data" / "evalue"
GOLDEN_TSV = GOLDEN_DIR / "java_golden.tsv"
# Missing test data is a failure, never a skip: it is part of the checkout.
if not GOLDEN_TSV.is_file():
    raise FileNotFoundError(f"test data missing: {GOLDEN_TSV}")

# What each golden case holds, by name (see tests/data/evalue/README.md).
GOLDEN_VALUES: dict[str, object] = {
    "none": None,
    "bool_true": True,
    "bool_false": False,
    "int_42": 42,
    "int_minus1": -1,
    "double_3.5": 3.5,
    "string_hello_accent": "h\u00e9llo",
    "string_empty": "",
    "f32_2x3_1to6": np.arange(1, 7, dtype=np.float32).reshape(2, 3),
    "i64_scalar_shape[]_7": np.array(7, dtype=np.int64),
    "i64_shape[0]": np.zeros(0, dtype=np.int64),
    "u8_shape[4]_0_1_127_255": np.array([0, 1, 127, 255], dtype=np.uint8),
    "i8_shape[2]_-1_2": np.array([-1, 2], dtype=np.int8),
    "i32_shape[1,2]_1_-2": np.array([[1, -2]], dtype=np.int32),
    "f64_shape[1]_0.5": np.array([0.5], dtype=np.float64),
    "f16_shape[2]_1.0_-2.0": np.array([1.0, -2.0], dtype=np.float16),
}


def load_golden() -> list[tuple[str, bytes]]:
    rows = []
    lines = GOLDEN_TSV.read_text(encoding="utf-8").splitlines()
    assert lines[0].split("\t") == ["name", "length", "hex"]
    for line in lines[1:]:
        if not line.strip():
            continue
        name, length, hexdata = line.split("\t")
        data = bytes.fromhex(hexdata)
        assert len(data) == int(length), name
        rows.append((name, data))
    return rows
