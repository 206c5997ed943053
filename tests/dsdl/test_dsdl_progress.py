"""The first use of a namespace compiles it for seconds: load / compile report each type read,
and the command line says so on a terminal ("compiling demo (4 types)...")."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

import ptyrun
import wireplan.dsdl as dsdl

from ._support import REPO


def _namespaces(folder: Path) -> tuple[Path, Path]:
    """``demo`` (4 definitions, one a service, one using ``base``) and ``base`` (2)."""
    base = folder / "base"
    (base / "unit").mkdir(parents=True)
    (base / "Id.1.0.dsdl").write_text("uint16 value\n@sealed\n")
    (base / "unit" / "Volt.1.0.dsdl").write_text("float32 volt\n@sealed\n")
    demo = folder / "demo"
    (demo / "sub").mkdir(parents=True)
    (demo / "A.1.0.dsdl").write_text("uint8 x\nbase.Id.1.0 id\n@sealed\n")
    (demo / "B.1.0.dsdl").write_text("A.1.0[<=3] items\n@extent 64 * 8\n")
    (demo / "sub" / "C.1.0.dsdl").write_text("base.unit.Volt.1.0 v\n@sealed\n")
    (demo / "Ping.1.0.dsdl").write_text("uint8 n\n@sealed\n---\nuint8 m\n@sealed\n")
    return demo, base


@pytest.fixture
def fresh_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cache = tmp_path / "cache"
    monkeypatch.setenv("WIREPLAN_CACHE_DIR", str(cache))
    return cache


def _check(calls: list[tuple[int, int]], total: int) -> None:
    assert calls[0] == (0, total)
    assert calls[-1] == (total, total)
    done = [d for d, _ in calls]
    assert done == sorted(done)
    assert {t for _, t in calls} == {total}
    assert len(calls) == total + 1  # one call per type read, as pydsdl finishes it


def test_load_reports_each_type_once_then_never(tmp_path: Path, fresh_cache: Path) -> None:
    demo, base = _namespaces(tmp_path)
    calls: list[tuple[int, int]] = []
    module = dsdl.load(demo, lookup=[base], progress=lambda d, t: calls.append((d, t)))
    _check(calls, 4)  # the lookup namespace's types are read too, but not counted
    assert module.A_1_0(x=5).serialize()[0] == 5
    calls.clear()
    dsdl.load(demo, lookup=[base], progress=lambda d, t: calls.append((d, t)))
    assert calls == []  # the cache has it: nothing to report


@pytest.mark.parametrize("language", ["python", "c"])
def test_compile_reports_each_type(tmp_path: Path, language: str) -> None:
    demo, base = _namespaces(tmp_path)
    calls: list[tuple[int, int]] = []
    dsdl.compile(
        [demo, base],
        output=tmp_path / "out",
        language=language,
        progress=lambda d, t: calls.append((d, t)),
    )
    _check(calls, 6)  # two roots: every definition of both


def test_reading_shows_the_user_no_pydsdl_logs(tmp_path: Path, fresh_cache: Path) -> None:
    """The count comes from pydsdl's INFO records, which the user did not ask to see."""
    demo, base = _namespaces(tmp_path)
    seen: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(record)

    handler = Keep()
    root = logging.getLogger()
    root.addHandler(handler)
    logger = logging.getLogger("pydsdl._dsdl_definition")
    level = logger.level
    try:
        dsdl.load(demo, lookup=[base], progress=lambda d, t: None)
    finally:
        root.removeHandler(handler)
    assert [r for r in seen if r.name.startswith("pydsdl")] == []
    assert logger.level == level and not logger.filters


def test_an_error_in_progress_is_raised_as_it_is(tmp_path: Path, fresh_cache: Path) -> None:
    demo, base = _namespaces(tmp_path)

    def stop(done: int, total: int) -> None:
        if done == 2:
            raise KeyError("stop")

    with pytest.raises(KeyError, match="stop"):
        dsdl.load(demo, lookup=[base], progress=stop)


def _encode(demo: Path, base: Path, cache: Path, tty: bool) -> tuple[int, str, str]:
    """``wireplan dsdl encode demo.A '{x: 5}'`` in a child; stderr a pseudo-terminal or a pipe."""
    env = {
        **os.environ,
        "WIREPLAN_CACHE_DIR": str(cache),
        "PYTHONPATH": os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")]),
    }
    env.pop("CYPHAL_PATH", None)
    cmd = [sys.executable, "-m", "wireplan", "dsdl", "encode", "demo.A", "{x: 5}"]
    cmd += ["--lookup", str(demo), "--lookup", str(base)]
    if not tty:
        done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
        return done.returncode, done.stdout, done.stderr
    return ptyrun.run(cmd, terminal="stderr", env=env)


def test_first_encode_says_it_compiles_on_a_terminal(tmp_path: Path) -> None:
    demo, base = _namespaces(tmp_path)
    code, out, err = _encode(demo, base, tmp_path / "cache", tty=True)
    assert (code, out) == (0, "050000\n")
    assert "compiling demo (4 types)..." in err
    assert "compiling demo:" in err
    assert "/4 [" in err or "of 4 types)" in err  # tqdm's bar, or the plain line, counts types
    code, out, err = _encode(demo, base, tmp_path / "cache", tty=True)
    assert (code, out, err) == (0, "050000\n", "")  # compiled already: nothing said


def test_first_encode_piped_is_quiet(tmp_path: Path) -> None:
    demo, base = _namespaces(tmp_path)
    assert _encode(demo, base, tmp_path / "cache", tty=False) == (0, "050000\n", "")
