"""The C++ reader (wireplan_evalue.hpp) against the Python decoder, under ASan and UBSan.

Both read the same bytes: the Java golden vectors, the cases the Python decoder's own tests
use (every truncation, byte flips, hostile headers and tables), hypothesis-generated values,
lists and their damaged forms, and every record of files written with RecordWriter.  They
must agree on the verdict: the values (strings and tensor data found at the same bytes), or
the error's kind, byte offset, record and element, and its reason.  gcc is required (a
missing compiler fails); clang++ is checked where it is installed.
"""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest
import test_evalue_bad_input as bad_input
from evalue_support import load_golden
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from wireplan.errors import DecodeError, LimitError
from wireplan.evalue import (
    NUMPY_MAX_RANK,
    RawTensor,
    RecordFile,
    RecordWriter,
    decode,
    decode_list,
    encode,
    encode_list,
    info_for_code,
    info_for_dtype,
)
from wireplan.evalue._codec import CHECKED_MAX_RANK
from wireplan.evalue._cpp import HEADERS, header_folder

HERE = Path(__file__).resolve().parent
DRIVER = HERE / "test_cpp_reader_driver.cpp"
WARNINGS = ["-std=c++17", "-Wall", "-Wextra", "-Werror", "-pedantic"]
SANITIZE = ["-O1", "-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all"]
SANITIZER_ENV = {
    "ASAN_OPTIONS": "abort_on_error=0:detect_leaks=0:halt_on_error=1",
    "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1",
}

# The reason of each C++ error code (the Code enum's order), as the Python decoder words it.
REASONS = [
    None,  # Ok
    r"empty input",
    r"truncated",
    r"trailing bytes?",
    r"unknown EValue tag",
    r"exists in ExecuTorch's C\+\+ runtime",
    r"Bool byte is",
    r"unknown tensor scalar type",
    r"is not one ExecuTorch's Java layer accepts",
    r"negative tensor rank",
    r"negative tensor size",
    r"not valid UTF-8",
    r"Bool tensor element",
    r"declares \d+ data bytes",
    r"String declares",
    r"overflows the element count",
    r"not an EValue list",
    r"unsupported list version",
    r"unknown list flags",
    r"list declares \d+ elements",
    r"past the list end",
    r"overlaps what comes before it",
    r"non-zero padding",
    r"not an EValue record file",
    r"unsupported record file version",
    r"unknown record file flags",
    r"record file declares",
    r"record \d+ declares",
    r"the header declares \d+ records",
]

Case = tuple[str, bytes, bool, bool]  # mode ('v', 'l', 'r'), bytes, extended, text


def compile_cpp(compiler: str, flags: Sequence[str], sources: Iterable[Path], out: Path) -> Path:
    """Build ``out`` from ``sources`` with the shipped headers on the include path."""
    cmd = [compiler, *flags, "-I", str(header_folder()), *map(str, sources), "-o", str(out)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{' '.join(cmd)}\n{done.stderr}"
    return out


def _gcc() -> str:
    found = shutil.which("g++")
    assert found, "g++ is needed to test the C++ reader"
    return found


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cpp") / "driver"
    return compile_cpp(_gcc(), [*WARNINGS, *SANITIZE], [DRIVER], out)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # Hypothesis runs many examples in one test: a folder for all of them.
    return tmp_path_factory.mktemp("scratch")


def run_batch(binary: Path, cases: Sequence[Case], tmp: Path) -> list[str]:
    """The driver's line for each case."""
    batch = tmp / "batch.bin"
    with open(batch, "wb") as f:
        for mode, blob, extended, text in cases:
            flags = int(extended) | 2 * int(text)
            f.write(mode.encode() + bytes([flags]) + struct.pack("<Q", len(blob)) + blob)
    env = os.environ | SANITIZER_ENV
    done = subprocess.run(
        [str(binary), str(batch)], capture_output=True, text=True, env=env, timeout=600
    )
    assert done.returncode == 0, done.stderr[-4000:]
    lines = done.stdout.splitlines()
    assert len(lines) == len(cases)
    return lines


# -- the two verdicts, in one form -------------------------------------------------------


def _cpp_value(blob: bytes, token: str) -> tuple[Any, ...]:
    kind, rest = token[0], token[1:]
    if kind == "N":
        return ("N",)
    if kind == "B":
        return ("B", rest == "1")
    if kind == "I":
        return ("I", int(rest))
    if kind == "D":
        return ("D", int(rest, 16))
    if kind == "S":
        off, n = map(int, rest.split("+"))
        return ("S", blob[off : off + n])
    code, rank, sizes, span = rest.split(",")
    where, checksum = span.split("#")
    off, n = map(int, where.split("+"))
    shape = tuple(int(s) for s in sizes.split("x")) if sizes else ()
    assert len(shape) == int(rank)
    return ("T", int(code), shape, blob[off : off + n], int(checksum, 16))


def cpp_verdict(blob: bytes, line: str) -> tuple[Any, ...]:
    """A driver line as ("E", limit, offset, record, element, code) or ("O", items)."""
    head, _, err = line.partition(" E ")
    if err:
        code, limit, offset, record, element = map(int, err.split()[:5])
        return ("E", bool(limit), offset, record, element, code)
    items = []
    for token in head.split()[1:]:
        where, what, value = token.split(":", 2)
        items.append((int(where), int(what), _cpp_value(blob, value)))
    return ("O", items)


def _weighted_sum(native: bytes) -> int:
    b = np.frombuffer(native, np.uint8).astype(np.uint64)
    with np.errstate(over="ignore"):
        return int((b * np.arange(1, b.size + 1, dtype=np.uint64)).sum(dtype=np.uint64))


def _native(wire: bytes, code: int, itemsize: int) -> bytes:
    part = itemsize // 2 if code in (8, 9, 10) else itemsize
    if part == 1:
        return wire
    return np.frombuffer(wire, f">u{part}").astype(f"<u{part}").tobytes()


def _py_value(value: Any) -> tuple[Any, ...]:
    if value is None:
        return ("N",)
    if isinstance(value, bool):
        return ("B", value)
    if isinstance(value, int):
        return ("I", value)
    if isinstance(value, float):
        return ("D", struct.unpack(">Q", struct.pack(">d", value))[0])
    if isinstance(value, str):
        return ("S", value.encode("utf-8", "surrogatepass"))
    if isinstance(value, bytes):
        return ("S", value)
    if isinstance(value, RawTensor):
        code, shape, wire = value.scalar_type, tuple(value.shape), bytes(value.data)
    else:
        assert isinstance(value, np.ndarray)
        info = info_for_dtype(value.dtype)
        assert info is not None
        code, shape, wire = info.code, value.shape, value.tobytes()
    info = info_for_code(code)
    assert info is not None
    return ("T", code, shape, wire, _weighted_sum(_native(wire, code, info.itemsize)))


def _location(path: str) -> list[int]:
    return [int(n) for n in re.findall(r"\[(\d+)\]", path)]


def py_verdict(case: Case, tmp: Path) -> tuple[Any, ...]:
    """What the Python decoder says (views: copy=False), in cpp_verdict's form."""
    mode, blob, extended, text = case
    kw = {"copy": False, "extended": extended, "text": text}
    try:
        if mode == "v":
            return ("O", [(-1, -1, _py_value(decode(blob, **kw)))])
        if mode == "l":
            return ("O", [(-1, i, _py_value(v)) for i, v in enumerate(decode_list(blob, **kw))])
        path = tmp / "case.evr"
        path.write_bytes(blob)
        with RecordFile(path, **kw) as f:
            return (
                "O",
                [(r, i, _py_value(v)) for r, rec in enumerate(f) for i, v in enumerate(rec)],
            )
    except DecodeError as exc:
        at = _location(exc.path)
        if mode == "v":
            record, element = -1, -1
        elif mode == "l":
            record, element = -1, at[0] if at else -1
        else:
            record, element = [*at, -1, -1][:2]
        assert exc.offset is not None
        return ("E", isinstance(exc, LimitError), exc.offset, record, element, exc.reason)


def check_agree(binary: Path, cases: Sequence[Case], tmp: Path) -> list[tuple[Any, ...]]:
    """Run ``cases`` through the driver and the Python decoder; they must agree."""
    lines = run_batch(binary, cases, tmp)
    out = []
    for case, line in zip(cases, lines, strict=True):
        ours, theirs = cpp_verdict(case[1], line), py_verdict(case, tmp)
        if theirs[0] == "E":
            assert ours[0] == "E", (case, line, theirs)
            assert ours[1:5] == theirs[1:5], (case, line, theirs)
            assert re.search(REASONS[ours[5]], theirs[5]), (case, line, theirs)
        else:
            assert ours == theirs, (case, line, theirs)
        out.append(ours)
    return out


def every_flag(mode: str, blobs: Iterable[bytes]) -> list[Case]:
    return [(mode, b, ext, text) for b in blobs for ext in (False, True) for text in (False, True)]


def damaged(blob: bytes) -> list[bytes]:
    """Every truncation, one extra byte, and each byte set to 0x00, 0x80 and 0xff."""
    out = [blob[:k] for k in range(len(blob))] + [blob + b"\x00"]
    for i in range(len(blob)):
        for b in (0x00, 0x80, 0xFF):
            if blob[i] != b:
                out.append(blob[:i] + bytes([b]) + blob[i + 1 :])
    return out


# -- the tests ---------------------------------------------------------------------------


def test_checked_rank_matches_the_header() -> None:
    # The header mirrors the Python decoder's numpy-type checks up to this rank.
    text = (header_folder() / "wireplan_evalue.hpp").read_text(encoding="utf-8")
    assert f"kCheckedMaxRank = {CHECKED_MAX_RANK};" in text


@pytest.mark.parametrize("rank", [1, 32, 33, 40, 64, 65])
def test_checks_up_to_the_checked_rank_whichever_numpy(
    rank: int, driver: Path, tmp_path: Path
) -> None:
    """A bool byte of 2 and a zero-size shape whose other sizes overflow are refused up to
    CHECKED_MAX_RANK, by both readers, under numpy 1.x (which holds rank 32) as under 2.x;
    deeper, both hand out the bytes."""

    def sizes(shape: tuple[int, ...]) -> bytes:
        return b"".join(struct.pack(">i", n) for n in shape)

    bad_bool = bytes([1, 11, rank]) + sizes((1,) * rank) + b"\x02"
    overflow = bytes([1, 6, rank]) + sizes((0,) + (2**31 - 1,) * (rank - 1))
    verdicts = check_agree(driver, every_flag("v", [bad_bool, overflow]), tmp_path)
    checked = rank <= CHECKED_MAX_RANK
    bool_extended = verdicts[2]  # every_flag: (extended False, True) x (text False, True)
    assert bool_extended[0] == ("E" if checked else "O"), bool_extended
    if rank > 1:  # a rank-1 shape (0,) has no other size to overflow
        assert verdicts[4][0] == ("E" if checked else "O"), verdicts[4]
    if not checked:
        assert isinstance(decode(bad_bool, extended=True), RawTensor)
    elif rank > NUMPY_MAX_RANK:  # numpy 1.x: still refused, though it cannot hold the shape
        with pytest.raises(DecodeError, match="Bool tensor element 0 is 2, not 0 or 1"):
            decode(bad_bool, extended=True, copy=False)


def test_golden_vectors(driver: Path, tmp_path: Path) -> None:
    golden = [d for _, d in load_golden()]
    verdicts = check_agree(driver, every_flag("v", golden), tmp_path)
    assert all(v[0] == "O" for v in verdicts)
    tensors = [v[1][0][2] for v in verdicts if v[1][0][2][0] == "T"]
    assert len(tensors) >= 4 * 8  # the views point at the tensors' bytes in the input


def test_golden_vectors_damaged(driver: Path, tmp_path: Path) -> None:
    cases = [c for _, d in load_golden() for c in every_flag("v", damaged(d))]
    verdicts = check_agree(driver, cases, tmp_path)
    assert sum(v[0] == "E" for v in verdicts) > len(cases) // 2


def test_python_decoder_samples(driver: Path, tmp_path: Path) -> None:
    # test_evalue_bad_input's samples: every truncation, one byte more, byte flips.
    cases = [c for blob, _ in bad_input.SAMPLES for c in every_flag("v", damaged(blob))]
    huge = bad_input.HUGE
    cases += every_flag("v", huge) + every_flag("l", [b for b in huge if b[:4] == b"WPEL"])
    check_agree(driver, cases, tmp_path)


def test_python_error_offset_table(driver: Path, tmp_path: Path) -> None:
    marks = getattr(bad_input.test_error_offsets, "pytestmark")  # noqa: B009  (set by pytest)
    (mark,) = (m for m in marks if m.name == "parametrize")
    rows = mark.args[1]
    verdicts = check_agree(driver, [("v", blob, False, True) for blob, _, _ in rows], tmp_path)
    for (_, offset, _), v in zip(rows, verdicts, strict=True):
        assert v[0] == "E" and v[2] == offset


# The edges of UTF-8's table 3-7 (overlong forms, surrogates, past U+10FFFF, truncations).
UTF8_EDGES = [
    "c080", "c1bf", "c280", "dfbf", "e09fbf", "e0a080", "ed9fbf", "eda080", "edbfbf",
    "efbfbf", "f08fbfbf", "f0908080", "f48fbfbf", "f4908080", "f5808080", "80", "bf", "fe",
    "ff", "e282", "e228a1", "f09028", "f0", "c2", "e080", "f3bfbf", "f3bfbfbf",
]  # fmt: skip


def test_utf8_edges(driver: Path, tmp_path: Path) -> None:
    blobs = []
    for edge in UTF8_EDGES:
        for text in (bytes.fromhex(edge), b"ab" + bytes.fromhex(edge) + b"c"):
            blobs.append(b"\x02" + struct.pack(">I", len(text)) + text)
    verdicts = check_agree(driver, every_flag("v", blobs), tmp_path)
    assert sum(v[0] == "E" for v in verdicts) > len(blobs)


def test_lists_damaged(driver: Path, tmp_path: Path) -> None:
    cases = [c for blob in bad_input.LISTS for c in every_flag("l", damaged(blob))]
    check_agree(driver, cases, tmp_path)


JAVA_DTYPES = [np.uint8, np.int8, np.int32, np.int64, np.float16, np.float32, np.float64]
OTHER_DTYPES = [np.int16, np.uint16, np.uint32, np.uint64, np.bool_, np.complex64]
OTHER_DTYPES += [np.complex128, ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn]
SHAPES = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=False),
    st.text(max_size=12),
    st.binary(max_size=12),
)


def _arrays(dtypes: list[Any]) -> st.SearchStrategy[Any]:
    def of(dtype: Any) -> st.SearchStrategy[Any]:
        dt = np.dtype(dtype)
        if dt.kind in "biufc" and dt.isbuiltin == 1:  # numpy's own: any values
            return hnp.arrays(dt, SHAPES)
        return SHAPES.map(lambda shape: np.ones(shape, dtype=dt))  # ml_dtypes

    return st.sampled_from(dtypes).flatmap(of)


VALUES = st.one_of(SCALARS, _arrays(JAVA_DTYPES), _arrays(OTHER_DTYPES))
SLOW = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _flips(data: st.DataObject, blob: bytes, n: int) -> list[bytes]:
    out = []
    for _ in range(n):
        buf = bytearray(blob)
        for _ in range(data.draw(st.integers(1, 3))):
            if buf:
                buf[data.draw(st.integers(0, len(buf) - 1))] = data.draw(st.integers(0, 255))
        out.append(bytes(buf))
    return out


@SLOW
@given(values=st.lists(VALUES, min_size=1, max_size=8), data=st.data())
def test_hypothesis_values(
    values: list[Any], data: st.DataObject, driver: Path, scratch: Path
) -> None:
    blobs = [encode(v, extended=True) for v in values]
    cases = every_flag("v", blobs)
    for blob in blobs:
        cases += every_flag("v", [blob[: data.draw(st.integers(0, len(blob)))]])
        cases += every_flag("v", _flips(data, blob, 4))
    check_agree(driver, cases, scratch)


@SLOW
@given(values=st.lists(VALUES, max_size=6), data=st.data())
def test_hypothesis_lists(
    values: list[Any], data: st.DataObject, driver: Path, scratch: Path
) -> None:
    blob = encode_list(values, extended=True)
    cuts = [data.draw(st.integers(0, len(blob))) for _ in range(4)]
    cases = every_flag("l", [blob, *(blob[:k] for k in cuts), *_flips(data, blob, 6)])
    check_agree(driver, cases, scratch)


@SLOW
@given(
    code=st.integers(0, 255),
    rank=st.integers(0, 255),
    sizes=st.lists(st.sampled_from([0, 1, 2, 3, 127, 255, 65536, 2**31 - 1, -1, -(2**31)])),
    tail=st.binary(max_size=40),
)
def test_hostile_tensor_headers(
    code: int, rank: int, sizes: list[int], tail: bytes, driver: Path, scratch: Path
) -> None:
    head = bytes([1, code, rank]) + b"".join(struct.pack(">i", n) for n in sizes[:130])
    check_agree(driver, every_flag("v", [head + tail, head]), scratch)


@SLOW
@given(**bad_input.HOSTILE_LIST_TABLES)
def test_hostile_list_tables(
    entries: list[tuple[int, int]], count_delta: int, body: bytes, driver: Path, scratch: Path
) -> None:
    blob = struct.pack(">4sHHQ", b"WPEL", 1, 0, len(entries) + count_delta)
    blob += b"".join(struct.pack(">QQ", off, n) for off, n in entries) + body
    check_agree(driver, every_flag("l", [blob]), scratch)


def _dataset(path: Path, records: int, seed: int) -> bytes:
    """A record file as the Android side writes it (input tensor, label) and then some."""
    rng = np.random.default_rng(seed)
    with RecordWriter(path, durable=False, extended=True) as w:
        for i in range(records):
            shape = tuple(int(n) for n in rng.integers(0, 5, size=int(rng.integers(0, 4))))
            values: list[Any] = [rng.standard_normal(shape).astype(np.float32), i % 10]
            if i % 3 == 0:
                values += ["caf\u00e9 " + str(i), 0.5 * i, i % 2 == 0, None, b"\xff\x00"]
            if i % 4 == 1:
                values += [rng.integers(-9, 9, size=(2, 3)).astype(np.int64)]
                values += [np.array([True, False]), rng.standard_normal(3).astype(np.float16)]
            w.write(values)
    return path.read_bytes()


def test_every_record_of_a_dataset(driver: Path, tmp_path: Path) -> None:
    blob = _dataset(tmp_path / "train.evr", 300, 0)
    (verdict,) = check_agree(driver, [("r", blob, True, False)], tmp_path)
    assert verdict[0] == "O" and len({item[0] for item in verdict[1]}) == 300
    # Strings checked as text: record 0's bytes b"\xff\x00" are not UTF-8.
    (text,) = check_agree(driver, [("r", blob, True, True)], tmp_path)
    assert text[0] == "E" and text[3:6] == (0, 6, REASONS.index(r"not valid UTF-8"))
    # Java's reader refuses the extended tensors (bool) in record 1: so does ours, at one byte.
    (strict,) = check_agree(driver, [("r", blob, False, False)], tmp_path)
    assert strict[0] == "E" and strict[3:5] == (1, 3)


def test_record_files_damaged(driver: Path, tmp_path: Path) -> None:
    blob = _dataset(tmp_path / "small.evr", 6, 1)
    rng = np.random.default_rng(2)
    blobs = [blob[:k] for k in range(len(blob))] + [blob + b"\x00", blob + bytes(64)]
    blobs += [d for d in damaged(blob[:24]) if len(d) == 24 and d != blob[:24]]
    blobs = [d + blob[24:] if len(d) == 24 and d != blob[:24] else d for d in blobs]
    for i in rng.integers(0, len(blob), size=300):
        blobs.append(blob[:i] + bytes([int(rng.integers(0, 256))]) + blob[i + 1 :])
    cases: list[Case] = [("r", b, ext, not ext) for b in blobs for ext in (False, True)]
    verdicts = check_agree(driver, cases, tmp_path)
    assert {v[5] for v in verdicts if v[0] == "E"} >= {2, 22, 23, 24, 25, 27, 28}


@pytest.mark.parametrize(
    ("compiler", "flags"),
    [
        ("g++", ["-O2", "-fno-exceptions", "-fno-rtti"]),
        ("clang++", [*SANITIZE]),
        ("clang++", ["-O2", "-fno-exceptions"]),
    ],
)
def test_other_builds(compiler: str, flags: list[str], tmp_path: Path) -> None:
    found = shutil.which(compiler)
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{compiler} is missing in CI")
        pytest.skip(f"{compiler} is not installed")
    binary = compile_cpp(found, [*WARNINGS, *flags], [DRIVER], tmp_path / "driver")
    cases = every_flag("v", [d for _, d in load_golden()])
    cases += [c for blob, _ in bad_input.SAMPLES[:8] for c in every_flag("v", damaged(blob))]
    cases += [("r", _dataset(tmp_path / "d.evr", 20, 3), True, True)]
    check_agree(binary, cases, tmp_path)


def test_header_command(tmp_path: Path) -> None:
    wireplan = [sys.executable, "-m", "wireplan", "evalue", "header"]
    done = subprocess.run([*wireplan, "-o", str(tmp_path / "inc")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    for name in HEADERS:
        written = (tmp_path / "inc" / name).read_bytes()
        assert written == (header_folder() / name).read_bytes() and b"#endif" in written
        assert str(tmp_path / "inc" / name) in done.stdout
    printed = subprocess.run(wireplan, capture_output=True, check=True).stdout
    assert printed == (header_folder() / HEADERS[0]).read_bytes()
    (tmp_path / "file").write_bytes(b"")
    bad = subprocess.run([*wireplan, "-o", str(tmp_path / "file" / "x")], capture_output=True)
    assert bad.returncode != 0 and b"cannot create the folder" in bad.stderr
