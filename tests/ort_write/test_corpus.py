"""The ONNX conformance corpus through our writer into onnxruntime (a deterministic sample).

The full-corpus counts come from ``.venv/bin/python tests/ort_write/corpus.py``
(see docs/ort.md); here every 4th node case, the named coverage cases
and every shipped data model run.  Every case the installed onnxruntime runs
from the .onnx must run identically from our .ort; the only miss allowed is
a model the .ort format cannot hold (``corpus.explain``), which onnxruntime's
own converter refuses too.
Version-aware where releases differ in what they run from the .onnx.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ort_write import corpus, models, peer
from ort_write.test_writer import run_onnx, run_ort
from wireplan.errors import EncodeError
from wireplan.ort import writer
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


def _check(outcomes: list[corpus.Outcome]) -> None:
    """Every case onnxruntime runs from the .onnx is identical from ours, or not representable."""
    bad = [o for o in outcomes if o.status not in ("identical", "onnx-not-runnable")]
    unexplained = [o for o in bad if corpus.explain(o) is None]
    assert unexplained == [], corpus.summarize(outcomes)
    assert all(o.status == "convert-failed" for o in bad), corpus.summarize(outcomes)


#: How many cases of the sample the installed onnxruntime runs from the .onnx, at least.  An
#: older release runs fewer: node cases are stamped with the opset (and IR version) of their
#: operator's newest version, and onnxruntime 1.20 knows ONNX opsets up to 21 (IR 10), 1.15 up
#: to 19 (IR 9), with the onnx pinned next to them (constraints/ort-*.txt).
SAMPLE_RUNNABLE = peer.for_release(300, {(1, 20): 200, (1, 15): 150})


#: Coverage cases an older release cannot run from the .onnx either: operator versions newer
#: than it (onnx stamps a case with its operator's newest opset: Constant, ConstantOfShape and
#: SplitToSequence 24; AffineGrid, RegexFullMatch, StringConcat, StringSplit 20; LabelEncoder
#: of ai.onnx.ml 4 and TreeEnsemble of 5), and StringNormalizer where the system lacks the
#: en_US.UTF-8 locale onnxruntime 1.15 sets up for it ("Failed to construct locale").
def _has_locale(name: str) -> bool:
    import locale

    saved = locale.setlocale(locale.LC_CTYPE)
    try:
        locale.setlocale(locale.LC_CTYPE, name)
    except locale.Error:
        return False
    finally:
        locale.setlocale(locale.LC_CTYPE, saved)
    return True


_OPSET_24 = {"test_constant", "test_constantofshape_int_zeros", "test_split_to_sequence_1"}
BEYOND_RELEASE = peer.for_release(
    frozenset(),
    {
        (1, 20): frozenset({*_OPSET_24, "test_ai_onnx_ml_tree_ensemble_set_membership"}),
        (1, 15): frozenset(
            {
                *_OPSET_24,
                "test_ai_onnx_ml_tree_ensemble_set_membership",
                "test_ai_onnx_ml_label_encoder_string_int",
                "test_affine_grid_2d_expanded",
                "test_affine_grid_3d_align_corners_expanded",
                "test_regex_full_match_email_domain",
                "test_string_concat_utf8",
                "test_string_split_basic",
                *(
                    ()
                    if _has_locale("en_US.UTF-8")
                    else ("test_strnormalizer_nostopwords_nochangecase",)
                ),
            }
        ),
    },
)


def test_node_case_sample(node_cases: list[corpus.Case]) -> None:
    sample = node_cases[::4]
    outcomes = list(corpus.run_all(sample))
    _check(outcomes)
    runnable = [o for o in outcomes if o.status != "onnx-not-runnable"]
    assert len(runnable) > SAMPLE_RUNNABLE


def test_coverage_cases(node_cases: list[corpus.Case]) -> None:
    chosen = [c for c in node_cases if c.name in COVERAGE]
    assert {c.name for c in chosen} == COVERAGE
    outcomes = list(corpus.run_all(chosen, alignment=4096))
    expected = {name: "identical" for name in COVERAGE}
    expected |= {name: "onnx-not-runnable" for name in BEYOND_RELEASE}
    assert {o.name: o.status for o in outcomes} == expected


def test_function_ops_of_newer_opsets(node_cases: list[corpus.Case]) -> None:
    chosen = [c for c in node_cases if c.name in NEWER_OPSETS]
    outcomes = {o.name: o.status for o in corpus.run_all(chosen)}
    assert set(outcomes.values()) <= {"identical", "onnx-not-runnable"}
    if peer.RELEASE >= (1, 32):  # older releases do not know opsets 25-28
        assert outcomes == {name: "identical" for name in NEWER_OPSETS}


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
        with pytest.raises(EncodeError, match=r"no place in the \.ort format|optional types"):
            writer.save(c.model, tmp_path / "model.ort")
        assert not (tmp_path / "model.ort").exists()
        o = corpus.run_case(c, tmp_path)
        if o.status != "onnx-not-runnable":  # onnxruntime 1.15 cannot feed an optional input
            assert o.status == "convert-failed" and corpus.explain(o) is not None, o


def test_data_models() -> None:
    outcomes = list(corpus.run_all(corpus.data_cases()))
    _check(outcomes)
    runnable = [o for o in outcomes if o.status != "onnx-not-runnable"]
    assert len(runnable) >= 100


def test_maps_and_sequences_of_maps(tmp_path: Path) -> None:
    model = models.zipmap()
    writer.save(model, tmp_path / "z.ort", format_version=peer.FORMAT_VERSION)
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
