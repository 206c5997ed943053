"""``required_operators``: the reduced-build config, checked against onnxruntime's own writer.

The oracle is the installed onnxruntime's ``create_config_from_models``
(comment lines dropped).  Hand-made models cover subgraphs, outer-scope
values, several domains, string, float16, sequence and map types and every
kind of type tracking; a sample of the conformance corpus covers the .ort
files onnxruntime writes and the ones our writer writes (``-m slow``: all
of it; ``python tests/ort/operators_corpus.py`` prints the counts).
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from wireplan import ArgumentError, EncodeError, cli
from wireplan.ort import OrtModel, load, required_operators, to_bytes
from wireplan.ort.model import (
    Attribute,
    Graph,
    MapType,
    Model,
    Node,
    OperatorSetId,
    SequenceType,
    TensorTypeAndShape,
    TypeInfo,
    ValueInfo,
)
from wireplan.ort.operators import TRACKED, operator_usage
from wireplan.ort.schema import ATTRIBUTE_TYPE, TENSOR_DATA_TYPE

from . import operators_corpus
from .conftest import feature_model, release_feature_model, save_ort

T = TENSOR_DATA_TYPE


def tensor(name: str, elem: str) -> ValueInfo:
    return ValueInfo(name=name, type=TypeInfo(value=TensorTypeAndShape(elem_type=T[elem])))


def node(
    op: str, ins: list[str], outs: list[str], since: int, domain: str = "", **graphs: Graph
) -> Node:
    attrs = [Attribute(name=k, type=ATTRIBUTE_TYPE["GRAPH"], g=g) for k, g in graphs.items()]
    return Node(
        name=f"{op}_{outs[0]}",
        domain=domain,
        op_type=op,
        since_version=since,
        inputs=ins,
        outputs=outs,
        attributes=attrs,
        input_arg_counts=np.ones(len(ins), dtype="<i4"),
    )


def model(graph: Graph) -> OrtModel:
    opsets = [("", 19), ("ai.onnx.ml", 4), ("com.microsoft", 1)]
    return OrtModel(
        model=Model(
            ir_version=9,
            opset_import=[OperatorSetId(domain=d, version=v) for d, v in opsets],
            graph=graph,
        )
    )


def hand_made() -> OrtModel:
    """Every way types are tracked, in a main graph, an If and a Loop body."""
    then_g = Graph(
        node_args=[tensor("t", "FLOAT")],
        nodes=[node("Relu", ["x"], ["t"], 14)],
        outputs=["t"],
    )
    else_g = Graph(
        node_args=[tensor("e", "STRING")],
        nodes=[node("Cast", ["i64"], ["e"], 19)],  # int64 -> string
        outputs=["e"],
    )
    body = Graph(
        node_args=[
            tensor("it", "INT64"),
            tensor("cin", "BOOL"),
            tensor("v", "DOUBLE"),
            tensor("cout", "BOOL"),
            tensor("vd", "DOUBLE"),
            tensor("w", "DOUBLE"),
            # A name the body shadows: its own type wins over the outer one.
            tensor("i64", "INT32"),
        ],
        nodes=[
            node("Identity", ["cin"], ["cout"], 16),
            node("Sub", ["v", "v"], ["vd"], 14),  # double
            node("Where", ["cin", "vd", "vd"], ["w"], 16),  # input 1: double
            node("Cast", ["x"], ["xd"], 19),  # outer-scope x: float -> (outer) float16
            node("Gather", ["x", "i64"], ["g2"], 13),  # outer x, shadowed i64: int32
        ],
        inputs=["it", "cin", "v"],
        outputs=["cout", "w"],
    )
    body.node_args += [tensor("xd", "FLOAT16"), tensor("g2", "FLOAT")]
    main = Graph(
        node_args=[
            tensor("x", "FLOAT"),
            tensor("i64", "INT64"),
            tensor("s", "STRING"),
            tensor("h", "FLOAT16"),
            tensor("cond", "BOOL"),
            tensor("q", "UINT8"),
            tensor("qs", "FLOAT"),
            tensor("a", "FLOAT"),
            tensor("c", "INT64"),
            tensor("g", "FLOAT"),
            tensor("hm", "FLOAT16"),
            tensor("le", "INT64"),
            tensor("fm", "FLOAT"),
            tensor("qa", "UINT8"),
            tensor("r", "FLOAT"),
            tensor("lp", "DOUBLE"),
            tensor("oh", "FLOAT"),
            tensor("cos", "FLOAT16"),
            tensor("sl1", "FLOAT"),
            tensor("sl13", "FLOAT"),
            ValueInfo(
                name="sq",
                type=TypeInfo(value=SequenceType(elem_type=tensor("", "FLOAT").type)),
            ),
            tensor("smo", "FLOAT"),
        ],
        nodes=[
            node("Add", ["x", "x"], ["a"], 14),
            node("Cast", ["a"], ["c"], 19),  # float -> int64
            node("Gather", ["x", "i64"], ["g"], 13),
            node("MatMul", ["h", "h"], ["hm"], 13),  # float16
            node("LabelEncoder", ["s"], ["le"], 4, "ai.onnx.ml"),  # not tracked
            node("FusedMatMul", ["x", "x"], ["fm"], 1, "com.microsoft"),  # not tracked
            node(
                "QLinearAdd",
                ["q", "qs", "q", "q", "qs", "q", "qs", "q"],
                ["qa"],
                1,
                "com.microsoft",
            ),
            node("If", ["cond"], ["r"], 19, then_branch=then_g, else_branch=else_g),
            node("Loop", ["i64", "cond", "lp"], ["lpo"], 19, body=body),
            node("OneHot", ["i64", "c", "x"], ["oh"], 11),  # (input 0, input 2, input 1)
            node("ConstantOfShape", ["i64"], ["cos"], 9),  # output 0: float16
            node("Slice", ["x"], ["sl1"], 1),  # Slice-1: input 1 absent
            node("Slice", ["x", "i64", "i64"], ["sl13"], 13),
            node("Abs", ["sq"], ["smo"], 13),  # a sequence counts as its element type
        ],
        inputs=["x", "i64", "s", "h", "cond", "q", "qs", "lp", "sq"],
        outputs=["r", "oh"],
    )
    main.node_args += [tensor("lpo", "DOUBLE")]
    return model(main)


EXPECTED = """\
ai.onnx;1;Slice
ai.onnx;9;ConstantOfShape
ai.onnx;11;OneHot
ai.onnx;13;Abs,Gather,MatMul,Slice
ai.onnx;14;Add,Relu,Sub
ai.onnx;16;Identity,Where
ai.onnx;19;Cast,If,Loop
ai.onnx.ml;4;LabelEncoder
com.microsoft;1;FusedMatMul,QLinearAdd
"""

TYPES = {
    "Abs": '{"inputs": {"0": ["float"]}}',
    "Add": '{"inputs": {"0": ["float"]}}',
    "Cast": '{"inputs": {"0": ["float", "int64_t"]}, "outputs": {"0": ["MLFloat16", "int64_t", "std::string"]}}',
    "ConstantOfShape": '{"outputs": {"0": ["MLFloat16"]}}',
    "Gather": '{"inputs": {"0": ["float"], "1": ["int32_t", "int64_t"]}}',
    "MatMul": '{"inputs": {"0": ["MLFloat16"]}}',
    "OneHot": '{"custom": [["int64_t", "float", "int64_t"]]}',
    "QLinearAdd": '{"inputs": {"0": ["uint8_t"]}}',
    "Relu": '{"inputs": {"0": ["float"]}}',
    "Slice": '{"inputs": {"0": ["float"], "1": ["int64_t"]}}',
    "Sub": '{"inputs": {"0": ["double"]}}',
    "Where": '{"inputs": {"1": ["double"]}}',
}


def with_types(config: str) -> str:
    lines = []
    for line in config.splitlines():
        domain, version, ops = line.split(";")
        ops = ",".join(op + TYPES.get(op, "") for op in ops.split(","))
        lines.append(f"{domain};{version};{ops}\n")
    return "".join(lines)


def body(text: str) -> str:
    return operators_corpus.strip_comments(text)


# --- the format, without onnxruntime ----------------------------------------------------------


def test_hand_made_operators() -> None:
    text = required_operators(hand_made())
    assert text.startswith("# Generated by wireplan from model/s:\n# - <OrtModel>\n")
    assert body(text) == EXPECTED


def test_hand_made_type_reduction() -> None:
    assert body(required_operators(hand_made(), type_reduction=True)) == with_types(EXPECTED)


def test_models_merge() -> None:
    a = model(Graph(node_args=[tensor("x", "FLOAT")], nodes=[node("Relu", ["x"], ["y"], 14)]))
    b = model(Graph(node_args=[tensor("x", "INT8")], nodes=[node("Relu", ["x"], ["y"], 6)]))
    b.model.graph.nodes.append(node("Erf", ["x"], ["z"], 13))  # type: ignore[union-attr]
    text = body(required_operators([a, b], type_reduction=True))
    relu = 'Relu{"inputs": {"0": ["float", "int8_t"]}}'
    assert text == f"ai.onnx;6;{relu}\nai.onnx;13;Erf\nai.onnx;14;{relu}\n"
    assert operator_usage([a, b]).sources == ["<OrtModel>", "<OrtModel>"]


def test_map_types(tmp_path: Path) -> None:
    """A map is ``std::map<key,value>`` (a sequence of maps too).

    No operator whose types are tracked takes a map, and onnxruntime's tool fails on one
    (its types.py calls ``MapType.init``, which does not exist); if it ever stops failing,
    it must agree.
    """
    map_type = TypeInfo(value=MapType(key_type=T["INT64"], value_type=tensor("", "FLOAT").type))
    m = model(
        Graph(
            node_args=[ValueInfo(name="m", type=TypeInfo(value=SequenceType(elem_type=map_type)))],
            nodes=[node("Abs", ["m"], ["y"], 13)],
        )
    )
    ours = body(required_operators(m, type_reduction=True))
    assert ours == 'ai.onnx;13;Abs{"inputs": {"0": ["std::map<int64_t,float>"]}}\n'
    path = tmp_path / "m.ort"
    path.write_bytes(to_bytes(m, float16_casts=False))
    try:
        theirs = operators_corpus.theirs([str(path)], True, str(tmp_path))
    except AttributeError as exc:
        assert "init" in str(exc)
    else:
        assert ours == theirs


def test_types_are_read_only_under_type_reduction() -> None:
    """Untyped values are fine for the operator list; a tracked one is an error with a path."""
    m = model(Graph(nodes=[node("Add", ["x", "x"], ["y"], 14)]))
    assert body(required_operators(m)) == "ai.onnx;14;Add\n"
    with pytest.raises(EncodeError, match=r"nodes\[0\].*input 0 \('x'\) of Add .* no type"):
        required_operators(m, type_reduction=True)


@pytest.mark.parametrize("elem", ["UNDEFINED", "COMPLEX64"])
def test_types_without_a_cpp_name_are_refused(elem: str) -> None:
    m = model(Graph(node_args=[tensor("x", elem)], nodes=[node("Abs", ["x"], ["y"], 13)]))
    with pytest.raises(EncodeError, match=f"element type {T[elem]} \\({elem}\\)"):
        required_operators(m, type_reduction=True)
    assert body(required_operators(m)) == "ai.onnx;13;Abs\n"


def test_missing_tracked_output_is_refused() -> None:
    m = model(Graph(node_args=[tensor("x", "FLOAT")], nodes=[node("Cast", ["x"], [""], 19)]))
    m.model.graph.nodes[0].outputs = []  # type: ignore[union-attr]
    with pytest.raises(EncodeError, match="output 0 is needed"):
        required_operators(m, type_reduction=True)


def test_bad_inputs(tmp_path: Path) -> None:
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"not a model")
    with pytest.raises(ArgumentError, match=r"neither an \.ort model"):
        required_operators(junk)
    with pytest.raises(ArgumentError, match="not int"):
        required_operators([3])  # type: ignore[list-item]


def test_ort_path_needs_neither_onnx_nor_onnxruntime(feature_ort: Path) -> None:
    probe = (
        "import sys\nfrom wireplan.ort import required_operators\n"
        f"print(required_operators({str(feature_ort)!r}, type_reduction=True), end='')\n"
        "print('HEAVY', [m for m in ('onnx', 'onnxruntime') if m in sys.modules])"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    text, heavy = done.stdout.rsplit("HEAVY", 1)
    assert heavy.strip() == "[]"
    assert 'ai.onnx;14;Add{"inputs": {"0": ["float"]}},Relu' in text


# --- onnxruntime's writer as the oracle ---------------------------------------------------------


def test_tracked_table_is_onnxruntimes() -> None:
    from onnxruntime.tools.ort_format_model.operator_type_usage_processors import (
        _create_operator_type_usage_processors,
    )

    theirs = {}
    for key, p in _create_operator_type_usage_processors().items():
        if key == "ai.onnx:OneHot":
            continue
        domain, op = key.split(":")
        theirs[domain, op] = (tuple(p._input_types), tuple(p._output_types))
    ours = dict(TRACKED)
    if ("com.microsoft", "GatherPacked") not in theirs:  # releases before the operator existed
        del ours["com.microsoft", "GatherPacked"]
    assert ours == theirs


#: The schemas of hand_made's com.microsoft operators, as onnxruntime registers them; its
#: file's resolver needs them where onnxruntime does not export its schemas (1.15).
CONTRIB = {
    "FusedMatMul": (1, [("A", "T"), ("B", "T")], [("Y", "T")], ["T"]),
    "QLinearAdd": (
        1,
        [
            ("A", "T"),
            ("A_scale", "tensor(float)"),
            ("A_zero_point", "T"),
            ("B", "T"),
            ("B_scale", "tensor(float)"),
            ("B_zero_point", "T"),
            ("C_scale", "tensor(float)"),
            ("C_zero_point", "T"),
        ],
        [("C", "T")],
        ["T"],
    ),
}


def test_contrib_schemas_are_onnxruntimes() -> None:
    from ort_write import peer
    from wireplan.ort.onnxruntime_door import contrib_op_signature

    for op, sig in CONTRIB.items():
        found = contrib_op_signature("com.microsoft", op, 1)
        assert found == (sig if peer.EXPORTS_SCHEMAS else None)


def hand_made_file() -> bytes:
    """hand_made() written in the format the installed onnxruntime reads."""
    from ort_write import peer
    from wireplan.ort import kernel_types
    from wireplan.ort.model import KernelTypeStrResolver

    model = hand_made()
    if not peer.EXPORTS_SCHEMAS:
        entries = [kernel_types.entry_for("com.microsoft", op, sig) for op, sig in CONTRIB.items()]
        model.kernel_type_str_resolver = KernelTypeStrResolver(entries)
    return bytes(to_bytes(model, float16_casts=False, format_version=peer.FORMAT_VERSION))


@pytest.mark.parametrize("type_reduction", [False, True])
def test_hand_made_matches_onnxruntime(tmp_path: Path, type_reduction: bool) -> None:
    path = tmp_path / "hand.ort"
    path.write_bytes(hand_made_file())
    expected = operators_corpus.theirs([str(path)], type_reduction, str(tmp_path))
    assert body(required_operators(path, type_reduction=type_reduction)) == expected
    assert expected == (with_types(EXPECTED) if type_reduction else EXPECTED)


@pytest.mark.parametrize("type_reduction", [False, True])
def test_onnxruntime_files_match(tmp_path: Path, type_reduction: bool) -> None:
    """A model with subgraphs, strings, sequences and sparse weights, at each level, merged too."""
    model, disabled = release_feature_model()
    paths = [
        str(save_ort(model, tmp_path / f"{lv}.ort", lv, disabled)) for lv in ("basic", "extended")
    ]
    for p in paths:
        expected = operators_corpus.theirs([p], type_reduction, str(tmp_path))
        assert body(required_operators(p, type_reduction=type_reduction)) == expected
    merged = operators_corpus.theirs(paths, type_reduction, str(tmp_path))
    assert body(required_operators(paths, type_reduction=type_reduction)) == merged


def test_onnx_model_counts_as_written(tmp_path: Path) -> None:
    """An .onnx path, a ModelProto and our .ort of it give the same config."""
    import onnx

    proto = feature_model()
    src = tmp_path / "f.onnx"
    onnx.save(proto, str(src))
    dst = tmp_path / "f.ort"
    dst.write_bytes(to_bytes(proto))
    expected = operators_corpus.theirs([str(dst)], True, str(tmp_path))
    for m in (src, proto, dst):
        assert body(required_operators(m, type_reduction=True)) == expected
    with load(dst) as om:
        assert body(required_operators(om, type_reduction=True)) == expected


def _assert_agrees(outcomes: list[operators_corpus.Outcome], kind: str, least: int) -> None:
    sel = [o for o in outcomes if o.kind == kind]
    bad = [(o.name, o.type_reduction, o.status, o.detail) for o in sel if o.status != "identical"]
    # Both sides refuse only types the config has no name for (int4, float4, int2, ...).
    assert [b for b in bad if b[2] != "both-refuse" or "no C++ type name" not in b[3]] == []
    assert sum(o.status == "identical" for o in sel) >= least
    assert any(o.name.endswith("files merged>") and o.status == "identical" for o in sel)


SAMPLE_STEP = 15


@pytest.fixture(scope="module")
def sample() -> list[operators_corpus.Outcome]:
    sources = operators_corpus.sources()[::SAMPLE_STEP]
    outcomes = list(operators_corpus.check_all(sources, ("extended", "wireplan")))
    print("\n" + operators_corpus.summary(outcomes))
    return outcomes


def test_corpus_sample_onnxruntime_files(sample: list[operators_corpus.Outcome]) -> None:
    _assert_agrees(sample, "extended", 100)


def test_corpus_sample_our_files(sample: list[operators_corpus.Outcome]) -> None:
    """Our writer's .ort (and the .onnx route without a file) against the oracle."""
    _assert_agrees(sample, "wireplan", 100)


@pytest.mark.slow
def test_corpus_full() -> None:
    outcomes = list(operators_corpus.check_all(operators_corpus.sources()))
    print("\n" + operators_corpus.summary(outcomes))
    for kind in operators_corpus.KINDS:
        _assert_agrees(outcomes, kind, 1000)


# --- the command line ---------------------------------------------------------------------------


def run_cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return cli.main(list(argv), out=out), out.getvalue()


def test_cli_operators(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    features, disabled = release_feature_model()
    a = save_ort(features, tmp_path / "a.ort", "basic", disabled)
    b = tmp_path / "b.ort"
    b.write_bytes(hand_made_file())
    for flags, tr in (([], False), (["--type-reduction"], True)):
        code, text = run_cli("inspect", str(a), str(b), "--operators", *flags)
        assert code == 0
        assert text == required_operators([str(a), str(b)], type_reduction=tr)
        assert body(text) == operators_corpus.theirs([str(a), str(b)], tr, str(tmp_path))
    # Without --operators, several files are described one after the other.
    code, text = run_cli("inspect", str(a), str(b))
    assert code == 0 and text.count("ONNX Runtime .ort model") == 2


def test_cli_operators_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    junk = tmp_path / "junk.txt"
    junk.write_text("hello")
    assert run_cli("inspect", str(junk), "--operators") == (1, "")
    assert "neither an .ort model" in capsys.readouterr().err
    assert run_cli("inspect", str(tmp_path / "missing.ort"), "--operators") == (1, "")
    assert "No such file" in capsys.readouterr().err
    untyped = tmp_path / "u.ort"
    m = model(Graph(node_args=[tensor("x", "COMPLEX64")], nodes=[node("Abs", ["x"], ["y"], 13)]))
    untyped.write_bytes(to_bytes(m, float16_casts=False))
    assert run_cli("inspect", str(untyped), "--operators", "--type-reduction") == (1, "")
    err = capsys.readouterr().err
    assert err.startswith("wireplan: error: ") and "COMPLEX64" in err and "Traceback" not in err
    assert run_cli("inspect", str(untyped), "--type-reduction")[0] == 2
    assert "--type-reduction applies to --operators only" in capsys.readouterr().err
