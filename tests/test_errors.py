from __future__ import annotations

import ast
import pickle
import re
from pathlib import Path

import pytest

import wireplan
from wireplan import (
    ArgumentError,
    CompileError,
    DecodeError,
    EncodeError,
    FileError,
    LimitError,
    WireplanError,
)
from wireplan.core import Plan, check_alignment
from wireplan.evalue.cli import InspectError

SRC = Path(wireplan.__file__).resolve().parent


def test_hierarchy() -> None:
    for cls in (DecodeError, EncodeError, CompileError, FileError):
        assert issubclass(cls, WireplanError)
    assert issubclass(LimitError, DecodeError)
    assert issubclass(DecodeError, ValueError)
    assert issubclass(EncodeError, ValueError)
    assert issubclass(FileError, OSError)
    assert wireplan.errors.DecodeError is DecodeError
    assert wireplan.errors.CompileError is CompileError


def test_decode_error_message_and_path() -> None:
    err = DecodeError("8 more bytes needed for Int", 17)
    assert err.offset == 17
    assert str(err) == "at byte 17: 8 more bytes needed for Int"
    err.under("[3]").under(".items")
    assert err.path == "$.items[3]"
    assert str(err) == "at byte 17 ($.items[3]): 8 more bytes needed for Int"
    again = pickle.loads(pickle.dumps(err))
    assert (again.offset, again.path, str(again)) == (17, "$.items[3]", str(err))


def test_decode_error_without_an_offset_says_no_byte() -> None:
    err = DecodeError("Model has no graph")
    assert err.offset is None and str(err) == "Model has no graph"
    err.under(".graph").under(".model")
    assert str(err) == "$.model.graph: Model has no graph"
    again = pickle.loads(pickle.dumps(err))
    assert (again.offset, again.path, str(again)) == (None, "$.model.graph", str(err))
    limit = LimitError("too big", None, "$.x")
    assert str(limit) == "$.x: too big" and type(pickle.loads(pickle.dumps(limit))) is LimitError


def test_encode_error() -> None:
    err = EncodeError("integer out of int64 range", "$[2]")
    assert str(err) == "$[2]: integer out of int64 range"
    assert str(EncodeError("bad")) == "bad"
    assert pickle.loads(pickle.dumps(err)).path == "$[2]"


def test_compile_error_keeps_path_and_line() -> None:
    err = CompileError("Syntax error", Path("ns/Thing.1.0.dsdl"), 2)
    assert (err.reason, err.path, err.line) == ("Syntax error", Path("ns/Thing.1.0.dsdl"), 2)
    assert str(err) == "ns/Thing.1.0.dsdl:2: Syntax error"
    assert str(CompileError("no line", "ns")) == "ns: no line"
    bare = CompileError("no type named 'x'")
    assert (bare.path, bare.line, str(bare)) == (None, None, "no type named 'x'")
    again = pickle.loads(pickle.dumps(err))
    assert (again.path, again.line, str(again)) == (err.path, 2, str(err))


def test_compile_error_from_pydsdl(tmp_path: Path) -> None:
    pytest.importorskip("pydsdl")
    from wireplan.dsdl import compile
    from wireplan.dsdl.compiler import CompileError as FromCompiler

    assert FromCompiler is CompileError
    ns = tmp_path / "bad"
    ns.mkdir()
    (ns / "Thing.1.0.dsdl").write_text("uint8 a\nfoo b\n@sealed\n")
    with pytest.raises(CompileError) as info:
        compile(ns, output=tmp_path / "out")
    err = info.value
    assert err.path == ns / "Thing.1.0.dsdl" and err.line == 2
    assert str(err).startswith(f"{(ns / 'Thing.1.0.dsdl').as_posix()}:2: ")
    assert "at byte" not in str(err)


def test_every_error_pickles() -> None:
    errors: list[WireplanError] = [
        WireplanError("plain"),
        DecodeError("d", 3, "$.a"),
        DecodeError("d"),
        LimitError("l", 9),
        EncodeError("e", "$.b"),
        CompileError("c", "x.dsdl", 4),
        FileError("f", "/tmp/x", 2),
        InspectError(Path("f.evr"), "EValue record file", DecodeError("bad", 5, "$[1]")),
    ]
    for err in errors:
        again = pickle.loads(pickle.dumps(err))
        assert type(again) is type(err) and str(again) == str(err)
        assert vars(again) == vars(err)


def test_check_alignment() -> None:
    for good in (1, 2, 64, 4096, 1 << 20):
        assert check_alignment(good) == good
    assert check_alignment(65536, most=65536) == 65536
    for bad in (0, 3, -4, 48, 2.0, True, "8", None):
        with pytest.raises(ArgumentError, match="alignment must be a power of two, not"):
            check_alignment(bad)
    with pytest.raises(ArgumentError, match=r"^\$\.w: .* from 1 to 65536, not 131072$") as info:
        check_alignment(131072, most=65536, path="$.w")
    assert isinstance(info.value, ValueError)
    plan = Plan()
    with pytest.raises(ArgumentError, match="power of two"):
        plan.add(8, alignment=12)
    with pytest.raises(ArgumentError, match="not a multiple of 8"):
        plan.place(4, 8, alignment=8)


def _error_name(node: ast.expr) -> str | None:
    name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", None)
    return name if name is not None and name.endswith("Error") else None


# The classes whose message carries "at byte N" from their `offset` attribute.
_WITH_OFFSET = {"DecodeError", "LimitError", "_DecodeError", "InspectError"}
_AT_BYTE = re.compile(r"\bat byte\b")  # "at byte 17"; "at bytes 4..8" names a field
_GENERATED_RAISE = re.compile(r"raise (_?\w+Error)\((?:[^()]|\([^()]*\))*\bat byte\b")


def test_no_message_says_at_byte_without_an_offset() -> None:
    """Only errors with an ``offset`` name a byte: nothing else says "at byte" (nor makes one up)."""
    wrong = []
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and (name := _error_name(node.func)):
                texts = [
                    c.value
                    for a in [*node.args, *(k.value for k in node.keywords)]
                    for c in ast.walk(a)
                    if isinstance(c, ast.Constant) and isinstance(c.value, str)
                ]
                if name not in _WITH_OFFSET and any(_AT_BYTE.search(t) for t in texts):
                    wrong.append(f"{path.relative_to(SRC)}:{node.lineno}: {name}")
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                # code that a generator writes: raise X('... at byte ...')
                for m in _GENERATED_RAISE.finditer(node.value):
                    if m.group(1) not in _WITH_OFFSET:
                        wrong.append(f"{path.relative_to(SRC)}:{node.lineno}: {m.group(1)}")
    assert not wrong, "'at byte' in an error without an offset: " + ", ".join(wrong)
    assert "at byte" not in str(DecodeError("r", None, "$.a"))


def test_no_made_up_offset_zero() -> None:
    """A DecodeError at byte 0 only where byte 0 is the culprit (a magic, a root offset, a tag)."""
    allowed = {
        # (file, the reason's opening words): byte 0 holds what is wrong
        ("evalue/_records.py", "not an EValue record file"),
        ("flatbuffers/reader.py", "root offset"),
    }
    found = set()
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not (isinstance(node, ast.Call) and _error_name(node.func) in _WITH_OFFSET):
                continue
            args = node.args
            if len(args) >= 2 and isinstance(args[1], ast.Constant) and args[1].value == 0:
                first = args[0]
                text = (
                    first.values[0].value  # type: ignore[attr-defined]
                    if isinstance(first, ast.JoinedStr)
                    else getattr(first, "value", "")
                )
                found.add((path.relative_to(SRC).as_posix(), str(text)))
    unexplained = {
        f for f in found if not any(f[0] == a and f[1].startswith(b) for a, b in allowed)
    }
    assert not unexplained, f"offset 0 that may be made up: {sorted(unexplained)}"


# What src may raise: a class of the hierarchy, never its root nor a bare built-in error.
_NOT_RAISED = {
    "WireplanError": "raise the class that says what failed (ArgumentError, NotFoundError, ...)",
    "Exception": "raise a WireplanError subclass",
    "ValueError": "ArgumentError (a bad argument), DecodeError or EncodeError (bad data)",
    "TypeError": "ArgumentError (also a TypeError)",
    "KeyError": "NotFoundError (also a LookupError)",
    "LookupError": "NotFoundError (also a LookupError)",
    "IndexError": "DecodeError with the offset, or ArgumentError",
    "RuntimeError": "PeerError (a peer failed) or a WireplanError subclass that says what",
}


def test_one_error_policy() -> None:
    """src raises only classes of the hierarchy, each for what it means (errors.py lists them).

    The one exception is a protocol, not a report: a sequence's ``__getitem__`` raises
    IndexError past its end (``for`` over ``__getitem__`` and list code rely on it)."""
    wrong = []
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        protocol = {
            id(raise_)
            for fn in ast.walk(tree)
            if isinstance(fn, ast.FunctionDef) and fn.name == "__getitem__"
            for raise_ in ast.walk(fn)
            if isinstance(raise_, ast.Raise)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Raise) and node.exc is not None:
                exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
                name = exc.id if isinstance(exc, ast.Name) else getattr(exc, "attr", None)
                if name == "IndexError" and id(node) in protocol:
                    continue
                if name in _NOT_RAISED:
                    wrong.append(
                        f"{path.relative_to(SRC)}:{node.lineno}: {name}: {_NOT_RAISED[name]}"
                    )
    assert not wrong, "raises outside the error policy:\n" + "\n".join(wrong)


def test_every_public_error_class_is_in_the_hierarchy() -> None:
    """A public exception class anywhere in src derives from WireplanError: those of
    wireplan.errors by their classes, the others by naming one of them among their bases."""
    for name in wireplan.errors.__all__:
        value = getattr(wireplan.errors, name)
        if isinstance(value, type) and issubclass(value, BaseException):
            assert issubclass(value, wireplan.errors.WireplanError), name
    builtin = {"Exception", "ValueError", "TypeError", "RuntimeError", "OSError", "LookupError"}
    stray = []
    for path in sorted(SRC.rglob("*.py")):
        if path.name == "errors.py" and path.parent == SRC:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                bases = {getattr(b, "id", getattr(b, "attr", "")) for b in node.bases}
                if bases & builtin and not bases & _HIERARCHY:
                    stray.append(f"{path.relative_to(SRC)}:{node.lineno}: {node.name}")
    assert not stray, f"exception classes outside the hierarchy: {stray}"


_HIERARCHY = set(wireplan.errors.__all__)
