"""The ORT wing in layers: each module imports only modules of the layers below it.

The layers (issue 22): the model, then reading and encoding (no passes), then the
passes that prepare a model, then the verbs that write, then sessions and the command
line.  The onnxruntime door answers questions and imports no .ort code but the schema
shapes; the onnx door (``wireplan.ort.onnx``) sits above the reader and below the passes.
Function-local imports count too.
"""

from __future__ import annotations

from test_import_circles import _imports, _modules

# Lowest first; a module may import modules of lower layers only.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("signatures", "protowire", "schema"),
    ("dtypes", "onnx.schemas", "onnx.infer"),
    ("model",),
    ("graph", "onnxruntime_door"),
    ("formats", "reader", "kernel_types"),
    ("encoder", "onnx.example"),
    ("kernels", "onnx.from_proto", "onnx.to_proto"),
    ("casts", "value_types", "onnx.expand", "onnx.save"),
    ("onnx.read",),
    ("onnx.facts", "prepare"),
    ("writer", "onnx"),
    ("optimize",),
    ("sessions", "operators", "_api"),
    ("", "demo", "convert_cli"),  # "": the package, wireplan.ort itself
    ("cli",),
)


def _rank() -> dict[str, int]:
    rank = {}
    for level, names in enumerate(LAYERS):
        for name in names:
            rank["wireplan.ort" + (f".{name}" if name else "")] = level
    return rank


def test_every_ort_module_has_a_layer() -> None:
    ort = {m for m in _modules() if m == "wireplan.ort" or m.startswith("wireplan.ort.")}
    assert ort == set(_rank())


def test_imports_go_down_the_layers() -> None:
    rank = _rank()
    edges = _imports(_modules())
    upward = [
        f"{source} -> {target}"
        for source in sorted(rank)
        for target in sorted(edges[source])
        if target in rank and rank[target] >= rank[source]
    ]
    assert not upward, upward


def test_the_onnxruntime_door_imports_no_ort_code() -> None:
    edges = _imports(_modules())
    ort = {t for t in edges["wireplan.ort.onnxruntime_door"] if t.startswith("wireplan.ort")}
    assert ort == {"wireplan.ort.signatures"}
