"""Installing wireplan as a user does: the wheel, a missing extra, the demo without extras.

A missing optional dependency is simulated in a fresh interpreter (``sys.modules[name] =
None`` before wireplan is imported, which makes ``import name`` fail as if it were not
installed), so no test builds an environment; ``python3 dev.py test`` installs the wheel
into clean environments for real (docs/development.md).
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

import wireplan.ort
from wireplan.core.extras import door
from wireplan.errors import MissingExtraError, WireplanError

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "wireplan"
EXAMPLE = PACKAGE / "dsdl" / "example"  # holds the root namespace `demo`


def _without(
    hidden: list[str], code: str, *args: str, **env: str
) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh python where the modules ``hidden`` cannot be imported."""
    prelude = f"import sys\nfor _m in {hidden!r}:\n    sys.modules[_m] = None\n"
    return subprocess.run(
        [sys.executable, "-c", prelude + code, *args],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        cwd=ROOT,
    )


CLI = "from wireplan.cli import main\nsys.exit(main(sys.argv[1:]))"


def _line(feature: str, module: str, extra: str, hint: str = "") -> str:
    line = f'{feature} needs {module}, which is not installed: pip install "wireplan[{extra}]"'
    return line + (f" ({hint})" if hint else "")


_TORCH_CPU = (
    "for the CPU build, first: pip install torch --index-url https://download.pytorch.org/whl/cpu"
)


# (hidden module, what reaches its door, the one line)
DOORS = [
    ("pydsdl", "import wireplan.dsdl.compiler.read", _line("wireplan.dsdl", "pydsdl", "dsdl")),
    (
        "yaml",
        "from wireplan.dsdl.values import parse_text\nparse_text('{a: 1}')",
        _line("wireplan.dsdl", "yaml", "dsdl"),
    ),
    (
        "yaml",
        "from wireplan.dsdl.values import dump_yaml\ndump_yaml({'a': 1})",
        _line("wireplan.dsdl", "yaml", "dsdl"),
    ),
    (
        "onnx",
        "import wireplan.ort.onnx",
        _line("wireplan.ort's .onnx support", "onnx", "onnx"),
    ),
    (
        "onnxruntime",
        "from wireplan.ort import session\nsession('m.ort')",
        _line("wireplan.ort's onnxruntime support", "onnxruntime", "onnxruntime"),
    ),
    (
        "torch",
        "import wireplan.evalue.dataset",
        _line("wireplan.evalue.torch", "torch", "torch", _TORCH_CPU),
    ),
]


@pytest.mark.parametrize(
    ("module", "code", "line"), DOORS, ids=[f"{m}:{c.split()[1]}" for m, c, _ in DOORS]
)
def test_each_door_says_which_extra_to_install(module: str, code: str, line: str) -> None:
    probe = (
        "from wireplan.errors import MissingExtraError\n"
        "try:\n"
        + "".join(f"    {s}\n" for s in code.splitlines())
        + "except MissingExtraError as exc:\n"
        "    print(exc.name, isinstance(exc, ImportError), exc, sep='|')\n"
    )
    done = _without([module], probe)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"{module}|True|{line}\n"


def test_door_passes_other_import_errors_through() -> None:
    with pytest.raises(MissingExtraError) as info, door("wireplan.x", "wireplan_no_such_a", "x"):
        import wireplan_no_such_a  # type: ignore[import-not-found]  # noqa: F401
    assert str(info.value) == _line("wireplan.x", "wireplan_no_such_a", "x")
    assert isinstance(info.value, WireplanError)
    # Another module missing inside the block is not the extra's absence: unchanged.
    with pytest.raises(ModuleNotFoundError) as other, door("wireplan.x", "numpy", "x"):
        import wireplan_no_such_b  # type: ignore[import-not-found]  # noqa: F401
    assert not isinstance(other.value, MissingExtraError)


def test_demo_without_extras_skips_their_parts_in_one_line_each() -> None:
    done = _without(["pydsdl", "onnx"], CLI, "demo")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stdout.splitlines()
    assert "== EValue ==" in lines
    assert any(line.startswith("   (EValue part took") for line in lines)
    assert f"== Cyphal DSDL == skipped: {_line('wireplan.dsdl', 'pydsdl', 'dsdl')}" in lines
    ort = _line("wireplan.ort's .onnx support", "onnx", "onnx")
    assert f"== ONNX Runtime .ort == skipped: {ort}" in lines
    assert (
        lines[-1] == 'ran 1 of 3 parts; pip install "wireplan[all]" brings the extras of every part'
    )


def test_demo_without_onnxruntime_converts_but_does_not_run_the_model() -> None:
    done = _without(["onnxruntime"], CLI, "demo", "--only", "ort")
    assert done.returncode == 0, done.stderr
    assert "   weights are views into the file mapping: True" in done.stdout
    assert (
        '   skipped running the model: onnxruntime is not installed (pip install "wireplan[onnxruntime]")'
        in done.stdout.splitlines()
    )
    assert "skipped: " not in done.stdout


def test_demo_fails_when_no_part_can_run() -> None:
    done = _without(["pydsdl"], CLI, "demo", "--only", "dsdl")
    assert done.returncode == 1
    assert done.stdout.splitlines()[0].startswith("== Cyphal DSDL == skipped: wireplan.dsdl needs")
    assert "ran 0 of 1 part;" in done.stdout


def test_dsdl_commands_without_pydsdl_print_one_line(tmp_path: Path) -> None:
    done = _without(
        ["pydsdl"],
        CLI,
        "dsdl",
        "encode",
        "demo.Status.1.0",
        "{mode: 3}",
        CYPHAL_PATH=str(EXAMPLE),
        WIREPLAN_CACHE_DIR=str(tmp_path / "cache"),  # nothing compiled before
    )
    assert done.returncode == 1
    assert done.stderr == f"wireplan: error: {_line('wireplan.dsdl', 'pydsdl', 'dsdl')}\n"


def test_onnx_commands_without_onnx_print_one_line(tmp_path: Path) -> None:
    from wireplan.ort.onnx.example import example_model

    model = tmp_path / "m.onnx"
    model.write_bytes(example_model().SerializeToString())
    line = _line("wireplan.ort's .onnx support", "onnx", "onnx")
    plain = ["convert", str(model), str(tmp_path / "m.ort"), "--optimization", "none"]
    for args in (["inspect", str(model)], plain):
        done = _without(["onnx"], CLI, *args)
        assert done.returncode == 1, args
        assert done.stderr.count("\n") == 1, done.stderr
        assert done.stderr.startswith("wireplan: error: ")
        assert done.stderr.endswith(f"{line}\n"), done.stderr
    # optimizing, onnxruntime reads the .onnx and writes the .ort that wireplan re-plans:
    # no onnx needed
    done = _without(["onnx"], CLI, "convert", str(model), str(tmp_path / "fixed.ort"))
    assert done.returncode == 0, done.stderr
    with wireplan.ort.load(tmp_path / "fixed.ort") as om:
        assert len(om.graph.nodes) > 0


def test_optimizing_without_onnxruntime_prints_one_line_with_the_way_out(tmp_path: Path) -> None:
    """convert .onnx -> .ort optimizes by default (as onnxruntime's converter does)."""
    from wireplan.ort.onnx.example import example_model

    model = tmp_path / "m.onnx"
    model.write_bytes(example_model().SerializeToString())
    feature = "optimizing a model for .ort (as onnxruntime's converter does)"
    hint = "or convert with --optimization none (optimization='none'), which needs only onnx"
    done = _without(["onnxruntime"], CLI, "convert", str(model), str(tmp_path / "m.ort"))
    assert done.returncode == 1
    assert done.stderr == f"wireplan: error: {_line(feature, 'onnxruntime', 'onnxruntime', hint)}\n"
    assert not (tmp_path / "m.ort").exists()
    done = _without(
        ["onnxruntime"],
        CLI,
        "convert",
        str(model),
        str(tmp_path / "m.ort"),
        "--optimization",
        "none",
    )
    assert done.returncode == 0, done.stderr
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def _dev() -> ModuleType:
    spec = importlib.util.spec_from_file_location("wireplan_dev_script", ROOT / "dev.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_wheel_carries_the_package_and_its_data_and_no_tests(tmp_path: Path) -> None:
    dev = _dev()
    path: Path = dev.wheel(tmp_path)
    assert path.parent == tmp_path
    with zipfile.ZipFile(path) as z:
        names = set(z.namelist())
        metadata = z.read(f"wireplan-{path.name.split('-')[1]}.dist-info/METADATA").decode()
    wanted = {
        p.relative_to(PACKAGE.parent).as_posix()
        for p in PACKAGE.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert wanted - names == set()
    assert set(dev.PACKAGE_DATA) <= names
    assert "wireplan/dsdl/compiler/c/wireplan_dsdl_support.h" in names
    assert [n for n in names if n.startswith(("tests/", "benchmarks/"))] == []
    assert dev.wheel_problems(path) == []
    # torch comes with no extra but its own: `all` must not pull a CUDA build onto a CPU box.
    requires = re.findall(r"^Requires-Dist: (\S+?)[<>=;\s].*extra == '(\w[\w-]*)'", metadata, re.M)
    assert ("torch", "torch") in requires
    assert [extra for name, extra in requires if name == "torch"] == ["torch"]
    entry = "wireplan = wireplan.cli:main"
    with zipfile.ZipFile(path) as z:
        assert entry in z.read(f"{path.name.rsplit('-', 3)[0]}.dist-info/entry_points.txt").decode()


def test_dev_demo_without_main_env_uses_the_light_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dev = _dev()
    assert dev.DEMO.install == ["-e", ".[all]"]  # no torch, no test tools
    monkeypatch.setattr(dev.MAIN, "python", tmp_path / "no-main-env" / "python")
    ran: list[tuple[object, ...]] = []
    monkeypatch.setattr(dev, "setup", lambda env: ran.append(("setup", env.name)))
    monkeypatch.setattr(dev, "_run", lambda *cmd: ran.append(cmd) or 0)
    monkeypatch.chdir(ROOT)
    assert dev.demo([]) == 0
    assert ran == [("setup", "demo"), (dev.DEMO.bin / "wireplan", "demo")]
    said = capsys.readouterr().out
    assert f"the wireplan command is {dev.DEMO.bin / 'wireplan'}" in said
    if os.name != "nt":
        assert "source .venv-demo/bin/activate" in said


def test_readme_installs_nothing_from_pypi() -> None:
    """wireplan is not published: every `pip install` of it names a path, a wheel or a URL."""
    readme = (ROOT / "README.md").read_text()
    assert "## Install" in readme
    for line in readme.splitlines():
        if re.match(r'\s*pip install "?wireplan\b', line):
            assert " @ " in line, line
    assert 'pip install "dist/wireplan-' in readme
    assert "--index-url https://download.pytorch.org/whl/cpu" in readme
