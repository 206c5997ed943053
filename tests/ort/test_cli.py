"""The .ort parts of the wireplan CLI: sniff, inspect, convert."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import onnx
import pytest

from ort_write import peer
from ort_write.test_rewrite import tables
from wireplan import cli
from wireplan.core.text import size
from wireplan.ort import load
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
    assert "kernel type str resolver: 1 op id\n" in text


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


# --- one clear line for every bad input; .onnx described; --json (issue 21) ----------------


def one_node_onnx(path: Path) -> Path:
    """``y = x + w`` with a float32 weight ``w`` of shape [8, 16] (512 bytes)."""
    import numpy as np
    import onnx.helper as h
    import onnx.numpy_helper as nh

    f = onnx.TensorProto.FLOAT
    w = np.arange(128, dtype=np.float32).reshape(8, 16)
    g = h.make_graph(
        [h.make_node("Add", ["x", "w"], ["y"], name="add")],
        "g",
        [h.make_tensor_value_info("x", f, [8, 16])],
        [h.make_tensor_value_info("y", f, [8, 16])],
        initializer=[nh.from_array(w, "w")],
    )
    model = h.make_model(g, opset_imports=[h.make_opsetid("", 17)], producer_name="tests")
    model.ir_version = 8
    onnx.save(model, str(path))
    return path


def ort_with_dims(path: Path, dims: tuple[int, int]) -> tuple[Path, int]:
    """The one-node model as an .ort whose weight claims ``dims`` over its 512 bytes.

    Returns the path and the byte that stores the ``dims`` field (its reference).
    """
    import struct

    from wireplan.flatbuffers.reader import TableReader
    from wireplan.ort import from_onnx, to_bytes
    from wireplan.ort.schema import ORT_SCHEMA

    with from_onnx(one_node_onnx(path.with_suffix(".onnx"))) as om:
        data = bytearray(to_bytes(om))
    reader = TableReader(ORT_SCHEMA, bytes(data))
    at = reader.locate("$.model.graph.initializers[0].dims")
    assert at is not None
    vector = reader.follow(at)
    assert struct.unpack_from("<I", data, vector) == (2,)
    struct.pack_into("<qq", data, vector + 4, *dims)
    path.write_bytes(data)
    return path, at


def error_lines(capsys: pytest.CaptureFixture[str]) -> list[str]:
    err = capsys.readouterr().err.splitlines()
    assert all(line.startswith("wireplan: error: ") for line in err), err
    return err


def bad_onnx_files(tmp_path: Path) -> dict[str, Path]:
    good = one_node_onnx(tmp_path / "good.onnx").read_bytes()
    files = {
        "truncated": good[: len(good) // 2],
        "corrupt": b"\xff" * 100,
        "text": b"hello, this is not a model\n",
        "empty": b"",
    }
    out = {}
    for name, data in files.items():
        out[name] = tmp_path / f"{name}.onnx"
        out[name].write_bytes(data)
    out["folder"] = tmp_path / "folder.onnx"
    out["folder"].mkdir()
    out["missing"] = tmp_path / "missing.onnx"
    return out


@pytest.mark.parametrize("how", ["convert", "operators", "inspect"])
def test_a_bad_onnx_is_one_line(
    how: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A truncated .onnx gave a 29-line protobuf traceback; now one line naming the file."""
    for name, path in bad_onnx_files(tmp_path).items():
        argv = {
            "convert": ["convert", str(path), str(tmp_path / "out.ort")],
            "operators": ["inspect", "--operators", str(path)],
            "inspect": ["inspect", str(path)],
        }[how]
        code, _ = main(*argv)
        err = error_lines(capsys)
        assert code == 1 and len(err) == 1, (name, err)
        assert err[0].startswith(f"wireplan: error: {path}: "), err
        assert not (tmp_path / "out.ort").exists()
    code, _ = main("convert", str(tmp_path / "truncated.onnx"), str(tmp_path / "out.ort"))
    (line,) = error_lines(capsys)
    # The graph's length runs past the end of the cut file: named with its offset.
    assert "at byte " in line and "past the end of the file" in line and "graph" in line


def test_a_truncated_onnx_through_the_real_command(tmp_path: Path) -> None:
    good = one_node_onnx(tmp_path / "good.onnx").read_bytes()
    bad = tmp_path / "cut.onnx"
    bad.write_bytes(good[:100])
    done = subprocess.run(
        [sys.executable, "-m", "wireplan", "convert", str(bad), str(tmp_path / "cut.ort")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"wireplan: error: {bad}: at byte ")


def test_read_onnx_errors() -> None:
    from wireplan import DecodeError
    from wireplan.ort.protowire import framing_problem

    # A varint key that never ends, a length past the end, an end-group without its start.
    assert framing_problem(b"\xff" * 12) == (0, "$", "a varint longer than 10 bytes")
    found = framing_problem(b"\x08\x08\x3a\x05\x0a\x01")
    assert found is not None and found[0] == 3 and "graph (field 7) declares 5 bytes" in found[2]
    found = framing_problem(b"\x08\x08\x3a\x04\x0a\x05\x0a\x00")
    assert found is not None and found[:2] == (5, "$.graph") and "node (field 1)" in found[2]
    assert framing_problem(b"\x08\x08") is None
    assert issubclass(DecodeError, ValueError)


def test_bad_dims_are_refused_by_every_conversion(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """dims [16, 9] over 512 bytes of float32 passed and converted to an .onnx onnxruntime refuses."""
    from wireplan import DecodeError
    from wireplan.ort import load, to_onnx

    bad, _ = ort_with_dims(tmp_path / "bad.ort", (16, 9))
    code, text = main("inspect", str(bad))
    assert code == 0 and "problem (convert refuses this model)" in text and "needs 576" in text
    with load(bad) as om, pytest.raises(DecodeError) as info:
        to_onnx(om)
    raw_data_at = info.value.offset
    assert info.value.path == "$.model.graph.initializers[0].raw_data"
    assert raw_data_at is not None and 0 < raw_data_at < bad.stat().st_size
    for dst, extra in (("b.onnx", ()), ("e.onnx", ("--external-data",)), ("b5.ort", ())):
        code, _ = main("convert", str(bad), str(tmp_path / dst), *extra)
        (line,) = error_lines(capsys)
        assert code == 1 and line.startswith(f"wireplan: error: {bad}: at byte {raw_data_at} ")
        assert "512 bytes of raw_data, but FLOAT (16, 9) needs 576" in line
        assert not (tmp_path / dst).exists()


def test_huge_dims_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """dims [2**40, 2**30] converted to a file onnx.checker rejects."""
    huge, dims_at = ort_with_dims(tmp_path / "huge.ort", (2**40, 2**30))
    for dst in ("h.onnx", "h.ort"):
        code, _ = main("convert", str(huge), str(tmp_path / dst))
        (line,) = error_lines(capsys)
        assert code == 1 and f"at byte {dims_at} ($.model.graph.initializers[0].dims)" in line
        assert "too large for any array" in line and not (tmp_path / dst).exists()
    code, out = main("inspect", "--json", str(huge))
    (facts,) = json.loads(out)["files"]
    assert (
        code == 0 and len(facts["problems"]) == 1 and f"at byte {dims_at}" in facts["problems"][0]
    )


def test_inspect_describes_an_onnx(tmp_path: Path) -> None:
    """`wireplan inspect model.onnx` said "not a format wireplan knows"."""
    path = one_node_onnx(tmp_path / "m.onnx")
    code, text = main("inspect", str(path))
    assert code == 0
    assert text.startswith(f"{path}: ONNX model, ")
    assert "ir_version 8, producer tests" in text and "opsets: ai.onnx 17" in text
    assert "graph: 1 node, 1 input, 1 output" in text and "nodes by op type: Add 1" in text
    assert "initializers: 1, payload 512 bytes in 1 tensor\n" in text
    # Without the suffix: recognised by its first bytes, not taken for an EValue.
    bare = tmp_path / "model.pb"
    bare.write_bytes(path.read_bytes())
    code, again = main("inspect", str(bare))
    assert code == 0 and again.replace(str(bare), str(path)) == text


def test_no_wrong_plurals_for_one(tmp_path: Path) -> None:
    onnx_path = one_node_onnx(tmp_path / "one.onnx")
    ort_path = tmp_path / "one.ort"
    assert main("convert", str(onnx_path), str(ort_path), "--no-float16-casts")[0] == 0
    for path in (onnx_path, ort_path):
        code, text = main("inspect", str(path))
        assert code == 0
        for wrong in ("1 nodes", "1 inputs", "1 outputs", "1 tensors", "(1 bytes)", " 1 bytes"):
            assert wrong not in text, (wrong, text)
        assert "1 node," in text and "1 input," in text and "1 tensor" in text


def test_inspect_json(
    tmp_path: Path, weights_ort: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    onnx_path = one_node_onnx(tmp_path / "m.onnx")
    missing = tmp_path / "missing.ort"
    code, out = main("inspect", "--json", str(weights_ort), str(missing), str(onnx_path))
    # The file that failed is one line on stderr; the others are still printed.
    (line,) = error_lines(capsys)
    assert code == 1 and line.startswith(f"wireplan: error: {missing}: ")
    doc = json.loads(out)
    assert doc["wireplan_inspect"] == 1
    ort_facts, onnx_facts = doc["files"]
    common = {
        "path", "format", "size", "ir_version", "producer", "opsets", "nodes", "subgraph_nodes",
        "nodes_by_op", "inputs", "outputs", "initializers", "payload_bytes", "payload_alignment",
        "external_data",
    }  # fmt: skip
    assert common <= set(ort_facts) and common <= set(onnx_facts)
    assert ort_facts["path"] == str(weights_ort) and ort_facts["format"] == "ort"
    assert ort_facts["format_version"] == peer.FORMAT_VERSION
    assert ort_facts["size"] == weights_ort.stat().st_size
    assert ort_facts["nodes_by_op"] == {"Add": 4} and ort_facts["initializers"] == 4
    assert ort_facts["payload_alignment"] == {"4": 4} and ort_facts["external_data"] is None
    assert ort_facts["problems"] == []
    assert onnx_facts["path"] == str(onnx_path) and onnx_facts["format"] == "onnx"
    assert onnx_facts["opsets"] == {"ai.onnx": 17} and onnx_facts["producer"] == "tests"
    assert (onnx_facts["nodes"], onnx_facts["inputs"], onnx_facts["outputs"]) == (1, ["x"], ["y"])
    assert (onnx_facts["initializers"], onnx_facts["payload_bytes"]) == (1, 512)
    assert sum(onnx_facts["payload_alignment"].values()) == 1


def test_inspect_json_external_data(tmp_path: Path, weights_ort: Path) -> None:
    dst = tmp_path / "w.onnx"
    assert main("convert", str(weights_ort), str(dst), "--external-data")[0] == 0
    code, out = main("inspect", "--json", str(dst))
    (facts,) = json.loads(out)["files"]
    assert code == 0 and facts["external_data"]["file"] == "w.onnx.data"
    assert facts["external_data"]["tensors"] == 4 and facts["payload_bytes"] == 0
    assert facts["external_data"]["bytes"] == sum(
        len(t.raw_data) for t in onnx.load(str(dst)).graph.initializer
    )


def test_inspect_flags_that_do_not_apply(
    weights_ort: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _ = main("inspect", "--json", "--operators", str(weights_ort))
    assert code == 2 and error_lines(capsys) == [
        "wireplan: error: --json does not apply to --operators"
    ]
    code, _ = main("inspect", "--record", "2", str(weights_ort))
    (line,) = error_lines(capsys)
    assert code == 1 and line.endswith("--record applies to EValue record files")


def test_sparse_dense_shape_no_array_can_have(feature_ort: Path) -> None:
    import numpy as np

    from wireplan import DecodeError, EncodeError
    from wireplan.ort import load, to_onnx
    from wireplan.ort.reader import field_byte

    with load(feature_ort) as om:
        sp = om.graph.sparse_initializers[0]
        sp.dims = np.array([2**40, 2**30], dtype="<i8")
        with pytest.raises(DecodeError, match="dense shape") as info:
            to_onnx(om)
        where = "$.model.graph.sparse_initializers[0].dims"
        assert info.value.path == where
        assert info.value.offset == field_byte(om.source.buffer, where) > 0
        om.source = None  # as if built in memory: the bytes are not at hand
        with pytest.raises(EncodeError, match="dense shape"):
            to_onnx(om)


# --- the `wireplan ort` group: the same commands, under the wing's name ------------------------


def test_ort_group_inspect_says_what_inspect_says(
    weights_ort: Path, feature_ort: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = [str(weights_ort), str(feature_ort)]
    assert main("ort", "inspect", *files) == main("inspect", *files)
    assert main("ort", "inspect", "--json", *files) == main("inspect", "--json", *files)
    code, text = main("ort", "inspect", "--json", str(weights_ort))
    assert code == 0 and json.loads(text)["files"][0]["format"] == "ort"
    # A file that cannot be read is one error line; the others are still described.
    missing = str(tmp_path / "missing.ort")
    code, text = main("ort", "inspect", missing, str(weights_ort))
    assert code == 1 and "ONNX Runtime .ort model" in text
    err = capsys.readouterr().err
    assert err.startswith(f"wireplan: error: {missing}: ") and err.count("\n") == 1
    empty = tmp_path / "empty.ort"
    empty.write_bytes(b"")
    assert main("ort", "inspect", str(empty))[0] == 1
    assert "empty file" in capsys.readouterr().err


def test_ort_group_operators_is_inspect_operators(weights_ort: Path, feature_ort: Path) -> None:
    files = [str(weights_ort), str(feature_ort)]
    code, text = main("ort", "operators", *files)
    assert code == 0 and "ai.onnx;" in text
    assert (code, text) == main("inspect", "--operators", *files)
    typed = main("ort", "operators", "--type-reduction", *files)
    assert typed == main("inspect", "--operators", "--type-reduction", *files)


def test_ort_group_convert_writes_what_convert_writes(feature_ort: Path, tmp_path: Path) -> None:
    a, b = tmp_path / "a.onnx", tmp_path / "b.onnx"
    assert main("convert", str(feature_ort), str(a))[0] == 0
    code, text = main("ort", "convert", str(feature_ort), str(b))
    assert code == 0 and text == f"wrote {b}\n"
    assert a.read_bytes() == b.read_bytes()
    c, d = tmp_path / "c.ort", tmp_path / "d.ort"
    options = ("--format-version", "5", "--alignment", "256", "--no-fsync")
    assert main("convert", str(a), str(c), *options)[0] == 0
    assert main("ort", "convert", str(a), str(d), *options)[0] == 0
    # the same tables (optimizing, the file keeps onnxruntime's layout of them, which 1.15
    # does not make the same twice)
    with load(c) as x, load(d) as y:
        assert tables(x) == tables(y)


def test_ort_group_flags_that_do_not_apply(
    feature_ort: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dst = str(tmp_path / "x.onnx")
    assert main("ort", "convert", str(feature_ort), dst, "--format-version", "5")[0] == 1
    assert "--format-version applies to conversions that write an .ort only" in (
        capsys.readouterr().err
    )
    with pytest.raises(SystemExit) as exit_:
        main("ort", "inspect", "--record", "1", str(feature_ort))
    assert exit_.value.code == 2
    with pytest.raises(SystemExit):
        main("ort")


# --- a folder of models, as onnxruntime's converter takes one ---------------------------------


def test_convert_a_folder_as_onnxruntimes_converter(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ort_write.test_optimized import converter, graph_of

    models = tmp_path / "models"
    (models / "sub" / "deeper").mkdir(parents=True)
    for name in ("a.onnx", "sub/b.ONNX", "sub/deeper/c.onnx", "a.optimized.onnx"):
        one_node_onnx(models / name)
    (models / "notes.txt").write_text("not a model")
    theirs, ours = tmp_path / "theirs", tmp_path / "ours"
    done = converter(models, theirs, "--optimization_style", "Fixed")
    assert done.returncode == 0, done.stdout + done.stderr
    code, text = main("convert", str(models), str(ours))
    assert code == 0, capsys.readouterr().err
    written = sorted(p.relative_to(ours).as_posix() for p in ours.rglob("*.ort"))
    assert written == sorted(p.relative_to(theirs).as_posix() for p in theirs.rglob("*.ort"))
    assert written == ["a.ort", "sub/b.ort", "sub/deeper/c.ort"]
    assert text.splitlines() == [
        f"skipped {models / 'a.optimized.onnx'} (an .optimized.onnx, as onnxruntime's "
        "converter skips them)",
        *(f"wrote {ours / name}" for name in written),
    ]
    for name in written:
        with load(ours / name) as x, load(theirs / name) as y:
            assert graph_of(x) == graph_of(y)
    # the converter's other output: the config of a reduced build, from the folder's .ort
    code, text = main("ort", "operators", str(ours))
    config = (theirs / "required_operators.config").read_text()
    assert code == 0 and _config_lines(text) == _config_lines(config) != []
    assert [line for line in text.splitlines() if line.startswith("# - ")] == [
        f"# - {ours / name}" for name in written
    ]
    assert main("inspect", "--operators", str(models / "sub")) == (1, "")
    assert error_lines(capsys) == [
        f"wireplan: error: {models / 'sub'}: a folder holding no .ort model"
    ]


def _config_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if not line.startswith("#")]


def test_a_folder_goes_on_past_a_model_that_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    models, out = tmp_path / "models", tmp_path / "out"
    models.mkdir()
    one_node_onnx(models / "a.onnx")
    (models / "b.onnx").write_bytes(b"\xff" * 100)
    one_node_onnx(models / "c.onnx")
    code, text = main("convert", str(models), str(out), "--optimization", "none")
    assert code == 1
    assert text.splitlines() == [f"wrote {out / 'a.ort'}", f"wrote {out / 'c.ort'}"]
    err = error_lines(capsys)
    assert len(err) == 2 and err[0].startswith(f"wireplan: error: {models / 'b.onnx'}: at byte ")
    assert err[1] == f"wireplan: error: {models}: 1 of 3 models not converted"
    assert sorted(p.name for p in out.iterdir()) == ["a.ort", "c.ort"]
    # each .ort is the one converting that model by name writes
    alone = tmp_path / "alone.ort"
    assert main("convert", str(models / "c.onnx"), str(alone), "--optimization", "none")[0] == 0
    assert (out / "c.ort").read_bytes() == alone.read_bytes()


def test_a_missing_extra_stops_a_folder_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from wireplan.errors import MissingExtraError
    from wireplan.ort import convert_cli

    def missing(*_: object, **__: object) -> None:
        raise MissingExtraError("optimizing a model", "onnxruntime", "onnxruntime")

    monkeypatch.setattr(convert_cli, "convert", missing)
    models = tmp_path / "models"
    models.mkdir()
    for name in ("a.onnx", "b.onnx"):
        one_node_onnx(models / name)
    assert main("convert", str(models), str(tmp_path / "out")) == (1, "")
    assert error_lines(capsys) == [
        "wireplan: error: optimizing a model needs onnxruntime, which is not installed: "
        'pip install "wireplan[onnxruntime]"'
    ]
    # so is a custom operator library that is not there
    gone = tmp_path / "gone.so"
    flags = ("--custom-op-library", str(gone))
    assert main("convert", str(models), str(tmp_path / "out"), *flags) == (1, "")
    assert error_lines(capsys) == [f"wireplan: error: {gone}: No such file or directory"]


def test_convert_into_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = one_node_onnx(tmp_path / "m.onnx")
    there = tmp_path / "there"
    there.mkdir()
    assert main("convert", str(src), str(there), "--optimization", "none") == (
        0,
        f"wrote {there / 'm.ort'}\n",
    )
    new = tmp_path / "new"  # a path that ends with a separator: a folder, made
    assert main("convert", str(src), f"{new}/", "--optimization", "none")[0] == 0
    assert (new / "m.ort").read_bytes() == (there / "m.ort").read_bytes()
    empty, twice = tmp_path / "empty", tmp_path / "twice"
    empty.mkdir()
    twice.mkdir()
    one_node_onnx(twice / "x.onnx")
    one_node_onnx(twice / "x.ONNX")
    refused = {
        (str(there / "m.ort"), str(there)): f"{there}: a folder; name the file to write in it",
        (str(twice), str(there / "m.ort")): f"{there / 'm.ort'}: a file; converting the folder",
        (str(empty), str(there)): f"{empty}: a folder holding no .onnx model",
        (str(twice), str(there)): f"{twice}: two models would both be written to {there / 'x.ort'}",
        (str(tmp_path / "gone.onnx"), f"{tmp_path / 'nowhere'}/"): "gone.onnx",
    }
    for (a, b), says in refused.items():
        assert main("convert", a, b, "--optimization", "none") == (1, "")
        (line,) = error_lines(capsys)
        assert says in line, line
    assert sorted(p.name for p in there.iterdir()) == ["m.ort"]
    assert not (tmp_path / "nowhere").exists()


def run_unread(*argv: str) -> subprocess.CompletedProcess[str]:
    """``python -m wireplan ARGV`` writing to a pipe that nobody reads (``... | head``, gone)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run(
            [sys.executable, "-m", "wireplan", *argv],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    finally:
        os.close(write_end)


def test_an_unread_output_stops_quietly(tmp_path: Path, feature_ort: Path) -> None:
    """``wireplan inspect a b | head`` said "b: Broken pipe" and went on; ``convert FOLDER``
    said each model failed (they were written) and "3 of 3 models not converted"."""
    onnx_model = one_node_onnx(tmp_path / "m.onnx")
    done = run_unread("inspect", str(feature_ort), str(onnx_model))
    assert (done.returncode, done.stderr) == (141, "")
    models = tmp_path / "models"
    models.mkdir()
    for name in ("a.onnx", "b.onnx", "c.onnx"):
        one_node_onnx(models / name)
    out = tmp_path / "out"
    done = run_unread("convert", str(models), str(out), "--optimization", "none")
    assert (done.returncode, done.stderr) == (141, "")
    # as a command killed by SIGPIPE: the model whose line could not be written is whole
    assert [p.name for p in out.iterdir()] == ["a.ort"]
    with load(out / "a.ort") as om:
        assert om.graph.nodes[0].op_type == "Add"


def test_inspect_a_folder_of_models(
    tmp_path: Path, feature_ort: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder without EValue record files stands for its models, sub-folders too (it said
    "no EValue record files in the folder"); one without models says what it looked for."""
    models = tmp_path / "models"
    (models / "sub").mkdir(parents=True)
    one_node_onnx(models / "b.onnx")
    (models / "sub" / "a.ort").write_bytes(feature_ort.read_bytes())
    (models / "notes.txt").write_text("not a model")
    code, text = main("inspect", str(models))
    heads = [line for line in text.splitlines() if not line.startswith(" ")]
    b, a = models / "b.onnx", models / "sub" / "a.ort"
    assert code == 0 and heads == [
        f"{b}: ONNX model, {size(b.stat().st_size)}",
        f"{a}: ONNX Runtime .ort model, format version {peer.FORMAT_VERSION}, "
        f"{size(a.stat().st_size)}",
    ], heads
    assert text == main("inspect", str(models / "b.onnx"), str(models / "sub" / "a.ort"))[1]
    code, text = main("inspect", "--json", str(models))
    assert [f["path"] for f in json.loads(text)["files"]] == [
        str(models / "b.onnx"),
        str(models / "sub" / "a.ort"),
    ]
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main("inspect", str(empty)) == (1, "")
    assert error_lines(capsys) == [
        f"wireplan: error: {empty}: a folder holding no EValue record file, .ort or .onnx model"
    ]
    assert main("ort", "inspect", str(empty), str(models / "b.onnx"))[0] == 1  # goes on
    assert error_lines(capsys) == [
        f"wireplan: error: {empty}: a folder holding no .ort or .onnx model"
    ]
