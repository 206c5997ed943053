"""``wireplan dsdl encode`` / ``decode`` against pydsdl's codec, pycyphal's plain form, yakut's I/O."""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import subprocess
import sys
from types import ModuleType
from typing import Any

import numpy as np
import pydsdl
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ptyrun
from wireplan.cli import main
from wireplan.dsdl import values as dsdl_values

from ._support import CORNER, PUBLIC, REG, REPO, UAVCAN, full_name, serializable, unwrap
from ._values import values

_LOOKUP = ["--lookup", str(UAVCAN), "--lookup", str(REG)]
_ONE = settings(
    max_examples=2, deadline=None, database=None, suppress_health_check=list(HealthCheck)
)


def _run(*argv: str, stdin: str | None = None) -> tuple[int, str, str]:
    """``wireplan ARGV`` in this process: exit code, stdout, stderr."""
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


def _encode(name: str, text: str, lookup: list[str] = _LOOKUP) -> str:
    return _ok("dsdl", "encode", name, text, *lookup).strip()


def _decode(name: str, hexed: str, lookup: list[str] = _LOOKUP) -> Any:
    return json.loads(_ok("dsdl", "decode", name, hexed, "--json", *lookup))


def _jsonable(v: Any) -> Any:
    if isinstance(v, bytes):
        return list(v)
    if isinstance(v, dict):
        return {k: _jsonable(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_jsonable(x) for x in v]
    return v


def _round_trip(t: Any, lookup: list[str], as_yaml: bool) -> None:
    name = full_name(t)
    size = (unwrap(t).bit_length_set.max + 7) // 8

    @_ONE
    @given(values(t), st.binary(max_size=size + 4))
    def check(v: Any, junk: bytes) -> None:
        # any bytes: a value or one line naming the byte offset, never a traceback
        code, out, err = _run("dsdl", "decode", name, junk.hex(), "--json", *lookup)
        assert (code, err) == (0, "") or (code == 1 and err.startswith("wireplan: error: at byte"))
        assert err.count("\n") <= 1, err
        assert code or json.loads(out) is not None
        text = yaml.safe_dump(v) if as_yaml else json.dumps(_jsonable(v))
        ref = pydsdl.serialize(t, v)
        hexed = _encode(name, text, lookup)
        assert hexed == ref.hex(), f"{name}: {hexed} != {ref.hex()} for {text}"
        if as_yaml:  # what a terminal shows reads back as the same bytes
            shown = _ok("dsdl", "decode", name, hexed, "--yaml", *lookup)
            assert _encode(name, shown, lookup) == hexed, f"{name}: {shown}"
        else:
            decoded = _decode(name, hexed, lookup)
            assert _encode(name, json.dumps(decoded), lookup) == hexed, f"{name}: {decoded}"

    check()


@pytest.fixture
def _loaded_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """``load`` hashes every source on each call (about 15 ms for uavcan + reg): once is enough
    for the hundreds of in-process CLI calls here."""
    import wireplan.dsdl

    real = wireplan.dsdl.load
    seen: dict[str, Any] = {}

    def load(roots: Any, *, lookup: Any = (), progress: Any = None) -> Any:
        key = repr((roots, lookup))
        if key not in seen:
            seen[key] = real(roots, lookup=lookup, progress=progress)
        return seen[key]

    monkeypatch.setattr(wireplan.dsdl, "load", load)


@pytest.mark.usefixtures("_loaded_once")
def test_every_public_type_round_trips(public_types: list[Any]) -> None:
    """A random value of each of the 266 types: JSON or YAML in, hex out = pydsdl, and back."""
    assert len(public_types) == 266
    for i, t in enumerate(public_types):
        _round_trip(t, _LOOKUP, as_yaml=bool(i % 2))


@pytest.mark.usefixtures("_loaded_once")
def test_corner_types_round_trip() -> None:
    """utf8 and byte arrays, unions in unions, odd widths: both text forms."""
    lookup = ["--lookup", str(CORNER)]
    for t in serializable(pydsdl.read_namespace(str(CORNER), [])):
        _round_trip(t, lookup, as_yaml=False)
        _round_trip(t, lookup, as_yaml=True)


def test_yaml_flow_as_yakut_users_type_it() -> None:
    hexed = _encode(
        "uavcan.node.Heartbeat.1.0", "{uptime: 5, health: {value: 1}, mode: {value: 0}}"
    )
    assert hexed == "05000000010000"
    assert _encode("uavcan.node.Heartbeat.1.0", '{"uptime": 5, "health": {"value": 1}}') == hexed
    assert _decode("uavcan.node.Heartbeat.1.0", "0x05 0x00 00:00-01 00 00") == {
        "uptime": 5,
        "health": {"value": 1},
        "mode": {"value": 0},
        "vendor_specific_status_code": 0,
    }
    # block YAML from stdin, and an empty value (all defaults)
    block = "uptime: 5\nhealth:\n  value: 1\n"
    assert (
        _ok("dsdl", "encode", "uavcan.node.Heartbeat.1.0", "-", *_LOOKUP, stdin=block).strip()
        == hexed
    )
    assert _encode("uavcan.node.Heartbeat.1.0", "{}") == "00000000000000"
    assert _ok(
        "dsdl",
        "decode",
        "uavcan.node.Heartbeat.1.0",
        "-",
        "--json",
        *_LOOKUP,
        stdin="05000000010000\n",
    )


@pytest.mark.parametrize(
    ("name", "chosen"),
    [
        ("uavcan.node.Heartbeat.1.0", "uavcan.node.Heartbeat.1.0"),
        ("uavcan.node.Heartbeat", "uavcan.node.Heartbeat.1.0"),
        ("uavcan/node/Heartbeat/1/0", "uavcan.node.Heartbeat.1.0"),
        ("uavcan.node.ExecuteCommand.Request", "uavcan.node.ExecuteCommand.Request.1.3"),
        ("uavcan.node.ExecuteCommand.Request.1", "uavcan.node.ExecuteCommand.Request.1.3"),
        ("uavcan.node.ExecuteCommand.Request.1.1", "uavcan.node.ExecuteCommand.Request.1.1"),
        ("uavcan.node.ExecuteCommand.1.1.Response", "uavcan.node.ExecuteCommand.Response.1.1"),
        ("reg.udral.service.battery.Status", "reg.udral.service.battery.Status.0.2"),
    ],
)
def test_type_names_as_yakut_takes_them(name: str, chosen: str) -> None:
    dirs = dsdl_values.namespace_dirs([UAVCAN, REG], None)
    found = dsdl_values.find_class(name, dirs)._FULL_NAME_
    assert found == chosen


def test_cyphal_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    """Folders separated by os.pathsep or ';', each holding root namespaces; stale entries skipped."""
    for sep in (os.pathsep, ";"):
        monkeypatch.setenv("CYPHAL_PATH", f"{tmp_path / 'missing'}{sep}{PUBLIC}{sep}")
        assert _ok("dsdl", "encode", "uavcan.node.Heartbeat", "{uptime: 7}").strip() == (
            "07000000000000"
        )
        assert _ok(
            "dsdl", "decode", "reg.udral.physics.dynamics.translation.LinearTs.0.1", "00", "--json"
        )
    dirs = dsdl_values.namespace_dirs([], str(PUBLIC))
    assert sorted(d.name for d in dirs) == ["reg", "uavcan"]  # no .github or other folders
    # --lookup comes first: a root of the same name there wins
    dirs = dsdl_values.namespace_dirs([CORNER], str(PUBLIC))
    assert dirs[0] == CORNER
    monkeypatch.delenv("CYPHAL_PATH")
    code, _, err = _run("dsdl", "encode", "uavcan.node.Heartbeat", "{}")
    assert code == 1 and "CYPHAL_PATH" in err


def test_plain_form_matches_pycyphal(pycyphal_public: dict[str, ModuleType]) -> None:
    """pycyphal's to_builtin output encodes to pycyphal's bytes, and decoding prints the same form."""
    import importlib

    import pycyphal.dsdl as pyc

    for sub in ("node", "node.port", "primitive", "primitive.array", "register"):
        importlib.import_module(f"uavcan.{sub}")
    uavcan = pycyphal_public["uavcan"]
    objects = [
        uavcan.node.Heartbeat_1_0(uptime=9, health=uavcan.node.Health_1_0(2)),
        uavcan.primitive.String_1_0("printable text"),
        uavcan.primitive.String_1_0("h\xe9llo"),  # not printable ASCII: a list, as in pycyphal
        uavcan.primitive.String_1_0(""),
        uavcan.register.Access_1_0.Request(
            uavcan.register.Name_1_0("my.reg"),
            uavcan.register.Value_1_0(integer16=uavcan.primitive.array.Integer16_1_0([1, -2])),
        ),
        uavcan.register.Value_1_0(string=uavcan.primitive.String_1_0("x")),
        uavcan.register.Value_1_0(real64=uavcan.primitive.array.Real64_1_0([0.5, -1e300])),
        uavcan.node.GetInfo_1_0.Response(
            name="org.example", unique_id=bytes(range(16)), certificate_of_authenticity=b"\x00\xff"
        ),
        uavcan.node.port.List_1_0(),
    ]
    for obj in objects:
        model = pyc.get_model(obj)
        name = f"{model.full_name}.{model.version.major}.{model.version.minor}"
        plain = pyc.to_builtin(obj)
        ref = b"".join(pyc.serialize(obj)).hex()
        assert _encode(name, json.dumps(plain)) == ref, name
        assert _decode(name, ref) == plain, name


def test_positional_shorthand_as_pycyphal(pycyphal_public: dict[str, ModuleType]) -> None:
    """Values in field order, as pycyphal's update_from_builtin takes them: the same bytes."""
    import importlib

    import pycyphal.dsdl as pyc

    for sub in ("node", "primitive.array", "register", "si.unit.angle"):
        importlib.import_module(f"uavcan.{sub}")
    uavcan = pycyphal_public["uavcan"]
    cases = [
        (uavcan.node.Heartbeat_1_0, "[123456, 1, 2]"),
        (uavcan.node.Heartbeat_1_0, "123456"),
        (uavcan.primitive.array.Real64_1_0, "123.456"),
        (uavcan.primitive.array.Real64_1_0, "[123.456]"),
        (uavcan.primitive.array.Real64_1_0, "[123.456, -9]"),
        (uavcan.register.Access_1_0.Request, '["X", {"integer8": 99}]'),
        (uavcan.si.unit.angle.Scalar_1_0, "2.31"),
        (uavcan.register.Value_1_0, "[[]]"),
    ]
    for cls, text in cases:
        model = pyc.get_model(cls)
        name = f"{model.full_name}.{model.version.major}.{model.version.minor}"
        ref = b"".join(pyc.serialize(pyc.update_from_builtin(cls(), yaml.safe_load(text))))
        assert _encode(name, text) == ref.hex(), (name, text)


def test_floats_shortest_and_non_finite() -> None:
    name = "uavcan.primitive.array.Real32.1.0"
    hexed = _encode(name, "{value: [1.1, .nan, -.inf, .inf, -0.0, 3.4028235e+38]}")
    assert (
        hexed
        == bytes([6]).hex()
        + np.array([1.1, math.nan, -math.inf, math.inf, -0.0, 3.4028235e38], "<f4").tobytes().hex()
    )
    # JSON: strings for the numbers JSON lacks; YAML: its own .nan / .inf
    assert _decode(name, hexed) == {"value": [1.1, "nan", "-inf", "inf", -0.0, 3.4028235e38]}
    text = _ok("dsdl", "decode", name, hexed, "--yaml", *_LOOKUP)
    assert text == "value: [1.1, .nan, -.inf, .inf, -0.0, 3.4028235e+38]\n"
    # both read back; JSON's own NaN / Infinity too
    assert _encode(name, json.dumps(_decode(name, hexed))) == hexed
    assert _encode(name, text) == hexed
    assert _encode(name, '{"value": [1.1, NaN, -Infinity, Infinity, -0.0, 3.4028235e38]}') == hexed
    f16 = "uavcan.primitive.scalar.Real16.1.0"
    assert _decode(f16, _encode(f16, "{value: 0.1}")) == {"value": 0.1}


def test_raw_bytes_in_and_out() -> None:
    raw = io.TextIOWrapper(io.BytesIO(), write_through=True)
    assert (
        main(
            ["dsdl", "encode", "uavcan.node.Heartbeat.1.0", "{uptime: 1}", "--raw", *_LOOKUP],
            out=raw,
        )
        == 0
    )
    data = raw.buffer.getvalue()  # type: ignore[attr-defined]
    assert data == bytes.fromhex("01000000000000")
    saved = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(data))
    try:
        out = _ok("dsdl", "decode", "uavcan.node.Heartbeat.1.0", "-", "--raw", "--json", *_LOOKUP)
    finally:
        sys.stdin = saved
    assert json.loads(out)["uptime"] == 1


def _command(*argv: str) -> list[str]:
    return [sys.executable, "-m", "wireplan", *argv]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), env.get("PYTHONPATH", "")])
    return env


_HB = ("dsdl", "decode", "uavcan.node.Heartbeat.1.0", "05000000010000", *_LOOKUP)


def test_piped_prints_json_and_raw_pipes() -> None:
    done = subprocess.run(_command(*_HB), capture_output=True, text=True, env=_env(), check=True)
    assert done.stdout.count("\n") == 1
    assert json.loads(done.stdout)["health"] == {"value": 1}
    # encode --raw | decode --raw -
    enc = subprocess.run(
        _command("dsdl", "encode", "uavcan.node.Heartbeat.1.0", "{uptime: 3}", "--raw", *_LOOKUP),
        capture_output=True,
        env=_env(),
        check=True,
    )
    assert enc.stdout == bytes.fromhex("03000000000000")
    dec = subprocess.run(
        _command("dsdl", "decode", "uavcan.node.Heartbeat.1.0", "-", "--raw", "--yaml", *_LOOKUP),
        input=enc.stdout,
        capture_output=True,
        env=_env(),
        check=True,
    )
    assert dec.stdout.decode().startswith("uptime: 3\n")


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal (POSIX)")
def test_terminal_prints_yaml() -> None:
    code, text, err = ptyrun.run(_command(*_HB), terminal="stdout", env=_env(), timeout=120)
    assert code == 0, err
    assert text == (
        "uptime: 5\nhealth:\n  value: 1\nmode:\n  value: 0\nvendor_specific_status_code: 0\n"
    )


_ACCESS = "uavcan.register.Access.Request.1.0"
_BAD = [
    (("encode", "uavcan.node.Heartbeat.1.0", "{health: [}"), "neither JSON nor YAML"),
    (
        ("encode", "uavcan.node.Heartbeat.1.0", "{helth: {value: 1}}"),
        "unknown field 'helth' of uavcan.node.Heartbeat.1.0 (fields: uptime, health,",
    ),
    (
        ("encode", "uavcan.node.Heartbeat.1.0", "{health: {value: 4}}"),
        "$.health.value: 4 is out of range for uint2 (0..3)",
    ),
    (("encode", "uavcan.node.Heartbeat.1.0", "{uptime: -1}"), "$.uptime: -1 is out of range"),
    (
        ("encode", "uavcan.node.Heartbeat.1.0", "{uptime: 1.5}"),
        "$.uptime: uint32 requires an integer",
    ),
    (
        ("encode", "uavcan.node.Heartbeat.1.0", "[1, 2, 3, 4, 5]"),
        "5 values for 4 fields of uavcan.node.Heartbeat.1.0",
    ),
    (
        ("encode", "uavcan.node.Heartbeat.1.0", "{health: [1, 2]}"),
        "$.health: 2 values for 1 field of uavcan.node.Health.1.0",
    ),
    (  # a union's lone value is for its first field, here the empty one
        ("encode", "uavcan.register.Value.1.0", "7"),
        "$.empty: 1 value for 0 fields of uavcan.primitive.Empty.1.0",
    ),
    (
        ("encode", "uavcan.primitive.array.Real32.1.0", "{value: [1, x]}"),
        "$.value[1]: float32 requires a number",
    ),
    (
        ("encode", "uavcan.primitive.array.Real16.1.0", "{value: [1e6]}"),
        "$.value[0]: 1000000.0 is out of range for float16",
    ),
    (
        ("encode", "uavcan.primitive.array.Bit.1.0", "{value: [true, 2]}"),
        "$.value[1]: bool requires true or false",
    ),
    (
        ("encode", "uavcan.register.Name.1.0", "{name: " + "x" * 256 + "}"),
        "$.name: array length 256 exceeds capacity 255",
    ),
    (
        ("encode", "uavcan.node.GetInfo.Response.1.0", "{unique_id: [1, 2]}"),
        "$.unique_id: fixed-length array requires exactly 16",
    ),
    (
        ("encode", _ACCESS, "{value: {empty: {}, natural8: {value: [1]}}}"),
        "$.value: union uavcan.register.Value.1.0 requires exactly one",
    ),
    (("encode", _ACCESS, "{value: {}}"), "$.value: union"),
    (("encode", _ACCESS, "{value: {nope: {}}}"), "$.value: unknown field 'nope'"),
    (
        ("encode", _ACCESS, "{value: {natural8: {value: [1, 256]}}}"),
        "$.value.natural8.value[1]: 256 is out of range",
    ),
    (
        ("encode", "uavcan.node.Heartbeet.1.0", "{}"),
        "no type uavcan.node.Heartbeet; did you mean uavcan.node.Heartbeat?",
    ),
    (
        ("encode", "uavcan.nodes.Heartbeat.1.0", "{}"),
        "no namespace 'uavcan.nodes'; did you mean uavcan.node.Heartbeat?",
    ),
    (
        ("decode", "uavcan.node.heartbeat", "00"),
        "no type uavcan.node.heartbeat; did you mean uavcan.node.Heartbeat?",
    ),
    (("encode", "acme.Thing.1.0", "{}"), "no root namespace 'acme'"),
    (
        ("encode", "uavcan.node.Heartbeat.9", "{}"),
        "no version 9 of uavcan.node.Heartbeat (have 1.0)",
    ),
    (("encode", "uavcan.register.Access.1.0", "{}"), "is a service"),
    (("encode", "uavcan.node.Heartbeat.1.0.Request", "{}"), "is not a service"),
    (("encode", "Heartbeat", "{}"), "not a DSDL type name"),
    (("decode", "uavcan.node.Heartbeat.1.0", "0g"), "not hex: 'g' at character 2"),
    (("decode", "uavcan.node.Heartbeat.1.0", "012"), "odd number of hex digits"),
    (("decode", "uavcan.node.Heartbeat.1.0", "00", "--raw"), "--raw reads the bytes from stdin"),
    (("decode", "uavcan.register.Value.1.0", "ff"), "at byte 0"),
    (
        ("decode", "uavcan.primitive.String.1.0", "ffff"),
        "at byte 0 ($.value): array length 65535 exceeds",
    ),
]


@pytest.mark.parametrize(
    ("argv", "message"), _BAD, ids=[" ".join(a[:2]) + f" {i}" for i, (a, _) in enumerate(_BAD)]
)
def test_bad_input_is_one_line_with_the_path(argv: tuple[str, ...], message: str) -> None:
    code, out, err = _run("dsdl", *argv, *_LOOKUP)
    assert code != 0
    assert out == ""
    assert err.startswith("wireplan: error: ") and err.count("\n") == 1, err
    assert message in err, err
    assert "Traceback" not in err


def test_bad_input_in_a_subprocess_has_no_traceback() -> None:
    done = subprocess.run(
        _command("dsdl", "encode", "uavcan.node.Heartbeat.1.0", "{mode: {value: 9}}", *_LOOKUP),
        capture_output=True,
        text=True,
        env=_env(),
    )
    assert done.returncode == 1
    assert done.stderr == "wireplan: error: $.mode.value: 9 is out of range for uint3 (0..7)\n"
