"""Format versions 5 and 6: what the writer writes for each and what format 5 refuses."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnx.helper as h
import onnxruntime as ort
import pytest

from onnx_corpus import same
from ort_write import models
from ort_write.peer import run
from wireplan.errors import ArgumentError, EncodeError
from wireplan.ort import writer
from wireplan.ort.onnxruntime_door import contrib_op_signature, loadable_format_versions
from wireplan.ort.reader import load
from wireplan.ort.writer import FORMAT_VERSIONS

F = onnx.TensorProto.FLOAT
F8 = onnx.TensorProto.FLOAT8E4M3FN


def _model(graph: onnx.GraphProto, opset: int = 19) -> onnx.ModelProto:
    m = h.make_model(graph, opset_imports=[h.make_opsetid("", opset)])
    m.ir_version = 9
    return m


def float8_value() -> onnx.ModelProto:
    """A Cast to float8: a float8 value, no float8 tensor."""
    g = h.make_graph(
        [
            h.make_node("Cast", ["x"], ["q"], to=F8),
            h.make_node("Cast", ["q"], ["y"], to=F),
        ],
        "float8_value",
        [h.make_tensor_value_info("x", F, [3])],
        [h.make_tensor_value_info("y", F, [3])],
    )
    return _model(g)


def float8_initializer() -> onnx.ModelProto:
    w = h.make_tensor("w8", F8, [3], [1.0, 2.0, 0.5])
    g = h.make_graph(
        [h.make_node("Cast", ["w8"], ["w"], to=F), h.make_node("Add", ["x", "w"], ["y"])],
        "float8_initializer",
        [h.make_tensor_value_info("x", F, [3])],
        [h.make_tensor_value_info("y", F, [3])],
        initializer=[w],
    )
    return _model(g)


def int4_initializer() -> onnx.ModelProto:
    w = h.make_tensor("w4", onnx.TensorProto.INT4, [4], [1, -2, 3, 4])
    g = h.make_graph(
        [h.make_node("Cast", ["w4"], ["y"], to=F)],
        "int4_initializer",
        [],
        [h.make_tensor_value_info("y", F, [4])],
        initializer=[w],
    )
    return _model(g, 21)


@pytest.mark.parametrize("version", [5, 6])
def test_the_asked_version_is_written(version: int) -> None:
    buf = writer.to_bytes(models.features(), format_version=version)
    om = load(bytes(buf))
    assert om.ort_version == str(version)
    assert om.kernel_type_str_resolver is not None
    assert om.kernel_type_str_resolver.op_kernel_type_str_args


def test_formats_5_and_6_differ_only_in_the_version_string() -> None:
    """Without float8 or newer fields, the two formats are the same tables."""
    five = writer.to_bytes(models.features(), format_version=5)
    six = writer.to_bytes(models.features(), format_version=6)
    assert len(five) == len(six)
    diff = [i for i, (a, b) in enumerate(zip(five, six, strict=True)) if a != b]
    assert len(diff) == 1 and five[diff[0]] == ord("5") and six[diff[0]] == ord("6")


@pytest.mark.parametrize("bad", [0, 1, 4, 7, "6", 6.0, True, None])
def test_bad_format_version_lists_the_choices(bad: object) -> None:
    with pytest.raises(ArgumentError, match=r"format_version must be one of 5, 6"):
        writer.to_bytes(models.features(), format_version=bad)  # type: ignore[arg-type]


def test_bad_format_version_writes_nothing(tmp_path: Path) -> None:
    dst = tmp_path / "m.ort"
    with pytest.raises(ArgumentError):
        writer.save(models.features(), dst, format_version=4)
    assert not dst.exists()


def test_format_5_refuses_a_float8_value_with_its_path() -> None:
    with pytest.raises(EncodeError) as info:
        writer.to_bytes(float8_value(), format_version=5)
    e = info.value
    assert "FLOAT8E4M3FN" in str(e) and "format 5" in str(e) and "format_version=6" in str(e)
    assert e.path is not None and e.path.startswith("$.model.graph.node_args[")
    assert e.path.endswith(".type.value.elem_type")
    assert load(bytes(writer.to_bytes(float8_value()))).ort_version == "6"


def test_format_5_refuses_a_float8_tensor_with_its_path() -> None:
    with pytest.raises(EncodeError) as info:
        writer.to_bytes(float8_initializer(), format_version=5)
    assert info.value.path == "$.model.graph.initializers[0].data_type"
    assert "'w8'" in str(info.value)
    problems = writer.unrepresentable(
        load(bytes(writer.to_bytes(float8_initializer()))), format_version=5
    )
    # the tensor and its value (node_arg) w8
    assert problems[0][0] == "$.model.graph.initializers[0].data_type"
    assert len(problems) == 2 and problems[1][0].startswith("$.model.graph.node_args[")
    assert "'w8'" in problems[1][1]


def test_format_5_refuses_float8_inside_a_subgraph() -> None:
    then = h.make_graph(
        [h.make_node("Constant", [], ["c"], value=h.make_tensor("c8", F8, [1], [1.0]))],
        "then",
        [],
        [h.make_tensor_value_info("c", F8, [1])],
    )
    other = h.make_graph(
        [h.make_node("Constant", [], ["d"], value=h.make_tensor("d8", F8, [1], [2.0]))],
        "else",
        [],
        [h.make_tensor_value_info("d", F8, [1])],
    )
    g = h.make_graph(
        [h.make_node("If", ["b"], ["o"], then_branch=then, else_branch=other)],
        "sub",
        [h.make_tensor_value_info("b", onnx.TensorProto.BOOL, [])],
        [h.make_tensor_value_info("o", F8, [1])],
    )
    with pytest.raises(EncodeError) as info:
        writer.to_bytes(_model(g), format_version=5)
    assert info.value.path is not None
    assert info.value.path.startswith("$.model.graph.")


def test_format_5_refuses_external_data_offset() -> None:
    """A tensor whose data lives elsewhere (no raw_data) has no place in format 5."""
    om = load(bytes(writer.to_bytes(models.features())), copy=True)
    t = om.graph.initializers[0]
    t.external_data_offset = 0
    t.raw_data = np.zeros(0, np.uint8)
    with pytest.raises(EncodeError, match="external_data_offset") as info:
        writer.to_bytes(om, format_version=5)
    assert info.value.path == "$.model.graph.initializers[0].external_data_offset"


def test_format_5_inlines_a_tensor_read_from_external_data() -> None:
    """A tensor that holds its bytes is written inline, its offset dropped, in any format."""
    om = load(bytes(writer.to_bytes(models.features())), copy=True)
    i, src = next((i, t) for i, t in enumerate(om.graph.initializers) if t.nbytes)
    src.external_data_offset = 0
    again = load(bytes(writer.to_bytes(om, format_version=5)))
    t = again.graph.initializers[i]
    assert t.external_data_offset == -1
    assert t.raw_data.tobytes() == src.raw_data.tobytes()


def test_format_5_refuses_external_data() -> None:
    with pytest.raises(ArgumentError, match="format_version=6"):
        writer.layout_files(
            load(bytes(writer.to_bytes(models.features()))), external_data=True, format_version=5
        )


@pytest.mark.parametrize("version", [5, 6])
def test_tensors_past_the_schema_are_refused_in_every_format(version: int) -> None:
    """onnxruntime refuses an INT4 (22) Tensor in any .ort ("Unsupported tensor data type")."""
    with pytest.raises(EncodeError, match=r"INT4 \(code 22\)") as info:
        writer.to_bytes(int4_initializer(), format_version=version)
    assert info.value.path == "$.model.graph.initializers[0].data_type"
    assert "onnxruntime refuses such a tensor" in str(info.value)


def test_a_model_without_float8_is_representable_in_5() -> None:
    om = load(bytes(writer.to_bytes(models.features())))
    assert writer.unrepresentable(om, 5) == []
    assert writer.unrepresentable(om, 6) == []


# --- the installed onnxruntime as the oracle --------------------------------------------------


def test_loadable_format_versions_of_known_releases() -> None:
    assert loadable_format_versions("1.15.1") == (1, 2, 3, 4, 5)
    assert loadable_format_versions("1.20.1") == (1, 2, 3, 4, 5, 6)
    assert loadable_format_versions("1.32.0") == (1, 2, 3, 4, 5, 6)
    assert loadable_format_versions("1.16.0rc1") == (1, 2, 3, 4, 5, 6)
    assert loadable_format_versions("1.13.1") == (5,)
    assert loadable_format_versions("1.10.0") == (4,)
    assert loadable_format_versions("1.6.0") == (1, 2)
    assert loadable_format_versions() == loadable_format_versions(ort.__version__)


@pytest.mark.parametrize("version", ["1", "2", "3", "4", "5", "6", "7"])
def test_loadable_format_versions_is_what_the_loader_accepts(version: str) -> None:
    """Our format 5 file with its version string patched: the installed loader's version gate."""
    data = bytearray(writer.to_bytes(models.features(), format_version=5))
    at = data.index(b"\x01\x00\x00\x005\x00")  # the string "5" (length 1, NUL)
    data[at + 4] = ord(version)
    feeds = models.feature_feeds()[0]
    if int(version) in loadable_format_versions():
        run(bytes(data), feeds)
    else:
        with pytest.raises(Exception, match="not supported"):
            run(bytes(data), feeds)


def _feeds(name: str) -> list[dict[str, Any]]:
    rng = np.random.default_rng(0)
    if name == "features":
        return models.feature_feeds()
    shape = {"contrib": (2, 4), "zipmap": (2, 3), "local_function": (3,)}[name]
    return [{"x": rng.standard_normal(shape).astype(np.float32)}]


@pytest.mark.parametrize(
    "make",
    [models.features, models.contrib, models.zipmap, models.local_function],
    ids=lambda f: f.__name__,
)
@pytest.mark.parametrize("version", FORMAT_VERSIONS)
def test_installed_onnxruntime_runs_each_format_it_loads(
    make: Any, version: int, tmp_path: Path
) -> None:
    """Each format we write runs identically to the .onnx in a release that loads it;
    a release that does not (1.15 and format 6) refuses it."""
    model = make()
    dst = tmp_path / "m.ort"
    if make is models.contrib and contrib_op_signature("com.microsoft", "FusedMatMul", 1) is None:
        # onnxruntime 1.15 does not export its contrib schemas: nothing says what FusedMatMul binds
        with pytest.raises(EncodeError, match=r"no operator schema for com\.microsoft:FusedMatMul"):
            writer.save(model, dst, format_version=version)
        return
    writer.save(model, dst, format_version=version)
    assert load(dst.read_bytes()).ort_version == str(version)
    feeds = _feeds(make.__name__)
    if version not in loadable_format_versions():
        with pytest.raises(Exception, match=f"version \\[{version}\\] is not supported"):
            run(dst, feeds[0])
        return
    onnx_model = model.SerializeToString()
    for feed in feeds:
        assert same(run(dst, feed), run(onnx_model, feed))
