"""wireplan.ort.graph: walks over nested graphs, node edges and topological order."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from wireplan.ort import load
from wireplan.ort.graph import (
    EdgeEnd,
    NodeEdge,
    node_edges,
    subgraphs,
    topological_order,
    walk_graphs,
    walk_nodes,
    walk_tensors,
)
from wireplan.ort.model import (
    Attribute,
    Graph,
    Model,
    Node,
    OrtModel,
    SparseTensor,
    Tensor,
)
from wireplan.ort.reader import tensor_paths


def _t(name: str) -> Tensor:
    return Tensor(name=name, data_type=1, raw_data=np.zeros(4, np.uint8))


def _nested() -> Graph:
    """main: [If(then=A[Loop(body=B)], else=C), Scan(graphs=[D, E]) with a tensor attribute]."""
    b = Graph(nodes=[Node(name="b0")], initializers=[_t("wb")])
    a = Graph(
        nodes=[Node(name="a0", attributes=[Attribute(name="body", g=b)])],
        initializers=[_t("wa")],
    )
    c = Graph(nodes=[Node(name="c0"), Node(name="c1")])
    d = Graph(nodes=[Node(name="d0")])
    e = Graph(nodes=[Node(name="e0")], initializers=[_t("we")])
    return Graph(
        nodes=[
            Node(
                name="if",
                attributes=[
                    Attribute(name="then_branch", g=a),
                    Attribute(name="else_branch", g=c),
                ],
            ),
            Node(
                name="scan",
                attributes=[
                    Attribute(name="k", t=_t("k"), tensors=[_t("k0"), _t("k1")]),
                    Attribute(name="bodies", graphs=[d, e]),
                ],
            ),
        ],
        initializers=[_t("w0")],
        sparse_initializers=[SparseTensor(values=_t("sv"), indices=_t("si"))],
    )


R = "$.model.graph"
IF = f"{R}.nodes[0]"
SCAN = f"{R}.nodes[1]"


def test_walk_graphs_depth_first_with_paths() -> None:
    main = _nested()
    walked = list(walk_graphs(main))
    assert [p for p, _ in walked] == [
        R,
        f"{IF}.attributes[0].g",
        f"{IF}.attributes[0].g.nodes[0].attributes[0].g",
        f"{IF}.attributes[1].g",
        f"{SCAN}.attributes[1].graphs[0]",
        f"{SCAN}.attributes[1].graphs[1]",
    ]
    assert [[n.name for n in g.nodes] for _, g in walked] == [
        ["if", "scan"],
        ["a0"],
        ["b0"],
        ["c0", "c1"],
        ["d0"],
        ["e0"],
    ]
    om = OrtModel(model=Model(graph=main))
    assert [id(g) for g in om.graphs()] == [id(g) for _, g in walked]
    # A path names the object it is given with.
    for path, g in walked[1:]:
        assert g is _follow(main, path)


def test_walk_nodes_puts_a_subgraph_right_after_its_node() -> None:
    walked = list(walk_nodes(_nested()))
    assert [n.name for _, n in walked] == ["if", "a0", "b0", "c0", "c1", "scan", "d0", "e0"]
    assert [p for p, _ in walked][:3] == [
        IF,
        f"{IF}.attributes[0].g.nodes[0]",
        f"{IF}.attributes[0].g.nodes[0].attributes[0].g.nodes[0]",
    ]
    assert walked[-1][0] == f"{SCAN}.attributes[1].graphs[1].nodes[0]"


def test_walk_tensors_order_and_paths() -> None:
    main = _nested()
    walked = list(walk_tensors(main))
    assert [(p, t.name) for p, t in walked] == [
        (f"{R}.initializers[0]", "w0"),
        (f"{R}.sparse_initializers[0].values", "sv"),
        (f"{R}.sparse_initializers[0].indices", "si"),
        (f"{IF}.attributes[0].g.initializers[0]", "wa"),
        (f"{IF}.attributes[0].g.nodes[0].attributes[0].g.initializers[0]", "wb"),
        (f"{SCAN}.attributes[0].t", "k"),
        (f"{SCAN}.attributes[0].tensors[0]", "k0"),
        (f"{SCAN}.attributes[0].tensors[1]", "k1"),
        (f"{SCAN}.attributes[1].graphs[1].initializers[0]", "we"),
    ]
    om = OrtModel(model=Model(graph=main))
    assert [(p, id(t)) for p, t in tensor_paths(om)] == [(p, id(t)) for p, t in walked]
    assert {id(t) for t in om.tensors()} == {id(t) for _, t in walked}


def test_subgraphs_is_one_level() -> None:
    node = _nested().nodes[0]
    assert [p for p, _ in subgraphs(node, "N")] == ["N.attributes[0].g", "N.attributes[1].g"]
    assert list(subgraphs(Node())) == []


def _follow(graph: Graph, path: str) -> object:
    """The object ``path`` names, by evaluating its steps on ``graph``."""
    obj: object = graph
    for step in path.removeprefix(R + ".").split("."):
        name, _, index = step.partition("[")
        obj = getattr(obj, name)
        if index:
            obj = obj[int(index[:-1])]  # type: ignore[index]
    return obj


# --- edges and topological order --------------------------------------------------------------


@st.composite
def dags(draw: st.DrawFn) -> tuple[list[Node], list[int]]:
    """Nodes of a DAG stored in a random order, and a topological order of positions.

    Node ``i`` of the DAG outputs ``v{i}_{k}`` and reads outputs of earlier nodes,
    graph inputs ``x*``, omitted optional inputs ``""``, and implicit inputs.
    """
    n = draw(st.integers(0, 12))
    dag: list[Node] = []
    for i in range(n):
        outs = [f"v{i}_{k}" for k in range(draw(st.integers(1, 3)))]
        outs = [o if draw(st.booleans()) or k == 0 else "" for k, o in enumerate(outs)]
        earlier = [o for nd in dag for o in nd.outputs if o] + ["x0", "x1", ""]
        pick = st.sampled_from(earlier)
        dag.append(
            Node(
                name=f"n{i}",
                inputs=draw(st.lists(pick, max_size=4)),
                outputs=outs,
                implicit_inputs=draw(st.lists(pick, max_size=2)),
            )
        )
    indices = draw(st.lists(st.integers(0, 1000), min_size=n, max_size=n, unique=True))
    for nd, index in zip(dag, indices, strict=True):
        nd.index = index
    stored = draw(st.permutations(range(n)))  # position p holds DAG node stored[p]
    nodes = [dag[i] for i in stored]
    where = {i: p for p, i in enumerate(stored)}
    return nodes, [where[i] for i in range(n)]


def _slow_edges(nodes: list[Node]) -> list[NodeEdge]:
    """The edges by their definition, pair by pair."""
    out = []
    for n in nodes:
        ins, outs = set(), set()
        for p in nodes:
            for k, o in enumerate(p.outputs):
                for j, x in enumerate([*n.inputs, *n.implicit_inputs]):
                    if o and x == o:
                        ins.add(EdgeEnd(p.index, k, j))
                for j, x in enumerate([*p.inputs, *p.implicit_inputs]):
                    for k2, o2 in enumerate(n.outputs):
                        if o2 and x == o2:
                            outs.add(EdgeEnd(p.index, k2, j))
        key = lambda e: (e.node_index, e.src_arg_index, e.dst_arg_index)  # noqa: E731
        out.append(NodeEdge(n.index, sorted(ins, key=key), sorted(outs, key=key)))
    return out


def _plain(edges: list[NodeEdge]) -> list[tuple[int, list[EdgeEnd], list[EdgeEnd]]]:
    return [(e.node_index, e.input_edges, e.output_edges) for e in edges]


@settings(max_examples=200, deadline=None)
@given(dags())
def test_node_edges_match_their_definition(case: tuple[list[Node], list[int]]) -> None:
    nodes, _ = case
    assert _plain(node_edges(nodes)) == _plain(_slow_edges(nodes))


def test_implicit_inputs_count_after_the_inputs() -> None:
    nodes = [
        Node(index=7, inputs=["x"], outputs=["a", "b"]),
        Node(index=2, inputs=["b", "", "a"], outputs=["c"], implicit_inputs=["x", "a", "b"]),
    ]
    producer, consumer = node_edges(nodes)
    assert consumer.input_edges == [
        EdgeEnd(7, 0, 2),
        EdgeEnd(7, 0, 4),  # implicit input 1 is argument 3 + 1
        EdgeEnd(7, 1, 0),
        EdgeEnd(7, 1, 5),
    ]
    assert producer.input_edges == []
    assert producer.output_edges == [
        EdgeEnd(2, 0, 2),
        EdgeEnd(2, 0, 4),
        EdgeEnd(2, 1, 0),
        EdgeEnd(2, 1, 5),
    ]
    assert consumer.output_edges == []


@settings(max_examples=200, deadline=None)
@given(dags())
def test_topological_order_is_a_stable_sort(case: tuple[list[Node], list[int]]) -> None:
    nodes, dag_order = case
    order = topological_order(nodes)
    assert order is not None and sorted(order) == list(range(len(nodes)))
    rank = {p: r for r, p in enumerate(order)}
    producer = {o: p for p, n in enumerate(nodes) for o in n.outputs if o}
    for p, n in enumerate(nodes):
        for x in (*n.inputs, *n.implicit_inputs):
            if x in producer and producer[x] != p:
                assert rank[producer[x]] < rank[p]
    # Already topological: kept as it is.
    in_order = [nodes[p] for p in dag_order]
    assert topological_order(in_order) == list(range(len(nodes)))


def test_topological_order_picks_the_first_stored_ready_node() -> None:
    nodes = [
        Node(inputs=["b"], outputs=["c"]),
        Node(outputs=["a"]),
        Node(inputs=["a"], outputs=["b"]),
        Node(outputs=["d"]),
    ]
    assert topological_order(nodes) == [1, 2, 0, 3]
    assert topological_order([]) == []


def test_topological_order_of_a_cycle_is_none() -> None:
    nodes = [Node(inputs=["b"], outputs=["a"]), Node(inputs=["a"], outputs=["b"])]
    assert topological_order(nodes) is None
    # A node reading its own output is no cycle.
    assert topological_order([Node(inputs=["a"], outputs=["a"])]) == [0]


def test_node_edges_are_onnxruntimes(feature_ort: Path) -> None:
    """onnxruntime's own .ort (an If reading an outer value) stores the edges we compute."""
    with load(feature_ort) as om:
        walked = list(walk_graphs(om.graph))
        assert len(walked) == 3
        implicit = 0
        for _, g in walked:
            assert _plain(node_edges(g.nodes)) == _plain(g.node_edges)
            implicit += sum(len(n.implicit_inputs) for n in g.nodes)
        assert implicit > 0


# --- imports ----------------------------------------------------------------------------------


def test_model_and_reading_do_not_import_the_converter(feature_ort: Path) -> None:
    """``model`` never imports the onnx door: loading, walking and re-writing a .ort leave it out."""
    probe = (
        "import sys\n"
        "import wireplan.ort.model\n"
        "assert 'wireplan.ort.onnx' not in sys.modules\n"
        "from wireplan.ort import load, to_bytes\n"
        "from wireplan.ort.reader import payload_offsets\n"
        f"with load({str(feature_ort)!r}) as om:\n"
        "    list(om.graphs()), list(om.tensors()), payload_offsets(om)\n"
        "    to_bytes(om, float16_casts=False)\n"
        "print(sorted(m for m in sys.modules if m in\n"
        "    ('wireplan.ort.onnx', 'onnx', 'onnxruntime')))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["[]"]


def test_model_and_graph_name_no_converter_in_any_import() -> None:
    """Not even a function-local import: model and graph sit below every converter."""
    import ast

    import wireplan.ort.graph
    import wireplan.ort.model

    banned = {"onnx", "onnxruntime", "wireplan.ort.onnx", "wireplan.ort.onnxruntime_door"}
    door = "wireplan.ort.onnx."  # the onnx door is a package
    for mod in (wireplan.ort.model, wireplan.ort.graph):
        assert mod.__file__ is not None
        tree = ast.parse(Path(mod.__file__).read_text())
        named: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                named.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module:
                named.add(node.module)
                named.update(f"{node.module}.{a.name}" for a in node.names)
        assert not {
            n for n in named if n.split(".")[0] in banned or n in banned or n.startswith(door)
        }, mod.__name__
