"""``wireplan evalue encode`` / ``decode`` (the JSON form) and ``inspect --record`` / ``--json``."""

from __future__ import annotations

import contextlib
import io
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wireplan.cli
from wireplan.cli import main
from wireplan.errors import ArgumentError, DecodeError
from wireplan.evalue import RecordWriter, decode, decode_list, encode, encode_list, read_records
from wireplan.evalue._json import from_json, to_json


@pytest.fixture(autouse=True)
def _only_evalue(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wireplan.cli, "FORMATS", (("evalue", "EValue"),))


def _run(*argv: str, stdin: str | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    if stdin is not None:
        sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.redirect_stderr(err):
            code = main(list(argv), out=out)
    finally:
        sys.stdin = saved
    return code, out.getvalue(), err.getvalue()


def _ok(*argv: str, stdin: str | None = None) -> str:
    code, out, err = _run(*argv, stdin=stdin)
    assert code == 0, err
    return out


def _fails(*argv: str) -> str:
    code, out, err = _run(*argv)
    assert code == 1, (code, out, err)
    assert err.startswith("wireplan: error: ") and err.count("\n") == 1, err
    return err.removeprefix("wireplan: error: ").strip()


def _hex(value: Any) -> str:
    return _ok("evalue", "encode", json.dumps(value), "--hex").strip()


def _back(hexed: str) -> Any:
    return json.loads(_ok("evalue", "decode", "--hex", hexed))


# ---------------------------------------------------------------- every kind, by hand


def test_each_kind_is_the_bytes_the_codec_writes() -> None:
    assert _hex(None) == encode(None).hex()
    assert _hex(True) == encode(True).hex()
    assert _hex(-(2**63)) == encode(-(2**63)).hex()
    assert _hex(2.5) == encode(2.5).hex()
    assert _hex(1.0) == encode(1.0).hex()  # a JSON number with a fraction: a Double
    assert _hex("héllo") == encode("héllo").hex()
    assert _hex({"double": "-inf"}) == encode(-math.inf).hex()
    assert _hex({"bytes": "ff00"}) == encode(b"\xff\x00").hex()
    arr = np.array([[1, 2], [3, 4]], np.float32)
    assert _hex({"tensor": [[1, 2], [3, 4]], "dtype": "float32"}) == encode(arr).hex()
    flat = {"tensor": [1, 2, 3, 4], "dtype": "float32", "shape": [2, 2]}
    assert _hex(flat) == encode(arr).hex()
    assert _hex([1, "a", None]) == encode_list([1, "a", None]).hex()
    assert _back(encode(arr).hex()) == {
        "tensor": [[1.0, 2.0], [3.0, 4.0]],
        "dtype": "float32",
        "shape": [2, 2],
    }
    empty = {"tensor": [], "dtype": "int64", "shape": [2, 0]}
    assert _back(_hex(empty)) == {"tensor": [[], []], "dtype": "int64", "shape": [2, 0]}
    assert _back(_hex({"tensor": 7, "dtype": "uint8"})) == {
        "tensor": 7,
        "dtype": "uint8",
        "shape": [],
    }


def test_input_from_stdin_and_a_file_output_to_a_file(tmp_path: Path) -> None:
    value = [{"tensor": [1.5, -2], "dtype": "float64"}, "label", 3]
    out = tmp_path / "x.ev"
    text = _ok("evalue", "encode", "-", "-o", str(out), stdin=json.dumps(value))
    assert text.startswith(f"wrote {out}: ") and "a list of 3 values" in text
    back = decode_list(out.read_bytes())
    assert back[1:] == ["label", 3] and back[0].tolist() == [1.5, -2.0]
    src = tmp_path / "v.json"
    src.write_text('{"double": "nan"}')
    assert _ok("evalue", "encode", f"@{src}", "--hex").strip() == encode(math.nan).hex()
    assert json.loads(_ok("evalue", "decode", str(out))) == [
        {"tensor": [1.5, -2.0], "dtype": "float64", "shape": [2]},
        "label",
        3,
    ]
    assert _ok("evalue", "decode", "--hex", "-", stdin=encode(None).hex()).strip() == "null"


def test_records_from_json_and_json_lines(tmp_path: Path) -> None:
    evr = tmp_path / "r.evr"
    lines = '[1, "a"]\n\n[{"tensor": [[1, 2]], "dtype": "int32"}]\n[]\n'
    text = _ok("evalue", "encode", lines, "--records", "-o", str(evr))
    assert text.strip().endswith("3 records")
    got = list(read_records(evr))
    assert got[0] == [1, "a"] and got[1][0].tolist() == [[1, 2]] and got[2] == []
    whole = json.loads(_ok("evalue", "decode", str(evr)))
    assert whole[0] == [1, "a"] and whole[2] == []
    assert _ok("evalue", "decode", str(evr), "--lines").splitlines()[0] == '[1,"a"]'
    assert json.loads(_ok("evalue", "decode", str(evr), "--record", "-2")) == [
        {"tensor": [[1, 2]], "dtype": "int32", "shape": [1, 2]}
    ]
    again = tmp_path / "again.evr"
    _ok("evalue", "encode", json.dumps(whole), "--records", "-o", str(again))
    assert again.read_bytes() == evr.read_bytes()
    one = tmp_path / "one.evr"
    _ok("evalue", "encode", "[[1]]", "--records", "-o", str(one))
    assert _ok("inspect", str(one)).splitlines()[0].endswith(", 1 record")  # not "1 records"


_BAD = [
    (("encode", "[1, [2]]", "--hex"), "$[1]: a list inside a list"),
    (
        ("encode", '[0, {"tensor": [[1, 2], [3]], "dtype": "int8"}]', "--hex"),
        "$[1].tensor[1]: ragged",
    ),
    (
        ("encode", '{"tensor": [[1, 2], [3, 300]], "dtype": "int8"}', "--hex"),
        "$.tensor[1][1]: 300 is out of range for int8 (-128..127)",
    ),
    (
        ("encode", '{"tensor": [1, 2, 3], "dtype": "float32", "shape": [2, 2]}', "--hex"),
        "$.tensor: 3 elements, but shape [2, 2] holds 4",
    ),
    (
        ("encode", '{"tensor": [1, 1e39], "dtype": "float32"}', "--hex"),
        "$.tensor[1]: 1e+39 is beyond the finite range of float32",
    ),
    (("encode", '{"tensor": [1], "dtype": "float"}', "--hex"), "$.dtype: unknown dtype 'float'"),
    (("encode", '[true, {"tensor": [1], "dtype": "int16"}]', "--hex"), "give --extended"),
    (
        ("encode", "[1, 9223372036854775808]", "--hex"),
        "$[1]: 9223372036854775808 is out of the Int range",
    ),
    (("encode", '[{"nope": 1}]', "--hex"), "$[0]: an object is"),
    (("encode", '{"double": "many"}', "--hex"), '$.double: a Double is a number or "nan"'),
    (("encode", "{a", "--hex"), "at byte 1: VALUE is not JSON: Expecting property name"),
    (("encode", '"\u00e9" x', "--hex"), "at byte 5: VALUE is not JSON: Extra data"),  # é: 2 bytes
    (
        ("encode", "[1]\n[2", "--records", "-o", "x.evr"),
        "at byte 6: VALUE line 2 is not JSON: Expecting ',' delimiter",
    ),
    (("encode", "[[1], 2]", "--records", "-o", "x.evr"), "$[1]: a record is a JSON list"),
    (("encode", "[[1]]", "--records"), "--records writes a record file: give -o FILE"),
    (("decode", "--hex", "0400ff"), "at byte 1: truncated"),
    (("decode", "--hex", "zz"), "at byte 0: INPUT is not hex: 'z'"),
    (("decode", "--hex", "04 0"), "at byte 3: INPUT is not hex: 3 digits, an odd number"),
    (("decode", "--hex", "00", "--lines"), "--lines prints a list or a record file"),
    (("decode", "--hex", "00", "--record", "0"), "--record 0: not an EValue record file"),
]


@pytest.mark.parametrize(("argv", "message"), _BAD, ids=[str(i) for i in range(len(_BAD))])
def test_bad_input_is_one_line_with_the_json_path(
    argv: tuple[str, ...], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert message in _fails("evalue", *argv)


def test_json_errors_name_the_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``@FILE`` and ``-`` are named; a VALUE that names a file gets the way to read it (a
    newcomer's ``encode data.json`` said only "VALUE is not JSON")."""
    monkeypatch.chdir(tmp_path)
    Path("data.json").write_text("[1,\n 2", encoding="utf-8")
    said = "at byte 0: VALUE is not JSON: Expecting value at line 1 column 1"
    assert _fails("evalue", "encode", "data.json", "--hex") == (
        f"{said} (to read the file data.json, give @data.json)"
    )
    assert _fails("evalue", "encode", "@data.json", "--hex").startswith(
        "at byte 6: data.json is not JSON: Expecting ',' delimiter"
    )
    assert _fails("evalue", "encode", "data.json", "--records", "-o", "x.evr").endswith(
        "(to read the file data.json, give @data.json)"
    )
    assert _fails("evalue", "encode", "nofile.json", "--hex") == said  # no such file: no hint
    code, _, err = _run("evalue", "encode", "-", "--hex", stdin="[1,")
    assert code == 1 and "at byte 3: stdin is not JSON" in err


_CLASSES = [
    (("encode", "[[1]]", "--records"), ArgumentError, None),
    (("decode", "--hex", "00", "--lines"), ArgumentError, None),
    (("encode", "[1, x]", "--hex"), DecodeError, 4),
    (("encode", "[1]\r\n[2, x]", "--records", "-o", "x.evr"), DecodeError, 9),  # line 2: byte 5
    (("decode", "--hex", "0 4 x"), DecodeError, 4),
]


@pytest.mark.parametrize(("argv", "cls", "offset"), _CLASSES, ids=[str(i) for i in range(5)])
def test_bad_flags_are_argument_errors_and_bad_text_decode_errors_at_their_byte(
    argv: tuple[str, ...],
    cls: type[Exception],
    offset: int | None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    args = wireplan.cli.build_parser().parse_args(["evalue", *argv])
    with pytest.raises(cls) as info:
        args.handler(args, io.StringIO())
    assert type(info.value) is cls and getattr(info.value, "offset", None) == offset


# ---------------------------------------------------------------- round trips (hypothesis)

_FLOAT_TYPES = ("float16", "float32", "float64")
_INT_TYPES = {"uint8": (0, 255), "int8": (-128, 127), "int32": (-(2**31), 2**31 - 1),
              "int64": (-(2**63), 2**63 - 1)}  # fmt: skip


@st.composite
def _tensors(draw: st.DrawFn) -> dict[str, Any]:
    shape = draw(st.lists(st.integers(0, 3), max_size=3))
    n = math.prod(shape)
    dtype = draw(st.sampled_from([*_FLOAT_TYPES, *_INT_TYPES, "bool", "int16", "complex64"]))
    if dtype in _INT_TYPES or dtype == "int16":
        lo, hi = _INT_TYPES.get(dtype, (-(2**15), 2**15 - 1))
        flat = draw(st.lists(st.integers(lo, hi), min_size=n, max_size=n))
    elif dtype == "bool":
        flat = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    else:
        width = {"float16": 16, "float32": 32, "float64": 64, "complex64": 32}[dtype]
        floats = st.floats(width=width, allow_nan=False)  # type: ignore[arg-type]
        flat = draw(st.lists(floats, min_size=n, max_size=n))
        flat = [v if math.isfinite(v) else ("inf" if v > 0 else "-inf") for v in flat]
        if dtype == "complex64":
            flat = [[v, v] for v in flat]
    return {"tensor": flat, "dtype": dtype, "shape": shape}


_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([{"double": "nan"}, {"double": "inf"}, {"double": "-inf"}]),
    st.text(),
    st.binary(min_size=1).filter(lambda b: not _utf8(b)).map(lambda b: {"bytes": b.hex()}),
    _tensors(),
    st.sampled_from(
        [  # no numpy type (raw wire bytes), and ml_dtypes' bfloat16 (the dtypes extra)
            {"raw": "01ff", "dtype": "qint8", "shape": [2]},
            {"raw": "", "dtype": "complex32", "shape": [0, 3]},
            {"tensor": [[1.5, "-inf"]], "dtype": "bfloat16", "shape": [1, 2]},
        ]
    ),
)


def _utf8(b: bytes) -> bool:
    try:
        b.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


_SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))


@_SETTINGS
@given(st.one_of(_scalars, st.lists(_scalars, max_size=4)))
def test_json_round_trips_through_the_bytes(value: Any) -> None:
    """decode(encode(x)) == x, in canonical form (what decode prints), for every kind."""
    canonical = to_json(_decoded(_encoded(from_json(value))))
    assert to_json(_decoded(_encoded(from_json(canonical)))) == canonical
    text = json.dumps(canonical, allow_nan=False)
    assert json.loads(text) == canonical  # plain JSON: no NaN, no Infinity


def _encoded(value: Any) -> bytes:
    return (
        encode_list(value, extended=True)
        if isinstance(value, list)
        else encode(value, extended=True)
    )


def _decoded(data: bytes) -> Any:
    if data.startswith(b"WPEL"):
        return decode_list(data, extended=True, text=False)
    return decode(data, extended=True, text=False)


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(_scalars, max_size=3))
def test_the_verbs_round_trip(value: list[Any]) -> None:
    canonical = to_json(_decoded(_encoded(from_json(value))))
    hexed = _ok("evalue", "encode", json.dumps(canonical), "--hex", "--extended").strip()
    assert _back(hexed) == canonical


def test_float_elements_print_as_their_shortest_decimal() -> None:
    arr = np.array([1.1, 0.1, 3.14159], np.float32)
    assert to_json(arr)["tensor"] == [1.1, 0.1, 3.14159]
    assert from_json(to_json(arr)).tobytes() == arr.tobytes()


# ---------------------------------------------------------------- inspect --record / --json


def _evr(tmp_path: Path, n: int = 7) -> Path:
    path = tmp_path / "r.evr"
    with RecordWriter(path) as w:
        for i in range(n):
            w.write([np.full((2, 2), i, np.float32), f"label-{i}", i])
    return path


def test_inspect_shows_record_n(tmp_path: Path) -> None:
    path = _evr(tmp_path)
    shown = json.loads(_ok("inspect", str(path), "--record", "3"))
    assert shown == [
        {"tensor": [[3.0, 3.0], [3.0, 3.0]], "dtype": "float32", "shape": [2, 2]},
        "label-3",
        3,
    ]
    assert shown == json.loads(_ok("evalue", "decode", str(path), "--record", "3"))
    assert (
        _fails("inspect", str(path), "--record", "7")
        == f"{path}: no record 7: the file has 7 records"
    )
    one = tmp_path / "one.ev"
    one.write_bytes(encode(5))
    assert (
        _fails("inspect", str(one), "--record", "0")
        == f"{one}: --record 0: not an EValue record file"
    )


def test_inspect_json_of_each_evalue_file(tmp_path: Path) -> None:
    path = _evr(tmp_path)
    one, lst = tmp_path / "one.ev", tmp_path / "l.ev"
    one.write_bytes(encode(np.zeros((3, 4), np.float16)))
    lst.write_bytes(encode_list([1, "hi", 2.5, None, True]))
    doc = json.loads(_ok("inspect", "--json", str(one), str(lst), str(path)))
    assert doc["wireplan_inspect"] == 1
    value, listed, records = doc["files"]
    assert value == {
        "path": str(one), "format": "evalue", "size": one.stat().st_size, "type": "Tensor",
        "dtype": "float16", "shape": [3, 4], "nbytes": 24, "raw": False,
    }  # fmt: skip
    assert listed["format"] == "evalue-list" and listed["count"] == 5
    assert listed["items"][:3] == [
        {"type": "Int", "value": 1},
        {"type": "String", "bytes": 2, "text": True},
        {"type": "Double", "value": 2.5},
    ]
    assert records["format"] == "evalue-records" and records["records"] == 7
    assert len(records["first_records"]) == 5 and records["values"] == 21
    assert records["types"] == {"Int": 7, "String": 7, "Tensor": 7}
    assert records["tensor_bytes"] == 7 * 16 and "record" not in records
    chosen = json.loads(_ok("inspect", "--json", "--record", "-1", str(path)))["files"][0]["record"]
    assert chosen["index"] == 6 and chosen["value"][1:] == ["label-6", 6]


def test_inspect_json_of_shards(tmp_path: Path) -> None:
    for i in range(2):
        with RecordWriter(tmp_path / f"part-{i}.evr") as w:
            w.write([i])
    doc = json.loads(_ok("inspect", "--json", str(tmp_path)))
    found = doc["files"][0]
    assert found["format"] == "evalue-shards" and found["records"] == 2
    assert [s["records"] for s in found["shards"]] == [1, 1]
    assert found["size"] == sum(s["size"] for s in found["shards"])
    assert found["types"] == {"Int": 2}
