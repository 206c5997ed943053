"""The writer's public entry points, the demo, and the builder used by the writer."""

from __future__ import annotations

import io
from pathlib import Path

import wireplan.ort
from ort_write import peer
from wireplan.ort import demo, writer


def test_demo_converts_loads_and_runs(tmp_path: Path) -> None:
    out = io.StringIO()
    demo.run(out, tmp_path)
    text = out.getvalue()
    assert f"format version {peer.FORMAT_VERSION}" in text  # one the installed release loads
    assert "multiple of 64" in text
    assert "views into the file mapping: True" in text
    assert "outputs identical" in text


def test_convert_dispatches_to_the_writer(tmp_path: Path) -> None:
    from wireplan.ort.onnx.example import example_model

    (tmp_path / "m.onnx").write_bytes(example_model().SerializeToString())
    wireplan.ort.convert(
        tmp_path / "m.onnx", tmp_path / "m.ort", alignment=4096, optimization="none"
    )
    with wireplan.ort.load(tmp_path / "m.ort") as om:
        assert om.ort_version == writer.ORT_VERSION
        assert len(om.graph.nodes) == 4


def test_cli_convert(tmp_path: Path) -> None:
    from wireplan.cli import main
    from wireplan.ort.onnx.example import example_model

    (tmp_path / "m.onnx").write_bytes(example_model().SerializeToString())
    assert (
        main(
            [
                "convert",
                str(tmp_path / "m.onnx"),
                str(tmp_path / "m.ort"),
                "--alignment",
                "4096",
                "--threads",
                "2",
            ]
        )
        == 0
    )
    assert (tmp_path / "m.ort").read_bytes()[4:8] == b"ORTM"
