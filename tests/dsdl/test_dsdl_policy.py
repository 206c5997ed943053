"""The DSDL wing keeps the house rules: one error class per failure, the shared verbs
(``encode`` / ``decode``), ``durable`` on the writer, and all-or-none package swaps."""

from __future__ import annotations

import errno
import io
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

import wireplan
import wireplan.dsdl
from wireplan.cli import main
from wireplan.dsdl import values

from ._support import CORNER, UAVCAN


def _mini(folder: Path, name: str = "mini", body: str = "uint8 x\n@sealed\n") -> Path:
    src = folder / name
    src.mkdir(parents=True)
    (src / "A.1.0.dsdl").write_text(body)
    return src


# ---------------------------------------------------------------- one class per failure


def test_a_missing_type_is_a_not_found_error(wp_corner: dict[str, ModuleType]) -> None:
    with pytest.raises(wireplan.NotFoundError, match=r"did you mean corner\.Inner") as info:
        wireplan.dsdl.layout("corner.Innr.1.0", CORNER)
    assert isinstance(info.value, LookupError)
    with pytest.raises(wireplan.NotFoundError, match=r"no version 9 of corner\.Inner"):
        wireplan.dsdl.layout("corner.Inner.9", CORNER)
    with pytest.raises(wireplan.NotFoundError, match=r"no namespace 'corner\.nope'"):
        values.find_class("corner.nope.Inner", [CORNER])


def test_a_class_without_its_report_is_a_not_found_error(tmp_path: Path) -> None:
    src = _mini(tmp_path / "src", "nolayout")
    out = wireplan.dsdl.compile(src, output=tmp_path / "out", durable=False)
    sys.path.insert(0, str(out))
    try:
        import nolayout  # type: ignore[import-not-found]

        (out / "nolayout" / "_wireplan_layout.json").write_text("[]")
        with pytest.raises(wireplan.NotFoundError, match=r"no layout report for nolayout\.A\.1\.0"):
            wireplan.dsdl.layout(nolayout.A_1_0)
    finally:
        sys.path.remove(str(out))
        for name in [m for m in sys.modules if m.split(".")[0] == "nolayout"]:
            del sys.modules[name]


def test_bad_arguments_are_argument_errors(tmp_path: Path) -> None:
    src = _mini(tmp_path / "src")
    with pytest.raises(wireplan.ArgumentError, match="unknown language 'rust'") as info:
        wireplan.dsdl.compile(src, output=tmp_path / "out", language="rust")
    assert isinstance(info.value, ValueError)
    with pytest.raises(wireplan.ArgumentError, match="not a DSDL namespace folder"):
        wireplan.dsdl.compile(tmp_path / "missing", output=tmp_path / "out")
    (tmp_path / "empty").mkdir()
    with pytest.raises(wireplan.ArgumentError, match=r"no \.dsdl file"):
        wireplan.dsdl.load(tmp_path / "empty")
    with pytest.raises(wireplan.ArgumentError, match="generated class, or a type name") as info:
        wireplan.dsdl.layout(42)
    assert isinstance(info.value, TypeError)  # as it was
    with pytest.raises(wireplan.ArgumentError, match="not a DSDL type name"):
        wireplan.dsdl.layout("Heartbeat", UAVCAN)
    with pytest.raises(wireplan.ArgumentError, match="is a service"):
        wireplan.dsdl.layout("uavcan.register.Access.1.0", UAVCAN)
    with pytest.raises(wireplan.ArgumentError, match="not a generated DSDL class"):
        wireplan.dsdl.decode(int, b"")


def test_bad_text_input_is_a_decode_error_with_its_offset() -> None:
    with pytest.raises(wireplan.DecodeError) as info:
        values.parse_hex("01 0g")
    assert info.value.offset == 4 and "not hex: 'g' at character 5" in str(info.value)
    with pytest.raises(wireplan.DecodeError) as info:
        values.parse_hex("\u00a00g")  # bytes of the text (a no-break space is 2), not characters
    assert info.value.offset == 3
    with pytest.raises(wireplan.DecodeError, match="odd number of hex digits") as info:
        values.parse_hex("01 2")
    assert info.value.offset == 3
    with pytest.raises(wireplan.DecodeError, match="neither JSON nor YAML") as info:
        values.parse_text("{a: [}")
    assert info.value.offset is not None and 0 <= info.value.offset <= len("{a: [}")


def test_a_cli_without_namespaces_is_an_argument_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("CYPHAL_PATH", raising=False)
    assert main(["dsdl", "layout", "uavcan.node.Heartbeat"], out=io.StringIO()) != 0
    assert "give --lookup DIR or set CYPHAL_PATH" in capsys.readouterr().err
    from wireplan.dsdl import _lookup

    with pytest.raises(wireplan.ArgumentError, match="not a folder"):
        _lookup.namespaces(["/nonexistent/uavcan"], "")


def test_a_foreign_output_folder_is_a_file_error(tmp_path: Path) -> None:
    src = _mini(tmp_path / "src")
    (tmp_path / "out" / "mini").mkdir(parents=True)
    for language in ("python", "c"):
        with pytest.raises(wireplan.FileError, match="not written by wireplan") as info:
            wireplan.dsdl.compile(src, output=tmp_path / "out", language=language)
        assert info.value.filename == str(tmp_path / "out" / "mini")


def test_a_package_without_its_models_is_a_file_error(tmp_path: Path) -> None:
    from wireplan.dsdl._pycyphal import _models

    with pytest.raises(wireplan.FileError, match="without pydsdl models") as info:
        _models(str(tmp_path))
    assert isinstance(info.value, OSError) and info.value.errno == errno.ENOENT


def test_strict_text_values_and_lax_objects_share_their_rules(
    wp_corner: dict[str, ModuleType],
) -> None:
    """``from_plain`` (text values) and ``from_builtin`` check field names with one check."""
    inner = wp_corner["corner"].Inner_1_0
    message = r"unknown field 'w' of corner\.Inner\.1\.0 \(fields: x, y, z\)"
    with pytest.raises(wireplan.EncodeError, match=message):
        inner.from_builtin({"w": 1})
    with pytest.raises(wireplan.EncodeError, match=message):
        values.from_plain(inner, {"w": 1})
    assert values.to_plain(inner(x=5, y=True, z=-3)) == inner(x=5, y=True, z=-3).to_builtin()


# ---------------------------------------------------------------- the shared verbs


def test_encode_and_decode_are_the_verbs(wp_corner: dict[str, ModuleType]) -> None:
    """``encode`` / ``decode`` as in the other wings; pycyphal's names are the same functions."""
    assert wireplan.dsdl.encode is wireplan.dsdl.serialize
    assert wireplan.dsdl.decode is wireplan.dsdl.deserialize
    assert {"encode", "decode", "serialize", "deserialize"} <= set(wireplan.dsdl.__all__)
    inner = wp_corner["corner"].Inner_1_0
    a = inner(x=5, y=True, z=-3)
    assert wireplan.dsdl.decode(inner, wireplan.dsdl.encode(a)) == a
    with pytest.raises(wireplan.EncodeError, match="not a DSDL object"):
        wireplan.dsdl.encode(5)


# ---------------------------------------------------------------- durable, all or none


def test_compile_is_durable_unless_told(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[int] = []
    real = os.fsync

    def counting(fd: int) -> None:
        synced.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", counting)
    src = _mini(tmp_path / "src")
    for language in ("python", "c"):
        out = tmp_path / f"out-{language}"
        synced.clear()
        wireplan.dsdl.compile(src, output=out, language=language, durable=False)
        assert synced == [], language
        wireplan.dsdl.compile(src, output=out, language=language)  # durable by default
        written = [p for p in out.rglob("*") if p.is_file()]
        assert len(synced) >= len(written), language
    synced.clear()
    argv = ["dsdl", "compile", str(src), "-o", str(tmp_path / "cli"), "--no-fsync"]
    assert main(argv, out=io.StringIO()) == 0
    assert synced == [] and (tmp_path / "cli" / "mini" / "__init__.py").is_file()


def test_a_failed_swap_puts_every_previous_package_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two root namespaces are swapped in one after the other: when the second move fails,
    the first is moved back out and both previous packages are there as they were."""
    one = _mini(tmp_path / "src", "one")
    two = _mini(tmp_path / "src", "two")
    out = tmp_path / "out"
    wireplan.dsdl.compile([one, two], output=out, durable=False)
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    (one / "A.1.0.dsdl").write_text("uint16 x\n@sealed\n")
    (two / "A.1.0.dsdl").write_text("uint32 x\n@sealed\n")
    real = os.replace

    def failing(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        if Path(dst) == out / "two" and ".wireplan-compile-" in str(src):
            raise OSError(28, "No space left on device")
        real(src, dst)

    monkeypatch.setattr(os, "replace", failing)
    with pytest.raises(wireplan.FileError, match="No space left"):
        wireplan.dsdl.compile([one, two], output=out, durable=False)
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in out.iterdir()) == ["one", "two"]  # nothing left aside
