from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from wireplan import __version__
from wireplan.cli import build_parser, main


def test_help_lists_the_commands() -> None:
    text = build_parser().format_help()
    for command in ("demo", "inspect"):
        assert command in text


def test_version_via_python_m() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "wireplan", "--version"], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == f"wireplan {__version__}"


def test_demo_runs_every_available_format() -> None:
    from wireplan.cli import FORMATS, _available

    present = _available()
    assert [name for name, _, _ in present] == [name for name, _ in FORMATS]
    out = io.StringIO()
    assert main(["demo"], out=out) == 0
    text = out.getvalue()
    for _, title, _ in present:
        assert f"== {title} ==" in text


def test_inspect_unknown_and_missing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"\xff" * 10)
    assert main(["inspect", str(junk)]) == 1
    assert "not a format wireplan knows" in capsys.readouterr().err
    assert main(["inspect", str(tmp_path / "missing")]) == 1
    err = capsys.readouterr().err
    assert "No such file" in err and "missing" in err


def test_usage_error_exits_2() -> None:
    with pytest.raises(SystemExit) as info:
        main(["no-such-command"])
    assert info.value.code == 2
