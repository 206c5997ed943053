""".ort -> .ort: re-writing a model for another onnxruntime release, formats 1 to 6.

The installed onnxruntime is the oracle wherever its loader accepts the
format (:func:`wireplan.ort.onnxruntime_door.loadable_format_versions`); files of
formats 1 to 4 are made by :mod:`ort_write.old_formats`.
"""

from __future__ import annotations

import dataclasses
import io
from collections.abc import MutableSequence
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnx.helper as h
import onnxruntime as ort
import pytest
from flatbuffers.table import Table
from hypothesis import given, settings
from hypothesis import strategies as st

from onnx_corpus import same
from ort_write import models, old_formats
from ort_write.fbref import fb_decode
from ort_write.peer import run
from wireplan import cli
from wireplan.errors import ArgumentError, EncodeError
from wireplan.ort import convert, load, writer
from wireplan.ort.model import OrtModel
from wireplan.ort.onnxruntime_door import contrib_op_signature, loadable_format_versions

LOADABLE = loadable_format_versions()
#: Whether the installed onnxruntime exports its contrib operator schemas (1.15.1 does not).
CONTRIB = contrib_op_signature("com.microsoft", "FusedMatMul", 1) is not None


def plain(value: Any) -> Any:
    """A loaded model as plain data, for equality (arrays by dtype and bytes)."""
    if isinstance(value, np.ndarray):
        return (value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, MutableSequence):  # a list, or load's TableList
        return [plain(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (
            type(value).__name__,
            {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)},
        )
    return value


def tables(model: OrtModel) -> Any:
    return plain(model.model)


def save_onnxruntime_ort(model: onnx.ModelProto, dst: Path) -> Path:
    """The installed onnxruntime's own .ort of ``model`` (basic optimizations)."""
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    so.optimized_model_filepath = str(dst)
    so.add_session_config_entry("session.save_model_format", "ORT")
    so.log_severity_level = 3
    ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return dst


def if_model() -> onnx.ModelProto:
    """Subgraphs (If) without sparse initializers: representable in format 1."""
    f = onnx.TensorProto.FLOAT
    then_g = h.make_graph(
        [h.make_node("Relu", ["x"], ["t"])], "then", [], [h.make_tensor_value_info("t", f, [3])]
    )
    else_g = h.make_graph(
        [h.make_node("Neg", ["x"], ["e"])], "else", [], [h.make_tensor_value_info("e", f, [3])]
    )
    g = h.make_graph(
        [
            h.make_node("If", ["c"], ["b"], then_branch=then_g, else_branch=else_g),
            h.make_node("Mul", ["b", "x"], ["y"]),
        ],
        "if_model",
        [
            h.make_tensor_value_info("c", onnx.TensorProto.BOOL, []),
            h.make_tensor_value_info("x", f, [3]),
        ],
        [h.make_tensor_value_info("y", f, [3])],
    )
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 17)])
    m.ir_version = 8
    return m


IF_FEEDS = [{"c": np.array(c), "x": np.array([-1.0, 0.5, 2.0], np.float32)} for c in (True, False)]

# (name, model, feeds, old format versions it is representable in)
CASES = {
    "features": (models.features, models.feature_feeds, (2, 3, 4)),
    "if": (if_model, lambda: IF_FEEDS, (1, 2, 3, 4)),
    "contrib": (
        models.contrib,
        lambda: [{"x": np.arange(8, dtype=np.float32).reshape(2, 4) / 7}],
        (1, 2, 3, 4),
    ),
}
OLD = [(name, v) for name, (_, _, versions) in CASES.items() for v in versions]


def _source(name: str, tmp_path: Path, by: str) -> tuple[Path, list[dict[str, Any]], Path]:
    """The .onnx, its feeds and a format 5/6 .ort of case ``name`` (by us or onnxruntime)."""
    make, feeds, _ = CASES[name]
    model = make()
    onnx_path = tmp_path / f"{name}.onnx"
    onnx.save(model, onnx_path)
    ort_path = tmp_path / f"{name}.{by}.ort"
    if by == "onnxruntime":
        save_onnxruntime_ort(model, ort_path)
    elif name == "contrib" and not CONTRIB:
        # no schema for FusedMatMul to write it from the .onnx: re-write onnxruntime's .ort
        convert(save_onnxruntime_ort(model, tmp_path / "theirs.ort"), ort_path, format_version=5)
    else:
        writer.save(model, ort_path, format_version=5)
    return onnx_path, feeds(), ort_path


def _old_file(name: str, version: int, tmp_path: Path, by: str = "wireplan") -> tuple[Path, Any]:
    onnx_path, feeds, src = _source(name, tmp_path, by)
    with load(src) as om:
        data = old_formats.old_format(om, version)
    old = tmp_path / f"{name}.v{version}.ort"
    old.write_bytes(data)
    return old, (onnx_path, feeds, src)


# --- formats 1 to 4: the reader -------------------------------------------------------------


@pytest.mark.parametrize(("name", "version"), OLD)
def test_old_formats_load_with_every_table(name: str, version: int, tmp_path: Path) -> None:
    old, (_, _, src) = _old_file(name, version, tmp_path)
    with load(old) as om, load(src) as orig:
        assert om.ort_version == str(version)
        assert om.kernel_type_str_resolver is None
        assert orig.model is not None and om.model is not None
        expected = dataclasses.replace(
            orig.model, graph_doc_string=orig.model.graph_doc_string if version >= 3 else ""
        )
        assert tables(om) == plain(expected)


@pytest.mark.parametrize("version", [1, 2, 3, 4])
def test_old_files_hold_the_deprecated_session_state(version: int, tmp_path: Path) -> None:
    """The made-up old files really carry kernel-def hashes, read with the flatbuffers package."""
    old, _ = _old_file("if", version, tmp_path)
    buf = bytearray(old.read_bytes())
    root = Table(buf, int.from_bytes(buf[:4], "little"))
    session = fb_decode(old_formats._BUILDER.schema, "InferenceSession", root)
    assert session["ort_version"] == str(version).encode()
    assert session["kernel_type_str_resolver"] is None
    state = session["session_state"]
    assert len(state["kernels"]["kernel_def_hashes"]) == 2
    assert sorted(s["graph_id"] for s in state["sub_graph_session_states"]) == [
        b"0_else_branch",
        b"0_then_branch",
    ]


@pytest.mark.parametrize(("name", "version"), OLD)
def test_installed_onnxruntime_runs_the_old_files(name: str, version: int, tmp_path: Path) -> None:
    """Evidence that the made-up files are plausible: onnxruntime's full build loads them."""
    old, (onnx_path, feeds, _) = _old_file(name, version, tmp_path)
    if version not in LOADABLE:
        with pytest.raises(Exception, match="not supported"):
            run(old, feeds[0])
        return
    for feed in feeds:
        assert same(run(old, feed), run(onnx_path, feed))


# --- formats 1 to 4 -> 5 and 6 --------------------------------------------------------------


@pytest.mark.parametrize("format_version", [5, 6])
@pytest.mark.parametrize(("name", "version"), OLD)
def test_old_formats_rewritten_run_identically(
    name: str, version: int, format_version: int, tmp_path: Path
) -> None:
    old, (onnx_path, feeds, src) = _old_file(name, version, tmp_path, by="onnxruntime")
    dst = tmp_path / "new.ort"
    if name == "contrib" and not CONTRIB:
        with pytest.raises(EncodeError, match=r"com\.microsoft:FusedMatMul") as info:
            convert(old, dst, format_version=format_version)
        assert "does not export its operator schemas" in str(info.value)
        return
    convert(old, dst, format_version=format_version)
    with load(dst) as new, load(src) as theirs:
        assert new.ort_version == str(format_version)
        # the resolver rebuilt from schemas is the one onnxruntime wrote for the same graph
        assert plain(new.kernel_type_str_resolver) == plain(theirs.kernel_type_str_resolver)
        md = theirs.model
        assert md is not None
        doc = md.graph_doc_string if version >= 3 else ""
        assert tables(new) == plain(dataclasses.replace(md, graph_doc_string=doc))
    if format_version in LOADABLE:
        for feed in feeds:
            assert same(run(dst, feed), run(onnx_path, feed))


def test_old_runtime_optimizations_are_refused(tmp_path: Path) -> None:
    _, (_, feeds, src) = _old_file("if", 4, tmp_path)
    with load(src) as om:
        data = old_formats.old_format(om, 4, runtime_optimizations=True)
    old = tmp_path / "ro.ort"
    old.write_bytes(data)
    dst = tmp_path / "new.ort"
    with pytest.raises(EncodeError, match="kernel-def hashes") as info:
        convert(old, dst, format_version=5)
    assert info.value.path == "$.model.graph.runtime_optimizations"
    assert "runtime_optimizations = None" in str(info.value)
    assert not dst.exists()
    # the way out the message names
    with load(old) as om:
        om.graph.runtime_optimizations = None
        writer.save(om, dst, format_version=5, float16_casts=False)
    if 5 in LOADABLE:
        assert same(run(dst, feeds[0]), run(old, feeds[0]))


def without_onnxruntime(monkeypatch: pytest.MonkeyPatch) -> None:
    """From here on, as if onnxruntime were not installed: no contrib operator schemas."""
    from wireplan.ort import onnxruntime_door as door

    monkeypatch.setattr(door, "available", lambda: False)


def test_old_contrib_ops_need_a_schema_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old, _ = _old_file("contrib", 4, tmp_path)
    without_onnxruntime(monkeypatch)
    with pytest.raises(EncodeError) as info:
        convert(old, tmp_path / "new.ort", format_version=6)
    text = str(info.value)
    assert "com.microsoft:FusedMatMul" in text
    assert "format 4 files carry kernel-def hashes instead of a kernel type string resolver" in text
    assert "onnxruntime that exports its operator schemas" in text
    assert info.value.path == "$.model.graph.nodes[0]"


def test_new_formats_need_no_onnxruntime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A format 5/6 source carries its resolver: contrib operators convert without onnxruntime."""
    _, _, src = _source("contrib", tmp_path, "wireplan")
    without_onnxruntime(monkeypatch)
    dst = tmp_path / "new.ort"
    convert(src, dst, format_version=6)
    with load(dst) as new, load(src) as old:
        assert plain(new.kernel_type_str_resolver) == plain(old.kernel_type_str_resolver)


# --- formats 5 and 6 ------------------------------------------------------------------------


@pytest.mark.parametrize("by", ["wireplan", "onnxruntime"])
@pytest.mark.parametrize("name", list(CASES))
def test_six_five_six_keeps_the_model(name: str, by: str, tmp_path: Path) -> None:
    onnx_path, feeds, src = _source(name, tmp_path, by)
    five, six = tmp_path / "five.ort", tmp_path / "six.ort"
    convert(src, five, format_version=5)
    convert(five, six)
    with load(src) as a, load(five) as b, load(six) as c:
        assert b.ort_version == "5" and c.ort_version == "6"
        assert tables(a) == tables(b) == tables(c)
        assert plain(a.kernel_type_str_resolver) == plain(c.kernel_type_str_resolver)
    for path, version in ((five, 5), (six, 6)):
        if version in LOADABLE:
            for feed in feeds:
                assert same(run(path, feed), run(onnx_path, feed))


def test_six_to_five_refuses_float8(tmp_path: Path) -> None:
    from ort_write.test_format_versions import float8_initializer

    src = tmp_path / "f8.ort"
    writer.save(float8_initializer(), src)
    dst = tmp_path / "f8.v5.ort"
    with pytest.raises(EncodeError, match="FLOAT8E4M3FN is not in format 5") as info:
        convert(src, dst, format_version=5)
    assert info.value.path == "$.model.graph.initializers[0].data_type"
    assert not dst.exists()


def test_rewrite_options_reach_the_writer(tmp_path: Path) -> None:
    _, _, src = _source("features", tmp_path, "wireplan")
    dst = tmp_path / "a4096.ort"
    convert(src, dst, format_version=6, alignment=4096, durable=False)
    from wireplan.ort.reader import payload_offsets

    with load(dst) as om:
        assert all(off % 4096 == 0 for _, _, off, _ in payload_offsets(om))
    with pytest.raises(ArgumentError, match="format_version must be one of 5, 6"):
        convert(src, dst, format_version=4)


# --- the command line -----------------------------------------------------------------------


def _cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return cli.main(list(argv), out=out), out.getvalue()


def test_cli_rewrites_and_inspect_names_the_releases(tmp_path: Path) -> None:
    old, (onnx_path, feeds, _) = _old_file("if", 3, tmp_path)
    code, text = _cli("inspect", str(old))
    assert code == 0 and "format version 3" in text
    assert "written by 1.7; loaded by 1.7; full builds from 1.14" in text
    dst = tmp_path / "five.ort"
    code, text = _cli("convert", str(old), str(dst), "--format-version", "5")
    assert code == 0 and "wrote" in text
    code, text = _cli("inspect", str(dst))
    assert "format version 5" in text and "written by 1.13-1.15; loaded by 1.13 and later" in text
    if 5 in LOADABLE:
        assert same(run(dst, feeds[0]), run(onnx_path, feeds[0]))
    onnx_dst = tmp_path / "m.ort"
    code, _ = _cli("convert", str(onnx_path), str(onnx_dst), "--format-version", "5")
    assert code == 0 and load(onnx_dst.read_bytes()).ort_version == "5"


def test_cli_format_version_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, _, src = _source("if", tmp_path, "wireplan")
    with pytest.raises(SystemExit) as info:
        _cli("convert", str(src), str(tmp_path / "x.ort"), "--format-version", "4")
    assert info.value.code == 2
    assert "invalid choice" in capsys.readouterr().err
    code, _ = _cli("convert", str(src), str(tmp_path / "x.onnx"), "--format-version", "5")
    assert code != 0
    assert "--format-version applies to conversions that write an .ort" in capsys.readouterr().err


@settings(max_examples=20)
@given(
    name=st.sampled_from(sorted(CASES)),
    versions=st.lists(st.sampled_from([5, 6]), min_size=1, max_size=4),
    alignment=st.sampled_from([4, 64, 4096]),
)
def test_any_chain_of_rewrites_keeps_the_tables(
    name: str, versions: list[int], alignment: int
) -> None:
    make, _, _ = CASES[name]
    if name == "contrib" and not CONTRIB:
        name, make = "if", if_model
    data = bytes(writer.to_bytes(make(), format_version=5))
    first = load(data)
    for v in versions:
        data = bytes(
            writer.to_bytes(load(data), format_version=v, alignment=alignment, float16_casts=False)
        )
    last = load(data)
    assert last.ort_version == str(versions[-1])
    assert tables(last) == tables(first)
    assert plain(last.kernel_type_str_resolver) == plain(first.kernel_type_str_resolver)
