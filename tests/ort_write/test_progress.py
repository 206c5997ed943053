"""Progress of a conversion advances with the bytes moved, in every direction, and the CLI
draws it on a terminal only."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import onnx
import pytest

import ptyrun
from ort_write import models
from wireplan import ort
from wireplan.core.executor import CHUNK_BYTES

WEIGHTS = 64 << 20  # two 32 MiB tensors: each bigger than any step of the old reports


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """m.onnx (inline), e.onnx + e.onnx.data, m.ort (inline), x.ort + x.ort.data."""
    folder = tmp_path_factory.mktemp("progress")
    model = models.weights(WEIGHTS, tensors=2)
    onnx.save(model, folder / "m.onnx")
    onnx.save(
        model,
        folder / "e.onnx",
        save_as_external_data=True,
        all_tensors_to_one_file=True,
        location="e.onnx.data",
        size_threshold=0,
    )
    ort.convert(folder / "m.onnx", folder / "m.ort", durable=False)
    ort.convert(folder / "m.onnx", folder / "x.ort", external_data=True, durable=False)
    return folder


# (source, destination, options): every direction, inline and external data.
DIRECTIONS = [
    ("m.onnx", "out.ort", {}),
    ("e.onnx", "out.ort", {}),
    ("e.onnx", "out.ort", {"external_data": True}),
    ("m.onnx", "out.ort", {"external_data": True}),
    ("m.ort", "out.onnx", {}),
    ("m.ort", "out.onnx", {"external_data": True}),
    ("m.ort", "out.ort", {"format_version": 5}),
    ("x.ort", "out.ort", {"external_data": True}),
    ("x.ort", "out.ort", {}),
]


def _check_calls(calls: list[tuple[int, int]], moved: int) -> None:
    assert len(calls) >= 4, calls
    done = [d for d, _ in calls]
    assert done == sorted(done), calls
    assert calls[0][0] == 0
    assert calls[-1][0] == calls[-1][1] >= moved
    # No step is much bigger than a chunk: the report follows the bytes.
    steps = [b - a for a, b in itertools.pairwise(done)]
    assert max(steps) <= 2 * CHUNK_BYTES, steps


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize(("src", "dst", "options"), DIRECTIONS)
def test_progress_follows_the_bytes(
    sources: Path, tmp_path: Path, src: str, dst: str, options: dict[str, Any], threads: int
) -> None:
    calls: list[tuple[int, int]] = []
    ort.convert(
        sources / src,
        tmp_path / dst,
        threads=threads,
        durable=False,
        progress=lambda done, total: calls.append((done, total)),
        **options,
    )
    _check_calls(calls, WEIGHTS)
    (tmp_path / "plain").mkdir()
    plain = tmp_path / "plain" / dst  # the same name: external data entries name the file
    ort.convert(sources / src, plain, threads=threads, durable=False, **options)
    assert plain.read_bytes() == (tmp_path / dst).read_bytes()
    if options.get("external_data"):
        data = Path(f"{dst}.data")
        assert (tmp_path / "plain" / data).read_bytes() == (tmp_path / data).read_bytes()


def test_linked_companion_reports_and_converts(sources: Path, tmp_path: Path) -> None:
    """.ort with external data -> .onnx with external data links the weights: no bytes move,
    and progress still starts and ends (it was an UnboundLocalError)."""
    calls: list[tuple[int, int]] = []
    ort.convert(
        sources / "x.ort",
        tmp_path / "linked.onnx",
        external_data=True,
        durable=False,
        progress=lambda done, total: calls.append((done, total)),
    )
    assert calls[0][0] == 0 and calls[-1][0] == calls[-1][1] > 0
    assert (tmp_path / "linked.onnx.data").stat().st_size >= WEIGHTS


def _convert_cli(args: list[str], tty: bool) -> tuple[int, bytes]:
    """``wireplan convert ARGS`` in a child whose stderr is a pseudo-terminal or a pipe."""
    env = {**os.environ, "COLUMNS": "100"}
    cmd = [sys.executable, "-m", "wireplan", "convert", *args]
    if not tty:
        done = subprocess.run(cmd, capture_output=True, env=env, timeout=300)
        return done.returncode, done.stderr
    code, _, err = ptyrun.run(cmd, terminal="stderr", env=env)
    return code, err.encode()


@pytest.mark.parametrize(
    ("src", "dst"), [("m.onnx", "cli.ort"), ("m.ort", "cli.onnx"), ("x.ort", "cli.ort")]
)
def test_cli_draws_a_bar_on_a_terminal_only(
    sources: Path, tmp_path: Path, src: str, dst: str
) -> None:
    pytest.importorskip("tqdm")
    args = [str(sources / src), str(tmp_path / dst), "--no-fsync"]
    code, err = _convert_cli(args, tty=False)
    assert code == 0 and err == b""  # piped: not a byte of progress
    code, err = _convert_cli(args, tty=True)
    assert code == 0
    text = err.decode(errors="replace")
    assert f"writing {dst}" in text
    # tqdm's bar over the bytes; it redraws at most every 0.1 s, so how far it got
    # before it was erased depends on the machine: look for its start.
    assert "%|" in text and "/64.0M" in text and "B/s" in text
    if src.endswith(
        ".onnx"
    ):  # the optimizing (the default, as onnxruntime's converter), said before
        assert (
            f"optimizing {sources / src} (64.0 MiB) with onnxruntime: fixed, level all..." in text
        )
        args += ["--optimization", "none"]
        code, err = _convert_cli(args, tty=True)
        assert code == 0 and f"reading {sources / src} (64.0 MiB)..." in err.decode()  # the parse
