"""Optimization styles: our .ort of a model holds the graph onnxruntime's converter writes
(nodes, fused contrib ops, runtime optimization records, initializers) and runs identically,
and converted to .onnx it holds the same graph and computes the same, on models that PyPI
packages ship (``shipped.py``; CI tests ``shipped.chosen()``'s subset), with the installed
onnxruntime."""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
import pytest

import wireplan.ort
from ort_write import models, peer, shipped
from ort_write.corpus import same
from ort_write.peer import FORMAT_VERSION
from wireplan.errors import ArgumentError, EncodeError, PeerError
from wireplan.ort import optimize
from wireplan.ort.graph import walk_graphs
from wireplan.ort.model import Graph, OrtModel
from wireplan.ort.reader import load, payload_offsets

# onnxruntime's converter names its outputs by style.
_SUFFIX = {"fixed": ".ort", "runtime": ".with_runtime_opt.ort"}


def converter(src: Path, out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m onnxruntime.tools.convert_onnx_models_to_ort SRC --output_dir OUT ARGS``."""
    cmd = [sys.executable, "-m", "onnxruntime.tools.convert_onnx_models_to_ort", str(src),
           "--output_dir", str(out), *args]  # fmt: skip
    return subprocess.run(cmd, capture_output=True, text=True)


def onnxruntimes_own(src: Path, out: Path, style: str, *extra: str) -> Path:
    """The .ort that onnxruntime's converter writes in ``style``."""
    done = converter(src, out, "--optimization_style", style.capitalize(), *extra)
    assert done.returncode == 0, done.stdout + done.stderr
    return out / (src.stem + _SUFFIX[style])


def graph_of(om: OrtModel) -> dict[str, Any]:
    """What must match, graph by graph: nodes (as a multiset: the order in the file follows
    node indices, which onnxruntime leaves with gaps), initializers and their bytes, and
    the runtime optimization records."""
    return {path: held(g) for path, g in walk_graphs(om.model.graph)}


# onnxruntime names the values of a function body it inlines after the node's address (1.15
# expands HardSwish so: "_0x56488f7d6a20_HS_X"), which differs from process to process.
_ADDRESS = re.compile(r"_0x[0-9a-f]+_")


def _stable(name: str) -> str:
    return _ADDRESS.sub("_0x?_", name)


def held(g: Graph) -> tuple[Counter[tuple[Any, ...]], dict[str, Any], list[Any]]:
    """One graph's part of :func:`graph_of`."""
    nodes = Counter(
        (
            _stable(n.name),
            n.domain,
            n.op_type,
            n.since_version,
            tuple(map(_stable, n.inputs)),
            tuple(map(_stable, n.outputs)),
        )
        for n in g.nodes
    )
    inits = {
        _stable(t.name): (t.data_type, tuple(t.dims), bytes(t.raw_data)) for t in g.initializers
    }
    records = []
    if g.runtime_optimizations is not None:
        for e in g.runtime_optimizations.records:
            for r in e.runtime_optimization_records:
                records.append((e.optimizer_name, r.action_id, tuple(r.produced_op_ids)))
    return nodes, inits, sorted(records)


def as_onnx_holds(g: Graph, key: str = "main") -> dict[str, Any]:
    """What an .onnx of the graph must hold: :func:`held` less ``since_version`` (ONNX leaves
    it to the opset imports) and runtime records; a subgraph keyed by its node's first output
    and the attribute's name, as to_onnx may reorder nodes."""
    nodes, inits, _ = held(g)
    out = {key: (Counter({n[:3] + n[4:]: k for n, k in nodes.items()}), inits)}
    for n in g.nodes:
        for a in n.attributes:
            owner = f"{key}/{n.outputs[0] if n.outputs else n.name}.{a.name}"
            if a.g is not None:
                out.update(as_onnx_holds(a.g, owner))
            for k, sub in enumerate(a.graphs):
                out.update(as_onnx_holds(sub, f"{owner}[{k}]"))
    return out


def run(path: Path, feeds: dict[str, Any], replay: bool) -> list[Any]:
    """As a reduced build runs it: no optimizers (ORT_DISABLE_ALL); ``replay``: the saved
    runtime optimization records replayed, which onnxruntime does only from
    ORT_ENABLE_EXTENDED on (an extended minimal build's default is ALL; at DISABLE_ALL it
    ignores them)."""
    so = ort.SessionOptions()
    so.graph_optimization_level = (
        ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        if replay
        else ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    )
    so.log_severity_level = 3
    if replay:
        so.add_session_config_entry("session.enable_saved_runtime_optimizations", "1")
    s = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
    return list(s.run(None, feeds))


def run_or_refusal(path: Path, feeds: dict[str, Any], replay: bool) -> list[Any] | str:
    """:func:`run`, or the first line of onnxruntime's error when it refuses the file."""
    try:
        return run(path, feeds, replay)
    except Exception as exc:  # onnxruntime's own exception types
        return str(exc).strip().splitlines()[0]


def refusal(src: Path) -> str | None:
    """The end of the installed onnxruntime's error when it refuses to load ``src`` (its
    converter then refuses it too: 1.15 takes neither IR version 10 nor ai.onnx.ml opset 5,
    which smart-turn declares), else None."""
    so = ort.SessionOptions()
    so.log_severity_level = 3
    try:
        ort.InferenceSession(str(src), so, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime's own exception types
        return str(exc).strip().splitlines()[0][-60:]
    return None


def refused_alike(src: Path, dst: Path) -> bool:
    """Whether onnxruntime refuses ``src``; if so, our convert must say what it says."""
    why = refusal(src)
    if why is None:
        return False
    for style in ("fixed", "runtime"):
        with pytest.raises(PeerError, match=re.escape(why)):
            wireplan.ort.convert(src, dst, optimization=style)
    assert not dst.exists()
    return True


@pytest.fixture(scope="module", params=sorted(shipped.chosen()))
def model(request: pytest.FixtureRequest) -> tuple[shipped.Shipped, Path]:
    m = shipped.MODELS[request.param]
    return m, shipped.fetch(m)


@pytest.fixture(scope="module")
def smart_turn() -> Path:
    """The quantized model, whose optimized graph has fused contrib operators."""
    return shipped.fetch(shipped.MODELS["smart-turn-v3.2-cpu"])


def test_a_model_onnxruntime_refuses_is_a_peer_error(tmp_path: Path) -> None:
    src = tmp_path / "future.onnx"
    proto = models.contrib()
    proto.ir_version = 99
    src.write_bytes(proto.SerializeToString())
    done = converter(src, tmp_path / "theirs")
    assert done.returncode != 0 and "IR version" in done.stdout + done.stderr
    for style in ("fixed", "runtime"):
        with pytest.raises(PeerError, match=r"could not optimize .*IR version"):
            wireplan.ort.convert(src, tmp_path / "m.ort", optimization=style)
    assert not (tmp_path / "m.ort").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".wireplan")]


@pytest.mark.parametrize("style", ["fixed", "runtime"])
def test_the_same_graph_as_onnxruntimes_converter(
    tmp_path: Path, model: tuple[shipped.Shipped, Path], style: str
) -> None:
    m, src = model
    if refused_alike(src, tmp_path / "ours.ort"):
        return
    theirs = onnxruntimes_own(src, tmp_path, style)
    ours = tmp_path / "ours.ort"
    wireplan.ort.convert(src, ours, optimization=style, format_version=FORMAT_VERSION)
    with load(theirs) as a, load(ours) as b:
        assert graph_of(b) == graph_of(a)
    feeds = shipped.feeds(m)
    replay = style == "runtime"
    got, want = run_or_refusal(ours, feeds, replay), run_or_refusal(theirs, feeds, replay)
    if isinstance(want, str):  # onnxruntime 1.32 cannot replay smart-turn's records, even its own
        assert got == want and "runtime optimization record" in want
    else:
        assert not isinstance(got, str) and same(got, want)
    # what optimizing bought: the unoptimized .ort computes the same within float rounding
    plain = tmp_path / "plain.ort"
    wireplan.ort.convert(src, plain, optimization="none", format_version=FORMAT_VERSION)
    for x, y in zip(run(plain, feeds, False), run(ours, feeds, False), strict=True):
        np.testing.assert_allclose(x, y, rtol=1e-2, atol=1e-2)


def test_the_none_style_runs_as_onnxruntimes_unoptimized_ort(
    tmp_path: Path, model: tuple[shipped.Shipped, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``optimization="none"`` (no onnxruntime involved) against the converter at level
    ``disable``: the same outputs, as a reduced build runs them."""
    m, src = model
    if refused_alike(src, tmp_path / "ours.ort"):
        return
    monkeypatch.setenv("ORT_CONVERT_ONNX_MODELS_TO_ORT_OPTIMIZATION_LEVEL", "disable")
    onnxruntimes_own(src, tmp_path, "fixed")
    theirs = tmp_path / (src.stem + ".disable.ort")  # the level in the name, at this level
    ours = tmp_path / "ours.ort"
    wireplan.ort.convert(src, ours, optimization="none", format_version=FORMAT_VERSION)
    feeds = shipped.feeds(m)
    assert same(run(ours, feeds, False), run(theirs, feeds, False))


@pytest.mark.parametrize("style", ["none", "fixed", "runtime"])
def test_ort_to_onnx_runs_identically(
    tmp_path: Path, model: tuple[shipped.Shipped, Path], style: str
) -> None:
    """Our .ort of each style, converted to .onnx: the same nodes and initializers, graph by
    graph, and the same outputs in onnxruntime as the .ort (runtime records not replayed:
    ONNX has no field for them)."""
    m, src = model
    if refused_alike(src, tmp_path / "ours.ort"):
        return
    ours, back = tmp_path / "ours.ort", tmp_path / "back.onnx"
    wireplan.ort.convert(src, ours, optimization=style, format_version=FORMAT_VERSION)
    wireplan.ort.convert(ours, back)
    with load(ours) as a:
        want = as_onnx_holds(a.model.graph)
    assert as_onnx_holds(wireplan.ort.from_onnx(back).model.graph) == want
    feeds = shipped.feeds(m)
    assert same(run(back, feeds, False), run(ours, feeds, False))


def test_the_default_is_fixed_at_level_all(tmp_path: Path, smart_turn: Path) -> None:
    src = smart_turn
    if refused_alike(src, tmp_path / "default.ort"):
        return
    wireplan.ort.convert(src, tmp_path / "default.ort", format_version=FORMAT_VERSION)
    wireplan.ort.convert(
        src, tmp_path / "fixed.ort", optimization="fixed", level="all",
        format_version=FORMAT_VERSION,
    )  # fmt: skip
    with load(tmp_path / "default.ort") as a, load(tmp_path / "fixed.ort") as b:
        assert graph_of(a) == graph_of(b)
        ops = {n.op_type for n in a.model.graph.nodes}
    assert {"QGemm", "QLinearMatMul"} <= ops  # fused by onnxruntime's extended optimizers


def test_large_models_go_through_an_onnx_with_external_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, smart_turn: Path
) -> None:
    """The route of models past what onnxruntime writes as .ort, forced on a small one:
    the same nodes and outputs as the .ort route (untyped QGemm outputs typed on the way)."""
    m = shipped.MODELS["smart-turn-v3.2-cpu"]
    src = smart_turn
    if refused_alike(src, tmp_path / "direct.ort"):
        return
    wireplan.ort.convert(src, tmp_path / "direct.ort", format_version=FORMAT_VERSION)
    monkeypatch.setattr(optimize, "_ORT_ROUTE_LIMIT", 0)
    if not peer.EXPORTS_SCHEMAS:
        # this route writes the kernel type string resolver itself, from operator schemas
        # that onnxruntime 1.15 does not export: its fused operators are refused by name
        with pytest.raises(EncodeError, match=r"com\.microsoft:Q"):
            wireplan.ort.convert(src, tmp_path / "via.ort", format_version=FORMAT_VERSION)
        return
    wireplan.ort.convert(src, tmp_path / "via.ort", format_version=FORMAT_VERSION)
    with load(tmp_path / "direct.ort") as a, load(tmp_path / "via.ort") as b:
        nodes_a = {p: g[0] for p, g in graph_of(a).items()}
        nodes_b = {p: g[0] for p, g in graph_of(b).items()}
    assert nodes_a == nodes_b
    feeds = shipped.feeds(m)
    assert same(run(tmp_path / "via.ort", feeds, False), run(tmp_path / "direct.ort", feeds, False))
    with pytest.raises(ArgumentError, match="cannot pass 2 GiB"):
        wireplan.ort.convert(src, tmp_path / "r.ort", optimization="runtime")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["direct.ort", "via.ort"]


def test_past_the_memory_limit_the_fixed_style_goes_external(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, smart_turn: Path
) -> None:
    """onnxruntime builds the .ort it writes in memory, so past ``_MEMORY_ROUTE_LIMIT`` bytes
    of weights the fixed style takes the external route, where onnxruntime saves external
    initializers (1.20 on); at the limit, and in the runtime style, the .ort route; both
    routes give the same nodes and outputs (the route's RSS: ``test_big.py``)."""
    m = shipped.MODELS["smart-turn-v3.2-cpu"]
    src = smart_turn
    if refused_alike(src, tmp_path / "at.ort"):
        return
    as_ort: list[bool] = []
    real = optimize._optimize

    def spy(s: Path, d: Path, **settings: Any) -> None:
        as_ort.append(settings["as_ort"])
        real(s, d, **settings)

    monkeypatch.setattr(optimize, "_optimize", spy)
    nbytes = optimize._weight_bytes(src)
    for limit, name, style in (
        (nbytes, "at.ort", "fixed"),
        (nbytes - 1, "past.ort", "fixed"),
        (0, "runtime.ort", "runtime"),
    ):
        monkeypatch.setattr(optimize, "_MEMORY_ROUTE_LIMIT", limit)
        wireplan.ort.convert(
            src, tmp_path / name, optimization=style, format_version=FORMAT_VERSION
        )
    assert as_ort == [True, peer.RELEASE < (1, 20), True]
    with load(tmp_path / "at.ort") as a, load(tmp_path / "past.ort") as b:
        assert {p: g[0] for p, g in graph_of(a).items()} == {
            p: g[0] for p, g in graph_of(b).items()
        }
    feeds = shipped.feeds(m)
    assert same(run(tmp_path / "past.ort", feeds, False), run(tmp_path / "at.ort", feeds, False))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["at.ort", "past.ort", "runtime.ort"]


def test_the_weights_are_bounded_by_a_small_flat_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The route needs only whether the weights fit a limit: the files of a folder without
    subfolders bound them (onnxruntime 1.24+ reads no external data outside the model's
    folder), so the .onnx is searched for external data only when that bound is past the
    limit, or with an onnxruntime that reads data outside the folder."""
    folder = tmp_path / "flat"
    folder.mkdir()
    src = folder / "m.onnx"
    onnx.save_model(models.weights(1 << 16), src, save_as_external_data=True,
                    location="m.onnx.data", size_threshold=0)  # fmt: skip
    (folder / "notes.txt").write_bytes(b"x" * 1000)
    exact = src.stat().st_size + (folder / "m.onnx.data").stat().st_size
    files = exact + 1000
    searched: list[Path] = []
    real = optimize.MappedFile

    def spy(path: Path) -> Any:
        searched.append(Path(path))
        return real(path)

    monkeypatch.setattr(optimize, "MappedFile", spy)
    monkeypatch.setattr(optimize, "_CONTAINED_SINCE", (1, 0))  # any release refuses, here
    assert optimize._weight_bytes(src) == exact and searched == [src]  # no limit: exact
    searched.clear()
    assert optimize._weight_bytes(src, within=files) == files and not searched
    assert optimize._weight_bytes(src, within=files - 1) == exact and searched == [src]
    monkeypatch.setattr(optimize, "_FOLDER_ENTRIES", 2)  # more entries: searched
    assert optimize._weight_bytes(src, within=files) == exact
    monkeypatch.setattr(optimize, "_FOLDER_ENTRIES", 64)
    (folder / "sub").mkdir()  # a subfolder could hold external data: searched
    assert optimize._weight_bytes(src, within=files) == exact
    assert len(searched) == 3
    (tmp_path / "links").mkdir()
    elsewhere = tmp_path / "links" / "m.onnx"  # a link to a model in another folder
    elsewhere.symlink_to(src)
    assert optimize._weight_bytes(elsewhere, within=1 << 40) == exact and len(searched) == 4
    (folder / "sub").rmdir()
    monkeypatch.setattr(optimize, "_CONTAINED_SINCE", (99, 0))  # reads outside: searched
    assert optimize._weight_bytes(src, within=files) == exact and len(searched) == 5
    wireplan.ort.convert(src, tmp_path / "m.ort", optimization="none")


def test_options_that_do_not_apply_are_argument_errors(tmp_path: Path) -> None:
    src = tmp_path / "m.onnx"
    src.write_bytes(models.many_nodes(4).SerializeToString())
    cases: list[tuple[dict[str, Any], str]] = [
        ({"optimization": "full"}, "optimization 'full': use one of fixed, runtime, none"),
        ({"level": "max"}, "optimization level 'max': use one of basic, extended"),
        ({"target_platform": "riscv"}, "target platform 'riscv'"),
        ({"optimization": "none", "level": "basic"}, "apply to optimization 'fixed' or"),
        ({"reuse_data": True, "external_data": True}, "reuse_data applies to optimization 'none'"),
        ({"float16_casts": True}, "float16_casts applies to optimization 'none'"),
    ]
    for options, message in cases:
        with pytest.raises(ArgumentError, match=message):
            wireplan.ort.convert(src, tmp_path / "m.ort", **options)
    wireplan.ort.convert(src, tmp_path / "m.ort", optimization="none")
    with pytest.raises(ArgumentError, match=r"applies to \.onnx -> \.ort conversion only"):
        wireplan.ort.convert(tmp_path / "m.ort", tmp_path / "back.onnx", optimization="fixed")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.onnx", "m.ort"]


def test_command_line_flags(tmp_path: Path, smart_turn: Path) -> None:
    from wireplan.cli import main

    src = smart_turn
    if refused_alike(src, tmp_path / "r.ort"):
        return
    version = ["--format-version", str(FORMAT_VERSION)]
    dst = tmp_path / "r.ort"
    flags = ["--optimization", "runtime", "--target-platform", "arm"]
    assert main(["convert", str(src), str(dst), *flags, *version]) == 0
    theirs = onnxruntimes_own(src, tmp_path, "runtime", "--target_platform", "arm")
    with load(theirs) as a, load(dst) as b:
        assert graph_of(b) == graph_of(a)
        assert any(records for _, _, records in graph_of(b).values())  # smart-turn has some
    for level, fused in (("basic", False), ("extended", True)):
        out = tmp_path / f"{level}.ort"
        flags = ["--optimization", "fixed", "--optimization-level", level]
        assert main(["convert", str(src), str(out), *flags, *version]) == 0
        with load(out) as om:
            assert ("QGemm" in {n.op_type for n in om.model.graph.nodes}) == fused
    assert (
        main(["convert", str(src), str(tmp_path / "n.ort"), "--optimization", "none", *version])
        == 0
    )
    with load(tmp_path / "n.ort") as om:
        assert "QGemm" not in {n.op_type for n in om.model.graph.nodes}


# --- custom operators: the converter's --custom_op_library (onnxruntime-extensions) ----------


def custom_op_model(path: Path) -> Path:
    """``y = n + p`` where ``(n, p) = NegPos(Relu(x + w))``, ``NegPos`` a custom operator of
    onnxruntime-extensions (``ai.onnx.contrib``), ``w`` a float32 [64] weight."""
    import onnx.helper as h
    import onnx.numpy_helper as nh

    f = onnx.TensorProto.FLOAT
    g = h.make_graph(
        [
            h.make_node("Add", ["x", "w"], ["s"]),
            h.make_node("Relu", ["s"], ["r"]),
            h.make_node("NegPos", ["r"], ["n", "p"], domain="ai.onnx.contrib"),
            h.make_node("Add", ["n", "p"], ["y"]),
        ],
        "custom",
        [h.make_tensor_value_info("x", f, [64])],
        [h.make_tensor_value_info("y", f, [64])],
        initializer=[nh.from_array(np.linspace(-1, 1, 64, dtype=np.float32), "w")],
    )
    opsets = [h.make_opsetid("", 17), h.make_opsetid("ai.onnx.contrib", 1)]
    model = h.make_model(g, opset_imports=opsets, producer_name="tests")
    model.ir_version = 8
    onnx.save(model, str(path))
    return path


@pytest.mark.parametrize("style", ["fixed", "runtime"])
def test_custom_operators_as_onnxruntimes_converter(tmp_path: Path, style: str) -> None:
    lib = peer.custom_op_library()
    src = custom_op_model(tmp_path / "custom.onnx")
    theirs = onnxruntimes_own(src, tmp_path, style, "--custom_op_library", lib)
    ours = tmp_path / "ours.ort"
    wireplan.ort.convert(
        src, ours, optimization=style, custom_op_library=lib, format_version=FORMAT_VERSION
    )
    with load(theirs) as a, load(ours) as b:
        assert graph_of(b) == graph_of(a)
        assert "NegPos" in {n.op_type for n in b.model.graph.nodes}
        assert [off % 64 for _, _, off, _ in payload_offsets(b)] == [0]  # the planned layout
    x = np.linspace(-3, 3, 64, dtype=np.float32)
    want = np.abs(np.maximum(x + np.linspace(-1, 1, 64, dtype=np.float32), 0))
    # as a reduced build runs it (:func:`run`): records replayed from ORT_ENABLE_EXTENDED on
    replay = style == "runtime"
    level = (
        ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        if replay
        else ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    )
    config = {"session.enable_saved_runtime_optimizations": "1"} if replay else {}
    for path in (ours, theirs):
        s = wireplan.ort.session(
            path, custom_op_library=lib, graph_optimization_level=level, config=config
        )
        np.testing.assert_array_equal(s.run(None, {"x": x})[0], want)
        with pytest.raises(PeerError, match="NegPos"):  # the library is what runs it
            wireplan.ort.session(path, graph_optimization_level=level)


def test_custom_operator_library_refusals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from wireplan.cli import main

    lib = peer.custom_op_library()
    src = custom_op_model(tmp_path / "custom.onnx")
    dst = tmp_path / "m.ort"
    with pytest.raises(PeerError, match=r"NegPos.*\(a custom operator's library is given as"):
        wireplan.ort.convert(src, dst)
    with pytest.raises(ArgumentError, match="custom_op_library applies to optimization 'fixed'"):
        wireplan.ort.convert(src, dst, optimization="none", custom_op_library=lib)
    with pytest.raises(FileNotFoundError):
        wireplan.ort.convert(src, dst, custom_op_library=tmp_path / "missing.so")
    with pytest.raises(PeerError, match="could not load the custom operator library"):
        wireplan.ort.convert(src, dst, custom_op_library=src)  # not a shared library
    assert not dst.exists()
    assert main(["convert", str(src), str(dst), "--custom-op-library", lib]) == 0
    wireplan.ort.convert(dst, tmp_path / "back.onnx")  # an .ort needs no library to read
    assert main(["convert", str(dst), str(tmp_path / "x.onnx"), "--custom-op-library", lib]) == 1
    assert "--custom-op-library applies to .onnx -> .ort conversion only" in (
        capsys.readouterr().err
    )
    with pytest.raises(ArgumentError, match=r"custom_op_library applies to \.onnx -> \.ort"):
        wireplan.ort.convert(dst, tmp_path / "y.onnx", custom_op_library=lib)
