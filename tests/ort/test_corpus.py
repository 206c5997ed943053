"""Real .ort files written by onnxruntime, read by wireplan and converted back to ONNX.

A deterministic sample of the corpus in :mod:`ort_corpus` (every SAMPLE_STEP-th (2nd)
source, both optimization levels) runs by default; ``-m slow`` runs all of
it.  The summary is printed (``pytest -s``) (docs/ort.md, "Tested with").
"""

from __future__ import annotations

import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from ort_write import peer

from . import ort_corpus

SAMPLE_STEP = 2

# Misses that are not about the reader or the converter: onnxruntime's Python API cannot
# feed or return the tensor type, or the .ort onnxruntime wrote cannot run itself.
HARNESS_MISSES = ("the .ort itself does not run",)


@pytest.fixture(scope="module")
def sources() -> list[ort_corpus.Source]:
    return ort_corpus.node_sources() + ort_corpus.data_sources()


def _check(outcomes: list[ort_corpus.Outcome]) -> None:
    print("\n" + ort_corpus.summary(outcomes))
    saved = [o for o in outcomes if o.saved]
    assert saved, "onnxruntime saved nothing"
    # Every .ort onnxruntime wrote is read completely.
    assert all(o.loaded for o in saved)
    # Every one converts, and standard-domain models pass onnx.checker.
    assert [o.name for o in saved if not o.converted] == []
    # Whatever ran gave identical outputs.
    assert [o.name for o in saved if o.ran and not o.identical] == []
    unexplained = [
        (o.name, o.reason) for o in saved if not o.ran and not o.reason.startswith(HARNESS_MISSES)
    ]
    assert unexplained == []


def test_corpus_sample(sources: list[ort_corpus.Source]) -> None:
    sample = sources[::SAMPLE_STEP]
    _check(list(ort_corpus.check_all(sample)))


@pytest.mark.slow
def test_corpus_full(sources: list[ort_corpus.Source]) -> None:
    _check(list(ort_corpus.check_all(sources)))


def test_from_onnx_agrees_with_onnxruntime(sources: list[ort_corpus.Source], tmp_path) -> None:  # type: ignore[no-untyped-def]
    """from_onnx derives what onnxruntime's own .ort (no optimizations) holds: the oracle."""
    from wireplan.ort import from_onnx, load

    compared = 0
    problems = []
    for i, src in enumerate(sources[::10]):
        path = tmp_path / f"{i}.ort"
        try:
            ort_corpus.save_ort_level(
                src.model, str(path), ort_corpus.ort.GraphOptimizationLevel.ORT_DISABLE_ALL
            )
        except Exception:
            continue
        with load(path) as theirs:
            ours = from_onnx(src.model)
            diffs = ort_corpus.graph_differences(theirs.graph, ours.graph)
            same_nodes = [n.op_type for n in theirs.graph.nodes] == [
                n.op_type for n in ours.graph.nodes
            ]
        compared += same_nodes
        problems.extend(f"{src.name}: {d}" for d in diffs)
        path.unlink()
    print(f"\nfrom_onnx compared with onnxruntime's .ort on {compared} graphs")
    # An older release saves fewer cases: it cannot load those of newer opsets (1.20: opsets
    # up to 21, 1.15: up to 19, with the onnx pinned next to them).
    assert compared > peer.for_release(100, {(1, 20): 70, (1, 15): 50})
    assert problems == []
