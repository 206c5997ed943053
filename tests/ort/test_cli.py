"""The .ort parts of the wireplan CLI: sniff, inspect, convert."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import onnx
import pytest

from ort_write import peer
from wireplan import cli
from wireplan.ort.cli import alignment_of, sniff


def main(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = cli.main(list(argv), out=out)
    return code, out.getvalue()


def test_sniff(feature_ort: Path) -> None:
    assert sniff(feature_ort.read_bytes()[:64])
    assert not sniff(b"\x08\0\0\0ONNX")
    assert not sniff(b"ORTM")


def test_alignment_of() -> None:
    assert [alignment_of(x) for x in (4, 12, 64, 96, 8192, 0)] == [4, 4, 64, 32, 4096, 4096]


def test_inspect(weights_ort: Path) -> None:
    code, text = main("inspect", str(weights_ort))
    assert code == 0
    # onnxruntime writes the newest format it loads: 5 up to 1.15, 6 from 1.16 on.
    assert f"format version {peer.FORMAT_VERSION}" in text
    assert "nodes by op type: Add 4" in text
    assert "initializers: 4" in text and "payload 6.0 MiB in 4 tensors" in text
    assert "payload offset alignment (largest power of two): 4: 4" in text
    assert "kernel type str resolver: 1 op ids" in text


def test_inspect_subgraphs(feature_ort: Path) -> None:
    code, text = main("inspect", str(feature_ort))
    assert code == 0 and "(+2 in 2 subgraphs)" in text and "(+1 sparse)" in text


def test_convert_ort_to_onnx(feature_ort: Path, tmp_path: Path) -> None:
    dst = tmp_path / "f.onnx"
    code, text = main("convert", str(feature_ort), str(dst))
    assert code == 0 and "wrote" in text
    onnx.checker.check_model(str(dst))


def test_convert_external_data(weights_ort: Path, tmp_path: Path) -> None:
    dst = tmp_path / "w.onnx"
    code, _ = main("convert", str(weights_ort), str(dst), "--external-data", "--alignment", "64")
    assert code == 0 and (tmp_path / "w.onnx.data").exists()
    proto = onnx.load(str(dst), load_external_data=False)
    offsets = [
        int(e.value) for t in proto.graph.initializer for e in t.external_data if e.key == "offset"
    ]
    assert offsets and all(o % 64 == 0 for o in offsets)


def test_convert_errors(
    feature_ort: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _ = main("convert", str(feature_ort), str(tmp_path / "x.txt"))
    assert code == 1 and "suffixes" in capsys.readouterr().err
    bad = tmp_path / "bad.ort"
    bad.write_bytes(b"\x10\0\0\0ORTM" + b"\0" * 20)
    code, _ = main("convert", str(bad), str(tmp_path / "bad.onnx"))
    assert code == 1 and "at byte" in capsys.readouterr().err


def test_quiet_when_piped(weights_ort: Path, tmp_path: Path) -> None:
    dst = tmp_path / "p.onnx"
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "wireplan",
            "convert",
            str(weights_ort),
            str(dst),
            "--external-data",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert res.stderr == "" and res.stdout.startswith("wrote")
