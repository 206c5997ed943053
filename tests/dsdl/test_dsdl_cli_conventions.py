"""Every ``wireplan dsdl`` verb takes types the same way: --lookup, CYPHAL_PATH, short names.

And says what to do when the folders are wrong: "did you mean" for a typo, the folder to
pass for a folder that holds the root namespaces, one line for a folder without DSDL.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from wireplan.cli import main
from wireplan.dsdl.cli import EXAMPLE

from ._support import PUBLIC, REG, UAVCAN


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(list(argv), out=out)
    return code, out.getvalue(), err.getvalue()


def _fails(*argv: str) -> str:
    """The one error line of a command that must fail with exit status 1."""
    code, out, err = _run(*argv)
    assert code == 1, (code, out, err)
    assert out == ""
    assert err.startswith("wireplan: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    return err.removeprefix("wireplan: error: ").strip()


@pytest.fixture
def acme(tmp_path: Path) -> Path:
    """A root namespace ``acme`` with versions 1.0, 1.1 and 2.0 of ``acme.Thing``."""
    root = tmp_path / "ns" / "acme"
    root.mkdir(parents=True)
    (root / "Thing.1.0.dsdl").write_text("uint8 a\n@sealed\n")
    (root / "Thing.1.1.dsdl").write_text("uint8 b\n@sealed\n")
    (root / "Thing.2.0.dsdl").write_text("uint16 a\n@sealed\n")
    return root


@pytest.fixture(autouse=True)
def _no_cyphal_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CYPHAL_PATH", raising=False)


def _title(out: str) -> str:
    return out.splitlines()[0].split(":")[0]


def test_layout_takes_short_names_from_lookup_and_cyphal_path(
    acme: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = _run("dsdl", "layout", "acme.Thing", "--lookup", str(acme))
    assert code == 0, err
    assert _title(out) == "acme.Thing.2.0"  # no version: the newest
    code, out, err = _run("dsdl", "layout", "acme.Thing.1", "--lookup", str(acme))
    assert _title(out) == "acme.Thing.1.1"  # no minor: the newest of that major
    monkeypatch.setenv("CYPHAL_PATH", str(acme.parent))  # the folder that holds acme
    code, out, err = _run("dsdl", "layout", "acme.Thing.1.0")
    assert code == 0, err
    assert _title(out) == "acme.Thing.1.0"
    # The old form: a root namespace folder, then the type (short names work there too).
    code, out, err = _run("dsdl", "layout", str(EXAMPLE), "demo.Telemetry")
    assert code == 0, err
    assert _title(out) == "demo.Telemetry.1.0" and "strategy:" in out


def test_layout_of_a_type_that_uses_another_namespace() -> None:
    code, out, err = _run(
        "dsdl", "layout", "reg.udral.physics.acoustics.Note", "--lookup", str(UAVCAN),
        "--lookup", str(REG),
    )  # fmt: skip
    assert code == 0, err
    assert _title(out) == "reg.udral.physics.acoustics.Note.0.1"


def test_layout_usage() -> None:
    with contextlib.redirect_stderr(io.StringIO()) as err, pytest.raises(SystemExit) as exc:
        main(["dsdl", "layout", "a", "b", "c"], out=io.StringIO())
    assert exc.value.code == 2
    assert "takes TYPE or DIR TYPE" in err.getvalue()
    assert _fails("dsdl", "layout", "demo.Telemetry") == (
        "no DSDL namespaces: give --lookup DIR or set CYPHAL_PATH"
    )


def test_a_typo_gets_did_you_mean(acme: Path) -> None:
    lookup = ["--lookup", str(EXAMPLE)]
    assert _fails("dsdl", "layout", "demo.Telemetri", *lookup) == (
        "no type demo.Telemetri; did you mean demo.Telemetry?"
    )
    assert _fails("dsdl", "encode", "demo.status", "{}", *lookup) == (
        "no type demo.status; did you mean demo.Status?"
    )
    assert _fails("dsdl", "decode", "deno.Status", "00", *lookup) == (
        "no root namespace 'deno' in --lookup or CYPHAL_PATH (have demo); did you mean demo.Status?"
    )
    assert _fails("dsdl", "layout", "acme.Thing.3", "--lookup", str(acme)) == (
        "no version 3 of acme.Thing (have 1.0, 1.1, 2.0)"
    )


def test_compile_reads_cyphal_path_for_its_lookups(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    # reg uses uavcan: without a lookup, pydsdl cannot find it ...
    assert "could not be found" in _fails("dsdl", "compile", str(REG), "-o", str(out))
    # ... CYPHAL_PATH names the folder that holds uavcan (and reg, compiled as the root)
    monkeypatch.setenv("CYPHAL_PATH", str(PUBLIC))
    code, text, err = _run("dsdl", "compile", str(REG), "-o", str(out))
    assert code == 0, err
    assert "reg" in text and (out / "reg" / "__init__.py").is_file()
    assert (out / "uavcan" / "__init__.py").is_file()  # the lookup types reg uses


def test_the_folder_that_holds_the_namespaces_gets_a_hint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hint = f"{PUBLIC} holds root namespaces (reg, uavcan): pass {PUBLIC / 'uavcan'}"
    out = str(tmp_path / "out")
    assert _fails("dsdl", "compile", str(PUBLIC), "-o", out) == hint
    assert _fails("dsdl", "layout", str(PUBLIC), "uavcan.node.Heartbeat.1.0") == hint
    assert _fails("dsdl", "encode", "uavcan.node.Heartbeat", "{}", "--lookup", str(PUBLIC)) == hint
    assert _fails("dsdl", "compile", str(REG), "--lookup", str(PUBLIC), "-o", out) == hint
    assert not (tmp_path / "out" / "reg").exists()
    # CYPHAL_PATH naming the root namespace itself instead of the folder that holds it
    monkeypatch.setenv("CYPHAL_PATH", str(UAVCAN))
    message = _fails("dsdl", "decode", "uavcan.node.Heartbeat", "00")
    assert message.startswith(f"no root namespace 'uavcan': {UAVCAN} is that root namespace")
    assert f"set CYPHAL_PATH={PUBLIC}" in message


def test_compiling_a_folder_without_dsdl_is_an_error(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    (empty / "sub").mkdir(parents=True)
    (empty / "README.md").write_text("no DSDL here\n")
    message = _fails("dsdl", "compile", str(empty), "-o", str(tmp_path / "out"))
    assert message.startswith(f"{empty}: no .dsdl file in this folder")
    assert not any((tmp_path / "out").glob("*/__init__.py"))
    assert _fails("dsdl", "compile", str(tmp_path / "nope"), "-o", str(tmp_path / "out")) == (
        f"{tmp_path / 'nope'}: not a DSDL namespace folder"
    )
