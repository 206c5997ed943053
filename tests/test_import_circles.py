"""No module of wireplan reaches itself through its imports, function-local ones included.

Every import edge counts, at the top of a module or inside a function: a circle hidden in a
function-local import is still a circle (issue 22 broke the last three: the ORT writer,
casts and onnxruntime door; EValue's codec, dataset and torch; the ORT graph and model).
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"


def _modules() -> dict[str, Path]:
    found = {}
    for path in SRC.rglob("*.py"):
        parts = path.relative_to(SRC).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _imports(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Which wireplan modules each module imports, anywhere in its body."""
    edges: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:  # `from wireplan.x import y`: y may be a module
                    sub = f"{node.module}.{alias.name}"
                    targets.add(sub if sub in modules else node.module)
            elif isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
        edges[name] = {t for t in targets if t in modules and t != name}
    return edges


def _circles(edges: dict[str, set[str]]) -> set[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[frozenset[str]] = set()
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.add(top)
                    if top == node:
                        break
                if len(component) > 1:
                    found.add(frozenset(component))
    return found


def test_the_finder_sees_a_circle() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _circles(edges) == {frozenset("abc")}
    assert _circles({"a": {"b"}, "b": set()}) == set()


def test_no_import_circle() -> None:
    circles = _circles(_imports(_modules()))
    assert not circles, "import circles: " + "; ".join(" <-> ".join(sorted(c)) for c in circles)


def test_no_circle_crosses_wings() -> None:
    """Wings never import each other, so no circle can hold two wings (or the core)."""
    for circle in _circles(_imports(_modules())):
        wings = {name.split(".")[1] for name in circle}
        assert len(wings) == 1, sorted(circle)
