""".ort -> .ort in the same format: the tables kept as they are, only the payloads moved.

``convert_ort_to_ort`` relocates (:mod:`wireplan.flatbuffers.relocate`) when the format
stays and nothing else changes; the rebuild through the builder is the oracle: the same
tables, and onnxruntime runs both alike.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ort_write import models
from ort_write.peer import run
from ort_write.test_rewrite import CASES, _source, save_onnxruntime_ort, tables
from wireplan.flatbuffers import relocate as relocate_module
from wireplan.ort import load, writer
from wireplan.ort.reader import payload_offsets


@pytest.fixture
def relocations(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Each call of relocate in the writer: whether it gave a plan."""
    calls: list[bool] = []

    def spy(*args: Any, **kwargs: Any) -> Any:
        result = relocate_module.relocate(*args, **kwargs)
        calls.append(result is not None)
        return result

    monkeypatch.setattr(writer, "relocate", spy)
    return calls


def rebuilt(src: Path, dst: Path, monkeypatch: pytest.MonkeyPatch, **options: Any) -> Path:
    with monkeypatch.context() as m:
        m.setattr(writer, "relocate", lambda *a, **k: None)
        writer.convert_ort_to_ort(src, dst, durable=False, **options)
    return dst


@pytest.mark.parametrize("alignment", [1, 64, 4096, 65536])
@pytest.mark.parametrize("name", list(CASES))
def test_relocated_files_keep_the_tables_and_run_alike(
    name: str,
    alignment: int,
    tmp_path: Path,
    relocations: list[bool],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, feeds, src = _source(name, tmp_path, "onnxruntime")
    with load(src) as om:
        version = int(om.ort_version)
    dst = tmp_path / "moved.ort"
    writer.convert_ort_to_ort(src, dst, format_version=version, alignment=alignment, durable=False)
    assert relocations == [True]
    built = rebuilt(src, tmp_path / "built.ort", monkeypatch, format_version=version)
    with load(src) as a, load(dst) as b, load(built) as c:
        assert tables(b) == tables(a) == tables(c)
        offsets = payload_offsets(b)
        assert all(off % alignment == 0 for _, _, off, _ in offsets)
        assert offsets or name == "if"  # the If model has no initializers
    for f in feeds:
        want = run(src, f)
        assert all(np.array_equal(x, y) for x, y in zip(run(dst, f), want, strict=True))


def test_threads_give_the_same_bytes(tmp_path: Path, relocations: list[bool]) -> None:
    src = save_onnxruntime_ort(models.weights(6 << 20), tmp_path / "w.ort")
    with load(src) as om:
        version = int(om.ort_version)
    for threads in (1, 4):
        writer.convert_ort_to_ort(
            src, tmp_path / f"t{threads}.ort", format_version=version, threads=threads,
            alignment=4096, durable=False,
        )  # fmt: skip
    assert relocations == [True, True]
    assert (tmp_path / "t1.ort").read_bytes() == (tmp_path / "t4.ort").read_bytes()


def test_changes_go_through_the_builder(tmp_path: Path, relocations: list[bool]) -> None:
    _, _, src = _source("features", tmp_path, "onnxruntime")
    with load(src) as om:
        version = int(om.ort_version)
    other = 5 if version == 6 else 6
    writer.convert_ort_to_ort(src, tmp_path / "v.ort", format_version=other, durable=False)
    if version == 6:  # a format 6 model with external data: tables change
        writer.convert_ort_to_ort(
            src, tmp_path / "x.ort", format_version=6, external_data=True, size_threshold=0,
            durable=False,
        )  # fmt: skip
    assert relocations == []


# (vectors under this size go into the metadata's block, while it stays under this size;
# the regions of the 1 MiB model's plan: the block and the 4 vectors of 256 KiB outside it)
BLOCKS = {
    "every vector a region": (0, 0, 5),
    "every vector in the block": (1 << 30, 1 << 30, 1),
    "the block fills up": (1 << 20, 600 << 10, 3),
}


@pytest.mark.parametrize("block", list(BLOCKS))
def test_small_vectors_travel_with_the_metadata(
    block: str, tmp_path: Path, relocations: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Small payloads are copied into the block that holds the metadata (one region), the
    others are regions of their own: the same tables, every payload aligned.  From a
    scratch file of onnxruntime's: the same bytes, all in the block and written over the
    scratch file (then renamed), or past the scratch route's limit as any re-write."""
    small, limit, regions = BLOCKS[block]
    monkeypatch.setattr(relocate_module, "_SMALL_VECTOR", small)
    monkeypatch.setattr(relocate_module, "_SMALL_BLOCK", limit)
    plans: list[int] = []
    real = writer.relocate

    def counted(*args: Any, **kwargs: Any) -> Any:
        result = real(*args, **kwargs)
        plans.append(len(result.plan))
        return result

    monkeypatch.setattr(writer, "relocate", counted)
    src = save_onnxruntime_ort(models.features(), tmp_path / "f.ort")
    big = save_onnxruntime_ort(models.weights(1 << 20), tmp_path / "w.ort")
    for source in (src, big):
        with load(source) as om:
            version = int(om.ort_version)
        dst = tmp_path / "moved.ort"
        writer.convert_ort_to_ort(source, dst, format_version=version, durable=False)
        with load(source) as a, load(dst) as b:
            assert tables(b) == tables(a)
            assert all(off % 64 == 0 for _, _, off, _ in payload_offsets(b))
        scratch = tmp_path / ".scratch.ort"
        for over in (True, False):
            scratch.write_bytes(source.read_bytes())
            with monkeypatch.context() as m:
                if not over:
                    m.setattr(writer, "_OVER_SCRATCH_BYTES", 1024)
                writer.convert_ort_to_ort(
                    scratch, tmp_path / "over.ort", format_version=version, _scratch=True
                )
            assert (tmp_path / "over.ort").read_bytes() == dst.read_bytes()
            assert scratch.exists() is not over  # a new file leaves it to its owner
    assert relocations == [True] * 6
    # the 1 MiB model: re-written, over the scratch file (all in the block), past the limit
    assert plans[3:] == [regions, 1, regions]
