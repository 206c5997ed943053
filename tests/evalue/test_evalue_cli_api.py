"""The CLI part (sniff, inspect, demo) and the public surface of wireplan.evalue."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import wireplan.cli
import wireplan.evalue as ev
from wireplan.cli import main
from wireplan.evalue import RecordWriter, encode, encode_list
from wireplan.evalue.cli import demo, sniff


def test_public_names_come_from_the_package() -> None:
    public = {n for n in vars(ev) if not n.startswith("_")}
    submodules = {"cli", "torch", "dataset"}
    assert public - submodules == set(ev.__all__), "public names must be listed in __all__"
    for name in ev.__all__:
        obj = getattr(ev, name)
        assert not name.startswith("_")
        module = getattr(obj, "__module__", None)
        if module is not None and callable(obj):
            assert module.startswith("wireplan.evalue"), name
    assert {"encode", "encode_into", "encoded_size", "decode", "encode_list", "decode_list"} <= set(
        ev.__all__
    )
    assert {"RecordWriter", "read_records"} <= set(ev.__all__)


def test_torch_is_not_imported_by_the_codec() -> None:
    code = (
        "import sys, numpy as np, wireplan.evalue as ev, wireplan.evalue.cli\n"
        "ev.decode(ev.encode(np.ones(3, np.float32)))\n"
        "ev.decode_list(ev.encode_list([1, 'a']))\n"
        "assert 'torch' not in sys.modules, 'torch imported'\n"
        "assert 'ml_dtypes' not in sys.modules, 'ml_dtypes imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_sniff() -> None:
    assert sniff(encode(None)) and sniff(encode(3)) and sniff(encode(True))
    assert sniff(encode(np.zeros(3))[:64]) and sniff(encode("x"))
    assert sniff(encode_list([1])) and sniff(b"WPEVRECS\x00\x01")
    assert not sniff(b"") and not sniff(b"\x07abc") and not sniff(b"\x00\x00")
    assert not sniff(b"PK\x03\x04") and not sniff(b"\x01\x63\x01")


@pytest.fixture(autouse=True)
def _only_evalue(monkeypatch: pytest.MonkeyPatch) -> None:
    # Other formats' CLI modules are developed alongside; keep this test to ours.
    monkeypatch.setattr(wireplan.cli, "FORMATS", (("evalue", "EValue"),))


def _inspect(path: Path) -> str:
    out = io.StringIO()
    assert main(["inspect", str(path)], out=out) == 0
    return out.getvalue()


def test_inspect_single_value_list_and_records(tmp_path: Path) -> None:
    one = tmp_path / "one.ev"
    one.write_bytes(encode(np.zeros((3, 4), np.float16)))
    text = _inspect(one)
    assert "one EValue" in text and "float16 shape [3, 4]" in text and "24 data bytes" in text

    lst = tmp_path / "list.ev"
    lst.write_bytes(encode_list([1, "hi", np.arange(3)]))
    text = _inspect(lst)
    assert "3 elements" in text and "[1] String 'hi'" in text and "int64 shape [3]" in text

    rec = tmp_path / "r.evr"
    with RecordWriter(rec) as w:
        for i in range(8):
            w.write([np.ones((2, 2), np.float32), i])
    text = _inspect(rec)
    assert "8 records" in text and "3 more records" in text
    assert "16 values (Int 8, Tensor 8); 128 tensor data bytes" in text


def test_inspect_reports_bad_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.ev"
    bad.write_bytes(b"WPEL" + bytes(3))
    assert main(["inspect", str(bad)], out=io.StringIO()) == 1


def test_demo(tmp_path: Path) -> None:
    out = io.StringIO()
    demo(out, tmp_path)
    text = out.getvalue()
    whole = io.StringIO()
    assert main(["demo", "--only", "evalue"], out=whole) == 0
    assert "== EValue ==" in whole.getvalue()
    assert "encode" in text and "numpy.copyto" in text and "record file" in text
    assert "100 records" in text


def _wireplan_imports(module: str) -> set[str]:
    import ast

    path = Path(ev.__file__).parent / f"{module}.py"
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("wireplan"):
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("wireplan")}
    return found


def test_the_torch_door_sits_above_the_codec() -> None:
    # Layers: _dtypes, _types -> _codec -> _lists -> _records, _writer -> _dataset -> torch (the
    # door, which makes the dataset a torch one) -> dataset.  The codec names the door and loads
    # it for a torch tensor, so nothing below the door imports it.
    assert _wireplan_imports("_types") == {"wireplan.evalue._dtypes"}
    assert _wireplan_imports("torch") == {
        "wireplan.core.extras",  # the door that names the extra when torch is missing
        "wireplan.errors",
        "wireplan.evalue._dataset",
        "wireplan.evalue._types",
    }
    assert _wireplan_imports("dataset") == {"wireplan.evalue.torch"}
    for module in ("_codec", "_lists", "_records", "_writer", "_dataset", "_inspect", "cli"):
        public = {m for m in _wireplan_imports(module) if m.startswith("wireplan.evalue.")}
        assert not {m for m in public if not m.split(".")[2].startswith("_")}, module
