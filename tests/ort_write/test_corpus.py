"""The ONNX conformance corpus through our writer into onnxruntime (a deterministic sample).

The full-corpus counts come from ``.venv/bin/python tests/ort_write/corpus.py``
(see docs/ort-write.md); here every 4th node case, the named coverage cases
and every shipped data model run.  Every case the installed onnxruntime runs
from the .onnx must run identically from our .ort; the only miss allowed is
a model the .ort format cannot hold (``corpus.explain``), which onnxruntime's
own converter refuses too (and, with onnxruntime 1.15.1, the documented limit
of its kernel probe: :func:`_probe_limit`).  Version-aware where releases
differ in what they run from the .onnx.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import onnx
import onnx.defs
import pytest

from ort_write import corpus, models
from ort_write.test_writer import run_onnx, run_ort
from wireplan.errors import EncodeError
from wireplan.ort import runtime, writer
from wireplan.ort.reader import load

COVERAGE = {
    # subgraphs
    "test_if",
    "test_if_seq",
    "test_loop11",
    "test_loop13_seq",
    "test_scan9_sum",
    "test_scan_sum",
    # string tensors
    "test_string_concat_utf8",
    "test_string_split_basic",
    "test_regex_full_match_email_domain",
    "test_strnormalizer_nostopwords_nochangecase",
    # sequences
    "test_sequence_insert_at_back",
    "test_sequence_map_add_1_sequence_1_tensor",
    "test_sequence_map_add_1_sequence_1_tensor_expanded",
    "test_split_to_sequence_1",
    # Constant nodes
    "test_constant",
    "test_constantofshape_int_zeros",
    # another domain
    "test_ai_onnx_ml_label_encoder_string_int",
    "test_ai_onnx_ml_tree_ensemble_set_membership",
    # function ops onnxruntime only expands for .onnx
    "test_softplus_expanded_ver18",
    # CastLike, a context-dependent function (its body needs the input types)
    "test_affine_grid_2d_expanded",
    "test_affine_grid_3d_align_corners_expanded",
    "test_sce_mean_weight",
}

#: Function ops onnxruntime inlines although it has kernels for older versions of them: a
#: kernel registered "from version N on" does not serve a later version (Attention-25 with
#: the kernel from 24 on, ReduceLogSum-28 with the one from 18 on); context-dependent bodies
#: with an absent optional input in the middle (LinearAttention-27, CausalConvWithState-27).
#: Runnable from the .onnx from onnxruntime 1.32 on (opsets 25-28 as onnx 1.23 builds them).
NEWER_OPSETS = {
    "test_attention_local_window",
    "test_reduce_log_sum_default",
    "test_reduce_log_sum_exp_do_not_keepdims_example",
    "test_linear_attention_gated",
    "test_causal_conv_with_state_with_past_state",
}


@pytest.fixture(scope="module")
def node_cases() -> list[corpus.Case]:
    return corpus.node_cases()


_NO_KERNEL = re.compile(r"Could not find an implementation for (\w+)\((\d+)\)")


def _probe_limit(o: corpus.Outcome) -> bool:
    """A miss the kernel probe of a release without exported kernel definitions (1.15.1) makes.

    There the writer asks onnxruntime with a one-node .ort of the bound
    types and no attributes: a node of an operator with a required
    attribute (SequenceMap's body) cannot be built, counts as having a
    kernel and is not expanded.  Releases with kernel definitions have no
    such miss.
    """
    m = _NO_KERNEL.search(o.detail)
    if runtime.kernels_known() or o.status != "load-failed" or m is None:
        return False
    schema = onnx.defs.get_schema(m.group(1), int(m.group(2)))
    return any(a.required for a in schema.attributes.values())


def _check(outcomes: list[corpus.Outcome]) -> None:
    """Every case onnxruntime runs from the .onnx is identical from ours, or not representable."""
    bad = [o for o in outcomes if o.status not in ("identical", "onnx-not-runnable")]
    bad = [o for o in bad if not _probe_limit(o)]
    unexplained = [o for o in bad if corpus.explain(o) is None]
    assert unexplained == [], corpus.summarize(outcomes)
    assert all(o.status == "convert-failed" for o in bad), corpus.summarize(outcomes)


def test_node_case_sample(node_cases: list[corpus.Case]) -> None:
    sample = node_cases[::4]
    outcomes = list(corpus.run_all(sample))
    _check(outcomes)
    runnable = [o for o in outcomes if o.status != "onnx-not-runnable"]
    assert len(runnable) > (300 if runtime_at_least(1, 31) else 150)


def test_coverage_cases(node_cases: list[corpus.Case]) -> None:
    chosen = [c for c in node_cases if c.name in COVERAGE]
    assert {c.name for c in chosen} == COVERAGE
    ran = list(corpus.run_all(chosen, alignment=4096))
    outcomes = {o.name: o.status for o in ran}
    assert all(o.status in ("identical", "onnx-not-runnable") or _probe_limit(o) for o in ran), (
        outcomes
    )
    if runtime_at_least(1, 31):  # older releases do not run all of them from the .onnx
        assert outcomes == {name: "identical" for name in COVERAGE}


def test_function_ops_of_newer_opsets(node_cases: list[corpus.Case]) -> None:
    chosen = [c for c in node_cases if c.name in NEWER_OPSETS]
    outcomes = {o.name: o.status for o in corpus.run_all(chosen)}
    assert set(outcomes.values()) <= {"identical", "onnx-not-runnable"}
    if runtime_at_least(1, 32):  # older releases do not know opsets 25-28
        assert outcomes == {name: "identical" for name in NEWER_OPSETS}


def runtime_at_least(major: int, minor: int) -> bool:
    numbers = [int(p) for p in runtime.version().split(".")[:2]]
    return (numbers[0], numbers[1]) >= (major, minor)


def test_not_representable_cases_fail_clearly(
    node_cases: list[corpus.Case], tmp_path: Path
) -> None:
    """Optional types and TYPE_PROTO attributes have no place in .ort: a clear EncodeError."""
    chosen = [
        c
        for c in node_cases
        if c.name in ("test_if_opt", "test_loop16_seq_none", "test_identity_opt")
    ]
    assert len(chosen) == 3
    for c in chosen:
        with pytest.raises(EncodeError) as info:  # whether or not the release runs the .onnx
            writer.save(c.model, tmp_path / "model.ort")
        o = corpus.Outcome(c.name, "convert-failed", str(info.value))
        assert corpus.explain(o) is not None, o
        assert not (tmp_path / "model.ort").exists()


def test_data_models() -> None:
    # onnx < 1.20 ships the node cases under data/node too: those run in test_node_case_sample
    cases = [c for c in corpus.data_cases() if not c.name.startswith("node/")]
    outcomes = list(corpus.run_all(cases))
    _check(outcomes)
    runnable = [o for o in outcomes if o.status != "onnx-not-runnable"]
    assert len(runnable) >= 100


def test_maps_and_sequences_of_maps(tmp_path: Path) -> None:
    model = models.zipmap()
    writer.save(model, tmp_path / "z.ort", format_version=corpus.newest_format())
    feeds = {"x": np.array([[0.5, -1.0, 2.0], [1.0, 2.0, 3.0]], np.float32)}
    assert corpus.same(run_ort(tmp_path / "z.ort", feeds), run_onnx(model, feeds))
    with load(tmp_path / "z.ort") as om:
        y = next(vi for vi in om.graph.node_args if vi.name == "y")
        assert type(y.type.value).__name__ == "SequenceType"  # type: ignore[union-attr]
        inner = y.type.value.elem_type.value  # type: ignore[union-attr]
        assert type(inner).__name__ == "MapType"


def test_rewriting_a_loaded_file_gives_the_same_bytes(node_cases: list[corpus.Case]) -> None:
    """load(our .ort) -> save reproduces the file byte for byte (a deterministic, lossless writer)."""
    checked = 0
    for case in node_cases[::25]:
        try:
            first = bytes(writer.to_bytes(case.model, alignment=64))
        except EncodeError:
            continue
        with load(first) as om:
            again = bytes(writer.to_bytes(om, alignment=64))
        assert again == first, case.name
        checked += 1
    assert checked > 50
