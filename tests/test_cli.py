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


def test_an_empty_file_is_empty(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """It was "not a format wireplan knows"."""
    empty = tmp_path / "x.bin"
    empty.write_bytes(b"")
    assert main(["inspect", str(empty)]) == 1
    assert capsys.readouterr().err == f"wireplan: error: {empty}: empty file\n"


def test_every_error_line_has_the_prefix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One prefix for all errors: `wireplan: error: FILE: ...`, one line each, exit 1."""
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"\xff" * 10)
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    missing = tmp_path / "missing"
    files = [junk, empty, missing]
    out = io.StringIO()
    assert main(["inspect", *map(str, files)], out=out) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == len(files) and out.getvalue() == ""
    for line, path in zip(err, files, strict=True):
        assert line.startswith(f"wireplan: error: {path}: "), line
    assert main(["inspect", "--record", "1", str(junk)]) == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"wireplan: error: {junk}: ")
    assert main(["inspect", "--type-reduction", str(junk)]) == 2
    assert capsys.readouterr().err.startswith("wireplan: error: ")


def test_inspect_json_when_nothing_works(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    out = io.StringIO()
    assert main(["inspect", "--json", str(tmp_path / "missing")], out=out) == 1
    assert json.loads(out.getvalue()) == {"wireplan_inspect": 1, "files": []}
    (line,) = capsys.readouterr().err.splitlines()
    assert line == f"wireplan: error: {tmp_path / 'missing'}: No such file or directory"


def test_a_groups_inspect_is_inspect_for_one_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``wireplan evalue inspect`` says what ``wireplan inspect`` says of an EValue file, and
    refuses another format's file (``wireplan ort inspect`` likewise) in one line."""
    import wireplan.evalue as ev

    data = tmp_path / "x.ev"
    assert main(["evalue", "encode", "[1, 2.5]", "-o", str(data), "--no-fsync"]) == 0
    assert data.read_bytes() == ev.encode_list([1, 2.5])
    capsys.readouterr()
    for argv in (["inspect", str(data)], ["evalue", "inspect", str(data)]):
        out = io.StringIO()
        assert main(argv, out=out) == 0
        assert "EValue list" in out.getvalue()
    out = io.StringIO()
    assert main(["evalue", "inspect", "--json", "--record", "0", str(data)], out=out) == 1
    assert "record" in capsys.readouterr().err
    assert main(["ort", "inspect", str(data)]) == 1
    assert capsys.readouterr().err == f"wireplan: error: {data}: not ONNX Runtime .ort data\n"
