"""``from_onnx`` pauses the cyclic garbage collector and always gives it back as it was."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import onnx
import onnx.helper as h
import pytest

from wireplan.errors import EncodeError
from wireplan.ort.onnx.example import example_model
from wireplan.ort.onnx.read import from_onnx


@pytest.fixture
def gc_state() -> Iterator[None]:
    was = gc.isenabled()
    try:
        yield
    finally:
        if was:
            gc.enable()
        else:
            gc.disable()


def _bad_model() -> onnx.ModelProto:
    """A string attribute that is not UTF-8: ``from_onnx`` raises while building the graph."""
    node = h.make_node("Identity", ["x"], ["y"])
    node.attribute.append(h.make_attribute("note", b"\xff\xfe"))
    g = h.make_graph(
        [node],
        "bad",
        [h.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1])],
        [h.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [1])],
    )
    return h.make_model(g, opset_imports=[h.make_opsetid("", 17)])


@pytest.mark.usefixtures("gc_state")
@pytest.mark.parametrize("enabled", [True, False])
def test_gc_state_restored(enabled: bool) -> None:
    if enabled:
        gc.enable()
    else:
        gc.disable()
    seen: list[bool] = []

    def lookup(domain: str, op_type: str, opset: int) -> None:
        seen.append(gc.isenabled())
        return None

    with from_onnx(example_model(), signature=lookup) as om:
        assert len(om.graph.nodes) == 4
    assert seen and not any(seen)  # paused while the graph is built
    assert gc.isenabled() is enabled
    with pytest.raises(EncodeError, match="UTF-8"):
        from_onnx(_bad_model())
    assert gc.isenabled() is enabled
