"""The public verbs: compile, load (and its cache), layout, the per-type object API, the CLI."""

from __future__ import annotations

import copy
import inspect
import io
import os
import pickle
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import wireplan
import wireplan.dsdl
from wireplan.cli import main
from wireplan.dsdl.cli import EXAMPLE

from ._support import CORNER, UAVCAN


def test_compile_writes_an_importable_package_without_pydsdl(tmp_path: Path) -> None:
    out = wireplan.dsdl.compile(EXAMPLE, output=tmp_path / "out")
    assert (out / "demo" / "__init__.py").exists()
    sources = "\n".join(p.read_text() for p in out.rglob("*.py"))
    assert "import pydsdl" not in sources and "pycyphal" not in sources
    # a fresh interpreter where pydsdl and pycyphal cannot be imported at all
    code = (
        "import sys; sys.modules['pydsdl'] = None; sys.modules['pycyphal'] = None\n"
        f"sys.path.insert(0, {str(out)!r})\n"
        "import demo\n"
        "s = demo.Status_1_0(timestamp_us=5, mode=2)\n"
        "assert demo.Status_1_0.deserialize(s.serialize()) == s\n"
        "assert demo.Configure_1_0.Request.__qualname__ == 'Configure_1_0.Request'\n"
        "assert demo.Status_1_0.MAGIC == 0x57495245\n"
        "print(demo.Status_1_0.__module__, type(s).__name__)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["demo", "Status_1_0"]


def test_compile_follows_lookup(tmp_path: Path) -> None:
    reg = UAVCAN.parent / "reg"
    out = wireplan.dsdl.compile(reg, lookup=[UAVCAN], output=tmp_path)
    assert (out / "reg" / "udral" / "__init__.py").exists()
    assert (out / "uavcan" / "si" / "unit" / "__init__.py").exists()  # used by reg, generated too


def test_compile_again_replaces_the_package_whole(tmp_path: Path) -> None:
    src = tmp_path / "src" / "mini"
    (src / "sub").mkdir(parents=True)
    (src / "A.1.0.dsdl").write_text("uint8 x\n@sealed\n")
    (src / "sub" / "B.1.0.dsdl").write_text("uint16 y\n@sealed\n")
    out = tmp_path / "out"
    (out / "mine.txt").parent.mkdir(parents=True)
    (out / "mine.txt").write_text("not ours")  # beside the package: left alone
    wireplan.dsdl.compile(src, output=out)
    assert (out / "mini" / "sub" / "__init__.py").is_file()
    # the namespace "sub" goes away: its module must not linger
    (src / "sub" / "B.1.0.dsdl").unlink()
    (src / "sub").rmdir()
    wireplan.dsdl.compile(src, output=out)
    assert not (out / "mini" / "sub").exists()
    assert sorted(p.name for p in out.iterdir()) == ["mine.txt", "mini"]  # no staging left
    # a failing compile leaves the previous package as it was
    before = {p: p.read_bytes() for p in (out / "mini").rglob("*") if p.is_file()}
    (src / "A.1.0.dsdl").write_text("uint99 x\n@sealed\n")
    with pytest.raises(wireplan.CompileError):
        wireplan.dsdl.compile(src, output=out)
    assert {p: p.read_bytes() for p in (out / "mini").rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in out.iterdir()) == ["mine.txt", "mini"]


def test_compile_never_replaces_a_folder_it_did_not_write(tmp_path: Path) -> None:
    src = tmp_path / "src" / "mini"
    src.mkdir(parents=True)
    (src / "A.1.0.dsdl").write_text("uint8 x\n@sealed\n")
    foreign = tmp_path / "out" / "mini"
    foreign.mkdir(parents=True)
    (foreign / "notes.txt").write_text("keep me")
    with pytest.raises(wireplan.FileError, match="not written by wireplan"):
        wireplan.dsdl.compile(src, output=tmp_path / "out")
    assert [p.name for p in foreign.iterdir()] == ["notes.txt"]


def test_load_caches_and_recompiles_on_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("WIREPLAN_CACHE_DIR", str(cache))
    src = tmp_path / "src" / "mini"
    src.mkdir(parents=True)
    (src / "A.1.0.dsdl").write_text("uint8 x\n@sealed\n")
    first = wireplan.dsdl.load(src)
    assert first.A_1_0(x=3).serialize() == b"\x03"
    entries = [p for p in cache.iterdir()]
    assert len(entries) == 1 and not entries[0].name.startswith(".")
    stamp = (entries[0] / "mini" / "_wireplan_impl.py").stat().st_mtime_ns
    again = wireplan.dsdl.load(src)
    assert again is first
    assert (entries[0] / "mini" / "_wireplan_impl.py").stat().st_mtime_ns == stamp
    (src / "A.1.0.dsdl").write_text("uint16 x\n@sealed\n")
    changed = wireplan.dsdl.load(src)
    assert changed.A_1_0(x=3).serialize() == b"\x03\x00"
    names = sorted(p.name for p in cache.iterdir())
    assert len(names) == 2 and not any(n.startswith(".") for n in names)  # no temp folder left


def test_cache_location(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from wireplan.dsdl._api import cache_dir

    monkeypatch.setenv("WIREPLAN_CACHE_DIR", str(tmp_path / "x"))
    assert cache_dir() == tmp_path / "x"
    monkeypatch.delenv("WIREPLAN_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "wireplan" / "dsdl"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert cache_dir() == Path.home() / ".cache" / "wireplan" / "dsdl"


def test_bad_sources_raise_wireplan_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "A.1.0.dsdl").write_text("uint99 x\n@sealed\n")
    with pytest.raises(wireplan.CompileError):
        wireplan.dsdl.compile(bad, output=tmp_path / "out")
    with pytest.raises(wireplan.ArgumentError):
        wireplan.dsdl.load(tmp_path / "missing")


def test_object_api(wp_corner: dict[str, ModuleType]) -> None:
    ns = wp_corner["corner"]
    a = ns.Inner_1_0(x=5, y=True, z=-3)
    assert a == ns.Inner_1_0(x=5, y=True, z=-3) and a != ns.Inner_1_0(x=4)
    assert repr(a) == "corner.Inner.1.0(x=5, y=True, z=-3)"
    assert ns.Inner_1_0() == ns.Inner_1_0(x=0, y=False, z=0)
    assert wireplan.dsdl.serialize(a) == a.serialize()
    assert wireplan.dsdl.deserialize(ns.Inner_1_0, a.serialize()) == a
    assert wireplan.dsdl.to_builtin(a) == {"x": 5, "y": True, "z": -3}
    assert wireplan.dsdl.from_builtin(ns.Inner_1_0, {"x": 5, "y": True, "z": -3}) == a
    with pytest.raises(wireplan.EncodeError):
        ns.Inner_1_0.from_builtin({"nope": 1})
    with pytest.raises(wireplan.EncodeError):
        wireplan.dsdl.serialize(object())
    with pytest.raises(AttributeError):
        a.not_a_field = 1  # __slots__
    big = ns.OddArrays_1_0()
    assert big.big.dtype == bool and len(big.big) == 100  # large bool arrays are numpy arrays


def test_public_functions_are_the_methods(wp_corner: dict[str, ModuleType]) -> None:
    """``serialize`` / ``deserialize`` add no check of their own on the way of a valid
    object (they are on every message's path), yet refuse what is not generated, and an
    error raised inside a serializer is not mistaken for a foreign object."""
    ns = wp_corner["corner"]
    a = ns.Inner_1_0(x=5, y=True, z=-3)
    for data in (a.serialize(), bytearray(a.serialize()), memoryview(a.serialize())):
        assert wireplan.dsdl.deserialize(ns.Inner_1_0, data) == a
    with pytest.raises(wireplan.EncodeError, match="not a DSDL object: int"):
        wireplan.dsdl.serialize(5)
    with pytest.raises(wireplan.ArgumentError, match="not a generated DSDL class"):
        wireplan.dsdl.deserialize(int, b"")
    with pytest.raises(wireplan.EncodeError, match=r"\$\.x"):
        wireplan.dsdl.serialize(ns.Inner_1_0(x="five"))

    class Broken:
        def serialize(self) -> bytes:
            raise AttributeError("inside")

        @staticmethod
        def deserialize(data: bytes) -> None:
            raise AttributeError("inside too")

    with pytest.raises(AttributeError, match="inside"):
        wireplan.dsdl.serialize(Broken())
    with pytest.raises(AttributeError, match="inside too"):
        wireplan.dsdl.deserialize(Broken, b"")


def test_constructor_reads_like_an_init(wp_corner: dict[str, ModuleType]) -> None:
    """The constructor is a metaclass ``__call__`` (so that decoders can
    allocate through ``type.__call__``, which needs a class without ``__init__``),
    but it shows and fails like the ``__init__`` it replaces."""
    ns = wp_corner["corner"]
    assert "__init__" not in vars(ns.Inner_1_0)  # else decoding would run it
    assert str(inspect.signature(ns.Inner_1_0)) == "(x=0, y=False, z=0)"
    with pytest.raises(TypeError, match=r"^Inner_1_0\(\) got an unexpected keyword argument 'w'"):
        ns.Inner_1_0(w=1)
    with pytest.raises(TypeError, match=r"^Inner_1_0\(\) takes from 1 to 4 positional arguments"):
        ns.Inner_1_0(5, True, -3, 1)
    with pytest.raises(TypeError, match=r"^Inner_1_0\(\) got multiple values for argument 'x'"):
        ns.Inner_1_0(5, x=1)
    assert ns.Inner_1_0(5, True, -3) == ns.Inner_1_0(x=5, y=True, z=-3)
    assert str(inspect.signature(ns.U_1_0)).startswith("(*, ")  # a union: by keyword
    assert type(ns.Inner_1_0).__name__ == "Inner_1_0_type"
    a = ns.Inner_1_0(x=5, y=True, z=-3)
    decoded = ns.Inner_1_0.deserialize(a.serialize())
    assert type(decoded) is ns.Inner_1_0 and decoded == a
    assert copy.deepcopy(a) == a and pickle.loads(pickle.dumps(a)) == a

    class Mine(ns.Inner_1_0):  # type: ignore[name-defined,misc]
        __slots__ = ()

    mine = Mine(x=2)
    assert type(mine) is Mine and mine.serialize() == ns.Inner_1_0(x=2).serialize()
    u = ns.U_1_0(v=ns.V_1_0(i=-3))  # a union: exactly one field
    assert ns.U_1_0.deserialize(u.serialize()) == u
    with pytest.raises(wireplan.EncodeError, match="exactly one field"):
        ns.U_1_0(v=ns.V_1_0(i=1), inner=ns.Inner_1_0())


def test_cli_layout_and_compile(tmp_path: Path) -> None:
    out = io.StringIO()
    assert main(["dsdl", "layout", str(CORNER), "corner.Misaligned.1.0"], out=out) == 0
    text = out.getvalue()
    assert "single-struct+bits" in text and "inner.z" in text
    out = io.StringIO()
    assert main(["dsdl", "compile", str(CORNER), "-o", str(tmp_path / "gen")], out=out) == 0
    assert (tmp_path / "gen" / "corner" / "__init__.py").exists()
    assert "compiled" in out.getvalue()
    err = main(["dsdl", "layout", str(CORNER), "corner.Missing.1.0"], out=io.StringIO())
    assert err == 1


def test_demo_runs_without_shared_data(tmp_path: Path) -> None:
    from wireplan.dsdl.cli import demo

    before = os.environ.get("WIREPLAN_CACHE_DIR")
    out = io.StringIO()
    demo(out, tmp_path)
    text = out.getvalue()
    assert "single-struct" in text and "round trip ok" in text and "serialize/s" in text
    assert "FAILED" not in text
    assert os.environ.get("WIREPLAN_CACHE_DIR") == before
    # The demo's types ship inside the package, wherever the clone lies.
    package = Path(wireplan.dsdl.__file__).resolve().parent
    assert EXAMPLE.is_dir() and EXAMPLE.is_relative_to(package)


def test_types_of_another_root_stay_on_the_fast_path(tmp_path: Path) -> None:
    """A type nesting a union and delimited types of another root namespace
    (its own implementation module) calls their routines directly: the fast
    path falls back to the slow one on any exception, so a routine missing
    from the module's imports would only show as lost speed."""
    src = tmp_path / "outer"
    src.mkdir()
    (src / "Holder.1.0.dsdl").write_text(
        "corner.U.1.0 u\ncorner.Ext.1.0 ext\nuint8 tail\n@sealed\n"
    )
    (src / "Wrap.1.0.dsdl").write_text("corner.HasExt.1.0 inner\n@sealed\n")
    out = wireplan.dsdl.compile([src, CORNER], output=tmp_path / "out")
    sys.path.insert(0, str(out))
    try:
        import corner  # type: ignore[import-not-found]
        import outer  # type: ignore[import-not-found]

        taken: list[str] = []

        def spy(cls: type, obj: object) -> bytes:
            taken.append(cls.__name__)
            raise AssertionError("slow path")

        impl = sys.modules["outer._wireplan_impl"]
        impl._serialize_slow = spy  # type: ignore[attr-defined]
        holder = outer.Holder_1_0(
            u=corner.U_1_0(v=corner.V_1_0(i=-3)), ext=corner.Ext_1_0(a=7, b=[1, 2]), tail=9
        )
        data = holder.serialize()
        wrap = outer.Wrap_1_0(inner=corner.HasExt_1_0(many=[corner.Ext_1_0(a=1)]))
        assert outer.Wrap_1_0.deserialize(wrap.serialize()) == wrap
        assert not taken
        assert outer.Holder_1_0.deserialize(data) == holder
        # the union (tag 1, V tag 1, int3 -3), the delimited Ext (header 5), the tail
        assert data == bytes([1, 1, 0b101, 5, 0, 0, 0, 7, 0, 2, 1, 2, 9])
    finally:
        sys.path.remove(str(out))
        for name in [m for m in sys.modules if m.split(".")[0] in ("outer", "corner")]:
            del sys.modules[name]


def test_arrays_option(tmp_path: Path) -> None:
    """``--arrays numpy`` from the command line; the two kinds never share a folder."""
    reg = UAVCAN.parent / "reg"
    out = tmp_path / "np"
    assert main(["dsdl", "compile", str(UAVCAN), "-o", str(out), "--arrays", "numpy"]) == 0
    build = (out / "uavcan" / "_wireplan_build.json").read_text()
    assert '"arrays": "numpy"' in build
    code = (
        f"import sys; sys.path.insert(0, {str(out)!r})\n"
        "import uavcan.register as r\n"
        "n = r.Name_1_0.deserialize(r.Name_1_0('a.b').serialize())\n"
        "print(type(n.name).__name__, n.name.tobytes().decode())\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.stdout.split() == ["ndarray", "a.b"], done.stderr
    with pytest.raises(wireplan.ArgumentError, match=r"arrays='numpy'.*cannot go beside"):
        wireplan.dsdl.compile(reg, lookup=[UAVCAN], output=out)
    wireplan.dsdl.compile(reg, lookup=[UAVCAN], output=out, arrays="numpy")  # the same kind
    wireplan.dsdl.compile(UAVCAN, output=out, arrays="numpy")  # replaced: reg stays beside it
    assert (out / "reg" / "_wireplan_build.json").is_file()
    with pytest.raises(wireplan.ArgumentError, match="choose one of auto, numpy"):
        wireplan.dsdl.compile(UAVCAN, output=tmp_path / "x", arrays="list")
    with pytest.raises(wireplan.ArgumentError, match="for Python classes"):
        wireplan.dsdl.compile(UAVCAN, output=tmp_path / "c", language="c", arrays="numpy")
    with pytest.raises(wireplan.ArgumentError, match="choose one of"):
        wireplan.dsdl.load(UAVCAN, arrays="lists")


def test_equality_of_arrays_of_other_lengths(wp_public: dict[str, ModuleType]) -> None:
    """uint8 arrays decoded as numpy (64 and 65 elements) are unequal, not an error."""
    n8 = wp_public["uavcan"].primitive.array.Natural8_1_0
    a, b = n8(value=[1] * 64), n8(value=[1] * 65)
    assert n8.deserialize(a.serialize()) != n8.deserialize(b.serialize())
    assert n8.deserialize(a.serialize()) == a and a != b


@pytest.mark.parametrize(
    ("name", "dtype", "at"),
    [("Natural8_1_0", "uint8", 32), ("Bit_1_0", "bool", 64),
     ("Integer8_1_0", "int8", 16), ("Natural16_1_0", "uint16", 16),
     ("Real32_1_0", "float32", 16), ("Integer64_1_0", "int64", 16)],
)  # fmt: skip
def test_arrays_become_numpy_from_the_documented_length(
    wp_public: dict[str, ModuleType], name: str, dtype: str, at: int
) -> None:
    """Bools decode to numpy arrays from 64 elements on, uint8 from 32, other numbers from
    16 on (a list below): from bytes and from a bytearray by the fast path, and from input
    one byte short by the slow path (which zero-extends it)."""
    import numpy as np

    cls = getattr(wp_public["uavcan"].primitive.array, name)
    for count in (at - 1, at):
        data = cls(value=[1] * count).serialize()
        for given in (data, bytearray(data)):
            value = cls.deserialize(given).value
            if count < at:
                assert type(value) is list and value == [1] * count
            else:
                assert isinstance(value, np.ndarray) and value.dtype == np.dtype(dtype)
                assert value.tolist() == [1] * count
        short = cls.deserialize(data[:-1]).value
        assert (type(short) is list) == (count < at)
