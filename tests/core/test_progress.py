"""wireplan.core.progress: a bar on a terminal, nothing when piped, a plain line without tqdm."""

from __future__ import annotations

import io
import sys

import pytest

from wireplan.core import progress as progress_module
from wireplan.core.progress import announced, progress_bar


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_piped_gets_no_callback() -> None:
    out = io.StringIO()
    with progress_bar("writing m.ort", start="reading m.onnx...", stream=out) as progress:
        assert progress is None
    assert out.getvalue() == ""


def test_terminal_gets_a_tqdm_bar() -> None:
    pytest.importorskip("tqdm")
    out = Terminal()
    with progress_bar("writing m.ort", start="reading m.onnx...", stream=out) as progress:
        assert progress is not None
        assert out.getvalue() == "reading m.onnx...\n"  # at once, before any byte moves
        for done in range(0, 5 << 20, 1 << 20):
            progress(done, 4 << 20)
    text = out.getvalue()
    assert "writing m.ort" in text and "%|" in text and "/4.00M" in text


def test_terminal_without_tqdm_gets_a_plain_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tqdm", None)  # import tqdm raises ImportError
    clock = iter(range(100))
    monkeypatch.setattr(progress_module, "_clock", lambda: float(next(clock)))
    out = Terminal()
    with progress_bar("writing m.ort", stream=out) as progress:
        assert progress is not None
        progress(0, 3 << 30)
        progress(3 << 29, 3 << 30)
        progress(3 << 30, 3 << 30)
    text = out.getvalue()
    assert "\rwriting m.ort: 0% (0 bytes of 3.0 GiB)" in text
    assert "\rwriting m.ort: 50% (1.5 GiB of 3.0 GiB)" in text
    assert "\rwriting m.ort: 100% (3.0 GiB of 3.0 GiB)" in text
    assert text.endswith("\r")  # erased at the end, as tqdm's leave=False


def test_plain_line_redraws_a_few_times_a_second(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setattr(progress_module, "_clock", lambda: 5.0)  # time stands still
    out = Terminal()
    with progress_bar("compiling uavcan", unit="type", stream=out) as progress:
        assert progress is not None
        for done in range(176):
            progress(done, 175)
    lines = [part for part in out.getvalue().split("\r") if part.strip()]
    assert lines == [
        "compiling uavcan: 0% (0 types of 175 types)",
        "compiling uavcan: 100% (175 types of 175 types)",
    ]


def test_announce_says_what_is_compiled_on_a_terminal_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "tqdm", None)
    out = Terminal()
    with announced("compiling uavcan", "type", stream=out) as progress:
        assert progress is not None
        for done in range(4):
            progress(done, 3)
    assert out.getvalue().startswith("compiling uavcan (3 types)...\n\rcompiling uavcan: 0%")
    assert out.getvalue().count("(3 types)...") == 1
    quiet = Terminal()
    with announced("compiling uavcan", "type", stream=quiet) as progress:
        pass  # never called (the cache had it): nothing said
    assert quiet.getvalue() == ""
    piped = io.StringIO()
    with announced("compiling uavcan", "type", stream=piped) as progress:
        assert progress is None
